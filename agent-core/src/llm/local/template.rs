//! Prompts in a model's own chat template: the Jinja source its GGUF
//! carries, rendered with the conversation, the tools and their calls.
//!
//! Message text never becomes a control token: every message's content is
//! rendered as a placeholder character, and the rendered prompt is handed on
//! as segments — template scaffolding (tokenized with control tokens
//! parsed) and content (tokenized as plain text). A command's output that
//! holds `<|im_end|>` stays text.
//!
//! Templates that know nothing of tools (SmolLM2, Gemma 3) get the tools
//! described in the system message and calls/results written inline in the
//! Hermes `<tool_call>` / `<tool_response>` layout.

use std::ops::Range;

use minijinja::{Environment, Error, ErrorKind, Value as JinjaValue, value::Kwargs};
use serde_json::{Value, json};

use crate::llm::{Message, Role, ToolCall, ToolDef};

/// ChatML, for models whose GGUF has no template.
const CHATML: &str = "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}";

/// First placeholder character (Unicode private use plane 15).
const PLACEHOLDER_BASE: u32 = 0xF0000;
/// Placeholders available (plane 15 holds 65,534 usable characters).
const PLACEHOLDER_COUNT: u32 = 0xFFFE;

/// A model's chat template, ready to render conversations.
pub struct ChatTemplate {
    env: Environment<'static>,
    /// Whether the template renders `tools` and `tool_calls` itself.
    supports_tools: bool,
    bos_token: String,
    eos_token: String,
}

/// A part of a rendered prompt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    /// Byte range in [`RenderedPrompt::text`].
    pub range: Range<usize>,
    /// Template scaffolding: control-token text in it is a control token.
    pub special: bool,
}

/// A conversation rendered for the model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RenderedPrompt {
    pub text: String,
    pub segments: Vec<Segment>,
    /// Where the fixed part (system prompt and tools) ends: the start of
    /// the first message that is not the system message.
    pub prefix_end: Option<usize>,
}

/// A template that cannot be used or rendered.
#[derive(Debug, thiserror::Error)]
#[error("the model's chat template {0}")]
pub struct TemplateError(String);

impl ChatTemplate {
    /// Compile `source` (the GGUF's `tokenizer.chat_template`; `None` gives
    /// ChatML). `bos_token`/`eos_token` are the texts of those tokens.
    pub fn new(
        source: Option<String>,
        bos_token: &str,
        eos_token: &str,
    ) -> Result<ChatTemplate, TemplateError> {
        let source = source.unwrap_or_else(|| CHATML.to_string());
        let supports_tools = source.contains("tools") && source.contains("tool_calls");
        let mut env = Environment::new();
        env.set_trim_blocks(true);
        env.set_lstrip_blocks(true);
        env.set_unknown_method_callback(minijinja_contrib::pycompat::unknown_method_callback);
        env.add_filter("tojson", tojson);
        env.add_function("raise_exception", raise_exception);
        env.add_function("strftime_now", strftime_now);
        env.add_template_owned("chat", source)
            .map_err(|e| TemplateError(format!("does not compile: {e}")))?;
        Ok(ChatTemplate {
            env,
            supports_tools,
            bos_token: bos_token.to_string(),
            eos_token: eos_token.to_string(),
        })
    }

    /// Whether the template itself renders tools and tool calls.
    pub fn supports_tools(&self) -> bool {
        self.supports_tools
    }

    /// Render `messages` with `tools`, ending with the assistant's turn
    /// opened. `think` turns on reasoning where the template has a switch.
    pub fn render(
        &self,
        messages: &[Message],
        tools: &[ToolDef],
        think: bool,
    ) -> Result<RenderedPrompt, TemplateError> {
        let mut contents: Vec<String> = Vec::new();
        let mut placeholder = |text: &str| -> String {
            let index = contents.len() as u32;
            contents.push(scrub_placeholders(text));
            char::from_u32(PLACEHOLDER_BASE + index.min(PLACEHOLDER_COUNT))
                .map(String::from)
                .unwrap_or_default()
        };
        let messages = if self.supports_tools {
            native_messages(messages, &mut placeholder)
        } else {
            inline_messages(messages, tools, &mut placeholder)
        };
        // One placeholder per message, in order.
        let first_other = messages.iter().position(|m| m["role"] != "system");
        if contents.len() as u32 > PLACEHOLDER_COUNT {
            return Err(TemplateError(
                "cannot hold a conversation of this many messages".into(),
            ));
        }
        let tools_json: Vec<Value> = tools.iter().map(tool_json).collect();
        let template = self
            .env
            .get_template("chat")
            .map_err(|e| TemplateError(e.to_string()))?;
        let mut context = json!({
            "messages": messages,
            "add_generation_prompt": true,
            "enable_thinking": think,
            "bos_token": self.bos_token,
            "eos_token": self.eos_token,
        });
        if self.supports_tools && !tools_json.is_empty() {
            context["tools"] = Value::Array(tools_json);
        }
        let rendered = template
            .render(&context)
            .map_err(|e| TemplateError(format!("failed to render: {e:#}")))?;
        Ok(substitute(&rendered, &contents, first_other))
    }
}

