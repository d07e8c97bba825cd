//! The text of the notes and fixes a step's outcome gets: after an error,
//! the form that works (a date compared with text, a folder opened as a
//! file, a value given to `open`); after a result that is not what it
//! seems, why (a size that is an entry's and not what a folder holds, a
//! count of rows where rows were asked for, one folder where subfolders
//! were). The rules that apply them are in `rules::notes` and
//! `rules::exact_fixes`.
//!
//! Nothing here decides what may run: a fixed pipeline goes through the
//! same policy as any other.

use super::pipeline_text::element_start;
use crate::shell::Diagnostic;

/// `pipeline` with the groups of `group-by g` counted (`group-by g |
/// length`, which fails on the record of groups) as a table of each
/// group and its rows: `group-by g --to-table | update items { length } |
/// rename g count`; `None` when it has no such count.
pub(super) fn rows_counted_per_group(pipeline: &str) -> Option<String> {
    static COUNTED: std::sync::LazyLock<Option<regex::Regex>> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"group-by\s+([A-Za-z_][A-Za-z0-9_-]*)\s*\|\s*(length|count)\b").ok()
    });
    let regex = COUNTED.as_ref()?;
    let fixed = regex.replace(
        pipeline,
        "group-by $1 --to-table | update items { length } | rename $1 count",
    );
    (fixed != pipeline).then(|| fixed.into_owned())
}

/// `pipeline`, which lists files with `ls` and asks the listing for a
/// file extension `column` (`extension`, `ext`) it does not have, with
/// that column made from each name right after the listing; `None` for
/// any other pipeline or column.
pub(super) fn with_extension_column(pipeline: &str, column: &str) -> Option<String> {
    if !["extension", "ext"].contains(&column) {
        return None;
    }
    let (listing, rest) = super::pipeline_text::split_first(pipeline)?;
    if listing.split_whitespace().next()? != "ls" || listing.contains('{') {
        return None;
    }
    Some(format!(
        "{} | insert {column} {{|f| $f.name | path parse | get extension }} |{rest}",
        listing.trim_end()
    ))
}

/// `pipeline` with each row matched by a regex (`where $it =~ 'x'`, on a
/// table's rows, which `=~` cannot read) matched as the text of the row's
/// values; `None` when it has no such match.
pub(super) fn rows_matched_as_text(pipeline: &str) -> Option<String> {
    static ROW_MATCH: std::sync::LazyLock<Option<regex::Regex>> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"(^|[\s(])\$it\s*(=~|!~)").ok());
    let regex = ROW_MATCH.as_ref()?;
    let fixed = regex.replace_all(pipeline, "${1}($$it | values | str join ' ') ${2}");
    (fixed != pipeline).then(|| fixed.into_owned())
}

/// For a pipeline that ran and failed: what to do instead, where the
/// error is one a small model meets again and again.
/// - a column the input does not have: the columns it has (for the
///   commands whose tables are fixed) or how to list them;
/// - a folder opened as a file: how folders are listed and measured;
/// - a path into a `.git` folder: a repository is read with `git`.
pub fn failure_hint(pipeline: &str, diagnostic: &Diagnostic) -> Option<String> {
    let code = diagnostic.code.as_deref().unwrap_or_default();
    if code == "nu::shell::column_not_found" {
        let label = diagnostic.labels.first()?;
        let element = element_start(pipeline, label.line, label.column)?;
        let before = pipeline[..element]
            .trim_end()
            .trim_end_matches('|')
            .trim_end();
        let source = before
            .split(['|', ';'])
            .next()
            .unwrap_or_default()
            .trim()
            .trim_start_matches('^');
        let known = TABLE_COLUMNS
            .iter()
            .find(|(command, _)| first_words(source, command));
        return Some(match known {
            Some((command, columns)) => format!("`{command}` gives the columns {columns}."),
            None if !before.is_empty() => {
                let missing = diagnostic
                    .message
                    .split('\'')
                    .nth(1)
                    .filter(|name| !name.is_empty() && !name.contains(' '));
                match missing {
                    // A nested field named as if it were a column
                    // (`update version` for `package.version`).
                    Some(name) => format!(
                        "`{before} | columns` lists the columns there are; a field inside a record column is reached with a dot: `column.{name}`."
                    ),
                    None => format!("`{before} | columns` lists the columns there are."),
                }
            }
            None => "`columns` lists the columns of a table.".to_string(),
        });
    }
    if code == "nu::shell::operator_incompatible_types"
        && diagnostic.message.contains("'datetime'")
        && diagnostic.message.contains("'string'")
    {
        return Some(match with_dates_as_dates(pipeline) {
            Some(fixed) => format!("A date compares with a date, not with text: `{fixed}`."),
            None => DATE_FORMS.to_string(),
        });
    }
    // Itself or inside the closure it reports (`each { open $d.name }`).
    if code == IS_A_DIRECTORY || diagnostic.rendered.contains(IS_A_DIRECTORY) {
        return Some(FOLDER_FORMS.to_string());
    }
    let into_git = pipeline
        .split(|c: char| c.is_whitespace() || "'\"`(".contains(c))
        .any(|word| word == ".git" || word.starts_with(".git/") || word.contains("/.git/"));
    if into_git {
        return Some(GIT_FORMS.to_string());
    }
    is_not_found(diagnostic)
        .then(|| extension_as_path(pipeline))
        .flatten()
        .map(|ext| {
            format!(
                "`{ext}` is the path of one file named `{ext}`, and there is none. The files whose names end in {ext} are the glob `*{ext}`: `ls *{ext}`, `ls **/*{ext}` (subfolders too), `rm *{ext}`."
            )
        })
}

