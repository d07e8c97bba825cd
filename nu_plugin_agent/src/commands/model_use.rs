//! `agent model use`: switch the running plugin to another local model,
//! loading it right away to prove it works.

use agent_core::llm::{Catalog, LocalBackend, ModelSettings, describe_file};
use nu_plugin::{EngineInterface, EvaluatedCall, SimplePluginCommand};
use nu_protocol::{Category, Example, LabeledError, Signature, Spanned, SyntaxShape, Type, Value};

use crate::{
    AgentPlugin,
    caller::{HostEnv, caller_settings, in_caller_dir},
    commands::model::{info_record, model_dir, model_error},
};

/// `agent model use <name|path>`.
pub struct AgentModelUse;

impl SimplePluginCommand for AgentModelUse {
    type Plugin = AgentPlugin;

    fn name(&self) -> &str {
        "agent model use"
    }

    fn signature(&self) -> Signature {
        Signature::build(self.name())
            .input_output_type(Type::Nothing, Type::record())
            .required(
                "model",
                SyntaxShape::String,
                "A catalog name, a file name in the model directories, or a path to a GGUF file.",
            )
            .category(Category::Misc)
    }

    fn description(&self) -> &str {
        "Switch the agent to another local model without restarting nu: it is loaded now, and used from then on."
    }

    fn extra_description(&self) -> &str {
        "The model is loaded right away (with the context, GPU layers and threads of $env.config.plugins.agent.model) to check that it works, and stays resident for model.keep_alive. From then on this plugin process uses it, over model.name, NU_AGENT_MODEL and an OpenAI-compatible backend, until nu exits or the plugin is stopped. A file that does not load is an error and the previous choice stays. Returns the model's `agent model info` record."
    }

    fn search_terms(&self) -> Vec<&str> {
        vec!["switch", "select", "model", "gguf", "load"]
    }

    fn examples(&self) -> Vec<Example<'_>> {
        vec![
            Example {
                example: "agent model use qwen2.5-coder-0.5b",
                description: "Switch to a pulled catalog model",
                result: None,
            },
            Example {
                example: "agent model use ~/models/my-finetune.Q4_K_M.gguf",
                description: "Switch to a model file by path",
                result: None,
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
        let model: Spanned<String> = call.req(0)?;
        let env = HostEnv::read(engine);
        let settings = caller_settings(plugin, engine, &env, call.head)?;
        let catalog = Catalog::builtin();
        let dir = model_dir(&settings, &env, model.span)?;
        let name = in_caller_dir(&model.item, engine, &dir)?;
        let path = dir
            .resolve(&name, &catalog)
            .map_err(|e| model_error(e.to_string(), "not available", model.span))?;
        let path = std::fs::canonicalize(&path).unwrap_or(path);
        // A file whose header does not read never reaches llama.cpp (nor
        // unloads the model in use).
        describe_file(&path, &catalog).map_err(|e| {
            model_error(
                format!("{e}; the model in use did not change"),
                "not a usable model file",
                model.span,
            )
        })?;
        let lookup = |n: &str| env.get(n);
        let trial = ModelSettings {
            chosen: Some(path.clone()),
            ..settings
        }
        .with_env(&lookup);
        let config = trial
            .local_config(&lookup, &catalog)
            .map_err(|e| model_error(e.to_string(), "cannot use this model", model.span))?;
        // Load it now; dropping the conversation leaves it resident for
        // the keep-alive.
        LocalBackend::new(config).load().map_err(|e| {
            model_error(
                format!("{e}; the model in use did not change"),
                "does not load",
                model.span,
            )
        })?;
        plugin.choose_model(path.clone());
        // The choice lives in this process: nu must not stop it when idle,
        // nor when the last background job ends.
        plugin.background.hold(engine)?;
        info_record(
            &trial,
            &env,
            &path.display().to_string(),
            "switched to with `agent model use`",
            model.span,
            call.head,
        )
    }
}
