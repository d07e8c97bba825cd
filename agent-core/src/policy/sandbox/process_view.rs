//! Reads that name the process behind each socket (`ss -tlnp`,
//! `lsof -i :8080`).
//!
//! Such a read looks at other processes' `/proc/PID/fd`. The kernel lets a
//! process do that only where it could ptrace the other one, and Landlock
//! adds its own rule to that check: a process inside a Landlock domain may
//! only inspect processes inside the same domain or one nested in it. No
//! Landlock rule lifts this, so inside the worker (and inside a launcher's
//! own Landlock domain) `ss -p` loses its process column and `lsof -i`
//! finds nothing: a wrong answer, not a refusal.
//!
//! So these exact forms (a grammar decides:
//! [`crate::policy::externals::names_socket_processes`]) run without a
//! Landlock domain, under the *process-view* restrictions instead
//! ([`restrict`]): a private mount namespace where every mount is
//! read-only, `nosuid` and `nodev`, with a fresh `/dev` that holds only
//! `null`, `zero`, `full`, `random` and `urandom`; the read launch's
//! seccomp filter (no internet or unix sockets, no metadata change, mount,
//! namespace, key or BPF) plus no signal, priority or limit change for
//! another process and no file descriptor taken from one; and as root only
//! the capabilities that read.
//!
//! Inside the sandbox worker no process can leave its domain, so the
//! worker forks a *broker* before it restricts itself ([`start_broker`]).
//! The launcher started for such a form inside the worker relays it
//! ([`relay`]): it sends the program, its arguments and its own
//! stdout/stderr over a unix socket; the broker checks the form again with
//! the same grammar and that the program is the system's own (`/usr/bin`,
//! `/usr/sbin`, `/bin`, `/sbin`), starts the launcher in process-view mode
//! outside the worker's domain, with a clean environment, and answers with
//! its exit status. A relay that goes away (cancelled) takes the program
//! with it.

use std::path::{Path, PathBuf};
#[cfg(target_os = "linux")]
use std::{
    ffi::OsString,
    os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd},
    sync::OnceLock,
};

use serde::{Deserialize, Serialize};

/// Where the system's own `ss` and `lsof` live: the only programs the
/// broker starts.
const SYSTEM_DIRS: &[&str] = &["/usr/sbin", "/usr/bin", "/sbin", "/bin"];

/// The broker's end in the worker, inherited by its launchers.
#[cfg(target_os = "linux")]
static BROKER: OnceLock<RawFd> = OnceLock::new();

/// The descriptor a launcher started by this worker relays through, when
/// the worker runs a broker.
pub fn broker_fd() -> Option<i32> {
    #[cfg(target_os = "linux")]
    {
        BROKER.get().copied()
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// Whether `program` (as resolved from `PATH`) is the system's own copy,
/// which the broker agrees to start.
pub fn is_system_program(program: &Path) -> bool {
    program
        .parent()
        .is_some_and(|dir| SYSTEM_DIRS.iter().any(|d| dir == Path::new(d)))
        && program.is_file()
}

/// Relay → broker.
#[derive(Debug, Serialize, Deserialize)]
struct Request {
    program: PathBuf,
    args: Vec<String>,
}

/// Broker → relay.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum Reply {
    /// The program ran: its exit code, or the signal that ended it.
    Exited {
        code: Option<i32>,
        signal: Option<i32>,
    },
    /// Not one of the forms, or it could not be started.
    Refused(String),
}

/// Largest request or reply on the broker's socket.
const MESSAGE_LIMIT: usize = 256 * 1024;

/// What [`relay`] did.
pub(super) enum Relayed {
    /// The broker ran it; the launcher exits with this code.
    Exited(i32),
    /// It did not run: why (the launcher runs it the usual way, where the
    /// process column stays hidden, and says so).
    NotRun(String),
}

/// A connected pair of close-on-exec unix sequenced-packet sockets.
#[cfg(target_os = "linux")]
fn seqpacket_pair() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut pair = [0 as RawFd; 2];
    // SAFETY: socketpair writes two descriptors into `pair`.
    let rc = unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC,
            0,
            pair.as_mut_ptr(),
        )
    };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just created and are owned here.
    Ok(unsafe { (OwnedFd::from_raw_fd(pair[0]), OwnedFd::from_raw_fd(pair[1])) })
}

