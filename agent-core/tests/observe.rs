//! Golden tests of the model-facing rendering: the exact text for fixed values.

use agent_core::observe::{Budget, render, render_outcome};
use agent_core::shell::{Engine, Limits, Session, SessionSeed};
use chrono::{DateTime, FixedOffset};
use nu_protocol::{Record, Span, Value, record};

fn date(text: &str) -> Value {
    let parsed: DateTime<FixedOffset> = DateTime::parse_from_rfc3339(text).unwrap();
    Value::date(parsed, Span::test_data())
}

fn file(name: &str, kind: &str, size: i64, modified: &str) -> Value {
    Value::test_record(record! {
        "name" => Value::test_string(name),
        "type" => Value::test_string(kind),
        "size" => Value::test_filesize(size),
        "user" => Value::test_string("alice"),
        "modified" => date(modified),
    })
}

fn listing() -> Value {
    Value::test_list(vec![
        file("Cargo.toml", "file", 1_234, "2026-11-22T08:15:00+00:00"),
        file("src", "dir", 4_096, "2026-11-22T09:30:59+00:00"),
        file(
            "big file.iso",
            "file",
            8_100_000_000i64,
            "2026-11-22T10:00:00+00:00",
        ),
        file("notes.md", "file", 0, "2026-11-22T23:59:00+00:00"),
    ])
}

#[test]
fn table_states_constant_columns_once_and_factors_the_day() {
    let text = render(&listing(), &Budget::approx(1000), Some(3));
    assert_eq!(
        text,
        "table: 4 rows × 5 columns
same in every row: user=alice
name:str|type:str|size:filesize|modified:date(2026-11-22)
Cargo.toml|file|1.2kB|08:15
src|dir|4.1kB|09:30
big file.iso|file|8.1GB|10:00
notes.md|file|0B|23:59"
    );
}

#[test]
fn shared_directory_and_same_minute_are_stated_once() {
    let row = |path: &str, size: i64, at: &str| {
        Value::test_record(record! {
            "path" => Value::test_string(path),
            "size" => Value::test_filesize(size),
            "modified" => date(at),
        })
    };
    let table = Value::test_list(vec![
        row("/home/al/logs/a.log", 10, "2026-11-22T08:15:01+00:00"),
        row("/home/al/logs/b.log", 20, "2026-11-22T08:15:30+00:00"),
        row("/home/al/logs/old/c.log", 30, "2026-11-22T08:15:59+00:00"),
    ]);
    assert_eq!(
        render(&table, &Budget::approx(1000), Some(0)),
        "table: 3 rows × 3 columns
same in every row: modified=2026-11-22 08:15
path:str(under /home/al/logs/)|size:filesize
a.log|10B
b.log|20B
old/c.log|30B"
    );
}

#[test]
fn a_value_filling_most_of_a_column_is_stated_once() {
    let rows: Vec<Value> = (0..10)
        .map(|i| {
            Value::test_record(record! {
                "pid" => Value::test_int(i),
                "status" => Value::test_string(if i == 3 { "Running" } else { "Sleeping" }),
                "cpu" => Value::test_float(if i == 3 { 12.5 } else { 0.0 }),
            })
        })
        .collect();
    assert_eq!(
        render(&Value::test_list(rows), &Budget::approx(1000), Some(0)),
        "table: 10 rows × 3 columns
pid:int|status:str(blank=Sleeping)|cpu:float
0||0
1||0
2||0
3|Running|12.5
4||0
5||0
6||0
7||0
8||0
9||0"
    );
}

