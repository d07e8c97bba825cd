//! Every plugin command's examples, run through nu's plugin test harness.

use std::sync::Arc;

use nu_plugin_agent::{Agent, AgentPlugin, AgentRun};
use nu_plugin_test_support::PluginTest;

#[test]
fn agent_run_examples() -> Result<(), nu_protocol::ShellError> {
    PluginTest::new("agent", Arc::new(AgentPlugin::new()))?.test_command_examples(&AgentRun)
}

#[test]
fn agent_examples() -> Result<(), nu_protocol::ShellError> {
    PluginTest::new("agent", Arc::new(AgentPlugin::new()))?.test_command_examples(&Agent)
}
