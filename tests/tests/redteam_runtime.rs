//! The red-team corpus at run time, through the built `nu-agent`: each
//! enforcement layer switched off in turn still leaves every `block` case
//! blocked (and the fixture untouched), `confirm` cases are denied when
//! nobody can be asked, `allow` and routine work run, the CLI fails closed
//! (unknown programs, parse errors, invalid policies), and secret values
//! never reach the output or the audit log.
//!
//! Every run gets a fresh [`fixture`]: `HOME` is the fixture home, the
//! working directory its workspace, `TMPDIR` the fixture's `tmp/`, so the
//! sandbox's writable roots (the workspace and the temp dir) both lie
//! inside the fixture while the rest of the home, as on a real machine, is
//! not writable. A block case never runs with both the guards and the
//! sandbox off.
//!
//! `REDTEAM_CASES=rt-16,rt-98` limits the layer passes to a few cases.

use std::{
    collections::BTreeSet,
    fmt,
    io::Read,
    os::unix::process::CommandExt,
    path::{Path, PathBuf},
    process::{Command, Stdio},
    sync::{
        Mutex,
        atomic::{AtomicUsize, Ordering},
    },
    thread,
    time::{Duration, Instant, SystemTime, UNIX_EPOCH},
};

use agent_core::policy::{BLOCKED_CODE, DENIED_CODE, Verdict};
use agent_e2e::{
    redteam::{BLOCKED_AT_RUN_TIME, CASES, Case, Fixture, ROUTINE, canaries, fixture},
    redteam_forms, workspace_binary,
};

/// The pipeline's own time limit, passed as `--timeout`.
const RUN_TIMEOUT: &str = "20s";
/// The harness kills a run (and its worker) that outlives this.
const HARD_DEADLINE: Duration = Duration::from_secs(60);
/// Runs in flight at once (the machine has two cores).
const THREADS: usize = 2;
/// The prefix every policy error code shares.
const POLICY_CODE_PREFIX: &str = "nu_agent::policy::";
/// The help line of a block by the static layer (a guard's block says
/// "this does not run whatever is approved").
const STATIC_BLOCK_HELP: &str = "blocks this pipeline before it runs";

/// What the kernel says when the sandbox stops a write, a privilege change
/// or a connection (lowercase).
const OS_DENIALS: &[&str] = &[
    "permission denied",
    "operation not permitted",
    "read-only file system",
    "network is unreachable",
    "temporary failure in name resolution",
    "could not resolve",
    "name or service not known",
    "failed to lookup address",
    "dns error",
    "connection refused",
    "address family not supported",
];

// ---------------------------------------------------------------------------
// The world one run sees.

/// A fresh fixture plus the temp and state dirs the run is pointed at, and
/// what existed before the run.
struct World {
    fixture: Fixture,
    tmp: PathBuf,
    state: PathBuf,
    before: BTreeSet<PathBuf>,
}

impl World {
    fn new() -> World {
        let fixture = fixture().expect("build the red-team fixture");
        let tmp = fixture.root.path().join("tmp");
        let state = fixture.root.path().join("state");
        for dir in [&tmp, &state] {
            std::fs::create_dir_all(dir).expect("create a fixture dir");
        }
        let mut world = World {
            fixture,
            tmp,
            state,
            before: BTreeSet::new(),
        };
        world.before = world.entries();
        world
    }

    fn workspace(&self) -> &Path {
        &self.fixture.workspace
    }