/// For a file command that failed on a path there is no file at, where
/// the path is a text value of an earlier result (`open eval-memhog` after
/// `ps` showed a process of that name): the value is no file, and the row
/// it came from is in that result already. `earlier` holds the results
/// the model was shown, `(N, $out.N)`, newest last.
pub fn value_as_file_hint(
    pipeline: &str,
    diagnostic: &Diagnostic,
    earlier: &[(usize, nu_protocol::Value)],
) -> Option<String> {
    if !is_not_found(diagnostic) {
        return None;
    }
    let path = file_command_arguments(pipeline)
        .map(|word| word.trim_matches(['\'', '"', ')']))
        .find(|path| !path.starts_with('-') && !path.is_empty())?;
    earlier.iter().rev().find_map(|(n, value)| {
        let column = column_holding(value, path)?;
        Some(format!(
            "`{path}` is no file here: it is the `{column}` of a row of `$out.{n}`, which holds that row already (`$out.{n} | where {column} == '{path}'`); answer from it."
        ))
    })
}

/// Whether `diagnostic` says a path has no file or folder.
pub fn is_not_found(diagnostic: &Diagnostic) -> bool {
    let code = diagnostic.code.as_deref().unwrap_or_default();
    ["nu::shell::io::file_not_found", "nu::shell::io::not_found"].contains(&code)
}

/// The column of a table (or the field of a record) whose text is `text`.
fn column_holding(value: &nu_protocol::Value, text: &str) -> Option<String> {
    let in_record = |record: &nu_protocol::Record| {
        record
            .iter()
            .find(|(_, v)| v.as_str().is_ok_and(|s| s == text))
            .map(|(column, _)| column.clone())
    };
    match value {
        nu_protocol::Value::Record { val, .. } => in_record(val),
        nu_protocol::Value::List { vals, .. } => vals.iter().find_map(|row| match row {
            nu_protocol::Value::Record { val, .. } => in_record(val),
            _ => None,
        }),
        _ => None,
    }
}

/// The first bare extension (`.tmp`) a file command takes as its path
/// (`rm .tmp`, `open .log`), meant as the files that end in it.
fn extension_as_path(pipeline: &str) -> Option<&str> {
    file_command_arguments(pipeline)
        .map(|word| word.trim_matches(['\'', '"']))
        .find(|path| {
            path.len() >= 2
                && path.len() <= 9
                && path.starts_with('.')
                && path[1..].chars().all(|c| c.is_ascii_alphanumeric())
        })
}

/// The word after each file command of `pipeline` ([`FILE_COMMANDS`],
/// also as `(open` or `^rm`), as written: its path, or a flag.
fn file_command_arguments(pipeline: &str) -> impl Iterator<Item = &str> {
    let words: Vec<&str> = pipeline.split_whitespace().collect();
    (1..words.len()).filter_map(move |at| {
        let head = words[at - 1].trim_start_matches(['(', '^']);
        FILE_COMMANDS.contains(&head).then_some(words[at])
    })
}

/// Commands whose argument is a path.
const FILE_COMMANDS: &[&str] = &["open", "rm", "ls", "cp", "mv", "cat", "du", "touch"];

