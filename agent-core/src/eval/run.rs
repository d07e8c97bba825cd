//! Running one task: its fixture built, the agent run on its request in the
//! task's directory under the configured policy, its events collected and
//! counted, and its check asked.

use std::{
    path::{Path, PathBuf},
    sync::{
        Arc, Mutex,
        mpsc::{self, RecvTimeoutError},
    },
    time::{Duration, Instant},
};

use nu_protocol::{Record, Span, Value};

use super::gold::scratch_dir as gold_scratch;
use super::{Approve, Fixture, Task, TaskResult, step_records};
use crate::{
    agent::{
        Agent, AgentEvent, AgentOptions, BackgroundRunner, Ending, EventSink, Lever, Levers,
        PromptKind, StepStatus, system_prompt, without_example,
    },
    config::AgentConfig,
    context::{DEFAULT_TOOLS, system_context},
    llm::ChatBackend,
    observe::ObserveMode,
    policy::{Approver, NonInteractive, Policy, PolicyShell, ShellOptions},
    shell::{CancelToken, SessionSeed},
    store::AuditLog,
};

/// What a job runner for a task's background steps is made from.
pub struct TaskEnv<'a> {
    pub policy: &'a Policy,
    pub seed: &'a SessionSeed,
    /// The task's state dir (where its jobs and audit log are).
    pub state: &'a Path,
    pub max_output: usize,
    /// The task's approver: a job asks it, as a foreground step does.
    pub approver: Arc<dyn Approver>,
}

/// Makes the runner of a task's `background: true` steps (the front end's
/// job manager); without one such steps run in the foreground.
pub type JobRunnerFactory = Box<dyn Fn(&TaskEnv) -> Option<Arc<dyn BackgroundRunner>>>;

/// How the tasks of one suite run are run.
pub struct EvalRun {
    /// The configuration the agent runs with (policy, agent and model
    /// settings); history is never written.
    pub config: AgentConfig,
    pub observe: ObserveMode,
    /// Most model turns per task, unless the task sets its own.
    pub max_steps: Option<usize>,
    /// The sandbox worker binary (the front end itself).
    pub worker_exe: Option<PathBuf>,
    pub jobs: Option<JobRunnerFactory>,
    /// Wall-clock limit of one task's agent run; past it the task is
    /// cancelled and fails as timed out.
    pub task_timeout: Duration,
    /// The parts of the loop switched off for this run (to measure them).
    pub levers: Levers,
}

