//! The per-external launcher: every external program the agent runs is
//! started as `<our binary> --sandbox-exec <spec> -- <program> <args...>`.
//! The launcher creates a private temp dir, restricts itself (Landlock +
//! seccomp) to what the program's verdict allowed — a read gets no write
//! anywhere but `/dev/null` and that temp dir, no network, no unix socket
//! (but for the programs that read through a daemon), no metadata change,
//! mount, namespace or key, and as root only the capabilities that read —
//! then runs the program, waits for it, removes the temp dir and exits as
//! the program did. A form the classifier misjudged as a read can only
//! read.
//!
//! The spec is narrowed by the runtime guard of `run-external`
//! ([`crate::policy::Guardrails`]); the launcher only applies it. Whatever
//! goes wrong here, the program does not run unrestricted.

use std::{
    ffi::OsString,
    path::{Path, PathBuf},
    process::Command,
};

use serde::{Deserialize, Serialize};

use super::{SandboxMode, SandboxSpec, apply_to_current_process};

/// The hidden first argument that turns the plugin binary or `nu-agent`
/// into the launcher.
pub const EXEC_ARG: &str = "--sandbox-exec";

/// Exit code when the sandbox could not be applied (the program did not
/// run), as a shell's "cannot execute".
pub const EXIT_NOT_SANDBOXED: i32 = 126;
/// Exit code when the program could not be started.
pub const EXIT_NOT_STARTED: i32 = 127;

/// What one external program may do.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExecSpec {
    /// Files and directories it may change (besides `/dev/null` and its
    /// private temp dir). Empty: it only reads.
    pub writable: Vec<PathBuf>,
    /// It may open internet sockets.
    pub network: bool,
    /// Paths beneath `writable` that stay read-only (`.git`, protected
    /// trees).
    #[serde(default)]
    pub protected: Vec<PathBuf>,
    /// Started from inside the sandbox worker (see
    /// [`SandboxSpec::nested`]).
    #[serde(default)]
    pub nested: bool,
    /// It may open `AF_UNIX` sockets: talk to a local daemon (a read whose
    /// program asks a daemon, `docker ps`; an approved program of unknown
    /// effect). Without it no socket reaches a daemon.
    #[serde(default)]
    pub local_sockets: bool,
    /// A read that names the process behind each socket (`ss -tlnp`,
    /// `lsof -i :8080`, as [`crate::policy::externals::names_socket_processes`]
    /// decides): it runs without a Landlock domain, which would hide other
    /// processes' open files, under the process-view restrictions instead
    /// (a read-only mount namespace and the read's seccomp filter; see
    /// `process_view`). Ignored unless the spec is read-only.
    #[serde(default)]
    pub process_view: bool,
    /// Inside the sandbox worker: the inherited descriptor of the worker's
    /// process-view broker, which runs a [`ExecSpec::process_view`] read
    /// outside the worker's Landlock domain.
    #[serde(default)]
    pub broker: Option<i32>,
}

impl ExecSpec {
    /// Reads only: nothing writable, no network.
    pub fn read_only() -> ExecSpec {
        ExecSpec {
            writable: Vec::new(),
            network: false,
            protected: Vec::new(),
            nested: false,
            local_sockets: false,
            process_view: false,
            broker: None,
        }
    }

    /// Nothing writable and no network.
    pub fn is_read_only(&self) -> bool {
        self.writable.is_empty() && !self.network
    }

    /// A label for `agent policy` and the audit log: `read-only`,
    /// `writes 2 paths, network`.
    pub fn describe(&self) -> String {
        let writes = match self.writable.len() {
            0 => "read-only".to_string(),
            1 => format!("writes {}", self.writable[0].display()),
            n => format!("writes {n} paths"),
        };
        let mut label = writes;
        if self.network {
            label.push_str(", network");
        }
        if self.local_sockets {
            label.push_str(", local daemons");
        }
        if self.process_view && self.is_read_only() {
            label.push_str(", sees other processes' sockets");
        }
        label
    }
}