/// For a pipeline that ran: a comparison of a file size with a bare
/// number (`where size == 0`, `size > 1000`) does not compare sizes in
/// Nushell (`size == 0` is never true), so the result is not what it seems.
pub fn bare_size_hint(pipeline: &str) -> Option<String> {
    let words: Vec<&str> = pipeline
        .split(|c: char| c.is_whitespace() || "(){}".contains(c))
        .filter(|w| !w.is_empty())
        .collect();
    let bare = words.windows(3).find(|w| {
        let column = w[0].trim_start_matches("$it.").trim_start_matches("$in.");
        [
            "size",
            "apparent",
            "physical",
            "total",
            "free",
            "used",
            "available",
        ]
        .contains(&column)
            && ["==", "!=", "<", ">", "<=", ">="].contains(&w[1])
            && w[2].parse::<f64>().is_ok()
    })?;
    Some(format!(
        "Note: `{}` is a file size and `{}` a plain number; they do not compare, so this result is wrong. Write the unit: `{} {} {}b` (or `4kb`, `2mb`).",
        bare[0], bare[2], bare[0], bare[1], bare[2]
    ))
}

/// For a pipeline that found nothing by filtering `ls` of one folder
/// (`ls | where …`, `ls *.bak | …`) in `cwd`, which has subfolders: `ls`
/// does not look into them, and the request may have meant them.
pub fn this_folder_only_hint(pipeline: &str, cwd: &std::path::Path) -> Option<String> {
    let pattern = one_folder_listing(pipeline)?;
    let filtered = pipeline.contains('|') || pattern != "*";
    (filtered && has_subfolders(cwd)).then(|| {
        format!(
            "Note: nothing matched in this folder; `ls` does not look into subfolders. `ls **/{pattern}` does (its names are paths: `dir/file`)."
        )
    })
}

/// For a pipeline that listed one folder with `ls` when the request asks
/// for its subfolders too (see [`asks_for_subfolders`]), in `cwd` that has
/// some: `ls **/…` is what it asked for.
pub fn subfolders_hint(pipeline: &str, cwd: &std::path::Path) -> Option<String> {
    // The model's own pipeline over the subfolders too: a small model
    // runs a whole pipeline it is shown, and loses the rest of its own
    // when shown only the listing.
    over_subfolders(pipeline, cwd).map(|whole| {
        format!(
            "Note: `ls` lists this folder only, and the request asks for subfolders too: `{whole}` (its names are paths: `dir/file`)."
        )
    })
}

/// `pipeline` over the subfolders too (`ls *.bak | …` → `ls **/*.bak |
/// …`, its flags kept) where it lists one folder of `cwd` (all of it, or
/// a glob: a name or a variable is not widened), which has subfolders,
/// and is not about the folders themselves; `None` else.
pub fn over_subfolders(pipeline: &str, cwd: &std::path::Path) -> Option<String> {
    let pattern = match one_folder_listing(pipeline)?.as_str() {
        "." => "*".to_string(),
        glob if glob.contains(['*', '?', '[']) && !glob.starts_with(['$', '(']) => glob.to_string(),
        _ => return None,
    };
    if !has_subfolders(cwd) || lists_folders_themselves(pipeline) {
        return None;
    }
    let (first, rest) = super::pipeline_text::split_first(pipeline).unwrap_or((pipeline, ""));
    let flags: String = first
        .split_whitespace()
        .skip(1)
        .filter(|word| word.starts_with('-'))
        .map(|flag| format!("{flag} "))
        .collect();
    let listing = format!("ls {flags}**/{pattern}");
    Some(match rest.trim() {
        "" => listing,
        rest => format!("{listing} | {rest}"),
    })
}

/// Whether `pipeline` is about this folder's subfolders as entries (their
/// sizes with `--du`, only the folders kept): "which subfolder is
/// largest" is answered by one folder's listing.
fn lists_folders_themselves(pipeline: &str) -> bool {
    let first = super::pipeline_text::first_element(pipeline);
    let measures_folders = first.split_whitespace().next() == Some("ls")
        && !super::listing_forms::ls_without_du(first);
    measures_folders || super::listing_forms::keeps_folders(pipeline)
}

/// The pattern (`*` for none) of a pipeline whose first element lists one
/// folder with `ls`: this one or a pattern in it, not `**`, not a path.
fn one_folder_listing(pipeline: &str) -> Option<String> {
    let first = super::pipeline_text::first_element(pipeline).trim();
    let mut words = first.split_whitespace();
    if words.next()? != "ls" {
        return None;
    }
    let args: Vec<&str> = words.filter(|w| !w.starts_with('-')).collect();
    let one_folder = args.len() <= 1
        && args
            .iter()
            .all(|a| !a.contains("**") && !a.contains('/') && !a.starts_with('~'));
    one_folder.then(|| args.first().copied().unwrap_or("*").to_string())
}

