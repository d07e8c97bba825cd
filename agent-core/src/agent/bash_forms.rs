//! A pipeline a model wrote as bash, made runnable: the exact Nushell form
//! of common bash commands inside a Nushell pipeline (`ps aux | grep x |
//! select pid` → `ps | find x | select pid`), or a plain POSIX pipeline of
//! programs run as those programs (`du -sh * | sort -h` → `^du -sh * |
//! ^sort -h`). Nothing here decides what may run: the result goes through
//! the policy as any pipeline does, each program judged by its grammar and
//! sandboxed as any external.

use nu_protocol::engine::EngineState;

use super::{habits, pipeline_text};
use crate::policy::shell_words;

/// find(1)'s tests and actions, none of them a flag of Nushell's `find`.
pub(crate) const FIND_PREDICATES: &[&str] = &[
    "-name",
    "-iname",
    "-type",
    "-path",
    "-ipath",
    "-wholename",
    "-regex",
    "-iregex",
    "-maxdepth",
    "-mindepth",
    "-size",
    "-mtime",
    "-mmin",
    "-atime",
    "-ctime",
    "-newer",
    "-perm",
    "-user",
    "-group",
    "-empty",
    "-print",
    "-print0",
    "-printf",
    "-ls",
    "-exec",
    "-execdir",
    "-delete",
    "-not",
    "-prune",
    "-links",
    "-xdev",
];

/// One element of a pipeline as bash reads it: a single command of plain
/// words (no closure, subexpression, variable or redirection), with where
/// it stands in its pipeline. What the rules of `rules::bash_forms` read.
pub(crate) struct Element<'e> {
    pub engine: &'e EngineState,
    /// The command's name.
    pub head: String,
    /// Its words after the name.
    pub args: Vec<String>,
    /// Whether each word (the name first) was quoted.
    pub quoted: Vec<bool>,
    /// It is the pipeline's first element.
    pub first: bool,
    /// The element before it calls a program (`^git log | head`).
    pub after_program: bool,
}

impl<'e> Element<'e> {
    /// `text` as an element, where it is one command of plain words.
    pub fn read(
        engine: &'e EngineState,
        text: &str,
        first: bool,
        after_program: bool,
    ) -> Option<Element<'e>> {
        // Only plain words: closures, subexpressions and variables stay.
        if text.contains(['{', '(', '[', '$', '`']) {
            return None;
        }
        let split = shell_words::split(text);
        let [command] = split.commands.as_slice() else {
            return None;
        };
        if split.opaque || !command.writes.is_empty() {
            return None;
        }
        let (head, args) = command.words.split_first()?;
        Some(Element {
            engine,
            head: head.clone(),
            args: args.to_vec(),
            quoted: command.quoted.clone(),
            first,
            after_program,
        })
    }

    /// Its flags (`-l`, `--lines`).
    pub fn flags(&self) -> Vec<&str> {
        self.args
            .iter()
            .map(String::as_str)
            .filter(|a| is_flag(a))
            .collect()
    }

    /// Its words that are no flags.
    pub fn operands(&self) -> Vec<&str> {
        self.args
            .iter()
            .map(String::as_str)
            .filter(|a| !is_flag(a))
            .collect()
    }

    /// It has the flag `-short` (alone or in a cluster) or `--long`.
    pub fn has(&self, short: char, long: &str) -> bool {
        self.flags()
            .iter()
            .any(|f| *f == format!("--{long}") || (!f.starts_with("--") && f[1..].contains(short)))
    }

    /// The count it gives (`-n 5`, `-5`, `-n5`), or `default`.
    pub fn count(&self, default: usize) -> usize {
        self.args
            .iter()
            .filter_map(|a| {
                a.trim_start_matches("-n")
                    .trim_start_matches('-')
                    .parse()
                    .ok()
            })
            .next()
            .unwrap_or(default)
    }

    /// Its operands are all numbers (`head -n 5`'s `5`), or none.
    pub fn only_numbers(&self) -> bool {
        self.operands()
            .iter()
            .all(|o| o.trim_start_matches('-').parse::<usize>().is_ok())
    }

    /// Word `index` of its arguments as an external's argument in nu.
    pub fn word(&self, index: usize) -> String {
        // Quoted where the split lost track (it never does): never a
        // slice out of range.
        let quoted = self.quoted.get(index + 1).copied().unwrap_or(true);
        nu_word(&self.args[index], quoted)
    }
}

