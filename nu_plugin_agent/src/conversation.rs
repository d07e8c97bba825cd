//! What `ask`, `agent explain` and `agent suggest` share: the caller's
//! configuration, the backend, the policy shell with the right approver,
//! the system prompt with the machine's context, the history, the terminal
//! view and Ctrl+C.

use std::{path::PathBuf, sync::Arc};

use agent_core::{
    agent::{
        AgentEvent, AgentOptions, EventSink, HistoryError, PromptKind, Transcript, open_history,
        system_prompt,
    },
    config::AgentConfig,
    context::{DEFAULT_TOOLS, system_context},
    llm::{BackendKind, ChatBackend, Message},
    policy::{Approver, NonInteractive, PolicyShell},
    shell::CancelToken,
    ui::{ProgressView, ViewOptions},
};
use nu_plugin::EngineInterface;
use nu_protocol::{HandlerGuard, LabeledError, SignalAction, Span};

use crate::{
    AgentPlugin,
    approver::PromptApprover,
    caller::{HostEnv, caller_settings, caller_shell, config_from_caller},
};

/// How the user approves in advance (`--yes`, `--approve`), or who is
/// asked instead of the terminal (a background job's queue).
#[derive(Default)]
pub(crate) struct ApprovalChoice {
    pub yes: bool,
    pub approve: Vec<String>,
    pub instead: Option<Arc<dyn Approver>>,
}

/// Everything one request needs, ready to run.
pub(crate) struct Prepared {
    pub config: AgentConfig,
    pub backend: Box<dyn ChatBackend>,
    pub shell: PolicyShell,
    pub options: AgentOptions,
    pub system_prompt: String,
    /// The approver asking on the terminal, when there is one.
    pub prompt: Option<Arc<PromptApprover>>,
    /// The model's name for the history.
    pub model_name: String,
}

/// Read the caller's configuration and build the backend, shell and prompt
/// for `kind`. `model` overrides the configured model (`--model`).
pub(crate) fn prepare(
    plugin: &AgentPlugin,
    engine: &EngineInterface,
    kind: PromptKind,
    approval: ApprovalChoice,
    model: Option<String>,
    span: Span,
) -> Result<Prepared, LabeledError> {
    let mut config = config_from_caller(engine, span)?;
    if let PromptKind::Explain { investigate: true } = kind {
        // Investigating reads; nothing else runs, whatever the policy.
        config.policy.mode = agent_core::policy::Mode::ReadOnly;
    }
    let env = HostEnv::read(engine);
    let mut settings = caller_settings(plugin, engine, &env, span)?;
    if let Some(model) = model {
        settings = settings.with_model(model);
    }
    config.model = settings.clone();
    let backend = settings.backend(&|name| env.get(name)).map_err(|e| {
        LabeledError::new(e.to_string())
            .with_code("nu_agent::model")
            .with_label("no model to ask", span)
            .with_help("see `agent model list`; pull one with `agent model pull`, or set model.backend = openai and model.url in $env.config.plugins.agent")
    })?;
    let model_name = match settings.backend {
        BackendKind::OpenAi => settings
            .remote_model
            .clone()
            .unwrap_or_else(|| backend.name()),
        BackendKind::Local => backend.name(),
    };

    let prompt = (approval.instead.is_none() && !approval.yes && approval.approve.is_empty())
        .then(|| Arc::new(PromptApprover::new(engine)));
    let approver: Arc<dyn Approver> = match (&prompt, approval.instead) {
        (Some(prompt), _) => prompt.clone(),
        (None, Some(instead)) => instead,
        (None, None) => Arc::new(NonInteractive {
            yes: approval.yes,
            approve: approval.approve,
        }),
    };
    let shell = caller_shell(plugin, engine, &config, approver, span)?;
    let cwd = shell.cwd();
    let tools = context_tools(&config);
    let context = system_context(&tools, false).prompt_text(&cwd);
    Ok(Prepared {
        options: AgentOptions::from_config(&config, kind),
        system_prompt: system_prompt(kind, &context),
        config,
        backend,
        shell,
        prompt,
        model_name,
    })
}

/// The programs the system context checks.
pub(crate) fn context_tools(config: &AgentConfig) -> Vec<String> {
    config
        .agent
        .context_tools
        .clone()
        .unwrap_or_else(|| DEFAULT_TOOLS.iter().map(|t| t.to_string()).collect())
}

/// The terminal view on stderr as an event sink, with the host's
/// `NO_COLOR`, `NU_AGENT_VERBOSE` and `NU_AGENT_HEARTBEAT_SECS`; only errors
/// when `quiet`. The view is kept to be finished when the request ends.
pub(crate) fn terminal_view(
    engine: &EngineInterface,
    quiet: bool,
) -> (Arc<ProgressView>, EventSink) {
    let env = HostEnv::read(engine);
    let options = ViewOptions::for_stderr_with(&|name| env.get(name)).with_quiet(quiet);
    let view = Arc::new(ProgressView::new(Box::new(std::io::stderr()), options));
    let sink_view = view.clone();
    let sink: EventSink = Arc::new(move |event: &AgentEvent| sink_view.event(event));
    (view, sink)
}

/// A cancel token that Ctrl+C in the host trips, while the guard lives.
pub(crate) fn cancel_on_interrupt(
    engine: &EngineInterface,
) -> Result<(CancelToken, HandlerGuard), LabeledError> {
    let cancel = CancelToken::new();
    let handler_token = cancel.clone();
    let guard = engine.register_signal_handler(Box::new(move |action| {
        if matches!(action, SignalAction::Interrupt) {
            handler_token.cancel();
        }
    }))?;
    Ok((cancel, guard))
}

/// The caller's directory after the request, when it changed.
pub(crate) fn changed_cwd(shell: &PolicyShell, before: &std::path::Path) -> Option<PathBuf> {
    let after = shell.cwd();
    (after != before && after.is_dir()).then_some(after)
}

/// Where a request is recorded (none with `agent.history` off), and the
/// messages it goes on from.
pub(crate) type OpenedConversation = (Option<Box<dyn Transcript>>, Vec<Message>);

/// The history for this request: a new conversation, or the last one when
/// `continue_last` (with its messages). With `agent.history` off, none.
pub(crate) fn open_conversation(
    config: &AgentConfig,
    continue_last: bool,
    cwd: &std::path::Path,
    model: &str,
    request: &str,
    span: Span,
) -> Result<OpenedConversation, LabeledError> {
    if !config.agent.history {
        if continue_last {
            return Err(LabeledError::new(
                "--continue needs the history, and agent.history is false",
            )
            .with_code("nu_agent::history")
            .with_label("nothing to continue", span));
        }
        return Ok((None, Vec::new()));
    }
    match open_history(continue_last, cwd, model, request) {
        Ok((log, messages)) => Ok((Some(log), messages)),
        Err(HistoryError::NothingToContinue) => {
            Err(LabeledError::new("there is no conversation to continue")
                .with_code("nu_agent::history")
                .with_label("--continue", span)
                .with_help("start one without --continue"))
        }
        Err(error) => Err(LabeledError::new(error.to_string())
            .with_code("nu_agent::history")
            .with_label("history unavailable", span)
            .with_help("set NU_AGENT_STATE_DIR to a writable directory, or agent.history = false")),
    }
}
