//! The shape of a data file, told to a model that guessed its columns
//! wrong: a small model writes `update version` for a TOML file whose
//! version is `package.version`, or `get active | where modified …` on a
//! JSON list whose fields it never looked at. When a pipeline that starts
//! with `open file` fails on a column or cell path, the loop reads the
//! file again (a read the policy allows without a question) and tells the
//! model its columns, the nested fields one level down, and where the
//! name it asked for really is.

use nu_protocol::Value;

use crate::shell::Diagnostic;

/// Errors of a column or cell path the input does not have.
const PATH_ERRORS: &[&str] = &[
    "nu::shell::column_not_found",
    "nu::shell::name_not_found",
    "nu::shell::incompatible_path_access",
    "nu::shell::cant_find_column",
];

/// Whether `diagnostic` is about a column or cell path, itself or inside
/// the closure it reports (`each { get total }` fails as the closure's
/// error, the column one inside it).
pub fn is_path_error(diagnostic: &Diagnostic) -> bool {
    let code = diagnostic.code.as_deref().unwrap_or_default();
    PATH_ERRORS.contains(&code)
        || PATH_ERRORS
            .iter()
            .any(|inner| diagnostic.rendered.contains(inner))
}

/// The `open <file>` a pipeline starts with, when its first element is
/// exactly that (a literal path, no variables or subexpressions).
pub fn opened_file(pipeline: &str) -> Option<&str> {
    let first = super::pipeline_text::first_element(pipeline).trim();
    let path = first.strip_prefix("open ")?.trim();
    let literal = !path.is_empty()
        && !path.starts_with('-')
        && !path.contains(['$', '(', ')', '{', '}', ';', '*'])
        && path.split_whitespace().count() == 1;
    literal.then_some(first)
}

/// What `value` (read by `source`, the start of `pipeline`, kept as
/// `$out.N` of `index`) looks like, and where `wanted` (the name the
/// failing step asked for) is found inside it, with `pipeline` written
/// with that path.
pub fn describe(
    pipeline: &str,
    source: &str,
    index: usize,
    value: &Value,
    wanted: Option<&str>,
) -> String {
    let mut text = String::new();
    if let Some(wanted) = wanted
        && let Some(path) = path_to(value, wanted)
        && path != wanted
        && let Some(fixed) = with_path(pipeline, source, wanted, &path)
    {
        text.push_str(&format!("`{wanted}` is at `{path}`: `{fixed}`\n"));
    }
    text.push_str(&format!("`{source}` ($out.{index}) is {}", shape(value)));
    text.push('.');
    if let Some(wanted) = wanted
        && path_to(value, wanted).is_none()
    {
        text.push_str(&format!(" It has no `{wanted}`."));
    }
    text
}

/// What `value` is, in a phrase: a record and its fields (nested records
/// one level down), a table's rows and columns with their types, a
/// list's length, text's lines.
pub fn shape(value: &Value) -> String {
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
            format!("a record: {}", fields.join(", "))
        }
        Value::List { vals, .. } if vals.iter().all(|v| matches!(v, Value::Record { .. })) => {
            let columns: Vec<String> = match vals.first() {
                Some(Value::Record { val, .. }) => val
                    .iter()
                    .map(|(key, inner)| format!("{key} ({})", inner.get_type()))
                    .collect(),
                _ => Vec::new(),
            };
            format!(
                "a table of {} rows; columns: {}",
                vals.len(),
                columns.join(", ")
            )
        }
        Value::List { vals, .. } => format!("a list of {} items", vals.len()),
        Value::String { val, .. } => {
            format!("text of {} lines (`lines` splits it)", val.lines().count())
        }
        other => format!("a {}", other.get_type()),
    }
}

