//! An agent task as a background job (`agent job spawn`, `ask --bg`): the
//! whole loop runs in the plugin's job manager, its events in the job's
//! log, its answer as the job's result.

use std::sync::Arc;

use agent_core::{
    agent::{Agent, AgentEvent, Ending, EventSink, PromptKind},
    jobs::{JobKind, JobOutcome, JobStatus},
    policy::Approver,
};
use nu_plugin::EngineInterface;
use nu_protocol::{LabeledError, Value};

use crate::{
    AgentPlugin,
    background::{LateApprover, job_approver, not_recorded, warn_if_nu_exits_soon},
    conversation::{ApprovalChoice, prepare},
};

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
