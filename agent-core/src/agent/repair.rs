//! What a small model writes that is not Nushell, turned into something it
//! can act on before (or instead of) running it:
//! - a name that is neither a Nushell command nor a program on PATH is an
//!   error naming the Nushell form (`count` → `length`), never a question
//!   to the user about running an unknown program;
//! - a pipeline that does not parse gets the usage of the command the error
//!   points at, and the Nushell form of a bash habit there.
//!
//! Nothing here decides what may run: the rewritten pipeline goes through
//! the same policy as any other.

use nu_protocol::engine::EngineState;

use crate::shell::Diagnostic;

/// The Nushell form of names small models bring from bash, SQL or Python.
const NUSHELL_FORMS: &[(&str, &str)] = &[
    (
        "count",
        "`length` counts the rows of a table or the items of a list",
    ),
    ("avg", "`math avg`"),
    ("average", "`math avg`"),
    ("mean", "`math avg`"),
    ("sum", "`math sum`"),
    ("max", "`math max`"),
    ("min", "`math min`"),
    ("round", "`math round`"),
    (
        "delete",
        "`rm path`; for a table of files: `each { rm $in.name }`",
    ),
    (
        "remove",
        "`rm path`; for a table of files: `each { rm $in.name }`",
    ),
    ("del", "`rm path`"),
    ("unlink", "`rm path`"),
    ("rename", "`mv old new`"),
    ("move", "`mv old new`"),
    ("copy", "`cp from to`"),
    ("set", "`let name = value`"),
    ("export", "`$env.NAME = 'value'`"),
    ("echo", "the value itself (`'text'`), or `print`"),
    (
        "nu",
        "the pipeline itself: this tool runs Nushell already (`nu -c 'ls'` is `ls`)",
    ),
    ("printf", "a string `$\"($x) items\"`"),
    (
        "cat",
        "`open file` (a table for .csv .tsv .json .toml .yaml) or `open --raw file` (text)",
    ),
    (
        "grep",
        "`open --raw file | lines | where $it =~ 'text'`, or `where column =~ 'text'` on a table",
    ),
    ("head", "`first N`"),
    ("tail", "`last N`"),
    ("wc", "`lines | length` (or `length` on a table)"),
    (
        "awk",
        "`split column ' '` then `get column1`, or `get column` on a table",
    ),
    (
        "cut",
        "`split column ','` then `get column1`, or `get column` on a table",
    ),
    ("sed", "`str replace 'old' 'new'`"),
    ("tr", "`str replace --all 'a' 'b'`, `str downcase`"),
    ("xargs", "`each { |it| ... }`"),
    ("filter", "`where condition`"),
    ("map", "`each { |it| ... }`"),
    ("foreach", "`each { |it| ... }`"),
    ("jq", "`open file.json` or `from json`, then `get field`"),
    ("stat", "`ls -l path`"),
    ("basename", "`path basename`"),
    ("dirname", "`path dirname`"),
    ("realpath", "`path expand`"),
    (
        "netstat",
        "`^ss -tlnp` (text; `detect columns` makes it a table)",
    ),
    (
        "ps",
        "Nushell's `ps` takes no arguments and gives a table (pid, name, cpu, mem): `ps | where name =~ 'x' | select pid name mem`",
    ),
    (
        "du",
        "Nushell's `du path` gives a table (path, apparent, physical); `ls | where type == dir` lists folders",
    ),
    ("df", "`sys disks`"),
    ("free", "`sys mem`"),
    ("nproc", "`sys cpu | length`"),
    (
        "ls",
        "Nushell's `ls` gives a table (name, type, size, modified): filter it with `where`, e.g. `ls | where modified > ((date now) - 2hr)`, `ls **/* | where type == file`",
    ),
    ("find", "`ls **/* | where name =~ 'x'` or `glob '**/*.rs'`"),
    ("sort", "`sort-by column` (`--reverse` for largest first)"),
    ("uniq", "`uniq`, or `uniq --count` for counts"),
    (
        "split-by",
        "`split row ' '` (text to a list of words), `split column ' '` (lines to a table: column1, column2…)",
    ),
    ("date", "`date now`"),
    ("test", "`'path' | path exists`"),
    ("nuon", "`to nuon` / `from nuon`"),
    (
        "json",
        "`to json` (a value to JSON text; `save -f f.json` writes it) / `from json` (text to a value)",
    ),
    (
        "csv",
        "`to csv` (a table to CSV text; `save -f f.csv` writes it) / `from csv`",
    ),
    ("yaml", "`to yaml` / `from yaml`"),
    ("toml", "`to toml` / `from toml`"),
];

