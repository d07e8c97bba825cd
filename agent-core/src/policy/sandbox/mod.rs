//! The OS sandbox (Linux): Landlock and seccomp on a worker process.
//!
//! In a sandboxed mode the pipeline is evaluated in a separate process (the
//! plugin binary or `nu-agent` re-executed with [`WORKER_ARG`]). The worker
//! restricts itself *before it creates any thread*, so every thread it ever
//! runs (nu's `par-each` pools, rayon's global pool) and every process it
//! starts inherits the same restrictions. A per-thread sandbox inside the
//! long-running plugin would not hold: nu keeps thread pools for the whole
//! process.
//!
//! - Landlock: read and execute everywhere, write only beneath the writable
//!   roots (and `/dev/null`).
//! - seccomp: no internet sockets when the network is off (only `AF_UNIX`
//!   and `AF_NETLINK`),
//!   and never `io_uring`, `ptrace` or `process_vm_*`.
//!
//! [`SessionWorker`] is the parent's side (one worker serves every run of
//! a conversation; [`run_sandboxed`] runs one step alone), [`worker_main`]
//! the worker's.
//! Inside any mode, each external program is started through the
//! launcher ([`exec_main`]), which narrows the sandbox further to what
//! that program's verdict allowed.

use std::{
    fmt,
    path::{Path, PathBuf},
    str::FromStr,
};

use serde::{Deserialize, Serialize};

#[cfg(target_os = "linux")]
mod capabilities;
#[cfg(target_os = "linux")]
mod landlock;
mod launcher;
mod mounts;
mod parent;
mod probe;
mod process_view;
mod protocol;
#[cfg(target_os = "linux")]
mod seccomp;
mod values;
mod worker;

pub use launcher::{
    EXEC_ARG, EXIT_NOT_SANDBOXED, ExecSpec, carve_out, exec_main, external_sandbox_status,
    launcher_prefix,
};
pub use parent::{RunEnd, SessionWorker, run_sandboxed};
pub use probe::{LandlockMissing, LandlockSupport, Protections, SeccompSupport, probe};
pub use process_view::{broker_fd, is_system_program};
pub use protocol::{WORKER_ARG, WorkerRun, WorkerStart};
pub use worker::{EngineBuilder, WorkerEngine, worker_main};

/// How much of the machine a sandboxed pipeline may change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SandboxMode {
    /// No OS sandbox: the pipeline runs with the user's full rights.
    Off,
    /// Nothing may be written (except `/dev/null`).
    ReadOnly,
    /// Writes only beneath the writable roots.
    WorkspaceWrite,
}

impl SandboxMode {
    /// The name used by flags and the config: `off`, `read-only`,
    /// `workspace-write`.
    pub fn as_str(self) -> &'static str {
        match self {
            SandboxMode::Off => "off",
            SandboxMode::ReadOnly => "read-only",
            SandboxMode::WorkspaceWrite => "workspace-write",
        }
    }
}

impl fmt::Display for SandboxMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A sandbox mode name that is not one of the three.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown sandbox mode `{0}` (use off, read-only or workspace-write)")]
pub struct UnknownSandboxMode(pub String);

impl FromStr for SandboxMode {
    type Err = UnknownSandboxMode;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.trim() {
            "off" => Ok(SandboxMode::Off),
            "read-only" => Ok(SandboxMode::ReadOnly),
            "workspace-write" => Ok(SandboxMode::WorkspaceWrite),
            other => Err(UnknownSandboxMode(other.to_string())),
        }
    }
}

/// What the sandbox allows: the mode, where it may write, and whether it
/// may use the network.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SandboxSpec {
    /// How much may be written.
    pub mode: SandboxMode,
    /// Directories (or files) writable in [`SandboxMode::WorkspaceWrite`];
    /// ignored in the other modes. Each must exist.
    pub writable: Vec<PathBuf>,
    /// Allow internet sockets. Ignored in [`SandboxMode::Off`] (no sandbox,
    /// no restriction).
    pub network: bool,
    /// Paths inside the writable roots that stay read-only (`.git`, the
    /// protected trees): bind-mounted read-only in a private mount
    /// namespace, or, where that cannot be had, left out of the writable
    /// roots (see [`carve_out`]).
    #[serde(default)]
    pub protected: Vec<PathBuf>,
    /// This process already runs inside a Landlock domain (a launcher
    /// started by the sandbox worker), where mounting is refused: leave
    /// the protected paths out of the writable set instead of trying.
    #[serde(default)]
    pub nested: bool,
}

impl SandboxSpec {
    /// No sandbox at all.
    pub fn off() -> Self {
        SandboxSpec {
            mode: SandboxMode::Off,
            writable: Vec::new(),
            network: true,
            protected: Vec::new(),
            nested: false,
        }
    }

    /// The roots that are writable under this spec (none outside
    /// workspace-write; `/dev/null` is always writable and not listed).
    pub fn writable_roots(&self) -> &[PathBuf] {
        match self.mode {
            SandboxMode::WorkspaceWrite => &self.writable,
            SandboxMode::Off | SandboxMode::ReadOnly => &[],
        }
    }

