//! One file per plugin command.

mod agent;
mod model;
mod model_info;
mod model_list;
mod model_pull;
mod model_use;
mod policy;
mod policy_check;
mod run;

pub use agent::Agent;
pub use model::AgentModel;
pub use model_info::AgentModelInfo;
pub use model_list::AgentModelList;
pub use model_pull::AgentModelPull;
pub use model_use::AgentModelUse;
pub use policy::AgentPolicy;
pub use policy_check::AgentPolicyCheck;
pub use run::AgentRun;
