//! The process-wide llama.cpp backend and the errors of this module.

use std::{path::PathBuf, sync::OnceLock};

use llama_cpp_2::{LogOptions, llama_backend::LlamaBackend, send_logs_to_tracing};

/// Errors of model loading and inference, with what to do about them.
#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    #[error("model file {path} not found")]
    ModelMissing { path: PathBuf },
    #[error("{path} is not a GGUF model file (it does not start with the GGUF magic bytes)")]
    NotGguf { path: PathBuf },
    #[error("llama.cpp could not load {path}; the file may be truncated or corrupt")]
    LoadFailed { path: PathBuf },
    #[error("could not read {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the llama.cpp backend failed to start: {0}")]
    Backend(String),
    #[error("{url}: {message}")]
    Remote {
        url: String,
        message: String,
        /// The server could not be reached at all (connection refused, no
        /// such host, no answer in time), as opposed to an answer refusing
        /// the request.
        unreachable: bool,
    },
    #[error("the conversation does not fit the model's context: {message}")]
    ContextTooLong { message: String },
}

/// llama.cpp allows one backend per process; it lives for the process.
pub fn llama_backend() -> Result<&'static LlamaBackend, LlmError> {
    static BACKEND: OnceLock<Result<LlamaBackend, String>> = OnceLock::new();
    BACKEND
        .get_or_init(|| {
            // llama.cpp logs to stderr by default, which is the user's
            // terminal inside nu: keep it quiet.
            send_logs_to_tracing(LogOptions::default().with_logs_enabled(false));
            LlamaBackend::init().map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| LlmError::Backend(e.clone()))
}
