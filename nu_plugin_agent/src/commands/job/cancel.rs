//! `agent job cancel`: stop a job and what it started.

use std::time::Duration;

use agent_core::shell::CancelToken;
use nu_plugin::{EngineInterface, EvaluatedCall, SimplePluginCommand};
use nu_protocol::{Category, Example, LabeledError, Signature, Spanned, SyntaxShape, Type, Value};

use crate::{
    AgentPlugin,
    background::{find_job, job_store, record_value},
};

/// How long `cancel` waits for the job to report that it stopped.
const SETTLE: Duration = Duration::from_secs(10);

pub struct AgentJobCancel;

impl SimplePluginCommand for AgentJobCancel {
    type Plugin = AgentPlugin;

    fn name(&self) -> &str {
        "agent job cancel"
    }

    fn signature(&self) -> Signature {
        Signature::build(self.name())
            .input_output_type(Type::Nothing, Type::record())
            .required(
                "id",
                SyntaxShape::Int,
                "The job's id (see `agent job list`).",
            )
            .category(Category::Misc)
    }

    fn description(&self) -> &str {
        "Cancel a background job: a queued one never starts, a running one is stopped with every process it started; returns its record."
    }

    fn examples(&self) -> Vec<Example<'_>> {
        vec![Example {
            example: "agent job cancel 3",
            description: "Stop job 3",
            result: None,
        }]
    }

    fn run(
        &self,
        plugin: &AgentPlugin,
        _engine: &EngineInterface,
        call: &EvaluatedCall,
        _input: &Value,
    ) -> Result<Value, LabeledError> {
        let id: Spanned<i64> = call.req(0)?;
        let store = job_store(call.head)?;
        let record = find_job(&store, &id)?;
        let cancelled = plugin
            .background
            .running()
            .filter(|manager| manager.cancel(record.id));
        let Some(manager) = cancelled else {
            let why = if record.status.is_finished() {
                format!("job {} is already {}", record.id, record.status.as_str())
            } else {
                format!(
                    "job {} runs in another process ({}), not in this plugin",
                    record.id, record.owner.pid
                )
            };
            return Err(LabeledError::new(why)
                .with_code("nu_agent::job::not_running")
                .with_label("cannot cancel this job here", id.span));
        };
        let record = manager
            .wait(record.id, Some(SETTLE), &CancelToken::new())
            .unwrap_or(record);
        Ok(record_value(&record, call.head))
    }
}
