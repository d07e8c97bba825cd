//! Tables, lists and records.

use nu_protocol::{Record, Value};

use super::{
    Budget, SliceHint,
    cell::{format_cell, type_name},
    group_digits,
    text::fit_lines,
};

/// Between cells: one token, unlike ` | ` (two).
const SEPARATOR: &str = "|";

/// Fewest rows for which a column holding one value is stated once.
const MIN_ROWS_FOR_CONSTANTS: usize = 3;

/// A list whose items are all records renders as a table.
pub(crate) fn is_table(vals: &[Value]) -> bool {
    !vals.is_empty() && vals.iter().all(|v| matches!(v, Value::Record { .. }))
}

/// Fewest rows, and the share of them (percent), for a value that fills most
/// of a column to be stated once.
const MIN_ROWS_FOR_DOMINANT: usize = 8;
const DOMINANT_PERCENT: usize = 60;

/// Shortest shared prefix worth stating once (e.g. a directory).
const MIN_SHARED_PREFIX: usize = 4;

/// A column as rendered: its header and one cell per row.
struct Column {
    header: String,
    cells: Vec<String>,
}

pub(crate) fn render_table(rows: &[Value], budget: &Budget, slice: &SliceHint) -> String {
    let records: Vec<&Record> = rows.iter().filter_map(|r| r.as_record().ok()).collect();
    let mut names: Vec<String> = Vec::new();
    for record in &records {
        for name in record.columns() {
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
    }

    let mut constants: Vec<String> = Vec::new();
    let mut columns: Vec<Column> = Vec::new();
    for name in &names {
        let values: Vec<Option<&Value>> = records.iter().map(|r| r.get(name)).collect();
        let day = shared_day(&values);
        let mut cells: Vec<String> = values
            .iter()
            .map(|value| match (value, &day) {
                (Some(Value::Date { val, .. }), Some(_)) => val.format("%H:%M").to_string(),
                (Some(v), _) => format_cell(v),
                (None, _) => String::new(),
            })
            .collect();
        // A column that reads the same in every row is stated once.
        if records.len() >= MIN_ROWS_FOR_CONSTANTS
            && values.iter().all(Option::is_some)
            && cells.iter().all(|c| *c == cells[0])
        {
            let shown = match (&day, values.first()) {
                (Some(day), _) => format!("{day} {}", cells[0]),
                _ => cells[0].clone(),
            };
            constants.push(format!("{name}={shown}"));
            continue;
        }
        let type_name = column_type(&values);
        let mut header = match (&day, shared_prefix(&values)) {
            (Some(day), _) => format!("{name}:date({day})"),
            (None, Some(prefix)) => {
                let cut = prefix.chars().count();
                for cell in &mut cells {
                    *cell = cell.chars().skip(cut).collect();
                }
                format!("{name}:{type_name}(under {prefix})")
            }
            (None, None) => format!("{name}:{type_name}"),
        };
        if let Some(common) = dominant_cell(&cells) {
            for cell in &mut cells {
                if *cell == common {
                    cell.clear();
                }
            }
            header.push_str(&format!("(blank={common})"));
        }
        columns.push(Column { header, cells });
    }

    let mut fixed = vec![format!(
        "table: {} rows × {} columns",
        group_digits(records.len()),
        names.len()
    )];
    if !constants.is_empty() {
        fixed.push(format!("same in every row: {}", constants.join(", ")));
    }
    fixed.push(
        columns
            .iter()
            .map(|c| c.header.as_str())
            .collect::<Vec<_>>()
            .join(SEPARATOR),
    );

    let row_line = |i: usize| -> String {
        columns
            .iter()
            .map(|c| c.cells[i].as_str())
            .collect::<Vec<_>>()
            .join(SEPARATOR)
    };
    let marker = omission_marker("rows", slice);
    fit_lines(fixed, records.len(), &row_line, budget, &marker)
}

pub(crate) fn render_list(vals: &[Value], budget: &Budget, slice: &SliceHint) -> String {
    let cells: Vec<Option<&Value>> = vals.iter().map(Some).collect();
    let fixed = vec![format!(
        "list: {} items ({})",
        group_digits(vals.len()),
        column_type(&cells)
    )];
    let line = |i: usize| format_cell(&vals[i]);
    let marker = omission_marker("items", slice);
    fit_lines(fixed, vals.len(), &line, budget, &marker)
}

pub(crate) fn render_record(record: &Record, budget: &Budget, slice: &SliceHint) -> String {
    let fields: Vec<(&String, &Value)> = record.iter().collect();
    let target = slice.target();
    let line = |i: usize| {
        let (key, value) = fields[i];
        let rendered = format_cell(value);
        match value {
            Value::List { vals, .. } if vals.len() > 3 => {
                format!("{key}: {rendered} — see {target}.{key}")
            }
            _ => format!("{key}: {rendered}"),
        }
    };
    let marker = |head: usize, omitted: usize| {
        format!(
            "… {} fields omitted — see {target} | columns | skip {head} …",
            group_digits(omitted)
        )
    };
    fit_lines(Vec::new(), fields.len(), &line, budget, &marker)
}

/// `… 1,840 rows omitted — slice $out.3, e.g. $out.3 | skip 40 | first 20 …`
fn omission_marker(noun: &'static str, slice: &SliceHint) -> impl Fn(usize, usize) -> String {
    let target = slice.target();
    move |head, omitted| {
        format!(
            "… {} {noun} omitted — slice {target}, e.g. {target} | skip {head} | first 20 …",
            group_digits(omitted)
        )
    }
}

/// The type shared by a column's non-empty cells, or `any`.
fn column_type(cells: &[Option<&Value>]) -> &'static str {
    let mut found: Option<&'static str> = None;
    for value in cells.iter().flatten() {
        if matches!(value, Value::Nothing { .. }) {
            continue;
        }
        let name = type_name(value);
        match found {
            None => found = Some(name),
            Some(prev) if prev != name => return "any",
            _ => {}
        }
    }
    found.unwrap_or("nothing")
}