    /// Whether a worker under this spec may run a step that needs `step`:
    /// the same mode, every root the step may write lies inside one of
    /// ours, the network only if we have it, and nothing writable here
    /// that the step must keep read-only — nor read-only here that the
    /// step may write.
    pub fn covers(&self, step: &SandboxSpec) -> bool {
        let under = |path: &Path, roots: &[PathBuf]| roots.iter().any(|r| path.starts_with(r));
        let ours = self.writable_roots();
        let theirs = step.writable_roots();
        self.mode == step.mode
            && (self.network || !step.network)
            && theirs.iter().all(|w| under(w, ours))
            && step
                .protected
                .iter()
                .filter(|p| under(p, ours))
                .all(|p| self.protected.contains(p) || under(p, &self.protected))
            && self
                .protected
                .iter()
                .filter(|p| theirs.iter().any(|w| p.starts_with(w)))
                .all(|p| step.protected.contains(p) || under(p, &step.protected))
    }
}

/// How much of the requested Landlock ruleset the kernel enforces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Enforcement {
    /// Nothing (sandbox off).
    Off,
    /// Some rights the ruleset asked for are unknown to this kernel (an
    /// older Landlock ABI); file writes are still restricted.
    Partial,
    /// Everything the ruleset asked for.
    Full,
}

/// What [`apply_to_current_process`] enforced.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Applied {
    /// The mode that was applied.
    pub mode: SandboxMode,
    /// The Landlock filesystem (and, with the network off, TCP) ruleset.
    pub landlock: Enforcement,
    /// The seccomp filter is installed.
    pub seccomp: bool,
    /// Internet sockets cannot be created.
    pub network_blocked: bool,
    /// The writable roots (besides `/dev/null`).
    pub writable: Vec<PathBuf>,
}

impl Applied {
    /// Nothing applied: [`SandboxMode::Off`].
    pub fn off() -> Self {
        Applied {
            mode: SandboxMode::Off,
            landlock: Enforcement::Off,
            seccomp: false,
            network_blocked: false,
            writable: Vec::new(),
        }
    }
}

impl fmt::Display for Applied {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.mode == SandboxMode::Off {
            return f.write_str("sandbox off");
        }
        let landlock = match self.landlock {
            Enforcement::Off => "not enforced",
            Enforcement::Partial => "partially enforced",
            Enforcement::Full => "fully enforced",
        };
        write!(
            f,
            "sandbox {}: landlock {landlock}, seccomp {}, network {}",
            self.mode,
            if self.seccomp { "on" } else { "off" },
            if self.network_blocked {
                "blocked"
            } else {
                "allowed"
            }
        )
    }
}

/// Why the sandbox could not be applied. After any of these the caller
/// must not rely on the OS to stop a write.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// The kernel offers no Landlock (see [`LandlockMissing`]).
    #[error(
        "the OS sandbox needs Landlock, which is not available: {0}; run with the sandbox off (and every write confirmed) instead"
    )]
    LandlockUnavailable(String),
    /// Landlock answered but enforced nothing.
    #[error(
        "the kernel enforced none of the Landlock rules; run with the sandbox off (and every write confirmed) instead"
    )]
    LandlockNotEnforced,
    /// A path the rules name (a writable root) is missing or unreadable.
    #[error("{} cannot be opened for the sandbox rules ({source}); create it or fix the path", path.display())]
    PathUnavailable {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The Landlock crate or syscalls refused the ruleset.
    #[error("Landlock rejected the sandbox rules: {0}")]
    Landlock(String),
    /// The seccomp filter could not be compiled or installed.
    #[error("the seccomp filter could not be installed: {0}")]
    Seccomp(String),
    /// Called after threads were started: they would stay unrestricted.
    #[error(
        "the sandbox must be applied before any thread starts, but this process already runs {0} threads"
    )]
    Threaded(usize),
    /// The capabilities of a launched read could not be lowered.
    #[error("the capabilities of the program could not be lowered: {0}")]
    Capabilities(String),
    /// The read-only mount namespace of a process-view read could not be
    /// set up.
    #[error("the read-only view for a process listing could not be set up: {0}")]
    ProcessView(String),
    /// Not Linux on x86_64 or aarch64.
    #[error("the OS sandbox is only available on Linux (x86_64 and aarch64)")]
    Unsupported,
}

/// Restrict this process for the rest of its life (and every thread and
/// process it starts): `no_new_privs`, Landlock, then seccomp.
///
/// Call it only while the process is single-threaded: threads that exist
/// already would keep running unrestricted (this is checked through
/// `/proc/self/task` and refused). [`SandboxMode::Off`] changes nothing.
pub fn apply_to_current_process(spec: &SandboxSpec) -> Result<Applied, SandboxError> {
    if spec.mode == SandboxMode::Off {
        return Ok(Applied::off());
    }
    apply_linux(spec)
}