/// Start the broker: fork now (single-threaded, before the worker
/// restricts itself); the child serves relays until the worker is gone.
/// Where it cannot start, the forms run inside the worker and say that
/// the process column is hidden.
#[cfg(target_os = "linux")]
pub(super) fn start_broker() {
    let Ok(launcher) = std::env::current_exe() else {
        return;
    };
    let Ok((ours, theirs)) = seqpacket_pair() else {
        return;
    };
    // SAFETY: getpid has no preconditions.
    let worker = unsafe { libc::getpid() };
    // SAFETY: the worker is single-threaded here (the sandbox is not on
    // yet and no thread was started), so the child may go on running Rust.
    match unsafe { libc::fork() } {
        -1 => {}
        0 => {
            drop(theirs);
            serve(ours, worker, &launcher);
        }
        _ => {
            drop(ours);
            // Launchers started by the worker inherit it (each marks every
            // descriptor above stderr close-on-exec before running its
            // program, so no program inherits it).
            // SAFETY: fcntl on a descriptor we own.
            unsafe {
                libc::fcntl(theirs.as_raw_fd(), libc::F_SETFD, 0);
            }
            let fd = theirs.as_raw_fd();
            std::mem::forget(theirs);
            let _ = BROKER.set(fd);
        }
    }
}

#[cfg(not(target_os = "linux"))]
pub(super) fn start_broker() {}

/// The broker's loop (the forked child): never returns.
#[cfg(target_os = "linux")]
fn serve(socket: OwnedFd, worker: libc::pid_t, launcher: &Path) -> ! {
    // SAFETY: prctl/getppid/close_range only change this process.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
        if libc::getppid() != worker {
            libc::_exit(0);
        }
        libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
        // Nothing of the worker's but the broker socket and stderr.
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR | libc::O_CLOEXEC);
        if null >= 0 {
            libc::dup2(null, 0);
            libc::dup2(null, 1);
        }
        let keep = socket.as_raw_fd();
        for fd in 3..1024 {
            if fd != keep {
                libc::close(fd);
            }
        }
    }
    // The broker itself never needs the network.
    if super::seccomp::install(true).is_err() {
        // SAFETY: ends this process only.
        unsafe { libc::_exit(1) };
    }
    loop {
        match receive(&socket) {
            Received::Request(request, fds) => {
                let launcher = launcher.to_path_buf();
                let spawned = std::thread::Builder::new()
                    .name("process-view".into())
                    .spawn(move || answer(request, fds, &launcher));
                // A request whose thread cannot start closes its reply
                // socket: the relay sees no answer and says so.
                drop(spawned);
            }
            Received::Skip => {}
            // SAFETY: ends this process only.
            Received::Closed => unsafe { libc::_exit(0) },
        }
    }
}

#[cfg(target_os = "linux")]
enum Received {
    Request(Request, [OwnedFd; 3]),
    /// Unreadable: dropped (its descriptors closed).
    Skip,
    Closed,
}

#[cfg(target_os = "linux")]
fn receive(socket: &OwnedFd) -> Received {
    let mut buffer = vec![0u8; MESSAGE_LIMIT];
    let (len, fds) = match recv_with_fds(socket.as_raw_fd(), &mut buffer) {
        Ok(Some(got)) => got,
        Ok(None) => return Received::Closed,
        Err(err) if err.kind() == std::io::ErrorKind::Interrupted => return Received::Skip,
        Err(_) => return Received::Closed,
    };
    let Ok(fds) = <[OwnedFd; 3]>::try_from(fds) else {
        return Received::Skip;
    };
    match serde_json::from_slice(&buffer[..len]) {
        Ok(request) => Received::Request(request, fds),
        Err(_) => Received::Skip,
    }
}

