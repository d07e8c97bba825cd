//! Runtime guards: the side-effecting builtins (and `run-external`, which
//! every external call compiles to, dynamic heads included) are shadowed
//! by wrappers that judge the *evaluated* arguments — expanded globs,
//! resolved paths, the real program name — before they delegate.
//!
//! A guard keeps the original's name, signature and `CommandType::Builtin`
//! and is registered after it, so `%rm` and dynamic `%$x` dispatch (which
//! look for the newest builtin of that name) reach the guard too.

use std::{
    collections::HashSet,
    path::{Path, PathBuf},
    sync::{Arc, Mutex, OnceLock},
};

use nu_engine::CallExt;
use nu_protocol::{
    DeclId, PipelineData, ShellError, Span, Value,
    engine::{Call, Command, CommandType, EngineState, Stack},
    ir,
    shell_error::generic::GenericError,
};

use super::{
    Access, Approval, ApprovalRequest, Approver, Category, Judge, PathFacts, Pattern, Policy,
    ReadJudgement, Row, Step, Target, Verdict,
    builtins::{Targets, classify_builtin},
    externals::{self, Arg},
    sandbox::{self, ExecSpec, SandboxMode},
};
use crate::shell::{Diagnostic, Engine, Outcome, RunHooks};

/// What every guard of one engine shares: the policy, the paths, who
/// approves, and what was approved.
pub struct Guardrails {
    policy: Policy,
    facts: PathFacts,
    sandbox_enforced: bool,
    approver: Arc<dyn Approver>,
    /// PATH as the session started: externals found elsewhere ask.
    trusted_path: Vec<PathBuf>,
    session_allow: AlwaysAllowed,
    run: Mutex<RunState>,
    log: Mutex<Vec<GuardEvent>>,
    /// The sudo password the user typed, and when.
    password: Mutex<Option<(String, std::time::Instant)>>,
    /// The binary that starts each external under its own sandbox (see
    /// [`sandbox::exec_main`]); `None` when that is off or unavailable.
    launcher: Mutex<Option<PathBuf>>,
    /// The values the session started with of the variables that point
    /// programs at other configuration (`HOME`, `GIT_*`, `*PAGER`...).
    start_env: Mutex<Vec<(String, String)>>,
    /// The first secret this conversation read (see
    /// [`Guardrails::note_secret_read`]).
    secret_read: Mutex<Option<String>>,
}

/// The commands answered "always": one set per policy shell, or one that
/// several shells share (the plugin keeps one for its nu session, so that
/// an answer outlives the `agent run` or `ask` it was given in).
#[derive(Clone, Default)]
pub struct AlwaysAllowed(Arc<Mutex<Vec<Pattern>>>);

impl AlwaysAllowed {
    /// How many commands were answered "always".
    pub fn len(&self) -> usize {
        lock(&self.0).len()
    }

    /// Whether none was.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// What the current run was approved for.
#[derive(Default)]
struct RunState {
    pipeline: String,
    /// Commands (as planned) approved before the run started.
    approved: HashSet<String>,
    /// Names of steps approved before the run, whose arguments were all
    /// literal: their runtime form needs no second question.
    approved_names: HashSet<String>,
    /// A sensitive file was read during this run.
    sensitive_read: bool,
    /// Files written during this run (a script written here and then run
    /// is blocked).
    written: HashSet<PathBuf>,
    /// The first step refused during this run: code and message.
    refused: Option<(&'static str, String)>,
    /// Names of steps answered "always" during this run: the same command
    /// on other arguments is not asked again (unless it warns).
    always_names: HashSet<String>,
}

/// One decision a guard took (for the audit log and tests).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GuardEvent {
    pub row: Row,
    /// Who let it run: `policy`, `approved before the run`, `user`, or
    /// `None` when it did not run.
    pub approved_by: Option<String>,
}

impl Guardrails {
    /// Guardrails for a session in `facts.cwd()` under `policy`.
    pub fn new(
        policy: Policy,
        facts: PathFacts,
        sandbox_enforced: bool,
        approver: Arc<dyn Approver>,
        trusted_path: Vec<PathBuf>,
        always: AlwaysAllowed,
    ) -> Arc<Guardrails> {
        Arc::new(Guardrails {
            policy,
            facts,
            sandbox_enforced,
            approver,
            trusted_path,
            session_allow: always,
            run: Mutex::new(RunState::default()),
            log: Mutex::new(Vec::new()),
            password: Mutex::new(None),
            launcher: Mutex::new(None),
            start_env: Mutex::new(Vec::new()),
            secret_read: Mutex::new(None),
        })
    }

    /// Remember the session's starting environment: an external started
    /// after a pipeline changed `HOME`, `XDG_*`, `GIT_*`, a pager... asks.
    pub fn remember_env(&self, env: impl IntoIterator<Item = (String, String)>) {
        *lock(&self.start_env) = env
            .into_iter()
            .filter(|(name, _)| crate::shell::redirects_configuration(name))
            .collect();
    }

    /// The remembered starting values (see [`Guardrails::remember_env`]).
    pub fn start_env(&self) -> Vec<(String, String)> {
        lock(&self.start_env).clone()
    }

    /// Start every external through `launcher` (our own binary) under a
    /// sandbox narrowed to its verdict — unless the policy turned
    /// `external_sandbox` off or the kernel cannot enforce it.
    pub fn use_launcher(&self, launcher: Option<PathBuf>) {
        *lock(&self.launcher) =
            launcher.filter(|_| self.policy.external_sandbox && external_sandbox_available());
    }

    /// The launcher in use, if externals are sandboxed one by one.
    pub fn launcher(&self) -> Option<PathBuf> {
        lock(&self.launcher).clone()
    }

