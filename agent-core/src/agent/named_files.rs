//! The files a request names, read before the model's first turn. A small
//! model guesses what it has not seen: `total` for a CSV's `amount`
//! column, `version` for a TOML's `package.version`.
//! Told with the request what `open orders.csv` gives (its columns with
//! their types and the first row), it writes the right names the first
//! time instead of spending its steps on the errors. Only files that open
//! as data are read (see [`opens_as_data`] and [`preview`]).
//!
//! Only plain files inside the working directory are read: no hidden part,
//! no `..`, none larger than [`LARGEST`], at most [`MOST_FILES`]; each as
//! `open <file>` when the user's policy allows that without a question,
//! aside from the conversation (see
//! [`crate::policy::PolicyShell::read_aside`]).

use std::path::{Component, Path};

use nu_protocol::{Config, Value};

use super::data_shape;

/// Most files read for one request.
pub const MOST_FILES: usize = 3;
/// The largest file read, in bytes.
pub const LARGEST: u64 = 1 << 20;
/// Characters of a table's first row shown.
const SAMPLE_CHARS: usize = 160;

/// The words of `request` that name a file in or under `cwd`, as written
/// (quotes and sentence punctuation around them dropped): a relative path
/// with a `.` or `/`, no hidden part and no `..`, a regular file of at most
/// [`LARGEST`] bytes that stays inside `cwd` once links are followed. At
/// most [`MOST_FILES`], each once.
pub fn named_files(request: &str, cwd: &Path) -> Vec<String> {
    let Ok(root) = cwd.canonicalize() else {
        return Vec::new();
    };
    let mut names: Vec<String> = Vec::new();
    for word in request.split_whitespace() {
        let around = |c: char| "\"'`()[]{}<>,;:!?".contains(c);
        let name = word
            .trim_start_matches(around)
            .trim_end_matches(|c: char| around(c) || c == '.');
        let name = name.strip_prefix("./").unwrap_or(name);
        if names.len() == MOST_FILES || names.iter().any(|seen| seen == name) {
            continue;
        }
        if is_plain_relative(name) && is_small_file_inside(&root, name) {
            names.push(name.to_string());
        }
    }
    names
}

/// A relative path with a `.` or `/` (a word that names a file, not any
/// word), no glob, no hidden part, nothing that leaves the folder.
fn is_plain_relative(name: &str) -> bool {
    let looks_like_a_file = name.contains(['.', '/']) && !name.contains(['*', '?', '$', '~']);
    looks_like_a_file
        && !name.starts_with('-')
        && Path::new(name).components().all(|part| match part {
            Component::Normal(part) => !part.to_string_lossy().starts_with('.'),
            _ => false,
        })
}

/// Whether `name` under `root` is a regular file of at most [`LARGEST`]
/// bytes whose real path is inside `root`.
fn is_small_file_inside(root: &Path, name: &str) -> bool {
    let Ok(path) = root.join(name).canonicalize() else {
        return false;
    };
    path.starts_with(root)
        && std::fs::metadata(&path).is_ok_and(|meta| meta.is_file() && meta.len() <= LARGEST)
}

/// Whether `open` reads `name` as data: the engine has a `from` command
/// for its extension (`from csv`, `from toml`). Other files open as text
/// or bytes, which [`preview`] does not show, so they are not read.
pub fn opens_as_data(engine: &nu_protocol::engine::EngineState, name: &str) -> bool {
    Path::new(name)
        .extension()
        .and_then(|ext| ext.to_str())
        .is_some_and(|ext| {
            let from = format!("from {}", ext.to_lowercase());
            engine.find_decl(from.as_bytes(), &[]).is_some()
        })
}

/// `open <name>`, the name in backticks where it needs quoting; `None`
/// for a name a backtick string cannot hold.
pub fn open_pipeline(name: &str) -> Option<String> {
    let bare = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "._/-+".contains(c));
    if bare {
        Some(format!("open {name}"))
    } else if !name.contains('`') {
        Some(format!("open `{name}`"))
    } else {
        None
    }
}

/// What the model reads of `name`, opened as `value`: its shape and a
/// sample (a table's first row), for data (a table, a record, a list);
/// `None` for text and bytes. A text file's first lines told the model
/// nothing it used, and led it away from a task that acts on the file
/// (asked to copy `demo.conf`, it counted the file's lines instead).
pub fn preview(name: &str, value: &Value) -> Option<String> {
    if !matches!(value, Value::List { .. } | Value::Record { .. }) {
        return None;
    }
    let mut text = format!("- {name}: {}", data_shape::shape(value));
    if let Value::List { vals, .. } = value
        && let Some(Value::Record { val, .. }) = vals.first()
    {
        let config = Config::default();
        let fields: Vec<String> = val
            .iter()
            .map(|(key, cell)| format!("{key}: {}", cell.to_abbreviated_string(&config)))
            .collect();
        text.push_str(&format!("; first row: {}", cut(&fields.join(", "))));
    }
    Some(text)
}

