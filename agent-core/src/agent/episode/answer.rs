//! The stage that checks an answer before it reaches the user: a reply
//! that echoes a message, an answer with nothing in it, a stop left
//! unsaid, facts no result shows; and the answer the loop gives itself
//! from the steps' own outcome when the model has no turn left.

use super::*;

impl Agent {
    /// `text`, a last answer that leaves out what the policy stopped, with
    /// the stop said after it (`stopped`, the stop's first line).
    pub(super) fn with_stop_said(&mut self, step: usize, text: &str, stopped: &str) -> String {
        self.emit(AgentEvent::Repaired {
            step,
            message:
                "the last answer leaves out what the policy stopped; it is said after the answer"
                    .into(),
        });
        match text.trim_end() {
            "" => format!("I did not do it: the policy stopped the step ({stopped})."),
            said => format!("{said}\nNot done: the policy stopped a step ({stopped})."),
        }
    }

    /// The answer `text`; right after a step that gave a table (`$out.N`
    /// of `last_result`) it returns that table too, so it can be piped.
    pub(super) fn answer_with_last_table(
        &mut self,
        text: String,
        last_result: Option<usize>,
    ) -> Ending {
        let table = last_result
            .and_then(|n| self.shell.out(n).map(|v| (n, v)))
            .filter(|(_, value)| is_table(value));
        self.answered_out = table.as_ref().map(|(n, _)| *n);
        let text = match &table {
            Some((_, value)) => with_row_names(text, value),
            None => text,
        };
        Ending::Answered {
            text,
            data: table.map(|(_, value)| value),
        }
    }

    /// The answer the steps give when the model cannot: what the policy
    /// stopped (`stopped`, the first line it was told), else the last
    /// result (`last_result`) as data, else the engine's last error.
    pub(super) fn outcome_answer(
        &mut self,
        stopped: Option<&str>,
        last_result: Option<usize>,
    ) -> Ending {
        if let Some(stopped) = stopped {
            self.answered_out = None;
            return Ending::Answered {
                text: format!("I did not do it: the policy stopped the step ({stopped})."),
                data: None,
            };
        }
        if let Some((n, value)) = last_result.and_then(|n| Some((n, self.shell.out(n)?))) {
            self.answered_out = Some(n);
            return Ending::Answered {
                text: match one_value(&value) {
                    Some(value) => format!("The last step found {value} ($out.{n})."),
                    None => with_what_it_holds(
                        format!("This is what the last step found ($out.{n})."),
                        &value,
                    ),
                },
                data: Some(value),
            };
        }
        self.answered_out = None;
        Ending::Answered {
            text: match &self.last_error {
                Some(failure) => format!("I could not finish the task: {failure}"),
                None => "I could not finish the task.".to_string(),
            },
            data: None,
        }
    }

    /// Whether the result `$out.N` of `last_result` is a table (an answer
    /// right after it returns it).
    pub(super) fn is_a_table(&self, last_result: Option<usize>) -> bool {
        last_result
            .and_then(|n| self.shell.out(n))
            .is_some_and(|value| is_table(&value))
    }

    /// Whether `text` repeats a message the model was sent (the request, a
    /// result, a correction) rather than answering: a small model told
    /// "You made this same call…" may say it back as its answer. An
    /// answer `with_data` (a table returned with it) may be the request in
    /// fewer words: it heads the table.
    pub(super) fn echoes_a_message(&self, text: &str, with_data: bool) -> bool {
        let said = normalize(text);
        // The request alone, as the user wrote it (its message may carry
        // the loop's notes after it).
        let request_again = said.len() >= ECHO_MIN_CHARS && normalize(&self.request) == said;
        if request_again
            || HARNESS_PHRASES.iter().any(|phrase| said.contains(phrase))
            || prompt::is_example_answer(text)
            || echo::is_shape_line(text)
            || (!with_data && echo::restates(text, &self.request))
        {
            return true;
        }
        // Words of a tool's own description ("answer the user. Set out to
        // N to return $out.N as data.").
        let describes_a_tool = said.len() >= ECHO_PREFIX_MIN_CHARS
            && tool_defs(self.options.kind)
                .iter()
                .any(|tool| normalize(&tool.description).contains(&said));
        if describes_a_tool {
            return true;
        }
        self.messages
            .iter()
            .filter(|m| matches!(m.role, Role::User | Role::Tool))
            .any(|m| {
                let sent = normalize(&m.content);
                (said.len() >= ECHO_MIN_CHARS && sent == said)
                    || (said.len() >= ECHO_PREFIX_MIN_CHARS && sent.starts_with(&said))
                    // Words of the loop's own instructions ("… what you
                    // found, or what you could not do and why."); a result
                    // may be quoted.
                    || (m.role == Role::User
                        && said.len() >= ECHO_PREFIX_MIN_CHARS
                        && sent.contains(&said))
                    // The loop's notes on a result, said back in other
                    // punctuation ("No shell to exit. A task ends with
                    // answer: …").
                    || (m.role == Role::Tool
                        && (echo::repeats_words(text, echo::loop_notes(&m.content))
                            || echo::is_quoted_code(text, echo::loop_notes(&m.content))))
            })
            || self
                .instructions
                .iter()
                .any(|told| echo::repeats_words(text, told))
    }

