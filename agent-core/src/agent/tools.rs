//! The tools the model is offered: `nu` (run a pipeline), `help` (a
//! command's signature and examples from the embedded engine) and `answer`
//! (end with text, optionally returning a result as data).

use std::sync::Arc;

use nu_protocol::engine::EngineState;
use serde_json::json;

use super::posix::{self, SCRIPT_ARGUMENT, SH_TOOL};
use super::prompt::PromptKind;
use crate::llm::{PipelineGrammar, ToolCall, ToolDef};

/// The tool that runs a pipeline.
pub const NU_TOOL: &str = "nu";
/// The `nu` tool's argument that holds the pipeline.
pub const PIPELINE_ARGUMENT: &str = "pipeline";

/// The words a pipeline element may start with: the first word of every
/// command `engine` knows (builtins and their families such as `str` or
/// `math`, and the session's own `def`s and aliases, which are commands of
/// its engine too), `programs` (those on PATH, which models call
/// without `^`) and the habits of other languages the loop translates or
/// names the Nushell form of ([`super::habits::habit_names`]). Sorted,
/// each once.
pub fn pipeline_heads(engine: &EngineState, programs: &[String]) -> Vec<String> {
    let mut heads: Vec<String> = engine
        .get_decls_sorted(false)
        .into_iter()
        .filter_map(|(name, _)| {
            let name = String::from_utf8(name).ok()?;
            name.split_whitespace().next().map(str::to_string)
        })
        .chain(programs.iter().cloned())
        .chain(super::habits::habit_names().map(str::to_string))
        .collect();
    heads.sort_unstable();
    heads.dedup();
    heads
}

/// The `nu` tool's pipeline held to start each element with one of
/// `heads`.
pub fn pipeline_grammar(heads: Arc<[String]>) -> PipelineGrammar {
    PipelineGrammar {
        tool: NU_TOOL.into(),
        argument: PIPELINE_ARGUMENT.into(),
        heads,
    }
}

/// The tool that looks up a command.
pub const HELP_TOOL: &str = "help";
/// The tool that ends the task.
pub const ANSWER_TOOL: &str = "answer";

/// Examples shown by `help`.
const HELP_EXAMPLES: usize = 3;
/// Close matches offered when `help` does not know a command.
const HELP_SUGGESTIONS: usize = 6;

/// What the model may do for `kind`: `ask` has all three tools; `agent
/// explain` has `nu` only when investigating; `agent suggest` proposes its
/// pipeline through `nu` (nothing runs) and has no `answer`.
pub fn tool_defs(kind: PromptKind) -> Vec<ToolDef> {
    let mut tools = Vec::new();
    if kind.offers_nu() {
        tools.push(ToolDef {
            name: NU_TOOL.into(),
            description: "Run a Nushell pipeline; returns its result.".into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "pipeline": {"type": "string", "description": "Nushell code"},
                    "why": {"type": "string", "description": "what this step is for, a few words"},
                    "background": {"type": "boolean", "description": "true: run as a background job; its result comes later as an [event]"}
                },
                "required": ["pipeline", "why"]
            }),
        });
    }
    tools.push(ToolDef {
        name: HELP_TOOL.into(),
        description: "Show a Nushell command's usage and examples.".into(),
        parameters: json!({
            "type": "object",
            "properties": {"command": {"type": "string"}},
            "required": ["command"]
        }),
    });
    if kind == PromptKind::Suggest {
        return tools;
    }
    tools.push(ToolDef {
        name: ANSWER_TOOL.into(),
        description: "Finish: answer the user. Set out to N to return $out.N as data.".into(),
        parameters: json!({
            "type": "object",
            "properties": {
                "text": {"type": "string"},
                "out": {"type": "integer"}
            },
            "required": ["text"]
        }),
    });
    tools
}

/// A call read into what the loop does with it.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Run `pipeline` (as a background job when `background`).
    Run {
        pipeline: String,
        why: String,
        background: bool,
        /// The pipeline runs a script of the `sh` tool (see `posix`): no
        /// Nushell rewrite applies to it.
        script: bool,
    },
    /// Look up `command`.
    Help { command: String },
    /// End with `text`, returning `$out.{out}` as data when given.
    Answer { text: String, out: Option<usize> },
    /// A call the loop cannot act on; the message goes back to the model.
    Invalid(String),
}