/// Check one request, run it, answer on its reply socket.
#[cfg(target_os = "linux")]
fn answer(request: Request, fds: [OwnedFd; 3], launcher: &Path) {
    let [stdout, stderr, reply] = fds;
    let outcome = match check(&request) {
        Err(why) => Reply::Refused(why),
        Ok(()) => run(&request, stdout, stderr, &reply, launcher),
    };
    if let Ok(bytes) = serde_json::to_vec(&outcome) {
        // SAFETY: send on a socket we own, from a live buffer.
        unsafe {
            libc::send(
                reply.as_raw_fd(),
                bytes.as_ptr().cast(),
                bytes.len(),
                libc::MSG_NOSIGNAL,
            );
        }
    }
}

/// The broker's own decision, whatever the relay claimed: the system's
/// program, in one of the exact forms.
fn check(request: &Request) -> Result<(), String> {
    let name = request
        .program
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    if !is_system_program(&request.program) {
        return Err(format!(
            "{} is not the system's own program",
            request.program.display()
        ));
    }
    if !crate::policy::externals::names_socket_processes(name, &request.args) {
        return Err(format!(
            "`{name} {}` is not one of the forms that list sockets with their processes",
            request.args.join(" ")
        ));
    }
    Ok(())
}

#[cfg(target_os = "linux")]
fn run(
    request: &Request,
    stdout: OwnedFd,
    stderr: OwnedFd,
    reply: &OwnedFd,
    launcher: &Path,
) -> Reply {
    use std::os::unix::process::{CommandExt, ExitStatusExt};
    let mut spec = super::ExecSpec::read_only();
    spec.process_view = true;
    let spec = serde_json::to_string(&spec).unwrap_or_default();
    let mut command = std::process::Command::new(launcher);
    command
        .arg(super::EXEC_ARG)
        .arg(spec)
        .arg("--")
        .arg(&request.program)
        .args(&request.args)
        .env_clear()
        .env("PATH", "/usr/sbin:/usr/bin:/sbin:/bin")
        .env("LC_ALL", "C")
        .current_dir("/")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::from(stdout))
        .stderr(std::process::Stdio::from(stderr))
        .process_group(0);
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(err) => return Reply::Refused(format!("cannot start the launcher: {err}")),
    };
    let group = child.id() as libc::pid_t;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                return Reply::Exited {
                    code: status.code(),
                    signal: status.signal(),
                };
            }
            Ok(None) => {}
            Err(err) => return Reply::Refused(format!("lost the program: {err}")),
        }
        let mut poll = libc::pollfd {
            fd: reply.as_raw_fd(),
            events: libc::POLLIN | libc::POLLRDHUP,
            revents: 0,
        };
        // SAFETY: poll on one valid pollfd for at most 50 ms.
        let ready = unsafe { libc::poll(&mut poll, 1, 50) };
        if ready > 0 && poll.revents != 0 {
            // The relay is gone (cancelled, killed): so is the program.
            // SAFETY: signals the process group this thread started.
            unsafe {
                libc::kill(-group, libc::SIGKILL);
            }
            let _ = child.wait();
            return Reply::Refused("the relay went away".into());
        }
    }
}

