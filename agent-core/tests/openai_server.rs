//! The OpenAI-compatible backend against a real server on loopback:
//! llama-cpp-python's server (installed by
//! `nu-scripts/install-llama-cpp-python.sh`) serving the small test model,
//! SmolLM2-135M-Instruct. Streamed text, tools offered, `max_tokens`,
//! cancellation mid-stream, a prompt longer than the server's context, a
//! wrong URL, and greedy answers that repeat.
//!
//! Each test starts its own server (killed when the test ends, pass or
//! fail) and the tests run one at a time, so timings are not shared out
//! between servers on a small machine.
//!
//! Found with `NU_AGENT_LLAMA_CPP_PYTHON` (the venv's python) and
//! `NU_AGENT_TEST_MODEL` (the GGUF), or their cached places.

use std::{
    fs::File,
    io::{Read, Seek, SeekFrom},
    net::TcpListener,
    os::unix::process::CommandExt,
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    sync::{Mutex, MutexGuard, mpsc},
    time::{Duration, Instant},
};

use agent_core::{
    llm::{
        ChatBackend, ChatEvent, ChatRequest, ChatTurn, FinishReason, LlmError, Message,
        OpenAiBackend, OpenAiConfig, ToolDef,
    },
    redact::Redactor,
    shell::CancelToken,
};

/// The llama-cpp-python release the install script pins.
const LLAMA_CPP_PYTHON_VERSION: &str = "0.3.16";
/// The server's context, in tokens.
const N_CTX: u32 = 2048;
/// The longest wait for a fresh server to answer `/v1/models`.
const STARTUP: Duration = Duration::from_secs(120);

/// One server at a time: each is a CPU-bound process on a two-core machine.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn cache() -> PathBuf {
    PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/nu-agent")
}

/// The venv python that has `llama_cpp.server`.
fn server_python() -> PathBuf {
    let path = std::env::var_os("NU_AGENT_LLAMA_CPP_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            cache().join(format!(
                "llama-cpp-python-{LLAMA_CPP_PYTHON_VERSION}/bin/python"
            ))
        });
    assert!(
        path.exists(),
        "{} missing: run nu-scripts/install-llama-cpp-python.sh (it prints the python to put in \
         NU_AGENT_LLAMA_CPP_PYTHON)",
        path.display()
    );
    path
}

/// The test model, fetched by `nu-scripts/fetch-test-model.sh`.
fn test_model() -> PathBuf {
    let path = std::env::var_os("NU_AGENT_TEST_MODEL")
        .map(PathBuf::from)
        .unwrap_or_else(|| cache().join("models/SmolLM2-135M-Instruct.Q4_1.gguf"));
    assert!(
        path.exists(),
        "{} missing: run nu-scripts/fetch-test-model.sh",
        path.display()
    );
    path
}

/// A port nobody listens on right now.
fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
    listener.local_addr().expect("local address").port()
}

/// `python -m llama_cpp.server` on the test model, killed on drop.
struct LlamaServer {
    child: Child,
    port: u16,
    log: PathBuf,
    _dir: tempfile::TempDir,
    _turn: MutexGuard<'static, ()>,
}

impl LlamaServer {
    fn start() -> LlamaServer {
        let turn = ONE_AT_A_TIME
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let (python, model) = (server_python(), test_model());
        let dir = tempfile::tempdir().expect("temp dir");
        let log = dir.path().join("server.log");
        let out = File::create(&log).expect("server log");
        let err = out.try_clone().expect("server log");
        let port = free_port();
        let mut command = Command::new(&python);
        command
            .args(["-m", "llama_cpp.server", "--model"])
            .arg(&model)
            .args(["--host", "127.0.0.1", "--port", &port.to_string()])
            .args(["--n_ctx", &N_CTX.to_string()])
            // SmolLM2 speaks ChatML (`<|im_start|>role ... <|im_end|>`).
            .args(["--chat_format", "chatml"])
            // Queue a request behind the one running instead of cutting
            // the running one short.
            .args(["--interrupt_requests", "False"])
            // One thread: on a busy two-core machine a second one makes
            // llama.cpp wait on a descheduled thread at every step (a
            // 20-token prompt took 14 s with two, 1 s with one).
            .args(["--n_threads", "1", "--n_threads_batch", "1"])
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err);
        // SAFETY: prctl is async-signal-safe and touches no memory of ours.
        // The server dies with the test even if this process is killed
        // before `Drop` runs.
        unsafe {
            command.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
        let child = command
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", python.display()));
        let mut server = LlamaServer {
            child,
            port,
            log,
            _dir: dir,
            _turn: turn,
        };
        server.wait_ready();
        server
    }

    fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    /// Polls `/v1/models` until it answers 200, the server exits or
    /// [`STARTUP`] passes.
    fn wait_ready(&mut self) {
        let url = format!("{}/models", self.base_url());
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_secs(5)))
            .build()
            .into();
        let started = Instant::now();
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!(
                    "llama_cpp.server exited ({status}) before it answered {url}; its log ends:\n{}",
                    self.log_tail()
                );
            }
            if let Ok(response) = agent.get(&url).call()
                && response.status() == 200
            {
                return;
            }
            if started.elapsed() > STARTUP {
                panic!(
                    "llama_cpp.server did not answer {url} within {STARTUP:?}; its log ends:\n{}",
                    self.log_tail()
                );
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// The last lines of the server's stdout and stderr.
    fn log_tail(&self) -> String {
        let mut text = String::new();
        if let Ok(mut file) = File::open(&self.log) {
            let length = file.metadata().map(|m| m.len()).unwrap_or(0);
            let _ = file.seek(SeekFrom::Start(length.saturating_sub(4000)));
            let mut bytes = Vec::new();
            let _ = file.read_to_end(&mut bytes);
            text = String::from_utf8_lossy(&bytes).into_owned();
        }
        text
    }

    fn backend(&self) -> OpenAiBackend {
        backend_at(&self.base_url())
    }
}

impl Drop for LlamaServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn backend_at(base_url: &str) -> OpenAiBackend {
    OpenAiBackend::new(OpenAiConfig {
        base_url: base_url.to_string(),
        model: "SmolLM2-135M-Instruct".into(),
        api_key: None,
        timeout: Duration::from_secs(60),
        retries: 0,
        redactor: Redactor::default(),
    })
}

fn chat(text: &str, max_tokens: u32) -> ChatRequest {
    let mut request = ChatRequest::new(
        vec![
            Message::system("You are a helpful assistant. Answer briefly."),
            Message::user(text),
        ],
        Vec::new(),
    );
    request.max_tokens = max_tokens;
    request
}

/// One turn, with every event it reported.
fn run(
    backend: &mut OpenAiBackend,
    request: &ChatRequest,
    cancel: &CancelToken,
) -> (Result<ChatTurn, LlmError>, Vec<ChatEvent>) {
    let mut events = Vec::new();
    let result = backend.chat(request, &mut |event| events.push(event), cancel);
    (result, events)
}