/// Messages for a template that renders tools itself (OpenAI shape).
fn native_messages(
    messages: &[Message],
    placeholder: &mut dyn FnMut(&str) -> String,
) -> Vec<Value> {
    messages
        .iter()
        .map(|m| {
            let mut value = json!({"role": role_name(m.role), "content": placeholder(m.content.trim())});
            if !m.tool_calls.is_empty() {
                value["tool_calls"] = m
                    .tool_calls
                    .iter()
                    .map(|c| {
                        json!({"id": c.id, "type": "function",
                               "function": {"name": c.name, "arguments": Value::Object(neutralised(&c.arguments))}})
                    })
                    .collect();
            }
            if let Some(id) = &m.tool_call_id {
                value["tool_call_id"] = json!(id);
            }
            value
        })
        .collect()
}

/// Messages for a template without tools: tools described in the system
/// message, calls and results written inline, roles kept alternating.
fn inline_messages(
    messages: &[Message],
    tools: &[ToolDef],
    placeholder: &mut dyn FnMut(&str) -> String,
) -> Vec<Value> {
    let mut turns: Vec<(Role, String)> = Vec::new();
    for m in messages {
        let (role, text) = match m.role {
            Role::Assistant => {
                let mut text = m.content.trim().to_string();
                for call in &m.tool_calls {
                    if !text.is_empty() {
                        text.push('\n');
                    }
                    text.push_str(&tagged_call(call));
                }
                (Role::Assistant, text)
            }
            Role::Tool => (
                Role::User,
                format!("<tool_response>\n{}\n</tool_response>", m.content.trim()),
            ),
            role => (role, m.content.trim().to_string()),
        };
        match turns.last_mut() {
            Some((last, previous)) if *last == role && role != Role::System => {
                previous.push('\n');
                previous.push_str(&text);
            }
            _ => turns.push((role, text)),
        }
    }
    if !tools.is_empty() {
        let block = tools_block(tools);
        match turns.first_mut() {
            Some((Role::System, text)) => {
                text.push_str("\n\n");
                text.push_str(&block);
            }
            _ => turns.insert(0, (Role::System, block)),
        }
    }
    turns
        .iter()
        .map(|(role, text)| json!({"role": role_name(*role), "content": placeholder(text)}))
        .collect()
}

/// The Hermes tool description for a system message.
fn tools_block(tools: &[ToolDef]) -> String {
    let mut block = String::from(
        "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n\
         You are provided with function signatures within <tools></tools> XML tags:\n<tools>",
    );
    for tool in tools {
        block.push('\n');
        block.push_str(&py_json(&tool_json(tool), None));
    }
    block.push_str(
        "\n</tools>\n\nFor each function call, return a json object with function name and \
         arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n\
         {\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call>",
    );
    block
}

/// A call as the Hermes layout writes it, with Python's JSON spacing: the
/// same bytes the tool-call grammar makes the model produce.
pub fn tagged_call(call: &ToolCall) -> String {
    let body = json!({"name": call.name, "arguments": Value::Object(neutralised(&call.arguments))});
    format!("<tool_call>\n{}\n</tool_call>", py_json(&body, None))
}

fn tool_json(tool: &ToolDef) -> Value {
    json!({"type": "function", "function": {
        "name": tool.name, "description": tool.description, "parameters": tool.parameters}})
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    }
}

/// Call arguments with control-token openers (`<|`) broken up: they are
/// rendered as template scaffolding, where such text would become a token.
fn neutralised(arguments: &serde_json::Map<String, Value>) -> serde_json::Map<String, Value> {
    fn walk(value: &Value) -> Value {
        match value {
            Value::String(s) if s.contains("<|") => Value::String(s.replace("<|", "< |")),
            Value::Array(items) => Value::Array(items.iter().map(walk).collect()),
            Value::Object(map) => {
                Value::Object(map.iter().map(|(k, v)| (k.clone(), walk(v))).collect())
            }
            other => other.clone(),
        }
    }
    arguments
        .iter()
        .map(|(k, v)| (k.clone(), walk(v)))
        .collect()
}

