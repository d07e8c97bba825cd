//! The habits small models bring from bash, SQL or Python, as one table:
//! a name that is neither a Nushell command nor a program on PATH is an
//! error naming the Nushell form (`count` → `length`), never a question
//! to the user about running an unknown program; `^name` of a Nushell
//! command is the command.

use nu_protocol::engine::EngineState;

/// The Nushell form of names small models bring from bash, SQL or Python.
pub(super) const NUSHELL_FORMS: &[(&str, &str)] = &[
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
pub(super) fn closest<'a>(commands: &'a [String], name: &str) -> Option<&'a str> {
    let limit = (name.chars().count() / 3).max(1);
    commands
        .iter()
        .map(|c| (nu_protocol::levenshtein_distance(c, name), c))
        .filter(|(distance, _)| *distance <= limit)
        .min_by_key(|(distance, c)| (*distance, c.len()))
        .map(|(_, c)| c.as_str())
}
