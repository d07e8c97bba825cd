//! Sandboxed sessions that live as long as the conversation: one worker
//! (the real `nu-agent` binary re-executed under Landlock and seccomp)
//! serves every step of a `PolicyShell`, so variables, definitions,
//! aliases, `$env`, the directory and `$out` carry over; Ctrl+C stops a
//! step and not the session; a worker that dies is replaced with a notice;
//! the sandbox holds on the tenth run as on the first; no orphans.

use std::{
    path::Path,
    process::{Command, Stdio},
    sync::Arc,
    time::{Duration, Instant},
};

use agent_core::{
    policy::{
        Approval, ApprovalRequest, Approver, Layers, Policy, PolicyShell, Ran, ShellOptions,
        sandbox::SandboxMode,
    },
    shell::{CancelToken, Limits, SessionSeed},
};
use agent_e2e::{
    replay::{ReplayServer, Turn},
    workspace_binary,
};

/// Says yes to everything (the steps here write only inside the roots).
struct Yes;

impl Approver for Yes {
    fn approve(&self, _: &ApprovalRequest) -> Approval {
        Approval::Yes
    }
}

/// A workspace (the cwd) and a directory outside every writable root
/// (not under the temp dir, which is one).
struct Dirs {
    workspace: tempfile::TempDir,
    outside: tempfile::TempDir,
}

impl Dirs {
    fn new() -> Dirs {
        let base = env!("CARGO_TARGET_TMPDIR");
        Dirs {
            workspace: tempfile::tempdir_in(base).unwrap(),
            outside: tempfile::tempdir_in(base).unwrap(),
        }
    }

    fn ws(&self) -> &Path {
        self.workspace.path()
    }

    fn out(&self, name: &str) -> String {
        self.outside.path().join(name).display().to_string()
    }

    fn outside_is_empty(&self) -> bool {
        std::fs::read_dir(self.outside.path()).unwrap().count() == 0
    }
}

/// Says no to everything, and keeps each reason it was asked for.
#[derive(Default)]
struct No(std::sync::Mutex<Vec<String>>);

impl Approver for No {
    fn approve(&self, request: &ApprovalRequest) -> Approval {
        if let Ok(mut asked) = self.0.lock() {
            asked.push(request.reason.clone());
        }
        Approval::No
    }
}

/// A policy shell in `dir` whose steps run in the sandbox worker;
/// `layers` picks the policy layers on top of the OS sandbox.
fn shell(dir: &Path, layers: Layers, worker_per_step: bool) -> PolicyShell {
    shell_asking(dir, layers, worker_per_step, Arc::new(Yes))
}

fn shell_asking(
    dir: &Path,
    layers: Layers,
    worker_per_step: bool,
    approver: Arc<dyn Approver>,
) -> PolicyShell {
    let mut seed = SessionSeed::from_process().expect("seed");
    seed.cwd = dir.to_path_buf();
    let policy = Policy {
        sandbox: SandboxMode::WorkspaceWrite,
        network: false,
        ..Policy::default()
    };
    let options = ShellOptions {
        layers,
        worker_exe: Some(workspace_binary("nu-agent")),
        worker_per_step,
        ..ShellOptions::default()
    };
    let shell = PolicyShell::new(policy, seed, approver, options).expect("shell");
    assert!(shell.sandboxed(), "the tests need Landlock and seccomp");
    shell
}

fn run(shell: &mut PolicyShell, pipeline: &str) -> Ran {
    shell.run(pipeline, &Limits::default(), &CancelToken::new())
}

/// Run and return the value rendered as nuon-ish text; panics on an error.
fn value(shell: &mut PolicyShell, pipeline: &str) -> String {
    let ran = run(shell, pipeline);
    assert!(
        ran.outcome.error.is_none(),
        "{pipeline}: {:?}",
        ran.outcome.error
    );
    if ran.outcome.value.is_nothing() {
        return String::new();
    }
    match ran.outcome.value.coerce_string() {
        Ok(text) => text,
        Err(_) => format!("{:?}", ran.outcome.value),
    }
}

fn error_text(ran: &Ran) -> String {
    ran.outcome
        .error
        .as_ref()
        .map(|e| format!("{} {}", e.message, e.rendered))
        .unwrap_or_default()
}

