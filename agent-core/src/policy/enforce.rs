//! The policy shell: a session whose every pipeline goes through all the
//! layers — the static check (and the user's hook), one approval for the
//! whole pipeline, runtime guards, and the OS sandbox worker.

use std::{
    path::PathBuf,
    sync::{Arc, OnceLock},
    time::Duration,
};

use nu_protocol::{Span, Value};
use serde::{Deserialize, Serialize};

use super::{
    AlwaysAllowed, Approval, ApprovalRequest, Approver, Decision, GuardEvent, Guardrails,
    PathFacts, Plan, Policy, Row, SESSION_RULE, Step, UserDirs, Verdict, asked_when_it_runs,
    guarded_engine, label, plan_in,
    sandbox::{self, SandboxMode, SandboxSpec},
};
use crate::{
    shell::{CancelToken, Diagnostic, Engine, Limits, Outcome, Session, SessionSeed},
    store::audit::{AuditEvent, AuditLog, AuditRecord},
};

/// The hint when the read-only sandbox refused a write.
const READ_ONLY_SANDBOX_HELP: &str = "the read-only sandbox refused the write, approved or not; to let runs write beneath the current directory, use --sandbox workspace-write (or policy.sandbox: workspace-write)";

/// A write the read-only sandbox refused fails with a bare "Permission
/// denied" (from a builtin, or on an external's stderr): say why, and how
/// to widen the sandbox.
fn explain_read_only_refusal(outcome: &mut Outcome) {
    const DENIED: &str = "Permission denied";
    if let Some(error) = &mut outcome.error {
        if error.rendered.contains(DENIED) && error.help.is_none() {
            error.help = Some(READ_ONLY_SANDBOX_HELP.into());
            error
                .rendered
                .push_str(&format!("\n  help: {READ_ONLY_SANDBOX_HELP}"));
        }
        return;
    }
    let stderr_denied =
        matches!(&outcome.stderr, Some(Value::String { val, .. }) if val.contains(DENIED));
    if stderr_denied && outcome.exit_code.is_some_and(|code| code != 0) {
        outcome.error = Some(Diagnostic::plain(
            "nu_agent::policy::sandbox",
            "the external command was refused a write (Permission denied)",
            Some(READ_ONLY_SANDBOX_HELP.into()),
        ));
    }
}

/// Which enforcement layers are on. All of them, except in the tests that
/// show each layer catches what the others would.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Layers {
    /// The static plan and verdict before anything runs.
    pub static_check: bool,
    /// Guards on the side-effecting builtins and `run-external`.
    pub guards: bool,
    /// The Landlock + seccomp worker process.
    pub sandbox: bool,
}

impl Default for Layers {
    fn default() -> Layers {
        Layers {
            static_check: true,
            guards: true,
            sandbox: true,
        }
    }
}

impl Layers {
    /// All layers but the named one (`static`, `guards` or `sandbox`).
    pub fn without(layer: &str) -> Option<Layers> {
        let mut layers = Layers::default();
        match layer {
            "static" => layers.static_check = false,
            "guards" => layers.guards = false,
            "sandbox" => layers.sandbox = false,
            _ => return None,
        }
        Some(layers)
    }
}

/// The user's own judge (`policy.hook`): sees the checked plan and may
/// raise its verdict; `allow` approves a confirmation; it never lowers a
/// block.
pub trait PolicyHook: Send + Sync {
    /// The hook's verdict on `decision` of `pipeline`, or an error message.
    fn judge(&self, pipeline: &str, decision: &Decision) -> Result<Verdict, String>;
}

/// What happened to one pipeline.
#[derive(Debug)]
pub struct Ran {
    pub decision: Decision,
    pub outcome: Outcome,
    /// Who let it run (`policy`, `user`, `hook`, `--yes`...), `None` if it
    /// did not run.
    pub approved_by: Option<String>,
    /// The pipeline that ran (an approver may have edited it).
    pub pipeline: String,
    /// Runtime guard decisions taken during the run (in-process runs).
    pub guard_events: Vec<GuardEvent>,
    /// Something the model and the user must know about the session
    /// (it was restarted and lost its variables).
    pub notice: Option<String>,
}

/// What the sandbox worker needs to build the same guarded engine.
#[derive(Serialize, Deserialize)]
struct WorkerPolicy {
    policy: Policy,
    guards: bool,
    sandbox_enforced: bool,
    trusted_path: Vec<PathBuf>,
    writable: Vec<PathBuf>,
    /// The binary that starts each external under its own sandbox.
    #[serde(default)]
    launcher: Option<PathBuf>,
    /// The session's starting values of configuration-redirecting
    /// variables (see [`Guardrails::remember_env`]).
    #[serde(default)]
    start_env: Vec<(String, String)>,
}

/// What one run in the worker was approved for.
#[derive(Default, Serialize, Deserialize)]
struct RunPolicy {
    approved: Vec<Step>,
}

