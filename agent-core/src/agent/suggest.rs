//! `agent suggest`: one pipeline for a request, checked to parse and judged
//! by the policy, never run. A pipeline that does not parse goes back to
//! the model with the diagnostic, a few times at most.

use super::{
    event::{AgentEvent, EventSink},
    prompt::PromptKind,
    settings::AgentOptions,
    tools::{Action, command_help, pipeline_grammar, pipeline_heads, tool_defs},
};
use crate::{
    llm::{ChatBackend, ChatEvent, ChatRequest, FinishReason, Message},
    policy::{Decision, PolicyShell},
    shell::CancelToken,
};

/// Model turns before giving up on a pipeline that parses.
const SUGGEST_TURNS: usize = 4;

/// A suggested pipeline and what the policy would say to it.
#[derive(Clone, Debug, PartialEq)]
pub struct Suggestion {
    pub pipeline: String,
    /// What it does, in the model's words.
    pub why: String,
    pub decision: Decision,
}

/// Why there is no suggestion.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SuggestError {
    #[error("cancelled")]
    Cancelled,
    #[error("{0}")]
    Backend(String),
    /// Every proposal failed to parse; the last one and its error.
    #[error("no pipeline that parses after {turns} tries; the last was `{pipeline}`: {error}")]
    NoValidPipeline {
        turns: usize,
        pipeline: String,
        error: String,
    },
}

/// Ask the model for one pipeline doing `request`; `system_prompt` is the
/// [`PromptKind::Suggest`] prompt. Nothing runs.
pub fn suggest(
    backend: &mut dyn ChatBackend,
    shell: &PolicyShell,
    request: &str,
    system_prompt: String,
    options: &AgentOptions,
    sink: &EventSink,
    cancel: &CancelToken,
) -> Result<Suggestion, SuggestError> {
    let mut messages = vec![Message::system(system_prompt), Message::user(request)];
    let tools = tool_defs(PromptKind::Suggest);
    // Nothing runs, so the session's commands stay as they are.
    let pipeline_grammar = options.pipeline_grammar.then(|| {
        pipeline_grammar(pipeline_heads(shell.session().engine_state(), &shell.programs()).into())
    });
    let mut last = (String::new(), String::from("the model proposed nothing"));
    for _ in 0..SUGGEST_TURNS {
        if cancel.is_cancelled() {
            return Err(SuggestError::Cancelled);
        }
        let chat = ChatRequest {
            messages: messages.clone(),
            tools: tools.clone(),
            tool_choice: options.tool_choice,
            max_tokens: options.max_tokens,
            temperature: options.temperature,
            avoid: Vec::new(),
            avoid_starts: Vec::new(),
            pipeline_grammar: pipeline_grammar.clone(),
        };
        let mut on_event = |event: ChatEvent| {
            if let ChatEvent::Notice(text) = event {
                sink(&AgentEvent::Notice(text));
            }
        };
        let turn = backend
            .chat(&chat, &mut on_event, cancel)
            .map_err(|e| SuggestError::Backend(e.to_string()))?;
        if turn.finish == Some(FinishReason::Cancelled) || cancel.is_cancelled() {
            return Err(SuggestError::Cancelled);
        }
        if let Some(repair) = turn.repair {
            messages.push(Message::assistant(turn.content, Vec::new()));
            messages.push(Message::user(repair));
            continue;
        }
        if turn.tool_calls.is_empty() {
            // A model answering in text: its code block, or the whole text.
            let pipeline = code_block(&turn.content);
            if pipeline.is_empty() {
                messages.push(Message::assistant(turn.content, Vec::new()));
                messages.push(Message::user(
                    "Reply with a `nu` call holding the pipeline.",
                ));
                continue;
            }
            match judge(shell, &pipeline) {
                Ok(decision) => {
                    return Ok(Suggestion {
                        pipeline,
                        why: String::new(),
                        decision,
                    });
                }
                Err(error) => {
                    messages.push(Message::assistant(turn.content, Vec::new()));
                    messages.push(Message::user(not_parsing(&error)));
                    last = (pipeline, error);
                    continue;
                }
            }
        }
        messages.push(Message::assistant(turn.content, turn.tool_calls.clone()));
        for call in &turn.tool_calls {
            let result = match Action::from_call(call) {
                Action::Run { pipeline, why, .. } => match judge(shell, &pipeline) {
                    Ok(decision) => {
                        return Ok(Suggestion {
                            pipeline,
                            why,
                            decision,
                        });
                    }
                    Err(error) => {
                        let text = not_parsing(&error);
                        last = (pipeline, error);
                        text
                    }
                },
                Action::Help { command } => command_help(shell.session().engine_state(), &command),
                Action::Answer { .. } => {
                    "Do not answer: call `nu` with the one pipeline.".to_string()
                }
                Action::Invalid(message) => message,
            };
            messages.push(Message::tool(call.id.clone(), result));
        }
    }
    Err(SuggestError::NoValidPipeline {
        turns: SUGGEST_TURNS,
        pipeline: last.0,
        error: last.1,
    })
}

/// The policy's decision on `pipeline`, or the parser's error.
fn judge(shell: &PolicyShell, pipeline: &str) -> Result<Decision, String> {
    match shell.check(pipeline) {
        (Some(_), decision) => Ok(decision),
        (None, decision) => Err(decision
            .rows
            .first()
            .map(|r| r.reason.clone())
            .unwrap_or_else(|| "it does not parse".into())),
    }
}

fn not_parsing(error: &str) -> String {
    format!(
        "That pipeline does not parse: {error}\nFix it and call `nu` again (`help <command>` shows a command's usage)."
    )
}

/// The first fenced code block of `text`, else `text` itself, trimmed.
fn code_block(text: &str) -> String {
    let Some(start) = text.find("```") else {
        return text.trim().to_string();
    };
    let body = &text[start + 3..];
    let body = body.split_once('\n').map_or(body, |(lang, rest)| {
        if lang.trim().chars().all(|c| c.is_ascii_alphanumeric()) {
            rest
        } else {
            body
        }
    });
    body.split("```").next().unwrap_or(body).trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_blocks_are_taken_out_of_text() {
        assert_eq!(
            code_block("Try:\n```nu\nls | length\n```\nok"),
            "ls | length"
        );
        assert_eq!(code_block("  ls  "), "ls");
        assert_eq!(code_block("```\nps\n```"), "ps");
    }
}
