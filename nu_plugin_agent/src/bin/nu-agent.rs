//! `nu-agent`: the agent's engine from any shell, without a nu host.

use std::{
    io::{IsTerminal, Write},
    path::PathBuf,
    process::ExitCode,
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::Duration,
};

use agent_core::{
    observe::{Budget, render_outcome},
    policy::{
        Approver, NonInteractive,
        sandbox::{self, SandboxMode, SandboxSpec, WORKER_ARG, WorkerRequest},
    },
    shell::{CancelToken, Engine, Limits, Outcome, Session, SessionSeed, StopReason},
};
use clap::{Parser, Subcommand};
use nu_protocol::Value;

/// Exit code of a run stopped by its time limit (as `timeout(1)`).
const EXIT_TIMED_OUT: u8 = 124;
/// Exit code of a pipeline that failed to parse or run.
const EXIT_FAILED: u8 = 1;
/// Exit code after Ctrl+C.
const EXIT_INTERRUPTED: u8 = 130;

#[derive(Parser)]
#[command(
    name = "nu-agent",
    version,
    about = "A local-first AI agent built on Nushell, usable from any shell."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a Nushell pipeline in the agent's embedded engine.
    Run {
        /// The pipeline, e.g. 'ls | where size > 1mb | sort-by size'.
        pipeline: String,
        /// Print the value as JSON.
        #[arg(long, conflicts_with = "observe")]
        json: bool,
        /// Print the compact rendering the model reads.
        #[arg(long)]
        observe: bool,
        /// Token budget of the --observe rendering.
        #[arg(long, default_value_t = 2000, requires = "observe")]
        budget: usize,
        /// Stop after this long, e.g. 500ms, 30s, 2m.
        #[arg(long, value_parser = parse_duration)]
        timeout: Option<Duration>,
        /// OS sandbox (Linux: Landlock + seccomp): off, read-only or
        /// workspace-write.
        #[arg(long, default_value = "off", value_name = "MODE")]
        sandbox: SandboxMode,
        /// A path the workspace-write sandbox may write beneath (repeatable;
        /// default: the current directory and the temp directory).
        #[arg(long, value_name = "PATH")]
        writable: Vec<PathBuf>,
        /// Allow network access inside the sandbox.
        #[arg(long)]
        network: bool,
    },
}

fn main() -> ExitCode {
    // A sandbox worker must restrict itself before anything starts a thread.
    if std::env::args_os()
        .nth(1)
        .is_some_and(|arg| arg == WORKER_ARG)
    {
        std::process::exit(sandbox::worker_main(standard_engine));
    }
    let cli = Cli::parse();
    match cli.command {
        Command::Run {
            pipeline,
            json,
            observe,
            budget,
            timeout,
            sandbox,
            writable,
            network,
        } => {
            let spec = match sandbox_spec(sandbox, writable, network) {
                Ok(spec) => spec,
                Err(message) => {
                    eprintln!("nu-agent: {message}");
                    return ExitCode::from(EXIT_FAILED);
                }
            };
            run(&pipeline, json, observe, budget, timeout, &spec)
        }
    }
}

/// The engine a sandbox worker evaluates with.
fn standard_engine(_policy: &serde_json::Value, _: Arc<dyn Approver>) -> Result<Engine, String> {
    Ok(Engine::standard().clone())
}

/// The sandbox `run` asked for, with the default writable roots filled in
/// and every path absolute.
fn sandbox_spec(
    mode: SandboxMode,
    writable: Vec<PathBuf>,
    network: bool,
) -> Result<SandboxSpec, String> {
    if !writable.is_empty() && mode != SandboxMode::WorkspaceWrite {
        return Err(format!(
            "--writable needs --sandbox workspace-write (the sandbox is {mode})"
        ));
    }
    if mode == SandboxMode::Off {
        return Ok(SandboxSpec::off());
    }
    let protections = sandbox::probe();
    if !protections.can_sandbox() {
        return Err(format!(
            "the {mode} sandbox cannot be enforced on this machine; nothing was run\n{protections}"
        ));
    }
    let cwd = std::env::current_dir()
        .map_err(|err| format!("cannot read the current directory: {err}"))?;
    let writable = if mode == SandboxMode::WorkspaceWrite && writable.is_empty() {
        vec![cwd.clone(), std::env::temp_dir()]
    } else {
        writable.into_iter().map(|path| cwd.join(path)).collect()
    };
    Ok(SandboxSpec {
        mode,
        writable,
        network,
    })
}

