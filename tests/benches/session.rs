//! Per-step latency of one policy shell through (a) the in-process session
//! (no OS sandbox), (b) the conversation's persistent sandbox worker and
//! (c) a fresh sandbox worker per step (how steps ran before workers lived
//! as long as the conversation), on `1 + 1` and on `ls | where size > 1kb
//! | length` over 2,000 files. Prints a markdown table of medians and
//! ratios against (a), all measured in the same run.
//!
//! `nu-scripts/bench-session.sh` builds the release `nu-agent` (the worker
//! binary) and runs it; `NU_AGENT_WORKER` names another worker binary.
//! Under `cargo test` it runs each measurement twice as a smoke test.

use std::{
    path::{Path, PathBuf},
    sync::Arc,
    time::{Duration, Instant},
};

use agent_core::{
    policy::{NonInteractive, Policy, PolicyShell, ShellOptions, sandbox::SandboxMode},
    shell::{CancelToken, Limits, SessionSeed},
};

fn iterations() -> usize {
    if std::env::args().any(|arg| arg == "--bench") {
        41
    } else {
        2
    }
}

fn worker_binary() -> PathBuf {
    std::env::var_os("NU_AGENT_WORKER")
        .map(PathBuf::from)
        .unwrap_or_else(|| agent_e2e::workspace_binary("nu-agent"))
}

/// `dir` with 2,000 files of 0 to 3,999 bytes.
fn fixture(dir: &Path) {
    for i in 0..2000 {
        std::fs::write(dir.join(format!("f{i:04}.txt")), vec![b'x'; (i * 2) % 4000]).unwrap();
    }
}

#[derive(Clone, Copy)]
enum Way {
    InProcess,
    Persistent,
    FreshPerStep,
}

fn shell(dir: &Path, way: Way) -> PolicyShell {
    let mut seed = SessionSeed::from_process().expect("seed");
    seed.cwd = dir.to_path_buf();
    let policy = Policy {
        sandbox: match way {
            Way::InProcess => SandboxMode::Off,
            Way::Persistent | Way::FreshPerStep => SandboxMode::WorkspaceWrite,
        },
        ..Policy::default()
    };
    let options = ShellOptions {
        worker_exe: Some(worker_binary()),
        worker_per_step: matches!(way, Way::FreshPerStep),
        ..ShellOptions::default()
    };
    PolicyShell::new(policy, seed, Arc::new(NonInteractive::default()), options)
        .expect("policy shell")
}

/// Median wall time of one step, after a warm-up step.
fn median_step(shell: &mut PolicyShell, pipeline: &str, expect: i64) -> Duration {
    let limits = Limits::default();
    let cancel = CancelToken::new();
    let mut times = Vec::new();
    for i in 0..=iterations() {
        let started = Instant::now();
        let ran = shell.run(pipeline, &limits, &cancel);
        let took = started.elapsed();
        assert!(ran.outcome.error.is_none(), "{:?}", ran.outcome.error);
        assert_eq!(ran.outcome.value.as_int().ok(), Some(expect), "{pipeline}");
        if i > 0 {
            times.push(took);
        }
    }
    times.sort();
    times[times.len() / 2]
}

fn show(d: Duration) -> String {
    let micros = d.as_secs_f64() * 1e6;
    if micros >= 1000.0 {
        format!("{:.2} ms", micros / 1000.0)
    } else {
        format!("{micros:.0} µs")
    }
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    fixture(dir.path());
    let expect_big = (0..2000).filter(|i| (i * 2) % 4000 > 1000).count() as i64;
    println!(
        "| step | (a) in-process | (b) persistent worker | (c) fresh worker per step | (b) − (a) | (b) / (a) | (c) / (a) |"
    );
    println!("|---|---|---|---|---|---|---|");
    for (name, pipeline, expect) in [
        ("`1 + 1`", "1 + 1", 2),
        (
            "`ls | where size > 1kb | length`, 2,000 files",
            "ls | where size > 1kb | length",
            expect_big,
        ),
    ] {
        let mut results = Vec::new();
        for way in [Way::InProcess, Way::Persistent, Way::FreshPerStep] {
            let mut shell = shell(dir.path(), way);
            if !matches!(way, Way::InProcess) {
                assert!(
                    shell.sandboxed(),
                    "the benchmark needs Landlock and seccomp"
                );
            }
            results.push(median_step(&mut shell, pipeline, expect));
        }
        let (a, b, c) = (results[0], results[1], results[2]);
        let delta = b.as_secs_f64() - a.as_secs_f64();
        println!(
            "| {} | {} | {} | {} | {:+.2} ms | {:.2}× | {:.2}× |",
            name.replace('|', "\\|"),
            show(a),
            show(b),
            show(c),
            delta * 1000.0,
            b.as_secs_f64() / a.as_secs_f64(),
            c.as_secs_f64() / a.as_secs_f64()
        );
    }
}
