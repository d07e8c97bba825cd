//! The parts of the loop that help a small model, each of which can be
//! switched off on its own to measure what it does (`nu-agent eval
//! --without LEVER`). Everything is on in `ask`; a lever switched off
//! leaves the loop as it was without it, the harness (policy, sandbox,
//! step limit) untouched.

use std::fmt;

/// One part of the loop that can be switched off.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Lever {
    /// The `nu` tool's pipeline held to Nushell's shape, each element
    /// starting with a command or program here (`agent.pipeline_grammar`).
    PipelineGrammar,
    /// The files a request names read first and their shape told with it
    /// (`agent.read_named_files`).
    NamedFiles,
    /// The prompt's worked example episode (request → pipeline → result →
    /// answer).
    Example,
    /// Almost-Nushell (`30days`), bash in Nushell (`cat f | wc -l`) and
    /// plain POSIX pipelines run as their exact Nushell form or as the
    /// programs.
    Translation,
    /// A step failing on an error with an exact fix runs fixed; errors and
    /// empty results carry a hint (the command's usage, the data's shape,
    /// where the rows went); a step that gave something ends with the call
    /// to answer when that is all the request needs.
    Repair,
    /// A turn repeating an earlier call, or writing a pipeline that cannot
    /// run, is sampled again, steered away from it; a step that only shows
    /// an earlier result again is not run.
    Resample,
    /// The call that ran in another form is shown in that form in the
    /// conversation the model reads next.
    ShowAsRan,
    /// A filter given no input after a result runs on that result, and a
    /// whole earlier read goes on from its `$out`.
    Feed,
    /// A listing is kept to the kinds of file the request names,
    /// "which …" is answered with the rows, not their count, "in each
    /// file" with a figure per file, and a read runs without a filter
    /// copied with a made-up value of the prompt's examples that the
    /// request does not give.
    Scope,
    /// Answers are checked before they reach the user: echoes of a message,
    /// a change no step made, a stop left unsaid, facts no result shows.
    AnswerChecks,
    /// A task's request is told with the working directory's entries, two
    /// levels deep (see `what_is_here`).
    WhatIsHere,
    /// A task's request is told with the engine's commands that fit its
    /// words best, with their usage and an example (see `engine_docs`).
    EngineDocs,
    /// A task's model is offered the `sh` tool: a POSIX shell script, read
    /// by a shell grammar and run as `^bash -c` under the policy (see
    /// `posix`).
    Posix,
    /// With the `sh` tool, the prompt teaches bash for files and text
    /// first and Nushell for tables and data, its example episode a
    /// script (see `prompt::shell_first`).
    ShellFirst,
    /// With the `sh` tool, it is the only tool that runs anything: the
    /// model is offered `sh` and `answer`, not `nu` (Nushell written in a
    /// script still runs as Nushell).
    ShOnly,
    /// An answer right after a step that gave something returns that
    /// result with it (text or table), as `ask`'s value, so the user sees
    /// what ran and can pipe it.
    AnswerOutput,
    /// The call to answer after a step that gave something says the
    /// request back, so the model weighs the result against all of it
    /// (see `rules::notes`, `done-ask`).
    Recall,
    /// A step that may change files has the files under the working
    /// directory taken before and after it: one that ran but changed
    /// nothing is told so, not as done (see `effects`).
    Effects,
    /// A script the policy lets run as a read is tried aside before it is
    /// a step; where it fails or gives nothing, the model's next most
    /// likely calls are tried the same way and the first that gives
    /// something is the step (see `episode/candidates.rs`).
    TryReads,
    /// Each task's request is worked in the dialect it suits: bash (the
    /// `posix`, `sh-only` and `answer-output` levers together) for files
    /// and text, Nushell for a request about a data file here, piped
    /// input or a value kept between steps (see `dialect`).
    Dialect,
    /// With `answer-output`, a script's text of an exact known form (a
    /// long listing, `du`'s sizes, counts per file or per value) is
    /// returned as the table it stands for (see `text_tables`).
    TextTables,
}

impl Lever {
    /// Every lever, in the order of the eval's rows.
    pub const ALL: [Lever; 21] = [
        Lever::PipelineGrammar,
        Lever::NamedFiles,
        Lever::Example,
        Lever::Translation,
        Lever::Repair,
        Lever::Resample,
        Lever::ShowAsRan,
        Lever::Feed,
        Lever::Scope,
        Lever::AnswerChecks,
        Lever::WhatIsHere,
        Lever::EngineDocs,
        Lever::Posix,
        Lever::ShellFirst,
        Lever::ShOnly,
        Lever::AnswerOutput,
        Lever::Recall,
        Lever::Effects,
        Lever::TryReads,
        Lever::Dialect,
        Lever::TextTables,
    ];

