//! Tool calls out of a model's text, whatever shape a small model gives
//! them: Hermes/Qwen `<tool_call>{…}</tool_call>` (the closing tag may be
//! missing when generation stopped on it), `<function=NAME>{…}</function>`,
//! fenced ```` ```json ```` blocks, and bare JSON objects. Reasoning in
//! `<think>…</think>` is kept apart from the answer. Every call is checked
//! against the tools offered; anything that cannot become a valid call
//! yields a repair message the model can act on, never a panic.

use serde_json::{Map, Value};

/// A tool the model may call: its name and the arguments it must give.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolSchema {
    pub name: String,
    /// Argument names that must be present.
    pub required: Vec<String>,
}

impl ToolSchema {
    pub fn new(name: &str, required: &[&str]) -> ToolSchema {
        ToolSchema {
            name: name.to_string(),
            required: required.iter().map(|s| s.to_string()).collect(),
        }
    }
}

/// One valid call.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ToolCall {
    /// Names the call within its turn (`call_0`, ...), so a tool result
    /// can say which call it answers.
    #[serde(default)]
    pub id: String,
    pub name: String,
    /// Always a JSON object holding at least the required arguments.
    pub arguments: Map<String, Value>,
}

/// What a model turn said.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reply {
    /// The answer text outside calls and reasoning, trimmed.
    pub content: String,
    /// Text inside `<think>…</think>`.
    pub reasoning: Option<String>,
    /// The valid calls, in order.
    pub calls: Vec<ToolCall>,
    /// Set when something looked like a call but could not become one:
    /// what to tell the model so it tries again.
    pub repair: Option<String>,
}

/// Openers of the wrapped call formats.
const OPENERS: &[(&str, &str)] = &[
    ("<tool_call>", "</tool_call>"),
    ("<function_call>", "</function_call>"),
    ("<tools>", "</tools>"),
];

/// Parse a model's reply against the `tools` offered.
pub fn parse_reply(text: &str, tools: &[ToolSchema]) -> Reply {
    let mut reply = Reply::default();
    let (reasoning, rest) = split_reasoning(text);
    reply.reasoning = reasoning;
    let mut content = String::new();
    let mut problems = Vec::new();
    let mut cursor = 0;
    while cursor < rest.len() {
        let Some((start, kind)) = next_call_start(rest, cursor) else {
            content.push_str(&rest[cursor..]);
            break;
        };
        content.push_str(&rest[cursor..start]);
        let (consumed, result) = read_call(&rest[start..], kind, tools);
        // Always move forward, even on garbage.
        cursor = start + consumed.max(1);
        match result {
            Some(Ok(call)) => reply.calls.push(call),
            Some(Err(problem)) => problems.push(problem),
            // Not a call after all (a `{` in prose): keep the text.
            None => content.push_str(&rest[start..cursor]),
        }
    }
    for (i, call) in reply.calls.iter_mut().enumerate() {
        call.id = format!("call_{i}");
    }
    reply.content = content.trim().to_string();
    if !problems.is_empty() {
        reply.repair = Some(repair_message(&problems, tools));
    }
    reply
}

/// `<think>…</think>` first (an unclosed one holds everything after it).
fn split_reasoning(text: &str) -> (Option<String>, &str) {
    let trimmed = text.trim_start();
    let Some(after) = trimmed.strip_prefix("<think>") else {
        return (None, text);
    };
    match after.find("</think>") {
        Some(end) => (
            Some(after[..end].trim().to_string()),
            &after[end + "</think>".len()..],
        ),
        None => (Some(after.trim().to_string()), ""),
    }
}

/// How a call starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// One of [`OPENERS`].
    Wrapped(usize),
    /// `<function=NAME>`.
    Function,
    /// ```` ``` ```` or ```` ```json ````.
    Fenced,
    /// A bare `{`.
    Bare,
}

