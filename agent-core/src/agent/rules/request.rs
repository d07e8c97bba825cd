//! What the loop reads from the user's words, once per request: one
//! [`RequestFacts`] value. Each fact is a rule of the `scope` lever (by
//! its name, `--without asks-which-ones`, or all of them with the lever):
//! these rules fire on English words of the request, so they are the
//! first to measure on tasks nobody tuned them on. What a fact changes is
//! the rewrite or note that reads it (see `episode` and [`super::notes`]).

use super::super::{levers::Lever, repair, scope};
use super::{Example, Kind, Levers, Rule, becomes, leaves};

/// What a request asks, as far as the loop reads it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RequestFacts {
    /// It asks to look into subfolders too.
    pub subfolders: bool,
    /// It asks which things there are, not how many.
    pub which_ones: bool,
    /// It asks for a figure of each file on its own.
    pub per_file: bool,
    /// The kinds of file it names (`.log files`: `log`).
    pub named_kinds: Vec<String>,
    /// It asks for work in the background (a job). Not a rule: a user's
    /// word for where a step runs, not help for a small model.
    pub background: bool,
}

/// One fact read from a request: what it says of the request (`None`:
/// the fact does not hold).
pub struct Fact {
    pub rule: Rule,
    pub read: fn(&str) -> Option<String>,
}

/// A fact of the scope lever.
const fn rule(name: &'static str, serves: &'static str, examples: &'static [Example]) -> Rule {
    Rule::of(Kind::RequestFact, Lever::Scope, name, serves, examples)
}

/// A fact that holds or not.
fn holds(yes: bool) -> Option<String> {
    yes.then(|| "yes".to_string())
}

/// The facts, in [`RequestFacts`]' order.
pub static FACTS: &[Fact] = &[
    Fact {
        rule: rule(
            "asks-for-subfolders",
            "a request that says subfolders or recursive wants `ls **/*`, and a small model lists one folder",
            &[
                becomes("search recursively for logs", "yes"),
                leaves("list the folders here"),
            ],
        ),
        read: |request| holds(repair::asks_for_subfolders(request)),
    },
    Fact {
        rule: rule(
            "asks-which-ones",
            "\"which/list/find/show …\" asks for the things, and a small model answers with their count",
            &[
                becomes("which files are empty?", "yes"),
                leaves("how many files are empty?"),
            ],
        ),
        read: |request| holds(repair::asks_which_ones(request)),
    },
    Fact {
        rule: rule(
            "asks-per-file",
            "\"in each file\" asks for a figure per file, and `open` of a glob gives one over them all",
            &[
                becomes("count the error lines in each log file", "yes"),
                leaves("count the error lines in app.log"),
            ],
        ),
        read: |request| holds(repair::asks_per_file(request)),
    },
    Fact {
        rule: rule(
            "named-kinds",
            "a request that names kinds of file (`.log files`) keeps a listing, and a change, to them",
            &[
                becomes("remove the .tmp files", "tmp"),
                leaves("open report.pdf"),
            ],
        ),
        read: |request| {
            let kinds = scope::named_kinds(request);
            (!kinds.is_empty()).then(|| kinds.join(" "))
        },
    },
];

impl RequestFacts {
    /// The facts of `request` that `levers` leave on.
    pub fn read(request: &str, levers: &Levers) -> RequestFacts {
        let fact = |name: &str| {
            FACTS
                .iter()
                .find(|fact| fact.rule.name == name)
                .filter(|fact| fact.rule.on(levers))
                .and_then(|fact| (fact.read)(request))
        };
        RequestFacts {
            subfolders: fact("asks-for-subfolders").is_some(),
            which_ones: fact("asks-which-ones").is_some(),
            per_file: fact("asks-per-file").is_some(),
            named_kinds: fact("named-kinds")
                .map(|kinds| kinds.split(' ').map(str::to_string).collect())
                .unwrap_or_default(),
            background: asks_for_background(request),
        }
    }
}

/// Whether `request` asks for work in the background ("run it in the
/// background", "as a job").
fn asks_for_background(request: &str) -> bool {
    let request = request.to_lowercase();
    request.contains("background")
        || request
            .split(|c: char| !c.is_alphanumeric())
            .any(|word| word == "job" || word == "jobs")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_fact_gives_its_examples() {
        for fact in FACTS {
            for example in fact.rule.examples {
                assert_eq!(
                    (fact.read)(example.given).as_deref(),
                    example.gives,
                    "{}: {}",
                    fact.rule.name,
                    example.given
                );
            }
        }
    }

    #[test]
    fn a_fact_switched_off_does_not_hold() {
        let request = "list the .log files in every subfolder recursively, in the background";
        let facts = RequestFacts::read(request, &Levers::default());
        assert!(facts.subfolders && facts.which_ones && facts.background);
        assert_eq!(facts.named_kinds, ["log"]);
        let off = Levers::default().without_rules(["asks-for-subfolders"]);
        let facts = RequestFacts::read(request, &off);
        assert!(!facts.subfolders && facts.which_ones);
        let scope_off = Levers::without([Lever::Scope]);
        let facts = RequestFacts::read(request, &scope_off);
        assert_eq!(
            facts,
            RequestFacts {
                background: true,
                ..RequestFacts::default()
            }
        );
    }
}
