//! Any OpenAI-compatible server (`/v1/chat/completions`: llama-server,
//! Ollama, vLLM, hosted APIs) with tools and SSE streaming. Native
//! `tool_calls` are used when the server sends them; otherwise calls are
//! read out of the text. 429 and 5xx are retried with backoff; the prompt
//! is never cut here — a server that says it is too long gets a clear
//! error.
//!
//! The HTTP client is ureq (blocking), which the engine already builds for
//! nu's own `http` commands.

use std::{
    io::{BufRead, BufReader},
    time::Duration,
};

use serde_json::{Value, json};

use super::{
    ChatBackend, ChatEvent, ChatRequest, ChatTurn, FinishReason, LlmError, Message, Role,
    ToolChoice, Usage, parse_reply,
};
use crate::{redact::Redactor, shell::CancelToken};

/// Where and how to reach the server.
#[derive(Clone, Debug)]
pub struct OpenAiConfig {
    /// Up to and including `/v1`, e.g. `http://127.0.0.1:8080/v1`.
    pub base_url: String,
    pub model: String,
    /// The API key (read from the environment variable the config names).
    pub api_key: Option<String>,
    /// Longest wait for the first byte of an answer and between chunks.
    pub timeout: Duration,
    /// Retries of a 429 / 5xx / refused connection.
    pub retries: u32,
    /// Scrubs secrets (credential shapes, the caller's secret values) from
    /// every string sent: the conversation leaves the machine.
    pub redactor: Redactor,
}

/// The OpenAI-compatible backend.
pub struct OpenAiBackend {
    config: OpenAiConfig,
    agent: ureq::Agent,
}

impl OpenAiBackend {
    pub fn new(config: OpenAiConfig) -> OpenAiBackend {
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_connect(Some(Duration::from_secs(10)))
            .timeout_recv_response(Some(config.timeout))
            .timeout_recv_body(Some(config.timeout))
            .build()
            .into();
        OpenAiBackend { config, agent }
    }

    fn url(&self) -> String {
        format!(
            "{}/chat/completions",
            self.config.base_url.trim_end_matches('/')
        )
    }

    fn remote(&self, message: impl Into<String>) -> LlmError {
        LlmError::Remote {
            url: self.url(),
            message: message.into(),
            unreachable: false,
        }
    }

    /// The error the server gives for `body` sent unstreamed and for one
    /// token, if it gives one.
    fn unstreamed_error(&self, body: &str) -> Option<LlmError> {
        let mut body: Value = serde_json::from_str(body).ok()?;
        let fields = body.as_object_mut()?;
        fields.remove("stream_options");
        fields.insert("stream".into(), json!(false));
        fields.insert("max_tokens".into(), json!(1));
        // A connection of its own: the server may have closed the pooled one.
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(self.config.timeout))
            .build()
            .into();
        let mut call = agent
            .post(&self.url())
            .header("Content-Type", "application/json");
        if let Some(key) = &self.config.api_key {
            call = call.header("Authorization", format!("Bearer {key}"));
        }
        let response = call.send(body.to_string().as_bytes()).ok()?;
        let status = response.status().as_u16();
        if status == 200 {
            return None;
        }
        let text = response.into_body().read_to_string().unwrap_or_default();
        Some(status_error(self, status, &text))
    }
}

/// The request body, every message redacted.
fn body(model: &str, request: &ChatRequest, redactor: &Redactor) -> Value {
    let messages: Vec<Value> = request
        .messages
        .iter()
        .map(|m| message_json(m, redactor))
        .collect();
    let mut body = json!({
        "model": model,
        "messages": messages,
        "stream": true,
        "stream_options": {"include_usage": true},
        "max_tokens": request.max_tokens,
        "temperature": request.temperature,
    });
    if !request.tools.is_empty() {
        body["tools"] = request
            .tools
            .iter()
            .map(|t| {
                json!({"type": "function", "function": {
                    "name": t.name, "description": t.description, "parameters": t.parameters}})
            })
            .collect();
        body["tool_choice"] = json!(match request.tool_choice {
            ToolChoice::Auto => "auto",
            ToolChoice::Required => "required",
            ToolChoice::None => "none",
        });
    }
    body
}

fn message_json(message: &Message, redactor: &Redactor) -> Value {
    let role = match message.role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    };
    let mut value = json!({"role": role, "content": redactor.redact(&message.content)});
    if !message.tool_calls.is_empty() {
        value["tool_calls"] = message
            .tool_calls
            .iter()
            .map(|c| {
                json!({"id": c.id, "type": "function", "function": {
                    "name": c.name,
                    "arguments": redactor.redact(&Value::Object(c.arguments.clone()).to_string())}})
            })
            .collect();
    }
    if let Some(id) = &message.tool_call_id {
        value["tool_call_id"] = json!(id);
    }
    value
}

