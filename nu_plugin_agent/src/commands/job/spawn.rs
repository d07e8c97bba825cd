//! `agent job spawn`: a whole agent task in the background.

use std::sync::Arc;

use agent_core::{
    agent::{Agent, AgentEvent, Ending, EventSink, PromptKind},
    jobs::{JobKind, JobOutcome, JobStatus},
    policy::Approver,
};
use nu_plugin::{EngineInterface, EvaluatedCall, SimplePluginCommand};
use nu_protocol::{Category, Example, LabeledError, Signature, SyntaxShape, Type, Value};

use super::WHERE;
use crate::{
    AgentPlugin,
    background::{LateApprover, job_approver, not_recorded, warn_if_nu_exits_soon},
    caller::{approve_patterns, with_approval_flags},
    conversation::{ApprovalChoice, prepare},
};

pub struct AgentJobSpawn;

impl SimplePluginCommand for AgentJobSpawn {
    type Plugin = AgentPlugin;

    fn name(&self) -> &str {
        "agent job spawn"
    }

    fn signature(&self) -> Signature {
        with_approval_flags(Signature::build(self.name()))
            .input_output_type(Type::Nothing, Type::Int)
            .rest("task", SyntaxShape::String, "What to do, in plain words.")
            .named(
                "model",
                SyntaxShape::String,
                "The model for this task (a local model name or path, or the server's model name).",
                Some('m'),
            )
            .category(Category::Misc)
    }

    fn description(&self) -> &str {
        "Give the agent a task to do in the background; returns the job id at once."
    }

    fn extra_description(&self) -> &str {
        WHERE
    }

    fn examples(&self) -> Vec<Example<'_>> {
        vec![Example {
            example: r#"agent job spawn "find the 10 largest files under ~/Downloads""#,
            description: "A task that reads a lot, off the prompt; `agent job result` has the answer",
            result: None,
        }]
    }

    fn run(
        &self,
        plugin: &AgentPlugin,
        engine: &EngineInterface,
        call: &EvaluatedCall,
        _input: &Value,
    ) -> Result<Value, LabeledError> {
        let words: Vec<String> = call.rest(0)?;
        let task = words.join(" ");
        if task.trim().is_empty() {
            return Err(LabeledError::new("agent job spawn needs a task")
                .with_code("nu_agent::job::empty")
                .with_label("say what to do", call.head));
        }
        spawn_task(
            plugin,
            engine,
            &task,
            call.has_flag("yes")?,
            approve_patterns(call)?,
            call.get_flag("model")?,
            call.head,
        )
    }
}

/// Start `task` as a background agent task (`agent job spawn`, `ask
/// --bg`); returns the job id as a nu int.
pub(crate) fn spawn_task(
    plugin: &AgentPlugin,
    engine: &EngineInterface,
    task: &str,
    yes: bool,
    approve: Vec<String>,
    model: Option<String>,
    head: nu_protocol::Span,
) -> Result<Value, LabeledError> {
    let (approver, late) = job_approver(yes, approve);
    let late: Option<Arc<LateApprover>> = late;
    let prepared = prepare(
        plugin,
        engine,
        PromptKind::Task,
        ApprovalChoice {
            instead: Some(approver),
            ..ApprovalChoice::default()
        },
        model,
        head,
    )?;
    let manager = plugin
        .background
        .manager(engine, &prepared.config.agent.jobs, head)?;
    let request = task.to_string();
    let id =
        manager
            .submit(
                JobKind::Task,
                task,
                Box::new(move |job| {
                    if let Some(late) = late {
                        late.set(job.approver.clone() as Arc<dyn Approver>);
                    }
                    let log = job.logger();
                    let sink: EventSink = Arc::new(move |event: &AgentEvent| {
                        if let Some(line) = log_line(event) {
                            log.log(line);
                        }
                    });
                    let mut agent = Agent::resume(
                        prepared.backend,
                        prepared.shell,
                        prepared.options,
                        prepared.system_prompt,
                        Vec::new(),
                        sink,
                    );
                    match agent.run(&request, &job.cancel) {
                        Ending::Answered { text, data } => JobOutcome {
                            status: JobStatus::Completed,
                            value: Some(data.unwrap_or_else(|| {
                                Value::string(text, nu_protocol::Span::unknown())
                            })),
                            error: None,
                        },
                        Ending::Failed(failure) => JobOutcome {
                            status: JobStatus::Failed,
                            value: None,
                            error: Some(failure.to_string()),
                        },
                        Ending::Cancelled => JobOutcome {
                            status: JobStatus::Cancelled,
                            value: None,
                            error: Some("cancelled".into()),
                        },
                    }
                }),
            )
            .map_err(|e| not_recorded(e, head))?;
    warn_if_nu_exits_soon(id);
    Ok(Value::int(id as i64, head))
}

/// The line a task's event leaves in its log, if any.
fn log_line(event: &AgentEvent) -> Option<String> {
    match event {
        AgentEvent::Proposed {
            step,
            pipeline,
            label,
            ..
        } => Some(format!("step {step}: {pipeline} ({label})")),
        AgentEvent::Observed {
            step,
            status,
            preview,
            ..
        } => Some(format!("step {step}: {} — {preview}", status.as_str())),
        AgentEvent::LookedUp { step, command } => Some(format!("step {step}: help {command}")),
        AgentEvent::Repaired { step, message } => Some(format!("step {step}: {message}")),
        AgentEvent::Notice(text) | AgentEvent::External(text) => Some(text.clone()),
        AgentEvent::Answered { text, .. } => Some(format!("answer: {text}")),
        AgentEvent::Failed { error } => Some(format!("failed: {error}")),
        _ => None,
    }
}
