//! The dialect a Coder model knows best: a POSIX shell script, offered as
//! the `sh` tool (the `posix` lever). A script is read with a real shell
//! grammar (brush's bash parser) before anything runs: one that is not
//! valid shell goes back to the model with the parser's error. One that is
//! runs as `^bash -c '<script>'` (`sh` where there is no bash), a pipeline
//! like any other: the policy judges every program in it by its grammar,
//! asks where the script has parts only known when it runs, and sandboxes
//! it as any external. So the same effect gets the same verdict whichever
//! tool asked for it.

use std::io::BufReader;
use std::panic::{AssertUnwindSafe, catch_unwind};

use brush_parser::{Parser, ParserOptions};
use serde_json::json;

use crate::llm::ToolDef;

/// The tool that runs a POSIX shell script.
pub const SH_TOOL: &str = "sh";
/// The `sh` tool's argument that holds the script.
pub const SCRIPT_ARGUMENT: &str = "script";

/// The longest script taken (a model that loops writes megabytes).
const MAX_SCRIPT: usize = 8 * 1024;

/// Why `script` is not a script that can run, as the model reads it; `None`
/// when it parses as shell.
pub fn invalid(script: &str) -> Option<String> {
    if script.trim().is_empty() {
        return Some("`sh` needs a non-empty `script`".into());
    }
    if script.len() > MAX_SCRIPT {
        return Some(format!(
            "The script is {} bytes; a step is one short command line.",
            script.len()
        ));
    }
    let options = ParserOptions::default();
    let parsed = catch_unwind(AssertUnwindSafe(|| {
        Parser::new(BufReader::new(script.as_bytes()), &options).parse_program()
    }));
    match parsed {
        Ok(Ok(program)) if !program.complete_commands.is_empty() => None,
        Ok(Ok(_)) => Some("The script has no command.".into()),
        Ok(Err(error)) => Some(format!(
            "Not run: the script is not valid shell ({error}). Fix its quoting or syntax."
        )),
        // The parser gave up on its own input: the shell judges it.
        Err(_) => None,
    }
}

/// The shell that runs scripts: `bash` where it is on `PATH`, else `sh`.
pub fn shell() -> &'static str {
    static SHELL: std::sync::OnceLock<&'static str> = std::sync::OnceLock::new();
    SHELL.get_or_init(|| {
        let on_path = std::env::var_os("PATH")
            .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join("bash").is_file()));
        if on_path { "bash" } else { "sh" }
    })
}

/// The `sh` tool as the model is offered it.
pub fn tool_def() -> ToolDef {
    ToolDef {
        name: SH_TOOL.into(),
        description: "Run a POSIX shell (bash) command line; returns its output text.".into(),
        parameters: json!({
            "type": "object",
            "properties": {
                SCRIPT_ARGUMENT: {"type": "string", "description": "bash code"},
                "why": {"type": "string", "description": "what this step is for, a few words"}
            },
            "required": [SCRIPT_ARGUMENT, "why"]
        }),
    }
}

/// What the system prompt says of the `sh` tool.
pub const PROMPT_LINE: &str = "- Files and text: the `sh` tool runs a bash command line (`find`, `grep`, `wc`, `du`, `sort`, `xargs`); it gives text.";

/// `prompt` (a system prompt) telling of the `sh` tool after its Nushell
/// lines.
pub fn with_sh_tool(prompt: &str) -> String {
    match prompt.find("\n- An error says what to fix") {
        Some(at) => format!("{}\n{PROMPT_LINE}{}", &prompt[..at], &prompt[at..]),
        None => format!("{prompt}\n\n{PROMPT_LINE}"),
    }
}

/// The Nushell pipeline that runs `script` with `shell` (`bash` or `sh`):
/// the script as one raw string, so nothing in it is Nushell.
pub fn as_pipeline(shell: &str, script: &str) -> String {
    let script = script.trim();
    let mut hashes = String::from("#");
    while script.contains(&format!("'{hashes}")) {
        hashes.push('#');
    }
    format!("^{shell} -c r{hashes}'{script}'{hashes}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_script_is_read_by_a_shell_grammar() {
        for script in [
            "find . -name '*.php' -exec chmod 755 {} \\; | wc -l",
            "for f in *.txt; do wc -l \"$f\"; done",
            "du -sh * | sort -h | tail -n 3",
            "cat files.txt | xargs du -b | awk '{s+=$1} END {print s}'",
            "[ -d logs ] && ls logs || echo none",
        ] {
            assert_eq!(invalid(script), None, "{script}");
        }
        for script in [
            "echo 'unclosed",
            "for f in *; do echo $f",
            "if true; then ls",
            "ls |",
        ] {
            let error = invalid(script).unwrap_or_else(|| panic!("{script} parsed"));
            assert!(
                error.starts_with("Not run: the script is not valid shell ("),
                "{error}"
            );
        }
        assert!(invalid("  ").is_some());
        assert!(invalid(&"ls; ".repeat(4_000)).unwrap().contains("bytes"));
    }

    #[test]
    fn a_script_runs_as_one_raw_string() {
        let script = "grep -c 'a' x.txt | wc -l";
        let pipeline = as_pipeline("bash", script);
        assert_eq!(pipeline, "^bash -c r#'grep -c 'a' x.txt | wc -l'#");
        // A script holding `'#` gets more hashes.
        let script = "echo 'a'# b";
        let pipeline = as_pipeline("sh", script);
        assert_eq!(pipeline, "^sh -c r##'echo 'a'# b'##");
    }

    #[test]
    fn the_raw_string_parses_as_one_argument() {
        let engine = nu_cmd_lang::create_default_context();
        for script in ["echo 'a' \"b\" | wc -c", "echo 'x'# y; echo '#'"] {
            let pipeline = as_pipeline("bash", script);
            let mut working = nu_protocol::engine::StateWorkingSet::new(&engine);
            let block = nu_parser::parse(&mut working, None, pipeline.as_bytes(), false);
            assert!(
                working.parse_errors.is_empty(),
                "{pipeline}: {:?}",
                working.parse_errors
            );
            let element = &block.pipelines[0].elements[0];
            let nu_protocol::ast::Expr::ExternalCall(_, args) = &element.expr.expr else {
                panic!("{pipeline}: not an external call");
            };
            assert_eq!(args.len(), 2, "{pipeline}");
        }
    }
}
