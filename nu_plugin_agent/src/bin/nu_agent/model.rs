//! `nu-agent model list|info|pull`: the plugin's `agent model` records
//! (the local models and the catalog, one model's facts, a download),
//! printed as nu's table or as JSON.

use std::process::ExitCode;

use agent_core::llm::{
    Catalog, GpuReport, ModelSettings, PullEvent, catalog_entry, describe, list_models, pull,
};
use nu_plugin_agent::model_report::{
    PullProgress, info_value, pulled_value, rows_value, settings_value,
};
use nu_protocol::Span;

use crate::{
    ModelCommand,
    common::{EXIT_FAILED, EXIT_INTERRUPTED, cancel_on_ctrl_c, print_value},
};

/// `nu-agent model ...`: the plugin's `agent model` records, printed as
/// nu's table or as JSON.
pub fn model(command: ModelCommand, settings: ModelSettings) -> ExitCode {
    let lookup = |name: &str| std::env::var_os(name);
    let settings = settings.with_env(&lookup);
    let catalog = Catalog::builtin();
    let span = Span::unknown();
    let dir = match settings.model_dir(&lookup) {
        Ok(dir) => dir,
        Err(error) => {
            eprintln!("nu-agent: {error}");
            return ExitCode::from(EXIT_FAILED);
        }
    };
    let (value, json) = match command {
        ModelCommand::List { json } => {
            // No model is ever resident in this process.
            let rows = list_models(&dir, &catalog, None);
            for row in &rows {
                if let Some(error) = &row.error {
                    eprintln!("nu-agent: warning: {error}");
                }
            }
            (rows_value(&rows, span), json)
        }
        ModelCommand::Info { name, json } => {
            let choice = settings.model_choice(&lookup, &catalog);
            let model_name = choice.model.clone();
            let chosen_because = match &name {
                Some(_) => "named on the command line".to_string(),
                None => choice.reason,
            };
            let facts = match describe(&dir, &catalog, name.as_deref().unwrap_or(&model_name)) {
                Ok(facts) => facts,
                Err(error) => {
                    eprintln!("nu-agent: {error}");
                    return ExitCode::from(EXIT_FAILED);
                }
            };
            let backend = settings_value(&settings, &model_name, &settings.hub_url(&lookup), span);
            (
                info_value(
                    &facts,
                    None,
                    &GpuReport::detect(),
                    backend,
                    Some(&chosen_because),
                    span,
                ),
                json,
            )
        }
        ModelCommand::Pull { name, json } => {
            let name = name.unwrap_or_else(|| ModelSettings::default_entry(&catalog).name.clone());
            let entry = match catalog_entry(&catalog, &name) {
                Ok(entry) => entry,
                Err(error) => {
                    eprintln!("nu-agent: {error}");
                    return ExitCode::from(EXIT_FAILED);
                }
            };
            let cancel = cancel_on_ctrl_c();
            let mut bar = PullProgress::new(&entry.name);
            let result = pull(
                entry,
                &settings.pull_sources(&lookup),
                dir.path(),
                &mut |event| {
                    match event {
                    PullEvent::Progress(progress) => bar.update(progress),
                    PullEvent::SecondSource { hub_error, source } => bar.note(&format!(
                        "nu-agent: model pull {}: the hub failed ({hub_error}); fetching from {source}",
                        entry.name
                    )),
                }
                },
                &cancel,
            );
            bar.finish();
            match result {
                Ok(pulled) => (pulled_value(&pulled, span), json),
                Err(error) => {
                    eprintln!("nu-agent: model pull {}: {error}", entry.name);
                    if let Some(hint) = error.offline_hint() {
                        eprintln!("nu-agent: {hint}");
                    }
                    if error.is_cancelled() {
                        eprintln!(
                            "nu-agent: run `nu-agent model pull {}` again to resume",
                            entry.name
                        );
                        return ExitCode::from(EXIT_INTERRUPTED);
                    }
                    return ExitCode::from(EXIT_FAILED);
                }
            }
        }
    };
    print_value(&value, json)
}