fn texts(events: &[ChatEvent]) -> Vec<&str> {
    events
        .iter()
        .filter_map(|e| match e {
            ChatEvent::Text(text) => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// What a failed turn says, with the server's log for context.
fn turn_of(result: Result<ChatTurn, LlmError>, server: &LlamaServer) -> ChatTurn {
    result.unwrap_or_else(|e| panic!("turn failed: {e}; server log ends:\n{}", server.log_tail()))
}

#[test]
fn plain_chat_streams_text_and_stops() {
    let server = LlamaServer::start();
    let mut backend = server.backend();
    let request = chat("What is the capital of France?", 200);
    let (result, events) = run(&mut backend, &request, &CancelToken::new());
    let turn = turn_of(result, &server);

    let pieces = texts(&events);
    assert!(
        pieces.len() > 1,
        "the answer came in {} piece(s), not streamed: {events:?}",
        pieces.len()
    );
    assert_eq!(pieces.concat(), turn.content);
    assert!(!turn.content.trim().is_empty(), "{turn:?}");
    assert!(turn.tool_calls.is_empty(), "{turn:?}");
    assert_eq!(turn.finish, Some(FinishReason::Stop), "{turn:?}");
    // Usage, then Finish, close the turn.
    let n = events.len();
    assert_eq!(events[n - 1], ChatEvent::Finish(FinishReason::Stop));
    assert_eq!(events[n - 2], ChatEvent::Usage(turn.usage));
    // llama-cpp-python streams no `usage` (it ignores `stream_options`), so
    // the counts stay zero; a server that sends them fills them in.
    assert_eq!(turn.usage.prompt_tokens, 0, "{:?}", turn.usage);
}

#[test]
fn a_turn_with_tools_offered_is_well_formed() {
    let server = LlamaServer::start();
    let mut backend = server.backend();
    let tool = ToolDef {
        name: "nu".into(),
        description: "Run a Nushell pipeline and return its output".into(),
        parameters: serde_json::json!({
            "type": "object",
            "properties": {"command": {"type": "string"}},
            "required": ["command"],
        }),
    };
    // llama-cpp-python's `chatml` format does not show `tools` to the model
    // (and it streams no native `tool_calls`), so the system prompt and two
    // worked examples teach the `<tool_call>` text the backend reads.
    let call = |command: &str| {
        Message::assistant(
            format!(
                "<tool_call>{{\"name\": \"nu\", \"arguments\": {{\"command\": \"{command}\"}}}}</tool_call>"
            ),
            Vec::new(),
        )
    };
    let mut request = ChatRequest::new(
        vec![
            Message::system(
                "You run commands with the tool nu. To call it, answer only with \
                 <tool_call>{\"name\": \"nu\", \"arguments\": {\"command\": \"...\"}}</tool_call>",
            ),
            Message::user("Show the date."),
            call("date now"),
            Message::user("Show the files."),
            call("ls"),
            Message::user("Show the processes."),
        ],
        vec![tool],
    );
    request.max_tokens = 60;
    let (result, events) = run(&mut backend, &request, &CancelToken::new());
    let turn = turn_of(result, &server);

    for call in &turn.tool_calls {
        assert_eq!(call.name, "nu", "a call to a tool never offered: {call:?}");
        assert!(
            call.arguments.get("command").is_some_and(|c| c.is_string()),
            "a call without its required argument: {call:?}"
        );
    }
    let reported: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            ChatEvent::ToolCall(call) => Some(call.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(reported, turn.tool_calls);
    let finish = turn.finish.expect("a finished turn says why");
    if turn.tool_calls.is_empty() {
        assert!(
            matches!(finish, FinishReason::Stop | FinishReason::Length),
            "{turn:?}"
        );
    } else {
        assert_eq!(finish, FinishReason::ToolCalls, "{turn:?}");
    }
    assert_eq!(events.last(), Some(&ChatEvent::Finish(finish)));
    assert_eq!(
        events
            .iter()
            .filter(|e| matches!(e, ChatEvent::Finish(_)))
            .count(),
        1,
        "{events:?}"
    );
}

#[test]
fn max_tokens_ends_the_turn_with_length() {
    let server = LlamaServer::start();
    let mut backend = server.backend();
    let request = chat("Write a long story about a dragon who learns to sail.", 4);
    let (result, events) = run(&mut backend, &request, &CancelToken::new());
    let turn = turn_of(result, &server);

    assert_eq!(turn.finish, Some(FinishReason::Length), "{turn:?}");
    assert_eq!(
        events.last(),
        Some(&ChatEvent::Finish(FinishReason::Length))
    );
    // One streamed piece per token at most.
    let pieces = texts(&events);
    assert!(
        (1..=4).contains(&pieces.len()),
        "{} pieces for 4 tokens: {pieces:?}",
        pieces.len()
    );
}

#[test]
fn cancel_from_another_thread_stops_the_stream_promptly() {
    let server = LlamaServer::start();
    let mut backend = server.backend();
    // SmolLM2 tells this story until max_tokens.
    let request = chat(
        "Write a long story about a dragon who learns to sail.",
        1000,
    );
    let cancel = CancelToken::new();
    let (text_seen, text_arrived) = mpsc::channel::<()>();
    let canceller = {
        let cancel = cancel.clone();
        std::thread::spawn(move || {
            // The third piece of text: the stream is well under way.
            for _ in 0..3 {
                text_arrived.recv().ok()?;
            }
            cancel.cancel();
            Some(Instant::now())
        })
    };
    let mut events = Vec::new();
    let result = backend.chat(
        &request,
        &mut |event| {
            if matches!(event, ChatEvent::Text(_)) {
                let _ = text_seen.send(());
            }
            events.push(event);
        },
        &cancel,
    );
    let returned = Instant::now();
    drop(text_seen);
    let turn = turn_of(result, &server);
    let cancelled_at = canceller
        .join()
        .expect("canceller thread")
        .unwrap_or_else(|| panic!("the stream ended before 3 pieces of text: {events:?}"));

    assert_eq!(turn.finish, Some(FinishReason::Cancelled), "{events:?}");
    assert_eq!(
        events.last(),
        Some(&ChatEvent::Finish(FinishReason::Cancelled))
    );
    let delay = returned.saturating_duration_since(cancelled_at);
    assert!(
        delay < Duration::from_secs(2),
        "chat returned {delay:?} after the cancel"
    );
    // Far fewer pieces than the 1000 tokens asked for.
    assert!(texts(&events).len() < 100, "{events:?}");
}

#[test]
fn a_prompt_longer_than_the_context_is_a_clear_error() {
    let server = LlamaServer::start();
    let mut backend = server.backend();
    // Well over N_CTX tokens. Streamed, llama-cpp-python answers 200 and
    // closes the stream empty; the backend then asks unstreamed and gets
    // the server's 400 ("This model's maximum context length is 2048
    // tokens...").
    let long = "the quick brown fox jumps over the lazy dog ".repeat(400);
    let request = chat(&long, 64);
    let (result, events) = run(&mut backend, &request, &CancelToken::new());

    let error = match result {
        Ok(turn) => panic!("a prompt over {N_CTX} tokens was answered: {turn:?}"),
        Err(error) => error,
    };
    let message = error.to_string();
    assert!(
        matches!(error, LlmError::ContextTooLong { .. }),
        "not ContextTooLong: {message}; server log ends:\n{}",
        server.log_tail()
    );
    assert!(message.contains(&N_CTX.to_string()), "{message}");
    assert!(
        !events.iter().any(|e| matches!(e, ChatEvent::Text(_))),
        "{events:?}"
    );
}

#[test]
fn a_url_without_v1_names_the_fix() {
    // (A wrong model name is no error here: llama-cpp-python serves its one
    // model under any name.)
    let server = LlamaServer::start();
    let mut backend = backend_at(&format!("http://127.0.0.1:{}", server.port));
    let (result, _) = run(&mut backend, &chat("hi", 8), &CancelToken::new());

    let error = result.expect_err("no chat endpoint without /v1");
    let message = error.to_string();
    assert!(matches!(error, LlmError::Remote { .. }), "{message}");
    assert!(message.contains("404"), "{message}");
    assert!(message.contains("/v1"), "{message}");
}

#[test]
fn greedy_answers_repeat() {
    let server = LlamaServer::start();
    let mut backend = server.backend();
    let request = chat("Name three colours.", 48);
    let (first, _) = run(&mut backend, &request, &CancelToken::new());
    let (second, _) = run(&mut backend, &request, &CancelToken::new());
    let (first, second) = (turn_of(first, &server), turn_of(second, &server));

    assert!(!first.content.is_empty(), "{first:?}");
    assert_eq!(first.content, second.content);
    assert_eq!(first.finish, second.finish);
}

/// The python and model are where the tests look for them (a clear
/// failure, not a skip, when the install step was forgotten).
#[test]
fn the_server_python_has_llama_cpp_server() {
    let python = server_python();
    let output = Command::new(&python)
        .args(["-c", "import llama_cpp.server.app"])
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", python.display()));
    assert!(
        output.status.success(),
        "{} cannot import llama_cpp.server: {}",
        python.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(Path::new(&test_model()).is_file());
}
