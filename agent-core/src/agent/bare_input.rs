//! A pipeline that starts with a command that works on its input
//! (`length`, `math sum`, `where size > 1kb`) and is given none: written
//! after a step gave a result, it means that result (a small model writes
//! the next stage on its own), or, where the command cannot take that
//! result, that nothing is left to compute from it.

use nu_protocol::engine::EngineState;
use nu_protocol::{Category, CompareTypes, Type, Value};

use super::pipeline_text::top_level_elements;
use super::usage::command_name;

/// What a pipeline that starts without input makes of the last result.
#[derive(Debug, PartialEq)]
pub enum Feed {
    /// The last result piped into it (`$out.3 | length`), and why.
    Piped(String, String),
    /// Its first command takes no value of the last result's type: what
    /// the model is told instead of running it.
    NothingToTake(String),
}

/// How `pipeline` takes the last result `$out.{out}`, `last`, where its
/// first command needs input and has none; `None` where it starts with a
/// value, a program, or a command that runs without input.
pub fn feed(engine: &EngineState, pipeline: &str, out: usize, last: &Value) -> Option<Feed> {
    let first = top_level_elements(pipeline).into_iter().next()?;
    let first = first.trim();
    if first.starts_with('^') {
        return None;
    }
    let name = command_name(engine, first)?;
    let decl = engine.find_decl(name.as_bytes(), &[])?;
    let signature = engine.get_decl(decl).signature();
    // `save f` and `to json` take any input, nothing included, but given
    // nothing they only write nothing: after a result, they mean it.
    let writes_its_input =
        name == "save" || (signature.category == Category::Formats && name.starts_with("to "));
    if writes_its_input && !matches!(last, Value::Nothing { .. }) {
        return Some(piped(pipeline, out, &name));
    }
    // A filter given nothing gives nothing of use (`length` is 0).
    let filter = matches!(signature.category, Category::Filters | Category::Math);
    let inputs: Vec<Type> = signature
        .input_output_types
        .into_iter()
        .map(|(input, _)| input)
        .collect();
    let runs_alone = inputs.is_empty()
        || inputs.iter().any(|input| match input {
            Type::Any => true,
            Type::Nothing => !filter,
            _ => false,
        });
    if runs_alone {
        return None;
    }
    // One number, size or date: what a filter or a sum would make of it is
    // itself.
    let holds_values = matches!(
        last,
        Value::List { .. } | Value::Record { .. } | Value::String { .. } | Value::Binary { .. }
    );
    if holds_values && inputs.iter().any(|input| last.is_subtype_of(input)) {
        return Some(piped(pipeline, out, &name));
    }
    Some(Feed::NothingToTake(format!(
        "Not run: `{name}` works on its input and was given none, and the last result ($out.{out}) is {}, which it does not take: nothing is left to compute from it. Call `answer` with what the results show.",
        a_type(&last.get_type())
    )))
}

/// `pipeline` with the last result `$out.{out}` piped into its first
/// command `name`, and why.
fn piped(pipeline: &str, out: usize, name: &str) -> Feed {
    Feed::Piped(
        format!("$out.{out} | {}", pipeline.trim()),
        format!("`{name}` works on its input and was given none: the last result went in"),
    )
}

/// `an int`, `a table`: a type's name with its article.
fn a_type(ty: &Type) -> String {
    let name = match ty {
        Type::Table(_) => "table".to_string(),
        Type::Record(_) => "record".to_string(),
        Type::List(_) => "list".to_string(),
        other => other.to_string(),
    };
    let article = if name.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    format!("{article} {name}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine() -> &'static crate::shell::Engine {
        crate::shell::Engine::standard()
    }

    #[test]
    fn a_command_that_needs_input_takes_the_last_result() {
        let engine = engine();
        let table = Value::test_list(vec![Value::test_record(nu_protocol::record! {
            "name" => Value::test_string("a"),
        })]);
        assert_eq!(
            feed(engine.state(), "length", 2, &table),
            Some(Feed::Piped(
                "$out.2 | length".into(),
                "`length` works on its input and was given none: the last result went in".into()
            ))
        );
        assert!(matches!(
            feed(engine.state(), "where name == a | get name", 0, &table),
            Some(Feed::Piped(piped, _)) if piped == "$out.0 | where name == a | get name"
        ));
        assert!(matches!(
            feed(
                engine.state(),
                "math sum",
                1,
                &Value::test_list(vec![Value::test_int(2)])
            ),
            Some(Feed::Piped(..))
        ));
    }

    #[test]
    fn a_write_given_none_writes_the_last_result() {
        let engine = engine();
        let text = Value::test_string("[1, 2]");
        assert!(matches!(
            feed(engine.state(), "save -f a.json", 3, &text),
            Some(Feed::Piped(piped, _)) if piped == "$out.3 | save -f a.json"
        ));
        assert!(matches!(
            feed(engine.state(), "to json", 0, &Value::test_int(7)),
            Some(Feed::Piped(piped, _)) if piped == "$out.0 | to json"
        ));
        assert_eq!(
            feed(engine.state(), "save -f a.json", 0, &Value::test_nothing()),
            None
        );
    }

    #[test]
    fn a_result_the_command_cannot_take_leaves_nothing_to_compute() {
        let engine = engine();
        let Some(Feed::NothingToTake(told)) =
            feed(engine.state(), "length", 0, &Value::test_int(7))
        else {
            panic!("not told")
        };
        assert!(told.contains("$out.0) is an int"), "{told}");
        assert!(matches!(
            feed(engine.state(), "math avg", 0, &Value::test_int(7)),
            Some(Feed::NothingToTake(_))
        ));
    }

    #[test]
    fn a_pipeline_with_input_of_its_own_is_left_alone() {
        let engine = engine();
        let last = Value::test_int(7);
        for pipeline in [
            "ls | length",
            "open a.csv | get price | math avg",
            "$out.0 | length",
            "[1 2] | math sum",
            "^wc -l a.txt",
            "sys disks",
            "each { $in }",
        ] {
            assert_eq!(feed(engine.state(), pipeline, 0, &last), None, "{pipeline}");
        }
    }
}
