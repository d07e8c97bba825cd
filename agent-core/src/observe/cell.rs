//! Short, exact-enough text for single values: cells and scalars.

use nu_protocol::Value;

use crate::shell::without_ansi;

/// Longest inline rendering of one cell before its middle is cut.
const MAX_CELL_CHARS: usize = 300;

/// A scalar on its own (top level).
pub fn format_scalar(value: &Value) -> String {
    match value {
        Value::String { val, .. } => without_ansi(val).into_owned(),
        other => format_cell(other),
    }
}

/// A value inside a table row or a record line: one line, short.
pub fn format_cell(value: &Value) -> String {
    let text = match value {
        Value::Nothing { .. } => String::new(),
        Value::Bool { val, .. } => val.to_string(),
        Value::Int { val, .. } => val.to_string(),
        Value::Float { val, .. } => format_float(*val),
        Value::String { val, .. } => escape_inline(&without_ansi(val)),
        Value::Glob { val, .. } => escape_inline(&without_ansi(val)),
        Value::Filesize { val, .. } => format_size(val.get()),
        Value::Duration { val, .. } => format_duration(*val),
        Value::Date { val, .. } => val.format("%Y-%m-%d %H:%M").to_string(),
        Value::Range { val, .. } => val.to_string(),
        Value::Record { val, .. } => {
            let fields: Vec<String> = val
                .iter()
                .map(|(k, v)| format!("{k}: {}", format_cell(v)))
                .collect();
            format!("{{{}}}", fields.join(", "))
        }
        Value::List { vals, .. } => format_inline_list(vals),
        Value::Binary { val, .. } => format!("<binary {}>", format_size(val.len() as i64)),
        Value::Closure { .. } => "<closure>".to_string(),
        Value::Error { error, .. } => format!("<error: {error}>"),
        Value::Custom { val, .. } => format!("<{}>", val.type_name()),
        Value::CellPath { val, .. } => val.to_string(),
    };
    cut_middle(&text, MAX_CELL_CHARS)
}

fn format_inline_list(vals: &[Value]) -> String {
    if vals.is_empty() {
        return "[]".to_string();
    }
    if vals.iter().all(|v| matches!(v, Value::Record { .. })) {
        let columns = vals
            .first()
            .and_then(|v| v.as_record().ok())
            .map(|r| r.columns().cloned().collect::<Vec<_>>().join(", "))
            .unwrap_or_default();
        return format!("[table {} rows: {columns}]", vals.len());
    }
    let items: Vec<String> = vals.iter().map(format_cell).collect();
    format!("[{}]", items.join(", "))
}

/// `512B`, `4.1kB`, `35MB`, `8.1GB`: two significant digits (as `ls -h`),
/// SI units like nu's default. Digits cost a token each.
pub fn format_size(bytes: i64) -> String {
    let negative = bytes < 0;
    let mut value = bytes.unsigned_abs() as f64;
    let units = ["B", "kB", "MB", "GB", "TB", "PB", "EB"];
    let mut unit = 0;
    while value >= 999.5 && unit < units.len() - 1 {
        value /= 1000.0;
        unit += 1;
    }
    let number = if unit == 0 || value >= 9.95 {
        format!("{value:.0}")
    } else {
        trim_zeros(format!("{value:.1}"))
    };
    format!("{}{number}{}", if negative { "-" } else { "" }, units[unit])
}

/// `350ms`, `1.5s`, `3m 2s`, `2h 5m`, `3d 4h`.
pub fn format_duration(nanos: i64) -> String {
    let negative = nanos < 0;
    let n = nanos.unsigned_abs();
    let sign = if negative { "-" } else { "" };
    const US: u64 = 1_000;
    const MS: u64 = 1_000_000;
    const S: u64 = 1_000_000_000;
    let text = if n < US {
        format!("{n}ns")
    } else if n < MS {
        format!("{}µs", n / US)
    } else if n < S {
        format!("{}ms", n / MS)
    } else if n < 60 * S {
        trim_zeros(format!("{:.2}", n as f64 / S as f64)) + "s"
    } else if n < 3600 * S {
        format!("{}m {}s", n / (60 * S), (n / S) % 60)
    } else if n < 86400 * S {
        format!("{}h {}m", n / (3600 * S), (n / (60 * S)) % 60)
    } else {
        format!("{}d {}h", n / (86400 * S), (n / (3600 * S)) % 24)
    };
    format!("{sign}{text}")
}

