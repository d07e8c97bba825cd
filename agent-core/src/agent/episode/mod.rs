//! The agent loop: model turn → proposed pipeline → policy → run → observe
//! → model turn …, until the model answers, the step limit is reached, an
//! error stops it, or it is cancelled. It knows nothing of terminals: it
//! reports [`AgentEvent`]s to a sink and returns an [`Ending`].

use std::{
    sync::{
        Arc,
        mpsc::{self, Receiver, Sender},
    },
    time::{Duration, Instant},
};

use nu_protocol::Value;

use super::{
    AgentEvent, AgentState, Failure, FailureKind, Lever, Levers, PromptKind, StepStatus,
    bare_input::{self, Feed},
    bash_forms,
    compact::{self, estimate},
    copied_values, echo, engine_docs, grounding, home_directory, named_files, prompt, repair,
    repository, reuse, rules, scope,
    tools::{Action, NU_TOOL, command_help, pipeline_grammar, pipeline_heads, tool_defs},
    what_is_here,
};
use crate::{
    llm::{
        ChatBackend, ChatEvent, ChatRequest, FinishReason, LlmError, Message, Role, ToolChoice,
        Usage,
    },
    observe::{Budget, ObserveMode, render, render_outcome_as},
    policy::Foreground,
    policy::{BLOCKED_CODE, DENIED_CODE, Decision, PolicyShell, Ran, Verdict},
    shell::{CancelToken, Diagnostic, Limits},
};

mod answer;
mod jobs;
mod step;

use answer::{STOP_UNSAID, hollow_answer, hollow_answer_repair, is_table, with_row_names};

/// Where the loop's events go: the front end's view, a test's list.
pub type EventSink = Arc<dyn Fn(&AgentEvent) + Send + Sync>;

/// Prompt tokens kept free for the tools' definitions and the template.
const TOOLS_RESERVE: usize = 400;
/// How often a loop waiting for a background job checks for Ctrl+C.
const INBOX_POLL: std::time::Duration = std::time::Duration::from_millis(100);
/// Idle turns in a row after which only `answer` is offered.
const STUCK_TURNS: usize = 2;
/// Idle turns in a row after which the loop gives up.
const STUCK_GIVE_UP: usize = 4;
/// Retries of a turn whose prompt did not fit, each after shortening more.
const CONTEXT_RETRIES: usize = 2;
/// The temperatures a turn that repeats an earlier call is sampled again
/// at, one after the other, until it makes a new one: first its own (a
/// backend that steers tokens away from the repeat needs no more), then
/// warmer for one that cannot.
const RESAMPLE_TEMPERATURES: [f32; 3] = [0.0, 0.7, 1.0];
/// The temperatures a turn whose pipeline cannot run (see
/// [`Agent::why_unrunnable`]) is sampled again at, steered away from it:
/// once, at its own, which on a backend that steers is the model's next
/// most likely call. Not warmer: a warm draw makes a greedy run depend on
/// the last bits of the logits (another CPU's kernels would write another
/// episode). After it the pipeline goes on as it is and its error goes
/// back to the model.
const UNRUNNABLE_TEMPERATURES: [f32; 1] = [0.0];
/// The shortest reply taken as an echo of a message it equals (a short
/// answer may well be a word the user said)…
const ECHO_MIN_CHARS: usize = 12;
/// …and of a longer message it starts.
const ECHO_PREFIX_MIN_CHARS: usize = 40;
/// The repair of a hollow answer with no turn left to ask again in.
const HOLLOW_ON_THE_LAST_STEP: &str = "an answer that gives nothing (nothing after its colon, or only a tool's name) on the last step; the steps' own outcome is the answer";
/// How long a step the model alone sent to the background runs here
/// before it goes on as a job.
const BACKGROUND_GRACE: Duration = Duration::from_secs(10);

/// How the loop runs.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentOptions {
    pub kind: PromptKind,
    /// Most model turns per request (`ask --max-steps`).
    pub max_steps: usize,
    /// `Required` makes every turn a tool call (small local models only
    /// call tools when held to it); `Auto` lets the model answer in text.
    pub tool_choice: ToolChoice,
    /// Tokens of one result's rendering for the model.
    pub observe_tokens: usize,
    /// The model's context, in tokens: older messages are shortened to
    /// stay inside it.
    pub context_tokens: usize,
    /// Most tokens per model turn.
    pub max_tokens: u32,
    pub temperature: f32,
    /// Wall-clock limit of one pipeline.
    pub step_timeout: Option<Duration>,
    /// Most bytes collected from one stream of a step (the output cap).
    pub max_output: usize,
    /// A step still running after this long goes on as a background job
    /// (where there is a runner and the sandbox worker runs steps).
    pub promote_after: Option<Duration>,
    /// How results are written for the model (compact unless measuring).
    pub observe: ObserveMode,
    /// Hold the `nu` tool's pipeline to Nushell's shape, its elements
    /// starting with what the session knows (see
    /// [`crate::llm::PipelineGrammar`]; a backend that cannot ignores it).
    pub pipeline_grammar: bool,
    /// Read the files a task's request names (within the working
    /// directory, when the policy allows it) and tell the model their
    /// shape with the request (see `named_files`), with the notes on a
    /// git repository and the home directory.
    pub read_named_files: bool,
    /// The parts of the loop switched off (to measure them; all on in
    /// `ask`). The grammar's and the named files' levers are the two
    /// settings above: see [`AgentOptions::without`].
    pub levers: Levers,
}

impl Default for AgentOptions {
    fn default() -> AgentOptions {
        AgentOptions {
            kind: PromptKind::Task,
            max_steps: 15,
            tool_choice: ToolChoice::Auto,
            observe_tokens: 1_500,
            context_tokens: 8_192,
            max_tokens: 1_024,
            temperature: 0.2,
            step_timeout: Some(Duration::from_secs(300)),
            max_output: crate::shell::DEFAULT_MAX_OUTPUT,
            promote_after: Some(Duration::from_secs(120)),
            observe: ObserveMode::Compact,
            pipeline_grammar: true,
            read_named_files: true,
            levers: Levers::default(),
        }
    }
}

impl AgentOptions {
    /// These options with `levers` switched off.
    pub fn without(mut self, levers: Levers) -> AgentOptions {
        self.pipeline_grammar &= levers.on(Lever::PipelineGrammar);
        self.read_named_files &= levers.on(Lever::NamedFiles);
        self.levers = levers;
        self
    }

    /// Whether `lever` is on.
    fn on(&self, lever: Lever) -> bool {
        self.levers.on(lever)
    }
}

/// Something from outside the loop, taken in between model turns.
#[derive(Clone, Debug, PartialEq)]
pub enum Inbound {
    /// A note the model should know about (the user approved something
    /// late), shown to the user and the model.
    Note(String),
    /// A step the model sent to the background has ended.
    JobDone(super::background::JobDone),
}

/// How a request ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Ending {
    /// The model answered; `data` is the `$out.N` it returned.
    Answered { text: String, data: Option<Value> },
    /// Stopped without an answer.
    Failed(Failure),
    /// Cancelled (Ctrl+C).
    Cancelled,
}

impl Ending {
    /// `answered`, `failed` or `cancelled`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Ending::Answered { .. } => "answered",
            Ending::Failed(_) => "failed",
            Ending::Cancelled => "cancelled",
        }
    }
}