/// Whether each external program runs under its own narrowed sandbox
/// (with `external_sandbox` on in the policy), and a line saying why not.
pub fn external_sandbox_status(enabled_by_policy: bool) -> (bool, String) {
    if !enabled_by_policy {
        return (
            false,
            "off (policy.external_sandbox: false): externals run with the session's rights".into(),
        );
    }
    let protections = super::probe();
    if protections.can_sandbox() {
        (
            true,
            "on: each external runs read-only without the network unless its verdict allowed more"
                .into(),
        )
    } else {
        (
            false,
            format!(
                "unavailable ({}): only the exact read-only forms run unasked",
                protections.landlock
            ),
        )
    }
}

/// The arguments that put `launcher` in front of a program:
/// `[launcher, --sandbox-exec, <spec>, --]`; the program and its
/// arguments follow.
pub fn launcher_prefix(launcher: &Path, spec: &ExecSpec) -> Vec<String> {
    vec![
        launcher.to_string_lossy().into_owned(),
        EXEC_ARG.to_string(),
        serde_json::to_string(spec).unwrap_or_else(|_| "{}".into()),
        "--".to_string(),
    ]
}

/// Run as the launcher: `args` are this process's arguments after
/// [`EXEC_ARG`] (`<spec> -- <program> <args...>`). Returns the exit code
/// (or ends the process with the program's signal). Call it first thing
/// in `main`, before anything starts a thread.
pub fn exec_main(args: Vec<OsString>) -> i32 {
    let mut args = args.into_iter();
    let spec: ExecSpec = match args.next().map(|s| s.into_string()) {
        Some(Ok(text)) => match serde_json::from_str(&text) {
            Ok(spec) => spec,
            Err(err) => return refuse(&format!("the sandbox spec is not valid: {err}")),
        },
        Some(Err(_)) => return refuse("the sandbox spec is not valid UTF-8"),
        None => return refuse("no sandbox spec was given"),
    };
    if args.next().as_deref() != Some(std::ffi::OsStr::new("--")) {
        return refuse("expected `--` before the program");
    }
    let Some(program) = args.next() else {
        return refuse("no program was given");
    };
    let rest: Vec<OsString> = args.collect();
    let shown = Path::new(&program).display().to_string();
    // No program inherits a descriptor but its standard streams (the
    // worker's process-view broker socket included).
    mark_close_on_exec_above_stderr();

    let mut hidden = None;
    if spec.process_view && spec.is_read_only() {
        let why = process_view_launch(&spec, &program, &rest, &shown);
        match why {
            Ok(code) => return code,
            Err(why) => {
                hidden = Some(format!(
                    "nu-agent: other processes' open sockets cannot be read inside the sandbox here ({why}): the process column may be missing"
                ));
            }
        }
    }

    // A private temp dir, removed afterwards. Where none can be made (a
    // read-only sandbox around this one) the program gets none.
    let temp = tempfile::Builder::new()
        .prefix("nu-agent-exec-")
        .tempdir()
        .ok();
    let mut writable = spec.writable.clone();
    if let Some(temp) = &temp {
        writable.push(temp.path().to_path_buf());
    }
    let sandbox = SandboxSpec {
        mode: SandboxMode::WorkspaceWrite,
        writable,
        network: spec.network,
        protected: spec.protected.clone(),
        nested: spec.nested,
    };
    if let Err(err) = apply_to_current_process(&sandbox)
        .and_then(|_| super::restrict_launch(spec.is_read_only(), spec.local_sockets))
    {
        return refuse(&format!("cannot sandbox {shown}: {err}"));
    }
    let mut command = Command::new(&program);
    command.args(&rest);
    if let Some(temp) = &temp {
        command.env("TMPDIR", temp.path());
    }
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(err) => {
            eprintln!("nu-agent: cannot start {shown}: {err}");
            return EXIT_NOT_STARTED;
        }
    };
    // The program's process group gets the terminal's and the agent's
    // signals; the launcher outlives it to remove the temp dir.
    ignore_stop_signals();
    let status = child.wait();
    drop(temp);
    if let Some(note) = hidden {
        eprintln!("{note}");
    }
    match status {
        Ok(status) => exit_like(status),
        Err(err) => {
            eprintln!("nu-agent: lost {shown}: {err}");
            EXIT_NOT_STARTED
        }
    }
}

