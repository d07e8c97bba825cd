//! A session: one cloned engine and its stack, run after run.

use std::{
    panic::{AssertUnwindSafe, catch_unwind},
    path::{Path, PathBuf},
    sync::{
        Arc, Mutex,
        atomic::AtomicBool,
        mpsc::{self, RecvTimeoutError},
    },
    time::{Duration, Instant},
};

use nu_protocol::{
    PipelineData, ShellError, Signals, Span, Value, VarId,
    ast::Block,
    debugger::WithoutDebug,
    engine::{
        Command, CurrentJob, EngineState, Job, Jobs, Mailbox, Stack, StateWorkingSet, ThreadJob,
    },
    process::ExitStatusGuard,
};

use super::{
    CancelToken, Diagnostic, Engine, EnvFilter, Limits, Outcome, OutputCut, StopReason,
    cancel::ProcessGroups,
    collect::{Collected, collect},
    engine::OUT_VARIABLE,
    glob::Utf8Glob,
    print::{Print, PrintSink},
    stdout::StdoutPipe,
    worker::Worker,
};

/// How often the supervisor checks for cancel, timeout and new processes.
const POLL_INTERVAL: Duration = Duration::from_millis(20);
/// How long an interrupted evaluation may take to wind down.
const STOP_GRACE: Duration = Duration::from_secs(2);
/// PATH for a caller that has none.
const DEFAULT_PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/// Where a session starts: the caller's cwd and environment.
#[derive(Clone, Debug)]
pub struct SessionSeed {
    pub cwd: PathBuf,
    /// The caller's variables, before filtering.
    pub env: Vec<(String, Value)>,
    pub filter: EnvFilter,
}

impl SessionSeed {
    /// Seed with a cwd and no environment.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        SessionSeed {
            cwd: cwd.into(),
            env: Vec::new(),
            filter: EnvFilter::default(),
        }
    }

    /// Seed from this process: its cwd and its (UTF-8) environment.
    pub fn from_process() -> std::io::Result<Self> {
        let env = std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .map(|(k, v)| (k, Value::string(v, Span::unknown())))
            .collect();
        Ok(SessionSeed {
            cwd: std::env::current_dir()?,
            env,
            filter: EnvFilter::default(),
        })
    }

    pub fn with_env(mut self, env: Vec<(String, Value)>) -> Self {
        self.env = env;
        self
    }
}

/// One agent session: state persists across [`Session::run`] calls.
pub struct Session {
    /// The engine sessions start from (to rebuild after an abandoned run).
    base: Engine,
    /// The session's engine; out only while a run holds it.
    engine: Option<EngineState>,
    stack: Stack,
    worker: Option<Worker>,
    sink: PrintSink,
    seed: SessionSeed,
    out_var: Option<VarId>,
    runs: usize,
    /// The next run's input (`$in`), if it has one.
    input: Option<Value>,
    /// Where the stack's stdout goes: earlier statements' external output.
    stdout: Option<StdoutPipe>,
}

/// What the evaluation thread hands back.
struct Evaluated {
    engine: EngineState,
    stack: Stack,
    result: Result<Result<Collected, Failure>, String>,
}

/// A run that ended in an error.
struct Failure {
    diagnostic: Diagnostic,
    exit_code: Option<i32>,
    /// The error is the interrupt that a stop (cancel, timeout) caused.
    interrupted: bool,
}

impl Session {
    /// A new session on `engine`, in `seed.cwd`, with the allowed part of
    /// `seed.env`.
    pub fn new(engine: &Engine, seed: SessionSeed) -> Result<Session, Diagnostic> {
        let sink = PrintSink::default();
        let (state, out_var) = prepare_engine(engine, &sink)?;
        // Without the pipe such output is dropped, as before it existed.
        let stdout = StdoutPipe::start(sink.clone()).ok();
        let stack = with_stdout(fresh_stack(&seed, &seed.cwd, out_var)?, stdout.as_ref());
        Ok(Session {
            base: engine.clone(),
            engine: Some(state),
            stack,
            worker: None,
            sink,
            seed,
            out_var,
            runs: 0,
            input: None,
            stdout,
        })
    }