#[test]
fn variables_definitions_env_and_cwd_carry_over_in_one_worker() {
    let dirs = Dirs::new();
    std::fs::create_dir(dirs.ws().join("sub")).unwrap();
    std::fs::write(dirs.ws().join("sub/marker.txt"), "m").unwrap();
    let mut shell = shell(dirs.ws(), Layers::default(), false);
    assert_eq!(value(&mut shell, "let x = 5"), "");
    let pid = shell.worker_info().expect("a worker").pid;
    assert_eq!(value(&mut shell, "$x + 1"), "6");
    value(&mut shell, "def double [n: int] { $n * 2 }");
    assert_eq!(value(&mut shell, "double 21"), "42");
    value(&mut shell, "alias twice = double");
    assert_eq!(value(&mut shell, "twice 4"), "8");
    value(&mut shell, "$env.FOO = 1");
    assert_eq!(value(&mut shell, "$env.FOO"), "1");
    value(&mut shell, "cd sub");
    assert_eq!(value(&mut shell, "ls | get name | first"), "marker.txt");
    assert_eq!(shell.cwd(), dirs.ws().join("sub"));
    let info = shell.worker_info().unwrap();
    assert_eq!(info.pid, pid, "every step ran in the same worker");
    assert_eq!(info.runs, 10);
}

#[test]
fn a_variable_set_in_one_step_makes_the_externals_of_later_steps_ask() {
    // Nobody listed MANROFFOPT (man passes it to groff: `-U` unsafe mode):
    // any variable off the harmless list counts.
    let dirs = Dirs::new();
    let no = Arc::new(No::default());
    let mut shell = shell_asking(dirs.ws(), Layers::default(), false, no.clone());
    assert_eq!(value(&mut shell, "$env.MANROFFOPT = '-U'; 'set'"), "set");
    let ran = run(&mut shell, "^ls");
    assert!(ran.outcome.error.is_some(), "ran unasked");
    let asked = no.0.lock().unwrap().join("\n");
    assert!(asked.contains("MANROFFOPT"), "{asked}");
    // Once it is gone, the same read runs unasked.
    value(&mut shell, "hide-env MANROFFOPT");
    let ran = run(&mut shell, "^ls");
    assert!(ran.outcome.error.is_none(), "{}", error_text(&ran));

    // A harmless variable (the locale) asks nothing.
    let no = Arc::new(No::default());
    let mut shell = shell_asking(dirs.ws(), Layers::default(), false, no.clone());
    value(&mut shell, "$env.LC_ALL = 'C'");
    let ran = run(&mut shell, "^ls");
    assert!(ran.outcome.error.is_none(), "{}", error_text(&ran));
    assert!(no.0.lock().unwrap().is_empty());
}

/// Approves the reads of a sensitive file, refuses the rest; keeps every
/// reason it was asked for.
#[derive(Default)]
struct ReadsOnly(std::sync::Mutex<Vec<String>>);

impl Approver for ReadsOnly {
    fn approve(&self, request: &ApprovalRequest) -> Approval {
        if let Ok(mut asked) = self.0.lock() {
            asked.push(request.reason.clone());
        }
        if request.reason.contains("sensitive file") {
            Approval::Yes
        } else {
            Approval::No
        }
    }
}

#[test]
fn after_a_secret_is_read_every_network_step_asks_naming_it() {
    let dirs = Dirs::new();
    std::fs::write(dirs.ws().join(".env"), "TOKEN=CANARY-TAINT-41d0\n").unwrap();
    let asked = Arc::new(ReadsOnly::default());
    let mut shell = shell_asking(dirs.ws(), Layers::default(), false, asked.clone());
    // Before any secret: a DNS look-up asks as a network step.
    let ran = run(&mut shell, "^getent hosts x.example");
    assert!(ran.outcome.error.is_some());
    let before = asked.0.lock().unwrap().join("\n");
    assert!(!before.contains("read"), "{before}");
    // The read is approved and runs.
    let ran = run(&mut shell, "open --raw .env");
    assert!(ran.outcome.error.is_none(), "{}", error_text(&ran));
    // Every later network step (and DNS look-up) names it.
    for pipeline in [
        "^getent hosts x.example",
        "^curl -s x.example",
        "http get x.example",
    ] {
        asked.0.lock().unwrap().clear();
        let ran = run(&mut shell, pipeline);
        assert!(ran.outcome.error.is_some(), "{pipeline} ran");
        let reasons = asked.0.lock().unwrap().join("\n");
        assert!(
            reasons.contains("read .env") || reasons.contains(".env, which could send it"),
            "{pipeline}: {reasons}"
        );
    }
}

#[test]
fn a_definition_whose_body_writes_is_judged_as_a_write() {
    let dirs = Dirs::new();
    let mut shell = shell(dirs.ws(), Layers::default(), false);
    value(&mut shell, "def wipe [] { rm -rf notes }");
    let (_, decision) = shell.check("wipe");
    assert!(
        decision.rows.iter().any(|r| r.command.contains("rm")),
        "{:?}",
        decision.rows
    );
    assert_ne!(decision.verdict, agent_core::policy::Verdict::Allow);
}

