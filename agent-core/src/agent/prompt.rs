//! The system prompt: the role, the Nushell a model needs, how to use the
//! tools, and the machine it works on. Kept short: on a CPU every prompt
//! token is paid in prefill time (the budget is 1,200 tokens with the
//! tools and the context, on the default model's tokenizer).

/// What the prompt is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PromptKind {
    /// `ask`: do the task, step by step.
    Task,
    /// `agent explain`: explain, running nothing (or only reads when
    /// investigating).
    Explain { investigate: bool },
    /// `agent suggest`: propose one pipeline, run nothing.
    Suggest,
}

impl PromptKind {
    /// True when the model is offered the `nu` tool.
    pub fn offers_nu(self) -> bool {
        !matches!(self, PromptKind::Explain { investigate: false })
    }

    /// True when the pipelines it proposes run.
    pub fn runs_pipelines(self) -> bool {
        matches!(
            self,
            PromptKind::Task | PromptKind::Explain { investigate: true }
        )
    }
}

/// Role and method, per kind.
fn role(kind: PromptKind) -> &'static str {
    match kind {
        PromptKind::Task => {
            "You are nu-agent, working in the user's Nushell (nu) on their machine. Do the user's task by running Nushell pipelines with the `nu` tool, one step at a time. When done, call `answer`."
        }
        PromptKind::Explain { investigate: false } => {
            "You are nu-agent, in the user's Nushell (nu). Explain what the user shows you (data or a pipeline) clearly and briefly. Nothing runs. Call `answer` with the explanation."
        }
        PromptKind::Explain { investigate: true } => {
            "You are nu-agent, in the user's Nushell (nu). Explain what the user shows you (data or a pipeline). You may run read-only pipelines with the `nu` tool to look closer (nothing that changes anything). Call `answer` with the explanation."
        }
        PromptKind::Suggest => {
            "You are nu-agent, in the user's Nushell (nu). Write ONE Nushell pipeline that does what the user asks; it is not run, the user will review it. Reply with a `nu` call holding it."
        }
    }
}

/// The Nushell a model gets wrong most: commands give tables to filter,
/// files open as data, and the bash habits to drop.
const NUSHELL: &str = "Nushell is not bash: commands give tables to filter.
- `ls` (name type size modified), `ls **/*` (subfolders too): `ls | where size > 1mb | sort-by size --reverse | first 3`, `ls | where modified > ((date now) - 2hr)`, `ls | where type == dir`, `ls --du` (folder sizes)
- Data files open as tables or records: `open f.csv | get score | math avg`, `open f.json | get deploy.retries`.
- Text files open as text: `open journal.txt | lines | where $it =~ 'urgent'`.
- `length`, `math sum`, `math avg`, `math max`; counts per value: `get type | uniq --count`.
- A column per row: `ls *.csv | insert rows {|f| open $f.name | length}`.
- System: `ps` (pid name cpu mem), `sys cpu` (per core), `sys mem`, `sys disks` (free space), `^ss -tln` (open ports).
- Programs: `^git log --format='%h %an %s' | lines` (text, newest first).
- Changes: `rm f`, `mv a b`, `mkdir d`, `open c.toml | update a.b 'x' | save -f c.toml`, `ls *.swp | each { rm $in.name }`.
- bash -> nu: `a && b` -> `a; b`; `$(cmd)` -> `(cmd)`; `$HOME` -> `$env.HOME`.
- `$out.N` holds step N's value; `let x = (ls)` keeps one for later steps as `$x`.
- An error says what to fix: fix it, never run the same thing again. Unsure? Call `help`.";