/// The names small models bring from other languages that have a Nushell
/// form here (`count`, `grep`, `delete`): the pipeline grammar lets them
/// be written, so that the loop can translate them or name their form,
/// instead of the grammar forcing the word into some other command
/// (`count` into `count-14`).
pub fn habit_names() -> impl Iterator<Item = &'static str> {
    NUSHELL_FORMS.iter().map(|(habit, _)| *habit)
}

/// The Nushell form for `name`, where it is a known habit.
pub fn nushell_form(name: &str) -> Option<&'static str> {
    NUSHELL_FORMS
        .iter()
        .find(|(habit, _)| *habit == name)
        .map(|(_, form)| *form)
}

/// `pipeline` with `^name` written `name` for each of `names` that is a
/// Nushell command here: `^sys cpu` runs a program called `sys`, and with
/// no such program on this machine it can only fail, while `sys cpu` is
/// what it means. `None` when some name is no command (the model is told
/// of those) or nothing changes.
pub fn without_caret_of_commands(
    engine: &EngineState,
    pipeline: &str,
    names: &[String],
) -> Option<String> {
    let is_command = |name: &String| engine.find_decl(name.as_bytes(), &[]).is_some();
    if names.is_empty() || !names.iter().all(is_command) {
        return None;
    }
    let mut fixed = pipeline.to_string();
    for name in names {
        let caret = format!("^{name}");
        let mut from = 0;
        while let Some(at) = fixed[from..].find(&caret).map(|at| at + from) {
            let end = at + caret.len();
            let ends_word = fixed[end..]
                .chars()
                .next()
                .is_none_or(|c| c.is_whitespace() || "|;)".contains(c));
            if ends_word {
                fixed.replace_range(at..at + 1, "");
                from = end - 1;
            } else {
                from = end;
            }
        }
    }
    (fixed != pipeline).then_some(fixed)
}

/// What the model is told of names that are neither commands nor
/// programs: the Nushell form, or the closest command names.
pub fn unknown_programs_message(engine: &EngineState, names: &[String]) -> String {
    let commands: Vec<String> = engine
        .get_decls_sorted(false)
        .into_iter()
        .filter_map(|(name, _)| String::from_utf8(name).ok())
        .collect();
    let mut text = String::from("Nothing ran.");
    for name in names {
        text.push_str(&format!(
            "\n`{name}` is not a Nushell command or a program on this machine"
        ));
        match nushell_form(name) {
            Some(form) => text.push_str(&format!("; in Nushell: {form}.")),
            None => match closest(&commands, name) {
                Some(close) => text.push_str(&format!("; did you mean `{close}`?")),
                None => text.push('.'),
            },
        }
    }
    text.push_str(
        "\nFix the pipeline and call `nu` again (`help <command>` shows a command's usage).",
    );
    text
}

/// The command name closest to `name` in edit distance, where it is close
/// enough to be a misspelling (a third of its length, at least 1).
fn closest<'a>(commands: &'a [String], name: &str) -> Option<&'a str> {
    let limit = (name.chars().count() / 3).max(1);
    commands
        .iter()
        .map(|c| (nu_protocol::levenshtein_distance(c, name), c))
        .filter(|(distance, _)| *distance <= limit)
        .min_by_key(|(distance, c)| (*distance, c.len()))
        .map(|(_, c)| c.as_str())
}

/// For a pipeline that does not parse: the usage of the command the error
/// points at, with the Nushell form of the bash habit there.
pub fn usage_hint(engine: &EngineState, pipeline: &str, diagnostic: &Diagnostic) -> Option<String> {
    let head = diagnostic
        .labels
        .iter()
        .find_map(|label| command_at(pipeline, label.line, label.column))?;
    let mut hint = String::new();
    if let Some(name) = command_name(engine, &head) {
        // `sys tcp`, `date '2024-01-01'`: a command that is only a family
        // of subcommands; its usage says nothing of them.
        match subcommand_list(engine, &name) {
            Some(list) => hint.push_str(&list),
            None => hint.push_str(&short_usage(&super::tools::command_help(engine, &name))),
        }
        if name == "sys" && asks_for_sockets(&head) {
            hint.push('\n');
            hint.push_str(SOCKETS_FORM);
        }
    }
    let first_word = head.split_whitespace().next().unwrap_or_default();
    if let Some(form) = nushell_form(first_word) {
        if !hint.is_empty() {
            hint.push('\n');
        }
        hint.push_str(&format!("In Nushell: {form}."));
    }
    (!hint.is_empty()).then_some(hint)
}