/// Builds the worker's engine from what [`PolicyShell`] sent: the binaries
/// pass this to [`sandbox::worker_main`]. Before each run the guards learn
/// the pipeline and the steps the user approved for it.
pub fn worker_engine(
    json: &serde_json::Value,
    approver: Arc<dyn Approver>,
) -> Result<sandbox::WorkerEngine, String> {
    let request: WorkerPolicy =
        serde_json::from_value(json.clone()).map_err(|e| format!("bad worker policy: {e}"))?;
    let trash = request.policy.trash;
    if !request.guards {
        return Ok(sandbox::WorkerEngine {
            engine: Engine::standard().clone().with_trash(trash),
            before_run: Box::new(|_, _| {}),
        });
    }
    let cwd = std::env::current_dir().map_err(|e| format!("no working directory: {e}"))?;
    let facts = PathFacts::for_user(cwd, &request.writable, &request.policy.protect);
    let rails = Guardrails::new(
        request.policy,
        facts,
        request.sandbox_enforced,
        approver,
        request.trusted_path,
        AlwaysAllowed::default(),
    );
    rails.use_launcher(request.launcher);
    rails.remember_env(request.start_env);
    let engine = guarded_engine(rails.clone()).with_trash(trash);
    Ok(sandbox::WorkerEngine {
        engine,
        before_run: Box::new(move |pipeline, json| {
            let run: RunPolicy = serde_json::from_value(json.clone()).unwrap_or_default();
            rails.begin_run(pipeline, &run.approved);
        }),
    })
}

/// A session under the user's policy.
pub struct PolicyShell {
    policy: Policy,
    layers: Layers,
    approver: Arc<dyn Approver>,
    hook: Option<Box<dyn PolicyHook>>,
    seed: SessionSeed,
    worker_exe: Option<PathBuf>,
    rails: Arc<Guardrails>,
    session: Session,
    trusted_path: Vec<PathBuf>,
    audit: Option<AuditLog>,
    /// Names this session in the audit log.
    session_id: String,
    /// Names the program that sends the pipelines, in the audit log.
    client: Option<String>,
    /// The values of the runs made in sandbox workers: `$out` lives in
    /// the worker; this copy serves `out()` and a worker that replaces
    /// one that is gone.
    worker_outs: Vec<Value>,
    /// The next run's input (`$in`), if it has one.
    input: Option<Value>,
    /// The engine the planning session was built on (to start it over).
    engine: Engine,
    /// The conversation's sandbox worker and the sandbox it runs under.
    worker: Option<(sandbox::SessionWorker, SandboxSpec)>,
    /// Start a fresh worker for every step (the behaviour before workers
    /// lived as long as the conversation; kept for the benchmark).
    worker_per_step: bool,
    /// While a step may be promoted: how long it runs in the foreground.
    promote_after: Option<Duration>,
    /// The step last moved to the background, until it is taken.
    promoted: Option<PromotedStep>,
    /// The session's worker went to a promoted step: the next step starts
    /// a new one, with the restart notice.
    session_lost: bool,
    /// The programs on the session's PATH, listed when first asked.
    programs: OnceLock<Arc<[String]>>,
}

/// A step that ran past its foreground time and goes on in the worker
/// that ran it (no longer the conversation's): finish it as a job.
pub struct PromotedStep {
    worker: sandbox::SessionWorker,
    run: sandbox::WorkerRun,
    started: std::time::Instant,
}

impl PromotedStep {
    /// Follow the step to its end, with the job's cancel token and
    /// approver; the worker ends with it.
    pub fn finish(mut self, cancel: &CancelToken, approver: &dyn Approver) -> Outcome {
        self.worker
            .resume(&self.run, self.started, cancel, approver)
    }
}

/// What [`PolicyShell::run_or_promote`] gave.
pub enum Foreground {
    Ran(Ran),
    /// Still running after the time given: `ran` says how it was decided
    /// and approved (its outcome is empty); the step goes on in `step`.
    Promoted {
        ran: Ran,
        step: Box<PromotedStep>,
    },
}

/// How the sandbox worker of a conversation stands (tests, benchmarks).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkerInfo {
    pub pid: u32,
    /// Runs it has answered.
    pub runs: usize,
    /// Bytes sent to it so far.
    pub bytes_sent: u64,
}

/// How long a conversation's worker waits for its next step before it
/// exits (the next step starts a new one, with a notice).
const WORKER_IDLE: Duration = Duration::from_secs(30 * 60);

/// How to set up a [`PolicyShell`].
#[derive(Default)]
pub struct ShellOptions {
    pub layers: Layers,
    /// The binary to re-execute as the sandbox worker (the plugin or the
    /// CLI itself). Without one, sandboxed modes fall back to in-process
    /// evaluation and every write asks.
    pub worker_exe: Option<PathBuf>,
    pub hook: Option<Box<dyn PolicyHook>>,
    /// Where decisions and runs are logged (see [`PolicyShell::audit_log`]).
    pub audit: Option<AuditLog>,
    /// A fresh sandbox worker for every step instead of one for the
    /// conversation (nothing but `$out` and the directory carries over).
    pub worker_per_step: bool,
    /// The commands answered "always", shared with other shells given the
    /// same set (default: this shell's own).
    pub always: AlwaysAllowed,
    /// The program that sends the pipelines (an MCP client's name), written
    /// with every audit record.
    pub client: Option<String>,
}

