//! `print` for the embedded engine: writes into the run's output, never to
//! the terminal (which belongs to the user, or is the plugin protocol pipe).

use std::sync::{Arc, Mutex};

use nu_engine::CallExt;
use nu_protocol::{
    Category, Example, PipelineData, ShellError, Signature, SyntaxShape, Type, Value,
    engine::{Call, Command, EngineState, Stack},
};

/// Where `print` output of a session goes. Cloning shares the buffer.
#[derive(Clone, Default, Debug)]
pub struct PrintSink {
    lines: Arc<Mutex<Vec<String>>>,
}

impl PrintSink {
    pub(crate) fn push(&self, text: String) {
        if let Ok(mut lines) = self.lines.lock() {
            lines.push(text);
        }
    }

    /// Take everything printed since the last call.
    pub fn take(&self) -> Vec<String> {
        self.lines
            .lock()
            .map(|mut lines| std::mem::take(&mut *lines))
            .unwrap_or_default()
    }
}

/// The `print` command of the embedded engine.
#[derive(Clone)]
pub struct Print {
    sink: PrintSink,
}

impl Print {
    pub fn new(sink: PrintSink) -> Self {
        Print { sink }
    }
}

impl Command for Print {
    fn name(&self) -> &str {
        "print"
    }

    fn signature(&self) -> Signature {
        Signature::build("print")
            .input_output_types(vec![(Type::Any, Type::Nothing)])
            .allow_variants_without_examples(true)
            .rest("rest", SyntaxShape::Any, "The values to print.")
            .switch(
                "no-newline",
                "Print without a newline after each value.",
                Some('n'),
            )
            .switch("stderr", "Print to the run's error output.", Some('e'))
            .switch(
                "raw",
                "Print without formatting (accepted for compatibility).",
                Some('r'),
            )
            .category(Category::Strings)
    }

    fn description(&self) -> &str {
        "Print values into the agent's run output."
    }

    fn extra_description(&self) -> &str {
        "Inside the agent, printed text is collected with the run's result instead of going to a terminal."
    }

    fn search_terms(&self) -> Vec<&str> {
        vec!["display", "echo", "output"]
    }

    fn run(
        &self,
        engine_state: &EngineState,
        stack: &mut Stack,
        call: &Call,
        input: PipelineData,
    ) -> Result<PipelineData, ShellError> {
        let args: Vec<Value> = call.rest(engine_state, stack, 0)?;
        let no_newline = call.has_flag(engine_state, stack, "no-newline")?;
        let to_stderr = call.has_flag(engine_state, stack, "stderr")?;
        let config = stack.get_config(engine_state);
        let values = if args.is_empty() {
            match input {
                PipelineData::Empty => Vec::new(),
                other => vec![other.into_value(call.head)?],
            }
        } else {
            args
        };
        let separator = if no_newline { "" } else { "\n" };
        let mut text = String::new();
        for value in values {
            match value {
                Value::String { val, .. } => text.push_str(&val),
                Value::Error { error, .. } => return Err(*error),
                other => text.push_str(&other.to_expanded_string(", ", &config)),
            }
            text.push_str(separator);
        }
        if to_stderr {
            text.insert_str(0, "stderr: ");
        }
        self.sink.push(text);
        Ok(PipelineData::empty())
    }

    fn examples(&self) -> Vec<Example<'_>> {
        vec![Example {
            description: "Print a message into the run output",
            example: r#"print "step one done""#,
            result: None,
        }]
    }
}
