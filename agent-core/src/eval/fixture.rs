//! A task's world: a temp root holding the working directory the agent
//! starts in (`work`), its HOME (`home`) and its state dir (`state`), and
//! the nu session (no policy: it is the suite's, not the model's) that
//! reads the task file, builds the fixture and runs the check.

use std::path::{Path, PathBuf};

use nu_protocol::{Span, Value};

use super::{EvalError, Task};
use crate::shell::{Engine, Limits, Session, SessionSeed};

/// How long a setup or a check may take.
const SUITE_STEP_LIMIT: std::time::Duration = std::time::Duration::from_secs(120);

/// The temp root of one task run and the session that drives it.
pub struct Fixture {
    root: tempfile::TempDir,
    session: Session,
}

impl Fixture {
    /// A fresh root with `work`, `home` and `state`, and the task at `path`
    /// read into its session as `$task`.
    pub fn new(path: &Path) -> Result<(Fixture, Task), EvalError> {
        let root = task_root(path)?;
        for dir in ["work", "home", "state"] {
            std::fs::create_dir(root.path().join(dir))?;
        }
        let work = root.path().join("work");
        let seed = SessionSeed::new(&work).with_env(task_env(root.path()));
        let fail = |message: String| EvalError::Task {
            path: path.display().to_string(),
            message,
        };
        let mut session = Session::new(Engine::standard(), seed).map_err(|d| fail(d.summary()))?;
        let text =
            std::fs::read_to_string(path).map_err(|e| fail(format!("cannot read it: {e}")))?;
        let source = match path.extension().and_then(|e| e.to_str()) {
            // Data: parsed as NUON, never run; the session gets the value.
            Some("nuon") => {
                let value = nuon::from_nuon(&text, None).map_err(|e| {
                    fail(format!(
                        "not valid NUON: {}",
                        crate::config::nuon_message(&e)
                    ))
                })?;
                let index = session.runs();
                session.push_out(value);
                format!("let task = $out.{index}")
            }
            _ => format!("let task = (\n{text}\n)"),
        };
        run_ok(&mut session, &source).map_err(&fail)?;
        let value = run_ok(&mut session, "$task").map_err(&fail)?;
        let task = Task::from_value(path, &value)?;
        Ok((Fixture { root, session }, task))
    }

    /// The directory the agent starts in.
    pub fn work(&self) -> PathBuf {
        self.root.path().join("work")
    }

    /// The task's HOME.
    pub fn home(&self) -> PathBuf {
        self.root.path().join("home")
    }

    /// The task's state dir (audit log, jobs).
    pub fn state(&self) -> PathBuf {
        self.root.path().join("state")
    }

    /// The environment the agent's session starts with.
    pub fn env(&self) -> Vec<(String, Value)> {
        task_env(self.root.path())
    }

    /// Build the fixture: the task's `setup`, run in `work`.
    pub fn setup(&mut self) -> Result<(), String> {
        let kind = run_ok(&mut self.session, "$task.setup? | describe")?;
        let source = match kind.as_str().unwrap_or_default() {
            "nothing" => return Ok(()),
            "string" => run_ok(&mut self.session, "$task.setup")?
                .as_str()
                .unwrap_or_default()
                .to_string(),
            _ => "do $task.setup | ignore".to_string(),
        };
        self.in_work()?;
        run_ok(&mut self.session, &source)
            .map(|_| ())
            .map_err(|e| format!("setup failed: {e}"))
    }

    /// Run the task's `check` on `result` (`{answer, data, dir, home,
    /// events, ...}`): whether it passed and why not, or `Err` with the
    /// check's own error (it raised one, or returned no verdict).
    pub fn check(&mut self, result: Value) -> Result<(bool, String), String> {
        self.in_work()?;
        let index = self.session.runs();
        self.session.push_out(result);
        let is_string = run_ok(&mut self.session, "$task.check | describe")
            .is_ok_and(|k| k.as_str().is_ok_and(|k| k == "string"));
        let source = if is_string {
            let code = run_ok(&mut self.session, "$task.check")?;
            format!("do {} $out.{index}", code.as_str().unwrap_or("{|r| false}"))
        } else {
            format!("do $task.check $out.{index}")
        };
        verdict(&run_ok(&mut self.session, &source)?)
    }

    /// Keep the root after the run (for `--keep`): its path.
    pub fn keep(self) -> PathBuf {
        self.root.keep()
    }

    fn in_work(&mut self) -> Result<(), String> {
        let work = self.work();
        self.session.set_cwd(&work).map_err(|d| d.summary())
    }
}