/// The order a `ps` call asks for, as a `sort-by` of Nushell's `ps`
/// table: bash's `--sort=-%mem` / `--sort rss` and the invented
/// `--sort-by mem --reverse`. `None` when it asks for none (or for a key
/// the table does not have).
pub(crate) fn ps_sort(args: &[String]) -> Option<String> {
    let at = args
        .iter()
        .position(|a| a == "--sort" || a == "--sort-by" || a.starts_with("--sort="))?;
    let key = match args[at].split_once('=') {
        Some((_, key)) => key,
        None => args.get(at + 1)?.as_str(),
    };
    let descending = key.starts_with('-') || args.iter().any(|a| a == "--reverse" || a == "-r");
    let column = match key.trim_start_matches(['-', '+']).trim_start_matches('%') {
        "mem" | "rss" | "rsz" | "memory" => "mem",
        "cpu" | "pcpu" => "cpu",
        "vsz" | "virtual" => "virtual",
        "pid" => "pid",
        "name" | "comm" | "cmd" => "name",
        _ => return None,
    };
    let reverse = if descending { " --reverse" } else { "" };
    Some(format!("sort-by {column}{reverse}"))
}

/// Whether `pipeline` pipes a Nushell command's value into a program
/// named bare whose name is another language's word for a Nushell command
/// (`ls **/*.csv | get size | sum`: coreutils' `sum` would checksum the
/// table's text): the Nushell command is what was meant (see
/// `as_nushell`). A program the model marked with `^` is taken as meant,
/// and text tools (`grep`, `wc`, `head`) are left alone: a Nushell value
/// may be text they read rightly — but for a `grep` between two Nushell
/// commands whose next one reads columns (`ps | grep x | where pid > 1`):
/// the columns are gone in grep's text, so the rows were meant (`find`).
pub fn feeds_a_table_to_a_program(engine: &EngineState, pipeline: &str) -> bool {
    let Some(elements) = elements(pipeline) else {
        return false;
    };
    elements.windows(2).enumerate().any(|(at, pair)| {
        let (before, element) = (pair[0].trim(), pair[1].trim());
        let head = element.split_whitespace().next().unwrap_or_default();
        let renamed = habits::renamed_command(head).is_some();
        let rows_meant = matches!(head, "grep" | "egrep")
            && elements
                .get(at + 2)
                .is_some_and(|after| reads_columns(engine, after));
        (renamed || rows_meant)
            && is_program(engine, element)
            && !before.starts_with('^')
            && !is_program(engine, before)
    })
}

/// Commands that read a table's columns by name.
const COLUMN_READERS: &[&str] = &[
    "where", "select", "get", "sort-by", "reject", "update", "insert", "group-by",
];

/// `element` is a Nushell command that reads columns (`where pid > 1`,
/// `select pid`), not a program of the same name.
fn reads_columns(engine: &EngineState, element: &str) -> bool {
    let head = element.split_whitespace().next().unwrap_or_default();
    COLUMN_READERS.contains(&head) && !is_program(engine, element)
}

/// `element` calls a program, not a Nushell command (nor a value).
pub(crate) fn is_program(engine: &EngineState, element: &str) -> bool {
    let head = element.split_whitespace().next().unwrap_or_default();
    head.starts_with(|c: char| c.is_ascii_alphabetic())
        && engine.find_decl(head.as_bytes(), &[]).is_none()
}

/// `head args` with the flags `head`'s signature does not have left out;
/// `None` when `head` is not a Nushell command or all its flags are known.
pub(crate) fn without_unknown_flags(
    engine: &EngineState,
    head: &str,
    args: &[String],
) -> Option<String> {
    let decl = engine.find_decl(head.as_bytes(), &[])?;
    let signature = engine.get_decl(decl).signature();
    let known = |flag: &str| {
        if let Some(long) = flag.strip_prefix("--") {
            let long = long.split('=').next().unwrap_or_default();
            signature.named.iter().any(|f| f.long == long)
        } else {
            flag[1..]
                .chars()
                .all(|c| signature.named.iter().any(|f| f.short == Some(c)))
        }
    };
    let mut changed = false;
    let mut words = vec![head.to_string()];
    for arg in args {
        if !is_flag(arg) || (known(arg) && !is_bash_cluster_with_h(arg)) {
            words.push(nu_string_or_bare(arg));
            continue;
        }
        changed = true;
        // A short-flag cluster keeps the letters the command has, but
        // for `h` (bash's human-readable; Nushell's help).
        if !arg.starts_with("--") {
            let letters: String = arg[1..]
                .chars()
                .filter(|c| *c != 'h' && known(&format!("-{c}")))
                .collect();
            if !letters.is_empty() {
                words.push(format!("-{letters}"));
            }
        }
    }
    changed.then(|| words.join(" "))
}

