//! `agent run`: run a pipeline in the agent's embedded engine, under the
//! user's policy.

use std::{sync::Arc, time::Duration};

use agent_core::{
    observe::{Budget, render_outcome},
    policy::{
        Approver, BLOCKED_CODE, DENIED_CODE, Decision, NOBODY_TO_ASK_HELP, NonInteractive, Verdict,
    },
    shell::{CancelToken, Diagnostic, Limits, StopReason, humanize_duration},
};
use nu_plugin::{EngineInterface, EvaluatedCall, SimplePluginCommand};
use nu_protocol::{
    Category, Example, LabeledError, SignalAction, Signature, Span, Spanned, SyntaxShape, Type,
    Value,
};

use crate::{
    AgentPlugin,
    approver::PromptApprover,
    caller::{approve_patterns, caller_shell, config_from_caller, with_approval_flags},
    convert::{located_error, respan},
};

/// Tokens of the `--observe` rendering.
const OBSERVE_BUDGET: usize = 2_000;

/// `agent run "<pipeline>"`.
pub struct AgentRun;

impl SimplePluginCommand for AgentRun {
    type Plugin = AgentPlugin;

    fn name(&self) -> &str {
        "agent run"
    }

    fn signature(&self) -> Signature {
        with_approval_flags(Signature::build(self.name()))
            .input_output_types(vec![(Type::Nothing, Type::Any), (Type::Any, Type::Any)])
            .required(
                "pipeline",
                SyntaxShape::String,
                "The Nushell pipeline to run.",
            )
            .named(
                "timeout",
                SyntaxShape::Duration,
                "Stop the run after this long and return what it produced.",
                Some('t'),
            )
            .named(
                "max-output",
                SyntaxShape::Filesize,
                "The output cap, e.g. 200MiB (default: agent.max_output, 64 MiB), counted in bytes for text and binary and as compact JSON for rows; past it the part that fits comes back, with a warning.",
                None,
            )
            .switch(
                "observe",
                "Return the text the model would see instead of the value.",
                Some('o'),
            )
            .category(Category::Misc)
    }

    fn description(&self) -> &str {
        "Run a pipeline in the agent's embedded Nushell engine, in the current directory, under your policy."
    }

    fn extra_description(&self) -> &str {
        "This is the engine the agent runs model-written pipelines in: externals get no terminal and run in their own process group, `print` (and an earlier statement's external output) goes to stderr, Ctrl+C stops the pipeline and kills what it started. Piped input is the pipeline's input. Only the caller's allowed environment variables pass (no LD_PRELOAD, no *_TOKEN).

The pipeline is checked against $env.config.plugins.agent.policy first (see `agent policy check`): what is blocked never runs, and what needs confirmation is asked about once, on the terminal (a delete or write whose paths are only known when it runs is asked about then, per path). Where nobody can be asked (no terminal: cron, CI, a pipe) the answer is no, unless --yes or --approve approved it in advance; `a` (always) at the prompt lasts this nu session. Side-effecting commands are checked again as they run, and in the sandboxed modes the pipeline runs in a Landlock + seccomp worker process."
    }

    fn search_terms(&self) -> Vec<&str> {
        vec![
            "eval", "execute", "embedded", "sandbox", "policy", "approve",
        ]
    }