/// Where the conversation is recorded as it grows (the history).
pub trait Transcript: Send {
    /// A message joined the conversation.
    fn message(&mut self, message: &Message);
    /// Something the user was told (e.g. messages were shortened).
    fn notice(&mut self, text: &str);
    /// A request ended after `steps` model turns.
    fn end(&mut self, ending: &Ending, steps: usize);
    /// The conversation's id in the history, where it has one.
    fn id(&self) -> Option<String> {
        None
    }
}

/// One conversation: a backend, a policy shell and the messages so far.
pub struct Agent {
    backend: Box<dyn ChatBackend>,
    shell: PolicyShell,
    options: AgentOptions,
    messages: Vec<Message>,
    sink: EventSink,
    transcript: Option<Box<dyn Transcript>>,
    inbox: Receiver<Inbound>,
    inbox_sender: Sender<Inbound>,
    state: AgentState,
    /// The `$out` index the last answer returned.
    answered_out: Option<usize>,
    /// The engine's message for the last step that failed or did not
    /// parse (for an answer the loop must give itself).
    last_error: Option<String>,
    /// Model turns the last request took.
    last_steps: usize,
    /// Starts `background: true` steps as jobs; without one they run in
    /// the foreground.
    background: Option<Arc<dyn super::background::BackgroundRunner>>,
    /// Background steps of this conversation not yet reported.
    pending_jobs: usize,
    /// Tokens the model read and wrote, all requests together.
    usage: Usage,
    /// A step that may change something (more than a read) ran in this
    /// conversation: an answer saying something changed may be true.
    may_have_changed: bool,
    /// The pipeline the last step ran, where one ran: the model's own, or
    /// the exact form that ran in its place.
    last_ran: Option<String>,
    /// Steps run so far that may have changed something (a file written,
    /// a folder moved into): what was read before may be stale.
    change_steps: usize,
    /// Why the last step ran in another form than the model wrote, one
    /// note per change (outermost first).
    ran_notes: Vec<String>,
    /// The result that the last step's source gave when it was read again
    /// to show the model its shape (`open orders.csv`, `$out.1`), where
    /// that step failed: what a next pipeline written without input means.
    source_shown: Option<usize>,
    /// The heads of the pipeline grammar and the engine's count of
    /// commands they were read at (a `def` or an alias adds one).
    heads: Option<(usize, Arc<[String]>)>,
    /// What the request asks, as far as the loop reads it.
    facts: rules::RequestFacts,
    /// The request being worked on, as the user wrote it.
    request: String,
    /// What the loop told the model in its own words (see
    /// [`Agent::instruct`]).
    instructions: Vec<String>,
    /// The step running now was sent to the background by the model
    /// alone: it goes there only if it runs past [`BACKGROUND_GRACE`].
    background_on_its_own: bool,
}

/// What a model turn gave, for the loop.
enum TurnResult {
    Turn(crate::llm::ChatTurn),
    End(Ending),
}

impl Agent {
    /// A new conversation with `system_prompt`.
    pub fn new(
        backend: Box<dyn ChatBackend>,
        shell: PolicyShell,
        options: AgentOptions,
        system_prompt: String,
        sink: EventSink,
    ) -> Agent {
        Agent::resume(backend, shell, options, system_prompt, Vec::new(), sink)
    }

    /// A conversation that goes on from `messages` (`ask --continue`); the
    /// system prompt is today's.
    pub fn resume(
        backend: Box<dyn ChatBackend>,
        mut shell: PolicyShell,
        options: AgentOptions,
        system_prompt: String,
        messages: Vec<Message>,
        sink: EventSink,
    ) -> Agent {
        let (inbox_sender, inbox) = mpsc::channel();
        // The earlier requests' results are text in the conversation, not
        // values in this new session: their `$out.N` numbers stay taken
        // (by a note saying so), and this request's results go on after
        // them instead of being `$out.0` again.
        for _ in 0..earlier_outs(&messages) {
            shell.adopt_out(Value::string(NOT_KEPT, nu_protocol::Span::unknown()));
        }
        let mut all = vec![Message::system(system_prompt)];
        all.extend(messages.into_iter().filter(|m| m.role != Role::System));
        Agent {
            backend,
            shell,
            options,
            messages: all,
            sink,
            transcript: None,
            inbox,
            inbox_sender,
            state: AgentState::Thinking,
            answered_out: None,
            last_error: None,
            last_steps: 0,
            may_have_changed: false,
            last_ran: None,
            change_steps: 0,
            ran_notes: Vec::new(),
            source_shown: None,
            background: None,
            pending_jobs: 0,
            usage: Usage::default(),
            heads: None,
            facts: rules::RequestFacts::default(),
            request: String::new(),
            instructions: Vec::new(),
            background_on_its_own: false,
        }
    }

    /// Start `background: true` steps with `runner` (the plugin's jobs).
    pub fn with_background(
        mut self,
        runner: Arc<dyn super::background::BackgroundRunner>,
    ) -> Agent {
        self.background = Some(runner);
        self
    }

    /// Record the conversation in `transcript` from now on.
    pub fn with_transcript(mut self, transcript: Box<dyn Transcript>) -> Agent {
        self.transcript = Some(transcript);
        self
    }

    /// Where outside events are sent; they are taken between model turns.
    pub fn inbox(&self) -> Sender<Inbound> {
        self.inbox_sender.clone()
    }

    /// The conversation so far, system prompt first.
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// Where the loop is.
    pub fn state(&self) -> AgentState {
        self.state
    }

    /// The policy shell the pipelines run in.
    /// Model turns the last request took.
    pub fn steps_taken(&self) -> usize {
        self.last_steps
    }

    /// Tokens of every model turn so far, summed (prompt tokens count each
    /// turn's whole prompt; `prompt_evaluated` those not served from a
    /// cache).
    pub fn usage(&self) -> Usage {
        self.usage
    }

    /// The conversation's id in the history, where it is recorded.
    pub fn conversation_id(&self) -> Option<String> {
        self.transcript.as_ref().and_then(|t| t.id())
    }

    pub fn shell(&self) -> &PolicyShell {
        &self.shell
    }

    /// The backend's name.
    pub fn backend_name(&self) -> String {
        self.backend.name()
    }

    fn emit(&mut self, event: AgentEvent) {
        if let Some(state) = event.state() {
            self.state = state;
        }
        (self.sink)(&event);
    }

    fn push(&mut self, message: Message) {
        if let Some(transcript) = &mut self.transcript {
            transcript.message(&message);
        }
        self.messages.push(message);
    }

    /// Tell the model something in the loop's own words (an instruction,
    /// a correction), remembered to know an answer saying it back.
    fn instruct(&mut self, text: impl Into<String>) {
        let text = text.into();
        self.instructions.push(text.clone());
        self.push(Message::user(text));
    }

    fn notice(&mut self, text: String) {
        if let Some(transcript) = &mut self.transcript {
            transcript.notice(&text);
        }
        self.emit(AgentEvent::Notice(text));
    }

