//! What the plugin's commands derive from their caller: its directory and
//! environment, its configuration and model settings, the policy shell it
//! runs under, and what it approved in advance. The commands import from
//! here, never from each other.

use std::{
    collections::HashMap,
    ffi::OsString,
    path::{Path, PathBuf},
    sync::Arc,
};

use agent_core::{
    config::{AgentConfig, ConfigError},
    llm::{ModelDir, ModelSettings},
    policy::{Approver, Pattern, PolicyHook, PolicyShell, ShellOptions},
    shell::SessionSeed,
};
use nu_plugin::{EngineInterface, EvaluatedCall};
use nu_protocol::{LabeledError, Signature, Span, SyntaxShape, Value};

use crate::{AgentPlugin, convert::diagnostic_error, hook::ClosureHook};

/// The caller's cwd and plain environment, as a session seed. Falls back to
/// the process cwd where the host has no `PWD` (tests).
pub(crate) fn seed_from_caller(engine: &EngineInterface) -> Result<SessionSeed, LabeledError> {
    let cwd = caller_cwd(engine)?;
    let env = engine
        .get_env_vars()
        .unwrap_or_default()
        .into_iter()
        .filter(|(_, v)| is_plain(v))
        .collect();
    Ok(SessionSeed::new(cwd).with_env(env))
}

/// The caller's `$env.PWD`, or the process cwd where the host has none
/// (tests).
pub(crate) fn caller_cwd(engine: &EngineInterface) -> Result<std::path::PathBuf, LabeledError> {
    match engine.get_current_dir() {
        Ok(dir) => Ok(std::path::PathBuf::from(dir)),
        Err(_) => std::env::current_dir()
            .map_err(|e| LabeledError::new(format!("cannot determine the working directory: {e}"))),
    }
}

/// Values that mean the same in another engine: no closures or custom values.
fn is_plain(value: &Value) -> bool {
    match value {
        Value::Closure { .. } | Value::Custom { .. } | Value::Error { .. } => false,
        Value::List { vals, .. } => vals.iter().all(is_plain),
        Value::Record { val, .. } => val.values().all(is_plain),
        _ => true,
    }
}

/// The caller's `$env.config.plugins.agent`, read afresh and validated.
/// An invalid configuration is an error naming the key: the agent runs
/// nothing under a policy it cannot read.
pub(crate) fn config_from_caller(
    engine: &EngineInterface,
    span: Span,
) -> Result<AgentConfig, LabeledError> {
    let value = engine.get_plugin_config()?;
    config_from_value(value.as_ref(), span)
}

/// The host's `$env.config.plugins.agent` value, validated by the same
/// checks as `nu-agent`'s config file ([`AgentConfig::from_value`]).
pub(crate) fn config_from_value(
    value: Option<&Value>,
    span: Span,
) -> Result<AgentConfig, LabeledError> {
    AgentConfig::from_value(value).map_err(|e| config_error(&e, span))
}