#[cfg(target_os = "linux")]
fn apply_linux(spec: &SandboxSpec) -> Result<Applied, SandboxError> {
    if let Some(threads) = thread_count()
        && threads > 1
    {
        return Err(SandboxError::Threaded(threads));
    }
    if let LandlockSupport::Unavailable(why) = probe::landlock_support() {
        return Err(SandboxError::LandlockUnavailable(why.to_string()));
    }
    // Protected paths inside the writable roots: read-only mounts, or out
    // of the writable set (never more writable than asked).
    let mut spec = spec.clone();
    let exposed: Vec<PathBuf> = spec
        .protected
        .iter()
        .filter(|p| p.exists() && !mounts::is_read_only(p))
        .filter(|p| spec.writable_roots().iter().any(|root| p.starts_with(root)))
        .cloned()
        .collect();
    if !exposed.is_empty() && (spec.nested || mounts::protect_read_only(&exposed).is_err()) {
        spec.writable = carve_out(&spec.writable, &exposed);
    }
    let spec = &spec;
    let landlock = landlock::restrict(spec)?;
    seccomp::install(!spec.network)?;
    Ok(Applied {
        mode: spec.mode,
        landlock,
        seccomp: true,
        network_blocked: !spec.network,
        writable: spec.writable_roots().to_vec(),
    })
}

/// Narrow this (already sandboxed) launcher further for the one program
/// it starts: a read (`read_only`) can change no metadata, mount, key or
/// namespace and keeps only the capabilities that read; without
/// `local_sockets` no program reaches a local daemon's socket; none types
/// into the terminal.
#[cfg(target_os = "linux")]
pub(crate) fn restrict_launch(read_only: bool, local_sockets: bool) -> Result<(), SandboxError> {
    if read_only {
        capabilities::keep_only_read_capabilities()?;
    }
    seccomp::install_launch(seccomp::LaunchLimits {
        read_only,
        local_sockets,
    })
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn restrict_launch(_read_only: bool, _local_sockets: bool) -> Result<(), SandboxError> {
    Err(SandboxError::Unsupported)
}

#[cfg(not(target_os = "linux"))]
fn apply_linux(_spec: &SandboxSpec) -> Result<Applied, SandboxError> {
    Err(SandboxError::Unsupported)
}

/// Threads of this process, from `/proc/self/task`; `None` when `/proc`
/// cannot be read.
#[cfg(target_os = "linux")]
fn thread_count() -> Option<usize> {
    Some(std::fs::read_dir("/proc/self/task").ok()?.count())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(writable: &[&str], network: bool, protected: &[&str]) -> SandboxSpec {
        SandboxSpec {
            mode: SandboxMode::WorkspaceWrite,
            writable: writable.iter().map(PathBuf::from).collect(),
            network,
            protected: protected.iter().map(PathBuf::from).collect(),
            nested: false,
        }
    }

    #[test]
    fn a_worker_covers_steps_within_its_rights_only() {
        let worker = spec(&["/ws", "/tmp"], false, &["/ws/.git"]);
        assert!(worker.covers(&worker));
        // After `cd sub`: narrower roots.
        assert!(worker.covers(&spec(&["/ws/sub", "/tmp"], false, &[])));
        // A write approved outside the roots, or the network: no.
        assert!(!worker.covers(&spec(&["/ws", "/tmp", "/etc"], false, &["/ws/.git"])));
        assert!(!worker.covers(&spec(&["/ws", "/tmp"], true, &["/ws/.git"])));
        // An approved `git commit` may write `.git`, which the worker keeps
        // read-only.
        assert!(!worker.covers(&spec(&["/ws", "/tmp"], false, &[])));
        // A step that must keep something read-only the worker may write.
        assert!(!worker.covers(&spec(&["/ws", "/tmp"], false, &["/ws/.git", "/ws/keep"])));
        let mut read_only = worker.clone();
        read_only.mode = SandboxMode::ReadOnly;
        assert!(!worker.covers(&read_only));
    }

    #[test]
    fn modes_round_trip_through_their_names() {
        for mode in [
            SandboxMode::Off,
            SandboxMode::ReadOnly,
            SandboxMode::WorkspaceWrite,
        ] {
            assert_eq!(mode.as_str().parse::<SandboxMode>(), Ok(mode));
            let json = serde_json::to_string(&mode).unwrap();
            assert_eq!(json, format!("\"{}\"", mode.as_str()));
        }
        assert_eq!(
            "workspace".parse::<SandboxMode>(),
            Err(UnknownSandboxMode("workspace".into()))
        );
    }

    #[test]
    fn only_workspace_write_has_writable_roots() {
        let mut spec = SandboxSpec {
            mode: SandboxMode::ReadOnly,
            writable: vec!["/tmp".into()],
            network: false,
            protected: Vec::new(),
            nested: false,
        };
        assert!(spec.writable_roots().is_empty());
        spec.mode = SandboxMode::WorkspaceWrite;
        assert_eq!(spec.writable_roots(), &[PathBuf::from("/tmp")]);
    }

    #[test]
    fn off_applies_nothing() {
        let applied = apply_to_current_process(&SandboxSpec::off()).unwrap();
        assert_eq!(applied, Applied::off());
        assert_eq!(applied.to_string(), "sandbox off");
    }
}
