//! The local backend: a GGUF model run in this process by llama.cpp,
//! resident between calls, prompted with its own chat template, its tool
//! calls held to a grammar, its KV cache reused between the steps of a
//! conversation and its fixed prompt prefix cached on disk.

mod avoid;
mod generate;
mod grammar;
mod host;
mod loop_guard;
mod prefix_cache;
mod sampling;
mod stream;
mod template;
mod threads;
mod trigger;

use std::{path::PathBuf, time::Duration};

pub use generate::{DecodeTiming, TurnOptions};
pub use grammar::{PIPELINE_KEYWORDS, head_rules, pipeline_rules, tool_call_grammar};
pub use host::{LoadSpec, ModelHost, Resident};
pub use template::{ChatTemplate, RenderedPrompt, Segment, TemplateError, py_json, tagged_call};
pub use threads::physical_cores;

use super::{ChatBackend, ChatEvent, ChatRequest, ChatTurn, LlmError};
use crate::shell::CancelToken;

/// How to run a local model.
#[derive(Clone, Debug, PartialEq)]
pub struct LocalConfig {
    pub load: LoadSpec,
    /// How long the model stays loaded after its last use.
    pub keep_alive: Duration,
    pub turn: TurnOptions,
}

impl LocalConfig {
    /// Defaults for the model at `path`: automatic context, threads and
    /// GPU layers, five minutes' keep-alive, the prefix cache in `cache`.
    pub fn new(path: impl Into<PathBuf>) -> LocalConfig {
        LocalConfig {
            load: LoadSpec {
                path: path.into(),
                context: None,
                gpu_layers: None,
                threads: None,
            },
            keep_alive: Duration::from_secs(300),
            turn: TurnOptions::default(),
        }
    }
}

/// A conversation with the resident local model. It holds its own context
/// (its KV cache) for its life and gives it back to the host when dropped.
pub struct LocalBackend {
    config: LocalConfig,
    host: &'static ModelHost,
    context: Option<host::ChatContext>,
    /// Where the last turn's generation loop spent its time.
    timing: DecodeTiming,
}

impl LocalBackend {
    pub fn new(config: LocalConfig) -> LocalBackend {
        LocalBackend {
            config,
            host: ModelHost::global(),
            context: None,
            timing: DecodeTiming::default(),
        }
    }

    /// Load the model now (otherwise the first turn does).
    pub fn load(&mut self) -> Result<(), LlmError> {
        if self.context.is_none() {
            self.context = Some(
                self.host
                    .acquire(&self.config.load, self.config.keep_alive)?,
            );
        }
        Ok(())
    }

    /// The options of the next turns (tests and benchmarks switch the
    /// grammar, reuse and the prefix cache).
    pub fn turn_options_mut(&mut self) -> &mut TurnOptions {
        &mut self.config.turn
    }

    /// The context size of the loaded model (after [`Self::load`]).
    pub fn context_size(&self) -> Option<u32> {
        self.context.as_ref().map(|c| c.model.n_ctx)
    }

    /// Render `request` as the model will see it.
    pub fn render(&mut self, request: &ChatRequest) -> Result<RenderedPrompt, LlmError> {
        self.load()?;
        let context = self
            .context
            .as_ref()
            .ok_or_else(|| LlmError::Backend("no context".into()))?;
        context
            .model
            .template
            .render(&request.messages, &request.tools, self.config.turn.think)
            .map_err(|e| LlmError::Backend(e.to_string()))
    }

    /// The prompt tokens `request` becomes (scaffolding with control
    /// tokens, message text as plain text), as ids.
    pub fn prompt_tokens(&mut self, request: &ChatRequest) -> Result<Vec<i32>, LlmError> {
        let rendered = self.render(request)?;
        let context = self
            .context
            .as_ref()
            .ok_or_else(|| LlmError::Backend("no context".into()))?;
        let (tokens, _) = generate::tokenize(&context.model, &[], "", &rendered);
        Ok(tokens.iter().map(|t| t.0).collect())
    }

    /// The id of `text` when it is a single token of the model's vocabulary
    /// (control tokens included).
    pub fn token_id(&mut self, text: &str) -> Result<Option<i32>, LlmError> {
        self.load()?;
        let context = self
            .context
            .as_ref()
            .ok_or_else(|| LlmError::Backend("no context".into()))?;
        let tokens = context
            .model
            .model
            .vocab()
            .tokenize(text.as_bytes(), false, true);
        Ok((tokens.len() == 1).then(|| tokens[0].0))
    }

    /// Where the last turn's generation loop spent its time, token by
    /// token (benchmarks of the per-token work).
    pub fn last_timing(&self) -> &DecodeTiming {
        &self.timing
    }

    /// Forget the KV cache (the next turn evaluates its whole prompt).
    pub fn clear_cache(&mut self) {
        if let Some(context) = self.context.as_mut() {
            context.ctx.clear_kv_cache();
            context.cached.clear();
            context.cached_text.clear();
        }
    }
}

impl ChatBackend for LocalBackend {
    fn name(&self) -> String {
        let file = self
            .config
            .load
            .path
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        format!("local:{file}")
    }

    fn chat(
        &mut self,
        request: &ChatRequest,
        on_event: &mut dyn FnMut(ChatEvent),
        cancel: &CancelToken,
    ) -> Result<ChatTurn, LlmError> {
        self.load()?;
        static TOLD: std::sync::Once = std::sync::Once::new();
        TOLD.call_once(|| {
            let devices = super::backend::gpu_devices();
            if let Some(notice) =
                super::backend::no_gpu_notice(&super::compiled_backends(), &devices)
            {
                on_event(ChatEvent::Notice(notice));
            }
        });
        let context = self
            .context
            .as_mut()
            .ok_or_else(|| LlmError::Backend("no context".into()))?;
        let result = generate::run_turn(context, request, &self.config.turn, on_event, cancel);
        match result {
            Ok((turn, timing)) => {
                self.timing = timing;
                Ok(turn)
            }
            Err(e) => {
                // The cache may be half-written: start the next turn clean.
                self.clear_cache();
                self.timing = DecodeTiming::default();
                Err(e)
            }
        }
    }
}

impl Drop for LocalBackend {
    fn drop(&mut self) {
        if let Some(context) = self.context.take() {
            self.host.release(context);
        }
    }
}
