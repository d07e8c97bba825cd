//! Counting tokens with a GGUF model's own vocabulary (no weights loaded).

use std::{io::Read, path::Path};

use llama_cpp_2::model::{LlamaModel, params::LlamaModelParams};

use super::{LlmError, llama_backend};
use crate::observe::TokenCounter;

/// A model's tokenizer, loaded from a GGUF file with `vocab_only`.
pub struct GgufTokenizer {
    model: LlamaModel,
}

impl GgufTokenizer {
    /// Load only the vocabulary of the GGUF at `path`.
    pub fn load(path: &Path) -> Result<Self, LlmError> {
        check_gguf_magic(path)?;
        let backend = llama_backend()?;
        let params = LlamaModelParams::default().with_vocab_only(true);
        let model = LlamaModel::load_from_file(backend, path, &params).map_err(|_| {
            LlmError::LoadFailed {
                path: path.to_path_buf(),
            }
        })?;
        Ok(GgufTokenizer { model })
    }

    /// Tokens of `text` as plain content (special-token text is not parsed).
    pub fn count_tokens(&self, text: &str) -> usize {
        self.model
            .vocab()
            .tokenize(text.as_bytes(), false, false)
            .len()
    }
}

impl TokenCounter for GgufTokenizer {
    fn count(&self, text: &str) -> usize {
        self.count_tokens(text)
    }
}

/// A clear error for a missing file or one that is not GGUF, before
/// llama.cpp sees it.
pub(crate) fn check_gguf_magic(path: &Path) -> Result<(), LlmError> {
    let mut file = std::fs::File::open(path).map_err(|source| {
        if source.kind() == std::io::ErrorKind::NotFound {
            LlmError::ModelMissing {
                path: path.to_path_buf(),
            }
        } else {
            LlmError::Io {
                path: path.to_path_buf(),
                source,
            }
        }
    })?;
    let mut magic = [0u8; 4];
    if file.read_exact(&mut magic).is_err() || &magic != b"GGUF" {
        return Err(LlmError::NotGguf {
            path: path.to_path_buf(),
        });
    }
    Ok(())
}