#[test]
fn table_over_budget_keeps_head_and_tail_with_a_marker() {
    let rows: Vec<Value> = (0..2000)
        .map(|i| {
            Value::test_record(record! {
                "id" => Value::test_int(i),
                "name" => Value::test_string(format!("row-{i}")),
            })
        })
        .collect();
    let text = render(&Value::test_list(rows), &Budget::approx(120), Some(7));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "table: 2,000 rows × 2 columns");
    assert_eq!(lines[1], "id:int|name:str");
    assert_eq!(lines[2], "0|row-0");
    let marker = lines.iter().find(|l| l.starts_with('…')).expect("a marker");
    assert!(marker.contains("rows omitted — slice $out.7"), "{marker}");
    assert_eq!(*lines.last().unwrap(), "1999|row-1999");
    // The marker's counts add up.
    let shown = lines.len() - 3;
    let omitted: usize = marker
        .trim_start_matches("… ")
        .split(' ')
        .next()
        .unwrap()
        .replace(',', "")
        .parse()
        .unwrap();
    assert_eq!(shown + omitted, 2000);
    assert!(text.contains(&format!(
        "skip {}",
        lines.iter().position(|l| l.starts_with('…')).unwrap() - 2
    )));
}

#[test]
fn records_are_key_value_lines_with_nested_values_inline() {
    let value = Value::test_record(record! {
        "host" => Value::test_string("box"),
        "uptime" => Value::test_duration(3 * 86_400_000_000_000 + 4 * 3_600_000_000_000),
        "load" => Value::test_list(vec![Value::test_float(0.5), Value::test_float(1.25)]),
        "disk" => Value::test_record(record! { "free" => Value::test_filesize(2_500_000_000i64), "ok" => Value::test_bool(true) }),
        "users" => Value::test_list((0..5).map(|i| Value::test_record(record!{ "uid" => Value::test_int(i) })).collect()),
    });
    assert_eq!(
        render(&value, &Budget::approx(1000), Some(2)),
        "host: box
uptime: 3d 4h
load: [0.5, 1.25]
disk: {free: 2.5GB, ok: true}
users: [table 5 rows: uid] — see $out.2.users"
    );
}

#[test]
fn long_text_keeps_head_and_tail_lines() {
    let text: String = (1..=500).map(|i| format!("line {i}\n")).collect();
    let out = render(&Value::test_string(text), &Budget::approx(60), Some(1));
    assert!(out.starts_with("line 1\nline 2\n"), "{out}");
    assert!(out.ends_with("line 500"), "{out}");
    assert!(
        out.contains("lines omitted — slice $out.1 | lines | skip"),
        "{out}"
    );
}

#[test]
fn lists_binary_and_scalars() {
    let list = Value::test_list(vec![
        Value::test_int(1),
        Value::test_int(2),
        Value::test_int(3),
    ]);
    assert_eq!(
        render(&list, &Budget::approx(100), None),
        "list: 3 items (int)\n1\n2\n3"
    );
    let gz = Value::test_binary(vec![0x1f, 0x8b, 8, 0, 0, 0]);
    assert_eq!(
        render(&gz, &Budget::approx(100), None),
        "binary 6B, gzip data"
    );
    assert_eq!(
        render(&Value::test_filesize(1_500_000), &Budget::approx(10), None),
        "1.5MB"
    );
    assert_eq!(
        render(&Value::test_nothing(), &Budget::approx(10), None),
        "(nothing)"
    );
    let empty = Value::test_record(Record::new());
    assert_eq!(render(&empty, &Budget::approx(10), None), "");
}

#[test]
fn rendering_is_deterministic() {
    let a = render(&listing(), &Budget::approx(50), Some(1));
    let b = render(&listing(), &Budget::approx(50), Some(1));
    assert_eq!(a, b);
}

#[test]
fn outcome_shows_exit_code_stderr_and_errors() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = Session::new(Engine::standard(), SessionSeed::new(dir.path())).unwrap();
    let outcome = session.run(
        "^sh -c 'echo out; echo oops >&2; exit 2'",
        &Limits::default(),
    );
    assert_eq!(
        render_outcome(&outcome, &Budget::approx(500)),
        "$out.0 exit=2\nout\n\nstderr:\noops\n"
    );
    let failed = session.run("[{a: 1}] | get b", &Limits::default());
    let text = render_outcome(&failed, &Budget::approx(500));
    assert!(
        text.starts_with("$out.1\nError: nu::shell::column_not_found"),
        "{text}"
    );
}
