//! Approval prompts from inside the plugin.
//!
//! The plugin process does not own the terminal; nu does. To ask, the
//! approver has nu hand it the foreground (`engine.enter_foreground()`),
//! asks on `/dev/tty` through [`TerminalApprover`] while it holds the
//! foreground guard, and gives the terminal back once the answer is in.
//! Where nu cannot hand the terminal over (no terminal, tests) nobody is
//! there to ask, and the answer is No.
//!
//! Process groups: entering the foreground makes the plugin's process
//! group the terminal's foreground group. When nu gives it back, it calls
//! `tcsetpgrp` from what is then a background group; an interactive nu
//! ignores `SIGTTOU`, but `nu -c` and `nu script.nu` started from a job
//! control shell do not, and the kernel stops them (bash: `Stopped`, rc
//! 150). So the approver itself, still in the foreground, hands the
//! terminal back to the group that held it before the prompt, and nu's own
//! `tcsetpgrp` is then a no-op from the foreground.
//!
//! Threads: [`Approver`] is `Send + Sync` because the policy shell asks
//! from whichever thread meets the question (the call's thread for the
//! whole pipeline, the evaluation thread or the sandbox supervisor for a
//! runtime guard). `EngineInterface` is a cloneable handle to the plugin's
//! connection (shared state behind `Arc`, engine calls answered through
//! channels) and is itself `Send + Sync`, so the approver keeps a clone and
//! makes its engine calls from the asking thread; nu answers them while it
//! waits for this call. A process-wide lock keeps two concurrent calls from
//! prompting on the same terminal at once.
//!
//! Signals: while the plugin holds the foreground, Ctrl+C, Ctrl+\ and
//! Ctrl+Z from the terminal go to the plugin's process group and would kill
//! (or stop) the plugin. The single-key read is in raw mode, where they are
//! plain keys, but the edit line is cooked and there are moments before and
//! after the read; so for as long as it holds the foreground the approver
//! catches those signals with a handler that does nothing (a handler, not
//! `SIG_IGN`, so that a program started meanwhile does not inherit it).

use std::sync::{
    Mutex, PoisonError,
    atomic::{AtomicBool, Ordering},
};

use agent_core::{
    policy::{Approval, ApprovalRequest, Approver, NonInteractive},
    ui::TerminalApprover,
};
use nu_plugin::EngineInterface;

/// One prompt on the terminal at a time, whichever call asks.
static PROMPT: Mutex<()> = Mutex::new(());

/// Asks the person at nu's terminal; denies when nu cannot lend it.
pub struct PromptApprover {
    engine: EngineInterface,
    /// nu refused the foreground once: nobody is there, do not try again
    /// (each refusal makes nu print an error).
    no_terminal: AtomicBool,
}

impl PromptApprover {
    /// An approver asking through `engine`'s host.
    pub fn new(engine: &EngineInterface) -> PromptApprover {
        PromptApprover {
            engine: engine.clone(),
            no_terminal: AtomicBool::new(false),
        }
    }

    /// True when a question came and nobody could be asked.
    pub fn found_nobody(&self) -> bool {
        self.no_terminal.load(Ordering::SeqCst)
    }

    /// Run `ask` with the terminal in the plugin's hands; `None` when nu
    /// cannot hand it over or there is no terminal.
    fn with_terminal<T>(&self, ask: impl FnOnce(&TerminalApprover) -> T) -> Option<T> {
        if self.found_nobody() {
            return None;
        }
        // No controlling terminal at all (cron, CI, a pipe): nobody to ask,
        // and asking nu for the foreground would only make it print an error.
        if std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/tty")
            .is_err()
        {
            self.no_terminal.store(true, Ordering::SeqCst);
            return None;
        }
        let _one_prompt = PROMPT.lock().unwrap_or_else(PoisonError::into_inner);
        let _quiet = QuietSignals::install();
        let owner = TerminalOwner::now();
        let Ok(foreground) = self.engine.enter_foreground() else {
            self.no_terminal.store(true, Ordering::SeqCst);
            return None;
        };
        let answer = match TerminalApprover::open() {
            Some(terminal) => Some(ask(&terminal)),
            None => {
                self.no_terminal.store(true, Ordering::SeqCst);
                None
            }
        };
        if let Some(owner) = owner {
            owner.restore();
        }
        // Giving the terminal back can only fail if nu is gone.
        let _ = foreground.leave();
        answer
    }
}

