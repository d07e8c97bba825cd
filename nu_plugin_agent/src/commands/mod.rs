//! One file per plugin command.

mod agent;
mod ask;
mod context;
mod explain;
mod history;
pub(crate) mod job;
pub(crate) mod model;
mod model_info;
mod model_list;
mod model_pull;
mod model_use;
mod policy;
mod policy_check;
pub(crate) mod run;
mod suggest;

pub use agent::Agent;
pub use ask::Ask;
pub use context::AgentContext;
pub use explain::AgentExplain;
pub use history::AgentHistory;
pub use job::{
    AgentJob, AgentJobApprove, AgentJobCancel, AgentJobClean, AgentJobDeny, AgentJobList,
    AgentJobLogs, AgentJobResult, AgentJobRun, AgentJobSpawn, AgentJobStatus, AgentJobWait,
};
pub use model::AgentModel;
pub use model_info::AgentModelInfo;
pub use model_list::AgentModelList;
pub use model_pull::AgentModelPull;
pub use model_use::AgentModelUse;
pub use policy::AgentPolicy;
pub use policy_check::AgentPolicyCheck;
pub use run::AgentRun;
pub use suggest::AgentSuggest;
