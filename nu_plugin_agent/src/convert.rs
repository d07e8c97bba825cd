//! Translations between the host's values and agent-core's.

use agent_core::{
    config::{AgentConfig, ConfigError},
    policy::{Decision, Row},
    shell::{Diagnostic, SessionSeed},
};
use nu_plugin::EngineInterface;
use nu_protocol::{LabeledError, Record, Span, Value};

/// The caller's cwd and plain environment, as a session seed. Falls back to
/// the process cwd where the host has no `PWD` (tests).
pub fn seed_from_caller(engine: &EngineInterface) -> Result<SessionSeed, LabeledError> {
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
pub fn caller_cwd(engine: &EngineInterface) -> Result<std::path::PathBuf, LabeledError> {
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

/// Point every span of `value` at the call, so the host never resolves a
/// span of the embedded engine against its own sources.
pub fn respan(mut value: Value, span: Span) -> Value {
    let _ = value.recurse_mut(&mut |v| {
        v.set_span(span);
        Ok::<_, std::convert::Infallible>(())
    });
    value
}

/// A diagnostic of the embedded engine as an error at the call.
pub fn diagnostic_error(diagnostic: &Diagnostic, what: &str, span: Span) -> LabeledError {
    LabeledError::new(format!("{what}: {}", diagnostic.message))
        .with_code(
            diagnostic
                .code
                .clone()
                .unwrap_or_else(|| "nu_agent::error".into()),
        )
        .with_label(diagnostic.summary(), span)
        .with_help(diagnostic.rendered.clone())
}

/// The caller's `$env.config.plugins.agent`, read afresh and validated.
/// An invalid configuration is an error naming the key: the agent runs
/// nothing under a policy it cannot read.
pub fn config_from_caller(
    engine: &EngineInterface,
    span: Span,
) -> Result<AgentConfig, LabeledError> {
    let value = engine.get_plugin_config()?;
    config_from_value(value.as_ref(), span)
}

/// The host's `$env.config.plugins.agent` value, validated by the same
/// checks as `nu-agent`'s config file ([`AgentConfig::from_value`]).
pub fn config_from_value(value: Option<&Value>, span: Span) -> Result<AgentConfig, LabeledError> {
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

/// One checked step as a record: command, category, targets, verdict,
/// reason, rule.
pub fn row_value(row: &Row, span: Span) -> Value {
    let mut record = Record::new();
    record.push("command", Value::string(&row.command, span));
    record.push("category", Value::string(row.category.as_str(), span));
    record.push(
        "targets",
        Value::list(
            row.targets.iter().map(|t| Value::string(t, span)).collect(),
            span,
        ),
    );
    record.push("verdict", Value::string(row.verdict.as_str(), span));
    record.push("reason", Value::string(&row.reason, span));
    record.push("rule", Value::string(&row.rule, span));
    Value::record(record, span)
}

/// A checked plan as a table, one row per step.
pub fn rows_value(rows: &[Row], span: Span) -> Value {
    Value::list(rows.iter().map(|r| row_value(r, span)).collect(), span)
}

/// The checked pipeline as the policy hook sees it:
/// `{pipeline, verdict, rows: [...]}`.
pub fn plan_value(pipeline: &str, decision: &Decision, span: Span) -> Value {
    let mut record = Record::new();
    record.push("pipeline", Value::string(pipeline, span));
    record.push("verdict", Value::string(decision.verdict.as_str(), span));
    record.push("rows", rows_value(&decision.rows, span));
    Value::record(record, span)
}

#[cfg(test)]
mod tests {
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