/// Whether `dir` has folders in it (hidden ones left out).
fn has_subfolders(dir: &std::path::Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries.flatten().any(|entry| {
            entry.file_type().is_ok_and(|t| t.is_dir())
                && !entry.file_name().to_string_lossy().starts_with('.')
        })
    })
}

/// For a pipeline that ran `ls` without `--du` and used sizes, whose
/// result has folders: a folder's `size` there is its entry's (a few
/// kB), not the size of what it holds.
pub fn folder_size_hint(pipeline: &str, value: &nu_protocol::Value) -> Option<String> {
    let first = super::pipeline_text::first_element(pipeline).trim();
    if !super::listing_forms::ls_without_du(first) || !pipeline.contains("size") {
        return None;
    }
    let rows = match value {
        nu_protocol::Value::List { vals, .. } => vals,
        _ => return None,
    };
    let has_folder = rows.iter().any(|row| {
        row.as_record()
            .ok()
            .and_then(|r| r.get("type"))
            .and_then(|t| t.as_str().ok())
            == Some("dir")
    });
    has_folder.then(|| {
        "Note: a folder's `size` in `ls` is the size of its entry, not of what it holds; `ls --du` (or `du dir`) gives the size of its contents.".to_string()
    })
}

/// For a pipeline that ran: a command whose Nushell meaning is not the
/// one a shell user expects, used the shell's way, so the run did not do
/// what it meant:
/// - `rename` on file names (`each { rename $in.name x }`): Nushell's
///   renames a table's columns; nothing was renamed on disk;
/// - `open $f.name | length` as a file's size: it counts what the file
///   holds;
/// - `du /` for free space: it adds up what every file uses;
/// - `lines | split row ' ' | select 1` for a field of each line, as awk's
///   `$1`: `split row` makes one list of the words of all lines;
/// - a path into `.git` that found nothing: a repository is read with git.
pub fn false_friend_hint(pipeline: &str, found_nothing: bool) -> Option<String> {
    if let Some(hint) = fields_of_lines_hint(pipeline) {
        return Some(hint);
    }
    let words: Vec<&str> = pipeline
        .split(|c: char| c.is_whitespace() || "|;(){}".contains(c))
        .filter(|w| !w.is_empty())
        .collect();
    let renames_files = words.windows(2).any(|w| {
        w[0] == "rename"
            && (w[1].contains(".name") || w[1].starts_with("$it") || w[1].starts_with("$in"))
    });
    if renames_files {
        return Some("Note: Nushell's `rename` renames a table's columns; no file was renamed. A file is renamed with `mv`: `ls *.a | each {|f| mv $f.name ($f.name | str replace '.a' '.b') }`.".to_string());
    }
    if measures_contents_as_size(pipeline) {
        return Some("Note: `open f | length` counts what a file holds (its rows, or as text its bytes), not the file's size on disk; that is the `size` column `ls` gives: `ls *.dat | get size | math sum`.".to_string());
    }
    if words.windows(2).any(|w| w[0] == "du" && w[1] == "/") {
        return Some("Note: `du /` adds up what the files under / use; the free and total space of each disk is `sys disks` (columns mount, total, free).".to_string());
    }
    let into_git = words
        .iter()
        .any(|w| *w == ".git" || w.starts_with(".git/") || w.contains("/.git/"));
    (found_nothing && into_git).then(|| GIT_FORMS.to_string())
}

/// Whether `pipeline` takes the length of each listed file's contents
/// (`open $f.name | length`) where it speaks of sizes (`{size: (open
/// $f.name | length)}`).
fn measures_contents_as_size(pipeline: &str) -> bool {
    static OPEN_LENGTH: std::sync::LazyLock<Option<regex::Regex>> =
        std::sync::LazyLock::new(|| {
            regex::Regex::new(r"open\s+\$[A-Za-z_]\w*\.name\s*\|\s*(?:lines\s*\|\s*)?length").ok()
        });
    let speaks_of_size = pipeline
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .any(|word| word == "size");
    speaks_of_size
        && OPEN_LENGTH
            .as_ref()
            .is_some_and(|regex| regex.is_match(pipeline))
}

