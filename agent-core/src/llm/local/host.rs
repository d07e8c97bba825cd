//! The resident model: loaded once, kept in memory between calls for an
//! idle keep-alive, shared by concurrent conversations (each with its own
//! context), and the context of the last conversation kept warm so the next
//! one reuses its KV cache (the system prompt and tools are not re-read).

use std::{
    num::NonZeroU32,
    path::{Path, PathBuf},
    sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock},
    time::{Duration, Instant, SystemTime},
};

use llama_cpp_2::{
    context::{LlamaContext, params::LlamaContextParams},
    model::{LlamaModel, params::LlamaModelParams},
    token::LlamaToken,
};

use super::template::ChatTemplate;
use crate::llm::{LlmError, compiled_backends, llama_backend, tokenizer::check_gguf_magic};

/// Tokens per `decode` call (prompt chunks; also the cancel granularity).
pub const BATCH: u32 = 512;
/// Default context when the machine's memory allows it.
const DEFAULT_CONTEXT_CAP: u32 = 32_768;

/// What to load and how.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadSpec {
    pub path: PathBuf,
    /// Context tokens; `None`: the model's training context, capped by
    /// memory.
    pub context: Option<u32>,
    /// Layers to offload to a GPU; `None`: all when a GPU backend is
    /// compiled in, else none.
    pub gpu_layers: Option<u32>,
    /// Threads; `None`: the machine's cores.
    pub threads: Option<u32>,
}

/// A loaded model with what is needed to chat with it.
pub struct LoadedModel {
    pub model: LlamaModel,
    pub spec: LoadSpec,
    pub template: ChatTemplate,
    /// Context size every context of this model gets.
    pub n_ctx: u32,
    pub threads: u32,
    pub gpu_layers: u32,
    /// Identifies the file (path, size, modification time) for caches.
    pub fingerprint: String,
    pub loaded_at: SystemTime,
}

/// One conversation's context with the tokens now in its KV cache.
pub struct ChatContext {
    // Declared before `model`: dropped first, while the model still lives.
    pub(crate) ctx: LlamaContext<'static>,
    /// Tokens in sequence 0 of the KV cache, in order.
    pub(crate) cached: Vec<LlamaToken>,
    /// The text those tokens spell (the last prompt and its reply).
    pub(crate) cached_text: String,
    /// The threads this context decodes with.
    pub(crate) threads: u32,
    pub(crate) model: Arc<LoadedModel>,
}

/// A summary of the resident model for `agent model list/info`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resident {
    pub path: PathBuf,
    pub n_ctx: u32,
    pub gpu_layers: u32,
    pub threads: u32,
    pub loaded_at: SystemTime,
    /// Conversations using it now.
    pub in_use: usize,
}

/// The process's model host.
pub struct ModelHost {
    state: Mutex<HostState>,
    wake: Condvar,
}

struct HostState {
    loaded: Option<Arc<LoadedModel>>,
    idle: Option<ChatContext>,
    in_use: usize,
    last_used: Instant,
    keep_alive: Duration,
    reaper_running: bool,
}

impl ModelHost {
    /// The one host of this process.
    pub fn global() -> &'static ModelHost {
        static HOST: OnceLock<ModelHost> = OnceLock::new();
        HOST.get_or_init(|| ModelHost {
            state: Mutex::new(HostState {
                loaded: None,
                idle: None,
                in_use: 0,
                last_used: Instant::now(),
                keep_alive: Duration::from_secs(300),
                reaper_running: false,
            }),
            wake: Condvar::new(),
        })
    }

    fn lock(&self) -> MutexGuard<'_, HostState> {
        self.state
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }

    /// A context for a conversation on the model `spec` names, loading it
    /// (or switching to it) first when needed. `keep_alive` is how long the
    /// model stays loaded once no conversation uses it.
    pub fn acquire(
        &'static self,
        spec: &LoadSpec,
        keep_alive: Duration,
    ) -> Result<ChatContext, LlmError> {
        let mut state = self.lock();
        state.keep_alive = keep_alive;
        let current = state.loaded.as_ref().filter(|m| m.spec == *spec).cloned();
        let model = match current {
            Some(model) => model,
            None => {
                // A different model: let go of the old one (conversations
                // still using it keep it alive until they end).
                state.idle = None;
                state.loaded = None;
                let model = Arc::new(load(spec)?);
                state.loaded = Some(model.clone());
                model
            }
        };
        let context = match state.idle.take() {
            Some(idle) if Arc::ptr_eq(&idle.model, &model) => idle,
            _ => new_context(&model)?,
        };
        state.in_use += 1;
        state.last_used = Instant::now();
        Ok(context)
    }

    /// Give a context back: it stays warm for the next conversation.
    pub fn release(&'static self, context: ChatContext) {
        let mut state = self.lock();
        state.in_use = state.in_use.saturating_sub(1);
        state.last_used = Instant::now();
        let current = state
            .loaded
            .as_ref()
            .is_some_and(|m| Arc::ptr_eq(m, &context.model));
        if current {
            state.idle = Some(context);
        } else {
            drop(context);
        }
        if state.keep_alive.is_zero() && state.in_use == 0 {
            state.idle = None;
            state.loaded = None;
            return;
        }
        if !state.reaper_running {
            state.reaper_running = true;
            let spawned = std::thread::Builder::new()
                .name("nu-agent-model-keep-alive".into())
                .spawn(move || self.reap());
            if spawned.is_err() {
                state.reaper_running = false;
            }
        }
        self.wake.notify_all();
    }

    /// Unload the model once it has been idle for the keep-alive.
    fn reap(&'static self) {
        let mut state = self.lock();
        loop {
            if state.loaded.is_none() {
                state.reaper_running = false;
                return;
            }
            let idle_for = state.last_used.elapsed();
            if state.in_use == 0 && idle_for >= state.keep_alive {
                state.idle = None;
                state.loaded = None;
                state.reaper_running = false;
                return;
            }
            let wait = state
                .keep_alive
                .saturating_sub(idle_for)
                .max(Duration::from_millis(50));
            state = match self.wake.wait_timeout(state, wait) {
                Ok((guard, _)) => guard,
                Err(poison) => poison.into_inner().0,
            };
        }
    }

    /// The resident model, if one is loaded.
    pub fn resident(&self) -> Option<Resident> {
        let state = self.lock();
        state.loaded.as_ref().map(|m| Resident {
            path: m.spec.path.clone(),
            n_ctx: m.n_ctx,
            gpu_layers: m.gpu_layers,
            threads: m.threads,
            loaded_at: m.loaded_at,
            in_use: state.in_use,
        })
    }

    /// Unload now (conversations in progress finish on their copy).
    pub fn unload(&self) {
        let mut state = self.lock();
        state.idle = None;
        state.loaded = None;
        self.wake.notify_all();
    }
}

