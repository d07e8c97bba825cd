//! `nu-agent eval --list-rules`: every rule of the agent, with its name
//! (what `--without` takes), its kind, the lever of its family, what it
//! serves and its examples (each checked by a test of agent-core).

use std::process::ExitCode;

use agent_core::agent::all_rules;
use nu_protocol::{Record, Span, Value};

use crate::common::print_value;

/// Print the rules as a table (the examples counted), or as JSON (the
/// examples in full).
pub fn list_rules(json: bool) -> ExitCode {
    let span = Span::unknown();
    let rows = all_rules()
        .map(|rule| {
            let mut record = Record::new();
            record.push("name", Value::string(rule.name, span));
            record.push("kind", Value::string(rule.kind.name(), span));
            record.push("lever", Value::string(rule.lever.name(), span));
            record.push("serves", Value::string(rule.serves, span));
            let examples = if json {
                let examples = rule
                    .examples
                    .iter()
                    .map(|example| {
                        let mut record = Record::new();
                        record.push("given", Value::string(example.given, span));
                        let gives = example
                            .gives
                            .map_or(Value::nothing(span), |gives| Value::string(gives, span));
                        record.push("gives", gives);
                        Value::record(record, span)
                    })
                    .collect();
                Value::list(examples, span)
            } else {
                Value::int(rule.examples.len() as i64, span)
            };
            record.push("examples", examples);
            Value::record(record, span)
        })
        .collect();
    print_value(&Value::list(rows, span), json)
}
