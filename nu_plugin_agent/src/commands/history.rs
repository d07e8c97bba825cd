//! `agent history`: the saved conversations.

use agent_core::store::{ConversationSummary, History, StoreError};
use nu_plugin::{EngineInterface, EvaluatedCall, SimplePluginCommand};
use nu_protocol::{
    Category, Example, LabeledError, Record, Signature, Span, SyntaxShape, Type, Value,
};

use crate::AgentPlugin;

/// Characters of an answer in the list.
const ANSWER_CHARS: usize = 200;

/// `agent history [id] [--last] [--path]`.
pub struct AgentHistory;

impl SimplePluginCommand for AgentHistory {
    type Plugin = AgentPlugin;

    fn name(&self) -> &str {
        "agent history"
    }

    fn signature(&self) -> Signature {
        Signature::build(self.name())
            .input_output_types(vec![
                (Type::Nothing, Type::table()),
                (Type::Nothing, Type::String),
            ])
            .optional(
                "id",
                SyntaxShape::String,
                "A conversation's id: its messages.",
            )
            .switch("last", "The last conversation's messages.", Some('l'))
            .switch("path", "The directory the history is kept in.", None)
            .category(Category::Misc)
    }

    fn description(&self) -> &str {
        "The agent's saved conversations, newest first; with an id or --last, one conversation's messages."
    }

    fn extra_description(&self) -> &str {
        "Every `ask` is saved, one JSON line per message, in <state dir>/history/<id>.jsonl ($NU_AGENT_STATE_DIR, else $XDG_STATE_HOME/nu-agent, else ~/.local/state/nu-agent). Files are only appended to; `ask --continue` goes on with the last conversation. Secrets are redacted before they are written."
    }

    fn search_terms(&self) -> Vec<&str> {
        vec!["history", "conversation", "log", "transcript"]
    }

    fn examples(&self) -> Vec<Example<'_>> {
        vec![
            Example {
                example: "agent history | first 5",
                description: "The five most recent conversations",
                result: None,
            },
            Example {
                example: "agent history --last | where role == tool",
                description: "What the last conversation's steps returned",
                result: None,
            },
            Example {
                example: "agent history | where outcome == failed",
                description: "Conversations that ended without an answer",
                result: None,
            },
        ]
    }

    fn run(
        &self,
        _plugin: &AgentPlugin,
        _engine: &EngineInterface,
        call: &EvaluatedCall,
        _input: &Value,
    ) -> Result<Value, LabeledError> {
        let head = call.head;
        let history = History::open_default().map_err(|e| history_error(e, head))?;
        if call.has_flag("path")? {
            return Ok(Value::string(history.dir().display().to_string(), head));
        }
        let id: Option<String> = call.opt(0)?;
        let id = match (id, call.has_flag("last")?) {
            (Some(id), _) => Some(id),
            (None, true) => Some(
                history
                    .last_id()
                    .map_err(|e| history_error(e, head))?
                    .ok_or_else(|| {
                        LabeledError::new("there is no conversation yet")
                            .with_code("nu_agent::history")
                            .with_label("--last", head)
                            .with_help(r#"start one with ask "...""#)
                    })?,
            ),
            (None, false) => None,
        };
        let Some(id) = id else {
            let rows = history.list().map_err(|e| history_error(e, head))?;
            return Ok(Value::list(
                rows.iter().map(|row| summary_row(row, head)).collect(),
                head,
            ));
        };
        let conversation = history.load(&id).map_err(|e| history_error(e, head))?;
        let rows = conversation
            .messages
            .iter()
            .map(|message| {
                let calls = message
                    .tool_calls
                    .iter()
                    .map(|c| {
                        let mut call = Record::new();
                        call.push("name", Value::string(&c.name, head));
                        call.push(
                            "arguments",
                            Value::string(
                                serde_json::Value::Object(c.arguments.clone()).to_string(),
                                head,
                            ),
                        );
                        Value::record(call, head)
                    })
                    .collect();
                let mut row = Record::new();
                let role = serde_json::to_value(message.role)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default();
                row.push("role", Value::string(role, head));
                row.push("content", Value::string(&message.content, head));
                row.push("tool_calls", Value::list(calls, head));
                row.push(
                    "tool_call_id",
                    message
                        .tool_call_id
                        .as_ref()
                        .map_or(Value::nothing(head), |id| Value::string(id, head)),
                );
                Value::record(row, head)
            })
            .collect();
        Ok(Value::list(rows, head))
    }
}

/// One conversation as a row of the list.
fn summary_row(row: &ConversationSummary, head: Span) -> Value {
    let text = |s: &str| Value::string(s, head);
    let started = chrono::DateTime::parse_from_rfc3339(&row.meta.started)
        .map_or_else(|_| text(&row.meta.started), |d| Value::date(d, head));
    let answer = row.answer.as_ref().map_or(Value::nothing(head), |a| {
        let mut short: String = a.chars().take(ANSWER_CHARS).collect();
        if a.chars().count() > ANSWER_CHARS {
            short.push('…');
        }
        text(&short)
    });
    let mut record = Record::new();
    record.push("id", text(&row.meta.id));
    record.push("started", started);
    record.push("cwd", text(&row.meta.cwd));
    record.push("model", text(&row.meta.model));
    record.push("prompt", text(&row.meta.prompt));
    record.push("runs", Value::int(row.runs as i64, head));
    record.push("steps", Value::int(row.steps as i64, head));
    record.push(
        "outcome",
        row.outcome.as_deref().map_or(Value::nothing(head), text),
    );
    record.push("answer", answer);
    Value::record(record, head)
}

fn history_error(error: StoreError, head: Span) -> LabeledError {
    let help = match &error {
        StoreError::UnknownConversation(_) => "list the ids with `agent history`",
        _ => "set NU_AGENT_STATE_DIR to a writable directory",
    };
    LabeledError::new(error.to_string())
        .with_code("nu_agent::history")
        .with_label("history unavailable", head)
        .with_help(help)
}
