//! The evaluation suite: tasks written as nu files (a request, a fixture to
//! build, a check of the outcome, a transcript a capable model would
//! follow), each run in a temp dir and HOME of its own against any backend,
//! and the table of how each went.
//!
//! Adding a task needs no Rust: a `.nu` file whose value is a record (see
//! `tests/eval/README.md` and [`Task`]).

mod fixture;
mod gold;
mod outcome;
mod run;
mod steps;
mod task;

pub use fixture::Fixture;
pub use gold::{Gold, Snapshot};
pub use outcome::{TaskResult, Totals};
pub use run::{EvalRun, JobRunnerFactory, SharedBackend, TaskEnv};
pub use steps::{StepRecord, step_records};
pub use task::{Approve, Task, Turn, discover};

/// Why the suite could not run a task at all (not a task that failed).
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    #[error("{0}")]
    Tasks(String),
    #[error("{path}: {message}")]
    Task { path: String, message: String },
    #[error("cannot make the task's directories: {0}")]
    Io(#[from] std::io::Error),
}
