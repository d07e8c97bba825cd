//! `agent job clean`: remove finished jobs' records.

use std::time::Duration;

use nu_plugin::{EngineInterface, EvaluatedCall, SimplePluginCommand};
use nu_protocol::{Category, Example, LabeledError, Record, Signature, SyntaxShape, Type, Value};

use super::WHERE;
use crate::{AgentPlugin, background::job_store, caller::config_from_caller};

pub struct AgentJobClean;

impl SimplePluginCommand for AgentJobClean {
    type Plugin = AgentPlugin;

    fn name(&self) -> &str {
        "agent job clean"
    }

    fn signature(&self) -> Signature {
        Signature::build(self.name())
            .input_output_type(Type::Nothing, Type::record())
            .named(
                "keep",
                SyntaxShape::Int,
                "Finished jobs to keep, newest first (default: agent.jobs.keep, 100).",
                None,
            )
            .named(
                "older-than",
                SyntaxShape::Duration,
                "Also remove finished jobs older than this (default: agent.jobs.max_age, 30day).",
                None,
            )
            .category(Category::Misc)
    }

    fn description(&self) -> &str {
        "Remove the records and results of finished jobs beyond the newest --keep, and those older than --older-than; jobs still running stay. Returns the ids removed."
    }

    fn extra_description(&self) -> &str {
        WHERE
    }

    fn examples(&self) -> Vec<Example<'_>> {
        vec![Example {
            example: "agent job clean --keep 0",
            description: "Forget every finished job",
            result: None,
        }]
    }

    fn run(
        &self,
        _plugin: &AgentPlugin,
        engine: &EngineInterface,
        call: &EvaluatedCall,
        _input: &Value,
    ) -> Result<Value, LabeledError> {
        let settings = config_from_caller(engine, call.head)?.agent.jobs;
        let keep = match call.get_flag::<i64>("keep")? {
            Some(n) => usize::try_from(n).map_err(|_| {
                LabeledError::new("--keep must be 0 or more").with_label("negative", call.head)
            })?,
            None => settings.keep,
        };
        let max_age = match call.get_flag::<Value>("older-than")? {
            Some(Value::Duration { val, .. }) => {
                Duration::from_nanos(u64::try_from(val).unwrap_or(0))
            }
            _ => settings.max_age,
        };
        let removed = job_store(call.head)?.clean(keep, Some(max_age));
        let mut record = Record::new();
        record.push(
            "removed",
            Value::list(
                removed
                    .into_iter()
                    .map(|id| Value::int(id as i64, call.head))
                    .collect(),
                call.head,
            ),
        );
        Ok(Value::record(record, call.head))
    }
}