/// A process-view read: relayed to the worker's broker when this
/// launcher runs inside the worker, else restricted here without Landlock
/// and run. `Err`: why it could not be (the caller runs it the usual way
/// and says the process column may be missing).
#[cfg(target_os = "linux")]
fn process_view_launch(
    spec: &ExecSpec,
    program: &OsString,
    rest: &[OsString],
    shown: &str,
) -> Result<i32, String> {
    use super::process_view::{self, Relayed};
    if spec.nested {
        let Some(broker) = spec.broker else {
            return Err("the sandbox worker runs no process-view broker".into());
        };
        return match process_view::relay(broker, program, rest) {
            Relayed::Exited(code) => Ok(code),
            Relayed::NotRun(why) => Err(why),
        };
    }
    process_view::restrict().map_err(|err| err.to_string())?;
    let mut child = match Command::new(program).args(rest).spawn() {
        Ok(child) => child,
        Err(err) => {
            eprintln!("nu-agent: cannot start {shown}: {err}");
            return Ok(EXIT_NOT_STARTED);
        }
    };
    ignore_stop_signals();
    let status = child.wait();
    if let Some(note) = process_view::Visibility::scan().note() {
        eprintln!("{note}");
    }
    Ok(match status {
        Ok(status) => exit_like(status),
        Err(err) => {
            eprintln!("nu-agent: lost {shown}: {err}");
            EXIT_NOT_STARTED
        }
    })
}

#[cfg(not(target_os = "linux"))]
fn process_view_launch(
    _spec: &ExecSpec,
    _program: &OsString,
    _rest: &[OsString],
    _shown: &str,
) -> Result<i32, String> {
    Err("only on Linux".into())
}

/// Mark every descriptor above stderr close-on-exec.
#[cfg(target_os = "linux")]
fn mark_close_on_exec_above_stderr() {
    const CLOSE_RANGE_CLOEXEC: libc::c_uint = 1 << 2;
    // SAFETY: close_range with CLOSE_RANGE_CLOEXEC only sets a flag on
    // this process's descriptors.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_close_range,
            3 as libc::c_uint,
            libc::c_uint::MAX,
            CLOSE_RANGE_CLOEXEC,
        )
    };
    if rc != 0 {
        for fd in 3..1024 {
            // SAFETY: fcntl on a descriptor number; a closed one fails.
            unsafe {
                libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);
            }
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn mark_close_on_exec_above_stderr() {}

fn refuse(message: &str) -> i32 {
    eprintln!("nu-agent: {message}; the program was not run");
    EXIT_NOT_SANDBOXED
}

#[cfg(unix)]
fn ignore_stop_signals() {
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT] {
        // SAFETY: setting a signal's disposition to SIG_IGN has no
        // preconditions; the child already runs with its own dispositions.
        unsafe {
            libc::signal(signal, libc::SIG_IGN);
        }
    }
}

#[cfg(not(unix))]
fn ignore_stop_signals() {}

/// The program's exit code, or its death by the same signal.
#[cfg(unix)]
fn exit_like(status: std::process::ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    if let Some(code) = status.code() {
        return code;
    }
    if let Some(signal) = status.signal() {
        // SAFETY: restoring the default disposition and raising the signal
        // on this process ends it as the program ended.
        unsafe {
            libc::signal(signal, libc::SIG_DFL);
            libc::raise(signal);
        }
        return 128 + signal;
    }
    EXIT_NOT_STARTED
}

#[cfg(not(unix))]
fn exit_like(status: std::process::ExitStatus) -> i32 {
    status.code().unwrap_or(EXIT_NOT_STARTED)
}

