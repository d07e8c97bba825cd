//! What the policy costs per pipeline.
//!
//! `cargo bench -p agent-core --bench policy` prints one markdown table:
//! the static check (parse + plan + verdicts) of a routine pipeline, a
//! nested one and a 16 KB one; building the guarded engine vs the plain
//! one (once per session); and an in-process run of `ls | length` through
//! the policy shell (static check + guards, no sandbox) vs a plain session.
//! Medians, and ratios against the plain path measured in the same run.
//! (The sandbox worker's cost is a process start: see docs/benchmarks.md's
//! hyperfine line.)

use std::{
    path::PathBuf,
    sync::Arc,
    time::{Duration, Instant},
};

use agent_core::{
    policy::{
        AlwaysAllowed, Guardrails, Judge, Layers, NonInteractive, PathFacts, Policy, PolicyShell,
        ShellOptions, check, guarded_engine, sandbox::SandboxMode,
    },
    shell::{CancelToken, Engine, Limits, Session, SessionSeed},
};

/// Runs per measurement under `cargo bench`; `cargo test` runs the same
/// code twice as a smoke test.
fn iterations() -> usize {
    if std::env::args().any(|arg| arg == "--bench") {
        25
    } else {
        2
    }
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn time(mut f: impl FnMut()) -> Duration {
    let samples = (0..iterations())
        .map(|_| {
            let started = Instant::now();
            f();
            started.elapsed()
        })
        .collect();
    median(samples)
}

fn show(d: Duration) -> String {
    if d < Duration::from_millis(1) {
        format!("{} µs", d.as_micros())
    } else {
        format!("{:.1} ms", d.as_secs_f64() * 1000.0)
    }
}

fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    for i in 0..200 {
        let _ = std::fs::write(dir.path().join(format!("f{i}.txt")), vec![b'x'; i * 10]);
    }
    let cwd = dir.path().to_path_buf();
    let policy = Policy::default();
    let facts = PathFacts::for_user(cwd.clone(), &[cwd.clone(), std::env::temp_dir()], &[]);
    let judge = Judge {
        policy: &policy,
        facts: &facts,
        sandbox_enforced: true,
        session_allow: &[],
        secret_read: None,
    };
    let engine = Engine::standard();

    let routine = "ls | where size > 1kb | sort-by modified | first 5";
    let nested = "def tidy [] { ls *.log | each {|f| rm $f.name } }; ^git status; glob **/*.rs | par-each {|p| open $p | lines | length } | math sum; tidy";
    let line = "ls | where size > 1kb | get name | each {|n| $n | str length } | math sum\n";
    let big: String = line.repeat(16 * 1024 / line.len() + 1);

    println!("| what | median | vs plain |");
    println!("|---|---|---|");
    for (name, pipeline) in [
        ("static check, routine pipeline", routine),
        ("static check, nested (def, closures, ^git)", nested),
        ("static check, 16 KB pipeline (220 lines)", big.as_str()),
    ] {
        let t = time(|| {
            let _ = check(engine.state(), &judge, pipeline);
        });
        println!("| {name} | {} | |", show(t));
    }

    let plain = time(|| {
        let _ = Engine::with_commands(Vec::new());
    });
    let guarded = time(|| {
        let rails = Guardrails::new(
            policy.clone(),
            facts.clone(),
            true,
            Arc::new(NonInteractive::default()),
            Vec::new(),
            AlwaysAllowed::default(),
        );
        let _ = guarded_engine(rails);
    });
    println!("| engine for a session: plain | {} | 1.00× |", show(plain));
    println!(
        "| engine for a session: guarded | {} | {:.2}× |",
        show(guarded),
        guarded.as_secs_f64() / plain.as_secs_f64()
    );

    let limits = Limits::default();
    let mut session = Session::new(engine, SessionSeed::new(cwd.clone())).expect("session");
    let plain_run = time(|| {
        let _ = session.run("ls | length", &limits);
    });
    let seed = SessionSeed::new(PathBuf::from(&cwd));
    let off = Policy {
        sandbox: SandboxMode::Off,
        ..Policy::default()
    };
    let mut shell = PolicyShell::new(
        off,
        seed,
        Arc::new(NonInteractive::default()),
        ShellOptions {
            layers: Layers::default(),
            ..ShellOptions::default()
        },
    )
    .expect("policy shell");
    let cancel = CancelToken::new();
    let policy_run = time(|| {
        let ran = shell.run("ls | length", &limits, &cancel);
        assert!(ran.outcome.error.is_none(), "{:?}", ran.outcome.error);
    });
    println!(
        "| run `ls \\| length`: plain session | {} | 1.00× |",
        show(plain_run)
    );
    println!(
        "| run `ls \\| length`: policy shell (check + guards) | {} | {:.2}× |",
        show(policy_run),
        policy_run.as_secs_f64() / plain_run.as_secs_f64()
    );
}