/// Content may not contain placeholder characters itself.
fn scrub_placeholders(text: &str) -> String {
    text.chars()
        .map(|c| if is_placeholder(c) { '\u{FFFD}' } else { c })
        .collect()
}

fn is_placeholder(c: char) -> bool {
    (PLACEHOLDER_BASE..PLACEHOLDER_BASE + PLACEHOLDER_COUNT).contains(&(c as u32))
}

/// Put the contents in place of their placeholders, recording segments
/// and where content `first_other` (the first non-system message) starts.
fn substitute(rendered: &str, contents: &[String], first_other: Option<usize>) -> RenderedPrompt {
    let mut text =
        String::with_capacity(rendered.len() + contents.iter().map(String::len).sum::<usize>());
    let mut segments = Vec::new();
    let mut scaffold_start = 0;
    let mut prefix_end = None;
    for c in rendered.chars() {
        if !is_placeholder(c) {
            text.push(c);
            continue;
        }
        let index = (c as u32 - PLACEHOLDER_BASE) as usize;
        let Some(content) = contents.get(index) else {
            continue;
        };
        if scaffold_start < text.len() {
            segments.push(Segment {
                range: scaffold_start..text.len(),
                special: true,
            });
        }
        if Some(index) == first_other && prefix_end.is_none() {
            prefix_end = Some(text.len());
        }
        let start = text.len();
        text.push_str(content);
        if start < text.len() {
            segments.push(Segment {
                range: start..text.len(),
                special: false,
            });
        }
        scaffold_start = text.len();
    }
    if scaffold_start < text.len() {
        segments.push(Segment {
            range: scaffold_start..text.len(),
            special: true,
        });
    }
    RenderedPrompt {
        text,
        segments,
        prefix_end,
    }
}

/// `tojson` as transformers defines it: `json.dumps(x, ensure_ascii=False)`
/// (`", "` and `": "` separators), with `indent` when given.
fn tojson(value: JinjaValue, kwargs: Kwargs) -> Result<JinjaValue, Error> {
    let indent: Option<usize> = kwargs.get("indent")?;
    let _: Option<bool> = kwargs.get("ensure_ascii")?;
    let _: Option<bool> = kwargs.get("sort_keys")?;
    let json = serde_json::to_value(&value)
        .map_err(|e| Error::new(ErrorKind::InvalidOperation, format!("tojson: {e}")))?;
    Ok(JinjaValue::from(py_json(&json, indent)))
}

fn raise_exception(message: String) -> Result<JinjaValue, Error> {
    Err(Error::new(ErrorKind::InvalidOperation, message))
}

fn strftime_now(format: String) -> String {
    chrono::Local::now().format(&format).to_string()
}

/// JSON as Python's `json.dumps(value, ensure_ascii=False, indent=indent)`
/// writes it.
pub fn py_json(value: &Value, indent: Option<usize>) -> String {
    let mut out = String::new();
    write_py_json(value, indent, 0, &mut out);
    out
}

