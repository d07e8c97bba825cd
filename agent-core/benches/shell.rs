//! Latency and token benchmark of the embedded engine.
//!
//! `cargo bench -p agent-core --bench shell` prints two markdown tables:
//!
//! 1. latency of a trivial expression and six pipelines through (a) the embedded `Session`, (b) a
//!    `nu -n -c` subprocess per step, (c) the nearest `bash -c` equivalent,
//!    (d) nu's own in-process time (`timeit` inside one nu) — medians and
//!    ratios, all measured in the same run;
//! 2. tokens the model reads for the same facts: our rendering vs the raw
//!    text of `ls -la`, `ps aux`, `df -h`, `du -sh *` vs nu's `to nuon` and
//!    `to json`, counted with the test model's vocabulary.
//!
//! It needs the nu 0.115 host (`NU_AGENT_TEST_NU` or the cached one), bash,
//! jq, and the SmolLM2 GGUF (`NU_AGENT_TEST_MODEL` or the cached one).

use std::{
    path::{Path, PathBuf},
    process::Command,
    time::{Duration, Instant},
};

use agent_core::{
    llm::GgufTokenizer,
    observe::{Budget, TokenCounter, render},
    shell::{Engine, Limits, Session, SessionSeed},
};
use nu_protocol::{Span, Value};

/// Runs per measurement under `cargo bench`; `cargo test` runs the same
/// code twice per measurement as a smoke test.
fn iterations() -> usize {
    if std::env::args().any(|arg| arg == "--bench") {
        25
    } else {
        2
    }
}

struct Case {
    name: &'static str,
    /// Steps run in one session (the cd case has three).
    nu_steps: &'static [&'static str],
    bash_steps: &'static [&'static str],
    small: bool,
}

const CASES: &[Case] = &[
    Case {
        name: "trivial: 1 + 1",
        nu_steps: &["1 + 1"],
        bash_steps: &["echo $((1 + 1))"],
        small: true,
    },
    Case {
        name: "list + filter 2,000 files",
        nu_steps: &["ls | where size > 500b | length"],
        bash_steps: &["find . -maxdepth 1 -type f -size +500c | wc -l"],
        small: false,
    },
    Case {
        name: "process table, filter + sort",
        nu_steps: &["ps | where mem > 1mb | sort-by mem | last 5"],
        bash_steps: &["ps -eo pid,rss,comm --sort=rss | awk '$2 > 1000' | tail -5"],
        small: false,
    },
    Case {
        name: "parse JSON, select fields",
        nu_steps: &["open data.json | get items | where active | select name score | length"],
        bash_steps: &["jq '[.items[] | select(.active) | {name, score}] | length' data.json"],
        small: true,
    },
    Case {
        name: "system info",
        nu_steps: &["sys host"],
        bash_steps: &["uname -a; cat /etc/os-release; uptime"],
        small: true,
    },
    Case {
        name: "external ^echo",
        nu_steps: &["^echo hello"],
        bash_steps: &["/bin/echo hello"],
        small: true,
    },
    Case {
        name: "3-step session: cd, ls, cd ..",
        nu_steps: &["cd sub", "ls | length", "cd .."],
        bash_steps: &["cd sub", "cd sub && ls | wc -l", "true"],
        small: true,
    },
];

