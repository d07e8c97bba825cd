//! A local OpenAI-compatible server that answers each chat request with the
//! next scripted model turn, streamed as a real server streams it. The
//! plugin's real OpenAI backend talks to it, so end-to-end tests of `ask`
//! are deterministic. It keeps the request bodies for assertions.

use std::{
    io::{BufRead, BufReader, Read, Write},
    net::{TcpListener, TcpStream},
    sync::{Arc, Mutex},
    time::Duration,
};

/// The longest a scripted turn may keep the client waiting.
const MAX_DELAY: Duration = Duration::from_secs(30);

/// One scripted model turn.
#[derive(Clone, Debug)]
pub enum Turn {
    /// A native tool call.
    Call {
        name: String,
        arguments: serde_json::Value,
    },
    /// Plain text.
    Text(String),
    /// `turn`, after the server sent nothing for `delay` (a slow model);
    /// at most 30 s.
    Slow { delay: Duration, turn: Box<Turn> },
}

impl Turn {
    /// A call of `name` with `arguments`.
    pub fn call(name: &str, arguments: serde_json::Value) -> Turn {
        Turn::Call {
            name: name.into(),
            arguments,
        }
    }

    /// The `nu` tool running `pipeline`.
    pub fn nu(pipeline: &str) -> Turn {
        Turn::call(
            "nu",
            serde_json::json!({"pipeline": pipeline, "why": "test step"}),
        )
    }

    /// The `answer` tool with `text`.
    pub fn answer(text: &str) -> Turn {
        Turn::call("answer", serde_json::json!({"text": text}))
    }

    /// This turn, sent after `delay` of silence (at most 30 s).
    pub fn after(self, delay: Duration) -> Turn {
        Turn::Slow {
            delay: delay.min(MAX_DELAY),
            turn: Box::new(self),
        }
    }

    /// How long the server waits before it answers with this turn.
    fn delay(&self) -> Duration {
        match self {
            Turn::Slow { delay, .. } => (*delay).min(MAX_DELAY),
            _ => Duration::ZERO,
        }
    }

    /// The SSE body of this turn.
    fn stream(&self, n: usize) -> String {
        let chunks: Vec<serde_json::Value> = match self {
            Turn::Slow { turn, .. } => return turn.stream(n),
            Turn::Call { name, arguments } => vec![
                serde_json::json!({"choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [
                    {"index": 0, "id": format!("call_{n}"), "type": "function",
                     "function": {"name": name, "arguments": arguments.to_string()}}]}}]}),
                serde_json::json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
            ],
            Turn::Text(text) => {
                let mut chunks: Vec<serde_json::Value> = text
                    .split_inclusive(' ')
                    .map(|word| serde_json::json!({"choices": [{"index": 0, "delta": {"content": word}}]}))
                    .collect();
                chunks.push(serde_json::json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}));
                chunks
            }
        };
        let mut body: String = chunks.iter().map(|c| format!("data: {c}\n\n")).collect();
        body.push_str("data: [DONE]\n\n");
        body
    }
}

/// The server; it stops answering when dropped (its thread ends with the
/// test process).
pub struct ReplayServer {
    port: u16,
    bodies: Arc<Mutex<Vec<serde_json::Value>>>,
}

impl ReplayServer {
    /// Serve `turns` in order; after the last, every request gets a 500.
    pub fn start(turns: Vec<Turn>) -> ReplayServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a local port");
        let port = listener.local_addr().expect("local address").port();
        let bodies = Arc::new(Mutex::new(Vec::new()));
        let seen = bodies.clone();
        let turns = Arc::new(Mutex::new(
            turns.into_iter().enumerate().collect::<Vec<_>>(),
        ));
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let seen = seen.clone();
                let turns = turns.clone();
                std::thread::spawn(move || serve(stream, &seen, &turns));
            }
        });
        ReplayServer { port, bodies }
    }

    /// The base URL, up to `/v1`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    /// The chat requests received so far (JSON bodies).
    pub fn requests(&self) -> Vec<serde_json::Value> {
        self.bodies.lock().map(|b| b.clone()).unwrap_or_default()
    }

    /// Every message text the model was shown in request `n`, joined.
    pub fn shown(&self, n: usize) -> String {
        self.requests()
            .get(n)
            .and_then(|r| r["messages"].as_array().cloned())
            .unwrap_or_default()
            .iter()
            .map(|m| m["content"].as_str().unwrap_or("").to_string())
            .collect::<Vec<_>>()
            .join("\n")
    }
}

fn serve(
    mut stream: TcpStream,
    seen: &Mutex<Vec<serde_json::Value>>,
    turns: &Mutex<Vec<(usize, Turn)>>,
) {
    let Ok(clone) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(clone);
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
        return;
    }
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
    if !request_line.contains("/chat/completions") {
        let body = r#"{"object":"list","data":[{"id":"replay","object":"model"}]}"#;
        let _ = write!(
            stream,
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        return;
    }
    if let Ok(json) = serde_json::from_slice(&body)
        && let Ok(mut seen) = seen.lock()
    {
        seen.push(json);
    }
    let next = turns
        .lock()
        .ok()
        .and_then(|mut t| (!t.is_empty()).then(|| t.remove(0)));
    let response = match next {
        Some((n, turn)) => {
            std::thread::sleep(turn.delay());
            let body = turn.stream(n);
            format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            )
        }
        None => {
            let body = r#"{"error":{"message":"the replay server has no turns left"}}"#;
            format!(
                "HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            )
        }
    };
    let _ = stream.write_all(response.as_bytes());
}