    /// The launcher and the sandbox for one external call whose `steps`
    /// were all allowed: a read gets nothing writable and no network; a
    /// write gets exactly its targets (the protected paths beneath them
    /// stay read-only); a program of unknown effect that was approved gets
    /// the mode's writable roots. `None`: start it as is (no launcher, a
    /// privileged step, or a program of unknown effect with the sandbox
    /// off).
    pub fn exec_spec(&self, steps: &[Step], facts: &PathFacts) -> Option<(PathBuf, ExecSpec)> {
        let launcher = self.launcher()?;
        let mut spec = external_spec(&self.policy, steps, facts)?;
        // In the worker, this process is already inside a Landlock domain.
        spec.nested = self.sandbox_enforced;
        Some((launcher, spec))
    }

    /// Whether the OS sandbox for the policy's mode is in force.
    pub fn sandbox_enforced(&self) -> bool {
        self.sandbox_enforced
    }

    /// Judge with the session's "always" rules and what it read.
    pub fn with_judge<T>(&self, facts: &PathFacts, f: impl FnOnce(&Judge) -> T) -> T {
        let session = lock(&self.session_allow.0).clone();
        let secret_read = lock(&self.secret_read).clone();
        let judge = Judge {
            policy: &self.policy,
            facts,
            sandbox_enforced: self.sandbox_enforced,
            session_allow: &session,
            secret_read: secret_read.as_deref(),
        };
        f(&judge)
    }

    /// Remember that the conversation read a secret (`what`, e.g.
    /// `~/.ssh/id_rsa`): every later network step asks, naming the first.
    pub fn note_secret_read(&self, what: &str) {
        lock(&self.secret_read).get_or_insert_with(|| what.to_string());
    }

    /// Allow `command` for the rest of the session ("always").
    pub fn allow_for_session(&self, command: &str) {
        let escaped: String = command
            .chars()
            .flat_map(|c| match c {
                '*' | '?' | '\\' => vec!['\\', c],
                c => vec![c],
            })
            .collect();
        if let Ok(pattern) = Pattern::new(&escaped) {
            lock(&self.session_allow.0).push(pattern);
        }
    }

    /// Start a run of `pipeline` whose confirm steps were approved as a
    /// whole (`approved` are those steps).
    pub fn begin_run(&self, pipeline: &str, approved: &[Step]) {
        let mut run = lock(&self.run);
        *run = RunState {
            pipeline: pipeline.to_string(),
            approved: approved.iter().map(|s| s.command.clone()).collect(),
            approved_names: approved
                .iter()
                .filter(|s| !s.dynamic)
                .map(|s| s.name.clone())
                .collect(),
            sensitive_read: false,
            written: HashSet::new(),
            refused: None,
            always_names: HashSet::new(),
        };
    }

    /// The decisions taken since the last call.
    pub fn take_events(&self) -> Vec<GuardEvent> {
        std::mem::take(&mut *lock(&self.log))
    }

    /// The sudo password: remembered for `policy.password_ttl`, otherwise
    /// asked from the person at the terminal (never from the model).
    fn sudo_password(&self) -> Option<String> {
        let mut cached = lock(&self.password);
        if let Some((password, when)) = cached.as_ref()
            && when.elapsed() < self.policy.password_ttl
        {
            return Some(password.clone());
        }
        let password = self
            .approver
            .password("[sudo] password for the agent's command: ")?;
        *cached = Some((password.clone(), std::time::Instant::now()));
        Some(password)
    }

    /// Judge an evaluated step and ask when needed; `Ok` means run it.
    fn enforce(&self, step: Step, facts: &PathFacts, span: Span) -> Result<(), ShellError> {
        let mut row = self.with_judge(facts, |judge| judge.step(&step));
        let reads_sensitive = step.targets.iter().any(|t| {
            matches!(t.access, Access::Read | Access::Send)
                && !matches!(facts.judge_read(&t.value), ReadJudgement::Ordinary)
        });
        {
            let run = lock(&self.run);
            if step.category == Category::Network
                && run.sensitive_read
                && row.verdict < Verdict::Block
            {
                row.verdict = Verdict::Block;
                row.reason = "sends data after reading a sensitive file in the same run".into();
                row.rule = "exfiltration".into();
            }
        }
        let outcome = match row.verdict {
            Verdict::Allow => Ok("policy".to_string()),
            Verdict::Confirm => self.confirm(&step, &row, facts),
            Verdict::Block | Verdict::Refuse => {
                // The run's own exfiltration check is a floor too: no
                // policy lets a run send out what it read from a secret.
                let floor = if row.rule == "exfiltration" {
                    Some(row.clone())
                } else {
                    self.with_judge(facts, |judge| judge.floor_of_step(&step))
                };
                Err(blocked(&row, floor.as_ref(), span))
            }
        };
        let approved_by = outcome.as_ref().ok().cloned();
        lock(&self.log).push(GuardEvent {
            row: row.clone(),
            approved_by,
        });
        {
            let mut run = lock(&self.run);
            if outcome.is_ok() {
                run.sensitive_read |= reads_sensitive;
                for target in &step.targets {
                    if target.access == Access::Write {
                        run.written.insert(facts.resolve(&target.value));
                    }
                }
            } else if run.refused.is_none() {
                let code = if matches!(outcome, Err(Denied::NotApproved(_))) {
                    DENIED_CODE
                } else {
                    BLOCKED_CODE
                };
                run.refused = Some((code, format!("{}: {}", row.command, row.reason)));
            }
        }
        outcome.map(|_| ()).map_err(|e| match e {
            Denied::Blocked(e) => e,
            Denied::NotApproved(help) => not_approved(&row, span, help),
        })
    }

