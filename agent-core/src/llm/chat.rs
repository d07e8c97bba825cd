//! The conversation a model sees and the one interface every backend
//! implements: streaming chat with tool definitions, cancellable at any
//! point.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{LlmError, ToolCall};
use crate::shell::CancelToken;

/// Who said a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
    /// A tool's result, answering one call.
    Tool,
}

/// One message of the conversation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    pub content: String,
    /// The calls an assistant message made.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// For a tool message: the call it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

impl Message {
    pub fn system(text: impl Into<String>) -> Message {
        Message::plain(Role::System, text)
    }

    pub fn user(text: impl Into<String>) -> Message {
        Message::plain(Role::User, text)
    }

    pub fn assistant(text: impl Into<String>, tool_calls: Vec<ToolCall>) -> Message {
        Message {
            tool_calls,
            ..Message::plain(Role::Assistant, text)
        }
    }

    /// The result of the call `id`.
    pub fn tool(id: impl Into<String>, text: impl Into<String>) -> Message {
        Message {
            tool_call_id: Some(id.into()),
            ..Message::plain(Role::Tool, text)
        }
    }

    fn plain(role: Role, text: impl Into<String>) -> Message {
        Message {
            role,
            content: text.into(),
            tool_calls: Vec::new(),
            tool_call_id: None,
        }
    }
}

/// A tool offered to the model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolDef {
    pub name: String,
    pub description: String,
    /// JSON Schema of the arguments object.
    pub parameters: Value,
}

impl ToolDef {
    /// The parser's view of this tool: its name and required arguments.
    pub fn schema(&self) -> super::ToolSchema {
        let required: Vec<&str> = self
            .parameters
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        super::ToolSchema::new(&self.name, &required)
    }
}

/// Whether the model may, must or must not call a tool this turn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ToolChoice {
    /// The model decides; a call it starts is held to the tool grammar.
    #[default]
    Auto,
    /// The turn is one tool call.
    Required,
    /// No calls this turn.
    None,
}

/// One string argument of one tool held to Nushell's shape: each pipeline
/// element starts with one of `heads` or with a value (a variable, a
/// literal, a subexpression, `^program`), and its quotes and brackets
/// balance (the local backend's grammar). A backend that cannot steer its
/// tokens ignores it. It is not part of the tool's schema, which the
/// model reads in its prompt.
#[derive(Clone, Debug, PartialEq)]
pub struct PipelineGrammar {
    /// The tool (`nu`) …
    pub tool: String,
    /// … and its argument that holds the pipeline (`pipeline`).
    pub argument: String,
    /// The words a pipeline element may start with: the first word of
    /// each command the session's engine knows and the programs on its
    /// PATH. Empty: the argument is a free string.
    pub heads: Arc<[String]>,
}

/// One request to a backend.
#[derive(Clone, Debug, PartialEq)]
pub struct ChatRequest {
    pub messages: Vec<Message>,
    pub tools: Vec<ToolDef>,
    pub tool_choice: ToolChoice,
    /// Most tokens to generate in this turn.
    pub max_tokens: u32,
    /// 0 = greedy.
    pub temperature: f32,
    /// Calls the model made before that this turn must not make again;
    /// a backend that can steer its tokens turns the reply away from them
    /// (the local one does), another may ignore it.
    pub avoid: Vec<ToolCall>,
    /// Calls whose first argument no reply may begin with (as for
    /// `avoid`, by a backend that can steer its tokens): pipelines that
    /// cannot mean anything where they would run (`open .git/…` in a
    /// repository, which git reads).
    pub avoid_starts: Vec<ToolCall>,
    /// Hold the pipeline argument to Nushell's shape (the local backend;
    /// others ignore it). `None`: a free string.
    pub pipeline_grammar: Option<PipelineGrammar>,
}

impl ChatRequest {
    /// A greedy request of up to 512 tokens, tools optional.
    pub fn new(messages: Vec<Message>, tools: Vec<ToolDef>) -> ChatRequest {
        ChatRequest {
            messages,
            tools,
            tool_choice: ToolChoice::Auto,
            max_tokens: 512,
            temperature: 0.0,
            avoid: Vec::new(),
            avoid_starts: Vec::new(),
            pipeline_grammar: None,
        }
    }
}

/// Token counts of one turn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub prompt_tokens: u32,
    /// Prompt tokens that were not served from a cache.
    pub prompt_evaluated: u32,
    pub completion_tokens: u32,
}

/// Why a turn ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    /// The model ended its answer.
    Stop,
    /// The model called tools.
    ToolCalls,
    /// `max_tokens` was reached.
    Length,
    /// Cancelled from outside.
    Cancelled,
}

/// What a backend reports while it generates.
#[derive(Clone, Debug, PartialEq)]
pub enum ChatEvent {
    /// Answer text, as it streams (whole UTF-8 characters only).
    Text(String),
    /// Reasoning (`<think>`) text, kept out of the answer.
    Reasoning(String),
    /// A complete, valid tool call.
    ToolCall(ToolCall),
    Usage(Usage),
    Finish(FinishReason),
    /// Something the user should see about the turn (e.g. a switch to the
    /// local model), not part of the answer.
    Notice(String),
}

/// The whole of one turn, once it is over.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChatTurn {
    pub content: String,
    pub reasoning: Option<String>,
    pub tool_calls: Vec<ToolCall>,
    /// What to tell the model when its call could not be read.
    pub repair: Option<String>,
    pub usage: Usage,
    pub finish: Option<FinishReason>,
}

/// A model that chats: the local llama.cpp backend, an OpenAI-compatible
/// server, or the scripted backend of the loop tests.
pub trait ChatBackend: Send {
    /// A short name for messages and `agent model info`.
    fn name(&self) -> String;

    /// Run one turn of `request`, reporting events to `on_event` as they
    /// happen; stops soon after `cancel` is set (with
    /// [`FinishReason::Cancelled`]).
    fn chat(
        &mut self,
        request: &ChatRequest,
        on_event: &mut dyn FnMut(ChatEvent),
        cancel: &CancelToken,
    ) -> Result<ChatTurn, LlmError>;
}
