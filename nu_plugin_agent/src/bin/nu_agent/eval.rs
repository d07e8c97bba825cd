//! `nu-agent eval`: the evaluation suite. Every task in a temp dir and
//! HOME of its own, against the scripted transcripts, the local model or an
//! OpenAI-compatible server; progress on stderr, then a table (or JSON) of
//! how each task went and the totals.

use std::{
    io::{IsTerminal, Write},
    process::ExitCode,
    sync::{Arc, Mutex},
};

use agent_core::{
    agent::{AgentEvent, BackgroundRunner, Lever, Levers, Switch},
    config::AgentConfig,
    eval::{EvalRun, Fixture, JobRunnerFactory, SharedBackend, Task, TaskEnv, TaskResult, Totals},
    jobs::{JobManager, JobStore},
    llm::{BackendKind, Catalog, ChatBackend, LocalBackend, OpenAiBackend, ScriptedBackend},
    observe::ObserveMode,
    shell::CancelToken,
};
use nu_plugin_agent::AskJobs;

use crate::common::{EXIT_FAILED, EXIT_INTERRUPTED};

/// Where the suite's own tasks are, relative to the repository.
pub const DEFAULT_TASKS: &str = "tests/eval/tasks";

/// Which model plays the agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum EvalBackend {
    /// The local GGUF model (`model.name`, or --model).
    Local,
    /// The OpenAI-compatible server of `model.url` (or --model on it).
    Openai,
    /// Each task's own transcript (`script`, or `wrong` with --wrong).
    Scripted,
}

/// What `nu-agent eval` was given.
pub struct EvalArgs {
    pub tasks: Option<String>,
    pub backend: Option<EvalBackend>,
    pub model: Option<String>,
    pub observe: ObserveMode,
    pub repeat: usize,
    pub json: bool,
    pub wrong: bool,
    pub tags: Vec<String>,
    pub max_steps: Option<usize>,
    pub no_grammar: bool,
    /// `agent.pipeline_grammar: false` for this run.
    pub no_pipeline_grammar: bool,
    /// The parts of the loop (levers) and the rules switched off for this
    /// run.
    pub without: Vec<Switch>,
    /// The parts on trial switched on for this run.
    pub with_levers: Vec<Lever>,
    pub keep: bool,
    pub task_timeout: std::time::Duration,
}