    /// Was `path` (resolved) written earlier in this run?
    fn written_this_run(&self, path: &std::path::Path) -> bool {
        lock(&self.run).written.contains(path)
    }

    fn confirm(&self, step: &Step, row: &Row, facts: &PathFacts) -> Result<String, Denied> {
        {
            let run = lock(&self.run);
            if run.approved.contains(&step.command)
                || (!step.dynamic && run.approved_names.contains(&step.name))
            {
                return Ok("approved before the run".into());
            }
            if !row.warning && run.always_names.contains(&step.name) {
                return Ok(format!("{} (always)", self.approver.who()));
            }
        }
        let request = ApprovalRequest {
            labels: vec![label(step, row, facts)],
            steps: vec![step.command.clone()],
            pipeline: lock(&self.run).pipeline.clone(),
            reason: row.reason.clone(),
            warning: row.warning,
            privileged: step.category == Category::Privileged,
        };
        match self.approver.approve(&request) {
            Approval::Yes => Ok(self.approver.who()),
            Approval::Always => {
                if !row.warning {
                    self.allow_for_session(&step.command);
                    lock(&self.run).always_names.insert(step.name.clone());
                }
                Ok(format!("{} (always)", self.approver.who()))
            }
            Approval::No | Approval::Edit(_) => {
                Err(Denied::NotApproved(self.approver.not_covered(&request)))
            }
        }
    }
}

impl RunHooks for Guardrails {
    /// Reset what one run tracks, and judge the output redirections
    /// (`o> file`): the engine opens those files itself, no command does,
    /// so they are checked here, before anything runs. A redirection to a
    /// computed path is refused (`save` takes one).
    fn before_run(
        &self,
        engine: &EngineState,
        source: &str,
        cwd: &std::path::Path,
    ) -> Result<(), Diagnostic> {
        {
            let mut run = lock(&self.run);
            run.sensitive_read = false;
            run.written.clear();
            run.refused = None;
        }
        // A pipeline that does not parse fails in the run itself.
        let Ok(plan) = super::plan_in(engine, source, cwd) else {
            return Ok(());
        };
        let facts = self.facts.with_cwd(cwd.to_path_buf());
        for mut step in plan
            .steps
            .into_iter()
            .filter(|s| s.name == "o>" || s.name == "o>>")
        {
            if step.dynamic {
                step.raise(
                    Verdict::Block,
                    "redirects output to a path only known when it runs; use `save` for a computed path",
                );
            }
            self.enforce(step, &facts, Span::unknown())
                .map_err(|e| Diagnostic::from_nu(engine, &e))?;
        }
        Ok(())
    }

    /// A step refused inside `try` (or a `tee` closure) must not look like
    /// success: the run reports it.
    fn after_run(&self, outcome: &mut Outcome) {
        let refused = lock(&self.run).refused.take();
        if outcome.error.is_none()
            && let Some((code, message)) = refused
        {
            outcome.error = Some(Diagnostic::plain(
                code,
                format!(
                    "a step was refused by policy and the pipeline went on without it: {message}"
                ),
                Some(REFUSED_IN_RUN_HELP.into()),
            ));
        }
    }
}

enum Denied {
    Blocked(ShellError),
    /// With the approver's reason, where it gave one.
    NotApproved(Option<String>),
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Whether the guards ask about `step` when it runs, with its evaluated
/// paths instead of before: a guarded builtin that writes or deletes paths
/// only known then (`each { rm $in.name }`). Not an external (its guard
/// judges a script it is handed, `^sh -c (open x)`, by what it reads as,
/// and the static "unknown asks" stays the floor), nor a program or
/// closure held in a variable, nor a redirection.
pub fn asked_when_it_runs(step: &Step) -> bool {
    step.dynamic
        && matches!(step.category, Category::Delete | Category::Write)
        && step.name != "<dynamic>"
        && !step.name.starts_with("o>")
        && !step.name.starts_with('^')
        && needs_guard(&step.name)
}

/// The one-line label an approver shows: `delete ⚠: 3 files, 8.1 GB: a.iso,
/// b.iso, c.zip`, `run: ^apt-get update`, `read: /etc/hosts`.
pub fn label(step: &Step, row: &Row, facts: &PathFacts) -> String {
    let verb = match step.category {
        Category::Read => "read",
        Category::Write => "write",
        Category::Delete => "delete",
        Category::Network => "network",
        Category::Exec | Category::Unknown => "run",
        Category::Privileged => "run as root",
        Category::Process => "process",
    };
    let mark = if row.warning { " ⚠" } else { "" };
    let targets: Vec<&str> = step
        .targets
        .iter()
        .filter(|t| t.access != Access::Send || t.value != "request body")
        .map(|t| t.value.as_str())
        .collect();
    let what = match step.category {
        Category::Exec | Category::Unknown | Category::Privileged | Category::Process => {
            externals::escape_for_display(&step.command)
        }
        Category::Delete if targets.is_empty() => externals::escape_for_display(&step.command),
        Category::Delete => delete_summary(&targets, facts),
        _ if targets.is_empty() => externals::escape_for_display(&step.command),
        _ => externals::escape_for_display(&shorten_list(&targets)),
    };
    format!("{verb}{mark}: {what}")
}

/// `3 files, 8.1 GB: a.iso, b.iso, c.zip` for the paths about to go.
fn delete_summary(targets: &[&str], facts: &PathFacts) -> String {
    let mut count = 0u64;
    let mut bytes = 0u64;
    for target in targets {
        let path = facts.resolve(target);
        if let Ok(meta) = std::fs::symlink_metadata(&path) {
            count += 1;
            bytes += if meta.is_dir() {
                dir_size(&path, 10_000)
            } else {
                meta.len()
            };
        }
    }
    let names: Vec<&str> = targets
        .iter()
        .map(|t| t.rsplit('/').find(|s| !s.is_empty()).unwrap_or(t))
        .collect();
    let noun = if count == 1 { "file" } else { "files" };
    format!(
        "{count} {noun}, {}: {}",
        crate::observe::format_size(i64::try_from(bytes).unwrap_or(i64::MAX)),
        externals::escape_for_display(&shorten_list(&names))
    )
}

fn dir_size(dir: &std::path::Path, budget: usize) -> u64 {
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    let mut seen = 0;
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            seen += 1;
            if seen > budget {
                return total;
            }
            if let Ok(meta) = entry.metadata() {
                if meta.is_dir() {
                    stack.push(entry.path());
                } else {
                    total += meta.len();
                }
            }
        }
    }
    total
}

