//! The embedded Nushell engine.
//!
//! One base [`Engine`] (nu-cmd-lang + nu-command, no ANSI, externals detached
//! with null stdin in their own session) is built once per process. A
//! [`Session`] clones it and keeps its `Stack`, so `cd`, `let`, `def` and
//! `$env.X = ...` persist between runs. [`Session::run`] evaluates one
//! pipeline on a worker thread under [`Limits`] and returns an [`Outcome`]:
//! the full value, the cwd after, an external's exit code, a structured
//! [`Diagnostic`] on error, and why it stopped early if it did.

/// The `Command` methods of a wrapper around another builtin (its field
/// `inner`) that say what the command is: all but `run`, forwarded to
/// `inner`, with the wrapper always a builtin (nu runs only builtins
/// in-process with the caller's stack).
macro_rules! forward_to_inner {
    () => {
        fn name(&self) -> &str {
            self.inner.name()
        }

        fn signature(&self) -> nu_protocol::Signature {
            self.inner.signature()
        }

        fn description(&self) -> &str {
            self.inner.description()
        }

        fn extra_description(&self) -> &str {
            self.inner.extra_description()
        }

        fn search_terms(&self) -> Vec<&str> {
            self.inner.search_terms()
        }

        fn examples(&self) -> Vec<nu_protocol::Example<'_>> {
            self.inner.examples()
        }

        fn command_type(&self) -> nu_protocol::engine::CommandType {
            nu_protocol::engine::CommandType::Builtin
        }

        fn pipe_redirection(&self) -> (Option<nu_protocol::OutDest>, Option<nu_protocol::OutDest>) {
            self.inner.pipe_redirection()
        }

        fn requires_ast_for_arguments(&self) -> bool {
            self.inner.requires_ast_for_arguments()
        }
    };
}
pub(crate) use forward_to_inner;

mod cancel;
mod cap;
mod collect;
mod diagnostic;
mod engine;
mod env;
mod glob;
mod outcome;
mod print;
mod session;
mod stdout;
mod worker;

pub use cancel::CancelToken;
pub(crate) use cap::cut_to_fit;
pub use cap::{CutPart, OutputCut, json_size};
pub(crate) use diagnostic::without_ansi;
pub use diagnostic::{Diagnostic, DiagnosticLabel};
pub use engine::{Engine, RunHooks};
pub use env::{
    EnvFilter, filter_env, is_code_injection_name, is_secret_name, redirects_configuration,
};
pub use outcome::{
    DEFAULT_MAX_OUTPUT, Limits, Outcome, SizeError, StopReason, humanize_bytes, humanize_duration,
    parse_size,
};
pub use session::{Session, SessionSeed};
