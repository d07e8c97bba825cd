//! The approval queue of a background job: it never prompts on a
//! terminal. A step that needs approval makes the job `waiting` (with
//! what it waits for) until `agent job approve` or `agent job deny`
//! answers, or the job is cancelled.

use std::{
    sync::{
        Condvar, Mutex,
        atomic::{AtomicBool, Ordering},
    },
    time::Duration,
};

use super::{
    record::{EventKind, JobStatus},
    store::JobStore,
};
use crate::{
    policy::{Approval, ApprovalRequest, Approver},
    shell::CancelToken,
};

/// How often a waiting job checks for cancel.
const CHECK: Duration = Duration::from_millis(100);

/// Asks by waiting for an answer from outside.
pub struct JobApprover {
    id: u64,
    store: JobStore,
    cancel: CancelToken,
    pending: Mutex<Pending>,
    answered: Condvar,
    /// A step was refused with `agent job deny`.
    denied: AtomicBool,
}

#[derive(Default)]
struct Pending {
    /// What the job waits for, while it waits.
    question: Option<String>,
    answer: Option<Approval>,
}

impl JobApprover {
    pub fn new(id: u64, store: JobStore, cancel: CancelToken) -> JobApprover {
        JobApprover {
            id,
            store,
            cancel,
            pending: Mutex::new(Pending::default()),
            answered: Condvar::new(),
            denied: AtomicBool::new(false),
        }
    }

    /// What the job waits for, if it waits.
    pub fn waiting_for(&self) -> Option<String> {
        self.pending.lock().ok()?.question.clone()
    }

    /// Answer the question the job waits on; an error when it waits on
    /// none.
    pub fn answer(&self, approval: Approval) -> Result<(), String> {
        let mut pending = self
            .pending
            .lock()
            .map_err(|_| "the job's approval queue is broken".to_string())?;
        if pending.question.is_none() {
            return Err(format!("job {} is not waiting for an approval", self.id));
        }
        if approval == Approval::No {
            self.denied.store(true, Ordering::SeqCst);
        }
        pending.answer = Some(approval);
        // Running again from the moment it is answered (the job's thread
        // may take a moment to wake).
        self.status(JobStatus::Running, None);
        self.answered.notify_all();
        Ok(())
    }

    /// Whether the user refused a step of the job (`agent job deny`), as
    /// opposed to a step nobody was asked about or a cancel.
    pub fn was_denied(&self) -> bool {
        self.denied.load(Ordering::SeqCst)
    }

    fn status(&self, status: JobStatus, detail: Option<String>) {
        // A record that cannot be written is not worth stopping the job.
        let _ = self
            .store
            .append(self.id, EventKind::Status { status, detail });
    }
}

impl Approver for JobApprover {
    fn approve(&self, request: &ApprovalRequest) -> Approval {
        let question = if request.labels.is_empty() {
            request.command()
        } else {
            request.labels.join("; ")
        };
        let Ok(mut pending) = self.pending.lock() else {
            return Approval::No;
        };
        pending.question = Some(question.clone());
        pending.answer = None;
        self.status(JobStatus::Waiting, Some(question));
        let answer = loop {
            if let Some(answer) = pending.answer.take() {
                break answer;
            }
            if self.cancel.is_cancelled() {
                break Approval::No;
            }
            pending = match self.answered.wait_timeout(pending, CHECK) {
                Ok((guard, _)) => guard,
                Err(_) => return Approval::No,
            };
        };
        pending.question = None;
        answer
    }

    fn who(&self) -> String {
        "agent job approve".into()
    }
}
