//! Print what the model is told before the user's request: the system
//! prompt for `ask` (with this machine's context) and the tools' JSON.
//! `cargo run -p agent-core --example system_prompt [task|explain|suggest]`

use agent_core::{
    agent::{PromptKind, system_prompt, tool_defs},
    context::{DEFAULT_TOOLS, system_context},
};

fn main() {
    let kind = match std::env::args().nth(1).as_deref() {
        Some("explain") => PromptKind::Explain { investigate: false },
        Some("suggest") => PromptKind::Suggest,
        _ => PromptKind::Task,
    };
    let tools: Vec<String> = DEFAULT_TOOLS.iter().map(|t| t.to_string()).collect();
    let cwd = std::env::current_dir().unwrap_or_default();
    let context = system_context(&tools, false).prompt_text(&cwd);
    println!("{}", system_prompt(kind, &context));
    println!();
    for tool in tool_defs(kind) {
        let json = serde_json::json!({"type": "function", "function": tool});
        println!("{json}");
    }
}