/// What a check returned: `true`/`false`, or `{ok: bool, reason: string}`;
/// anything else is the check's error.
fn verdict(value: &Value) -> Result<(bool, String), String> {
    match value {
        Value::Bool { val, .. } => Ok((
            *val,
            if *val {
                String::new()
            } else {
                "the check returned false".into()
            },
        )),
        Value::Record { val, .. } => {
            let ok = match val.get("ok") {
                Some(Value::Bool { val, .. }) => *val,
                Some(other) => {
                    return Err(format!(
                        "the check's `ok` is {}, not a bool",
                        other.get_type()
                    ));
                }
                None => false,
            };
            let reason = val
                .get("reason")
                .and_then(|r| r.coerce_string().ok())
                .unwrap_or_else(|| {
                    if ok {
                        String::new()
                    } else {
                        "the check said no".into()
                    }
                });
            Ok((ok, reason))
        }
        other => Err(format!(
            "the check returned {}, not a bool or {{ok, reason}}",
            other.get_type()
        )),
    }
}

/// Run `source`; its value, or its error in one line.
fn run_ok(session: &mut Session, source: &str) -> Result<Value, String> {
    let limits = Limits {
        timeout: Some(SUITE_STEP_LIMIT),
        ..Limits::default()
    };
    let outcome = session.run(source, &limits);
    match outcome.error {
        Some(error) => Err(error.summary()),
        None => Ok(outcome.value),
    }
}

/// The temp root for the task at `path`: `<temp>/nu-agent-eval/task-<hash
/// of its name>`, a name that is the same in every run, so a greedy model
/// sees the same paths and runs compare task by task across commits, and
/// that tells the model nothing of the task (its cwd is in the prompt);
/// where that name is taken (a run beside this one, a kept root), a random
/// name beside it.
fn task_root(path: &Path) -> std::io::Result<tempfile::TempDir> {
    let stem = path
        .file_stem()
        .map(|stem| stem.to_string_lossy().into_owned())
        .unwrap_or_default();
    let task = format!("task-{:08x}", fnv1a(stem.as_bytes()));
    let parent = std::env::temp_dir().join("nu-agent-eval");
    if std::fs::create_dir_all(&parent).is_err() {
        return tempfile::Builder::new().prefix("nu-agent-eval-").tempdir();
    }
    let stable = tempfile::Builder::new()
        .prefix(&task)
        .rand_bytes(0)
        .tempdir_in(&parent);
    match stable {
        Ok(root) => Ok(root),
        Err(_) => tempfile::Builder::new()
            .prefix(&format!("{task}-"))
            .tempdir_in(&parent),
    }
}

/// FNV-1a, 32 bits: a hash that stays the same across builds and Rust
/// releases.
fn fnv1a(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5, |hash, byte| {
        (hash ^ u32::from(*byte)).wrapping_mul(0x0100_0193)
    })
}

/// The process's environment with HOME and the XDG dirs moved into `root`,
/// so nothing a task does reaches the real home.
fn task_env(root: &Path) -> Vec<(String, Value)> {
    let home = root.join("home");
    let moved = [
        ("HOME", home.clone()),
        ("XDG_CONFIG_HOME", home.join(".config")),
        ("XDG_DATA_HOME", home.join(".local/share")),
        ("XDG_STATE_HOME", home.join(".local/state")),
        ("XDG_CACHE_HOME", home.join(".cache")),
        ("NU_AGENT_STATE_DIR", root.join("state")),
    ];
    let string = |s: String| Value::string(s, Span::unknown());
    let mut env: Vec<(String, Value)> = std::env::vars()
        .filter(|(name, _)| !moved.iter().any(|(m, _)| m == name))
        .filter(|(name, _)| !name.starts_with("GIT_"))
        .map(|(name, value)| (name, string(value)))
        .collect();
    env.extend(
        moved
            .into_iter()
            .map(|(name, path)| (name.to_string(), string(path.display().to_string()))),
    );
    env
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_task_root_has_the_same_name_each_run_and_a_random_one_when_taken() {
        let task = PathBuf::from(format!("tasks/root-name-{}.nu", std::process::id()));
        let first = task_root(&task).unwrap();
        let name = first.path().file_name().unwrap().to_string_lossy();
        assert!(
            name.starts_with("task-") && !name.contains("root-name"),
            "{name}"
        );
        let beside = task_root(&task).unwrap();
        assert_ne!(beside.path(), first.path());
        assert!(beside.path().starts_with(first.path().parent().unwrap()));
        let path = first.path().to_owned();
        drop(first);
        let again = task_root(&task).unwrap();
        assert_eq!(again.path(), path);
    }
}
