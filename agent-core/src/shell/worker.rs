//! A session's evaluation thread, kept between runs.
//!
//! Spawning a thread per run costs more than evaluating a small pipeline;
//! one long-lived thread per session takes jobs over a channel. A run that
//! never stops (abandoned) keeps its thread; the session drops the worker
//! and starts a new one, and the stuck thread exits once its job returns.

use std::{
    sync::mpsc::{self, Sender},
    thread,
};

/// Stack size of the evaluation thread (nu recursion is deep).
const EVAL_THREAD_STACK: usize = 16 * 1024 * 1024;

type Job = Box<dyn FnOnce() + Send + 'static>;

pub(crate) struct Worker {
    jobs: Sender<Job>,
}

impl Worker {
    pub(crate) fn spawn() -> std::io::Result<Worker> {
        let (jobs, queue) = mpsc::channel::<Job>();
        thread::Builder::new()
            .name("agent-eval".into())
            .stack_size(EVAL_THREAD_STACK)
            .spawn(move || {
                for job in queue {
                    job();
                }
            })?;
        Ok(Worker { jobs })
    }

    /// Hand `job` to the thread; gives it back if the thread is gone.
    pub(crate) fn submit(&self, job: Job) -> Result<(), Job> {
        self.jobs.send(job).map_err(|failed| failed.0)
    }
}