fn shorten_list(items: &[&str]) -> String {
    const SHOWN: usize = 5;
    let mut text = items
        .iter()
        .take(SHOWN)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > SHOWN {
        text.push_str(&format!(" and {} more", items.len() - SHOWN));
    }
    text
}

/// A blocked step; `floor` is the row that blocks it whatever the policy,
/// if one does (then the help does not send the user to the policy).
fn blocked(row: &Row, floor: Option<&Row>, span: Span) -> Denied {
    let help = match floor {
        Some(floor) => never_allowed_help(floor, false),
        None => BLOCKED_HELP.to_string(),
    };
    Denied::Blocked(ShellError::Generic(
        GenericError::new(
            format!("blocked by policy: {}", row.reason),
            format!("{} is not allowed ({})", row.name, row.rule),
            span,
        )
        .with_code(BLOCKED_CODE)
        .with_help(help),
    ))
}

/// The help on a step (or, `before_run`, a pipeline) that no policy
/// allows: `floor` is the row that blocks it under any policy. It says
/// so, and what to do instead.
pub fn never_allowed_help(floor: &Row, before_run: bool) -> String {
    let instead = match floor.rule.as_str() {
        "protected path" if floor.category == Category::Delete => {
            "delete the files inside it by name instead, or do it yourself outside the agent"
        }
        "protected path" => {
            "name the files inside it that you mean instead, or do it yourself outside the agent"
        }
        "exfiltration" => {
            "the agent never sends secrets over the network; do it yourself outside the agent if you mean it"
        }
        "download and run" => "download the script in one step, read it, and run it in another",
        _ => "do it yourself outside the agent if you mean it",
    };
    let what = if before_run {
        "the agent blocks this pipeline before it runs"
    } else {
        "this step is blocked"
    };
    format!(
        "{what}, and no policy allows it (not mode yolo, not an allow rule): {}; {instead}",
        floor.reason
    )
}

fn not_approved(row: &Row, span: Span, help: Option<String>) -> ShellError {
    ShellError::Generic(
        GenericError::new(
            format!("not approved: {}", row.reason),
            format!("{} needs approval and was denied", row.name),
            span,
        )
        .with_code(DENIED_CODE)
        .with_help(help.unwrap_or_else(|| NOT_APPROVED_HELP.into())),
    )
}

/// The user's hint on a step or pipeline nobody approved. What the model
/// is told instead is the agent's business (it reads the code).
pub const NOT_APPROVED_HELP: &str =
    "approve it at the prompt, or run with --yes or --approve <pattern>";
/// The hint when nobody could be asked: no terminal (cron, CI, a pipe).
pub const NOBODY_TO_ASK_HELP: &str = "nobody could be asked (there is no terminal); approve in advance with --yes or --approve <pattern>";
/// The hint on a background job's step nobody approved: a job never
/// prompts, it waits for an answer.
pub const JOB_NOT_APPROVED_HELP: &str = "a job asks through `agent job approve <id>` (or `agent job deny <id>`) while it waits; start it again and answer there, or approve in advance with --yes or --approve <pattern>";
/// The hint on a background job's step the user refused with `agent job
/// deny`: the job ended without it.
pub const JOB_DENIED_HELP: &str = "you denied this step with `agent job deny`, so it did not run and the job ended; to run it, start the job again, and approve the step when it waits or in advance with --yes or --approve <pattern>";
/// The user's hint on a step or pipeline the policy blocks.
pub const BLOCKED_HELP: &str = "the policy blocks this step whatever is approved; to allow it, change the policy ($env.config.plugins.agent.policy, or nu-agent's config file)";

/// The user's help line for a pipeline the static check blocks (nothing
/// of it ran).
pub const BLOCKED_BEFORE_RUN_HELP: &str = "the policy blocks this pipeline before it runs, whatever is approved; to allow it, change the policy ($env.config.plugins.agent.policy, or nu-agent's config file)";
/// The user's hint on a step refused inside `try` while the rest ran.
const REFUSED_IN_RUN_HELP: &str = "the refused step did not run; the rest of the pipeline did";

/// The error code of a step a guard blocked.
pub const BLOCKED_CODE: &str = "nu_agent::policy::blocked";
/// The error code of a step nobody approved.
pub const DENIED_CODE: &str = "nu_agent::policy::denied";

/// A guarded builtin.
#[derive(Clone)]
struct Guard {
    inner: Box<dyn Command>,
    rails: Arc<Guardrails>,
}

impl Command for Guard {
    crate::shell::forward_to_inner!();