fn main() {
    let nu = find_nu();
    let fixture = tempfile::tempdir().expect("temp dir");
    make_fixture(fixture.path());
    eprintln!(
        "fixture in {}; nu = {}",
        fixture.path().display(),
        nu.display()
    );

    println!("### Latency (median of {} runs)\n", iterations());
    println!(
        "| pipeline | (a) embedded Session | (b) `nu -n -c` per step | (c) `bash -c` per step | (d) nu in-process `timeit` | a/d | b/a | c/a |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for case in CASES {
        let embedded = median(time_embedded(case, fixture.path()));
        let nu_c = median(time_processes(case.nu_steps, fixture.path(), |step| {
            let mut cmd = Command::new(&nu);
            cmd.args(["-n", "-c", step]);
            cmd
        }));
        let bash_c = median(time_processes(case.bash_steps, fixture.path(), |step| {
            let mut cmd = Command::new("bash");
            cmd.args(["-c", step]);
            cmd
        }));
        let in_nu = nu_timeit(&nu, case, fixture.path());
        println!(
            "| {}{} | {} | {} | {} | {} | {:.2}× | {:.1}× | {:.1}× |",
            case.name,
            if case.small { "" } else { " (heavy)" },
            fmt(embedded),
            fmt(nu_c),
            fmt(bash_c),
            fmt(in_nu),
            ratio(embedded, in_nu),
            ratio(nu_c, embedded),
            ratio(bash_c, embedded),
        );
    }

    println!("\n### Tokens the model reads for the same facts\n");
    match find_model().map(|m| GgufTokenizer::load(&m)) {
        Some(Ok(tokenizer)) => token_table(&tokenizer, &nu, fixture.path()),
        Some(Err(err)) => println!("(skipped: {err})"),
        None => println!("(skipped: no SmolLM2 GGUF found; set NU_AGENT_TEST_MODEL)"),
    }
}