    /// Facts of `answer` that no message of this conversation holds (the
    /// machine's facts in the system prompt, the results, the requests,
    /// the pipelines written).
    pub(super) fn ungrounded(&self, answer: &str, numbers_too: bool) -> Vec<String> {
        // Not the turn that answers, nor the model's own earlier answers
        // and text, nor the loop's messages sending an answer back (they
        // quote it): a fact made up and said again would ground itself.
        let before = &self.messages[..self.messages.len().saturating_sub(1)];
        let mut sources: Vec<&str> = before
            .iter()
            .filter(|m| m.role != Role::Assistant && !m.content.starts_with(NOT_ANSWERED))
            // A value in an example of the engine's help is not a fact here.
            .map(|m| {
                m.content
                    .split(engine_docs::HEADING)
                    .next()
                    .unwrap_or_default()
            })
            .collect();
        let calls: Vec<String> = before
            .iter()
            .flat_map(|m| &m.tool_calls)
            .filter(|call| call.name != "answer")
            .map(|call| serde_json::Value::Object(call.arguments.clone()).to_string())
            .collect();
        sources.extend(calls.iter().map(String::as_str));
        grounding::ungrounded(answer, &sources, numbers_too)
    }
}

/// What the model is told when its answer announces something it does
/// not give.
pub(super) const HOLLOW_ANSWER: &str = "Not answered yet: your answer ends with a colon and gives nothing after it. Answer with the result itself, or pass `out` to return a `$out.N`.";

/// How each message sending an answer back begins.
pub(super) const NOT_ANSWERED: &str = "Not answered yet:";

/// Phrases only this loop's own messages use (corrections, lookups,
/// unknown names): an answer containing one repeats a message, whatever
/// words it puts around it.
pub(super) const HARNESS_PHRASES: &[&str] = &[
    "is not a Nushell command",
    "The request asks",
    "the rows themselves were asked for",
    "Close ones:",
    "There is no $out.",
    "Not answered yet:",
    "Answer again with",
    "You made this same call",
    "Fix the pipeline and call `nu` again",
    "this same pipeline failed at step",
    "Call `answer` now",
    "a message you were sent",
    "nu::shell::",
    "nu::parser::",
    "do not retry it",
    "This is the last step",
];

/// What the model is told when its answer leaves out that the policy
/// stopped a step: the user must learn what was not done.
pub(super) const STOP_UNSAID: &str = "Not answered yet: the policy stopped a step of this request (blocked, or not approved), and your answer does not say so. Answer again: what you did not do, and why.";

/// An answer with no content: empty, an introduction (`The answer is:`)
/// to something it does not give, or only the name of a tool (`answer`).
pub(super) fn hollow_answer(text: &str) -> bool {
    let text = text.trim();
    text.is_empty() || text.ends_with(':') || tool_named(text).is_some()
}

/// The tool `text` names and nothing else (backticks and a full stop
/// aside), as the agent's tools spell it: a tiny model calls `answer`
/// with the text `answer`.
pub(super) fn tool_named(text: &str) -> Option<&'static str> {
    let bare = text.trim_matches(|c: char| c == '`' || c == '.' || c.is_whitespace());
    [NU_TOOL, super::super::ANSWER_TOOL, super::super::HELP_TOOL]
        .into_iter()
        .find(|tool| bare.eq_ignore_ascii_case(tool))
}

/// What the model is told of its hollow answer `text`, and what the
/// repair says: the colon with nothing after it, or a tool's name.
pub(super) fn hollow_answer_repair(text: &str) -> (String, &'static str) {
    if let Some(tool) = tool_named(text) {
        (
            format!(
                "{NOT_ANSWERED} `{tool}` is the name of a tool, not an answer. Call `answer` with what the results show, or run a pipeline that finds it."
            ),
            "an answer that is only a tool's name; asked again",
        )
    } else {
        (
            HOLLOW_ANSWER.to_string(),
            "an answer with nothing after its colon; asked again",
        )
    }
}

/// A result that is one short value (a number, a size, a word), as text.
pub(super) fn one_value(value: &Value) -> Option<String> {
    let text = match value {
        Value::Int { .. }
        | Value::Float { .. }
        | Value::Filesize { .. }
        | Value::Duration { .. }
        | Value::Bool { .. }
        | Value::String { .. } => value.to_abbreviated_string(&nu_protocol::Config::default()),
        _ => return None,
    };
    (!text.is_empty() && text.len() <= 80 && !text.contains('\n')).then_some(text)
}

/// `text`, an answer about `value`, with the names of its rows on a line
/// of their own where it names none of them ("There are 2 empty files."
/// about a table of them; see [`grounding::rows_unnamed`]).
pub(super) fn with_row_names(text: String, value: &Value) -> String {
    match grounding::rows_unnamed(&text, value) {
        Some(names) => format!("{}\n{names}", text.trim_end()),
        None => text,
    }
}

/// `text`, an answer that only points at `value`, with what a small
/// `value` holds: its rows' names, or its lines of text.
pub(super) fn with_what_it_holds(text: String, value: &Value) -> String {
    match grounding::lines_unquoted(&text, value) {
        Some(lines) => format!("{text}\n{lines}"),
        None => with_row_names(text, value),
    }
}

pub(super) fn is_table(value: &Value) -> bool {
    match value {
        Value::List { vals, .. } => {
            !vals.is_empty() && vals.iter().all(|v| matches!(v, Value::Record { .. }))
        }
        _ => false,
    }
}
