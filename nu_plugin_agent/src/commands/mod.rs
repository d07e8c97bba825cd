//! One file per plugin command.

mod agent;
mod run;

pub use agent::Agent;
pub use run::AgentRun;
