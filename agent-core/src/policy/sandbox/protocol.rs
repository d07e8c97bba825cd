//! The messages between the parent and the sandbox worker: one JSON
//! object per line, on the worker's stdin (parent → worker) and on a
//! private copy of its stdout (worker → parent).

use std::{
    io::{BufRead, Read, Write},
    path::PathBuf,
    time::Duration,
};

use nu_protocol::{Span, Value};
use serde::{Deserialize, Serialize};

use super::{Applied, SandboxSpec};
use crate::{
    policy::{Approval, ApprovalRequest},
    shell::{Diagnostic, Limits, Outcome},
};

/// The hidden first argument that turns the plugin binary or `nu-agent`
/// into a sandbox worker.
pub const WORKER_ARG: &str = "--sandbox-worker";

/// How a worker starts: the first line on its stdin. One worker serves
/// every run of a conversation ([`WorkerRun`] lines), keeping its session
/// (variables, definitions, `$env`, the directory, `$out`) between them.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct WorkerStart {
    /// The sandbox the worker applies to itself.
    pub spec: SandboxSpec,
    /// Where the session starts (also the worker's cwd).
    pub cwd: PathBuf,
    /// The caller's environment; the session filters it as usual.
    pub env: Vec<(String, String)>,
    /// Handed unread to the engine builder (the policy the guards enforce).
    pub policy: serde_json::Value,
    /// The values of the session's earlier runs, as `$out` starts (only
    /// when a worker replaces one that is gone, or runs one step alone).
    #[serde(default)]
    pub outs: Vec<nu_protocol::Value>,
    /// A worker left without a run this long exits; `None` = never.
    #[serde(default)]
    pub idle_timeout: Option<Duration>,
}

/// One pipeline for a started worker.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct WorkerRun {
    /// The pipeline.
    pub source: String,
    /// Where it runs: the session's directory as the parent knows it.
    pub cwd: PathBuf,
    /// Time limit and output cap, enforced by the worker's session.
    pub limits: Limits,
    /// Handed unread to the engine's run hook (the steps the user
    /// approved for this pipeline).
    pub policy: serde_json::Value,
    /// The pipeline's input (`$in`), if it has one.
    #[serde(default)]
    pub input: Option<nu_protocol::Value>,
}

/// Worker → parent.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(super) enum FromWorker {
    /// The sandbox is in place; the engine is being built.
    Started(Applied),
    /// A runtime guard asks the approver. `id` is random: the reply must
    /// carry it, so that a line forged by the pipeline cannot answer a real
    /// question.
    Approve { id: u64, request: ApprovalRequest },
    /// A privileged step needs the user's password.
    Password { id: u64, prompt: String },
    /// The run is over.
    Done(Box<Outcome>),
}

/// Parent → worker, after the start.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(super) enum ToWorker {
    /// Evaluate a pipeline in the session; answered by `done`.
    Run(Box<WorkerRun>),
    /// Append a value made elsewhere (a step run alone in a wider worker)
    /// to `$out`, so the numbering stays the parent's.
    AddOut(Box<Value>),
    Approval {
        id: u64,
        approval: Approval,
    },
    Password {
        id: u64,
        password: Option<String>,
    },
    /// Stop the run (Ctrl+C); the worker answers with a `done`.
    Cancel,
}

/// An outcome with no value: for a run that did not get to evaluate.
pub(super) fn empty_outcome(cwd: PathBuf, duration: Duration) -> Outcome {
    Outcome {
        value: Value::nothing(Span::unknown()),
        index: 0,
        stderr: None,
        exit_code: None,
        printed: Vec::new(),
        cwd,
        error: None,
        stopped: None,
        duration,
    }
}

/// An outcome for a run that failed before (or instead of) evaluating.
pub(super) fn failed_outcome(cwd: PathBuf, error: Diagnostic, duration: Duration) -> Outcome {
    Outcome {
        error: Some(error),
        ..empty_outcome(cwd, duration)
    }
}

/// Write `message` as one line and flush it.
pub(super) fn write_line(out: &mut impl Write, message: &impl Serialize) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(message).map_err(std::io::Error::other)?;
    line.push(b'\n');
    out.write_all(&line)?;
    out.flush()
}

