//! The notes added to what a step's result tells the model (the `repair`
//! lever): after an error, how to write it instead; after a result that
//! is not what it seems (nothing found, a size that is not a size), why.
//! Notes come in groups: of the error notes only the first that speaks is
//! told, then of the result notes only the first, then each of the rest.
//! Some read again what the step read (where the policy allows it without
//! a question), through [`Reads`]. The text work itself is in
//! [`repair`](super::super::repair), [`data_shape`](super::super::data_shape),
//! [`emptied`](super::super::emptied) and
//! [`repository`](super::super::repository).

use std::path::Path;

use nu_protocol::{Value, engine::EngineState};

use super::super::{
    data_shape, emptied, event::StepStatus, levers::Lever, missing_paths, repair, repository, usage,
};
use super::{Example, Kind, Rule, becomes, leaves};
use crate::shell::Diagnostic;

/// What a step was and what it gave, for a note on it.
pub struct Outcome<'a> {
    pub pipeline: &'a str,
    pub status: StepStatus,
    /// The error it failed with (`Failed`, `Unparsable`).
    pub error: Option<&'a Diagnostic>,
    pub value: &'a Value,
    /// Its index in `$out`.
    pub index: usize,
    /// It may change something (a change gives nothing back by design).
    pub changes: bool,
    /// How many paths under the working directory it made, removed or
    /// altered, where they were taken (the `effects` lever).
    pub changed_files: Option<usize>,
    /// What a program it ran wrote to stderr (text; `None` when nothing).
    pub stderr: Option<&'a Value>,
    /// The exit code of the program it ran last, where one ran.
    pub exit_code: Option<i32>,
    /// The working directory it ran in.
    pub cwd: &'a Path,
    /// The request asks for subfolders too.
    pub wants_subfolders: bool,
    /// A task's step (not `explain`'s or `suggest`'s).
    pub task: bool,
    /// The request, to say back with the call to answer (the `recall`
    /// lever); `None` where it is not said back.
    pub recalled: Option<&'a str>,
}

impl Outcome<'_> {
    /// It was a read, and it gave nothing.
    pub fn found_nothing(&self) -> bool {
        !self.changes && is_empty(self.value)
    }

    fn ok(&self) -> bool {
        self.status == StepStatus::Ok
    }

    /// A change that ran without an error, gave nothing back and changed
    /// no file here (where files were taken: the `effects` lever). One
    /// that gave something (`find … -exec wc -l {} +`) was a read.
    fn changed_nothing(&self) -> bool {
        self.ok()
            && self.changes
            && self.changed_files == Some(0)
            && (is_empty(self.value)
                || matches!(self.value, Value::String { val, .. } if val.trim().is_empty()))
    }

    /// A program it ran said on stderr that a path it was given is not
    /// there (`No such file or directory`).
    fn named_a_missing_path(&self) -> bool {
        self.stderr_text().contains("No such file or directory")
    }

    /// The folder an `ls -d` of a bash script named alone (no glob), so
    /// listed itself instead of what is in it. Not Nushell's `ls`: its
    /// note would send it to bash's `find`.
    fn ls_folder_itself(&self) -> Option<String> {
        let folders = self.operands_flagged("ls", 'd', &[]);
        let alone = folders
            .iter()
            .all(|folder| !folder.contains(['*', '?', '[']) && self.cwd.join(folder).is_dir());
        folders.into_iter().next().filter(|_| alone)
    }

    /// The names an `rm -f` of a bash script was given that are not here
    /// now, each with the files beside it of its name and an extension
    /// (`text2` → `text2.txt`): `-f` says nothing of a name that is not
    /// there. Not a name a few letters off, nor one in another folder:
    /// after a removal those may be the files that are left.
    fn removed_names_not_here(&self) -> Vec<(String, Vec<String>)> {
        self.operands_flagged("rm", 'f', &["--force"])
            .into_iter()
            .filter(|name| !name.contains(['*', '?', '[', '$', '{']))
            .filter_map(|name| {
                let near = missing_paths::named_with_an_extension(&name, self.cwd);
                (!near.is_empty()).then_some((name, near))
            })
            .collect()
    }

    /// The operands (words not starting with `-`) of each command of a
    /// bash script that runs `program` with the short flag `short` (alone
    /// or among others: `-ld`) or one of `long`; empty for Nushell.
    fn operands_flagged(&self, program: &str, short: char, long: &[&str]) -> Vec<String> {
        let Some(script) = crate::agent::posix::script_of(self.pipeline) else {
            return Vec::new();
        };
        crate::agent::posix::arguments_of(script, program)
            .into_iter()
            .filter(|words| {
                words.iter().any(|word| {
                    long.contains(&word.as_str())
                        || (word.starts_with('-')
                            && !word.starts_with("--")
                            && word.contains(short))
                })
            })
            .flat_map(|words| words.into_iter().filter(|word| !word.starts_with('-')))
            .collect()
    }

    /// What a program it ran wrote to stderr, as text.
    fn stderr_text(&self) -> &str {
        self.stderr
            .and_then(|stderr| stderr.as_str().ok())
            .unwrap_or("")
    }

    fn failed(&self) -> Option<&Diagnostic> {
        self.error.filter(|_| self.status == StepStatus::Failed)
    }
}

