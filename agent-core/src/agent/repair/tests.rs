use super::super::{habits::*, usage::*};
use super::*;
use crate::shell::{Diagnostic, DiagnosticLabel, Engine};

/// The first exact fix of `pipeline` that failed with `diagnostic`,
/// every rule on (see [`super::super::rules::exact_fix`]).
fn exact_fix(pipeline: &str, diagnostic: &Diagnostic) -> Option<(String, String)> {
    let levers = super::super::levers::Levers::default();
    super::super::rules::exact_fix(pipeline, diagnostic, &levers)
        .map(|fixed| (fixed.pipeline, fixed.note))
}

#[test]
fn invented_names_are_errors_with_the_nushell_form() {
    let unknown = vec!["count".to_string(), "frobnicate".into()];
    let engine = Engine::standard();
    let text = unknown_programs_message(engine.state(), &unknown);
    assert!(text.contains("`count` is not a Nushell command"), "{text}");
    assert!(text.contains("`length`"), "{text}");
    let close = unknown_programs_message(engine.state(), &["lenght".to_string()]);
    assert!(close.contains("did you mean `length`?"), "{close}");
    // A name the table lacks: the commands whose search terms name it.
    let searched = unknown_programs_message(engine.state(), &["push".to_string()]);
    assert!(searched.contains("commands for it: `append`"), "{searched}");
}

#[test]
fn a_script_is_told_of_its_missing_programs_in_bash() {
    let text = unknown_programs_in_script_message(&["rename".to_string(), "frobnicate".into()]);
    assert!(
        text.contains("`rename` is not a program on this machine; in bash: a loop of `mv`"),
        "{text}"
    );
    assert!(text.contains("`frobnicate` is not a program"), "{text}");
    assert!(text.ends_with("call `sh` again."), "{text}");
    assert!(
        !text.contains("Nushell") && !text.contains("`nu`"),
        "{text}"
    );
}

#[test]
fn each_renamed_habit_names_a_nushell_command() {
    let engine = Engine::standard();
    let state = engine.state();
    let renamed: Vec<&Habit> = HABITS.iter().filter(|h| h.command.is_some()).collect();
    assert!(renamed.len() >= 10);
    for habit in renamed {
        let command = habit.command.unwrap_or_default();
        assert!(
            state.find_decl(command.as_bytes(), &[]).is_some(),
            "{}: `{command}` is no command",
            habit.name
        );
        assert!(
            habit.form.contains(command),
            "{}: {}",
            habit.name,
            habit.form
        );
    }
    let mut names: Vec<&str> = HABITS.iter().map(|h| h.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), HABITS.len(), "a habit is in the table twice");
    assert_eq!(renamed_command("mean"), Some("math avg"));
    assert_eq!(renamed_command("grep"), None);
}

#[test]
fn a_value_opened_as_a_file_is_pointed_to_its_row() {
    use nu_protocol::{Span, Value, record};
    let not_found = |code: &str| Diagnostic {
        code: Some(code.into()),
        message: "File not found".into(),
        help: None,
        labels: Vec::new(),
        rendered: String::new(),
        cause: None,
    };
    let row = Value::test_record(record! {
        "pid" => Value::test_int(4242),
        "name" => Value::test_string("ticker"),
    });
    let ps = vec![(0, Value::list(vec![row.clone()], Span::test_data()))];
    let hint = value_as_file_hint(
        "open ticker --raw",
        &not_found("nu::shell::io::file_not_found"),
        &ps,
    )
    .unwrap();
    assert!(
        hint.starts_with("`ticker` is no file here: it is the `name` of a row of `$out.0`"),
        "{hint}"
    );
    assert!(hint.contains("`$out.0 | where name == 'ticker'`"), "{hint}");
    let record = vec![(3, row)];
    assert!(
        value_as_file_hint(
            "cat 'ticker'",
            &not_found("nu::shell::io::not_found"),
            &record
        )
        .is_some()
    );
    // A path no result holds, another error, or no file command.
    assert!(
        value_as_file_hint(
            "open other",
            &not_found("nu::shell::io::file_not_found"),
            &ps
        )
        .is_none()
    );
    assert!(
        value_as_file_hint(
            "open ticker",
            &not_found("nu::shell::io::is_a_directory"),
            &ps
        )
        .is_none()
    );
    assert!(
        value_as_file_hint(
            "echo ticker",
            &not_found("nu::shell::io::file_not_found"),
            &ps
        )
        .is_none()
    );
}

