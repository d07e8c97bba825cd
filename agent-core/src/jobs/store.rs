//! Jobs on disk: `<state dir>/jobs/<id>/events.jsonl` (append-only, one
//! event per line) and `result.json` (the job's value, written to a
//! temporary file and renamed into place).

use std::{
    io::{BufRead, BufReader},
    path::{Path, PathBuf},
    time::Duration,
};

use nu_protocol::Value;

use super::record::{EventKind, JobEvent, JobKind, JobRecord, Owner, now_ms};
use crate::store::{
    StoreError,
    append::{append_line, open_append},
    state_dir,
    state_dir::create_private_dir,
};

const EVENTS: &str = "events.jsonl";
const RESULT: &str = "result.json";

/// The jobs directory of a state dir.
#[derive(Clone, Debug)]
pub struct JobStore {
    dir: PathBuf,
}

impl JobStore {
    /// The store under `state_dir` (created, private).
    pub fn open(state_dir: &Path) -> Result<JobStore, StoreError> {
        let dir = state_dir.join("jobs");
        create_private_dir(&dir)?;
        Ok(JobStore { dir })
    }

    /// The store in the agent's state dir.
    pub fn in_state_dir() -> Result<JobStore, StoreError> {
        JobStore::open(&state_dir()?)
    }

    /// Where the jobs live.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn job_dir(&self, id: u64) -> PathBuf {
        self.dir.join(id.to_string())
    }

    /// A new job, numbered after the highest so far (its directory is
    /// claimed atomically, so two processes never share a number).
    pub fn create(&self, kind: JobKind, title: &str) -> Result<u64, StoreError> {
        let mut id = self.ids().last().copied().unwrap_or(0) + 1;
        loop {
            let dir = self.job_dir(id);
            match std::fs::create_dir(&dir) {
                Ok(()) => break,
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => id += 1,
                Err(source) => return Err(StoreError::CreateDir { path: dir, source }),
            }
        }
        self.append(
            id,
            EventKind::Created {
                kind,
                title: title.to_string(),
                owner: Owner::current(),
            },
        )?;
        Ok(id)
    }

    /// Append `kind` to job `id`'s events, stamped now.
    pub fn append(&self, id: u64, kind: EventKind) -> Result<(), StoreError> {
        let path = self.job_dir(id).join(EVENTS);
        let mut line = serde_json::to_vec(&JobEvent { at: now_ms(), kind })?;
        line.push(b'\n');
        let file = open_append(&path)?;
        append_line(&file, &path, &line)
    }

    /// Job `id`'s events (a torn or unreadable line is skipped).
    pub fn events(&self, id: u64) -> Vec<JobEvent> {
        let Ok(file) = std::fs::File::open(self.job_dir(id).join(EVENTS)) else {
            return Vec::new();
        };
        BufReader::new(file)
            .lines()
            .map_while(Result::ok)
            .filter_map(|line| serde_json::from_str(&line).ok())
            .collect()
    }

    /// Job `id` as its events tell it; `None` when there is no such job.
    pub fn record(&self, id: u64) -> Option<JobRecord> {
        JobRecord::from_events(id, &self.events(id))
    }

    /// Every job, oldest first.
    pub fn list(&self) -> Vec<JobRecord> {
        self.ids()
            .into_iter()
            .filter_map(|id| self.record(id))
            .collect()
    }

    fn ids(&self) -> Vec<u64> {
        let mut ids: Vec<u64> = std::fs::read_dir(&self.dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|entry| entry.file_name().to_str()?.parse().ok())
            .collect();
        ids.sort_unstable();
        ids
    }

    /// Keep job `id`'s value (atomically: a reader sees the old file or
    /// the whole new one).
    pub fn save_result(&self, id: u64, value: &Value) -> Result<(), StoreError> {
        let dir = self.job_dir(id);
        let temporary = dir.join(format!(".{RESULT}.tmp"));
        let json = serde_json::to_vec(value)?;
        std::fs::write(&temporary, json).map_err(|source| StoreError::Write {
            path: temporary.clone(),
            source,
        })?;
        let path = dir.join(RESULT);
        std::fs::rename(&temporary, &path).map_err(|source| StoreError::Write { path, source })
    }

    /// Job `id`'s value, if it has one.
    pub fn result(&self, id: u64) -> Result<Option<Value>, StoreError> {
        let path = self.job_dir(id).join(RESULT);
        match std::fs::read(&path) {
            Ok(bytes) => Ok(Some(serde_json::from_slice(&bytes)?)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(StoreError::Read { path, source }),
        }
    }

    /// Remove finished jobs beyond the newest `keep` and those finished
    /// more than `max_age` ago; returns the ids removed. Unfinished jobs
    /// stay.
    pub fn clean(&self, keep: usize, max_age: Option<Duration>) -> Vec<u64> {
        let now = now_ms();
        let finished: Vec<JobRecord> = self
            .list()
            .into_iter()
            .filter(|r| r.status.is_finished())
            .collect();
        let excess = finished.len().saturating_sub(keep);
        let mut removed = Vec::new();
        for (i, record) in finished.iter().enumerate() {
            let old = max_age.is_some_and(|age| {
                let at = record.finished.unwrap_or(record.created);
                now.saturating_sub(at) > age.as_millis() as u64
            });
            if (i < excess || old) && std::fs::remove_dir_all(self.job_dir(record.id)).is_ok() {
                removed.push(record.id);
            }
        }
        removed
    }
}

