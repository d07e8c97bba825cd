use super::super::listing_forms::*;
use super::*;

/// `pipeline` with every translation made (see
/// [`super::super::rules::as_nushell`]).
fn as_nushell(pipeline: &str, parses: bool) -> Option<(String, Vec<String>)> {
    let levers = super::super::levers::Levers::default();
    super::super::rules::as_nushell(pipeline, parses, &levers)
        .map(|(text, done)| (text, done.into_iter().map(|d| d.note).collect()))
}

#[test]
fn find_before_another_command_leaves_its_colours_out() {
    assert_eq!(
        find_without_highlight("ps | find 'ticker' | where name =~ ticker").as_deref(),
        Some("ps | find --no-highlight 'ticker' | where name =~ ticker")
    );
    // Last in the pipeline (only shown), or already without colours.
    assert_eq!(find_without_highlight("ps | find ticker"), None);
    // Bash's `find` starts a pipeline: not Nushell's.
    assert_eq!(find_without_highlight("find . -type f | wc -l"), None);
    assert_eq!(find_without_highlight("ps | find -n x | first"), None);
    assert_eq!(
        find_without_highlight("ls | find --no-highlight x | first"),
        None
    );
}

#[test]
fn git_dates_in_the_default_form_are_asked_for_as_iso() {
    assert_eq!(
        git_dates_that_sort("git log --format='%h|%an|%ad' | lines").as_deref(),
        Some("git log --date=iso-strict --format='%h|%an|%ad' | lines")
    );
    assert_eq!(
        git_dates_that_sort("^git log -n 3 --pretty=format:'%cd %s'").as_deref(),
        Some("^git log --date=iso-strict -n 3 --pretty=format:'%cd %s'")
    );
    // A date form of its own, no date, or not `log`: as written.
    assert_eq!(
        git_dates_that_sort("git log --date=short --format='%ad'"),
        None
    );
    assert_eq!(git_dates_that_sort("git log --format='%h %an %s'"), None);
    assert_eq!(git_dates_that_sort("git show --format='%ad'"), None);
    assert_eq!(git_dates_that_sort("echo '%ad' | git log"), None);
}

fn fixed(pipeline: &str) -> Option<String> {
    in_nushell_units(pipeline).map(|(text, _)| text)
}

#[test]
fn a_size_compared_with_a_bare_number_is_compared_in_bytes() {
    let bytes = |p: &str| sizes_in_bytes(p).map(|(text, _)| text);
    assert_eq!(
        bytes("ls | where size > 10000 | get name").as_deref(),
        Some("ls | where size > 10000b | get name")
    );
    assert_eq!(
        bytes("ls **/* | where type == file and size == 0").as_deref(),
        Some("ls **/* | where type == file and size == 0b")
    );
    assert_eq!(
        bytes("ls | each {|f| if $f.size>0 { $f.name } }").as_deref(),
        Some("ls | each {|f| if $f.size>0b { $f.name } }")
    );
    assert_eq!(
        bytes("ps | where mem > 1000000 | length").as_deref(),
        Some("ps | where mem > 1000000b | length")
    );
    // Units, other columns, strings and other names stay as they are.
    for same in [
        "ls | where size > 10kb",
        "ls | where size > 1.5",
        "open t.csv | where amount > 10",
        "ls | where name == 'size > 10'",
        "ls | where filesize > 10",
    ] {
        assert_eq!(bytes(same), None, "{same}");
    }
    assert!(
        as_nushell("ls | where size > 10", true).is_some_and(|(text, notes)| text
            == "ls | where size > 10b"
            && notes[0].contains("`10b`"))
    );
}