    /// The session's engine, with the definitions of earlier runs (the
    /// base engine in the moment a run holds it).
    pub fn engine_state(&self) -> &EngineState {
        self.engine()
    }

    /// The session's engine (the base engine in the moment a run holds it).
    fn engine(&self) -> &EngineState {
        self.engine.as_ref().unwrap_or_else(|| self.base.state())
    }

    /// The session's working directory.
    pub fn cwd(&self) -> PathBuf {
        self.engine()
            .cwd(Some(&self.stack))
            .map(|p| p.into_std_path_buf())
            .unwrap_or_else(|_| self.seed.cwd.clone())
    }

    /// The full value of run `index` (`$out.N`).
    pub fn out(&self, index: usize) -> Option<Value> {
        let var = self.out_var?;
        match self.stack.get_var(var, Span::unknown()).ok()? {
            Value::List { vals, .. } => vals.get(index).cloned(),
            _ => None,
        }
    }

    /// Start `$out` with `values` (the results of runs made elsewhere, e.g.
    /// in earlier sandbox workers): the next run is `$out.{values.len()}`.
    pub fn carry_out(&mut self, values: Vec<Value>) {
        self.runs = values.len();
        if let Some(var) = self.out_var {
            self.stack
                .add_var(var, Value::list(values, Span::unknown()));
        }
    }

    /// How many runs `$out` holds.
    pub fn runs(&self) -> usize {
        self.runs
    }

    /// Append `value` to `$out` as the next run's (a run made elsewhere).
    pub fn push_out(&mut self, value: Value) {
        self.runs += 1;
        self.record_out(value);
    }

    /// Move the session to `cwd` (an existing absolute directory), as
    /// `cd` would.
    pub fn set_cwd(&mut self, cwd: &Path) -> Result<(), Diagnostic> {
        if !cwd.is_absolute() || !cwd.is_dir() {
            return Err(Diagnostic::plain(
                "nu_agent::shell::cwd",
                format!("{} is not an existing absolute directory", cwd.display()),
                None,
            ));
        }
        self.stack.add_env_var(
            "PWD".into(),
            Value::string(cwd.to_string_lossy().into_owned(), Span::unknown()),
        );
        Ok(())
    }

    /// Learn what `source` declares (variables with their types, `def`s,
    /// aliases, modules and overlays) without running it, as if it had
    /// run in `cwd`: a session that plans pipelines another process runs
    /// sees that process's definitions. Nothing is learned from source
    /// that does not parse.
    pub fn declare(&mut self, source: &str, cwd: &Path) -> Result<(), Diagnostic> {
        let Some(engine) = self.engine.as_mut() else {
            return Ok(());
        };
        let pwd = Value::string(cwd.to_string_lossy().into_owned(), Span::unknown());
        engine.add_env_var("PWD".into(), pwd);
        parse_into(engine, "agent", source).map(|_| ())
    }

    /// A handle on the pipe whose lines join the runs' printed output.
    pub(crate) fn stdout_file(&self) -> Option<std::fs::File> {
        self.stdout.as_ref().and_then(StdoutPipe::file)
    }

    /// Give the next run `input` as its pipeline input (`$in`), as
    /// `ls | agent run "length"` does.
    pub fn set_input(&mut self, input: Value) {
        self.input = Some(input);
    }

    /// Run `source` to completion or until a limit stops it.
    pub fn run(&mut self, source: &str, limits: &Limits) -> Outcome {
        self.run_cancellable(source, limits, &CancelToken::new())
    }

    /// Run `source`; cancelling `cancel` from another thread stops it and
    /// kills every process it started.
    pub fn run_cancellable(
        &mut self,
        source: &str,
        limits: &Limits,
        cancel: &CancelToken,
    ) -> Outcome {
        let Some(hooks) = self.base.hooks().cloned() else {
            return self.run_unhooked(source, limits, cancel);
        };
        let cwd = self.cwd();
        if let Err(diagnostic) = hooks.before_run(self.engine(), source, &cwd) {
            let index = self.runs;
            self.runs += 1;
            return self.finish_failed(index, Instant::now(), diagnostic);
        }
        let mut outcome = self.run_unhooked(source, limits, cancel);
        hooks.after_run(&mut outcome);
        outcome
    }