#[cfg(test)]
mod tests {
    use nu_protocol::{Record, Span};

    use std::io::Write;

    use super::*;
    use crate::jobs::JobStatus;

    fn finish(store: &JobStore, id: u64, status: JobStatus) {
        store
            .append(
                id,
                EventKind::Status {
                    status,
                    detail: None,
                },
            )
            .unwrap();
    }

    #[test]
    fn jobs_are_numbered_listed_and_keep_their_results() {
        let dir = tempfile::tempdir().unwrap();
        let store = JobStore::open(dir.path()).unwrap();
        let a = store.create(JobKind::Run, "ls").unwrap();
        let b = store.create(JobKind::Task, "clean up").unwrap();
        assert_eq!((a, b), (1, 2));
        let mut record = Record::new();
        record.push("answer", Value::int(42, Span::unknown()));
        let value = Value::record(record, Span::unknown());
        store.save_result(a, &value).unwrap();
        finish(&store, a, JobStatus::Completed);
        assert_eq!(store.result(a).unwrap(), Some(value));
        assert_eq!(store.result(b).unwrap(), None);
        let listed: Vec<(u64, JobStatus)> = store.list().iter().map(|r| (r.id, r.status)).collect();
        assert_eq!(listed, [(1, JobStatus::Completed), (2, JobStatus::Queued)]);
        // Another store on the same directory (another process) sees them.
        let other = JobStore::open(dir.path()).unwrap();
        assert_eq!(other.record(2).unwrap().title, "clean up");
        assert_eq!(other.create(JobKind::Run, "x").unwrap(), 3);
    }

    #[test]
    fn a_torn_last_line_is_skipped_and_the_next_event_lands() {
        let dir = tempfile::tempdir().unwrap();
        let store = JobStore::open(dir.path()).unwrap();
        let id = store.create(JobKind::Run, "ls").unwrap();
        let path = store.dir().join("1").join(EVENTS);
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(b"{\"at\":1,\"event\":\"sta")
            .unwrap();
        finish(&store, id, JobStatus::Failed);
        assert_eq!(store.record(id).unwrap().status, JobStatus::Failed);
    }

    #[test]
    fn clean_keeps_the_newest_and_the_unfinished() {
        let dir = tempfile::tempdir().unwrap();
        let store = JobStore::open(dir.path()).unwrap();
        for _ in 0..4 {
            let id = store.create(JobKind::Run, "ls").unwrap();
            finish(&store, id, JobStatus::Completed);
        }
        let running = store.create(JobKind::Run, "sleep").unwrap();
        assert_eq!(store.clean(1, None), [1, 2, 3]);
        let left: Vec<u64> = store.list().iter().map(|r| r.id).collect();
        assert_eq!(left, [4, running]);
        assert_eq!(store.clean(0, None), [4]);
        assert_eq!(store.list().len(), 1, "the unfinished job stays");
    }
}
