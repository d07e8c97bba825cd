//! A task as the suite reads it: the record a task file evaluates to.
//!
//! ```nu
//! {
//!     name: "largest-file"
//!     request: "Which file in this directory is the largest?"
//!     tags: [files size]
//!     kind: answer                   # what the check looks at
//!     setup: {|| 1..3 | each {|n| "x" | fill -c x -w ($n * 1000) | save $"f($n).txt" } }
//!     check: {|r| if ($r.answer | str contains "f3.txt") { true } else { {ok: false, reason: "f3.txt not named"} } }
//!     approve: []                    # patterns approved when asked (`true`: everything)
//!     script: [                      # what a capable model does, turn by turn
//!         {nu: "ls | sort-by size | last | get name", why: "largest"}
//!         {answer: "f3.txt is the largest."}
//!     ]
//!     wrong: [ {answer: "f1.txt is the largest."} ]   # a transcript the check must reject
//! }
//! ```
//!
//! A `.nuon` file holds the same record as data, with `setup` and `check`
//! as strings of nu code (`check` a closure's source).

use std::path::{Path, PathBuf};

use nu_protocol::Value;

use super::{EvalError, Gold};

/// One turn of a transcript, written as the model would reply.
#[derive(Clone, Debug, PartialEq)]
pub enum Turn {
    /// A `nu` call.
    Nu {
        pipeline: String,
        why: String,
        background: bool,
    },
    /// A `help` call.
    Help(String),
    /// An `answer` call, returning `$out.N` as data when `out` is set.
    Answer { text: String, out: Option<i64> },
    /// Text exactly as a model wrote it (to replay malformed replies).
    Text(String),
}

impl Turn {
    /// The reply a model would write for this turn.
    pub fn model_text(&self) -> String {
        let call = |name: &str, arguments: serde_json::Value| {
            format!(
                "<tool_call>\n{}\n</tool_call>",
                serde_json::json!({"name": name, "arguments": arguments})
            )
        };
        match self {
            Turn::Nu {
                pipeline,
                why,
                background,
            } => {
                let mut arguments = serde_json::json!({"pipeline": pipeline, "why": why});
                if *background {
                    arguments["background"] = serde_json::Value::Bool(true);
                }
                call("nu", arguments)
            }
            Turn::Help(command) => call("help", serde_json::json!({"command": command})),
            Turn::Answer { text, out } => {
                let mut arguments = serde_json::json!({"text": text});
                if let Some(out) = out {
                    arguments["out"] = serde_json::Value::from(*out);
                }
                call("answer", arguments)
            }
            Turn::Text(text) => text.clone(),
        }
    }

    fn from_value(value: &Value) -> Result<Turn, String> {
        let record = value
            .as_record()
            .map_err(|_| format!("a turn is a record, got {}", value.get_type()))?;
        let text = |key: &str| -> Result<Option<String>, String> {
            match record.get(key) {
                None | Some(Value::Nothing { .. }) => Ok(None),
                Some(Value::String { val, .. }) => Ok(Some(val.clone())),
                Some(other) => Err(format!("`{key}` is a string, got {}", other.get_type())),
            }
        };
        if let Some(pipeline) = text("nu")? {
            return Ok(Turn::Nu {
                pipeline,
                why: text("why")?.unwrap_or_else(|| "step".into()),
                background: matches!(
                    record.get("background"),
                    Some(Value::Bool { val: true, .. })
                ),
            });
        }
        if let Some(command) = text("help")? {
            return Ok(Turn::Help(command));
        }
        if let Some(answer) = text("answer")? {
            let out = match record.get("out") {
                None | Some(Value::Nothing { .. }) => None,
                Some(Value::Int { val, .. }) => Some(*val),
                Some(other) => return Err(format!("`out` is an int, got {}", other.get_type())),
            };
            return Ok(Turn::Answer { text: answer, out });
        }
        if let Some(raw) = text("text")? {
            return Ok(Turn::Text(raw));
        }
        Err("a turn has one of the keys nu, help, answer or text".into())
    }
}

/// Which approval requests the suite's approver says yes to.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Approve {
    /// None: every request is denied (the default).
    #[default]
    Nothing,
    /// Every request.
    All,
    /// Requests whose command matches one of these globs (as `--approve`).
    Matching(Vec<String>),
}

