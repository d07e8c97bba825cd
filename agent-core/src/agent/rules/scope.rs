//! The rewrites of a call to what the request's words ask (the `scope`
//! lever): each reads one of the request's facts ([`RequestFacts`]) and
//! runs first in a step, before the policy judges it. A small model keeps
//! its own pipeline where a note would send it astray, so the pipeline
//! that fits the request runs in its place, and the model is told why.

use super::super::{levers::Lever, listing_forms as listing, near_nushell as near, repair};
use super::{Call, Example, Kind, RequestFacts, Rule, TextRewrite, When, becomes, leaves};

/// A rewrite of the scope lever.
const fn rule(name: &'static str, serves: &'static str, examples: &'static [Example]) -> Rule {
    Rule::of(Kind::Rewrite, Lever::Scope, name, serves, examples)
}

/// The facts of the request `call` was made for (none where it has none).
fn facts<'a>(call: &Call<'a>) -> &'a RequestFacts {
    static NONE: RequestFacts = RequestFacts {
        subfolders: false,
        which_ones: false,
        per_file: false,
        named_kinds: Vec::new(),
        background: false,
    };
    call.facts.unwrap_or(&NONE)
}

/// The scope rewrites, in the order they apply.
pub static SCOPE_REWRITES: &[TextRewrite] = &[
    TextRewrite {
        rule: rule(
            "rows-not-their-count",
            "\"which files…\" (asks-which-ones) answered with `| length` gives how many, not the rows asked for",
            &[
                becomes("ls | where size == 0b | length", "ls | where size == 0b"),
                leaves("ls | each { length }"),
            ],
        ),
        when: When::Scoped,
        apply: |call| {
            let rows =
                near::without_final_count(call.pipeline).filter(|_| facts(call).which_ones)?;
            Some((
                rows,
                "A count gives only how many, and the rows themselves were asked for".into(),
            ))
        },
    },
    TextRewrite {
        rule: rule(
            "each-file-of-a-glob",
            "\"in each file\" (asks-per-file): `open` of a glob gives one figure over all the files",
            &[
                becomes(
                    "open *.csv | get amount | math sum",
                    "ls *.csv | insert sum {|f| open $f.name | get amount | math sum }",
                ),
                leaves("open a.log | lines | length"),
            ],
        ),
        when: When::Scoped,
        apply: |call| {
            let each =
                listing::opened_glob_per_file(call.pipeline).filter(|_| facts(call).per_file)?;
            Some((
                each,
                "The request asks for each file's own figure, and `open` of a glob gives one over them all".into(),
            ))
        },
    },
    TextRewrite {
        rule: rule(
            "over-subfolders",
            "a request for subfolders too (asks-for-subfolders) where the step lists one folder that has some",
            &[
                becomes(
                    "ls -a *.bak | each { rm $in.name }",
                    "ls -a **/*.bak | each { rm $in.name }",
                ),
                leaves("ls **/*.bak"),
            ],
        ),
        when: When::Scoped,
        apply: |call| {
            if !facts(call).subfolders {
                return None;
            }
            let whole = repair::over_subfolders(call.pipeline, call.cwd?)?;
            Some((
                whole,
                "`ls **/…` looks into subfolders, as the request asks".into(),
            ))
        },
    },
];