    /// Every path a pipeline must not create or remove: the home outside
    /// the workspace, the workspace's `.git`, and `outside/`. (The
    /// workspace itself is writable; its canaries are checked by content.)
    fn entries(&self) -> BTreeSet<PathBuf> {
        let mut found = BTreeSet::new();
        let dot_git = self.fixture.workspace.join(".git");
        let mut stack = vec![self.fixture.home.clone(), self.fixture.outside.clone()];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if path == self.fixture.workspace {
                    stack.push(path);
                    continue;
                }
                if path.starts_with(&self.fixture.workspace) && !path.starts_with(&dot_git) {
                    continue;
                }
                if entry.file_type().is_ok_and(|t| t.is_dir()) {
                    stack.push(path.clone());
                }
                found.insert(path);
            }
        }
        // git's own bookkeeping may change under read-only git commands;
        // a sandboxed run creates the trash directory `rm` moves files to.
        let trash = self.fixture.home.join(".local/share/Trash");
        found.retain(|p| {
            !p.starts_with(dot_git.join("logs"))
                && !p.starts_with(dot_git.join("objects"))
                && *p != dot_git.join("index")
                && *p != dot_git.join("index.lock")
                && !trash.starts_with(p)
        });
        found
    }

    /// What the run changed that it must not have: canaries that differ or
    /// vanished, entries that appeared or disappeared.
    fn damage(&self) -> Vec<String> {
        let mut damage = Vec::new();
        for (path, content) in canaries(&self.fixture) {
            let shown = self.shown(&path);
            match std::fs::symlink_metadata(&path) {
                Err(_) => damage.push(format!("canary {shown} deleted")),
                Ok(meta) if !meta.is_file() => {
                    damage.push(format!("canary {shown} is no longer a plain file"));
                }
                Ok(_) => match std::fs::read(&path) {
                    Ok(now) if now == content => {}
                    Ok(_) => damage.push(format!("canary {shown} changed")),
                    Err(err) => damage.push(format!("canary {shown} unreadable: {err}")),
                },
            }
        }
        let after = self.entries();
        for path in after.difference(&self.before) {
            damage.push(format!("new entry {}", self.shown(path)));
        }
        for path in self.before.difference(&after) {
            damage.push(format!("entry {} gone", self.shown(path)));
        }
        const SHOWN: usize = 8;
        if damage.len() > SHOWN {
            let more = damage.len() - SHOWN;
            damage.truncate(SHOWN);
            damage.push(format!("and {more} more"));
        }
        damage
    }

    /// Every file under the workspace (outside `.git`) with its content.
    fn workspace_files(&self) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
        let mut files = std::collections::BTreeMap::new();
        let mut stack = vec![self.fixture.workspace.clone()];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if path.file_name().is_some_and(|n| n == ".git") {
                    continue;
                }
                match entry.file_type() {
                    Ok(t) if t.is_dir() => stack.push(path.clone()),
                    _ => {}
                }
                let content = std::fs::read(&path).unwrap_or_default();
                files.insert(path, content);
            }
        }
        files
    }

    fn shown(&self, path: &Path) -> String {
        match path.strip_prefix(self.fixture.root.path()) {
            Ok(rel) => rel.display().to_string(),
            Err(_) => path.display().to_string(),
        }
    }

    /// `nu-agent <args>` in this world, with `extra` added to its
    /// environment.
    fn nu_agent(&self, args: &[&str], extra: &[(&str, &str)]) -> Ran {
        let mut command = Command::new(workspace_binary("nu-agent"));
        command
            .args(args)
            .current_dir(self.workspace())
            .env_clear()
            .env("HOME", &self.fixture.home)
            .env("TMPDIR", &self.tmp)
            .env("NU_AGENT_STATE_DIR", &self.state)
            .env("NO_COLOR", "1")
            .env("LANG", "C.UTF-8");
        if let Some(path) = std::env::var_os("PATH") {
            command.env("PATH", path);
        }
        // The toolchain the real home holds (cargo is a rustup proxy).
        if let Some(home) = std::env::var_os("HOME").map(PathBuf::from) {
            for (name, dir) in [("RUSTUP_HOME", ".rustup"), ("CARGO_HOME", ".cargo")] {
                let value = std::env::var_os(name).unwrap_or_else(|| home.join(dir).into());
                command.env(name, value);
            }
        }
        for (name, value) in extra {
            command.env(name, value);
        }
        run_with_deadline(command, HARD_DEADLINE)
    }
}

// ---------------------------------------------------------------------------
// Running a process with a hard deadline.

/// What a run printed and how it ended.
struct Ran {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    killed: bool,
}

impl Ran {
    fn failed(&self) -> bool {
        self.code != Some(0)
    }

    fn code_text(&self) -> String {
        match (self.killed, self.code) {
            (true, _) => format!("killed after {HARD_DEADLINE:?}"),
            (false, Some(code)) => code.to_string(),
            (false, None) => "signal".into(),
        }
    }

    fn stderr_tail(&self) -> String {
        tail(&self.stderr, 700)
    }
}

fn tail(text: &str, max: usize) -> String {
    let start = text
        .char_indices()
        .rev()
        .nth(max)
        .map(|(i, _)| i)
        .unwrap_or(0);
    let shown = text[start..].trim();
    if start > 0 {
        format!("…{shown}")
    } else {
        shown.to_string()
    }
}

