//! Background jobs started through MCP: the same records as the plugin's
//! (`agent job list` in nu and `nu-agent job list` show them), each job in
//! a policy shell of its own that starts where the session stands, its
//! approvals asked of the user through the client like the session's.

use std::sync::{Arc, Mutex};

use agent_core::{
    jobs::{JobKind, JobManager, JobRecord, JobStore},
    policy::{PolicyShell, ShellOptions},
    shell::{Limits, SessionSeed},
};
use nu_plugin_agent::job_outcome;

use super::{
    Settings,
    approver::{ClientLink, McpApprover},
    json::to_json,
};

/// The jobs of one server process.
pub struct Jobs {
    manager: JobManager,
    /// The jobs this server started (listed as resources; cancelled when
    /// the server ends).
    started: Mutex<Vec<u64>>,
}

impl Jobs {
    /// The jobs in the state dir (shared with the plugin's).
    pub fn open(settings: &Settings) -> Result<Jobs, String> {
        let store = JobStore::in_state_dir().map_err(|e| e.to_string())?;
        Ok(Jobs {
            manager: JobManager::new(store, settings.jobs.max_running, Box::new(|_| {})),
            started: Mutex::new(Vec::new()),
        })
    }

    /// Start `pipeline` as a job from `seed`; returns its id.
    pub fn run(
        &self,
        pipeline: &str,
        seed: SessionSeed,
        settings: &Settings,
        link: Arc<ClientLink>,
    ) -> Result<u64, String> {
        let approver = Arc::new(McpApprover::new(link.clone()));
        let options = ShellOptions {
            layers: settings.layers,
            worker_exe: crate::common::worker_exe(),
            audit: PolicyShell::audit_log(&seed),
            client: Some(link.client.clone()),
            ..ShellOptions::default()
        };
        let mut shell = PolicyShell::new(settings.policy.clone(), seed, approver.clone(), options)
            .map_err(|d| d.rendered)?;
        let limits = Limits::default().with_max_output_bytes(settings.max_output);
        let source = pipeline.to_string();
        let id = self
            .manager
            .submit(
                JobKind::Run,
                pipeline,
                Box::new(move |job| {
                    approver.follow(&job.cancel);
                    let ran = shell.run(&source, &limits, &job.cancel);
                    job.log(match &ran.approved_by {
                        Some(by) => format!("ran `{source}` (approved by {by})"),
                        None => format!("did not run `{source}`"),
                    });
                    job_outcome(ran.outcome, None)
                }),
            )
            .map_err(|e| e.to_string())?;
        self.started
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(id);
        Ok(id)
    }

    /// Job `id`'s record.
    pub fn record(&self, id: u64) -> Option<JobRecord> {
        self.manager.record(id)
    }

    /// Job `id`'s value as JSON: `Ok(None)` while it has none.
    pub fn result(&self, id: u64) -> Result<Option<serde_json::Value>, String> {
        self.manager
            .store()
            .result(id)
            .map(|value| value.map(|v| to_json(&v)))
            .map_err(|e| e.to_string())
    }

    /// Cancel job `id`; `false` when this server does not run it.
    pub fn cancel(&self, id: u64) -> bool {
        self.manager.cancel(id)
    }

    /// The jobs this server started.
    pub fn started(&self) -> Vec<u64> {
        self.started
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Cancel what still runs, without waiting; the ids cancelled.
    pub fn cancel_live(&self) -> Vec<u64> {
        let live: Vec<u64> = self
            .started()
            .into_iter()
            .filter(|id| self.manager.is_live(*id))
            .collect();
        for id in &live {
            self.manager.cancel(*id);
        }
        live
    }

    /// Cancel what still runs (the server is ending: its jobs would be
    /// lost with it) and wait a moment for them to stop.
    pub fn cancel_all(&self) {
        let live = self.cancel_live();
        let interrupt = agent_core::shell::CancelToken::new();
        for id in live {
            self.manager
                .wait(id, Some(std::time::Duration::from_secs(5)), &interrupt);
        }
    }
}

/// A job's record as JSON: id, kind, status, title, times (ms since the
/// epoch), what it waits for and why it failed.
pub fn record_json(record: &JobRecord) -> serde_json::Value {
    serde_json::json!({
        "id": record.id,
        "kind": record.kind.as_str(),
        "status": record.status.as_str(),
        "title": record.title,
        "created": record.created,
        "started": record.started,
        "finished": record.finished,
        "waiting_for": record.waiting_for,
        "error": record.error,
    })
}
