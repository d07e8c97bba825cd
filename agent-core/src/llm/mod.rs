//! Language models: llama.cpp through llama-cpp-2 (process-wide backend,
//! GGUF files), token counting with a model's own vocabulary, and tool calls
//! read out of a model's text.

mod backend;
mod tokenizer;
mod toolcall;

pub use backend::{LlmError, llama_backend};
pub use tokenizer::GgufTokenizer;
pub use toolcall::{Reply, ToolCall, ToolSchema, parse_reply};