#[test]
fn earlier_results_are_not_sent_again() {
    let dirs = Dirs::new();
    let mut shell = shell(dirs.ws(), Layers::default(), false);
    value(
        &mut shell,
        "1..200000 | each {|i| {n: $i, name: $'file-($i).txt'} }",
    );
    let before = shell.worker_info().unwrap().bytes_sent;
    assert_eq!(value(&mut shell, "$out.0 | length"), "200000");
    let step = shell.worker_info().unwrap().bytes_sent - before;
    // The run line: the pipeline, the cwd, the limits; not the 200,000 rows.
    assert!(step < 1024, "{step} bytes sent for one short step");
    // The parent still has the full value for `answer out:` and history.
    assert!(shell.out(0).is_some());
}

#[test]
fn ctrl_c_stops_the_step_and_the_session_goes_on() {
    let dirs = Dirs::new();
    let mut shell = shell(dirs.ws(), Layers::default(), false);
    value(&mut shell, "let kept = 7");
    let pid = shell.worker_info().unwrap().pid;
    let cancel = CancelToken::new();
    let trigger = cancel.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(500));
        trigger.cancel();
    });
    let started = Instant::now();
    let ran = shell.run("sleep 30sec; 'late'", &Limits::default(), &cancel);
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(
        ran.outcome.stopped,
        Some(agent_core::shell::StopReason::Cancelled)
    );
    assert_eq!(value(&mut shell, "$kept"), "7");
    assert_eq!(shell.worker_info().unwrap().pid, pid);
}

#[test]
fn a_worker_killed_between_steps_is_replaced_with_a_notice() {
    let dirs = Dirs::new();
    let mut shell = shell(dirs.ws(), Layers::default(), false);
    value(&mut shell, "let x = 1");
    value(&mut shell, "[a b c]");
    let pid = shell.worker_info().unwrap().pid;
    // SAFETY: kill(2) on the worker this test started.
    unsafe {
        libc::kill(pid as i32, libc::SIGKILL);
    }
    std::thread::sleep(Duration::from_millis(200));
    let ran = run(&mut shell, "$out.1 | length");
    assert!(ran.outcome.error.is_none(), "{:?}", ran.outcome.error);
    assert_eq!(ran.outcome.value.as_int().ok(), Some(3));
    let notice = ran.notice.expect("a notice");
    assert!(notice.contains("restarted"), "{notice}");
    assert!(notice.contains("`$out.0`..`$out.1` were kept"), "{notice}");
    assert_ne!(shell.worker_info().unwrap().pid, pid);
    // The planner forgot `x` with the worker that held it.
    let ran = run(&mut shell, "$x");
    assert!(
        error_text(&ran).contains("variable_not_found") || error_text(&ran).contains("not found"),
        "{}",
        error_text(&ran)
    );
    assert!(ran.notice.is_none());
}

#[test]
fn a_step_approved_for_more_runs_alone_and_the_session_keeps_its_numbering() {
    let dirs = Dirs::new();
    let other = dirs.outside.path().join("target.txt");
    let mut shell = shell(dirs.ws(), Layers::default(), false);
    value(&mut shell, "let x = 2");
    let pid = shell.worker_info().unwrap().pid;
    // A write outside the roots, approved: a wider worker of its own.
    let ran = run(&mut shell, &format!("'w' | save '{}'", other.display()));
    assert!(ran.outcome.error.is_none(), "{:?}", ran.outcome.error);
    assert_eq!(std::fs::read_to_string(&other).unwrap(), "w");
    let info = shell.worker_info().unwrap();
    assert_eq!(info.pid, pid);
    assert_eq!(
        info.runs, 1,
        "the approved write did not run in the session's worker"
    );
    // `$out` stays numbered across both workers, and `x` is still there.
    assert_eq!(value(&mut shell, "$out | length"), "2");
    assert_eq!(value(&mut shell, "$x"), "2");
}

