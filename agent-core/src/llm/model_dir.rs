//! Where model files live on this machine: `$NU_AGENT_CACHE/models`, else
//! `$HOME/.cache/nu-agent/models` (the cache `nu-scripts/fetch-test-model.sh`
//! fills), plus any extra directories; what is there, and which file a
//! name means.

use std::{
    collections::HashSet,
    ffi::OsString,
    path::{Path, PathBuf},
};

use super::{
    catalog::{Catalog, PulledModel},
    gguf::{GgufError, GgufInfo},
};

/// Why a model could not be found.
#[derive(Debug, thiserror::Error)]
pub enum ModelDirError {
    #[error("no model cache directory: set NU_AGENT_CACHE or HOME to an absolute path")]
    NoCacheDir,
    #[error("{} does not exist", path.display())]
    MissingFile { path: PathBuf },
    #[error(
        "model {name} is not downloaded yet (it would be {}); fetch it with `agent model pull {name}`",
        path.display()
    )]
    NotPulled { name: String, path: PathBuf },
    #[error(
        "no model {name}: it is not a file, not a catalog model ({}), and no {name}.gguf is in {}; `agent model list` shows what is here, `agent model pull <name>` fetches a catalog model",
        known.join(", "),
        dirs.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join(", ")
    )]
    NotFound {
        name: String,
        known: Vec<String>,
        dirs: Vec<PathBuf>,
    },
    #[error(
        "{name} could mean {}; give more of the name",
        matches.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(" or ")
    )]
    Ambiguous { name: String, matches: Vec<PathBuf> },
    /// The model came from `origin` (`NU_AGENT_MODEL`, `model.name`),
    /// which the message names.
    #[error("{error} ({origin})")]
    Named {
        origin: String,
        error: Box<ModelDirError>,
    },
}

/// A `*.gguf` file found in a model directory, read or not.
#[derive(Debug)]
pub struct ListedModel {
    pub path: PathBuf,
    /// Its header, or why it could not be read (one bad file does not
    /// spoil the list).
    pub info: Result<GgufInfo, GgufError>,
}

/// The model directory and any extra directories to look in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelDir {
    dir: PathBuf,
    extra: Vec<PathBuf>,
}

impl ModelDir {
    /// Models in `dir`, which `agent model pull` fills.
    pub fn new(dir: PathBuf) -> ModelDir {
        ModelDir {
            dir,
            extra: Vec::new(),
        }
    }

    /// The model directory named by this process's environment.
    pub fn from_env() -> Result<ModelDir, ModelDirError> {
        ModelDir::from_lookup(|name| std::env::var_os(name))
    }

    /// The model directory named by the variables `lookup` returns (a
    /// plugin passes its host's environment): `$NU_AGENT_CACHE/models`,
    /// else `$HOME/.cache/nu-agent/models`. Empty or relative values count
    /// as unset.
    pub fn from_lookup(
        lookup: impl Fn(&str) -> Option<OsString>,
    ) -> Result<ModelDir, ModelDirError> {
        let absolute = |name: &str| {
            lookup(name)
                .map(PathBuf::from)
                .filter(|path| path.is_absolute())
        };
        let cache = absolute("NU_AGENT_CACHE")
            .or_else(|| absolute("HOME").map(|home| home.join(".cache").join("nu-agent")))
            .ok_or(ModelDirError::NoCacheDir)?;
        Ok(ModelDir::new(cache.join("models")))
    }

    /// Also look in `dirs` (after the model directory).
    pub fn with_extra_dirs(mut self, dirs: impl IntoIterator<Item = PathBuf>) -> ModelDir {
        self.extra.extend(dirs);
        self
    }

    /// The model directory, where downloads go.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// Every directory looked in, the model directory first.
    pub fn dirs(&self) -> impl Iterator<Item = &Path> {
        std::iter::once(self.dir.as_path()).chain(self.extra.iter().map(PathBuf::as_path))
    }