/// Run the suite; exit 0 when every run succeeded (with --wrong: when the
/// check rejected every wrong transcript; a check that errors rejects
/// nothing).
pub fn eval(args: EvalArgs, mut config: AgentConfig, cancel: &CancelToken) -> ExitCode {
    let spec = args
        .tasks
        .clone()
        .unwrap_or_else(|| DEFAULT_TASKS.to_string());
    let files = match agent_core::eval::discover(&spec) {
        Ok(files) => files,
        Err(error) => {
            eprintln!(
                "nu-agent: {error}\nhelp: pass --tasks DIR|GLOB (the suite's own tasks are in {DEFAULT_TASKS} of the repository)"
            );
            return ExitCode::from(2);
        }
    };
    let lookup = |name: &str| std::env::var_os(name);
    let backend_kind = args.backend.unwrap_or(match config.model.backend {
        BackendKind::Local => EvalBackend::Local,
        BackendKind::OpenAi => EvalBackend::Openai,
    });
    if args.wrong && backend_kind != EvalBackend::Scripted {
        eprintln!(
            "nu-agent: --wrong replays the tasks' wrong transcripts: use it with --backend scripted"
        );
        return ExitCode::from(2);
    }
    let shared = match backend_kind {
        EvalBackend::Scripted => None,
        kind => match model_backend(kind, &args, &mut config, &lookup) {
            Ok(backend) => Some(Arc::new(Mutex::new(backend))),
            Err(message) => {
                eprintln!("nu-agent: {message}\nhelp: see `nu-agent model list`");
                return ExitCode::from(EXIT_FAILED);
            }
        },
    };
    let model = match &shared {
        Some(backend) => backend.lock().map(|b| b.name()).unwrap_or_default(),
        None => "scripted".to_string(),
    };
    // What a run states so it can be repeated: the model file's sum.
    // The local model is the one `model_backend` loaded (its settings).
    let model_file = match (&shared, backend_kind) {
        (Some(_), EvalBackend::Local) => config
            .model
            .local_config(&lookup, &Catalog::builtin())
            .ok()
            .map(|local| {
                let path = local.load.path;
                let sum = agent_core::llm::sha256_of(&path)
                    .unwrap_or_else(|e| format!("unreadable: {e}"));
                (path.display().to_string(), sum)
            }),
        _ => None,
    };
    config.agent.history = false;
    let mut off: Vec<Lever> = args
        .without
        .iter()
        .filter_map(|switch| match switch {
            Switch::Lever(lever) => Some(*lever),
            Switch::Rule(_) => None,
        })
        .collect();
    if args.no_pipeline_grammar {
        off.push(Lever::PipelineGrammar);
    }
    let rules_off = args.without.iter().filter_map(|switch| match switch {
        Switch::Rule(name) => Some(*name),
        Switch::Lever(_) => None,
    });
    // Each task's options are switched by `AgentOptions::without`.
    let levers = Levers::switched(off, args.with_levers.clone()).without_rules(rules_off);
    let run = EvalRun {
        config: config.clone(),
        observe: args.observe,
        max_steps: args.max_steps,
        worker_exe: crate::common::worker_exe(),
        jobs: Some(job_runners(config.agent.jobs.max_running)),
        task_timeout: args.task_timeout,
        levers: levers.clone(),
    };
    let progress = Progress::new(files.len() * args.repeat.max(1));
    let mut results = Vec::new();
    let mut skipped = 0;
    'tasks: for path in &files {
        for repetition in 1..=args.repeat.max(1) {
            if cancel.is_cancelled() {
                break 'tasks;
            }
            let (mut fixture, task) = match Fixture::new(path) {
                Ok(loaded) => loaded,
                Err(error) => {
                    progress.line(&format!("{error}"));
                    results.push(TaskResult {
                        task: path.display().to_string(),
                        run: repetition,
                        ending: "not run".into(),
                        reason: error.to_string(),
                        ..TaskResult::default()
                    });
                    continue 'tasks;
                }
            };
            if !args.tags.is_empty() && !task.tags.iter().any(|t| args.tags.contains(t)) {
                skipped += 1;
                continue 'tasks;
            }
            let backend: Box<dyn ChatBackend> = match &shared {
                Some(shared) => Box::new(SharedBackend(shared.clone())),
                None => match transcript(&task, args.wrong) {
                    Some(backend) => Box::new(backend),
                    None => {
                        skipped += 1;
                        continue 'tasks;
                    }
                },
            };
            progress.start(&task.name);
            let watcher = progress.clone();
            let on_event = Arc::new(move |event: &AgentEvent| watcher.event(event));
            let result = run.run_task(&mut fixture, &task, repetition, backend, on_event, cancel);
            progress.finish(&result);
            if args.keep {
                progress.line(&format!("  kept: {}", fixture.keep().display()));
            }
            results.push(result);
        }
    }
    let totals = Totals::of(&results);
    let header = serde_json::json!({
        "date": chrono::Utc::now().format("%Y-%m-%d").to_string(),
        "tasks": spec,
        "backend": format!("{backend_kind:?}").to_lowercase(),
        "model": model,
        "observe": args.observe.as_str(),
        "grammar": !args.no_grammar,
        "pipeline_grammar": config.agent.pipeline_grammar
            && levers.on(Lever::PipelineGrammar)
            && !args.no_grammar,
        "read_named_files": config.agent.read_named_files && levers.on(Lever::NamedFiles),
        "without": levers.off().iter().map(|lever| lever.name()).collect::<Vec<_>>(),
        "rules_off": levers.rules_off(),
        "transcript": if args.wrong { "wrong" } else { "script" },
        "skipped": skipped,
        "threads": config.model.threads,
        "model_file": model_file.as_ref().map(|(path, _)| path),
        "model_sha256": model_file.as_ref().map(|(_, sum)| sum),
        "binary": binary_identity(),
        "settings": {
            "temperature": config.model.temperature,
            "max_tokens": config.model.max_tokens,
            "context": config.model.context,
            "max_steps": args.max_steps,
        },
    });
    print_report(&header, &results, &totals, args.json);
    if cancel.is_cancelled() {
        return ExitCode::from(EXIT_INTERRUPTED);
    }
    let all_as_expected = !results.is_empty()
        && results.iter().all(|r| {
            if args.wrong {
                !r.success && r.ending != "not run" && r.check_error.is_none()
            } else {
                r.success
            }
        });
    if all_as_expected {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_FAILED)
    }
}

