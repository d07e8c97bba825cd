//! What the tests on the real test model share.

use std::path::PathBuf;

/// The test model (SmolLM2-135M-Instruct, fetched by
/// `nu-scripts/fetch-test-model.sh`): `$NU_AGENT_TEST_MODEL`, else the
/// model cache.
pub fn test_model() -> PathBuf {
    let path = std::env::var_os("NU_AGENT_TEST_MODEL")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default())
                .join(".cache/nu-agent/models/SmolLM2-135M-Instruct.Q4_1.gguf")
        });
    assert!(
        path.exists(),
        "{} missing: run nu-scripts/fetch-test-model.sh",
        path.display()
    );
    path
}
