//! Programs a pipeline calls that are not here: neither a Nushell command
//! nor an executable on the session's PATH (`lss -la`, `^count`). Such a
//! step can only fail when it runs, so no front end asks the user about
//! it: the pipeline is an error with the engine's own "did you mean".

use std::path::Path;

use nu_protocol::{ShellError, Span, engine::EngineState};

use super::Step;
use crate::shell::{Diagnostic, DiagnosticLabel};

/// nu's code for a program that cannot be found.
pub const NOT_FOUND_CODE: &str = "nu::shell::external_command";

/// The external programs that `steps` call and `finds_program` cannot
/// find (each once, in order). Dynamic heads (`^$x`) and names with characters
/// no program name has are left to the policy.
pub fn unknown_programs<'a>(
    steps: impl IntoIterator<Item = &'a Step>,
    finds_program: impl Fn(&str) -> bool,
) -> Vec<String> {
    let mut unknown: Vec<String> = Vec::new();
    for step in steps {
        let Some(program) = step.name.strip_prefix('^') else {
            continue;
        };
        let plain = !program.is_empty()
            && program
                .chars()
                .all(|c| c.is_alphanumeric() || "-_.+/".contains(c));
        if plain && !finds_program(program) && !unknown.iter().any(|u| u == program) {
            unknown.push(program.to_string());
        }
    }
    unknown
}

/// The engine's error for `name`, a program not found from `cwd`: nu's
/// own message (`Command `lss` not found`) and its help (`Did you mean
/// `ls`?`, a command in a module, a file that is not executable), pointed
/// at the name's first place in `pipeline` where it is written as a word.
pub fn not_found(engine: &EngineState, cwd: &Path, name: &str, pipeline: &str) -> Diagnostic {
    let mut diagnostic = match nu_path::AbsolutePathBuf::try_from(cwd.to_path_buf()) {
        Ok(cwd) => {
            let mut stack = nu_protocol::engine::Stack::new();
            let error =
                nu_command::command_not_found(name, Span::unknown(), engine, &mut stack, &cwd);
            let (message, help) = match &error {
                ShellError::ExternalCommand { label, help, .. } => (label.clone(), help.clone()),
                other => (other.to_string(), String::new()),
            };
            Diagnostic::plain(NOT_FOUND_CODE, message, (!help.is_empty()).then_some(help))
        }
        Err(_) => Diagnostic::plain(NOT_FOUND_CODE, format!("Command `{name}` not found"), None),
    };
    if let Some((line, column)) = word_place(pipeline, name) {
        diagnostic.labels.push(DiagnosticLabel {
            text: "not a Nushell command or a program on PATH".into(),
            line,
            column,
            snippet: name.to_string(),
        });
    }
    diagnostic
}

/// The 1-based line and column (in characters) of the first place `word`
/// stands in `text` as a whole word (not inside a longer name).
fn word_place(text: &str, word: &str) -> Option<(usize, usize)> {
    let part_of_name = |c: char| c.is_alphanumeric() || "-_.".contains(c);
    let at = text.match_indices(word).map(|(at, _)| at).find(|&at| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(part_of_name) && !after.is_some_and(part_of_name)
    })?;
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = text[..at].matches('\n').count() + 1;
    let column = text[line_start..at].chars().count() + 1;
    Some((line, column))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{policy::Category, shell::Engine};

    #[test]
    fn invented_names_are_found_once_each_in_order() {
        let steps = vec![
            Step::new("open", "open f.csv", Category::Read),
            Step::new("^count", "^count", Category::Exec),
            Step::new("^grep", "^grep x", Category::Exec),
            Step::new("^frobnicate", "^frobnicate", Category::Exec),
            Step::new("^count", "^count", Category::Exec),
            Step::new("^$x", "^$x", Category::Exec),
        ];
        let unknown = unknown_programs(&steps, |p| p == "grep");
        assert_eq!(unknown, vec!["count".to_string(), "frobnicate".into()]);
    }

    #[test]
    fn a_misspelt_command_gets_the_engine_s_did_you_mean() {
        let engine = Engine::standard();
        let error = not_found(engine.state(), Path::new("/"), "lss", "ls\n[a] | lss -la");
        assert_eq!(error.code.as_deref(), Some(NOT_FOUND_CODE));
        assert_eq!(error.message, "Command `lss` not found");
        assert_eq!(error.help.as_deref(), Some("Did you mean `ls`?"));
        let label = error.labels.first().expect("the name's place");
        assert_eq!((label.line, label.column), (2, 7));
        assert_eq!(label.snippet, "lss");
    }

    #[test]
    fn a_name_is_found_only_as_a_whole_word() {
        assert_eq!(word_place("^lss-x; lss", "lss"), Some((1, 9)));
        assert_eq!(word_place("ls | each { ^frob }", "frob"), Some((1, 14)));
        assert_eq!(word_place("glss", "lss"), None);
    }

    #[test]
    fn a_bash_name_gets_the_command_whose_search_terms_name_it() {
        let engine = Engine::standard();
        let error = not_found(engine.state(), Path::new("/"), "wc", "^wc -l");
        assert!(
            error
                .help
                .as_deref()
                .is_some_and(|h| h.contains("`length`")),
            "{error:?}"
        );
    }
}