/// `text` cut to [`SAMPLE_CHARS`] characters (`…` where it was cut).
fn cut(text: &str) -> String {
    match text.char_indices().nth(SAMPLE_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// `request` with the previews of the files it names after it, and a
/// note (see [`super::repository::note`]).
pub fn with_previews(request: &str, previews: &[String], notes: &[&str]) -> String {
    let mut text = request.to_string();
    if !previews.is_empty() {
        text.push_str(&format!(
            "\n\nThe files named above, as `open` reads them:\n{}",
            previews.join("\n")
        ));
    }
    for note in notes {
        text.push_str(&format!("\n\n{note}"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use nu_protocol::{Span, record};

    fn folder_with(files: &[(&str, &[u8])]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, bytes) in files {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, bytes).unwrap();
        }
        dir
    }

    #[test]
    fn files_the_request_names_are_found_with_punctuation_dropped() {
        let dir = folder_with(&[
            ("orders.csv", b"id,amount\n1,2\n"),
            ("logs/app.log", b"start\n"),
            ("notes", b"no dot in the name\n"),
        ]);
        let found = named_files(
            "Sum the amount in orders.csv, then look at 'logs/app.log'. And orders.csv again; notes too",
            dir.path(),
        );
        assert_eq!(found, ["orders.csv", "logs/app.log"]);
        assert_eq!(
            named_files("open ./orders.csv.", dir.path()),
            ["orders.csv"]
        );
    }

    #[test]
    fn hidden_outside_missing_large_and_folder_names_are_not_read() {
        let big = vec![b'x'; LARGEST as usize + 1];
        let dir = folder_with(&[
            (".env", b"SECRET=1\n"),
            ("data/.hidden.json", b"{}\n"),
            ("big.log", &big),
            ("sub/a.txt", b"a\n"),
        ]);
        let outside = folder_with(&[("secret.txt", b"s\n")]);
        std::os::unix::fs::symlink(
            outside.path().join("secret.txt"),
            dir.path().join("link.txt"),
        )
        .unwrap();
        let request = format!(
            "read .env data/.hidden.json big.log sub/ missing.csv link.txt ../x.txt {} ~/a.txt *.txt",
            outside.path().join("secret.txt").display()
        );
        assert!(named_files(&request, dir.path()).is_empty());
    }

    #[test]
    fn at_most_a_few_files_are_read() {
        let files: Vec<(String, &[u8])> = (0..5)
            .map(|i| (format!("f{i}.txt"), b"x\n" as &[u8]))
            .collect();
        let files: Vec<(&str, &[u8])> = files.iter().map(|(n, b)| (n.as_str(), *b)).collect();
        let dir = folder_with(&files);
        let found = named_files("f0.txt f1.txt f2.txt f3.txt f4.txt", dir.path());
        assert_eq!(found.len(), MOST_FILES);
    }

    #[test]
    fn only_files_that_open_as_data_are_read() {
        let engine = crate::shell::Engine::standard();
        for data in ["orders.csv", "a/b.json", "app.toml", "c.YAML", "d.nuon"] {
            assert!(opens_as_data(engine.state(), data), "{data}");
        }
        for text in [
            "demo.conf",
            "server.log",
            "notes.txt",
            "Makefile.",
            "LICENSE",
        ] {
            assert!(!opens_as_data(engine.state(), text), "{text}");
        }
    }

    #[test]
    fn names_are_quoted_where_nushell_needs_it() {
        assert_eq!(open_pipeline("a/b-1.csv").unwrap(), "open a/b-1.csv");
        assert_eq!(open_pipeline("my file.csv").unwrap(), "open `my file.csv`");
        assert_eq!(open_pipeline("x;rm y.txt").unwrap(), "open `x;rm y.txt`");
        assert_eq!(open_pipeline("a`b.txt"), None);
    }

    #[test]
    fn a_table_shows_its_columns_and_first_row_and_text_is_not_shown() {
        let span = Span::test_data();
        let table = Value::test_list(vec![
            Value::test_record(record! {
                "id" => Value::test_int(1),
                "amount" => Value::test_int(120),
            }),
            Value::test_record(record! {
                "id" => Value::test_int(2),
                "amount" => Value::test_int(75),
            }),
        ]);
        assert_eq!(
            preview("orders.csv", &table).as_deref(),
            Some(
                "- orders.csv: a table of 2 rows; columns: id (int), amount (int); first row: id: 1, amount: 120"
            )
        );
        let wide = Value::test_list(vec![Value::test_record(record! {
            "text" => Value::string("y".repeat(400), span),
        })]);
        assert!(preview("wide.json", &wide).unwrap().ends_with('…'));
        let config = Value::test_record(record! {
            "package" => Value::test_record(record! { "version" => Value::test_string("1.2.0") }),
        });
        assert_eq!(
            preview("app.toml", &config).as_deref(),
            Some("- app.toml: a record: package {version}")
        );
        let text = Value::string("2024-01-01 INFO start\n", span);
        assert_eq!(preview("app.log", &text), None);
        assert_eq!(
            with_previews("sum it", &["- a: x".into()], &[]),
            "sum it\n\nThe files named above, as `open` reads them:\n- a: x"
        );
        assert_eq!(with_previews("sum it", &[], &[]), "sum it");
        assert_eq!(with_previews("who?", &[], &["git"]), "who?\n\ngit");
    }
}