/// Whether `value` is nothing or an empty list.
pub fn is_empty(value: &Value) -> bool {
    match value {
        Value::Nothing { .. } => true,
        Value::List { vals, .. } => vals.is_empty(),
        _ => false,
    }
}

/// What a note may read again: a pipeline run where the policy lets it run
/// without a question, and the results shown before.
pub trait Reads {
    /// `pipeline` run as a read: its `$out` index and value; `None` when it
    /// would ask, is refused or fails.
    fn read(&mut self, pipeline: &str) -> Option<(usize, Value)>;
    /// The results before `$out.before`, `(N, $out.N)`, oldest first.
    fn earlier_outs(&self, before: usize) -> Vec<(usize, Value)>;
    /// The data file a note read again is shown as `$out.index` (a next
    /// step may go on from it).
    fn shown_source(&mut self, index: usize);
    /// The engine the step ran in.
    fn engine(&self) -> &EngineState;
}

/// Which notes of a step are told.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    /// After an error: the first that speaks.
    Error,
    /// After a result: the first that speaks.
    Result,
    /// Each that speaks.
    Each,
}

/// Where a note goes in what the model reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// Before the result: what to write instead (a small model reads the
    /// top of a long error).
    First,
    /// After it.
    After,
}

/// A note added to what a step's result tells the model.
pub struct Note {
    pub rule: Rule,
    pub group: Group,
    pub place: Place,
    pub say: fn(&Outcome<'_>, &mut dyn Reads) -> Option<String>,
}

/// A rule of the notes.
const fn rule(name: &'static str, serves: &'static str, examples: &'static [Example]) -> Rule {
    Rule::of(Kind::Note, Lever::Repair, name, serves, examples)
}

/// For a step over the data file it opened that failed on a column or
/// cell path (`error`), or found nothing (`error` is `None`): that file
/// read again and its shape told (see [`data_shape`]).
fn data_shape_of(
    pipeline: &str,
    error: Option<&Diagnostic>,
    reads: &mut dyn Reads,
) -> Option<String> {
    let wanted = match error {
        Some(diagnostic) if !data_shape::is_path_error(diagnostic) => return None,
        Some(diagnostic) => data_shape::wanted_name(diagnostic),
        None => None,
    };
    let source = data_shape::opened_file(pipeline)?;
    if source == pipeline.trim() {
        return None;
    }
    let (index, value) = reads.read(source)?;
    reads.shown_source(index);
    Some(data_shape::describe(
        pipeline,
        source,
        index,
        &value,
        wanted.as_deref(),
    ))
}

/// The notes, in the order they are tried.
pub static NOTES: &[Note] = &[
    Note {
        rule: rule(
            "usage-of-what-failed-to-parse",
            "a pipeline that does not parse gets the usage of the command the parser points at, and the Nushell form of a bash habit there",
            &[becomes("ps aux | first", "ps: "), leaves("ls | first 1")],
        ),
        group: Group::Error,
        place: Place::After,
        say: |outcome, reads| {
            let error = outcome
                .error
                .filter(|_| outcome.status == StepStatus::Unparsable)?;
            usage::usage_hint(reads.engine(), outcome.pipeline, error)
        },
    },
    Note {
        rule: rule(
            "data-shape-on-error",
            "a column or cell path missing from an opened data file is answered with the file's real shape",
            &[
                becomes("open a.csv | get price", "a.csv"),
                leaves("open a.csv | get amount"),
            ],
        ),
        group: Group::Error,
        place: Place::First,
        say: |outcome, reads| data_shape_of(outcome.pipeline, Some(outcome.failed()?), reads),
    },
    Note {
        rule: rule(
            "value-is-no-file",
            "a text value of an earlier result used as a file name is no file; the row it came from is there already",
            &[
                becomes("open notes", "`notes` is no file here"),
                leaves("open missing.txt"),
            ],
        ),
        group: Group::Error,
        place: Place::First,
        say: |outcome, reads| {
            let error = outcome
                .failed()
                .filter(|error| repair::is_not_found(error))?;
            let earlier = reads.earlier_outs(outcome.index);
            repair::value_as_file_hint(outcome.pipeline, error, &earlier)
        },
    },
    Note {
        rule: rule(
            "after-a-failure",
            "a failure gets what Nushell wanted: the columns there are, a date for a date, a command for a method",
            &[
                becomes(
                    "ls | where ext == '.csv'",
                    "`ls` gives the columns name, type, size, modified",
                ),
                leaves("error make {msg: 'no such thing'}"),
            ],
        ),
        group: Group::Error,
        place: Place::After,
        say: |outcome, _| repair::failure_hint(outcome.pipeline, outcome.failed()?),
    },
    Note {
        rule: rule(
            "per-group",
            "a figure per group (`group-by g | math sum(x)`) is `group-by g --to-table | update items { … }` in Nushell",
            &[
                becomes(
                    "open a.csv | group-by name | math sum(amount)",
                    "`group-by name --to-table | update items { get amount | math sum }`",
                ),
                leaves("open a.csv | get name | uniq --count | first 1"),
            ],
        ),
        group: Group::Result,
        place: Place::After,
        say: |outcome, _| {
            matches!(outcome.status, StepStatus::Unparsable | StepStatus::Failed)
                .then(|| repair::per_group_hint(outcome.pipeline))?
        },
    },
    Note {
        rule: rule(
            "fields-of-lines",
            "`lines | split row ' ' | get 1` takes from the words of all the lines, not a field of each line (awk's `$2`)",
            &[
                becomes(
                    "open b.log | lines | split row ' ' | get 1 | uniq --count",
                    "makes one list of the words of all the lines",
                ),
                leaves("open b.log | lines | first 1"),
            ],
        ),
        group: Group::Result,
        place: Place::After,
        say: |outcome, _| {
            matches!(outcome.status, StepStatus::Unparsable | StepStatus::Failed)
                .then(|| repair::fields_of_lines_hint(outcome.pipeline))?
        },
    },
    Note {
        rule: rule(
            "bare-size",
            "a file size compared with a bare number does not compare sizes (`size == 0` is never true)",
            &[
                becomes("ls | where size == 0", "`size == 0b`"),
                leaves("ls | where size > 1kb"),
            ],
        ),
        group: Group::Result,
        place: Place::After,
        say: |outcome, _| {
            outcome
                .ok()
                .then(|| repair::bare_size_hint(outcome.pipeline))?
        },
    },
    Note {
        rule: rule(
            "false-friend",
            "a command that ran but means something else in Nushell than the model's habit (`split row` on all lines, `length` of a text)",
            &[
                becomes(
                    "open b.log | lines | where $it =~ 'GET' | split row ' ' | select 1",
                    "`select 1` took from that list",
                ),
                leaves("open b.log | lines | split row ' ' | length"),
            ],
        ),
        group: Group::Result,
        place: Place::After,
        say: |outcome, _| {
            outcome
                .ok()
                .then(|| repair::false_friend_hint(outcome.pipeline, outcome.found_nothing()))?
        },
    },
    Note {
        rule: rule(
            "lost-rows",
            "`each` over files that gives plain values back no longer says which file each value is of",
            &[
                becomes("ls | each { $in.name | str length }", "{file: $f.name"),
                leaves("ls *.csv | each {|f| {file: $f.name} }"),
            ],
        ),
        group: Group::Result,
        place: Place::After,
        say: |outcome, _| {
            outcome
                .ok()
                .then(|| repair::lost_rows_hint(outcome.pipeline, outcome.value))?
        },
    },
    Note {
        rule: rule(
            "folder-size",
            "folders ranked by the `size` of a plain `ls`, which is their entry's, not what they hold",
            &[
                becomes("ls | sort-by size --reverse", "`ls --du`"),
                leaves("ls --du | sort-by size"),
            ],
        ),
        group: Group::Result,
        place: Place::After,
        say: |outcome, _| {
            outcome
                .ok()
                .then(|| repair::folder_size_hint(outcome.pipeline, outcome.value))?
        },
    },
    Note {
        rule: rule(
            "this-folder-only",
            "a listing of this folder that found nothing, where subfolders could hold it",
            &[
                becomes("ls | where name ends-with '.bak'", "`ls **/*"),
                leaves("ls **/* | where name ends-with '.bak'"),
            ],
        ),
        group: Group::Result,
        place: Place::After,
        say: |outcome, _| {
            (outcome.ok() && outcome.found_nothing())
                .then(|| repair::this_folder_only_hint(outcome.pipeline, outcome.cwd))?
        },
    },
    Note {
        rule: rule(
            "subfolders-asked",
            "the request asks for subfolders too, and the step listed one folder",
            &[
                becomes("ls | where size > 0b", "`ls **/* | where size > 0b`"),
                leaves("ls **/* | where size > 0b"),
            ],
        ),
        group: Group::Result,
        place: Place::After,
        say: |outcome, _| {
            (outcome.ok() && outcome.wants_subfolders)
                .then(|| repair::subfolders_hint(outcome.pipeline, outcome.cwd))?
        },
    },
    Note {
        rule: rule(
            "file-history",
            "a git log filtered by a file's name finds nothing: log lines name no files; `-- FILE` selects its commits",
            &[
                becomes(
                    "^git log --oneline | lines | where $it =~ 'a.csv'",
                    "-- a.csv",
                ),
                leaves("^git log --oneline -- a.csv | lines"),
            ],
        ),
        group: Group::Result,
        place: Place::After,
        say: |outcome, _| {
            (outcome.ok() && outcome.found_nothing())
                .then(|| repository::file_history_hint(outcome.pipeline, outcome.cwd))?
        },
    },
    Note {
        rule: rule(
            "where-rows-went",
            "a read that found nothing is told the rows its last filter was given, so the model sees why none matched",
            &[
                becomes("ls | where name == 'nothing'", "$out."),
                leaves("ls | where name == 'a.csv'"),
            ],
        ),
        group: Group::Result,
        place: Place::After,
        say: |outcome, reads| {
            if !(outcome.ok() && outcome.found_nothing()) {
                return None;
            }
            // The last filter given any rows, looking back; a read the
            // policy would ask about ends the search.
            for (before, filter) in emptied::before_filters(outcome.pipeline) {
                let (index, value) = reads.read(&before)?;
                if emptied::has_rows(&value) {
                    return Some(emptied::note(&before, &filter, index, &value));
                }
            }
            None
        },
    },
    Note {
        rule: rule(
            "nothing-matched-in-the-data",
            "a read of a data file that found nothing is told the file's shape",
            &[
                becomes(
                    "open a.csv | get amount | where $it > 100",
                    "Nothing matched. ",
                ),
                leaves("open a.csv | get amount | where $it > 1"),
            ],
        ),
        group: Group::Result,
        place: Place::After,
        say: |outcome, reads| {
            if !(outcome.ok() && outcome.found_nothing()) {
                return None;
            }
            let shape = data_shape_of(outcome.pipeline, None, reads)?;
            Some(format!("Nothing matched. {shape}"))
        },
    },
    Note {
        rule: rule(
            "change-done",
            "a small model reads the empty result of a change as \"nothing happened\", and looks again or does it twice",
            &[becomes("mkdir made", "Done: it ran"), leaves("ls")],
        ),
        group: Group::Each,
        place: Place::After,
        say: |outcome, _| {
            (outcome.ok()
                && outcome.changes
                && !outcome.changed_nothing()
                && is_empty(outcome.value))
            .then(|| "Done: it ran without an error (a change gives nothing back).".into())
        },
    },
    Note {
        rule: Rule::of(
            Kind::Note,
            Lever::Effects,
            "changed-nothing",
            "a small model takes a change that ran without an error for a change made, though the names it gave matched nothing here",
            &[
                becomes("rm -f nothing-here.txt", "changed no file"),
                leaves("mkdir made"),
                leaves("rm -f nothing-here.txt; 'a read too'"),
            ],
        ),
        group: Group::Each,
        place: Place::After,
        say: |outcome, _| {
            outcome.changed_nothing().then(|| {
                "It ran without an error but changed no file here: what it names matches nothing. Look at what is there first (`ls`, `find`), then name the real files.".into()
            })
        },
    },
    Note {
        rule: rule(
            "path-not-here",
            "a small model writes paths it never saw; a program saying one is not there is read past, and the answer given from the error or the empty rest",
            &[
                becomes("^ls nothing-here.txt", "not here"),
                becomes("^bash -c 'cat c.txt'", "`sub/c.txt` is"),
                becomes("^bash -c 'cat nothing-here.txt | wc -l'", "not here"),
                leaves("^ls"),
            ],
        ),
        group: Group::Each,
        place: Place::After,
        say: |outcome, _| {
            if !outcome.named_a_missing_path() {
                return None;
            }
            // Where something of a missing path's name is, where anything is.
            let found: Vec<String> = missing_paths::missing(outcome.stderr_text())
                .into_iter()
                .filter_map(|path| {
                    let near = missing_paths::nearest(&path, outcome.cwd);
                    (!near.is_empty())
                        .then(|| format!("`{path}` is not here, but {} is", quoted_list(&near)))
                })
                .collect();
            Some(match found.is_empty() {
                true => "A path it names is not here (stderr: No such file or directory). Look at what is here first (`ls`, `find`), then name a path a step showed.".into(),
                false => format!("{}: name the path that is there.", found.join("; ")),
            })
        },
    },
    Note {
        rule: rule(
            "is-a-directory",
            "a small model gives a folder (`*` with folders in it) to a program that reads files, and answers from the errors",
            &[
                becomes("^bash -c 'grep notes *'", "`grep -r"),
                leaves("^bash -c 'grep notes sub/c.txt'"),
            ],
        ),
        group: Group::Each,
        place: Place::After,
        say: |outcome, _| {
            outcome.stderr_text().contains(": Is a directory").then(|| {
                "A folder was given where a file is read (stderr: Is a directory): `grep -r PATTERN DIR` searches the files under a folder; `find DIR -type f` lists them.".into()
            })
        },
    },
    Note {
        rule: rule(
            "ls-d-names-the-folder",
            "`ls -d DIR` names the folder itself, not what is in it; a small model asked for a folder's contents answers with the folder",
            &[
                becomes("^bash -c r#'ls -d sub'#", "itself"),
                becomes("^bash -c r#'ls -ld sub | awk '{print $9}''#", "itself"),
                leaves("^bash -c r#'ls -d */'#"),
                leaves("^bash -c r#'ls sub'#"),
                leaves("ls -d sub"),
            ],
        ),
        group: Group::Each,
        place: Place::After,
        say: |outcome, _| {
            outcome.ls_folder_itself().map(|folder| {
                format!(
                    "`ls -d {folder}` names the folder `{folder}` itself, not what is in it: `ls -l {folder}` lists its entries; `find {folder} -maxdepth 1 -type d` its folders."
                )
            })
        },
    },
    Note {
        rule: rule(
            "rm-f-names-nothing-here",
            "`rm -f` is silent about a name that is not there; a small model that wrote a file's name without its extension answers that it was removed",
            &[
                becomes("^bash -c r#'rm -f sub/c'#", "`sub/c.txt` is"),
                leaves("^bash -c r#'rm -f sub/c.tx'#"),
                leaves("^bash -c r#'rm -f sub/c.txt'#"),
                leaves("^bash -c r#'rm sub/c'#"),
                leaves("^bash -c r#'rm -f sub/*.log'#"),
            ],
        ),
        group: Group::Each,
        place: Place::After,
        say: |outcome, _| {
            if !outcome.ok() {
                return None;
            }
            let found: Vec<String> = outcome
                .removed_names_not_here()
                .into_iter()
                .map(|(name, near)| {
                    format!("`{name}` is not here now, but {} is", quoted_list(&near))
                })
                .collect();
            (!found.is_empty()).then(|| {
                format!(
                    "`rm -f` says nothing of a name that is not there: {}. If that is the file meant, remove it by the name that is there.",
                    found.join("; ")
                )
            })
        },
    },
    Note {
        rule: rule(
            "no-line-matched",
            "grep's exit status 1 means no line matched, not an error; read as a failure, a small model drops the search and guesses",
            &[
                becomes(
                    "^bash -c r#'grep -i nothing-like-this b.log'#",
                    "no line matched",
                ),
                leaves("^bash -c r#'grep GET b.log'#"),
                leaves("^bash -c 'ls nothing-here.txt'"),
            ],
        ),
        group: Group::Each,
        place: Place::After,
        say: |outcome, _| {
            let script =
                crate::agent::posix::script_of(outcome.pipeline).unwrap_or(outcome.pipeline);
            (outcome.exit_code == Some(1)
                && outcome.stderr_text().trim().is_empty()
                && crate::agent::posix::runs_one_of(script, &["grep", "egrep", "fgrep", "rg"]))
            .then(|| {
                "Exit 1 from grep with no output: no line matched (not an error). Nothing here holds it as written.".into()
            })
        },
    },
    Note {
        rule: rule(
            "done-ask",
            "a small model that has what the request needs goes on looking and answers from a later result",
            &[
                becomes("ls", "call `answer` now"),
                leaves("ls | where name == 'nothing'"),
                leaves("^bash -c 'cat nothing-here.txt | wc -l'"),
            ],
        ),
        group: Group::Each,
        place: Place::After,
        say: |outcome, _| {
            (outcome.ok()
                && outcome.task
                && !outcome.changed_nothing()
                && !outcome.named_a_missing_path()
                && outcome.ls_folder_itself().is_none()
                && outcome.removed_names_not_here().is_empty()
                && (outcome.changes || !outcome.found_nothing()))
            .then(|| match outcome.recalled {
                Some(request) => recall(request),
                None => "(If this is all the request needs, call `answer` now.)".into(),
            })
        },
    },
];

/// `paths` as the model reads them: `a`, or `a` or `b`.
fn quoted_list(paths: &[String]) -> String {
    paths
        .iter()
        .map(|p| format!("`{p}`"))
        .collect::<Vec<_>>()
        .join(" or ")
}

/// The longest request said back whole; a longer one is cut.
const RECALLED_CHARS: usize = 300;

/// The call to answer that says `request` back: a small model that has a
/// result answers the part it did, or another question.
fn recall(request: &str) -> String {
    let request = request.trim();
    let request = match request.char_indices().nth(RECALLED_CHARS) {
        Some((at, _)) => format!("{}…", &request[..at]),
        None => request.to_string(),
    };
    format!(
        "(The request: \"{request}\". If this result is all of it, call `answer` now; if a part is left, do that part.)"
    )
}

/// `observed` (what the model reads of a step) with the notes on
/// `outcome` that `levers` leave on, and the names of their rules.
pub fn with_notes(
    mut observed: String,
    outcome: &Outcome<'_>,
    reads: &mut dyn Reads,
    levers: &super::Levers,
) -> (String, Vec<&'static str>) {
    let mut told_by = Vec::new();
    let told = |note: &Note, observed: &mut String, reads: &mut dyn Reads| -> bool {
        let Some(text) = note
            .rule
            .on(levers)
            .then(|| (note.say)(outcome, reads))
            .flatten()
        else {
            return false;
        };
        match note.place {
            Place::First => *observed = format!("{text}\n{observed}"),
            Place::After => {
                observed.push('\n');
                observed.push_str(&text);
            }
        }
        true
    };
    for group in [Group::Error, Group::Result] {
        for note in NOTES.iter().filter(|note| note.group == group) {
            if told(note, &mut observed, reads) {
                told_by.push(note.rule.name);
                break;
            }
        }
    }
    for note in NOTES.iter().filter(|note| note.group == Group::Each) {
        if told(note, &mut observed, reads) {
            told_by.push(note.rule.name);
        }
    }
    (observed, told_by)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shell::{Engine, Limits, Session, SessionSeed};

    /// A session's reads, with no policy between.
    struct SessionReads<'a> {
        session: &'a mut Session,
        shown: Option<usize>,
    }

