//! Language models: llama.cpp through llama-cpp-2 (process-wide backend,
//! GGUF files), token counting with a model's own vocabulary, and tool calls
//! read out of a model's text.

mod backend;
mod chat;
mod download;
mod gpu;
mod openai;
mod scripted;
mod tokenizer;
mod toolcall;

pub use backend::{LlmError, llama_backend};
pub use chat::{
    ChatBackend, ChatEvent, ChatRequest, ChatTurn, FinishReason, Message, Role, ToolDef, Usage,
};
pub use download::{Download, DownloadError, Progress, fetch, part_path, sha256_of};
pub use gpu::{
    Gpu, GpuVendor, backend_hint, compiled_backends, detect as detect_gpus,
    detect_in as detect_gpus_in,
};
pub use openai::{OpenAiBackend, OpenAiConfig};
pub use scripted::ScriptedBackend;
pub use tokenizer::GgufTokenizer;
pub use toolcall::{Reply, ToolCall, ToolSchema, parse_reply};