    /// Work on `request` until the model answers or the loop stops.
    pub fn run(&mut self, request: &str, cancel: &CancelToken) -> Ending {
        let mut message = self.with_named_files(request, cancel);
        if self.options.kind == PromptKind::Task {
            // The engine's commands last: the values of their examples
            // are no fact of this task (see `ungrounded`).
            let notes = [
                self.options
                    .on(Lever::WhatIsHere)
                    .then(|| what_is_here::note(&self.shell.cwd()))
                    .flatten(),
                self.options
                    .on(Lever::EngineDocs)
                    .then(|| engine_docs::note(self.shell.session().engine_state(), request))
                    .flatten(),
            ];
            for note in notes.into_iter().flatten() {
                message.push_str(&format!("\n\n{note}"));
            }
        }
        self.push(Message::user(message));
        let mut steps = 0;
        let ending = self.steps(request, &mut steps, cancel);
        self.last_steps = steps;
        match &ending {
            Ending::Answered { text, data } => {
                let out = data.as_ref().and(self.answered_out);
                self.emit(AgentEvent::Answered {
                    text: text.clone(),
                    out,
                })
            }
            Ending::Failed(failure) => self.emit(AgentEvent::Failed {
                error: failure.message.clone(),
            }),
            Ending::Cancelled => self.emit(AgentEvent::Cancelled),
        }
        if let Some(transcript) = &mut self.transcript {
            transcript.end(&ending, steps);
        }
        ending
    }

    /// `request` with the shape of each file it names, read aside (see
    /// [`named_files`]): for a task, when the setting is on.
    fn with_named_files(&self, request: &str, cancel: &CancelToken) -> String {
        if self.options.kind != PromptKind::Task || !self.options.read_named_files {
            return request.to_string();
        }
        let limits = self.step_limits();
        let cwd = self.shell.cwd();
        let engine = self.shell.session().engine_state();
        let data_files: Vec<String> = named_files::named_files(request, &cwd)
            .into_iter()
            .filter(|name| named_files::opens_as_data(engine, name))
            .collect();
        let previews: Vec<String> = data_files
            .iter()
            .filter_map(|name| {
                let pipeline = named_files::open_pipeline(name)?;
                let value = self.shell.read_aside(&pipeline, &limits, cancel)?;
                named_files::preview(name, &value)
            })
            .collect();
        let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
        let notes: Vec<&str> = [
            repository::note(request, crate::context::in_git_repository(&cwd)),
            home_directory::note(request, &cwd, home.as_deref()),
        ]
        .into_iter()
        .flatten()
        .collect();
        named_files::with_previews(request, &previews, &notes)
    }

    /// The calls no reply may make, whole and as beginnings, in a git
    /// repository where the `nu` tool is offered (see
    /// [`repository::AVOIDED`]); none elsewhere.
    fn repository_avoided(
        &self,
        tools: &[crate::llm::ToolDef],
    ) -> (Vec<crate::llm::ToolCall>, Vec<crate::llm::ToolCall>) {
        let in_repository = tools.iter().any(|t| t.name == NU_TOOL)
            && crate::context::in_git_repository(&self.shell.cwd());
        if !in_repository {
            return (Vec::new(), Vec::new());
        }
        let [whole, starts @ ..] = repository::AVOIDED;
        (
            vec![nu_call(whole)],
            starts.iter().map(|start| nu_call(start)).collect(),
        )
    }

    /// The limits of a step (and of a read the loop makes itself).
    fn step_limits(&self) -> Limits {
        let limits = Limits::default().with_max_output_bytes(self.options.max_output);
        match self.options.step_timeout {
            Some(timeout) => limits.with_timeout(timeout),
            None => limits,
        }
    }