impl PolicyShell {
    /// A policy shell in `seed.cwd`.
    pub fn new(
        policy: Policy,
        mut seed: SessionSeed,
        approver: Arc<dyn Approver>,
        options: ShellOptions,
    ) -> Result<PolicyShell, Diagnostic> {
        seed.filter.extra_allow.extend(policy.env.iter().cloned());
        let trusted_path = seed_path(&seed);
        let sandboxed = options.layers.sandbox
            && policy.sandbox != SandboxMode::Off
            && options.worker_exe.is_some()
            && sandbox::probe().can_sandbox();
        let facts = facts_in(&policy, &seed.cwd, &UserDirs::of_env(&seed.env));
        let rails = Guardrails::new(
            policy.clone(),
            facts,
            sandboxed,
            approver.clone(),
            trusted_path.clone(),
            options.always.clone(),
        );
        if options.layers.sandbox {
            rails.use_launcher(options.worker_exe.clone());
        }
        rails.remember_env(
            seed.env
                .iter()
                .filter_map(|(k, v)| Some((k.clone(), v.coerce_string().ok()?))),
        );
        let engine = if options.layers.guards {
            guarded_engine(rails.clone())
        } else {
            Engine::standard().clone()
        }
        .with_trash(policy.trash);
        let session = Session::new(&engine, seed.clone())?;
        Ok(PolicyShell {
            policy,
            layers: options.layers,
            approver,
            hook: options.hook,
            seed,
            worker_exe: options.worker_exe,
            rails,
            session,
            trusted_path,
            audit: options.audit,
            session_id: format!(
                "{}-{}",
                std::process::id(),
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_millis())
                    .unwrap_or(0)
            ),
            client: options.client,
            worker_outs: Vec::new(),
            input: None,
            engine,
            worker: None,
            worker_per_step: options.worker_per_step,
            promote_after: None,
            promoted: None,
            session_lost: false,
            programs: OnceLock::new(),
        })
    }

    /// The audit log in the agent's state dir, redacting the values of the
    /// caller's secret-looking variables; the error says why it cannot be
    /// opened.
    pub fn open_audit(seed: &SessionSeed) -> Result<AuditLog, String> {
        let dir = crate::store::state_dir().map_err(|e| e.to_string())?;
        let secrets = seed
            .env
            .iter()
            .filter_map(|(k, v)| Some((k.clone(), v.as_str().ok()?.to_string())));
        let redactor = crate::redact::Redactor::from_env(secrets);
        AuditLog::open(&dir)
            .map(|log| log.with_redactor(redactor))
            .map_err(|e| e.to_string())
    }

    /// The audit log every front end runs with (`nu-agent run` and `ask`,
    /// the plugin's `agent run` and `ask`): [`PolicyShell::open_audit`], or
    /// none when it cannot be opened, with the reason on stderr (a missing
    /// log never stops the agent).
    pub fn audit_log(seed: &SessionSeed) -> Option<AuditLog> {
        PolicyShell::open_audit(seed)
            .map_err(|e| eprintln!("nu-agent: no audit log ({e})"))
            .ok()
    }

    /// Append `record` to the audit log, if there is one. A failed write is
    /// reported on stderr; it never stops the agent.
    fn audit(&self, mut record: AuditRecord) {
        if let Some(log) = &self.audit {
            record.session = Some(self.session_id.clone());
            record.client.clone_from(&self.client);
            if let Err(err) = log.append(&record) {
                eprintln!("nu-agent: cannot write the audit log: {err}");
            }
        }
    }

    fn audit_decision(&self, pipeline: &str, decision: &Decision) {
        let deciding = decision.deciding_rows().next();
        self.audit(AuditRecord {
            plan: serde_json::to_value(&decision.rows).unwrap_or_default(),
            verdict: Some(decision.verdict.as_str().into()),
            rule: deciding.map(|r| r.rule.clone()),
            ..AuditRecord::new(AuditEvent::Decision, pipeline)
        });
    }

    fn audit_ran(&self, ran: &Ran) {
        let events: Vec<serde_json::Value> = ran
            .guard_events
            .iter()
            .map(|e| {
                serde_json::json!({
                    "command": e.row.command,
                    "verdict": e.row.verdict,
                    "reason": e.row.reason,
                    "rule": e.row.rule,
                    "approved_by": e.approved_by,
                })
            })
            .collect();
        self.audit(AuditRecord {
            plan: serde_json::Value::Array(events),
            verdict: Some(
                if ran.approved_by.is_some() {
                    "ran"
                } else {
                    "not run"
                }
                .into(),
            ),
            approved_by: ran.approved_by.clone(),
            exit_code: ran.outcome.exit_code,
            error: ran.outcome.error.as_ref().map(|d| d.summary()),
            duration_ms: u64::try_from(ran.outcome.duration.as_millis()).ok(),
            ..AuditRecord::new(AuditEvent::Execution, &ran.pipeline)
        });
    }

    /// The in-process session (also renders values for the front ends).
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// Give the next [`PolicyShell::run`] `input` as its pipeline input
    /// (`$in`); a run that is refused drops it.
    pub fn set_input(&mut self, input: Value) {
        self.input = Some(input);
    }

    /// The full value of run `index` (`$out.N`): only pipelines that ran
    /// are numbered.
    pub fn out(&self, index: usize) -> Option<Value> {
        if self.sandboxed() {
            self.worker_outs.get(index).cloned()
        } else {
            self.session.out(index)
        }
    }

    /// Take `value` (made elsewhere: a background job) as the next
    /// `$out.N`; returns N.
    pub fn adopt_out(&mut self, value: Value) -> usize {
        if self.sandboxed() {
            if let Some((worker, _)) = self.worker.as_mut() {
                worker.add_out(&value);
            }
            self.worker_outs.push(value);
            self.worker_outs.len() - 1
        } else {
            self.session.push_out(value);
            self.session.runs() - 1
        }
    }

    /// Where the session started (its directory now) and the caller's
    /// environment: what another shell for the same caller starts from.
    pub fn seed(&self) -> SessionSeed {
        SessionSeed {
            cwd: self.cwd(),
            ..self.seed.clone()
        }
    }

    /// The conversation's sandbox worker, while there is one.
    pub fn worker_info(&self) -> Option<WorkerInfo> {
        self.worker.as_ref().map(|(worker, _)| WorkerInfo {
            pid: worker.pid(),
            runs: worker.runs(),
            bytes_sent: worker.bytes_sent(),
        })
    }

    /// True when pipelines run in the Landlock + seccomp worker.
    pub fn sandboxed(&self) -> bool {
        self.rails.sandbox_enforced()
    }

    /// Whether [`PolicyShell::read_aside`] keeps what a step has: where
    /// steps run in the sandboxed worker, each program run aside must get
    /// a sandbox of its own (the per-program launcher), since the aside
    /// session is in-process.
    pub fn reads_aside_sandboxed_as_steps(&self) -> bool {
        !self.sandboxed() || self.rails.launcher().is_some()
    }

    /// The session's current directory.
    pub fn cwd(&self) -> PathBuf {
        if self.sandboxed() {
            self.seed.cwd.clone()
        } else {
            self.session.cwd()
        }
    }

    /// True when `program` is a file an external call would run: a path
    /// to an executable, or a name found in a directory of the session's
    /// PATH.
    pub fn finds_program(&self, program: &str) -> bool {
        let executable = |path: &std::path::Path| {
            use std::os::unix::fs::PermissionsExt;
            path.metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        };
        if program.contains('/') {
            let path = std::path::Path::new(program);
            return executable(&if path.is_absolute() {
                path.to_path_buf()
            } else {
                self.cwd().join(path)
            });
        }
        !program.is_empty()
            && self
                .trusted_path
                .iter()
                .any(|dir| executable(&dir.join(program)))
    }

    /// The engine's error for the first program, named without a path,
    /// that a step the policy would ask about calls and that is not on
    /// PATH (`lss -la`): asking about a step that can only fail is no use.
    fn program_not_found(
        &self,
        pipeline: &str,
        plan: &Plan,
        decision: &Decision,
    ) -> Option<Diagnostic> {
        let asked = plan
            .steps
            .iter()
            .zip(&decision.rows)
            .filter(|(_, row)| row.verdict == Verdict::Confirm)
            .map(|(step, _)| step);
        let unknown = super::unknown_programs(asked, |program| self.finds_program(program));
        // A path is left to run: an earlier statement may make it
        // (`save run.sh; chmod +x run.sh; ^./run.sh`), and a wrapper's
        // argument taken for its program (`sudo -S out.txt`) is one.
        let name = unknown.iter().find(|name| !name.contains('/'))?;
        Some(super::not_found(
            self.session.engine_state(),
            &self.cwd(),
            name,
            pipeline,
        ))
    }

    /// The names of the programs on the session's PATH (listed once: a
    /// program installed during the conversation is not among them).
    pub fn programs(&self) -> Arc<[String]> {
        self.programs
            .get_or_init(|| programs_in(&self.trusted_path).into())
            .clone()
    }

    /// The static layer alone: plan and verdict, nothing runs.
    pub fn check(&self, pipeline: &str) -> (Option<super::Plan>, Decision) {
        let facts = facts_in(&self.policy, &self.cwd(), &UserDirs::of_env(&self.seed.env));
        match plan_in(self.session.engine_state(), pipeline, &self.cwd()) {
            Ok(plan) => {
                let decision = self.rails.with_judge(&facts, |judge| judge.decide(&plan));
                (Some(plan), decision)
            }
            Err(diagnostic) => (None, Decision::refused(diagnostic.summary())),
        }
    }

    /// Run `pipeline` aside from the conversation: in a fresh session of
    /// this shell's engine (its runtime guards included) in the same
    /// directory, only when the policy allows it without a question,
    /// audited like a step; its value takes no `$out` number. For reads the
    /// loop makes itself (the files a request names) and, with the
    /// `try-reads` lever, a model's script tried before it is a step — only
    /// where the policy judged it a read (each program then in the
    /// per-program sandbox a read gets, where the machine has one). `None`
    /// when it was not allowed or failed.
    pub fn read_aside(
        &self,
        pipeline: &str,
        limits: &Limits,
        cancel: &CancelToken,
    ) -> Option<Value> {
        let (_, decision) = self.check(pipeline);
        if decision.verdict != Verdict::Allow {
            return None;
        }
        let mut session = Session::new(&self.engine, self.seed()).ok()?;
        let outcome = session.run_cancellable(pipeline, limits, cancel);
        self.audit(AuditRecord {
            verdict: Some("ran".into()),
            approved_by: Some("policy".into()),
            exit_code: outcome.exit_code,
            error: outcome.error.as_ref().map(|d| d.summary()),
            duration_ms: u64::try_from(outcome.duration.as_millis()).ok(),
            ..AuditRecord::new(AuditEvent::Execution, pipeline)
        });
        (outcome.error.is_none() && outcome.stopped.is_none()).then_some(outcome.value)
    }

    /// Check, ask once if needed, and run `pipeline`.
    pub fn run(&mut self, pipeline: &str, limits: &Limits, cancel: &CancelToken) -> Ran {
        let ran = self.run_inner(pipeline, limits, cancel, 0);
        // Input a refused run did not take is not the next run's.
        self.input = None;
        self.audit_ran(&ran);
        ran
    }

    /// As [`PolicyShell::run`], but a step still running after
    /// `promote_after` is left running and handed back to be finished as
    /// a background job (sandboxed conversations only; elsewhere it runs
    /// to its end). The conversation's next step gets a new worker.
    pub fn run_or_promote(
        &mut self,
        pipeline: &str,
        limits: &Limits,
        cancel: &CancelToken,
        promote_after: Duration,
    ) -> Foreground {
        self.promote_after = Some(promote_after);
        let ran = self.run_inner(pipeline, limits, cancel, 0);
        self.promote_after = None;
        match self.promoted.take() {
            Some(step) => Foreground::Promoted {
                ran,
                step: Box::new(step),
            },
            None => {
                self.audit_ran(&ran);
                Foreground::Ran(ran)
            }
        }
    }

    fn run_inner(
        &mut self,
        pipeline: &str,
        limits: &Limits,
        cancel: &CancelToken,
        edits: usize,
    ) -> Ran {
        let (plan, mut decision) = self.check(pipeline);
        if decision.verdict == Verdict::Refuse {
            let diagnostic = match plan_in(self.session.engine_state(), pipeline, &self.cwd()) {
                Err(diagnostic) => diagnostic,
                Ok(_) => Diagnostic::plain(
                    "nu_agent::policy::refused",
                    "the pipeline was refused",
                    None,
                ),
            };
            self.audit_decision(pipeline, &decision);
            return self.not_run(pipeline, decision, diagnostic);
        }
        let plan = plan.unwrap_or_default();
        self.audit_decision(pipeline, &decision);
        if !self.layers.static_check {
            // Only the runtime layers decide (tests of the other layers).
            decision.verdict = Verdict::Allow;
        }
        if decision.verdict == Verdict::Confirm
            && let Some(diagnostic) = self.program_not_found(pipeline, &plan, &decision)
        {
            // It could only fail: an error, not a question.
            return self.not_run(pipeline, decision, diagnostic);
        }
        if let Some(hook) = &self.hook {
            match hook.judge(pipeline, &decision) {
                Ok(verdict) if verdict > decision.verdict => {
                    decision.verdict = verdict;
                    decision
                        .rows
                        .push(hook_row(verdict, "your policy hook raised the verdict"));
                }
                Ok(Verdict::Allow) if decision.verdict == Verdict::Confirm => {
                    decision.verdict = Verdict::Allow;
                    decision
                        .rows
                        .push(hook_row(Verdict::Allow, "your policy hook approved it"));
                }
                Ok(_) => {}
                Err(message) => {
                    let diagnostic = Diagnostic::plain(
                        "nu_agent::policy::hook",
                        format!("the policy hook failed: {message}"),
                        Some("fix `hook` in $env.config.plugins.agent.policy".into()),
                    );
                    return self.not_run(pipeline, decision, diagnostic);
                }
            }
        }
        let mut approved_by = Some("policy".to_string());
        let mut approved_steps = Vec::new();
        let confirm_steps = |decision: &Decision| -> Vec<Step> {
            plan.steps
                .iter()
                .zip(&decision.rows)
                .filter(|(_, r)| r.verdict == Verdict::Confirm)
                .map(|(s, _)| s.clone())
                .collect()
        };
        if decision
            .rows
            .last()
            .is_some_and(|r| r.rule == "policy.hook" && r.verdict == Verdict::Allow)
        {
            // The hook approved the confirmations: the guards must not ask again.
            approved_by = Some("hook".into());
            approved_steps = confirm_steps(&decision);
        }
        match decision.verdict {
            Verdict::Allow => {}
            Verdict::Block | Verdict::Refuse => {
                let reasons: Vec<String> = decision
                    .deciding_rows()
                    .map(|r| {
                        if r.command.is_empty() {
                            r.reason.clone()
                        } else {
                            format!("{}: {}", r.command, r.reason)
                        }
                    })
                    .collect();
                // A block no policy lowers says so, not "change the policy".
                let facts = facts_in(&self.policy, &self.cwd(), &UserDirs::of_env(&self.seed.env));
                let floor = self
                    .rails
                    .with_judge(&facts, |judge| judge.floor_of_plan(&plan));
                let help = match floor.first() {
                    Some(floor) => super::never_allowed_help(floor, true),
                    None => super::BLOCKED_BEFORE_RUN_HELP.into(),
                };
                let diagnostic = Diagnostic::plain(
                    super::BLOCKED_CODE,
                    format!("blocked by policy: {}", reasons.join("; ")),
                    Some(help),
                );
                return self.not_run(pipeline, decision, diagnostic);
            }
            Verdict::Confirm => {
                let facts = facts_in(&self.policy, &self.cwd(), &UserDirs::of_env(&self.seed.env));
                // A step whose arguments are only known when it runs
                // (`each { rm $in.name }`) is asked about then, with its
                // real paths, by its guard; asking now could only say
                // "0 files".
                let guards = self.layers.guards;
                let confirm: Vec<(&Step, &Row)> = plan
                    .steps
                    .iter()
                    .zip(&decision.rows)
                    .filter(|(s, r)| {
                        r.verdict == Verdict::Confirm && !(guards && asked_when_it_runs(s))
                    })
                    .collect();
                if confirm.is_empty() {
                    let allowed: Vec<Step> = plan
                        .steps
                        .iter()
                        .zip(&decision.rows)
                        .filter(|(_, r)| r.rule.starts_with(SESSION_RULE))
                        .map(|(s, _)| s.clone())
                        .collect();
                    return self.run_approved(
                        pipeline,
                        &plan,
                        decision,
                        approved_by,
                        &allowed,
                        limits,
                        cancel,
                    );
                }
                let request = ApprovalRequest {
                    labels: confirm.iter().map(|(s, r)| label(s, r, &facts)).collect(),
                    steps: confirm.iter().map(|(s, _)| s.command.clone()).collect(),
                    pipeline: pipeline.to_string(),
                    reason: confirm
                        .iter()
                        .map(|(_, r)| r.reason.clone())
                        .collect::<Vec<_>>()
                        .join("; "),
                    warning: confirm.iter().any(|(_, r)| r.warning),
                    privileged: confirm
                        .iter()
                        .any(|(s, _)| s.category == super::Category::Privileged),
                };
                match self.approver.approve(&request) {
                    Approval::Yes => approved_by = Some(self.approver.who()),
                    Approval::Always => {
                        approved_by = Some(format!("{} (always)", self.approver.who()));
                        if !request.warning {
                            for (step, _) in &confirm {
                                self.rails.allow_for_session(&step.command);
                            }
                        }
                    }
                    Approval::Edit(edited) if edits < 3 => {
                        return self.run_inner(&edited, limits, cancel, edits + 1);
                    }
                    Approval::Edit(_) | Approval::No => {
                        let help = self
                            .approver
                            .not_covered(&request)
                            .unwrap_or_else(|| super::NOT_APPROVED_HELP.into());
                        let diagnostic = Diagnostic::plain(
                            super::DENIED_CODE,
                            format!("not approved: {}", request.labels.join("; ")),
                            Some(help),
                        );
                        return self.not_run(pipeline, decision, diagnostic);
                    }
                }
                approved_steps = confirm.iter().map(|(s, _)| (*s).clone()).collect();
            }
        }
        // Steps the user allowed with "always" earlier: approved as if asked
        // now, so that the guards (the worker's too, which has no session
        // rules of its own) do not ask about them again.
        approved_steps.extend(
            plan.steps
                .iter()
                .zip(&decision.rows)
                .filter(|(_, r)| r.rule.starts_with(SESSION_RULE))
                .map(|(s, _)| s.clone()),
        );
        self.run_approved(
            pipeline,
            &plan,
            decision,
            approved_by,
            &approved_steps,
            limits,
            cancel,
        )
    }

    /// Run `pipeline` (planned as `plan`), whose static verdict let it
    /// start: `approved_steps` were approved as a whole before it (the
    /// guards do not ask again).
    #[allow(clippy::too_many_arguments)]
    fn run_approved(
        &mut self,
        pipeline: &str,
        plan: &Plan,
        decision: Decision,
        approved_by: Option<String>,
        approved_steps: &[Step],
        limits: &Limits,
        cancel: &CancelToken,
    ) -> Ran {
        // A sensitive read that goes ahead taints the conversation.
        if let Some((step, _)) = plan
            .steps
            .iter()
            .zip(&decision.rows)
            .find(|(_, r)| r.rule == "sensitive path" && r.verdict <= Verdict::Confirm)
        {
            let what = step
                .targets
                .iter()
                .find(|t| matches!(t.access, super::Access::Read | super::Access::Send))
                .map(|t| t.value.clone())
                .unwrap_or_else(|| step.command.clone());
            self.rails.note_secret_read(&what);
        }
        // Only a pipeline that deletes may need the trash made.
        let deletes = plan
            .steps
            .iter()
            .any(|s| s.category == super::Category::Delete);
        let mut notice = None;
        let outcome = if self.sandboxed() {
            let (mut outcome, restarted) =
                self.run_in_worker(pipeline, approved_steps, deletes, limits, cancel);
            notice = restarted;
            if self.promoted.is_none() {
                outcome.index = self.worker_outs.len();
                self.worker_outs.push(outcome.value.clone());
            }
            if self.policy.sandbox == SandboxMode::ReadOnly {
                explain_read_only_refusal(&mut outcome);
            }
            outcome
        } else {
            self.rails.begin_run(pipeline, approved_steps);
            if let Some(input) = self.input.take() {
                self.session.set_input(input);
            }
            self.session.run_cancellable(pipeline, limits, cancel)
        };
        self.seed.cwd = outcome.cwd.clone();
        Ran {
            decision,
            outcome,
            approved_by,
            pipeline: pipeline.to_string(),
            guard_events: self.rails.take_events(),
            notice,
        }
    }

    /// Run `pipeline` in the conversation's worker (started, or started
    /// again, as needed), or alone in a wider one when the approved steps
    /// need more than the conversation's sandbox. Also returns the notice
    /// that the session was restarted.
    fn run_in_worker(
        &mut self,
        pipeline: &str,
        approved: &[Step],
        deletes: bool,
        limits: &Limits,
        cancel: &CancelToken,
    ) -> (Outcome, Option<String>) {
        let cwd = self.seed.cwd.clone();
        let run = sandbox::WorkerRun {
            source: pipeline.to_string(),
            cwd: cwd.clone(),
            limits: limits.clone(),
            policy: serde_json::to_value(RunPolicy {
                approved: approved.to_vec(),
            })
            .unwrap_or_default(),
            input: self.input.take(),
        };
        let exe = self.worker_exe.clone().unwrap_or_default();
        let wanted = self.sandbox_for(&cwd, approved, deletes);
        let base = match &self.worker {
            Some((_, spec)) => spec.clone(),
            None => self.sandbox_for(&cwd, &[], false),
        };
        let covered = base.covers(&wanted);
        if self.worker_per_step || !covered {
            return (self.run_alone(&exe, wanted, &run, cancel), None);
        }
        let mut notice = None;
        let alive = match &mut self.worker {
            Some((worker, _)) => worker.is_alive(),
            None => false,
        };
        if !alive {
            let served = self.worker.take().is_some_and(|(old, _)| old.runs() > 0);
            if served || std::mem::take(&mut self.session_lost) {
                notice = Some(restart_notice(self.worker_outs.len()));
                self.forget_declarations();
            }
            // A new worker gets the conversation's sandbox at this cwd.
            let spec = self.sandbox_for(&cwd, &[], false);
            let start = self.worker_start(spec.clone(), carried_outs(&self.worker_outs));
            match sandbox::SessionWorker::start(&exe, &start) {
                Ok(worker) => self.worker = Some((worker, spec)),
                Err(error) => {
                    let outcome = Outcome {
                        error: Some(error),
                        ..self.empty_outcome()
                    };
                    return (outcome, notice);
                }
            }
        }
        let Some((worker, _)) = self.worker.as_mut() else {
            return (self.empty_outcome(), notice);
        };
        let outcome = match self.promote_after {
            None => worker.run(&run, cancel, self.approver.as_ref()),
            Some(after) => {
                // A step that may go to the background has no time limit
                // of its own: past `after` it is a job.
                let mut run = run.clone();
                run.limits.timeout = None;
                match worker.run_for(&run, cancel, self.approver.as_ref(), Some(after)) {
                    sandbox::RunEnd::Finished(outcome) => *outcome,
                    sandbox::RunEnd::StillRunning(started) => {
                        if let Some((worker, _)) = self.worker.take() {
                            self.promoted = Some(PromotedStep {
                                worker,
                                run,
                                started,
                            });
                            self.session_lost = true;
                            self.forget_declarations();
                        }
                        return (self.empty_outcome(), notice);
                    }
                }
            }
        };
        let Some((worker, _)) = self.worker.as_mut() else {
            return (outcome, notice);
        };
        if worker.is_alive() {
            // The planner learns what the worker's session now holds.
            let _ = self.session.declare(pipeline, &cwd);
        }
        (outcome, notice)
    }

    /// Run one step in a worker of its own, with the wider sandbox it was
    /// approved for; the conversation's worker gets its value as `$out`.
    fn run_alone(
        &mut self,
        exe: &std::path::Path,
        spec: SandboxSpec,
        run: &sandbox::WorkerRun,
        cancel: &CancelToken,
    ) -> Outcome {
        let start = self.worker_start(spec, carried_outs(&self.worker_outs));
        let mut outcome = sandbox::run_sandboxed(exe, &start, run, cancel, self.approver.as_ref());
        if let Some((worker, _)) = self.worker.as_mut() {
            worker.add_out(&outcome.value);
            if let Some(error) = outcome.error.as_mut() {
                let alone = "this step ran alone, in a sandbox wide enough for what was approved: variables, definitions and `$env` changes of earlier steps do not reach it (`$out` does)";
                error.help = Some(match error.help.take() {
                    Some(help) => format!("{help}; {alone}"),
                    None => alone.to_string(),
                });
            }
        }
        outcome
    }

    /// Start the planning session over (the worker that held the
    /// definitions it learned is gone).
    fn forget_declarations(&mut self) {
        if let Ok(session) = Session::new(&self.engine, self.seed.clone()) {
            self.session = session;
        }
    }

    fn empty_outcome(&self) -> Outcome {
        Outcome {
            value: Value::nothing(Span::unknown()),
            index: 0,
            stderr: None,
            exit_code: None,
            printed: Vec::new(),
            cwd: self.cwd(),
            error: None,
            stopped: None,
            duration: Duration::ZERO,
        }
    }

    /// The sandbox for a step in `cwd` with `approved` steps: the
    /// conversation's roots, widened by approved writes outside them and an
    /// approved network step; protected trees (and `.git`, unless a git
    /// command was approved) read-only. The trash is writable where it
    /// exists; a pipeline that `deletes` has it made first (no empty
    /// trash appears for a run that trashes nothing).
    fn sandbox_for(&self, cwd: &std::path::Path, approved: &[Step], deletes: bool) -> SandboxSpec {
        let user = UserDirs::of_env(&self.seed.env);
        let home = user.get("HOME");
        let mut writable = self.policy.writable_roots(cwd, home.as_deref());
        if self.policy.trash
            && let Some(trash) = trash_dir(&user)
            && (trash.is_dir() || (deletes && std::fs::create_dir_all(&trash).is_ok()))
        {
            // `rm` moves files to the trash: the trash must be writable.
            writable.push(trash);
        }
        writable.retain(|p| p.exists());
        let facts = facts_in(&self.policy, cwd, &user);
        let mut network = self.policy.network;
        for step in approved {
            if step.category == super::Category::Network {
                network = true;
            }
            for target in &step.targets {
                if matches!(target.access, super::Access::Write | super::Access::Delete) {
                    let path = facts.resolve(&target.value);
                    let root = if path.is_dir() {
                        path
                    } else {
                        path.parent().map(PathBuf::from).unwrap_or(path)
                    };
                    if root.exists() && !writable.iter().any(|w| root.starts_with(w)) {
                        writable.push(root);
                    }
                }
            }
        }
        let git_approved = approved.iter().any(|s| s.name == "^git");
        let mut protected: Vec<PathBuf> = Vec::new();
        for root in &writable {
            for path in facts.protected_around(root) {
                if git_approved && path.file_name().is_some_and(|n| n == ".git") {
                    continue;
                }
                if !protected.contains(&path) {
                    protected.push(path);
                }
            }
        }
        SandboxSpec {
            mode: self.policy.sandbox,
            writable,
            network,
            protected,
            nested: false,
        }
    }

    /// How a worker under `spec` starts: the session's directory and
    /// environment, the policy its guards enforce, and `$out` so far.
    fn worker_start(&self, spec: SandboxSpec, outs: Vec<Value>) -> sandbox::WorkerStart {
        let worker_policy = WorkerPolicy {
            policy: self.policy.clone(),
            guards: self.layers.guards,
            sandbox_enforced: true,
            trusted_path: self.trusted_path.clone(),
            writable: spec.writable.clone(),
            launcher: self.rails.launcher(),
            start_env: self.rails.start_env(),
        };
        sandbox::WorkerStart {
            spec,
            cwd: self.seed.cwd.clone(),
            env: self
                .seed
                .env
                .iter()
                .filter_map(|(k, v)| Some((k.clone(), v.as_str().ok()?.to_string())))
                .chain(
                    self.policy
                        .env
                        .iter()
                        .filter_map(|name| Some((name.clone(), std::env::var(name).ok()?))),
                )
                .collect(),
            policy: serde_json::to_value(&worker_policy).unwrap_or(serde_json::Value::Null),
            outs,
            idle_timeout: Some(WORKER_IDLE),
        }
    }

    fn not_run(&self, pipeline: &str, decision: Decision, diagnostic: Diagnostic) -> Ran {
        Ran {
            decision,
            outcome: Outcome {
                error: Some(diagnostic),
                ..self.empty_outcome()
            },
            approved_by: None,
            pipeline: pipeline.to_string(),
            guard_events: Vec::new(),
            notice: None,
        }
    }
}

