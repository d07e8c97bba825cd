//! Running jobs: each on a thread of its own, at most `max_running` at
//! once (the rest queued in order), each with its own cancel token and
//! approval queue, every change written to the store as it happens.

use std::{
    collections::{HashMap, VecDeque},
    panic::{AssertUnwindSafe, catch_unwind},
    sync::{Arc, Condvar, Mutex, MutexGuard},
    time::{Duration, Instant},
};

use nu_protocol::Value;

use super::{
    approval::JobApprover,
    record::{EventKind, JobKind, JobRecord, JobStatus},
    store::JobStore,
};
use crate::{policy::Approval, shell::CancelToken, store::StoreError};

/// What a job does, given its context.
pub type JobWork = Box<dyn FnOnce(&JobContext) -> JobOutcome + Send>;

/// What a running job gets: its id, its cancel token, its approver, and
/// its log.
pub struct JobContext {
    pub id: u64,
    pub cancel: CancelToken,
    pub approver: Arc<JobApprover>,
    store: JobStore,
}

impl JobContext {
    /// Add a line to the job's log (`agent job logs`).
    pub fn log(&self, text: impl Into<String>) {
        self.logger().log(text);
    }

    /// A handle on the job's log that can be kept (an event sink).
    pub fn logger(&self) -> JobLog {
        JobLog {
            id: self.id,
            store: self.store.clone(),
        }
    }
}

/// Writes lines to one job's log.
#[derive(Clone, Debug)]
pub struct JobLog {
    id: u64,
    store: JobStore,
}

impl JobLog {
    /// Add a line (a record that cannot be written is dropped: the job
    /// goes on).
    pub fn log(&self, text: impl Into<String>) {
        let _ = self
            .store
            .append(self.id, EventKind::Log { text: text.into() });
    }
}

/// How a job ended.
#[derive(Debug)]
pub struct JobOutcome {
    pub status: JobStatus,
    pub value: Option<Value>,
    pub error: Option<String>,
}

/// Runs jobs and answers for the ones this process runs.
#[derive(Clone)]
pub struct JobManager {
    inner: Arc<Inner>,
}

struct Inner {
    store: JobStore,
    max_running: usize,
    state: Mutex<State>,
    changed: Condvar,
    /// Told `true` when the first job starts and `false` when the last
    /// ends (the plugin keeps itself alive in between).
    on_busy: Box<dyn Fn(bool) + Send + Sync>,
}

#[derive(Default)]
struct State {
    live: HashMap<u64, Live>,
    queue: VecDeque<(u64, JobWork)>,
    running: usize,
}

struct Live {
    cancel: CancelToken,
    approver: Arc<JobApprover>,
}

impl JobManager {
    pub fn new(
        store: JobStore,
        max_running: usize,
        on_busy: Box<dyn Fn(bool) + Send + Sync>,
    ) -> JobManager {
        JobManager {
            inner: Arc::new(Inner {
                store,
                max_running: max_running.max(1),
                state: Mutex::new(State::default()),
                changed: Condvar::new(),
                on_busy,
            }),
        }
    }

    /// The store the jobs are written to.
    pub fn store(&self) -> &JobStore {
        &self.inner.store
    }

    /// Queue `work` as a new job; it starts when a slot is free. Returns
    /// its id at once.
    pub fn submit(&self, kind: JobKind, title: &str, work: JobWork) -> Result<u64, StoreError> {
        let store = &self.inner.store;
        let id = store.create(kind, title)?;
        let cancel = CancelToken::new();
        let approver = Arc::new(JobApprover::new(id, store.clone(), cancel.clone()));
        let mut state = self.inner.lock();
        if state.live.is_empty() {
            (self.inner.on_busy)(true);
        }
        state.live.insert(id, Live { cancel, approver });
        state.queue.push_back((id, work));
        self.start_queued(&mut state);
        Ok(id)
    }

