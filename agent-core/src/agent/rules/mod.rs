//! The agent's rules as units. A rule is a fact read from the request's
//! words, a rewrite of a call (the pipeline the model wrote, run in the
//! form Nushell means) or a note added to an observation; each carries its name, the
//! lever that switches it off (`nu-agent eval --without NAME`, or its
//! family's lever), a line saying which Nushell fact or model habit it
//! serves, and its examples, each checked by a test. `nu-agent eval
//! --list-rules` lists them all.
//!
//! The registries keep the order the loop applies the rules in: a rule
//! earlier in [`REWRITES`] sees the pipeline first.

mod answer_checks;
mod bash_forms;
mod exact_fixes;
mod loop_rules;
mod notes;
mod request;
mod scope;
mod scripts;
mod translation;

use super::levers::{Lever, Levers};
use crate::shell::Diagnostic;

pub use answer_checks::{
    ANSWER_CHECKS, AnswerVerdict, Record, Said, hollow_answer, normalize, verdict as answer_verdict,
};
pub use bash_forms::{BASH_FORMS, as_nushell as bash_as_nushell};
pub use exact_fixes::EXACT_FIXES;
pub use loop_rules::{CARET_OF_A_COMMAND, COPIED_FILTER, LOOP_RULES, PROGRAMS_OF_A_POSIX_PIPELINE};
pub use notes::{NOTES, Outcome, Reads, with_notes};
pub use request::{FACTS, RequestFacts};
pub use scope::SCOPE_REWRITES;
pub use scripts::SCRIPT_REWRITES;
pub use translation::TRANSLATIONS;

/// What a rule is, where the loop applies it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Rewrites the call the model made before it runs, or after it failed.
    Rewrite,
    /// Adds a note to what a step's result tells the model.
    Note,
    /// Reads a fact from the request's words, once (see [`RequestFacts`]).
    RequestFact,
    /// Checks an answer before it reaches the user.
    AnswerCheck,
}

impl Kind {
    /// The kind's name in listings.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Rewrite => "rewrite",
            Kind::Note => "note",
            Kind::RequestFact => "request fact",
            Kind::AnswerCheck => "answer check",
        }
    }
}

/// One example of a rule: what it is `given`, and what it `gives` (`None`:
/// the rule leaves it alone).
#[derive(Clone, Copy, Debug)]
pub struct Example {
    pub given: &'static str,
    pub gives: Option<&'static str>,
}

/// `given` rewritten as `gives`.
pub const fn becomes(given: &'static str, gives: &'static str) -> Example {
    Example {
        given,
        gives: Some(gives),
    }
}

/// `given` left as it is.
pub const fn leaves(given: &'static str) -> Example {
    Example { given, gives: None }
}

/// What every rule says of itself.
#[derive(Debug)]
pub struct Rule {
    /// The rule's name, which `--without` takes.
    pub name: &'static str,
    pub kind: Kind,
    /// The family of rules it belongs to: switching the family's lever off
    /// switches it off too.
    pub lever: Lever,
    /// The Nushell fact or model habit it serves, in one line.
    pub serves: &'static str,
    pub examples: &'static [Example],
}

impl Rule {
    /// A rule of `kind` in the family of `lever`.
    pub const fn of(
        kind: Kind,
        lever: Lever,
        name: &'static str,
        serves: &'static str,
        examples: &'static [Example],
    ) -> Rule {
        Rule {
            name,
            kind,
            lever,
            serves,
            examples,
        }
    }

    /// Whether the rule is on under `levers`: its family's lever is, and
    /// it is not switched off by its name.
    pub fn on(&self, levers: &Levers) -> bool {
        levers.on(self.lever) && !levers.rule_named_off(self.name)
    }
}

/// What `--without NAME` switches off: a lever (a family of rules, or a
/// part of the loop), or one rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Switch {
    Lever(Lever),
    Rule(&'static str),
}

impl Switch {
    /// The lever or rule named `name`.
    pub fn from_name(name: &str) -> Result<Switch, String> {
        if let Ok(lever) = Lever::from_name(name) {
            return Ok(Switch::Lever(lever));
        }
        named(name)
            .map(|rule| Switch::Rule(rule.name))
            .ok_or_else(|| {
                let levers: Vec<&str> = Lever::ALL.iter().map(|l| l.name()).collect();
                format!(
                    "no lever or rule `{name}`; the levers: {}; the rules: `nu-agent eval --list-rules`",
                    levers.join(", ")
                )
            })
    }
}

/// When in a step a rewrite looks at the pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum When {
    /// As the model wrote it, whether it parses or not.
    Written,
    /// As written, only when it does not parse.
    Unparsable,
    /// After it ran and failed with an error the rewrite reads.
    Failed,
    /// As written, first in a step: to what the request's words ask.
    Scoped,
    /// A script of the `sh` tool, as its pipeline (see `posix`).
    Script,
}