    impl Reads for SessionReads<'_> {
        fn read(&mut self, pipeline: &str) -> Option<(usize, Value)> {
            let outcome = self.session.run(pipeline, &Limits::default());
            outcome
                .error
                .is_none()
                .then_some((outcome.index, outcome.value))
        }

        fn earlier_outs(&self, before: usize) -> Vec<(usize, Value)> {
            (0..before)
                .filter_map(|n| self.session.out(n).map(|value| (n, value)))
                .collect()
        }

        fn shown_source(&mut self, index: usize) {
            self.shown = Some(index);
        }

        fn engine(&self) -> &EngineState {
            self.session.engine_state()
        }
    }

    /// A folder of a data file, a log, a text file and a subfolder; a git
    /// repository where git is here.
    fn fixture() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path();
        std::fs::write(path.join("a.csv"), "name,amount\nx,1\ny,2\n").unwrap();
        std::fs::write(path.join("b.log"), "a GET x\nb GET y\nc POST z\n").unwrap();
        std::fs::create_dir(path.join("sub")).unwrap();
        std::fs::write(path.join("sub").join("c.txt"), "notes\n").unwrap();
        let git = |args: &[&str]| {
            std::process::Command::new("git")
                .args(args)
                .current_dir(path)
                .output()
        };
        let _ = git(&["init", "-q"]);
        let _ = git(&["add", "."]);
        let _ = git(&[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-qm",
            "first",
        ]);
        dir
    }

    #[test]
    fn the_request_said_back_is_cut_when_long() {
        let said = recall("count the files and make them executable");
        assert!(
            said.contains("\"count the files and make them executable\"")
                && said.contains("call `answer` now"),
            "{said}"
        );
        let long = "x".repeat(RECALLED_CHARS + 50);
        assert!(recall(&long).contains(&format!("{}…\"", "x".repeat(RECALLED_CHARS))));
    }

    #[test]
    fn each_note_gives_its_examples_on_what_ran() {
        let engine = Engine::standard();
        let mut wrong = Vec::new();
        for note in NOTES {
            let dir = fixture();
            let mut session =
                Session::new(engine, SessionSeed::new(dir.path().to_path_buf())).unwrap();
            // An earlier result that names a file that is not here.
            session.run("[[name]; [notes]]", &Limits::default());
            for example in note.rule.examples {
                let changes = ["mkdir", "rm"]
                    .iter()
                    .any(|change| example.given.starts_with(change));
                // Files taken around a change, as the `effects` lever does.
                let before = changes
                    .then(|| crate::agent::effects::Files::under(dir.path()))
                    .flatten();
                let ran = session.run(example.given, &Limits::default());
                let status = match &ran.error {
                    None => StepStatus::Ok,
                    Some(e)
                        if e.code
                            .as_deref()
                            .is_some_and(|c| c.starts_with("nu::parser")) =>
                    {
                        StepStatus::Unparsable
                    }
                    Some(_) => StepStatus::Failed,
                };
                let outcome = Outcome {
                    pipeline: example.given,
                    status,
                    error: ran.error.as_ref(),
                    value: &ran.value,
                    index: ran.index,
                    changes,
                    changed_files: before.map(|before| {
                        before.changed(&crate::agent::effects::Files::under(dir.path()).unwrap())
                    }),
                    stderr: ran.stderr.as_ref(),
                    exit_code: ran.exit_code,
                    cwd: dir.path(),
                    wants_subfolders: true,
                    task: true,
                    recalled: None,
                };
                let mut reads = SessionReads {
                    session: &mut session,
                    shown: None,
                };
                let said = (note.say)(&outcome, &mut reads);
                let right = match example.gives {
                    Some(part) => said.as_deref().is_some_and(|said| said.contains(part)),
                    None => said.is_none(),
                };
                if !right {
                    wrong.push(format!(
                        "{}: `{}` ({:?}) said {said:?}",
                        note.rule.name,
                        example.given,
                        ran.error.as_ref().map(|e| (&e.code, &e.message))
                    ));
                }
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }
}