fn format_float(val: f64) -> String {
    if val.fract() == 0.0 && val.abs() < 1e15 {
        // The column type says float; `.0` would cost two tokens.
        format!("{val:.0}")
    } else if val.abs() >= 1e-4 && val.abs() < 1e15 {
        trim_zeros(format!("{val:.4}"))
    } else {
        format!("{val:e}")
    }
}

fn trim_zeros(text: String) -> String {
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// One line: newlines and tabs escaped; empty shown as `""`.
fn escape_inline(text: &str) -> String {
    if text.is_empty() {
        return "\"\"".to_string();
    }
    if text.contains(['\n', '\r', '\t']) {
        text.replace('\\', "\\\\")
            .replace('\n', "\\n")
            .replace('\r', "\\r")
            .replace('\t', "\\t")
    } else {
        text.to_string()
    }
}

/// Keep the head and tail of `text`, marking the cut with the count.
pub fn cut_middle(text: &str, max_chars: usize) -> String {
    let count = text.chars().count();
    if count <= max_chars {
        return text.to_string();
    }
    let keep = max_chars.saturating_sub(20);
    let head: String = text.chars().take(keep * 2 / 3).collect();
    let tail_len = keep - keep * 2 / 3;
    let tail: String = text.chars().skip(count - tail_len).collect();
    format!(
        "{head}…({} chars)…{tail}",
        count - head.chars().count() - tail_len
    )
}

/// Short type names used in table headers.
pub fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Nothing { .. } => "nothing",
        Value::Bool { .. } => "bool",
        Value::Int { .. } => "int",
        Value::Float { .. } => "float",
        Value::String { .. } => "str",
        Value::Glob { .. } => "glob",
        Value::Filesize { .. } => "filesize",
        Value::Duration { .. } => "duration",
        Value::Date { .. } => "date",
        Value::Range { .. } => "range",
        Value::Record { .. } => "record",
        Value::List { .. } => "list",
        Value::Binary { .. } => "binary",
        Value::Closure { .. } => "closure",
        Value::Error { .. } => "error",
        Value::Custom { .. } => "custom",
        Value::CellPath { .. } => "cell-path",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_colours_are_no_part_of_a_cell() {
        let marked = "\x1b[39m\x1b[0m\x1b[41;39meval-ticker\x1b[0m\x1b[39m\x1b[0m";
        assert_eq!(format_cell(&Value::test_string(marked)), "eval-ticker");
        assert_eq!(format_scalar(&Value::test_string(marked)), "eval-ticker");
    }

    #[test]
    fn sizes_are_short() {
        assert_eq!(format_size(0), "0B");
        assert_eq!(format_size(512), "512B");
        assert_eq!(format_size(4096), "4.1kB");
        assert_eq!(format_size(1995), "2kB");
        assert_eq!(format_size(35_200_000), "35MB");
        assert_eq!(format_size(1_073_741_824), "1.1GB");
        assert_eq!(format_size(999_999), "1MB");
        assert_eq!(format_size(999), "999B");
    }

    #[test]
    fn durations_are_short() {
        assert_eq!(format_duration(350_000_000), "350ms");
        assert_eq!(format_duration(1_500_000_000), "1.5s");
        assert_eq!(format_duration(182_000_000_000), "3m 2s");
    }

    #[test]
    fn long_cells_keep_head_and_tail() {
        let long = "a".repeat(100) + &"b".repeat(100);
        let cut = cut_middle(&long, 120);
        assert!(cut.starts_with("aaaa") && cut.ends_with("bbbb"));
        assert!(cut.contains("chars)…"));
    }
}