/// The call a rewrite looks at.
#[derive(Clone, Copy, Debug)]
pub struct Call<'a> {
    pub pipeline: &'a str,
    /// The error it failed with ([`When::Failed`] only).
    pub error: Option<&'a Diagnostic>,
    /// What the request asks ([`When::Scoped`] only).
    pub facts: Option<&'a RequestFacts>,
    /// The working directory ([`When::Scoped`] only).
    pub cwd: Option<&'a std::path::Path>,
}

/// A pipeline rewritten, with the note the model reads of it ("`30days`
/// is `30day`") and the rule that rewrote it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rewritten {
    pub pipeline: String,
    pub note: String,
    pub rule: &'static str,
}

/// A rewrite of a call into the form that runs.
pub trait Rewrite: Sync {
    /// What the rule says of itself.
    fn rule(&self) -> &Rule;
    /// When in a step it looks at the pipeline.
    fn when(&self) -> When;
    /// `call` rewritten; `None` when the rule has nothing to rewrite.
    fn rewrite(&self, call: &Call<'_>) -> Option<Rewritten>;
}

/// A rewrite made by one function of the pipeline (and the error, where it
/// reads one), which gives the pipeline rewritten and its note: the common
/// form of [`Rewrite`].
pub struct TextRewrite {
    pub rule: Rule,
    pub when: When,
    pub apply: fn(&Call<'_>) -> Option<(String, String)>,
}

impl Rewrite for TextRewrite {
    fn rule(&self) -> &Rule {
        &self.rule
    }

    fn when(&self) -> When {
        self.when
    }

    fn rewrite(&self, call: &Call<'_>) -> Option<Rewritten> {
        (self.apply)(call)
            .filter(|(pipeline, _)| pipeline != call.pipeline)
            .map(|(pipeline, note)| Rewritten {
                pipeline,
                note,
                rule: self.rule.name,
            })
    }
}

/// The rewrites, in the order the loop applies them.
pub fn rewrites() -> impl Iterator<Item = &'static dyn Rewrite> {
    SCOPE_REWRITES
        .iter()
        .chain(TRANSLATIONS)
        .chain(EXACT_FIXES)
        .chain(SCRIPT_REWRITES)
        .map(|rule| rule as &dyn Rewrite)
}

/// Every rule: the request's facts, the rewrites, bash's forms, the
/// loop's own rewrites, the notes, then the answer checks.
pub fn all() -> impl Iterator<Item = &'static Rule> {
    FACTS
        .iter()
        .map(|fact| &fact.rule)
        .chain(rewrites().map(|rewrite| rewrite.rule()))
        .chain(BASH_FORMS.iter().map(|form| &form.rule))
        .chain(LOOP_RULES.iter().copied())
        .chain(NOTES.iter().map(|note| &note.rule))
        .chain(ANSWER_CHECKS.iter().map(|check| &check.rule))
}

/// The rule named `name`.
pub fn named(name: &str) -> Option<&'static Rule> {
    all().find(|rule| rule.name == name.trim())
}

/// `call` rewritten by every rewrite of `when` (in [`rewrites`]' order,
/// each seeing the last one's pipeline) that `levers` leave on, with each
/// one's rewrite (its note, its rule); `None` when none rewrote it.
pub fn rewritten(
    pipeline: &str,
    when: &[When],
    error: Option<&Diagnostic>,
    levers: &Levers,
) -> Option<(String, Vec<Rewritten>)> {
    let mut text = pipeline.to_string();
    let mut notes: Vec<Rewritten> = Vec::new();
    for rewrite in rewrites().filter(|r| when.contains(&r.when()) && r.rule().on(levers)) {
        let call = Call {
            pipeline: &text,
            error,
            facts: None,
            cwd: None,
        };
        if let Some(done) = rewrite.rewrite(&call) {
            text = done.pipeline.clone();
            notes.push(done);
        }
    }
    (!notes.is_empty()).then_some((text, notes))
}

/// The first rewrite that fixes `pipeline`, which failed with `error`
/// (the [`When::Failed`] rewrites, in order, that `levers` leave on).
pub fn exact_fix(pipeline: &str, error: &Diagnostic, levers: &Levers) -> Option<Rewritten> {
    let call = Call {
        pipeline,
        error: Some(error),
        facts: None,
        cwd: None,
    };
    rewrites()
        .filter(|r| r.when() == When::Failed && r.rule().on(levers))
        .find_map(|rewrite| rewrite.rewrite(&call))
}

/// `pipeline` made to fit what the request asks (`facts`; the step runs
/// in `cwd`), with each rewrite (the [`When::Scoped`] rewrites `levers`
/// leave on, in order); `None` when none applied.
pub fn scoped(
    pipeline: &str,
    facts: &RequestFacts,
    cwd: &std::path::Path,
    levers: &Levers,
) -> Option<(String, Vec<Rewritten>)> {
    let mut text = pipeline.to_string();
    let mut done: Vec<Rewritten> = Vec::new();
    for rewrite in rewrites().filter(|r| r.when() == When::Scoped && r.rule().on(levers)) {
        let call = Call {
            pipeline: &text,
            error: None,
            facts: Some(facts),
            cwd: Some(cwd),
        };
        if let Some(rewritten) = rewrite.rewrite(&call) {
            text = rewritten.pipeline.clone();
            done.push(rewritten);
        }
    }
    (!done.is_empty()).then_some((text, done))
}