#[test]
fn a_command_called_as_a_program_runs_as_the_command() {
    let engine = Engine::standard();
    let names = |list: &[&str]| list.iter().map(|n| n.to_string()).collect::<Vec<_>>();
    assert_eq!(
        without_caret_of_commands(engine.state(), "^sys cpu | length", &names(&["sys"])),
        Some("sys cpu | length".into())
    );
    assert_eq!(
        without_caret_of_commands(engine.state(), "(^ls) | ^sort", &names(&["ls", "sort"])),
        Some("(ls) | sort".into())
    );
    // `^sysx` is another name; `^frobnicate` no command at all.
    assert_eq!(
        without_caret_of_commands(engine.state(), "^sysx; ^sys", &names(&["sys"])),
        Some("^sysx; sys".into())
    );
    assert_eq!(
        without_caret_of_commands(
            engine.state(),
            "^sys | ^frobnicate",
            &names(&["sys", "frobnicate"])
        ),
        None
    );
    assert_eq!(without_caret_of_commands(engine.state(), "sys", &[]), None);
}

#[test]
fn a_row_matched_by_a_regex_is_matched_as_its_text() {
    let unsupported = |message: &str| Diagnostic {
        code: Some("nu::shell::operator_unsupported_type".into()),
        message: message.into(),
        help: None,
        labels: Vec::new(),
        rendered: String::new(),
        cause: None,
    };
    let on_rows = unsupported(
        "The '=~' operator does not work on values of type 'record<hash: string, author: string>'.",
    );
    let fixed = exact_fix(
        "^git log | lines | split column '|' hash author | where $it =~ 'LICENSE' | first 1",
        &on_rows,
    );
    assert_eq!(
        fixed.map(|(p, _)| p).as_deref(),
        Some(
            "^git log | lines | split column '|' hash author | where ($it | values | str join ' ') =~ 'LICENSE' | first 1"
        )
    );
    // A column's match, or another type, is left alone.
    assert_eq!(exact_fix("ls | where $it.name =~ 'x'", &on_rows), None);
    let on_ints = unsupported("The '=~' operator does not work on values of type 'int'.");
    assert_eq!(exact_fix("[1] | where $it =~ 'x'", &on_ints), None);
}