fn next_call_start(text: &str, from: usize) -> Option<(usize, Kind)> {
    let hay = &text[from..];
    let mut best: Option<(usize, Kind)> = None;
    let mut consider = |at: Option<usize>, kind: Kind| {
        if let Some(at) = at.map(|at| from + at)
            && best.is_none_or(|(b, _)| at < b)
        {
            best = Some((at, kind));
        }
    };
    for (i, (open, _)) in OPENERS.iter().enumerate() {
        consider(hay.find(open), Kind::Wrapped(i));
    }
    consider(hay.find("<function="), Kind::Function);
    consider(hay.find("```"), Kind::Fenced);
    consider(bare_object_start(hay), Kind::Bare);
    best
}

/// A `{` that opens an object whose first key looks like a call.
fn bare_object_start(text: &str) -> Option<usize> {
    let mut search = 0;
    while let Some(pos) = text[search..].find('{') {
        let at = search + pos;
        let after = text[at + 1..].trim_start();
        if after.starts_with("\"name\"")
            || after.starts_with("\"tool\"")
            || after.starts_with("\"function\"")
            || after.starts_with("\"tool_name\"")
        {
            return Some(at);
        }
        search = at + 1;
    }
    None
}

/// Read one call at the start of `text`: bytes consumed and the call, a
/// problem, or `None` when it was not a call.
fn read_call(
    text: &str,
    kind: Kind,
    tools: &[ToolSchema],
) -> (usize, Option<Result<ToolCall, String>>) {
    match kind {
        Kind::Wrapped(i) => {
            let (open, close) = OPENERS[i];
            let body = &text[open.len()..];
            let (inner, consumed) = match body.find(close) {
                Some(end) => (&body[..end], open.len() + end + close.len()),
                // Generation stopped at the closing tag (a stop string).
                None => (body, text.len()),
            };
            let call = match first_object(inner) {
                Some((json, _)) => call_from_json(json, None, tools),
                None if inner.trim().is_empty() => Err(format!("{open} was empty")),
                None => Err(format!(
                    "the text inside {open} is not a JSON object: {}",
                    excerpt(inner)
                )),
            };
            (consumed, Some(call))
        }
        Kind::Function => {
            let after = &text["<function=".len()..];
            let Some(end) = after.find('>') else {
                return (
                    text.len(),
                    Some(Err("<function= is not closed with >".into())),
                );
            };
            let name = after[..end].trim().trim_matches('"').to_string();
            let body = &after[end + 1..];
            let (inner, rest_len) = match body.find("</function>") {
                Some(close) => (&body[..close], close + "</function>".len()),
                None => (body, body.len()),
            };
            let consumed = "<function=".len() + end + 1 + rest_len;
            let call = match first_object(inner) {
                Some((json, _)) => call_from_json(json, Some(&name), tools),
                None if inner.trim().is_empty() => call_from_json("{}", Some(&name), tools),
                None => Err(format!(
                    "the arguments of <function={name}> are not a JSON object: {}",
                    excerpt(inner)
                )),
            };
            (consumed, Some(call))
        }
        Kind::Fenced => {
            let body = &text[3..];
            let Some(end) = body.find("```") else {
                // An unclosed fence: only a call if it holds one.
                return match first_object(body) {
                    Some((json, _)) if looks_like_call(json) => {
                        (text.len(), Some(call_from_json(json, None, tools)))
                    }
                    _ => (3, None),
                };
            };
            let inner = &body[..end];
            let consumed = 3 + end + 3;
            match first_object(inner) {
                Some((json, _)) if looks_like_call(json) => {
                    (consumed, Some(call_from_json(json, None, tools)))
                }
                // A fence of something else (code, a pipeline): text.
                _ => (consumed, None),
            }
        }
        Kind::Bare => match first_object(text) {
            Some((json, consumed)) => (consumed, Some(call_from_json(json, None, tools))),
            None => (1, None),
        },
    }
}

