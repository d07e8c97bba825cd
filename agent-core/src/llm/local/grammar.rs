//! A GBNF grammar for one tool call, generated from the tools' JSON
//! schemas, so that every call a model emits parses and names a real tool
//! with its required arguments.
//!
//! The grammar writes calls byte for byte as the Hermes layout and Python's
//! `json.dumps` do (`<tool_call>\n{"name": "nu", "arguments": {…}}\n</tool_call>`),
//! which is also how the chat template renders the call back into the next
//! prompt: the tokens the model generated stay valid in the KV cache.
//! Strings cannot contain `<|`, so arguments cannot smuggle in control-token
//! text.

use std::fmt::Write as _;

use serde_json::Value;

use crate::llm::ToolDef;

/// Text that starts a call in the Hermes layout.
pub const CALL_OPENER: &str = "<tool_call>";

/// The grammar, its root being one call: tagged, or (when the lazy trigger
/// fired on a bare object) the object alone. Each string may be as long as
/// the whole turn's budget allows (`budget` tokens less the call's own
/// overhead; every token adds at least one character), so no string is cut
/// short because the call has others: a call whose strings together run
/// past the budget ends as a cut turn, which the loop repairs.
pub fn tool_call_grammar(tools: &[ToolDef], budget: usize) -> String {
    let max_chars = budget
        .saturating_sub(CALL_OVERHEAD_TOKENS)
        .clamp(MIN_STRING_CHARS, MAX_STRING_CHARS);
    let mut g = String::new();
    g.push_str("root ::= tagged | call\n");
    g.push_str("tagged ::= \"<tool_call>\\n\" call \"\\n</tool_call>\"\n");
    let names: Vec<String> = (0..tools.len()).map(|i| format!("call-{i}")).collect();
    if names.is_empty() {
        g.push_str("call ::= \"{\\\"name\\\": \" string \", \\\"arguments\\\": \" object \"}\"\n");
    } else {
        let _ = writeln!(g, "call ::= {}", names.join(" | "));
    }
    for (i, tool) in tools.iter().enumerate() {
        let _ = writeln!(
            g,
            "call-{i} ::= \"{{\\\"name\\\": \" {} \", \\\"arguments\\\": \" args-{i} \"}}\"",
            literal(&serde_json::to_string(&tool.name).unwrap_or_default())
        );
        let mut rules = Vec::new();
        let args = object_rule(&tool.parameters, &format!("args-{i}"), &mut rules);
        let _ = writeln!(g, "args-{i} ::= {args}");
        for rule in rules {
            g.push_str(&rule);
            g.push('\n');
        }
    }
    let _ = writeln!(g, r#"string ::= "\"" char{{0,{max_chars}}} "\"""#);
    g.push_str(COMMON_RULES);
    g
}

/// Tokens a call takes besides its strings' contents (tags, names, keys).
const CALL_OVERHEAD_TOKENS: usize = 48;
/// The longest string any argument may be.
const MAX_STRING_CHARS: usize = 4000;
/// The shortest bound a string gets, whatever the budget.
const MIN_STRING_CHARS: usize = 64;

/// Trigger patterns for the lazy grammar: the opener anywhere, or a bare
/// call object at the very start of the reply. The grammar is fed from the
/// first capture group.
pub fn trigger_patterns() -> Vec<String> {
    vec![
        r"[\s\S]*?(<tool_call>)[\s\S]*".to_string(),
        r#"\s*(\{"name": )[\s\S]*"#.to_string(),
    ]
}

/// JSON values, strings that cannot hold `<|` and canonical escapes.
const COMMON_RULES: &str = r#"char ::= [^"\\<\x00-\x1F] | "<" [^|"\\\x00-\x1F] | "\\" (["\\bfnrt] | "u00" [0-1] [0-9a-fA-F])
integer ::= "-"? ("0" | [1-9] [0-9]{0,15})
number ::= integer ("." [0-9]{1,15})? ([eE] [-+]? [0-9]{1,3})?
boolean ::= "true" | "false"
value ::= object | array | string | number | boolean | "null"
object ::= "{" ( string ": " value (", " string ": " value)* )? "}"
array ::= "[" ( value (", " value)* )? "]"
"#;

/// The rule body for an object schema; nested rules go into `rules`.
fn object_rule(schema: &Value, name: &str, rules: &mut Vec<String>) -> String {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return "object".into();
    };
    if properties.is_empty() {
        return "\"{}\"".into();
    }
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    // Required properties first, in schema order, then each optional one
    // may follow.
    let mut parts: Vec<(String, bool)> = Vec::new();
    let ordered = properties
        .iter()
        .filter(|(k, _)| required.contains(&k.as_str()))
        .chain(
            properties
                .iter()
                .filter(|(k, _)| !required.contains(&k.as_str())),
        );
    for (index, (key, property)) in ordered.enumerate() {
        let value = value_rule(property, &format!("{name}-{index}"), rules);
        let key_json = serde_json::to_string(key).unwrap_or_default();
        parts.push((
            format!("{} {value}", literal(&format!("{key_json}: "))),
            required.contains(&key.as_str()),
        ));
    }
    let required_parts: Vec<&String> = parts.iter().filter(|(_, r)| *r).map(|(p, _)| p).collect();
    let optional_parts: Vec<&String> = parts.iter().filter(|(_, r)| !*r).map(|(p, _)| p).collect();
    let mut body = String::from("\"{\" ");
    if required_parts.is_empty() {
        // Any subset of the optional ones, in order, comma-separated.
        let alternatives: Vec<String> = (0..optional_parts.len())
            .map(|first| {
                let rest: String = optional_parts[first + 1..]
                    .iter()
                    .map(|p| format!(" (\", \" {p})?"))
                    .collect();
                format!("({}{rest})", optional_parts[first])
            })
            .collect();
        let _ = write!(body, "({})? ", alternatives.join(" | "));
    } else {
        let joined: Vec<String> = required_parts.iter().map(|p| p.to_string()).collect();
        body.push_str(&joined.join(" \", \" "));
        for p in optional_parts {
            let _ = write!(body, " (\", \" {p})?");
        }
        body.push(' ');
    }
    body.push_str("\"}\"");
    body
}

