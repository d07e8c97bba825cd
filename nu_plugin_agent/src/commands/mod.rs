//! One file per plugin command.

mod agent;
mod policy;
mod policy_check;
mod run;

pub use agent::Agent;
pub use policy::AgentPolicy;
pub use policy_check::AgentPolicyCheck;
pub use run::AgentRun;