    fn start_queued(&self, state: &mut State) {
        while state.running < self.inner.max_running {
            let Some((id, work)) = state.queue.pop_front() else {
                return;
            };
            let Some(live) = state.live.get(&id) else {
                continue;
            };
            let context = JobContext {
                id,
                cancel: live.cancel.clone(),
                approver: live.approver.clone(),
                store: self.inner.store.clone(),
            };
            state.running += 1;
            let manager = self.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("agent-job-{id}"))
                .spawn(move || manager.run_job(context, work));
            if let Err(err) = spawned {
                state.running -= 1;
                state.live.remove(&id);
                self.write_end(
                    id,
                    JobStatus::Failed,
                    Some(format!("cannot start a thread: {err}")),
                );
            }
        }
    }

    fn run_job(&self, context: JobContext, work: JobWork) {
        let id = context.id;
        let store = &self.inner.store;
        let _ = store.append(
            id,
            EventKind::Status {
                status: JobStatus::Running,
                detail: None,
            },
        );
        let outcome = catch_unwind(AssertUnwindSafe(|| work(&context))).unwrap_or_else(|panic| {
            let why = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            JobOutcome {
                status: JobStatus::Failed,
                value: None,
                error: Some(format!("the job crashed: {why}")),
            }
        });
        let mut status = outcome.status;
        let mut error = outcome.error;
        if let Some(value) = &outcome.value
            && let Err(err) = store.save_result(id, value)
        {
            status = JobStatus::Failed;
            error = Some(format!("its result could not be saved: {err}"));
        }
        // Cancelled is what happened, whatever the work made of it (a step
        // refused because the cancel reached its approval, say), unless it
        // completed first.
        if context.cancel.is_cancelled() && status != JobStatus::Completed {
            status = JobStatus::Cancelled;
            error.get_or_insert_with(|| "cancelled".into());
        }
        // The end is written under the lock, with the job leaving the live
        // set: whoever sees it finished sees this manager without it.
        let mut state = self.inner.lock();
        self.write_end(id, status, error);
        state.running -= 1;
        state.live.remove(&id);
        self.start_queued(&mut state);
        if state.live.is_empty() {
            (self.inner.on_busy)(false);
        }
        self.inner.changed.notify_all();
    }

    fn write_end(&self, id: u64, status: JobStatus, detail: Option<String>) {
        let _ = self
            .inner
            .store
            .append(id, EventKind::Status { status, detail });
    }

    /// Job `id` as its record stands.
    pub fn record(&self, id: u64) -> Option<JobRecord> {
        self.inner.store.record(id)
    }

    /// Whether this process runs (or has queued) job `id`.
    pub fn is_live(&self, id: u64) -> bool {
        self.inner.lock().live.contains_key(&id)
    }

    /// Whether any job runs or waits here.
    pub fn is_busy(&self) -> bool {
        !self.inner.lock().live.is_empty()
    }

    /// Cancel job `id`: a queued job never starts; a running one is
    /// stopped with what it started. `false` when this process does not
    /// run it (finished, or another process's).
    pub fn cancel(&self, id: u64) -> bool {
        let mut state = self.inner.lock();
        let Some(live) = state.live.get(&id) else {
            return false;
        };
        live.cancel.cancel();
        if let Some(at) = state.queue.iter().position(|(queued, _)| *queued == id) {
            state.queue.remove(at);
            state.live.remove(&id);
            self.write_end(
                id,
                JobStatus::Cancelled,
                Some("cancelled before it started".into()),
            );
            if state.live.is_empty() {
                (self.inner.on_busy)(false);
            }
            self.inner.changed.notify_all();
        }
        true
    }

    /// Answer the approval job `id` waits for.
    pub fn answer(&self, id: u64, approval: Approval) -> Result<(), String> {
        let approver = self
            .inner
            .lock()
            .live
            .get(&id)
            .map(|live| live.approver.clone())
            .ok_or_else(|| format!("job {id} is not running in this plugin"))?;
        approver.answer(approval)
    }

    /// Wait until job `id` has finished, `timeout` passed or `interrupt`
    /// was cancelled; returns its record then. A job of another process
    /// is followed through the store.
    pub fn wait(
        &self,
        id: u64,
        timeout: Option<Duration>,
        interrupt: &CancelToken,
    ) -> Option<JobRecord> {
        let started = Instant::now();
        loop {
            let record = self.record(id)?;
            let timed_out = timeout.is_some_and(|t| started.elapsed() >= t);
            if record.status.is_finished() || timed_out || interrupt.is_cancelled() {
                return Some(record);
            }
            let state = self.inner.lock();
            let _ = self
                .inner
                .changed
                .wait_timeout(state, Duration::from_millis(100));
        }
    }
}

