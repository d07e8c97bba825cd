//! Rewrites the loop makes with what only it holds — the engine's
//! commands, the programs on this machine, the request's words — named,
//! switchable and with examples a test runs, as every rule is. The code
//! that applies each is where the loop holds what it reads
//! (`episode/rewrite.rs`, `episode/judge.rs`, [`copied_values`]).
//!
//! [`copied_values`]: super::super::copied_values

use super::super::levers::Lever;
use super::{Kind, Rule, becomes, leaves};

/// `^name` of a Nushell command with no program of that name here.
pub static CARET_OF_A_COMMAND: Rule = Rule::of(
    Kind::Rewrite,
    Lever::Translation,
    "caret-of-a-command",
    "`^name` runs a program; where none has the name and Nushell has the command (`^sys cpu`), the command is meant",
    &[
        becomes("^sys cpu | length", "sys cpu | length"),
        leaves("^ls -la"),
    ],
);

/// A plain POSIX pipeline that is no Nushell, run as its programs.
pub static PROGRAMS_OF_A_POSIX_PIPELINE: Rule = Rule::of(
    Kind::Rewrite,
    Lever::Translation,
    "programs-of-a-posix-pipeline",
    "a plain POSIX pipeline Nushell cannot parse runs as the programs it names (`du -sh * | sort -h`)",
    &[
        becomes("du -sh * | sort -h", "^du -sh * | ^sort -h"),
        leaves("ps aux && rm x"),
    ],
);

/// A read's filter holding a value of the prompt's examples the request
/// does not give (see [`copied_values`]).
///
/// [`copied_values`]: super::super::copied_values
pub static COPIED_FILTER: Rule = Rule::of(
    Kind::Rewrite,
    Lever::Scope,
    "copied-filter",
    "a small model copies the prompt's example filters, values and all (`where size > 1mb`, `first 3`): a read runs without a filter whose value the request does not give",
    &[
        becomes(
            "ls **/* | where size > 1mb | sort-by size --reverse | first 3",
            "ls **/* | sort-by size --reverse",
        ),
        leaves("ls | where type == dir"),
    ],
);

/// The loop's own rewrites.
pub static LOOP_RULES: &[&Rule] = &[
    &CARET_OF_A_COMMAND,
    &PROGRAMS_OF_A_POSIX_PIPELINE,
    &COPIED_FILTER,
];

#[cfg(test)]
mod tests {
    use super::super::super::{bash_forms, copied_values, habits};
    use super::*;
    use crate::shell::Engine;

    /// What `rule` makes of `given`, with what the loop reads for it: the
    /// engine, programs on a PATH of the usual tools, a request asking
    /// which folder is the biggest.
    fn applied(rule: &Rule, given: &str) -> Option<String> {
        let engine = Engine::standard();
        let on_path = |program: &str| ["du", "sort", "ps", "rm", "ls"].contains(&program);
        match rule.name {
            "caret-of-a-command" => {
                let head = given.split_whitespace().next()?.trim_start_matches('^');
                let unknown = [head.to_string()];
                let unknown = if on_path(head) { &[][..] } else { &unknown[..] };
                habits::without_caret_of_commands(engine.state(), given, unknown)
            }
            "programs-of-a-posix-pipeline" => {
                bash_forms::as_programs(engine.state(), given, on_path)
            }
            "copied-filter" => {
                copied_values::without_copied_filters(given, "which folder here is the biggest?")
                    .map(|(kept, _)| kept)
            }
            other => panic!("{other} has no example runner"),
        }
    }

    #[test]
    fn each_loop_rule_gives_its_examples() {
        for rule in LOOP_RULES {
            for example in rule.examples {
                assert_eq!(
                    applied(rule, example.given).as_deref(),
                    example.gives,
                    "{}: {}",
                    rule.name,
                    example.given
                );
            }
        }
    }
}
