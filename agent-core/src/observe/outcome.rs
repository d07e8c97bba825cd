//! A whole run as the model sees it: value, printed text, stderr, exit code,
//! error and why it stopped.

use nu_protocol::Value;

use super::{Budget, ObserveMode, render};
use crate::shell::Outcome;

/// Share of the budget that stderr and printed text may take at most.
const SIDE_CHANNEL_SHARE: usize = 4;

/// Render a run's outcome for the model within `budget`.
pub fn render_outcome(outcome: &Outcome, budget: &Budget) -> String {
    render_outcome_as(outcome, budget, ObserveMode::Compact)
}

/// [`render_outcome`] with the value written in `mode`.
pub fn render_outcome_as(outcome: &Outcome, budget: &Budget, mode: ObserveMode) -> String {
    let mut parts: Vec<String> = Vec::new();
    let side_budget = budget.with_max(budget.max_tokens / SIDE_CHANNEL_SHARE);

    let mut status = format!("$out.{}", outcome.index);
    if let Some(code) = outcome.exit_code {
        status.push_str(&format!(" exit={code}"));
    }
    if let Some(stop) = &outcome.stopped {
        status.push_str(&format!(" — {stop}"));
    }
    parts.push(status);

    if !outcome.printed.is_empty() {
        let printed = outcome.printed.concat();
        parts.push(format!(
            "printed:\n{}",
            render(
                &Value::string(printed.trim_end(), nu_protocol::Span::unknown()),
                &side_budget,
                None
            )
        ));
    }
    if let Some(error) = &outcome.error {
        parts.push(error.rendered.trim_end().to_string());
    }
    let stderr = outcome.stderr.as_ref().filter(|v| match v {
        Value::String { val, .. } => !val.trim().is_empty(),
        Value::Binary { val, .. } => !val.is_empty(),
        _ => false,
    });
    if outcome.error.is_none() || !matches!(outcome.value, Value::Nothing { .. }) {
        let used: usize = parts.iter().map(|p| budget.count(p)).sum();
        let reserve = if stderr.is_some() {
            side_budget.max_tokens
        } else {
            0
        };
        let value_budget = budget.with_max(budget.max_tokens.saturating_sub(used + reserve));
        parts.push(mode.render(&outcome.value, &value_budget, Some(outcome.index)));
    }
    if let Some(stderr) = stderr {
        parts.push(format!("stderr:\n{}", render(stderr, &side_budget, None)));
    }
    parts.join("\n")
}
