//! `agent context`: the system facts the model is given.

use agent_core::context::system_context;
use nu_plugin::{EngineInterface, EvaluatedCall, SimplePluginCommand};
use nu_protocol::{Category, Example, LabeledError, Signature, Type, Value};

use crate::{
    AgentPlugin,
    caller::{caller_cwd, config_from_caller},
    conversation::context_tools,
};

/// `agent context [--refresh]`.
pub struct AgentContext;

impl SimplePluginCommand for AgentContext {
    type Plugin = AgentPlugin;

    fn name(&self) -> &str {
        "agent context"
    }

    fn signature(&self) -> Signature {
        Signature::build(self.name())
            .input_output_type(Type::Nothing, Type::record())
            .switch("refresh", "Gather the facts again.", Some('r'))
            .switch(
                "prompt",
                "Return the text the model reads instead of the record.",
                Some('p'),
            )
            .category(Category::Misc)
    }

    fn description(&self) -> &str {
        "The facts about this machine the agent's model is given: OS, distro, kernel, arch, CPU, RAM, disks, user and sudo, package manager, installed tools."
    }

    fn extra_description(&self) -> &str {
        "Gathered once per plugin process with the embedded engine (sys host, sys cpu, sys mem, sys disks, which); --refresh gathers again. The programs checked are $env.config.plugins.agent.agent.context_tools (a default list otherwise)."
    }

    fn search_terms(&self) -> Vec<&str> {
        vec!["system", "facts", "machine", "prompt", "environment"]
    }

    fn examples(&self) -> Vec<Example<'_>> {
        vec![
            Example {
                example: "(agent context).arch",
                description: "The machine's architecture, as the model is told",
                result: None,
            },
            Example {
                example: "agent context --prompt",
                description: "The lines of the system prompt about this machine",
                result: None,
            },
        ]
    }

    fn run(
        &self,
        _plugin: &AgentPlugin,
        engine: &EngineInterface,
        call: &EvaluatedCall,
        _input: &Value,
    ) -> Result<Value, LabeledError> {
        let config = config_from_caller(engine, call.head)?;
        let context = system_context(&context_tools(&config), call.has_flag("refresh")?);
        if call.has_flag("prompt")? {
            let cwd = caller_cwd(engine)?;
            return Ok(Value::string(context.prompt_text(&cwd), call.head));
        }
        Ok(context.to_value(call.head))
    }
}
