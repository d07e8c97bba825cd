//! The rewrites of a script of the `sh` tool (the `posix` lever): bash a
//! model writes almost right, run as it means. Each is exact; the script
//! rewritten is judged by the policy as any other.

use super::super::levers::Lever;
use super::super::posix;
use super::{Kind, Rule, TextRewrite, When, becomes, leaves};

/// The script rewrites, in the order they apply.
pub static SCRIPT_REWRITES: &[TextRewrite] = &[TextRewrite {
    rule: Rule::of(
        Kind::Rewrite,
        Lever::Posix,
        "find-exec-closed",
        "`find … -exec CMD {}` ends at `\\;`, which a model writing JSON drops or leaves half written (`{} \\`)",
        &[
            becomes(
                "^bash -c r#'find . -name '*.log' -exec rm {} | wc -l'#",
                "^bash -c r#'find . -name '*.log' -exec rm {} \\; | wc -l'#",
            ),
            becomes(
                "^bash -c r#'find . -type f -exec chmod 644 {} \\'#",
                "^bash -c r#'find . -type f -exec chmod 644 {} \\;'#",
            ),
            leaves("^bash -c r#'find . -exec du -b {} + | sort -n'#"),
            leaves("^bash -c r#'find . -exec rm {} \\;'#"),
            leaves("find . -exec rm {}"),
        ],
    ),
    when: When::Script,
    apply: |call| {
        posix::with_script(call.pipeline, posix::with_exec_closed)
            .map(|closed| (closed, "`find … -exec CMD {}` ends at `\\;`".to_string()))
    },
}];
