//! The plugin's background jobs: one [`JobManager`] per plugin process,
//! the plugin kept alive (GC off) while any job runs, and the nu values
//! that `agent job` commands return.

use std::sync::{
    Arc, Mutex, OnceLock,
    atomic::{AtomicBool, Ordering},
};

use agent_core::{
    agent::{BackgroundRunner, HandedOver, JobDone, JobDoneFn, JobSettings},
    jobs::{
        JobApprover, JobKind, JobManager, JobOutcome, JobRecord, JobStatus, JobStore, JobWork,
        now_ms,
    },
    policy::{
        Approval, ApprovalRequest, Approver, DENIED_CODE, JOB_DENIED_HELP, JOB_NOT_APPROVED_HELP,
        NonInteractive, PolicyShell, ShellOptions,
    },
    shell::{Limits, Outcome, StopReason},
};
use nu_plugin::EngineInterface;
use nu_protocol::{LabeledError, Record, Span, Spanned, Value};

/// The jobs of this plugin process.
#[derive(Default)]
pub(crate) struct Background {
    manager: OnceLock<JobManager>,
    /// The engine of the latest `agent job` call, to turn the plugin's GC
    /// off while jobs run and on again after the last.
    engine: Arc<Mutex<Option<EngineInterface>>>,
    /// Something besides jobs needs this process to live (a model chosen
    /// with `agent model use`): the GC stays off when the last job ends.
    held: Arc<AtomicBool>,
}

impl Background {
    /// The manager (made on first use, with `settings`), remembering
    /// `engine` for the GC switch.
    pub(crate) fn manager(
        &self,
        engine: &EngineInterface,
        settings: &JobSettings,
        span: Span,
    ) -> Result<&JobManager, LabeledError> {
        if let Ok(mut slot) = self.engine.lock() {
            *slot = Some(engine.clone());
        }
        if let Some(manager) = self.manager.get() {
            return Ok(manager);
        }
        let store = job_store(span)?;
        let slot = self.engine.clone();
        let held = self.held.clone();
        let on_busy = Box::new(move |busy: bool| {
            if let Ok(slot) = slot.lock()
                && let Some(engine) = slot.as_ref()
            {
                // Without it the host stops an idle plugin, jobs and all.
                let _ = engine.set_gc_disabled(busy || held.load(Ordering::SeqCst));
            }
        });
        let manager = JobManager::new(store, settings.max_running, on_busy);
        // Keep the retention rules as jobs are added.
        let _ = manager.store().clean(settings.keep, Some(settings.max_age));
        Ok(self.manager.get_or_init(|| manager))
    }

    /// Keep this plugin process alive for as long as nu runs, jobs or not.
    pub(crate) fn hold(&self, engine: &EngineInterface) -> Result<(), LabeledError> {
        self.held.store(true, Ordering::SeqCst);
        Ok(engine.set_gc_disabled(true)?)
    }

    /// The manager, if this process has made one.
    pub(crate) fn running(&self) -> Option<&JobManager> {
        self.manager.get()
    }
}

/// Warn that job `id` ends with this nu when nu runs a script or `-c`
/// (it exits when the script does, and the plugin and its jobs with it).
pub(crate) fn warn_if_nu_exits_soon(id: u64) {
    if host_runs_a_script() {
        eprintln!(
            "warning: job {id} runs inside this nu, which runs a script or `nu -c` and stops when it ends: the job is lost then; `agent job wait {id}` waits for it"
        );
    }
}

/// Whether the nu that started this plugin runs a script or `-c` (read
/// from its command line; `false` where that cannot be read).
fn host_runs_a_script() -> bool {
    let parent = std::os::unix::process::parent_id();
    let Ok(cmdline) = std::fs::read(format!("/proc/{parent}/cmdline")) else {
        return false;
    };
    let args: Vec<String> = cmdline
        .split(|b| *b == 0)
        .filter(|a| !a.is_empty())
        .skip(1)
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    runs_a_script(&args)
}

/// nu's arguments run a script: `-c`/`--commands`, or a script file.
fn runs_a_script(args: &[String]) -> bool {
    // nu's flags that take a value (the value is not a script file).
    const WITH_VALUE: &[&str] = &[
        "--config",
        "--env-config",
        "--plugin-config",
        "-I",
        "--include-path",
        "--log-level",
        "--log-target",
        "--log-include",
        "--log-exclude",
        "--plugins",
        "--testbin",
        "-m",
        "--table-mode",
        "--error-style",
        "--experimental-options",
        "-e",
        "--execute",
    ];
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "-c" | "--commands" => return true,
            "--" => return args.next().is_some(),
            flag if flag.starts_with("--commands=") => return true,
            flag if WITH_VALUE.contains(&flag) => {
                args.next();
            }
            flag if flag.starts_with('-') => {}
            _script => return true,
        }
    }
    false
}