/// A native tool call being streamed in pieces.
#[derive(Default)]
struct PartialCall {
    id: String,
    name: String,
    arguments: String,
}

impl ChatBackend for OpenAiBackend {
    fn name(&self) -> String {
        format!("{} at {}", self.config.model, self.config.base_url)
    }

    fn chat(
        &mut self,
        request: &ChatRequest,
        on_event: &mut dyn FnMut(ChatEvent),
        cancel: &CancelToken,
    ) -> Result<ChatTurn, LlmError> {
        let body = body(&self.config.model, request, &self.config.redactor).to_string();
        let mut attempt = 0;
        let response = loop {
            attempt += 1;
            if cancel.is_cancelled() {
                return Ok(cancelled(on_event));
            }
            let mut call = self
                .agent
                .post(&self.url())
                .header("Content-Type", "application/json")
                .header("Accept", "text/event-stream");
            if let Some(key) = &self.config.api_key {
                call = call.header("Authorization", format!("Bearer {key}"));
            }
            let retry_in = Duration::from_millis(500 * 2u64.pow(attempt.min(6)));
            match call.send(body.as_bytes()) {
                Ok(response) => {
                    let status = response.status().as_u16();
                    if status == 200 {
                        break response;
                    }
                    let wait = response
                        .headers()
                        .get("retry-after")
                        .and_then(|v| v.to_str().ok())
                        .and_then(|v| v.trim().parse::<u64>().ok())
                        .map(Duration::from_secs)
                        .unwrap_or(retry_in)
                        .min(Duration::from_secs(30));
                    let text = response.into_body().read_to_string().unwrap_or_default();
                    if (status == 429 || status >= 500) && attempt <= self.config.retries {
                        std::thread::sleep(wait);
                        continue;
                    }
                    return Err(status_error(self, status, &text));
                }
                Err(
                    ureq::Error::Io(_) | ureq::Error::ConnectionFailed | ureq::Error::Timeout(_),
                ) if attempt <= self.config.retries => {
                    std::thread::sleep(retry_in);
                }
                Err(error) => {
                    let unreachable = matches!(
                        error,
                        ureq::Error::Io(_)
                            | ureq::Error::ConnectionFailed
                            | ureq::Error::Timeout(_)
                            | ureq::Error::HostNotFound
                            | ureq::Error::ConnectProxyFailed(_)
                    );
                    return Err(LlmError::Remote {
                        url: self.url(),
                        message: format!("the server cannot be reached ({error}); is it running?"),
                        unreachable,
                    });
                }
            }
        };
        let schemas: Vec<_> = request.tools.iter().map(|t| t.schema()).collect();
        let mut turn = ChatTurn::default();
        let mut partial: Vec<PartialCall> = Vec::new();
        let mut done = false;
        let mut answered = false;
        let reader = BufReader::new(response.into_body().into_reader());
        for line in reader.lines() {
            if cancel.is_cancelled() {
                return Ok(cancelled(on_event));
            }
            let line = line.map_err(|e| self.remote(format!("the stream broke off: {e}")))?;
            let Some(data) = line.strip_prefix("data:").map(str::trim) else {
                continue;
            };
            answered = true;
            if data == "[DONE]" {
                done = true;
                break;
            }
            let chunk: Value = serde_json::from_str(data).map_err(|e| {
                self.remote(format!("the server sent malformed JSON ({e}): {data:.120}"))
            })?;
            if let Some(usage) = chunk.get("usage").filter(|u| u.is_object()) {
                let count = |k: &str| usage.get(k).and_then(Value::as_u64).unwrap_or(0) as u32;
                turn.usage = Usage {
                    prompt_tokens: count("prompt_tokens"),
                    prompt_evaluated: count("prompt_tokens"),
                    completion_tokens: count("completion_tokens"),
                };
            }
            let Some(choice) = chunk.get("choices").and_then(|c| c.get(0)) else {
                continue;
            };
            let delta = choice.get("delta").or_else(|| choice.get("message"));
            if let Some(text) = delta.and_then(|d| d.get("content")).and_then(Value::as_str)
                && !text.is_empty()
            {
                turn.content.push_str(text);
                on_event(ChatEvent::Text(text.to_string()));
            }
            for call in delta
                .and_then(|d| d.get("tool_calls"))
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let index = call.get("index").and_then(Value::as_u64).unwrap_or(0) as usize;
                if index >= 64 {
                    return Err(self.remote("the server streamed more than 64 tool calls"));
                }
                if partial.len() <= index {
                    partial.resize_with(index + 1, PartialCall::default);
                }
                let part = &mut partial[index];
                if let Some(id) = call.get("id").and_then(Value::as_str) {
                    part.id = id.to_string();
                }
                let function = call.get("function");
                if let Some(name) = function.and_then(|f| f.get("name")).and_then(Value::as_str) {
                    part.name.push_str(name);
                }
                if let Some(args) = function.and_then(|f| f.get("arguments")) {
                    match args {
                        Value::String(piece) => part.arguments.push_str(piece),
                        other => part.arguments.push_str(&other.to_string()),
                    }
                }
            }
            if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
                turn.finish = Some(match reason {
                    "length" => FinishReason::Length,
                    "tool_calls" | "function_call" => FinishReason::ToolCalls,
                    _ => FinishReason::Stop,
                });
            }
        }
        if !done && turn.finish.is_none() {
            // llama-cpp-python answers 200, then fails a request it cannot
            // serve (a prompt longer than its context) and closes the stream
            // empty; asked again unstreamed, it says why.
            if !answered && let Some(error) = self.unstreamed_error(&body) {
                return Err(error);
            }
            return Err(self.remote("the server closed the stream before the answer ended"));
        }
        // Native calls, checked like text calls; otherwise calls in the text.
        let mut problems = Vec::new();
        for part in partial {
            let text = format!(
                "<tool_call>{{\"name\": {}, \"arguments\": {}}}</tool_call>",
                Value::String(part.name.clone()),
                if part.arguments.trim().is_empty() {
                    "{}"
                } else {
                    part.arguments.as_str()
                }
            );
            let reply = parse_reply(&text, &schemas);
            match (reply.calls.into_iter().next(), reply.repair) {
                (Some(mut call), _) => {
                    if !part.id.is_empty() {
                        call.id = part.id;
                    }
                    turn.tool_calls.push(call);
                }
                (None, Some(repair)) => problems.push(repair),
                (None, None) => {}
            }
        }
        if turn.tool_calls.is_empty() && problems.is_empty() {
            let reply = parse_reply(&turn.content, &schemas);
            turn.reasoning = reply.reasoning;
            turn.repair = reply.repair;
            if !reply.calls.is_empty() {
                turn.content = reply.content;
                turn.tool_calls = reply.calls;
            }
        } else if let Some(first) = problems.into_iter().next() {
            turn.repair = Some(first);
        }
        for call in &turn.tool_calls {
            on_event(ChatEvent::ToolCall(call.clone()));
        }
        let finish = if turn.tool_calls.is_empty() {
            turn.finish.unwrap_or(FinishReason::Stop)
        } else {
            FinishReason::ToolCalls
        };
        turn.finish = Some(finish);
        on_event(ChatEvent::Usage(turn.usage));
        on_event(ChatEvent::Finish(finish));
        Ok(turn)
    }
}