#[test]
fn a_comparison_of_two_types_is_written_in_one_where_that_is_exact() {
    let compared = |message: &str, text: &str, column: usize, snippet: &str| Diagnostic {
        code: Some("nu::shell::operator_incompatible_types".into()),
        message: message.into(),
        help: None,
        labels: vec![
            DiagnosticLabel {
                text: "does not operate between 'filesize' and 'int'".into(),
                line: 1,
                column: 17,
                snippet: ">".into(),
            },
            DiagnosticLabel {
                text: text.into(),
                line: 1,
                column,
                snippet: snippet.into(),
            },
        ],
        rendered: String::new(),
        cause: None,
    };
    let size_int = "Types 'filesize' and 'int' are not compatible for the '>' operator.";
    let fixed = exact_fix(
        "ls | where size > 10 | get name",
        &compared(size_int, "int", 19, "10"),
    );
    assert_eq!(
        fixed.as_ref().map(|(p, _)| p.as_str()),
        Some("ls | where size > 10b | get name")
    );
    assert!(fixed.is_some_and(|(_, note)| note.contains("`10b`")));
    // Characters before it are counted as characters, not bytes.
    assert_eq!(
        exact_fix(
            "ls | where name != 'é' and size > 0",
            &compared(size_int, "int", 35, "0"),
        )
        .map(|(p, _)| p),
        Some("ls | where name != 'é' and size > 0b".into())
    );
    // Not a literal (or not where the label says): nothing to fix.
    assert_eq!(
        exact_fix("ls | where size > $n", &compared(size_int, "int", 19, "$n")),
        None
    );
    assert_eq!(
        exact_fix("ls | where size > 10", &compared(size_int, "int", 3, "10")),
        None
    );
    let int_size = "Types 'int' and 'filesize' are not compatible for the '>' operator.";
    assert_eq!(
        exact_fix(
            "ls | each {|f| {size: 3}} | where size > 0b",
            &compared(int_size, "filesize", 42, "0b"),
        )
        .map(|(p, _)| p),
        Some("ls | each {|f| {size: 3}} | where size > 0".into())
    );
    assert_eq!(
        exact_fix(
            "x | where rows > 1kb",
            &compared(int_size, "filesize", 18, "1kb")
        ),
        None
    );
    let date_text = "Types 'datetime' and 'string' are not compatible for the '<' operator.";
    assert_eq!(
        exact_fix(
            "ls | where modified < '2023-01-01'",
            &compared(date_text, "string", 23, "'2023-01-01'"),
        )
        .map(|(p, _)| p),
        Some("ls | where modified < ('2023-01-01' | into datetime)".into())
    );
}

#[test]
fn a_parse_error_gets_the_usage_of_the_command_it_points_at() {
    let engine = Engine::standard();
    let diagnostic = Diagnostic {
        code: None,
        message: "extra positional argument".into(),
        help: None,
        labels: vec![DiagnosticLabel {
            text: String::new(),
            line: 1,
            column: 13,
            snippet: "aux".into(),
        }],
        rendered: String::new(),
        cause: None,
    };
    let hint =
        usage_hint(engine.state(), "ls | first; ps aux | where", &diagnostic).unwrap_or_default();
    assert!(hint.starts_with("ps: "), "{hint}");
    assert!(hint.contains("takes no arguments"), "{hint}");
    assert!(!hint.contains("examples:"), "{hint}");
}

#[test]
fn an_argument_to_a_family_of_subcommands_gets_the_subcommands() {
    let engine = Engine::standard();
    let at = |column: usize| failed("nu::parser::extra_positional", column);
    let hint =
        usage_hint(engine.state(), "sys tcp | where state == 'LISTEN'", &at(5)).unwrap_or_default();
    assert!(
        hint.starts_with("`sys` is used with a subcommand:"),
        "{hint}"
    );
    assert!(
        hint.contains("`sys net`") && hint.contains("`sys disks`"),
        "{hint}"
    );
    // Sockets are in no subcommand: where they are read is said.
    assert!(hint.contains("`^ss -tln`"), "{hint}");
    let hint = usage_hint(engine.state(), "sys memory", &at(5)).unwrap_or_default();
    assert!(!hint.contains("^ss"), "{hint}");
    let hint = usage_hint(engine.state(), "lines | split ' ' | first", &at(15)).unwrap_or_default();
    assert!(hint.contains("`split row`"), "{hint}");
    // A command with arguments of its own keeps its usage.
    let hint = usage_hint(engine.state(), "ls a b c d e", &at(4)).unwrap_or_default();
    assert!(!hint.contains("subcommand"), "{hint}");
}

/// A session of the standard engine working in `dir`.
fn session_in(dir: impl Into<std::path::PathBuf>) -> crate::shell::Session {
    crate::shell::Session::new(
        Engine::standard(),
        crate::shell::SessionSeed::new(dir.into()),
    )
    .unwrap()
}

