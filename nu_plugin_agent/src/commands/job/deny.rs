//! `agent job deny`: refuse the step a job waits for.

use agent_core::policy::Approval;
use nu_plugin::{EngineInterface, EvaluatedCall, SimplePluginCommand};
use nu_protocol::{Category, Example, LabeledError, Signature, Spanned, SyntaxShape, Type, Value};

use super::answer;
use crate::AgentPlugin;

pub struct AgentJobDeny;

impl SimplePluginCommand for AgentJobDeny {
    type Plugin = AgentPlugin;

    fn name(&self) -> &str {
        "agent job deny"
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
        "Deny the step a background job waits for: the step does not run (an agent task is told why and goes on)."
    }

    fn examples(&self) -> Vec<Example<'_>> {
        vec![Example {
            example: "agent job deny 3",
            description: "Refuse what job 3 waits for",
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
        answer(plugin, &id, Approval::No, call.head)
    }
}
