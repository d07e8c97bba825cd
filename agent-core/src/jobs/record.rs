//! What a job is and how it stands, rebuilt from its event log.

use serde::{Deserialize, Serialize};

/// Where a job stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JobStatus {
    /// Waiting for a free slot (`agent.jobs.max_running`).
    Queued,
    Running,
    /// A step waits for `agent job approve` or `agent job deny`.
    Waiting,
    Completed,
    Failed,
    TimedOut,
    Cancelled,
    /// Its process ended (plugin stopped, crash) before it finished.
    Lost,
}

impl JobStatus {
    /// The status's name, as listed.
    pub fn as_str(self) -> &'static str {
        match self {
            JobStatus::Queued => "queued",
            JobStatus::Running => "running",
            JobStatus::Waiting => "waiting",
            JobStatus::Completed => "completed",
            JobStatus::Failed => "failed",
            JobStatus::TimedOut => "timed_out",
            JobStatus::Cancelled => "cancelled",
            JobStatus::Lost => "lost",
        }
    }

    /// Whether the job is over (nothing will change it again).
    pub fn is_finished(self) -> bool {
        !matches!(
            self,
            JobStatus::Queued | JobStatus::Running | JobStatus::Waiting
        )
    }
}

/// What a job does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JobKind {
    /// One pipeline under the policy (`agent job run`).
    Run,
    /// An agent task (`agent job spawn`, `ask --bg`).
    Task,
}

impl JobKind {
    pub fn as_str(self) -> &'static str {
        match self {
            JobKind::Run => "run",
            JobKind::Task => "task",
        }
    }
}

/// The process that runs a job: its pid and its start time (clock ticks
/// since boot), so a recycled pid is not taken for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Owner {
    pub pid: u32,
    pub started: u64,
}

impl Owner {
    /// This process.
    pub fn current() -> Owner {
        let pid = std::process::id();
        Owner {
            pid,
            started: process_start(pid).unwrap_or(0),
        }
    }

    /// Whether the owning process still runs.
    pub fn is_alive(&self) -> bool {
        process_start(self.pid).is_some_and(|started| started == self.started)
    }
}

/// A process's start time from `/proc/<pid>/stat` (field 22).
fn process_start(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    if fields.first() == Some(&"Z") {
        return None;
    }
    // `rest` starts at field 3 (state): field 22 is index 19.
    fields.get(19)?.parse().ok()
}

/// One line of a job's event log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobEvent {
    /// Milliseconds since the Unix epoch.
    pub at: u64,
    #[serde(flatten)]
    pub kind: EventKind,
}

/// What happened.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum EventKind {
    /// The job was made.
    Created {
        kind: JobKind,
        title: String,
        owner: Owner,
    },
    /// Its status changed; `detail` says what it waits for, or why it
    /// failed.
    Status {
        status: JobStatus,
        #[serde(default)]
        detail: Option<String>,
    },
    /// A line of its log (a step, a guard decision, a notice).
    Log { text: String },
}

/// A job as its events tell it.
#[derive(Clone, Debug, PartialEq)]
pub struct JobRecord {
    pub id: u64,
    pub kind: JobKind,
    pub title: String,
    pub status: JobStatus,
    pub owner: Owner,
    /// When it was made, started and finished (ms since the epoch).
    pub created: u64,
    pub started: Option<u64>,
    pub finished: Option<u64>,
    /// The approval it waits for (while `waiting`).
    pub waiting_for: Option<String>,
    /// Why it failed, was cancelled or lost.
    pub error: Option<String>,
}

impl JobRecord {
    /// The record `events` describe; `None` without a `created` event.
    pub fn from_events(id: u64, events: &[JobEvent]) -> Option<JobRecord> {
        let mut record: Option<JobRecord> = None;
        for event in events {
            match (&event.kind, record.as_mut()) {
                (EventKind::Created { kind, title, owner }, _) => {
                    record = Some(JobRecord {
                        id,
                        kind: *kind,
                        title: title.clone(),
                        status: JobStatus::Queued,
                        owner: *owner,
                        created: event.at,
                        started: None,
                        finished: None,
                        waiting_for: None,
                        error: None,
                    });
                }
                (EventKind::Status { status, detail }, Some(record)) => {
                    record.status = *status;
                    record.waiting_for = None;
                    match status {
                        JobStatus::Running => {
                            record.started.get_or_insert(event.at);
                        }
                        JobStatus::Waiting => record.waiting_for = detail.clone(),
                        JobStatus::Queued => {}
                        _ => {
                            record.finished = Some(event.at);
                            record.error = detail.clone();
                        }
                    }
                }
                _ => {}
            }
        }
        let mut record = record?;
        if !record.status.is_finished() && !record.owner.is_alive() {
            record.status = JobStatus::Lost;
            record.waiting_for = None;
            // It is known to have lived until its last event: its duration
            // stops there instead of growing forever.
            record.finished = events.last().map(|event| event.at);
            record.error = Some(format!(
                "its process ({}) ended before the job finished",
                record.owner.pid
            ));
        }
        Some(record)
    }