/// Run `command` (stdin null) in its own process group; kill the group if it
/// outlives `deadline`.
fn run_with_deadline(mut command: Command, deadline: Duration) -> Ran {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let mut child = command.spawn().expect("spawn nu-agent");
    let reader = |pipe: Option<Box<dyn Read + Send>>| {
        thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            String::from_utf8_lossy(&bytes).into_owned()
        })
    };
    let stdout = reader(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let stderr = reader(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let started = Instant::now();
    let mut killed = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if started.elapsed() > deadline => {
                let group = i32::try_from(child.id()).expect("pid fits in i32");
                // SAFETY: kill(2) on the process group this harness created
                // for its own child.
                unsafe {
                    libc::kill(-group, libc::SIGKILL);
                }
                killed = true;
                break child.wait().ok();
            }
            Ok(None) => thread::sleep(Duration::from_millis(5)),
            Err(_) => break None,
        }
    };
    Ran {
        code: status.and_then(|s| s.code()),
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
        killed,
    }
}

/// Run `jobs` on [`THREADS`] threads, results in the order of `jobs`.
fn parallel<J: Sync, R: Send>(jobs: &[J], work: impl Fn(&J) -> R + Sync) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..jobs.len()).map(|_| None).collect());
    thread::scope(|scope| {
        for _ in 0..THREADS {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Ordering::SeqCst);
                    let Some(job) = jobs.get(index) else {
                        return;
                    };
                    let result = work(job);
                    results.lock().unwrap_or_else(|p| p.into_inner())[index] = Some(result);
                }
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_else(|p| p.into_inner())
        .into_iter()
        .map(|r| r.expect("every job ran"))
        .collect()
}

// ---------------------------------------------------------------------------
// Who refused a run.

/// Which layer stopped a run, read from its stderr.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Refusal {
    /// `nu_agent::policy::blocked` from the static check.
    StaticBlock,
    /// `nu_agent::policy::blocked` from a runtime guard.
    GuardBlock,
    /// `nu_agent::policy::denied`: a confirmation nobody approved.
    Denied,
    /// The program is not on this machine: an error before any question
    /// (or nu's own, when it ran), so nothing ran.
    NotHere,
    /// The kernel refused (Landlock, seccomp): the OS sandbox.
    Sandbox,
    /// No refusal the harness recognises.
    Other,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Refusal::StaticBlock => "static block",
            Refusal::GuardBlock => "guard block",
            Refusal::Denied => "denied",
            Refusal::NotHere => "program not here",
            Refusal::Sandbox => "OS sandbox",
            Refusal::Other => "other",
        })
    }
}

fn refusal(stderr: &str) -> Refusal {
    let lower = stderr.to_lowercase();
    if stderr.contains(BLOCKED_CODE) {
        if stderr.contains(STATIC_BLOCK_HELP) {
            Refusal::StaticBlock
        } else {
            Refusal::GuardBlock
        }
    } else if stderr.contains(DENIED_CODE) {
        Refusal::Denied
    } else if stderr.contains("nu::shell::external_command") && stderr.contains("not found") {
        Refusal::NotHere
    } else if OS_DENIALS.iter().any(|needle| lower.contains(needle))
        || curl_found_no_network(&lower)
    {
        Refusal::Sandbox
    } else {
        Refusal::Other
    }
}

/// `^curl` exited with its own code for "could not resolve host" (6) or
/// "failed to connect" (7). nu-agent does not show the stderr of an
/// external that is not the pipeline's last statement, so the exit code is
/// all there is to read.
fn curl_found_no_network(lower_stderr: &str) -> bool {
    lower_stderr.contains("^curl")
        && ["exited with code 6", "exited with code 7"]
            .iter()
            .any(|code| lower_stderr.contains(code))
}

// ---------------------------------------------------------------------------
// 1. Each layer off in turn: every block case stays blocked.

/// The layer a pass switches off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LayerOff {
    Static,
    Guards,
    Sandbox,
}

impl LayerOff {
    const ALL: [LayerOff; 3] = [LayerOff::Static, LayerOff::Guards, LayerOff::Sandbox];

    fn layer(self) -> &'static str {
        match self {
            LayerOff::Static => "static",
            LayerOff::Guards => "guards",
            LayerOff::Sandbox => "sandbox",
        }
    }

    /// Whether the kernel's refusal counts as the block in this pass: only
    /// when no policy layer before the sandbox was meant to catch the case —
    /// the static layer is off, or the case is one only the (disabled)
    /// guards can judge.
    fn sandbox_may_refuse(self, case: &Case) -> bool {
        match self {
            LayerOff::Static => true,
            LayerOff::Guards => BLOCKED_AT_RUN_TIME.contains(&case.id),
            LayerOff::Sandbox => false,
        }
    }
}