fn failed(code: &str, column: usize) -> Diagnostic {
    Diagnostic {
        code: Some(code.into()),
        message: String::new(),
        help: None,
        labels: vec![DiagnosticLabel {
            text: String::new(),
            line: 1,
            column,
            snippet: String::new(),
        }],
        rendered: String::new(),
        cause: None,
    }
}

#[test]
fn a_missing_column_gets_the_columns_there_are() {
    let missing = "nu::shell::column_not_found";
    let hint = failure_hint("ls *.tmp | where ext == '.tmp'", &failed(missing, 18));
    assert!(
        hint.as_deref().is_some_and(|h| h
            .starts_with("`ls` gives the columns name, type, size, modified")
            && h.contains("ends-with")),
        "{hint:?}"
    );
    let hint = failure_hint("sys disks | get avail", &failed(missing, 17)).unwrap();
    assert!(hint.contains("free"), "{hint}");
    // Elsewhere, how to list them.
    let hint = failure_hint("open a.csv | where x > 1 | get total", &failed(missing, 32));
    assert_eq!(
        hint.as_deref(),
        Some("`open a.csv | where x > 1 | columns` lists the columns there are.")
    );
    let mut nested = failed(missing, 17);
    nested.message = "Cannot find column 'version'".into();
    let hint = failure_hint(
        "open app.toml | update version '2.0' | save -f app.toml",
        &nested,
    );
    assert!(
        hint.as_deref().is_some_and(
            |h| h.contains("`open app.toml | columns`") && h.contains("`column.version`")
        ),
        "{hint:?}"
    );
}

#[test]
fn nothing_found_in_one_folder_with_subfolders_points_at_recursion() {
    let dir = tempfile::tempdir().unwrap();
    let flat = this_folder_only_hint("ls | where size == 0b", dir.path());
    assert_eq!(flat, None, "no subfolders: nothing to say");
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let hint = this_folder_only_hint("ls | where size == 0b", dir.path()).unwrap();
    assert!(hint.contains("`ls **/*`"), "{hint}");
    let hint = this_folder_only_hint("ls *.bak", dir.path()).unwrap();
    assert!(hint.contains("`ls **/*.bak`"), "{hint}");
    for looked_deeper in [
        "ls **/* | where size == 0b",
        "ls sub/ | where x",
        "ls",
        "ps | where x",
    ] {
        assert_eq!(
            this_folder_only_hint(looked_deeper, dir.path()),
            None,
            "{looked_deeper}"
        );
    }
}

#[test]
fn a_family_of_subcommands_alone_gets_its_subcommands() {
    let engine = Engine::standard();
    let hint = bare_family_hint(engine.state(), "sys | get cpu").unwrap_or_default();
    assert!(
        hint.starts_with("`sys` alone only prints its help") && hint.contains("`sys mem`"),
        "{hint}"
    );
    assert_eq!(bare_family_hint(engine.state(), "sys mem | get free"), None);
    assert_eq!(bare_family_hint(engine.state(), "ls | length"), None);
}

#[test]
fn a_field_taken_from_the_words_of_all_lines_is_pointed_out() {
    let hint = false_friend_hint(
        "open access.log | lines | where $it =~ 'GET' | split row ' ' | select 1 | uniq --count",
        false,
    )
    .unwrap_or_default();
    assert!(
        hint.contains("`select 1` took from that list")
            && hint.contains("`lines | split column ' ' | get column1`"),
        "{hint}"
    );
    // Words counted over the whole text are what `split row` gives.
    assert_eq!(
        false_friend_hint("open f.txt | lines | split row ' ' | length", false),
        None
    );
    assert_eq!(
        false_friend_hint("'a b' | split row ' ' | get 1", false),
        None
    );
}