    fn steps(&mut self, request: &str, steps: &mut usize, cancel: &CancelToken) -> Ending {
        let request = request.to_string();
        // Calls made in this request: the step of each and the step whose
        // result answers it (itself, or the earlier one a repeat was not
        // made again for), to catch a model repeating itself (small models
        // loop on the same call).
        let mut made: Vec<(usize, usize, String)> = Vec::new();
        // The same calls as the model wrote them (answers aside): every
        // turn is steered away from them as it is written, on a backend
        // that can steer its tokens, instead of being sampled whole and
        // then again (a repeat cost a whole turn's prompt).
        let mut made_calls: Vec<crate::llm::ToolCall> = Vec::new();
        // Reads of files that gave a result, with its `$out`, since the
        // last step that may have changed something (see `reuse`).
        let mut reads: Vec<(String, usize)> = Vec::new();
        // Turns in a row that did nothing (a call that could not be read,
        // an empty reply, only repeated or invalid calls).
        let mut idle_turns = 0;
        // The last turn did nothing but start background jobs.
        let mut only_waiting = false;
        // Pipelines that failed in this request, with the step and the
        // first line of what the model was told: never run twice.
        let mut failed: Vec<(String, usize, String)> = Vec::new();
        // Steps the policy stopped (blocked, or not approved). After one,
        // only `answer` is offered: nothing gets past a block, and the
        // user's no is final (the same deletion in another form would ask
        // them again).
        let mut stops = 0;
        let mut stopped_calls: Vec<String> = Vec::new();
        // What the last stopped step was told (its first line).
        let mut last_stop: Option<String> = None;
        // An earlier request's error is not this one's.
        self.last_error = None;
        self.facts = rules::RequestFacts::read(&request, &self.options.levers);
        self.request.clone_from(&request);
        // An answer was already sent back for facts no result shows.
        let mut grounding_asked = false;
        // The model was told this turn is for `answer` only.
        let mut told_to_answer = false;
        // A step of this request gave data (ran to its end).
        let mut has_data = false;
        // The `$out` of the last step when it ran to its end.
        let mut last_result: Option<usize> = None;
        // What a pipeline that starts without input is fed: the last
        // result, or after a failed step the data its source gave.
        let mut feed_from: Option<usize> = None;
        // The model was told once that its answer only repeated a message,
        // or claimed a change no step made.
        let mut echo_told = false;
        let mut change_asked = false;
        // The model was told once that its answer must say what the policy
        // stopped.
        let mut stop_told = false;
        // The model has nothing more of its own to run: it copied a
        // pipeline from the prompt's examples after it had results, or
        // tried to `exit`. The next turn is for `answer` only.
        let mut must_answer = false;
        // The model answered with facts before any step gave data, and was
        // sent back to find them: the next turn offers only `nu` (a small
        // model asked to check says its guess again).
        let mut must_run = false;
        // Answers are checked before they reach the user.
        let checks = self.options.on(Lever::AnswerChecks);
        loop {
            if cancel.is_cancelled() {
                return Ending::Cancelled;
            }
            while let Ok(inbound) = self.inbox.try_recv() {
                self.take(inbound);
            }
            if only_waiting && self.pending_jobs > 0 {
                // The last turn only started jobs: nothing to look at until
                // one of them ends.
                match self.wait_for_inbox(cancel) {
                    Some(inbound) => self.take(inbound),
                    None => return Ending::Cancelled,
                }
            }
            if *steps >= self.options.max_steps {
                return Ending::Failed(Failure::new(
                    FailureKind::StepLimit,
                    format!("no answer after {} steps", self.options.max_steps),
                ));
            }
            *steps += 1;
            let step = *steps;
            self.emit(AgentEvent::Thinking {
                step,
                max_steps: self.options.max_steps,
            });
            if idle_turns >= STUCK_GIVE_UP {
                return Ending::Failed(Failure::new(
                    FailureKind::Stuck,
                    "the model keeps repeating itself without an answer",
                ));
            }
            let can_answer = self.options.kind != PromptKind::Suggest;
            let last_step = step == self.options.max_steps && step > 1 && can_answer;
            let stopped = stops > 0 && can_answer;
            let answer_only = idle_turns >= STUCK_TURNS || last_step || stopped || must_answer;
            let offered = match (answer_only, std::mem::take(&mut must_run)) {
                (true, _) => Offered::Answer,
                (false, true) => Offered::Run,
                (false, false) => Offered::Both,
            };
            if idle_turns == STUCK_TURNS {
                self.notice(
                    "the model is going round in circles; it is asked to answer now".into(),
                );
                self.instruct(
                    "You are repeating yourself. Stop and call `answer` now with what you know.",
                );
            } else if answer_only && !told_to_answer {
                told_to_answer = true;
                self.instruct(if last_step {
                    "This is the last step. Call `answer` now: what you found, or what you could not do and why."
                } else {
                    "The policy or the user stopped your step. Call `answer` now: tell the user what you did not do and why."
                });
            }
            let resample = self.options.on(Lever::Resample);
            let mut avoid = if resample {
                made_calls.clone()
            } else {
                Vec::new()
            };
            let mut turn = match self.model_turn(offered, self.options.temperature, &avoid, cancel)
            {
                TurnResult::Turn(turn) => turn,
                TurnResult::End(ending) => return ending,
            };
            // A call made before gives nothing new, and a greedy model
            // asked again in the same words makes it again (a backend that
            // cannot steer its tokens, or a repeat in other whitespace):
            // sample the turn anew, warmer, without the repeat in the
            // conversation, and with the calls it repeated to be steered
            // away from.
            for temperature in RESAMPLE_TEMPERATURES {
                let Some(earlier) = repeated_call(&turn, &made).filter(|_| resample) else {
                    break;
                };
                self.emit(AgentEvent::Repaired {
                    step,
                    message: format!("the same call as step {earlier}; sampled again"),
                });
                avoid.extend(
                    turn.tool_calls
                        .iter()
                        .filter(|call| call.name != super::ANSWER_TOOL)
                        .cloned(),
                );
                let temperature = temperature.max(self.options.temperature);
                turn = match self.model_turn(offered, temperature, &avoid, cancel) {
                    TurnResult::Turn(turn) => turn,
                    TurnResult::End(ending) => return ending,
                };
            }
            // A pipeline that cannot run is not shown to the model: it
            // is sampled again, steered away from it.
            for temperature in UNRUNNABLE_TEMPERATURES {
                // Before any result, a copied example is only a guess to
                // steer away from; after, it means the model is done (see
                // `copies_example` below).
                let before_results = !has_data && stops == 0;
                let unrunnable = self
                    .unrunnable_call(&turn, before_results)
                    .filter(|_| resample);
                let Some((call, why)) = unrunnable else {
                    break;
                };
                self.emit(AgentEvent::Repaired {
                    step,
                    message: format!("a pipeline that {why}; sampled again"),
                });
                avoid.push(call);
                let temperature = temperature.max(self.options.temperature);
                turn = match self.model_turn(offered, temperature, &avoid, cancel) {
                    TurnResult::Turn(turn) => turn,
                    TurnResult::End(ending) => return ending,
                };
            }
            idle_turns += 1;
            if let Some(repair) = turn.repair.clone() {
                self.emit(AgentEvent::Repaired {
                    step,
                    message: format!(
                        "the reply could not be read as a tool call (it began `{}`); asked again",
                        normalize(&turn.content)
                            .chars()
                            .take(120)
                            .collect::<String>()
                    ),
                });
                self.push(Message::assistant(turn.content.clone(), Vec::new()));
                self.instruct(repair);
                continue;
            }
            if turn.tool_calls.is_empty() {
                let text = turn.content.trim().to_string();
                if text.is_empty() {
                    let message =
                        "Your reply was empty. Call a tool: `nu` to run a pipeline, or `answer`."
                            .to_string();
                    self.emit(AgentEvent::Repaired {
                        step,
                        message: "an empty reply; asked again".into(),
                    });
                    self.push(Message::assistant("", Vec::new()));
                    self.instruct(message);
                    continue;
                }
                if let Some((unit, repeats)) = super::degenerate::degenerate(&text) {
                    self.emit(AgentEvent::Repaired {
                        step,
                        message: format!(
                            "a degenerate reply (`{unit}` repeated {repeats} times); asked again"
                        ),
                    });
                    self.push(Message::assistant(turn.content.clone(), Vec::new()));
                    self.instruct(format!(
                        "Your reply was `{unit}` repeated {repeats} times. Call a tool: `nu` to run a pipeline, or `answer` with what you know."
                    ));
                    continue;
                }
                let table_came = self.is_a_table(last_result);
                if checks && last_step && self.echoes_a_message(&text, table_came) {
                    self.emit(AgentEvent::Repaired {
                        step,
                        message: "the reply repeated a message it was sent; the steps' own outcome is the answer".into(),
                    });
                    return self.outcome_answer(last_stop.as_deref(), last_result);
                }
                if checks && self.echoes_a_message(&text, table_came) {
                    self.emit(AgentEvent::Repaired {
                        step,
                        message: "the reply repeated a message it was sent; asked again".into(),
                    });
                    self.push(Message::assistant(turn.content.clone(), Vec::new()));
                    self.instruct(
                        "That is a message you were sent, not an answer. Call `answer` with what the results show, or run a pipeline that finds it.",
                    );
                    continue;
                }
                self.push(Message::assistant(turn.content.clone(), Vec::new()));
                if checks && hollow_answer(&text) && !table_came && last_step {
                    self.emit(AgentEvent::Repaired {
                        step,
                        message: HOLLOW_ON_THE_LAST_STEP.into(),
                    });
                    return self.outcome_answer(last_stop.as_deref(), last_result);
                }
                if checks && hollow_answer(&text) && !table_came {
                    let (instruction, repair) = hollow_answer_repair(&text);
                    self.emit(AgentEvent::Repaired {
                        step,
                        message: repair.into(),
                    });
                    self.instruct(instruction);
                    continue;
                }
                return self.answer_with_last_table(text, last_result);
            }
            // An example of the prompt copied after the model's own steps
            // gave results (or were stopped): it has nothing more of its
            // own to run. The copy is left out of the conversation (its
            // theme would carry into the answer) and the request is put
            // before the model again, for `answer` only.
            let copies_example =
                self.options.kind == PromptKind::Task && (has_data || stops > 0) && {
                    let cwd = self.shell.cwd();
                    turn.tool_calls.iter().any(|call| {
                        matches!(Action::from_call(call), Action::Run { pipeline, .. }
                            if prompt::is_example(&pipeline)
                                || prompt::names_an_example_file_not_here(&pipeline, &cwd))
                    })
                };
            if copies_example {
                must_answer = true;
                told_to_answer = true;
                self.emit(AgentEvent::Repaired {
                    step,
                    message:
                        "a pipeline copied from the prompt's examples; not run, asked to answer"
                            .into(),
                });
                self.instructions.push(COPIED_EXAMPLE.to_string());
                self.push(Message::user(format!(
                    "{COPIED_EXAMPLE}\nThe request: {request}"
                )));
                continue;
            }
            let calls_message = self.messages.len();
            self.push(Message::assistant(
                turn.content.clone(),
                turn.tool_calls.clone(),
            ));
            only_waiting = !turn.tool_calls.is_empty();
            for call in &turn.tool_calls {
                if cancel.is_cancelled() {
                    return Ending::Cancelled;
                }
                let signature = call_key(call);
                let action = match without_degenerate(Action::from_call(call)) {
                    Ok(action) => action,
                    Err((what, unit, repeats)) => {
                        self.emit(AgentEvent::Repaired {
                            step,
                            message: format!(
                                "a degenerate {what} (`{unit}` repeated {repeats} times); asked again"
                            ),
                        });
                        Action::Invalid(format!(
                            "Your {what} was `{unit}` repeated {repeats} times, which is not a real {what}. Write a real one, or call `answer` with what you know."
                        ))
                    }
                };
                let repeated = made
                    .iter()
                    .rev()
                    .find(|(_, _, s)| *s == signature)
                    .map(|(n, ran, _)| (*n, *ran));
                let repeats_last_step = repeated.is_some_and(|(n, _)| n + 1 >= step);
                let skipped = repeated.filter(|_| {
                    matches!(action, Action::Help { .. })
                        || (repeats_last_step && matches!(action, Action::Run { .. }))
                });
                made.push((
                    step,
                    skipped.map_or(step, |(_, ran)| ran),
                    signature.clone(),
                ));
                if call.name != super::ANSWER_TOOL {
                    made_calls.push(call.clone());
                }
                if let Some((_, earlier)) = skipped {
                    // Asking again for what the policy stopped is a stop too.
                    stops += usize::from(stopped_calls.contains(&signature));
                    self.emit(AgentEvent::Repaired {
                        step,
                        message: format!("the same call as step {earlier}; not made again"),
                    });
                    self.push(Message::tool(
                        call.id.clone(),
                        format!("You made this same call at step {earlier}; its result is above. Do something different, or call `answer`."),
                    ));
                    continue;
                }
                // An answer naming a `$out` that does not exist is no
                // progress either (a small model repeats it forever).
                let progress = match &action {
                    Action::Invalid(_) => false,
                    Action::Answer { out: Some(n), .. } => self.shell.out(*n).is_some(),
                    // `The answer is:` with nothing after it.
                    Action::Answer { text, out: None } => !hollow_answer(text),
                    _ => true,
                };
                if progress {
                    idle_turns = 0;
                }
                let to_background = matches!(
                    action,
                    Action::Run {
                        background: true,
                        ..
                    }
                ) && self.background.is_some()
                    && self.may_run();
                // Sent to the background by the model alone, a step runs
                // here and goes on as a job only if it takes long: a
                // small model sends its every step there (`ls` included)
                // and then waits for nothing.
                let on_its_own = to_background && !self.facts.background && self.may_promote();
                let starts_job = to_background && !on_its_own;
                if !starts_job {
                    only_waiting = false;
                }
                let failed_before = match &action {
                    Action::Run { pipeline, .. } => {
                        let key = normalize(pipeline);
                        failed.iter().find(|(k, ..)| *k == key).cloned()
                    }
                    _ => None,
                };
                // A first command that works on input, given none after a
                // step gave a result, means that result.
                let feed = match &action {
                    Action::Run { pipeline, .. }
                        if self.may_run() && self.options.on(Lever::Feed) =>
                    {
                        feed_from
                            .and_then(|n| Some((n, self.shell.out(n)?)))
                            .and_then(|(n, last)| {
                                let engine = self.shell.session().engine_state();
                                bare_input::feed(engine, pipeline, n, &last)
                            })
                    }
                    _ => None,
                };
                let result = match action {
                    Action::Run { pipeline, .. } if starts_job && failed_before.is_none() => {
                        self.start_job(step, &pipeline)
                    }
                    Action::Run { pipeline, .. }
                        if self.options.kind == PromptKind::Task
                            && self.options.on(Lever::Resample)
                            && only_an_out(&pipeline).is_some_and(|n| self.shell.out(n).is_some()) =>
                    {
                        // Nothing new to see: a small model looks again
                        // at what it has instead of answering from it.
                        must_answer = true;
                        told_to_answer = true;
                        let n = only_an_out(&pipeline).unwrap_or_default();
                        self.emit(AgentEvent::Repaired {
                            step,
                            message: format!(
                                "a step that only shows `$out.{n}` again; not run, asked to answer"
                            ),
                        });
                        format!(
                            "Not run: `$out.{n}` was shown to you when it was made; shown again it gives nothing new. Call `answer` now with what the results show (`out: {n}` returns it to the user)."
                        )
                    }
                    Action::Run { .. } if matches!(feed, Some(Feed::NothingToTake(_))) => {
                        must_answer = true;
                        told_to_answer = true;
                        self.emit(AgentEvent::Repaired {
                            step,
                            message: "a command that works on input, given none after a result it cannot take; not run, asked to answer".into(),
                        });
                        match feed {
                            Some(Feed::NothingToTake(told)) => told,
                            _ => String::new(),
                        }
                    }
                    Action::Run { pipeline, .. } if is_exit(&pipeline) => {
                        // A small model ends a task the shell's way.
                        must_answer = true;
                        told_to_answer = true;
                        self.emit(AgentEvent::Repaired {
                            step,
                            message: "`exit` is no step; not run, asked to answer".into(),
                        });
                        EXIT_IS_NO_STEP.to_string()
                    }
                    Action::Run { pipeline, why, .. } if self.may_run() => {
                        let key = normalize(&pipeline);
                        if let Some((_, earlier, error)) = failed_before {
                            self.emit(AgentEvent::Repaired {
                                step,
                                message: format!(
                                    "the pipeline that failed at step {earlier}; not run again"
                                ),
                            });
                            idle_turns += usize::from(progress);
                            format!(
                                "Not run: this same pipeline failed at step {earlier} ({error}). Change what failed, try another command, or call `answer`."
                            )
                        } else {
                            self.last_ran = None;
                            self.ran_notes.clear();
                            let (pipeline, note) = match feed {
                                Some(Feed::Piped(piped, note)) => (piped, Some(note)),
                                _ => match reuse::reusing(&pipeline, &reads)
                                    .filter(|_| self.options.on(Lever::Feed))
                                {
                                    Some((reused, note)) => (reused, Some(note)),
                                    None => (pipeline, None),
                                },
                            };
                            self.ran_notes.extend(note);
                            let changes_before = self.change_steps;
                            self.background_on_its_own = on_its_own;
                            self.source_shown = None;
                            let (text, status) = self.run_step(step, &pipeline, &why, cancel);
                            self.background_on_its_own = false;
                            last_result = (status == StepStatus::Ok)
                                .then(|| self.last_out())
                                .flatten();
                            feed_from = last_result.or(self.source_shown.take());
                            if self.change_steps != changes_before {
                                reads.clear();
                            } else if let (Some(n), Some(ran)) = (last_result, &self.last_ran) {
                                reads.push((ran.clone(), n));
                            }
                            // What ran in the call's place is the call the
                            // model reads it made: shown its own form and
                            // the fixed one's result, a model runs the fixed
                            // form again to see it work (a whole turn).
                            let ran = self.last_ran.take().filter(|ran| normalize(ran) != key);
                            // What the step itself said first (a stop's
                            // reason), before the notes on the form that ran.
                            let said_first = first_line(&text);
                            let text = ran_in_place(
                                &std::mem::take(&mut self.ran_notes),
                                ran.as_deref(),
                                status,
                                text,
                            );
                            let mut keys = vec![key];
                            if let Some(ran) = ran {
                                let shown = if self.options.on(Lever::ShowAsRan) {
                                    self.show_call_as_ran(calls_message, call, &ran)
                                } else {
                                    with_pipeline(call, &ran)
                                };
                                keys.push(normalize(&ran));
                                made.push((step, step, call_key(&shown)));
                                made_calls.push(shown);
                            }
                            let mut failed_now = |text: &str| {
                                for key in &keys {
                                    failed.push((key.clone(), step, first_line(text)));
                                }
                            };
                            match status {
                                StepStatus::Blocked | StepStatus::Denied => {
                                    stops += 1;
                                    stopped_calls.push(signature.clone());
                                    last_stop = Some(said_first);
                                    failed_now(&text);
                                }
                                StepStatus::Failed | StepStatus::Unparsable => failed_now(&text),
                                StepStatus::Ok => has_data = true,
                                _ => {}
                            }
                            text
                        }
                    }
                    Action::Run { .. } => {
                        "Nothing may run here: explain from what you were shown, then call `answer`.".to_string()
                    }
                    Action::Help { command } => {
                        self.emit(AgentEvent::LookedUp {
                            step,
                            command: command.clone(),
                        });
                        command_help(self.shell.session().engine_state(), &command)
                    }
                    Action::Answer { text, out }
                        if checks
                            && (echo_told
                                || last_step
                                || (last_stop.is_some() && last_result.is_none()))
                            && self.echoes_a_message(
                                &text,
                                out.is_some() || self.is_a_table(last_result),
                            ) =>
                    {
                        // Told once already, on the last step (no turn is
                        // left to ask again in), or saying back what
                        // stopped the last step (asked again, a small model
                        // says it again): the answer is what the steps
                        // themselves show.
                        self.emit(AgentEvent::Repaired {
                            step,
                            message: if echo_told {
                                "the answer repeated a message again; the steps' own outcome is the answer"
                            } else {
                                "the answer repeated a message it was sent; the steps' own outcome is the answer"
                            }
                            .into(),
                        });
                        return self.outcome_answer(last_stop.as_deref(), last_result);
                    }
                    Action::Answer { text, out }
                        if checks
                            && !echo_told
                            && self.echoes_a_message(
                                &text,
                                out.is_some() || self.is_a_table(last_result),
                            ) =>
                    {
                        echo_told = true;
                        idle_turns += usize::from(progress);
                        self.emit(AgentEvent::Repaired {
                            step,
                            message: "the answer repeated a message it was sent; asked again".into(),
                        });
                        "Not answered yet: that text is a message you were sent, not an answer. Answer with what the results show.".to_string()
                    }
                    Action::Answer { text, .. }
                        if checks
                            && !change_asked
                            && !last_step
                            && self.options.kind == PromptKind::Task
                            && !self.may_have_changed
                            && grounding::claimed_change(&text).is_some() =>
                    {
                        change_asked = true;
                        idle_turns += usize::from(progress);
                        let verb = grounding::claimed_change(&text).unwrap_or_default();
                        self.emit(AgentEvent::Repaired {
                            step,
                            message: format!(
                                "the answer says `{verb}` though no step changed anything; asked to check"
                            ),
                        });
                        format!(
                            "Not answered yet: your answer says `{verb}`, but no step that changes anything ran in this request (those that tried were blocked, denied or failed; a file is written with `save -f file`). Do it now, or answer with what you did and did not do, and why."
                        )
                    }
                    Action::Answer { text, .. }
                        if checks
                            && !stop_told
                            && stops > 0
                            && !last_step
                            && self.options.kind == PromptKind::Task
                            && !grounding::says_not_done(&text) =>
                    {
                        stop_told = true;
                        idle_turns += usize::from(progress);
                        self.emit(AgentEvent::Repaired {
                            step,
                            message: "the answer does not say what the policy stopped; asked again"
                                .into(),
                        });
                        STOP_UNSAID.to_string()
                    }
                    Action::Answer { text, .. }
                        if checks
                            && !grounding_asked
                            && !answer_only
                            && self.options.kind == PromptKind::Task
                            && !self.ungrounded(&text, !has_data).is_empty() =>
                    {
                        grounding_asked = true;
                        idle_turns += usize::from(progress);
                        let facts = self.ungrounded(&text, !has_data).join(", ");
                        if !has_data && stops == 0 {
                            must_run = true;
                            self.emit(AgentEvent::Repaired {
                                step,
                                message: format!(
                                    "the answer states {facts} before any step gave data; the next turn runs a step"
                                ),
                            });
                            format!(
                                "Not answered yet: your answer states {facts}, but no step has shown anything yet. Run a pipeline that finds it."
                            )
                        } else {
                            self.emit(AgentEvent::Repaired {
                                step,
                                message: format!(
                                    "the answer states {facts} that no result shows; asked to check"
                                ),
                            });
                            format!(
                                "Not answered yet: your answer states {facts} but no result shows that. Run a pipeline that finds it, then answer; or answer with only what the results show."
                            )
                        }
                    }
                    // Sent back once for facts no result shows, and after
                    // data said again with an identifier (a hash, an
                    // address, a PID, a port) none shows: the steps' own
                    // outcome is the answer, not a made-up one.
                    Action::Answer { text, .. }
                        if checks
                            && grounding_asked
                            && has_data
                            && self.options.kind == PromptKind::Task
                            && !self.ungrounded(&text, false).is_empty() =>
                    {
                        self.emit(AgentEvent::Repaired {
                            step,
                            message: format!(
                                "the answer states {} again, which no result shows; the steps' own outcome is the answer",
                                self.ungrounded(&text, false).join(", ")
                            ),
                        });
                        return self.outcome_answer(last_stop.as_deref(), last_result);
                    }
                    // (With `out` naming no result there is nothing to
                    // return either.)
                    Action::Answer { text, out }
                        if checks
                            && hollow_answer(&text)
                            && out.is_none_or(|n| self.shell.out(n).is_none())
                            && !last_result
                                .and_then(|n| self.shell.out(n))
                                .is_some_and(|value| is_table(&value)) =>
                    {
                        if last_step {
                            self.emit(AgentEvent::Repaired {
                                step,
                                message: HOLLOW_ON_THE_LAST_STEP.into(),
                            });
                            return self.outcome_answer(last_stop.as_deref(), last_result);
                        }
                        let (instruction, repair) = hollow_answer_repair(&text);
                        self.emit(AgentEvent::Repaired {
                            step,
                            message: repair.into(),
                        });
                        instruction
                    }
                    // No turn left to send it back: an answer that
                    // claims a change no step made (or, with a stop left
                    // unsaid, any change), or states a hash or an address
                    // no result shows, is replaced by the steps' own
                    // account. (One that only leaves a stop unsaid, after
                    // a step that gave a result, keeps what it found, and
                    // the stop is said after it.)
                    Action::Answer { text, .. }
                        if checks
                            && answer_only
                            && self.options.kind == PromptKind::Task
                            && ((stops > 0
                                && !grounding::says_not_done(&text)
                                && (grounding::claimed_change(&text).is_some()
                                    || self.shell.out(0).is_none()))
                                || (!self.may_have_changed
                                    && grounding::claimed_change(&text).is_some())
                                || !self.ungrounded(&text, !has_data).is_empty()) =>
                    {
                        self.emit(AgentEvent::Repaired {
                            step,
                            message: "the last answer contradicts the steps; the steps' own outcome is the answer".into(),
                        });
                        return self.outcome_answer(last_stop.as_deref(), last_result);
                    }
                    Action::Answer { text, out } => {
                        let text = match last_stop.as_deref() {
                            Some(stopped)
                                if checks
                                    && answer_only
                                    && stops > 0
                                    && self.shell.out(0).is_some()
                                    && self.options.kind == PromptKind::Task
                                    && !grounding::says_not_done(&text) =>
                            {
                                self.with_stop_said(step, &text, stopped)
                            }
                            _ => text,
                        };
                        match out {
                            None => return self.answer_with_last_table(text, last_result),
                            Some(n) => match self.shell.out(n) {
                                Some(value) => {
                                    self.answered_out = Some(n);
                                    return Ending::Answered {
                                        text: with_row_names(text, &value),
                                        data: Some(value),
                                    };
                                }
                                // A result it miscounted (`$out.1` when the
                                // last step's is `$out.0`): the last result is
                                // what it meant to return.
                                None if !text.trim().is_empty()
                                    && last_result.and_then(|m| self.shell.out(m)).is_some() =>
                                {
                                    let m = last_result.unwrap_or_default();
                                    self.emit(AgentEvent::Repaired {
                                        step,
                                        message: format!(
                                            "the answer named $out.{n}, which does not exist; it returns $out.{m}, the last result"
                                        ),
                                    });
                                    self.answered_out = Some(m);
                                    return Ending::Answered {
                                        text,
                                        data: self.shell.out(m),
                                    };
                                }
                                // Nothing to return, or no turn left to fix it
                                // in: the answer's text is the answer.
                                None if (answer_only || self.shell.out(0).is_none())
                                    && !text.trim().is_empty() =>
                                {
                                    self.answered_out = None;
                                    return Ending::Answered { text, data: None };
                                }
                                None => format!(
                                    "There is no $out.{n}: {}. Answer again with an existing one, or without `out`.",
                                    self.outs_so_far()
                                ),
                            },
                        }
                    }
                    Action::Invalid(message) => message,
                };
                self.push(Message::tool(call.id.clone(), result));
            }
        }
    }