/// The OS sandbox of the 1st and of the 10th run of the same worker.
#[test]
fn the_sandbox_holds_on_the_tenth_run_as_on_the_first() {
    let dirs = Dirs::new();
    let os_only = Layers {
        static_check: false,
        guards: false,
        sandbox: true,
    };
    let mut shell = shell(dirs.ws(), os_only, false);
    let denied = |ran: &Ran| {
        let stderr = ran
            .outcome
            .stderr
            .as_ref()
            .and_then(|s| s.coerce_string().ok())
            .unwrap_or_default();
        let text = format!("{} {stderr}", error_text(ran)).to_lowercase();
        text.contains("permission denied") || text.contains("operation not permitted")
    };
    let mut pid = None;
    for round in 1..=10 {
        let attempts = [
            format!("'x' | save '{}'", dirs.out("builtin")),
            format!(
                "[1 2 3] | par-each {{|i| 'x' | save $'{}($i)' }}",
                dirs.out("par")
            ),
            format!("^sh -c 'echo x > {}'", dirs.out("external")),
        ];
        if round == 1 || round == 10 {
            for attempt in &attempts {
                let ran = run(&mut shell, attempt);
                assert!(denied(&ran), "run {round}: {attempt}: {}", error_text(&ran));
            }
            assert!(dirs.outside_is_empty(), "run {round}");
            let ran = run(&mut shell, "http get http://127.0.0.1:9/");
            assert!(
                ran.outcome.error.is_some(),
                "run {round}: the network is off"
            );
            value(&mut shell, &format!("'in' | save -f inside{round}.txt"));
            assert!(dirs.ws().join(format!("inside{round}.txt")).exists());
        } else {
            value(&mut shell, "1 + 1");
        }
        let now = shell.worker_info().unwrap().pid;
        assert_eq!(*pid.get_or_insert(now), now, "one worker throughout");
    }
}

fn alive(pid: u32) -> bool {
    // A zombie is gone for our purposes: read its state.
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|stat| !stat.contains(") Z "))
        .unwrap_or(false)
}

/// Children of `pid` (from /proc).
fn children(pid: u32) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(child) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // Fields after the command's closing parenthesis: state, ppid, ...
        let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
        if rest.split_whitespace().nth(1) == Some(&pid.to_string()) {
            found.push(child);
        }
    }
    found
}

fn worker_of(pid: u32) -> Option<u32> {
    children(pid).into_iter().find(|child| {
        std::fs::read(format!("/proc/{child}/cmdline"))
            .is_ok_and(|cmd| String::from_utf8_lossy(&cmd).contains("--sandbox-worker"))
    })
}

/// `nu-agent ask` against a scripted model: step 1 declares a variable,
/// step 2 uses it (the planner must know it), then the model waits.
fn ask(dirs: &Dirs, server: &ReplayServer) -> std::process::Child {
    let state = dirs.outside.path().join("state");
    Command::new(workspace_binary("nu-agent"))
        .args(["ask", "what is x plus one?"])
        .current_dir(dirs.ws())
        .env("NU_AGENT_BACKEND_URL", server.url())
        .env("NU_AGENT_STATE_DIR", &state)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start nu-agent ask")
}

#[test]
fn ask_keeps_a_variable_from_one_step_to_the_next() {
    let dirs = Dirs::new();
    let server = ReplayServer::start(vec![
        Turn::nu("let x = 5"),
        Turn::nu("$x + 1"),
        Turn::answer("x plus one is 6"),
    ]);
    let out = ask(&dirs, &server).wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    // The model saw 6 as the result of step 2.
    let shown = server.shown(2);
    assert!(shown.contains('6'), "{shown}");
    assert!(!shown.contains("variable_not_found"), "{shown}");
}

#[test]
fn killing_the_parent_leaves_no_worker() {
    let dirs = Dirs::new();
    let server = ReplayServer::start(vec![
        Turn::nu("let x = 5"),
        Turn::answer("never sent").after(Duration::from_secs(30)),
    ]);
    let mut child = ask(&dirs, &server);
    let parent = child.id();
    // Wait until step 1 ran and the model is asked again.
    let started = Instant::now();
    let worker = loop {
        if server.requests().len() >= 2
            && let Some(worker) = worker_of(parent)
        {
            break worker;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no worker seen"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    child.kill().unwrap();
    let _ = child.wait();
    let killed = Instant::now();
    while alive(worker) && killed.elapsed() < Duration::from_secs(2) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!alive(worker), "the worker outlived its parent by 2 s");
}

#[test]
fn a_worker_that_dies_is_replaced_and_the_model_and_user_are_told() {
    let dirs = Dirs::new();
    let server = ReplayServer::start(vec![
        Turn::nu("let x = 1"),
        // The step kills its own worker.
        Turn::nu("kill --force $nu.pid"),
        Turn::nu("1 + 1"),
        Turn::answer("done"),
    ]);
    let state = dirs.outside.path().join("state");
    let out = Command::new(workspace_binary("nu-agent"))
        .args(["ask", "--yes", "try"])
        .current_dir(dirs.ws())
        .env("NU_AGENT_BACKEND_URL", server.url())
        .env("NU_AGENT_STATE_DIR", &state)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let died = server.shown(2);
    assert!(died.contains("sandbox worker died"), "{died}");
    let next = server.shown(3);
    assert!(next.contains("the session was restarted"), "{next}");
    assert!(stderr.contains("the session was restarted"), "{stderr}");
}