#[test]
fn other_languages_units_become_nushell_units() {
    assert_eq!(
        fixed("ls | where modified < ((date now) - 30days)").as_deref(),
        Some("ls | where modified < ((date now) - 30day)")
    );
    assert_eq!(
        fixed("ls **/* | where modified > ((date now) - 24hours) | first 5").as_deref(),
        Some("ls **/* | where modified > ((date now) - 24hr) | first 5")
    );
    assert_eq!(fixed("sleep 2s").as_deref(), Some("sleep 2sec"));
    assert_eq!(
        fixed("(date now) - 1.5h").as_deref(),
        Some("(date now) - 1.5hr")
    );
    let (_, changed) = in_nushell_units("x - 2weeks - 3d").unwrap();
    assert_eq!(
        changed,
        vec![
            ("2weeks".to_string(), "2wk".to_string()),
            ("3d".to_string(), "3day".to_string())
        ]
    );
}

#[test]
fn it_in_an_element_closure_is_named() {
    assert_eq!(
        with_named_it("ls | each { mkdir $it.name; mv $it.name x }").as_deref(),
        Some("ls | each {|it| mkdir $it.name; mv $it.name x }")
    );
    assert_eq!(
        with_named_it("[1 2] | where {$it > 1} | each { $it + 1 }").as_deref(),
        Some("[1 2] | where {|it| $it > 1} | each {|it| $it + 1 }")
    );
    // Named already, `$in`, a record, another command, a string, `$item`.
    assert_eq!(with_named_it("each {|x| $x + 1}"), None);
    assert_eq!(with_named_it("each { $in + 1 }"), None);
    assert_eq!(with_named_it("each { {name: $in} }"), None);
    assert_eq!(with_named_it("update a { $it + 1 }"), None);
    assert_eq!(with_named_it("each { '$it' }"), None);
    assert_eq!(with_named_it("each { $item }"), None);
    // The outer closure is named; a record inside it is left as it is.
    assert_eq!(
        with_named_it("ls | each { {n: $it.name} }").as_deref(),
        Some("ls | each {|it| {n: $it.name} }")
    );
    // A record written as the closure becomes its value.
    assert_eq!(
        with_named_it("open t.csv | each {city: $it.city, f: 1} | first").as_deref(),
        Some("open t.csv | each {|it| {city: $it.city, f: 1} } | first")
    );
}

#[test]
fn both_fixes_are_made_with_a_note_each() {
    let (text, notes) = as_nushell(
        "ls | where modified < ((date now) - 7days) | each { rm $it.name }",
        false,
    )
    .unwrap();
    assert_eq!(
        text,
        "ls | where modified < ((date now) - 7day) | each {|it| rm $it.name }"
    );
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert_eq!(as_nushell("ls | each {|it| $it.name }", false), None);
}

#[test]
fn column_lists_lose_their_commas() {
    assert_eq!(
        without_list_commas("open t.csv | select city, temp | sort-by temp").as_deref(),
        Some("open t.csv | select city temp | sort-by temp")
    );
    assert_eq!(
        without_list_commas("open o.csv | get region, total | first 2").as_deref(),
        Some("open o.csv | select region total | first 2")
    );
    assert_eq!(
        without_list_commas("ls | sort-by size,name").as_deref(),
        Some("ls | sort-by size name")
    );
    // A list or record argument, a comma in a string, another command.
    assert_eq!(without_list_commas("select [a, b]"), None);
    assert_eq!(without_list_commas("where name == 'a, b'"), None);
    assert_eq!(without_list_commas("get 'a, b'"), None);
    assert_eq!(without_list_commas("[1, 2] | math sum"), None);
    assert_eq!(without_list_commas("ls | get name"), None);
    // Parsing pipelines get this fix alone.
    let (text, notes) = as_nushell("open t.csv | select a, b", true).unwrap();
    assert_eq!(text, "open t.csv | select a b");
    assert_eq!(notes.len(), 1);
    assert_eq!(as_nushell("sleep 2s", true), None);
}