/// Words of an invented `sys` subcommand about the network (`sys tcp`,
/// `sys net`, `sys ports`).
const SOCKET_WORDS: &[&str] = &[
    "tcp",
    "udp",
    "net",
    "network",
    "networks",
    "port",
    "ports",
    "socket",
    "sockets",
    "connections",
    "listen",
    "listening",
    "netstat",
];

/// Where sockets and ports are read, which no Nushell command lists.
const SOCKETS_FORM: &str = "Nushell has no command for sockets or ports; `^ss -tln` lists the listening TCP ports (`^ss -uln` UDP), and its text becomes a table with `detect columns`.";

/// Whether `element` (a `sys …` call) asks for a subcommand about the
/// network.
fn asks_for_sockets(element: &str) -> bool {
    element
        .split_whitespace()
        .nth(1)
        .is_some_and(|word| SOCKET_WORDS.contains(&word.to_lowercase().as_str()))
}

/// "`sys` is used with a subcommand: `sys cpu` (…), …" for `name`, a
/// command that is only a family of subcommands; `None` for any other.
fn subcommand_list(engine: &EngineState, name: &str) -> Option<String> {
    let subcommands = subcommands(engine, name);
    (!subcommands.is_empty()).then(|| {
        format!(
            "`{name}` is used with a subcommand: {}.",
            subcommands
                .iter()
                .map(|(sub, what)| format!("`{sub}` ({what})"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    })
}

/// For a pipeline with an element that is a family of subcommands alone
/// (`sys`, `str`, with flags at most), which only prints its help: the
/// subcommands. Such a pipeline is not run: its help is not data.
pub fn bare_family_hint(engine: &EngineState, pipeline: &str) -> Option<String> {
    pipeline.split('|').find_map(|element| {
        let mut words = element.split_whitespace();
        let name = words.next()?;
        if !words.all(|w| w.starts_with('-')) {
            return None;
        }
        subcommand_list(engine, name)
            .map(|list| format!("`{name}` alone only prints its help, so nothing ran. {list}"))
    })
}

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
    let (listing, rest) = pipeline.split_once('|')?;
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

/// The byte offset of `line`:`column` (1-based, in characters) in `text`;
/// a column past the line's end is its end.
pub(super) fn char_offset(text: &str, line: usize, column: usize) -> Option<usize> {
    let line_start: usize = text
        .split_inclusive('\n')
        .take(line.checked_sub(1)?)
        .map(str::len)
        .sum();
    let line_text = text.get(line_start..)?.lines().next()?;
    let within = line_text
        .char_indices()
        .nth(column.saturating_sub(1))
        .map_or(line_text.len(), |(i, _)| i);
    Some(line_start + within)
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
    let (first, rest) = pipeline.split_once('|').unwrap_or((pipeline, ""));
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
    let first = pipeline.split('|').next().unwrap_or_default();
    let measures_folders =
        first.split_whitespace().next() == Some("ls") && !super::near_nushell::ls_without_du(first);
    measures_folders || super::near_nushell::keeps_folders(pipeline)
}

/// Whether `request` asks which things (files, rows) there are, by name,
/// and not how many: "Which files…", "Find the empty files", "List…".
pub fn asks_which_ones(request: &str) -> bool {
    let request = request.to_lowercase();
    let words: Vec<&str> = request
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let asks_items = words
        .iter()
        .any(|w| ["which", "list", "find", "show", "name", "names"].contains(w));
    let asks_number = request.contains("how many")
        || request.contains("number of")
        || words
            .iter()
            .any(|w| ["count", "total", "sum", "average"].contains(w));
    asks_items && !asks_number
}

/// Whether `request` asks for something of each file on its own ("in
/// each .log file", "per file", "for every CSV file"), not one figure
/// over them all.
pub fn asks_per_file(request: &str) -> bool {
    static PER_FILE: std::sync::LazyLock<Option<regex::Regex>> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"(?i)\b(each|every|per)\s+(?:[\w.*-]+\s+){0,2}?files?\b").ok()
    });
    PER_FILE
        .as_ref()
        .is_some_and(|regex| regex.is_match(request))
}