impl EvalRun {
    /// Run `task` (read into `fixture`) once with `backend`; `on_event`
    /// sees the agent's events as they happen.
    pub fn run_task(
        &self,
        fixture: &mut Fixture,
        task: &Task,
        run: usize,
        backend: Box<dyn ChatBackend>,
        on_event: Arc<dyn Fn(&AgentEvent) + Send + Sync>,
        cancel: &CancelToken,
    ) -> TaskResult {
        let mut result = TaskResult {
            task: task.name.clone(),
            kind: task.kind.clone(),
            tags: task.tags.clone(),
            run,
            ending: "not run".into(),
            ..TaskResult::default()
        };
        let work = fixture.work();
        let built = match &task.gold {
            Some(gold) => gold.build(&work, &fixture.home()).map(Some),
            None => fixture.setup().map(|()| None),
        };
        let built = match built {
            Ok(built) => built,
            Err(reason) => {
                result.reason = reason;
                return result;
            }
        };
        let request = match &task.gold {
            Some(gold) => gold.request(&task.request, &work),
            None => task.request.clone(),
        };
        let seed = SessionSeed::new(&work).with_env(fixture.env());
        let approver = Arc::new(match &task.approve {
            Approve::Nothing => NonInteractive::default(),
            Approve::All => NonInteractive {
                yes: true,
                approve: Vec::new(),
            },
            Approve::Matching(patterns) => NonInteractive {
                yes: false,
                approve: patterns.clone(),
            },
        });
        let options = ShellOptions {
            worker_exe: self.worker_exe.clone(),
            audit: AuditLog::open(&fixture.state()).ok(),
            ..ShellOptions::default()
        };
        let policy = self.config.policy.clone();
        let shell = match PolicyShell::new(policy.clone(), seed.clone(), approver.clone(), options)
        {
            Ok(shell) => shell,
            Err(diagnostic) => {
                result.reason = format!("no policy shell: {}", diagnostic.summary());
                return result;
            }
        };
        let mut agent_options =
            AgentOptions::from_config(&self.config, PromptKind::Task).without(self.levers.clone());
        agent_options.observe = self.observe;
        if let Some(steps) = task.max_steps.or(self.max_steps) {
            agent_options.max_steps = steps.max(1);
        }
        let tools: Vec<String> = self
            .config
            .agent
            .context_tools
            .clone()
            .unwrap_or_else(|| DEFAULT_TOOLS.iter().map(|t| t.to_string()).collect());
        let context = system_context(&tools, false).prompt_text(&work);
        let mut prompt = system_prompt(PromptKind::Task, &context);
        if !self.levers.on(Lever::Example) {
            prompt = without_example(&prompt);
        }
        let events: Arc<Mutex<Vec<AgentEvent>>> = Arc::default();
        let collected = events.clone();
        let sink: EventSink = Arc::new(move |event: &AgentEvent| {
            on_event(event);
            collected
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(event.clone());
        });
        let mut agent = Agent::new(backend, shell, agent_options, prompt, sink);
        if let Some(factory) = &self.jobs {
            let state = fixture.state();
            let env = TaskEnv {
                policy: &policy,
                seed: &seed,
                state: &state,
                max_output: self.config.agent.max_output,
                approver: approver.clone(),
            };
            if let Some(runner) = factory(&env) {
                agent = agent.with_background(runner);
            }
        }
        let started = Instant::now();
        let (ending, timed_out) = with_time_limit(cancel, self.task_timeout, |token| {
            agent.run(&request, token)
        });
        result.seconds = started.elapsed().as_secs_f64();
        let usage = agent.usage();
        result.prompt_tokens = u64::from(usage.prompt_tokens);
        result.prompt_evaluated = u64::from(usage.prompt_evaluated);
        result.completion_tokens = u64::from(usage.completion_tokens);
        result.turns = agent.steps_taken();
        result.ending = if timed_out {
            "timed out".to_string()
        } else {
            ending.as_str().to_string()
        };
        let events = std::mem::take(&mut *events.lock().unwrap_or_else(|p| p.into_inner()));
        count(&events, &mut result);
        result.steps = step_records(agent.messages(), &events);
        result.ran = result.steps.iter().filter(|s| s.ran()).count();
        // The agent (and its sandbox worker) ends before the check looks.
        drop(agent);
        let (answer, data, error) = match ending {
            Ending::Answered { text, data } => (
                Value::string(text, Span::unknown()),
                data.unwrap_or(Value::nothing(Span::unknown())),
                Value::nothing(Span::unknown()),
            ),
            Ending::Failed(failure) => (
                Value::nothing(Span::unknown()),
                Value::nothing(Span::unknown()),
                Value::string(failure.message, Span::unknown()),
            ),
            Ending::Cancelled => (
                Value::nothing(Span::unknown()),
                Value::nothing(Span::unknown()),
                Value::string(
                    if timed_out {
                        format!("timed out after {} s", self.task_timeout.as_secs())
                    } else {
                        "cancelled".to_string()
                    },
                    Span::unknown(),
                ),
            ),
        };
        if let (Some(gold), Some(built)) = (&task.gold, &built) {
            let said = answer.as_str().unwrap_or_default();
            let verdict = gold.judge(&gold_scratch(&work), &work, built, said, &data);
            settle(&mut result, verdict, &error);
            return result;
        }
        let path = |p: PathBuf| Value::string(p.display().to_string(), Span::unknown());
        let input = record_of(vec![
            ("answer", answer),
            ("data", data),
            ("dir", path(work)),
            ("home", path(fixture.home())),
            (
                "events",
                Value::list(event_values(&events), Span::unknown()),
            ),
            (
                "ending",
                Value::string(result.ending.clone(), Span::unknown()),
            ),
            ("error", error.clone()),
            ("steps", Value::int(result.turns as i64, Span::unknown())),
        ]);
        settle(&mut result, fixture.check(input), &error);
        result
    }
}

