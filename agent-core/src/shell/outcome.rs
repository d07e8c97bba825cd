//! What a run is given (limits) and what it gives back (an outcome).

use std::{path::PathBuf, time::Duration};

use nu_protocol::Value;
use serde::{Deserialize, Serialize};

use super::{Diagnostic, OutputCut};

/// Bounds on one run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Limits {
    /// Wall-clock limit; `None` runs until done or cancelled.
    pub timeout: Option<Duration>,
    /// The output cap, in bytes: of an external's stdout (and apart from
    /// it, its stderr) or other text or binary; of the compact JSON of rows
    /// and records (see [`super::OutputCut`]).
    pub max_output_bytes: usize,
}

/// The output cap unless a run says otherwise: 64 MiB per stream.
pub const DEFAULT_MAX_OUTPUT: usize = 64 * 1024 * 1024;

impl Default for Limits {
    fn default() -> Self {
        Limits {
            timeout: None,
            max_output_bytes: DEFAULT_MAX_OUTPUT,
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
    /// The output cap was reached; the output is the part that fits.
    OutputCapped(OutputCut),
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
            StopReason::OutputCapped(cut) => write!(
                f,
                "{}, the output cap; the output is what it produced up to there",
                cut.describe()
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

/// A size that could not be read (`--max-output`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SizeError {
    #[error("`{0}` is not a size: write a number and a unit, e.g. 200MiB, 64MB or 1GiB")]
    NotASize(String),
    #[error("`{0}` is too large for this machine")]
    TooLarge(String),
    #[error("the output cap must be more than 0 bytes")]
    Zero,
}

/// Units of [`parse_size`], lower case: decimal (kB = 1000) and binary
/// (KiB = 1024), as nu writes file sizes.
const SIZE_UNITS: &[(&str, u64)] = &[
    ("b", 1),
    ("kb", 1_000),
    ("mb", 1_000_000),
    ("gb", 1_000_000_000),
    ("tb", 1_000_000_000_000),
    ("kib", 1 << 10),
    ("mib", 1 << 20),
    ("gib", 1 << 30),
    ("tib", 1 << 40),
];

/// `200MiB`, `64mb`, `1.5GiB`, `4096` (bytes): a positive size in bytes.
pub fn parse_size(text: &str) -> Result<usize, SizeError> {
    let trimmed = text.trim();
    let split = trimmed
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(split);
    let unit = unit.trim().to_ascii_lowercase();
    let multiplier = if unit.is_empty() {
        1
    } else {
        SIZE_UNITS
            .iter()
            .find(|(name, _)| *name == unit)
            .map(|(_, m)| *m)
            .ok_or_else(|| SizeError::NotASize(text.to_string()))?
    };
    let number: f64 = number
        .parse()
        .map_err(|_| SizeError::NotASize(text.to_string()))?;
    let bytes = (number * multiplier as f64).floor();
    if !bytes.is_finite() || bytes >= usize::MAX as f64 {
        return Err(SizeError::TooLarge(text.to_string()));
    }
    match bytes as usize {
        0 => Err(SizeError::Zero),
        bytes => Ok(bytes),
    }
}

/// `64 MiB`, `1.5 KiB`, `200 B`: a byte count in binary units.
pub fn humanize_bytes(bytes: usize) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = "B";
    for name in UNITS {
        if value < 1024.0 {
            break;
        }
        value /= 1024.0;
        unit = name;
    }
    if unit == "B" || value.fract() == 0.0 {
        format!("{value} {unit}")
    } else {
        format!("{value:.1} {unit}")
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_with_decimal_and_binary_units() {
        assert_eq!(parse_size("200MiB"), Ok(200 << 20));
        assert_eq!(parse_size("64mb"), Ok(64_000_000));
        assert_eq!(parse_size(" 1.5 KiB "), Ok(1536));
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("1GB"), Ok(1_000_000_000));
        assert_eq!(parse_size("0kb"), Err(SizeError::Zero));
        assert!(matches!(parse_size("lots"), Err(SizeError::NotASize(_))));
        assert!(matches!(
            parse_size("12 parsecs"),
            Err(SizeError::NotASize(_))
        ));
        assert!(matches!(parse_size("-3MiB"), Err(SizeError::NotASize(_))));
        assert!(matches!(
            parse_size("99999999999999TiB"),
            Err(SizeError::TooLarge(_))
        ));
        let message = parse_size("lots").unwrap_err().to_string();
        assert!(message.contains("200MiB"), "{message}");
    }

    #[test]
    fn sizes_show_in_binary_units() {
        assert_eq!(humanize_bytes(DEFAULT_MAX_OUTPUT), "64 MiB");
        assert_eq!(humanize_bytes(200 << 20), "200 MiB");
        assert_eq!(humanize_bytes(1536), "1.5 KiB");
        assert_eq!(humanize_bytes(1000), "1000 B");
        assert_eq!(humanize_bytes(1 << 30), "1 GiB");
        let cut = OutputCut {
            limit: DEFAULT_MAX_OUTPUT,
            part: super::super::CutPart::Bytes,
        };
        assert_eq!(
            StopReason::OutputCapped(cut).to_string(),
            "output cut at 64 MiB (counted in bytes), the output cap; the output is what it produced up to there"
        );
    }
}