fn looks_like_call(json: &str) -> bool {
    bare_object_start(json) == Some(0)
        || json.trim_start().starts_with('{') && bare_object_start(json).is_some()
}

/// The first balanced JSON object in `text` (strings and escapes
/// respected): its text and the bytes up to its end.
fn first_object(text: &str) -> Option<(&str, usize)> {
    let start = text.find('{')?;
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, c) in text[start..].char_indices() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    let end = start + i + 1;
                    return Some((&text[start..end], end));
                }
            }
            _ => {}
        }
    }
    None
}

/// A call from its JSON: `{"name", "arguments"}` and the common variants
/// (`parameters`, `args`, `input`, arguments as a JSON string, OpenAI's
/// `{"function": {"name", "arguments"}}`).
fn call_from_json(
    json: &str,
    name: Option<&str>,
    tools: &[ToolSchema],
) -> Result<ToolCall, String> {
    let value: Value = serde_json::from_str(json)
        .map_err(|e| format!("the call is not valid JSON ({e}): {}", excerpt(json)))?;
    let Value::Object(mut object) = value else {
        return Err(format!("the call is not a JSON object: {}", excerpt(json)));
    };
    if let Some(Value::Object(function)) = object.get("function").cloned() {
        object = function;
    }
    let name = match name {
        Some(name) => name.to_string(),
        None => ["name", "tool", "tool_name", "function"]
            .iter()
            .find_map(|key| object.get(*key).and_then(Value::as_str))
            .map(str::to_string)
            .ok_or_else(|| format!("the call has no \"name\": {}", excerpt(json)))?,
    };
    let arguments = match ["arguments", "parameters", "args", "input"]
        .iter()
        .find_map(|key| object.get(*key))
    {
        Some(Value::Object(args)) => args.clone(),
        Some(Value::String(text)) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(args)) => args,
            _ => return Err(format!("the arguments of {name} are not a JSON object")),
        },
        Some(Value::Null) | None => {
            // Arguments given flat beside the name.
            let mut flat = object.clone();
            for key in ["name", "tool", "tool_name", "function", "type", "id"] {
                flat.remove(key);
            }
            flat
        }
        Some(_) => return Err(format!("the arguments of {name} are not a JSON object")),
    };
    let Some(tool) = tools.iter().find(|t| t.name == name) else {
        return Err(format!("there is no tool named {:?}", excerpt(&name)));
    };
    let missing: Vec<&str> = tool
        .required
        .iter()
        .filter(|r| !arguments.contains_key(r.as_str()))
        .map(String::as_str)
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "{name} needs the argument(s) {}",
            missing.join(", ")
        ));
    }
    Ok(ToolCall {
        id: String::new(),
        name,
        arguments,
    })
}

/// A short, single-line excerpt for a message.
fn excerpt(text: &str) -> String {
    const MAX: usize = 80;
    let one_line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() > MAX {
        format!("{}…", one_line.chars().take(MAX).collect::<String>())
    } else {
        one_line
    }
}

