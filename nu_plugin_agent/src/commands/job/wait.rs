//! `agent job wait`: block until a job has finished.

use std::time::{Duration, Instant};

use agent_core::shell::CancelToken;
use nu_plugin::{EngineInterface, EvaluatedCall, SimplePluginCommand};
use nu_protocol::{Category, Example, LabeledError, Signature, Spanned, SyntaxShape, Type, Value};

use crate::{
    AgentPlugin,
    background::{find_job, job_store, record_value},
    conversation::cancel_on_interrupt,
};

/// How often a job of another process is looked at.
const POLL: Duration = Duration::from_millis(100);

pub struct AgentJobWait;

impl SimplePluginCommand for AgentJobWait {
    type Plugin = AgentPlugin;

    fn name(&self) -> &str {
        "agent job wait"
    }

    fn signature(&self) -> Signature {
        Signature::build(self.name())
            .input_output_type(Type::Nothing, Type::record())
            .required(
                "id",
                SyntaxShape::Int,
                "The job's id (see `agent job list`).",
            )
            .named(
                "timeout",
                SyntaxShape::Duration,
                "Give up waiting after this long (the job goes on).",
                Some('t'),
            )
            .category(Category::Misc)
    }

    fn description(&self) -> &str {
        "Wait until a background job has finished (or --timeout passed); returns its record. Ctrl+C stops the waiting, not the job."
    }

    fn examples(&self) -> Vec<Example<'_>> {
        vec![Example {
            example: "agent job wait 3 --timeout 1min",
            description: "Wait up to a minute for job 3",
            result: None,
        }]
    }

    fn run(
        &self,
        plugin: &AgentPlugin,
        engine: &EngineInterface,
        call: &EvaluatedCall,
        _input: &Value,
    ) -> Result<Value, LabeledError> {
        let id: Spanned<i64> = call.req(0)?;
        let timeout = match call.get_flag::<Value>("timeout")? {
            Some(Value::Duration {
                val, internal_span, ..
            }) => Some(u64::try_from(val).map(Duration::from_nanos).map_err(|_| {
                LabeledError::new("the timeout must be positive")
                    .with_label("negative duration", internal_span)
            })?),
            _ => None,
        };
        let store = job_store(call.head)?;
        let record = find_job(&store, &id)?;
        let (interrupt, _guard) = cancel_on_interrupt(engine)?;
        let record = match plugin.background.running() {
            Some(manager) if manager.is_live(record.id) => manager
                .wait(record.id, timeout, &interrupt)
                .unwrap_or(record),
            _ => poll(&store, record, timeout, &interrupt),
        };
        Ok(record_value(&record, call.head))
    }
}

/// Follow a job through the store (another process runs it, or it is
/// over already).
fn poll(
    store: &agent_core::jobs::JobStore,
    mut record: agent_core::jobs::JobRecord,
    timeout: Option<Duration>,
    interrupt: &CancelToken,
) -> agent_core::jobs::JobRecord {
    let started = Instant::now();
    while !record.status.is_finished()
        && !interrupt.is_cancelled()
        && timeout.is_none_or(|t| started.elapsed() < t)
    {
        std::thread::sleep(POLL);
        match store.record(record.id) {
            Some(now) => record = now,
            None => break,
        }
    }
    record
}
