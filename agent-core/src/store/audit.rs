//! The audit log: one JSON line per decision, execution or approval, in
//! `audit.jsonl` in the state dir.
//!
//! Each record is written with a single `write_all` on a file opened with
//! `O_APPEND`, under an advisory lock, so writers in several threads or
//! processes never interleave inside a line and a crash can only leave a torn last line. Opening the
//! log ends such a line, and [`AuditLog::read`] skips it (recovering a record
//! that a writer glued onto it). Every string is redacted before it is
//! written.
//! Records reach the OS on every append but are not `fsync`ed: a process
//! crash loses nothing, a power cut may lose the last records.

use std::{
    fs::File,
    io::{BufRead, BufReader},
    path::{Path, PathBuf},
    sync::Mutex,
};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{
    StoreError,
    append::{append_line, open_append},
    state_dir::create_private_dir,
};
use crate::redact::Redactor;

/// The log's file name inside the state dir.
pub const AUDIT_FILE: &str = "audit.jsonl";

/// What a record is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AuditEvent {
    /// The policy judged a pipeline.
    Decision,
    /// A pipeline ran.
    Execution,
    /// Someone (or something) approved or refused a step.
    Approval,
}

/// One line of the audit log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AuditRecord {
    /// When it happened, RFC 3339 in UTC (set by [`AuditRecord::new`]).
    pub time: String,
    /// What the record is about.
    pub event: AuditEvent,
    /// The pipeline as the model (or user) wrote it.
    pub pipeline: String,
    /// The plan rows, as the policy produced them.
    #[serde(default)]
    pub plan: Value,
    /// The verdict (`allow`, `confirm`, `deny`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<String>,
    /// The rule that decided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// Who approved: `policy`, `user`, `--yes`, `--approve <glob>`, `hook`,
    /// `session rule`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approved_by: Option<String>,
    /// An external's exit code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// The error, if the pipeline failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// How long the run took.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// The session the record belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// The program that sent the pipeline when it was not the user or the
    /// agent's model: an MCP client's name (`claude-code`, `codex-mcp-client`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<String>,
}

impl AuditRecord {
    /// A record of `event` for `pipeline`, stamped now, with every other
    /// field empty (fill them with struct update syntax).
    pub fn new(event: AuditEvent, pipeline: impl Into<String>) -> AuditRecord {
        AuditRecord {
            time: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            event,
            pipeline: pipeline.into(),
            plan: Value::Null,
            verdict: None,
            rule: None,
            approved_by: None,
            exit_code: None,
            error: None,
            duration_ms: None,
            session: None,
            client: None,
        }
    }

    /// This record with every string (plan strings included) redacted.
    fn redacted(&self, redactor: &Redactor) -> AuditRecord {
        let text = |s: &String| redactor.redact(s).into_owned();
        let optional = |s: &Option<String>| s.as_ref().map(text);
        AuditRecord {
            time: self.time.clone(),
            event: self.event,
            pipeline: text(&self.pipeline),
            plan: redact_value(&self.plan, redactor),
            verdict: optional(&self.verdict),
            rule: optional(&self.rule),
            approved_by: optional(&self.approved_by),
            exit_code: self.exit_code,
            error: optional(&self.error),
            duration_ms: self.duration_ms,
            session: optional(&self.session),
            client: optional(&self.client),
        }
    }
}

