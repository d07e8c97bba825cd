//! `agent job status`: one job's record.

use nu_plugin::{EngineInterface, EvaluatedCall, SimplePluginCommand};
use nu_protocol::{Category, Example, LabeledError, Signature, Spanned, SyntaxShape, Type, Value};

use crate::{
    AgentPlugin,
    background::{find_job, job_store, record_value},
};

pub struct AgentJobStatus;

impl SimplePluginCommand for AgentJobStatus {
    type Plugin = AgentPlugin;

    fn name(&self) -> &str {
        "agent job status"
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
        "Show one background job: its status, what it waits for, how long it ran."
    }

    fn examples(&self) -> Vec<Example<'_>> {
        vec![Example {
            example: "agent job status 3",
            description: "How job 3 stands",
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
        Ok(record_value(&find_job(&store, &id)?, call.head))
    }
}