    /// One model turn offering the tools `offered` allows, the
    /// conversation fitted to the context first; a
    /// prompt that still does not fit is shortened further and retried.
    fn model_turn(
        &mut self,
        offered: Offered,
        temperature: f32,
        avoid: &[crate::llm::ToolCall],
        cancel: &CancelToken,
    ) -> TurnResult {
        let mut tools = tool_defs(self.options.kind);
        let mut tool_choice = self.options.tool_choice;
        let only = match offered {
            Offered::Both => None,
            Offered::Answer => Some(super::ANSWER_TOOL),
            Offered::Run => Some(NU_TOOL).filter(|_| tools.iter().any(|t| t.name == NU_TOOL)),
        };
        if let Some(only) = only {
            tools.retain(|t| t.name == only);
            tool_choice = ToolChoice::Required;
        }
        let pipeline_grammar = (self.options.pipeline_grammar
            && tools.iter().any(|t| t.name == NU_TOOL))
        .then(|| pipeline_grammar(self.pipeline_heads()));
        let (whole_avoided, avoided_starts) = self.repository_avoided(&tools);
        let reserve = self.options.max_tokens as usize + TOOLS_RESERVE;
        let mut limit = self.options.context_tokens.saturating_sub(reserve).max(256);
        for attempt in 0..=CONTEXT_RETRIES {
            if let Some(notice) = compact::fit(&mut self.messages, limit) {
                self.notice(notice);
            }
            let request = ChatRequest {
                messages: self.messages.clone(),
                tools: tools.clone(),
                tool_choice,
                max_tokens: self.options.max_tokens,
                temperature,
                avoid: avoid.iter().cloned().chain(whole_avoided.clone()).collect(),
                avoid_starts: avoided_starts.clone(),
                pipeline_grammar: pipeline_grammar.clone(),
            };
            let sink = self.sink.clone();
            let mut notices = Vec::new();
            let mut on_event = |event: ChatEvent| match event {
                ChatEvent::Text(text) => sink(&AgentEvent::Text(text)),
                ChatEvent::Reasoning(text) => sink(&AgentEvent::Reasoning(text)),
                ChatEvent::Notice(text) => notices.push(text),
                _ => {}
            };
            let result = self.backend.chat(&request, &mut on_event, cancel);
            for notice in notices {
                self.notice(notice);
            }
            match result {
                Ok(turn) if turn.finish == Some(FinishReason::Cancelled) => {
                    return TurnResult::End(Ending::Cancelled);
                }
                Ok(turn) => {
                    self.usage.prompt_tokens += turn.usage.prompt_tokens;
                    self.usage.prompt_evaluated += turn.usage.prompt_evaluated;
                    self.usage.completion_tokens += turn.usage.completion_tokens;
                    return TurnResult::Turn(turn);
                }
                Err(_) if cancel.is_cancelled() => return TurnResult::End(Ending::Cancelled),
                Err(LlmError::ContextTooLong { .. }) if attempt < CONTEXT_RETRIES => {
                    limit = (estimate(&self.messages) / 2).max(256);
                }
                Err(error) => return TurnResult::End(Ending::Failed(Failure::from(&error))),
            }
        }
        TurnResult::End(Ending::Failed(Failure::new(
            FailureKind::ContextFull,
            "the conversation does not fit the model's context even shortened",
        )))
    }