/// What to tell the model after a call that could not be read.
fn repair_message(problems: &[String], tools: &[ToolSchema]) -> String {
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    let example = tools
        .first()
        .map(|t| {
            let args: Vec<String> = t
                .required
                .iter()
                .map(|r| format!("\"{r}\": \"...\""))
                .collect();
            format!(
                "<tool_call>\n{{\"name\": \"{}\", \"arguments\": {{{}}}}}\n</tool_call>",
                t.name,
                args.join(", ")
            )
        })
        .unwrap_or_default();
    format!(
        "Your tool call could not be used: {}. The tools are: {}. Write each call as\n{example}",
        problems.join("; "),
        names.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tools() -> Vec<ToolSchema> {
        vec![
            ToolSchema::new("nu", &["pipeline"]),
            ToolSchema::new("help", &["command"]),
            ToolSchema::new("answer", &["text"]),
        ]
    }

    fn one(text: &str) -> ToolCall {
        let reply = parse_reply(text, &tools());
        assert_eq!(reply.repair, None, "{text}");
        assert_eq!(reply.calls.len(), 1, "{text}: {reply:?}");
        reply.calls[0].clone()
    }

    #[test]
    fn hermes_calls_with_and_without_the_closing_tag() {
        let call = one(
            "<tool_call>\n{\"name\": \"nu\", \"arguments\": {\"pipeline\": \"ls\"}}\n</tool_call>",
        );
        assert_eq!(call.name, "nu");
        assert_eq!(call.arguments["pipeline"], "ls");
        one("<tool_call>{\"name\": \"nu\", \"arguments\": {\"pipeline\": \"ls\"}}");
        let reply = parse_reply(
            "Let me look.\n<tool_call>{\"name\":\"nu\",\"arguments\":{\"pipeline\":\"ls\"}}</tool_call>\n<tool_call>{\"name\":\"help\",\"arguments\":{\"command\":\"where\"}}</tool_call>",
            &tools(),
        );
        assert_eq!(reply.calls.len(), 2);
        assert_eq!(reply.content, "Let me look.");
    }

    #[test]
    fn bare_fenced_and_function_shapes() {
        assert_eq!(
            one("{\"name\": \"nu\", \"arguments\": {\"pipeline\": \"ps\"}}").arguments["pipeline"],
            "ps"
        );
        assert_eq!(
            one("```json\n{\"name\": \"nu\", \"parameters\": {\"pipeline\": \"ps\"}}\n```").name,
            "nu"
        );
        assert_eq!(
            one("<function=nu>{\"pipeline\": \"sys host\"}</function>").arguments["pipeline"],
            "sys host"
        );
        assert_eq!(one("{\"function\": {\"name\": \"nu\", \"arguments\": \"{\\\"pipeline\\\": \\\"ls\\\"}\"}}").name, "nu");
        assert_eq!(
            one("{\"tool\": \"nu\", \"pipeline\": \"ls\"}").arguments["pipeline"],
            "ls"
        );
    }

    #[test]
    fn prose_and_code_stay_text() {
        let reply = parse_reply(
            "The answer is {1, 2}. Use ```\nls | where size > 1mb\n```",
            &tools(),
        );
        assert!(reply.calls.is_empty() && reply.repair.is_none());
        assert!(reply.content.contains("ls | where"));
    }

    #[test]
    fn reasoning_is_kept_apart() {
        let reply = parse_reply(
            "<think>list files first</think>\n<tool_call>{\"name\":\"nu\",\"arguments\":{\"pipeline\":\"ls\"}}</tool_call>",
            &tools(),
        );
        assert_eq!(reply.reasoning.as_deref(), Some("list files first"));
        assert_eq!(reply.calls.len(), 1);
        let unclosed = parse_reply("<think>still thinking", &tools());
        assert_eq!(unclosed.content, "");
    }

    #[test]
    fn bad_calls_get_a_repair_message() {
        for (text, says) in [
            (
                "<tool_call>{\"name\": \"nu\", \"arguments\": {\"pipeline\": \"ls\"</tool_call>",
                "not a JSON object",
            ),
            (
                "<tool_call>{\"name\": \"bash\", \"arguments\": {\"cmd\": \"ls\"}}</tool_call>",
                "no tool named",
            ),
            (
                "<tool_call>{\"name\": \"nu\", \"arguments\": {}}</tool_call>",
                "needs the argument(s) pipeline",
            ),
            (
                "<tool_call>{\"name\": \"nu\", \"arguments\": {\"pipeline\": 'ls'}}</tool_call>",
                "not valid JSON",
            ),
            ("<tool_call></tool_call>", "was empty"),
        ] {
            let reply = parse_reply(text, &tools());
            assert!(reply.calls.is_empty(), "{text}");
            let repair = reply.repair.unwrap_or_default();
            assert!(repair.contains(says), "{text}: {repair}");
            assert!(repair.contains("<tool_call>"), "{repair}");
        }
    }
}
