//! Tables, lists and records.

use nu_protocol::{Record, Value};

use super::{
    Budget, SliceHint,
    cell::{format_cell, type_name},
    group_digits,
    text::fit_lines,
};

/// Fewest rows for which a column holding one value is stated once.
const MIN_ROWS_FOR_CONSTANTS: usize = 3;

/// A list whose items are all records renders as a table.
pub(crate) fn is_table(vals: &[Value]) -> bool {
    !vals.is_empty() && vals.iter().all(|v| matches!(v, Value::Record { .. }))
}

struct Column {
    name: String,
    type_name: &'static str,
    /// `Some(day)` when every date in the column falls on that day: cells
    /// then show only the time.
    shared_day: Option<String>,
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
        let cells: Vec<Option<&Value>> = records.iter().map(|r| r.get(name)).collect();
        if records.len() >= MIN_ROWS_FOR_CONSTANTS
            && let Some(Some(first)) = cells.first()
            && cells.iter().all(|c| c.is_some_and(|v| v == *first))
        {
            constants.push(format!("{name}={}", format_cell(first)));
            continue;
        }
        columns.push(Column {
            name: name.clone(),
            type_name: column_type(&cells),
            shared_day: shared_day(&cells),
        });
    }

    let mut fixed = vec![format!(
        "table: {} rows × {} columns",
        group_digits(records.len()),
        names.len()
    )];
    if !constants.is_empty() {
        fixed.push(format!("same in every row: {}", constants.join(", ")));
    }
    let header: Vec<String> = columns
        .iter()
        .map(|c| match &c.shared_day {
            Some(day) => format!("{}:date({day})", c.name),
            None => format!("{}:{}", c.name, c.type_name),
        })
        .collect();
    fixed.push(header.join(" | "));

    let row_line = |i: usize| -> String {
        let record = records[i];
        columns
            .iter()
            .map(|c| match (record.get(&c.name), &c.shared_day) {
                (Some(Value::Date { val, .. }), Some(_)) => val.format("%H:%M").to_string(),
                (Some(v), _) => format_cell(v),
                (None, _) => String::new(),
            })
            .collect::<Vec<_>>()
            .join(" | ")
    };
    let target = slice.target();
    let marker = |head: usize, omitted: usize| {
        format!(
            "… {} rows omitted — slice {target}, e.g. {target} | skip {head} | first 20 …",
            group_digits(omitted)
        )
    };
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
    let target = slice.target();
    let marker = |head: usize, omitted: usize| {
        format!(
            "… {} items omitted — slice {target}, e.g. {target} | skip {head} | first 20 …",
            group_digits(omitted)
        )
    };
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
