//! Language models: llama.cpp through llama-cpp-2 (process-wide backend,
//! GGUF files) and token counting with a model's own vocabulary.

mod backend;
mod tokenizer;

pub use backend::{LlmError, llama_backend};
pub use tokenizer::GgufTokenizer;
