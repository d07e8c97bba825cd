//! A pipeline a model wrote as bash, made runnable: the exact Nushell form
//! of common bash commands inside a Nushell pipeline (`ps aux | grep x |
//! select pid` → `ps | find x | select pid`), or a plain POSIX pipeline of
//! programs run as those programs (`du -sh * | sort -h` → `^du -sh * |
//! ^sort -h`). Nothing here decides what may run: the result goes through
//! the policy as any pipeline does, each program judged by its grammar and
//! sandboxed as any external.

use nu_protocol::engine::EngineState;

use crate::policy::shell_words;

/// Names of other languages with an exact Nushell command.
const RENAMED: &[(&str, &str)] = &[
    ("count", "length"),
    ("avg", "math avg"),
    ("average", "math avg"),
    ("mean", "math avg"),
    ("sum", "math sum"),
    ("max", "math max"),
    ("min", "math min"),
    ("delete", "rm"),
    ("remove", "rm"),
    ("filter", "where"),
    ("foreach", "each"),
];

/// find(1)'s tests and actions, none of them a flag of Nushell's `find`.
const FIND_PREDICATES: &[&str] = &[
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

/// `pipeline` with the bash commands in it written as Nushell, where the
/// translation is exact: `ps ARGS` → `ps`, `grep [-i] [-v] X` on a
/// pipeline's output → `find`, `wc -l` → `length`, `head -n N` → `first
/// N`, `tail` → `last`, `cat F` → `open F`, `sort [-r]`, `uniq [-c]`,
/// `du -sh P` → `du P`, `df` → `sys disks`, `find` with find(1)'s
/// predicates → `^find … | lines`, names of other languages
/// (`count` → `length`), and flags a Nushell command does not have
/// dropped. `None` when nothing changed.
pub fn as_nushell(engine: &EngineState, pipeline: &str) -> Option<String> {
    let elements = split_pipeline(pipeline)?;
    let mut out: Vec<String> = Vec::new();
    let mut changed = false;
    for (index, element) in elements.iter().enumerate() {
        let element = element.trim();
        let previous_is_program = index > 0 && elements[index - 1].trim().starts_with('^');
        match translate(engine, element, index == 0, previous_is_program) {
            Some(nu) => {
                changed |= nu != element;
                out.push(nu);
            }
            // A program left as it is would read a table as text.
            None if index > 0 && is_program(engine, element) => return None,
            None => out.push(element.to_string()),
        }
    }
    changed.then(|| out.join(" | "))
}

/// One element, translated; `None` to leave it as it is.
fn translate(
    engine: &EngineState,
    element: &str,
    first: bool,
    after_program: bool,
) -> Option<String> {
    // Only plain words: closures, subexpressions and variables stay.
    if element.contains(['{', '(', '[', '$', '`']) {
        return None;
    }
    let split = shell_words::split(element);
    let [command] = split.commands.as_slice() else {
        return None;
    };
    if split.opaque || !command.writes.is_empty() {
        return None;
    }
    let (head, args) = command.words.split_first()?;
    let flags: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .filter(|a| is_flag(a))
        .collect();
    let operands: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .filter(|a| !is_flag(a))
        .collect();
    let has = |short: char, long: &str| {
        flags
            .iter()
            .any(|f| *f == format!("--{long}") || (!f.starts_with("--") && f[1..].contains(short)))
    };
    let count = |default: usize| {
        // `-n 5`, `-5`, `-n5`.
        args.iter()
            .filter_map(|a| {
                a.trim_start_matches("-n")
                    .trim_start_matches('-')
                    .parse()
                    .ok()
            })
            .next()
            .unwrap_or(default)
    };
    let quote = |word: &str| nu_string(word);
    let only_numbers = operands
        .iter()
        .all(|o| o.trim_start_matches('-').parse::<usize>().is_ok());
    let translated = match head.as_str() {
        "ps" => match ps_sort(args) {
            Some(sort) => format!("ps | {sort}"),
            None => "ps".to_string(),
        },
        "grep" | "egrep" if !first && operands.len() == 1 => {
            let mut find = String::from("find");
            if has('i', "ignore-case") {
                find.push_str(" -i");
            }
            if has('v', "invert-match") {
                find.push_str(" -v");
            }
            let counted = if has('c', "count") { " | length" } else { "" };
            let lines = if after_program { "lines | " } else { "" };
            format!("{lines}{find} {}{counted}", quote(operands[0]))
        }
        "grep" | "egrep" if first && operands.len() == 2 => {
            let pattern = if has('i', "ignore-case") {
                format!("(?i){}", operands[0])
            } else {
                operands[0].to_string()
            };
            let op = if has('v', "invert-match") { "!~" } else { "=~" };
            let counted = if has('c', "count") { " | length" } else { "" };
            format!(
                "open --raw {} | lines | where $it {op} {}{counted}",
                quote(operands[1]),
                quote(&pattern)
            )
        }
        "wc" if !first && has('l', "lines") => if after_program {
            "lines | length"
        } else {
            "length"
        }
        .to_string(),
        "head" if !first && only_numbers => format!("first {}", count(10)),
        "tail" if !first && only_numbers => format!("last {}", count(10)),
        "cat" if first && operands.len() == 1 && flags.is_empty() => {
            format!("open {}", quote(operands[0]))
        }
        "sort" if !first && operands.is_empty() => if has('r', "reverse") {
            "sort --reverse"
        } else {
            "sort"
        }
        .to_string(),
        "uniq" if !first && operands.is_empty() => if has('c', "count") {
            "uniq --count"
        } else {
            "uniq"
        }
        .to_string(),
        "du" if first && !flags.is_empty() => {
            let paths: Vec<String> = operands.iter().map(|p| nu_string_or_bare(p)).collect();
            format!("du {}", paths.join(" ")).trim_end().to_string()
        }
        "df" if first && operands.is_empty() => "sys disks".to_string(),
        // find(1)'s predicates are no flags of Nushell's `find` (a filter
        // of its input): the element is the program's, its paths a list.
        "find" if args.iter().any(|a| FIND_PREDICATES.contains(&a.as_str())) => {
            // Quoted where the split lost track (it never does): never a
            // slice out of range.
            let quoted = |i: usize| command.quoted.get(i + 1).copied().unwrap_or(true);
            let words: Vec<String> = args
                .iter()
                .enumerate()
                .map(|(i, arg)| nu_word(arg, quoted(i)))
                .collect();
            format!("^find {} | lines", words.join(" "))
        }
        name => match RENAMED.iter().find(|(from, _)| *from == name) {
            Some((_, to)) if engine.find_decl(name.as_bytes(), &[]).is_none() => {
                let mut words = vec![to.to_string()];
                words.extend(args.iter().map(|a| quote(a)));
                words.join(" ")
            }
            _ => without_unknown_flags(engine, head, args)?,
        },
    };
    Some(translated)
}

/// The order a `ps` call asks for, as a `sort-by` of Nushell's `ps`
/// table: bash's `--sort=-%mem` / `--sort rss` and the invented
/// `--sort-by mem --reverse`. `None` when it asks for none (or for a key
/// the table does not have).
fn ps_sort(args: &[String]) -> Option<String> {
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
    let Some(elements) = split_pipeline(pipeline) else {
        return false;
    };
    elements.windows(2).enumerate().any(|(at, pair)| {
        let (before, element) = (pair[0].trim(), pair[1].trim());
        let head = element.split_whitespace().next().unwrap_or_default();
        let renamed = RENAMED.iter().any(|(from, _)| *from == head);
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
fn is_program(engine: &EngineState, element: &str) -> bool {
    let head = element.split_whitespace().next().unwrap_or_default();
    head.starts_with(|c: char| c.is_ascii_alphabetic())
        && engine.find_decl(head.as_bytes(), &[]).is_none()
}

/// `head args` with the flags `head`'s signature does not have left out;
/// `None` when `head` is not a Nushell command or all its flags are known.
fn without_unknown_flags(engine: &EngineState, head: &str, args: &[String]) -> Option<String> {
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
    let Some(elements) = split_pipeline(pipeline) else {
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
fn nu_string(text: &str) -> String {
    nu_word(text, true)
}

/// `word` bare where nu reads it as written, quoted otherwise.
fn nu_string_or_bare(word: &str) -> String {
    nu_word(word, false)
}

/// The elements of a pipeline split at its top-level `|` (not inside
/// quotes, brackets or closures); `None` for a pipeline of one element.
fn split_pipeline(pipeline: &str) -> Option<Vec<String>> {
    let mut elements = Vec::new();
    let mut current = String::new();
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    for c in pipeline.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"' | '`') => quote = Some(c),
            (None, '{' | '(' | '[') => depth += 1,
            (None, '}' | ')' | ']') => depth -= 1,
            (None, '|') if depth == 0 => {
                elements.push(std::mem::take(&mut current));
                continue;
            }
            (None, ';' | '\n') if depth == 0 => return None,
            _ => {}
        }
        current.push(c);
    }
    elements.push(current);
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
    fn bash_inside_a_nushell_pipeline_becomes_its_exact_nushell_form() {
        let engine = Engine::standard();
        let nu = |p: &str| as_nushell(engine.state(), p);
        assert_eq!(
            nu("ps aux | grep eval-ticker | select pid").as_deref(),
            Some("ps | find 'eval-ticker' | select pid")
        );
        // The order asked of `ps` is kept, as a sort of its table.
        assert_eq!(
            nu("ps aux --sort=-%mem | head -n 1").as_deref(),
            Some("ps | sort-by mem --reverse | first 1")
        );
        assert_eq!(
            nu("ps --sort-by mem --reverse | head -n 1").as_deref(),
            Some("ps | sort-by mem --reverse | first 1")
        );
        assert_eq!(
            nu("ps -eo pid,comm --sort %cpu").as_deref(),
            Some("ps | sort-by cpu")
        );
        assert_eq!(
            nu("grep -ic error app.log").as_deref(),
            Some("open --raw 'app.log' | lines | where $it =~ '(?i)error' | length")
        );
        assert_eq!(
            nu("ls | get name | head -5").as_deref(),
            Some("ls | get name | first 5")
        );
        assert_eq!(
            nu("ls | where size > 1kb | wc -l").as_deref(),
            Some("ls | where size > 1kb | length")
        );
        assert_eq!(
            nu("^git log --oneline | head -n 3").as_deref(),
            Some("^git log --oneline | first 3")
        );
        assert_eq!(
            nu("ls -la --recursive | sort-by size").as_deref(),
            Some("ls -la | sort-by size")
        );
        assert_eq!(
            nu("open products.csv | get price | avg").as_deref(),
            Some("open products.csv | get price | math avg")
        );
        // find(1) with its predicates is the program, whose paths the
        // Nushell after it reads as a list; Nushell's `find` filters.
        assert_eq!(
            nu("find . -type f -name '*.rs' | sort").as_deref(),
            Some("^find . -type f -name '*.rs' | lines | sort")
        );
        assert_eq!(nu("ls | find -i foo"), None);
        // bash's human-readable `h` in a cluster is not Nushell's help.
        assert_eq!(
            nu("ls -lh | sort-by size --reverse").as_deref(),
            Some("ls -l | sort-by size --reverse")
        );
        assert!(asks_help_by_habit(engine.state(), "ls -lh | first 3"));
        // A Nushell value piped into a bare program is read as text.
        let feeds = |p: &str| feeds_a_table_to_a_program(engine.state(), p);
        assert!(feeds("ls **/*.csv | get size | sum"));
        assert_eq!(
            nu("ls **/*.csv | get size | sum").as_deref(),
            Some("ls **/*.csv | get size | math sum")
        );
        assert!(feeds("ls | get size | count"));
        assert!(!feeds("open --raw a.log | wc -l"), "a text tool");
        // grep's text has no columns for the next command to read.
        assert!(feeds("ps | grep ticker | where pid != 1 | first 1"));
        assert_eq!(
            nu("ps | grep ticker | where pid != 1 | first 1").as_deref(),
            Some("ps | find 'ticker' | where pid != 1 | first 1")
        );
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
        assert_eq!(nu("ls | where size > 1kb | length"), None);
        assert_eq!(nu("ls | each { |f| rm $f.name }"), None);
        assert_eq!(nu("ls; ps aux | grep x"), None);
        assert_eq!(nu("du -sh a.txt | cut -f2"), None, "cut would read a table");
    }
}