/// `pipeline`, a script of the `sh` tool, as bash means it (the
/// [`When::Script`] rewrites `levers` leave on); `None` when nothing
/// needed rewriting.
pub fn as_script_means(pipeline: &str, levers: &Levers) -> Option<(String, Vec<Rewritten>)> {
    rewritten(pipeline, &[When::Script], None, levers)
}

/// `pipeline` as Nushell means it, with a note of each rewrite (for the
/// model: "`30days` is `30day`"); `None` when nothing needed rewriting. A
/// pipeline that `parses` gets only the rewrites of what parses but never
/// means what it says (the commas of a column list).
pub fn as_nushell(
    pipeline: &str,
    parses: bool,
    levers: &Levers,
) -> Option<(String, Vec<Rewritten>)> {
    let when: &[When] = if parses {
        &[When::Written]
    } else {
        &[When::Written, When::Unparsable]
    };
    rewritten(pipeline, when, None, levers)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rules as a Markdown table (name, kind, lever, what it serves, an
    /// example), as `docs/rules.md` carries it.
    fn markdown_table() -> String {
        let cell = |text: &str| text.replace('|', "\\|").replace('\n', " ");
        let mut table =
            String::from("| rule | kind | lever | serves | example |\n|---|---|---|---|---|\n");
        for rule in all() {
            let example = rule
                .examples
                .iter()
                .find_map(|example| {
                    let gives = example.gives?;
                    Some(match rule.kind {
                        Kind::Rewrite => format!("`{}` → `{}`", example.given, gives),
                        Kind::Note => format!("`{}` → \"…{}…\"", example.given, gives),
                        Kind::RequestFact => format!("\"{}\" → {}", example.given, gives),
                        Kind::AnswerCheck => format!("\"{}\" → {}", example.given, gives),
                    })
                })
                .unwrap_or_default();
            table.push_str(&format!(
                "| `{}` | {} | {} | {} | {} |\n",
                rule.name,
                rule.kind.name(),
                rule.lever.name(),
                cell(rule.serves),
                cell(&example)
            ));
        }
        table
    }

    #[test]
    fn the_docs_list_every_rule_as_the_registry_has_it() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/rules.md");
        let docs = std::fs::read_to_string(&path).unwrap_or_default();
        let table = markdown_table();
        if std::env::var_os("NU_AGENT_BLESS").is_some() {
            let head = docs.split("| rule |").next().unwrap_or_default();
            std::fs::write(&path, format!("{head}{table}")).unwrap();
            return;
        }
        assert!(
            docs.ends_with(&table),
            "docs/rules.md is not the registry's table: run `NU_AGENT_BLESS=1 cargo test -p agent-core --lib rules` and commit it"
        );
    }

    #[test]
    fn every_rule_has_a_name_of_its_own_a_line_and_examples() {
        let mut names: Vec<&str> = all().map(|rule| rule.name).collect();
        let count = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), count, "two rules share a name");
        for rule in all() {
            assert!(
                !rule.serves.is_empty() && !rule.examples.is_empty(),
                "{}",
                rule.name
            );
            assert!(
                rule.examples.iter().any(|e| e.gives.is_some()),
                "{}: no example of what it does",
                rule.name
            );
            assert!(
                Lever::from_name(rule.name).is_err(),
                "{} is a lever's name",
                rule.name
            );
            assert_eq!(named(rule.name).map(|r| r.name), Some(rule.name));
        }
    }

    #[test]
    fn a_rule_switched_off_by_name_or_by_its_family_rewrites_nothing() {
        let given = "ls | where modified < ((date now) - 30days)";
        let on = as_nushell(given, false, &Levers::default());
        assert_eq!(
            on.map(|(text, _)| text).as_deref(),
            Some("ls | where modified < ((date now) - 30day)")
        );
        let by_name = Levers::default().without_rules(["duration-units"]);
        assert_eq!(as_nushell(given, false, &by_name), None);
        let by_family = Levers::without([Lever::Translation]);
        assert_eq!(as_nushell(given, false, &by_family), None);
    }

    #[test]
    fn each_rewrite_of_a_written_pipeline_gives_its_examples() {
        // A request that asks for everything, in a folder with a subfolder.
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let facts = RequestFacts {
            subfolders: true,
            which_ones: true,
            per_file: true,
            ..RequestFacts::default()
        };
        for rewrite in rewrites().filter(|r| r.when() != When::Failed) {
            for example in rewrite.rule().examples {
                let call = Call {
                    pipeline: example.given,
                    error: None,
                    facts: Some(&facts),
                    cwd: Some(dir.path()),
                };
                let gives = rewrite.rewrite(&call).map(|done| done.pipeline);
                assert_eq!(
                    gives.as_deref(),
                    example.gives,
                    "{}: {}",
                    rewrite.rule().name,
                    example.given
                );
            }
        }
    }
}
