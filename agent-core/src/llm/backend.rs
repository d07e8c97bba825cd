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
            // A build whose GPU backends are modules loads them now; one
            // whose libraries or device are missing (no driver, no GPU)
            // simply has none, and runs on the CPU.
            // The CPU variant is the best for this CPU that passes its
            // check in a child process; with none, llama.cpp must not start
            // (it would load the best one unchecked).
            #[cfg(feature = "gpu-dl")]
            {
                let cpu = super::cpu_variant::load_modules();
                if cpu.path.is_none() {
                    return Err(super::cpu_variant::no_variant_message(&cpu));
                }
                super::cpu_variant::record(cpu);
            }
            LlamaBackend::init().map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| LlmError::Backend(e.clone()))
}

/// The GPU devices llama.cpp can use in this process (`CUDA0: NVIDIA H100
/// …`); empty for a CPU-only build or when no GPU was found.
pub fn gpu_devices() -> Vec<String> {
    if llama_backend().is_err() {
        return Vec::new();
    }
    llama_cpp_2::list_llama_ggml_backend_devices()
        .into_iter()
        .filter(|d| !d.backend.eq_ignore_ascii_case("cpu") && !d.name.starts_with("CPU"))
        .map(|d| format!("{}: {}", d.name, d.description))
        .collect()
}

/// What to tell the user when this build has a GPU backend but llama.cpp
/// found no device to use (no GPU, no driver, or its libraries missing).
pub fn no_gpu_notice(compiled: &[&str], devices: &[String]) -> Option<String> {
    (!compiled.is_empty() && devices.is_empty()).then(|| {
        format!(
            "this build has the {} backend but no GPU was found (or its driver and libraries were not): the model runs on the CPU",
            compiled.join("/")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gpu_build_without_a_device_says_so() {
        assert!(
            no_gpu_notice(&["cuda"], &[])
                .unwrap()
                .contains("cuda backend but no GPU was found")
        );
        assert_eq!(
            no_gpu_notice(&["cuda"], &["CUDA0: NVIDIA H100".into()]),
            None
        );
        assert_eq!(no_gpu_notice(&[], &[]), None);
    }
}
