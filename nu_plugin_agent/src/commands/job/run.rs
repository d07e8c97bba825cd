//! `agent job run`: one pipeline under the policy, in the background.

use std::sync::Arc;

use agent_core::{jobs::JobKind, shell::Limits};
use nu_plugin::{EngineInterface, EvaluatedCall, SimplePluginCommand};
use nu_protocol::{Category, Example, LabeledError, Signature, Spanned, SyntaxShape, Type, Value};

use super::WHERE;
use crate::{
    AgentPlugin,
    background::{job_approver, not_recorded, outcome_of_run, warn_if_nu_exits_soon},
    caller::{approve_patterns, caller_shell, config_from_caller, with_approval_flags},
};

pub struct AgentJobRun;

impl SimplePluginCommand for AgentJobRun {
    type Plugin = AgentPlugin;

    fn name(&self) -> &str {
        "agent job run"
    }

    fn signature(&self) -> Signature {
        with_approval_flags(Signature::build(self.name()))
            .input_output_type(Type::Nothing, Type::Int)
            .required(
                "pipeline",
                SyntaxShape::String,
                "The Nushell pipeline to run in the background.",
            )
            .category(Category::Misc)
    }

    fn description(&self) -> &str {
        "Run a pipeline in the background under your policy; returns the job id at once."
    }

    fn extra_description(&self) -> &str {
        WHERE
    }

    fn examples(&self) -> Vec<Example<'_>> {
        vec![
            Example {
                example: r#"agent job run "du -h / | sort-by physical | last 5""#,
                description: "A long read in the background",
                result: None,
            },
            Example {
                example: r#"let id = (agent job run "sleep 2sec; {answer: 42}"); agent job wait $id; agent job result $id"#,
                description: "Wait for it and take its value",
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
        let pipeline: Spanned<String> = call.req(0)?;
        let config = config_from_caller(engine, call.head)?;
        let (approver, late) = job_approver(call.has_flag("yes")?, approve_patterns(call)?);
        let mut shell = caller_shell(plugin, engine, &config, approver, call.head)?;
        let limits = Limits::default().with_max_output_bytes(config.agent.max_output);
        let manager = plugin
            .background
            .manager(engine, &config.agent.jobs, call.head)?;
        let source = pipeline.item.clone();
        let id = manager
            .submit(
                JobKind::Run,
                &pipeline.item,
                Box::new(move |job| {
                    if let Some(late) = late {
                        late.set(job.approver.clone() as Arc<dyn agent_core::policy::Approver>);
                    }
                    let ran = shell.run(&source, &limits, &job.cancel);
                    job.log(match &ran.approved_by {
                        Some(by) => format!("ran `{source}` (approved by {by})"),
                        None => format!("did not run `{source}`"),
                    });
                    outcome_of_run(ran.outcome, &job.approver)
                }),
            )
            .map_err(|e| not_recorded(e, call.head))?;
        warn_if_nu_exits_soon(id);
        Ok(Value::int(id as i64, call.head))
    }
}
