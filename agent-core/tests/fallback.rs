//! The remote backend with `fallback: local`, built from the `model`
//! settings: a server that cannot be reached hands the conversation to the
//! real local model (SmolLM2-135M-Instruct) with a notice; a server that
//! refuses the key is an error, never a silent fallback.

mod support;

use std::{
    ffi::OsString,
    io::{BufRead, BufReader, Read, Write},
    net::TcpListener,
};
use support::test_model;

use agent_core::{
    llm::{ChatBackend, ChatEvent, ChatTurn, FinishReason, LlmError, Message, ModelSettings},
    shell::CancelToken,
};
use nu_protocol::{Record, Value};

/// `model` settings for the OpenAI backend at `url`, falling back to the
/// test model.
fn settings(url: &str) -> ModelSettings {
    let mut record = Record::new();
    record.push("backend", Value::test_string("openai"));
    record.push("url", Value::test_string(url));
    record.push("retries", Value::test_int(0));
    record.push("timeout", Value::test_string("5s"));
    record.push("fallback", Value::test_string("local"));
    record.push(
        "name",
        Value::test_string(test_model().display().to_string()),
    );
    record.push("context", Value::test_int(2048));
    record.push("threads", Value::test_int(1));
    record.push("prefix_cache", Value::test_bool(false));
    record.push("max_tokens", Value::test_int(8));
    record.push("temperature", Value::test_float(0.0));
    ModelSettings::from_value(&Value::test_record(record)).unwrap()
}

fn process_env(name: &str) -> Option<OsString> {
    std::env::var_os(name)
}

fn turn(
    backend: &mut dyn ChatBackend,
    settings: &ModelSettings,
) -> (Result<ChatTurn, LlmError>, Vec<ChatEvent>) {
    let request = settings.request(vec![Message::user("Say hello.")], Vec::new());
    let mut events = Vec::new();
    let result = backend.chat(&request, &mut |e| events.push(e), &CancelToken::new());
    (result, events)
}

#[test]
fn a_closed_port_moves_the_conversation_to_the_local_model() {
    let port = {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let settings = settings(&format!("http://127.0.0.1:{port}/v1"));
    let mut backend = settings.backend(&process_env).unwrap();
    assert!(backend.name().contains(&format!("127.0.0.1:{port}")));

    let (result, events) = turn(backend.as_mut(), &settings);
    let first = result.expect("the local model answers");
    match events.first() {
        Some(ChatEvent::Notice(notice)) => {
            assert!(notice.contains("cannot be reached"), "{notice}");
            assert!(
                notice.contains("local:SmolLM2-135M-Instruct.Q4_1.gguf"),
                "{notice}"
            );
        }
        other => panic!("the notice comes first, got {other:?}"),
    }
    assert!(matches!(
        first.finish,
        Some(FinishReason::Stop | FinishReason::Length)
    ));
    assert!(first.usage.completion_tokens > 0);
    assert!(events.iter().any(|e| matches!(e, ChatEvent::Text(_))));
    assert!(backend.name().starts_with("local:"), "{}", backend.name());

    // The rest of the conversation stays local, without another notice.
    let (result, events) = turn(backend.as_mut(), &settings);
    assert!(result.unwrap().usage.completion_tokens > 0);
    assert!(
        !events.iter().any(|e| matches!(e, ChatEvent::Notice(_))),
        "{events:?}"
    );
}

#[test]
fn a_refused_key_is_an_error_not_a_fallback() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(&stream);
            let mut length = 0usize;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = value.trim().parse().unwrap_or(0);
                }
            }
            let mut body = vec![0u8; length];
            let _ = reader.read_exact(&mut body);
            let answer = r#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}"#;
            let _ = (&stream).write_all(
                format!(
                    "HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{answer}",
                    answer.len()
                )
                .as_bytes(),
            );
        }
    });
    let settings = settings(&format!("http://127.0.0.1:{port}/v1"));
    let mut backend = settings.backend(&process_env).unwrap();
    let (result, events) = turn(backend.as_mut(), &settings);
    let error = result.expect_err("a 401 is an error");
    let message = error.to_string();
    assert!(
        matches!(
            error,
            LlmError::Remote {
                unreachable: false,
                ..
            }
        ),
        "{message}"
    );
    assert!(message.contains("HTTP 401"), "{message}");
    assert!(message.contains("API key"), "{message}");
    assert!(
        !events.iter().any(|e| matches!(e, ChatEvent::Notice(_))),
        "{events:?}"
    );
    assert!(!backend.name().starts_with("local:"), "{}", backend.name());
}