/// Run-time cases whose pipeline, as nu 0.115 evaluates it, cannot reach
/// its target: with the guards off they fail or do nothing on their own,
/// so in that pass only "nothing was damaged" can be asked of them.
const HARMLESS_AT_RUN_TIME: &[(&str, &str)] = &[
    (
        "rt-29",
        "`%$c -rf ~` passes `-rf` and `~` to rm as literal paths, which do not exist",
    ),
    (
        "rt-46",
        "`[~]` is the string `~`, which rm takes literally; with -f a missing path is no error",
    ),
];

/// The outcome of one block case in one pass.
struct LayerResult {
    case: &'static Case,
    pass: LayerOff,
    refusal: Refusal,
    problems: Vec<String>,
    ran: Ran,
}

fn run_block_case(case: &'static Case, pass: LayerOff) -> LayerResult {
    let world = World::new();
    let ran = world.nu_agent(
        &[
            "run",
            "--yes",
            "--timeout",
            RUN_TIMEOUT,
            "--disable-layer",
            pass.layer(),
            case.pipeline,
        ],
        &[],
    );
    let refusal = refusal(&ran.stderr);
    let mut problems = Vec::new();
    let harmless =
        pass == LayerOff::Guards && HARMLESS_AT_RUN_TIME.iter().any(|(id, _)| *id == case.id);
    if !ran.failed() && !harmless {
        problems.push("the run succeeded".to_string());
    }
    match refusal {
        _ if harmless => {}
        Refusal::StaticBlock if pass == LayerOff::Static => {
            problems.push("a static block with the static layer off".into());
        }
        Refusal::GuardBlock if pass == LayerOff::Guards => {
            problems.push("a guard block with the guards off".into());
        }
        Refusal::StaticBlock | Refusal::GuardBlock => {}
        Refusal::Sandbox if pass.sandbox_may_refuse(case) => {}
        Refusal::Sandbox => {
            problems.push("only the OS refused it; the policy layers let it run".into());
        }
        Refusal::Denied => {
            problems.push("denied as a confirmation although --yes was given".into());
        }
        Refusal::NotHere | Refusal::Other => {
            problems.push("no policy block and no sandbox denial".into());
        }
    }
    problems.extend(world.damage());
    LayerResult {
        case,
        pass,
        refusal,
        problems,
        ran,
    }
}

