//! `ask`: give the agent a task in plain words.

use agent_core::agent::{Agent, Ending, FrontEnd, PromptKind, request_with_input};
use agent_core::policy::NOBODY_TO_ASK_HELP;
use nu_plugin::{EngineInterface, EvaluatedCall, PluginCommand};
use nu_protocol::{
    ByteStream, ByteStreamType, Category, Example, LabeledError, PipelineData, Signature,
    SyntaxShape, Type, Value,
};

use crate::{
    AgentPlugin,
    background::AskJobs,
    caller::{approve_patterns, sandbox_worker, with_approval_flags},
    conversation::{
        ApprovalChoice, cancel_on_interrupt, changed_cwd, open_conversation, prepare, terminal_view,
    },
    convert::respan,
};

/// A line for each background job that waits for the user's approval.
fn waiting_jobs() -> Vec<String> {
    let Ok(store) = agent_core::jobs::JobStore::in_state_dir() else {
        return Vec::new();
    };
    store
        .list()
        .into_iter()
        .filter(|job| job.status == agent_core::jobs::JobStatus::Waiting)
        .map(|job| {
            format!(
                "background job {} waits for your approval: {} (`agent job approve {}` or `agent job deny {}`)",
                job.id,
                job.waiting_for.as_deref().unwrap_or("a step"),
                job.id,
                job.id
            )
        })
        .collect()
}

/// Tokens of piped input shown to the model.
const INPUT_TOKENS: usize = 2_000;

/// `ask <request>`.
pub struct Ask;

impl PluginCommand for Ask {
    type Plugin = AgentPlugin;

    fn name(&self) -> &str {
        "ask"
    }

    fn signature(&self) -> Signature {
        with_approval_flags(Signature::build(self.name()))
            .input_output_types(vec![(Type::Any, Type::Any)])
            .rest(
                "request",
                SyntaxShape::String,
                "What to do, in plain words (quotes optional).",
            )
            .switch(
                "continue",
                "Go on with the last conversation (its results included).",
                Some('c'),
            )
            .named(
                "model",
                SyntaxShape::String,
                "The model for this request (a local model name or path, or the server's model name).",
                Some('m'),
            )
            .named(
                "max-steps",
                SyntaxShape::Int,
                "Most model turns for this request (default: agent.max_steps, 15).",
                None,
            )
            .switch(
                "cd",
                "Make the agent's final directory your current directory.",
                None,
            )
            .switch(
                "quiet",
                "Print no progress on stderr (steps, heartbeat); errors still show.",
                Some('q'),
            )
            .switch(
                "bg",
                "Do it as a background job (as `agent job spawn`): returns the job id at once.",
                None,
            )
            .category(Category::Misc)
    }

    fn description(&self) -> &str {
        "Ask the agent to do something: it plans, runs Nushell pipelines under your policy, and answers."
    }

    fn extra_description(&self) -> &str {
        "The model writes pipelines; each runs in the agent's embedded engine in your current directory, under $env.config.plugins.agent.policy: reads run, what needs confirmation is asked about on the terminal (denied where nobody can be asked, unless --yes or --approve), what is blocked never runs. Each step shows one line on stderr with the policy's verdict and a preview of its result. Outside a terminal (scripts, `nu -c`, CI) a line says when each model turn starts and another every 10 s while it runs (NU_AGENT_HEARTBEAT_SECS sets the interval, 0 turns it off); --quiet prints none of this, only errors.

The answer is returned: text, or — when the model returns a result — the data itself, so `ask \"the 5 largest files here\" | first 2` works. Data piped in is shown to the model: `open build.log | ask why did it fail?`. Every conversation is saved in the state dir (`agent history`); --continue goes on with the last one (its earlier results as text; new ones are numbered after them). Ctrl+C stops the request and what it runs.

NU_AGENT_MODEL and NU_AGENT_BACKEND_URL override the configured model and server."
    }

    fn search_terms(&self) -> Vec<&str> {
        vec!["agent", "llm", "ai", "assistant", "chat", "task", "prompt"]
    }

