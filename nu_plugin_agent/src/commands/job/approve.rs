//! `agent job approve`: let a waiting job's step run.

use agent_core::policy::Approval;
use nu_plugin::{EngineInterface, EvaluatedCall, SimplePluginCommand};
use nu_protocol::{Category, Example, LabeledError, Signature, Spanned, SyntaxShape, Type, Value};

use super::answer;
use crate::AgentPlugin;

pub struct AgentJobApprove;

impl SimplePluginCommand for AgentJobApprove {
    type Plugin = AgentPlugin;

    fn name(&self) -> &str {
        "agent job approve"
    }

    fn signature(&self) -> Signature {
        Signature::build(self.name())
            .input_output_type(Type::Nothing, Type::record())
            .required(
                "id",
                SyntaxShape::Int,
                "The job's id (see `agent job list`).",
            )
            .switch(
                "always",
                "Also approve the same commands for the rest of the job.",
                None,
            )
            .category(Category::Misc)
    }

    fn description(&self) -> &str {
        "Approve the step a background job waits for (status `waiting`; `agent job status` says what it is)."
    }

    fn examples(&self) -> Vec<Example<'_>> {
        vec![Example {
            example: "agent job list | where status == waiting | get id | each { agent job approve $in }",
            description: "Approve every waiting job",
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
        let approval = if call.has_flag("always")? {
            Approval::Always
        } else {
            Approval::Yes
        };
        answer(plugin, &id, approval, call.head)
    }
}