    /// Every `*.gguf` file in the directories (not their subdirectories),
    /// sorted by name within each directory, each with its header read. A
    /// missing model directory lists nothing; a missing or unreadable
    /// extra directory is a row with its error.
    pub fn list(&self) -> Vec<ListedModel> {
        let mut rows = Vec::new();
        let mut seen = HashSet::new();
        for (index, dir) in self.dirs().enumerate() {
            let files = match gguf_files(dir) {
                Ok(files) => files,
                Err(error) if index == 0 && error.kind() == std::io::ErrorKind::NotFound => {
                    continue;
                }
                Err(source) => {
                    rows.push(ListedModel {
                        path: dir.to_path_buf(),
                        info: Err(GgufError::Io {
                            path: dir.to_path_buf(),
                            source,
                        }),
                    });
                    continue;
                }
            };
            for path in files {
                let identity = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
                if seen.insert(identity) {
                    let info = GgufInfo::read(&path);
                    rows.push(ListedModel { path, info });
                }
            }
        }
        rows
    }

    /// The model files in the directories, named as `agent model list`
    /// names them, with their sizes; headers are not read.
    pub fn pulled(&self, catalog: &Catalog) -> Vec<PulledModel> {
        self.dirs()
            .filter_map(|dir| gguf_files(dir).ok())
            .flatten()
            .filter_map(|path| {
                let size = std::fs::metadata(&path).ok()?.len();
                let file = path.file_name()?.to_string_lossy().into_owned();
                Some(match catalog.by_file(&file) {
                    Some(entry) => PulledModel {
                        name: entry.name.clone(),
                        reference: entry.name.clone(),
                        size,
                        path: path.clone(),
                    },
                    None => PulledModel {
                        name: path.file_stem()?.to_string_lossy().into_owned(),
                        reference: path.display().to_string(),
                        size,
                        path: path.clone(),
                    },
                })
            })
            .collect()
    }

    /// The file `name_or_path` means, tried in this order: an existing
    /// file (a path with a `/`, a leading `~/`, or a `.gguf` name found
    /// here or relative to the working directory); a catalog name, whose
    /// file must be in one of the directories; the stem of a `*.gguf`
    /// file in them (`SmolLM2-135M-Instruct.Q4_1`), case aside; a prefix
    /// of exactly one such stem.
    pub fn resolve(&self, name_or_path: &str, catalog: &Catalog) -> Result<PathBuf, ModelDirError> {
        let name = name_or_path.trim();
        let looks_like_path = name.contains('/') || name.contains(std::path::MAIN_SEPARATOR);
        if looks_like_path || name.starts_with('~') {
            let path = expand_home(name);
            return if path.is_file() {
                Ok(path)
            } else {
                Err(ModelDirError::MissingFile { path })
            };
        }
        if name.to_ascii_lowercase().ends_with(".gguf") {
            if let Some(found) = self.dirs().map(|d| d.join(name)).find(|p| p.is_file()) {
                return Ok(found);
            }
            let here = PathBuf::from(name);
            if here.is_file() {
                return Ok(here);
            }
        }
        if let Some(entry) = catalog.get(name) {
            return self
                .dirs()
                .map(|dir| dir.join(&entry.file))
                .find(|path| path.is_file())
                .ok_or_else(|| ModelDirError::NotPulled {
                    name: entry.name.clone(),
                    path: self.dir.join(&entry.file),
                });
        }
        let files: Vec<PathBuf> = self
            .dirs()
            .filter_map(|dir| gguf_files(dir).ok())
            .flatten()
            .collect();
        let stem = |path: &PathBuf| {
            path.file_stem()
                .map(|s| s.to_string_lossy().to_lowercase())
                .unwrap_or_default()
        };
        let wanted = name.to_lowercase().trim_end_matches(".gguf").to_string();
        if let Some(exact) = files.iter().find(|path| stem(path) == wanted) {
            return Ok(exact.clone());
        }
        let prefixed: Vec<PathBuf> = files
            .iter()
            .filter(|path| !wanted.is_empty() && stem(path).starts_with(&wanted))
            .cloned()
            .collect();
        match prefixed.len() {
            1 => Ok(prefixed.into_iter().next().unwrap_or_default()),
            0 => Err(ModelDirError::NotFound {
                name: name.to_string(),
                known: catalog.entries().iter().map(|e| e.name.clone()).collect(),
                dirs: self.dirs().map(Path::to_path_buf).collect(),
            }),
            _ => Err(ModelDirError::Ambiguous {
                name: name.to_string(),
                matches: prefixed,
            }),
        }
    }
}