    fn examples(&self) -> Vec<Example<'_>> {
        vec![
            Example {
                example: r#"ask "free up disk space""#,
                description: "Give the agent a task; it asks before changing anything",
                result: None,
            },
            Example {
                example: r#"ask "the 5 largest files here" | first 2"#,
                description: "Keep working with the data it returns",
                result: None,
            },
            Example {
                example: r#"open build.log | ask "why did it fail?""#,
                description: "Piped data is context for the request",
                result: None,
            },
            Example {
                example: r#"ask --continue "now only those changed this week""#,
                description: "Go on with the last conversation",
                result: None,
            },
            Example {
                example: r#"ask --approve "^git fetch *" "update the repositories under ~/src""#,
                description: "Approve some steps in advance (scripts, nu -c)",
                result: None,
            },
        ]
    }

    fn run(
        &self,
        plugin: &AgentPlugin,
        engine: &EngineInterface,
        call: &EvaluatedCall,
        input: PipelineData,
    ) -> Result<PipelineData, LabeledError> {
        let head = call.head;
        let words: Vec<String> = call.rest(0)?;
        let request = words.join(" ");
        let input = input.into_value(head)?;
        if request.trim().is_empty() && matches!(input, Value::Nothing { .. }) {
            return Err(LabeledError::new("ask needs a request")
                .with_code("nu_agent::ask::empty")
                .with_label("say what to do", head)
                .with_help(r#"for example: ask "which files here are largest?""#));
        }
        if call.has_flag("bg")? {
            let task = request_with_input(&request, Some(&input), INPUT_TOKENS);
            return crate::task_job::spawn_task(
                plugin,
                engine,
                &task,
                call.has_flag("yes")?,
                approve_patterns(call)?,
                call.get_flag("model")?,
                head,
            )
            .map(|id| PipelineData::value(id, None));
        }
        let max_steps: Option<i64> = call.get_flag("max-steps")?;
        let approval = ApprovalChoice {
            yes: call.has_flag("yes")?,
            approve: approve_patterns(call)?,
            ..ApprovalChoice::default()
        };
        let mut prepared = prepare(
            plugin,
            engine,
            PromptKind::Task,
            approval,
            call.get_flag("model")?,
            head,
        )?;
        if let Some(steps) = max_steps {
            prepared.options.max_steps = usize::try_from(steps)
                .ok()
                .filter(|s| *s > 0)
                .ok_or_else(|| {
                    LabeledError::new("--max-steps must be at least 1")
                        .with_label("not a positive number", head)
                })?;
        }
        let cwd_before = prepared.shell.cwd();
        let text = request_with_input(&request, Some(&input), INPUT_TOKENS);
        let (history, earlier) = open_conversation(
            &prepared.config,
            call.has_flag("continue")?,
            &cwd_before,
            &prepared.model_name,
            &request,
            head,
        )?;
        let (view, sink) = terminal_view(engine, call.has_flag("quiet")?);
        for notice in waiting_jobs() {
            sink(&agent_core::agent::AgentEvent::Notice(notice));
        }
        let prompt = prepared.prompt.clone();
        let prepared_jobs = prepared.config.agent.jobs.clone();
        let job_policy = prepared.config.policy.clone();
        let job_seed = prepared.shell.seed();
        let job_max_output = prepared.config.agent.max_output;
        let mut agent = Agent::resume(
            prepared.backend,
            prepared.shell,
            prepared.options,
            prepared.system_prompt,
            earlier,
            sink,
        );
        if let Some(log) = history {
            agent = agent.with_transcript(log);
        }
        let manager = plugin
            .background
            .manager(engine, &prepared_jobs, head)?
            .clone();
        agent = agent.with_background(std::sync::Arc::new(AskJobs {
            manager,
            policy: job_policy,
            seed: job_seed,
            max_output: job_max_output,
            worker_exe: sandbox_worker(),
            approver: None,
            audit_dir: None,
        }));
        let (cancel, _interrupt) = cancel_on_interrupt(engine)?;
        let ending = agent.run(&text, &cancel);
        plugin.hold_if_always(engine);
        view.finish();
        if prompt.is_some_and(|p| p.found_nobody()) {
            eprintln!("note: steps that needed approval were denied: {NOBODY_TO_ASK_HELP}");
        }
        if call.has_flag("cd")?
            && let Some(dir) = changed_cwd(agent.shell(), &cwd_before)
        {
            engine.add_env_var("PWD", Value::string(dir.display().to_string(), head))?;
        }
        match ending {
            Ending::Answered {
                data: Some(value), ..
            } => Ok(PipelineData::value(respan(value, head), None)),
            Ending::Answered { text, .. } => Ok(PipelineData::byte_stream(
                ByteStream::read(
                    std::io::Cursor::new(text.into_bytes()),
                    head,
                    engine.signals().clone(),
                    ByteStreamType::String,
                ),
                None,
            )),
            Ending::Failed(failure) => {
                let error = LabeledError::new(format!("the agent stopped: {failure}"))
                    .with_code("nu_agent::ask::failed")
                    .with_label("no answer", head);
                Err(match failure.help(FrontEnd::Ask) {
                    Some(help) => error.with_help(help),
                    None => error,
                })
            }
            Ending::Cancelled => Err(LabeledError::new("ask was interrupted")
                .with_code("nu_agent::ask::interrupted")
                .with_label("stopped by Ctrl+C; what it was running was killed", head)
                .with_help("the conversation so far is saved: ask --continue goes on with it")),
        }
    }
}