fn make_fixture(dir: &Path) {
    for i in 0..2000 {
        let size = (i * 37) % 1500;
        std::fs::write(dir.join(format!("file-{i:04}.log")), vec![b'x'; size])
            .expect("fixture file");
    }
    std::fs::create_dir(dir.join("sub")).expect("sub dir");
    for i in 0..20 {
        std::fs::write(dir.join("sub").join(format!("s{i}.txt")), b"x").expect("sub file");
    }
    let items: Vec<String> = (0..500)
        .map(|i| {
            format!(
                r#"{{"name":"item{i}","score":{},"active":{},"tags":["a","b"]}}"#,
                i * 7 % 100,
                i % 3 == 0
            )
        })
        .collect();
    std::fs::write(
        dir.join("data.json"),
        format!(r#"{{"items":[{}]}}"#, items.join(",")),
    )
    .expect("json");
}

fn seed(dir: &Path) -> SessionSeed {
    let env = std::env::vars()
        .map(|(k, v)| (k, Value::string(v, Span::unknown())))
        .collect();
    SessionSeed::new(dir).with_env(env)
}

fn time_embedded(case: &Case, dir: &Path) -> Vec<Duration> {
    let engine = Engine::standard();
    let limits = Limits::default();
    let mut session = Session::new(engine, seed(dir)).expect("session");
    // Warm up (first-use costs such as sysinfo initialisation).
    for step in case.nu_steps {
        session.run(step, &limits);
    }
    (0..iterations())
        .map(|i| {
            if i % 10 == 0 {
                // Bound the $out history a long benchmark accumulates.
                session = Session::new(engine, seed(dir)).expect("session");
            }
            let start = Instant::now();
            for step in case.nu_steps {
                let outcome = session.run(step, &limits);
                assert!(outcome.error.is_none(), "{step}: {:?}", outcome.error);
            }
            start.elapsed()
        })
        .collect()
}

fn time_processes(steps: &[&str], dir: &Path, command: impl Fn(&str) -> Command) -> Vec<Duration> {
    (0..iterations())
        .map(|_| {
            let start = Instant::now();
            for step in steps {
                let out = command(step).current_dir(dir).output().expect("spawn");
                assert!(
                    out.status.success(),
                    "{step}: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
            }
            start.elapsed()
        })
        .collect()
}

/// Median in-process time of the case inside one nu, via `timeit`.
fn nu_timeit(nu: &Path, case: &Case, dir: &Path) -> Duration {
    // `collect` drains external output inside the timed block, as a run does.
    let body = case
        .nu_steps
        .iter()
        .map(|step| format!("{step} | collect"))
        .collect::<Vec<_>>()
        .join("; ");
    let script = format!(
        "{body}; cd '{dir}'; let times = (1..{n} | each {{ cd '{dir}'; timeit {{ {body} }} | into int }}); $times | math median | into int",
        dir = dir.display(),
        n = iterations()
    );
    let out = Command::new(nu)
        .args(["-n", "-c", &script])
        .current_dir(dir)
        .output()
        .expect("run nu");
    let text = String::from_utf8_lossy(&out.stdout);
    let nanos: u64 = text.trim().parse().unwrap_or_else(|_| {
        panic!(
            "timeit failed: {text} {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    Duration::from_nanos(nanos)
}

fn token_table(tokenizer: &GgufTokenizer, nu: &Path, dir: &Path) {
    let sample = dir.join("sample");
    std::fs::create_dir_all(&sample).expect("sample dir");
    for i in 0..79 {
        let name = format!("report-{i:02}.{}", ["txt", "csv", "log", "json"][i % 4]);
        std::fs::write(sample.join(name), vec![b'x'; (i * 997) % 40000]).expect("sample file");
    }
    let cases: &[(&str, &str, &str)] = &[
        (
            "`ls -la` (79 files)",
            "ls -la",
            "ls -la | select name type mode num_links user group size modified",
        ),
        (
            "`ps aux`",
            "ps aux",
            "ps -l | select pid user_id cpu mem virtual status start_time command",
        ),
        ("`df -h`", "df -h", "sys disks"),
        (
            "`du -sh *` (79 files)",
            "du -sh *",
            "du * | select path physical",
        ),
    ];
    println!("| facts | raw text | ours | NUON | JSON | ours/raw | NUON/raw | JSON/raw |");
    println!("|---|---|---|---|---|---|---|---|");
    let mut session = Session::new(Engine::standard(), seed(&sample)).expect("session");
    let big = Budget::new(usize::MAX / 2, tokenizer);
    for (label, raw_cmd, nu_pipeline) in cases {
        let raw = Command::new("bash")
            .args(["-c", raw_cmd])
            .current_dir(&sample)
            .output()
            .expect("raw command");
        let raw_text = String::from_utf8_lossy(&raw.stdout).into_owned();
        let outcome = session.run(nu_pipeline, &Limits::default());
        if let Some(err) = &outcome.error {
            println!("| {label} | (nu failed: {}) |||||||", err.message);
            continue;
        }
        let ours = render(&outcome.value, &big, Some(outcome.index));
        let nuon = nu_text(nu, &sample, &format!("{nu_pipeline} | to nuon"));
        let json = nu_text(nu, &sample, &format!("{nu_pipeline} | to json"));
        let (r, o, n, j) = (
            tokenizer.count(&raw_text),
            tokenizer.count(&ours),
            tokenizer.count(&nuon),
            tokenizer.count(&json),
        );
        println!(
            "| {label} | {r} | {o} | {n} | {j} | {:.2}× | {:.2}× | {:.2}× |",
            o as f64 / r as f64,
            n as f64 / r as f64,
            j as f64 / r as f64
        );
        if std::env::var_os("NU_AGENT_BENCH_SHOW").is_some() {
            eprintln!("--- {label}: ours ---\n{ours}\n--- raw ---\n{raw_text}");
        }
    }
    println!(
        "\nTokens counted with SmolLM2-135M-Instruct's vocabulary; nu tables hold the same facts as the raw command."
    );
}

fn nu_text(nu: &Path, dir: &Path, script: &str) -> String {
    let out = Command::new(nu)
        .args(["-n", "-c", script])
        .current_dir(dir)
        .output()
        .expect("nu");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn find_nu() -> PathBuf {
    if let Ok(path) = std::env::var("NU_AGENT_TEST_NU") {
        return path.into();
    }
    let cached = home().join(".cache/nu-agent/nu-0.115.1/nu");
    if cached.exists() {
        cached
    } else {
        PathBuf::from("nu")
    }
}

fn find_model() -> Option<PathBuf> {
    if let Ok(path) = std::env::var("NU_AGENT_TEST_MODEL") {
        return Some(path.into());
    }
    let cached = home().join(".cache/nu-agent/models/SmolLM2-135M-Instruct.Q4_1.gguf");
    cached.exists().then_some(cached)
}

fn home() -> PathBuf {
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default()
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn ratio(a: Duration, b: Duration) -> f64 {
    a.as_secs_f64() / b.as_secs_f64().max(1e-9)
}

fn fmt(d: Duration) -> String {
    let us = d.as_secs_f64() * 1e6;
    if us < 1000.0 {
        format!("{us:.0} µs")
    } else {
        format!("{:.2} ms", us / 1000.0)
    }
}
