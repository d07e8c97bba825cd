//! The scripted backend: replays model turns written in advance, through
//! the same tool-call parser as the real backends. For deterministic tests
//! of the agent loop; it never stands in for a real backend's own tests.

use std::collections::VecDeque;

use super::{
    ChatBackend, ChatEvent, ChatRequest, ChatTurn, FinishReason, LlmError, Usage, parse_reply,
};
use crate::shell::CancelToken;

/// Replays one scripted reply per turn.
#[derive(Clone, Debug, Default)]
pub struct ScriptedBackend {
    turns: VecDeque<String>,
    /// The requests it was given, for assertions.
    pub requests: Vec<ChatRequest>,
}

impl ScriptedBackend {
    /// A backend that answers with `turns`, in order (model text, tool
    /// calls written as the model would write them).
    pub fn new<S: Into<String>>(turns: impl IntoIterator<Item = S>) -> ScriptedBackend {
        ScriptedBackend {
            turns: turns.into_iter().map(Into::into).collect(),
            requests: Vec::new(),
        }
    }
}

impl ChatBackend for ScriptedBackend {
    fn name(&self) -> String {
        "scripted".into()
    }

    fn chat(
        &mut self,
        request: &ChatRequest,
        on_event: &mut dyn FnMut(ChatEvent),
        cancel: &CancelToken,
    ) -> Result<ChatTurn, LlmError> {
        self.requests.push(request.clone());
        let Some(text) = self.turns.pop_front() else {
            return Err(LlmError::Backend(
                "the scripted backend has no turns left".into(),
            ));
        };
        let schemas: Vec<_> = request.tools.iter().map(|t| t.schema()).collect();
        let reply = parse_reply(&text, &schemas);
        let mut turn = ChatTurn {
            reasoning: reply.reasoning.clone(),
            repair: reply.repair.clone(),
            usage: Usage {
                prompt_tokens: request
                    .messages
                    .iter()
                    .map(|m| approx_tokens(&m.content))
                    .sum(),
                prompt_evaluated: 0,
                completion_tokens: approx_tokens(&text),
            },
            ..ChatTurn::default()
        };
        turn.usage.prompt_evaluated = turn.usage.prompt_tokens;
        if let Some(reasoning) = &reply.reasoning {
            on_event(ChatEvent::Reasoning(reasoning.clone()));
        }
        // Stream the answer a word at a time, as a model would.
        for word in reply.content.split_inclusive(' ') {
            if cancel.is_cancelled() {
                turn.finish = Some(FinishReason::Cancelled);
                on_event(ChatEvent::Finish(FinishReason::Cancelled));
                return Ok(turn);
            }
            turn.content.push_str(word);
            on_event(ChatEvent::Text(word.to_string()));
        }
        for call in reply.calls {
            on_event(ChatEvent::ToolCall(call.clone()));
            turn.tool_calls.push(call);
        }
        let finish = if turn.tool_calls.is_empty() {
            FinishReason::Stop
        } else {
            FinishReason::ToolCalls
        };
        on_event(ChatEvent::Usage(turn.usage));
        on_event(ChatEvent::Finish(finish));
        turn.finish = Some(finish);
        Ok(turn)
    }
}

/// About four characters a token: enough for usage figures in tests.
fn approx_tokens(text: &str) -> u32 {
    u32::try_from(text.chars().count().div_ceil(4)).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::{Message, ToolDef};

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
            max_tokens: 256,
            temperature: 0.0,
            avoid: Vec::new(),
            avoid_starts: Vec::new(),
            pipeline_grammar: None,
        }
    }

    #[test]
    fn replays_text_and_calls_as_events() {
        let mut backend = ScriptedBackend::new([
            "Looking. <tool_call>{\"name\": \"nu\", \"arguments\": {\"pipeline\": \"ls\"}}</tool_call>",
            "There are 3 files.",
        ]);
        let mut events = Vec::new();
        let turn = backend
            .chat(&request(), &mut |e| events.push(e), &CancelToken::new())
            .unwrap();
        assert_eq!(turn.tool_calls.len(), 1);
        assert_eq!(turn.finish, Some(FinishReason::ToolCalls));
        assert!(
            events
                .iter()
                .any(|e| matches!(e, ChatEvent::ToolCall(c) if c.name == "nu"))
        );
        assert_eq!(
            events.last(),
            Some(&ChatEvent::Finish(FinishReason::ToolCalls))
        );
        let turn = backend
            .chat(&request(), &mut |_| {}, &CancelToken::new())
            .unwrap();
        assert_eq!(turn.content, "There are 3 files.");
        assert_eq!(turn.finish, Some(FinishReason::Stop));
        assert!(
            backend
                .chat(&request(), &mut |_| {}, &CancelToken::new())
                .is_err()
        );
        assert_eq!(backend.requests.len(), 3);
    }

    #[test]
    fn a_bad_call_comes_back_with_a_repair_message() {
        let mut backend = ScriptedBackend::new([
            "<tool_call>{\"name\": \"bash\", \"arguments\": {}}</tool_call>",
        ]);
        let turn = backend
            .chat(&request(), &mut |_| {}, &CancelToken::new())
            .unwrap();
        assert!(turn.tool_calls.is_empty());
        assert!(turn.repair.unwrap().contains("no tool named"));
    }

    #[test]
    fn cancel_stops_the_stream() {
        let mut backend = ScriptedBackend::new(["one two three four"]);
        let cancel = CancelToken::new();
        let stop = cancel.clone();
        let mut words = 0;
        let turn = backend
            .chat(
                &request(),
                &mut |e| {
                    if matches!(e, ChatEvent::Text(_)) {
                        words += 1;
                        stop.cancel();
                    }
                },
                &cancel,
            )
            .unwrap();
        assert_eq!(words, 1);
        assert_eq!(turn.finish, Some(FinishReason::Cancelled));
    }
}