/// For a pipeline (that ran or failed) taking a word by its index after
/// `lines | split row ' '`, as awk's `$1`: that list holds the words of
/// all the lines; each line's fields are columns with `split column`.
pub fn fields_of_lines_hint(pipeline: &str) -> Option<String> {
    let index = field_of_all_lines(pipeline)?;
    Some(format!(
        "Note: `lines | split row ' '` makes one list of the words of all the lines, so `{index}` took from that list, not a field of each line. Each line's fields are columns with `lines | split column ' '` (`column1` is the first field: `lines | split column ' ' | get column1`), or `lines | parse '{{first}} {{rest}}'`."
    ))
}

/// `pipeline` with its `open $x` element (a variable or `$out.N` that
/// holds data, not a file name: `open` failed to make it a string) written
/// `$x`, and that variable; `None` when it has none.
pub(super) fn value_not_opened(pipeline: &str) -> Option<(String, String)> {
    let elements = super::pipeline_text::top_level_elements(pipeline);
    let mut value = None;
    let fixed: Vec<String> = elements
        .iter()
        .map(|element| {
            let words: Vec<&str> = element.split_whitespace().collect();
            match words.as_slice() {
                ["open", variable] if variable.starts_with('$') && value.is_none() => {
                    value = Some(variable.to_string());
                    format!(" {variable} ")
                }
                _ => element.clone(),
            }
        })
        .collect();
    let value = value?;
    Some((fixed.join("|").trim().to_string(), value))
}

/// `pipeline` with `split row S | get N` (or `select N`) right after
/// `lines` and its filters written `each { split row S | get N }`, the
/// field of each line that awk's `$N` means; `None` when it has none.
pub(super) fn field_of_each_line(pipeline: &str) -> Option<String> {
    let index = field_of_all_lines(pipeline)?;
    let elements = super::pipeline_text::top_level_elements(pipeline);
    let elements: Vec<&str> = elements.iter().map(|e| e.trim()).collect();
    let at = elements.iter().position(|e| *e == index)?;
    let split = elements[at.checked_sub(1)?];
    if !split.starts_with("split row") {
        return None;
    }
    let number = index.split_whitespace().nth(1)?;
    let mut fixed: Vec<String> = elements[..at - 1].iter().map(|e| e.to_string()).collect();
    fixed.push(format!("each {{ {split} | get {number} }}"));
    fixed.extend(elements[at + 1..].iter().map(|e| e.to_string()));
    Some(fixed.join(" | "))
}

/// The element (`select 1`, `get 0`) of `pipeline` that takes a word by
/// its index after `lines | … | split row`, which flattens all the lines'
/// words into one list; `None` when it has none.
fn field_of_all_lines(pipeline: &str) -> Option<String> {
    let elements: Vec<String> = super::pipeline_text::top_level_elements(pipeline)
        .iter()
        .map(|e| e.trim().to_string())
        .collect();
    let lines = elements.iter().position(|e| *e == "lines")?;
    let split = lines
        + elements[lines..]
            .iter()
            .position(|e| e.starts_with("split row"))?;
    elements[split..]
        .iter()
        .find(|element| {
            let words: Vec<&str> = element.split_whitespace().collect();
            words.len() == 2
                && ["select", "get"].contains(&words[0])
                && words[1].parse::<usize>().is_ok()
        })
        .map(|element| element.to_string())
}

/// For a pipeline that ran `each` over files (`ls … | each { … }`) and
/// got plain values back (numbers, text): the list no longer says which
/// file each value belongs to.
pub fn lost_rows_hint(pipeline: &str, value: &nu_protocol::Value) -> Option<String> {
    let first = super::pipeline_text::first_element(pipeline).trim();
    if !(first == "ls" || first.starts_with("ls ") || first.starts_with("glob "))
        || !pipeline.contains("each {")
    {
        return None;
    }
    let nu_protocol::Value::List { vals, .. } = value else {
        return None;
    };
    let plain = vals.len() > 1
        && vals.iter().all(|v| {
            !matches!(
                v,
                nu_protocol::Value::Record { .. } | nu_protocol::Value::List { .. }
            )
        });
    plain.then(|| {
        "Note: these values no longer say which file each is for. Give each file a row: `each {|f| {file: $f.name, n: (...)} }`.".to_string()
    })
}

