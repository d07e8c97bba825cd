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

use brush_parser::{Parser, ParserOptions, Token, tokenize_str, unquote_str};
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
    if script.contains("$out.") {
        // Said the same whether `nu` is offered or not (`sh-only`).
        return Some("Not run: `$out.N` is a Nushell value that bash cannot read. In `sh`, name the files or text themselves, as a step's output showed them.".into());
    }
    let options = ParserOptions::default();
    let parsed = catch_unwind(AssertUnwindSafe(|| {
        Parser::new(BufReader::new(script.as_bytes()), &options).parse_program()
    }));
    match parsed {
        Ok(Ok(program)) if !program.complete_commands.is_empty() => None,
        Ok(Ok(_)) => Some("The script has no command.".into()),
        // Unreadable only for a `find -exec` left open, which the run
        // closes (see `with_exec_closed`).
        Ok(Err(_)) if with_exec_closed(script).is_some_and(|closed| invalid(&closed).is_none()) => {
            None
        }
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

/// What a task's role says the work is done with: without the `sh` tool,
/// beside it, and with it alone.
const ROLE_NU: &str = "by running Nushell pipelines with the `nu` tool, one step at a time";
const ROLE_SH: &str = "one step at a time: bash command lines with the `sh` tool for files and text, Nushell pipelines with the `nu` tool for tables and data";
const ROLE_SH_ONLY: &str = "by running bash command lines with the `sh` tool, one step at a time";

/// How the system prompt tells of the `sh` tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShPrompt {
    /// A line after the Nushell lines: `sh` for files and text.
    Beside,
    /// Bash for files and text taught first, Nushell for data (the
    /// `shell-first` lever; see [`super::prompt::shell_first`]).
    First,
    /// `sh` is the only tool that runs anything (the `sh-only` lever; see
    /// [`super::prompt::shell_only`]).
    Only,
}