/// Whether `request` asks to look into subfolders too.
pub fn asks_for_subfolders(request: &str) -> bool {
    let request = request.to_lowercase();
    [
        "subfolder",
        "sub-folder",
        "subdirector",
        "sub-director",
        "recursive",
    ]
    .iter()
    .any(|word| request.contains(word))
}

/// The pattern (`*` for none) of a pipeline whose first element lists one
/// folder with `ls`: this one or a pattern in it, not `**`, not a path.
fn one_folder_listing(pipeline: &str) -> Option<String> {
    let first = pipeline.split('|').next()?.trim();
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
    let first = pipeline.split('|').next()?.trim();
    if !super::near_nushell::ls_without_du(first) || !pipeline.contains("size") {
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
    let elements = super::near_nushell::top_level_elements(pipeline);
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
    let elements = super::near_nushell::top_level_elements(pipeline);
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
    let elements: Vec<&str> = pipeline.split('|').map(str::trim).collect();
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
    let first = pipeline.split('|').next()?.trim();
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
const FOLDER_FORMS: &str = "`open` reads files, and that was a folder. Each folder's size (all it holds) is the `size` column of `ls --du`: `ls --du | where type == dir | select name size`.";
const GIT_FORMS: &str = "A git repository is read with git, not by opening `.git`: `^git log --format='%h %an %s' | lines`, `^git status --porcelain | lines`, `^git show --stat HEAD`.";

/// Whether `text` starts with the words of `command`, whole.
fn first_words(text: &str, command: &str) -> bool {
    let words: Vec<&str> = text.split_whitespace().collect();
    let wanted: Vec<&str> = command.split_whitespace().collect();
    words.len() >= wanted.len() && words[..wanted.len()] == wanted[..]
}

/// The byte offset where the pipeline element holding `line`:`column`
/// (1-based, in characters) starts: after the `|` or `;` before it.
fn element_start(pipeline: &str, line: usize, column: usize) -> Option<usize> {
    let at = char_offset(pipeline, line, column)?;
    let line_start = pipeline[..at].rfind('\n').map_or(0, |i| i + 1);
    let start = pipeline[line_start..at]
        .rfind(['|', ';'])
        .map_or(0, |i| i + 1);
    Some(line_start + start)
}

/// The words of the pipeline element holding `line`:`column` (1-based,
/// in characters), from its start: the command and its arguments.
fn command_at(pipeline: &str, line: usize, column: usize) -> Option<String> {
    let text = pipeline.lines().nth(line.checked_sub(1)?)?;
    let before: String = text.chars().take(column.saturating_sub(1)).collect();
    let start = before.rfind(['|', ';', '(', '{']).map_or(0, |i| i + 1);
    let element = text[start..]
        .split(['|', ';', ')', '}'])
        .next()
        .unwrap_or_default()
        .trim()
        .trim_start_matches('^');
    (!element.is_empty()).then(|| element.to_string())
}

/// The longest Nushell command name that `element` starts with
/// (`str replace 'a' 'b'` → `str replace`).
pub(crate) fn command_name(engine: &EngineState, element: &str) -> Option<String> {
    let words: Vec<&str> = element.split_whitespace().take(3).collect();
    (1..=words.len()).rev().find_map(|n| {
        let name = words[..n].join(" ");
        engine.find_decl(name.as_bytes(), &[]).map(|_| name)
    })
}

/// The subcommands of `name` (one word more, `sys cpu` for `sys`) with the
/// first sentence of each one's description; empty when `name` runs on
/// its own (it has a signature of its own beyond printing its help).
fn subcommands(engine: &EngineState, name: &str) -> Vec<(String, String)> {
    let Some(id) = engine.find_decl(name.as_bytes(), &[]) else {
        return Vec::new();
    };
    let decl = engine.get_decl(id);
    // A family command's own run only prints its help; `str`, `sys`,
    // `split` have no positional arguments of their own.
    let signature = decl.signature();
    let family = signature.required_positional.is_empty()
        && signature.optional_positional.is_empty()
        && signature.rest_positional.is_none();
    if !family {
        return Vec::new();
    }
    let prefix = format!("{name} ");
    engine
        .get_decls_sorted(false)
        .into_iter()
        .filter_map(|(sub, id)| Some((String::from_utf8(sub).ok()?, id)))
        .filter(|(sub, _)| {
            sub.strip_prefix(&prefix)
                .is_some_and(|rest| !rest.contains(' '))
        })
        .map(|(sub, id)| {
            let description = engine.get_decl(id).description().to_string();
            let first = description
                .split_once(". ")
                .map_or(description.as_str(), |(first, _)| first)
                .trim_end_matches('.')
                .to_string();
            (sub, first)
        })
        .take(MAX_SUBCOMMANDS)
        .collect()
}

/// How many subcommands a hint lists (`str` has dozens).
const MAX_SUBCOMMANDS: usize = 12;

/// `help`'s text without its examples, and at most a dozen lines.
fn short_usage(help: &str) -> String {
    let usage: Vec<&str> = help
        .lines()
        .take_while(|line| !line.starts_with("examples:"))
        .take(12)
        .collect();
    usage.join("\n")
}

#[cfg(test)]
mod tests {
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
    fn a_request_for_each_file_on_its_own_is_told_from_one_over_all() {
        for request in [
            "How many ERROR lines are in each .log file under logs/?",
            "count the lines per file",
            "the total of every CSV file here",
        ] {
            assert!(asks_per_file(request), "{request}");
        }
        for request in [
            "how many lines do the logs have in all?",
            "which files are empty?",
            "each line of notes.txt",
        ] {
            assert!(!asks_per_file(request), "{request}");
        }
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
        let hint = usage_hint(engine.state(), "ls | first; ps aux | where", &diagnostic)
            .unwrap_or_default();
        assert!(hint.starts_with("ps: "), "{hint}");
        assert!(hint.contains("takes no arguments"), "{hint}");
        assert!(!hint.contains("examples:"), "{hint}");
    }

    #[test]
    fn an_argument_to_a_family_of_subcommands_gets_the_subcommands() {
        let engine = Engine::standard();
        let at = |column: usize| failed("nu::parser::extra_positional", column);
        let hint = usage_hint(engine.state(), "sys tcp | where state == 'LISTEN'", &at(5))
            .unwrap_or_default();
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
        let hint =
            usage_hint(engine.state(), "lines | split ' ' | first", &at(15)).unwrap_or_default();
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
    fn a_request_for_which_ones_is_told_from_one_for_how_many() {
        for which in [
            "Which files in this directory have not been modified in 30 days?",
            "Find the empty files here",
            "list the processes named nu",
        ] {
            assert!(asks_which_ones(which), "{which}");
        }
        for how_many in [
            "How many files are empty? List them.",
            "Count the lines of every log",
            "Find the total size of the csv files",
            "Free up disk space",
        ] {
            assert!(!asks_which_ones(how_many), "{how_many}");
        }
    }

    #[test]
    fn one_folder_listed_when_subfolders_were_asked_for_is_pointed_out() {
        assert!(asks_for_subfolders(
            "List every file here and in its Subfolders"
        ));
        assert!(asks_for_subfolders("search recursively for logs"));
        assert!(!asks_for_subfolders("list the folders here"));
        let dir = tempfile::tempdir().unwrap();
        let listed = "ls | where size > 10kb";
        assert_eq!(subfolders_hint(listed, dir.path()), None, "no subfolders");
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let hint = subfolders_hint(listed, dir.path()).unwrap_or_default();
        assert!(hint.contains("`ls **/* | where size > 10kb`"), "{hint}");
        let hint = subfolders_hint("ls *.bak", dir.path()).unwrap_or_default();
        assert!(hint.contains("`ls **/*.bak`"), "{hint}");
        assert_eq!(
            over_subfolders("ls -a *.bak | each { rm $in.name }", dir.path()).as_deref(),
            Some("ls -a **/*.bak | each { rm $in.name }")
        );
        assert_eq!(
            over_subfolders("ls . | where size > 1kb", dir.path()).as_deref(),
            Some("ls **/* | where size > 1kb")
        );
        // A name or a variable is a folder or a file, not a pattern.
        for named in ["ls sub | length", "ls $env.PWD", "ls ..", "ls ($dir)"] {
            assert_eq!(over_subfolders(named, dir.path()), None, "{named}");
        }
        assert_eq!(
            subfolders_hint("ls **/* | where size > 10kb", dir.path()),
            None
        );
        // "Which subfolder is largest" is about this folder's entries.
        for about_folders in ["ls --du | sort-by size", "ls | where type == 'dir'"] {
            assert_eq!(subfolders_hint(about_folders, dir.path()), None);
        }
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
        let hint = per_group_hint(
            "open orders.csv | get region, price | group-by region | math sum(price)",
        )
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
}