#[test]
fn date_of_text_is_into_datetime() {
    assert_eq!(
        date_of_text("open a.json | where modified < (date '2024-01-01')").as_deref(),
        Some("open a.json | where modified < (('2024-01-01' | into datetime))")
    );
    assert_eq!(
        date_of_text("date \"2024-01-01 10:00\" | format date '%Y'").as_deref(),
        Some("(\"2024-01-01 10:00\" | into datetime) | format date '%Y'")
    );
    assert_eq!(
        date_of_text("ls | where modified < (date -d '2023-01-01')").as_deref(),
        Some("ls | where modified < (('2023-01-01' | into datetime))")
    );
    assert_eq!(
        date_of_text("date --date \"2023-01-01\"").as_deref(),
        Some("(\"2023-01-01\" | into datetime)")
    );
    assert_eq!(date_of_text("date -d now"), None);
    assert_eq!(date_of_text("date now"), None);
    assert_eq!(date_of_text("date format '%Y'"), None);
    assert_eq!(date_of_text("'date' | str length"), None);
    assert_eq!(date_of_text("ls | where name == date"), None);
}

#[test]
fn folders_kept_by_their_size_are_listed_with_du() {
    assert_eq!(
        folder_sizes_with_du("ls **/* | where type == dir | sort-by size --reverse | first 1")
            .as_deref(),
        Some("ls --du **/* | where type == dir | sort-by size --reverse | first 1")
    );
    assert_eq!(
        folder_sizes_with_du("ls | where type == 'dir' | select name size").as_deref(),
        Some("ls --du | where type == 'dir' | select name size")
    );
    // Already with `--du` (`-d`), files only, or no size used.
    assert_eq!(
        folder_sizes_with_du("ls -d | where type == dir | sort-by size"),
        None
    );
    assert_eq!(
        folder_sizes_with_du("ls --du | where type == dir | sort-by size"),
        None
    );
    assert_eq!(
        folder_sizes_with_du("ls | where type == file | sort-by size"),
        None
    );
    assert_eq!(
        folder_sizes_with_du("ls | where type == dir | get name"),
        None
    );
    assert_eq!(
        folder_sizes_with_du("ps | where type == dir | get size"),
        None
    );
}

#[test]
fn a_last_table_that_draws_the_value_is_dropped() {
    assert_eq!(
        without_display_table("open a.json | where active | table").as_deref(),
        Some("open a.json | where active")
    );
    assert_eq!(
        without_display_table("ls | table -e").as_deref(),
        Some("ls")
    );
    assert_eq!(without_display_table("table"), None);
    assert_eq!(
        text_lines_counted(
            "ls **/*.log | each {|f| {file: $f.name, rows: (open $f.name | length)} }"
        )
        .as_deref(),
        Some("ls **/*.log | each {|f| {file: $f.name, rows: (open $f.name | lines | length)} }")
    );
    assert_eq!(
        text_lines_counted("open app.log | length").as_deref(),
        Some("open app.log | lines | length")
    );
    // Rows of data, and files of no known kind, are left alone.
    assert_eq!(text_lines_counted("open orders.csv | length"), None);
    assert_eq!(
        text_lines_counted("ls *.json | each {|f| open $f.name | length }"),
        None
    );
    assert_eq!(
        text_lines_counted("ls | each {|f| open $f.name | length }"),
        None
    );
    assert_eq!(
        without_final_count("ls | where size == 0b | length").as_deref(),
        Some("ls | where size == 0b")
    );
    assert_eq!(without_final_count("ls | each { length }"), None);
    assert_eq!(without_final_count("length"), None);
    assert_eq!(without_display_table("ls | table | lines"), None);
    assert_eq!(without_display_table("ls | get table"), None);
    assert_eq!(without_display_table("ls | table --width 80"), None);
    let (fixed, _) = as_nushell("ls | table", true).unwrap();
    assert_eq!(fixed, "ls");
}

