//! `nu-agent job list|status|result|logs|clean`: the background jobs the
//! plugin runs (`agent job ...` in nu), read from their records in the
//! state dir: every job, one job's record, its value, its event log; and
//! `clean` removes finished ones. Nothing here starts, cancels or approves
//! a job.

use std::{io::Write, process::ExitCode, time::Duration};

use agent_core::jobs::{EventKind, JobEvent, JobRecord, JobStatus, JobStore};
use chrono::{DateTime, FixedOffset, Local, TimeZone};
use nu_protocol::{Record, Span, Value};

use crate::{
    JobCommand,
    common::{EXIT_FAILED, parse_duration, print_value},
};

/// Run one `nu-agent job` subcommand.
pub fn job(command: JobCommand) -> ExitCode {
    let store = match JobStore::in_state_dir() {
        Ok(store) => store,
        Err(error) => {
            eprintln!("nu-agent: {error}");
            return ExitCode::from(EXIT_FAILED);
        }
    };
    let now = now_ms();
    let span = Span::unknown();
    match command {
        JobCommand::List { json } => {
            let rows = store
                .list()
                .iter()
                .map(|record| list_row(record, now, span))
                .collect();
            print_value(&Value::list(rows, span), json)
        }
        JobCommand::Status { id, json } => match find(&store, id) {
            Some(record) => {
                let has_result =
                    record.why_no_result().is_none() && matches!(store.result(id), Ok(Some(_)));
                print_value(&status_value(&record, has_result, now, span), json)
            }
            None => ExitCode::from(EXIT_FAILED),
        },
        JobCommand::Result { id, json } => {
            let Some(record) = find(&store, id) else {
                return ExitCode::from(EXIT_FAILED);
            };
            if let Some(why) = record.why_no_result() {
                eprintln!(
                    "nu-agent: job {id} has no result: {why}\nhelp: {}",
                    no_result_help(id, record.status)
                );
                return ExitCode::from(EXIT_FAILED);
            }
            match store.result(id) {
                Ok(Some(value)) => print_value(&value, json),
                Ok(None) => {
                    eprintln!(
                        "nu-agent: job {id} completed but its result is missing\nhelp: `nu-agent job logs {id}` shows what it did"
                    );
                    ExitCode::from(EXIT_FAILED)
                }
                Err(error) => {
                    eprintln!("nu-agent: job {id}: {error}");
                    ExitCode::from(EXIT_FAILED)
                }
            }
        }
        JobCommand::Logs { id } => {
            let Some(record) = find(&store, id) else {
                return ExitCode::from(EXIT_FAILED);
            };
            let mut lines: Vec<String> = store.events(id).iter().map(event_line).collect();
            // `lost` is not an event: the reader infers it from the owner.
            if let (JobStatus::Lost, Some(error)) = (record.status, &record.error) {
                lines.push(format!("{:<23}  {:<8} lost: {error}", "-", "status"));
            }
            let mut stdout = std::io::stdout().lock();
            for line in lines {
                // A closed pipe (`| head`) ends the listing, not in a panic.
                if writeln!(stdout, "{line}").is_err() {
                    break;
                }
            }
            ExitCode::SUCCESS
        }
        JobCommand::Clean { keep, older_than } => {
            let removed = store.clean(keep, older_than);
            let noun = if removed.len() == 1 { "job" } else { "jobs" };
            println!("removed {} finished {noun}", removed.len());
            ExitCode::SUCCESS
        }
    }
}

/// What to do about a job that has no result, by its status (the CLI
/// only reads jobs: waiting for one and answering it happen in nu).
fn no_result_help(id: u64, status: JobStatus) -> String {
    match status {
        JobStatus::Queued | JobStatus::Running => format!(
            "`nu-agent job status {id}` shows how it stands; in nu, `agent job wait {id}` waits for it"
        ),
        JobStatus::Waiting => {
            format!("answer it in nu: `agent job approve {id}` or `agent job deny {id}`")
        }
        _ => format!("`nu-agent job logs {id}` shows what it did"),
    }
}

