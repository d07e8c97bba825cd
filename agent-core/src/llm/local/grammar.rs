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
//!
//! One string argument may be held to Nushell's shape (a request's
//! [`PipelineGrammar`]): see [`pipeline_rules`].

use std::{
    fmt::Write as _,
    sync::{Arc, Mutex},
};

use serde_json::Value;

use crate::llm::{PipelineGrammar, ToolDef};

/// Text that starts a call in the Hermes layout.
pub const CALL_OPENER: &str = "<tool_call>";

/// The grammar, its root being one call: tagged, or (when the lazy trigger
/// fired on a bare object) the object alone. Each string may be as long as
/// the whole turn's budget allows (`budget` tokens less the call's own
/// overhead; every token adds at least one character), so no string is cut
/// short because the call has others: a call whose strings together run
/// past the budget ends as a cut turn, which the loop repairs.
///
/// With `pipeline` (and heads in it), its tool's argument is Nushell code
/// held to [`pipeline_rules`] instead of a free string; it has no length
/// bound of its own (its rules recurse), so only the turn's budget ends
/// it, as it does any string whose bound is the budget.
pub fn tool_call_grammar(
    tools: &[ToolDef],
    budget: usize,
    pipeline: Option<&PipelineGrammar>,
) -> String {
    let max_chars = budget
        .saturating_sub(CALL_OVERHEAD_TOKENS)
        .clamp(MIN_STRING_CHARS, MAX_STRING_CHARS);
    let pipeline = pipeline.filter(|p| !p.heads.is_empty());
    let mut g = String::new();
    g.push_str("root ::= tagged | call\n");
    g.push_str("tagged ::= \"<tool_call>\\n\" call \"\\n</tool_call>\"\n");
    let names: Vec<String> = (0..tools.len()).map(|i| format!("call-{i}")).collect();
    if names.is_empty() {
        g.push_str("call ::= \"{\\\"name\\\": \" string \", \\\"arguments\\\": \" object \"}\"\n");
    } else {
        let _ = writeln!(g, "call ::= {}", names.join(" | "));
    }
    let mut uses_pipeline = false;
    for (i, tool) in tools.iter().enumerate() {
        let _ = writeln!(
            g,
            "call-{i} ::= \"{{\\\"name\\\": \" {} \", \\\"arguments\\\": \" args-{i} \"}}\"",
            literal(&serde_json::to_string(&tool.name).unwrap_or_default())
        );
        let code = pipeline
            .filter(|p| p.tool == tool.name)
            .map(|p| p.argument.as_str());
        let mut rules = Vec::new();
        let args = object_rule(&tool.parameters, &format!("args-{i}"), &mut rules, code);
        uses_pipeline |=
            args.contains(PIPELINE_RULE) || rules.iter().any(|rule| rule.contains(PIPELINE_RULE));
        let _ = writeln!(g, "args-{i} ::= {args}");
        for rule in rules {
            g.push_str(&rule);
            g.push('\n');
        }
    }
    let _ = writeln!(g, r#"string ::= "\"" char{{0,{max_chars}}} "\"""#);
    g.push_str(COMMON_RULES);
    if let Some(pipeline) = pipeline.filter(|_| uses_pipeline) {
        g.push_str(&pipeline_rules(&pipeline.heads));
    }
    g
}

/// Tokens a call takes besides its strings' contents (tags, names, keys).
const CALL_OVERHEAD_TOKENS: usize = 48;
/// The longest string any argument may be.
const MAX_STRING_CHARS: usize = 4000;
/// The shortest bound a string gets, whatever the budget.
const MIN_STRING_CHARS: usize = 64;

/// JSON values, strings that cannot hold `<|` and canonical escapes.
const COMMON_RULES: &str = r#"char ::= [^"\\<\x00-\x1F] | "<" [^|"\\\x00-\x1F] | "\\" (["\\bfnrt] | "u00" [0-1] [0-9a-fA-F])
integer ::= "-"? ("0" | [1-9] [0-9]{0,15})
number ::= integer ("." [0-9]{1,15})? ([eE] [-+]? [0-9]{1,3})?
boolean ::= "true" | "false"
value ::= object | array | string | number | boolean | "null"
object ::= "{" ( string ": " value (", " string ": " value)* )? "}"
array ::= "[" ( value (", " value)* )? "]"
"#;

/// The rule the pipeline argument's value is.
const PIPELINE_RULE: &str = "pl-string";

/// Words of the language that start a pipeline element without being
/// commands (`not`, literals, a match arm's `_`), and its keywords, in case
/// an engine lacks one.
pub const PIPELINE_KEYWORDS: &[&str] = &[
    "_", "alias", "break", "const", "continue", "def", "do", "export", "false", "for", "hide",
    "if", "let", "loop", "match", "module", "mut", "not", "null", "overlay", "return", "source",
    "true", "try", "use", "where", "while",
];

/// How Nushell code is written inside the JSON string (the text is JSON:
/// `"` and `\` appear only escaped, a newline is `\n`). Statements are
/// pipeline elements joined by `|`, `;` or newlines (a line may start
/// with `|`, continuing the pipeline above it). Each element starts with a
/// head:
/// - a word of `pl-head` (a command's first word, a program, a keyword),
///   which must be followed by a space, a tab, the element's end (`|`,
///   `;`, a newline) or the end of the enclosing block or string;
/// - `^` (any program: `^git`, `^$cmd`), `$…` (a variable, `$env.X`,
///   `$out.N`, an interpolated `$"…"` or `$'…'`), a number (`3`, `-1`,
///   `.5`, `1kb`, `2024-01-01`), a path (`./x`, `../x`, `/bin/x`, `~/x`);
/// - a string (`'…'`, `"…"`, `r#'…'#`), a list `[…]`, a record or
///   closure `{…}`, a subexpression `(…)`.
///
/// After the head the arguments are free text in which quotes and
/// brackets balance, so a `|` inside a string, a list or a closure does
/// not end the element. Heads are checked again inside subexpressions,
/// closures and blocks (`{ … }`, `{|x| … }`: a brace holding a record
/// (`{a: 1}`) is told apart by its first key and colon) and in the `( … )`
/// of an interpolated string. Comments run from a `#` to the line's end.
///
/// What the grammar does not follow is left free, for the parse check to
/// judge:
/// - a list `[ … ]` (and everything in it: a `def`'s signature
///   `[x: int, --flag(-f)]` is no pipeline) and a record's values are
///   balanced text, heads unchecked;
/// - a raw string `r#'…'#` ends at its first `'#`; raws with more `#`s are
///   read as a word and a quoted string, so their text must balance;
/// - `"…"` strings inside a list or a record's values are read by
///   quote parity (an interpolation's nested quotes there pair up too);
/// - a `#` in the arguments is read both as a comment's start and as part
///   of a word (Nushell wants a space before a comment: `a#b` is a word);
///   a comment inside a subexpression or a closure may be read as ending
///   at its closing bracket, which Nushell would take as comment text;
/// - a closure's parameters are one run of text without brackets or
///   quotes (`{|x, y: int|`); defaults that need them are refused;
/// - `<` outside strings must be followed by a plain character, a space
///   or `=` (`$x < 3`, `<=`), never `|` (no `<|`), so `<(…)`, `<'…'` and
///   `<$x` cannot be written; inside strings it may be followed by
///   anything but `|`;
/// - a bare `$` must start a variable or an interpolation.
///
/// The rules share the `pl-` prefix; `pl-head` is a trie of the heads (one
/// alternative per next character, see [`head_rules`]): llama.cpp keeps a
/// stack per alternative and filters the whole vocabulary through each,
/// so a flat list of thousands of names would make every token slow. For
/// the same reason the arguments' plain characters include the space (a
/// token such as ` foo` passes the first stack), everything that starts
/// with `\` is one alternative (`pl-bs`), and each rule lists its
/// broadest alternatives last: llama.cpp tries the stack of a rule's last
/// alternative first, and each stack filters only the tokens the ones
/// before it refused.
const PIPELINE_SHAPE: &str = r##"pl-string ::= "\"" pl-stmts "\""
pl-stmts ::= | "#" pl-cmt pl-cend | "\\n" pl-line | pl-elem | pl-ws pl-stmts
pl-line ::= | "#" pl-cmt pl-cend | "|" pl-stmts | "\\n" pl-line | pl-elem | pl-ws pl-line
pl-cend ::= | "\\n" pl-line
pl-after ::= | "\\n" pl-line | ";" pl-stmts | "|" pl-stmts
pl-ws ::= "\\" [tr] | " "
pl-elem ::= "r#'" pl-raw pl-rest | [/~] pl-rest | "." [./0-9] pl-rest | "-" [0-9.] pl-rest | "{" pl-curly "}" pl-rest | "[" pl-free "]" pl-rest | "(" pl-stmts ")" pl-rest | "\\\"" pl-dq pl-rest | "'" pl-sq pl-rest | "^" pl-rest | [0-9] pl-rest | "$" pl-dollar pl-rest | pl-head pl-named
pl-named ::= pl-after | pl-ws pl-rest
pl-rest ::= | ";" pl-stmts | "|" pl-stmts | "#" pl-cmt pl-cend | "r#'" pl-raw pl-rest | "{" pl-curly "}" pl-rest | "[" pl-free "]" pl-rest | "(" pl-stmts ")" pl-rest | "`" pl-bt pl-rest | "'" pl-sq pl-rest | "$" pl-dollar pl-rest | "<" [^"\\<\x00-\x1F'`(){}\[\]|;$] pl-rest | "\\" pl-bs | [^"\\<\x00-\x1F'`(){}\[\]|;$] pl-rest
pl-bs ::= "n" pl-line | "\"" pl-dq pl-rest | [\\tr] pl-rest
pl-dollar ::= "'" pl-isq | "\\\"" pl-idq | [A-Za-z_]
pl-curly ::= pl-cws pl-cbody | pl-stmts
pl-cws ::= | "\\n" pl-cws | pl-ws pl-cws
pl-cbody ::= "|" pl-param "|" pl-stmts | pl-key " "* ":" pl-free
pl-key ::= "\\\"" pl-dq | "'" pl-sq | [A-Za-z0-9_-]+
pl-param ::= | "<" [A-Za-z] pl-param | [^"\\<\x00-\x1F|'`(){}\[\]] pl-param
pl-jchar ::= "\\" (["\\bfnrt] | "u00" [0-1] [0-9a-fA-F]) | [^"\\<\x00-\x1F]
"##;

/// JSON escapes: all of them, all but `\"` and `\\` (a Nushell quote or
/// escape inside `"…"`), all but `\n` (which ends a comment), all but `\"`
/// (which opens a string).
const ESCAPES_ALL: &str = r#"["\\bfnrt] | "u00" [0-1] [0-9a-fA-F]"#;
const ESCAPES_NOT_QUOTE_OR_BACKSLASH: &str = r#"[bfnrt] | "u00" [0-1] [0-9a-fA-F]"#;
const ESCAPES_NOT_NEWLINE: &str = r#"["\\bfrt] | "u00" [0-1] [0-9a-fA-F]"#;
const ESCAPES_NOT_QUOTE: &str = r#"[\\bfnrt] | "u00" [0-1] [0-9a-fA-F]"#;

/// One kind of text inside the pipeline: what ends it, which raw
/// characters it cannot hold, which JSON escapes it may, and what else
/// may come in it (a Nushell escape, an interpolation's `(…)`).
struct TextRule {
    name: &'static str,
    /// `None`: the text may end anywhere, what follows it decides.
    close: Option<&'static str>,
    /// Raw characters left out, as the body of a GBNF character class.
    except: &'static str,
    escapes: &'static str,
    extra: &'static [&'static str],
}

const TEXT_RULES: &[TextRule] = &[
    // 'single quoted'
    TextRule {
        name: "pl-sq",
        close: Some(r#""'""#),
        except: "'",
        escapes: ESCAPES_ALL,
        extra: &[],
    },
    // `backtick quoted`
    TextRule {
        name: "pl-bt",
        close: Some(r#""`""#),
        except: "`",
        escapes: ESCAPES_ALL,
        extra: &[],
    },
    // "double quoted", with Nushell's escapes (\" is JSON \\\")
    TextRule {
        name: "pl-dq",
        close: Some(r#""\\\"""#),
        except: "",
        escapes: ESCAPES_NOT_QUOTE_OR_BACKSLASH,
        extra: &[r#""\\\\" pl-jchar"#],
    },
    // $"interpolated (expression)"
    TextRule {
        name: "pl-idq",
        close: Some(r#""\\\"""#),
        except: "(",
        escapes: ESCAPES_NOT_QUOTE_OR_BACKSLASH,
        extra: &[r#""\\\\" pl-jchar"#, r#""(" pl-stmts ")""#],
    },
    // $'interpolated (expression)'
    TextRule {
        name: "pl-isq",
        close: Some(r#""'""#),
        except: "'(",
        escapes: ESCAPES_ALL,
        extra: &[r#""(" pl-stmts ")""#],
    },
    // r#'raw'#
    TextRule {
        name: "pl-raw",
        close: Some(r##""'#""##),
        except: "",
        escapes: ESCAPES_ALL,
        extra: &[],
    },
    // # a comment, to the line's end
    TextRule {
        name: "pl-cmt",
        close: None,
        except: "",
        escapes: ESCAPES_NOT_NEWLINE,
        extra: &[],
    },
    // balanced text: a list's items, a record's values
    TextRule {
        name: "pl-free",
        close: None,
        except: r"'`(){}\[\]",
        escapes: ESCAPES_NOT_QUOTE,
        extra: &[
            r#""'" pl-sq"#,
            r#""\\\"" pl-dq"#,
            r#""`" pl-bt"#,
            r#""(" pl-free ")""#,
            r#""[" pl-free "]""#,
            r#""{" pl-free "}""#,
        ],
    },
];

impl TextRule {
    /// The text's rule and its twin right after a `<`, which cannot be
    /// followed by `|`.
    fn write(&self, g: &mut String) {
        let name = self.name;
        for (rule, after_lt) in [(name.to_string(), false), (format!("{name}-lt"), true)] {
            let pipe = if after_lt { "|" } else { "" };
            let mut alternatives = vec![
                format!(r#"[^"\\<\x00-\x1F{pipe}{}] {name}"#, self.except),
                format!(r#""\\" ({}) {name}"#, self.escapes),
            ];
            alternatives.extend(self.extra.iter().map(|e| format!("{e} {name}")));
            alternatives.push(format!(r#""<" {name}-lt"#));
            let _ = writeln!(
                g,
                "{rule} ::= {} | {}",
                self.close.unwrap_or(""),
                alternatives.join(" | ")
            );
        }
    }
}

/// The rules of a pipeline whose elements start with one of `heads` (or
/// with a value; see [`PIPELINE_SHAPE`]): the shape and the heads' trie.
/// Built once per set of heads and kept (a few sets), since every turn of
/// a conversation asks for the same.
pub fn pipeline_rules(heads: &Arc<[String]>) -> Arc<str> {
    /// Sets of heads and their rules, the last used first.
    type Cache = Vec<(Arc<[String]>, Arc<str>)>;
    static CACHE: Mutex<Cache> = Mutex::new(Vec::new());
    const KEPT: usize = 4;
    let mut cache = CACHE.lock().unwrap_or_else(|poison| poison.into_inner());
    if let Some(at) = cache
        .iter()
        .position(|(known, _)| Arc::ptr_eq(known, heads) || known[..] == heads[..])
    {
        let entry = cache.remove(at);
        let rules = entry.1.clone();
        cache.insert(0, entry);
        return rules;
    }
    let mut g = String::from(PIPELINE_SHAPE);
    for text in TEXT_RULES {
        text.write(&mut g);
    }
    g.push_str(&head_rules(heads));
    let rules: Arc<str> = g.into();
    cache.insert(0, (heads.clone(), rules.clone()));
    cache.truncate(KEPT);
    rules
}

/// Whether `word` can be a head in the trie: letters, digits and
/// `_ . + -`, starting with a letter, a digit or `_` (a program named
/// `[` or `~x` is left out; `^` still runs it).
fn is_head_word(word: &str) -> bool {
    let mut chars = word.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || "_.+-".contains(c))
        && word.len() <= MAX_HEAD_LEN
}

/// The longest head kept.
const MAX_HEAD_LEN: usize = 64;

/// `pl-head`: the heads (and [`PIPELINE_KEYWORDS`]) as a trie, rules factored by
/// common prefix: `pl-head ::= "a" pl-h0 | "b" pl-h1 | …`, a chain of
/// single children written as one literal, and a node that completes a
/// word having an empty alternative (`pl-h3 ::= | "b" pl-h4`, `ls` and
/// `lsblk`).
pub fn head_rules(heads: &[String]) -> String {
    let mut words: Vec<&str> = heads
        .iter()
        .map(String::as_str)
        .chain(PIPELINE_KEYWORDS.iter().copied())
        .filter(|w| is_head_word(w))
        .collect();
    words.sort_unstable();
    words.dedup();
    let mut nodes = Vec::new();
    let root = trie_node(&words, 0, &mut nodes);
    let mut g = format!("pl-head ::= {root}\n");
    for (index, body) in nodes.iter().enumerate() {
        let _ = writeln!(g, "pl-h{index} ::= {body}");
    }
    g
}

/// The rule body for `words` (sorted, distinct, all sharing their first
/// `depth` bytes): an empty alternative when one of them ends there, then
/// one alternative per next byte, its shared run of bytes as one literal.
fn trie_node(words: &[&str], depth: usize, nodes: &mut Vec<String>) -> String {
    let mut rest = words;
    let mut complete = false;
    if rest.first().is_some_and(|w| w.len() == depth) {
        complete = true;
        rest = &rest[1..];
    }
    let mut alternatives = Vec::new();
    while let Some(first) = rest.first() {
        let byte = first.as_bytes()[depth];
        let n = rest
            .iter()
            .take_while(|w| w.as_bytes()[depth] == byte)
            .count();
        let (group, others) = rest.split_at(n);
        let last = group[n - 1];
        // Sorted: what the first and last share, all share.
        let shared = first
            .bytes()
            .zip(last.bytes())
            .take_while(|(a, b)| a == b)
            .count();
        let label = literal(&first[depth..shared]);
        if n == 1 {
            alternatives.push(label);
        } else {
            let index = nodes.len();
            nodes.push(String::new());
            let body = trie_node(group, shared, nodes);
            nodes[index] = body;
            alternatives.push(format!("{label} pl-h{index}"));
        }
        rest = others;
    }
    let body = alternatives.join(" | ");
    if complete { format!("| {body}") } else { body }
}

/// The rule body for an object schema; nested rules go into `rules`. Its
/// string property `code` (the tool's pipeline) is Nushell code.
fn object_rule(schema: &Value, name: &str, rules: &mut Vec<String>, code: Option<&str>) -> String {
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
        let value = if code == Some(key.as_str()) && is_string(property) {
            PIPELINE_RULE.to_string()
        } else {
            value_rule(property, &format!("{name}-{index}"), rules)
        };
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
            let body = object_rule(schema, name, rules, None);
            rules.push(format!("{name} ::= {body}"));
            name.to_string()
        }
        _ => "value".into(),
    }
}

/// True when `schema` is a plain string (no enum).
fn is_string(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("string") && schema.get("enum").is_none()
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
        let g = tool_call_grammar(&tools, 500, None);
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
        let g = tool_call_grammar(&tools, 256, None);
        // A 150-character pipeline is an ordinary one.
        assert!(g.contains("char{0,208}"), "{g}");
    }

    fn nu_tool() -> ToolDef {
        ToolDef {
            name: "nu".into(),
            description: String::new(),
            parameters: json!({"type": "object",
                "properties": {"pipeline": {"type": "string"}, "why": {"type": "string"},
                    "background": {"type": "boolean"}},
                "required": ["pipeline", "why"]}),
        }
    }

    fn heads(names: &[&str]) -> Arc<[String]> {
        names.iter().map(|n| n.to_string()).collect()
    }

    fn nu_pipeline(names: &[&str]) -> PipelineGrammar {
        PipelineGrammar {
            tool: "nu".into(),
            argument: "pipeline".into(),
            heads: heads(names),
        }
    }

    #[test]
    fn the_trie_factors_names_by_their_common_prefix() {
        let mut nodes = Vec::new();
        let words = ["git", "ls", "lsblk", "lsof", "sort", "sort-by", "str"];
        let root = trie_node(&words, 0, &mut nodes);
        // One alternative per first character; a lone word is one literal.
        assert_eq!(root, r#""git" | "ls" pl-h0 | "s" pl-h1"#);
        // `ls` is complete: an empty alternative, then its continuations.
        assert_eq!(nodes[0], r#"| "blk" | "of""#);
        assert_eq!(nodes[1], r#""ort" pl-h2 | "tr""#);
        assert_eq!(nodes[2], r#"| "-by""#);
        assert_eq!(nodes.len(), 3);
    }

    #[test]
    fn heads_are_filtered_sorted_and_joined_by_the_keywords() {
        let g = head_rules(&heads(&[
            "zip",
            "ls",
            "ls",
            "[",
            "~x",
            "a b",
            "",
            "g++",
            "x86_64-gcc",
        ]));
        let root = g.lines().next().unwrap();
        assert!(root.starts_with("pl-head ::= "), "{g}");
        // No word with a space, a bracket or a tilde; `+`, `.`, `-` and
        // digits are fine.
        assert!(
            !g.contains("\"[\"") && !g.contains('~') && !g.contains("a b"),
            "{g}"
        );
        assert!(g.contains("\"g++\""), "{g}");
        assert!(g.contains("\"x86_64-gcc\""), "{g}");
        assert!(root.ends_with(r#" | "x86_64-gcc" | "zip""#), "{g}");
        // `ls` once, beside the keywords `let` and `loop`.
        assert!(g.contains("\npl-h3 ::= \"et\" | \"oop\" | \"s\"\n"), "{g}");
        // The language's own words are always there (`not`, `null`).
        assert!(g.contains("\npl-h5 ::= \"ot\" | \"ull\"\n"), "{g}");
        // Every rule the trie names is defined once.
        for line in g.lines().skip(1) {
            let name = line.split(" ::= ").next().unwrap();
            assert_eq!(g.matches(&format!("{name} ::=")).count(), 1, "{name}");
            assert!(g.contains(&format!(" {name}")), "{name} unused");
        }
    }

    #[test]
    fn only_the_pipeline_argument_is_held_to_the_pipeline_rules() {
        let tools = [
            nu_tool(),
            ToolDef {
                name: "answer".into(),
                description: String::new(),
                parameters: json!({"type": "object",
                    "properties": {"pipeline": {"type": "string"}}, "required": ["pipeline"]}),
            },
        ];
        let pipeline = nu_pipeline(&["ls", "open"]);
        let g = tool_call_grammar(&tools, 500, Some(&pipeline));
        assert!(
            g.contains(r#"args-0 ::= "{" "\"pipeline\": " pl-string ", " "\"why\": " string"#),
            "{g}"
        );
        // Another tool's argument of the same name stays a string.
        assert!(
            g.contains(r#"args-1 ::= "{" "\"pipeline\": " string "}""#),
            "{g}"
        );
        assert!(g.contains("pl-head ::= "), "{g}");
        // The pipeline has no length bound of its own: the budget ends it.
        let pipeline_rules: String = g.lines().filter(|l| l.starts_with("pl-")).collect();
        assert!(!pipeline_rules.contains("{0,"), "{g}");
        // No heads, or no such tool: today's free string, no pipeline rules.
        for pipeline in [
            nu_pipeline(&[]),
            PipelineGrammar {
                tool: "run".into(),
                ..nu_pipeline(&["ls"])
            },
        ] {
            let g = tool_call_grammar(&tools, 500, Some(&pipeline));
            assert!(
                g.contains(r#"args-0 ::= "{" "\"pipeline\": " string ", ""#),
                "{g}"
            );
            assert!(!g.contains("pl-"), "{g}");
        }
    }

    #[test]
    fn pipeline_text_is_json_escaped_and_cannot_write_a_control_opener() {
        let rules = pipeline_rules(&heads(&["ls"]));
        let rule = |name: &str| {
            rules
                .lines()
                .find(|l| l.starts_with(&format!("{name} ::= ")))
                .unwrap_or_else(|| panic!("no {name} in {rules}"))
                .to_string()
        };
        // The pipeline is a JSON string; its `"…"` strings are `\"…\"`,
        // a Nushell escape inside them is `\\` and one JSON character.
        assert!(rule("pl-string").starts_with(r#"pl-string ::= "\"" pl-stmts "\"""#));
        assert!(
            rule("pl-dq").starts_with(r#"pl-dq ::= "\\\"" | "#),
            "{}",
            rule("pl-dq")
        );
        assert!(rule("pl-dq").contains(r#""\\\\" pl-jchar pl-dq"#));
        // A newline is JSON's `\n`; it separates statements and ends a
        // comment, whose escapes leave it out.
        assert!(rule("pl-after").contains(r#""\\n" pl-line"#));
        assert!(
            rule("pl-cmt").contains(r#""\\" (["\\bfrt] |"#),
            "{}",
            rule("pl-cmt")
        );
        // Every text's characters leave out `"`, `\` and `<`, and after a
        // `<` its twin leaves out `|` too.
        for text in [
            "pl-sq", "pl-bt", "pl-dq", "pl-idq", "pl-isq", "pl-raw", "pl-cmt", "pl-free",
        ] {
            assert!(rule(text).contains(r#"[^"\\<\x00-\x1F"#), "{}", rule(text));
            assert!(
                rule(text).contains(&format!(r#""<" {text}-lt"#)),
                "{}",
                rule(text)
            );
            assert!(
                rule(&format!("{text}-lt")).contains(r#"[^"\\<\x00-\x1F|"#),
                "{}",
                rule(&format!("{text}-lt"))
            );
        }
        // Outside strings `<` is followed by a plain character, not `|`.
        assert!(rule("pl-rest").contains(r#""<" [^"\\<\x00-\x1F'`(){}\[\]|;$] pl-rest"#));
        // Every rule used is defined.
        for name in rules
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .filter(|w| w.starts_with("pl-"))
        {
            assert!(
                rules.contains(&format!("\n{name} ::= "))
                    || rules.starts_with(&format!("{name} ::= ")),
                "{name}"
            );
        }
    }

    #[test]
    fn the_pipeline_rules_are_built_once_per_set_of_heads() {
        let first = pipeline_rules(&heads(&["ls", "where", "zz-one"]));
        let again = pipeline_rules(&heads(&["ls", "where", "zz-one"]));
        assert!(Arc::ptr_eq(&first, &again));
        let other = pipeline_rules(&heads(&["ls", "where", "zz-two"]));
        assert!(!Arc::ptr_eq(&first, &other));
        assert!(
            other.contains("\"zz-two\"") || other.contains("\"two\""),
            "{other}"
        );
    }
}
