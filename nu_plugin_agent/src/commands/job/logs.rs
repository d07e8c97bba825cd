//! `agent job logs`: what a job did, event by event.

use agent_core::jobs::EventKind;
use nu_plugin::{EngineInterface, EvaluatedCall, SimplePluginCommand};
use nu_protocol::{
    Category, Example, LabeledError, Record, Signature, Spanned, SyntaxShape, Type, Value,
};

use crate::{
    AgentPlugin,
    background::{date, find_job, job_store},
};

pub struct AgentJobLogs;

impl SimplePluginCommand for AgentJobLogs {
    type Plugin = AgentPlugin;

    fn name(&self) -> &str {
        "agent job logs"
    }

    fn signature(&self) -> Signature {
        Signature::build(self.name())
            .input_output_type(Type::Nothing, Type::table())
            .required(
                "id",
                SyntaxShape::Int,
                "The job's id (see `agent job list`).",
            )
            .category(Category::Misc)
    }

    fn description(&self) -> &str {
        "A background job's events: when it was made, each status change and each step (time, event, detail)."
    }

    fn examples(&self) -> Vec<Example<'_>> {
        vec![Example {
            example: "agent job logs 3",
            description: "What job 3 did",
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
        let span = call.head;
        let rows = store
            .events(record.id)
            .into_iter()
            .map(|event| {
                let (what, detail) = match event.kind {
                    EventKind::Created { title, kind, .. } => {
                        ("created".to_string(), format!("{}: {title}", kind.as_str()))
                    }
                    EventKind::Status { status, detail } => {
                        (status.as_str().to_string(), detail.unwrap_or_default())
                    }
                    EventKind::Log { text } => ("log".to_string(), text),
                };
                let mut row = Record::new();
                row.push(
                    "time",
                    date(event.at, span).unwrap_or_else(|| Value::nothing(span)),
                );
                row.push("event", Value::string(what, span));
                row.push("detail", Value::string(detail, span));
                Value::record(row, span)
            })
            .collect();
        Ok(Value::list(rows, span))
    }
}