    fn run(
        &self,
        engine_state: &EngineState,
        stack: &mut Stack,
        call: &Call,
        input: PipelineData,
    ) -> Result<PipelineData, ShellError> {
        let cwd = engine_state
            .cwd(Some(stack))
            .map(|p| PathBuf::from(p.as_std_path()))
            .unwrap_or_else(|_| self.rails.facts.cwd().to_path_buf());
        let facts = self.rails.facts.with_cwd(cwd);
        let has_input = match &input {
            PipelineData::Empty => false,
            PipelineData::Value(value, _) => !value.is_nothing(),
            _ => true,
        };
        let steps = self.evaluated_steps(engine_state, stack, call, &facts, has_input)?;
        let sudo = steps.iter().any(|s| s.name == "^sudo");
        for step in &steps {
            self.rails.enforce(step.clone(), &facts, call.head)?;
        }
        let input = if sudo {
            self.sudo_input(engine_state, stack, call, input)?
        } else {
            input
        };
        if self.inner.name() == "run-external"
            && let Some((launcher, spec)) = self.rails.exec_spec(&steps, &facts)
        {
            return self.run_launched(engine_state, stack, call, input, &launcher, &spec);
        }
        self.inner.run(engine_state, stack, call, input)
    }
}

impl Guard {
    /// Run the external through the launcher: `run-external` is called
    /// with `<launcher> --sandbox-exec <spec> -- <program path> args...`,
    /// the arguments as evaluated (globs still expand as they would). A
    /// program that cannot be found is left to `run-external`'s own error.
    fn run_launched(
        &self,
        engine_state: &EngineState,
        stack: &mut Stack,
        call: &Call,
        input: PipelineData,
        launcher: &Path,
        spec: &ExecSpec,
    ) -> Result<PipelineData, ShellError> {
        let mut values: Vec<Value> = call.rest(engine_state, stack, 0)?;
        if let Some(Value::List { vals, .. }) = values.first().cloned() {
            values.splice(0..1, vals);
        }
        let Some(name) = values.first().and_then(value_text) else {
            return self.inner.run(engine_state, stack, call, input);
        };
        let name = match values.first() {
            Some(Value::Glob {
                no_expand: false, ..
            }) => nu_path::expand_tilde(&name).to_string_lossy().into_owned(),
            _ => name,
        };
        let cwd = engine_state.cwd(Some(stack))?;
        let paths = nu_engine::env::path_str(engine_state, stack, call.head).unwrap_or_default();
        let Some(program) = nu_command::which(&name, &paths, cwd.as_ref()) else {
            return self.inner.run(engine_state, stack, call, input);
        };
        // `ss -tlnp`, `lsof -i :8080`: the system's own program in the
        // exact form runs where other processes' sockets can be seen.
        let mut spec = spec.clone();
        if spec.is_read_only() && !spec.local_sockets && sandbox::is_system_program(&program) {
            let args: Option<Vec<String>> = values.iter().skip(1).map(value_text).collect();
            if args.is_some_and(|args| externals::names_socket_processes(&name, &args)) {
                spec.process_view = true;
                spec.broker = if spec.nested {
                    sandbox::broker_fd()
                } else {
                    None
                };
            }
        }
        let span = call.head;
        let mut builder = ir::Call::build(call.decl_id, span);
        for part in sandbox::launcher_prefix(launcher, &spec) {
            builder.add_positional(stack, span, Value::string(part, span));
        }
        builder.add_positional(
            stack,
            span,
            Value::string(program.to_string_lossy().into_owned(), span),
        );
        for value in values.into_iter().skip(1) {
            builder.add_positional(stack, span, value);
        }
        builder.with(stack, |stack, launched| {
            self.inner.run(engine_state, stack, launched, input)
        })
    }

    /// An approved `^sudo -S ...` gets the password on its stdin. Without
    /// `-S` sudo would look for a terminal the agent's programs never have
    /// (and fail at once), so the model is told how to ask.
    fn sudo_input(
        &self,
        engine_state: &EngineState,
        stack: &mut Stack,
        call: &Call,
        input: PipelineData,
    ) -> Result<PipelineData, ShellError> {
        let args: Vec<Value> = call.rest(engine_state, stack, 1)?;
        let flags: Vec<String> = args
            .iter()
            .filter_map(value_text)
            .take_while(|a| a.starts_with('-'))
            .collect();
        let reads_stdin = flags
            .iter()
            .any(|s| s == "--stdin" || (!s.starts_with("--") && s.contains('S')));
        let no_input = match &input {
            PipelineData::Empty => true,
            PipelineData::Value(value, _) => value.is_nothing(),
            _ => false,
        };
        if !reads_stdin || !no_input {
            return Ok(input);
        }
        match self.rails.sudo_password() {
            Some(password) => Ok(PipelineData::Value(
                Value::string(format!("{password}\n"), call.head),
                None,
            )),
            None => Err(ShellError::Generic(
                GenericError::new(
                    "no password for sudo",
                    "nobody at a terminal can type the password",
                    call.head,
                )
                .with_code(DENIED_CODE)
                .with_help("sudo needs its password typed at a terminal: run this step yourself"),
            )),
        }
    }
}