fn cancelled(on_event: &mut dyn FnMut(ChatEvent)) -> ChatTurn {
    on_event(ChatEvent::Finish(FinishReason::Cancelled));
    ChatTurn {
        finish: Some(FinishReason::Cancelled),
        ..ChatTurn::default()
    }
}

/// A non-200 answer as an error a user can act on.
fn status_error(backend: &OpenAiBackend, status: u16, body: &str) -> LlmError {
    let detail = serde_json::from_str::<Value>(body)
        .ok()
        .and_then(|v| {
            v.get("error")
                .and_then(|e| e.get("message").or(Some(e)))
                .and_then(|m| m.as_str().map(str::to_string))
        })
        .unwrap_or_else(|| body.chars().take(200).collect());
    let lower = detail.to_lowercase();
    if status == 400
        && lower.contains("context")
        && (lower.contains("length") || lower.contains("exceed") || lower.contains("too long"))
    {
        return LlmError::ContextTooLong { message: detail };
    }
    let hint = match status {
        401 | 403 => " (the server refused the API key: check the variable your config names)",
        404 => " (the model name or the URL is wrong: the URL must end in /v1)",
        429 => " (rate limited; retries ran out)",
        500..=599 => " (the server failed; retries ran out)",
        _ => "",
    };
    backend.remote(format!("HTTP {status}: {detail}{hint}"))
}
