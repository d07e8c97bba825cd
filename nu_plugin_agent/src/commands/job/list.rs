//! `agent job list`: every job with its status.

use nu_plugin::{EngineInterface, EvaluatedCall, SimplePluginCommand};
use nu_protocol::{Category, Example, LabeledError, Signature, Type, Value};

use super::WHERE;
use crate::{
    AgentPlugin,
    background::{job_store, record_value},
};

pub struct AgentJobList;

impl SimplePluginCommand for AgentJobList {
    type Plugin = AgentPlugin;

    fn name(&self) -> &str {
        "agent job list"
    }

    fn signature(&self) -> Signature {
        Signature::build(self.name())
            .input_output_type(Type::Nothing, Type::table())
            .category(Category::Misc)
    }

    fn description(&self) -> &str {
        "List the background jobs: id, kind, title, status, started, duration, waiting_for, error."
    }

    fn extra_description(&self) -> &str {
        WHERE
    }

    fn examples(&self) -> Vec<Example<'_>> {
        vec![Example {
            example: "agent job list | where status == waiting",
            description: "Jobs that wait for your approval",
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
        let store = job_store(call.head)?;
        let rows = store
            .list()
            .iter()
            .map(|record| record_value(record, call.head))
            .collect();
        Ok(Value::list(rows, call.head))
    }
}
