//! A program's text turned into the table it stands for (the `text-tables`
//! lever, on trial), where its shape is exact: every line of the text is
//! of one known form, and where a line names a path, that path is here.
//! A script's answer then returns rows the user can pipe (`where`,
//! `sort-by`, `math sum`) instead of a string. The forms:
//!
//! - a long listing (`ls -l`, `find -ls` cut to it): `name`, `type`,
//!   `mode`, `size`, `modified`; its `total N` line left out;
//! - `SIZE<tab>PATH` (`du`): `path`, `size` (a filesize where the size has
//!   a unit, `4.0K`; the number as written where it has none, du's blocks
//!   unless `-b`);
//! - `PATH:N` (`grep -c` over files): `path`, `count`;
//! - `N PATH` (`wc -l` over files, `find -printf '%s %p'`): `path`,
//!   `count`; wc's own `total` line left out;
//! - `  N VALUE` (`uniq -c`): `count`, `value`.
//!
//! Any other text stays text.

use std::path::Path;
use std::sync::LazyLock;

use nu_protocol::{Record, Span, Value};
use regex::Regex;

/// The text `value` as the table its lines stand for, where each of them
/// is of one form above; `cwd` is where the paths it names must be.
pub fn tabulated(value: &Value, cwd: &Path) -> Option<Value> {
    let Value::String { val, .. } = value else {
        return None;
    };
    let span = value.span();
    let lines: Vec<&str> = val
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.is_empty())
        .collect();
    if lines.is_empty() {
        return None;
    }
    let here = |path: &str| is_here(path, cwd);
    let rows = long_listing(&lines, span)
        .or_else(|| sized_paths(&lines, &here, span))
        .or_else(|| paths_counted(&lines, &here, span))
        .or_else(|| counted_paths(&lines, &here, span))
        .or_else(|| counted_values(&lines, span))?;
    Some(Value::list(rows, span))
}

/// Whether `path`, as a program wrote it (`./a.txt`), is here in `cwd`.
pub fn is_here(path: &str, cwd: &Path) -> bool {
    let path = path.strip_prefix("./").unwrap_or(path);
    !path.is_empty() && cwd.join(path).symlink_metadata().is_ok()
}

static LONG_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^([-dlcbps])([-rwxsStT]{9})[.+@]?\s+\d+\s+\S+\s+\S+\s+(\d+(?:\.\d+)?[KMGTP]?)\s+([A-Z][a-z]{2}\s+\d{1,2}\s+(?:\d{1,2}:\d{2}|\d{4}))\s+(.+)$",
    )
    .expect("a valid pattern")
});
static TOTAL_LINE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^total \d+(?:\.\d+)?[KMGTP]?$").expect("a valid pattern"));
static SIZE_TAB_PATH: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(\d+(?:\.\d+)?[KMGTP]?)\t(.+)$").expect("a valid pattern"));
static PATH_COLON_COUNT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(.+):(\d+)$").expect("a valid pattern"));
static COUNT_PATH: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*(\d+) (.+)$").expect("a valid pattern"));
static COUNT_VALUE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s+(\d+) (.+)$").expect("a valid pattern"));

/// `ls -l`'s lines, its `total N` line left out.
fn long_listing(lines: &[&str], span: Span) -> Option<Vec<Value>> {
    let entries: Vec<&&str> = lines.iter().filter(|l| !TOTAL_LINE.is_match(l)).collect();
    if entries.is_empty() {
        return None;
    }
    entries
        .into_iter()
        .map(|line| {
            let found = LONG_LINE.captures(line)?;
            let kind = match &found[1] {
                "d" => "dir",
                "l" => "symlink",
                "-" => "file",
                _ => "other",
            };
            let name = found[5].split(" -> ").next().unwrap_or(&found[5]);
            let mut record = Record::new();
            record.push("name", Value::string(name, span));
            record.push("type", Value::string(kind, span));
            record.push("mode", Value::string(&found[2], span));
            record.push("size", size_value(&found[3], span));
            record.push("modified", Value::string(&found[4], span));
            Some(Value::record(record, span))
        })
        .collect()
}

/// `du`'s `SIZE<tab>PATH` lines.
fn sized_paths(lines: &[&str], here: &dyn Fn(&str) -> bool, span: Span) -> Option<Vec<Value>> {
    each_line(lines, &SIZE_TAB_PATH, |found| {
        here(&found[2]).then(|| path_row(span, &found[2], ("size", size_value(&found[1], span))))
    })
}

/// `grep -c`'s `PATH:N` lines over several files.
fn paths_counted(lines: &[&str], here: &dyn Fn(&str) -> bool, span: Span) -> Option<Vec<Value>> {
    each_line(lines, &PATH_COLON_COUNT, |found| {
        let count = found[2].parse::<i64>().ok()?;
        here(&found[1]).then(|| path_row(span, &found[1], ("count", Value::int(count, span))))
    })
}

/// `wc`'s `N PATH` lines, its `N total` line left out.
fn counted_paths(lines: &[&str], here: &dyn Fn(&str) -> bool, span: Span) -> Option<Vec<Value>> {
    // A file named `total` here makes the line a file's count; looked
    // for once, not per line.
    let totals = lines.len() > 1 && !here("total");
    let is_total = |line: &&str| totals && line.trim_start().ends_with(" total");
    let rows: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|line| !is_total(line))
        .collect();
    if rows.is_empty() {
        return None;
    }
    each_line(&rows, &COUNT_PATH, |found| {
        let count = found[1].parse::<i64>().ok()?;
        here(&found[2]).then(|| path_row(span, &found[2], ("count", Value::int(count, span))))
    })
}