/// A cluster of short flags with `h` in it (`-lh`, `-sh`): in bash that
/// asks for human-readable sizes; given to a Nushell command it would ask
/// for its help text instead of running it.
fn is_bash_cluster_with_h(word: &str) -> bool {
    !word.starts_with("--") && word.len() > 2 && is_flag(word) && word[1..].contains('h')
}

/// Whether `pipeline` gives a Nushell command a bash flag cluster holding
/// `h` (`ls -lh`): it parses, but would print help (see `as_nushell`).
pub fn asks_help_by_habit(engine: &EngineState, pipeline: &str) -> bool {
    let Some(elements) = elements(pipeline) else {
        return false;
    };
    elements.iter().any(|element| {
        let words: Vec<&str> = element.split_whitespace().collect();
        words.first().is_some_and(|head| {
            !head.starts_with('^') && engine.find_decl(head.as_bytes(), &[]).is_some()
        }) && words[1..].iter().any(|w| is_bash_cluster_with_h(w))
    })
}

/// A flag (`-l`, `--long`), not a negative number.
fn is_flag(word: &str) -> bool {
    word.len() > 1 && word.starts_with('-') && !word[1..].starts_with(|c: char| c.is_ascii_digit())
}

/// `text` as a nu string literal.
pub(crate) fn nu_string(text: &str) -> String {
    nu_word(text, true)
}

/// `word` bare where nu reads it as written, quoted otherwise.
pub(crate) fn nu_string_or_bare(word: &str) -> String {
    nu_word(word, false)
}

/// The elements of a pipeline split at its top-level pipes (Nushell's
/// lexer's: not inside quotes, brackets or closures); `None` for more
/// than one pipeline (`;`, a new line) or an empty one.
pub(crate) fn elements(pipeline: &str) -> Option<Vec<String>> {
    use nu_parser::TokenContents;
    let (tokens, _) = nu_parser::lex(pipeline.as_bytes(), 0, &[], &[], false);
    let more_than_one = tokens.iter().any(|token| {
        matches!(
            token.contents,
            TokenContents::Semicolon | TokenContents::Eol
        )
    });
    if more_than_one {
        return None;
    }
    let elements = pipeline_text::top_level_elements(pipeline);
    (elements.len() > 1 || !elements[0].trim().is_empty()).then_some(elements)
}

/// `pipeline` as external programs, where it is a plain POSIX pipeline
/// (words, quotes, `|`, output thrown to `/dev/null`) whose every command
/// is a program `finds_program` finds: `ps aux | grep 'x y'` →
/// `^ps aux | ^grep 'x y'`. Globs the shell would expand stay bare (nu
/// expands them too); quoted words stay quoted. `None` for anything else
/// (substitutions, `&&`, redirections to files, variables, assignments),
/// and for a command whose first two words name a Nushell subcommand
/// (`split row '.'`, `str replace a b`: Nushell with a mistake elsewhere,
/// never the program `split` or `str`).
pub fn as_programs(
    engine: &EngineState,
    pipeline: &str,
    finds_program: impl Fn(&str) -> bool,
) -> Option<String> {
    let split = shell_words::split(pipeline);
    if split.opaque || split.commands.is_empty() {
        return None;
    }
    let mut elements = Vec::new();
    for (index, command) in split.commands.iter().enumerate() {
        if command.piped_into != (index > 0)
            || command.writes.iter().any(|w| w != "/dev/null")
            || command.words.len() != command.quoted.len()
        {
            return None;
        }
        let (program, args) = command.words.split_first()?;
        if program.contains('=') || !finds_program(program) {
            return None;
        }
        let subcommand = args.first().map(|word| format!("{program} {word}"));
        if subcommand.is_some_and(|name| engine.find_decl(name.as_bytes(), &[]).is_some()) {
            return None;
        }
        let mut element = format!("^{program}");
        for (arg, quoted) in args.iter().zip(&command.quoted[1..]) {
            element.push(' ');
            element.push_str(&nu_word(arg, *quoted));
        }
        elements.push(element);
    }
    Some(elements.join(" | "))
}