impl Action {
    /// What `call` asks for.
    pub fn from_call(call: &ToolCall) -> Action {
        let text = |key: &str| {
            call.arguments
                .get(key)
                .and_then(|v| v.as_str())
                .map(str::to_string)
        };
        match call.name.as_str() {
            NU_TOOL => match text("pipeline").filter(|p| !p.trim().is_empty()) {
                Some(pipeline) => Action::Run {
                    pipeline: nested_pipeline(&pipeline).unwrap_or(pipeline),
                    why: text("why").unwrap_or_default(),
                    background: matches!(
                        call.arguments.get("background"),
                        Some(serde_json::Value::Bool(true))
                    ),
                    script: false,
                },
                None => Action::Invalid("`nu` needs a non-empty `pipeline` string".into()),
            },
            SH_TOOL => {
                let script = text(SCRIPT_ARGUMENT).unwrap_or_default();
                match posix::invalid(&script) {
                    Some(why) => Action::Invalid(why),
                    None => Action::Run {
                        pipeline: posix::as_pipeline(posix::shell(), &script),
                        why: text("why").unwrap_or_default(),
                        background: false,
                        script: true,
                    },
                }
            }
            HELP_TOOL => match text("command").filter(|c| !c.trim().is_empty()) {
                Some(command) => Action::Help { command },
                None => Action::Invalid("`help` needs a `command` name".into()),
            },
            ANSWER_TOOL => {
                let out = match call.arguments.get("out") {
                    None | Some(serde_json::Value::Null) => None,
                    Some(value) => match out_index(value) {
                        Some(n) => Some(n),
                        None => {
                            return Action::Invalid(format!(
                                "`out` must be the number N of a result `$out.N`, not {value}"
                            ));
                        }
                    },
                };
                Action::Answer {
                    text: text("text").unwrap_or_default(),
                    out,
                }
            }
            other => no_such_tool(other),
        }
    }
}

/// What the model reads of a call to a tool it was not offered.
pub fn no_such_tool(name: &str) -> Action {
    Action::Invalid(format!(
        "there is no tool `{name}`; the tools are `nu`, `help` and `answer`"
    ))
}

/// The pipeline of a tool call written inside the `pipeline` string
/// (`nu {'pipeline': 'cp a b', 'why': '…'}`, `{"pipeline": "ls"}`): a small
/// model that has seen the call form writes it again as the pipeline.
/// `None` when `text` is not such a call.
fn nested_pipeline(text: &str) -> Option<String> {
    let text = text.trim();
    let record = text
        .strip_prefix(NU_TOOL)
        .map(str::trim_start)
        .unwrap_or(text);
    if !(record.starts_with('{') && record.ends_with('}')) {
        return None;
    }
    let key = record.find("pipeline")?;
    let after_key = record[key + "pipeline".len()..].trim_start_matches(['\'', '"']);
    let value = after_key.trim_start().strip_prefix(':')?.trim_start();
    let quote = value.chars().next().filter(|c| matches!(c, '\'' | '"'))?;
    let mut pipeline = String::new();
    let mut escaped = false;
    for c in value[1..].chars() {
        match c {
            '\\' if !escaped => escaped = true,
            c if c == quote && !escaped => {
                return (!pipeline.trim().is_empty()).then_some(pipeline);
            }
            c => {
                escaped = false;
                pipeline.push(c);
            }
        }
    }
    None
}

/// `3`, `"3"` or `"$out.3"` as the index 3.
fn out_index(value: &serde_json::Value) -> Option<usize> {
    match value {
        serde_json::Value::Number(n) => n.as_u64().and_then(|n| usize::try_from(n).ok()),
        serde_json::Value::String(s) => s.trim().trim_start_matches("$out.").parse().ok(),
        _ => None,
    }
}

/// `help <command>` from `engine`: the signature, input/output types and a
/// few examples, short; an unknown command gets the closest names.
pub fn command_help(engine: &EngineState, command: &str) -> String {
    let name = command.trim().trim_start_matches('^').trim();
    let Some(decl_id) = engine.find_decl(name.as_bytes(), &[]) else {
        return unknown_command(engine, name);
    };
    let decl = engine.get_decl(decl_id);
    let signature = decl.signature();
    let mut text = format!("{}: {}\n", signature.name, decl.description());
    let mut usage = signature.name.clone();
    for arg in &signature.required_positional {
        usage.push_str(&format!(" <{}: {}>", arg.name, arg.shape));
    }
    for arg in &signature.optional_positional {
        usage.push_str(&format!(" [{}: {}]", arg.name, arg.shape));
    }
    if let Some(rest) = &signature.rest_positional {
        usage.push_str(&format!(" ...{}: {}", rest.name, rest.shape));
    }
    text.push_str(&format!("usage: {usage}\n"));
    let flags: Vec<String> = signature
        .named
        .iter()
        .filter(|flag| flag.long != "help")
        .map(|flag| {
            let short = flag.short.map(|c| format!("(-{c})")).unwrap_or_default();
            let arg = flag
                .arg
                .as_ref()
                .map(|shape| format!(" <{shape}>"))
                .unwrap_or_default();
            format!(
                "  --{}{short}{arg}: {}",
                flag.long,
                first_sentence(&flag.desc)
            )
        })
        .collect();
    if !flags.is_empty() {
        text.push_str("flags:\n");
        text.push_str(&flags.join("\n"));
        text.push('\n');
    }
    let types: Vec<String> = signature
        .input_output_types
        .iter()
        .take(4)
        .map(|(input, output)| format!("{input} -> {output}"))
        .collect();
    if !types.is_empty() {
        text.push_str(&format!("input -> output: {}\n", types.join(", ")));
    }
    let examples = decl.examples();
    if !examples.is_empty() {
        text.push_str("examples:\n");
        for example in examples.iter().take(HELP_EXAMPLES) {
            text.push_str(&format!(
                "  {}  # {}\n",
                example.example,
                first_sentence(example.description)
            ));
        }
    }
    text.trim_end().to_string()
}

