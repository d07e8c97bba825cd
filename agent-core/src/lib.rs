//! agent-core: everything of nu_plugin_agent that is not an adapter.
//!
//! Data flows one way: a model turn (`llm`) proposes a pipeline, the
//! embedded engine (`shell`) runs it, and `observe` renders the result for
//! the next model turn. Front ends (the nu plugin, the `nu-agent` CLI) only
//! translate and draw.

pub mod agent;
pub mod config;
pub mod context;
pub mod eval;
pub mod jobs;
pub mod llm;
pub mod observe;
pub mod policy;
pub mod redact;
pub mod shell;
pub mod store;
pub mod ui;