#[test]
fn an_aggregate_of_a_column_is_get_then_math() {
    assert_eq!(
        aggregate_of_column("open o.csv | math sum(total)").as_deref(),
        Some("open o.csv | get total | math sum")
    );
    assert_eq!(
        aggregate_of_column("open o.csv | select region total | group-by region | math sum(total) | sort-by sum(total) --reverse").as_deref(),
        Some("open o.csv | select region total | group-by region --to-table | each {|g| {region: $g.region, total: ($g.items | get total | math sum)} } | sort-by total --reverse")
    );
    assert_eq!(
        aggregate_of_column("open p.csv | group-by kind | math avg price").as_deref(),
        Some(
            "open p.csv | group-by kind --to-table | each {|g| {kind: $g.kind, price: ($g.items | get price | math avg)} }"
        )
    );
    // Nushell already, or not a column.
    assert_eq!(
        aggregate_of_column("open o.csv | get total | math sum"),
        None
    );
    assert_eq!(aggregate_of_column("[1 2] | math sum"), None);
    assert_eq!(aggregate_of_column("math round --precision 2"), None);
    // A quoted column parses, and gives the table back unchanged.
    assert_eq!(
        aggregate_of_column("open o.csv | where status == 'pending' | math sum 'amount'")
            .as_deref(),
        Some("open o.csv | where status == 'pending' | get amount | math sum")
    );
    assert_eq!(
        as_nushell("open o.csv | math sum amount", true),
        Some((
            "open o.csv | get amount | math sum".to_string(),
            vec!["a column's total is `get total | math sum`; per group: `group-by g --to-table | each {|g| ... }`".to_string()]
        ))
    );
    assert_eq!(aggregate_of_column("each { math sum(x) }"), None);
}

#[test]
fn python_methods_become_commands() {
    assert_eq!(
        without_python_methods("ls | each {|f| {file: $f.name, ext: $f.name.split('.')[-1]}}")
            .as_deref(),
        Some("ls | each {|f| {file: $f.name, ext: ($f.name | split row '.' | last)}}")
    );
    assert_eq!(
        without_python_methods(
            "ls *.jpeg | each { mv $in.name $in.name.replace('.jpeg', '.jpg') }"
        )
        .as_deref(),
        Some("ls *.jpeg | each { mv $in.name ($in.name | str replace --all '.jpeg' '.jpg') }")
    );
    assert_eq!(
        without_python_methods("$x.lower() == 'a'").as_deref(),
        Some("($x | str downcase) == 'a'")
    );
    // Not a known method, the wrong number of arguments, a column.
    assert_eq!(without_python_methods("$x.frob('a')"), None);
    assert_eq!(without_python_methods("$x.split()"), None);
    assert_eq!(without_python_methods("$f.name | str length"), None);
    assert_eq!(without_python_methods("'$x.split(1)'"), None);
}

#[test]
fn a_file_renamed_with_rename_is_moved() {
    assert_eq!(
        files_renamed_with_mv(
            "ls *.jpeg | each { rename $in.name ($in.name | str replace '.jpeg' '.jpg') }"
        )
        .as_deref(),
        Some("ls *.jpeg | each { mv $in.name ($in.name | str replace '.jpeg' '.jpg') }")
    );
    assert_eq!(
        files_renamed_with_mv("ls | each {|f| rename $f.name x }").as_deref(),
        Some("ls | each {|f| mv $f.name x }")
    );
    assert_eq!(
        files_renamed_with_mv(
            "ls **/*.jpeg | each { rename $in.name to ($in.name | str replace '.jpeg' '.jpg') }"
        )
        .as_deref(),
        Some("ls **/*.jpeg | each { mv $in.name ($in.name | str replace '.jpeg' '.jpg') }")
    );
    // Columns renamed as Nushell means it.
    assert_eq!(files_renamed_with_mv("open a.csv | rename a b"), None);
    assert_eq!(files_renamed_with_mv("rename $c.name x"), None);
}