/// `prompt` (a system prompt) telling of the `sh` tool in the `form`
/// asked for.
pub fn with_sh_tool(prompt: &str, form: ShPrompt) -> String {
    match form {
        ShPrompt::Only => super::prompt::shell_only(&prompt.replacen(ROLE_NU, ROLE_SH_ONLY, 1)),
        ShPrompt::First => super::prompt::shell_first(&prompt.replacen(ROLE_NU, ROLE_SH, 1)),
        ShPrompt::Beside => {
            let prompt = prompt.replacen(ROLE_NU, ROLE_SH, 1);
            match prompt.find("\n- An error says what to fix") {
                Some(at) => format!("{}\n{PROMPT_LINE}{}", &prompt[..at], &prompt[at..]),
                None => format!("{prompt}\n\n{PROMPT_LINE}"),
            }
        }
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

/// The script of a pipeline [`as_pipeline`] made, if `pipeline` is one.
pub fn script_of(pipeline: &str) -> Option<&str> {
    let rest = ["^bash -c r", "^sh -c r"]
        .iter()
        .find_map(|head| pipeline.strip_prefix(head))?;
    let hashes = rest.len() - rest.trim_start_matches('#').len();
    let body = rest[hashes..].strip_prefix('\'')?;
    body.strip_suffix(&format!("'{}", &rest[..hashes]))
}

/// `pipeline` (one [`as_pipeline`] made) with its script rewritten by
/// `rewrite`, run by the same shell; `None` when it is no script or
/// `rewrite` leaves it alone.
pub fn with_script(pipeline: &str, rewrite: impl Fn(&str) -> Option<String>) -> Option<String> {
    let script = script_of(pipeline)?;
    let shell = if pipeline.starts_with("^sh ") {
        "sh"
    } else {
        "bash"
    };
    Some(as_pipeline(shell, &rewrite(script)?))
}

/// One simple command of a script as the shell's tokenizer reads it: its
/// words unquoted, and where its last word ends (a byte offset).
struct Command {
    words: Vec<String>,
    /// Where its last word starts (a byte offset).
    start: usize,
    end: usize,
    /// It has a redirection (`2>/dev/null`): its words end before it.
    redirected: bool,
}

/// The simple commands of `script`, split at its operators; `None` where
/// the tokenizer cannot read it.
fn commands(script: &str) -> Option<Vec<Command>> {
    let tokens = catch_unwind(|| tokenize_str(script)).ok()?.ok()?;
    let byte_at = |chars: usize| {
        script
            .char_indices()
            .nth(chars)
            .map_or(script.len(), |(at, _)| at)
    };
    let mut commands = Vec::new();
    let mut current = Command {
        words: Vec::new(),
        start: 0,
        end: 0,
        redirected: false,
    };
    for token in tokens {
        match token {
            Token::Word(word, span) => {
                if !current.redirected {
                    current.words.push(unquote_str(&word));
                    current.start = byte_at(span.start.index);
                    current.end = byte_at(span.end.index);
                }
            }
            Token::Operator(op, _) if op.contains(['<', '>']) => current.redirected = true,
            Token::Operator(..) => {
                if !current.words.is_empty() {
                    commands.push(current);
                }
                current = Command {
                    words: Vec::new(),
                    start: 0,
                    end: 0,
                    redirected: false,
                };
            }
        }
    }
    if !current.words.is_empty() {
        commands.push(current);
    }
    Some(commands)
}

/// `script` with each `find … -exec CMD {}` that was left without its
/// `\;` closed (a model writing JSON drops the backslash, or the `;`
/// with it, or leaves the backslash alone): `find` then runs CMD instead
/// of failing on a missing argument. `None` when every `-exec` is closed.
pub fn with_exec_closed(script: &str) -> Option<String> {
    // One backslash at the very end escapes nothing: the shell's
    // tokenizer cannot read it, and it is the half of `\;` written.
    if let Some(cut) = script
        .trim_end()
        .strip_suffix('\\')
        .filter(|cut| !cut.ends_with('\\'))
        .filter(|_| commands(script).is_none())
    {
        return with_exec_closed(cut.trim_end());
    }
    let mut ends: Vec<(usize, usize)> = commands(script)?
        .into_iter()
        .filter(|command| {
            command
                .words
                .first()
                .is_some_and(|head| head == "find" || head.ends_with("/find"))
        })
        .filter(|command| {
            let mut open = false;
            for word in &command.words {
                match word.as_str() {
                    "-exec" | "-execdir" | "-ok" | "-okdir" => open = true,
                    ";" | "+" => open = false,
                    _ => {}
                }
            }
            open
        })
        .map(|command| {
            // A last word of backslashes alone is the half of `\;` written.
            let last = &script[command.start..command.end];
            if !last.is_empty() && last.chars().all(|c| c == '\\') {
                (command.start, command.end)
            } else {
                (command.end, command.end)
            }
        })
        .collect();
    if ends.is_empty() {
        return None;
    }
    ends.sort_unstable();
    let mut fixed = script.to_string();
    for (start, end) in ends.into_iter().rev() {
        let closing = if start == end { " \\;" } else { "\\;" };
        fixed.replace_range(start..end, closing);
    }
    Some(fixed)
}

/// Whether `name` is one of bash's keywords or builtins, which no `PATH`
/// holds (the policy's list: [`crate::policy::shell_words::is_bash_word`]).
pub fn is_shell_word(name: &str) -> bool {
    crate::policy::shell_words::is_bash_word(name)
}

/// The arguments of each command of `script` that runs `program` (its
/// words after the name, unquoted); empty where none does or the
/// tokenizer cannot read it.
pub fn arguments_of(script: &str, program: &str) -> Vec<Vec<String>> {
    commands(script)
        .unwrap_or_default()
        .into_iter()
        .filter(|command| {
            command
                .words
                .first()
                .is_some_and(|head| head.trim_start_matches('^') == program)
        })
        .map(|command| command.words.into_iter().skip(1).collect())
        .collect()
}

/// Whether one of `script`'s commands, as the shell's tokenizer reads
/// them, is headed by one of `programs` (`grep` in `ls | grep x`, not in
/// `echo grep`).
pub fn runs_one_of(script: &str, programs: &[&str]) -> bool {
    commands(script).is_some_and(|commands| {
        commands.iter().any(|command| {
            command
                .words
                .first()
                .is_some_and(|head| programs.contains(&head.trim_start_matches('^')))
        })
    })
}

/// The names heading `script`'s commands that bash cannot run but
/// Nushell can (`open`, `where`, `lines`): `is_command` says which names
/// are Nushell commands, `is_program` which are programs here. Empty
/// when the script is bash.
pub fn nushell_heads(
    script: &str,
    is_command: impl Fn(&str) -> bool,
    is_program: impl Fn(&str) -> bool,
) -> Vec<String> {
    let Some(commands) = commands(script) else {
        return Vec::new();
    };
    let mut heads: Vec<String> = commands
        .into_iter()
        .filter_map(|command| command.words.into_iter().next())
        .filter(|head| {
            !is_shell_word(head)
                && !head.contains(['/', '=', '$'])
                && is_command(head)
                && !is_program(head)
        })
        .collect();
    heads.dedup();
    heads
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_script_naming_a_nushell_value_is_not_run_and_no_tool_is_named() {
        let why = invalid("wc -l $out.0").unwrap();
        assert!(why.contains("`$out.N`") && !why.contains("`nu`"), "{why}");
    }

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
    fn an_exec_left_open_is_closed() {
        assert_eq!(
            with_exec_closed("find . -name '*.php' -exec chmod 755 {} | wc -l").as_deref(),
            Some("find . -name '*.php' -exec chmod 755 {} \\; | wc -l")
        );
        assert_eq!(
            with_exec_closed("find /x -type f -exec rm {}").as_deref(),
            Some("find /x -type f -exec rm {} \\;")
        );
        // A backslash left alone is the half of `\;` that was written
        // (a script the shell cannot read without it, but runs closed).
        assert_eq!(invalid("find . -exec rm {} \\"), None);
        assert_eq!(
            with_exec_closed("find . -exec rm {} \\").as_deref(),
            Some("find . -exec rm {} \\;")
        );
        assert_eq!(
            with_exec_closed("find . -exec rm {} \\\\ | wc -l").as_deref(),
            Some("find . -exec rm {} \\; | wc -l")
        );
        // A bare `;` ends the command in bash: `find` never sees it.
        assert_eq!(
            with_exec_closed("find . -exec echo {} ; echo done").as_deref(),
            Some("find . -exec echo {} \\; ; echo done")
        );
        for closed in [
            "find . -exec chmod 755 {} \\;",
            "find . -exec chmod 755 {} ';'",
            "find . -exec du -b {} + | sort -n",
            "find . -name '*.c' | xargs wc -l",
            "ls -l",
        ] {
            assert_eq!(with_exec_closed(closed), None, "{closed}");
        }
    }

    #[test]
    fn nushell_written_as_a_script_is_known() {
        let is_command = |name: &str| {
            [
                "open", "lines", "where", "length", "ls", "cd", "echo", "sort", "for",
            ]
            .contains(&name)
        };
        let is_program = |name: &str| ["ls", "sort", "wc", "find"].contains(&name);
        assert_eq!(
            nushell_heads(
                "open a.txt | lines | where $it =~ 'x' | length",
                is_command,
                is_program
            ),
            ["open", "lines", "where", "length"]
        );
        for bash in [
            "ls | sort | wc -l",
            "cd dir && echo done",
            "for f in *; do wc -l $f; done",
            "find . -type d | wc -l",
        ] {
            assert!(
                nushell_heads(bash, is_command, is_program).is_empty(),
                "{bash}"
            );
        }
    }

    #[test]
    fn a_nushell_value_in_a_script_is_told() {
        let told = invalid("ls $out.0").unwrap();
        assert!(told.contains("`$out.N` is a Nushell value"), "{told}");
        assert!(is_shell_word("while") && is_shell_word("exit") && !is_shell_word("find"));
    }

    #[test]
    fn the_prompt_tells_of_the_sh_tool() {
        let task = crate::agent::system_prompt(crate::agent::PromptKind::Task, "cwd: /x");
        assert!(task.contains(ROLE_NU));
        let with = with_sh_tool(&task, ShPrompt::Beside);
        assert!(with.contains(ROLE_SH) && !with.contains(ROLE_NU), "{with}");
        assert!(
            with.contains(&format!("{PROMPT_LINE}\n- An error says")),
            "{with}"
        );
        assert!(with.ends_with("cwd: /x"));
        // Shell first: bash for files and text, the example a script, no
        // Nushell line for text files left to copy.
        let first = with_sh_tool(&task, ShPrompt::First);
        assert!(first.contains(ROLE_SH), "{first}");
        assert!(
            first.contains("Files, folders and text are bash's"),
            "{first}"
        );
        assert!(
            first.contains("-> sh {\"script\": \"grep -c FIXME plan.md\""),
            "{first}"
        );
        assert!(!first.contains("where $it =~"), "{first}");
        assert!(!first.contains(PROMPT_LINE), "{first}");
        assert!(first.ends_with("cwd: /x"));
        assert!(
            first.len() < with.len(),
            "{} vs {}",
            first.len(),
            with.len()
        );
        // Sh only: no tool but `sh` is named, nor any Nushell to copy.
        let only = with_sh_tool(&task, ShPrompt::Only);
        assert!(only.contains(ROLE_SH_ONLY), "{only}");
        assert!(
            !only.contains("`nu`") && !only.contains("open f.csv"),
            "{only}"
        );
        assert!(only.contains("-> sh {\"script\""), "{only}");
        assert!(only.ends_with("cwd: /x"));
    }

    #[test]
    fn a_script_runs_as_one_raw_string() {
        let script = "grep -c 'a' x.txt | wc -l";
        let pipeline = as_pipeline("bash", script);
        assert_eq!(pipeline, "^bash -c r#'grep -c 'a' x.txt | wc -l'#");
        assert_eq!(script_of(&pipeline), Some(script));
        // A script holding `'#` gets more hashes.
        let script = "echo 'a'# b";
        let pipeline = as_pipeline("sh", script);
        assert_eq!(pipeline, "^sh -c r##'echo 'a'# b'##");
        assert_eq!(script_of(&pipeline), Some(script));
        assert_eq!(script_of("^bash -c 'ls'"), None);
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
