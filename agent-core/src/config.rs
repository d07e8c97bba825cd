//! The agent's configuration: the record in `$env.config.plugins.agent`
//! (or, for `nu-agent`, a file holding the same record), typed and checked.
//! An error names the key it is about, e.g. `policy.mode`.

use std::path::{Path, PathBuf};

use nu_protocol::Value;

use crate::{
    agent::AgentSettings,
    llm::ModelSettings,
    policy::{Policy, PolicyError},
    shell::{Engine, Limits, Session, SessionSeed},
};

/// Keys the configuration record may have.
pub const CONFIG_KEYS: &[&str] = &["policy", "model", "agent"];

/// The whole configuration.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AgentConfig {
    pub policy: Policy,
    /// The `policy.hook` closure, evaluated by the host (the plugin).
    pub policy_hook: Option<Value>,
    /// The `model` record: backend, model and how to run it.
    pub model: ModelSettings,
    /// The `agent` record: how the loop runs.
    pub agent: AgentSettings,
}

/// A configuration that does not validate.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{key}: {message}")]
pub struct ConfigError {
    /// The key path, e.g. `policy.allow[2]`.
    pub key: String,
    pub message: String,
}

impl From<PolicyError> for ConfigError {
    fn from(e: PolicyError) -> ConfigError {
        ConfigError {
            key: if e.key.is_empty() {
                "policy".into()
            } else {
                format!("policy.{}", e.key)
            },
            message: e.message,
        }
    }
}

impl AgentConfig {
    /// Read the configuration record; `None` or `nothing` gives the defaults.
    pub fn from_value(value: Option<&Value>) -> Result<AgentConfig, ConfigError> {
        let mut config = AgentConfig::default();
        let record = match value {
            None | Some(Value::Nothing { .. }) => return Ok(config),
            Some(Value::Record { val, .. }) => val,
            Some(Value::Error { error, .. }) => {
                return Err(ConfigError {
                    key: "$env.config.plugins.agent".into(),
                    message: format!("evaluating it failed: {error}"),
                });
            }
            Some(other) => {
                return Err(ConfigError {
                    key: "$env.config.plugins.agent".into(),
                    message: format!("expected a record, got {}", other.get_type()),
                });
            }
        };
        for (key, value) in record.iter() {
            match key.as_str() {
                "policy" => {
                    config.policy = Policy::from_value(value)?;
                    config.policy_hook = value
                        .as_record()
                        .ok()
                        .and_then(|r| r.get("hook"))
                        .filter(|v| matches!(v, Value::Closure { .. }))
                        .cloned();
                }
                "model" => config.model = ModelSettings::from_value(value)?,
                "agent" => config.agent = AgentSettings::from_value(value)?,
                unknown => {
                    return Err(ConfigError {
                        key: unknown.to_string(),
                        message: format!("unknown key (known keys: {})", CONFIG_KEYS.join(", ")),
                    });
                }
            }
        }
        Ok(config)
    }

    /// Read the configuration from a file holding the record in Nushell
    /// syntax (`{ policy: { mode: confirm } }`, as in nu config).
    pub fn from_file(path: &Path) -> Result<AgentConfig, ConfigError> {
        let file_error = |message: String| ConfigError {
            key: path.display().to_string(),
            message,
        };
        let text = std::fs::read_to_string(path)
            .map_err(|e| file_error(format!("cannot read it: {e}")))?;
        let dir = path
            .parent()
            .filter(|p| p.is_dir())
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("/"));
        let mut session = Session::new(Engine::standard(), SessionSeed::new(dir))
            .map_err(|d| file_error(d.summary()))?;
        // The record is data: evaluate it as a constant-only expression
        // (NUON keeps durations and file sizes; JSON would make them ints).
        let outcome = session.run(
            &format!("{text}\n| to nuon | from nuon"),
            &Limits::default(),
        );
        if let Some(diagnostic) = outcome.error {
            return Err(file_error(diagnostic.summary()));
        }
        AgentConfig::from_value(Some(&outcome.value))
    }

    /// The configuration file `nu-agent` reads: `NU_AGENT_CONFIG`, else
    /// `$XDG_CONFIG_HOME/nu-agent/config.nuon` (`~/.config/...`) if it exists.
    pub fn default_file() -> Option<PathBuf> {
        if let Some(path) = std::env::var_os("NU_AGENT_CONFIG").filter(|p| !p.is_empty()) {
            return Some(PathBuf::from(path));
        }
        let base = std::env::var_os("XDG_CONFIG_HOME")
            .filter(|p| !p.is_empty())
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
        let path = base.join("nu-agent").join("config.nuon");
        path.is_file().then_some(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nu_protocol::{Record, Span};

    #[test]
    fn errors_name_the_full_key() {
        let mut policy = Record::new();
        policy.push("mode", Value::test_string("sometimes"));
        let mut top = Record::new();
        top.push("policy", Value::test_record(policy));
        let err = AgentConfig::from_value(Some(&Value::test_record(top))).unwrap_err();
        assert_eq!(err.key, "policy.mode");
        let mut top = Record::new();
        top.push("polcy", Value::test_record(Record::new()));
        let err = AgentConfig::from_value(Some(&Value::test_record(top))).unwrap_err();
        assert_eq!(err.key, "polcy");
        assert!(AgentConfig::from_value(Some(&Value::nothing(Span::test_data()))).is_ok());
    }

    #[test]
    fn reads_a_config_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.nuon");
        std::fs::write(
            &path,
            "{ policy: { mode: read-only, block: [\"^git push *\"] } }",
        )
        .unwrap();
        let config = AgentConfig::from_file(&path).unwrap();
        assert_eq!(config.policy.mode, crate::policy::Mode::ReadOnly);
        std::fs::write(
            &path,
            "{ policy: { password_ttl: 1min }, model: { keep_alive: 90sec, context: 4096 } }",
        )
        .unwrap();
        let config = AgentConfig::from_file(&path).unwrap();
        assert_eq!(
            config.policy.password_ttl,
            std::time::Duration::from_secs(60)
        );
        assert_eq!(config.model.keep_alive, std::time::Duration::from_secs(90));
        assert_eq!(config.model.context, Some(4096));
        std::fs::write(&path, "{ model: { context: big } }").unwrap();
        assert_eq!(
            AgentConfig::from_file(&path).unwrap_err().key,
            "model.context"
        );
        std::fs::write(&path, "{ policy: { mode: 3 } }").unwrap();
        assert_eq!(
            AgentConfig::from_file(&path).unwrap_err().key,
            "policy.mode"
        );
    }
}
