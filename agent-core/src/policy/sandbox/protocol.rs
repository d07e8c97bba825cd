//! The messages between the parent and the sandbox worker: one JSON
//! object per line, on the worker's stdin (parent → worker) and on a
//! private copy of its stdout (worker → parent). The values a message
//! carries (a run's result and stderr, its input, `$out`) follow its line
//! in the format of [`super::values`], not inside it: a value can be as big
//! as the output cap allows, and JSON would write a NUL byte as six.
//!
//! The worker → parent direction is read within a budget per message (the
//! line and its values together), which the parent derives from the run's
//! output cap, so a worker cannot make the parent read or allocate more
//! than the cap allows plus a bounded overhead.

use std::{
    io::{BufRead, Read, Write},
    path::PathBuf,
    time::Duration,
};

use nu_protocol::{Span, Value};
use serde::{Deserialize, Serialize};

use super::{
    Applied, SandboxSpec,
    values::{read_value, write_value},
};
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

/// A message whose values travel after its line: the places they go.
pub(super) trait Carries {
    /// The message's values, in the order they are sent.
    fn values_mut(&mut self) -> Vec<&mut Value>;
}

impl Carries for WorkerStart {
    fn values_mut(&mut self) -> Vec<&mut Value> {
        self.outs.iter_mut().collect()
    }
}

impl Carries for ToWorker {
    fn values_mut(&mut self) -> Vec<&mut Value> {
        match self {
            ToWorker::Run(run) => run.input.iter_mut().collect(),
            ToWorker::AddOut(value) => vec![&mut **value],
            ToWorker::Approval { .. } | ToWorker::Password { .. } | ToWorker::Cancel => Vec::new(),
        }
    }
}

impl Carries for FromWorker {
    fn values_mut(&mut self) -> Vec<&mut Value> {
        match self {
            FromWorker::Done(outcome) => {
                let Outcome { value, stderr, .. } = &mut **outcome;
                std::iter::once(value).chain(stderr.as_mut()).collect()
            }
            FromWorker::Started(_) | FromWorker::Approve { .. } | FromWorker::Password { .. } => {
                Vec::new()
            }
        }
    }
}

/// Write `message` as one line, its values after it, and flush. The line
/// holds nothing in the values' places.
pub(super) fn write_message<M: Serialize + Carries>(
    out: &mut impl Write,
    mut message: M,
) -> std::io::Result<()> {
    let values: Vec<Value> = message
        .values_mut()
        .into_iter()
        .map(|slot| std::mem::replace(slot, Value::nothing(Span::unknown())))
        .collect();
    let mut line = serde_json::to_vec(&message).map_err(std::io::Error::other)?;
    line.push(b'\n');
    out.write_all(&line)?;
    for value in &values {
        write_value(out, value)?;
    }
    out.flush()
}

/// What reading one message gave.
pub(super) enum Line<T> {
    Message(T),
    /// The other side closed the pipe.
    Closed,
    /// Unreadable: not JSON of the expected shape, a value not in its
    /// format, or longer than allowed.
    Invalid(String),
}

/// How much of a message a reader takes.
#[derive(Clone, Copy, Debug)]
pub(super) struct ReadLimit {
    /// The longest line.
    pub line: u64,
    /// The line and its values together.
    pub message: u64,
}

impl ReadLimit {
    /// The line and its values within `bytes` together.
    pub(super) fn total(bytes: u64) -> Self {
        ReadLimit {
            line: bytes,
            message: bytes,
        }
    }
}

/// Read one message: its line, then its values.
pub(super) fn read_message<T: serde::de::DeserializeOwned + Carries>(
    input: &mut impl BufRead,
    limit: ReadLimit,
) -> Line<T> {
    let line_limit = limit.line.min(limit.message);
    let mut buffer = Vec::new();
    match input
        .by_ref()
        .take(line_limit)
        .read_until(b'\n', &mut buffer)
    {
        Ok(0) => return Line::Closed,
        Ok(_) => {}
        Err(err) => return Line::Invalid(format!("cannot read the pipe: {err}")),
    }
    if buffer.last() != Some(&b'\n') {
        return if buffer.len() as u64 >= line_limit {
            Line::Invalid(format!("a message longer than {line_limit} bytes"))
        } else {
            Line::Invalid("a message cut off by the end of the pipe".into())
        };
    }
    let mut message: T = match serde_json::from_slice(&buffer) {
        Ok(message) => message,
        Err(err) => return Line::Invalid(format!("an unreadable message ({err})")),
    };
    let mut budget = limit.message - buffer.len() as u64;
    for slot in message.values_mut() {
        match read_value(input, &mut budget) {
            Ok(value) => *slot = value,
            Err(why) => return Line::Invalid(why),
        }
    }
    Line::Message(message)
}