impl Guard {
    /// The steps this call is about to take, from its evaluated arguments.
    fn evaluated_steps(
        &self,
        engine_state: &EngineState,
        stack: &mut Stack,
        call: &Call,
        facts: &PathFacts,
        has_input: bool,
    ) -> Result<Vec<Step>, ShellError> {
        let name = self.inner.name().to_string();
        let values: Vec<Value> = call.rest(engine_state, stack, 0)?;
        let texts: Vec<Option<String>> = values.iter().map(value_text).collect();
        if name == "run-external" {
            return Ok(self.external_steps(engine_state, stack, &texts, has_input));
        }
        let Some(class) = classify_builtin(&name) else {
            let mut step = Step::new(name.clone(), name, Category::Unknown);
            step.raise(Verdict::Confirm, "a command the policy does not know");
            return Ok(vec![step]);
        };
        let literal: Vec<String> = texts.iter().flatten().cloned().collect();
        let mut command = name.clone();
        for text in &literal {
            command.push(' ');
            command.push_str(text);
        }
        let mut step = Step::new(name.clone(), command, class.category);
        if let Some(reason) = class.forbidden {
            step.raise(Verdict::Block, reason);
        }
        let expand = |raw: &str| expand_glob(facts, raw);
        match class.targets {
            Targets::None => {}
            Targets::Paths => {
                let access = match class.category {
                    Category::Delete => Access::Delete,
                    Category::Write => Access::Write,
                    _ => Access::Read,
                };
                for raw in &literal {
                    for path in expand(raw) {
                        step.targets.push(Target::new(access, path));
                    }
                }
            }
            Targets::CopyLike => {
                if let Some((dest, sources)) = literal.split_last() {
                    for raw in sources {
                        for path in expand(raw) {
                            step.targets.push(Target::new(Access::Read, path.clone()));
                            if name == "mv" {
                                step.targets.push(Target::new(Access::Delete, path));
                            }
                        }
                    }
                    step.targets.push(Target::new(
                        Access::Write,
                        facts.resolve(dest).to_string_lossy(),
                    ));
                }
            }
            Targets::Url => {
                if let Some(url) = literal.first() {
                    step.targets
                        .push(Target::new(Access::Host, externals::host_of(url)));
                }
                if matches!(name.as_str(), "http post" | "http put" | "http patch") {
                    step.targets.push(Target::new(Access::Send, "request body"));
                }
                if let Some(socket) = call.get_flag::<String>(engine_state, stack, "unix-socket")? {
                    let verdict = if ["docker", "containerd", "podman"]
                        .iter()
                        .any(|d| socket.contains(d))
                    {
                        Verdict::Block
                    } else {
                        Verdict::Confirm
                    };
                    step.raise(verdict, format!("talks to the local socket {socket} (a container daemon's socket is as good as root)"));
                }
            }
        }
        if name == "rm" {
            step.recursive = call.has_flag(engine_state, stack, "recursive")?;
        }
        if matches!(name.as_str(), "with-env" | "load-env")
            && let Some(Value::Record { val, .. }) = values.first()
        {
            for key in val.columns() {
                if super::code_injection_variable(key) {
                    step.raise(
                        Verdict::Block,
                        format!("sets {key}, which makes programs load or run other code"),
                    );
                }
            }
        }
        Ok(vec![step])
    }

    fn external_steps(
        &self,
        engine_state: &EngineState,
        stack: &mut Stack,
        texts: &[Option<String>],
        has_input: bool,
    ) -> Vec<Step> {
        let Some(Some(program)) = texts.first() else {
            let mut step = Step::new("^?", "^<not a string>", Category::Unknown);
            step.raise(Verdict::Confirm, "the program name is not a string");
            return vec![step];
        };
        let args: Vec<Arg> = texts[1..]
            .iter()
            .map(|t| match t {
                Some(text) => Arg::Literal(text.clone()),
                None => Arg::Dynamic("<value>".into()),
            })
            .collect();
        let mut plan = externals::classify(program, &args);
        if plan.reads_program_from_stdin
            && has_input
            && let Some(first) = plan.steps.first_mut()
        {
            first.raise(
                Verdict::Block,
                "pipes data into an interpreter, which runs it as code",
            );
        }
        // `nu -c '<script>'`: judged as Nushell, step by step.
        for script in &plan.nested_nu {
            let cwd = self.rails.facts.cwd().to_path_buf();
            let inner = match super::plan_in(engine_state, script, &cwd) {
                Ok(inner) => inner,
                Err(_) => continue,
            };
            let facts = self.rails.facts.clone();
            let worst = self.rails.with_judge(&facts, |judge| judge.decide(&inner));
            if worst.verdict >= Verdict::Block
                && let Some(first) = plan.steps.first_mut()
            {
                let reason = worst
                    .deciding_rows()
                    .next()
                    .map(|r| format!("its nu script would {}: {}", r.command, r.reason))
                    .unwrap_or_default();
                first.raise(Verdict::Block, reason);
            }
        }
        // A script this run wrote (a download) and now runs.
        for step in &mut plan.steps {
            let runs_written = step.targets.iter().any(|t| {
                t.access == Access::Run
                    && self
                        .rails
                        .written_this_run(&self.rails.facts.resolve(&t.value))
            });
            if runs_written {
                step.raise(Verdict::Block, "runs a script written earlier in this run");
            }
        }
        // Code-injection variables in the environment the program gets.
        for name in stack.get_env_var_names(engine_state) {
            if super::code_injection_variable(&name)
                && let Some(first) = plan.steps.first_mut()
            {
                first.raise(
                    Verdict::Block,
                    format!(
                        "the environment sets {name}, which makes programs load or run other code"
                    ),
                );
            }
        }
        // Variables the pipeline changed that point programs at other
        // configuration or code.
        let start_env = self.rails.start_env();
        for name in stack.get_env_var_names(engine_state) {
            // PATH has its own rule below (where the program resolves).
            if !crate::shell::redirects_configuration(&name)
                || super::code_injection_variable(&name)
                || name.eq_ignore_ascii_case("PATH")
            {
                continue;
            }
            let now = stack
                .get_env_var(engine_state, &name)
                .and_then(|v| v.coerce_string().ok());
            let before = start_env.iter().find(|(n, _)| *n == name).map(|(_, v)| v);
            if now.as_ref() != before
                && let Some(first) = plan.steps.first_mut()
            {
                first.raise(
                    Verdict::Confirm,
                    format!(
                        "the pipeline set {name}, which points ^{program} at other configuration or code"
                    ),
                );
            }
        }
        // A program found through a PATH the pipeline changed.
        if !program.contains('/')
            && let Some(dir) = self.resolve_in_session_path(engine_state, stack, program)
            && !self.rails.trusted_path.contains(&dir)
            && let Some(first) = plan.steps.first_mut()
        {
            first.raise(
                Verdict::Confirm,
                format!(
                    "^{program} would run from {}, a directory added to PATH",
                    dir.display()
                ),
            );
        }
        plan.steps
    }