/// What the model and the user are told when the conversation's worker
/// was replaced.
fn restart_notice(outs: usize) -> String {
    let kept = match outs {
        0 => String::new(),
        1 => "; `$out.0` was kept".to_string(),
        n => format!("; `$out.0`..`$out.{}` were kept", n - 1),
    };
    format!(
        "the session was restarted (its sandbox worker had stopped): variables, definitions and `$env` changes from earlier steps are gone{kept}"
    )
}

/// Most bytes of earlier results handed to a sandbox worker as `$out`.
const CARRIED_OUT_BYTES: usize = 16 * 1024 * 1024;

/// `$out` for the next worker: the newest values that fit in
/// [`CARRIED_OUT_BYTES`] of JSON; older ones beyond that arrive as nothing.
fn carried_outs(outs: &[Value]) -> Vec<Value> {
    let mut left = CARRIED_OUT_BYTES;
    let mut carried: Vec<Value> = outs
        .iter()
        .rev()
        .map(|value| {
            let size = serde_json::to_vec(value).map_or(usize::MAX, |json| json.len());
            if size <= left {
                left -= size;
                value.clone()
            } else {
                left = 0;
                Value::nothing(Span::unknown())
            }
        })
        .collect();
    carried.reverse();
    carried
}

fn hook_row(verdict: Verdict, reason: &str) -> Row {
    Row {
        command: String::new(),
        name: "hook".into(),
        category: super::Category::Unknown,
        targets: Vec::new(),
        verdict,
        reason: reason.into(),
        rule: "policy.hook".into(),
        warning: false,
    }
}

