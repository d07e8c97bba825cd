//! Which CPU code llama.cpp runs on. A CPU-only build has it linked in. A
//! portable build (`gpu-dl`: llama.cpp's `GGML_BACKEND_DL` with every x86
//! CPU variant as a module, `libggml-cpu-haswell.so`, `…-zen4.so`,
//! `…-sapphirerapids.so`) picks one at start-up: the variants this CPU
//! reports the features for, best first, each checked in a child process
//! (this binary started again with [`CHECK_ARG`]) before this process loads
//! it, so a module that dies on this machine (an illegal instruction, a
//! wrong answer) is passed over for the next instead of killing the agent.

mod check;
// Only a portable build loads modules; the rest is built (and tested)
// everywhere.
#[cfg_attr(not(feature = "gpu-dl"), allow(dead_code))]
mod modules;

pub use check::check_main;
pub use modules::MODULES_ENV;
#[cfg(feature = "gpu-dl")]
pub(crate) use modules::{gpu_modules_found, load_modules};

use std::{path::PathBuf, sync::OnceLock};

/// The argument that starts a binary as the check of one CPU variant
/// (`<binary> --nu-agent-cpu-check <module path>`); a binary that embeds
/// the local backend hands it to [`check_main`] first thing in `main`.
pub const CHECK_ARG: &str = "--nu-agent-cpu-check";

/// The CPU code in use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CpuBackend {
    /// The variant (`zen4`, `haswell`, `sapphirerapids`, …), or `built in`
    /// when the build links its CPU code.
    pub variant: String,
    /// The module file, for a portable build.
    pub path: Option<PathBuf>,
    /// Variants this CPU reports the features for that failed their check.
    pub skipped: Vec<SkippedVariant>,
}

/// A CPU variant passed over, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkippedVariant {
    pub variant: String,
    pub reason: String,
}

/// The name [`CpuBackend::variant`] has in a build whose CPU code is linked
/// in.
pub const BUILT_IN: &str = "built in";

/// When this process was started as the check of a CPU variant
/// (`<binary> --nu-agent-cpu-check <module>`), run it and give the exit
/// status; binaries that embed the local backend call this first in `main`.
pub fn check_if_asked() -> Option<i32> {
    let mut args = std::env::args_os().skip(1);
    if args.next()? != CHECK_ARG {
        return None;
    }
    let module = args.next().map(PathBuf::from).unwrap_or_default();
    Some(check_main(&module))
}

/// Why a portable build cannot run: no CPU module was found, or none passed
/// its check on this machine.
#[cfg_attr(not(feature = "gpu-dl"), allow(dead_code))]
pub(crate) fn no_variant_message(cpu: &CpuBackend) -> String {
    if cpu.skipped.is_empty() {
        return "no llama.cpp CPU module (libggml-cpu-*.so) for this CPU was found beside the \
                binary or where the build put them; set NU_AGENT_GGML_BACKENDS to their folder"
            .into();
    }
    let reasons: Vec<String> = cpu
        .skipped
        .iter()
        .map(|s| format!("{}: {}", s.variant, s.reason))
        .collect();
    format!(
        "no llama.cpp CPU module passed its check on this machine ({}); a CPU-only build \
         (without --features gpu-dl) runs here",
        reasons.join("; ")
    )
}

static CHOSEN: OnceLock<CpuBackend> = OnceLock::new();

/// Record what the backend's start-up chose (once per process).
#[cfg_attr(not(feature = "gpu-dl"), allow(dead_code))]
pub(crate) fn record(choice: CpuBackend) {
    let _ = CHOSEN.set(choice);
}

/// The CPU code this process runs llama.cpp on; starts the backend when it
/// has not started yet. `None` when the backend could not start.
pub fn cpu_backend() -> Option<CpuBackend> {
    if !cfg!(feature = "gpu-dl") {
        return Some(CpuBackend {
            variant: BUILT_IN.into(),
            path: None,
            skipped: Vec::new(),
        });
    }
    super::llama_backend().ok()?;
    CHOSEN.get().cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_variant_the_error_says_why_and_what_runs_instead() {
        let none_found = CpuBackend {
            variant: "none".into(),
            path: None,
            skipped: Vec::new(),
        };
        assert!(no_variant_message(&none_found).contains("NU_AGENT_GGML_BACKENDS"));
        let all_failed = CpuBackend {
            skipped: vec![SkippedVariant {
                variant: "sapphirerapids".into(),
                reason: "its check died with SIGILL".into(),
            }],
            ..none_found
        };
        let message = no_variant_message(&all_failed);
        assert!(message.contains("sapphirerapids: its check died with SIGILL"));
        assert!(message.contains("CPU-only build"));
    }

    #[test]
    fn a_build_with_linked_cpu_code_says_built_in() {
        if !cfg!(feature = "gpu-dl") {
            assert_eq!(cpu_backend().map(|c| c.variant), Some(BUILT_IN.into()));
        }
    }
}