#[test]
fn a_failing_field_of_all_lines_runs_again_as_the_field_of_each_line() {
    let mut session = session_in(std::env::temp_dir());
    let pipeline = "\"a GET x\\nb GET y\\na GET z\" | lines | where $it =~ 'GET' | split row ' ' | get 0 | uniq --count | sort-by count --reverse";
    let limits = crate::shell::Limits::default();
    let diagnostic = session
        .run(pipeline, &limits)
        .error
        .expect("one word of the whole text cannot be counted");
    let (fixed, note) = exact_fix(pipeline, &diagnostic).expect("a fix");
    assert_eq!(
        fixed,
        "\"a GET x\\nb GET y\\na GET z\" | lines | where $it =~ 'GET' | each { split row ' ' | get 0 } | uniq --count | sort-by count --reverse"
    );
    assert!(note.contains("each line"), "{note}");
    let outcome = session.run(&fixed, &limits);
    assert!(outcome.error.is_none(), "{:?}", outcome.error);
    let first = outcome.value.as_list().unwrap()[0]
        .as_record()
        .unwrap()
        .clone();
    assert_eq!(first.get("value").and_then(|v| v.as_str().ok()), Some("a"));
    assert_eq!(first.get("count").and_then(|v| v.as_int().ok()), Some(2));
}

#[test]
fn a_value_opened_as_a_file_runs_again_as_the_value() {
    let mut session = session_in(std::env::temp_dir());
    let limits = crate::shell::Limits::default();
    // Data of a type known only when it runs, as `$out.N` is (a type
    // known when it parses is the parser's error, not this one).
    let kept = session.run(
        "let big = ('[[name size]; [a 2kb] [b 3kb]]' | from nuon)",
        &limits,
    );
    assert!(kept.error.is_none(), "{:?}", kept.error);
    let pipeline = "open $big | get name | length";
    let diagnostic = session
        .run(pipeline, &limits)
        .error
        .expect("a table is no file name");
    let (fixed, note) = exact_fix(pipeline, &diagnostic).expect("a fix");
    assert_eq!(fixed, "$big | get name | length");
    assert!(note.contains("`$big` already holds"), "{note}");
    let outcome = session.run(&fixed, &limits);
    assert!(outcome.error.is_none(), "{:?}", outcome.error);
    assert_eq!(outcome.value.as_int().ok(), Some(2));
    // A file name that is text is opened as it is.
    assert_eq!(value_not_opened("open notes.txt | lines"), None);
}

#[test]
fn folder_sizes_from_ls_are_pointed_out() {
    use nu_protocol::{Value, record};
    let row = |kind: &str| {
        Value::test_record(record! {
            "name" => Value::test_string("x"),
            "type" => Value::test_string(kind),
        })
    };
    let folders = Value::test_list(vec![row("file"), row("dir")]);
    let files = Value::test_list(vec![row("file")]);
    let hint = folder_size_hint("ls | sort-by size --reverse | first 1", &folders);
    assert!(hint.is_some_and(|h| h.contains("`ls --du`")));
    assert_eq!(folder_size_hint("ls | sort-by size", &files), None);
    assert_eq!(folder_size_hint("ls --du | sort-by size", &folders), None);
    assert_eq!(folder_size_hint("ls -ld */ | sort-by size", &folders), None);
    assert_eq!(folder_size_hint("ls | where type == dir", &folders), None);
}

#[test]
fn values_that_lost_their_file_are_pointed_out() {
    use nu_protocol::{Value, record};
    let numbers = Value::test_list(vec![Value::test_int(4), Value::test_int(5)]);
    let hint = lost_rows_hint(
        "ls logs/*.log | each { open $in.name | lines | length }",
        &numbers,
    );
    assert!(hint.is_some_and(|h| h.contains("{file: $f.name")));
    let rows = Value::test_list(vec![Value::test_record(
        record! { "n" => Value::test_int(1) },
    )]);
    assert_eq!(lost_rows_hint("ls | each {|f| {n: 1} }", &rows), None);
    assert_eq!(
        lost_rows_hint("open a.log | lines | each { str length }", &numbers),
        None
    );
    assert_eq!(lost_rows_hint("ls | get size", &numbers), None);
}

