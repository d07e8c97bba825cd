//! The plain-text rendering: a value as nu's own `table` command prints it
//! (no colour, 120 columns), cut to the budget like any long text. It is
//! what `nu-agent eval --observe raw` feeds the model, so that the compact
//! form can be measured against it on the same tasks.

use std::cell::RefCell;

use nu_protocol::Value;

use super::{Budget, SliceHint, text::render_text};
use crate::shell::{Engine, Session, SessionSeed};

/// Columns of the rendered table.
const WIDTH: usize = 120;

thread_local! {
    /// One rendering session per thread (an engine costs a millisecond).
    static RENDERER: RefCell<Option<Session>> = const { RefCell::new(None) };
}

/// `value` as `table --width 120` prints it, without ANSI colours; strings
/// as they are. Longer than `budget`: head and tail lines with a marker,
/// as [`super::render`] does for text.
pub fn render_raw(value: &Value, budget: &Budget, out_index: Option<usize>) -> String {
    let text = match value {
        Value::String { val, .. } => val.clone(),
        Value::Nothing { .. } => String::new(),
        other => table_text(other).unwrap_or_else(|| super::render(other, budget, out_index)),
    };
    render_text(text.trim_end(), budget, &SliceHint(out_index))
}

/// nu's table of `value`; `None` if the renderer could not be built or
/// failed.
fn table_text(value: &Value) -> Option<String> {
    RENDERER.with(|cell| {
        let mut renderer = cell.borrow_mut();
        if renderer.is_none() {
            *renderer =
                Session::new(Engine::standard(), SessionSeed::new(std::env::temp_dir())).ok();
        }
        let session = renderer.as_ref()?;
        session
            .pipe_value(
                value.clone(),
                &format!("table --width {WIDTH} | ansi strip"),
            )
            .ok()
    })
}

#[cfg(test)]
mod tests {
    use nu_protocol::{Record, Span};

    use super::*;

    #[test]
    fn a_table_is_nu_s_plain_table() {
        let row = |name: &str, size: i64| {
            let mut record = Record::new();
            record.push("name", Value::test_string(name));
            record.push("size", Value::test_filesize(size));
            Value::test_record(record)
        };
        let value = Value::list(
            vec![row("a.txt", 10), row("b.bin", 2048)],
            Span::test_data(),
        );
        let text = render_raw(&value, &Budget::approx(500), Some(3));
        assert!(text.contains("name"), "{text}");
        assert!(text.contains("b.bin"), "{text}");
        assert!(text.contains("─") || text.contains('-'), "{text}");
        assert!(!text.contains('\u{1b}'), "no colours: {text:?}");
    }

    #[test]
    fn over_budget_it_is_cut_with_a_marker() {
        let rows: Vec<Value> = (0..500)
            .map(|i| {
                let mut record = Record::new();
                record.push("n", Value::test_int(i));
                Value::test_record(record)
            })
            .collect();
        let text = render_raw(
            &Value::list(rows, Span::test_data()),
            &Budget::approx(200),
            Some(4),
        );
        assert!(text.contains("$out.4"), "{text}");
        assert!(Budget::approx(200).count(&text) < 260, "{text}");
    }
}