    /// What a pipeline element may start with in this session: its
    /// engine's commands and the programs on its PATH, read again only
    /// when the engine has new commands.
    fn pipeline_heads(&mut self) -> Arc<[String]> {
        let engine = self.shell.session().engine_state();
        let commands = engine.num_decls();
        if let Some((known, heads)) = &self.heads
            && *known == commands
        {
            return heads.clone();
        }
        let heads: Arc<[String]> = pipeline_heads(engine, &self.shell.programs()).into();
        self.heads = Some((commands, heads.clone()));
        heads
    }

    fn may_run(&self) -> bool {
        self.options.kind.runs_pipelines()
    }

    /// `pipeline` without the filters it copied with a made-up value of
    /// the prompt's examples (see [`copied_values`]), and the note the
    /// model reads; only for a read (`decision` changes nothing) and with
    /// the `scope` lever on.
    fn without_copied_filters(
        &self,
        pipeline: &str,
        decision: &Decision,
    ) -> Option<(String, String)> {
        if !self.options.on(Lever::Scope) || may_change(decision) {
            return None;
        }
        let (kept, dropped) = copied_values::without_copied_filters(pipeline, &self.request)?;
        Some((kept, copied_values::note(&dropped)))
    }

    /// The number of the newest `$out`.
    fn last_out(&self) -> Option<usize> {
        let mut n = 0;
        while self.shell.out(n).is_some() {
            n += 1;
        }
        n.checked_sub(1)
    }

