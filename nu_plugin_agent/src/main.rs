//! The plugin binary: `plugin add ~/.cargo/bin/nu_plugin_agent`.

use std::sync::Arc;

use agent_core::{
    policy::{Approver, sandbox},
    shell::Engine,
};

fn main() {
    // A sandbox worker must restrict itself before anything starts a thread.
    if std::env::args_os()
        .nth(1)
        .is_some_and(|arg| arg == sandbox::WORKER_ARG)
    {
        std::process::exit(sandbox::worker_main(standard_engine));
    }
    nu_plugin::serve_plugin(
        &nu_plugin_agent::AgentPlugin::new(),
        nu_plugin::MsgPackSerializer,
    );
}

/// The engine a sandbox worker evaluates with.
fn standard_engine(_policy: &serde_json::Value, _: Arc<dyn Approver>) -> Result<Engine, String> {
    Ok(Engine::standard().clone())
}