/// `word` as an argument of an external call in nu: bare where the shell
/// would have left it bare and nu reads it the same, quoted otherwise.
fn nu_word(word: &str, quoted: bool) -> String {
    let bare = !quoted
        && !word.is_empty()
        && !word.starts_with('#')
        && word
            .chars()
            .all(|c| c.is_alphanumeric() || "_-./*?~+=:,@%^".contains(c));
    if bare {
        word.to_string()
    } else if !word.contains('\'') {
        format!("'{word}'")
    } else {
        let mut hashes = String::from("#");
        while word.contains(&format!("'{hashes}")) {
            hashes.push('#');
        }
        format!("r{hashes}'{word}'{hashes}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shell::Engine;

    fn on_path(program: &str) -> bool {
        ["ps", "grep", "du", "ls", "find", "wc", "cut"].contains(&program)
    }

    #[test]
    fn a_posix_pipeline_of_programs_runs_as_those_programs() {
        let engine = Engine::standard().state();
        assert_eq!(
            as_programs(engine, "ps aux | grep 'my server'", on_path).as_deref(),
            Some("^ps aux | ^grep 'my server'")
        );
        assert_eq!(
            as_programs(engine, "find . -name '*.rs' 2>/dev/null | wc -l", on_path).as_deref(),
            Some("^find . -name '*.rs' | ^wc -l")
        );
        assert_eq!(
            as_programs(engine, "du -sh *", on_path).as_deref(),
            Some("^du -sh *")
        );
        assert_eq!(
            as_programs(engine, r#"grep "it's" f"#, on_path).as_deref(),
            Some("^grep r#'it's'# f")
        );
        // Not plain pipelines, or programs that are not there.
        assert_eq!(as_programs(engine, "ps aux && rm x", on_path), None);
        assert_eq!(as_programs(engine, "ls > out.txt", on_path), None);
        assert_eq!(as_programs(engine, "grep $(whoami) f", on_path), None);
        assert_eq!(as_programs(engine, "ls | frobnicate", on_path), None);
        assert_eq!(as_programs(engine, "X=1 ls", on_path), None);
        // Nushell subcommands with a mistake elsewhere are not programs,
        // even where a program has the first word's name.
        let also_nushell = |p: &str| on_path(p) || ["split", "last"].contains(&p);
        assert_eq!(
            as_programs(engine, "ls | split row '.' | last 1", also_nushell),
            None
        );
    }

    #[test]
    fn bash_programs_after_nushell_commands_are_told_apart() {
        let engine = Engine::standard();
        assert!(asks_help_by_habit(engine.state(), "ls -lh | first 3"));
        // A Nushell value piped into a bare program is read as text.
        let feeds = |p: &str| feeds_a_table_to_a_program(engine.state(), p);
        assert!(feeds("ls **/*.csv | get size | sum"));
        assert!(feeds("ls | get size | count"));
        assert!(!feeds("open --raw a.log | wc -l"), "a text tool");
        // grep's text has no columns for the next command to read.
        assert!(feeds("ps | grep ticker | where pid != 1 | first 1"));
        assert!(!feeds("ps | grep ticker | first 1"), "text may be meant");
        assert!(
            !feeds("^ps | grep ticker | where pid != 1"),
            "marked as meant"
        );
        assert!(!feeds("^cksum a | sum"), "text into a program");
        assert!(!feeds("ls | get size | ^sum"), "marked as meant");
        assert!(!feeds("ls | get size | math sum"));
        assert!(!feeds("sum a.txt"));
        assert!(asks_help_by_habit(engine.state(), "ls -ah"));
        assert!(
            !asks_help_by_habit(engine.state(), "ls -h"),
            "help asked for"
        );
        assert!(!asks_help_by_habit(engine.state(), "^du -sh x | lines"));
        assert!(!asks_help_by_habit(engine.state(), "ls -la"));
    }
}