#[test]
fn a_size_made_from_a_files_contents_is_its_listed_size() {
    assert_eq!(
        size_from_listing(
            "ls **/*.csv | each {|f| {file: $f.name, size: (open $f.name | length)}} | get size | math sum"
        )
        .as_deref(),
        Some("ls **/*.csv | each {|f| {file: $f.name, size: $f.size}} | get size | math sum")
    );
    assert_eq!(
        size_from_listing("ls | each {|f| {rows: (open $f.name | length)}}"),
        None
    );
    assert_eq!(
        size_from_listing("glob *.csv | each {|f| {size: (open $f.name | length)}}"),
        None
    );
}

#[test]
fn map_with_a_closure_is_each() {
    assert_eq!(
        map_as_each("ls | map { $it.name } | foreach {|n| $n }").as_deref(),
        Some("ls | each { $it.name } | each {|n| $n }")
    );
    assert_eq!(map_as_each("ls | where name =~ 'map {'"), None);
    assert_eq!(map_as_each("^map a b"), None);
    let (text, _) = as_nushell("open t.csv | map {city: $it.city}", false).unwrap();
    assert_eq!(text, "open t.csv | each {|it| {city: $it.city} }");
    let (text, notes) = as_nushell("open t.csv | map { $it.price * 2 }", false).unwrap();
    assert_eq!(text, "open t.csv | each {|it| $it.price * 2 }");
    assert_eq!(notes.len(), 2);
}

#[test]
fn a_record_fields_expression_is_put_in_parentheses() {
    assert_eq!(
        record_values_in_parens(
            "open t.csv | each {|it| {city: $it.city, celsius: ($it.f - 32) * 5 / 9} }"
        )
        .as_deref(),
        Some("open t.csv | each {|it| {city: $it.city, celsius: (($it.f - 32) * 5 / 9)} }")
    );
    assert_eq!(
        record_values_in_parens("{a: 1 + 2, b: 'x' ++ $y, c: (1 + 2), d: '-'}").as_deref(),
        Some("{a: (1 + 2), b: ('x' ++ $y), c: (1 + 2), d: '-'}")
    );
    assert_eq!(
        record_values_in_parens("{\n  big: $f.size > 1kb\n  name: $f.name\n}").as_deref(),
        Some("{\n  big: ($f.size > 1kb)\n  name: $f.name\n}")
    );
    // One value each, operators inside strings, closures: nothing.
    assert_eq!(record_values_in_parens("{a: (1 + 2), b: 'a + b'}"), None);
    assert_eq!(
        record_values_in_parens("ls | where { $in.size > 1kb }"),
        None
    );
    assert_eq!(record_values_in_parens("each {|f| $f.size * 2 }"), None);
    let (text, notes) = as_nushell("[1 2] | each {|x| {v: $x * 2} }", false).unwrap();
    assert_eq!(text, "[1 2] | each {|x| {v: ($x * 2)} }");
    assert_eq!(notes.len(), 1);
    // A pipeline that parses is never touched by it.
    assert_eq!(as_nushell("[1 2] | each {|x| {v: ($x * 2)} }", true), None);
}

#[test]
fn split_without_a_subcommand_is_split_row() {
    assert_eq!(
        split_row("open a.log | lines | each { split ' ' | first }").as_deref(),
        Some("open a.log | lines | each { split row ' ' | first }")
    );
    assert_eq!(split_row("split row ' '"), None);
    assert_eq!(split_row("split column ','"), None);
    assert_eq!(split_row("str split ' '"), None);
    let (text, notes) = as_nushell("open a.log | lines | split ' ' | first", false).unwrap();
    assert_eq!(text, "open a.log | lines | split row ' ' | first");
    assert_eq!(notes.len(), 1);
}