/// What reading one line gave.
pub(super) enum Line<T> {
    Message(T),
    /// The other side closed the pipe.
    Closed,
    /// Unreadable: not JSON of the expected shape, or longer than allowed.
    Invalid(String),
}

/// Read one line of at most `limit` bytes and parse it.
pub(super) fn read_line<T: serde::de::DeserializeOwned>(
    input: &mut impl BufRead,
    limit: u64,
) -> Line<T> {
    let mut buffer = Vec::new();
    match input.by_ref().take(limit).read_until(b'\n', &mut buffer) {
        Ok(0) => return Line::Closed,
        Ok(_) => {}
        Err(err) => return Line::Invalid(format!("cannot read the pipe: {err}")),
    }
    if buffer.last() != Some(&b'\n') {
        return if buffer.len() as u64 >= limit {
            Line::Invalid(format!("a message longer than {limit} bytes"))
        } else {
            Line::Invalid("a message cut off by the end of the pipe".into())
        };
    }
    match serde_json::from_slice(&buffer) {
        Ok(message) => Line::Message(message),
        Err(err) => Line::Invalid(format!("an unreadable message ({err})")),
    }
}

#[cfg(test)]
mod tests {
    use nu_protocol::Record;

    use super::*;
    use crate::shell::StopReason;

    fn round_trip<T: Serialize + serde::de::DeserializeOwned>(message: &T) -> T {
        let mut wire = Vec::new();
        write_line(&mut wire, message).unwrap();
        assert_eq!(wire.iter().filter(|b| **b == b'\n').count(), 1);
        match read_line(&mut wire.as_slice(), 1 << 20) {
            Line::Message(message) => message,
            Line::Closed => panic!("closed"),
            Line::Invalid(why) => panic!("{why}"),
        }
    }

    #[test]
    fn an_outcome_survives_the_pipe() {
        let mut record = Record::new();
        record.push("name", Value::string("a\nb.txt", Span::unknown()));
        record.push("size", Value::filesize(1500, Span::unknown()));
        record.push("bytes", Value::binary(vec![0, 159, 146], Span::unknown()));
        let outcome = Outcome {
            value: Value::list(
                vec![Value::record(record, Span::unknown())],
                Span::unknown(),
            ),
            index: 0,
            stderr: Some(Value::string("warn", Span::unknown())),
            exit_code: Some(3),
            printed: vec!["hello".into()],
            cwd: "/work".into(),
            error: Some(Diagnostic::plain(
                "nu_agent::x",
                "broken",
                Some("fix".into()),
            )),
            stopped: Some(StopReason::TimedOut(Duration::from_millis(1500))),
            duration: Duration::from_millis(20),
        };
        let FromWorker::Done(back) = round_trip(&FromWorker::Done(Box::new(outcome.clone())))
        else {
            panic!("not done")
        };
        assert_eq!(back.value, outcome.value);
        assert_eq!(back.stderr, outcome.stderr);
        assert_eq!(back.exit_code, Some(3));
        assert_eq!(back.printed, outcome.printed);
        assert_eq!(back.cwd, outcome.cwd);
        assert_eq!(back.error, outcome.error);
        assert_eq!(back.stopped, outcome.stopped);
        assert_eq!(back.duration, outcome.duration);
    }

    #[test]
    fn replies_keep_their_id() {
        let reply = ToWorker::Approval {
            id: u64::MAX,
            approval: Approval::Edit("ls".into()),
        };
        let ToWorker::Approval { id, approval } = round_trip(&reply) else {
            panic!("not an approval")
        };
        assert_eq!((id, approval), (u64::MAX, Approval::Edit("ls".into())));
    }

    #[test]
    fn garbage_oversized_and_cut_lines_are_invalid() {
        let invalid = |wire: &[u8], limit| {
            matches!(
                read_line::<ToWorker>(&mut &wire[..], limit),
                Line::Invalid(_)
            )
        };
        assert!(invalid(b"{\"cancel\":1}\n", 100));
        assert!(invalid(b"\"cancel\"", 100));
        assert!(invalid(b"\"cancel\"\n", 4));
        assert!(matches!(
            read_line::<ToWorker>(&mut &b"\"cancel\"\n"[..], 100),
            Line::Message(ToWorker::Cancel)
        ));
        assert!(matches!(
            read_line::<ToWorker>(&mut &b""[..], 100),
            Line::Closed
        ));
    }
}