/// Load the model `spec` names.
pub fn load(spec: &LoadSpec) -> Result<LoadedModel, LlmError> {
    check_gguf_magic(&spec.path)?;
    let backend = llama_backend()?;
    let gpu_layers = spec
        .gpu_layers
        .unwrap_or(if compiled_backends().is_empty() {
            0
        } else {
            999
        });
    let params = LlamaModelParams::default().with_n_gpu_layers(gpu_layers);
    let model = LlamaModel::load_from_file(backend, &spec.path, &params).map_err(|_| {
        LlmError::LoadFailed {
            path: spec.path.clone(),
        }
    })?;
    let vocab = model.vocab();
    let piece = |token: Option<LlamaToken>| {
        token
            .map(|t| String::from_utf8_lossy(&vocab.token_to_piece(t, true, None)).into_owned())
            .unwrap_or_default()
    };
    let bos = piece(Some(vocab.bos()).filter(|t| t.0 >= 0));
    let eos = piece(Some(vocab.eos()).filter(|t| t.0 >= 0));
    let source = model
        .chat_template(None)
        .ok()
        .and_then(|t| t.to_str().ok().map(str::to_string));
    let template = ChatTemplate::new(source, &bos, &eos)
        .map_err(|e| LlmError::Backend(format!("{}: {e}", spec.path.display())))?;
    let n_ctx = spec.context.unwrap_or_else(|| auto_context(&model));
    let threads = spec.threads.unwrap_or_else(super::threads::choose);
    Ok(LoadedModel {
        fingerprint: fingerprint(&spec.path),
        spec: spec.clone(),
        template,
        n_ctx,
        threads,
        gpu_layers,
        loaded_at: SystemTime::now(),
        model,
    })
}

/// A fresh context of `model`, decoding with the model's threads.
pub fn new_context(model: &Arc<LoadedModel>) -> Result<ChatContext, LlmError> {
    new_context_with(model, model.threads)
}

/// A fresh context of `model` that decodes with `threads` threads.
pub fn new_context_with(model: &Arc<LoadedModel>, threads: u32) -> Result<ChatContext, LlmError> {
    let backend = llama_backend()?;
    let n_threads = threads;
    let threads = i32::try_from(threads).unwrap_or(1);
    let params = LlamaContextParams::default()
        .with_n_ctx(NonZeroU32::new(model.n_ctx))
        .with_n_batch(BATCH)
        .with_n_ubatch(BATCH)
        .with_n_threads(threads)
        .with_n_threads_batch(threads);
    // SAFETY: the context borrows the model inside `model`'s Arc, which the
    // ChatContext holds (and drops after the context, by field order); the
    // model never moves while in the Arc. Contexts are created under the
    // host's lock, so never concurrently from one model.
    let model_ref: &'static LlamaModel = unsafe { &*std::ptr::from_ref(&model.model) };
    let ctx = model_ref.new_context(backend, params).map_err(|e| {
        LlmError::Backend(format!(
            "could not create a context of {} tokens for {}: {e} (set a smaller `model.context`)",
            model.n_ctx,
            model.spec.path.display()
        ))
    })?;
    Ok(ChatContext {
        ctx,
        cached: Vec::new(),
        cached_text: String::new(),
        threads: n_threads,
        model: model.clone(),
    })
}

/// The training context, capped so the KV cache (f16) takes at most a
/// quarter of the memory available now, and at 32k tokens.
fn auto_context(model: &LlamaModel) -> u32 {
    let train = model.n_ctx_train().max(512);
    let n_layer = u64::from(model.n_layer().max(1));
    let n_head = u64::from(model.n_head().max(1));
    let n_head_kv = u64::from(model.n_head_kv().max(1));
    let head_dim = u64::try_from(model.n_embd().max(1)).unwrap_or(1) / n_head;
    let per_token = (2 * n_layer * n_head_kv * head_dim * 2).max(1);
    let budget = available_memory().unwrap_or(8 << 30) / 4;
    let by_memory = u32::try_from(budget / per_token).unwrap_or(u32::MAX);
    let context = train.min(by_memory).clamp(512, DEFAULT_CONTEXT_CAP);
    context - context % 256
}

/// `MemAvailable` from /proc/meminfo, in bytes.
fn available_memory() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Path, size and modification time of a model file.
fn fingerprint(path: &Path) -> String {
    let meta = std::fs::metadata(path).ok();
    let size = meta.as_ref().map(|m| m.len()).unwrap_or(0);
    let modified = meta
        .and_then(|m| m.modified().ok())
        .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    format!("{}\n{size}\n{modified}", path.display())
}