/// A whole short episode, to copy the form of. Its names and values, like
/// every example's here, are in no evaluation task: a model that copies
/// one copies a form, never a task's answer.
const EXAMPLE: &str = "Example: user: how many lines of plan.md mention FIXME?
-> nu {\"pipeline\": \"open plan.md | lines | where $it =~ 'FIXME' | length\", \"why\": \"count them\"}
<- 3
-> answer {\"text\": \"3 lines of plan.md mention FIXME.\"}";

/// The prompt's Nushell lines where the model is offered the `sh` tool
/// first (the `shell-first` lever): files and text in bash, the dialect a
/// Coder model knows; tables and data in Nushell. Its examples name no
/// value to filter by, so none is copied into a task.
const SHELL_FIRST: &str = "Files, folders and text are bash's: the `sh` tool runs a bash command line and gives its output.
- Name only paths the user gave or a step showed; look first (`ls`, `find`).
- Tables and data files (csv, json, toml, yaml) are Nushell's: the `nu` tool runs a pipeline: `open f.csv | get score | math avg`, `open f.json | get deploy.retries`, `sys mem`, `ps`.
- A step's output is shown to you: read what was asked there; do not process it again. `$out.N` is step N's value, for `nu` only.
- Answer with the names and figures as the output shows them.
- An error says what to fix: fix it, never run the same thing again. Unsure? Call `help`.";

/// The example episode where the `sh` tool comes first.
const EXAMPLE_SH: &str = "Example: user: how many lines of plan.md mention FIXME?
-> sh {\"script\": \"grep -c FIXME plan.md\", \"why\": \"count them\"}
<- 3
-> answer {\"text\": \"3 lines of plan.md mention FIXME.\"}";

/// The prompt's Nushell lines where `sh` is the only tool that runs
/// anything (the `sh-only` lever): the lines of [`SHELL_FIRST`] that are
/// not Nushell's.
const SHELL_ONLY: &str =
    "Work in bash: the `sh` tool runs a bash command line and gives its output.
- Name only paths the user gave or a step showed; look first (`ls`, `find`).
- A step's output is shown to you: read what was asked there; do not process it again.
- Answer with the names and figures as the output shows them.
- An error says what to fix: fix it, never run the same thing again.";

/// `prompt` (a task's [`system_prompt`]) where `sh` is the only tool
/// that runs anything: its Nushell lines and example episode in their
/// `sh-only` form.
pub fn shell_only(prompt: &str) -> String {
    prompt
        .replacen(NUSHELL, SHELL_ONLY, 1)
        .replacen(EXAMPLE, EXAMPLE_SH, 1)
}

/// `prompt` (a task's [`system_prompt`]) teaching bash first: its
/// Nushell lines and example episode in their `shell-first` form.
pub fn shell_first(prompt: &str) -> String {
    prompt
        .replacen(NUSHELL, SHELL_FIRST, 1)
        .replacen(EXAMPLE, EXAMPLE_SH, 1)
}

/// Whether `pipeline` is one of the prompt's example pipelines as it is
/// written there: a whole pipeline (with a `|`) or a change
/// (`rm f`, `mv a b`). A small model that has run out of its own steps
/// copies them, on files that do not exist or a task it was not given.
pub fn is_example(pipeline: &str) -> bool {
    let wanted = words(pipeline);
    example_snippets()
        .filter(|example| {
            example.contains('|')
                || ["rm ", "mv ", "mkdir ", "cp "]
                    .iter()
                    .any(|change| example.starts_with(change))
        })
        .any(|example| words(example) == wanted)
}

/// Whether `pipeline` is one of the prompt's examples (see [`is_example`])
/// naming a file that is not in `cwd` (`open f.csv …`): copied by a small
/// model with nothing of its own to run, it can only fail.
pub fn is_example_on_missing_files(pipeline: &str, cwd: &std::path::Path) -> bool {
    (is_example(pipeline) && file_names(pipeline).any(|file| !cwd.join(file).exists()))
        || names_an_example_file_not_here(pipeline, cwd)
}

/// Whether `pipeline` names a file of the prompt's examples (`plan.md`,
/// `f.csv`) that is not in `cwd`: those names are made up, so a pipeline
/// naming one took it from the prompt, even with the rest of the pipeline
/// its own or from another example.
pub fn names_an_example_file_not_here(pipeline: &str, cwd: &std::path::Path) -> bool {
    let example_files: Vec<&str> = example_snippets().flat_map(file_names).collect();
    file_names(pipeline).any(|file| example_files.contains(&file) && !cwd.join(file).exists())
}

/// Every piece of code the prompt shows: its backticked snippets and the
/// example episode's pipeline.
fn example_snippets() -> impl Iterator<Item = &'static str> {
    [NUSHELL, EXAMPLE]
        .into_iter()
        .flat_map(|text| text.split('`').skip(1).step_by(2))
        .chain(EXAMPLE.split('"').filter(|part| part.contains(" | ")))
}

/// The words of `pipeline` that name one file (`notes.txt`, not `*.txt`).
fn file_names(pipeline: &str) -> impl Iterator<Item = &str> {
    pipeline
        .split(|c: char| c.is_whitespace() || matches!(c, '|' | '(' | ')' | '{' | '}'))
        .filter(|word| looks_like_a_file_name(word))
}

/// `notes.txt`, `f.json`: a name with an extension of letters (not a glob:
/// `*.tmp` names no one file).
fn looks_like_a_file_name(word: &str) -> bool {
    !word.contains(['*', '?', '['])
        && word.rsplit_once('.').is_some_and(|(stem, ext)| {
            !stem.is_empty()
                && !stem.starts_with(['$', '-', '\'', '"'])
                && !ext.is_empty()
                && ext.chars().all(|c| c.is_ascii_alphabetic())
        })
}

/// Whether `text` is the answer of the prompt's example episode ("3 lines
/// of notes.txt mention TODO."), or its start of at least
/// [`EXAMPLE_ANSWER_START`] words ("3 lines of notes.txt"): a small model
/// with nothing of its own to say copies it.
pub fn is_example_answer(text: &str) -> bool {
    let example = EXAMPLE
        .split("answer {\"text\": \"")
        .nth(1)
        .and_then(|rest| rest.split('"').next());
    example.is_some_and(|example| {
        let said = words(text);
        let example = words(example);
        said == example
            || (said.split(' ').count() >= EXAMPLE_ANSWER_START
                && example.starts_with(&said)
                && example[said.len()..].starts_with(' '))
    })
}

/// The fewest words of the example answer's start taken as its copy.
const EXAMPLE_ANSWER_START: usize = 4;

/// Every piece of Nushell the prompt shows (the bash side of its
/// `bash -> nu` pairs left out), the example episode's pipeline last.
pub fn prompt_examples() -> Vec<&'static str> {
    let mut examples = Vec::new();
    for line in NUSHELL.lines() {
        let parts: Vec<&str> = line.split('`').collect();
        for (i, snippet) in parts.iter().enumerate().skip(1).step_by(2) {
            let bash = parts
                .get(i + 1)
                .is_some_and(|after| after.starts_with(" -> "));
            if !bash && !snippet.is_empty() {
                examples.push(*snippet);
            }
        }
    }
    examples.extend(
        EXAMPLE
            .split('"')
            .filter(|part| part.contains(" | "))
            .take(1),
    );
    examples
}

/// The words of `text`, as one space-separated string.
fn words(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// How to behave, per kind.
fn rules(kind: PromptKind) -> &'static str {
    match kind {
        PromptKind::Task => {
            "Rules: answer only with what results show, never guesses. Change or delete only what the task asks. A step the user's policy denied or blocked is final: answer saying what you did not do and why. Answer in a few plain sentences that name what you found (files, names, numbers); when the user wants data (files, rows), set `out` to the N of the `$out.N` holding it."
        }
        PromptKind::Explain { .. } => {
            "Rules: be concrete: name columns, values and what stands out; say what each command of a pipeline does and what it returns."
        }
        PromptKind::Suggest => {
            "Rules: the pipeline must be valid Nushell; prefer built-in commands over programs; set `why` to what it does in a few words."
        }
    }
}

/// The system prompt for `kind` on the machine described by `context`
/// (see [`crate::context::SystemContext::prompt_text`]).
pub fn system_prompt(kind: PromptKind, context: &str) -> String {
    let mut prompt = format!("{}\n\n{NUSHELL}\n\n{}", role(kind), rules(kind));
    if kind == PromptKind::Task {
        prompt.push_str("\n\n");
        prompt.push_str(EXAMPLE);
    }
    let context = context.trim();
    if !context.is_empty() {
        prompt.push_str("\n\n");
        prompt.push_str(context);
    }
    prompt
}

/// `prompt` (a [`system_prompt`]) without its worked example episode.
pub fn without_example(prompt: &str) -> String {
    prompt.replacen(&format!("\n\n{EXAMPLE}"), "", 1)
}

/// What stands between a request and the input piped into it (see
/// [`request_with_input`]).
pub const PIPED_INPUT: &str = "\n\nInput (piped in):\n";

/// The user's request with the data piped into the command rendered after
/// it (within `tokens`), as the model sees a result.
pub fn request_with_input(
    request: &str,
    input: Option<&nu_protocol::Value>,
    tokens: usize,
) -> String {
    match input {
        None | Some(nu_protocol::Value::Nothing { .. }) => request.to_string(),
        Some(value) => {
            let rendered =
                crate::observe::render(value, &crate::observe::Budget::approx(tokens), None);
            let request = if request.trim().is_empty() {
                "Explain this."
            } else {
                request
            };
            format!("{request}{PIPED_INPUT}{rendered}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_example_answer_or_its_start_is_a_copy() {
        assert!(is_example_answer("3 lines of plan.md mention FIXME."));
        assert!(is_example_answer("3 lines of plan.md"));
        assert!(!is_example_answer("3 lines"));
        assert!(!is_example_answer("3 lines of plan.md are empty"));
        assert!(!is_example_answer("3 lines of plan"));
    }

    #[test]
    fn an_example_copied_on_files_that_are_not_here_is_known() {
        let dir = tempfile::tempdir().unwrap();
        assert!(is_example_on_missing_files(
            "open f.csv | get score | math avg",
            dir.path()
        ));
        std::fs::write(dir.path().join("plan.md"), "FIXME x\n").unwrap();
        // The example's file is here: it may be the request's own step.
        assert!(!is_example_on_missing_files(
            "open plan.md | lines | where $it =~ 'FIXME' | length",
            dir.path()
        ));
        // A glob names no one file.
        assert!(!is_example_on_missing_files(
            "ls *.swp | each { rm $in.name }",
            dir.path()
        ));
        // Not an example.
        assert!(!is_example_on_missing_files(
            "open g.csv | get score | math avg",
            dir.path()
        ));
        // An example's made-up file in a pipeline of the model's own.
        assert!(is_example_on_missing_files(
            "open journal.txt | lines | where $it =~ 'x' | length",
            dir.path()
        ));
        assert!(!is_example_on_missing_files(
            "open plan.md | lines | length",
            dir.path()
        ));
    }

    #[test]
    fn piped_input_is_rendered_after_the_request() {
        let input = nu_protocol::Value::test_string("error: linker failed");
        let text = request_with_input("why?", Some(&input), 200);
        assert!(text.starts_with("why?\n\nInput (piped in):\n"), "{text}");
        assert!(text.contains("linker failed"));
        assert_eq!(request_with_input("why?", None, 200), "why?");
    }

    #[test]
    fn the_prompts_own_examples_are_known_as_copies() {
        assert!(is_example("open f.csv | get score | math avg"));
        assert!(is_example(
            "ls | where size > 1mb  | sort-by size --reverse | first 3"
        ));
        assert!(is_example("rm f"));
        assert!(is_example(
            "open plan.md | lines | where $it =~ 'FIXME' | length"
        ));
        // The task's own pipelines, and bare commands, are not copies.
        assert!(!is_example("ls"));
        assert!(!is_example("sys mem"));
        assert!(!is_example("open data.csv | get score | math avg"));
        assert!(!is_example("ls | where size > 1kb"));
        assert!(!is_example("rm old.txt"));
        assert!(is_example_answer("3 lines of plan.md  mention FIXME."));
        assert!(!is_example_answer("3 lines of app.log mention ERROR."));
    }

    #[test]
    fn the_prompts_nushell_leaves_bash_out() {
        let examples = prompt_examples();
        assert!(examples.contains(&"a; b") && examples.contains(&"(cmd)"));
        assert!(!examples.contains(&"a && b") && !examples.contains(&"cat f"));
        assert_eq!(
            examples.last(),
            Some(&"open plan.md | lines | where $it =~ 'FIXME' | length")
        );
    }

    #[test]
    fn prompts_differ_by_kind_and_carry_the_context() {
        let task = system_prompt(PromptKind::Task, "cwd: /home/u");
        assert!(task.contains("`answer`") && task.ends_with("cwd: /home/u"));
        let suggest = system_prompt(PromptKind::Suggest, "");
        assert!(suggest.contains("ONE Nushell pipeline"));
        assert!(!suggest.contains("$out.N holding"));
        // Short: about 4 characters a token, the budget is 1,200 with tools.
        assert!(task.len() < 4_000, "{} chars", task.len());
    }
}