fn run(
    pipeline: &str,
    json: bool,
    observe: bool,
    budget: usize,
    timeout: Option<Duration>,
    spec: &SandboxSpec,
) -> ExitCode {
    let seed = match SessionSeed::from_process() {
        Ok(seed) => seed,
        Err(err) => {
            eprintln!("nu-agent: cannot read the current directory: {err}");
            return ExitCode::from(EXIT_FAILED);
        }
    };
    let mut session = match Session::new(Engine::standard(), seed) {
        Ok(session) => session,
        Err(diagnostic) => {
            eprintln!("{}", diagnostic.rendered);
            return ExitCode::from(EXIT_FAILED);
        }
    };
    let mut limits = Limits::default();
    if let Some(timeout) = timeout {
        limits = limits.with_timeout(timeout);
    }
    let cancel = cancel_on_ctrl_c();
    let outcome = if spec.mode == SandboxMode::Off {
        session.run_cancellable(pipeline, &limits, &cancel)
    } else {
        match run_in_sandbox(pipeline, &limits, &cancel, spec) {
            Ok(outcome) => outcome,
            Err(message) => {
                eprintln!("nu-agent: {message}");
                return ExitCode::from(EXIT_FAILED);
            }
        }
    };

    let mut stdout = std::io::stdout().lock();
    if observe {
        let _ = writeln!(
            stdout,
            "{}",
            render_outcome(&outcome, &Budget::approx(budget))
        );
        return exit_code(&outcome.stopped, outcome.error.is_some(), outcome.exit_code);
    }
    if let Some(diagnostic) = &outcome.error {
        eprintln!("{}", diagnostic.rendered);
    } else {
        let text = if json {
            session.pipe_value(outcome.value.clone(), "to json --indent 2")
        } else {
            render_for_terminal(&session, &outcome.value)
        };
        match text {
            Ok(text) => {
                let _ = stdout.write_all(text.as_bytes());
                if !text.is_empty() && !text.ends_with('\n') {
                    let _ = stdout.write_all(b"\n");
                }
            }
            Err(diagnostic) => {
                eprintln!("{}", diagnostic.rendered);
                return ExitCode::from(EXIT_FAILED);
            }
        }
    }
    if let Some(Value::String { val, .. }) = &outcome.stderr {
        eprint!("{val}");
    }
    if let Some(stopped) = &outcome.stopped {
        eprintln!("nu-agent: {stopped}");
    }
    exit_code(&outcome.stopped, outcome.error.is_some(), outcome.exit_code)
}

/// Evaluate in a sandbox worker (this program, re-executed); the local
/// session only renders the result.
fn run_in_sandbox(
    pipeline: &str,
    limits: &Limits,
    cancel: &CancelToken,
    spec: &SandboxSpec,
) -> Result<Outcome, String> {
    let exe = std::env::current_exe()
        .map_err(|err| format!("cannot find this program to start the sandbox: {err}"))?;
    let cwd = std::env::current_dir()
        .map_err(|err| format!("cannot read the current directory: {err}"))?;
    let env = std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .collect();
    let request = WorkerRequest {
        spec: spec.clone(),
        cwd,
        env,
        source: pipeline.to_string(),
        limits: limits.clone(),
        policy: serde_json::Value::Null,
    };
    Ok(sandbox::run_sandboxed(
        &exe,
        &request,
        cancel,
        &NonInteractive::default(),
    ))
}

/// Strings and raw bytes print as they are; structured values as nu's table.
fn render_for_terminal(
    session: &Session,
    value: &Value,
) -> Result<String, agent_core::shell::Diagnostic> {
    match value {
        Value::String { val, .. } => Ok(val.clone()),
        Value::Nothing { .. } => Ok(String::new()),
        Value::Binary { val, .. } if !std::io::stdout().is_terminal() => {
            let _ = std::io::stdout().write_all(val);
            Ok(String::new())
        }
        other => {
            let width = terminal_width();
            session.pipe_value(other.clone(), &format!("table --width {width}"))
        }
    }
}

fn terminal_width() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(if std::io::stdout().is_terminal() {
            120
        } else {
            200
        })
}

fn exit_code(stopped: &Option<StopReason>, failed: bool, external: Option<i32>) -> ExitCode {
    match stopped {
        Some(StopReason::TimedOut(_)) => return ExitCode::from(EXIT_TIMED_OUT),
        Some(StopReason::Cancelled) => return ExitCode::from(EXIT_INTERRUPTED),
        Some(StopReason::Panicked(_) | StopReason::Abandoned) => {
            return ExitCode::from(EXIT_FAILED);
        }
        _ => {}
    }
    if let Some(code) = external.filter(|c| *c != 0) {
        return ExitCode::from(u8::try_from(code.clamp(1, 255)).unwrap_or(EXIT_FAILED));
    }
    if failed {
        ExitCode::from(EXIT_FAILED)
    } else {
        ExitCode::SUCCESS
    }
}

/// `500ms`, `30s`, `2m`, `1h`, or plain seconds.
fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: f64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a duration (try 500ms, 30s, 2m)"))?;
    let seconds = match unit.trim() {
        "" | "s" | "sec" => number,
        "ms" => number / 1000.0,
        "m" | "min" => number * 60.0,
        "h" | "hr" => number * 3600.0,
        other => {
            return Err(format!(
                "unknown duration unit `{other}` (use ms, s, m or h)"
            ));
        }
    };
    Duration::try_from_secs_f64(seconds)
        .map_err(|_| format!("`{text}` is not a positive duration of a sensible size"))
}

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_sigint(_: libc::c_int) {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// A token cancelled by Ctrl+C (SIGINT).
fn cancel_on_ctrl_c() -> CancelToken {
    let token = CancelToken::new();
    // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, on_sigint as *const () as libc::sighandler_t);
    }
    let watcher = token.clone();
    std::thread::spawn(move || {
        loop {
            if INTERRUPTED.load(Ordering::SeqCst) {
                watcher.cancel();
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    });
    token
}