impl Inner {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use nu_protocol::Span;

    use super::*;
    use crate::policy::{ApprovalRequest, Approver};

    fn manager(dir: &std::path::Path, max: usize) -> (JobManager, Arc<Mutex<Vec<bool>>>) {
        let busy = Arc::new(Mutex::new(Vec::new()));
        let seen = busy.clone();
        let store = JobStore::open(dir).unwrap();
        let manager = JobManager::new(store, max, Box::new(move |b| seen.lock().unwrap().push(b)));
        (manager, busy)
    }

    fn value_job(n: i64, pause: Duration) -> JobWork {
        Box::new(move |_| {
            std::thread::sleep(pause);
            JobOutcome {
                status: JobStatus::Completed,
                value: Some(Value::int(n, Span::unknown())),
                error: None,
            }
        })
    }

    #[test]
    fn fifty_jobs_under_a_limit_of_four_all_finish_once() {
        let dir = tempfile::tempdir().unwrap();
        let (manager, busy) = manager(dir.path(), 4);
        let running = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let ids: Vec<u64> = (0..50)
            .map(|n| {
                let (running, most) = (running.clone(), most.clone());
                let work: JobWork = Box::new(move |_| {
                    let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(now, Ordering::SeqCst);
                    std::thread::sleep(Duration::from_millis(5));
                    running.fetch_sub(1, Ordering::SeqCst);
                    JobOutcome {
                        status: JobStatus::Completed,
                        value: Some(Value::int(n, Span::unknown())),
                        error: None,
                    }
                });
                manager
                    .submit(JobKind::Run, &format!("job {n}"), work)
                    .unwrap()
            })
            .collect();
        for (n, id) in ids.iter().enumerate() {
            let record = manager.wait(*id, None, &CancelToken::new()).unwrap();
            assert_eq!(record.status, JobStatus::Completed);
            let value = manager.store().result(*id).unwrap().unwrap();
            assert_eq!(value.as_int().unwrap(), n as i64);
        }
        assert!(most.load(Ordering::SeqCst) <= 4);
        assert!(!manager.is_busy());
        let busy = busy.lock().unwrap().clone();
        assert_eq!(busy.first(), Some(&true));
        assert_eq!(busy.last(), Some(&false));
        // Each job ran once: one `running` event each.
        for id in ids {
            let runs = manager
                .store()
                .events(id)
                .iter()
                .filter(|e| {
                    matches!(
                        e.kind,
                        EventKind::Status {
                            status: JobStatus::Running,
                            ..
                        }
                    )
                })
                .count();
            assert_eq!(runs, 1);
        }
    }

    #[test]
    fn a_queued_job_cancelled_never_starts() {
        let dir = tempfile::tempdir().unwrap();
        let (manager, _) = manager(dir.path(), 1);
        let first = manager
            .submit(
                JobKind::Run,
                "slow",
                value_job(1, Duration::from_millis(300)),
            )
            .unwrap();
        let second = manager
            .submit(JobKind::Run, "never", value_job(2, Duration::ZERO))
            .unwrap();
        assert_eq!(manager.record(second).unwrap().status, JobStatus::Queued);
        assert!(manager.cancel(second));
        manager.wait(first, None, &CancelToken::new());
        let record = manager.record(second).unwrap();
        assert_eq!(record.status, JobStatus::Cancelled);
        assert_eq!(record.started, None);
        assert!(manager.store().result(second).unwrap().is_none());
    }

    #[test]
    fn a_question_makes_the_job_wait_until_it_is_answered() {
        let dir = tempfile::tempdir().unwrap();
        let (manager, _) = manager(dir.path(), 2);
        let work: JobWork = Box::new(|context| {
            let request = ApprovalRequest {
                labels: vec!["delete: a.txt".into()],
                steps: vec!["rm a.txt".into()],
                pipeline: "rm a.txt".into(),
                reason: "deletes".into(),
                warning: false,
                privileged: false,
            };
            let approval = context.approver.approve(&request);
            JobOutcome {
                status: JobStatus::Completed,
                value: Some(Value::bool(approval == Approval::Yes, Span::unknown())),
                error: None,
            }
        });
        let id = manager.submit(JobKind::Run, "rm a.txt", work).unwrap();
        let started = Instant::now();
        while manager.record(id).unwrap().status != JobStatus::Waiting {
            assert!(started.elapsed() < Duration::from_secs(5));
            std::thread::sleep(Duration::from_millis(10));
        }
        let record = manager.record(id).unwrap();
        assert_eq!(record.waiting_for.as_deref(), Some("delete: a.txt"));
        manager.answer(id, Approval::Yes).unwrap();
        let record = manager.wait(id, None, &CancelToken::new()).unwrap();
        assert_eq!(record.status, JobStatus::Completed);
        assert_eq!(
            manager.store().result(id).unwrap().unwrap().as_bool().ok(),
            Some(true)
        );
        assert!(manager.answer(id, Approval::No).is_err());
    }