    fn examples(&self) -> Vec<Example<'_>> {
        vec![
            Example {
                example: r#"agent run "[1 2 3] | math sum""#,
                description: "Run a pipeline and get its value",
                result: Some(Value::test_int(6)),
            },
            Example {
                example: r#"[3 1 2] | agent run "sort | first""#,
                description: "Piped input is the pipeline's input",
                result: Some(Value::test_int(1)),
            },
            Example {
                example: r#"agent run "ls | where size > 1mb" --timeout 10sec"#,
                description: "Bound a run by time",
                result: None,
            },
            Example {
                example: r#"agent run --max-output 1GiB "open --raw big.log" | lines | length"#,
                description: "Raise the output cap (64 MiB by default) for a large result",
                result: None,
            },
            Example {
                example: r#"agent run --yes "mkdir build""#,
                description: "Approve in advance what would ask (in scripts)",
                result: None,
            },
            Example {
                example: r#"agent run --approve ["^git fetch *" "mkdir *"] "mkdir out; ^git fetch origin""#,
                description: "Approve only steps matching these patterns",
                result: None,
            },
            Example {
                example: r#"agent run --observe "ls""#,
                description: "See the compact rendering the model reads",
                result: None,
            },
        ]
    }

    fn run(
        &self,
        plugin: &AgentPlugin,
        engine: &EngineInterface,
        call: &EvaluatedCall,
        input: &Value,
    ) -> Result<Value, LabeledError> {
        let pipeline: Spanned<String> = call.req(0)?;
        let timeout: Option<Value> = call.get_flag("timeout")?;
        let observe = call.has_flag("observe")?;

        let mut limits = Limits::default();
        if let Some(Value::Duration { val, .. }) = timeout {
            let nanos = u64::try_from(val).map_err(|_| {
                LabeledError::new("the timeout must be positive")
                    .with_label("negative duration", call.head)
            })?;
            limits = limits.with_timeout(Duration::from_nanos(nanos));
        }

        let config = config_from_caller(engine, call.head)?;
        limits = limits.with_max_output_bytes(max_output(call, config.agent.max_output)?);
        let yes = call.has_flag("yes")?;
        let approve = approve_patterns(call)?;
        let prompt = (!yes && approve.is_empty()).then(|| Arc::new(PromptApprover::new(engine)));
        let approver: Arc<dyn Approver> = match &prompt {
            Some(prompt) => prompt.clone(),
            None => Arc::new(NonInteractive { yes, approve }),
        };
        let mut shell = caller_shell(plugin, engine, &config, approver, call.head)?;
        // Piped input is the pipeline's `$in` (`ls | agent run "length"`),
        // its spans pointed away from the host's sources.
        if !matches!(input, Value::Nothing { .. }) {
            shell.set_input(respan(input.clone(), Span::unknown()));
        }

        // Ctrl+C in the host cancels this run (and kills what it started).
        let cancel = CancelToken::new();
        let handler_token = cancel.clone();
        let _guard = engine.register_signal_handler(Box::new(move |action| {
            if matches!(action, SignalAction::Interrupt) {
                handler_token.cancel();
            }
        }))?;

        let ran = shell.run(&pipeline.item, &limits, &cancel);
        plugin.hold_if_always(engine);
        let outcome = ran.outcome;

        if observe {
            let text = render_outcome(&outcome, &Budget::approx(OBSERVE_BUDGET));
            return Ok(Value::string(text, call.head));
        }
        // What `print` wrote goes to the terminal, as nu's own `print` does
        // (on stderr: the value is the command's output).
        for line in &outcome.printed {
            eprintln!("{}", line.trim_end_matches('\n'));
        }
        // The time limit explains whatever failed when it struck (a killed
        // external, an `each` cut short); what the pipeline produced before
        // it is returned, with a warning, and only a run that produced
        // nothing is an error.
        let timed_out = match &outcome.stopped {
            Some(StopReason::TimedOut(limit)) => Some(*limit),
            _ => None,
        };
        if let Some(limit) = timed_out
            && produced_nothing(&outcome.value)
        {
            return Err(LabeledError::new(format!(
                "agent run stopped after the {} time limit",
                humanize_duration(limit)
            ))
            .with_code("nu_agent::run::timeout")
            .with_label(
                "stopped by the time limit; the processes it started were killed",
                pipeline.span,
            )
            .with_help("raise it with --timeout"));
        }
        if let Some(diagnostic) = outcome.error.as_ref().filter(|_| timed_out.is_none()) {
            let nobody = prompt.as_ref().is_some_and(|p| p.found_nobody());
            return Err(
                match policy_error(
                    diagnostic,
                    &ran.decision,
                    ran.approved_by.is_none(),
                    nobody,
                    pipeline.span,
                ) {
                    Some(error) => error,
                    None => {
                        let argument = engine.get_span_contents(pipeline.span).ok();
                        located_error(
                            diagnostic,
                            "the pipeline failed",
                            pipeline.span,
                            argument
                                .as_deref()
                                .map(|argument| (argument, pipeline.item.as_str())),
                        )
                    }
                },
            );
        }
        match &outcome.stopped {
            Some(StopReason::Cancelled) => {
                return Err(LabeledError::new("agent run was interrupted")
                    .with_code("nu_agent::run::interrupted")
                    .with_label(
                        "stopped by Ctrl+C; the processes it started were killed",
                        pipeline.span,
                    ));
            }
            // A cut run succeeds with the part that fits (the CLI exits 0).
            Some(StopReason::OutputCapped(cut)) => {
                eprintln!("warning: agent run: {}", cut.warning());
            }
            Some(StopReason::TimedOut(limit)) => eprintln!(
                "warning: agent run stopped after the {} time limit (the processes it started were killed); returning what it produced before",
                humanize_duration(*limit)
            ),
            Some(stopped) => eprintln!("warning: agent run {stopped}"),
            None => {}
        }
        if let Some(Value::String { val, .. }) = &outcome.stderr
            && !val.is_empty()
        {
            eprint!("{val}");
        }
        // A process killed by a stop (timeout, cap) is explained by the warning.
        if let Some(code) = outcome
            .exit_code
            .filter(|c| *c != 0 && outcome.stopped.is_none())
        {
            return Err(LabeledError::new(format!("the external command exited with code {code}"))
                .with_code("nu_agent::run::exit_code")
                .with_label(format!("exited with code {code}"), pipeline.span)
                .with_help("wrap the pipeline in `complete` to get stdout, stderr and the exit code as a record"));
        }
        Ok(respan(outcome.value, call.head))
    }
}