/// The model backend of the run, loaded once and shared by its tasks.
fn model_backend(
    kind: EvalBackend,
    args: &EvalArgs,
    config: &mut AgentConfig,
    lookup: &dyn Fn(&str) -> Option<std::ffi::OsString>,
) -> Result<Box<dyn ChatBackend>, String> {
    let mut settings = config.model.clone().with_env(lookup);
    settings.backend = match kind {
        EvalBackend::Openai => BackendKind::OpenAi,
        _ => BackendKind::Local,
    };
    if let Some(model) = &args.model {
        settings = settings.with_model(model.clone());
    }
    config.model = settings.clone();
    match settings.backend {
        BackendKind::Local => {
            let mut local = settings
                .local_config(lookup, &Catalog::builtin())
                .map_err(|e| e.to_string())?;
            local.turn.grammar = !args.no_grammar;
            // Greedy output must not move with the machine's load: the
            // thread count is fixed for the whole run, not chosen per turn.
            if local.load.threads.is_none() {
                local.load.threads = Some(agent_core::llm::physical_cores());
            }
            config.model.threads = local.load.threads;
            let mut backend = LocalBackend::new(local);
            backend.load().map_err(|e| e.to_string())?;
            Ok(Box::new(backend))
        }
        BackendKind::OpenAi => {
            if args.no_grammar {
                return Err(
                    "--no-grammar is for the local backend (a server samples as it does)".into(),
                );
            }
            let remote = settings.openai_config(lookup).map_err(|e| e.to_string())?;
            Ok(Box::new(OpenAiBackend::new(remote)))
        }
    }
}

/// The task's transcript as a scripted model; `None` when it has no wrong
/// one and `wrong` was asked for.
fn transcript(task: &Task, wrong: bool) -> Option<ScriptedBackend> {
    let turns = if wrong {
        task.wrong.as_ref()?
    } else {
        &task.script
    };
    Some(ScriptedBackend::new(turns.iter().map(|t| t.model_text())))
}

/// Background steps run as jobs recorded in the task's state dir, in a
/// sandbox worker of this binary.
fn job_runners(max_running: usize) -> JobRunnerFactory {
    Box::new(move |env: &TaskEnv| {
        let store = JobStore::open(env.state).ok()?;
        let manager = JobManager::new(store, max_running, Box::new(|_| {}));
        let runner: Arc<dyn BackgroundRunner> = Arc::new(AskJobs {
            manager,
            policy: env.policy.clone(),
            seed: env.seed.clone(),
            max_output: env.max_output,
            worker_exe: crate::common::worker_exe(),
            approver: Some(env.approver.clone()),
            audit_dir: Some(env.state.to_path_buf()),
        });
        Some(runner)
    })
}