    /// The results before `$out.{before}`, `(N, $out.N)`.
    fn earlier_outs(&self, before: usize) -> Vec<(usize, nu_protocol::Value)> {
        (0..before)
            .filter_map(|n| self.shell.out(n).map(|value| (n, value)))
            .collect()
    }

    /// `$out.0 … $out.3` or `nothing has run yet`.
    fn outs_so_far(&self) -> String {
        match self.last_out() {
            None => "nothing has run yet".into(),
            Some(0) => "only $out.0 exists".into(),
            Some(n) => format!("the results are $out.0 … $out.{n}"),
        }
    }
}

/// What the model is told of an `exit` step.
const EXIT_IS_NO_STEP: &str = "Not run: there is no shell to exit. A task ends with `answer`: call it now with what you found, or what you could not do and why.";

/// Whether `pipeline` only ends the shell (`exit`, `exit 0`, `quit`).
fn is_exit(pipeline: &str) -> bool {
    let words: Vec<&str> = pipeline
        .trim()
        .trim_end_matches(';')
        .split_whitespace()
        .collect();
    match words.as_slice() {
        ["exit" | "quit" | "logout"] => true,
        ["exit", code] => code.parse::<i64>().is_ok(),
        _ => false,
    }
}

/// What makes two calls the same: the tool and its arguments; for `nu`,
/// the pipeline alone (another `why` or `background` runs the same).
/// What the model reads of a step that ran as `ran` in place of its own
/// pipeline, for the reasons `notes`, given the step's own `text`: the
/// reasons and the form that ran, said once (a fix leading to another
/// shows no pipeline between to be copied).
fn ran_in_place(notes: &[String], ran: Option<&str>, status: StepStatus, text: String) -> String {
    if notes.is_empty() {
        return text;
    }
    let notes = notes.join(". ");
    match ran {
        Some(ran) if matches!(status, StepStatus::Blocked | StepStatus::Denied) => {
            format!("{notes}; it was put as `{ran}`.\n{text}")
        }
        Some(ran) => format!("{notes}; it ran as `{ran}`.\n{text}"),
        None => format!("{notes}.\n{text}"),
    }
}