    fn run_unhooked(&mut self, source: &str, limits: &Limits, cancel: &CancelToken) -> Outcome {
        let started = Instant::now();
        let index = self.runs;
        self.runs += 1;
        // Where the run starts; the session restarts here if it is abandoned.
        let cwd_before = self
            .stack
            .get_env_var(self.engine(), "PWD")
            .and_then(|pwd| pwd.as_str().ok())
            .map_or_else(|| self.seed.cwd.clone(), PathBuf::from);

        let signals = Signals::new(Arc::new(AtomicBool::new(false)));
        let mut engine = match self.engine.take() {
            Some(engine) => engine,
            None => match prepare_engine(&self.base, &self.sink) {
                Ok((engine, _)) => engine,
                Err(diagnostic) => return self.finish_failed(index, started, diagnostic),
            },
        };
        engine.set_signals(signals.clone());
        let (mail_tx, mail_rx) = mpsc::channel();
        let thread_job =
            ThreadJob::new(signals.clone(), Some(format!("agent run {index}")), mail_tx);
        let job_id = match engine.jobs.lock() {
            Ok(mut jobs) => jobs.add_job(Job::Thread(thread_job.clone())),
            Err(_) => {
                self.engine = None;
                return self.finish_failed(
                    index,
                    started,
                    Diagnostic::plain(
                        "nu_agent::shell::jobs",
                        "the session's job table is unusable after an earlier crash",
                        Some("start a new session".into()),
                    ),
                );
            }
        };
        engine.current_job = CurrentJob {
            id: job_id,
            background_thread_job: Some(thread_job.clone()),
            mailbox: Arc::new(Mutex::new(Mailbox::new(mail_rx))),
        };

        let groups = ProcessGroups::default();
        let stop = {
            let signals = signals.clone();
            let thread_job = thread_job.clone();
            let groups = groups.clone();
            move || {
                signals.trigger();
                groups.record(thread_job.collect_pids());
                groups.kill_all();
            }
        };

        let stack = std::mem::replace(&mut self.stack, Stack::new());
        let (done_tx, done_rx) = mpsc::channel::<Evaluated>();
        let source_owned = source.to_string();
        let input = self.input.take();
        let max_bytes = limits.max_output_bytes;
        let worker_stop = stop.clone();
        let job = Box::new(move || {
            let mut engine = engine;
            let mut stack = stack;
            let result = catch_unwind(AssertUnwindSafe(|| {
                evaluate(
                    &mut engine,
                    &mut stack,
                    &source_owned,
                    input,
                    max_bytes,
                    &worker_stop,
                )
            }))
            .map_err(panic_message);
            let _ = done_tx.send(Evaluated {
                engine,
                stack,
                result,
            });
        });
        if let Err(err) = self.submit(job) {
            self.stack = with_stdout(
                fresh_stack(&self.seed, &self.seed.cwd, self.out_var)
                    .unwrap_or_else(|_| Stack::new().capture_all()),
                self.stdout.as_ref(),
            );
            return self.finish_failed(
                index,
                started,
                Diagnostic::plain(
                    "nu_agent::shell::thread",
                    format!("could not start the evaluation thread: {err}"),
                    None,
                ),
            );
        }

        // Supervise: cancel, timeout, and remember every process group.
        let mut stopped: Option<StopReason> = None;
        let mut stopped_at: Option<Instant> = None;
        let evaluated = loop {
            match done_rx.recv_timeout(POLL_INTERVAL) {
                Ok(evaluated) => break Some(evaluated),
                Err(RecvTimeoutError::Disconnected) => break None,
                Err(RecvTimeoutError::Timeout) => {
                    groups.record(thread_job.collect_pids());
                    if stopped.is_none() {
                        if cancel.is_cancelled() {
                            stopped = Some(StopReason::Cancelled);
                        } else if let Some(limit) = limits.timeout
                            && started.elapsed() >= limit
                        {
                            stopped = Some(StopReason::TimedOut(limit));
                        }
                        if stopped.is_some() {
                            stopped_at = Some(Instant::now());
                        }
                    }
                    if let Some(at) = stopped_at {
                        // Keep killing: the evaluation may start processes
                        // before it notices the interrupt.
                        stop();
                        if at.elapsed() > STOP_GRACE {
                            break None;
                        }
                    }
                }
            }
        };
        if stopped.is_some() {
            stop();
        }

        let Some(Evaluated {
            engine,
            stack,
            result,
        }) = evaluated
        else {
            // The evaluation is stuck (or its thread died): give it up and
            // start the session state over where the run started.
            self.worker = None;
            self.stack = with_stdout(
                fresh_stack(&self.seed, &cwd_before, self.out_var)
                    .or_else(|_| fresh_stack(&self.seed, &self.seed.cwd, self.out_var))
                    .unwrap_or_else(|_| Stack::new().capture_all()),
                self.stdout.as_ref(),
            );
            let mut outcome = self.finish_failed(
                index,
                started,
                Diagnostic::plain(
                    "nu_agent::shell::abandoned",
                    "the pipeline did not stop after it was interrupted",
                    Some(
                        "avoid commands that block without reading input (named pipes, devices)"
                            .into(),
                    ),
                ),
            );
            outcome.stopped = Some(StopReason::Abandoned);
            return outcome;
        };
        if let Ok(mut jobs) = engine.jobs.lock() {
            jobs.remove_job(job_id);
        }
        self.engine = Some(engine);
        self.stack = stack;

        if let Some(stdout) = &self.stdout {
            stdout.flush();
        }
        let mut outcome = Outcome {
            value: Value::nothing(Span::unknown()),
            index,
            stderr: None,
            exit_code: None,
            printed: self.sink.take(),
            cwd: PathBuf::new(),
            error: None,
            stopped,
            duration: Duration::ZERO,
        };
        match result {
            Ok(Ok(collected)) => {
                if let Some(part) = collected.cut
                    && outcome.stopped.is_none()
                {
                    outcome.stopped = Some(StopReason::OutputCapped(OutputCut {
                        limit: limits.max_output_bytes,
                        part,
                    }));
                }
                outcome.value = collected.value;
                outcome.stderr = collected.stderr;
                outcome.exit_code = collected.exit_code;
            }
            Ok(Err(failure)) => {
                outcome.exit_code = failure.exit_code;
                // An interrupt after a stop is explained by the stop reason.
                if !(failure.interrupted && outcome.stopped.is_some()) {
                    outcome.error = Some(failure.diagnostic);
                }
            }
            Err(panic) => {
                outcome.error = Some(Diagnostic::plain(
                    "nu_agent::shell::panic",
                    format!("the evaluation crashed: {panic}"),
                    Some("the session is still usable; try a different command".into()),
                ));
                outcome.stopped = Some(StopReason::Panicked(panic));
            }
        }
        self.record_out(outcome.value.clone());
        outcome.cwd = self.cwd();
        outcome.duration = started.elapsed();
        outcome
    }

