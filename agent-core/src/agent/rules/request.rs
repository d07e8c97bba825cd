//! What the loop reads from the user's words, once per request: one
//! [`RequestFacts`] value. Each fact is a rule of the `scope` lever (by
//! its name, `--without asks-which-ones`, or all of them with the lever):
//! these rules fire on English words of the request, so they are the
//! first to measure on tasks nobody tuned them on. What a fact changes is
//! the rewrite or note that reads it (see `episode` and [`super::notes`]).

use super::super::{levers::Lever, scope};
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
        read: |request| holds(asks_for_subfolders(request)),
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
        read: |request| holds(asks_which_ones(request)),
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
        read: |request| holds(asks_per_file(request)),
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

/// Whether `request` asks which things (files, rows) there are, by name,
/// and not how many: "Which files…", "Find the empty files", "List…".
fn asks_which_ones(request: &str) -> bool {
    let request = request.to_lowercase();
    let words: Vec<&str> = request
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let asks_items = words
        .iter()
        .any(|w| ["which", "list", "find", "show", "name", "names"].contains(w));
    let asks_number = request.contains("how many")
        || request.contains("number of")
        || words
            .iter()
            .any(|w| ["count", "total", "sum", "average"].contains(w));
    asks_items && !asks_number
}

/// Whether `request` asks for something of each file on its own ("in
/// each .log file", "per file", "for every CSV file"), not one figure
/// over them all.
fn asks_per_file(request: &str) -> bool {
    static PER_FILE: std::sync::LazyLock<Option<regex::Regex>> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"(?i)\b(each|every|per)\s+(?:[\w.*-]+\s+){0,2}?files?\b").ok()
    });
    PER_FILE
        .as_ref()
        .is_some_and(|regex| regex.is_match(request))
}

/// Whether `request` asks to look into subfolders too.
fn asks_for_subfolders(request: &str) -> bool {
    let request = request.to_lowercase();
    [
        "subfolder",
        "sub-folder",
        "subdirector",
        "sub-director",
        "recursive",
    ]
    .iter()
    .any(|word| request.contains(word))
}

#[cfg(test)]
mod tests {
    use super::super::super::repair::{over_subfolders, subfolders_hint};
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

    #[test]
    fn a_request_for_each_file_on_its_own_is_told_from_one_over_all() {
        for request in [
            "How many ERROR lines are in each .log file under logs/?",
            "count the lines per file",
            "the total of every CSV file here",
        ] {
            assert!(asks_per_file(request), "{request}");
        }
        for request in [
            "how many lines do the logs have in all?",
            "which files are empty?",
            "each line of notes.txt",
        ] {
            assert!(!asks_per_file(request), "{request}");
        }
    }

    #[test]
    fn a_request_for_which_ones_is_told_from_one_for_how_many() {
        for which in [
            "Which files in this directory have not been modified in 30 days?",
            "Find the empty files here",
            "list the processes named nu",
        ] {
            assert!(asks_which_ones(which), "{which}");
        }
        for how_many in [
            "How many files are empty? List them.",
            "Count the lines of every log",
            "Find the total size of the csv files",
            "Free up disk space",
        ] {
            assert!(!asks_which_ones(how_many), "{how_many}");
        }
    }

    #[test]
    fn one_folder_listed_when_subfolders_were_asked_for_is_pointed_out() {
        assert!(asks_for_subfolders(
            "List every file here and in its Subfolders"
        ));
        assert!(asks_for_subfolders("search recursively for logs"));
        assert!(!asks_for_subfolders("list the folders here"));
        let dir = tempfile::tempdir().unwrap();
        let listed = "ls | where size > 10kb";
        assert_eq!(subfolders_hint(listed, dir.path()), None, "no subfolders");
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let hint = subfolders_hint(listed, dir.path()).unwrap_or_default();
        assert!(hint.contains("`ls **/* | where size > 10kb`"), "{hint}");
        let hint = subfolders_hint("ls *.bak", dir.path()).unwrap_or_default();
        assert!(hint.contains("`ls **/*.bak`"), "{hint}");
        assert_eq!(
            over_subfolders("ls -a *.bak | each { rm $in.name }", dir.path()).as_deref(),
            Some("ls -a **/*.bak | each { rm $in.name }")
        );
        assert_eq!(
            over_subfolders("ls . | where size > 1kb", dir.path()).as_deref(),
            Some("ls **/* | where size > 1kb")
        );
        // A name or a variable is a folder or a file, not a pattern.
        for named in ["ls sub | length", "ls $env.PWD", "ls ..", "ls ($dir)"] {
            assert_eq!(over_subfolders(named, dir.path()), None, "{named}");
        }
        assert_eq!(
            subfolders_hint("ls **/* | where size > 10kb", dir.path()),
            None
        );
        // "Which subfolder is largest" is about this folder's entries.
        for about_folders in ["ls --du | sort-by size", "ls | where type == 'dir'"] {
            assert_eq!(subfolders_hint(about_folders, dir.path()), None);
        }
    }
}
