//! `agent`: the parent command; prints help.

use nu_plugin::{EngineInterface, EvaluatedCall, SimplePluginCommand};
use nu_protocol::{Category, Example, LabeledError, Signature, Type, Value};

use crate::AgentPlugin;

/// `agent` alone prints the list of agent commands.
pub struct Agent;

impl SimplePluginCommand for Agent {
    type Plugin = AgentPlugin;

    fn name(&self) -> &str {
        "agent"
    }

    fn signature(&self) -> Signature {
        Signature::build(self.name())
            .input_output_type(Type::Nothing, Type::String)
            .category(Category::Misc)
    }

    fn description(&self) -> &str {
        "A local-first AI agent inside Nushell. Run `agent <subcommand> --help` for details."
    }

    fn extra_description(&self) -> &str {
        "Start with `ask \"<task>\"`: the agent plans, runs Nushell pipelines under your policy and answers (`ask --help`). The `agent` subcommands below explain, suggest, run, check and manage jobs and models.
The plugin embeds its own Nushell engine (0.115) and must be rebuilt when nu's minor version changes.
Configuration lives in $env.config.plugins.agent."
    }

    fn search_terms(&self) -> Vec<&str> {
        vec!["ai", "llm", "assistant", "agent"]
    }

    fn examples(&self) -> Vec<Example<'_>> {
        vec![Example {
            example: "agent",
            description: "List the agent commands",
            result: None,
        }]
    }

    fn run(
        &self,
        _plugin: &AgentPlugin,
        engine: &EngineInterface,
        call: &EvaluatedCall,
        _input: &Value,
    ) -> Result<Value, LabeledError> {
        Ok(Value::string(engine.get_help()?, call.head))
    }
}
