//! The plugin binary: `plugin add ~/.cargo/bin/nu_plugin_agent`.

use agent_core::policy::{sandbox, worker_engine};

fn main() {
    // The launcher and a sandbox worker must restrict themselves before
    // anything starts a thread.
    if std::env::args_os()
        .nth(1)
        .is_some_and(|arg| arg == sandbox::EXEC_ARG)
    {
        std::process::exit(sandbox::exec_main(std::env::args_os().skip(2).collect()));
    }
    if std::env::args_os()
        .nth(1)
        .is_some_and(|arg| arg == sandbox::WORKER_ARG)
    {
        std::process::exit(sandbox::worker_main(worker_engine));
    }
    // A portable build checks each CPU variant in a copy of itself.
    if let Some(status) = agent_core::llm::cpu_variant::check_if_asked() {
        std::process::exit(status);
    }
    nu_plugin::serve_plugin(
        &nu_plugin_agent::AgentPlugin::new(),
        nu_plugin::MsgPackSerializer,
    );
}
