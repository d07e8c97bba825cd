//! Finding and loading llama.cpp's backend modules in a portable build: the
//! GPU modules as they are, the CPU variant best for this CPU that passes
//! its check in a child process.

use std::{
    collections::BTreeMap,
    ffi::{CString, OsStr},
    io::Read,
    os::unix::{ffi::OsStrExt, process::ExitStatusExt},
    path::{Path, PathBuf},
    process::{Command, ExitStatus, Stdio},
    time::{Duration, Instant},
};

use super::{CHECK_ARG, CpuBackend, SkippedVariant, check::PASSED};

/// Where the modules are looked for: `NU_AGENT_GGML_BACKENDS` alone when
/// set, else the binary's own folder, then the folder the build put them in.
pub const MODULES_ENV: &str = "NU_AGENT_GGML_BACKENDS";

/// GPU and other non-CPU modules llama.cpp knows by name
/// (`libggml-<name>.so`), in the order it loads them.
const OTHER_MODULES: &[&str] = &[
    "blas", "zendnn", "cann", "cuda", "hip", "metal", "rpc", "sycl", "vulkan", "virtgpu", "opencl",
    "hexagon", "musa", "openvino",
];

/// How long one variant's check may take before it counts as failed.
const CHECK_TIMEOUT: Duration = Duration::from_secs(60);

/// The GPU backends of llama.cpp's modules by their names here (what
/// [`crate::llm::compiled_backends`] calls them).
const GPU_MODULES: &[(&str, &str)] = &[
    ("cuda", "cuda"),
    ("hip", "rocm"),
    ("vulkan", "vulkan"),
    ("metal", "metal"),
];

/// The non-CPU modules found (the first of each name, in the order
/// llama.cpp loads them), with their names.
fn other_modules(dirs: &[PathBuf]) -> Vec<(&'static str, PathBuf)> {
    OTHER_MODULES
        .iter()
        .filter_map(|name| {
            dirs.iter()
                .map(|dir| dir.join(format!("libggml-{name}.so")))
                .find(|path| path.is_file())
                .map(|path| (*name, path))
        })
        .collect()
}

/// The GPU backends whose modules a portable build finds and so loads at
/// start (`cuda` for a `libggml-cuda.so` beside the binary): a release can
/// ship the CPU build and add the CUDA module built elsewhere.
pub(crate) fn gpu_modules_found() -> Vec<&'static str> {
    other_modules(&module_dirs())
        .into_iter()
        .filter_map(|(module, _)| backend_of(module))
        .collect()
}

/// The GPU backend a module of llama.cpp's is (`hip` → `rocm`); `None`
/// for modules that are no GPU backend (`rpc`, `blas`).
fn backend_of(module: &str) -> Option<&'static str> {
    GPU_MODULES
        .iter()
        .find(|(name, _)| *name == module)
        .map(|(_, backend)| *backend)
}

/// Load the GPU modules and the CPU variant to run on; what was chosen.
pub(crate) fn load_modules() -> CpuBackend {
    let dirs = module_dirs();
    for (_, path) in other_modules(&dirs) {
        load(&path);
    }
    let mut skipped = Vec::new();
    for variant in ranked_variants(&dirs) {
        match check(&variant.path) {
            Ok(()) => {
                if load(&variant.path) {
                    return CpuBackend {
                        variant: variant.name,
                        path: Some(variant.path),
                        skipped,
                    };
                }
                skipped.push(SkippedVariant {
                    variant: variant.name,
                    reason: "llama.cpp could not load the module".into(),
                });
            }
            Err(reason) => skipped.push(SkippedVariant {
                variant: variant.name,
                reason,
            }),
        }
    }
    // No variant: the plain CPU module when there is one.
    let plain = dirs
        .iter()
        .map(|dir| dir.join("libggml-cpu.so"))
        .find(|path| path.is_file() && load(path));
    CpuBackend {
        variant: if plain.is_some() { "cpu" } else { "none" }.into(),
        path: plain,
        skipped,
    }
}

fn module_dirs() -> Vec<PathBuf> {
    if let Some(dir) = std::env::var_os(MODULES_ENV) {
        return vec![PathBuf::from(dir)];
    }
    let mut dirs = Vec::new();
    if let Some(dir) = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(Path::to_path_buf))
    {
        dirs.push(dir);
    }
    #[cfg(feature = "gpu-dl")]
    if let Some(dir) = llama_cpp_sys_2::BACKENDS_DIR {
        dirs.push(PathBuf::from(dir));
    }
    dirs
}

/// A CPU variant module this CPU reports the features for.
#[derive(Debug)]
struct Variant {
    name: String,
    path: PathBuf,
    score: i32,
}

/// The CPU variants in `dirs` (the first of each name) that score above 0
/// on this CPU, best first.
fn ranked_variants(dirs: &[PathBuf]) -> Vec<Variant> {
    let mut found: BTreeMap<String, PathBuf> = BTreeMap::new();
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let file = entry.file_name();
            let Some(name) = variant_name(&file) else {
                continue;
            };
            found.entry(name).or_insert_with(|| entry.path());
        }
    }
    let mut variants: Vec<Variant> = found
        .into_iter()
        .filter_map(|(name, path)| {
            let score = score(&path)?;
            (score > 0).then_some(Variant { name, path, score })
        })
        .collect();
    variants.sort_by(|a, b| b.score.cmp(&a.score).then(a.name.cmp(&b.name)));
    variants
}