    /// Why the job has no result to give: `None` once it completed;
    /// otherwise how it stands or how it ended (`it failed: …`, `it was
    /// cancelled`, `it is still running`).
    pub fn why_no_result(&self) -> Option<String> {
        let error = self.error.as_deref().filter(|e| !e.is_empty());
        Some(match self.status {
            JobStatus::Completed => return None,
            JobStatus::Queued => "it is queued (it starts when a running job ends)".into(),
            JobStatus::Running => "it is still running".into(),
            JobStatus::Waiting => match &self.waiting_for {
                Some(what) => format!("it is waiting for an approval ({what})"),
                None => "it is waiting for an approval".into(),
            },
            JobStatus::Failed => match error {
                Some(error) => format!("it failed: {error}"),
                None => "it failed".into(),
            },
            JobStatus::TimedOut => match error {
                Some(error) => format!("it timed out ({error})"),
                None => "it timed out".into(),
            },
            JobStatus::Cancelled => match error {
                Some(error) if error.starts_with("cancelled") => format!("it was {error}"),
                Some(error) => format!("it was cancelled ({error})"),
                None => "it was cancelled".into(),
            },
            JobStatus::Lost => match error {
                Some(error) => format!("it was lost: {error}"),
                None => "it was lost".into(),
            },
        })
    }

    /// How long it ran (or has run so far), in milliseconds.
    pub fn duration_ms(&self, now: u64) -> Option<u64> {
        let start = self.started?;
        Some(self.finished.unwrap_or(now).saturating_sub(start))
    }
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(at: u64, kind: EventKind) -> JobEvent {
        JobEvent { at, kind }
    }

    #[test]
    fn the_record_follows_its_events() {
        let owner = Owner::current();
        let mut events = vec![
            event(
                1,
                EventKind::Created {
                    kind: JobKind::Run,
                    title: "sleep 1sec".into(),
                    owner,
                },
            ),
            event(
                2,
                EventKind::Status {
                    status: JobStatus::Running,
                    detail: None,
                },
            ),
            event(
                3,
                EventKind::Status {
                    status: JobStatus::Waiting,
                    detail: Some("delete: a.txt".into()),
                },
            ),
        ];
        let record = JobRecord::from_events(7, &events).unwrap();
        assert_eq!(record.status, JobStatus::Waiting);
        assert_eq!(record.waiting_for.as_deref(), Some("delete: a.txt"));
        assert_eq!(record.started, Some(2));
        events.push(event(
            9,
            EventKind::Status {
                status: JobStatus::Completed,
                detail: None,
            },
        ));
        let record = JobRecord::from_events(7, &events).unwrap();
        assert_eq!(record.status, JobStatus::Completed);
        assert_eq!(record.waiting_for, None);
        assert_eq!(record.duration_ms(100), Some(7));
    }

    #[test]
    fn an_unfinished_job_of_a_dead_process_is_lost() {
        let owner = Owner {
            pid: std::process::id(),
            started: 1,
        };
        let events = vec![
            event(
                1,
                EventKind::Created {
                    kind: JobKind::Task,
                    title: "t".into(),
                    owner,
                },
            ),
            event(
                2,
                EventKind::Status {
                    status: JobStatus::Running,
                    detail: None,
                },
            ),
        ];
        let record = JobRecord::from_events(1, &events).unwrap();
        assert_eq!(record.status, JobStatus::Lost);
        assert!(Owner::current().is_alive());
        // A lost job's duration ends at its last event.
        assert_eq!(record.finished, Some(2));
        assert_eq!(record.duration_ms(1_000), record.duration_ms(1_000_000));
    }

    #[test]
    fn statuses_serialize_by_name() {
        for status in [JobStatus::TimedOut, JobStatus::Lost, JobStatus::Waiting] {
            let json = serde_json::to_string(&status).unwrap();
            assert_eq!(json, format!("\"{}\"", status.as_str()));
        }
    }

    #[test]
    fn only_a_completed_job_has_a_result_and_the_others_say_why() {
        let record = |status: JobStatus, error: Option<&str>| JobRecord {
            id: 3,
            kind: JobKind::Run,
            title: "t".into(),
            status,
            owner: Owner::current(),
            created: 1,
            started: Some(2),
            finished: None,
            waiting_for: None,
            error: error.map(str::to_string),
        };
        assert_eq!(record(JobStatus::Completed, None).why_no_result(), None);
        let why = |status, error| record(status, error).why_no_result().unwrap();
        assert_eq!(
            why(
                JobStatus::Failed,
                Some("the external command exited with code 1")
            ),
            "it failed: the external command exited with code 1"
        );
        assert_eq!(
            why(JobStatus::Cancelled, Some("cancelled")),
            "it was cancelled"
        );
        assert_eq!(
            why(JobStatus::Cancelled, Some("cancelled before it started")),
            "it was cancelled before it started"
        );
        assert_eq!(
            why(JobStatus::TimedOut, Some("stopped after 1.0 s")),
            "it timed out (stopped after 1.0 s)"
        );
        assert_eq!(why(JobStatus::Running, None), "it is still running");
        let mut waiting = record(JobStatus::Waiting, None);
        waiting.waiting_for = Some("mkdir made".into());
        assert_eq!(
            waiting.why_no_result().unwrap(),
            "it is waiting for an approval (mkdir made)"
        );
    }
}