/// Put a check's verdict (or its own error) into `result`; `error` is why
/// the agent stopped, if it did.
fn settle(result: &mut TaskResult, verdict: Result<(bool, String), String>, error: &Value) {
    match verdict {
        Ok((success, reason)) => {
            result.success = success;
            result.reason = match (success, error.as_str()) {
                (false, Ok(stopped)) if reason == "the check returned false" => {
                    format!("{reason} (the agent stopped: {stopped})")
                }
                _ => reason,
            };
        }
        Err(message) => {
            result.reason = format!("check_error: {message}");
            result.check_error = Some(message);
        }
    }
}

/// Run `work` with a token that is cancelled when `outer` is, or once
/// `limit` has passed; its value, and whether the limit stopped it.
fn with_time_limit<T>(
    outer: &CancelToken,
    limit: Duration,
    work: impl FnOnce(&CancelToken) -> T,
) -> (T, bool) {
    let token = CancelToken::new();
    let deadline = Instant::now() + limit;
    let (done, finished) = mpsc::channel::<()>();
    std::thread::scope(|scope| {
        let token_ref = &token;
        let watcher = scope.spawn(move || {
            // Dropping `done` ends the wait: the work is over.
            while let Err(RecvTimeoutError::Timeout) = finished.recv_timeout(WATCH_INTERVAL) {
                let timed_out = Instant::now() >= deadline;
                if timed_out || outer.is_cancelled() {
                    token_ref.cancel();
                    return timed_out;
                }
            }
            false
        });
        let value = work(&token);
        drop(done);
        (value, watcher.join().unwrap_or(false))
    })
}

/// How often a task's time limit and Ctrl+C are checked.
const WATCH_INTERVAL: Duration = Duration::from_millis(50);

/// Count repairs, parse errors, approvals asked and blocked steps; keep
/// the pipelines proposed and the answer.
fn count(events: &[AgentEvent], result: &mut TaskResult) {
    for event in events {
        match event {
            AgentEvent::Repaired { step, message } => {
                result.repairs += 1;
                result.repaired.push(format!("step {step}: {message}"));
            }
            AgentEvent::RuleApplied { step, rule } => {
                result.rules.push(format!("step {step}: {rule}"));
            }
            AgentEvent::Proposed { pipeline, .. } => result.pipelines.push(pipeline.clone()),
            AgentEvent::Answered { text, .. } => result.answer = Some(text.clone()),
            AgentEvent::AwaitingApproval { .. } => result.approvals += 1,
            AgentEvent::Observed { status, .. } => match status {
                StepStatus::Unparsable => result.parse_errors += 1,
                StepStatus::Blocked => result.blocked += 1,
                _ => {}
            },
            _ => {}
        }
    }
}

/// The events as records for the check; an `observed` one also carries
/// the `pipeline` of the step it ends (its `proposed` comes just before).
fn event_values(events: &[AgentEvent]) -> Vec<Value> {
    let mut proposed: Option<(usize, &str)> = None;
    let mut values = Vec::with_capacity(events.len());
    for event in events {
        let pipeline = match event {
            AgentEvent::Proposed { step, pipeline, .. } => {
                proposed = Some((*step, pipeline.as_str()));
                None
            }
            AgentEvent::Observed { step, .. } => {
                proposed.take().filter(|(at, _)| at == step).map(|(_, p)| p)
            }
            _ => None,
        };
        values.push(event_value(event, pipeline));
    }
    values
}

