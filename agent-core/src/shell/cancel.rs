//! Cancelling a run from another thread, and killing what it started.

use std::{
    collections::BTreeSet,
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, Ordering},
    },
};

/// A handle that stops a running evaluation from any thread. Cheap to clone.
#[derive(Clone, Default, Debug)]
pub struct CancelToken {
    flag: Arc<AtomicBool>,
}

impl CancelToken {
    pub fn new() -> Self {
        Self::default()
    }

    /// Ask the run to stop: the evaluation is interrupted and every process
    /// it started is killed.
    pub fn cancel(&self) {
        self.flag.store(true, Ordering::SeqCst);
    }

    pub fn is_cancelled(&self) -> bool {
        self.flag.load(Ordering::SeqCst)
    }

    /// Clear a previous cancel so the token can be reused for another run.
    pub fn reset(&self) {
        self.flag.store(false, Ordering::SeqCst);
    }
}

/// Process groups started by one run. Every external runs in its own session
/// (`setsid`), so its pid is its process group id and killing the group takes
/// its children and grandchildren with it.
#[derive(Clone, Default, Debug)]
pub(crate) struct ProcessGroups {
    seen: Arc<Mutex<BTreeSet<u32>>>,
}

impl ProcessGroups {
    pub(crate) fn record(&self, pids: impl IntoIterator<Item = u32>) {
        if let Ok(mut seen) = self.seen.lock() {
            seen.extend(pids);
        }
    }

    /// SIGKILL every recorded process group (already-gone groups are fine).
    pub(crate) fn kill_all(&self) {
        let groups: Vec<u32> = self
            .seen
            .lock()
            .map(|seen| seen.iter().copied().collect())
            .unwrap_or_default();
        for pgid in groups {
            kill_group(pgid);
        }
    }
}

#[cfg(unix)]
fn kill_group(pgid: u32) {
    let Ok(pgid) = i32::try_from(pgid) else {
        return;
    };
    // SAFETY: getpgrp(2) cannot fail and has no preconditions.
    let own_group = unsafe { libc::getpgrp() };
    if pgid <= 1 || pgid == own_group {
        return;
    }
    // SAFETY: kill(2) with a negative pid signals a process group; it has no
    // memory-safety preconditions.
    unsafe {
        libc::kill(-pgid, libc::SIGKILL);
    }
}

#[cfg(not(unix))]
fn kill_group(_pgid: u32) {}
