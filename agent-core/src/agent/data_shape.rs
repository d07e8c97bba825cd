//! The shape of a data file, told to a model that guessed its columns
//! wrong: a small model writes `update version` for a TOML file whose
//! version is `package.version`, or `get active | where modified …` on a
//! JSON list whose fields it never looked at. When a pipeline that starts
//! with `open file` fails on a column or cell path, the loop reads the
//! file again (a read the policy allows without a question) and tells the
//! model its columns, the nested fields one level down, and where the
//! name it asked for really is.

use nu_protocol::Value;

/// Errors of a column or cell path the input does not have.
const PATH_ERRORS: &[&str] = &[
    "nu::shell::column_not_found",
    "nu::shell::name_not_found",
    "nu::shell::incompatible_path_access",
    "nu::shell::cant_find_column",
];

/// Whether the error `code` is about a column or cell path.
pub fn is_path_error(code: Option<&str>) -> bool {
    code.is_some_and(|code| PATH_ERRORS.contains(&code))
}

/// The `open <file>` a pipeline starts with, when its first element is
/// exactly that (a literal path, no variables or subexpressions).
pub fn opened_file(pipeline: &str) -> Option<&str> {
    let first = pipeline.split('|').next()?.trim();
    let path = first.strip_prefix("open ")?.trim();
    let literal = !path.is_empty()
        && !path.starts_with('-')
        && !path.contains(['$', '(', ')', '{', '}', ';', '*'])
        && path.split_whitespace().count() == 1;
    literal.then_some(first)
}

/// What `value` (read by `source`, kept as `$out.N` of `index`) looks
/// like, and where `wanted` (the name the failing step asked for) is
/// found inside it.
pub fn describe(source: &str, index: usize, value: &Value, wanted: Option<&str>) -> String {
    let mut text = format!("`{source}` ($out.{index}) is ");
    match value {
        Value::Record { val, .. } => {
            let fields: Vec<String> = val
                .iter()
                .map(|(key, inner)| match inner {
                    Value::Record { val: nested, .. } => format!(
                        "{key} {{{}}}",
                        nested.columns().cloned().collect::<Vec<_>>().join(", ")
                    ),
                    other => format!("{key} ({})", other.get_type()),
                })
                .collect();
            text.push_str(&format!("a record: {}", fields.join(", ")));
        }
        Value::List { vals, .. } if vals.iter().all(|v| matches!(v, Value::Record { .. })) => {
            let columns: Vec<String> = match vals.first() {
                Some(Value::Record { val, .. }) => val
                    .iter()
                    .map(|(key, inner)| format!("{key} ({})", inner.get_type()))
                    .collect(),
                _ => Vec::new(),
            };
            text.push_str(&format!(
                "a table of {} rows; columns: {}",
                vals.len(),
                columns.join(", ")
            ));
        }
        Value::List { vals, .. } => {
            text.push_str(&format!("a list of {} items", vals.len()));
        }
        Value::String { val, .. } => {
            text.push_str(&format!(
                "text of {} lines (`lines` splits it)",
                val.lines().count()
            ));
        }
        other => text.push_str(&format!("a {}", other.get_type())),
    }
    text.push('.');
    if let Some(wanted) = wanted
        && let Some(path) = path_to(value, wanted)
        && path != wanted
    {
        text.push_str(&format!(" `{wanted}` is at `{path}`."));
    }
    text
}

/// The cell path of a field named `wanted` in `value`: a column of a
/// table, a key of a record, or a key of a record one level down.
fn path_to(value: &Value, wanted: &str) -> Option<String> {
    let record = match value {
        Value::Record { val, .. } => val,
        Value::List { vals, .. } => match vals.first() {
            Some(Value::Record { val, .. }) => val,
            _ => return None,
        },
        _ => return None,
    };
    if record.contains(wanted) {
        return Some(wanted.to_string());
    }
    record.iter().find_map(|(key, inner)| match inner {
        Value::Record { val, .. } if val.contains(wanted) => Some(format!("{key}.{wanted}")),
        _ => None,
    })
}

/// The name a column error asks for (`Cannot find column 'version'`).
pub fn wanted_name(message: &str) -> Option<&str> {
    message
        .split('\'')
        .nth(1)
        .filter(|name| !name.is_empty() && !name.contains(' '))
}

#[cfg(test)]
mod tests {
    use super::*;
    use nu_protocol::{Span, record};

    #[test]
    fn only_a_literal_open_is_read_again() {
        assert_eq!(
            opened_file("open app.toml | update version '2' | save -f app.toml"),
            Some("open app.toml")
        );
        assert_eq!(opened_file("open data/a.json"), Some("open data/a.json"));
        for other in [
            "ls | get x",
            "open $f | get x",
            "open (ls | first).name",
            "open *.json",
            "open --raw a.log | lines",
        ] {
            assert_eq!(opened_file(other), None, "{other}");
        }
    }

    #[test]
    fn a_nested_field_is_found_one_level_down() {
        let span = Span::test_data();
        let toml = Value::test_record(record! {
            "package" => Value::test_record(record! {
                "name" => Value::string("app", span),
                "version" => Value::string("1.2.3", span),
            }),
            "features" => Value::test_list(vec![]),
        });
        let text = describe("open app.toml", 3, &toml, Some("version"));
        assert!(
            text.starts_with(
                "`open app.toml` ($out.3) is a record: package {name, version}, features (list"
            ),
            "{text}"
        );
        assert!(
            text.ends_with("`version` is at `package.version`."),
            "{text}"
        );
        let table = Value::test_list(vec![Value::test_record(record! {
            "name" => Value::string("ann", span),
            "last_login" => Value::string("2023-01-01", span),
        })]);
        let text = describe("open a.json", 0, &table, Some("modified"));
        assert_eq!(
            text,
            "`open a.json` ($out.0) is a table of 1 rows; columns: name (string), last_login (string)."
        );
        assert_eq!(wanted_name("Cannot find column 'version'"), Some("version"));
        assert_eq!(wanted_name("Name not found"), None);
    }
}
