//! "What is listening on 8080?" in the default sandboxed mode: `^ss -tlnp`
//! names the process and `^lsof -i :PORT` finds it, although every
//! external runs sandboxed. Landlock hides other processes' open files
//! from any process inside a Landlock domain, so these exact forms run
//! outside it (relayed by the worker's broker) under the process-view
//! restrictions, which still write, delete, signal and connect nothing.
//! Where a socket's process cannot be seen (another user's), the run says
//! so.

use std::{
    io::Read,
    net::TcpListener,
    os::unix::{fs::PermissionsExt, net::UnixListener},
    path::Path,
    process::{Command, Output, Stdio},
};

use agent_core::policy::sandbox::{EXEC_ARG, ExecSpec};
use agent_e2e::workspace_binary;

/// `nu-agent run <pipeline>` in `cwd` with its defaults (the sandboxed
/// session, every external through the launcher) and no user config.
fn run(cwd: &Path, extra: &[&str], pipeline: &str) -> Output {
    Command::new(workspace_binary("nu-agent"))
        .arg("run")
        .args(extra)
        .arg(pipeline)
        .current_dir(cwd)
        .env_remove("NU_AGENT_CONFIG")
        .env("XDG_CONFIG_HOME", cwd.join("config"))
        .env("NU_AGENT_STATE_DIR", cwd.join("state"))
        .stdin(Stdio::null())
        .output()
        .expect("run nu-agent")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A loopback listener held by this test process: its PID is ours.
fn listener() -> (TcpListener, u16) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("listen");
    let port = listener.local_addr().expect("addr").port();
    (listener, port)
}

#[test]
fn ss_names_the_listening_process_in_the_default_mode() {
    let dir = tempfile::tempdir().unwrap();
    let (_listener, port) = listener();
    let pid = std::process::id();
    for extra in [&[][..], &["--sandbox", "read-only"][..]] {
        let out = run(dir.path(), extra, &format!("^ss -tlnp 'sport = :{port}'"));
        let stdout = text(&out.stdout);
        assert!(
            out.status.success(),
            "{extra:?}: {stdout}\n{}",
            text(&out.stderr)
        );
        assert!(stdout.contains(&format!(":{port}")), "{extra:?}: {stdout}");
        assert!(
            stdout.contains(&format!("pid={pid},")),
            "{extra:?}: the process column is missing:\n{stdout}\n{}",
            text(&out.stderr)
        );
    }
}

#[test]
fn lsof_finds_the_listener_in_the_default_mode() {
    let dir = tempfile::tempdir().unwrap();
    let (_listener, port) = listener();
    let pid = std::process::id().to_string();
    let out = run(dir.path(), &[], &format!("^lsof -nP -i :{port}"));
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    let line = stdout
        .lines()
        .find(|l| l.contains(&format!(":{port} (LISTEN)")))
        .unwrap_or_else(|| panic!("no listener in:\n{stdout}\n{}", text(&out.stderr)));
    assert_eq!(line.split_whitespace().nth(1), Some(pid.as_str()), "{line}");
    // As a table, through nu: the PID column of the one row.
    let out = run(
        dir.path(),
        &[],
        &format!("^lsof -nP -t -i :{port} | lines | first | into int"),
    );
    assert_eq!(text(&out.stdout).trim(), pid, "{}", text(&out.stderr));
}

#[test]
fn other_forms_stay_inside_the_sandbox() {
    // The grammar decides, not the program: `lsof -p PID` is a read, but
    // not one of the process-view forms, so it runs in the usual read
    // launch, where this process's files stay hidden.
    let dir = tempfile::tempdir().unwrap();
    let (_listener, port) = listener();
    let pid = std::process::id();
    let out = run(dir.path(), &[], &format!("^lsof -nP -a -p {pid} -d 0-999"));
    let stdout = text(&out.stdout);
    assert!(
        !stdout.contains(&format!(":{port}")),
        "lsof -p saw through the sandbox:\n{stdout}"
    );
    // Run as it is, the same form sees it (the test can fail).
    let plain = Command::new("lsof")
        .args(["-nP", "-a", "-p", &pid.to_string(), "-d", "0-999"])
        .output()
        .expect("lsof");
    assert!(
        text(&plain.stdout).contains(&format!(":{port}")),
        "{}",
        text(&plain.stdout)
    );
}