    #[test]
    fn a_denied_step_is_known_as_denied_and_a_cancel_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let (manager, _) = manager(dir.path(), 2);
        let asks = || -> JobWork {
            Box::new(|context| {
                let request = ApprovalRequest {
                    labels: vec!["create: made".into()],
                    steps: vec!["mkdir made".into()],
                    pipeline: "mkdir made".into(),
                    reason: "writes files".into(),
                    warning: false,
                    privileged: false,
                };
                let approval = context.approver.approve(&request);
                JobOutcome {
                    status: JobStatus::Failed,
                    value: None,
                    error: Some(format!(
                        "{approval:?}, denied: {}",
                        context.approver.was_denied()
                    )),
                }
            })
        };
        let waiting = |id| {
            let started = Instant::now();
            while manager.record(id).unwrap().status != JobStatus::Waiting {
                assert!(started.elapsed() < Duration::from_secs(5));
                std::thread::sleep(Duration::from_millis(10));
            }
        };
        let denied = manager.submit(JobKind::Run, "mkdir made", asks()).unwrap();
        waiting(denied);
        manager.answer(denied, Approval::No).unwrap();
        let record = manager.wait(denied, None, &CancelToken::new()).unwrap();
        assert_eq!(record.error.as_deref(), Some("No, denied: true"));
        let cancelled = manager.submit(JobKind::Run, "mkdir made", asks()).unwrap();
        waiting(cancelled);
        assert!(manager.cancel(cancelled));
        let record = manager.wait(cancelled, None, &CancelToken::new()).unwrap();
        assert_eq!(record.status, JobStatus::Cancelled);
        assert_eq!(record.error.as_deref(), Some("No, denied: false"));
    }

    #[test]
    fn a_job_cancelled_while_it_waits_is_cancelled_not_failed() {
        let dir = tempfile::tempdir().unwrap();
        let (manager, _) = manager(dir.path(), 1);
        let work: JobWork = Box::new(|context| {
            let request = ApprovalRequest {
                labels: vec!["run: ^make".into()],
                steps: vec!["^make".into()],
                pipeline: "^make".into(),
                reason: "runs a program".into(),
                warning: false,
                privileged: false,
            };
            let approval = context.approver.approve(&request);
            JobOutcome {
                status: JobStatus::Failed,
                value: None,
                error: Some(format!("not approved ({approval:?})")),
            }
        });
        let id = manager.submit(JobKind::Run, "^make", work).unwrap();
        let started = Instant::now();
        while manager.record(id).unwrap().status != JobStatus::Waiting {
            assert!(started.elapsed() < Duration::from_secs(5));
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(manager.cancel(id));
        let record = manager.wait(id, None, &CancelToken::new()).unwrap();
        assert_eq!(record.status, JobStatus::Cancelled);
        assert!(!manager.is_busy());
    }

    #[test]
    fn a_panicking_job_fails_and_the_next_one_runs() {
        let dir = tempfile::tempdir().unwrap();
        let (manager, _) = manager(dir.path(), 1);
        let id = manager
            .submit(JobKind::Run, "boom", Box::new(|_| panic!("boom")))
            .unwrap();
        let next = manager
            .submit(JobKind::Run, "ok", value_job(3, Duration::ZERO))
            .unwrap();
        let record = manager.wait(id, None, &CancelToken::new()).unwrap();
        assert_eq!(record.status, JobStatus::Failed);
        assert!(record.error.unwrap().contains("boom"));
        let record = manager.wait(next, None, &CancelToken::new()).unwrap();
        assert_eq!(record.status, JobStatus::Completed);
    }
}