/// Job `id`'s record, or `None` after saying on stderr that there is none.
fn find(store: &JobStore, id: u64) -> Option<JobRecord> {
    let record = store.record(id);
    if record.is_none() {
        eprintln!("nu-agent: there is no job {id}; `nu-agent job list` shows the jobs");
    }
    record
}

/// A row of `job list`.
fn list_row(record: &JobRecord, now: u64, span: Span) -> Value {
    let mut row = Record::new();
    row.push("id", Value::int(record.id as i64, span));
    row.push("kind", Value::string(record.kind.as_str(), span));
    row.push("status", Value::string(record.status.as_str(), span));
    row.push("title", Value::string(&record.title, span));
    row.push("started", date_value(record.started, span));
    row.push("duration", duration_value(record.duration_ms(now), span));
    row.push("waiting_for", optional_string(&record.waiting_for, span));
    Value::record(row, span)
}

/// `job status`: the whole record.
fn status_value(record: &JobRecord, has_result: bool, now: u64, span: Span) -> Value {
    let mut row = Record::new();
    row.push("id", Value::int(record.id as i64, span));
    row.push("kind", Value::string(record.kind.as_str(), span));
    row.push("title", Value::string(&record.title, span));
    row.push("status", Value::string(record.status.as_str(), span));
    row.push("pid", Value::int(i64::from(record.owner.pid), span));
    row.push("created", date_value(Some(record.created), span));
    row.push("started", date_value(record.started, span));
    row.push("finished", date_value(record.finished, span));
    row.push("duration", duration_value(record.duration_ms(now), span));
    row.push("waiting_for", optional_string(&record.waiting_for, span));
    row.push("error", optional_string(&record.error, span));
    row.push("has_result", Value::bool(has_result, span));
    Value::record(row, span)
}

/// One line of `job logs`: when, which event, what.
fn event_line(event: &JobEvent) -> String {
    let at = local_time(event.at)
        .map(|time| time.format("%Y-%m-%d %H:%M:%S%.3f").to_string())
        .unwrap_or_else(|| event.at.to_string());
    let (name, what) = match &event.kind {
        EventKind::Created { kind, title, owner } => (
            "created",
            format!("{} job by pid {}: {title}", kind.as_str(), owner.pid),
        ),
        EventKind::Status { status, detail } => (
            "status",
            match detail {
                Some(detail) => format!("{}: {detail}", status.as_str()),
                None => status.as_str().to_string(),
            },
        ),
        EventKind::Log { text } => ("log", text.clone()),
    };
    // A multi-line text keeps its event's lines under the `what` column.
    let what = what.trim_end().replace('\n', &format!("\n{:34}", ""));
    format!("{at:<23}  {name:<8} {what}")
}

/// Parse `--older-than`: what `--timeout` takes, or whole days (`7d`).
pub fn parse_age(text: &str) -> Result<Duration, String> {
    let trimmed = text.trim();
    if let Some(days) = trimmed
        .strip_suffix("days")
        .or_else(|| trimmed.strip_suffix("day"))
        .or_else(|| trimmed.strip_suffix('d'))
        && let Ok(days) = days.trim().parse::<u64>()
    {
        return Ok(Duration::from_secs(days * 86_400));
    }
    parse_duration(trimmed).map_err(|_| format!("`{text}` is not an age (try 30m, 12h or 7d)"))
}

fn local_time(ms: u64) -> Option<DateTime<FixedOffset>> {
    let ms = i64::try_from(ms).ok()?;
    Some(Local.timestamp_millis_opt(ms).single()?.fixed_offset())
}

fn date_value(ms: Option<u64>, span: Span) -> Value {
    match ms.and_then(local_time) {
        Some(time) => Value::date(time, span),
        None => Value::nothing(span),
    }
}

fn duration_value(ms: Option<u64>, span: Span) -> Value {
    match ms.and_then(|ms| i64::try_from(ms).ok()?.checked_mul(1_000_000)) {
        Some(nanos) => Value::duration(nanos, span),
        None => Value::nothing(span),
    }
}

fn optional_string(text: &Option<String>, span: Span) -> Value {
    match text {
        Some(text) => Value::string(text, span),
        None => Value::nothing(span),
    }
}

/// Milliseconds since the Unix epoch.
fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}