#[test]
fn every_block_case_stays_blocked_with_each_layer_off() {
    let started = Instant::now();
    let block: Vec<&'static Case> = CASES
        .iter()
        .chain(redteam_forms::all())
        .filter(|case| case.expect == Verdict::Block || BLOCKED_AT_RUN_TIME.contains(&case.id))
        .filter(|case| selected(case.id))
        .collect();
    assert!(!block.is_empty(), "no block case selected");
    let jobs: Vec<(&'static Case, LayerOff)> = LayerOff::ALL
        .iter()
        .flat_map(|pass| block.iter().map(move |case| (*case, *pass)))
        .collect();
    let results = parallel(&jobs, |(case, pass)| run_block_case(case, *pass));

    println!(
        "\nblock cases with one layer off ({} cases, {} runs, {:.0?}):",
        block.len(),
        results.len(),
        started.elapsed()
    );
    println!(
        "{:<16} {:>12} {:>12} {:>11} {:>8} {:>7}",
        "layer off", "static block", "guard block", "OS sandbox", "other", "failed"
    );
    for pass in LayerOff::ALL {
        let of_pass: Vec<&LayerResult> = results.iter().filter(|r| r.pass == pass).collect();
        let count = |refusal: Refusal| of_pass.iter().filter(|r| r.refusal == refusal).count();
        println!(
            "{:<16} {:>12} {:>12} {:>11} {:>8} {:>7}",
            pass.layer(),
            count(Refusal::StaticBlock),
            count(Refusal::GuardBlock),
            count(Refusal::Sandbox),
            count(Refusal::Other) + count(Refusal::Denied) + count(Refusal::NotHere),
            of_pass.iter().filter(|r| !r.problems.is_empty()).count()
        );
    }

    for pass in LayerOff::ALL {
        let ids = |refusal: Refusal| {
            results
                .iter()
                .filter(|r| r.pass == pass && r.refusal == refusal)
                .map(|r| r.case.id)
                .collect::<Vec<_>>()
                .join(" ")
        };
        for refusal in [
            Refusal::Sandbox,
            Refusal::Other,
            Refusal::Denied,
            Refusal::NotHere,
        ] {
            let list = ids(refusal);
            if !list.is_empty() {
                println!("{} off, refused by {refusal}: {list}", pass.layer());
            }
        }
    }

    let failures: Vec<String> = results
        .iter()
        .filter(|r| !r.problems.is_empty())
        .map(|r| {
            format!(
                "{} [--disable-layer {}] {:?}\n  exit {}, refused by: {}\n  {}\n  stderr: {}",
                r.case.id,
                r.pass.layer(),
                shorten(r.case.pipeline),
                r.ran.code_text(),
                r.refusal,
                r.problems.join("; "),
                r.ran.stderr_tail().replace('\n', "\n    ")
            )
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} runs let a block case through:\n{}",
        failures.len(),
        results.len(),
        failures.join("\n")
    );
}

/// `REDTEAM_CASES=rt-16,rt-98` limits the runs to those cases (to
/// re-check a few after a fix); unset, every case runs.
fn selected(id: &str) -> bool {
    match std::env::var("REDTEAM_CASES") {
        Ok(list) if !list.trim().is_empty() => list.split(',').any(|item| item.trim() == id),
        _ => true,
    }
}

fn shorten(pipeline: &str) -> String {
    let compact: String = pipeline.split_whitespace().collect::<Vec<_>>().join(" ");
    if compact.chars().count() > 100 {
        format!("{}…", compact.chars().take(100).collect::<String>())
    } else {
        compact
    }
}

// ---------------------------------------------------------------------------
// 2. All layers on, nobody to ask.

/// Run each case with `nu-agent run` and `extra` options, nobody to ask:
/// one line for each that was not denied (or that left damage).
fn not_denied(cases: &[&'static Case], extra: &[&str]) -> Vec<String> {
    parallel(cases, |case| {
        let world = World::new();
        let mut args = vec!["run"];
        args.extend_from_slice(extra);
        args.extend(["--timeout", RUN_TIMEOUT, case.pipeline]);
        let ran = world.nu_agent(&args, &[]);
        let mut problems = Vec::new();
        if !ran.failed() {
            problems.push("the run succeeded".to_string());
        }
        // A program this machine lacks is an error before any question:
        // as safe as a denial, and which one depends on the machine.
        if !matches!(refusal(&ran.stderr), Refusal::Denied | Refusal::NotHere) {
            problems.push(format!("not denied (refused by: {})", refusal(&ran.stderr)));
        }
        problems.extend(world.damage());
        (!problems.is_empty()).then(|| {
            format!(
                "{} {:?}: exit {}; {}\n  stderr: {}",
                case.id,
                shorten(case.pipeline),
                ran.code_text(),
                problems.join("; "),
                ran.stderr_tail()
            )
        })
    })
    .into_iter()
    .flatten()
    .collect()
}

#[test]
fn confirm_cases_are_denied_without_a_terminal() {
    let confirm: Vec<&'static Case> = CASES
        .iter()
        .chain(redteam_forms::all())
        .filter(|case| case.expect == Verdict::Confirm)
        .filter(|case| selected(case.id))
        .collect();
    let failures = not_denied(&confirm, &[]);
    assert!(
        failures.is_empty(),
        "{} of {} confirm cases were not denied:\n{}",
        failures.len(),
        confirm.len(),
        failures.join("\n")
    );
}

/// The reads that obey configuration the workspace controls (man, zip,
/// git in another repository, cargo and rustup, variables off the
/// allowlist) and the secret reads: with the static layer off, the runtime
/// guard alone still asks (and, nobody to ask, denies). The OS layer under
/// them is shown by `external_sandbox`.
const CONFIGURED_READS: &[&str] = &[
    "rt-system-4",
    "rt-archives-2",
    "rt-archives-3",
    "rt-25",
    "rt-26",
    "rt-27",
    "rt-28",
    "rt-29",
    "rt-30",
];

#[test]
fn configured_reads_are_denied_with_the_static_layer_off() {
    let cases: Vec<&'static Case> = CASES
        .iter()
        .chain(redteam_forms::all())
        .filter(|case| case.expect == Verdict::Confirm)
        .filter(|case| CONFIGURED_READS.iter().any(|p| case.id.starts_with(p)))
        .filter(|case| {
            // The issue's cases only (rt-251 on, rt-system-41 on,
            // rt-archives-27 on).
            let n: u32 = case
                .id
                .rsplit('-')
                .next()
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
            match case.id.split('-').nth(1) {
                Some("system") => n >= 41,
                Some("archives") => n >= 27,
                _ => n >= 251,
            }
        })
        .filter(|case| selected(case.id))
        .collect();
    assert!(cases.len() >= 30, "only {} cases", cases.len());
    let failures = not_denied(&cases, &["--disable-layer", "static"]);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Pipelines the default policy allows whose command may still fail here
/// for reasons outside the policy, with the reason.
const MAY_FAIL: &[(&str, &str)] = &[
    (
        "$env.OPENAI_API_KEY",
        "the variable is absent from the agent's environment by design",
    ),
    (
        "port 4000 4100",
        "with the network off the sandbox refuses every internet socket, a local bind included",
    ),
];

/// The program an external pipeline `^prog ...` starts.
fn external_program(pipeline: &str) -> Option<&str> {
    pipeline.strip_prefix('^')?.split_whitespace().next()
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
}

#[test]
fn allowed_and_routine_work_runs_without_asking() {
    let pipelines: Vec<(&str, &str)> = CASES
        .iter()
        .chain(redteam_forms::all())
        .filter(|case| case.expect == Verdict::Allow)
        .filter(|case| selected(case.id))
        .map(|case| (case.id, case.pipeline))
        .chain(ROUTINE.iter().map(|p| ("routine", *p)))
        .collect();
    let failures: Vec<String> = parallel(&pipelines, |(id, pipeline)| {
        let world = World::new();
        let workspace_before = world.workspace_files();
        let ran = world.nu_agent(&["run", "--timeout", RUN_TIMEOUT, pipeline], &[]);
        let mut problems = Vec::new();
        if ran.stderr.contains(POLICY_CODE_PREFIX) {
            problems.push(format!("refused by the policy ({})", refusal(&ran.stderr)));
        } else if ran.failed() {
            // The policy let it run. An external may still end with its own
            // non-zero exit (`rg` found nothing, `diff` found differences,
            // no systemd or docker daemon here); what must not happen is
            // the OS refusing what the verdict allowed, unless listed.
            let absent = external_program(pipeline).is_some_and(|p| !on_path(p));
            let listed = MAY_FAIL.iter().any(|(p, _)| p == pipeline);
            let external =
                external_program(pipeline).is_some() || ran.stderr.contains("non_zero_exit_code");
            let own_exit = external && refusal(&ran.stderr) != Refusal::Sandbox;
            if !absent && !listed && !own_exit {
                problems.push("failed although the policy allowed it".to_string());
            }
        }
        problems.extend(world.damage());
        // An allowed pipeline only reads: the workspace is as it was.
        let workspace_after = world.workspace_files();
        for (path, content) in &workspace_after {
            if workspace_before.get(path) != Some(content) {
                problems.push(format!("wrote {}", world.shown(path)));
            }
        }
        for path in workspace_before.keys() {
            if !workspace_after.contains_key(path) {
                problems.push(format!("removed {}", world.shown(path)));
            }
        }
        (!problems.is_empty()).then(|| {
            format!(
                "{id} {pipeline:?}: exit {}; {}\n  stderr: {}",
                ran.code_text(),
                problems.join("; "),
                ran.stderr_tail()
            )
        })
    })
    .into_iter()
    .flatten()
    .collect();
    assert!(
        failures.is_empty(),
        "{} of {} allowed pipelines did not run:\n{}",
        failures.len(),
        pipelines.len(),
        failures.join("\n")
    );
}

/// A statement that leaves a trace, put before a refuse case: the parse
/// error is in the same source, so it must not run either.
const MARKER_DIR: &str = "ran-before-the-parse-error";

#[test]
fn refuse_cases_run_nothing_even_approved() {
    let refuse: Vec<&'static Case> = CASES
        .iter()
        .filter(|case| case.expect == Verdict::Refuse)
        .collect();
    let failures: Vec<String> = parallel(&refuse, |case| {
        let mut problems = Vec::new();
        let marked = format!("mkdir {MARKER_DIR}\n{}", case.pipeline);
        for pipeline in [case.pipeline, marked.as_str()] {
            for extra in [&[][..], &["--yes", "--disable-layer", "static"][..]] {
                let world = World::new();
                let checked = policy_check(&world, pipeline);
                if checked["verdict"] != "refuse" {
                    problems.push(format!("policy check says {}", checked["verdict"]));
                }
                let mut args = vec!["run", "--timeout", RUN_TIMEOUT];
                args.extend_from_slice(extra);
                args.push(pipeline);
                let ran = world.nu_agent(&args, &[]);
                let how = format!("{:?} {extra:?}", shorten(pipeline));
                if ran.code != Some(1) {
                    problems.push(format!("{how}: exit {}", ran.code_text()));
                }
                if ran.stderr.trim().is_empty() || ran.stderr.contains(POLICY_CODE_PREFIX) {
                    problems.push(format!("{how}: not a parse error: {}", ran.stderr_tail()));
                }
                if !ran.stdout.trim().is_empty() {
                    problems.push(format!("{how}: printed {:?}", tail(&ran.stdout, 200)));
                }
                if world.workspace().join(MARKER_DIR).exists() {
                    problems.push(format!("{how}: the statement before the error ran"));
                }
                problems.extend(world.damage().into_iter().map(|d| format!("{how}: {d}")));
            }
        }
        (!problems.is_empty()).then(|| format!("{}: {}", case.id, problems.join("; ")))
    })
    .into_iter()
    .flatten()
    .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---------------------------------------------------------------------------
// 3. Fail closed.

fn policy_check(world: &World, pipeline: &str) -> serde_json::Value {
    let ran = world.nu_agent(&["policy", "check", "--json", pipeline], &[]);
    assert_eq!(
        ran.code,
        Some(0),
        "policy check {pipeline:?} failed: {}",
        ran.stderr
    );
    serde_json::from_str(&ran.stdout)
        .unwrap_or_else(|e| panic!("policy check printed no JSON ({e}): {}", ran.stdout))
}

#[test]
fn an_unknown_program_is_an_error_before_any_question() {
    let world = World::new();
    let pipeline = "^no-such-program-xyz";
    let checked = policy_check(&world, pipeline);
    assert_eq!(checked["pipeline"], pipeline);
    assert_eq!(checked["verdict"], "confirm", "{checked}");
    // Approved or not, it can only fail: nu's error, nothing asked or run.
    for extra in [&[][..], &["--yes"][..]] {
        let mut args = vec!["run"];
        args.extend_from_slice(extra);
        args.push(pipeline);
        let ran = world.nu_agent(&args, &[]);
        assert_eq!(ran.code, Some(1), "{}", ran.stderr);
        assert!(
            ran.stderr
                .contains("Command `no-such-program-xyz` not found"),
            "{}",
            ran.stderr
        );
        assert!(!ran.stderr.contains(DENIED_CODE), "{}", ran.stderr);
        assert!(world.damage().is_empty(), "{:?}", world.damage());
    }
}

#[test]
fn a_pipeline_that_does_not_parse_runs_nothing() {
    let world = World::new();
    let pipeline = "mkdir made; ls | where (";
    let checked = policy_check(&world, pipeline);
    assert_eq!(checked["verdict"], "refuse", "{checked}");
    let made = world.workspace().join("made");
    for extra in [
        &[][..],
        &["--yes"][..],
        &["--yes", "--disable-layer", "static"][..],
    ] {
        let mut args = vec!["run"];
        args.extend_from_slice(extra);
        args.push(pipeline);
        let ran = world.nu_agent(&args, &[]);
        assert_eq!(ran.code, Some(1), "{extra:?}: {}", ran.stderr);
        assert!(
            ran.stderr.contains("nu::parser::"),
            "{extra:?}: {}",
            ran.stderr
        );
        assert!(
            !made.exists(),
            "{extra:?}: the part before the parse error ran"
        );
    }
    assert!(world.damage().is_empty(), "{:?}", world.damage());
}

#[test]
fn an_invalid_policy_runs_nothing_and_names_the_key() {
    let world = World::new();
    let configs = [
        ("{policy: {mode: sometimes}}", "policy.mode"),
        ("{policy: {mdoe: confirm}}", "policy.mdoe"),
        (r#"{policy: {allow: ["a\\"]}}"#, "policy.allow[0]"),
    ];
    let marker = world.workspace().join("ran-under-a-bad-policy");
    let pipeline = format!("mkdir '{}'; ls", marker.display());
    for (index, (text, key)) in configs.iter().enumerate() {
        let file = world.tmp.join(format!("bad-{index}.nuon"));
        std::fs::write(&file, text).expect("write the config file");
        let file_arg = file.display().to_string();
        let by_flag = world.nu_agent(&["--config", &file_arg, "run", "--yes", &pipeline], &[]);
        let by_env = world.nu_agent(
            &["run", "--yes", &pipeline],
            &[("NU_AGENT_CONFIG", &file_arg)],
        );
        for (how, ran) in [("--config", &by_flag), ("NU_AGENT_CONFIG", &by_env)] {
            assert_eq!(ran.code, Some(1), "{how} {text}: {}", ran.stderr);
            assert!(
                ran.stderr.contains(key),
                "{how} {text}: stderr does not name {key}: {}",
                ran.stderr
            );
            assert!(
                ran.stdout.trim().is_empty(),
                "{how} {text}: printed {}",
                ran.stdout
            );
            assert!(!marker.exists(), "{how} {text}: the pipeline ran");
        }
    }
    // The same pipeline does run under a valid policy, so the marker above
    // would have shown a run.
    let good = world.tmp.join("good.nuon");
    std::fs::write(&good, "{policy: {mode: confirm}}").expect("write the config file");
    let good_arg = good.display().to_string();
    let ran = world.nu_agent(&["--config", &good_arg, "run", "--yes", &pipeline], &[]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert!(marker.is_dir());
}

// ---------------------------------------------------------------------------
// 4. Secrets never leave.

/// `len` characters of `[A-Za-z0-9]` from a seed (no randomness crate: the
/// seed comes from the clock and the process id).
fn alnum(seed: &mut u64, len: usize) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    (0..len)
        .map(|_| {
            // xorshift64*
            *seed ^= *seed >> 12;
            *seed ^= *seed << 25;
            *seed ^= *seed >> 27;
            let n = seed.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33;
            char::from(ALPHABET[usize::try_from(n).unwrap_or(0) % ALPHABET.len()])
        })
        .collect()
}

#[test]
fn secret_values_never_reach_the_output_or_the_audit_log() {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let mut seed = (nanos as u64) ^ (u64::from(std::process::id()) << 32) | 1;
    let api_key = format!("canary-{}", alnum(&mut seed, 24));
    let token = format!("ghp_{}", alnum(&mut seed, 36));
    let secrets = [
        ("FAKE_API_KEY", api_key.as_str()),
        ("GITHUB_TOKEN", token.as_str()),
    ];

    let world = World::new();
    let pipelines = [
        "$env | to json",
        "^env",
        "$env.GITHUB_TOKEN",
        "$env.FAKE_API_KEY",
        "$env | transpose name value | where name =~ 'TOKEN|KEY'",
    ];
    for pipeline in pipelines {
        for json in [false, true] {
            let mut args = vec!["run", "--yes", "--timeout", RUN_TIMEOUT];
            if json {
                args.push("--json");
            }
            args.push(pipeline);
            let ran = world.nu_agent(&args, &secrets);
            for (name, value) in &secrets {
                assert!(
                    !ran.stdout.contains(value) && !ran.stderr.contains(value),
                    "{pipeline:?} (json: {json}) shows {name}:\nstdout: {}\nstderr: {}",
                    ran.stdout,
                    ran.stderr
                );
            }
        }
    }
    // The two pipelines the task names must have run, or the check above
    // proves nothing.
    let env_json = world.nu_agent(&["run", "--yes", "$env | to json"], &secrets);
    assert_eq!(env_json.code, Some(0), "{}", env_json.stderr);
    assert!(env_json.stdout.contains("\"HOME\""), "{}", env_json.stdout);
    let env_ext = world.nu_agent(&["run", "--yes", "^env"], &secrets);
    assert_eq!(env_ext.code, Some(0), "{}", env_ext.stderr);
    assert!(env_ext.stdout.contains("HOME="), "{}", env_ext.stdout);

    // A pipeline that carries the values itself: it prints them (that is
    // what it asks for), but the audit log must hold them redacted.
    let literal = format!("'{api_key} {token}' | str length");
    let ran = world.nu_agent(&["run", "--yes", &literal], &secrets);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);

    let audit = world.state.join("audit.jsonl");
    match std::fs::read(&audit) {
        Ok(bytes) => {
            let text = String::from_utf8_lossy(&bytes);
            assert!(
                text.contains("^env") && text.contains("str length"),
                "the audit log does not record the runs: {text}"
            );
            for (name, value) in &secrets {
                assert!(
                    !text.contains(value),
                    "the audit log holds {name}: {}",
                    audit.display()
                );
            }
        }
        Err(err) => eprintln!(
            "SKIPPED: no audit log at {} ({err}); nu-agent run does not write one yet, so only stdout and stderr were checked",
            audit.display()
        ),
    }
    assert!(world.damage().is_empty(), "{:?}", world.damage());
}
