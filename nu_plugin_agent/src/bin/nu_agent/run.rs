//! `nu-agent run`: one Nushell pipeline in the embedded engine under the
//! policy (checked, asked about, guarded, sandboxed), its value printed as
//! nu's table, JSON or the model's rendering; the exit code says how it
//! ended.

use std::{borrow::Cow, io::Write, process::ExitCode};

use agent_core::{
    observe::{Budget, render_outcome},
    policy::{DENIED_CODE, Layers, NOBODY_TO_ASK_HELP, Policy, PolicyShell, ShellOptions},
    shell::{Limits, SessionSeed, StopReason},
};
use nu_protocol::Value;

use crate::{
    ApprovalFlags,
    common::{
        EXIT_FAILED, EXIT_INTERRUPTED, EXIT_TIMED_OUT, approver, cancel_on_ctrl_c, nobody_to_ask,
        piped_input, render_for_terminal,
    },
};

/// How `run` prints.
pub struct Output {
    pub json: bool,
    pub observe: bool,
    pub budget: usize,
}

pub fn run(
    pipeline: &str,
    policy: Policy,
    approval: &ApprovalFlags,
    layers: Layers,
    limits: &Limits,
    output: &Output,
) -> ExitCode {
    let seed = match SessionSeed::from_process() {
        Ok(seed) => seed,
        Err(err) => {
            eprintln!("nu-agent: cannot read the current directory: {err}");
            return ExitCode::from(EXIT_FAILED);
        }
    };
    let audit = PolicyShell::audit_log(&seed);
    let options = ShellOptions {
        layers,
        worker_exe: crate::common::worker_exe(),
        hook: None,
        audit,
        ..ShellOptions::default()
    };
    let mut shell = match PolicyShell::new(policy, seed, approver(approval), options) {
        Ok(shell) => shell,
        Err(diagnostic) => {
            eprintln!("{}", diagnostic.rendered);
            return ExitCode::from(EXIT_FAILED);
        }
    };
    // Piped stdin is the pipeline's input, as in `nu -c`.
    if let Some(text) = piped_input() {
        shell.set_input(Value::string(text, nu_protocol::Span::unknown()));
    }
    let cancel = cancel_on_ctrl_c();
    let ran = shell.run(pipeline, limits, &cancel);
    let outcome = &ran.outcome;
    let session = shell.session();

    let mut stdout = std::io::stdout().lock();
    if output.observe {
        let _ = writeln!(
            stdout,
            "{}",
            render_outcome(outcome, &Budget::approx(output.budget))
        );
        return exit_code(&outcome.stopped, outcome.error.is_some(), outcome.exit_code);
    }
    for line in &outcome.printed {
        eprintln!("{}", line.trim_end_matches('\n'));
    }
    if let Some(diagnostic) = &outcome.error {
        eprintln!("{}", diagnostic.rendered);
        if diagnostic.code.as_deref() == Some(DENIED_CODE) && nobody_to_ask(approval) {
            eprintln!("nu-agent: {NOBODY_TO_ASK_HELP}");
        }
    } else {
        // Text is written as it is, not copied (it may be as big as the cap).
        let text = match &outcome.value {
            Value::String { val, .. } if !output.json => Ok(Cow::Borrowed(val.as_str())),
            value if output.json => session
                .pipe_value(value.clone(), "to json --indent 2")
                .map(Cow::Owned),
            value => render_for_terminal(session, value).map(Cow::Owned),
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
    match &outcome.stopped {
        Some(StopReason::OutputCapped(cut)) => eprintln!("nu-agent: warning: {}", cut.warning()),
        Some(stopped) => eprintln!("nu-agent: {stopped}"),
        None => {}
    }
    exit_code(&outcome.stopped, outcome.error.is_some(), outcome.exit_code)
}

/// The exit code: 124 after the time limit, 130 after Ctrl+C, 1 after a
/// crash; 0 for a run cut at the output cap (the part that fits is its
/// output, whatever the processes the cut killed said); else the failing
/// external's code, 1 after an error, 0.
fn exit_code(stopped: &Option<StopReason>, failed: bool, external: Option<i32>) -> ExitCode {
    match stopped {
        Some(StopReason::OutputCapped(_)) if !failed => return ExitCode::SUCCESS,
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