/// The rule body for one property's schema.
fn value_rule(schema: &Value, name: &str, rules: &mut Vec<String>) -> String {
    if let Some(options) = schema.get("enum").and_then(Value::as_array) {
        let literals: Vec<String> = options
            .iter()
            .map(|o| literal(&serde_json::to_string(o).unwrap_or_default()))
            .collect();
        if !literals.is_empty() {
            return format!("({})", literals.join(" | "));
        }
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("string") => "string".into(),
        Some("integer") => "integer".into(),
        Some("number") => "number".into(),
        Some("boolean") => "boolean".into(),
        Some("array") => {
            let item = schema
                .get("items")
                .map(|items| value_rule(items, &format!("{name}-item"), rules))
                .unwrap_or_else(|| "value".into());
            format!("(\"[\" ({item} (\", \" {item})*)? \"]\")")
        }
        Some("object") if schema.get("properties").is_some() => {
            let body = object_rule(schema, name, rules);
            rules.push(format!("{name} ::= {body}"));
            name.to_string()
        }
        _ => "value".into(),
    }
}

/// A GBNF string literal for `text`.
fn literal(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn grammar_names_each_tool_and_its_arguments() {
        let tools = [
            ToolDef {
                name: "nu".into(),
                description: String::new(),
                parameters: json!({"type": "object",
                    "properties": {"why": {"type": "string"}, "pipeline": {"type": "string"}},
                    "required": ["pipeline"]}),
            },
            ToolDef {
                name: "answer".into(),
                description: String::new(),
                parameters: json!({"type": "object",
                    "properties": {"text": {"type": "string"}, "data": {"type": "integer"}, "mode": {"enum": ["a", "b"]}}}),
            },
        ];
        let g = tool_call_grammar(&tools, 500);
        // Every string may take the whole budget less the overhead.
        assert!(g.contains("char{0,452}"), "{g}");
        assert!(
            g.contains(r#"call-0 ::= "{\"name\": " "\"nu\"" ", \"arguments\": " args-0 "}""#),
            "{g}"
        );
        assert!(
            g.contains(r#"args-0 ::= "{" "\"pipeline\": " string (", " "\"why\": " string)? "}""#),
            "{g}"
        );
        assert!(g.contains(r#"("\"a\"" | "\"b\"")"#), "{g}");
    }

    #[test]
    fn a_turn_of_256_tokens_does_not_cut_a_normal_pipeline() {
        // A tool like the agent's `nu`: two strings and a boolean.
        let tools = [ToolDef {
            name: "nu".into(),
            description: String::new(),
            parameters: json!({"type": "object",
                "properties": {"pipeline": {"type": "string"}, "why": {"type": "string"},
                    "background": {"type": "boolean"}},
                "required": ["pipeline", "why"]}),
        }];
        let g = tool_call_grammar(&tools, 256);
        // A 150-character pipeline is an ordinary one.
        assert!(g.contains("char{0,208}"), "{g}");
    }
}
