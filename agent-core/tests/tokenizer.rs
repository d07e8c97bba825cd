//! Token counting with a real GGUF vocabulary (SmolLM2-135M-Instruct).

mod support;

use support::test_model;

use agent_core::llm::{GgufTokenizer, LlmError};
use agent_core::observe::{ApproxTokenCounter, TokenCounter};

#[test]
fn counts_tokens_with_the_model_vocabulary() {
    let tokenizer = GgufTokenizer::load(&test_model()).expect("vocab loads");
    assert_eq!(tokenizer.count(""), 0);
    let short = tokenizer.count("ls | where size > 1mb");
    assert!((4..=12).contains(&short), "{short}");
    // Control-token text is counted as plain text, never as one control token.
    assert!(tokenizer.count("<|im_end|>") > 1);
    // The estimate used without a tokenizer stays in the same range for tables.
    let table = "name:str | size:filesize\nCargo.toml | 1.23kB\nsrc | 4.1kB\n";
    let (real, approx) = (tokenizer.count(table), ApproxTokenCounter.count(table));
    assert!(
        approx * 2 >= real && approx <= real * 2,
        "real {real}, approx {approx}"
    );
}

#[test]
fn corrupt_or_missing_files_give_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.gguf");
    assert!(matches!(
        GgufTokenizer::load(&missing),
        Err(LlmError::ModelMissing { .. })
    ));

    let not_gguf = dir.path().join("text.gguf");
    std::fs::write(&not_gguf, b"hello, not a model").unwrap();
    let err = GgufTokenizer::load(&not_gguf).err().expect("an error");
    assert!(matches!(err, LlmError::NotGguf { .. }));
    assert!(err.to_string().contains("not a GGUF model file"));

    // A real header cut short: llama.cpp must fail cleanly, not abort.
    let truncated = dir.path().join("truncated.gguf");
    let bytes = std::fs::read(test_model()).unwrap();
    std::fs::write(&truncated, &bytes[..4096]).unwrap();
    let err = GgufTokenizer::load(&truncated).err().expect("an error");
    assert!(matches!(err, LlmError::LoadFailed { .. }), "{err}");
}