/// A task's description, read from its file (the setup and check stay in
/// the fixture's session, where they are run).
#[derive(Clone, Debug, PartialEq)]
pub struct Task {
    pub path: PathBuf,
    pub name: String,
    pub request: String,
    pub tags: Vec<String>,
    /// What the check looks at: `answer`, `data`, `files`, `refusal`,
    /// `session`, `job` ... (free text; negatives are counted by kind).
    pub kind: String,
    pub approve: Approve,
    /// Most model turns for this task (the run's own limit otherwise).
    pub max_steps: Option<usize>,
    pub script: Vec<Turn>,
    /// A transcript the check must reject.
    pub wrong: Option<Vec<Turn>>,
    /// A reference command the outcome is judged against (instead of a
    /// `check`), with the bash fixture it was written for.
    pub gold: Option<Gold>,
}

/// Keys a task record may have.
const TASK_KEYS: &[&str] = &[
    "name",
    "request",
    "tags",
    "kind",
    "setup",
    "check",
    "approve",
    "max_steps",
    "script",
    "wrong",
    "gold",
];

impl Task {
    /// Read the record a task file evaluated to.
    pub fn from_value(path: &Path, value: &Value) -> Result<Task, EvalError> {
        let fail = |message: String| EvalError::Task {
            path: path.display().to_string(),
            message,
        };
        let record = value
            .as_record()
            .map_err(|_| fail(format!("a task file is a record, got {}", value.get_type())))?;
        if let Some(unknown) = record.columns().find(|k| !TASK_KEYS.contains(&k.as_str())) {
            return Err(fail(format!(
                "unknown key `{unknown}` (known keys: {})",
                TASK_KEYS.join(", ")
            )));
        }
        let string = |key: &str| -> Result<String, EvalError> {
            match record.get(key) {
                Some(Value::String { val, .. }) if !val.trim().is_empty() => Ok(val.clone()),
                Some(other) => Err(fail(format!(
                    "`{key}` is a non-empty string, got {}",
                    other.get_type()
                ))),
                None => Err(fail(format!("`{key}` is missing"))),
            }
        };
        let strings = |key: &str| -> Result<Vec<String>, EvalError> {
            match record.get(key) {
                None | Some(Value::Nothing { .. }) => Ok(Vec::new()),
                Some(Value::List { vals, .. }) => vals
                    .iter()
                    .map(|v| {
                        v.coerce_string()
                            .map_err(|_| fail(format!("`{key}` is a list of strings")))
                    })
                    .collect(),
                Some(other) => Err(fail(format!(
                    "`{key}` is a list of strings, got {}",
                    other.get_type()
                ))),
            }
        };
        let turns = |key: &str| -> Result<Option<Vec<Turn>>, EvalError> {
            match record.get(key) {
                None | Some(Value::Nothing { .. }) => Ok(None),
                Some(Value::List { vals, .. }) => vals
                    .iter()
                    .enumerate()
                    .map(|(i, v)| Turn::from_value(v).map_err(|m| fail(format!("{key}.{i}: {m}"))))
                    .collect::<Result<Vec<_>, _>>()
                    .map(Some),
                Some(other) => Err(fail(format!(
                    "`{key}` is a list of turns, got {}",
                    other.get_type()
                ))),
            }
        };
        let approve = match record.get("approve") {
            None | Some(Value::Nothing { .. }) | Some(Value::Bool { val: false, .. }) => {
                Approve::Nothing
            }
            Some(Value::Bool { val: true, .. }) => Approve::All,
            Some(Value::List { .. }) => {
                let patterns = strings("approve")?;
                if patterns.is_empty() {
                    Approve::Nothing
                } else {
                    Approve::Matching(patterns)
                }
            }
            Some(other) => {
                return Err(fail(format!(
                    "`approve` is true, false or a list of patterns, got {}",
                    other.get_type()
                )));
            }
        };
        let max_steps = match record.get("max_steps") {
            None | Some(Value::Nothing { .. }) => None,
            Some(Value::Int { val, .. }) if *val > 0 => Some(*val as usize),
            Some(other) => {
                return Err(fail(format!(
                    "`max_steps` is an int above 0, got {}",
                    other.get_type()
                )));
            }
        };
        let gold = match record.get("gold") {
            None | Some(Value::Nothing { .. }) => None,
            Some(Value::Record { val, .. }) => {
                let field = |key: &str| match val.get(key) {
                    Some(Value::String { val, .. }) if !val.trim().is_empty() => Ok(val.clone()),
                    _ => Err(fail(format!(
                        "`gold.{key}` is a non-empty string (gold: {{root, setup or fixture, command}})"
                    ))),
                };
                let setup = match val.get("fixture") {
                    // A script file beside the task (shared by a benchmark's tasks).
                    Some(Value::String { val: file, .. }) => {
                        let at = path.parent().unwrap_or(Path::new(".")).join(file);
                        std::fs::read_to_string(&at).map_err(|e| {
                            fail(format!("`gold.fixture`: cannot read {}: {e}", at.display()))
                        })?
                    }
                    _ => field("setup")?,
                };
                Some(Gold {
                    root: field("root")?,
                    setup,
                    command: field("command")?,
                })
            }
            Some(other) => {
                return Err(fail(format!(
                    "`gold` is a record {{root, setup or fixture, command}}, got {}",
                    other.get_type()
                )));
            }
        };
        for key in ["setup", "check"] {
            match record.get(key) {
                Some(Value::Closure { .. }) | Some(Value::String { .. }) => {}
                None if key == "setup" || gold.is_some() => {}
                Some(other) => {
                    return Err(fail(format!(
                        "`{key}` is a closure (or a string of nu code), got {}",
                        other.get_type()
                    )));
                }
                None => return Err(fail(format!("`{key}` is missing"))),
            }
        }
        Ok(Task {
            path: path.to_path_buf(),
            name: string("name")?,
            request: string("request")?,
            tags: strings("tags")?,
            kind: match record.get("kind") {
                None => "answer".into(),
                Some(_) => string("kind")?,
            },
            approve,
            max_steps,
            script: turns("script")?.unwrap_or_default(),
            wrong: turns("wrong")?,
            gold,
        })
    }
}