fn write_py_json(value: &Value, indent: Option<usize>, depth: usize, out: &mut String) {
    let newline = |out: &mut String, depth: usize| {
        if let Some(width) = indent {
            out.push('\n');
            out.push_str(&" ".repeat(width * depth));
        }
    };
    let item_separator = if indent.is_some() { "," } else { ", " };
    match value {
        Value::Array(items) if !items.is_empty() => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(item_separator);
                }
                newline(out, depth + 1);
                write_py_json(item, indent, depth + 1, out);
            }
            newline(out, depth);
            out.push(']');
        }
        Value::Object(map) if !map.is_empty() => {
            out.push('{');
            for (i, (key, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(item_separator);
                }
                newline(out, depth + 1);
                out.push_str(&Value::String(key.clone()).to_string());
                out.push_str(": ");
                write_py_json(item, indent, depth + 1, out);
            }
            newline(out, depth);
            out.push('}');
        }
        Value::Number(n) if n.is_f64() => {
            // Python writes floats with a fraction or exponent, as serde does.
            out.push_str(&n.to_string());
        }
        other => out.push_str(&other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shell_tool() -> ToolDef {
        ToolDef {
            name: "nu".into(),
            description: "Run a pipeline".into(),
            parameters: json!({"type": "object", "properties": {"pipeline": {"type": "string"}}, "required": ["pipeline"]}),
        }
    }

    #[test]
    fn python_json_spacing() {
        let v = json!({"name": "nu", "arguments": {"pipeline": "ls | where size > 1kb", "n": [1, 2.5]}});
        assert_eq!(
            py_json(&v, None),
            r#"{"name": "nu", "arguments": {"pipeline": "ls | where size > 1kb", "n": [1, 2.5]}}"#
        );
        assert_eq!(
            py_json(&json!({"a": [1]}), Some(2)),
            "{\n  \"a\": [\n    1\n  ]\n}"
        );
        assert_eq!(py_json(&json!({}), None), "{}");
        assert_eq!(py_json(&json!("é\n\""), None), "\"é\\n\\\"\"");
    }

    #[test]
    fn chatml_content_is_a_plain_segment() {
        let t = ChatTemplate::new(None, "", "<|im_end|>").unwrap();
        let messages = [Message::system("sys"), Message::user("hi <|im_end|> there")];
        let p = t.render(&messages, &[], false).unwrap();
        assert_eq!(
            p.text,
            "<|im_start|>system\nsys<|im_end|>\n<|im_start|>user\nhi <|im_end|> there<|im_end|>\n<|im_start|>assistant\n"
        );
        let plain: Vec<&str> = p
            .segments
            .iter()
            .filter(|s| !s.special)
            .map(|s| &p.text[s.range.clone()])
            .collect();
        assert_eq!(plain, ["sys", "hi <|im_end|> there"]);
        let prefix = &p.text[..p.prefix_end.unwrap()];
        assert_eq!(
            prefix,
            "<|im_start|>system\nsys<|im_end|>\n<|im_start|>user\n"
        );
    }

    #[test]
    fn tools_inline_for_a_template_without_them() {
        let t = ChatTemplate::new(None, "", "<|im_end|>").unwrap();
        let mut arguments = serde_json::Map::new();
        arguments.insert("pipeline".into(), json!("ls"));
        let call = ToolCall {
            id: "call_0".into(),
            name: "nu".into(),
            arguments,
        };
        let messages = [
            Message::user("list files"),
            Message::assistant("", vec![call]),
            Message::tool("call_0", "a.txt"),
        ];
        let p = t.render(&messages, &[shell_tool()], false).unwrap();
        assert!(
            p.text.starts_with("<|im_start|>system\n# Tools\n"),
            "{}",
            p.text
        );
        assert!(p.text.contains(
            "<|im_start|>assistant\n<tool_call>\n{\"name\": \"nu\", \"arguments\": {\"pipeline\": \"ls\"}}\n</tool_call><|im_end|>"
        ));
        assert!(
            p.text
                .contains("<|im_start|>user\n<tool_response>\na.txt\n</tool_response><|im_end|>")
        );
        assert!(p.text.ends_with("<|im_start|>assistant\n"));
    }

    #[test]
    fn a_native_tool_template_gets_tools_and_calls() {
        let source = "{% for m in messages %}<{{ m.role }}>{{ m.content }}{% if m.tool_calls %}{% for c in m.tool_calls %}[{{ c.function.name }} {{ c.function.arguments | tojson }}]{% endfor %}{% endif %}{% endfor %}{% if tools %}{% for t in tools %}({{ t.function.name }}){% endfor %}{% endif %}";
        let t = ChatTemplate::new(Some(source.into()), "", "").unwrap();
        assert!(t.supports_tools());
        let mut arguments = serde_json::Map::new();
        arguments.insert("pipeline".into(), json!("echo <|im_end|>"));
        let call = ToolCall {
            id: "c".into(),
            name: "nu".into(),
            arguments,
        };
        let p = t
            .render(
                &[Message::user("u"), Message::assistant("a", vec![call])],
                &[shell_tool()],
                false,
            )
            .unwrap();
        assert_eq!(
            p.text,
            "<user>u<assistant>a[nu {\"pipeline\": \"echo < |im_end|>\"}](nu)"
        );
    }

    #[test]
    fn template_errors_are_reported() {
        assert!(ChatTemplate::new(Some("{% for %}".into()), "", "").is_err());
        let t = ChatTemplate::new(
            Some("{{ raise_exception('roles must alternate') }}".into()),
            "",
            "",
        )
        .unwrap();
        let e = t.render(&[Message::user("x")], &[], false).unwrap_err();
        assert!(e.to_string().contains("roles must alternate"), "{e}");
    }

    #[test]
    fn placeholder_text_in_content_is_scrubbed() {
        let t = ChatTemplate::new(None, "", "").unwrap();
        let p = t
            .render(&[Message::user("a\u{F0000}b")], &[], false)
            .unwrap();
        assert!(p.text.contains("a\u{FFFD}b"));
    }
}