/// The day every date in the column falls on, if there is one.
fn shared_day(cells: &[Option<&Value>]) -> Option<String> {
    let mut day: Option<String> = None;
    let mut dates = 0;
    for value in cells.iter().flatten() {
        match value {
            Value::Date { val, .. } => {
                let this = val.format("%Y-%m-%d").to_string();
                match &day {
                    None => day = Some(this),
                    Some(d) if *d != this => return None,
                    _ => {}
                }
                dates += 1;
            }
            Value::Nothing { .. } => {}
            _ => return None,
        }
    }
    if dates >= MIN_ROWS_FOR_CONSTANTS {
        day
    } else {
        None
    }
}

/// A cell value that fills most of a column (e.g. a start time shared by
/// the processes started at boot): stated once in the header, its cells
/// left blank. Only where no cell is blank already, so a blank is never
/// ambiguous, and only where it saves tokens.
fn dominant_cell(cells: &[String]) -> Option<String> {
    if cells.len() < MIN_ROWS_FOR_DOMINANT || cells.iter().any(String::is_empty) {
        return None;
    }
    let mut counts: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for cell in cells {
        *counts.entry(cell.as_str()).or_default() += 1;
    }
    // Ties go to the smallest value, so the choice is deterministic.
    let (value, count) = counts
        .into_iter()
        .max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(a.0)))?;
    let worth_it = count * 100 >= cells.len() * DOMINANT_PERCENT && value.chars().count() >= 2;
    worth_it.then(|| value.to_string())
}

/// A directory-like prefix every string in the column starts with
/// (ending at a `/`), when there are enough rows for it to pay off.
fn shared_prefix(cells: &[Option<&Value>]) -> Option<String> {
    if cells.len() < MIN_ROWS_FOR_CONSTANTS {
        return None;
    }
    let mut strings = Vec::with_capacity(cells.len());
    for cell in cells {
        match cell {
            Some(Value::String { val, .. }) => strings.push(val.as_str()),
            _ => return None,
        }
    }
    let first = strings[0];
    let mut len = first.len();
    for s in &strings[1..] {
        len = len.min(
            first
                .bytes()
                .zip(s.bytes())
                .take_while(|(a, b)| a == b)
                .count(),
        );
    }
    let prefix = &first[..len];
    let end = prefix.rfind('/')? + 1;
    // Every cell keeps a name after the prefix.
    if end < MIN_SHARED_PREFIX || strings.iter().any(|s| s.len() <= end) {
        return None;
    }
    Some(first[..end].to_string())
}