    /// Give `job` to the session's evaluation thread, starting one if needed.
    fn submit(&mut self, job: Box<dyn FnOnce() + Send>) -> std::io::Result<()> {
        let worker = match self.worker.take() {
            Some(worker) => worker,
            None => Worker::spawn()?,
        };
        match worker.submit(job) {
            Ok(()) => {
                self.worker = Some(worker);
                Ok(())
            }
            // The thread is gone (it cannot panic, but be sure): a new one.
            Err(job) => {
                let worker = Worker::spawn()?;
                let result = worker
                    .submit(job)
                    .map_err(|_| std::io::Error::other("the evaluation thread exited at once"));
                self.worker = Some(worker);
                result
            }
        }
    }

    fn finish_failed(&mut self, index: usize, started: Instant, error: Diagnostic) -> Outcome {
        self.record_out(Value::nothing(Span::unknown()));
        Outcome {
            value: Value::nothing(Span::unknown()),
            index,
            stderr: None,
            exit_code: None,
            printed: self.sink.take(),
            cwd: self.cwd(),
            error: Some(error),
            stopped: None,
            duration: started.elapsed(),
        }
    }

    /// Append a run's value to `$out`, keeping `$out.N` aligned with run N.
    /// Pushes in place: the list is copied only if the model shared it
    /// (`let keep = $out`).
    fn record_out(&mut self, value: Value) {
        let Some(var) = self.out_var else { return };
        let runs_before = self.runs.saturating_sub(1);
        if let Some(Value::List { vals, .. }) = self.stack.get_var_mut(var) {
            let vals = vals.to_mut();
            // Runs lost with an abandoned stack leave holes filled with nothing.
            vals.resize(runs_before.max(vals.len()), Value::nothing(Span::unknown()));
            vals.push(value);
            return;
        }
        let mut vals = vec![Value::nothing(Span::unknown()); runs_before];
        vals.push(value);
        self.stack.add_var(var, Value::list(vals, Span::unknown()));
    }
}