/// The user's trash (`$XDG_DATA_HOME/Trash`), where `rm` moves files.
fn trash_dir(user: &UserDirs) -> Option<PathBuf> {
    let data = user
        .get("XDG_DATA_HOME")
        .or_else(|| user.get("HOME").map(|h| h.join(".local/share")))?;
    Some(data.join("Trash"))
}

/// The path facts of a session in `cwd` under `policy`, for this
/// process's user.
pub fn facts_for(policy: &Policy, cwd: &std::path::Path) -> PathFacts {
    facts_in(policy, cwd, &UserDirs::of_process())
}

/// The path facts of a session in `cwd` under `policy`, for the user whose
/// directories `user` names.
fn facts_in(policy: &Policy, cwd: &std::path::Path, user: &UserDirs) -> PathFacts {
    let home = user.get("HOME");
    let writable = policy.writable_roots(cwd, home.as_deref());
    PathFacts::for_user_in(cwd.to_path_buf(), &writable, &policy.protect, user)
}

/// PATH as the caller gave it (the trusted one).
/// The names of the executable files in `dirs`, sorted, each once.
pub fn programs_in(dirs: &[PathBuf]) -> Vec<String> {
    use std::os::unix::fs::PermissionsExt;
    let mut names: Vec<String> = dirs
        .iter()
        .filter_map(|dir| std::fs::read_dir(dir).ok())
        .flatten()
        .filter_map(Result::ok)
        .filter(|entry| {
            // Follows links: most of /usr/bin's alternatives are links.
            std::fs::metadata(entry.path())
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
        .filter_map(|entry| entry.file_name().into_string().ok())
        .collect();
    names.sort_unstable();
    names.dedup();
    names
}

fn seed_path(seed: &SessionSeed) -> Vec<PathBuf> {
    seed.env
        .iter()
        .find(|(k, _)| k == "PATH")
        .and_then(|(_, v)| v.as_str().ok().map(|s| std::env::split_paths(s).collect()))
        .unwrap_or_else(|| {
            std::env::split_paths("/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
                .collect()
        })
}
