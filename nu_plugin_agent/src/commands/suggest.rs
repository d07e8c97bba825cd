//! `agent suggest`: one pipeline for a request, to review and run yourself.

use agent_core::{
    agent::{SuggestError, suggest},
    policy::Verdict,
};
use nu_plugin::{EngineInterface, EvaluatedCall, SimplePluginCommand};
use nu_protocol::{Category, Example, LabeledError, Record, Signature, SyntaxShape, Type, Value};

use crate::{
    AgentPlugin,
    conversation::{ApprovalChoice, cancel_on_interrupt, prepare, terminal_view},
};

/// `agent suggest <request>`.
pub struct AgentSuggest;

impl SimplePluginCommand for AgentSuggest {
    type Plugin = AgentPlugin;

    fn name(&self) -> &str {
        "agent suggest"
    }

    fn signature(&self) -> Signature {
        Signature::build(self.name())
            .input_output_type(Type::Nothing, Type::record())
            .rest(
                "request",
                SyntaxShape::String,
                "What the pipeline should do, in plain words.",
            )
            .named(
                "model",
                SyntaxShape::String,
                "The model for this request.",
                Some('m'),
            )
            .category(Category::Misc)
    }

    fn description(&self) -> &str {
        "Suggest one Nushell pipeline for a request, checked to parse, with the policy's verdict; nothing runs."
    }

    fn extra_description(&self) -> &str {
        "Returns a record: `pipeline` (it parses in this nu), `why` (what it does), `verdict` (what your policy would say if the agent ran it: allow, confirm or block) and `reason`. A proposal that does not parse goes back to the model with the parser's error, a few times at most.

nu-scripts/agent.nu binds Alt+S to replace the command line with the suggestion for what is typed on it, to edit and run yourself: `use nu-scripts/agent.nu` in your config."
    }

    fn search_terms(&self) -> Vec<&str> {
        vec!["suggest", "complete", "write", "pipeline", "how do i"]
    }

    fn examples(&self) -> Vec<Example<'_>> {
        vec![
            Example {
                example: r#"agent suggest "find rust files changed today""#,
                description: "Get a pipeline to review",
                result: None,
            },
            Example {
                example: r#"agent suggest "largest 3 files" | get pipeline"#,
                description: "Just the pipeline text",
                result: None,
            },
        ]
    }

    fn run(
        &self,
        plugin: &AgentPlugin,
        engine: &EngineInterface,
        call: &EvaluatedCall,
        _input: &Value,
    ) -> Result<Value, LabeledError> {
        let head = call.head;
        let request = call.rest::<String>(0)?.join(" ");
        if request.trim().is_empty() {
            return Err(LabeledError::new("agent suggest needs a request")
                .with_code("nu_agent::suggest::empty")
                .with_label("say what the pipeline should do", head)
                .with_help(r#"for example: agent suggest "rust files changed today""#));
        }
        let mut prepared = prepare(
            plugin,
            engine,
            agent_core::agent::PromptKind::Suggest,
            ApprovalChoice {
                yes: false,
                approve: Vec::new(),
                ..ApprovalChoice::default()
            },
            call.get_flag("model")?,
            head,
        )?;
        let (view, sink) = terminal_view(engine, false);
        let (cancel, _interrupt) = cancel_on_interrupt(engine)?;
        sink(&agent_core::agent::AgentEvent::Thinking {
            step: 1,
            max_steps: 1,
        });
        let result = suggest(
            prepared.backend.as_mut(),
            &prepared.shell,
            &request,
            prepared.system_prompt,
            &prepared.options,
            &sink,
            &cancel,
        );
        view.finish();
        let suggestion = result.map_err(|e| match e {
            SuggestError::Cancelled => LabeledError::new("agent suggest was interrupted")
                .with_code("nu_agent::suggest::interrupted")
                .with_label("stopped by Ctrl+C", head),
            other => LabeledError::new(other.to_string())
                .with_code("nu_agent::suggest::failed")
                .with_label("no suggestion", head)
                .with_help("rephrase the request, or try a larger model (agent model list)"),
        })?;
        let reason = suggestion
            .decision
            .deciding_rows()
            .map(|r| {
                if r.command.is_empty() {
                    r.reason.clone()
                } else {
                    format!("{}: {}", r.command, r.reason)
                }
            })
            .collect::<Vec<_>>()
            .join("; ");
        let mut record = Record::new();
        record.push("pipeline", Value::string(suggestion.pipeline, head));
        record.push("why", Value::string(suggestion.why, head));
        record.push(
            "verdict",
            Value::string(suggestion.decision.verdict.as_str(), head),
        );
        record.push(
            "reason",
            Value::string(
                if suggestion.decision.verdict == Verdict::Allow {
                    "runs without asking".to_string()
                } else {
                    reason
                },
                head,
            ),
        );
        Ok(Value::record(record, head))
    }
}
