//! What a run is given (limits) and what it gives back (an outcome).

use std::{path::PathBuf, time::Duration};

use nu_protocol::Value;
use serde::{Deserialize, Serialize};

use super::Diagnostic;

/// Bounds on one run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Limits {
    /// Wall-clock limit; `None` runs until done or cancelled.
    pub timeout: Option<Duration>,
    /// Most bytes collected from a stream (an external's stdout, and
    /// separately its stderr; or the rows of a list stream, by memory size).
    pub max_output_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            timeout: None,
            max_output_bytes: 64 * 1024 * 1024,
        }
    }
}

impl Limits {
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    pub fn with_max_output_bytes(mut self, bytes: usize) -> Self {
        self.max_output_bytes = bytes;
        self
    }
}

/// Why a run ended before its pipeline finished.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum StopReason {
    /// A [`super::CancelToken`] was cancelled (Ctrl+C, job cancel).
    Cancelled,
    /// The wall-clock limit passed.
    TimedOut(Duration),
    /// The output byte cap was reached.
    OutputCapped(usize),
    /// The evaluation panicked; the session is still usable.
    Panicked(String),
    /// The evaluation did not stop after it was told to; the session's
    /// variables and `$out` history were reset.
    Abandoned,
}

impl std::fmt::Display for StopReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StopReason::Cancelled => write!(f, "cancelled; the output is what it produced so far"),
            StopReason::TimedOut(limit) => write!(
                f,
                "stopped after the {} time limit; the output is what it produced so far",
                humanize_duration(*limit)
            ),
            StopReason::OutputCapped(bytes) => write!(
                f,
                "stopped at the output cap of {bytes} bytes; the output is cut there"
            ),
            StopReason::Panicked(msg) => write!(f, "the evaluation crashed: {msg}"),
            StopReason::Abandoned => write!(
                f,
                "the evaluation did not stop when told to; the session was reset (variables and $out cleared)"
            ),
        }
    }
}

/// Everything a run produced.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Outcome {
    /// The full result. For an external command this is its stdout (a string,
    /// or binary when it is not UTF-8); `Nothing` when the run failed.
    pub value: Value,
    /// The index of this run in `$out` (`$out.N` holds `value`).
    pub index: usize,
    /// An external command's stderr, when the result came from one.
    pub stderr: Option<Value>,
    /// The exit code of the external command that produced the result, or
    /// that failed the run.
    pub exit_code: Option<i32>,
    /// Text written by `print` during the run.
    pub printed: Vec<String>,
    /// The session's working directory after the run.
    pub cwd: PathBuf,
    /// Set when the pipeline failed to parse, compile or run.
    pub error: Option<Diagnostic>,
    /// Set when the run was stopped early.
    pub stopped: Option<StopReason>,
    /// Wall-clock time of the run.
    pub duration: Duration,
}

impl Outcome {
    /// True when the pipeline ran to the end without an error.
    pub fn is_success(&self) -> bool {
        self.error.is_none() && self.stopped.is_none()
    }
}

/// `1.5s`, `200ms`, `2m 3s`: short human-readable durations.
pub fn humanize_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 {
        format!("{ms}ms")
    } else if ms < 60_000 {
        let secs = d.as_secs_f64();
        if (secs - secs.round()).abs() < 0.05 {
            format!("{}s", secs.round() as u64)
        } else {
            format!("{secs:.1}s")
        }
    } else {
        let secs = d.as_secs();
        format!("{}m {}s", secs / 60, secs % 60)
    }
}