/// The task files `spec` names: a directory (its `*.nu` and `*.nuon` files),
/// a glob, or one file; sorted by path.
pub fn discover(spec: &str) -> Result<Vec<PathBuf>, EvalError> {
    let path = Path::new(spec);
    let is_task = |p: &Path| p.is_file() && p.extension().is_some_and(|e| e == "nu" || e == "nuon");
    let mut files: Vec<PathBuf> = if path.is_dir() {
        std::fs::read_dir(path)
            .map_err(|e| EvalError::Tasks(format!("cannot read {spec}: {e}")))?
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|p| is_task(p))
            .collect()
    } else if path.is_file() {
        vec![path.to_path_buf()]
    } else {
        nu_glob::glob(spec, nu_glob::Uninterruptible)
            .map_err(|e| {
                EvalError::Tasks(format!("`{spec}` is not a directory, file or glob: {e}"))
            })?
            .filter_map(Result::ok)
            .filter(|p| is_task(p))
            .collect()
    };
    files.sort();
    if files.is_empty() {
        return Err(EvalError::Tasks(format!(
            "no task files (*.nu, *.nuon) in `{spec}`"
        )));
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turns_read_as_model_replies() {
        let nu = Turn::Nu {
            pipeline: "ls".into(),
            why: "look".into(),
            background: true,
        };
        assert!(nu.model_text().contains(r#""background":true"#));
        let answer = Turn::Answer {
            text: "done".into(),
            out: Some(2),
        };
        let text = answer.model_text();
        assert!(
            text.starts_with("<tool_call>") && text.contains(r#""out":2"#),
            "{text}"
        );
    }

    #[test]
    fn a_task_with_an_unknown_key_is_refused() {
        let mut record = nu_protocol::Record::new();
        record.push("name", Value::test_string("t"));
        record.push("request", Value::test_string("r"));
        record.push("chek", Value::test_string("{|r| true}"));
        let error = Task::from_value(Path::new("t.nu"), &Value::test_record(record)).unwrap_err();
        assert!(error.to_string().contains("unknown key `chek`"), "{error}");
    }

    #[test]
    fn discover_finds_task_files_and_says_when_there_are_none() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("b.nu"), "{}").unwrap();
        std::fs::write(dir.path().join("a.nuon"), "{}").unwrap();
        std::fs::write(dir.path().join("notes.md"), "").unwrap();
        let found = discover(dir.path().to_str().unwrap()).unwrap();
        let names: Vec<_> = found
            .iter()
            .map(|p| p.file_name().unwrap().to_owned())
            .collect();
        assert_eq!(names, ["a.nuon", "b.nu"]);
        let glob = format!("{}/*.nu", dir.path().display());
        assert_eq!(discover(&glob).unwrap().len(), 1);
        let empty = tempfile::tempdir().unwrap();
        assert!(discover(empty.path().to_str().unwrap()).is_err());
    }
}
