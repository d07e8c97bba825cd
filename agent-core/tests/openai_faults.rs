//! The OpenAI-compatible backend against a local server that replays
//! answers and faults: streamed text and native tool calls, calls in the
//! text, retries on 429/500, a server that never answers, malformed JSON,
//! a stream cut short, a missing model, a prompt too long, nobody there.

use std::{
    io::{BufRead, BufReader, Read, Write},
    net::{TcpListener, TcpStream},
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use agent_core::{
    llm::{
        ChatBackend, ChatEvent, ChatRequest, FinishReason, LlmError, Message, OpenAiBackend,
        OpenAiConfig, ToolDef,
    },
    redact::Redactor,
    shell::CancelToken,
};

/// A secret value of the caller's environment.
const CANARY: &str = "canary-5f0c2b9e-secret";

/// One scripted answer: status line + headers + body as raw bytes, or
/// silence.
#[derive(Clone)]
enum Answer {
    Raw(String),
    Silent,
}

fn sse(chunks: &[&str]) -> Answer {
    let mut body = String::new();
    for chunk in chunks {
        body.push_str(&format!("data: {chunk}\n\n"));
    }
    Answer::Raw(format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    ))
}

fn status(code: u16, body: &str, extra: &str) -> Answer {
    Answer::Raw(format!(
        "HTTP/1.1 {code} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\n{extra}Connection: close\r\n\r\n{body}",
        body.len()
    ))
}

/// Answers requests in order with `answers` (the last one repeats) and
/// keeps the request bodies.
struct Server {
    port: u16,
    bodies: Arc<Mutex<Vec<String>>>,
}

impl Server {
    fn start(answers: Vec<Answer>) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let bodies = Arc::new(Mutex::new(Vec::new()));
        let seen = bodies.clone();
        std::thread::spawn(move || {
            for (n, stream) in listener.incoming().flatten().enumerate() {
                let answer = answers[n.min(answers.len() - 1)].clone();
                let seen = seen.clone();
                std::thread::spawn(move || answer_one(stream, answer, &seen));
            }
        });
        Server { port, bodies }
    }

    fn backend(&self, timeout: Duration) -> OpenAiBackend {
        OpenAiBackend::new(OpenAiConfig {
            base_url: format!("http://127.0.0.1:{}/v1", self.port),
            model: "test-model".into(),
            api_key: Some("sk-test".into()),
            timeout,
            retries: 2,
            redactor: Redactor::from_env([("FAKE_API_KEY".to_string(), CANARY.to_string())]),
        })
    }
}

fn answer_one(mut stream: TcpStream, answer: Answer, seen: &Mutex<Vec<String>>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
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
    seen.lock()
        .unwrap()
        .push(String::from_utf8_lossy(&body).into_owned());
    match answer {
        Answer::Raw(text) => {
            let _ = stream.write_all(text.as_bytes());
        }
        Answer::Silent => std::thread::sleep(Duration::from_secs(10)),
    }
}

fn request() -> ChatRequest {
    ChatRequest {
        messages: vec![
            Message::system("You are an agent."),
            Message::user("list files"),
        ],
        tools: vec![ToolDef {
            name: "nu".into(),
            description: "Run a Nushell pipeline".into(),
            parameters: serde_json::json!({
                "type": "object",
                "properties": {"pipeline": {"type": "string"}},
                "required": ["pipeline"]
            }),
        }],
        tool_choice: Default::default(),
        max_tokens: 128,
        temperature: 0.0,
        avoid: Vec::new(),
        avoid_starts: Vec::new(),
        pipeline_grammar: None,
    }
}

fn chat(
    server: &Server,
    timeout: Duration,
) -> (Result<agent_core::llm::ChatTurn, LlmError>, Vec<ChatEvent>) {
    let mut events = Vec::new();
    let turn =
        server
            .backend(timeout)
            .chat(&request(), &mut |e| events.push(e), &CancelToken::new());
    (turn, events)
}

#[test]
fn streams_text_and_assembles_native_tool_calls() {
    let server = Server::start(vec![sse(&[
        r#"{"choices":[{"delta":{"content":"Let me "}}]}"#,
        r#"{"choices":[{"delta":{"content":"look."}}]}"#,
        r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"abc","function":{"name":"nu","arguments":"{\"pipe"}}]}}]}"#,
        r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"line\": \"ls\"}"}}]}}]}"#,
        r#"{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}"#,
        r#"{"choices":[],"usage":{"prompt_tokens":42,"completion_tokens":7}}"#,
        "[DONE]",
    ])]);
    let (turn, events) = chat(&server, Duration::from_secs(5));
    let turn = turn.unwrap();
    assert_eq!(turn.content, "Let me look.");
    assert_eq!(turn.tool_calls.len(), 1);
    assert_eq!(turn.tool_calls[0].id, "abc");
    assert_eq!(turn.tool_calls[0].arguments["pipeline"], "ls");
    assert_eq!(turn.usage.prompt_tokens, 42);
    assert_eq!(turn.finish, Some(FinishReason::ToolCalls));
    assert_eq!(
        events
            .iter()
            .filter(|e| matches!(e, ChatEvent::Text(_)))
            .count(),
        2
    );
    let sent: serde_json::Value = serde_json::from_str(&server.bodies.lock().unwrap()[0]).unwrap();
    assert_eq!(sent["model"], "test-model");
    assert_eq!(sent["stream"], true);
    assert_eq!(sent["tools"][0]["function"]["name"], "nu");
    assert_eq!(sent["messages"][1]["content"], "list files");
}