#[test]
fn commands_used_the_shells_way_are_pointed_out() {
    let note = false_friend_hint("ls **/*.jpeg | each { rename $in.name .jpg }", false);
    assert!(note.is_some_and(|n| n.contains("`mv`")));
    let note = false_friend_hint("du / | get physical", false);
    assert!(note.is_some_and(|n| n.contains("`sys disks`")));
    let note = false_friend_hint("open .git/refs/heads/main | lines | where $it =~ 'x'", true);
    assert!(note.is_some_and(|n| n.contains("^git log")));
    assert_eq!(false_friend_hint("open .git/HEAD", false), None);
    assert_eq!(false_friend_hint("open t.csv | rename a b", false), None);
    assert_eq!(false_friend_hint("du src", false), None);
    let sized = "ls **/*.csv | each {|f| {file: $f.name, size: (open $f.name | length)}} | get size | math sum";
    let hint = false_friend_hint(sized, false).unwrap_or_default();
    assert!(hint.contains("`size` column"), "{hint}");
    let counted = "ls *.csv | each {|f| {file: $f.name, rows: (open $f.name | length)}}";
    assert_eq!(false_friend_hint(counted, false), None);
}

#[test]
fn a_path_into_git_gets_the_git_forms() {
    let not_found = failed("nu::shell::io::file_not_found", 6);
    let hint = failure_hint("open .git/logs | lines", &not_found).unwrap();
    assert!(hint.contains("^git log"), "{hint}");
    assert!(failure_hint("open sub/.git/HEAD", &not_found).is_some());
    assert!(failure_hint("open notes.txt", &not_found).is_none());
    assert!(failure_hint("open x.gitignore", &not_found).is_none());
}

#[test]
fn a_bare_extension_taken_as_a_path_gets_the_glob() {
    let not_found = failed("nu::shell::io::not_found", 3);
    let hint = failure_hint("rm .tmp", &not_found).unwrap();
    assert!(
        hint.contains("`rm *.tmp`") && hint.contains("`ls **/*.tmp`"),
        "{hint}"
    );
    let file_not_found = failed("nu::shell::io::file_not_found", 5);
    assert!(failure_hint("open '.log' | lines", &file_not_found).is_some());
    // A dotfile with a longer name, a filter's text, another error.
    assert!(failure_hint("open .bashrc_local", &file_not_found).is_none());
    assert!(failure_hint("ls | where name =~ .tmp", &file_not_found).is_none());
    assert!(failure_hint("rm .tmp", &failed("nu::shell::permission_denied", 3)).is_none());
}

#[test]
fn a_folder_opened_in_a_closure_gets_the_folder_forms() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("logs")).unwrap();
    let mut session = session_in(dir.path());
    let pipeline =
        "ls | where type == dir | each {|d| {name: $d.name, size: (open $d.name | length)} }";
    let outcome = session.run(pipeline, &crate::shell::Limits::default());
    let diagnostic = outcome.error.expect("a folder is not opened");
    let hint = failure_hint(pipeline, &diagnostic).unwrap_or_default();
    assert!(hint.contains("`ls --du`"), "{hint}");
}

#[test]
fn a_date_compared_with_text_gets_the_date_forms() {
    let mut session = session_in(std::env::temp_dir());
    let pipeline = "[[modified]; [(date now)]] | where modified < '2023-01-01'";
    let outcome = session.run(pipeline, &crate::shell::Limits::default());
    let diagnostic = outcome.error.expect("a date and text do not compare");
    let hint = failure_hint(pipeline, &diagnostic).unwrap_or_default();
    assert!(
        hint.contains(
            "`[[modified]; [(date now)]] | where modified < ('2023-01-01' | into datetime)`"
        ),
        "{hint}"
    );
    // Text with text compares: no hint.
    let other = failed("nu::shell::operator_incompatible_types", 1);
    assert!(failure_hint("1 + 'a'", &other).is_none());
}