    /// The lever's name on the command line (`show-as-ran`).
    pub fn name(self) -> &'static str {
        match self {
            Lever::PipelineGrammar => "pipeline-grammar",
            Lever::NamedFiles => "named-files",
            Lever::Example => "example",
            Lever::Translation => "translation",
            Lever::Repair => "repair",
            Lever::Resample => "resample",
            Lever::ShowAsRan => "show-as-ran",
            Lever::Feed => "feed",
            Lever::Scope => "scope",
            Lever::AnswerChecks => "answer-checks",
            Lever::WhatIsHere => "what-is-here",
            Lever::EngineDocs => "engine-docs",
            Lever::Posix => "posix",
            Lever::ShellFirst => "shell-first",
            Lever::ShOnly => "sh-only",
            Lever::AnswerOutput => "answer-output",
            Lever::Recall => "recall",
            Lever::Effects => "effects",
            Lever::TryReads => "try-reads",
            Lever::Dialect => "dialect",
            Lever::TextTables => "text-tables",
        }
    }

    /// Levers on trial: off unless a run names them (`nu-agent eval
    /// --with LEVER`) until they pay on the held-out dev split.
    pub const ON_TRIAL: [Lever; 11] = [
        Lever::WhatIsHere,
        Lever::EngineDocs,
        Lever::Posix,
        Lever::ShellFirst,
        Lever::ShOnly,
        Lever::AnswerOutput,
        Lever::Recall,
        Lever::Effects,
        Lever::TryReads,
        Lever::Dialect,
        Lever::TextTables,
    ];

    /// The lever named `name`.
    pub fn from_name(name: &str) -> Result<Lever, String> {
        Lever::ALL
            .into_iter()
            .find(|lever| lever.name() == name.trim())
            .ok_or_else(|| {
                let names: Vec<&str> = Lever::ALL.iter().map(|l| l.name()).collect();
                format!("no lever `{name}`; the levers: {}", names.join(", "))
            })
    }
}

impl fmt::Display for Lever {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The levers switched off (by default, only those on trial), and the
/// rules switched off by name (see `rules`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Levers {
    off: Vec<Lever>,
    rules_off: Vec<String>,
}

impl Default for Levers {
    fn default() -> Levers {
        Levers::without([])
    }
}

impl Levers {
    /// Every lever on but `off` and those on trial.
    pub fn without(off: impl IntoIterator<Item = Lever>) -> Levers {
        Levers::switched(off, [])
    }

    /// Every lever on but `off`; of those on trial, only `trying`.
    pub fn switched(
        off: impl IntoIterator<Item = Lever>,
        trying: impl IntoIterator<Item = Lever>,
    ) -> Levers {
        let trying: Vec<Lever> = trying.into_iter().collect();
        let mut off: Vec<Lever> = off
            .into_iter()
            .chain(Lever::ON_TRIAL.into_iter().filter(|l| !trying.contains(l)))
            .collect();
        off.sort_unstable();
        off.dedup();
        Levers {
            off,
            rules_off: Vec::new(),
        }
    }

    /// These levers with the rules named `names` switched off too.
    pub fn without_rules<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Levers {
        self.rules_off.extend(names.into_iter().map(Into::into));
        self.rules_off.sort_unstable();
        self.rules_off.dedup();
        self
    }

    /// Whether the rule named `name` is switched off by its name.
    pub fn rule_named_off(&self, name: &str) -> bool {
        self.rules_off.iter().any(|off| off == name)
    }

    /// The rules switched off by name, in order.
    pub fn rules_off(&self) -> &[String] {
        &self.rules_off
    }

    /// These levers with `lever` switched on (`on`) or off.
    pub fn switch(mut self, lever: Lever, on: bool) -> Levers {
        self.off.retain(|off| *off != lever);
        if !on {
            self.off.push(lever);
            self.off.sort_unstable();
        }
        self
    }

    /// Whether `lever` is on.
    pub fn on(&self, lever: Lever) -> bool {
        !self.off.contains(&lever)
    }

    /// The levers switched off, in order.
    pub fn off(&self) -> &[Lever] {
        &self.off
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_lever_is_found_by_its_name() {
        for lever in Lever::ALL {
            assert_eq!(Lever::from_name(lever.name()), Ok(lever));
        }
        let error = Lever::from_name("grammar").unwrap_err();
        assert!(error.contains("pipeline-grammar"), "{error}");
    }

    #[test]
    fn only_the_levers_switched_off_are_off() {
        let levers = Levers::without([Lever::Feed, Lever::Repair, Lever::Feed]);
        assert_eq!(
            levers.off(),
            &[
                Lever::Repair,
                Lever::Feed,
                Lever::WhatIsHere,
                Lever::EngineDocs,
                Lever::Posix,
                Lever::ShellFirst,
                Lever::ShOnly,
                Lever::AnswerOutput,
                Lever::Recall,
                Lever::Effects,
                Lever::TryReads,
                Lever::Dialect,
                Lever::TextTables
            ]
        );
        assert!(!levers.on(Lever::Feed));
        assert!(levers.on(Lever::Translation));
        assert!(Levers::default().on(Lever::Feed));
    }

    #[test]
    fn a_lever_on_trial_is_off_unless_tried() {
        assert!(!Levers::default().on(Lever::WhatIsHere));
        let trying = Levers::switched([Lever::Feed], [Lever::WhatIsHere]);
        assert!(trying.on(Lever::WhatIsHere) && !trying.on(Lever::EngineDocs));
        assert!(!trying.on(Lever::Feed));
    }

    #[test]
    fn a_lever_switched_is_on_or_off_and_the_rest_as_they_were() {
        let levers = Levers::default().switch(Lever::Posix, true);
        assert!(levers.on(Lever::Posix) && !levers.on(Lever::ShOnly));
        let levers = levers
            .switch(Lever::Posix, false)
            .switch(Lever::Feed, false);
        assert!(!levers.on(Lever::Posix) && !levers.on(Lever::Feed));
        assert!(levers.on(Lever::Repair));
        assert_eq!(levers.switch(Lever::Feed, true), Levers::default());
    }
}
