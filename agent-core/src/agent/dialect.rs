//! The dialect a task's request is worked in (the `dialect` lever). A
//! Coder model writes bash for files and text far better than Nushell,
//! and Nushell's tables are what a data file, piped input and a value
//! kept between steps are. So a request is worked in bash (the `sh` tool
//! alone, the answer returning the step's output) unless something here
//! holds it to Nushell:
//!
//! - it names a file here that Nushell opens as a table (`orders.csv`,
//!   `app.toml`): the engine has a `from` command for its extension;
//! - data was piped into it (`ls | ask …`);
//! - it names a variable (`$big`) that the environment does not hold: a
//!   value kept between steps, which the Nushell session keeps and a bash
//!   script, run afresh each step, does not.
//!
//! Nothing here reads the request's English words.

use std::path::Path;

use nu_protocol::engine::EngineState;

use super::levers::{Lever, Levers};
use super::named_files;
use super::prompt::PIPED_INPUT;

/// The language a request's steps are written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// Bash command lines with the `sh` tool; the answer returns the
    /// step's output.
    Bash,
    /// Nushell pipelines with the `nu` tool.
    Nushell,
}

/// The dialect chosen for a request, and what chose it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    pub dialect: Dialect,
    /// What held the request to Nushell (`orders.csv opens as a table`),
    /// or why bash (`files and text`).
    pub why: String,
}

impl Choice {
    /// The rule name the eval records for it (`dialect-bash`).
    pub fn rule(&self) -> String {
        let name = match self.dialect {
            Dialect::Bash => "bash",
            Dialect::Nushell => "nushell",
        };
        format!("dialect-{name}: {}", self.why)
    }
}

/// The dialect `request` is worked in, in `cwd` with `engine`'s commands.
pub fn choose(request: &str, cwd: &Path, engine: &EngineState) -> Choice {
    let nushell = |why: String| Choice {
        dialect: Dialect::Nushell,
        why,
    };
    if request.contains(PIPED_INPUT) {
        return nushell("data was piped in".into());
    }
    if let Some(name) = named_files::named_files(request, cwd)
        .into_iter()
        .find(|name| named_files::opens_as_data(engine, name))
    {
        return nushell(format!("{name} opens as a table"));
    }
    if let Some(variable) = session_variable(request, |name| std::env::var_os(name).is_some()) {
        return nushell(format!("${variable} is a value kept between steps"));
    }
    Choice {
        dialect: Dialect::Bash,
        why: "files and text".into(),
    }
}

/// `levers` with the levers of `dialect` set: bash is `posix`, `sh-only`
/// and `answer-output` on; Nushell is the three off.
pub fn levers_for(levers: Levers, dialect: Dialect) -> Levers {
    let bash = dialect == Dialect::Bash;
    [Lever::Posix, Lever::ShOnly, Lever::AnswerOutput]
        .into_iter()
        .fold(levers, |levers, lever| levers.switch(lever, bash))
}

/// The first `$name` in `request` that `in_environment` does not know: a
/// variable of the session (`$big`), not the environment's (`$HOME`).
fn session_variable(request: &str, in_environment: impl Fn(&str) -> bool) -> Option<&str> {
    request.match_indices('$').find_map(|(at, _)| {
        let rest = &request[at + 1..];
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let name = &rest[..end];
        let starts_a_name = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_');
        (starts_a_name && !in_environment(name)).then_some(name)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chosen(request: &str, files: &[&str]) -> Choice {
        let dir = tempfile::tempdir().expect("a temp dir");
        for file in files {
            std::fs::write(dir.path().join(file), "a,b\n1,2\n").expect("a file");
        }
        choose(
            request,
            dir.path(),
            crate::shell::Engine::standard().state(),
        )
    }

    #[test]
    fn a_data_file_here_holds_a_request_to_nushell() {
        let choice = chosen(
            "What is the average price in products.csv?",
            &["products.csv"],
        );
        assert_eq!(choice.dialect, Dialect::Nushell, "{choice:?}");
        assert!(choice.why.contains("products.csv"), "{choice:?}");
        assert_eq!(
            chosen("Set the version in app.toml to 2.0", &["app.toml"]).dialect,
            Dialect::Nushell
        );
    }

    #[test]
    fn files_and_text_are_bash() {
        // A file named but not here, a text file, a kind of file: bash.
        for request in [
            "What is the average price in products.csv?",
            "Count the lines of notes.txt",
            "Delete the .bak files in this folder",
            "Which folder here takes the most space?",
        ] {
            let choice = chosen(request, &["notes.txt"]);
            assert_eq!(choice.dialect, Dialect::Bash, "{request}: {choice:?}");
        }
    }

    #[test]
    fn piped_input_and_a_session_variable_hold_a_request_to_nushell() {
        let piped = format!("Which is the largest?{PIPED_INPUT}╭ name ╮");
        assert_eq!(chosen(&piped, &[]).dialect, Dialect::Nushell);
        let kept = chosen(
            "Store the big files in a variable, then use $big to count them",
            &[],
        );
        assert_eq!(kept.dialect, Dialect::Nushell, "{kept:?}");
        assert!(kept.why.contains("$big"), "{kept:?}");
    }

    #[test]
    fn an_environment_variable_or_a_price_is_not_a_session_variable() {
        let env = |name: &str| ["HOME", "PATH"].contains(&name);
        assert_eq!(session_variable("files under $HOME and $PATH", env), None);
        assert_eq!(session_variable("prices over $5 or $", env), None);
        assert_eq!(session_variable("use $out.0 then", env), Some("out"));
        assert_eq!(session_variable("(${big_files})", env), None);
    }

    #[test]
    fn bash_is_the_three_levers_on_and_nushell_the_three_off() {
        let bash = levers_for(Levers::default(), Dialect::Bash);
        for lever in [Lever::Posix, Lever::ShOnly, Lever::AnswerOutput] {
            assert!(bash.on(lever), "{lever}");
        }
        assert!(!bash.on(Lever::ShellFirst));
        assert_eq!(levers_for(bash, Dialect::Nushell), Levers::default());
    }
}
