//! Steps the model sends to the background (`background: true` on `nu`):
//! a runner (the plugin's job manager) starts them as jobs under the same
//! policy and sandbox; when one ends, its outcome comes back through the
//! loop's inbox and its value becomes the conversation's next `$out.N`.

use nu_protocol::Value;

use crate::{
    jobs::JobStatus,
    policy::Approver,
    shell::{CancelToken, Outcome},
};

/// How a background step ended.
#[derive(Clone, Debug, PartialEq)]
pub struct JobDone {
    pub id: u64,
    pub pipeline: String,
    pub status: JobStatus,
    pub value: Option<Value>,
    pub error: Option<String>,
}

/// Called once with the job's outcome.
pub type JobDoneFn = Box<dyn FnOnce(JobDone) + Send>;

/// A step already running, to be followed to its end by a job: given the
/// job's cancel token and approver, it returns the step's outcome.
pub type HandedOver = Box<dyn FnOnce(&CancelToken, &dyn Approver) -> Outcome + Send>;

/// Starts steps as background jobs.
pub trait BackgroundRunner: Send + Sync {
    /// Start `pipeline` as a job; `done` is called when it ends. Returns
    /// the job's id, or why it could not start.
    fn start(&self, pipeline: &str, done: JobDoneFn) -> Result<u64, String>;

    /// Take over a step that is already running (it ran past
    /// `promote_after`), titled `pipeline`, as a job.
    fn adopt(&self, pipeline: &str, step: HandedOver, done: JobDoneFn) -> Result<u64, String>;
}