    fn resolve_in_session_path(
        &self,
        engine_state: &EngineState,
        stack: &Stack,
        program: &str,
    ) -> Option<PathBuf> {
        let path = stack.get_env_var(engine_state, "PATH")?;
        let dirs: Vec<PathBuf> = match path {
            Value::List { vals, .. } => vals
                .iter()
                .filter_map(|v| v.as_str().ok())
                .map(PathBuf::from)
                .collect(),
            Value::String { val, .. } => std::env::split_paths(val).collect(),
            _ => return None,
        };
        dirs.into_iter().find(|d| d.join(program).is_file())
    }
}

/// Whether this kernel can enforce a per-external sandbox (asked once).
fn external_sandbox_available() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    *AVAILABLE.get_or_init(|| sandbox::probe().can_sandbox())
}

/// See [`Guardrails::exec_spec`].
fn external_spec(policy: &Policy, steps: &[Step], facts: &PathFacts) -> Option<ExecSpec> {
    if steps.iter().any(|s| s.category == Category::Privileged) {
        // sudo and friends need setuid, which the sandbox's no_new_privs
        // takes away; the user approved running them as they are.
        return None;
    }
    if steps.iter().all(|s| s.category == Category::Read) {
        let mut spec = ExecSpec::read_only();
        spec.local_sockets = steps
            .iter()
            .any(|s| externals::reads_through_a_daemon(&s.name));
        return Some(spec);
    }
    let network = policy.network || steps.iter().any(|s| s.category == Category::Network);
    let writes_known = |s: &Step| {
        s.targets
            .iter()
            .any(|t| matches!(t.access, Access::Write | Access::Delete))
    };
    // A program of unknown effect, or a write whose targets are not known
    // (`git commit`), gets the mode's writable roots.
    let unknown_effect = steps.iter().any(|s| match s.category {
        Category::Exec | Category::Unknown | Category::Process => true,
        Category::Write | Category::Delete => !writes_known(s),
        _ => false,
    });
    // `.git` is writable only to an approved git command.
    let git = steps.iter().any(|s| s.name == "^git");
    let targets: Vec<PathBuf> = if unknown_effect {
        match policy.sandbox {
            SandboxMode::Off => return None,
            SandboxMode::ReadOnly => Vec::new(),
            SandboxMode::WorkspaceWrite => facts.writable_roots().to_vec(),
        }
    } else {
        steps
            .iter()
            .flat_map(|s| &s.targets)
            .filter(|t| matches!(t.access, Access::Write | Access::Delete))
            .filter_map(|t| writable_for(&facts.resolve(&t.value), t.access))
            .collect()
    };
    let mut writable: Vec<PathBuf> = Vec::new();
    let mut protected: Vec<PathBuf> = Vec::new();
    for target in targets {
        for path in facts.protected_around(&target) {
            if git && path.file_name().is_some_and(|n| n == ".git") {
                continue;
            }
            if !protected.contains(&path) {
                protected.push(path);
            }
        }
        if !writable.contains(&target) {
            writable.push(target);
        }
    }
    Some(ExecSpec {
        writable,
        network,
        protected,
        nested: false,
        local_sockets: unknown_effect || network,
        process_view: false,
        broker: None,
    })
}

/// What must be writable to change `path`: an existing file or directory
/// itself for a write; for a delete, or a path that does not exist yet,
/// the nearest existing directory above it.
fn writable_for(path: &Path, access: Access) -> Option<PathBuf> {
    if path.exists() && access == Access::Write {
        return Some(path.to_path_buf());
    }
    let mut dir = path.parent();
    while let Some(d) = dir {
        if d.is_dir() {
            return Some(d.to_path_buf());
        }
        dir = d.parent();
    }
    None
}

/// A value as the text a path or program argument would be.
fn value_text(value: &Value) -> Option<String> {
    match value {
        Value::String { val, .. } | Value::Glob { val, .. } => Some(val.clone()),
        Value::Int { val, .. } => Some(val.to_string()),
        Value::Float { val, .. } => Some(val.to_string()),
        Value::Filesize { val, .. } => Some(val.get().to_string()),
        _ => None,
    }
}

/// A path argument with its glob expanded (as the command will), or the
/// resolved path itself; a pattern that matches nothing stays a pattern.
fn expand_glob(facts: &PathFacts, raw: &str) -> Vec<String> {
    let resolved = facts.resolve(raw);
    let text = resolved.to_string_lossy().into_owned();
    if !super::paths::has_glob(raw) {
        return vec![text];
    }
    let Ok(paths) = nu_glob::glob(&text, nu_glob::Uninterruptible) else {
        return vec![text];
    };
    let mut found: Vec<String> = paths
        .flatten()
        .take(10_000)
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    // The pattern itself is judged too: it says where the wildcard lands.
    found.push(text);
    found
}