#[test]
fn strings_names_and_real_units_are_left_alone() {
    assert_eq!(fixed("ls | where modified > ((date now) - 1day)"), None);
    assert_eq!(fixed("open 'report 30days.txt'"), None);
    assert_eq!(fixed("open \"30d \\\" 2h\""), None);
    assert_eq!(fixed("ls | where size > 10kb"), None);
    assert_eq!(fixed("open v1.2s.txt | first 3"), None);
    assert_eq!(fixed("open log-2d.txt"), None);
    assert_eq!(fixed("$out.2s"), None);
    assert_eq!(fixed("ls | first 5"), None);
    // No exact Nushell duration: months and years stay.
    assert_eq!(fixed("(date now) - 1month"), None);
}

#[test]
fn a_pipeline_handed_to_a_new_nu_runs_as_itself() {
    for (written, inner) in [
        ("nu -c 'ls | length'", "ls | length"),
        ("^nu --commands \"sys mem\"", "sys mem"),
        ("  nu -c  'ps | first 3' ", "ps | first 3"),
    ] {
        assert_eq!(
            without_nu_command(written).as_deref(),
            Some(inner),
            "{written}"
        );
    }
    for other in [
        "nu",
        "nu script.nu",
        "nu -c ls",
        "nu -c 'ls' | length",
        "nu -c \"echo \\\"x\\\"\"",
        "nu -c ''",
        "nushell -c 'ls'",
        "nu-check -c 'ls'",
    ] {
        assert_eq!(without_nu_command(other), None, "{other}");
    }
}

#[test]
fn an_aggregate_of_a_listing_is_of_its_sizes() {
    assert_eq!(
        sizes_of_listing("ls **/*.csv | math sum '--bytes'").as_deref(),
        Some("ls **/*.csv | get size | math sum")
    );
    assert_eq!(
        sizes_of_listing("ls | where name =~ log | sort-by size | first 3 | math avg").as_deref(),
        Some("ls | where name =~ log | sort-by size | first 3 | get size | math avg")
    );
    assert_eq!(sizes_of_listing("ls | get size | math sum"), None);
    assert_eq!(sizes_of_listing("ls | math sum size"), None);
    assert_eq!(sizes_of_listing("open a.csv | math sum"), None);
    assert_eq!(sizes_of_listing("ls | length"), None);
}

#[test]
fn lines_of_a_listing_are_each_files_lines() {
    assert_eq!(
        lines_of_listed_files("ls logs/*.log | lines | where $it =~ 'ERROR' | length").as_deref(),
        Some(
            "ls logs/*.log | insert count {|f| open --raw $f.name | lines | where $it =~ 'ERROR' | length }"
        )
    );
    assert_eq!(
        lines_of_listed_files("ls *.txt | where size > 0b | lines").as_deref(),
        Some("ls *.txt | where size > 0b | insert lines {|f| open --raw $f.name | lines }")
    );
    assert_eq!(lines_of_listed_files("ls | get name | lines"), None);
    assert_eq!(lines_of_listed_files("open a.log | lines | length"), None);
    assert_eq!(
        lines_of_listed_files("ls | each {|f| open $f.name | lines }"),
        None
    );
}

#[test]
fn a_listings_row_is_matched_by_its_name() {
    assert_eq!(
        rows_matched_by_name("ls | where type == file | where $it =~ '.log' | lines | length")
            .as_deref(),
        Some("ls | where type == file | where name =~ '.log' | lines | length")
    );
    assert_eq!(
        rows_matched_by_name("ps | where $it !~ 'x'").as_deref(),
        Some("ps | where name !~ 'x'")
    );
    assert_eq!(
        rows_matched_by_name("ls | get name | where $it =~ 'x'"),
        None
    );
    assert_eq!(
        rows_matched_by_name("open a.log | lines | where $it =~ 'x'"),
        None
    );
    assert_eq!(rows_matched_by_name("ls | where name =~ 'x'"), None);
}