/// `value` with every string in it redacted (object keys are kept).
fn redact_value(value: &Value, redactor: &Redactor) -> Value {
    match value {
        Value::String(s) => Value::String(redactor.redact(s).into_owned()),
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| redact_value(item, redactor))
                .collect(),
        ),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, item)| (key.clone(), redact_value(item, redactor)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The append-only audit log of one state dir.
#[derive(Debug)]
pub struct AuditLog {
    path: PathBuf,
    /// Held while writing so that one process never splits a line even if
    /// the OS takes a record in two writes (the file lock of
    /// [`append_line`] does the same across processes).
    file: Mutex<File>,
    redactor: Redactor,
}

impl AuditLog {
    /// Open (creating it, mode 0600, and `dir`, mode 0700, if missing) the
    /// log in `dir`. Records are redacted with the built-in secret shapes
    /// until [`AuditLog::with_redactor`] supplies one that also knows the
    /// session's secret values.
    pub fn open(dir: &Path) -> Result<AuditLog, StoreError> {
        create_private_dir(dir)?;
        let path = dir.join(AUDIT_FILE);
        let file = open_append(&path)?;
        Ok(AuditLog {
            path,
            file: Mutex::new(file),
            redactor: Redactor::default(),
        })
    }

    /// Redact records with `redactor` (shared numbering with its clones).
    pub fn with_redactor(self, redactor: Redactor) -> AuditLog {
        AuditLog { redactor, ..self }
    }

    /// The log file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Append `record`, redacted, as one line.
    pub fn append(&self, record: &AuditRecord) -> Result<(), StoreError> {
        let mut line = serde_json::to_vec(&record.redacted(&self.redactor))?;
        line.push(b'\n');
        let file = self
            .file
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        append_line(&file, &self.path, &line)
    }

    /// Every record in the log in `dir`, oldest first; none when there is
    /// no log yet. Lines that do not parse (a torn last line after a crash)
    /// are skipped.
    pub fn read(dir: &Path) -> Result<Vec<AuditRecord>, StoreError> {
        let path = dir.join(AUDIT_FILE);
        let read_error = |source| StoreError::Read {
            path: path.clone(),
            source,
        };
        let file = match File::open(&path) {
            Ok(file) => file,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(error) => return Err(read_error(error)),
        };
        let mut reader = BufReader::new(file);
        let mut records = Vec::new();
        let mut line = Vec::new();
        loop {
            line.clear();
            if reader.read_until(b'\n', &mut line).map_err(read_error)? == 0 {
                return Ok(records);
            }
            if let Some(record) = parse_line(&line) {
                records.push(record);
            }
        }
    }
}

/// Start of every serialised record (`time` is its first field; inside a
/// JSON string the quotes would be escaped).
const RECORD_START: &[u8] = br#"{"time":"#;

/// The record on `line`; when the line does not parse, the record glued
/// onto the end of a torn line by a writer that did not know about the
/// tear, if any.
fn parse_line(line: &[u8]) -> Option<AuditRecord> {
    if let Ok(record) = serde_json::from_slice(line) {
        return Some(record);
    }
    (1..line.len())
        .filter(|&at| line[at..].starts_with(RECORD_START))
        .find_map(|at| serde_json::from_slice(&line[at..]).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_with_time_and_optional_fields() {
        let dir = tempfile::tempdir().unwrap();
        let log = AuditLog::open(dir.path()).unwrap();
        let record = AuditRecord {
            verdict: Some("allow".into()),
            exit_code: Some(0),
            plan: serde_json::json!([{"command": "ls", "category": "read"}]),
            ..AuditRecord::new(AuditEvent::Execution, "ls | length")
        };
        log.append(&record).unwrap();
        assert!(chrono::DateTime::parse_from_rfc3339(&record.time).is_ok());
        assert!(record.time.ends_with('Z'));
        assert_eq!(AuditLog::read(dir.path()).unwrap(), vec![record]);
        let text = std::fs::read_to_string(log.path()).unwrap();
        assert!(text.contains(r#""event":"execution""#), "{text}");
        assert!(!text.contains("approved_by"), "{text}");
    }

    #[test]
    fn no_log_reads_as_empty() {
        let dir = tempfile::tempdir().unwrap();
        assert!(AuditLog::read(dir.path()).unwrap().is_empty());
    }

    #[test]
    fn plan_strings_are_redacted() {
        let dir = tempfile::tempdir().unwrap();
        let log = AuditLog::open(dir.path())
            .unwrap()
            .with_redactor(Redactor::new(vec!["canary-value-1234".into()]));
        let record = AuditRecord {
            plan: serde_json::json!({"args": ["canary-value-1234", 3]}),
            ..AuditRecord::new(AuditEvent::Decision, "echo ok")
        };
        log.append(&record).unwrap();
        let text = std::fs::read_to_string(log.path()).unwrap();
        assert!(!text.contains("canary-value-1234"), "{text}");
        assert!(text.contains("[REDACTED:secret-value#1]"), "{text}");
    }
}
