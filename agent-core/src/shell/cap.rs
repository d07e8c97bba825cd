//! The output cap: what counts toward it, and how output is cut to fit.
//!
//! The count is one a user can predict. A byte stream (an external's
//! stdout, and apart from it its stderr; a file read raw) counts its bytes,
//! and so does a value that is text or binary. Rows (a list or a table,
//! streamed or not) and records count the bytes of their compact JSON,
//! what `to json --raw` writes ([`json_size`]). A cut keeps a prefix: the
//! first bytes of text, whole rows of a list, the first fields of a record
//! (the field that crosses the cap cut the same way).

use nu_protocol::{Record, Value};
use serde::{Deserialize, Serialize};

use super::humanize_bytes;

/// Where a run's output was cut, and what came back.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutputCut {
    /// The cap, in bytes.
    pub limit: usize,
    /// What reached it.
    pub part: CutPart,
}

/// The part of a run's output that reached the cap, and how it counts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CutPart {
    /// The output's bytes (a byte stream, text or binary).
    Bytes,
    /// An external's stderr, in bytes.
    Stderr,
    /// Rows counted as JSON; `kept` of them came back.
    Rows { kept: usize },
    /// A record counted as JSON.
    Json,
}

impl OutputCut {
    /// `output cut at 64 MiB (1,398,101 rows kept, counted as JSON)`.
    pub fn describe(&self) -> String {
        let at = humanize_bytes(self.limit);
        match &self.part {
            CutPart::Bytes => format!("output cut at {at} (counted in bytes)"),
            CutPart::Stderr => format!("stderr cut at {at} (counted in bytes)"),
            CutPart::Rows { kept } => format!(
                "output cut at {at} ({} {} kept, counted as JSON)",
                group_digits(*kept),
                if *kept == 1 { "row" } else { "rows" }
            ),
            CutPart::Json => format!("output cut at {at} (counted as JSON)"),
        }
    }

    /// The warning both front ends print for a cut run.
    pub fn warning(&self) -> String {
        format!("{}; raise it with --max-output", self.describe())
    }
}

/// `1398101` as `1,398,101`.
fn group_digits(n: usize) -> String {
    let digits = n.to_string();
    let mut grouped = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(c);
    }
    grouped
}

/// The bytes of `value` as compact JSON, as `to json --raw` writes it:
/// file sizes and durations as integers, dates as RFC 3339 text, binary as
/// a list of numbers. A value `to json` refuses (a closure, an error)
/// counts as its serialised form.
pub fn json_size(value: &Value) -> usize {
    match value {
        Value::Nothing { .. } => 4,
        Value::Bool { val, .. } => {
            if *val {
                4
            } else {
                5
            }
        }
        Value::Int { val, .. } | Value::Duration { val, .. } => int_size(*val),
        Value::Filesize { val, .. } => int_size(val.get()),
        Value::Float { val, .. } => float_size(*val),
        Value::String { val, .. } | Value::Glob { val, .. } => text_size(val),
        Value::Date { val, .. } => 2 + val.to_rfc3339().len(),
        Value::Range { val, .. } => text_size(&val.to_string()),
        Value::CellPath { val, .. } => text_size(&val.to_string()),
        Value::Binary { val, .. } => {
            let numbers: usize = val.iter().map(|b| int_size(i64::from(*b))).sum();
            2 + numbers + val.len().saturating_sub(1)
        }
        Value::List { vals, .. } => {
            let rows: usize = vals.iter().map(json_size).sum();
            2 + rows + vals.len().saturating_sub(1)
        }
        Value::Record { val, .. } => {
            let fields: usize = val
                .iter()
                .map(|(key, value)| text_size(key) + 1 + json_size(value))
                .sum();
            2 + fields + val.len().saturating_sub(1)
        }
        Value::Custom {
            val, internal_span, ..
        } => match val.to_base_value(*internal_span) {
            Ok(Value::Custom { .. }) | Err(_) => text_size(&val.type_name()),
            Ok(base) => json_size(&base),
        },
        Value::Closure { .. } | Value::Error { .. } => {
            let mut counter = Counter(0);
            match serde_json::to_writer(&mut counter, value) {
                Ok(()) => counter.0,
                Err(_) => 4,
            }
        }
    }
}

/// Counts what is written to it.
struct Counter(usize);

impl std::io::Write for Counter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn int_size(n: i64) -> usize {
    let sign = usize::from(n < 0);
    let mut magnitude = n.unsigned_abs();
    let mut digits = 1;
    while magnitude >= 10 {
        magnitude /= 10;
        digits += 1;
    }
    sign + digits
}

/// As nu writes a float in JSON: `1.0`, `0.25`, `1e+21`; `null` when it
/// is not finite.
fn float_size(x: f64) -> usize {
    if !x.is_finite() {
        return 4;
    }
    let plain = if x.fract() == 0.0 {
        format!("{x:.1}")
    } else {
        x.to_string()
    };
    let exponent = format!("{x:e}");
    if plain.len() <= exponent.len() + 1 {
        plain.len()
    } else if exponent.contains("e-") {
        exponent.len()
    } else {
        exponent.len() + 1
    }
}

