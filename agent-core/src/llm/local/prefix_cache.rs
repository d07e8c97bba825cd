//! The KV state of a prompt's fixed prefix (system prompt and tools) on
//! disk, per model and prefix: a freshly started process loads it instead
//! of evaluating the prefix again. Files are keyed by a hash of the model
//! file's identity, the context size and the prefix tokens, written
//! atomically, and pruned to the most recently used few per directory.

use std::path::{Path, PathBuf};

use llama_cpp_2::token::LlamaToken;
use sha2::{Digest, Sha256};

use super::host::ChatContext;

/// Prefixes shorter than this are cheaper to evaluate than to load.
pub const MIN_PREFIX_TOKENS: usize = 64;
/// State files kept per cache directory.
const KEEP_FILES: usize = 8;

/// The cache file for `prefix` in `context`'s model and context size.
pub fn file_for(dir: &Path, context: &ChatContext, prefix: &[LlamaToken]) -> PathBuf {
    let mut hash = Sha256::new();
    hash.update(context.model.fingerprint.as_bytes());
    hash.update(context.model.n_ctx.to_le_bytes());
    hash.update(context.model.gpu_layers.to_le_bytes());
    for token in prefix {
        hash.update(token.0.to_le_bytes());
    }
    let digest = hash.finalize();
    let hex: String = digest.iter().take(16).map(|b| format!("{b:02x}")).collect();
    let stem = context
        .model
        .spec
        .path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    dir.join(format!("{stem}-{hex}.kv"))
}

/// Load `prefix`'s state into a context whose cache is empty; true when
/// the cache now holds exactly `prefix`.
pub fn load(context: &mut ChatContext, file: &Path, prefix: &[LlamaToken]) -> bool {
    if !context.cached.is_empty() || !file.is_file() {
        return false;
    }
    match context.ctx.state_load_file(file, prefix.len()) {
        Ok(tokens) if tokens == prefix => {
            context.cached = tokens;
            touch(file);
            true
        }
        _ => {
            // Stale or damaged: start clean and replace it later.
            context.ctx.clear_kv_cache();
            context.cached.clear();
            let _ = std::fs::remove_file(file);
            false
        }
    }
}

/// Save the context's cache, which must hold exactly `prefix`.
pub fn save(context: &ChatContext, file: &Path, prefix: &[LlamaToken]) {
    let Some(dir) = file.parent() else { return };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let temporary = file.with_extension(format!("kv.{}.tmp", std::process::id()));
    if context.ctx.state_save_file(&temporary, prefix).is_ok()
        && std::fs::rename(&temporary, file).is_ok()
    {
        prune(dir);
    } else {
        let _ = std::fs::remove_file(&temporary);
    }
}

fn touch(file: &Path) {
    if let Ok(f) = std::fs::File::options().append(true).open(file) {
        let _ = f.set_modified(std::time::SystemTime::now());
    }
}

/// Keep the most recently used state files only.
fn prune(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut files: Vec<(std::time::SystemTime, PathBuf)> = entries
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "kv"))
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    files.sort_by_key(|f| std::cmp::Reverse(f.0));
    for (_, path) in files.into_iter().skip(KEEP_FILES) {
        let _ = std::fs::remove_file(path);
    }
}