/// `haswell` for `libggml-cpu-haswell.so`.
fn variant_name(file: &OsStr) -> Option<String> {
    let name = file.to_str()?;
    let variant = name.strip_prefix("libggml-cpu-")?.strip_suffix(".so")?;
    (!variant.is_empty()).then(|| variant.to_string())
}

/// The module's own `ggml_backend_score()`: 0 when this CPU lacks a
/// feature it was built for, higher for a better fit; `None` when the file
/// does not load or has no score.
fn score(path: &Path) -> Option<i32> {
    let path = CString::new(path.as_os_str().as_bytes()).ok()?;
    // SAFETY: dlopen/dlsym/dlclose with a NUL-terminated path; the score
    // function takes no arguments and only reads CPUID. The module's
    // constructors are ggml's own, as when ggml scores it itself.
    unsafe {
        let handle = libc::dlopen(path.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL);
        if handle.is_null() {
            return None;
        }
        let symbol = libc::dlsym(handle, c"ggml_backend_score".as_ptr());
        let score = (!symbol.is_null()).then(|| {
            let score_fn: extern "C" fn() -> i32 = std::mem::transmute(symbol);
            score_fn()
        });
        libc::dlclose(handle);
        score
    }
}

fn load(path: &Path) -> bool {
    let Ok(path) = CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: a NUL-terminated path; ggml registers the backend it loads.
    !unsafe { llama_cpp_sys_2::ggml_backend_load(path.as_ptr()) }.is_null()
}

/// Run the variant's check in a child (this binary with [`CHECK_ARG`]).
/// A binary that does not know the argument cannot check; the variant is
/// then trusted as ggml would.
fn check(module: &Path) -> Result<(), String> {
    let Ok(exe) = std::env::current_exe() else {
        return Ok(());
    };
    let child = Command::new(exe)
        .arg(CHECK_ARG)
        .arg(module)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn();
    let Ok(mut child) = child else {
        return Ok(());
    };
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() > CHECK_TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "its check did not finish in {} s",
                    CHECK_TIMEOUT.as_secs()
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(_) => return Ok(()),
        }
    };
    let mut said = String::new();
    if let Some(mut out) = child.stdout.take() {
        let _ = out.read_to_string(&mut said);
    }
    verdict(status, &said)
}

/// What a check's exit and output say about the variant.
fn verdict(status: ExitStatus, said: &str) -> Result<(), String> {
    if let Some(signal) = status.signal() {
        return Err(format!("its check died with {}", signal_name(signal)));
    }
    if said.lines().any(|line| line == PASSED) {
        return Ok(());
    }
    match said
        .lines()
        .find_map(|line| line.strip_prefix(super::check::FAILED))
    {
        Some(reason) => Err(reason.trim().to_string()),
        // The binary does not know the check: nothing was learned.
        None => Ok(()),
    }
}

fn signal_name(signal: i32) -> String {
    match signal {
        libc::SIGILL => "SIGILL (an instruction this CPU or its OS does not allow)".into(),
        libc::SIGSEGV => "SIGSEGV".into(),
        libc::SIGBUS => "SIGBUS".into(),
        libc::SIGFPE => "SIGFPE".into(),
        libc::SIGABRT => "SIGABRT (llama.cpp aborted)".into(),
        other => format!("signal {other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::ExitStatusExt;

    #[test]
    fn gpu_modules_are_found_by_file_and_named_as_backends() {
        let dir = tempfile::tempdir().unwrap();
        for file in [
            "libggml-cuda.so",
            "libggml-rpc.so",
            "libggml-cpu-haswell.so",
        ] {
            std::fs::write(dir.path().join(file), b"").unwrap();
        }
        let found = other_modules(&[dir.path().to_path_buf()]);
        let names: Vec<&str> = found.iter().map(|(name, _)| *name).collect();
        assert_eq!(names, ["cuda", "rpc"]);
        assert_eq!(found[0].1, dir.path().join("libggml-cuda.so"));
        assert_eq!(backend_of("cuda"), Some("cuda"));
        assert_eq!(backend_of("hip"), Some("rocm"));
        assert_eq!(backend_of("rpc"), None);
    }

    #[test]
    fn variant_names_come_from_cpu_module_files_only() {
        assert_eq!(
            variant_name(OsStr::new("libggml-cpu-sapphirerapids.so")),
            Some("sapphirerapids".into())
        );
        assert_eq!(variant_name(OsStr::new("libggml-cpu.so")), None);
        assert_eq!(variant_name(OsStr::new("libggml-cuda.so")), None);
        assert_eq!(variant_name(OsStr::new("libggml-cpu-x64.so.0")), None);
    }

    #[test]
    fn a_check_that_dies_or_fails_passes_the_variant_over() {
        let died = ExitStatus::from_raw(libc::SIGILL);
        assert!(verdict(died, "").unwrap_err().contains("SIGILL"));
        let failed = ExitStatus::from_raw(3 << 8);
        let said = format!("{} Q4_0 × f32 is off by 93%\n", super::super::check::FAILED);
        assert_eq!(
            verdict(failed, &said).unwrap_err(),
            "Q4_0 × f32 is off by 93%"
        );
        assert_eq!(
            verdict(ExitStatus::from_raw(0), &format!("{PASSED}\n")),
            Ok(())
        );
        // A binary without the check (a test harness) teaches nothing.
        assert_eq!(
            verdict(ExitStatus::from_raw(101 << 8), "error: unknown option"),
            Ok(())
        );
    }
}
