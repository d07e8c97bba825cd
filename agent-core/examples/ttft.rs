//! Time to first token of a fresh process: load a GGUF model, then answer a
//! short question after a fixed prefix of about 1,500 tokens (a long system
//! prompt and ten tools), generating one token, and print one JSON line of
//! timings. With `--cache DIR` the prefix's KV state is read from DIR when a
//! previous run left it there (and written there otherwise):
//! `cargo run --release -p agent-core --example ttft -- MODEL [--cache DIR]
//! [--threads N] [--context N]`. `cargo bench -p agent-core --bench local`
//! runs it cold and warm.

use std::{path::PathBuf, time::Instant};

use agent_core::{
    llm::{ChatBackend, ChatRequest, LocalBackend, LocalConfig, Message, ToolDef},
    shell::CancelToken,
};
use serde_json::json;

/// Rules of the long system prompt (numbered, so no two lines repeat).
const RULES: &[&str] = &[
    "Prefer structured Nushell commands (ls, ps, sys, open) over external tools, and keep their tables as tables.",
    "Run one pipeline at a time and read its result before deciding what to do next.",
    "Never delete, move or overwrite a file unless the user asked for exactly that, and name the files first.",
    "Quote paths that contain spaces, and use absolute paths when the working directory is unclear.",
    "When a command fails, read the error, fix the pipeline and try once more before asking the user.",
    "Summarise long outputs: the first rows, the count, and what stands out, rather than every line.",
    "Do not print secrets: environment variables named like tokens, keys or passwords stay hidden.",
    "Ask before anything that touches the network, installs software or changes system settings.",
    "Keep answers short: one or two sentences, then the table or the value the user asked for.",
    "Use `where`, `sort-by`, `first` and `length` to narrow a table before showing it.",
    "Dates are shown in the user's local time zone, sizes in human units, durations rounded sensibly.",
    "If the request is ambiguous, pick the most likely meaning, say which one you picked, and go on.",
];

fn system_prompt() -> String {
    let mut text = String::from(
        "You are a careful shell assistant inside Nushell. You act through the tools below and answer in plain words.\n",
    );
    // All the rules, then the first four again: about 1,500 tokens with
    // the tools.
    for (i, rule) in RULES.iter().chain(&RULES[..4]).enumerate() {
        text.push_str(&format!("Rule {}: {rule}\n", i + 1));
    }
    text
}

fn tool(name: &str, description: &str, properties: &[(&str, &str)], required: &[&str]) -> ToolDef {
    let props: serde_json::Map<String, serde_json::Value> = properties
        .iter()
        .map(|(name, description)| {
            (
                name.to_string(),
                json!({"type": "string", "description": description}),
            )
        })
        .collect();
    ToolDef {
        name: name.into(),
        description: description.into(),
        parameters: json!({"type": "object", "properties": props, "required": required}),
    }
}

/// Ten tools with descriptions and arguments.
fn tools() -> Vec<ToolDef> {
    vec![
        tool(
            "nu",
            "Run a Nushell pipeline and see its result as a table or a value.",
            &[
                ("pipeline", "the pipeline to run"),
                ("why", "one line on why"),
            ],
            &["pipeline"],
        ),
        tool(
            "read_file",
            "Read a text file, or a range of its lines.",
            &[
                ("path", "the file"),
                ("from", "first line"),
                ("to", "last line"),
            ],
            &["path"],
        ),
        tool(
            "write_file",
            "Write text to a file, replacing it; asks the user first.",
            &[("path", "the file"), ("text", "the new contents")],
            &["path", "text"],
        ),
        tool(
            "search",
            "Search files under a directory for a regular expression.",
            &[
                ("pattern", "the expression"),
                ("dir", "where to look"),
                ("glob", "which files"),
            ],
            &["pattern"],
        ),
        tool(
            "list_dir",
            "List a directory with sizes, kinds and modification times.",
            &[("path", "the directory"), ("all", "include hidden files")],
            &["path"],
        ),
        tool(
            "processes",
            "List running processes with their CPU and memory use.",
            &[("filter", "a name to match"), ("sort", "cpu or mem")],
            &[],
        ),
        tool(
            "disk_usage",
            "Show the disk usage of a directory tree, largest first.",
            &[("path", "the directory"), ("depth", "how deep")],
            &["path"],
        ),
        tool(
            "git",
            "Run a read-only git command (status, log, diff, branch) in a repository.",
            &[("args", "the arguments"), ("repo", "the repository")],
            &["args"],
        ),
        tool(
            "ask_user",
            "Ask the user a question and wait for the answer.",
            &[("question", "what to ask")],
            &["question"],
        ),
        tool(
            "answer",
            "Give the final answer to the user.",
            &[("text", "the answer")],
            &["text"],
        ),
    ]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let started = Instant::now();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |f: &str| {
        args.iter()
            .position(|a| a == f)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let Some(model) = args.first().filter(|a| !a.starts_with("--")) else {
        return Err("usage: ttft MODEL [--cache DIR] [--threads N] [--context N]".into());
    };
    let mut config = LocalConfig::new(model.as_str());
    config.load.context = Some(
        value("--context")
            .and_then(|v| v.parse().ok())
            .unwrap_or(2048),
    );
    config.load.threads = value("--threads").and_then(|v| v.parse().ok());
    config.load.gpu_layers = Some(0);
    config.turn.prefix_cache = value("--cache").map(PathBuf::from);
    let mut backend = LocalBackend::new(config);
    backend.load()?;
    let loaded_ms = started.elapsed().as_secs_f64() * 1e3;
    let request = {
        let mut r = ChatRequest::new(
            vec![
                Message::system(system_prompt()),
                Message::user("How much free space is left on this disk?"),
            ],
            tools(),
        );
        r.max_tokens = 1;
        r
    };
    let before_turn = Instant::now();
    let turn = backend.chat(&request, &mut |_| {}, &CancelToken::new())?;
    let ttft_ms = started.elapsed().as_secs_f64() * 1e3;
    let turn_ms = before_turn.elapsed().as_secs_f64() * 1e3;
    println!(
        "{}",
        json!({
            "ttft_ms": ttft_ms,
            "load_ms": loaded_ms,
            "turn_ms": turn_ms,
            "prompt_tokens": turn.usage.prompt_tokens,
            "prompt_evaluated": turn.usage.prompt_evaluated,
            "completion_tokens": turn.usage.completion_tokens,
        })
    );
    Ok(())
}