#[test]
fn calls_written_in_the_text_are_found() {
    let server = Server::start(vec![sse(&[
        r#"{"choices":[{"delta":{"content":"<tool_call>{\"name\": \"nu\", \"arguments\": {\"pipeline\": \"ps\"}}</tool_call>"},"finish_reason":"stop"}]}"#,
        "[DONE]",
    ])]);
    let turn = chat(&server, Duration::from_secs(5)).0.unwrap();
    assert_eq!(turn.tool_calls.len(), 1);
    assert_eq!(turn.tool_calls[0].arguments["pipeline"], "ps");
    assert_eq!(turn.content, "");
}

#[test]
fn rate_limits_and_server_errors_are_retried() {
    let ok = sse(&[
        r#"{"choices":[{"delta":{"content":"fine"},"finish_reason":"stop"}]}"#,
        "[DONE]",
    ]);
    let server = Server::start(vec![
        status(429, "{}", "Retry-After: 0\r\n"),
        status(500, "{}", "Retry-After: 0\r\n"),
        ok,
    ]);
    let turn = chat(&server, Duration::from_secs(5)).0.unwrap();
    assert_eq!(turn.content, "fine");
    assert_eq!(server.bodies.lock().unwrap().len(), 3);

    let failing = Server::start(vec![status(
        503,
        r#"{"error":{"message":"overloaded"}}"#,
        "Retry-After: 0\r\n",
    )]);
    let error = chat(&failing, Duration::from_secs(5))
        .0
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("HTTP 503") && error.contains("overloaded"),
        "{error}"
    );
    assert_eq!(
        failing.bodies.lock().unwrap().len(),
        3,
        "one try and two retries"
    );
}

#[test]
fn a_silent_server_times_out() {
    let server = Server::start(vec![Answer::Silent]);
    let started = Instant::now();
    let error = chat(&server, Duration::from_millis(300)).0.unwrap_err();
    assert!(matches!(error, LlmError::Remote { .. }), "{error}");
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn malformed_json_and_cut_streams_are_errors() {
    let bad = Server::start(vec![sse(&[r#"{"choices":[{"delta":{"content":"x"}"#])]);
    let error = chat(&bad, Duration::from_secs(5))
        .0
        .unwrap_err()
        .to_string();
    assert!(error.contains("malformed JSON"), "{error}");
    let cut = Server::start(vec![sse(&[
        r#"{"choices":[{"delta":{"content":"half an ans"}}]}"#,
    ])]);
    let error = chat(&cut, Duration::from_secs(5))
        .0
        .unwrap_err()
        .to_string();
    assert!(error.contains("closed the stream"), "{error}");
}

#[test]
fn missing_models_long_prompts_and_dead_servers_say_so() {
    let missing = Server::start(vec![status(
        404,
        r#"{"error":{"message":"model 'test-model' not found"}}"#,
        "",
    )]);
    let error = chat(&missing, Duration::from_secs(5))
        .0
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("not found") && error.contains("/v1"),
        "{error}"
    );
    let long = Server::start(vec![status(
        400,
        r#"{"error":{"message":"This model's maximum context length is 2048 tokens; the request exceeds it","code":"context_length_exceeded"}}"#,
        "",
    )]);
    let error = chat(&long, Duration::from_secs(5)).0.unwrap_err();
    assert!(matches!(error, LlmError::ContextTooLong { .. }), "{error}");
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let dead = OpenAiBackend::new(OpenAiConfig {
        base_url: format!("http://127.0.0.1:{port}/v1"),
        model: "m".into(),
        api_key: None,
        timeout: Duration::from_secs(2),
        retries: 0,
        redactor: Redactor::default(),
    })
    .chat(&request(), &mut |_| {}, &CancelToken::new())
    .unwrap_err()
    .to_string();
    assert!(dead.contains("cannot be reached"), "{dead}");
}

#[test]
fn secrets_never_reach_the_remote_model() {
    let server = Server::start(vec![sse(&[
        r#"{"choices":[{"delta":{"content":"ok"},"finish_reason":"stop"}]}"#,
        "[DONE]",
    ])]);
    let mut request = request();
    let token = "ghp_0123456789abcdefghijABCDEFGHIJ012345";
    request.messages.push(Message::tool(
        "call_0",
        format!("FAKE_API_KEY={CANARY}\nGITHUB_TOKEN={token}\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----"),
    ));
    server
        .backend(Duration::from_secs(5))
        .chat(&request, &mut |_| {}, &CancelToken::new())
        .unwrap();
    let sent = server.bodies.lock().unwrap().join("\n");
    assert!(!sent.contains(CANARY), "{sent}");
    assert!(!sent.contains(token), "{sent}");
    assert!(!sent.contains("b3BlbnNzaC1rZXk"), "{sent}");
    assert!(sent.contains("[REDACTED:"), "{sent}");
}