/// Quoted, with `"`, `\` and the control characters nu escapes escaped.
fn text_size(text: &str) -> usize {
    2 + text.len() + text.bytes().filter(|b| escaped(*b)).count()
}

fn escaped(byte: u8) -> bool {
    matches!(
        byte,
        b'"' | b'\\' | b'\x08' | b'\x0c' | b'\n' | b'\r' | b'\t'
    )
}

/// Counts the rows of a list as they come against the cap, as its JSON
/// (`[`, the rows, the commas, `]`).
pub(crate) struct RowCount {
    limit: usize,
    used: usize,
    rows: usize,
}

impl RowCount {
    pub(crate) fn new(limit: usize) -> Self {
        RowCount {
            limit,
            used: 2,
            rows: 0,
        }
    }

    /// Whether `row` still fits; a row that fits is counted.
    pub(crate) fn admit(&mut self, row: &Value) -> bool {
        let size = json_size(row) + usize::from(self.rows > 0);
        match self.used.checked_add(size) {
            Some(used) if used <= self.limit => {
                self.used = used;
                self.rows += 1;
                true
            }
            _ => false,
        }
    }

    /// Rows admitted so far.
    pub(crate) fn rows(&self) -> usize {
        self.rows
    }
}

/// `value` within `limit` bytes as counted above, and what was cut if
/// anything was. Numbers, dates and other single values are never cut.
pub(crate) fn cut_to_fit(value: Value, limit: usize) -> (Value, Option<CutPart>) {
    let span = value.span();
    match value {
        Value::String { val, .. } if val.len() > limit => {
            let mut text = val;
            text.truncate(floor_char_boundary(&text, limit));
            (Value::string(text, span), Some(CutPart::Bytes))
        }
        Value::Binary { val, .. } if val.len() > limit => {
            let mut bytes = val.into_owned();
            bytes.truncate(limit);
            (Value::binary(bytes, span), Some(CutPart::Bytes))
        }
        Value::List { vals, .. } => {
            let mut count = RowCount::new(limit);
            let fits = vals.iter().take_while(|row| count.admit(row)).count();
            if fits == vals.len() {
                return (Value::list(vals.into_owned(), span), None);
            }
            let mut rows = vals.into_owned();
            rows.truncate(fits);
            (Value::list(rows, span), Some(CutPart::Rows { kept: fits }))
        }
        Value::Record { .. } if json_size(&value) > limit => (
            cut_json(value, limit).unwrap_or(Value::nothing(span)),
            Some(CutPart::Json),
        ),
        other => (other, None),
    }
}

/// A prefix of `value` whose JSON takes at most `limit` bytes, or `None`
/// when not even its start fits.
fn cut_json(value: Value, limit: usize) -> Option<Value> {
    if json_size(&value) <= limit {
        return Some(value);
    }
    let span = value.span();
    match value {
        Value::String { val, .. } => {
            let mut used = 2;
            let mut end = 0;
            for (i, c) in val.char_indices() {
                let size = c.len_utf8() + usize::from(c.is_ascii() && escaped(c as u8));
                if used + size > limit {
                    break;
                }
                used += size;
                end = i + c.len_utf8();
            }
            (used <= limit).then(|| Value::string(&val[..end], span))
        }
        Value::List { vals, .. } => {
            let mut count = RowCount::new(limit);
            let fits = vals.iter().take_while(|row| count.admit(row)).count();
            let mut rows = vals.into_owned();
            rows.truncate(fits);
            (limit >= 2).then(|| Value::list(rows, span))
        }
        Value::Record { val, .. } => {
            if limit < 2 {
                return None;
            }
            let mut used = 2;
            let mut kept = Record::new();
            for (key, field) in val.into_owned() {
                let start = text_size(&key) + 1 + usize::from(!kept.is_empty());
                let room = limit.saturating_sub(used + start);
                if used + start > limit {
                    break;
                }
                let size = json_size(&field);
                if size <= room {
                    used += start + size;
                    kept.push(key, field);
                    continue;
                }
                if let Some(cut) = cut_json(field, room) {
                    kept.push(key, cut);
                }
                break;
            }
            Some(Value::record(kept, span))
        }
        _ => None,
    }
}

