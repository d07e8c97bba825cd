//! Every plugin command's examples, run through nu's plugin test harness.

use std::sync::Arc;

use nu_plugin_agent::{
    Agent, AgentModel, AgentModelInfo, AgentModelList, AgentModelPull, AgentModelUse, AgentPlugin,
    AgentPolicy, AgentPolicyCheck, AgentRun,
};
use nu_plugin_test_support::PluginTest;
use nu_protocol::ShellError;

fn harness() -> Result<PluginTest, ShellError> {
    PluginTest::new("agent", Arc::new(AgentPlugin::new()))
}

#[test]
fn agent_run_examples() -> Result<(), ShellError> {
    harness()?.test_command_examples(&AgentRun)
}

#[test]
fn agent_examples() -> Result<(), ShellError> {
    harness()?.test_command_examples(&Agent)
}

#[test]
fn agent_policy_examples() -> Result<(), ShellError> {
    harness()?.test_command_examples(&AgentPolicy)
}

#[test]
fn agent_policy_check_examples() -> Result<(), ShellError> {
    harness()?.test_command_examples(&AgentPolicyCheck)
}

#[test]
fn agent_model_examples() -> Result<(), ShellError> {
    harness()?.test_command_examples(&AgentModel)?;
    harness()?.test_command_examples(&AgentModelList)?;
    harness()?.test_command_examples(&AgentModelInfo)?;
    harness()?.test_command_examples(&AgentModelPull)?;
    harness()?.test_command_examples(&AgentModelUse)
}
