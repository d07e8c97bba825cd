//! `nu-agent config init`: write the commented configuration template
//! (every key with its default), never over an existing file.

use std::{path::PathBuf, process::ExitCode};

use agent_core::config::AgentConfig;

use crate::common::EXIT_FAILED;

/// `nu-agent config init`: the commented template, never over a file.
pub fn config_init(path: Option<PathBuf>) -> ExitCode {
    let Some(path) = path.or_else(AgentConfig::default_path) else {
        eprintln!(
            "nu-agent: no configuration path: HOME is not set; pass --config FILE or set NU_AGENT_CONFIG"
        );
        return ExitCode::from(EXIT_FAILED);
    };
    match agent_core::config::write_template(&path) {
        Ok(()) => {
            println!("{}", path.display());
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("nu-agent: {error}");
            ExitCode::from(EXIT_FAILED)
        }
    }
}
