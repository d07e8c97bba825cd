//! `agent explain`: explain piped data or a pipeline, running nothing
//! (only read-only steps with `--investigate`).

use agent_core::agent::{Agent, Ending, FrontEnd, PromptKind, request_with_input};
use nu_plugin::{EngineInterface, EvaluatedCall, PluginCommand};
use nu_protocol::{
    Category, Example, LabeledError, PipelineData, Signature, SyntaxShape, Type, Value,
};

use crate::{
    AgentPlugin,
    conversation::{ApprovalChoice, cancel_on_interrupt, prepare, terminal_view},
};

/// Tokens of piped data shown to the model.
const INPUT_TOKENS: usize = 2_500;

/// `agent explain`.
pub struct AgentExplain;

impl PluginCommand for AgentExplain {
    type Plugin = AgentPlugin;

    fn name(&self) -> &str {
        "agent explain"
    }

    fn signature(&self) -> Signature {
        Signature::build(self.name())
            .input_output_types(vec![(Type::Any, Type::String)])
            .optional(
                "subject",
                SyntaxShape::OneOf(vec![SyntaxShape::String, SyntaxShape::Closure(None)]),
                "With piped data: the question about it. Without: the pipeline to explain (a string or a closure).",
            )
            .switch(
                "investigate",
                "Let the agent run read-only pipelines to look closer (nothing that changes anything).",
                Some('i'),
            )
            .named(
                "model",
                SyntaxShape::String,
                "The model for this request.",
                Some('m'),
            )
            .named(
                "max-steps",
                SyntaxShape::Int,
                "Most model turns for this request (default: 3, or 8 with --investigate, within agent.max_steps).",
                None,
            )
            .category(Category::Misc)
    }

    fn description(&self) -> &str {
        "Explain piped data (a table, record, text or bytes) or a pipeline, without running anything."
    }

    fn extra_description(&self) -> &str {
        "Piped data is shown to the model in the compact form it reads results in (column types, head and tail rows). A pipeline to explain comes with the policy's plan of it: each command, what it does (read, write, delete, ...) and the verdict. Nothing runs, unless --investigate lets the agent run read-only pipelines (the policy is read-only for that request)."
    }

    fn search_terms(&self) -> Vec<&str> {
        vec!["explain", "what does", "describe", "understand"]
    }

    fn examples(&self) -> Vec<Example<'_>> {
        vec![
            Example {
                example: r#"sys disks | agent explain "anything worrying?""#,
                description: "Explain data",
                result: None,
            },
            Example {
                example: r#"agent explain "ls | where size > 1mb | sort-by modified""#,
                description: "Explain a pipeline without running it",
                result: None,
            },
            Example {
                example: "agent explain { ps | where cpu > 50 | kill $in.pid }",
                description: "Explain a closure's code",
                result: None,
            },
            Example {
                example: r#"open build.log | agent explain --investigate "why did the build fail?""#,
                description: "Let it look around (read-only) before explaining",
                result: None,
            },
            Example {
                example: r#"ls | agent explain --max-steps 6 "what stands out?""#,
                description: "Give it more turns than the default",
                result: None,
            },
        ]
    }

    fn run(
        &self,
        plugin: &AgentPlugin,
        engine: &EngineInterface,
        call: &EvaluatedCall,
        input: PipelineData,
    ) -> Result<PipelineData, LabeledError> {
        let head = call.head;
        let investigate = call.has_flag("investigate")?;
        let input = input.into_value(head)?;
        let subject: Option<Value> = call.opt(0)?;
        let has_input = !matches!(input, Value::Nothing { .. });
        let max_steps: Option<i64> = call.get_flag("max-steps")?;
        let mut prepared = prepare(
            plugin,
            engine,
            PromptKind::Explain { investigate },
            ApprovalChoice {
                yes: false,
                approve: Vec::new(),
                ..ApprovalChoice::default()
            },
            call.get_flag("model")?,
            head,
        )?;
        let request = match (has_input, subject) {
            (true, subject) => {
                let question = match subject {
                    Some(Value::String { val, .. }) => val,
                    _ => "Explain this data: what it is and what stands out.".into(),
                };
                request_with_input(&question, Some(&input), INPUT_TOKENS)
            }
            (false, Some(value @ Value::Closure { .. })) => {
                let bytes = engine.get_span_contents(value.span())?;
                let source = String::from_utf8_lossy(&bytes);
                let source = source.trim().trim_start_matches('{').trim_end_matches('}');
                pipeline_request(&prepared.shell, source.trim())
            }
            (false, Some(Value::String { val, .. })) if !val.trim().is_empty() => {
                pipeline_request(&prepared.shell, &val)
            }
            _ => {
                return Err(LabeledError::new("agent explain needs something to explain")
                    .with_code("nu_agent::explain::empty")
                    .with_label("pipe data in, or give a pipeline", head)
                    .with_help(r#"for example: ls | agent explain, or agent explain "ps | where cpu > 10""#));
            }
        };
        prepared.options.max_steps = match max_steps {
            Some(steps) => usize::try_from(steps)
                .ok()
                .filter(|s| *s > 0)
                .ok_or_else(|| {
                    LabeledError::new("--max-steps must be at least 1")
                        .with_label("not a positive number", head)
                })?,
            None => prepared
                .options
                .max_steps
                .min(if investigate { 8 } else { 3 }),
        };
        let (view, sink) = terminal_view(engine, false);
        let mut agent = Agent::new(
            prepared.backend,
            prepared.shell,
            prepared.options,
            prepared.system_prompt,
            sink,
        );
        let (cancel, _interrupt) = cancel_on_interrupt(engine)?;
        let ending = agent.run(&request, &cancel);
        view.finish();
        match ending {
            Ending::Answered { text, .. } => {
                Ok(PipelineData::value(Value::string(text, head), None))
            }
            Ending::Failed(failure) => {
                let error = LabeledError::new(format!("no explanation: {failure}"))
                    .with_code("nu_agent::explain::failed")
                    .with_label("the agent stopped", head);
                Err(match failure.help(FrontEnd::Explain) {
                    Some(help) => error.with_help(help),
                    None => error,
                })
            }
            Ending::Cancelled => Err(LabeledError::new("agent explain was interrupted")
                .with_code("nu_agent::explain::interrupted")
                .with_label("stopped by Ctrl+C", head)),
        }
    }
}

/// The request to explain `pipeline`, with the policy's plan of it.
fn pipeline_request(shell: &agent_core::policy::PolicyShell, pipeline: &str) -> String {
    let (plan, decision) = shell.check(pipeline);
    let mut text = format!("Explain this Nushell pipeline (it is not run):\n{pipeline}\n");
    match plan {
        Some(_) => {
            text.push_str("\nWhat each command does, per the policy:\n");
            for row in &decision.rows {
                if row.command.is_empty() {
                    continue;
                }
                text.push_str(&format!(
                    "- {}: {} ({})\n",
                    row.command,
                    row.category.as_str(),
                    row.verdict.as_str()
                ));
            }
        }
        None => {
            let reason = decision
                .rows
                .first()
                .map(|r| r.reason.as_str())
                .unwrap_or("");
            text.push_str(&format!("\nIt does not parse: {reason}\n"));
        }
    }
    text
}
