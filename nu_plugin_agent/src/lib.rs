//! nu_plugin_agent: the nu plugin adapter over `agent-core`.
//!
//! Adapters only translate (nu values and calls <-> agent-core types) and
//! draw; every decision lives in agent-core.

mod approver;
mod commands;
mod convert;
mod hook;

use nu_plugin::{Plugin, PluginCommand};

pub use commands::{Agent, AgentPolicy, AgentPolicyCheck, AgentRun};

/// The `agent` plugin: registered with `plugin add nu_plugin_agent`.
#[derive(Default)]
pub struct AgentPlugin;

impl AgentPlugin {
    pub fn new() -> Self {
        AgentPlugin
    }
}

impl Plugin for AgentPlugin {
    fn version(&self) -> String {
        env!("CARGO_PKG_VERSION").into()
    }

    fn commands(&self) -> Vec<Box<dyn PluginCommand<Plugin = Self>>> {
        vec![
            Box::new(Agent),
            Box::new(AgentRun),
            Box::new(AgentPolicy),
            Box::new(AgentPolicyCheck),
        ]
    }
}