#[test]
fn groups_counted_with_length_and_a_missing_extension_are_fixed_in_turn() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["a.csv", "b.csv", "c.md"] {
        std::fs::write(dir.path().join(name), "x").unwrap();
    }
    let mut session = session_in(dir.path());
    let limits = crate::shell::Limits::default();
    let mut pipeline = "ls | where type == file | group-by extension | length".to_string();
    let mut notes = Vec::new();
    let outcome = loop {
        let outcome = session.run(&pipeline, &limits);
        let Some((fixed, note)) = outcome.error.as_ref().and_then(|d| exact_fix(&pipeline, d))
        else {
            break outcome;
        };
        notes.push(note);
        pipeline = fixed;
    };
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(notes[0].contains("path parse"), "{notes:?}");
    assert_eq!(
        pipeline,
        "ls | insert extension {|f| $f.name | path parse | get extension } | where type == file | group-by extension --to-table | update items { length } | rename extension count"
    );
    assert!(outcome.error.is_none(), "{:?}", outcome.error);
    let counts: Vec<(String, i64)> = outcome
        .value
        .as_list()
        .unwrap()
        .iter()
        .map(|row| {
            let row = row.as_record().unwrap();
            let extension = row.get("extension").unwrap().as_str().unwrap().to_string();
            (extension, row.get("count").unwrap().as_int().unwrap())
        })
        .collect();
    assert_eq!(counts, vec![("csv".to_string(), 2), ("md".to_string(), 1)]);
    // Another missing column, or a listing that is not `ls`, is left
    // alone.
    let missing = session.run("ls | get owner", &limits).error.unwrap();
    assert_eq!(exact_fix("ls | get owner", &missing), None);
    assert_eq!(with_extension_column("ps | get ext", "ext"), None);
}

#[test]
fn group_by_gets_the_per_group_form_in_the_models_own_columns() {
    let hint =
        per_group_hint("open orders.csv | get region, price | group-by region | math sum(price)")
            .unwrap();
    assert!(
        hint.contains("`group-by region --to-table | update items { get price | math sum }`"),
        "{hint}"
    );
    let hint = per_group_hint("open t.csv | group-by city | math avg").unwrap();
    assert!(hint.contains("get value | math avg"), "{hint}");
    assert!(per_group_hint("open t.csv | get city | uniq --count").is_none());
    // Counting rows names no value column to copy.
    let hint = per_group_hint("^git log | lines | group-by author | count").unwrap();
    assert!(
        hint.starts_with("Rows per group in Nushell: `get author | uniq --count`")
            && hint.contains("`group-by author --to-table | update items { length }`")
            && !hint.contains("value |"),
        "{hint}"
    );
}

#[test]
fn a_size_compared_with_a_bare_number_is_pointed_out() {
    let hint = bare_size_hint("ls **/* | where size == 0").unwrap();
    assert!(hint.contains("`size == 0b`"), "{hint}");
    assert!(bare_size_hint("ls | where { $it.size > 1000 }").is_some());
    assert!(bare_size_hint("ls | where size == 0b").is_none());
    assert!(bare_size_hint("ls | where size > 10kb").is_none());
    assert!(bare_size_hint("open a.csv | where price > 10").is_none());
}

#[test]
fn a_folder_opened_as_a_file_is_told_how_folders_are_listed() {
    let hint = failure_hint(
        "open logs | lines",
        &failed("nu::shell::io::is_a_directory", 6),
    )
    .unwrap();
    assert!(
        hint.contains("that was a folder") && hint.contains("`ls`"),
        "{hint}"
    );
    // No whole pipeline of another task to copy.
    assert!(!hint.contains(" | "), "{hint}");
}