fn call_key(call: &crate::llm::ToolCall) -> String {
    match Action::from_call(call) {
        Action::Run { pipeline, .. } => format!("{} {}", call.name, normalize(&pipeline)),
        _ => format!(
            "{} {}",
            call.name,
            serde_json::Value::Object(call.arguments.clone())
        ),
    }
}

/// The step of an earlier call that `turn` makes again (a pipeline or a
/// lookup; an answer may be repeated).
fn repeated_call(turn: &crate::llm::ChatTurn, made: &[(usize, usize, String)]) -> Option<usize> {
    turn.tool_calls
        .iter()
        .filter(|call| call.name != super::ANSWER_TOOL)
        .find_map(|call| {
            let key = call_key(call);
            made.iter().find(|(_, _, k)| *k == key).map(|(n, ..)| *n)
        })
}

/// The tools a turn offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Offered {
    /// Every tool of the prompt's kind.
    Both,
    /// Only `answer`: the step limit, a stop, or nothing more to run.
    Answer,
    /// Only `nu`: an answer came before any data.
    Run,
}

/// Whether a step so judged may change something: any part of it is more
/// than a read, or it moves the session (`cd`: "moved to src" is true).
fn may_change(decision: &Decision) -> bool {
    decision
        .rows
        .iter()
        .any(|row| row.category != crate::policy::Category::Read || row.name == "cd")
}

/// N, where `pipeline` is only `$out.N` (a result shown again).
fn only_an_out(pipeline: &str) -> Option<usize> {
    pipeline.trim().strip_prefix("$out.")?.parse().ok()
}

/// A `nu` call of `pipeline` (to name a call no reply may make).
fn nu_call(pipeline: &str) -> crate::llm::ToolCall {
    let mut arguments = serde_json::Map::new();
    arguments.insert(
        crate::agent::PIPELINE_ARGUMENT.to_string(),
        serde_json::Value::String(pipeline.to_string()),
    );
    crate::llm::ToolCall {
        id: String::new(),
        name: NU_TOOL.to_string(),
        arguments,
    }
}

/// `call` with `pipeline` for its pipeline.
fn with_pipeline(call: &crate::llm::ToolCall, pipeline: &str) -> crate::llm::ToolCall {
    let mut call = call.clone();
    call.arguments.insert(
        crate::agent::PIPELINE_ARGUMENT.to_string(),
        serde_json::Value::String(pipeline.to_string()),
    );
    call
}

/// Most exact fixes one step runs in a row, each after the last failed
/// (an extension column made, then the groups counted).
const MAX_EXACT_FIXES: usize = 2;

/// What an earlier request's `$out.N` holds in a continued conversation.
const NOT_KEPT: &str = "(not kept: this result is from an earlier request of the conversation; its text is above — run the step again for the value)";

/// The `$out` numbers the earlier requests of a conversation used: one
/// past the highest `$out.N` a tool result starts with.
fn earlier_outs(messages: &[Message]) -> usize {
    messages
        .iter()
        .filter(|m| m.role == Role::Tool)
        .filter_map(|m| {
            let digits: String = m
                .content
                .strip_prefix("$out.")?
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            digits.parse::<usize>().ok()
        })
        .map(|n| n.saturating_add(1))
        .max()
        .unwrap_or(0)
        // A history file edited by hand cannot make this session reserve
        // millions of numbers.
        .min(MAX_EARLIER_OUTS)
}

/// The most `$out` numbers a continued conversation keeps taken.
const MAX_EARLIER_OUTS: usize = 10_000;

/// What the model is told when it copies an example of the prompt after
/// its own steps gave results (or were stopped).
const COPIED_EXAMPLE: &str = "You wrote a pipeline from the examples in your instructions, not a step of this task; it did not run. Answer the request now with `answer`, from the results above (or, if a step was stopped, say what you did not do and why).";

/// `pipeline` with runs of whitespace made one space: the same pipeline
/// written again.
fn normalize(pipeline: &str) -> String {
    pipeline.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The first non-empty line of `text`, short.
fn first_line(text: &str) -> String {
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with("Error:"))
        .unwrap_or_default();
    line.chars().take(160).collect()
}

/// How a run ended, from what the shell reports.
/// `action`, unless its pipeline or answer is degenerate (one short unit
/// repeated): then what it was, the unit and how often it repeats.
fn without_degenerate(action: Action) -> Result<Action, (&'static str, String, usize)> {
    let (what, text) = match &action {
        Action::Run { pipeline, .. } => ("pipeline", pipeline),
        Action::Answer { text, .. } => ("answer", text),
        Action::Help { .. } | Action::Invalid(_) => return Ok(action),
    };
    match super::degenerate::degenerate(text) {
        Some((unit, repeats)) => Err((what, unit, repeats)),
        None => Ok(action),
    }
}
