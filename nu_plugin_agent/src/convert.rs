//! Translations between the host's values and agent-core's.

use agent_core::{
    policy::{Decision, Row},
    shell::{Diagnostic, DiagnosticLabel},
};
use nu_protocol::{LabeledError, Record, Span, Value};

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
/// as the argument at `span`) as one error, told by its innermost cause
/// (the `open` that failed inside a closure, not the closure): its label
/// points inside the
/// argument where the argument holds the pipeline as written (a string
/// literal), else at the argument with the line and column.
pub fn located_error(
    diagnostic: &Diagnostic,
    what: &str,
    span: Span,
    source: Option<(&[u8], &str)>,
) -> LabeledError {
    // Where nu nests errors (a failure inside `each`'s closure), the
    // innermost one is what went wrong, and where.
    let diagnostic = diagnostic.root_cause();
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
            cause: None,
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
}
