//! Bash commands written inside a Nushell pipeline, as their exact Nushell
//! form (the `translation` lever): one rule per command, each reading one
//! element of the pipeline (`ps aux | grep x | select pid` → `ps | find x
//! | select pid`). The first rule that gives a form for an element is
//! taken; an element none of them reads stays as it is. Nothing here
//! decides what may run: the result is judged by the policy as any
//! pipeline is. The element's words are read by the shell's tokenizer (see
//! [`Element`]).

use nu_protocol::engine::EngineState;

use super::super::bash_forms::{
    Element, FIND_PREDICATES, elements, is_program, nu_string, nu_string_or_bare, ps_sort,
    without_unknown_flags,
};
use super::super::habits;
use super::super::levers::{Lever, Levers};
use super::{Example, Kind, Rule, becomes, leaves};

/// One bash command's Nushell form, as a rule.
pub struct BashForm {
    pub rule: Rule,
    /// The element's Nushell form; `None` when it is not this rule's.
    pub form: fn(&Element<'_>) -> Option<String>,
}

/// A rule of the translation family.
const fn rule(name: &'static str, serves: &'static str, examples: &'static [Example]) -> Rule {
    Rule::of(Kind::Rewrite, Lever::Translation, name, serves, examples)
}

/// The forms, in the order they are tried on each element.
pub static BASH_FORMS: &[BashForm] = &[
    BashForm {
        rule: rule(
            "ps-is-a-table",
            "Nushell's `ps` takes no arguments and gives a table; bash's `--sort` is a `sort-by` of it",
            &[
                becomes(
                    "ps aux --sort=-%mem | head -n 1",
                    "ps | sort-by mem --reverse | first 1",
                ),
                becomes("ps -eo pid,comm --sort %cpu", "ps | sort-by cpu"),
            ],
        ),
        form: |e| {
            (e.head == "ps").then(|| match ps_sort(&e.args) {
                Some(sort) => format!("ps | {sort}"),
                None => "ps".to_string(),
            })
        },
    },
    BashForm {
        rule: rule(
            "grep-of-rows-is-find",
            "`grep X` after a Nushell command filters its rows: Nushell's `find X` (`-i`, `-v` kept; `-c` counts)",
            &[
                becomes(
                    "ps aux | grep eval-ticker | select pid",
                    "ps | find 'eval-ticker' | select pid",
                ),
                leaves("ls | find -i foo"),
            ],
        ),
        form: |e| {
            let operands = e.operands();
            if !matches!(e.head.as_str(), "grep" | "egrep") || e.first || operands.len() != 1 {
                return None;
            }
            let mut find = String::from("find");
            if e.has('i', "ignore-case") {
                find.push_str(" -i");
            }
            if e.has('v', "invert-match") {
                find.push_str(" -v");
            }
            let counted = if e.has('c', "count") { " | length" } else { "" };
            let lines = if e.after_program { "lines | " } else { "" };
            Some(format!("{lines}{find} {}{counted}", nu_string(operands[0])))
        },
    },
    BashForm {
        rule: rule(
            "grep-of-a-file-is-where",
            "`grep X FILE` first in a pipeline: the file's lines, filtered (`-i`, `-v`, `-c` kept)",
            &[becomes(
                "grep -ic error app.log",
                "open --raw 'app.log' | lines | where $it =~ '(?i)error' | length",
            )],
        ),
        form: |e| {
            let operands = e.operands();
            if !matches!(e.head.as_str(), "grep" | "egrep") || !e.first || operands.len() != 2 {
                return None;
            }
            let pattern = if e.has('i', "ignore-case") {
                format!("(?i){}", operands[0])
            } else {
                operands[0].to_string()
            };
            let op = if e.has('v', "invert-match") {
                "!~"
            } else {
                "=~"
            };
            let counted = if e.has('c', "count") { " | length" } else { "" };
            Some(format!(
                "open --raw {} | lines | where $it {op} {}{counted}",
                nu_string(operands[1]),
                nu_string(&pattern)
            ))
        },
    },
    BashForm {
        rule: rule(
            "wc-l-is-length",
            "`wc -l` after a command counts its rows: `length` (of the lines of a program's text)",
            &[becomes(
                "ls | where size > 1kb | wc -l",
                "ls | where size > 1kb | length",
            )],
        ),
        form: |e| {
            (e.head == "wc" && !e.first && e.has('l', "lines")).then(|| {
                if e.after_program {
                    "lines | length"
                } else {
                    "length"
                }
                .to_string()
            })
        },
    },
    BashForm {
        rule: rule(
            "head-is-first",
            "`head -n N` after a command is `first N`",
            &[
                becomes("ls | get name | head -5", "ls | get name | first 5"),
                becomes(
                    "^git log --oneline | head -n 3",
                    "^git log --oneline | first 3",
                ),
            ],
        ),
        form: |e| counted(e, "head", "first"),
    },
    BashForm {
        rule: rule(
            "tail-is-last",
            "`tail -n N` after a command is `last N`",
            &[becomes(
                "ls | get name | tail -n 2",
                "ls | get name | last 2",
            )],
        ),
        form: |e| counted(e, "tail", "last"),
    },
    BashForm {
        rule: rule(
            "cat-is-open",
            "`cat FILE` first in a pipeline is `open FILE` (a table for data files)",
            &[becomes(
                "cat data.csv | first 2",
                "open 'data.csv' | first 2",
            )],
        ),
        form: |e| {
            let operands = e.operands();
            (e.head == "cat" && e.first && operands.len() == 1 && e.flags().is_empty())
                .then(|| format!("open {}", nu_string(operands[0])))
        },
    },
    BashForm {
        rule: rule(
            "sort-is-sort",
            "`sort [-r]` after a command is Nushell's `sort [--reverse]`",
            &[becomes(
                "ls | get name | sort -r",
                "ls | get name | sort --reverse",
            )],
        ),
        form: |e| with_flag(e, "sort", ('r', "reverse")),
    },
    BashForm {
        rule: rule(
            "uniq-is-uniq",
            "`uniq [-c]` after a command is Nushell's `uniq [--count]`",
            &[becomes(
                "ls | get type | uniq -c",
                "ls | get type | uniq --count",
            )],
        ),
        form: |e| with_flag(e, "uniq", ('c', "count")),
    },
    BashForm {
        rule: rule(
            "du-is-a-table",
            "`du -sh PATH` first in a pipeline is Nushell's `du PATH`, a table of sizes",
            &[becomes("du -ah logs | first 1", "du logs | first 1")],
        ),
        form: |e| {
            (e.head == "du" && e.first && !e.flags().is_empty()).then(|| {
                let paths: Vec<String> =
                    e.operands().iter().map(|p| nu_string_or_bare(p)).collect();
                format!("du {}", paths.join(" ")).trim_end().to_string()
            })
        },
    },
    BashForm {
        rule: rule(
            "df-is-sys-disks",
            "`df` first in a pipeline is `sys disks`, a table of the disks",
            &[becomes("df | first 1", "sys disks | first 1")],
        ),
        form: |e| {
            (e.head == "df" && e.first && e.operands().is_empty()).then(|| "sys disks".to_string())
        },
    },
    BashForm {
        rule: rule(
            "find-predicates-are-the-program",
            "find(1)'s predicates (`-name`, `-type`) are no flags of Nushell's `find` (a filter): the program, its paths a list",
            &[
                becomes(
                    "find . -type f -name '*.rs' | sort",
                    "^find . -type f -name '*.rs' | lines | sort",
                ),
                leaves("ls | find -i foo"),
            ],
        ),
        form: |e| {
            if e.head != "find" || !e.args.iter().any(|a| FIND_PREDICATES.contains(&a.as_str())) {
                return None;
            }
            let words: Vec<String> = (0..e.args.len()).map(|i| e.word(i)).collect();
            Some(format!("^find {} | lines", words.join(" ")))
        },
    },
    BashForm {
        rule: rule(
            "other-names-of-commands",
            "names of other languages that are one Nushell command (`avg` → `math avg`, `count` → `length`), where no command has the name",
            &[becomes(
                "open products.csv | get price | avg",
                "open products.csv | get price | math avg",
            )],
        ),
        form: |e| {
            let command = habits::renamed_command(&e.head)?;
            e.engine
                .find_decl(e.head.as_bytes(), &[])
                .is_none()
                .then(|| {
                    let mut words = vec![command.to_string()];
                    words.extend(e.args.iter().map(|a| nu_string(a)));
                    words.join(" ")
                })
        },
    },
    BashForm {
        rule: rule(
            "flags-nushell-lacks",
            "a Nushell command given flags it does not have (bash's `-h` is its help): those flags left out",
            &[
                becomes("ls -la --recursive | sort-by size", "ls -la | sort-by size"),
                becomes(
                    "ls -lh | sort-by size --reverse",
                    "ls -l | sort-by size --reverse",
                ),
            ],
        ),
        form: |e| without_unknown_flags(e.engine, &e.head, &e.args),
    },
];

/// `NAME -n N` after a command as Nushell's `COMMAND N` (10 where no
/// count is given, as head(1) and tail(1) take).
fn counted(e: &Element<'_>, name: &str, command: &str) -> Option<String> {
    (e.head == name && !e.first && e.only_numbers()).then(|| format!("{command} {}", e.count(10)))
}

/// `NAME [-s]` after a command, with no operands, as Nushell's command of
/// the same name, its flag `(s, long)` written `--long`.
fn with_flag(e: &Element<'_>, name: &str, (short, long): (char, &str)) -> Option<String> {
    (e.head == name && !e.first && e.operands().is_empty()).then(|| {
        if e.has(short, long) {
            format!("{name} --{long}")
        } else {
            name.to_string()
        }
    })
}

/// `pipeline` with the bash commands in it written as Nushell by the forms
/// `levers` leave on, and the rules that wrote them; `None` when nothing
/// changed. An element none reads stays, but for a program after the
/// first element: it would read a Nushell table as text, so the pipeline
/// is left alone.
pub fn as_nushell(
    engine: &EngineState,
    pipeline: &str,
    levers: &Levers,
) -> Option<(String, Vec<&'static str>)> {
    let elements = elements(pipeline)?;
    let mut out: Vec<String> = Vec::new();
    let mut rules: Vec<&'static str> = Vec::new();
    for (index, element) in elements.iter().enumerate() {
        let element = element.trim();
        let previous_is_program = index > 0 && elements[index - 1].trim().starts_with('^');
        let read = Element::read(engine, element, index == 0, previous_is_program);
        let formed = read.as_ref().and_then(|read| {
            BASH_FORMS
                .iter()
                .filter(|form| form.rule.on(levers))
                .find_map(|form| Some(((form.form)(read)?, form.rule.name)))
        });
        match formed {
            Some((nu, rule)) => {
                if nu != element {
                    rules.push(rule);
                }
                out.push(nu);
            }
            // A program left as it is would read a table as text.
            None if index > 0 && is_program(engine, element) => return None,
            None => out.push(element.to_string()),
        }
    }
    (!rules.is_empty()).then(|| (out.join(" | "), rules))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shell::Engine;

    #[test]
    fn each_bash_form_gives_its_examples_and_nothing_switched_off() {
        let engine = Engine::standard();
        for form in BASH_FORMS {
            for example in form.rule.examples {
                let gives =
                    as_nushell(engine.state(), example.given, &Levers::default()).map(|(nu, _)| nu);
                assert_eq!(
                    gives.as_deref(),
                    example.gives,
                    "{}: {}",
                    form.rule.name,
                    example.given
                );
                if example.gives.is_some() {
                    let off = Levers::default().without_rules([form.rule.name]);
                    let without = as_nushell(engine.state(), example.given, &off);
                    assert_ne!(
                        without.map(|(nu, _)| nu).as_deref(),
                        example.gives,
                        "{} switched off: {}",
                        form.rule.name,
                        example.given
                    );
                }
            }
        }
    }

    #[test]
    fn the_rules_that_wrote_a_pipeline_are_named() {
        let engine = Engine::standard();
        let (nu, rules) = as_nushell(
            engine.state(),
            "ps aux | grep ticker | head -n 1",
            &Levers::default(),
        )
        .unwrap();
        assert_eq!(nu, "ps | find 'ticker' | first 1");
        assert_eq!(
            rules,
            ["ps-is-a-table", "grep-of-rows-is-find", "head-is-first"]
        );
        let off = Levers::without([Lever::Translation]);
        assert_eq!(as_nushell(engine.state(), "ps aux", &off), None);
    }

    #[test]
    fn bash_inside_a_nushell_pipeline_becomes_its_exact_nushell_form() {
        let engine = Engine::standard();
        let nu = |p: &str| as_nushell(engine.state(), p, &Levers::default()).map(|(nu, _)| nu);
        assert_eq!(
            nu("ps aux | grep eval-ticker | select pid").as_deref(),
            Some("ps | find 'eval-ticker' | select pid")
        );
        // The order asked of `ps` is kept, as a sort of its table.
        assert_eq!(
            nu("ps aux --sort=-%mem | head -n 1").as_deref(),
            Some("ps | sort-by mem --reverse | first 1")
        );
        assert_eq!(
            nu("ps --sort-by mem --reverse | head -n 1").as_deref(),
            Some("ps | sort-by mem --reverse | first 1")
        );
        assert_eq!(
            nu("ps -eo pid,comm --sort %cpu").as_deref(),
            Some("ps | sort-by cpu")
        );
        assert_eq!(
            nu("grep -ic error app.log").as_deref(),
            Some("open --raw 'app.log' | lines | where $it =~ '(?i)error' | length")
        );
        assert_eq!(
            nu("ls | get name | head -5").as_deref(),
            Some("ls | get name | first 5")
        );
        assert_eq!(
            nu("ls | where size > 1kb | wc -l").as_deref(),
            Some("ls | where size > 1kb | length")
        );
        assert_eq!(
            nu("^git log --oneline | head -n 3").as_deref(),
            Some("^git log --oneline | first 3")
        );
        assert_eq!(
            nu("ls -la --recursive | sort-by size").as_deref(),
            Some("ls -la | sort-by size")
        );
        assert_eq!(
            nu("open products.csv | get price | avg").as_deref(),
            Some("open products.csv | get price | math avg")
        );
        // find(1) with its predicates is the program, whose paths the
        // Nushell after it reads as a list; Nushell's `find` filters.
        assert_eq!(
            nu("find . -type f -name '*.rs' | sort").as_deref(),
            Some("^find . -type f -name '*.rs' | lines | sort")
        );
        assert_eq!(nu("ls | find -i foo"), None);
        // bash's human-readable `h` in a cluster is not Nushell's help.
        assert_eq!(
            nu("ls -lh | sort-by size --reverse").as_deref(),
            Some("ls -l | sort-by size --reverse")
        );
        assert_eq!(
            nu("ls **/*.csv | get size | sum").as_deref(),
            Some("ls **/*.csv | get size | math sum")
        );
        assert_eq!(
            nu("ps | grep ticker | where pid != 1 | first 1").as_deref(),
            Some("ps | find 'ticker' | where pid != 1 | first 1")
        );
        assert_eq!(nu("ls | where size > 1kb | length"), None);
        assert_eq!(nu("ls | each { |f| rm $f.name }"), None);
        assert_eq!(nu("ls; ps aux | grep x"), None);
        assert_eq!(nu("du -sh a.txt | cut -f2"), None, "cut would read a table");
    }
}
