//! `agent run`: run a pipeline in the agent's embedded engine.

use std::time::Duration;

use agent_core::{
    observe::{Budget, render_outcome},
    shell::{CancelToken, Engine, Limits, Session, StopReason},
};
use nu_plugin::{EngineInterface, EvaluatedCall, SimplePluginCommand};
use nu_protocol::{
    Category, Example, LabeledError, SignalAction, Signature, Spanned, SyntaxShape, Type, Value,
};

use crate::{
    AgentPlugin,
    convert::{diagnostic_error, respan, seed_from_caller},
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
        Signature::build(self.name())
            .input_output_type(Type::Nothing, Type::Any)
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
            .switch(
                "observe",
                "Return the text the model would see instead of the value.",
                Some('o'),
            )
            .category(Category::Misc)
    }

    fn description(&self) -> &str {
        "Run a pipeline in the agent's embedded Nushell engine, in the current directory."
    }

    fn extra_description(&self) -> &str {
        "This is the engine the agent runs model-written pipelines in: externals get no terminal and run in their own process group, `print` is collected, Ctrl+C stops the pipeline and kills what it started. Only the caller's allowed environment variables pass (no LD_PRELOAD, no *_TOKEN)."
    }

    fn search_terms(&self) -> Vec<&str> {
        vec!["eval", "execute", "embedded", "sandbox"]
    }

    fn examples(&self) -> Vec<Example<'_>> {
        vec![
            Example {
                example: r#"agent run "[1 2 3] | math sum""#,
                description: "Run a pipeline and get its value",
                result: Some(Value::test_int(6)),
            },
            Example {
                example: r#"agent run "ls | where size > 1mb" --timeout 10sec"#,
                description: "Bound a run by time",
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
        _plugin: &AgentPlugin,
        engine: &EngineInterface,
        call: &EvaluatedCall,
        _input: &Value,
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

        let mut session = Session::new(Engine::standard(), seed_from_caller(engine)?)
            .map_err(|d| diagnostic_error(&d, "cannot start the agent shell", call.head))?;

        // Ctrl+C in the host cancels this run (and kills what it started).
        let cancel = CancelToken::new();
        let handler_token = cancel.clone();
        let _guard = engine.register_signal_handler(Box::new(move |action| {
            if matches!(action, SignalAction::Interrupt) {
                handler_token.cancel();
            }
        }))?;

        let outcome = session.run_cancellable(&pipeline.item, &limits, &cancel);

        if observe {
            let text = render_outcome(&outcome, &Budget::approx(OBSERVE_BUDGET));
            return Ok(Value::string(text, call.head));
        }
        if let Some(diagnostic) = &outcome.error {
            return Err(diagnostic_error(
                diagnostic,
                "the pipeline failed",
                pipeline.span,
            ));
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