/// The job store in the state dir, or an error saying how to fix it.
pub(crate) fn job_store(span: Span) -> Result<JobStore, LabeledError> {
    JobStore::in_state_dir().map_err(|e| {
        LabeledError::new(format!("the job records are unavailable: {e}"))
            .with_code("nu_agent::job::store")
            .with_label("cannot open the jobs directory", span)
            .with_help("set NU_AGENT_STATE_DIR to a writable directory")
    })
}

/// The error when a job's record cannot be written (nothing started).
pub(crate) fn not_recorded(error: impl std::fmt::Display, span: Span) -> LabeledError {
    LabeledError::new(format!("the job could not be recorded: {error}"))
        .with_code("nu_agent::job::store")
        .with_label("not started", span)
        .with_help("set NU_AGENT_STATE_DIR to a writable directory")
}

/// Job `id`'s record, or an error pointing at the id.
pub(crate) fn find_job(store: &JobStore, id: &Spanned<i64>) -> Result<JobRecord, LabeledError> {
    u64::try_from(id.item)
        .ok()
        .and_then(|n| store.record(n))
        .ok_or_else(|| {
            LabeledError::new(format!("there is no job {}", id.item))
                .with_code("nu_agent::job::unknown")
                .with_label("unknown job id", id.span)
                .with_help("`agent job list` shows the jobs")
        })
}

/// A job as a nu record: id, kind, title, status, started, duration,
/// waiting_for, error.
pub(crate) fn record_value(record: &JobRecord, span: Span) -> Value {
    let mut row = Record::new();
    row.push("id", Value::int(record.id as i64, span));
    row.push("kind", Value::string(record.kind.as_str(), span));
    row.push("title", Value::string(&record.title, span));
    row.push("status", Value::string(record.status.as_str(), span));
    row.push(
        "started",
        record
            .started
            .and_then(|ms| date(ms, span))
            .unwrap_or_else(|| Value::nothing(span)),
    );
    row.push(
        "duration",
        record
            .duration_ms(now_ms())
            .map(|ms| Value::duration(ms as i64 * 1_000_000, span))
            .unwrap_or_else(|| Value::nothing(span)),
    );
    row.push(
        "waiting_for",
        record
            .waiting_for
            .as_ref()
            .map(|w| Value::string(w, span))
            .unwrap_or_else(|| Value::nothing(span)),
    );
    row.push(
        "error",
        record
            .error
            .as_ref()
            .map(|e| Value::string(e, span))
            .unwrap_or_else(|| Value::nothing(span)),
    );
    Value::record(row, span)
}

/// Milliseconds since the epoch as a nu date in local time.
pub(crate) fn date(ms: u64, span: Span) -> Option<Value> {
    let utc = chrono::DateTime::from_timestamp_millis(i64::try_from(ms).ok()?)?;
    Some(Value::date(
        utc.with_timezone(&chrono::Local).fixed_offset(),
        span,
    ))
}

/// An approver given its real approver once the job starts (the job's
/// approval queue does not exist before the job does).
#[derive(Default)]
pub(crate) struct LateApprover(OnceLock<Arc<dyn Approver>>);

impl LateApprover {
    pub(crate) fn set(&self, approver: Arc<dyn Approver>) {
        let _ = self.0.set(approver);
    }
}

impl Approver for LateApprover {
    fn approve(&self, request: &ApprovalRequest) -> Approval {
        match self.0.get() {
            Some(approver) => approver.approve(request),
            None => Approval::No,
        }
    }

    fn who(&self) -> String {
        self.0
            .get()
            .map_or_else(|| "nobody".into(), |approver| approver.who())
    }
}

/// The approver of a job: `--yes` / `--approve` decide in advance; without
/// them a step that asks waits for `agent job approve` (never a prompt).
pub(crate) fn job_approver(
    yes: bool,
    approve: Vec<String>,
) -> (Arc<dyn Approver>, Option<Arc<LateApprover>>) {
    if yes || !approve.is_empty() {
        (Arc::new(NonInteractive { yes, approve }), None)
    } else {
        let late = Arc::new(LateApprover::default());
        (late.clone(), Some(late))
    }
}

/// How a pipeline's outcome ends a job of this plugin: a step the user
/// denied says so; one nobody approved says how a job asks.
pub(crate) fn outcome_of_run(outcome: Outcome, approver: &JobApprover) -> JobOutcome {
    let help = if approver.was_denied() {
        JOB_DENIED_HELP
    } else {
        JOB_NOT_APPROVED_HELP
    };
    job_outcome(outcome, Some(help))
}