/// The largest index at most `index` that starts a character of `text`.
fn floor_char_boundary(text: &str, index: usize) -> usize {
    if index >= text.len() {
        return text.len();
    }
    (0..=index)
        .rev()
        .find(|i| text.is_char_boundary(*i))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use nu_protocol::{Span, Value, record};

    use super::*;

    fn int(n: i64) -> Value {
        Value::test_int(n)
    }

    #[test]
    fn sizes_are_those_of_compact_json() {
        let s = Span::test_data();
        assert_eq!(json_size(&int(-120)), 4);
        assert_eq!(json_size(&int(0)), 1);
        assert_eq!(json_size(&Value::nothing(s)), 4);
        assert_eq!(json_size(&Value::test_string("a\"b\n")), 2 + 4 + 2);
        // NUL is written as it is, not as \u0000.
        assert_eq!(json_size(&Value::test_string("\0\0")), 4);
        assert_eq!(json_size(&Value::test_float(1.0)), 3);
        assert_eq!(json_size(&Value::test_float(0.25)), 4);
        assert_eq!(json_size(&Value::binary(vec![0, 255], s)), "[0,255]".len());
        let rows = Value::test_list(vec![int(1), int(22), int(333)]);
        assert_eq!(json_size(&rows), "[1,22,333]".len());
        let record = Value::test_record(record! {"a" => int(1), "bc" => Value::test_bool(true)});
        assert_eq!(json_size(&record), r#"{"a":1,"bc":true}"#.len());
        assert_eq!(json_size(&Value::test_list(vec![])), 2);
    }

    /// The count is what nu's own `to json --raw` writes, for a table
    /// with every kind of column `ls` and friends give.
    #[test]
    fn sizes_match_nus_to_json() {
        use crate::shell::{Engine, Limits, Session, SessionSeed};
        let mut session = Session::new(Engine::standard(), SessionSeed::new("/")).unwrap();
        let table = r#"[[name size modified ratio note bytes];
            ["a \"b\"\tc.txt" 1.5kB 2024-05-01T10:00:00+02:00 0.25 null 0x[00ff]]
            ["ü\n" 0b 2020-01-01 -3.0 {deep: [1 true 2sec]} 0x[]]]"#;
        let value = session.run(table, &Limits::default()).value;
        let json = session.run(&format!("{table} | to json --raw"), &Limits::default());
        let Value::String { val: json, .. } = json.value else {
            panic!("{json:?}")
        };
        assert_eq!(json_size(&value), json.len(), "{json}");
    }

    /// A session counts a stream's rows as JSON, whatever they take in
    /// memory, and says how many came back.
    #[test]
    fn a_session_cuts_rows_by_their_json() {
        use crate::shell::{Engine, Limits, Session, SessionSeed, StopReason};
        let mut session = Session::new(Engine::standard(), SessionSeed::new("/")).unwrap();
        let limits = Limits::default().with_max_output_bytes(1024);
        for pipeline in [
            "1..100000 | each {|i| $i}",
            "1..100000 | each {|i| $i} | collect",
        ] {
            let outcome = session.run(pipeline, &limits);
            let rows: Vec<Value> = (1..=282).map(int).collect();
            assert_eq!(
                outcome.value.as_list().map(<[Value]>::len),
                Ok(282),
                "{pipeline}"
            );
            assert_eq!(outcome.value.as_list().map(|l| l == rows), Ok(true));
            assert_eq!(
                outcome.stopped,
                Some(StopReason::OutputCapped(OutputCut {
                    limit: 1024,
                    part: CutPart::Rows { kept: 282 }
                })),
                "{pipeline}"
            );
            assert_eq!(outcome.error, None);
        }
    }

    #[test]
    fn a_list_keeps_the_whole_rows_that_fit() {
        let rows = Value::test_list((0..100).map(int).collect());
        // [0,1,2,3,4] is 11 bytes.
        let (cut, part) = cut_to_fit(rows.clone(), 11);
        assert_eq!(cut, Value::test_list((0..5).map(int).collect()));
        assert_eq!(part, Some(CutPart::Rows { kept: 5 }));
        let (whole, part) = cut_to_fit(rows.clone(), json_size(&rows));
        assert_eq!((whole, part), (rows, None));
    }

    #[test]
    fn text_keeps_whole_characters_and_records_their_first_fields() {
        let (cut, part) = cut_to_fit(Value::test_string("aé€x"), 4);
        assert_eq!(
            (cut, part),
            (Value::test_string("aé"), Some(CutPart::Bytes))
        );
        let (cut, _) = cut_to_fit(Value::binary(vec![1; 10], Span::test_data()), 3);
        assert_eq!(cut, Value::binary(vec![1; 3], Span::test_data()));

        let complete = Value::test_record(record! {
            "stdout" => Value::test_string("x".repeat(100)),
            "exit_code" => int(0),
        });
        let (cut, part) = cut_to_fit(complete, 20);
        assert_eq!(part, Some(CutPart::Json));
        // {"stdout":"xxxxxxx"} is 20 bytes.
        assert_eq!(
            cut,
            Value::test_record(record! {"stdout" => Value::test_string("x".repeat(7))})
        );
        assert!(json_size(&cut) <= 20);
    }

    #[test]
    fn the_warning_names_the_cap_the_count_and_the_flag() {
        let cut = OutputCut {
            limit: 64 << 20,
            part: CutPart::Rows { kept: 1_398_101 },
        };
        assert_eq!(
            cut.warning(),
            "output cut at 64 MiB (1,398,101 rows kept, counted as JSON); raise it with --max-output"
        );
        let bytes = OutputCut {
            limit: 1024,
            part: CutPart::Bytes,
        };
        assert_eq!(bytes.describe(), "output cut at 1 KiB (counted in bytes)");
        assert_eq!(group_digits(999), "999");
        assert_eq!(group_digits(1000), "1,000");
    }
}