/// The system's own `ss` (`/usr/bin` or `/usr/sbin`, by distribution).
fn system_ss() -> String {
    ["/usr/bin/ss", "/usr/sbin/ss", "/bin/ss", "/sbin/ss"]
        .into_iter()
        .find(|p| Path::new(p).is_file())
        .expect("ss (iproute2) is installed")
        .to_string()
}

fn process_view_spec() -> String {
    let mut spec = ExecSpec::read_only();
    spec.process_view = true;
    serde_json::to_string(&spec).expect("spec")
}

#[test]
fn the_process_view_launch_writes_deletes_signals_and_connects_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path();
    std::fs::write(ws.join("keep.txt"), "original").unwrap();
    let (tcp, port) = listener();
    tcp.set_nonblocking(true).unwrap();
    let socket_path = ws.join("daemon.sock");
    let unix = UnixListener::bind(&socket_path).unwrap();
    unix.set_nonblocking(true).unwrap();
    let mut victim = Command::new("sleep").arg("60").spawn().expect("sleep");
    let script = format!(
        "echo x > keep.txt; echo x > new.txt; rm -f keep.txt; mkdir d; chmod 000 keep.txt; \
         touch -d 2001-01-01 keep.txt; ln -s keep.txt l; mv keep.txt moved.txt; \
         echo x > /dev/shm/nu-agent-pv-test; \
         kill -9 {victim}; ip link set lo mtu 1280; \
         echo hi > /dev/tcp/127.0.0.1/{port}; \
         python3 -c 'import socket; s=socket.socket(socket.AF_UNIX); s.connect(\"{sock}\")'; \
         echo x > /dev/null && echo devnull-ok",
        victim = victim.id(),
        sock = socket_path.display(),
    );
    let mtu = || std::fs::read_to_string("/sys/class/net/lo/mtu").unwrap_or_default();
    let mtu_before = mtu();
    let before: Vec<_> = std::fs::read_dir(ws)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    let out = Command::new(workspace_binary("nu-agent"))
        .arg(EXEC_ARG)
        .arg(process_view_spec())
        .args(["--", "bash", "-c", &script])
        .current_dir(ws)
        .stdin(Stdio::null())
        .output()
        .expect("launcher");
    let stderr = text(&out.stderr);
    let after: Vec<_> = std::fs::read_dir(ws)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(before, after, "{stderr}");
    assert_eq!(
        std::fs::read_to_string(ws.join("keep.txt")).unwrap(),
        "original"
    );
    let mode = std::fs::metadata(ws.join("keep.txt"))
        .unwrap()
        .permissions()
        .mode();
    assert_ne!(mode & 0o777, 0, "chmod went through");
    assert!(!Path::new("/dev/shm/nu-agent-pv-test").exists(), "{stderr}");
    assert!(
        victim.try_wait().unwrap().is_none(),
        "a process-view read killed another process"
    );
    assert_eq!(mtu(), mtu_before, "a netlink write reconfigured lo");
    assert!(tcp.accept().is_err(), "the TCP listener got a connection");
    assert!(unix.accept().is_err(), "the unix socket got a connection");
    // /dev/null still works (lsof needs it): the script got to its end.
    assert!(text(&out.stdout).contains("devnull-ok"), "{stderr}");
    let _ = victim.kill();
    let _ = victim.wait();
}

#[test]
fn a_socket_of_a_process_out_of_sight_is_said_to_be() {
    // Root runs the listener; another user asks. Needs root to become
    // that user, as CI runs.
    // SAFETY: geteuid has no preconditions.
    assert_eq!(
        unsafe { libc::geteuid() },
        0,
        "this test starts a second user and needs root (as CI runs)"
    );
    let (_listener, port) = listener();
    // The other user must be able to run the launcher: a copy outside
    // root's home.
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let launcher = dir.path().join("nu-agent");
    std::fs::copy(workspace_binary("nu-agent"), &launcher).unwrap();
    let mut child = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(&launcher)
        .arg(EXEC_ARG)
        .arg(process_view_spec())
        .args(["--", &system_ss(), "-tlnp", &format!("sport = :{port}")])
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("setpriv");
    let mut stdout = String::new();
    let mut stderr = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(child.wait().unwrap().success(), "{stdout}\n{stderr}");
    assert!(stdout.contains(&format!(":{port}")), "{stdout}");
    assert!(!stdout.contains("pid="), "{stdout}");
    assert!(
        stderr.contains("no process: held by") && stderr.contains("cannot read"),
        "the hidden process is not mentioned:\n{stderr}"
    );
}

