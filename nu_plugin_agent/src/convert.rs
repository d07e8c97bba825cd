//! Translations between the host's values and agent-core's.

use agent_core::{
    config::{AgentConfig, ConfigError},
    policy::{Decision, Row},
    shell::{Diagnostic, DiagnosticLabel, SessionSeed},
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
    located_error(diagnostic, what, span, None)
}

/// A diagnostic of the embedded engine about `source` (the pipeline, given
/// as the argument at `span`) as one error: its label points inside the
/// argument where the argument holds the pipeline as written (a string
/// literal), else at the argument with the line and column.
pub fn located_error(
    diagnostic: &Diagnostic,
    what: &str,
    span: Span,
    source: Option<(&[u8], &str)>,
) -> LabeledError {
    let error = LabeledError::new(format!("{what}: {}", diagnostic.message)).with_code(
        diagnostic
            .code
            .clone()
            .unwrap_or_else(|| "nu_agent::error".into()),
    );
    let error = match diagnostic.labels.first() {
        Some(label) => {
            let text = if label.text.is_empty() {
                diagnostic.message.clone()
            } else {
                label.text.clone()
            };
            let inner = source
                .and_then(|(argument, pipeline)| inner_span(argument, pipeline, label, span.start));
            match inner {
                Some(inner) => error.with_label(text, inner),
                None => error.with_label(
                    format!("line {}, column {}: {text}", label.line, label.column),
                    span,
                ),
            }
        }
        None => error.with_label(diagnostic.message.clone(), span),
    };
    match &diagnostic.help {
        Some(help) => error.with_help(help.clone()),
        None => error,
    }
}

/// The host span of `label` (a line and column in `pipeline`) inside the
/// argument's source text `argument`, which starts at `start`.
fn inner_span(
    argument: &[u8],
    pipeline: &str,
    label: &DiagnosticLabel,
    start: usize,
) -> Option<Span> {
    let argument = std::str::from_utf8(argument).ok()?;
    let found = argument.find(pipeline)?;
    let line_start: usize = pipeline
        .split_inclusive('\n')
        .take(label.line.checked_sub(1)?)
        .map(str::len)
        .sum();
    let line = pipeline.get(line_start..)?;
    let line = line.split('\n').next().unwrap_or("");
    let column = match line.char_indices().nth(label.column.checked_sub(1)?) {
        Some((at, _)) => at,
        None => line.len(),
    };
    let at = found + line_start + column;
    let len = label
        .snippet
        .len()
        .min(pipeline.len().saturating_sub(line_start + column));
    Some(Span::new(start + at, start + at + len))
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

/// One checked step as a record: verdict, category, command, reason,
/// targets, rule — what decides first, so that an 80-column table shows
/// the verdict and why before the nested targets.
pub fn row_value(row: &Row, span: Span) -> Value {
    let mut record = Record::new();
    record.push("verdict", Value::string(row.verdict.as_str(), span));
    record.push("category", Value::string(row.category.as_str(), span));
    record.push("command", Value::string(&row.command, span));
    record.push("reason", Value::string(&row.reason, span));
    record.push(
        "targets",
        Value::list(
            row.targets.iter().map(|t| Value::string(t, span)).collect(),
            span,
        ),
    );
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

    fn parse_error() -> Diagnostic {
        Diagnostic {
            code: Some("nu::parser::unexpected_eof".into()),
            message: "Unexpected end of code.".into(),
            help: None,
            labels: vec![DiagnosticLabel {
                text: "expected closing pipeline missing end".into(),
                line: 2,
                column: 4,
                snippet: "|".into(),
            }],
            rendered: "Error: nu::parser::unexpected_eof\n  x Unexpected end of code.".into(),
        }
    }

    #[test]
    fn a_pipeline_error_is_said_once_at_the_spot_inside_the_argument() {
        // `agent run "ls\nps |"` with the argument at offset 10 of the host's source.
        let argument = "\"ls\nps |\"";
        let error = located_error(
            &parse_error(),
            "the pipeline failed",
            Span::new(10, 10 + argument.len()),
            Some((argument.as_bytes(), "ls\nps |")),
        );
        assert_eq!(error.msg, "the pipeline failed: Unexpected end of code.");
        assert_eq!(error.labels.len(), 1);
        assert_eq!(
            error.labels[0].text,
            "expected closing pipeline missing end"
        );
        // Quote, `ls\n`, then column 4 of `ps |`.
        assert_eq!(
            error.labels[0].span,
            Span::new(10 + 1 + 3 + 3, 10 + 1 + 3 + 4)
        );
        assert_eq!(error.help, None, "the rendering is not repeated as help");
    }

    #[test]
    fn a_pipeline_not_written_as_is_gets_the_line_and_column() {
        let error = located_error(
            &parse_error(),
            "the pipeline failed",
            Span::new(0, 5),
            Some((b"$cmd", "ls\nps |")),
        );
        assert_eq!(
            error.labels[0].text,
            "line 2, column 4: expected closing pipeline missing end"
        );
        assert_eq!(error.labels[0].span, Span::new(0, 5));
    }

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