/// A configuration error as an error at the call.
fn config_error(error: &ConfigError, span: Span) -> LabeledError {
    let place = if error.key.starts_with('$') {
        error.key.clone()
    } else {
        format!("`{}` in $env.config.plugins.agent", error.key)
    };
    LabeledError::new(format!("invalid agent configuration: {error}"))
        .with_code("nu_agent::config::invalid")
        .with_label(format!("{} is invalid", error.key), span)
        .with_help(format!(
            "fix {place}; nothing runs under a policy the agent cannot read"
        ))
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

/// `--yes` and `--approve`: approving in advance what would ask.
pub(crate) fn with_approval_flags(signature: Signature) -> Signature {
    signature
        .switch(
            "yes",
            "Approve every step that asks (never one that is blocked); nothing is asked.",
            Some('y'),
        )
        .named(
            "approve",
            // The list first: tried first, a literal `[...]` would parse as
            // one bare string.
            SyntaxShape::OneOf(vec![
                SyntaxShape::List(Box::new(SyntaxShape::String)),
                SyntaxShape::String,
            ]),
            "Approve steps matching these patterns, e.g. '^git push *' (a string, a list, or repeated): each step that asks must match one, as its own command; a pipeline with any other step that asks is denied.",
            None,
        )
}

/// The `--approve` patterns, given as a list or repeated; a bad pattern is
/// an error at the flag.
pub(crate) fn approve_patterns(call: &EvaluatedCall) -> Result<Vec<String>, LabeledError> {
    let mut patterns = Vec::new();
    for (name, value) in &call.named {
        if name.item != "approve" {
            continue;
        }
        let values = match value {
            Some(Value::List { vals, .. }) => vals.to_vec(),
            Some(other) => vec![other.clone()],
            None => Vec::new(),
        };
        for value in values {
            let span = value.span();
            let text = value.into_string().map_err(|e| {
                LabeledError::new("--approve takes glob patterns").with_label(e.to_string(), span)
            })?;
            Pattern::new(&text).map_err(|e| {
                LabeledError::new(format!("--approve: bad pattern `{text}`: {e}"))
                    .with_code("nu_agent::run::bad_pattern")
                    .with_label("not a valid pattern", span)
                    .with_help("a pattern matches one step's whole command line: `*` is any run of characters, `?` one, `\\` escapes")
            })?;
            patterns.push(text);
        }
    }
    Ok(patterns)
}

/// A policy shell in the caller's directory and environment, under the
/// caller's policy and hook, asking `approver`, with the audit log and the
/// sandbox worker every front end runs with, and the commands answered
/// "always" in this nu session.
pub(crate) fn caller_shell(
    plugin: &AgentPlugin,
    engine: &EngineInterface,
    config: &agent_core::config::AgentConfig,
    approver: Arc<dyn Approver>,
    span: Span,
) -> Result<PolicyShell, LabeledError> {
    let hook = config
        .policy_hook
        .as_ref()
        .and_then(|value| ClosureHook::new(engine, value, span))
        .map(|hook| Box::new(hook) as Box<dyn PolicyHook>);
    let seed = seed_from_caller(engine)?;
    let options = ShellOptions {
        worker_exe: sandbox_worker(),
        hook,
        audit: PolicyShell::audit_log(&seed),
        always: plugin.always.clone(),
        ..ShellOptions::default()
    };
    PolicyShell::new(config.policy.clone(), seed, approver, options)
        .map_err(|d| diagnostic_error(&d, "cannot start the agent shell", span))
}

/// The binary the sandbox worker re-executes: this plugin binary, whose
/// `main` serves as the worker when started with the worker argument.
/// On Linux that is `/proc/self/exe`, the very file this process runs even
/// after the plugin was rebuilt or upgraded on disk (the worker then speaks
/// the same protocol, and a replaced file does not stop every run).
/// Under a test harness the process is a test executable that cannot serve
/// as the worker; then there is none, and the policy shell evaluates
/// in-process (and asks about every write, as nothing is sandboxed).
pub(crate) fn sandbox_worker() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let is_plugin = exe
        .file_name()
        .and_then(|name| name.to_str())
        .is_some_and(|name| name.starts_with(env!("CARGO_PKG_NAME")));
    if !is_plugin {
        return None;
    }
    let this_file = PathBuf::from("/proc/self/exe");
    if cfg!(target_os = "linux") && this_file.exists() {
        Some(this_file)
    } else {
        Some(exe)
    }
}

#[cfg(test)]
mod tests {
    use nu_protocol::Record;

    use super::*;

    fn record(pairs: Vec<(&str, Value)>) -> Value {
        let mut r = Record::new();
        for (k, v) in pairs {
            r.push(k, v);
        }
        Value::test_record(r)
    }

    fn policy(pairs: Vec<(&str, Value)>) -> Value {
        record(vec![("policy", record(pairs))])
    }

    fn refused(value: &Value) -> LabeledError {
        match config_from_value(Some(value), Span::test_data()) {
            Ok(config) => panic!("accepted: {config:?}"),
            Err(error) => error,
        }
    }

    #[test]
    fn a_bad_mode_is_refused_naming_the_key() {
        let error = refused(&policy(vec![("mode", Value::test_string("nonsense"))]));
        assert!(error.msg.contains("policy.mode"), "{}", error.msg);
        assert!(error.msg.contains("nonsense"), "{}", error.msg);
        assert_eq!(error.labels[0].text, "policy.mode is invalid");
        assert!(
            error
                .help
                .as_deref()
                .is_some_and(|h| h.contains("policy.mode")),
            "{:?}",
            error.help
        );
    }

    #[test]
    fn unknown_keys_are_refused_naming_them() {
        let error = refused(&record(vec![("polcy", record(vec![]))]));
        assert!(error.msg.contains("polcy"), "{}", error.msg);
        assert!(error.msg.contains("unknown key"), "{}", error.msg);
        let error = refused(&policy(vec![(
            "blok",
            Value::test_list(vec![Value::test_string("^git *")]),
        )]));
        assert!(error.msg.contains("policy.blok"), "{}", error.msg);
    }

    #[test]
    fn block_rules_are_honoured() {
        let config = config_from_value(
            Some(&policy(vec![(
                "block",
                Value::test_list(vec![Value::test_string("^git *")]),
            )])),
            Span::test_data(),
        )
        .unwrap();
        assert!(config.policy.block[0].matches("^git status"));
        assert_eq!(
            config,
            AgentConfig::from_nuon("{ policy: { block: [\"^git *\"] } }\n").unwrap()
        );
    }
}