/// The names closest to an unknown `name`: those containing it or one of
/// its words, shortest first.
fn unknown_command(engine: &EngineState, name: &str) -> String {
    let words: Vec<String> = name
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() > 1)
        .map(str::to_lowercase)
        .collect();
    let mut matches: Vec<String> = engine
        .get_decls_sorted(false)
        .into_iter()
        .filter_map(|(decl, _)| String::from_utf8(decl).ok())
        .filter(|decl| {
            words
                .iter()
                .any(|w| decl.to_lowercase().contains(w.as_str()))
        })
        .collect();
    matches.sort_by_key(|m| (m.len(), m.clone()));
    matches.truncate(HELP_SUGGESTIONS);
    let mut text = format!("`{name}` is not a Nushell command.");
    if !matches.is_empty() {
        text.push_str(&format!(" Close ones: {}.", matches.join(", ")));
    }
    text.push_str(" A system program runs as `^name args`.");
    text
}

/// The first sentence (or line) of `text`.
fn first_sentence(text: &str) -> &str {
    let line = text.lines().next().unwrap_or("");
    match line.find(". ") {
        Some(end) => &line[..=end],
        None => line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shell::Engine;

    fn call(name: &str, args: serde_json::Value) -> ToolCall {
        ToolCall {
            id: "call_0".into(),
            name: name.into(),
            arguments: args.as_object().cloned().unwrap_or_default(),
        }
    }

    #[test]
    fn calls_become_actions() {
        assert_eq!(
            Action::from_call(&call("nu", json!({"pipeline": "ls", "why": "look"}))),
            Action::Run {
                pipeline: "ls".into(),
                why: "look".into(),
                background: false,
                script: false,
            }
        );
        assert_eq!(
            Action::from_call(&call(
                "nu",
                json!({"pipeline": "du /", "why": "sizes", "background": true})
            )),
            Action::Run {
                pipeline: "du /".into(),
                why: "sizes".into(),
                background: true,
                script: false,
            }
        );
        // A script of the `sh` tool runs as the shell's own pipeline; one
        // that is not valid shell goes back with the parser's error.
        assert_eq!(
            Action::from_call(&call("sh", json!({"script": "ls | wc -l", "why": "count"}))),
            Action::Run {
                pipeline: posix::as_pipeline(posix::shell(), "ls | wc -l"),
                why: "count".into(),
                background: false,
                script: true,
            }
        );
        assert!(matches!(
            Action::from_call(&call("sh", json!({"script": "echo 'open"}))),
            Action::Invalid(why) if why.contains("not valid shell")
        ));
        assert_eq!(
            Action::from_call(&call("answer", json!({"text": "done", "out": "$out.2"}))),
            Action::Answer {
                text: "done".into(),
                out: Some(2)
            }
        );
        assert!(matches!(
            Action::from_call(&call("answer", json!({"text": "x", "out": -1}))),
            Action::Invalid(_)
        ));
        assert!(matches!(
            Action::from_call(&call("nu", json!({"pipeline": "  "}))),
            Action::Invalid(_)
        ));
        assert!(matches!(
            Action::from_call(&call("bash", json!({}))),
            Action::Invalid(m) if m.contains("`nu`")
        ));
    }

    #[test]
    fn a_call_written_as_the_pipeline_runs_its_pipeline() {
        let run =
            |pipeline: &str| match Action::from_call(&call("nu", json!({"pipeline": pipeline}))) {
                Action::Run { pipeline, .. } => pipeline,
                other => panic!("{other:?}"),
            };
        assert_eq!(
            run("nu {'pipeline': 'cp a.conf /etc/a.conf', 'why': 'copy', 'background': false}"),
            "cp a.conf /etc/a.conf"
        );
        assert_eq!(
            run(r#"{"pipeline": "open a.log | lines | where $it =~ \"x\""}"#),
            "open a.log | lines | where $it =~ \"x\""
        );
        // Records that are data stay as they are.
        assert_eq!(run("{name: 'x'} | to json"), "{name: 'x'} | to json");
        assert_eq!(run("{pipeline: 3}"), "{pipeline: 3}");
    }

    #[test]
    fn help_shows_usage_flags_and_examples() {
        let help = command_help(Engine::standard().state(), "sort-by");
        assert!(help.starts_with("sort-by: "), "{help}");
        assert!(help.contains("--reverse(-r)"), "{help}");
        assert!(help.contains("examples:"), "{help}");
        assert!(help.len() < 1_500, "{help}");
        let unknown = command_help(Engine::standard().state(), "grep");
        assert!(unknown.contains("not a Nushell command"), "{unknown}");
        let close = command_help(Engine::standard().state(), "sort");
        assert!(close.starts_with("sort: "), "{close}");
    }
}
