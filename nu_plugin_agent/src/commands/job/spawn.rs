//! `agent job spawn`: a whole agent task in the background.

use nu_plugin::{EngineInterface, EvaluatedCall, SimplePluginCommand};
use nu_protocol::{Category, Example, LabeledError, Signature, SyntaxShape, Type, Value};

use super::WHERE;
use crate::{
    AgentPlugin,
    caller::{approve_patterns, with_approval_flags},
    task_job::spawn_task,
};

pub struct AgentJobSpawn;

impl SimplePluginCommand for AgentJobSpawn {
    type Plugin = AgentPlugin;

    fn name(&self) -> &str {
        "agent job spawn"
    }

    fn signature(&self) -> Signature {
        with_approval_flags(Signature::build(self.name()))
            .input_output_type(Type::Nothing, Type::Int)
            .rest("task", SyntaxShape::String, "What to do, in plain words.")
            .named(
                "model",
                SyntaxShape::String,
                "The model for this task (a local model name or path, or the server's model name).",
                Some('m'),
            )
            .category(Category::Misc)
    }

    fn description(&self) -> &str {
        "Give the agent a task to do in the background; returns the job id at once."
    }

    fn extra_description(&self) -> &str {
        WHERE
    }

    fn examples(&self) -> Vec<Example<'_>> {
        vec![Example {
            example: r#"agent job spawn "find the 10 largest files under ~/Downloads""#,
            description: "A task that reads a lot, off the prompt; `agent job result` has the answer",
            result: None,
        }]
    }

    fn run(
        &self,
        plugin: &AgentPlugin,
        engine: &EngineInterface,
        call: &EvaluatedCall,
        _input: &Value,
    ) -> Result<Value, LabeledError> {
        let words: Vec<String> = call.rest(0)?;
        let task = words.join(" ");
        if task.trim().is_empty() {
            return Err(LabeledError::new("agent job spawn needs a task")
                .with_code("nu_agent::job::empty")
                .with_label("say what to do", call.head));
        }
        spawn_task(
            plugin,
            engine,
            &task,
            call.has_flag("yes")?,
            approve_patterns(call)?,
            call.get_flag("model")?,
            call.head,
        )
    }
}