#[cfg(test)]
mod tests {
    use nu_protocol::Record;

    use super::*;
    use crate::shell::StopReason;

    fn round_trip<T: Serialize + serde::de::DeserializeOwned + Carries>(message: T) -> T {
        let mut wire = Vec::new();
        write_message(&mut wire, message).unwrap();
        let mut input = wire.as_slice();
        let back = match read_message(&mut input, ReadLimit::total(1 << 20)) {
            Line::Message(message) => message,
            Line::Closed => panic!("closed"),
            Line::Invalid(why) => panic!("{why}"),
        };
        assert!(input.is_empty(), "{} bytes left over", input.len());
        back
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
        let FromWorker::Done(back) = round_trip(FromWorker::Done(Box::new(outcome.clone()))) else {
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
        let ToWorker::Approval { id, approval } = round_trip(reply) else {
            panic!("not an approval")
        };
        assert_eq!((id, approval), (u64::MAX, Approval::Edit("ls".into())));
    }

    #[test]
    fn garbage_oversized_and_cut_lines_are_invalid() {
        let invalid = |wire: &[u8], limit| {
            matches!(
                read_message::<ToWorker>(&mut &wire[..], ReadLimit::total(limit)),
                Line::Invalid(_)
            )
        };
        assert!(invalid(b"{\"cancel\":1}\n", 100));
        assert!(invalid(b"\"cancel\"", 100));
        assert!(invalid(b"\"cancel\"\n", 4));
        assert!(matches!(
            read_message::<ToWorker>(&mut &b"\"cancel\"\n"[..], ReadLimit::total(100)),
            Line::Message(ToWorker::Cancel)
        ));
        assert!(matches!(
            read_message::<ToWorker>(&mut &b""[..], ReadLimit::total(100)),
            Line::Closed
        ));
    }

    /// 20 MB of NUL bytes (the output of `head -c 20000000 /dev/zero`)
    /// take 20 MB on the pipe, not the 120 MB of JSON's `\u0000`.
    #[test]
    fn a_big_text_result_goes_as_its_bytes_within_the_limit() {
        let size = 20_000_000;
        let mut outcome = empty_outcome("/".into(), Duration::ZERO);
        outcome.value = Value::string("\0".repeat(size), Span::unknown());
        outcome.stderr = Some(Value::string("", Span::unknown()));
        let mut wire = Vec::new();
        write_message(&mut wire, FromWorker::Done(Box::new(outcome))).unwrap();
        assert!(wire.len() < size + 4096, "{} bytes", wire.len());
        let limit = ReadLimit::total(wire.len() as u64);
        let Line::Message(FromWorker::Done(back)) = read_message(&mut wire.as_slice(), limit)
        else {
            panic!("not done")
        };
        assert_eq!(back.value.as_str().map(str::len), Ok(size));
        assert_eq!(back.stderr, Some(Value::string("", Span::unknown())));
        // One byte less than it needs is refused.
        let limit = ReadLimit::total(wire.len() as u64 - 1);
        assert!(matches!(
            read_message::<FromWorker>(&mut wire.as_slice(), limit),
            Line::Invalid(why) if why.contains("longer than allowed")
        ));
    }

    #[test]
    fn values_of_every_message_follow_its_line() {
        let s = Span::unknown();
        let start = WorkerStart {
            spec: super::super::SandboxSpec::off(),
            cwd: "/".into(),
            env: Vec::new(),
            policy: serde_json::Value::Null,
            outs: vec![Value::int(1, s), Value::string("two", s)],
            idle_timeout: None,
        };
        let back = round_trip(start);
        assert_eq!(back.outs, [Value::int(1, s), Value::string("two", s)]);
        let run = WorkerRun {
            source: "length".into(),
            cwd: "/".into(),
            limits: crate::shell::Limits::default(),
            policy: serde_json::Value::Null,
            input: Some(Value::list(vec![Value::int(3, s)], s)),
        };
        let ToWorker::Run(back) = round_trip(ToWorker::Run(Box::new(run))) else {
            panic!("not a run")
        };
        assert_eq!(back.input, Some(Value::list(vec![Value::int(3, s)], s)));
        let ToWorker::AddOut(back) = round_trip(ToWorker::AddOut(Box::new(Value::int(9, s))))
        else {
            panic!("not an $out")
        };
        assert_eq!(*back, Value::int(9, s));
    }
}