/// The `*.gguf` files directly in `dir` (following symlinks), by name.
fn gguf_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let Ok(entry) = entry else { continue };
        let path = entry.path();
        let is_gguf = path
            .extension()
            .is_some_and(|ext| ext.eq_ignore_ascii_case("gguf"));
        if is_gguf && path.is_file() {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// `~/x` → `$HOME/x`; anything else as it is.
fn expand_home(path: &str) -> PathBuf {
    match (path.strip_prefix("~/"), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) if !home.is_empty() => PathBuf::from(home).join(rest),
        _ => PathBuf::from(path),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cached SmolLM2 test model, if it is there.
    fn test_model() -> Option<PathBuf> {
        let dir = ModelDir::from_env().ok()?;
        let path = dir.path().join("SmolLM2-135M-Instruct.Q4_1.gguf");
        if path.is_file() {
            Some(path)
        } else {
            eprintln!(
                "skipped: {} is missing (nu-scripts/fetch-test-model.sh)",
                path.display()
            );
            None
        }
    }

    fn lookup<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |name| {
            vars.iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| OsString::from(value))
        }
    }

    #[test]
    fn the_cache_dir_matches_the_fetch_script() {
        let dir =
            ModelDir::from_lookup(lookup(&[("NU_AGENT_CACHE", "/c"), ("HOME", "/h")])).unwrap();
        assert_eq!(dir.path(), Path::new("/c/models"));
        let dir =
            ModelDir::from_lookup(lookup(&[("NU_AGENT_CACHE", "rel"), ("HOME", "/h")])).unwrap();
        assert_eq!(dir.path(), Path::new("/h/.cache/nu-agent/models"));
        assert!(matches!(
            ModelDir::from_lookup(lookup(&[("HOME", "")])),
            Err(ModelDirError::NoCacheDir)
        ));
    }

    #[test]
    fn lists_models_and_bad_files() {
        let tmp = tempfile::tempdir().unwrap();
        let models = tmp.path().join("models");
        // No model directory yet: nothing, no error.
        assert!(ModelDir::new(models.clone()).list().is_empty());
        std::fs::create_dir_all(&models).unwrap();
        std::fs::write(models.join("broken.gguf"), b"GGUF\x03\0\0\0").unwrap();
        std::fs::write(models.join("notes.txt"), b"not a model").unwrap();
        std::fs::write(models.join("half.gguf.part"), b"GGUF").unwrap();
        let extra = tmp.path().join("extra");
        std::fs::create_dir_all(&extra).unwrap();
        #[cfg(unix)]
        if let Some(model) = test_model() {
            std::os::unix::fs::symlink(&model, extra.join("smol.gguf")).unwrap();
        }
        let dir = ModelDir::new(models.clone()).with_extra_dirs([
            extra.clone(),
            tmp.path().join("absent"),
            models.clone(),
        ]);
        let rows = dir.list();
        assert_eq!(rows[0].path, models.join("broken.gguf"));
        let error = rows[0].info.as_ref().unwrap_err().to_string();
        assert!(
            error.contains("broken.gguf: truncated at byte 8"),
            "{error}"
        );
        let mut at = 1;
        if cfg!(unix) && test_model().is_some() {
            let info = rows[1].info.as_ref().unwrap();
            assert_eq!(info.architecture, "llama");
            assert_eq!(info.quantization.as_deref(), Some("Q4_1"));
            at = 2;
        }
        assert_eq!(rows[at].path, tmp.path().join("absent"));
        assert!(matches!(rows[at].info, Err(GgufError::Io { .. })));
        assert_eq!(
            rows.len(),
            at + 1,
            "the model dir given twice is listed once"
        );
    }

    #[test]
    fn resolves_paths_catalog_names_and_stems() {
        let tmp = tempfile::tempdir().unwrap();
        let models = tmp.path().join("models");
        std::fs::create_dir_all(&models).unwrap();
        for file in [
            "SmolLM2-135M-Instruct.Q4_1.gguf",
            "Mine-7B.Q8_0.gguf",
            "Mine-7B.Q4_0.gguf",
        ] {
            std::fs::write(models.join(file), b"GGUF").unwrap();
        }
        let catalog = Catalog::builtin();
        let dir = ModelDir::new(models.clone());
        let smol = models.join("SmolLM2-135M-Instruct.Q4_1.gguf");
        assert_eq!(dir.resolve("smollm2-135m", &catalog).unwrap(), smol);
        assert_eq!(dir.resolve("SMOLLM2-135M", &catalog).unwrap(), smol);
        assert_eq!(
            dir.resolve("smollm2-135m-instruct.q4_1", &catalog).unwrap(),
            smol
        );
        assert_eq!(
            dir.resolve("SmolLM2-135M-Instruct.Q4_1.gguf", &catalog)
                .unwrap(),
            smol
        );
        assert_eq!(dir.resolve("smollm2-135m-ins", &catalog).unwrap(), smol);
        assert_eq!(
            dir.resolve(&smol.display().to_string(), &catalog).unwrap(),
            smol
        );
        assert_eq!(
            dir.resolve("mine-7b.q8_0", &catalog).unwrap(),
            models.join("Mine-7B.Q8_0.gguf")
        );

        let ambiguous = dir.resolve("mine", &catalog).unwrap_err();
        assert!(
            matches!(ambiguous, ModelDirError::Ambiguous { .. }),
            "{ambiguous}"
        );
        let not_pulled = dir.resolve("qwen3-4b", &catalog).unwrap_err().to_string();
        assert!(
            not_pulled.contains("`agent model pull qwen3-4b`"),
            "{not_pulled}"
        );
        assert!(
            not_pulled.contains("Qwen_Qwen3-4B-Instruct-2507-Q4_K_M.gguf"),
            "{not_pulled}"
        );
        let unknown = dir.resolve("llama-9000", &catalog).unwrap_err().to_string();
        assert!(unknown.contains("no model llama-9000"), "{unknown}");
        assert!(unknown.contains("qwen3-4b, qwen3-1.7b"), "{unknown}");
        assert!(unknown.contains("`agent model pull <name>`"), "{unknown}");
        let missing = dir.resolve("/no/such/model.gguf", &catalog).unwrap_err();
        assert!(
            matches!(missing, ModelDirError::MissingFile { .. }),
            "{missing}"
        );

        // A catalog file in an extra directory counts as pulled.
        let extra = tmp.path().join("extra");
        std::fs::create_dir_all(&extra).unwrap();
        std::fs::write(extra.join("Qwen3-1.7B-Q4_K_M.gguf"), b"GGUF").unwrap();
        let dir = dir.with_extra_dirs([extra.clone()]);
        assert_eq!(
            dir.resolve("qwen3-1.7b", &catalog).unwrap(),
            extra.join("Qwen3-1.7B-Q4_K_M.gguf")
        );
    }

    #[test]
    fn the_test_model_resolves_from_the_real_cache() {
        let Some(model) = test_model() else { return };
        let dir = ModelDir::from_env().unwrap();
        assert_eq!(
            dir.resolve("smollm2-135m", &Catalog::builtin()).unwrap(),
            model
        );
    }
}
