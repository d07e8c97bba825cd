//! What the agent keeps on disk: the state dir and the append-only audit
//! log.
//!
//! Nothing is lost: records are only ever appended, one JSON line per
//! write, so a crash mid-write can leave at most a torn last line, which
//! readers skip.

pub(crate) mod append;
pub mod audit;
pub mod history;
pub(crate) mod state_dir;

use std::path::PathBuf;

pub use audit::{AuditEvent, AuditLog, AuditRecord};
pub use history::{
    Conversation, ConversationLog, ConversationMeta, ConversationSummary, History, RunEnd,
};
pub use state_dir::state_dir;

/// Why the state dir or a log could not be used.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// No state dir can be derived from the environment.
    #[error(
        "no state directory: set NU_AGENT_STATE_DIR or XDG_STATE_HOME, or HOME, to an absolute path"
    )]
    NoStateDir,
    /// `NU_AGENT_STATE_DIR` is set but not absolute.
    #[error("NU_AGENT_STATE_DIR must be an absolute path, not {0}")]
    RelativeStateDir(PathBuf),
    /// A directory could not be created.
    #[error("cannot create the directory {path}: {source}")]
    CreateDir {
        /// The directory.
        path: PathBuf,
        /// What the OS said.
        source: std::io::Error,
    },
    /// A file could not be opened.
    #[error("cannot open {path}: {source} (check its permissions)")]
    Open {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        source: std::io::Error,
    },
    /// A record could not be written.
    #[error("cannot write to {path}: {source} (is the disk full?)")]
    Write {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        source: std::io::Error,
    },
    /// A file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        source: std::io::Error,
    },
    /// No conversation has this id.
    #[error("no conversation `{0}` in the history (see `agent history`)")]
    UnknownConversation(String),
    /// A record could not be turned into JSON.
    #[error("cannot encode an audit record: {0}")]
    Encode(#[from] serde_json::Error),
}