/// The names of builtins that get a guard: everything that is not a pure
/// read, plus the reads that take paths or URLs (sensitive files).
fn needs_guard(name: &str) -> bool {
    match classify_builtin(name) {
        Some(class) => {
            class.category != Category::Read
                || class.forbidden.is_some()
                || class.targets != Targets::None
        }
        None => true,
    }
}

/// A standard engine whose side-effecting builtins are guarded by `rails`.
pub fn guarded_engine(rails: Arc<Guardrails>) -> Engine {
    let base = Engine::standard().state();
    let mut guards: Vec<Box<dyn Command>> = Vec::new();
    let mut seen = HashSet::new();
    for index in 0..base.num_decls() {
        let decl = base.get_decl(DeclId::new(index));
        if decl.command_type() != CommandType::Builtin
            && decl.command_type() != CommandType::Keyword
        {
            continue;
        }
        let name = decl.name().to_string();
        if decl.command_type() == CommandType::Keyword || !needs_guard(&name) || !seen.insert(name)
        {
            continue;
        }
        guards.push(Box::new(Guard {
            inner: decl.clone_box(),
            rails: rails.clone(),
        }));
    }
    Engine::with_commands(guards).with_hooks(rails)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace() -> (tempfile::TempDir, PathFacts) {
        let dir = tempfile::tempdir().expect("temp dir");
        let ws = dir.path().join("work");
        std::fs::create_dir_all(ws.join(".git")).expect(".git");
        std::fs::create_dir_all(ws.join("build")).expect("build");
        let facts = PathFacts::new(ws.clone(), None, std::slice::from_ref(&ws), &[], &[]);
        (dir, facts)
    }

    fn step(name: &str, category: Category, targets: &[(Access, &str)]) -> Step {
        let mut step = Step::new(name, name, category);
        for (access, value) in targets {
            step.targets.push(Target::new(*access, *value));
        }
        step
    }

    #[test]
    fn only_a_builtin_write_or_delete_on_unknown_paths_is_asked_when_it_runs() {
        let dynamic = |name: &str, category: Category| {
            let mut step = step(name, category, &[]);
            step.dynamic = true;
            step
        };
        assert!(asked_when_it_runs(&dynamic("rm", Category::Delete)));
        assert!(asked_when_it_runs(&dynamic("mkdir", Category::Write)));
        assert!(!asked_when_it_runs(&step("rm", Category::Delete, &[])));
        assert!(!asked_when_it_runs(&dynamic("^sh", Category::Exec)));
        assert!(!asked_when_it_runs(&dynamic("^rm", Category::Delete)));
        assert!(!asked_when_it_runs(&dynamic(
            "<dynamic>",
            Category::Unknown
        )));
        assert!(!asked_when_it_runs(&dynamic("o>", Category::Write)));
    }

    #[test]
    fn each_external_gets_the_sandbox_of_its_verdict() {
        let (_dir, facts) = workspace();
        let ws = facts.cwd().to_path_buf();
        let policy = Policy::default();
        let spec = |steps: &[Step]| external_spec(&policy, steps, &facts);

        // A read: nothing writable, no network.
        let read = step("^cat", Category::Read, &[(Access::Read, "notes.md")]);
        assert_eq!(spec(&[read]), Some(ExecSpec::read_only()));
        // A read that asks a daemon keeps unix sockets, and nothing else.
        let docker = step("^docker", Category::Read, &[]);
        let got = spec(&[docker]).expect("a spec");
        assert!(got.local_sockets && got.is_read_only(), "{got:?}");

        // An approved write: its targets (the nearest existing directory
        // of a new file), with `.git` kept read-only.
        let write = step(
            "^cp",
            Category::Write,
            &[(Access::Read, "a"), (Access::Write, "build/new.txt")],
        );
        let got = spec(&[write]).expect("a spec");
        assert_eq!(got.writable, vec![ws.join("build")]);
        assert!(!got.network);
        // A write with known targets reaches no daemon.
        assert!(!got.local_sockets);
        let write_root = step("^sh", Category::Write, &[(Access::Write, "new.txt")]);
        let got = spec(&[write_root]).expect("a spec");
        assert_eq!(got.writable, vec![ws.clone()]);
        assert!(got.protected.contains(&ws.join(".git")), "{got:?}");

        // A program of unknown effect: the mode's roots; a write whose
        // targets are unknown too.
        let make = step("^make", Category::Exec, &[]);
        let got = spec(&[make]).expect("a spec");
        assert_eq!(got.writable, vec![ws.clone()]);
        // An approved program of unknown effect may talk to daemons.
        assert!(got.local_sockets);
        let commit = step("^git", Category::Write, &[]);
        let got = spec(&[commit]).expect("a spec");
        assert_eq!(got.writable, vec![ws.clone()]);
        // `.git` is writable to git alone.
        assert!(!got.protected.contains(&ws.join(".git")), "{got:?}");

        // The network only for a network step (or a policy that allows it).
        let curl = step("^curl", Category::Network, &[(Access::Host, "x.example")]);
        let got = spec(&[curl]).expect("a spec");
        assert!(got.network && got.writable.is_empty());

        // sudo is started as it is: no_new_privs would break it.
        let sudo = step("^sudo", Category::Privileged, &[]);
        assert_eq!(spec(&[sudo]), None);

        // With the sandbox off, an approved program of unknown effect runs
        // with the user's rights; a read is still read-only.
        let off = Policy {
            sandbox: SandboxMode::Off,
            ..Policy::default()
        };
        let make = step("^make", Category::Exec, &[]);
        assert_eq!(external_spec(&off, &[make], &facts), None);
        let read = step("^cat", Category::Read, &[]);
        assert_eq!(
            external_spec(&off, &[read], &facts),
            Some(ExecSpec::read_only())
        );
    }
}
