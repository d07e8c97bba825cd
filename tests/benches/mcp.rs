//! What a step costs through `nu-agent mcp` over the same step in the
//! persistent sandboxed session it runs in (the policy shell and its
//! worker, as `ask` and `nu-agent run` use them), on `1 + 1` and on
//! `ls | where size > 1kb | length` over 2,000 files; and the server's
//! memory when idle. The MCP side is timed as a client sees it: a
//! `tools/call` written to the server's stdin until its answer is read
//! from its stdout (JSON-RPC lines, the stdio transport). Prints a
//! markdown table of medians, the difference and the ratio, all measured
//! in the same run.
//!
//! `nu-scripts/bench-mcp.sh` builds the release `nu-agent` and runs it;
//! `NU_AGENT_WORKER` names another binary. Under `cargo test` it runs each
//! measurement twice as a smoke test.

use std::{
    io::{BufRead, BufReader, Write},
    path::{Path, PathBuf},
    process::{Child, ChildStdin, ChildStdout, Command, Stdio},
    sync::Arc,
    time::{Duration, Instant},
};

use agent_core::{
    policy::{NonInteractive, Policy, PolicyShell, ShellOptions, sandbox::SandboxMode},
    shell::{CancelToken, Limits, SessionSeed},
};
use serde_json::{Value, json};

fn iterations() -> usize {
    if std::env::args().any(|arg| arg == "--bench") {
        41
    } else {
        2
    }
}

fn binary() -> PathBuf {
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

/// The peer: the persistent session in this process, its worker sandboxed,
/// writing the same audit log.
fn session(dir: &Path, state: &Path) -> PolicyShell {
    let mut seed = SessionSeed::from_process().expect("seed");
    seed.cwd = dir.to_path_buf();
    let policy = Policy {
        sandbox: SandboxMode::WorkspaceWrite,
        ..Policy::default()
    };
    // The audit log too: the server writes one for every call.
    let options = ShellOptions {
        worker_exe: Some(binary()),
        audit: agent_core::store::AuditLog::open(state).ok(),
        ..ShellOptions::default()
    };
    let shell = PolicyShell::new(policy, seed, Arc::new(NonInteractive::default()), options)
        .expect("policy shell");
    assert!(
        shell.sandboxed(),
        "the benchmark needs Landlock and seccomp"
    );
    shell
}

fn session_median(shell: &mut PolicyShell, pipeline: &str, expect: i64) -> Duration {
    let limits = Limits::default();
    let cancel = CancelToken::new();
    median(|| {
        let ran = shell.run(pipeline, &limits, &cancel);
        assert!(ran.outcome.error.is_none(), "{:?}", ran.outcome.error);
        assert_eq!(ran.outcome.value.as_int().ok(), Some(expect), "{pipeline}");
    })
}

/// Median wall time of `step`, after a warm-up call.
fn median(mut step: impl FnMut()) -> Duration {
    let mut times = Vec::new();
    for i in 0..=iterations() {
        let started = Instant::now();
        step();
        let took = started.elapsed();
        if i > 0 {
            times.push(took);
        }
    }
    times.sort();
    times[times.len() / 2]
}

/// `nu-agent mcp` on pipes, spoken to line by line.
struct Server {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
    next_id: u64,
}

impl Server {
    fn start(dir: &Path, state: &Path) -> Server {
        let mut child = Command::new(binary())
            .args(["mcp", "--sandbox", "workspace-write"])
            .current_dir(dir)
            .env("NU_AGENT_STATE_DIR", state)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start nu-agent mcp");
        let input = child.stdin.take().expect("stdin");
        let output = BufReader::new(child.stdout.take().expect("stdout"));
        let mut server = Server {
            child,
            input,
            output,
            next_id: 1,
        };
        server.request(
            "initialize",
            json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "1"},
            }),
        );
        server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        server
    }

    fn send(&mut self, message: &Value) {
        let mut line = message.to_string();
        line.push('\n');
        self.input.write_all(line.as_bytes()).expect("write");
        self.input.flush().expect("flush");
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let mut line = String::new();
            let read = self.output.read_line(&mut line).expect("read");
            assert!(read > 0, "the server closed its output");
            let message: Value = serde_json::from_str(&line).expect("a JSON-RPC line");
            if message["id"] == id {
                return message;
            }
        }
    }

    fn run(&mut self, pipeline: &str) -> Value {
        let answer = self.request(
            "tools/call",
            json!({"name": "run", "arguments": {"pipeline": pipeline}}),
        );
        answer["result"]["structuredContent"]["value"].clone()
    }

    /// Resident memory of the server and of its session's worker, in KiB.
    fn rss_kib(&self) -> (u64, u64) {
        let server = rss_of(self.child.id());
        let worker = children_of(self.child.id()).into_iter().map(rss_of).sum();
        (server, worker)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn rss_of(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// The children of every thread of `pid` (the worker is started by the
/// session's thread).
fn children_of(pid: u32) -> Vec<u32> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    tasks
        .flatten()
        .flat_map(|task| {
            std::fs::read_to_string(task.path().join("children"))
                .unwrap_or_default()
                .split_whitespace()
                .filter_map(|p| p.parse().ok())
                .collect::<Vec<u32>>()
        })
        .collect()
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
    let state = tempfile::tempdir().unwrap();
    fixture(dir.path());
    let expect_big = (0..2000).filter(|i| (i * 2) % 4000 > 1000).count() as i64;
    let mut server = Server::start(dir.path(), state.path());
    let (idle_server, _) = server.rss_kib();
    println!(
        "| step | (a) persistent session | (b) `nu-agent mcp` `run` | (b) − (a) | (b) / (a) |"
    );
    println!("|---|---|---|---|---|");
    for (name, pipeline, expect) in [
        ("`1 + 1`", "1 + 1", 2),
        (
            "`ls | where size > 1kb | length`, 2,000 files",
            "ls | where size > 1kb | length",
            expect_big,
        ),
    ] {
        let mut shell = session(dir.path(), state.path());
        let a = session_median(&mut shell, pipeline, expect);
        drop(shell);
        let b = median(|| {
            assert_eq!(server.run(pipeline), json!(expect), "{pipeline}");
        });
        println!(
            "| {} | {} | {} | {:+.2} ms | {:.2}× |",
            name.replace('|', "\\|"),
            show(a),
            show(b),
            (b.as_secs_f64() - a.as_secs_f64()) * 1000.0,
            b.as_secs_f64() / a.as_secs_f64()
        );
    }
    std::thread::sleep(Duration::from_millis(200));
    let (busy_server, worker) = server.rss_kib();
    println!();
    println!(
        "Server memory (RSS): {:.1} MiB idle after initialize; {:.1} MiB after the runs, plus {:.1} MiB for its session's sandbox worker.",
        idle_server as f64 / 1024.0,
        busy_server as f64 / 1024.0,
        worker as f64 / 1024.0
    );
}
