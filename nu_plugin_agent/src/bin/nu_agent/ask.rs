//! `nu-agent ask`: the agent from any shell. Steps and approvals on
//! stderr (the terminal), the answer on stdout.

use std::{
    io::{IsTerminal, Write},
    process::ExitCode,
    sync::Arc,
};

use agent_core::{
    agent::{
        Agent, AgentEvent, AgentOptions, Ending, EventSink, FrontEnd, HistoryError, PromptKind,
        open_history, request_with_input, system_prompt,
    },
    config::AgentConfig,
    context::{DEFAULT_TOOLS, system_context},
    llm::BackendKind,
    policy::{PolicyShell, ShellOptions},
    shell::{Engine, Session, SessionSeed},
    ui::{ProgressView, ViewOptions},
};
use nu_protocol::{Span, Value};

/// Tokens of that input shown to the model.
const INPUT_TOKENS: usize = 2_000;

/// What `nu-agent ask` was given.
pub struct AskArgs {
    pub request: String,
    pub continue_last: bool,
    pub model: Option<String>,
    pub max_steps: Option<usize>,
    pub cd: bool,
    pub json: bool,
    pub quiet: bool,
}

/// Run one request; the exit code says how it ended (0 answered, 1 failed,
/// 130 cancelled).
pub fn ask(
    args: AskArgs,
    mut config: AgentConfig,
    approver: Arc<dyn agent_core::policy::Approver>,
    cancel: &agent_core::shell::CancelToken,
) -> ExitCode {
    let lookup = |name: &str| std::env::var_os(name);
    let mut settings = config.model.clone().with_env(&lookup);
    if let Some(model) = args.model {
        settings = settings.with_model(model);
    }
    config.model = settings.clone();
    let backend = match settings.backend(&lookup) {
        Ok(backend) => backend,
        Err(err) => {
            eprintln!(
                "nu-agent: {err}\nhelp: see `nu-agent model list`; pull one with `nu-agent model pull`"
            );
            return ExitCode::from(1);
        }
    };
    if !args.quiet
        && let Some(note) = settings.stand_in_note(&lookup, &agent_core::llm::Catalog::builtin())
    {
        eprintln!("nu-agent: note: {note}");
    }
    let model_name = settings
        .remote_model
        .clone()
        .filter(|_| settings.backend == BackendKind::OpenAi)
        .unwrap_or_else(|| backend.name());
    let input = crate::common::piped_input();
    if args.request.trim().is_empty() && input.is_none() {
        eprintln!(
            "nu-agent: ask needs a request, e.g. nu-agent ask \"which files here are largest?\""
        );
        return ExitCode::from(2);
    }
    let seed = match SessionSeed::from_process() {
        Ok(seed) => seed,
        Err(err) => {
            eprintln!("nu-agent: cannot read the current directory: {err}");
            return ExitCode::from(1);
        }
    };
    let cwd_before = seed.cwd.clone();
    let options = ShellOptions {
        worker_exe: crate::common::worker_exe(),
        audit: PolicyShell::audit_log(&seed),
        ..ShellOptions::default()
    };
    let shell = match PolicyShell::new(config.policy.clone(), seed, approver, options) {
        Ok(shell) => shell,
        Err(diagnostic) => {
            eprintln!("{}", diagnostic.rendered);
            return ExitCode::from(1);
        }
    };
    let tools: Vec<String> = config
        .agent
        .context_tools
        .clone()
        .unwrap_or_else(|| DEFAULT_TOOLS.iter().map(|t| t.to_string()).collect());
    let context = system_context(&tools, false).prompt_text(&cwd_before);
    let mut agent_options = AgentOptions::from_config(&config, PromptKind::Task);
    if let Some(steps) = args.max_steps {
        agent_options.max_steps = steps.max(1);
    }
    let (transcript, earlier) = if config.agent.history {
        match open_history(args.continue_last, &cwd_before, &model_name, &args.request) {
            Ok((log, messages)) => (Some(log), messages),
            Err(HistoryError::NothingToContinue) => {
                eprintln!(
                    "nu-agent: there is no conversation to continue; start one without --continue"
                );
                return ExitCode::from(1);
            }
            Err(err) => {
                eprintln!(
                    "nu-agent: {err}\nhelp: set NU_AGENT_STATE_DIR to a writable directory, or agent.history = false"
                );
                return ExitCode::from(1);
            }
        }
    } else {
        (None, Vec::new())
    };
    let options = ViewOptions::for_stderr().with_quiet(args.quiet);
    let view = Arc::new(ProgressView::new(Box::new(std::io::stderr()), options));
    let sink_view = view.clone();
    let sink: EventSink = Arc::new(move |event: &AgentEvent| sink_view.event(event));
    let mut agent = Agent::resume(
        backend,
        shell,
        agent_options,
        system_prompt(PromptKind::Task, &context),
        earlier,
        sink,
    );
    if let Some(log) = transcript {
        agent = agent.with_transcript(log);
    }
    let input_value = input.map(|text| Value::string(text, Span::unknown()));
    let request = request_with_input(&args.request, input_value.as_ref(), INPUT_TOKENS);
    let ending = agent.run(&request, cancel);
    view.finish();
    let final_dir = agent.shell().cwd();
    let mut stdout = std::io::stdout().lock();
    match ending {
        Ending::Answered { text, data } => {
            if args.cd {
                // stdout is the directory (for `cd "$(nu-agent ask --cd …)"`).
                eprintln!("{text}");
                let _ = writeln!(stdout, "{}", final_dir.display());
                return ExitCode::SUCCESS;
            }
            if args.json {
                // One JSON document, whatever the answer is.
                let data = match &data {
                    Some(value) => match render_data(value, true)
                        .and_then(|json| serde_json::from_str(&json).map_err(|e| e.to_string()))
                    {
                        Ok(data) => data,
                        Err(message) => {
                            eprintln!("nu-agent: {message}");
                            return ExitCode::from(1);
                        }
                    },
                    None => serde_json::Value::Null,
                };
                let document = serde_json::json!({
                    "answer": text,
                    "data": data,
                    "failure": null,
                    "steps": agent.steps_taken(),
                    "conversation": agent.conversation_id(),
                });
                let _ = writeln!(stdout, "{document:#}");
                return ExitCode::SUCCESS;
            }
            match data {
                Some(value) => {
                    eprintln!("{text}");
                    match render_data(&value, args.json) {
                        Ok(rendered) => {
                            let _ = writeln!(stdout, "{}", rendered.trim_end());
                        }
                        Err(message) => {
                            eprintln!("nu-agent: {message}");
                            return ExitCode::from(1);
                        }
                    }
                }
                None => {
                    let _ = writeln!(stdout, "{}", text.trim_end());
                }
            }
            ExitCode::SUCCESS
        }
        Ending::Failed(failure) => {
            eprintln!("nu-agent: the agent stopped: {failure}");
            if let Some(help) = failure.help(FrontEnd::Cli) {
                eprintln!("help: {help}");
            }
            if args.json {
                print_unanswered(&mut stdout, &agent, &failure.to_string());
            }
            ExitCode::from(1)
        }
        Ending::Cancelled => {
            eprintln!("nu-agent: interrupted; the conversation is saved (nu-agent ask --continue)");
            if args.json {
                print_unanswered(&mut stdout, &agent, "interrupted");
            }
            ExitCode::from(130)
        }
    }
}

/// `--json` for a run that ended without an answer: the same document,
/// with no answer and why.
fn print_unanswered(out: &mut impl Write, agent: &Agent, failure: &str) {
    let document = serde_json::json!({
        "answer": null,
        "data": null,
        "failure": failure,
        "steps": agent.steps_taken(),
        "conversation": agent.conversation_id(),
    });
    let _ = writeln!(out, "{document:#}");
}

/// Returned data: nu's table on a terminal, JSON with `--json` (or when
/// piped, so scripts can read it).
fn render_data(value: &Value, json: bool) -> Result<String, String> {
    let session = Session::new(Engine::standard(), SessionSeed::new(std::env::temp_dir()))
        .map_err(|d| d.summary())?;
    let pipeline = if json || !std::io::stdout().is_terminal() {
        "to json --indent 2".to_string()
    } else {
        let width = std::env::var("COLUMNS")
            .ok()
            .and_then(|c| c.parse::<usize>().ok())
            .unwrap_or(120);
        format!("table --width {width}")
    };
    session
        .pipe_value(value.clone(), &pipeline)
        .map_err(|d| d.summary())
}
