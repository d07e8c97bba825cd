//! The rewrites of pipelines that are almost Nushell into exact Nushell
//! (the `translation` lever): other languages' habits that Nushell reads
//! otherwise, or not at all. Each is exact; nothing here decides what may
//! run (the rewritten pipeline is judged by the policy as any other). The
//! text work itself is in [`near_nushell`](super::super::near_nushell).

use super::super::levers::Lever;
use super::super::listing_forms as listing;
use super::super::near_nushell as near;
use super::{Example, Kind, Rule, TextRewrite, When, becomes, leaves};

/// `pipeline` rewritten, with `note`.
fn noted(pipeline: Option<String>, note: &str) -> Option<(String, String)> {
    pipeline.map(|pipeline| (pipeline, note.to_string()))
}

/// A rule of the translation family.
const fn rule(name: &'static str, serves: &'static str, examples: &'static [Example]) -> Rule {
    Rule::of(Kind::Rewrite, Lever::Translation, name, serves, examples)
}

/// The translations, in the order they apply: those of what parses but
/// never means what it says, then those of what does not parse.
pub static TRANSLATIONS: &[TextRewrite] = &[
    TextRewrite {
        rule: rule(
            "nu-command-runs-as-itself",
            "a pipeline handed to a new `nu -c '…'` runs here as itself, under the same policy",
            &[
                becomes("nu -c 'ls | length'", "ls | length"),
                leaves("nu script.nu"),
            ],
        ),
        when: When::Written,
        apply: |call| {
            noted(
                near::without_nu_command(call.pipeline),
                "a pipeline runs here as it is: `nu -c 'ls'` is `ls`",
            )
        },
    },
    TextRewrite {
        rule: rule(
            "map-is-each",
            "`map { … }` (JavaScript's and Python's name) is Nushell's `each { … }`",
            &[
                becomes(
                    "ls | map { $it.name } | foreach {|n| $n }",
                    "ls | each { $it.name } | each {|n| $n }",
                ),
                leaves("ls | where name =~ 'map {'"),
            ],
        ),
        when: When::Written,
        apply: |call| {
            noted(
                near::map_as_each(call.pipeline),
                "`map { … }` is `each { … }`",
            )
        },
    },
    TextRewrite {
        rule: rule(
            "column-list-without-commas",
            "columns are arguments separated by spaces; `select a, b` (SQL's) asks for a column `a,`",
            &[
                becomes(
                    "open o.csv | get region, total | first 2",
                    "open o.csv | select region total | first 2",
                ),
                leaves("where name == 'a, b'"),
            ],
        ),
        when: When::Written,
        apply: |call| {
            noted(
                near::without_list_commas(call.pipeline),
                "columns are separated by spaces: `select a b`",
            )
        },
    },
    TextRewrite {
        rule: rule(
            "file-renamed-with-mv",
            "Nushell's `rename` renames columns; a file in a closure over files is renamed with `mv`",
            &[
                becomes(
                    "ls | each {|f| rename $f.name x }",
                    "ls | each {|f| mv $f.name x }",
                ),
                leaves("open a.csv | rename a b"),
            ],
        ),
        when: When::Written,
        apply: |call| {
            noted(
                listing::files_renamed_with_mv(call.pipeline),
                "`rename` renames columns; a file is renamed with `mv`",
            )
        },
    },
    TextRewrite {
        rule: rule(
            "rename-program-with-mv",
            "the `rename` program's call (`rename '.a' '.b' *.a`) is Nushell's column `rename`; files are moved with `mv`",
            &[
                becomes(
                    "rename '.jpeg' '.jpg' **/*",
                    "ls **/* | where ($it.name | str contains '.jpeg') | each {|f| mv $f.name ($f.name | str replace '.jpeg' '.jpg') }",
                ),
                leaves("rename a b"),
            ],
        ),
        when: When::Written,
        apply: |call| {
            noted(
                listing::rename_program_with_mv(call.pipeline),
                "`rename` renames columns of its input; files are renamed with `mv`: `ls *.a | each {|f| mv $f.name ($f.name | str replace '.a' '.b') }`",
            )
        },
    },
    TextRewrite {
        rule: rule(
            "listing-renamed-with-mv",
            "a listing given to `rename 'a' 'b'` renames its columns, not its files",
            &[
                becomes(
                    "ls **/* | where name =~ '.jpeg' | rename 'jpeg' 'jpg' | ls",
                    "ls **/* | where name =~ '.jpeg' | each {|f| mv $f.name ($f.name | str replace 'jpeg' 'jpg') } | ls",
                ),
                leaves("ls | rename -c {name: file}"),
            ],
        ),
        when: When::Written,
        apply: |call| {
            noted(
                listing::listing_renamed_with_mv(call.pipeline),
                "`rename` renames columns; listed files are renamed with `each {|f| mv $f.name ($f.name | str replace 'a' 'b') }`",
            )
        },
    },
    TextRewrite {
        rule: rule(
            "program-opened-as-file",
            "a program runs by its name: `open ^ss -tln` opens no file",
            &[
                becomes("open ^ss -tln | lines", "^ss -tln | lines"),
                leaves("open ss.txt"),
            ],
        ),
        when: When::Written,
        apply: |call| {
            noted(
                listing::program_opened_as_file(call.pipeline),
                "a program runs by its name, it is not opened: `^ss -tln`",
            )
        },
    },
    TextRewrite {
        rule: rule(
            "listing-removed-with-each",
            "`rm` takes paths, not input: a listing piped into it removes nothing",
            &[
                becomes("ls *.tmp | rm", "ls *.tmp | each { rm $in.name }"),
                leaves("rm *.tmp"),
            ],
        ),
        when: When::Written,
        apply: |call| {
            noted(
                listing::listing_removed_with_each(call.pipeline),
                "`rm` takes paths, not input; a listing's files are removed one by one with `each`",
            )
        },
    },
    TextRewrite {
        rule: rule(
            "listing-moved-with-each",
            "`mv` takes paths, not input: a listing piped into it moves nothing",
            &[
                becomes(
                    "ls *.pdf | move pdf/",
                    "ls *.pdf | each { mv $in.name pdf/ }",
                ),
                leaves("ls *.pdf | mv a b"),
            ],
        ),
        when: When::Written,
        apply: |call| {
            noted(
                listing::listing_moved_with_each(call.pipeline),
                "`mv` takes paths, not input; a listing's files are moved one by one with `each`",
            )
        },
    },
    TextRewrite {
        rule: rule(
            "aggregate-of-a-column",
            "an aggregate written as a function of a column (`math sum(total)`, SQL's and pandas') is `get total | math sum`",
            &[
                becomes(
                    "open o.csv | math sum(total)",
                    "open o.csv | get total | math sum",
                ),
                leaves("open o.csv | get total | math sum"),
            ],
        ),
        when: When::Written,
        apply: |call| {
            noted(
                near::aggregate_of_column(call.pipeline),
                "a column's total is `get total | math sum`; per group: `group-by g --to-table | each {|g| ... }`",
            )
        },
    },
    TextRewrite {
        rule: rule(
            "folder-sizes-with-du",
            "a folder's `size` in `ls` is its entry's, not what it holds; `ls --du` gives that",
            &[
                becomes(
                    "ls | where type == 'dir' | select name size",
                    "ls --du | where type == 'dir' | select name size",
                ),
                leaves("ls | where type == file | sort-by size"),
            ],
        ),
        when: When::Written,
        apply: |call| {
            noted(
                listing::folder_sizes_with_du(call.pipeline),
                "a folder's `size` is what it holds only with `ls --du` (without, it is its entry's few kB)",
            )
        },
    },
    TextRewrite {
        rule: rule(
            "without-display-table",
            "a last `| table` turns the data into drawn text the model cannot read as data",
            &[
                becomes(
                    "open a.json | where active | table",
                    "open a.json | where active",
                ),
                leaves("ls | table | lines"),
            ],
        ),
        when: When::Written,
        apply: |call| {
            noted(
                near::without_display_table(call.pipeline),
                "`table` only draws a value as text; the value itself is kept",
            )
        },
    },
    TextRewrite {
        rule: rule(
            "size-from-listing",
            "a listed file's size is its `size` column; `open f | length` counts what it holds",
            &[
                becomes(
                    "ls *.csv | each {|f| {file: $f.name, size: (open $f.name | length)}}",
                    "ls *.csv | each {|f| {file: $f.name, size: $f.size}}",
                ),
                leaves("ls | each {|f| {rows: (open $f.name | length)}}"),
            ],
        ),
        when: When::Written,
        apply: |call| {
            noted(
                listing::size_from_listing(call.pipeline),
                "a file's size is the `size` column `ls` gives (`$f.size`); `open f | length` counts what it holds",
            )
        },
    },
    TextRewrite {
        rule: rule(
            "text-lines-counted",
            "`open` gives a text file as one text, whose `length` is its bytes, not its lines",
            &[
                becomes("open app.log | length", "open app.log | lines | length"),
                leaves("open orders.csv | length"),
            ],
        ),
        when: When::Written,
        apply: |call| {
            noted(
                listing::text_lines_counted(call.pipeline),
                "`open` gives a text file as one text, whose `length` is its bytes; its lines are `open f | lines | length`",
            )
        },
    },
    TextRewrite {
        rule: rule(
            "row-matched-by-name",
            "a row of `ls` or `ps` matched as text (`where $it =~ '.log'`) is matched by its name",
            &[
                becomes("ps | where $it !~ 'x'", "ps | where name !~ 'x'"),
                leaves("open a.log | lines | where $it =~ 'x'"),
            ],
        ),
        when: When::Written,
        apply: |call| {
            noted(
                listing::rows_matched_by_name(call.pipeline),
                "a listing's row is matched by its name: `where name =~ '.log'`",
            )
        },
    },
    TextRewrite {
        rule: rule(
            "sizes-of-listing",
            "an aggregate of a whole `ls` listing is of its `size` column",
            &[
                becomes(
                    "ls **/*.csv | math sum",
                    "ls **/*.csv | get size | math sum",
                ),
                leaves("open a.csv | math sum"),
            ],
        ),
        when: When::Written,
        apply: |call| {
            noted(
                listing::sizes_of_listing(call.pipeline),
                "`ls` gives rows of name, type, size, modified; their total is of a column: `get size | math sum`",
            )
        },
    },
    TextRewrite {
        rule: rule(
            "lines-of-listed-files",
            "`lines` of a listing are of its rows, not of the listed files' text",
            &[
                becomes(
                    "ls *.txt | where size > 0b | lines",
                    "ls *.txt | where size > 0b | insert lines {|f| open --raw $f.name | lines }",
                ),
                leaves("open a.log | lines | length"),
            ],
        ),
        when: When::Written,
        apply: |call| {
            noted(
                listing::lines_of_listed_files(call.pipeline),
                "`ls` gives rows that name files, not their text; each file's lines are `open --raw $f.name | lines`",
            )
        },
    },
    TextRewrite {
        rule: rule(
            "find-without-highlight",
            "`find` marks its matches with colour codes that later filters see",
            &[
                becomes(
                    "ps | find 'ticker' | where name =~ ticker",
                    "ps | find --no-highlight 'ticker' | where name =~ ticker",
                ),
                leaves("ps | find ticker"),
            ],
        ),
        when: When::Written,
        apply: |call| {
            noted(
                near::find_without_highlight(call.pipeline),
                "`find` marks its matches with colour codes, which later filters see; `find --no-highlight` does not",
            )
        },
    },
    TextRewrite {
        rule: rule(
            "git-dates-that-sort",
            "git's default dates neither sort nor parse; ISO dates do both",
            &[
                becomes(
                    "git log --format='%h|%an|%ad' | lines",
                    "git log --date=iso-strict --format='%h|%an|%ad' | lines",
                ),
                leaves("git log --date=short --format='%ad'"),
            ],
        ),
        when: When::Written,
        apply: |call| {
            noted(
                near::git_dates_that_sort(call.pipeline),
                "git's dates as ISO (`--date=iso-strict`): they sort and compare as text, and `into datetime` reads them",
            )
        },
    },
    TextRewrite {
        rule: rule(
            "size-compared-in-bytes",
            "a file size compared with a bare number cannot compare, and a stream counts the errors as rows",
            &[
                becomes(
                    "ls | where size > 10000 | get name",
                    "ls | where size > 10000b | get name",
                ),
                leaves("open t.csv | where amount > 10"),
            ],
        ),
        when: When::Written,
        apply: |call| {
            let (pipeline, number) = near::sizes_in_bytes(call.pipeline)?;
            Some((
                pipeline,
                format!("a file size compares with a size: `{number}b` (bytes), `4kb`, `2mb`"),
            ))
        },
    },
    TextRewrite {
        rule: rule(
            "date-of-text",
            "text becomes a date with `into datetime`; `date '2024-01-01'` (GNU date's) does not parse",
            &[
                becomes(
                    "ls | where modified < (date -d '2023-01-01')",
                    "ls | where modified < (('2023-01-01' | into datetime))",
                ),
                leaves("date now"),
            ],
        ),
        when: When::Unparsable,
        apply: |call| {
            noted(
                near::date_of_text(call.pipeline),
                "text becomes a date with `into datetime`",
            )
        },
    },
    TextRewrite {
        rule: rule(
            "python-methods-as-commands",
            "a value goes through commands, not Python's methods (`$f.name.split('.')[-1]`)",
            &[
                becomes("$x.lower() == 'a'", "($x | str downcase) == 'a'"),
                leaves("$x.frob('a')"),
            ],
        ),
        when: When::Unparsable,
        apply: |call| {
            noted(
                near::without_python_methods(call.pipeline),
                "a value goes through commands, not methods: `($f.name | split row '.' | last)`",
            )
        },
    },
    TextRewrite {
        rule: rule(
            "split-row",
            "`split` takes a subcommand: `split ' '` is `split row ' '`",
            &[
                becomes(
                    "open a.log | lines | each { split ' ' | first }",
                    "open a.log | lines | each { split row ' ' | first }",
                ),
                leaves("split column ','"),
            ],
        ),
        when: When::Unparsable,
        apply: |call| {
            noted(
                near::split_row(call.pipeline),
                "`split` takes a subcommand: `split row ' '`",
            )
        },
    },
    TextRewrite {
        rule: rule(
            "record-value-in-parentheses",
            "a record field's value that joins values with operators is read as the next key unless in parentheses",
            &[
                becomes(
                    "{a: 1 + 2, b: 'x' ++ $y, c: (1 + 2), d: '-'}",
                    "{a: (1 + 2), b: ('x' ++ $y), c: (1 + 2), d: '-'}",
                ),
                leaves("{a: (1 + 2), b: 'a + b'}"),
            ],
        ),
        when: When::Unparsable,
        apply: |call| {
            noted(
                near::record_values_in_parens(call.pipeline),
                "a record field's value is one expression: `{c: (($r.f - 32) * 5 / 9)}`",
            )
        },
    },
    TextRewrite {
        rule: rule(
            "duration-units",
            "other languages' duration units (`30days`, `24h`) are strings to Nushell; its own are `30day`, `24hr`",
            &[
                becomes(
                    "ls | where modified < ((date now) - 30days)",
                    "ls | where modified < ((date now) - 30day)",
                ),
                leaves("open 'report 30days.txt'"),
                leaves("(date now) - 1month"),
            ],
        ),
        when: When::Unparsable,
        apply: |call| {
            let (pipeline, changed) = near::in_nushell_units(call.pipeline)?;
            let words: Vec<String> = changed
                .iter()
                .map(|(other, nu)| format!("`{other}` is `{nu}`"))
                .collect();
            Some((pipeline, words.join(", ")))
        },
    },
    TextRewrite {
        rule: rule(
            "closure-names-it",
            "`$it` in a closure of `each`, `where`… that does not name its parameter is no variable",
            &[
                becomes(
                    "ls | each { mkdir $it.name; mv $it.name x }",
                    "ls | each {|it| mkdir $it.name; mv $it.name x }",
                ),
                leaves("each { $in + 1 }"),
            ],
        ),
        when: When::Unparsable,
        apply: |call| {
            noted(
                near::with_named_it(call.pipeline),
                "a closure names its parameter: `each {|it| ... }`",
            )
        },
    },
];
