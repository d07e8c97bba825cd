//! Translations between the host's values and agent-core's.

use agent_core::shell::{Diagnostic, SessionSeed};
use nu_plugin::EngineInterface;
use nu_protocol::{LabeledError, Span, Value};

/// The caller's cwd and plain environment, as a session seed. Falls back to
/// the process cwd where the host has no `PWD` (tests).
pub fn seed_from_caller(engine: &EngineInterface) -> Result<SessionSeed, LabeledError> {
    let cwd = match engine.get_current_dir() {
        Ok(dir) => std::path::PathBuf::from(dir),
        Err(_) => std::env::current_dir().map_err(|e| {
            LabeledError::new(format!("cannot determine the working directory: {e}"))
        })?,
    };
    let env = engine
        .get_env_vars()
        .unwrap_or_default()
        .into_iter()
        .filter(|(_, v)| is_plain(v))
        .collect();
    Ok(SessionSeed::new(cwd).with_env(env))
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
