//! `agent model`: the parent of the model commands (prints their help),
//! and what they share: the caller's model settings, read with the host's
//! environment and the model `agent model use` chose.

use std::{
    collections::HashMap,
    ffi::OsString,
    path::{Path, PathBuf},
};

use agent_core::llm::{ModelDir, ModelSettings};
use nu_plugin::{EngineInterface, EvaluatedCall, SimplePluginCommand};
use nu_protocol::{Category, Example, LabeledError, Signature, Span, Type, Value};

use crate::{
    AgentPlugin,
    convert::{caller_cwd, config_from_caller},
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

/// The caller's environment, as the model settings read it.
pub(crate) struct HostEnv {
    vars: HashMap<String, String>,
}

impl HostEnv {
    /// The host's string variables. `HOME` falls back to this process's
    /// own (a host without one: the test harness).
    pub(crate) fn read(engine: &EngineInterface) -> HostEnv {
        let mut vars: HashMap<String, String> = engine
            .get_env_vars()
            .unwrap_or_default()
            .into_iter()
            .filter_map(|(name, value)| value.coerce_into_string().ok().map(|v| (name, v)))
            .collect();
        if !vars.contains_key("HOME")
            && let Some(home) = std::env::var("HOME").ok().filter(|h| !h.is_empty())
        {
            vars.insert("HOME".into(), home);
        }
        HostEnv { vars }
    }

    /// The value of `name`.
    pub(crate) fn get(&self, name: &str) -> Option<OsString> {
        self.vars.get(name).map(OsString::from)
    }
}

/// The caller's model settings (`$env.config.plugins.agent.model`), the
/// environment's overrides and `agent model use`'s choice applied.
pub(crate) fn caller_settings(
    plugin: &AgentPlugin,
    engine: &EngineInterface,
    env: &HostEnv,
    span: Span,
) -> Result<ModelSettings, LabeledError> {
    let mut settings = config_from_caller(engine, span)?.model;
    settings.chosen = plugin.chosen_model();
    Ok(settings.with_env(&|name| env.get(name)))
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

/// A relative path is the caller's: `./m.gguf` or `m.gguf` in the caller's
/// directory (when no model directory has a file of that name).
pub(crate) fn in_caller_dir(
    name: &str,
    engine: &EngineInterface,
    dir: &ModelDir,
) -> Result<String, LabeledError> {
    let given = Path::new(name);
    if given.is_absolute() || name.starts_with('~') {
        return Ok(name.to_string());
    }
    let has_dir = name.contains('/');
    let gguf_name = name.to_ascii_lowercase().ends_with(".gguf");
    if !has_dir && !gguf_name {
        return Ok(name.to_string());
    }
    let in_dirs = !has_dir && dir.dirs().any(|d| d.join(name).is_file());
    let here: PathBuf = caller_cwd(engine)?.join(given);
    Ok(if !in_dirs && (has_dir || here.is_file()) {
        here.display().to_string()
    } else {
        name.to_string()
    })
}

/// An error of the model commands: `message`, with `label` at `span`.
pub(crate) fn model_error(message: impl Into<String>, label: &str, span: Span) -> LabeledError {
    LabeledError::new(message)
        .with_code("nu_agent::model")
        .with_label(label, span)
}
