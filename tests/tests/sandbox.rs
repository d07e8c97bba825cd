//! The OS sandbox on the real kernel: `nu-agent run --sandbox ...` runs the
//! pipeline in a Landlock + seccomp worker process. Writes outside the
//! writable roots fail from builtins, from `par-each` threads and from
//! externals; the network is closed unless `--network`; Ctrl+C stops the
//! worker.

use std::{
    io::{Read, Write},
    net::TcpListener,
    path::Path,
    process::{Command, Output, Stdio},
    sync::{
        Arc,
        atomic::{AtomicBool, AtomicUsize, Ordering},
    },
    thread::JoinHandle,
    time::{Duration, Instant},
};

use agent_e2e::{stdout_of, workspace_binary};

/// Fail loudly (never pass vacuously) on a kernel without Landlock.
fn require_landlock() {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
    // SAFETY: with the VERSION flag the kernel reads no memory; it returns
    // the ABI version or an error.
    let abi = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    assert!(
        abi >= 1,
        "this kernel does not offer Landlock ({}); the sandbox tests need Linux 5.13+ with Landlock enabled",
        std::io::Error::last_os_error()
    );
}

/// `nu-agent <args>` in `cwd`, with no proxy variables (the network tests
/// talk to 127.0.0.1 directly).
fn nu_agent(cwd: &Path, args: &[&str]) -> Output {
    command(cwd, args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .expect("run nu-agent")
}

/// `nu-agent run` with the policy's other layers off: these tests are
/// about what the kernel enforces on its own (`--yes` so that nothing is
/// stopped by a question, no static check and no guards).
fn command(cwd: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(workspace_binary("nu-agent"));
    let mut args: Vec<&str> = args.to_vec();
    if args.first() == Some(&"run") {
        args.splice(
            1..1,
            [
                "--yes",
                "--disable-layer",
                "static",
                "--disable-layer",
                "guards",
            ],
        );
    }
    // The temp dir is a writable root; point it into the workspace so that
    // "outside" (another temp dir) really is outside.
    command
        .args(&args)
        .current_dir(cwd)
        .env("TMPDIR", cwd)
        .stdin(Stdio::null());
    for proxy in [
        "http_proxy",
        "https_proxy",
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "all_proxy",
    ] {
        command.env_remove(proxy);
    }
    command
}

/// A workspace (the cwd, the only writable root) and a directory outside
/// it. Both live in the temp dir, so `--writable <workspace>` is passed
/// explicitly: the default roots include the temp dir.
struct Dirs {
    workspace: tempfile::TempDir,
    outside: tempfile::TempDir,
}

impl Dirs {
    fn new() -> Dirs {
        require_landlock();
        Dirs {
            workspace: tempfile::tempdir().unwrap(),
            outside: tempfile::tempdir().unwrap(),
        }
    }

    fn ws(&self) -> &Path {
        self.workspace.path()
    }

    fn out(&self, name: &str) -> String {
        self.outside.path().join(name).display().to_string()
    }

    /// `nu-agent run --sandbox workspace-write --writable <workspace> ...`
    fn run(&self, extra: &[&str], pipeline: &str) -> Output {
        let ws = self.ws().display().to_string();
        let mut args = vec![
            "run",
            "--sandbox",
            "workspace-write",
            "--writable",
            ws.as_str(),
        ];
        args.extend_from_slice(extra);
        args.push(pipeline);
        nu_agent(self.ws(), &args)
    }

    fn outside_is_empty(&self) -> bool {
        std::fs::read_dir(self.outside.path()).unwrap().count() == 0
    }
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn denied(text: &str) -> bool {
    let text = text.to_lowercase();
    text.contains("permission denied") || text.contains("operation not permitted")
}

#[test]
fn a_builtin_cannot_write_outside_the_writable_roots() {
    let dirs = Dirs::new();
    let out = dirs.run(
        &[],
        &format!("'ok' | save inside.txt; 'x' | save '{}'", dirs.out("f")),
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    // The run happened: the write inside the workspace went through.
    assert_eq!(
        std::fs::read_to_string(dirs.ws().join("inside.txt")).unwrap(),
        "ok"
    );
    assert!(denied(&stderr(&out)), "{}", stderr(&out));
    assert!(dirs.outside_is_empty());
}

#[test]
fn par_each_threads_cannot_write_outside() {
    let dirs = Dirs::new();
    let target = dirs.out("p");
    let out = dirs.run(
        &[],
        &format!("[1 2 3] | par-each {{|i| 'x' | save $'{target}($i)' }}"),
    );
    assert_ne!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(denied(&stderr(&out)), "{}", stderr(&out));
    assert!(dirs.outside_is_empty());
}

#[test]
fn an_external_cannot_write_outside() {
    let dirs = Dirs::new();
    let out = dirs.run(&[], &format!("^sh -c 'echo x > {}'", dirs.out("c")));
    assert_ne!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(denied(&stderr(&out)), "{}", stderr(&out));
    assert!(dirs.outside_is_empty());
}

#[test]
fn writes_inside_the_workspace_succeed_from_builtins_threads_and_externals() {
    let dirs = Dirs::new();
    // Default writable roots: the cwd and the temp dir.
    let out = nu_agent(
        dirs.ws(),
        &[
            "run",
            "--sandbox",
            "workspace-write",
            "'a' | save a.txt; [1 2 3] | par-each {|i| 'p' | save $'p($i).txt' }; ^sh -c 'echo e > e.txt'; mkdir sub; 'b' | save sub/b.txt; open a.txt",
        ],
    );
    assert_eq!(stdout_of(&out), "a\n");
    for (name, content) in [
        ("a.txt", "a"),
        ("p1.txt", "p"),
        ("p2.txt", "p"),
        ("p3.txt", "p"),
        ("e.txt", "e\n"),
        ("sub/b.txt", "b"),
    ] {
        assert_eq!(
            std::fs::read_to_string(dirs.ws().join(name)).unwrap(),
            content,
            "{name}"
        );
    }
}

#[test]
fn the_worker_runs_under_no_new_privs_and_seccomp() {
    let dirs = Dirs::new();
    let out = dirs.run(
        &[],
        "open /proc/self/status | lines | where $it =~ '^(NoNewPrivs|Seccomp):' | str join ','",
    );
    let text = stdout_of(&out);
    assert!(text.contains("NoNewPrivs:\t1"), "{text}");
    assert!(text.contains("Seccomp:\t2"), "{text}");
}

#[test]
fn a_sandboxed_run_keeps_its_time_limit() {
    let dirs = Dirs::new();
    let started = Instant::now();
    let out = dirs.run(&["--timeout", "500ms"], "sleep 20sec");
    assert_eq!(out.status.code(), Some(124), "{}", stderr(&out));
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(stderr(&out).contains("time limit"), "{}", stderr(&out));
}

#[test]
fn the_workers_own_environment_holds_no_secrets() {
    let dirs = Dirs::new();
    let ws = dirs.ws().display().to_string();
    let out = command(
        dirs.ws(),
        &[
            "run",
            "--sandbox",
            "workspace-write",
            "--writable",
            &ws,
            "open --raw /proc/self/environ | decode utf-8 | split row (char -u '0') | where ($it starts-with 'MY_') or ($it starts-with 'PATH=') | str join ','",
        ],
    )
    .env("MY_API_KEY", "hunter2")
    .env("MY_PLAIN", "visible")
    .output()
    .unwrap();
    let text = stdout_of(&out);
    assert!(text.contains("PATH="), "the environment was read: {text}");
    assert!(!text.contains("hunter2"), "{text}");
    assert!(!text.contains("MY_PLAIN"), "not on the allow-list: {text}");
}

/// A listener on 127.0.0.1 that counts connections and answers HTTP.
struct Listener {
    port: u16,
    connections: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Listener {
    fn start() -> Listener {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let connections = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let (count, stopping) = (connections.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            let deadline = Instant::now() + Duration::from_secs(60);
            while !stopping.load(Ordering::SeqCst) && Instant::now() < deadline {
                match listener.accept() {
                    Ok((mut stream, _)) => {
                        count.fetch_add(1, Ordering::SeqCst);
                        let _ = stream.set_nonblocking(false);
                        let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
                        let mut request = [0u8; 4096];
                        let _ = stream.read(&mut request);
                        let _ = stream.write_all(
                            b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok",
                        );
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(10)),
                }
            }
        });
        Listener {
            port,
            connections,
            stop,
            thread: Some(thread),
        }
    }

    fn count(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[test]
fn with_the_network_off_nothing_connects() {
    let dirs = Dirs::new();
    let listener = Listener::start();
    let port = listener.port;

    // A builtin that opens a TCP socket in the worker itself.
    let builtin = dirs.run(&[], "port");
    assert_eq!(builtin.status.code(), Some(1), "{}", stderr(&builtin));
    assert!(denied(&stderr(&builtin)), "{}", stderr(&builtin));

    let http = dirs.run(&[], &format!("http get http://127.0.0.1:{port}/"));
    assert_ne!(http.status.code(), Some(0), "{}", stderr(&http));

    let bash = dirs.run(
        &[],
        &format!("^bash -c 'echo hi > /dev/tcp/127.0.0.1/{port}'"),
    );
    assert_ne!(bash.status.code(), Some(0), "{}", stderr(&bash));
    assert!(denied(&stderr(&bash)), "{}", stderr(&bash));

    // Give a connection that slipped through time to be accepted.
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(listener.count(), 0);
}

#[test]
fn with_network_the_sandbox_connects() {
    let dirs = Dirs::new();
    let listener = Listener::start();
    let port = listener.port;

    let builtin = stdout_of(&dirs.run(&["--network"], "port"));
    assert!(builtin.trim().parse::<u16>().is_ok(), "{builtin}");

    let bash = dirs.run(
        &["--network"],
        &format!("^bash -c 'echo hi > /dev/tcp/127.0.0.1/{port}'"),
    );
    stdout_of(&bash);

    let deadline = Instant::now() + Duration::from_secs(5);
    while listener.count() < 1 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(listener.count(), 1);
}

#[test]
fn with_network_http_get_reaches_the_listener() {
    let dirs = Dirs::new();
    let listener = Listener::start();
    let http = dirs.run(
        &["--network"],
        &format!("http get http://127.0.0.1:{}/", listener.port),
    );
    assert_eq!(stdout_of(&http), "ok\n");
    assert_eq!(listener.count(), 1);
}

#[test]
fn read_only_mode_writes_nothing_even_in_the_cwd() {
    require_landlock();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("existing.txt"), "kept").unwrap();
    let out = nu_agent(
        dir.path(),
        &["run", "--sandbox", "read-only", "'x' | save f.txt"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(denied(&stderr(&out)), "{}", stderr(&out));

    let out = nu_agent(
        dir.path(),
        &[
            "run",
            "--sandbox",
            "read-only",
            "^sh -c 'echo x > g.txt; echo y >> existing.txt'",
        ],
    );
    assert_ne!(out.status.code(), Some(0), "{}", stderr(&out));

    // Reading still works.
    let out = nu_agent(
        dir.path(),
        &["run", "--sandbox", "read-only", "open existing.txt"],
    );
    assert_eq!(stdout_of(&out), "kept\n");

    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["existing.txt"]);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("existing.txt")).unwrap(),
        "kept"
    );
}

#[test]
fn writable_needs_workspace_write() {
    let dir = tempfile::tempdir().unwrap();
    let out = nu_agent(
        dir.path(),
        &["run", "--sandbox", "read-only", "--writable", ".", "ls"],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("--writable needs --sandbox workspace-write"));
}

/// The pid of `parent`'s child whose first argument is the worker flag.
fn worker_of(parent: u32) -> Option<u32> {
    std::fs::read_dir("/proc").ok()?.find_map(|entry| {
        let pid: u32 = entry.ok()?.file_name().to_str()?.parse().ok()?;
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // pid (comm) state ppid ...: comm may hold spaces, split after ')'.
        let ppid: u32 = stat
            .rsplit(')')
            .next()?
            .split_whitespace()
            .nth(1)?
            .parse()
            .ok()?;
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
        let is_worker = cmdline
            .split(|b| *b == 0)
            .nth(1)
            .is_some_and(|arg| arg == b"--sandbox-worker");
        (ppid == parent && is_worker).then_some(pid)
    })
}

fn is_running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|stat| {
            stat.rsplit(')')
                .next()
                .and_then(|rest| rest.split_whitespace().next())
                != Some("Z")
        })
        .unwrap_or(false)
}

/// SIGINT to `nu-agent run --sandbox workspace-write <pipeline>` once its
/// worker runs: exit 130 within a few seconds, and the worker is gone.
fn interrupt_sandboxed_run(pipeline: &str) -> u32 {
    let dirs = Dirs::new();
    let ws = dirs.ws().display().to_string();
    let mut child = command(
        dirs.ws(),
        &[
            "run",
            "--sandbox",
            "workspace-write",
            "--writable",
            &ws,
            pipeline,
        ],
    )
    .stdout(Stdio::null())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    let worker = loop {
        if let Some(pid) = worker_of(child.id()) {
            break pid;
        }
        assert!(Instant::now() < deadline, "no sandbox worker appeared");
        std::thread::sleep(Duration::from_millis(20));
    };
    // Let the worker get into the pipeline.
    std::thread::sleep(Duration::from_millis(700));
    let interrupted = Instant::now();
    // SAFETY: kill(2) on our own child process.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if interrupted.elapsed() > Duration::from_secs(15) {
            let _ = child.kill();
            panic!("nu-agent did not stop after SIGINT");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut err = String::new();
    let _ = child.stderr.take().unwrap().read_to_string(&mut err);
    assert!(
        interrupted.elapsed() < Duration::from_secs(6),
        "took {:?}",
        interrupted.elapsed()
    );
    assert_eq!(status.code(), Some(130), "{err}");
    assert!(!is_running(worker), "the worker {worker} is still running");
    worker
}

#[test]
fn ctrl_c_stops_a_sandboxed_builtin_and_its_worker() {
    interrupt_sandboxed_run("sleep 30sec");
}

#[test]
fn ctrl_c_stops_a_sandboxed_external_and_its_worker() {
    interrupt_sandboxed_run("^sh -c 'sleep 32.7182; echo never'");
    std::thread::sleep(Duration::from_millis(100));
    let leftover = Command::new("pgrep")
        .args(["-f", "sleep 32.7182"])
        .output()
        .unwrap();
    assert!(
        leftover.stdout.is_empty(),
        "left running: {}",
        String::from_utf8_lossy(&leftover.stdout)
    );
}
