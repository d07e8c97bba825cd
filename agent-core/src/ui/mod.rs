//! Terminal interaction shared by both front ends (the plugin and the CLI).

mod approve;
mod progress;

pub use approve::TerminalApprover;
pub use progress::{ProgressView, ViewOptions};