#[test]
fn a_listing_given_to_rename_renames_its_files() {
    assert_eq!(
        listing_renamed_with_mv("ls **/* | where name =~ '.jpeg' | rename 'jpeg' 'jpg' | ls")
            .as_deref(),
        Some(
            "ls **/* | where name =~ '.jpeg' | each {|f| mv $f.name ($f.name | str replace 'jpeg' 'jpg') } | ls"
        )
    );
    assert_eq!(listing_renamed_with_mv("ls | rename $it '.jpg'"), None);
    assert_eq!(listing_renamed_with_mv("ls | get name | rename a b"), None);
    assert_eq!(listing_renamed_with_mv("open a.csv | rename a b"), None);
    assert_eq!(listing_renamed_with_mv("ls | rename -c {name: file}"), None);
}

#[test]
fn files_opened_by_a_glob_give_each_files_figure() {
    assert_eq!(
        opened_glob_per_file("open logs/*.log | lines | where $it =~ 'ERROR' | length").as_deref(),
        Some(
            "ls logs/*.log | insert count {|f| open --raw $f.name | lines | where $it =~ 'ERROR' | length }"
        )
    );
    assert_eq!(
        opened_glob_per_file("open *.csv | get amount | math sum").as_deref(),
        Some("ls *.csv | insert sum {|f| open $f.name | get amount | math sum }")
    );
    assert_eq!(opened_glob_per_file("open a.log | lines | length"), None);
    assert_eq!(opened_glob_per_file("open *.log | lines"), None);
    assert_eq!(opened_glob_per_file("open *.log"), None);
}

#[test]
fn a_program_opened_as_a_file_runs() {
    assert_eq!(
        program_opened_as_file("open ^ss -tln | lines").as_deref(),
        Some("^ss -tln | lines")
    );
    assert_eq!(
        program_opened_as_file("open --raw ^ps").as_deref(),
        Some("^ps")
    );
    assert_eq!(program_opened_as_file("open ss.txt"), None);
    assert_eq!(program_opened_as_file("open ^"), None);
    assert_eq!(program_opened_as_file("ls | open ^x"), None);
}

#[test]
fn a_listing_given_to_a_remove_or_move_is_each_file_removed_or_moved() {
    for (written, fixed) in [
        ("ls *.tmp | remove", "ls *.tmp | each { rm $in.name }"),
        ("ls *.tmp | rm", "ls *.tmp | each { rm $in.name }"),
        (
            "ls | where modified < ((date now) - 1day) | delete -rf",
            "ls | where modified < ((date now) - 1day) | each { rm -r -f $in.name }",
        ),
        (
            "ls *.pdf | move pdf/",
            "ls *.pdf | each { mv $in.name pdf/ }",
        ),
        (
            "ls *.pdf | ^mv 'pdf'",
            "ls *.pdf | each { mv $in.name 'pdf' }",
        ),
    ] {
        assert_eq!(
            listing_removed_or_moved_with_each(written).as_deref(),
            Some(fixed),
            "{written}"
        );
    }
    for untouched in [
        "ls *.tmp | each { rm $in.name }",
        "rm *.tmp",
        "ls | get name | rm",
        "ls *.pdf | mv a b",
        "ls *.pdf | move $dest",
        "open list.txt | lines | remove",
    ] {
        assert_eq!(
            listing_removed_or_moved_with_each(untouched),
            None,
            "{untouched}"
        );
    }
}

#[test]
fn the_rename_programs_call_renames_files_with_mv() {
    let want = "ls **/* | where ($it.name | str contains '.jpeg') | each {|f| mv $f.name ($f.name | str replace '.jpeg' '.jpg') }";
    assert_eq!(
        rename_program_with_mv("rename **/* '.jpeg' '.jpg'").as_deref(),
        Some(want)
    );
    assert_eq!(
        rename_program_with_mv("rename '.jpeg' '.jpg' **/*").as_deref(),
        Some(want)
    );
    assert_eq!(rename_program_with_mv("ls | rename a b c"), None);
    assert_eq!(rename_program_with_mv("rename a b"), None);
    assert_eq!(rename_program_with_mv("rename a b c"), None);
}