/// `pipeline` with the first whole word `wanted` after `source` written
/// `path`; `None` when the word is not there.
fn with_path(pipeline: &str, source: &str, wanted: &str, path: &str) -> Option<String> {
    let start = pipeline.find(source)? + source.len();
    let rest = &pipeline[start..];
    let is_word = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '$');
    let mut from = 0;
    while let Some(at) = rest[from..].find(wanted) {
        let at = from + at;
        let before = rest[..at].chars().next_back();
        let after = rest[at + wanted.len()..].chars().next();
        if !before.is_some_and(is_word) && !after.is_some_and(|c| is_word(c) && c != '.') {
            return Some(format!(
                "{}{}{path}{}",
                &pipeline[..start],
                &rest[..at],
                &rest[at + wanted.len()..]
            ));
        }
        from = at + wanted.len();
    }
    None
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

/// The name a column error asks for (`Cannot find column 'version'`),
/// from its message or, for an error inside a closure, its rendering.
pub fn wanted_name(diagnostic: &Diagnostic) -> Option<String> {
    let from = |text: &str| {
        let at = text.find("Cannot find column '")?;
        let name = text[at + "Cannot find column '".len()..]
            .split('\'')
            .next()?;
        (!name.is_empty() && !name.contains(' ')).then(|| name.trim_end_matches('?').to_string())
    };
    from(&diagnostic.message).or_else(|| from(&diagnostic.rendered))
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

    fn column_error(message: &str, rendered: &str) -> Diagnostic {
        Diagnostic {
            code: Some("nu::shell::eval_block_with_input".into()),
            message: message.into(),
            help: None,
            labels: Vec::new(),
            rendered: rendered.into(),
            cause: None,
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
        let pipeline = "open app.toml | update version '1.3.0' | save -f app.toml";
        let text = describe(pipeline, "open app.toml", 3, &toml, Some("version"));
        assert_eq!(
            text,
            "`version` is at `package.version`: `open app.toml | update package.version '1.3.0' | save -f app.toml`\n`open app.toml` ($out.3) is a record: package {name, version}, features (list<any>)."
        );
        let table = Value::test_list(vec![Value::test_record(record! {
            "name" => Value::string("ann", span),
            "last_login" => Value::string("2023-01-01", span),
        })]);
        let text = describe(
            "open a.json | where modified < 1",
            "open a.json",
            0,
            &table,
            Some("modified"),
        );
        assert_eq!(
            text,
            "`open a.json` ($out.0) is a table of 1 rows; columns: name (string), last_login (string). It has no `modified`."
        );
        let text = describe("open a.json | where x", "open a.json", 0, &table, None);
        assert!(!text.contains("It has no"), "{text}");
    }

    #[test]
    fn the_wanted_column_is_read_from_the_error_or_the_closures() {
        let direct = column_error("Cannot find column 'version'", "");
        assert_eq!(wanted_name(&direct).as_deref(), Some("version"));
        let inside = column_error(
            "Eval block failed with pipeline input",
            "Error: nu::shell::eval_block_with_input\n  x Eval block failed\nError: nu::shell::column_not_found\n  x Cannot find column 'total?'",
        );
        assert!(is_path_error(&inside));
        assert_eq!(wanted_name(&inside).as_deref(), Some("total"));
        let other = column_error("Name not found", "Error: nu::shell::name_not_found");
        assert!(is_path_error(&other));
        assert_eq!(wanted_name(&other), None);
        let unrelated = column_error("Eval block failed", "Error: nu::shell::io::file_not_found");
        assert!(!is_path_error(&unrelated));
    }

    #[test]
    fn the_path_replaces_the_whole_word_after_the_source() {
        assert_eq!(
            with_path(
                "open v.toml | get version",
                "open v.toml",
                "version",
                "package.version"
            )
            .as_deref(),
            Some("open v.toml | get package.version")
        );
        // Not inside a longer word, not in the file name.
        assert_eq!(
            with_path(
                "open version.toml | get versions",
                "open version.toml",
                "version",
                "a.version"
            ),
            None
        );
    }
}
