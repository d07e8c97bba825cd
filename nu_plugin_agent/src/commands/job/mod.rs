//! `agent job`: background jobs, one command per file.

mod approve;
mod cancel;
mod clean;
mod deny;
mod list;
mod logs;
mod result;
mod run;
mod spawn;
mod status;
mod wait;

use nu_plugin::{EngineInterface, EvaluatedCall, SimplePluginCommand};
use nu_protocol::{Category, Example, LabeledError, Signature, Type, Value};

use crate::AgentPlugin;

pub use approve::AgentJobApprove;
pub use cancel::AgentJobCancel;
pub use clean::AgentJobClean;
pub use deny::AgentJobDeny;
pub use list::AgentJobList;
pub use logs::AgentJobLogs;
pub use result::AgentJobResult;
pub use run::AgentJobRun;
pub use spawn::AgentJobSpawn;
pub use status::AgentJobStatus;
pub use wait::AgentJobWait;

/// Where the records live, for the help texts.
pub(crate) const WHERE: &str = "Job records (events.jsonl) and results (result.json) live in the state dir, under jobs/<id>/ ($NU_AGENT_STATE_DIR, else $XDG_STATE_HOME/nu-agent, else ~/.local/state/nu-agent). Jobs run in this plugin process: they end with `plugin stop agent` or when nu exits, and then show as `lost`.";

/// `agent job` alone prints the job commands.
pub struct AgentJob;

impl SimplePluginCommand for AgentJob {
    type Plugin = AgentPlugin;

    fn name(&self) -> &str {
        "agent job"
    }

    fn signature(&self) -> Signature {
        Signature::build(self.name())
            .input_output_type(Type::Nothing, Type::String)
            .category(Category::Misc)
    }

    fn description(&self) -> &str {
        "Background jobs: long pipelines and agent tasks that never block the prompt."
    }

    fn extra_description(&self) -> &str {
        "A job runs under your policy and the OS sandbox exactly as a foreground step does; it never prompts: a step that needs approval waits (status `waiting`) until `agent job approve` or `agent job deny`. Statuses: queued, running, waiting, completed, failed, timed_out, cancelled, lost. At most agent.jobs.max_running (4) run at once; the rest are queued."
    }

    fn examples(&self) -> Vec<Example<'_>> {
        vec![Example {
            example: r#"let id = (agent job run "sleep 2sec; 42"); agent job wait $id; agent job result $id"#,
            description: "Run a pipeline in the background and collect its value",
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
        Ok(Value::string(engine.get_help()?, call.head))
    }
}

/// Answer the approval job `id` waits for; returns its record.
fn answer(
    plugin: &AgentPlugin,
    id: &nu_protocol::Spanned<i64>,
    approval: agent_core::policy::Approval,
    head: nu_protocol::Span,
) -> Result<Value, LabeledError> {
    let store = crate::background::job_store(head)?;
    let record = crate::background::find_job(&store, id)?;
    let answered = match plugin.background.running() {
        Some(manager) => manager.answer(record.id, approval),
        None => Err(format!("job {} is not running in this plugin", record.id)),
    };
    answered.map_err(|why| {
        LabeledError::new(why)
            .with_code("nu_agent::job::not_waiting")
            .with_label(format!("job is {}", record.status.as_str()), id.span)
            .with_help("`agent job list | where status == waiting` shows the jobs that wait")
    })?;
    let record = store.record(record.id).unwrap_or(record);
    Ok(crate::background::record_value(&record, head))
}
