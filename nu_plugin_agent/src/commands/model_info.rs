//! `agent model info`: one model's facts, whether it is loaded, the GPUs,
//! and the backend settings in effect.

use agent_core::llm::Catalog;
use nu_plugin::{EngineInterface, EvaluatedCall, SimplePluginCommand};
use nu_protocol::{Category, Example, LabeledError, Signature, SyntaxShape, Type, Value};

use crate::{
    AgentPlugin,
    caller::{HostEnv, caller_settings, in_caller_dir},
    commands::model::{info_record, model_dir},
};

/// `agent model info [name]`.
pub struct AgentModelInfo;

impl SimplePluginCommand for AgentModelInfo {
    type Plugin = AgentPlugin;

    fn name(&self) -> &str {
        "agent model info"
    }

    fn signature(&self) -> Signature {
        Signature::build(self.name())
            .input_output_type(Type::Nothing, Type::record())
            .optional(
                "name",
                SyntaxShape::String,
                "A catalog name, a file name in the model directories, or a path (default: the model in use).",
            )
            .category(Category::Misc)
    }

    fn description(&self) -> &str {
        "Show a model (by default the one in use): its GGUF facts, whether it is loaded, the GPUs, and the backend settings."
    }

    fn extra_description(&self) -> &str {
        "The record holds the model's name, `chosen_because` (why this model: the machine's cores, RAM and GPU for the default, or what named it), `measured` (whether the suite here measured the agent on this catalog model; false: not measured by the suite here), path, size, architecture, parameters, quantization, context and layers from its GGUF header (the catalog's facts for a model not pulled yet), `loaded` (context, GPU layers, threads, since when) when it is the model resident in the plugin, the `gpus` of this machine, the GPU backends compiled into this build, a `hint` with the rebuild command when a GPU is present but the build cannot use it, and the `backend` settings in effect (config, environment and `agent model use` applied)."
    }

    fn search_terms(&self) -> Vec<&str> {
        vec![
            "model", "gguf", "gpu", "cuda", "vulkan", "backend", "settings",
        ]
    }

    fn examples(&self) -> Vec<Example<'_>> {
        vec![
            Example {
                example: "agent model info",
                description: "The model in use, the GPUs and the backend settings",
                result: None,
            },
            Example {
                example: "(agent model info smollm2-135m).quantization",
                description: "A catalog model's quantization",
                result: Some(Value::test_string("Q4_1")),
            },
            Example {
                example: "(agent model info).backend.kind",
                description: "The backend in use without configuration",
                result: Some(Value::test_string("local")),
            },
        ]
    }

    fn run(
        &self,
        plugin: &AgentPlugin,
        engine: &EngineInterface,
        call: &EvaluatedCall,
        _input: &Value,
    ) -> Result<Value, LabeledError> {
        let name: Option<String> = call.opt(0)?;
        let env = HostEnv::read(engine);
        let settings = caller_settings(plugin, engine, &env, call.head)?;
        let span = call.positional.first().map_or(call.head, Value::span);
        let (name, chosen_because) = match name {
            Some(name) => (
                in_caller_dir(&name, engine, &model_dir(&settings, &env, span)?)?,
                "named on the command line".to_string(),
            ),
            None => {
                let choice = settings.model_choice(&|n| env.get(n), &Catalog::builtin());
                (choice.model, choice.reason)
            }
        };
        info_record(&settings, &env, &name, &chosen_because, span, call.head)
    }
}