/// In a launcher inside the worker: have the broker on `broker` run
/// `program args...` with this process's stdout and stderr, and wait.
#[cfg(target_os = "linux")]
pub(super) fn relay(broker: RawFd, program: &OsString, args: &[OsString]) -> Relayed {
    let Some(args) = args
        .iter()
        .map(|a| a.to_str().map(String::from))
        .collect::<Option<Vec<String>>>()
    else {
        return Relayed::NotRun("an argument is not UTF-8".into());
    };
    let request = Request {
        program: PathBuf::from(program),
        args,
    };
    let Ok(bytes) = serde_json::to_vec(&request) else {
        return Relayed::NotRun("the request cannot be encoded".into());
    };
    if bytes.len() > MESSAGE_LIMIT {
        return Relayed::NotRun("the arguments are too long".into());
    }
    let (mine, theirs) = match seqpacket_pair() {
        Ok(pair) => pair,
        Err(err) => return Relayed::NotRun(format!("no reply socket: {err}")),
    };
    if let Err(err) = send_with_fds(broker, &bytes, &[1, 2, theirs.as_raw_fd()]) {
        return Relayed::NotRun(format!("the broker is not there: {err}"));
    }
    drop(theirs);
    let mut buffer = vec![0u8; 64 * 1024];
    let len = loop {
        // SAFETY: recv into a live buffer of its length.
        let n = unsafe {
            libc::recv(
                mine.as_raw_fd(),
                buffer.as_mut_ptr().cast(),
                buffer.len(),
                0,
            )
        };
        if n >= 0 {
            break n as usize;
        }
        if std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            return Relayed::NotRun("the broker did not answer".into());
        }
    };
    match serde_json::from_slice::<Reply>(&buffer[..len]) {
        Ok(Reply::Exited {
            code: Some(code), ..
        }) => Relayed::Exited(code),
        Ok(Reply::Exited {
            signal: Some(signal),
            ..
        }) => Relayed::Exited(128 + signal),
        Ok(Reply::Exited { .. }) => Relayed::Exited(super::launcher::EXIT_NOT_STARTED),
        Ok(Reply::Refused(why)) => Relayed::NotRun(why),
        Err(_) => Relayed::NotRun("the broker did not answer".into()),
    }
}

