//! The habits small models bring from bash, SQL or Python, as one table:
//! a name that is neither a Nushell command nor a program on PATH is an
//! error naming the Nushell form (`count` → `length`), never a question
//! to the user about running an unknown program; a name the table lacks
//! gets the commands whose search terms name it (the engine's own word:
//! `push` → `append`), else the closest command name; `^name` of a
//! Nushell command is the command.

use nu_protocol::engine::EngineState;

/// A name small models bring from bash, SQL or Python, with what
/// Nushell says instead; where the name is one Nushell command word for
/// word (`avg` is `math avg`), that command too.
pub(super) struct Habit {
    pub name: &'static str,
    /// The Nushell form, as the model is told it.
    pub form: &'static str,
    /// The command the name is exactly, which a call of it runs as (see
    /// `bash_forms`); `None` where the form is no rename.
    pub command: Option<&'static str>,
}

/// A habit the model is told the form of.
const fn told(name: &'static str, form: &'static str) -> Habit {
    Habit {
        name,
        form,
        command: None,
    }
}

/// A habit that is another name of `command`.
const fn renamed(name: &'static str, command: &'static str, form: &'static str) -> Habit {
    Habit {
        name,
        form,
        command: Some(command),
    }
}

/// The habits, one row each: the one table of what small models write
/// for Nushell's commands.
pub(super) const HABITS: &[Habit] = &[
    renamed(
        "count",
        "length",
        "`length` counts the rows of a table or the items of a list",
    ),
    renamed("avg", "math avg", "`math avg`"),
    renamed("average", "math avg", "`math avg`"),
    renamed("mean", "math avg", "`math avg`"),
    renamed("sum", "math sum", "`math sum`"),
    renamed("max", "math max", "`math max`"),
    renamed("min", "math min", "`math min`"),
    told("round", "`math round`"),
    renamed(
        "delete",
        "rm",
        "`rm path`; for a table of files: `each { rm $in.name }`",
    ),
    renamed(
        "remove",
        "rm",
        "`rm path`; for a table of files: `each { rm $in.name }`",
    ),
    told("del", "`rm path`"),
    told("unlink", "`rm path`"),
    told("rename", "`mv old new`"),
    told("move", "`mv old new`"),
    told("copy", "`cp from to`"),
    told("set", "`let name = value`"),
    told("export", "`$env.NAME = 'value'`"),
    told("echo", "the value itself (`'text'`), or `print`"),
    told(
        "nu",
        "the pipeline itself: this tool runs Nushell already (`nu -c 'ls'` is `ls`)",
    ),
    told("printf", "a string `$\"($x) items\"`"),
    told(
        "cat",
        "`open file` (a table for .csv .tsv .json .toml .yaml) or `open --raw file` (text)",
    ),
    told(
        "grep",
        "`open --raw file | lines | where $it =~ 'text'`, or `where column =~ 'text'` on a table",
    ),
    told("head", "`first N`"),
    told("tail", "`last N`"),
    told("wc", "`lines | length` (or `length` on a table)"),
    told(
        "awk",
        "`split column ' '` then `get column1`, or `get column` on a table",
    ),
    told(
        "cut",
        "`split column ','` then `get column1`, or `get column` on a table",
    ),
    told("sed", "`str replace 'old' 'new'`"),
    told("tr", "`str replace --all 'a' 'b'`, `str downcase`"),
    told("xargs", "`each { |it| ... }`"),
    renamed("filter", "where", "`where condition`"),
    told("map", "`each { |it| ... }`"),
    renamed("foreach", "each", "`each { |it| ... }`"),
    told("jq", "`open file.json` or `from json`, then `get field`"),
    told("stat", "`ls -l path`"),
    told("basename", "`path basename`"),
    told("dirname", "`path dirname`"),
    told("realpath", "`path expand`"),
    told(
        "netstat",
        "`^ss -tlnp` (text; `detect columns` makes it a table)",
    ),
    told(
        "ps",
        "Nushell's `ps` takes no arguments and gives a table (pid, name, cpu, mem): `ps | where name =~ 'x' | select pid name mem`",
    ),
    told(
        "du",
        "Nushell's `du path` gives a table (path, apparent, physical); `ls | where type == dir` lists folders",
    ),
    told("df", "`sys disks`"),
    told("free", "`sys mem`"),
    told("nproc", "`sys cpu | length`"),
    told(
        "ls",
        "Nushell's `ls` gives a table (name, type, size, modified): filter it with `where`, e.g. `ls | where modified > ((date now) - 2hr)`, `ls **/* | where type == file`",
    ),
    told("find", "`ls **/* | where name =~ 'x'` or `glob '**/*.rs'`"),
    told("sort", "`sort-by column` (`--reverse` for largest first)"),
    told("uniq", "`uniq`, or `uniq --count` for counts"),
    told(
        "split-by",
        "`split row ' '` (text to a list of words), `split column ' '` (lines to a table: column1, column2…)",
    ),
    told("date", "`date now`"),
    told("test", "`'path' | path exists`"),
    told("nuon", "`to nuon` / `from nuon`"),
    told(
        "json",
        "`to json` (a value to JSON text; `save -f f.json` writes it) / `from json` (text to a value)",
    ),
    told(
        "csv",
        "`to csv` (a table to CSV text; `save -f f.csv` writes it) / `from csv`",
    ),
    told("yaml", "`to yaml` / `from yaml`"),
    told("toml", "`to toml` / `from toml`"),
];

