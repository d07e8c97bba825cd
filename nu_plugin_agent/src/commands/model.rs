//! `agent model`: the parent of the model commands (prints their help),
//! and what they share: the model directories of the caller's settings,
//! their errors, and the `agent model info` record.

use agent_core::llm::{
    Catalog, GpuReport, ModelDir, ModelHost, ModelSettings, describe, is_resident,
};
use nu_plugin::{EngineInterface, EvaluatedCall, SimplePluginCommand};
use nu_protocol::{Category, Example, LabeledError, Signature, Span, Type, Value};

use crate::{
    AgentPlugin,
    caller::HostEnv,
    model_report::{info_value, settings_value},
};

/// `agent model` alone prints the list of model commands.
pub struct AgentModel;

impl SimplePluginCommand for AgentModel {
    type Plugin = AgentPlugin;

    fn name(&self) -> &str {
        "agent model"
    }

    fn signature(&self) -> Signature {
        Signature::build(self.name())
            .input_output_type(Type::Nothing, Type::String)
            .category(Category::Misc)
    }

    fn description(&self) -> &str {
        "The agent's models: list them, show one, pull one from the hub, switch to one."
    }

    fn extra_description(&self) -> &str {
        "Model files live in $NU_AGENT_CACHE/models (default ~/.cache/nu-agent/models) and the directories in $env.config.plugins.agent.model.dirs. The model record of the config chooses the backend and the model; NU_AGENT_MODEL, NU_AGENT_BACKEND_URL and NU_AGENT_HUB_URL override it."
    }

    fn search_terms(&self) -> Vec<&str> {
        vec!["llm", "gguf", "model", "download"]
    }

    fn examples(&self) -> Vec<Example<'_>> {
        vec![Example {
            example: "agent model",
            description: "List the model commands",
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

/// The model directories for these settings.
pub(crate) fn model_dir(
    settings: &ModelSettings,
    env: &HostEnv,
    span: Span,
) -> Result<ModelDir, LabeledError> {
    settings
        .model_dir(&|name| env.get(name))
        .map_err(|e| model_error(e.to_string(), "no model directory", span))
}

/// An error of the model commands: `message`, with `label` at `span`.
pub(crate) fn model_error(message: impl Into<String>, label: &str, span: Span) -> LabeledError {
    LabeledError::new(message)
        .with_code("nu_agent::model")
        .with_label(label, span)
}

/// The `agent model info` record of the model `name` means; an error at
/// `name_span` when there is none.
pub(crate) fn info_record(
    settings: &ModelSettings,
    env: &HostEnv,
    name: &str,
    chosen_because: &str,
    name_span: Span,
    span: Span,
) -> Result<Value, LabeledError> {
    let catalog = Catalog::builtin();
    let dir = model_dir(settings, env, name_span)?;
    let facts = describe(&dir, &catalog, name)
        .map_err(|e| model_error(e.to_string(), "no such model", name_span))?;
    let resident = ModelHost::global().resident();
    let loaded = resident.as_ref().filter(|r| {
        facts
            .path
            .as_deref()
            .is_some_and(|p| is_resident(p, Some(r)))
    });
    let lookup = |n: &str| env.get(n);
    let backend = settings_value(
        settings,
        &settings.local_model_name(&lookup, &catalog),
        &settings.hub_url(&lookup),
        span,
    );
    Ok(info_value(
        &facts,
        loaded,
        &GpuReport::detect(),
        backend,
        Some(chosen_because),
        span,
    ))
}
