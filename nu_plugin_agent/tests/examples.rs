//! Every plugin command's examples, run through nu's plugin test harness.

use std::sync::Arc;

use nu_plugin_agent::{
    Agent, AgentContext, AgentExplain, AgentHistory, AgentJob, AgentJobApprove, AgentJobCancel,
    AgentJobClean, AgentJobDeny, AgentJobList, AgentJobLogs, AgentJobResult, AgentJobRun,
    AgentJobSpawn, AgentJobStatus, AgentJobWait, AgentModel, AgentModelInfo, AgentModelList,
    AgentModelPull, AgentModelUse, AgentPlugin, AgentPolicy, AgentPolicyCheck, AgentRun,
    AgentSuggest, Ask,
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

#[test]
fn agent_loop_command_examples() -> Result<(), ShellError> {
    harness()?.test_command_examples(&Ask)?;
    harness()?.test_command_examples(&AgentExplain)?;
    harness()?.test_command_examples(&AgentSuggest)?;
    harness()?.test_command_examples(&AgentHistory)?;
    harness()?.test_command_examples(&AgentContext)
}

#[test]
fn agent_job_examples() -> Result<(), ShellError> {
    harness()?.test_command_examples(&AgentJob)?;
    harness()?.test_command_examples(&AgentJobRun)?;
    harness()?.test_command_examples(&AgentJobSpawn)?;
    harness()?.test_command_examples(&AgentJobList)?;
    harness()?.test_command_examples(&AgentJobStatus)?;
    harness()?.test_command_examples(&AgentJobResult)?;
    harness()?.test_command_examples(&AgentJobLogs)?;
    harness()?.test_command_examples(&AgentJobWait)?;
    harness()?.test_command_examples(&AgentJobCancel)?;
    harness()?.test_command_examples(&AgentJobApprove)?;
    harness()?.test_command_examples(&AgentJobDeny)?;
    harness()?.test_command_examples(&AgentJobClean)
}

#[test]
fn agent_context_reports_this_machine() -> Result<(), ShellError> {
    let arch = harness()?
        .eval("(agent context).arch")?
        .into_value(nu_protocol::Span::test_data())?;
    assert_eq!(arch.as_str()?, std::env::consts::ARCH);
    let text = harness()?
        .eval("agent context --prompt")?
        .into_value(nu_protocol::Span::test_data())?;
    assert!(text.as_str()?.contains("Machine: "), "{text:?}");
    Ok(())
}

#[test]
fn ask_without_a_request_says_what_to_do() -> Result<(), ShellError> {
    let result = harness()?.eval("ask");
    let error = format!("{:?}", result.err());
    assert!(error.contains("ask needs a request"), "{error}");
    Ok(())
}