impl Approver for PromptApprover {
    fn approve(&self, request: &ApprovalRequest) -> Approval {
        self.with_terminal(|terminal| terminal.approve(request))
            .unwrap_or_else(|| NonInteractive::default().approve(request))
    }

    fn password(&self, prompt: &str) -> Option<String> {
        self.with_terminal(|terminal| terminal.password(prompt))
            .flatten()
    }
}

/// The terminal's foreground process group before the prompt (nu's, or
/// that of the external nu's pipeline runs in the foreground).
struct TerminalOwner {
    tty: std::fs::File,
    group: libc::pid_t,
}

impl TerminalOwner {
    /// The group that owns the controlling terminal now; `None` without one.
    fn now() -> Option<TerminalOwner> {
        use std::os::fd::AsRawFd;
        let tty = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/tty")
            .ok()?;
        // SAFETY: tcgetpgrp reads the terminal's state through a valid fd.
        let group = unsafe { libc::tcgetpgrp(tty.as_raw_fd()) };
        (group > 0).then_some(TerminalOwner { tty, group })
    }

    /// Make that group the foreground again. `SIGTTOU` is ignored for the
    /// call, so that it cannot stop the plugin if the foreground moved on.
    fn restore(self) {
        use std::os::fd::AsRawFd;
        // SAFETY: plain sigaction and tcsetpgrp calls on a valid fd; the
        // previous action is restored right after.
        unsafe {
            let mut ignore: libc::sigaction = std::mem::zeroed();
            ignore.sa_sigaction = libc::SIG_IGN;
            libc::sigemptyset(&mut ignore.sa_mask);
            let mut previous: libc::sigaction = std::mem::zeroed();
            let saved = libc::sigaction(libc::SIGTTOU, &ignore, &mut previous) == 0;
            libc::tcsetpgrp(self.tty.as_raw_fd(), self.group);
            if saved {
                libc::sigaction(libc::SIGTTOU, &previous, std::ptr::null_mut());
            }
        }
    }
}

/// Keeps terminal signals from killing the plugin while it holds the
/// foreground; restores the previous handlers when dropped.
struct QuietSignals {
    saved: Vec<(libc::c_int, libc::sigaction)>,
}

extern "C" fn ignore_signal(_: libc::c_int) {}

impl QuietSignals {
    fn install() -> QuietSignals {
        let mut saved = Vec::new();
        for signal in [libc::SIGINT, libc::SIGQUIT, libc::SIGTSTP] {
            // SAFETY: sigaction is plain data; the handler does nothing, so
            // it is async-signal-safe; SA_RESTART keeps a blocking read
            // going.
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = ignore_signal as *const () as libc::sighandler_t;
                action.sa_flags = libc::SA_RESTART;
                libc::sigemptyset(&mut action.sa_mask);
                let mut previous: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(signal, &action, &mut previous) == 0 {
                    saved.push((signal, previous));
                }
            }
        }
        QuietSignals { saved }
    }
}

impl Drop for QuietSignals {
    fn drop(&mut self) {
        for (signal, previous) in &self.saved {
            // SAFETY: restoring an action sigaction returned for the same
            // signal.
            unsafe {
                libc::sigaction(*signal, previous, std::ptr::null_mut());
            }
        }
    }
}

// The policy shell may ask from another thread.
const _: fn() = || {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<PromptApprover>();
};