/// Parse, compile, evaluate and collect, on the evaluation thread.
fn evaluate(
    engine: &mut EngineState,
    stack: &mut Stack,
    source: &str,
    input: Option<Value>,
    max_bytes: usize,
    stop: &dyn Fn(),
) -> Result<Collected, Failure> {
    // Some commands (`http *`, `source`'s parse-time lookups) read PWD from
    // the engine rather than the stack: keep both the same.
    if let Some(pwd) = stack.get_env_var(engine, "PWD").cloned() {
        engine.add_env_var("PWD".into(), pwd);
    }
    let block = parse_into(engine, "agent", source).map_err(|diagnostic| Failure {
        diagnostic,
        exit_code: None,
        interrupted: false,
    })?;
    let span = block.span.unwrap_or_else(Span::unknown);
    let as_failure = |engine: &EngineState, e: ShellError| Failure {
        exit_code: e.external_exit_code().map(|c| c.item),
        interrupted: matches!(e, ShellError::Interrupted { .. }),
        diagnostic: Diagnostic::from_nu(engine, &e),
    };
    let input = input.map_or_else(PipelineData::empty, |value| {
        PipelineData::value(value, None)
    });
    let data = nu_engine::eval_block::<WithoutDebug>(engine, stack, &block, input)
        .map_err(|e| as_failure(engine, e))?;
    let mut collected =
        collect(data.body, span, max_bytes, stop).map_err(|e| as_failure(engine, e))?;
    if collected.exit_code.is_none() {
        collected.exit_code = upstream_exit_code(data.exit, span);
    }
    Ok(collected)
}

/// The first failing exit code of the externals earlier in the pipeline
/// (`^make | lines`), once the output is drained. SIGPIPE is how a producer
/// normally ends when its reader stops early, so it is not a failure.
fn upstream_exit_code(guards: Vec<Option<ExitStatusGuard>>, span: Span) -> Option<i32> {
    const SIGPIPE_CODE: i32 = -13;
    guards.into_iter().flatten().find_map(|guard| {
        let code = guard
            .exit_status_future
            .lock()
            .ok()?
            .wait(span)
            .ok()?
            .code();
        (code != 0 && code != SIGPIPE_CODE).then_some(code)
    })
}

/// The base engine with the session's own job table and `print` sink;
/// also returns the id of `$out`.
fn prepare_engine(
    base: &Engine,
    sink: &PrintSink,
) -> Result<(EngineState, Option<VarId>), Diagnostic> {
    let mut state = base.state().clone();
    // Jobs started inside the session are the session's own.
    state.jobs = Arc::new(Mutex::new(Jobs::default()));
    let mut working_set = StateWorkingSet::new(&state);
    working_set.add_decl(Box::new(Print::new(sink.clone())) as Box<dyn Command>);
    // `glob` skips names that are not UTF-8, as `ls` does (around the
    // engine's own `glob`, its guard included).
    if let Some(id) = state.find_decl(b"glob", &[]) {
        let glob = Utf8Glob::new(state.get_decl(id).clone_box(), sink.clone());
        working_set.add_decl(Box::new(glob) as Box<dyn Command>);
    }
    let out_var = working_set.find_variable(format!("${OUT_VARIABLE}").as_bytes());
    let delta = working_set.render();
    state
        .merge_delta(delta)
        .map_err(|e| Diagnostic::from_nu(&state, &e))?;
    Ok((state, out_var))
}