/// The writable paths for a program allowed to change `targets` beneath
/// which `protected` paths must stay read-only. Landlock can only grant,
/// never subtract, so a target that holds a protected path is replaced by
/// its entries, recursively, leaving the protected ones out (new entries
/// directly in such a directory cannot be created). A target inside a
/// protected path is dropped.
pub fn carve_out(targets: &[PathBuf], protected: &[PathBuf]) -> Vec<PathBuf> {
    /// Most paths one spec may name: past this, subtrees are left out
    /// (less writable, never more).
    const MAX_RULES: usize = 4096;
    let mut out = Vec::new();
    let mut work: Vec<PathBuf> = targets.to_vec();
    while let Some(path) = work.pop() {
        if protected.iter().any(|p| path.starts_with(p)) {
            continue;
        }
        let holds_protected = protected.iter().any(|p| p.starts_with(&path) && *p != path);
        if !holds_protected {
            if !out.contains(&path) {
                out.push(path);
            }
            continue;
        }
        let Ok(entries) = std::fs::read_dir(&path) else {
            continue;
        };
        for entry in entries.flatten() {
            if out.len() + work.len() >= MAX_RULES {
                break;
            }
            let child = entry.path();
            // A symlink's target is judged where it lands, by Landlock.
            if entry.file_type().is_ok_and(|t| t.is_symlink()) {
                continue;
            }
            work.push(child);
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prefix_carries_the_spec() {
        let spec = ExecSpec {
            writable: vec!["/w/build".into()],
            network: true,
            protected: Vec::new(),
            nested: false,
            local_sockets: false,
            process_view: false,
            broker: None,
        };
        let prefix = launcher_prefix(Path::new("/bin/agent"), &spec);
        assert_eq!(prefix[0], "/bin/agent");
        assert_eq!(prefix[1], EXEC_ARG);
        assert_eq!(serde_json::from_str::<ExecSpec>(&prefix[2]).unwrap(), spec);
        assert_eq!(prefix[3], "--");
        assert_eq!(spec.describe(), "writes /w/build, network");
        assert_eq!(ExecSpec::read_only().describe(), "read-only");
    }

    #[test]
    fn bad_arguments_refuse_without_running_anything() {
        assert_eq!(exec_main(vec![]), EXIT_NOT_SANDBOXED);
        assert_eq!(exec_main(vec!["{".into()]), EXIT_NOT_SANDBOXED);
        let spec = serde_json::to_string(&ExecSpec::read_only()).unwrap();
        assert_eq!(
            exec_main(vec![spec.clone().into(), "touch".into()]),
            EXIT_NOT_SANDBOXED
        );
        assert_eq!(
            exec_main(vec![spec.into(), "--".into()]),
            EXIT_NOT_SANDBOXED
        );
    }

    #[test]
    fn protected_paths_are_carved_out_of_a_writable_root() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        std::fs::create_dir_all(root.join(".git/hooks")).unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("notes.md"), "x").unwrap();
        std::fs::write(root.join(".git/config"), "x").unwrap();
        let got = carve_out(std::slice::from_ref(&root), &[root.join(".git")]);
        assert_eq!(got, vec![root.join("notes.md"), root.join("src")]);
        // Nothing protected beneath: the root itself.
        let got = carve_out(std::slice::from_ref(&root), &[PathBuf::from("/etc")]);
        assert_eq!(got, vec![root.clone()]);
        // A target inside a protected tree is dropped.
        assert!(carve_out(&[root.join(".git/hooks")], &[root.join(".git")]).is_empty());
        // A deeper protected path: only its branch is split.
        let got = carve_out(std::slice::from_ref(&root), &[root.join(".git/hooks")]);
        assert!(got.contains(&root.join(".git/config")));
        assert!(got.contains(&root.join("src")));
        assert!(!got.iter().any(|p| p.starts_with(root.join(".git/hooks"))));
    }
}
