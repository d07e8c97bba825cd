//! What several subcommands share: exit codes, the approver, printing a
//! value (nu's table or JSON), argument parsers and Ctrl+C.

use std::{
    io::{IsTerminal, Write},
    process::ExitCode,
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::Duration,
};

use agent_core::{
    policy::{Approver, NonInteractive},
    shell::{CancelToken, Engine, Session, SessionSeed, parse_size},
    ui::TerminalApprover,
};
use nu_protocol::Value;

use crate::ApprovalFlags;

/// Exit code of a run stopped by its time limit (as `timeout(1)`).
pub const EXIT_TIMED_OUT: u8 = 124;
/// Exit code of a pipeline that failed to parse or run.
pub const EXIT_FAILED: u8 = 1;
/// Exit code after Ctrl+C.
pub const EXIT_INTERRUPTED: u8 = 130;

/// The approver for this call: the terminal when a person is there,
/// otherwise (or with --yes / --approve) the non-interactive rules.
pub fn approver(flags: &ApprovalFlags) -> Arc<dyn Approver> {
    let scripted = flags.yes || !flags.approve.is_empty();
    if !scripted
        && std::io::stdin().is_terminal()
        && let Some(terminal) = TerminalApprover::open()
    {
        return Arc::new(terminal);
    }
    Arc::new(NonInteractive {
        yes: flags.yes,
        approve: flags.approve.clone(),
    })
}

/// Bytes of standard input read at most.
const STDIN_LIMIT: u64 = 64 * 1024 * 1024;

/// Standard input, when it is not a terminal and holds something: the
/// context of `ask`, the input of `run`.
pub fn piped_input() -> Option<String> {
    use std::io::Read;
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        return None;
    }
    let mut bytes = Vec::new();
    let _ = stdin.lock().take(STDIN_LIMIT).read_to_end(&mut bytes);
    let text = String::from_utf8_lossy(&bytes).into_owned();
    (!text.trim().is_empty()).then_some(text)
}

/// Whether a step that asks is denied unasked: nothing approved in
/// advance and no terminal to ask on.
pub fn nobody_to_ask(flags: &ApprovalFlags) -> bool {
    let approved_in_advance = flags.yes || !flags.approve.is_empty();
    let terminal = std::io::stdin().is_terminal() && TerminalApprover::open().is_some();
    !approved_in_advance && !terminal
}

/// This binary, to re-execute as the sandbox worker and launcher.
/// `/proc/self/exe` still works when the file was replaced on disk (a
/// rebuild) while this process runs.
pub fn worker_exe() -> Option<std::path::PathBuf> {
    Some(std::path::PathBuf::from("/proc/self/exe"))
        .filter(|p| p.exists())
        .or_else(|| std::env::current_exe().ok())
}

/// Print `value` as nu's table, or as JSON.
pub fn print_value(value: &Value, json: bool) -> ExitCode {
    let seed = match SessionSeed::from_process() {
        Ok(seed) => seed,
        Err(err) => {
            eprintln!("nu-agent: cannot read the current directory: {err}");
            return ExitCode::from(EXIT_FAILED);
        }
    };
    let session = match Session::new(Engine::standard(), seed) {
        Ok(session) => session,
        Err(diagnostic) => {
            eprintln!("{}", diagnostic.rendered);
            return ExitCode::from(EXIT_FAILED);
        }
    };
    let text = if json {
        session.pipe_value(value.clone(), "to json --indent 2")
    } else {
        render_for_terminal(&session, value)
    };
    match text {
        Ok(text) => {
            let mut stdout = std::io::stdout().lock();
            let _ = stdout.write_all(text.as_bytes());
            if !text.is_empty() && !text.ends_with('\n') {
                let _ = stdout.write_all(b"\n");
            }
            ExitCode::SUCCESS
        }
        Err(diagnostic) => {
            eprintln!("{}", diagnostic.rendered);
            ExitCode::from(EXIT_FAILED)
        }
    }
}

/// Strings and raw bytes print as they are; structured values as nu's table.
pub fn render_for_terminal(
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

/// An `--approve` pattern, checked: an empty, whitespace-only or
/// malformed one is an error naming it, never a pattern that approves
/// nothing (or everything) in silence.
pub fn parse_approve_pattern(text: &str) -> Result<String, String> {
    agent_core::policy::Pattern::new(text)
        .map(|_| text.to_string())
        .map_err(|e| {
            format!("`{text}` is not a pattern: {e} (patterns match one step's command line, e.g. '^git push *')")
        })
}

/// `200MiB`, `64MB`, `1GiB`, or plain bytes.
pub fn parse_max_output(text: &str) -> Result<usize, String> {
    parse_size(text).map_err(|e| e.to_string())
}

/// `500ms`, `30s`, `2m`, `1h`, or plain seconds.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
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
pub fn cancel_on_ctrl_c() -> CancelToken {
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

/// A JSON document as nu's table (the JSON itself if nu cannot render it).
pub fn render_json_table(json: &serde_json::Value) -> String {
    let text = json.to_string();
    let seed = SessionSeed::new(std::env::temp_dir());
    let Ok(session) = Session::new(Engine::standard(), seed) else {
        return text;
    };
    let width = terminal_width();
    session
        .pipe_value(
            Value::string(text.clone(), nu_protocol::Span::unknown()),
            &format!("from json | table --width {width}"),
        )
        .unwrap_or(text)
}
