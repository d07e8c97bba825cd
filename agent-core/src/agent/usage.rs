//! The engine's own usage of a command, where a pipeline does not parse
//! or calls a family of subcommands alone: the usage of the command the
//! error points at (its subcommands, for a family), with the Nushell form
//! of the habit there.

use nu_protocol::engine::EngineState;

use super::habits::nushell_form;
use crate::shell::Diagnostic;

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
pub(super) const SOCKET_WORDS: &[&str] = &[
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
pub(super) const SOCKETS_FORM: &str = "Nushell has no command for sockets or ports; `^ss -tln` lists the listening TCP ports (`^ss -uln` UDP), and its text becomes a table with `detect columns`.";

/// Whether `element` (a `sys …` call) asks for a subcommand about the
/// network.
pub(super) fn asks_for_sockets(element: &str) -> bool {
    element
        .split_whitespace()
        .nth(1)
        .is_some_and(|word| SOCKET_WORDS.contains(&word.to_lowercase().as_str()))
}

/// "`sys` is used with a subcommand: `sys cpu` (…), …" for `name`, a
/// command that is only a family of subcommands; `None` for any other.
pub(super) fn subcommand_list(engine: &EngineState, name: &str) -> Option<String> {
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
    super::pipeline_text::top_level_elements(pipeline)
        .iter()
        .find_map(|element| {
            let mut words = element.split_whitespace();
            let name = words.next()?;
            if !words.all(|w| w.starts_with('-')) {
                return None;
            }
            subcommand_list(engine, name)
                .map(|list| format!("`{name}` alone only prints its help, so nothing ran. {list}"))
        })
}

/// The words of the pipeline element holding `line`:`column` (1-based,
/// in characters), from its start: the command and its arguments.
pub(super) fn command_at(pipeline: &str, line: usize, column: usize) -> Option<String> {
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
pub(super) fn subcommands(engine: &EngineState, name: &str) -> Vec<(String, String)> {
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
pub(super) const MAX_SUBCOMMANDS: usize = 12;

/// `help`'s text without its examples, and at most a dozen lines.
pub(super) fn short_usage(help: &str) -> String {
    let usage: Vec<&str> = help
        .lines()
        .take_while(|line| !line.starts_with("examples:"))
        .take(12)
        .collect();
    usage.join("\n")
}