/// The names small models bring from other languages that have a Nushell
/// form here (`count`, `grep`, `delete`): the pipeline grammar lets them
/// be written, so that the loop can translate them or name their form,
/// instead of the grammar forcing the word into some other command
/// (`count` into `count-14`).
pub fn habit_names() -> impl Iterator<Item = &'static str> {
    HABITS.iter().map(|habit| habit.name)
}

/// The Nushell form for `name`, where it is a known habit.
pub fn nushell_form(name: &str) -> Option<&'static str> {
    HABITS
        .iter()
        .find(|habit| habit.name == name)
        .map(|habit| habit.form)
}

/// The Nushell command `name` is another name of (`avg` → `math avg`).
pub(super) fn renamed_command(name: &str) -> Option<&'static str> {
    HABITS
        .iter()
        .find(|habit| habit.name == name)
        .and_then(|habit| habit.command)
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
        let named_by_engine = commands_named_by(engine, name);
        match nushell_form(name) {
            Some(form) => text.push_str(&format!("; in Nushell: {form}.")),
            None if !named_by_engine.is_empty() => text.push_str(&format!(
                "; the Nushell commands for it: `{}`.",
                named_by_engine.join("`, `")
            )),
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

/// What the model is told of programs a bash script runs that are not on
/// this machine: the script's own way where there is a known one (the
/// `sh` tool is the one to call again, not `nu`).
pub fn unknown_programs_in_script_message(names: &[String]) -> String {
    let mut text = String::from("Nothing ran.");
    for name in names {
        text.push_str(&format!("\n`{name}` is not a program on this machine"));
        match BASH_FORMS.iter().find(|(program, _)| program == name) {
            Some((_, form)) => text.push_str(&format!("; in bash: {form}.")),
            None => text.push_str(
                "; do it with the programs a script has here (`find`, `mv`, `sed`, `awk`).",
            ),
        }
    }
    text.push_str("\nFix the script and call `sh` again.");
    text
}

/// Programs a model reaches for that a plain machine may lack, and the
/// bash that does their work.
const BASH_FORMS: &[(&str, &str)] = &[
    (
        "rename",
        "a loop of `mv`: `for f in DIR/*; do mv \"$f\" \"${f//from/to}\"; done` (`find DIR -type f` for a tree)",
    ),
    ("tree", "`find DIR` lists a tree"),
    ("python", "`python3`"),
];

/// The engine's own word for a habit the table lacks: the commands (at
/// most three) whose search terms name `name` (`push` → `append`).
pub(super) fn commands_named_by(engine: &EngineState, name: &str) -> Vec<String> {
    engine
        .get_decls_sorted(false)
        .into_iter()
        .filter(|(_, id)| {
            engine
                .get_decl(*id)
                .search_terms()
                .iter()
                .any(|term| term.eq_ignore_ascii_case(name))
        })
        .filter_map(|(command, _)| String::from_utf8(command).ok())
        .take(3)
        .collect()
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