/// Parse and compile `source` and merge its definitions into `engine`.
/// Nothing is merged (so nothing can run) when it fails to parse or compile.
fn parse_into(
    engine: &mut EngineState,
    name: &str,
    source: &str,
) -> Result<Arc<Block>, Diagnostic> {
    let (block, delta) = {
        let mut working_set = StateWorkingSet::new(engine);
        let block = nu_parser::parse(&mut working_set, Some(name), source.as_bytes(), false);
        if let Some(err) = working_set.parse_errors.first() {
            return Err(Diagnostic::from_working_set(&working_set, err));
        }
        if let Some(err) = working_set.compile_errors.first() {
            return Err(Diagnostic::from_working_set(&working_set, err));
        }
        (block, working_set.render())
    };
    engine
        .merge_delta(delta)
        .map_err(|e| Diagnostic::from_nu(engine, &e))?;
    Ok(block)
}

/// A stack seeded with the allowed environment, `PWD` and an empty `$out`.
/// `stack` with its stdout (earlier statements' external output) going to
/// the session's pipe.
fn with_stdout(stack: Stack, stdout: Option<&StdoutPipe>) -> Stack {
    match stdout.and_then(StdoutPipe::file) {
        Some(file) => stack.stdout_file(file),
        None => stack,
    }
}

fn fresh_stack(
    seed: &SessionSeed,
    cwd: &Path,
    out_var: Option<VarId>,
) -> Result<Stack, Diagnostic> {
    if !cwd.is_absolute() || !cwd.is_dir() {
        return Err(Diagnostic::plain(
            "nu_agent::shell::cwd",
            format!(
                "the working directory {} is not an existing absolute directory",
                cwd.display()
            ),
            Some("start the session in an existing directory".into()),
        ));
    }
    let mut stack = Stack::new().capture_all();
    let mut has_path = false;
    for (name, value) in super::filter_env(seed.env.iter().cloned(), &seed.filter) {
        if name == "PWD" {
            continue;
        }
        let value = if name == "PATH" {
            has_path = true;
            path_as_list(value)
        } else {
            value
        };
        stack.add_env_var(name, value);
    }
    if !has_path {
        // A caller without PATH (a bare test harness, a cron job) still gets
        // the system directories, as a login shell would.
        stack.add_env_var(
            "PATH".into(),
            path_as_list(Value::string(DEFAULT_PATH, Span::unknown())),
        );
    }
    stack.add_env_var(
        "PWD".into(),
        Value::string(cwd.to_string_lossy().into_owned(), Span::unknown()),
    );
    if let Some(var) = out_var {
        stack.add_var(var, Value::list(Vec::new(), Span::unknown()));
    }
    Ok(stack)
}

/// nu wants PATH as a list of directories.
fn path_as_list(value: Value) -> Value {
    match value {
        Value::String {
            val, internal_span, ..
        } => Value::list(
            std::env::split_paths(&val)
                .map(|p| Value::string(p.to_string_lossy().into_owned(), internal_span))
                .collect(),
            internal_span,
        ),
        other => other,
    }
}

fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_string()
    }
}

impl Session {
    /// Pipe `value` through a nu command line (e.g. `table --width 100` or
    /// `to json`) in this session and collect the text. Used by front ends
    /// to show a value the way nu would.
    pub fn pipe_value(&self, value: Value, command: &str) -> Result<String, Diagnostic> {
        let mut engine = self.engine().clone();
        // The last run's signals may be tripped (it was cancelled).
        engine.set_signals(Signals::new(Arc::new(AtomicBool::new(false))));
        let mut stack = self.stack.clone();
        let block = parse_into(&mut engine, "agent-render", command)?;
        let result = catch_unwind(AssertUnwindSafe(|| {
            nu_engine::eval_block::<WithoutDebug>(
                &engine,
                &mut stack,
                &block,
                PipelineData::value(value, None),
            )
            .and_then(|data| data.body.collect_string("\n", &engine.get_config().clone()))
        }));
        match result {
            Ok(Ok(text)) => Ok(text),
            Ok(Err(err)) => Err(Diagnostic::from_nu(&engine, &err)),
            Err(panic) => Err(Diagnostic::plain(
                "nu_agent::shell::panic",
                panic_message(panic),
                None,
            )),
        }
    }
}