/// An event as a record for the check: `kind` and the event's fields
/// (`pipeline`: the pipeline an `observed` event's step ran).
fn event_value(event: &AgentEvent, pipeline: Option<&str>) -> Value {
    let s = |text: &str| Value::string(text, Span::unknown());
    let int = |n: usize| Value::int(n as i64, Span::unknown());
    let fields: Vec<(&str, Value)> = match event {
        AgentEvent::Thinking { step, .. } => vec![("kind", s("thinking")), ("step", int(*step))],
        AgentEvent::Text(text) => vec![("kind", s("text")), ("text", s(text))],
        AgentEvent::Reasoning(text) => vec![("kind", s("reasoning")), ("text", s(text))],
        AgentEvent::Notice(text) => vec![("kind", s("notice")), ("text", s(text))],
        AgentEvent::Proposed {
            step,
            pipeline,
            verdict,
            label,
            ..
        } => vec![
            ("kind", s("proposed")),
            ("step", int(*step)),
            ("pipeline", s(pipeline)),
            ("verdict", s(verdict.as_str())),
            ("label", s(label)),
        ],
        AgentEvent::AwaitingApproval { step, pipeline } => vec![
            ("kind", s("approval")),
            ("step", int(*step)),
            ("pipeline", s(pipeline)),
        ],
        AgentEvent::Running { step, pipeline } => vec![
            ("kind", s("running")),
            ("step", int(*step)),
            ("pipeline", s(pipeline)),
        ],
        AgentEvent::Observed {
            step,
            status,
            out,
            preview,
            approved_by,
            ..
        } => vec![
            ("kind", s("observed")),
            ("step", int(*step)),
            (
                "pipeline",
                pipeline.map_or(Value::nothing(Span::unknown()), s),
            ),
            ("status", s(status.as_str())),
            ("out", out.map_or(Value::nothing(Span::unknown()), &int)),
            ("preview", s(preview)),
            (
                "approved_by",
                approved_by
                    .as_deref()
                    .map_or(Value::nothing(Span::unknown()), s),
            ),
        ],
        AgentEvent::LookedUp { step, command } => vec![
            ("kind", s("help")),
            ("step", int(*step)),
            ("command", s(command)),
        ],
        AgentEvent::Repaired { step, message } => vec![
            ("kind", s("repaired")),
            ("step", int(*step)),
            ("text", s(message)),
        ],
        AgentEvent::RuleApplied { step, rule } => {
            vec![("kind", s("rule")), ("step", int(*step)), ("rule", s(rule))]
        }
        AgentEvent::External(text) => vec![("kind", s("external")), ("text", s(text))],
        AgentEvent::Answered { text, out } => vec![
            ("kind", s("answered")),
            ("text", s(text)),
            ("out", out.map_or(Value::nothing(Span::unknown()), &int)),
        ],
        AgentEvent::Failed { error } => vec![("kind", s("failed")), ("text", s(error))],
        AgentEvent::Cancelled => vec![("kind", s("cancelled"))],
    };
    record_of(fields)
}

/// A backend shared by the tasks of a run (a local model is loaded once).
pub struct SharedBackend(pub Arc<Mutex<Box<dyn ChatBackend>>>);

impl ChatBackend for SharedBackend {
    fn name(&self) -> String {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).name()
    }

    fn chat(
        &mut self,
        request: &crate::llm::ChatRequest,
        on_event: &mut dyn FnMut(crate::llm::ChatEvent),
        cancel: &CancelToken,
    ) -> Result<crate::llm::ChatTurn, crate::llm::LlmError> {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .chat(request, on_event, cancel)
    }
}

/// A record of `fields`, in order.
fn record_of(fields: Vec<(&str, Value)>) -> Value {
    let record: Record = fields
        .into_iter()
        .map(|(name, value)| (name.to_string(), value))
        .collect();
    Value::record(record, Span::unknown())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::Verdict;

    #[test]
    fn an_approved_step_is_observed_with_its_pipeline() {
        // An approved step has no `running` event: its `observed` one says
        // it ran, and which pipeline ran.
        let events = vec![
            AgentEvent::Proposed {
                step: 1,
                pipeline: "rm old.log".into(),
                why: String::new(),
                verdict: Verdict::Confirm,
                label: String::new(),
            },
            AgentEvent::AwaitingApproval {
                step: 1,
                pipeline: "rm old.log".into(),
            },
            AgentEvent::Observed {
                step: 1,
                status: StepStatus::Ok,
                out: Some(0),
                preview: "nothing".into(),
                approved_by: Some("rm *".into()),
                duration: Duration::ZERO,
            },
        ];
        let values = event_values(&events);
        let observed = values[2].as_record().expect("a record");
        assert_eq!(
            observed.get("kind").and_then(|v| v.as_str().ok()),
            Some("observed")
        );
        assert_eq!(
            observed.get("pipeline").and_then(|v| v.as_str().ok()),
            Some("rm old.log")
        );
        let proposed = values[0].as_record().expect("a record");
        assert_eq!(
            proposed.get("verdict").and_then(|v| v.as_str().ok()),
            Some("confirm")
        );
    }
}