/// For a pipeline with `group-by` that failed or did not parse: the
/// Nushell form of a total (or average, or count) per group, written with
/// the model's own group column and, where the pipeline names one, its
/// value column.
pub fn per_group_hint(pipeline: &str) -> Option<String> {
    let words: Vec<&str> = pipeline
        .split(|c: char| c.is_whitespace() || "|;(),".contains(c))
        .filter(|w| !w.is_empty())
        .collect();
    let at = words.iter().position(|w| *w == "group-by")?;
    let group = words
        .get(at + 1)
        .filter(|w| !w.starts_with('-') && !w.starts_with('{'))?;
    let value = words
        .windows(2)
        .filter(|w| ["get", "select", "sum", "avg", "max", "min"].contains(&w[0]))
        .map(|w| w[1])
        .chain(
            // `math sum(price)` as other languages write it.
            pipeline.split(['(', ')']).skip(1).step_by(2).map(str::trim),
        )
        .find(|w| {
            *w != *group
                && !w.is_empty()
                && w.chars().all(|c| c.is_alphanumeric() || c == '_')
                && w.parse::<f64>().is_err()
        });
    let counts = words
        .iter()
        .any(|w| ["count", "length", "uniq"].contains(w));
    let adds_up = words
        .iter()
        .any(|w| ["math", "sum", "avg", "max", "min"].contains(w));
    if counts || (value.is_none() && !adds_up) {
        // Rows are counted, not added up (a made-up value column would be
        // copied as it is).
        return Some(format!(
            "Rows per group in Nushell: `get {group} | uniq --count` (a table: value, count), or `group-by {group} --to-table | update items {{ length }}`."
        ));
    }
    let value = value.unwrap_or("value");
    let math = ["avg", "max", "min"]
        .into_iter()
        .find(|f| pipeline.contains(f))
        .unwrap_or("sum");
    Some(format!(
        "Per group in Nushell: `group-by {group} --to-table | update items {{ get {value} | math {math} }}` (a table: {group}, items); rows per group: `get {group} | uniq --count`."
    ))
}

/// The columns of the tables commands always give, with the way to ask
/// what a model looks for in a column they lack.
const TABLE_COLUMNS: &[(&str, &str)] = &[
    (
        "ls",
        "name, type, size, modified (an extension: `where name ends-with '.txt'`, each one's: `get name | path parse | get extension`; a file's folder: `path dirname`)",
    ),
    ("ps", "pid, ppid, name, status, cpu, mem, virtual"),
    (
        "sys disks",
        "device, type, mount, total, free, removable, kind",
    ),
    (
        "sys mem",
        "total, free, used, available, swap total, swap free, swap used",
    ),
    ("du", "path, apparent, physical"),
];

/// `pipeline` with each date written as text in a comparison (`modified
/// < '2023-01-01'`) made a date (`('2023-01-01' | into datetime)`);
/// `None` when it has none.
pub(super) fn with_dates_as_dates(pipeline: &str) -> Option<String> {
    static COMPARED_TEXT: std::sync::LazyLock<Option<regex::Regex>> =
        std::sync::LazyLock::new(|| {
            regex::Regex::new(r#"(<=|>=|<|>|==|!=)\s*('[0-9][^']*'|"[0-9][^"]*")"#).ok()
        });
    let regex = COMPARED_TEXT.as_ref()?;
    let fixed = regex.replace_all(pipeline, "$1 ($2 | into datetime)");
    (fixed != pipeline).then(|| fixed.into_owned())
}

/// How a date is compared with a date written as text.
const DATE_FORMS: &str = "A date compares with a date, not with text: `where modified < ('2024-01-31' | into datetime)`, or a time ago: `where modified < ((date now) - 14day)`.";

/// How a git repository is read.
const IS_A_DIRECTORY: &str = "nu::shell::io::is_a_directory";
/// A fact and the command that serves it, with no pipeline of another
/// task to copy (a small model copied a folder-size pipeline into every
/// task whose `open` met a folder).
const FOLDER_FORMS: &str = "`open` reads files, and that was a folder: `ls` lists a folder's entries (name type size modified), `ls --du` with each folder's whole size.";
const GIT_FORMS: &str = "A git repository is read with git, not by opening `.git`: `^git log --format='%h %an %s' | lines`, `^git status --porcelain | lines`, `^git show --stat HEAD`.";

/// Whether `text` starts with the words of `command`, whole.
fn first_words(text: &str, command: &str) -> bool {
    let words: Vec<&str> = text.split_whitespace().collect();
    let wanted: Vec<&str> = command.split_whitespace().collect();
    words.len() >= wanted.len() && words[..wanted.len()] == wanted[..]
}

#[cfg(test)]
mod tests;