/// A value that holds no output: nothing, an empty string or list.
fn produced_nothing(value: &Value) -> bool {
    match value {
        Value::Nothing { .. } => true,
        Value::String { val, .. } => val.is_empty(),
        Value::List { vals, .. } => vals.is_empty(),
        _ => false,
    }
}

/// The output cap: `--max-output`, else `configured` (`agent.max_output`).
fn max_output(call: &EvaluatedCall, configured: usize) -> Result<usize, LabeledError> {
    let Some(value) = call.get_flag::<Value>("max-output")? else {
        return Ok(configured);
    };
    let span = value.span();
    let bytes = match value {
        Value::Filesize { val, .. } => val.get(),
        _ => 0,
    };
    usize::try_from(bytes)
        .ok()
        .filter(|b| *b > 0)
        .ok_or_else(|| {
            LabeledError::new("--max-output must be a size above 0")
                .with_code("nu_agent::run::max_output")
                .with_label("not a positive size", span)
                .with_help("for example: --max-output 200MiB")
        })
}

/// A policy's refusal (blocked, not approved, refused, the hook failed) as
/// an error at the pipeline: the diagnostic's code and message, the
/// deciding reasons as the label, and its help line.
fn policy_error(
    diagnostic: &Diagnostic,
    decision: &Decision,
    before_running: bool,
    found_nobody: bool,
    span: Span,
) -> Option<LabeledError> {
    let code = diagnostic.code.as_deref()?;
    if !code.starts_with("nu_agent::policy::") {
        return None;
    }
    // The static verdict explains the error only when it stopped the run
    // before it started (a runtime guard explains itself in the message).
    let decided = before_running
        && match code {
            BLOCKED_CODE => decision.verdict >= Verdict::Block,
            DENIED_CODE => decision.verdict == Verdict::Confirm,
            _ => false,
        };
    let reasons: Vec<String> = if decided {
        decision
            .deciding_rows()
            .map(|row| {
                if row.command.is_empty() {
                    row.reason.clone()
                } else {
                    format!("{}: {}", row.command, row.reason)
                }
            })
            .collect()
    } else {
        Vec::new()
    };
    // Else what the diagnostic points at (a runtime guard), else the code.
    let pointed = diagnostic
        .labels
        .first()
        .map(|l| l.text.clone())
        .filter(|t| !t.is_empty());
    let label = if reasons.is_empty() {
        pointed.unwrap_or_else(|| {
            match code {
                BLOCKED_CODE => "blocked by the policy",
                DENIED_CODE => "not approved",
                "nu_agent::policy::hook" => "policy.hook failed",
                _ => "stopped by the policy",
            }
            .to_string()
        })
    } else {
        reasons.join("; ")
    };
    let mut help = diagnostic.help.clone().unwrap_or_default();
    if code == DENIED_CODE && found_nobody {
        help = NOBODY_TO_ASK_HELP.into();
    }
    let mut error = LabeledError::new(&diagnostic.message)
        .with_code(code)
        .with_label(label, span);
    if !help.is_empty() {
        error = error.with_help(help);
    }
    Some(error)
}