/// The table (or JSON) of the runs and the totals, on stdout.
fn print_report(header: &serde_json::Value, results: &[TaskResult], totals: &Totals, json: bool) {
    let mut stdout = std::io::stdout().lock();
    if json {
        let document = serde_json::json!({
            "run": header,
            "results": results,
            "totals": totals,
        });
        let _ = writeln!(stdout, "{document:#}");
        return;
    }
    let rows: Vec<serde_json::Value> = results
        .iter()
        .map(|r| {
            serde_json::json!({
                "task": r.task,
                "success": r.success,
                "reason": r.reason,
                "turns": r.turns,
                "ran": r.ran,
                "repairs": r.repairs,
                "parse errors": r.parse_errors,
                "approvals": r.approvals,
                "blocked": r.blocked,
                "prompt tokens": r.prompt_tokens,
                "completion tokens": r.completion_tokens,
                "time": format!("{:.1} s", r.seconds),
            })
        })
        .collect();
    let table = crate::common::render_json_table(&serde_json::Value::Array(rows));
    let _ = writeln!(stdout, "{}", table.trim_end());
    let _ = writeln!(
        stdout,
        "{}/{} succeeded ({:.0}%){} · {} turns · {} steps ran · {} repairs · {} parse errors · {} approvals asked · {} blocked · {} prompt + {} completion tokens (median {} per run) · {:.1} s · {} on {}, {} observations{}",
        totals.succeeded,
        totals.runs,
        totals.success_rate * 100.0,
        match totals.check_errors {
            0 => String::new(),
            n => format!(" · {n} check errors (the suite's, not the model's)"),
        },
        totals.turns,
        totals.ran,
        totals.repairs,
        totals.parse_errors,
        totals.approvals,
        totals.blocked,
        totals.prompt_tokens,
        totals.completion_tokens,
        totals.median_tokens,
        totals.seconds,
        header["model"].as_str().unwrap_or(""),
        header["backend"].as_str().unwrap_or(""),
        header["observe"].as_str().unwrap_or(""),
        if header["grammar"] == false {
            ", no grammar"
        } else {
            ""
        },
    );
}

/// Progress over the tasks on stderr: one line per task, and on a
/// terminal the step the running task is at.
#[derive(Clone)]
struct Progress {
    total: usize,
    done: Arc<Mutex<usize>>,
    terminal: bool,
}

impl Progress {
    fn new(total: usize) -> Progress {
        Progress {
            total,
            done: Arc::default(),
            terminal: std::io::stderr().is_terminal(),
        }
    }

    fn position(&self) -> String {
        let done = *self.done.lock().unwrap_or_else(|p| p.into_inner());
        let width = 20;
        let filled = (done * width).checked_div(self.total).unwrap_or(0);
        format!(
            "[{}{}] {done}/{}",
            "#".repeat(filled),
            "-".repeat(width - filled),
            self.total
        )
    }

    fn start(&self, task: &str) {
        if self.terminal {
            eprint!("\r\x1b[K{} {task} …", self.position());
        }
    }

    fn event(&self, event: &AgentEvent) {
        if self.terminal
            && let AgentEvent::Thinking { step, .. } = event
        {
            eprint!(" {step}");
        }
    }

    fn finish(&self, result: &TaskResult) {
        *self.done.lock().unwrap_or_else(|p| p.into_inner()) += 1;
        let verdict = match (&result.check_error, result.success) {
            (Some(error), _) => format!("CHECK ERROR: {error}"),
            (None, true) => "ok".to_string(),
            (None, false) => format!("FAILED: {}", result.reason),
        };
        let line = format!(
            "{} {}: {verdict} ({} turns, {:.1} s)",
            self.position(),
            result.task,
            result.turns,
            result.seconds
        );
        self.line(&line);
    }

    fn line(&self, text: &str) {
        if self.terminal {
            eprint!("\r\x1b[K");
        }
        eprintln!("{text}");
    }
}

/// This binary: its version and the SHA-256 of its file.
fn binary_identity() -> serde_json::Value {
    let sum = std::env::current_exe()
        .and_then(|exe| agent_core::llm::sha256_of(&exe))
        .unwrap_or_else(|e| format!("unreadable: {e}"));
    serde_json::json!({"version": env!("CARGO_PKG_VERSION"), "sha256": sum})
}
