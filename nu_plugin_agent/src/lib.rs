//! nu_plugin_agent: the nu plugin adapter over `agent-core`.
//!
//! Adapters only translate (nu values and calls <-> agent-core types) and
//! draw; every decision lives in agent-core.

mod approver;
mod background;
mod caller;
mod commands;
mod conversation;
mod convert;
mod hook;
pub mod model_report;
mod task_job;

use std::{path::PathBuf, sync::Mutex};

pub use background::{AskJobs, job_outcome};
use nu_plugin::{Plugin, PluginCommand};

pub use commands::{
    Agent, AgentContext, AgentExplain, AgentHistory, AgentJob, AgentJobApprove, AgentJobCancel,
    AgentJobClean, AgentJobDeny, AgentJobList, AgentJobLogs, AgentJobResult, AgentJobRun,
    AgentJobSpawn, AgentJobStatus, AgentJobWait, AgentModel, AgentModelInfo, AgentModelList,
    AgentModelPull, AgentModelUse, AgentPolicy, AgentPolicyCheck, AgentRun, AgentSuggest, Ask,
};

/// The `agent` plugin: registered with `plugin add nu_plugin_agent`.
#[derive(Default)]
pub struct AgentPlugin {
    /// The model `agent model use` switched to, for this plugin process.
    chosen_model: Mutex<Option<PathBuf>>,
    /// The background jobs this process runs.
    background: background::Background,
    /// The commands answered "always" in this nu session (this process).
    always: agent_core::policy::AlwaysAllowed,
}

impl AgentPlugin {
    pub fn new() -> Self {
        AgentPlugin::default()
    }

    /// The model `agent model use` chose, if any.
    pub fn chosen_model(&self) -> Option<PathBuf> {
        self.chosen_model
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
            .clone()
    }

    /// Keep this process (and what it remembers for the nu session: the
    /// "always" answers) alive once something was answered "always".
    pub(crate) fn hold_if_always(&self, engine: &nu_plugin::EngineInterface) {
        if !self.always.is_empty() {
            let _ = self.background.hold(engine);
        }
    }

    /// Use the model at `path` from now on.
    pub fn choose_model(&self, path: PathBuf) {
        *self
            .chosen_model
            .lock()
            .unwrap_or_else(|poison| poison.into_inner()) = Some(path);
    }
}

impl Plugin for AgentPlugin {
    fn version(&self) -> String {
        env!("CARGO_PKG_VERSION").into()
    }

    fn commands(&self) -> Vec<Box<dyn PluginCommand<Plugin = Self>>> {
        vec![
            Box::new(Agent),
            Box::new(Ask),
            Box::new(AgentExplain),
            Box::new(AgentSuggest),
            Box::new(AgentHistory),
            Box::new(AgentJob),
            Box::new(AgentJobRun),
            Box::new(AgentJobSpawn),
            Box::new(AgentJobList),
            Box::new(AgentJobStatus),
            Box::new(AgentJobResult),
            Box::new(AgentJobLogs),
            Box::new(AgentJobWait),
            Box::new(AgentJobCancel),
            Box::new(AgentJobApprove),
            Box::new(AgentJobDeny),
            Box::new(AgentJobClean),
            Box::new(AgentContext),
            Box::new(AgentRun),
            Box::new(AgentPolicy),
            Box::new(AgentPolicyCheck),
            Box::new(AgentModel),
            Box::new(AgentModelList),
            Box::new(AgentModelInfo),
            Box::new(AgentModelPull),
            Box::new(AgentModelUse),
        ]
    }
}
