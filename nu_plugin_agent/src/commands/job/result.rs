//! `agent job result`: the value a job returned.

use agent_core::jobs::JobStatus;
use nu_plugin::{EngineInterface, EvaluatedCall, SimplePluginCommand};
use nu_protocol::{Category, Example, LabeledError, Signature, Spanned, SyntaxShape, Type, Value};

use crate::{
    AgentPlugin,
    background::{find_job, job_store},
    convert::respan,
};

pub struct AgentJobResult;

impl SimplePluginCommand for AgentJobResult {
    type Plugin = AgentPlugin;

    fn name(&self) -> &str {
        "agent job result"
    }

    fn signature(&self) -> Signature {
        Signature::build(self.name())
            .input_output_type(Type::Nothing, Type::Any)
            .required(
                "id",
                SyntaxShape::Int,
                "The job's id (see `agent job list`).",
            )
            .category(Category::Misc)
    }

    fn description(&self) -> &str {
        "The full value a background job returned, as `agent run` returns it (an agent task: its answer, or the data it returned). A job that has not completed (failed, cancelled, timed out, still running or waiting) is an error that says which."
    }

    fn examples(&self) -> Vec<Example<'_>> {
        vec![Example {
            example: "agent job result 3 | where size > 1gb",
            description: "Work on with a job's table",
            result: None,
        }]
    }

    fn run(
        &self,
        _plugin: &AgentPlugin,
        _engine: &EngineInterface,
        call: &EvaluatedCall,
        _input: &Value,
    ) -> Result<Value, LabeledError> {
        let id: Spanned<i64> = call.req(0)?;
        let store = job_store(call.head)?;
        let record = find_job(&store, &id)?;
        if let Some(why) = record.why_no_result() {
            let status = record.status.as_str();
            return Err(
                LabeledError::new(format!("job {} has no result: {why}", record.id))
                    .with_code("nu_agent::job::no_result")
                    .with_label(format!("job is {status}"), id.span)
                    .with_help(no_result_help(record.id, record.status)),
            );
        }
        let value = store.result(record.id).map_err(|e| {
            LabeledError::new(format!(
                "the result of job {} cannot be read: {e}",
                record.id
            ))
            .with_code("nu_agent::job::result")
            .with_label("unreadable result", id.span)
        })?;
        match value {
            Some(value) => Ok(respan(value, call.head)),
            None => Err(LabeledError::new(format!(
                "job {} completed but its result is missing",
                record.id
            ))
            .with_code("nu_agent::job::no_result")
            .with_label("no result file", id.span)
            .with_help(format!("`agent job logs {}` shows what it did", record.id))),
        }
    }
}

/// What to do about a job that has no result, by its status.
fn no_result_help(id: u64, status: JobStatus) -> String {
    match status {
        JobStatus::Queued | JobStatus::Running => {
            format!("wait for it: `agent job wait {id}`, then `agent job result {id}`")
        }
        JobStatus::Waiting => format!(
            "answer it with `agent job approve {id}` or `agent job deny {id}`; `agent job wait {id}` waits for its end"
        ),
        _ => format!("`agent job logs {id}` shows what it did; start it again for a result"),
    }
}