/// `uniq -c`'s `  N VALUE` lines (each count right-aligned after spaces).
fn counted_values(lines: &[&str], span: Span) -> Option<Vec<Value>> {
    each_line(lines, &COUNT_VALUE, |found| {
        let count = found[1].parse::<i64>().ok()?;
        Some(row(
            span,
            [
                ("count", Value::int(count, span)),
                ("value", Value::string(found[2].trim(), span)),
            ],
        ))
    })
}

/// A row made by `make` of each line's match of `pattern`; `None` where
/// a line does not match or `make` gives none.
fn each_line(
    lines: &[&str],
    pattern: &Regex,
    make: impl Fn(&regex::Captures) -> Option<Value>,
) -> Option<Vec<Value>> {
    lines
        .iter()
        .map(|line| make(&pattern.captures(line)?))
        .collect()
}

/// A row of `path` and one more column.
fn path_row(span: Span, path: &str, (name, value): (&str, Value)) -> Value {
    row(span, [("path", Value::string(path, span)), (name, value)])
}

/// A record of `columns`.
fn row<const N: usize>(span: Span, columns: [(&str, Value); N]) -> Value {
    let mut record = Record::new();
    for (name, value) in columns {
        record.push(name, value);
    }
    Value::record(record, span)
}

/// A size as a program writes it: with a unit (`4.0K`, powers of 1024 as
/// `ls -h` and `du -h` mean them), a filesize; without one, the number
/// as written (bytes for `ls -l`, blocks for `du` without `-b`).
fn size_value(text: &str, span: Span) -> Value {
    let unit = match text.chars().last() {
        Some('K') => 1u64 << 10,
        Some('M') => 1 << 20,
        Some('G') => 1 << 30,
        Some('T') => 1 << 40,
        Some('P') => 1 << 50,
        _ => {
            return text
                .parse::<i64>()
                .map_or_else(|_| Value::string(text, span), |n| Value::int(n, span));
        }
    };
    let number: f64 = text[..text.len() - 1].parse().unwrap_or(0.0);
    Value::filesize((number * unit as f64).round() as i64, span)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(lines: &str) -> Value {
        Value::test_string(lines)
    }

    fn here(files: &[&str]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("a temp dir");
        for file in files {
            let path = dir.path().join(file);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("a folder");
            std::fs::write(path, "x").expect("a file");
        }
        dir
    }

    fn column(table: &Value, name: &str) -> Vec<Value> {
        table
            .as_list()
            .expect("a list")
            .iter()
            .map(|row| {
                row.as_record()
                    .expect("a record")
                    .get(name)
                    .expect("the column")
                    .clone()
            })
            .collect()
    }

    #[test]
    fn du_lines_are_paths_with_sizes() {
        let dir = here(&["alpha/a", "beta/b"]);
        let table = tabulated(&text("308K\talpha\n24K\t./beta\n"), dir.path()).expect("a table");
        assert_eq!(
            column(&table, "path"),
            [Value::test_string("alpha"), Value::test_string("./beta")]
        );
        assert_eq!(
            column(&table, "size"),
            [
                Value::test_filesize(308 * 1024),
                Value::test_filesize(24 * 1024)
            ]
        );
        // Blocks without a unit stay the number du wrote.
        let table = tabulated(&text("12\talpha\n"), dir.path()).expect("a table");
        assert_eq!(column(&table, "size"), [Value::test_int(12)]);
    }

    #[test]
    fn grep_and_wc_counts_are_rows_per_file() {
        let dir = here(&["logs/api.log", "logs/db.log"]);
        let table =
            tabulated(&text("logs/api.log:4\nlogs/db.log:0\n"), dir.path()).expect("a table");
        assert_eq!(
            column(&table, "count"),
            [Value::test_int(4), Value::test_int(0)]
        );
        let table = tabulated(
            &text("  4 logs/api.log\n  0 logs/db.log\n  4 total\n"),
            dir.path(),
        )
        .expect("a table");
        assert_eq!(
            column(&table, "path").len(),
            2,
            "wc's total line is not a file"
        );
    }

    #[test]
    fn uniq_counts_are_rows_of_value_and_count() {
        let table =
            tabulated(&text("      5 csv\n      2 json\n"), Path::new("/")).expect("a table");
        assert_eq!(
            column(&table, "value"),
            [Value::test_string("csv"), Value::test_string("json")]
        );
        assert_eq!(
            column(&table, "count"),
            [Value::test_int(5), Value::test_int(2)]
        );
    }

    #[test]
    fn a_long_listing_is_its_entries() {
        let listing = "total 8\n-rw-r--r-- 1 u g 4096 Jan  3 10:00 notes.txt\ndrwxr-xr-x 2 u g 4.0K Mar 12  2023 old dir\nlrwxrwxrwx 1 u g 9 Jan  3 10:00 link -> notes.txt\n";
        let table = tabulated(&text(listing), Path::new("/")).expect("a table");
        assert_eq!(
            column(&table, "name"),
            [
                Value::test_string("notes.txt"),
                Value::test_string("old dir"),
                Value::test_string("link")
            ]
        );
        assert_eq!(column(&table, "type")[1], Value::test_string("dir"));
        assert_eq!(column(&table, "size")[0], Value::test_int(4096));
        assert_eq!(column(&table, "size")[1], Value::test_filesize(4096));
    }

    #[test]
    fn other_text_stays_text() {
        let dir = here(&["a.txt"]);
        for other in [
            "Hello world!\n",
            "a.txt:4\nnot-here.txt:2\n",
            "localhost:8080\n",
            "3\n",
            "total 8\n",
            "",
            "12\tnot-here\n",
        ] {
            assert_eq!(tabulated(&text(other), dir.path()), None, "{other:?}");
        }
        assert_eq!(tabulated(&Value::test_int(3), dir.path()), None);
    }
}
