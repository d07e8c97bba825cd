//! `nu-agent mcp`: the engine as a Model Context Protocol server on stdio
//! (or, with `--http`, streamable HTTP on loopback), for any agent that
//! speaks MCP (Claude Code, Codex CLI, Cursor, ...).
//!
//! Every pipeline an agent sends runs as `ask`'s steps run: in a
//! persistent session under the user's policy, each external in its own
//! sandbox; a step that needs confirmation is asked of the user through
//! the client (MCP elicitation), never of the agent. tokio lives in this
//! module alone: the server's runtime is one thread, and the steps run on
//! threads of their own.

mod approver;
mod http;
mod jobs;
mod json;
mod server;
mod session;
mod tools;

use std::{
    net::SocketAddr,
    os::fd::{AsFd, AsRawFd},
    process::ExitCode,
    time::Duration,
};

use agent_core::{
    agent::JobSettings,
    policy::{Layers, Policy},
    shell::SessionSeed,
};
use rmcp::ServiceExt;

use crate::common::EXIT_FAILED;

pub use http::parse_address;

/// What the server runs with: the policy (with the command line's
/// overrides), where sessions start, and the approvals given in advance.
pub struct Settings {
    pub policy: Policy,
    pub layers: Layers,
    /// Where every session (and job) starts: `--cwd`, and the server's
    /// environment.
    pub seed: SessionSeed,
    /// `--approve` patterns.
    pub approve: Vec<String>,
    /// Most bytes kept from one stream of a step.
    pub max_output: usize,
    /// The time limit of a `run` that gives none.
    pub step_timeout: Duration,
    /// Tokens of the compact rendering of a result.
    pub observe_tokens: usize,
    pub jobs: JobSettings,
}

/// Where the server talks to its clients.
pub enum Transport {
    /// One client on stdin/stdout.
    Stdio,
    /// Streamable HTTP on this loopback address (port 0: a free one).
    Http(SocketAddr),
}

/// Serve MCP on stdin/stdout until the client closes the connection, or
/// over HTTP until SIGINT or SIGTERM.
pub fn mcp(settings: Settings, transport: Transport) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("nu-agent: cannot start the MCP server: {err}");
            return ExitCode::from(EXIT_FAILED);
        }
    };
    let served = match transport {
        Transport::Stdio => runtime.block_on(serve(settings)),
        Transport::Http(address) => runtime.block_on(http::serve(settings, address)),
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("nu-agent: {message}");
            ExitCode::from(EXIT_FAILED)
        }
    }
}

async fn serve(settings: Settings) -> Result<(), String> {
    let output = protocol_output()?;
    let server = server::NuServer::new(settings);
    let jobs = server.jobs();
    let transport = (tokio::io::stdin(), output);
    let running = server
        .serve(transport)
        .await
        .map_err(|e| format!("the MCP connection failed to start: {e}"))?;
    let ended = running.waiting().await;
    // Jobs end with the server that runs them (they would be lost).
    if let Ok(jobs) = jobs.as_ref() {
        jobs.cancel_all();
    }
    ended
        .map(|_| ())
        .map_err(|e| format!("the MCP connection ended with an error: {e}"))
}

/// Standard output, kept for the protocol alone: the server writes its
/// messages to a copy of it, and descriptor 1 itself goes to stderr, so
/// nothing else a step or a library prints can break a message.
fn protocol_output() -> Result<tokio::fs::File, String> {
    let copy = std::io::stdout()
        .as_fd()
        .try_clone_to_owned()
        .map_err(|e| format!("cannot keep standard output for MCP: {e}"))?;
    // SAFETY: dup2 on two descriptors this process owns (stderr, stdout);
    // the protocol's copy stays open.
    let moved = unsafe { libc::dup2(std::io::stderr().as_raw_fd(), libc::STDOUT_FILENO) };
    if moved < 0 {
        return Err(format!(
            "cannot point standard output at stderr: {}",
            std::io::Error::last_os_error()
        ));
    }
    Ok(tokio::fs::File::from_std(std::fs::File::from(copy)))
}
