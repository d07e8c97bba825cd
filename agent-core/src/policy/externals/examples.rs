//! Checks a family's `match` / `not_match` examples: each line is split as
//! a POSIX shell would (quotes honoured) and judged as one external call.

use super::{Category, ExternalPlan, Verdict, classify};
use crate::policy::shell_words;

/// Judge one command line as `^program args...`.
pub fn judge(line: &str) -> ExternalPlan {
    let split = shell_words::split(line);
    assert_eq!(split.commands.len(), 1, "one command per example: {line}");
    let words = &split.commands[0].words;
    let (program, rest) = words.split_first().expect("a program");
    let args: Vec<super::Arg> = rest
        .iter()
        .map(|w| super::Arg::Literal(w.clone()))
        .collect();
    classify(program, &args)
}

/// Every step only reads and nothing raised its verdict.
pub fn is_read_only(plan: &ExternalPlan) -> bool {
    !plan.steps.is_empty()
        && plan
            .steps
            .iter()
            .all(|s| s.category == Category::Read && s.floor.is_none())
        && !plan.reads_program_from_stdin
}

/// Every reason a step of `line` asks or is blocked for, joined by `; `.
pub fn reasons(line: &str) -> String {
    judge(line)
        .steps
        .iter()
        .filter_map(|s| s.floor.as_ref().map(|f| f.reason.clone()))
        .collect::<Vec<_>>()
        .join("; ")
}

/// The strictest floor any step got.
pub fn floor(plan: &ExternalPlan) -> Option<Verdict> {
    plan.steps
        .iter()
        .filter_map(|s| s.floor.as_ref().map(|f| f.verdict))
        .max()
}

/// `matches` are read-only forms; `not_matches` are not (they ask or are
/// blocked). Fails with every line that is judged otherwise.
pub fn check(matches: &[&str], not_matches: &[&str]) {
    let mut wrong = Vec::new();
    for line in matches {
        let plan = judge(line);
        if !is_read_only(&plan) {
            wrong.push(format!("should be read-only: {line} -> {:?}", plan.steps));
        }
    }
    for line in not_matches {
        let plan = judge(line);
        if is_read_only(&plan) {
            wrong.push(format!("should ask: {line}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