/// A program that finds the worker's broker socket among its inherited
/// descriptors and asks it to run `program args...`; prints the reply,
/// or `no broker`.
const BROKER_PROBE: &str = r#"
import json, socket, sys
program, args = sys.argv[1], sys.argv[2:]
broker = None
for fd in range(3, 256):
    try:
        s = socket.socket(fileno=fd)
    except OSError:
        continue
    if s.family == socket.AF_UNIX and s.type == socket.SOCK_SEQPACKET:
        broker = s
        break
    s.detach()
if broker is None:
    print("no broker")
    sys.exit(0)
mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
request = json.dumps({"program": program, "args": args}).encode()
socket.send_fds(broker, [request], [1, 2, theirs.fileno()])
theirs.close()
print("reply:", mine.recv(65536).decode())
"#;

#[test]
fn the_broker_runs_nothing_but_the_exact_forms() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path();
    std::fs::write(ws.join("probe.py"), BROKER_PROBE).unwrap();
    let mark = ws.join("MARK");
    // With the policy's layers off, nu starts the program straight from
    // the worker: it holds the broker socket, and asks it to run a shell.
    let bare = [
        "--yes",
        "--disable-layer",
        "static",
        "--disable-layer",
        "guards",
    ];
    let touch = format!("^python3 probe.py /bin/sh -c 'touch {}'", mark.display());
    let out = run(ws, &bare, &touch);
    let stdout = text(&out.stdout);
    assert!(stdout.contains("reply:"), "{stdout}\n{}", text(&out.stderr));
    assert!(stdout.contains("refused"), "{stdout}");
    assert!(!mark.exists(), "the broker ran a shell");
    // The system's ss in its listing form: run (the probe can fail), and
    // it names this test's own listener.
    let (_listening, port) = listener();
    let ss = system_ss();
    let out = run(ws, &bare, &format!("^python3 probe.py {ss} -tlnp"));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("\"exited\""),
        "{stdout}\n{}",
        text(&out.stderr)
    );
    assert!(
        stdout.contains(&format!(":{port} ")) && stdout.contains("users:(("),
        "{stdout}"
    );
    // The same form with a kill option, or a lookalike program: refused.
    for (program, args) in [
        (ss.as_str(), "-tlnp -K"),
        ("/usr/bin/lsof", "-i :22 +D /"),
        ("/tmp/ss", "-tlnp"),
    ] {
        let out = run(ws, &bare, &format!("^python3 probe.py {program} {args}"));
        assert!(
            text(&out.stdout).contains("refused"),
            "{program} {args}: {}",
            text(&out.stdout)
        );
    }
    // Started through the launcher (the default), no program inherits it.
    let out = run(ws, &["--yes"], &format!("^python3 probe.py {ss} -tlnp"));
    assert!(
        text(&out.stdout).contains("no broker"),
        "{}\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
}

#[test]
fn a_background_job_names_the_listening_process_too() {
    let dir = tempfile::tempdir().unwrap();
    let (_listener, port) = listener();
    let pid = std::process::id();
    let registry = agent_e2e::register_plugin(dir.path());
    let out = agent_e2e::nu_with_agent_env(
        &registry,
        dir.path(),
        &format!(
            "let id = (agent job run \"^ss -tlnp 'sport = :{port}'\"); agent job wait $id; agent job result $id"
        ),
        &[(
            "NU_AGENT_STATE_DIR",
            &dir.path().join("state").display().to_string(),
        )],
    );
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains(&format!("pid={pid},")),
        "{stdout}\n{}",
        text(&out.stderr)
    );
}
