//! One turn with a local GGUF model, printing the stream, the parsed turn
//! and the usage: `cargo run -p agent-core --example local_chat -- MODEL
//! "prompt" [--required] [--no-grammar] [--max N]`.

use std::time::Instant;

use agent_core::{
    llm::{
        ChatBackend, ChatEvent, ChatRequest, LocalBackend, LocalConfig, Message, ToolChoice,
        ToolDef,
    },
    shell::CancelToken,
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |f: &str| args.iter().any(|a| a == f);
    let value = |f: &str| {
        args.iter()
            .position(|a| a == f)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let positional: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let (Some(model), Some(prompt)) = (positional.first(), positional.get(1)) else {
        return Err("usage: local_chat MODEL PROMPT [--required] [--no-grammar] [--max N]".into());
    };
    let mut config = LocalConfig::new(model.as_str());
    config.load.context = Some(2048);
    config.load.threads = value("--threads").and_then(|v| v.parse().ok());
    config.turn.grammar = !flag("--no-grammar");
    let mut backend = LocalBackend::new(config);
    let tools = vec![ToolDef {
        name: "nu".into(),
        description: "Run a Nushell pipeline and see its result.".into(),
        parameters: serde_json::json!({"type": "object",
            "properties": {"pipeline": {"type": "string"}}, "required": ["pipeline"]}),
    }];
    let mut request = ChatRequest::new(
        vec![
            Message::system("You are a shell assistant inside Nushell."),
            Message::user(prompt.as_str()),
        ],
        tools,
    );
    if flag("--required") {
        request.tool_choice = ToolChoice::Required;
    }
    request.max_tokens = value("--max").and_then(|v| v.parse().ok()).unwrap_or(128);
    let started = Instant::now();
    let turn = backend.chat(
        &request,
        &mut |e| match e {
            ChatEvent::Text(t) | ChatEvent::Reasoning(t) => print!("{t}"),
            other => println!("\n[{other:?}]"),
        },
        &CancelToken::new(),
    )?;
    println!("\n---\n{turn:#?}\n{:.2?}", started.elapsed());
    Ok(())
}