#[cfg(target_os = "linux")]
fn send_with_fds(socket: RawFd, bytes: &[u8], fds: &[RawFd]) -> std::io::Result<()> {
    let payload = std::mem::size_of_val(fds);
    // SAFETY: CMSG_SPACE only computes a size.
    let space = unsafe { libc::CMSG_SPACE(payload as u32) } as usize;
    let mut control = vec![0u8; space];
    let mut iov = libc::iovec {
        iov_base: bytes.as_ptr() as *mut libc::c_void,
        iov_len: bytes.len(),
    };
    // SAFETY: a zeroed msghdr is valid; the fields set below point into
    // live buffers for the duration of sendmsg.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr().cast();
    msg.msg_controllen = space as _;
    // SAFETY: the control buffer holds one header of CMSG_SPACE(payload)
    // bytes; CMSG_FIRSTHDR/CMSG_DATA point inside it.
    unsafe {
        let header = libc::CMSG_FIRSTHDR(&msg);
        (*header).cmsg_level = libc::SOL_SOCKET;
        (*header).cmsg_type = libc::SCM_RIGHTS;
        (*header).cmsg_len = libc::CMSG_LEN(payload as u32) as _;
        std::ptr::copy_nonoverlapping(fds.as_ptr().cast::<u8>(), libc::CMSG_DATA(header), payload);
    }
    // SAFETY: msg points at live buffers.
    let sent = unsafe { libc::sendmsg(socket, &msg, libc::MSG_NOSIGNAL) };
    if sent < 0 {
        Err(std::io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// One message and the descriptors it carried; `None` at end of stream.
#[cfg(target_os = "linux")]
fn recv_with_fds(
    socket: RawFd,
    buffer: &mut [u8],
) -> std::io::Result<Option<(usize, Vec<OwnedFd>)>> {
    const MAX_FDS: usize = 8;
    // SAFETY: CMSG_SPACE only computes a size.
    let space =
        unsafe { libc::CMSG_SPACE((MAX_FDS * std::mem::size_of::<RawFd>()) as u32) } as usize;
    let mut control = vec![0u8; space];
    let mut iov = libc::iovec {
        iov_base: buffer.as_mut_ptr().cast(),
        iov_len: buffer.len(),
    };
    // SAFETY: as in `send_with_fds`.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr().cast();
    msg.msg_controllen = space as _;
    // SAFETY: msg points at live buffers; received descriptors are
    // close-on-exec.
    let n = unsafe { libc::recvmsg(socket, &mut msg, libc::MSG_CMSG_CLOEXEC) };
    if n < 0 {
        return Err(std::io::Error::last_os_error());
    }
    let mut fds = Vec::new();
    // SAFETY: walking the control messages the kernel wrote, within
    // `msg_controllen`; each SCM_RIGHTS payload is an array of descriptors
    // now owned by this process.
    unsafe {
        let mut header = libc::CMSG_FIRSTHDR(&msg);
        while !header.is_null() {
            if (*header).cmsg_level == libc::SOL_SOCKET && (*header).cmsg_type == libc::SCM_RIGHTS {
                let data = libc::CMSG_DATA(header);
                let bytes = (*header).cmsg_len as usize - libc::CMSG_LEN(0) as usize;
                for i in 0..bytes / std::mem::size_of::<RawFd>() {
                    let fd = std::ptr::read_unaligned(data.cast::<RawFd>().add(i));
                    fds.push(OwnedFd::from_raw_fd(fd));
                }
            }
            header = libc::CMSG_NXTHDR(&msg, header);
        }
    }
    if n == 0 && fds.is_empty() {
        return Ok(None);
    }
    Ok(Some((n as usize, fds)))
}

/// Restrict this launcher (and the program it starts) for a process-view
/// read: no Landlock domain, so other processes' `/proc/PID/fd` stay
/// readable where the user's rights reach; everything else as a read.
#[cfg(target_os = "linux")]
pub(super) fn restrict() -> Result<(), super::SandboxError> {
    let fail = super::SandboxError::ProcessView;
    read_only_mounts().map_err(fail)?;
    super::capabilities::keep_only_read_capabilities()?;
    super::seccomp::install(true)?;
    super::seccomp::install_launch(super::seccomp::LaunchLimits {
        read_only: true,
        local_sockets: false,
    })?;
    super::seccomp::install_process_view()
}

/// The devices a read may open in the fresh `/dev`.
#[cfg(target_os = "linux")]
const DEVICES: &[&str] = &["null", "zero", "full", "random", "urandom"];

/// A private mount namespace where every mount is read-only, `nosuid` and
/// `nodev`, and `/dev` holds only [`DEVICES`].
#[cfg(target_os = "linux")]
fn read_only_mounts() -> Result<(), String> {
    use std::ffi::CString;
    super::mounts::enter_mount_namespace()?;
    // Opened inside the new namespace: a bind mount's source must be one
    // of its mounts.
    let mut devices = Vec::new();
    for name in DEVICES {
        let path = CString::new(format!("/dev/{name}")).map_err(|e| e.to_string())?;
        // SAFETY: open with O_PATH on a valid C string.
        let fd = unsafe { libc::open(path.as_ptr(), libc::O_PATH | libc::O_CLOEXEC) };
        if fd < 0 {
            continue;
        }
        // SAFETY: just opened, owned here.
        devices.push((name, unsafe { OwnedFd::from_raw_fd(fd) }));
    }
    set_attr(
        "/",
        true,
        MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV,
        0,
    )?;
    mount_fs(
        c"tmpfs",
        c"/dev",
        c"tmpfs",
        libc::MS_NOSUID | libc::MS_NOEXEC,
        c"mode=755,size=64k",
    )?;
    for (name, fd) in &devices {
        let target = format!("/dev/{name}");
        std::fs::File::create(&target).map_err(|e| format!("{target}: {e}"))?;
        let source =
            CString::new(format!("/proc/self/fd/{}", fd.as_raw_fd())).map_err(|e| e.to_string())?;
        let target_c = CString::new(target.clone()).map_err(|e| e.to_string())?;
        // SAFETY: valid C strings; a bind mount needs no type or data.
        let rc = unsafe {
            libc::mount(
                source.as_ptr(),
                target_c.as_ptr(),
                std::ptr::null(),
                libc::MS_BIND,
                std::ptr::null(),
            )
        };
        if rc != 0 {
            return Err(format!(
                "bind {target}: {}",
                std::io::Error::last_os_error()
            ));
        }
        set_attr(
            &target,
            false,
            MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID,
            MOUNT_ATTR_NODEV,
        )?;
    }
    set_attr("/dev", false, MOUNT_ATTR_RDONLY, 0)
}

#[cfg(target_os = "linux")]
const MOUNT_ATTR_RDONLY: u64 = 0x1;
#[cfg(target_os = "linux")]
const MOUNT_ATTR_NOSUID: u64 = 0x2;
#[cfg(target_os = "linux")]
const MOUNT_ATTR_NODEV: u64 = 0x4;
#[cfg(target_os = "linux")]
const AT_RECURSIVE: libc::c_uint = 0x8000;

/// `struct mount_attr` of `mount_setattr(2)`.
#[cfg(target_os = "linux")]
#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

#[cfg(target_os = "linux")]
fn set_attr(path: &str, recursive: bool, set: u64, clear: u64) -> Result<(), String> {
    let c = std::ffi::CString::new(path).map_err(|e| e.to_string())?;
    let attr = MountAttr {
        attr_set: set,
        attr_clr: clear,
        propagation: 0,
        userns_fd: 0,
    };
    let flags = if recursive { AT_RECURSIVE } else { 0 };
    // SAFETY: mount_setattr reads `attr` (of the size given) and the path.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            libc::AT_FDCWD,
            c.as_ptr(),
            flags,
            &attr as *const MountAttr,
            std::mem::size_of::<MountAttr>(),
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(format!(
            "mount_setattr {path}: {}",
            std::io::Error::last_os_error()
        ))
    }
}

#[cfg(target_os = "linux")]
fn mount_fs(
    source: &std::ffi::CStr,
    target: &std::ffi::CStr,
    kind: &std::ffi::CStr,
    flags: libc::c_ulong,
    data: &std::ffi::CStr,
) -> Result<(), String> {
    // SAFETY: valid C strings for every argument.
    let rc = unsafe {
        libc::mount(
            source.as_ptr(),
            target.as_ptr(),
            kind.as_ptr(),
            flags,
            data.as_ptr().cast(),
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(format!(
            "mount {}: {}",
            target.to_string_lossy(),
            std::io::Error::last_os_error()
        ))
    }
}

/// What this process can see of the machine's internet sockets and of
/// the processes holding them.
#[derive(Debug, Default)]
pub(super) struct Visibility {
    /// Processes (not kernel threads) whose open files this process
    /// cannot read: another user's, without the privilege. `comm (pid)`.
    pub hidden: Vec<String>,
    /// Internet sockets (`/proc/net/tcp`, `udp`, `raw`, v4 and v6) that no
    /// process visible here holds.
    pub unattributed: usize,
}

impl Visibility {
    /// Look now.
    pub(super) fn scan() -> Visibility {
        let mut held = std::collections::HashSet::new();
        let mut hidden = Vec::new();
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return Visibility::default();
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(pid) = name
                .to_str()
                .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
            else {
                continue;
            };
            let dir = entry.path();
            let denied = |err: &std::io::Error| err.kind() == std::io::ErrorKind::PermissionDenied;
            // The directory may list while each link stays unreadable
            // (a process that is not dumpable, of a wider namespace).
            let readable = match std::fs::read_dir(dir.join("fd")) {
                Ok(fds) => fds.flatten().all(|fd| match std::fs::read_link(fd.path()) {
                    Ok(link) => {
                        held.extend(socket_inode(&link.to_string_lossy()));
                        true
                    }
                    Err(err) => !denied(&err),
                }),
                Err(err) => !denied(&err),
            };
            if !readable && !is_kernel_thread(&dir) {
                let comm = std::fs::read_to_string(dir.join("comm")).unwrap_or_default();
                hidden.push(format!("{} ({pid})", comm.trim()));
            }
        }
        let unattributed = internet_socket_inodes()
            .into_iter()
            .filter(|inode| !held.contains(inode))
            .count();
        Visibility {
            hidden,
            unattributed,
        }
    }

    /// The note a process-view read prints on stderr when some sockets
    /// belong to processes it cannot see; `None` when every socket's
    /// process is known (or none is hidden).
    pub(super) fn note(&self) -> Option<String> {
        if self.hidden.is_empty() || self.unattributed == 0 {
            return None;
        }
        const SHOWN: usize = 5;
        let mut names = self
            .hidden
            .iter()
            .take(SHOWN)
            .cloned()
            .collect::<Vec<_>>()
            .join(", ");
        if self.hidden.len() > SHOWN {
            names.push_str(&format!(" and {} more", self.hidden.len() - SHOWN));
        }
        let sockets = match self.unattributed {
            1 => "1 internet socket shows".to_string(),
            n => format!("{n} internet sockets show"),
        };
        Some(format!(
            "nu-agent: {sockets} no process: held by processes whose open files this user cannot read (another user's without the privilege, or one not open to inspection): {names}"
        ))
    }
}

/// `socket:[1234]` → 1234.
fn socket_inode(link: &str) -> Option<u64> {
    link.strip_prefix("socket:[")?
        .strip_suffix(']')?
        .parse()
        .ok()
}

/// Kernel threads hold no files: `PF_KTHREAD` in `/proc/PID/stat`.
fn is_kernel_thread(dir: &Path) -> bool {
    const PF_KTHREAD: u64 = 0x0020_0000;
    let Ok(stat) = std::fs::read_to_string(dir.join("stat")) else {
        return false;
    };
    let Some((_, after)) = stat.rsplit_once(')') else {
        return false;
    };
    after
        .split_whitespace()
        .nth(6)
        .and_then(|f| f.parse::<u64>().ok())
        .is_some_and(|flags| flags & PF_KTHREAD != 0)
}

/// The inodes of the internet sockets in this network namespace (0, a
/// socket in `TIME_WAIT`, left out).
fn internet_socket_inodes() -> Vec<u64> {
    let mut inodes = Vec::new();
    for table in ["tcp", "tcp6", "udp", "udp6", "raw", "raw6"] {
        let Ok(text) = std::fs::read_to_string(format!("/proc/net/{table}")) else {
            continue;
        };
        for line in text.lines().skip(1) {
            if let Some(inode) = line
                .split_whitespace()
                .nth(9)
                .and_then(|i| i.parse::<u64>().ok())
                .filter(|i| *i != 0)
            {
                inodes.push(inode);
            }
        }
    }
    inodes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_broker_decides_by_the_grammar_and_the_system_program() {
        let request = |program: &str, args: &[&str]| Request {
            program: program.into(),
            args: args.iter().map(|a| a.to_string()).collect(),
        };
        let ss = SYSTEM_DIRS
            .iter()
            .map(|d| Path::new(d).join("ss"))
            .find(|p| p.is_file());
        if let Some(ss) = ss {
            let ss = ss.to_string_lossy().into_owned();
            assert!(check(&request(&ss, &["-tlnp"])).is_ok());
            assert!(check(&request(&ss, &["-tln"])).is_err());
            assert!(check(&request(&ss, &["-K", "-p"])).is_err());
        }
        assert!(check(&request("/tmp/ss", &["-tlnp"])).is_err());
        assert!(check(&request("/usr/bin/sh", &["-tlnp"])).is_err());
        assert!(check(&request("ss", &["-tlnp"])).is_err());
    }

    #[test]
    fn the_note_names_a_few_hidden_processes_when_a_socket_is_theirs() {
        let many: Vec<String> = (1..=7).map(|i| format!("p ({i})")).collect();
        let seen = |hidden: &[String], unattributed| Visibility {
            hidden: hidden.to_vec(),
            unattributed,
        };
        assert_eq!(seen(&[], 3).note(), None);
        assert_eq!(seen(&many, 0).note(), None);
        let note = seen(&many, 2).note().unwrap();
        assert!(
            note.contains("2 internet sockets show no process"),
            "{note}"
        );
        assert!(note.contains("p (5) and 2 more"), "{note}");
        assert_eq!(socket_inode("socket:[1234]"), Some(1234));
        assert_eq!(socket_inode("/dev/null"), None);
        // This process sees itself; the scan runs.
        let _ = Visibility::scan();
    }
}
