//! A Nushell value as JSON, the way `to json` writes it: sizes in bytes,
//! durations in nanoseconds, dates as RFC 3339, binary as a list of bytes.
//! Direct, so a result costs no extra pipeline run.

use nu_protocol::Value;
use serde_json::{Map, Number, Value as Json};

/// `value` as JSON; what JSON has no form for (a closure, an error) is
/// written as its description.
pub fn to_json(value: &Value) -> Json {
    match value {
        Value::Nothing { .. } => Json::Null,
        Value::Bool { val, .. } => Json::Bool(*val),
        Value::Int { val, .. } => Json::Number((*val).into()),
        Value::Float { val, .. } => Number::from_f64(*val).map_or(Json::Null, Json::Number),
        Value::Filesize { val, .. } => Json::Number(val.get().into()),
        Value::Duration { val, .. } => Json::Number((*val).into()),
        Value::Date { val, .. } => Json::String(val.to_rfc3339()),
        Value::String { val, .. } => Json::String(val.clone()),
        Value::Glob { val, .. } => Json::String(val.clone()),
        Value::Record { val, .. } => Json::Object(
            val.iter()
                .map(|(key, value)| (key.clone(), to_json(value)))
                .collect::<Map<_, _>>(),
        ),
        Value::List { vals, .. } => Json::Array(vals.iter().map(to_json).collect()),
        Value::Binary { val, .. } => {
            Json::Array(val.iter().map(|b| Json::Number((*b).into())).collect())
        }
        Value::Range { val, .. } => match val.as_ref() {
            nu_protocol::Range::IntRange(range) => Json::Array(
                (*range)
                    .into_range_iter(nu_protocol::Signals::empty())
                    .take(RANGE_LIMIT)
                    .map(|i| Json::Number(i.into()))
                    .collect(),
            ),
            other => Json::String(format!("{other}")),
        },
        Value::CellPath { val, .. } => Json::String(val.to_string()),
        Value::Custom {
            val, internal_span, ..
        } => match val.to_base_value(*internal_span) {
            Ok(base) => to_json(&base),
            Err(_) => Json::String(val.type_name()),
        },
        Value::Error { error, .. } => {
            let mut object = Map::new();
            object.insert("error".into(), Json::String(error.to_string()));
            Json::Object(object)
        }
        Value::Closure { .. } => Json::String("<closure>".into()),
    }
}

/// Most elements a range is written out with.
const RANGE_LIMIT: usize = 100_000;

#[cfg(test)]
mod tests {
    use nu_protocol::{Span, record};

    use super::*;

    #[test]
    fn values_are_written_as_to_json_writes_them() {
        let span = Span::test_data();
        let value = Value::test_record(record! {
            "n" => Value::test_int(5),
            "size" => Value::filesize(2048, span),
            "took" => Value::duration(1_500, span),
            "list" => Value::test_list(vec![Value::test_string("a"), Value::test_nothing()]),
            "bytes" => Value::binary(vec![1u8, 255], span),
        });
        assert_eq!(
            to_json(&value),
            serde_json::json!({"n": 5, "size": 2048, "took": 1500, "list": ["a", null], "bytes": [1, 255]})
        );
    }
}
