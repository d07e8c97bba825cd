//! A read that found nothing, told where its rows went: a small model that
//! gets an empty result from `git log … | where subject =~ 'x'` or `open
//! app.log | lines | where $it =~ 'ERROR'` guesses again blind, or answers
//! "there is none". The loop runs the pipeline again up to the last
//! filter that is given rows (a read the policy allows without a
//! question) and shows those rows, so the next step is written against
//! the data itself. It does not say that filter emptied them: what comes
//! after it (a `join`, another filter) may have.

use nu_protocol::Value;

use super::pipeline_text::top_level_elements;
use crate::observe::{Budget, render};

/// Commands that keep some of their input's rows.
const FILTERS: &[&str] = &["where", "find", "filter"];

/// How many filters, from the last, are tried.
pub const MAX_TRIES: usize = 3;

/// Rows of the filter's input shown.
const SHOWN_ROWS: usize = 5;

/// Tokens the shown rows may take.
const SHOWN_TOKENS: usize = 120;

/// For each filter of `pipeline` from the last one back (at most
/// [`MAX_TRIES`]): the pipeline before it, and the filter itself. Empty
/// when the pipeline has no filter after its first element.
pub fn before_filters(pipeline: &str) -> Vec<(String, String)> {
    let elements: Vec<String> = top_level_elements(pipeline)
        .iter()
        .map(|element| element.trim().to_string())
        .collect();
    (1..elements.len())
        .rev()
        .filter(|&at| {
            let head = elements[at].split_whitespace().next().unwrap_or_default();
            FILTERS.contains(&head)
        })
        .take(MAX_TRIES)
        .map(|at| (elements[..at].join(" | "), elements[at].clone()))
        .collect()
}

/// Whether a filter's input held anything to keep.
pub fn has_rows(value: &Value) -> bool {
    match value {
        Value::List { vals, .. } => !vals.is_empty(),
        Value::String { val, .. } => !val.trim().is_empty(),
        Value::Nothing { .. } | Value::Error { .. } => false,
        _ => true,
    }
}

/// "Nothing came out. Before `where …`, `git log …` gave 12 rows
/// ($out.4); the first of them: …", the rows rendered as the model reads
/// results.
pub fn note(before: &str, filter: &str, index: usize, value: &Value) -> String {
    let (count, first) = match value {
        Value::List { vals, .. } => (
            vals.len(),
            Value::list(
                vals.iter().take(SHOWN_ROWS).cloned().collect(),
                value.span(),
            ),
        ),
        Value::String { val, .. } => {
            let lines: Vec<&str> = val.lines().collect();
            (
                lines.len(),
                Value::string(
                    lines[..lines.len().min(SHOWN_ROWS)].join("\n"),
                    value.span(),
                ),
            )
        }
        other => (1, other.clone()),
    };
    let unit = match (matches!(value, Value::String { .. }), count) {
        (true, 1) => "line",
        (true, _) => "lines",
        (false, 1) => "row",
        (false, _) => "rows",
    };
    let shown = render(&first, &Budget::approx(SHOWN_TOKENS), None);
    // git's log is the newest first: "the first" is the latest commit.
    let order = if before.trim_start_matches('^').starts_with("git log") {
        ", newest first"
    } else {
        ""
    };
    format!(
        "Nothing came out. Before `{filter}`, `{before}` gave {count} {unit} ($out.{index}); the first of them{order}:\n{shown}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use nu_protocol::{Span, record};

    #[test]
    fn filters_are_tried_from_the_last_back() {
        assert_eq!(
            before_filters("git log --oneline | lines | where $it =~ 'x' | find y | first 1"),
            vec![
                (
                    "git log --oneline | lines | where $it =~ 'x'".to_string(),
                    "find y".to_string()
                ),
                (
                    "git log --oneline | lines".to_string(),
                    "where $it =~ 'x'".to_string()
                ),
            ]
        );
        // A filter inside a closure is not one of the pipeline's.
        assert!(before_filters("ls | each {|f| $f | where size > 1b }").is_empty());
        assert!(before_filters("where x > 1").is_empty());
    }

    #[test]
    fn the_note_shows_the_first_rows_the_filter_was_given() {
        let span = Span::test_data();
        let rows = Value::test_list(
            (0..5)
                .map(|i| {
                    Value::test_record(record! {
                        "hash" => Value::string(format!("h{i}"), span),
                        "subject" => Value::string(format!("change {i}"), span),
                    })
                })
                .collect(),
        );
        let text = note("git log", "where subject =~ 'x'", 7, &rows);
        assert!(
            text.starts_with(
                "Nothing came out. Before `where subject =~ 'x'`, `git log` gave 5 rows ($out.7); the first of them, newest first:"
            ),
            "{text}"
        );
        assert!(text.contains("h0") && text.contains("h4"), "{text}");
        let many = Value::test_list((0..9).map(Value::test_int).collect());
        let text = note("seq", "where $it > 10", 1, &many);
        assert!(
            text.contains("gave 9 rows") && !text.contains('7'),
            "{text}"
        );
        let log = Value::test_string("a=1 level=info\nb=2 level=error\nc\nd\ne\nf\n");
        let text = note("open app.log", "where $it =~ 'ERROR'", 2, &log);
        assert!(text.contains("gave 6 lines"), "{text}");
        assert!(
            text.contains("level=error") && !text.contains("\nf"),
            "{text}"
        );
        assert!(has_rows(&log) && !has_rows(&Value::test_list(vec![])));
    }
}