/// How a pipeline's outcome ends its job; `not_approved_help` is the hint
/// on a step nobody approved, where the front end has one.
pub fn job_outcome(outcome: Outcome, not_approved_help: Option<&str>) -> JobOutcome {
    let (status, error) = match (&outcome.error, &outcome.stopped) {
        (_, Some(StopReason::Cancelled)) => (JobStatus::Cancelled, Some("cancelled".into())),
        (_, Some(StopReason::TimedOut(limit))) => (
            JobStatus::TimedOut,
            Some(format!("stopped after {}", humantime(*limit))),
        ),
        (Some(error), _)
            if error.code.as_deref() == Some(DENIED_CODE) && not_approved_help.is_some() =>
        {
            let mut error = error.clone();
            error.help = not_approved_help.map(str::to_string);
            (JobStatus::Failed, Some(error.summary()))
        }
        (Some(error), _) => (JobStatus::Failed, Some(error.summary())),
        (None, _) => match outcome.exit_code.filter(|c| *c != 0) {
            Some(code) => (
                JobStatus::Failed,
                Some(format!("the external command exited with code {code}")),
            ),
            None => (JobStatus::Completed, None),
        },
    };
    JobOutcome {
        status,
        value: Some(outcome.value),
        error,
    }
}

fn humantime(duration: std::time::Duration) -> String {
    format!("{:.1} s", duration.as_secs_f64())
}

/// Runs the background steps of an `ask` as jobs of this plugin: each in
/// a policy shell of its own (its own sandbox worker) under the caller's
/// policy, waiting for `agent job approve` where a step asks.
pub struct AskJobs {
    pub manager: JobManager,
    pub policy: agent_core::policy::Policy,
    pub seed: agent_core::shell::SessionSeed,
    pub max_output: usize,
    /// The sandbox worker binary (the plugin or the CLI itself).
    pub worker_exe: Option<std::path::PathBuf>,
    /// Answers the jobs' approval requests at once (runs nobody watches,
    /// such as `nu-agent eval`); `None`: a job waits for `agent job
    /// approve`.
    pub approver: Option<Arc<dyn Approver>>,
    /// The directory of the audit log the jobs write; `None`: the state
    /// dir's.
    pub audit_dir: Option<std::path::PathBuf>,
}

impl AskJobs {
    fn submit(&self, pipeline: &str, work: JobWork) -> Result<u64, String> {
        self.manager
            .submit(JobKind::Run, pipeline, work)
            .map_err(|e| e.to_string())
    }
}

/// Tell `done` how the job ended; returns the outcome for the manager.
fn report(id: u64, pipeline: &str, outcome: JobOutcome, done: JobDoneFn) -> JobOutcome {
    done(JobDone {
        id,
        pipeline: pipeline.to_string(),
        status: outcome.status,
        value: outcome.value.clone(),
        error: outcome.error.clone(),
    });
    outcome
}

impl BackgroundRunner for AskJobs {
    fn start(&self, pipeline: &str, done: JobDoneFn) -> Result<u64, String> {
        let late = Arc::new(LateApprover::default());
        let audit = match &self.audit_dir {
            Some(dir) => agent_core::store::AuditLog::open(dir).ok(),
            None => PolicyShell::audit_log(&self.seed),
        };
        let options = ShellOptions {
            worker_exe: self.worker_exe.clone(),
            audit,
            ..ShellOptions::default()
        };
        let fixed = self.approver.clone();
        let mut shell = PolicyShell::new(
            self.policy.clone(),
            self.seed.clone(),
            late.clone(),
            options,
        )
        .map_err(|d| d.message)?;
        let limits = Limits::default().with_max_output_bytes(self.max_output);
        let source = pipeline.to_string();
        self.submit(
            pipeline,
            Box::new(move |job| {
                late.set(fixed.unwrap_or_else(|| job.approver.clone() as Arc<dyn Approver>));
                let ran = shell.run(&source, &limits, &job.cancel);
                report(
                    job.id,
                    &source,
                    outcome_of_run(ran.outcome, &job.approver),
                    done,
                )
            }),
        )
    }

    fn adopt(&self, pipeline: &str, step: HandedOver, done: JobDoneFn) -> Result<u64, String> {
        let source = pipeline.to_string();
        let fixed = self.approver.clone();
        self.submit(
            pipeline,
            Box::new(move |job| {
                let approver = fixed.unwrap_or_else(|| job.approver.clone() as Arc<dyn Approver>);
                let outcome = step(&job.cancel, approver.as_ref());
                report(
                    job.id,
                    &source,
                    outcome_of_run(outcome, &job.approver),
                    done,
                )
            }),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::runs_a_script;

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn a_script_or_commands_is_told_from_a_repl() {
        assert!(runs_a_script(&args("--no-config-file -c ls")));
        assert!(runs_a_script(&args("--commands ls")));
        assert!(runs_a_script(&args("script.nu")));
        assert!(runs_a_script(&args("--config c.nu script.nu arg")));
        assert!(!runs_a_script(&args("")));
        assert!(!runs_a_script(&args("--no-config-file")));
        assert!(!runs_a_script(&args(
            "--config c.nu --plugin-config p.msgpackz"
        )));
        assert!(!runs_a_script(&args("-e ls")));
    }
}
