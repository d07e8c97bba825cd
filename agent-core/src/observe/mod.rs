//! What the model sees: any `Value` rendered as compact text within a token
//! budget.
//!
//! - a table: one line `table: R rows × C columns`, one line naming the
//!   columns that hold the same value in every row (stated once), a header of
//!   `name:type` pairs, then one ` | `-separated line per row. Sizes, times
//!   and durations are short (`4.1kB`, `00:51` under a shared date, `1.5s`);
//!   names stay exact;
//! - over budget, head and tail rows with an explicit marker
//!   (`… 1,840 rows omitted — slice $out.3 …`), never a silent cut;
//! - a record: `key: value` lines; a long string: head and tail lines;
//!   binary: its size and detected type; nested values inline and short.
//!
//! Rendering is deterministic: the same value gives the same text.

mod binary;
mod budget;
mod cell;
mod outcome;
mod raw;
mod table;
mod text;

pub use binary::describe_binary;
pub use budget::{ApproxTokenCounter, Budget, TokenCounter};
pub use cell::format_size;
pub use outcome::{render_outcome, render_outcome_as};
pub use raw::render_raw;

use nu_protocol::Value;

/// Render `value` for the model within `budget`. `out_index` is the run's
/// `$out` index, named in omission markers so the model can slice the rest.
pub fn render(value: &Value, budget: &Budget, out_index: Option<usize>) -> String {
    let slice = SliceHint(out_index);
    match value {
        Value::Nothing { .. } => "(nothing)".to_string(),
        Value::List { vals, .. } if table::is_table(vals) => {
            table::render_table(vals, budget, &slice)
        }
        Value::List { vals, .. } => table::render_list(vals, budget, &slice),
        Value::Record { val, .. } => table::render_record(val, budget, &slice),
        Value::String { val, .. } => {
            text::render_text(&crate::shell::without_ansi(val), budget, &slice)
        }
        Value::Binary { val, .. } => match binary::escape_invalid_utf8(val) {
            Some(text) => format!(
                "text, not valid UTF-8 (bad bytes shown as \\xNN):\n{}",
                text::render_text(
                    &text,
                    &budget.with_max(budget.max_tokens.saturating_sub(15)),
                    &slice
                )
            ),
            None => describe_binary(val),
        },
        other => cell::format_scalar(other),
    }
}

/// How results are written for the model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ObserveMode {
    /// The compact form of [`render`] (the default).
    #[default]
    Compact,
    /// nu's plain `table` text ([`render_raw`]), to measure against.
    Raw,
}

impl ObserveMode {
    /// `value` in this form.
    pub fn render(self, value: &Value, budget: &Budget, out_index: Option<usize>) -> String {
        match self {
            ObserveMode::Compact => render(value, budget, out_index),
            ObserveMode::Raw => render_raw(value, budget, out_index),
        }
    }

    /// `compact` or `raw`.
    pub fn as_str(self) -> &'static str {
        match self {
            ObserveMode::Compact => "compact",
            ObserveMode::Raw => "raw",
        }
    }
}

/// How the model can reach the full value: `$out.N` when known.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SliceHint(pub Option<usize>);

impl SliceHint {
    /// `$out.3` or `the full value` when there is no index.
    pub(crate) fn target(&self) -> String {
        match self.0 {
            Some(n) => format!("$out.{n}"),
            None => "the full value".to_string(),
        }
    }
}

/// `1,840` — thousands separators for counts in markers.
pub(crate) fn group_digits(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
