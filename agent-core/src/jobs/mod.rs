//! Background jobs: long work (one pipeline, or a whole agent task) that
//! runs on its own thread under the same policy and sandbox as a
//! foreground step, never prompts on the terminal, and never vanishes: its
//! record, events and result are on disk as they change, so another
//! process lists it, and a job whose process is gone shows as `lost`.
//!
//! [`JobStore`] is the disk (one directory per job: `events.jsonl`,
//! `result.json`); [`JobManager`] runs jobs (a concurrency limit, a queue,
//! cancel, the approval queue).

mod approval;
mod manager;
mod record;
mod store;

pub use approval::JobApprover;
pub use manager::{JobContext, JobLog, JobManager, JobOutcome, JobWork};
pub use record::{EventKind, JobEvent, JobKind, JobRecord, JobStatus, Owner, now_ms};
pub use store::JobStore;
