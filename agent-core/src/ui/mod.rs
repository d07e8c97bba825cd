//! Terminal interaction shared by both front ends (the plugin and the CLI).

mod approve;

pub use approve::TerminalApprover;
