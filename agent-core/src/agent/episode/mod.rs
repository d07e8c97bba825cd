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
    bare_input::{self, Feed},
    bash_forms,
    compact::{self, estimate},
    copied_values, dialect, effects, engine_docs,
    event::{AgentEvent, AgentState, Ending, EventSink, StepStatus},
    failure::{Failure, FailureKind},
    grounding, habits, home_directory,
    levers::{Lever, Levers},
    named_files, posix, prompt,
    prompt::PromptKind,
    repository, reuse, rules, scope,
    settings::AgentOptions,
    tools::{
        ANSWER_TOOL, Action, NU_TOOL, PIPELINE_ARGUMENT, command_help, no_such_tool,
        pipeline_grammar, pipeline_heads, tool_defs,
    },
    transcript::Transcript,
    usage, what_is_here,
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
mod call;
mod candidates;
mod jobs;
mod judge;
mod observe;
mod reply;
mod rewrite;
mod run;
mod sample;
mod state;
mod turn;

use call::{is_exit, without_degenerate};
use rules::{AnswerVerdict, Record, Said, normalize};
use state::{Episode, Offered, Plan, Stop};

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
/// How long a step the model alone sent to the background runs here
/// before it goes on as a job.
const BACKGROUND_GRACE: Duration = Duration::from_secs(10);

/// Something from outside the loop, taken in between model turns.
#[derive(Clone, Debug, PartialEq)]
pub enum Inbound {
    /// A note the model should know about (the user approved something
    /// late), shown to the user and the model.
    Note(String),
    /// A step the model sent to the background has ended.
    JobDone(super::background::JobDone),
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
    /// The system prompt as given, in its Nushell form: each request's
    /// dialect (see [`dialect`]) tells of its tools on it.
    nushell_prompt: String,
    /// The levers as given; with `dialect` on, each request sets the
    /// levers of its dialect on them.
    levers_given: Levers,
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
        let nushell_prompt = system_prompt;
        let mut all = vec![Message::system(told_of_tools(&nushell_prompt, &options))];
        all.extend(messages.into_iter().filter(|m| m.role != Role::System));
        let levers_given = options.levers.clone();
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
            nushell_prompt,
            levers_given,
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
        self.choose_dialect(request);
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

    /// With the `dialect` lever, a task's `request` is worked in the
    /// dialect it suits: its levers set (see [`dialect::levers_for`]) and
    /// the system prompt telling of its tools.
    fn choose_dialect(&mut self, request: &str) {
        if self.options.kind != PromptKind::Task || !self.levers_given.on(Lever::Dialect) {
            return;
        }
        let choice = dialect::choose(
            request,
            &self.shell.cwd(),
            self.shell.session().engine_state(),
        );
        self.options.levers = dialect::levers_for(self.levers_given.clone(), choice.dialect);
        let prompt = told_of_tools(&self.nushell_prompt, &self.options);
        if let Some(system) = self.messages.first_mut().filter(|m| m.role == Role::System) {
            *system = Message::system(prompt);
        }
        self.emit(AgentEvent::RuleApplied {
            step: 0,
            rule: choice.rule(),
        });
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

    /// The limits of a step (and of a read the loop makes itself).
    fn step_limits(&self) -> Limits {
        let limits = Limits::default().with_max_output_bytes(self.options.max_output);
        match self.options.step_timeout {
            Some(timeout) => limits.with_timeout(timeout),
            None => limits,
        }
    }

    /// The turns of `request`, counted in `steps`, until it ends.
    fn steps(&mut self, request: &str, steps: &mut usize, cancel: &CancelToken) -> Ending {
        // An earlier request's error is not this one's.
        self.last_error = None;
        self.facts = rules::RequestFacts::read(request, &self.options.levers);
        self.request = request.to_string();
        let mut episode = Episode::default();
        loop {
            match self.turn(&mut episode, steps, cancel) {
                Ok(()) | Err(Stop::NextTurn) => {}
                Err(Stop::End(ending)) => return ending,
            }
        }
    }

    /// One turn, stage by stage: build it (turn.rs), sample it
    /// (sample.rs), read the reply (reply.rs), take each call (call.rs: a
    /// pipeline is rewritten, judged, run and observed in rewrite.rs,
    /// judge.rs, run.rs and observe.rs; an answer is checked in
    /// answer.rs).
    fn turn(
        &mut self,
        episode: &mut Episode,
        steps: &mut usize,
        cancel: &CancelToken,
    ) -> Result<(), Stop> {
        let step = turn::open_turn(self, episode, steps, cancel)?;
        let plan = turn::plan(self, episode, step);
        let turn = sample::sample(self, episode, plan, cancel)?;
        reply::read_reply(self, episode, plan, &turn)?;
        call::take_calls(self, episode, plan, &turn, cancel)
    }

    /// Say that the rules named `names` changed step `step` (see
    /// [`AgentEvent::RuleApplied`]).
    pub(super) fn rules_applied(
        &mut self,
        step: usize,
        names: impl IntoIterator<Item = &'static str>,
    ) {
        for rule in names {
            self.emit(AgentEvent::RuleApplied {
                step,
                rule: rule.to_string(),
            });
        }
    }

    /// The policy's verdict on `pipeline` where it parses, calls only
    /// commands and programs that are here, and runs without a question;
    /// `None` otherwise.
    fn runs_unasked(&self, pipeline: &str) -> Option<Decision> {
        let (plan, decision) = self.shell.check(pipeline);
        (self.unknown_names(Some(&plan?)).is_empty() && decision.verdict == Verdict::Allow)
            .then_some(decision)
    }

    /// The names `plan` calls that are neither commands nor programs here.
    fn unknown_names(&self, plan: Option<&crate::policy::Plan>) -> Vec<String> {
        let finds = |program: &str| self.shell.finds_program(program);
        plan.map(|plan| crate::policy::unknown_programs(&plan.steps, finds))
            .unwrap_or_default()
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
        if !rules::COPIED_FILTER.on(&self.options.levers) || may_change(decision) {
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

/// The system prompt `nushell_prompt` telling of the `sh` tool where
/// `options` offer it, in the form their levers ask for.
fn told_of_tools(nushell_prompt: &str, options: &AgentOptions) -> String {
    if !options.offers_sh() {
        return nushell_prompt.to_string();
    }
    let form = if options.on(Lever::ShOnly) {
        posix::ShPrompt::Only
    } else if options.on(Lever::ShellFirst) {
        posix::ShPrompt::First
    } else {
        posix::ShPrompt::Beside
    };
    posix::with_sh_tool(nushell_prompt, form)
}

/// What makes two calls the same: the tool and its arguments; for `nu`,
/// the pipeline alone (another `why` or `background` runs the same).
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

/// Whether a step so judged may change something: any part of it is more
/// than a read, or it moves the session (`cd`: "moved to src" is true).
fn may_change(decision: &Decision) -> bool {
    decision
        .rows
        .iter()
        .any(|row| row.category != crate::policy::Category::Read || row.name == "cd")
}

/// A `nu` call of `pipeline` (to name a call no reply may make).
fn nu_call(pipeline: &str) -> crate::llm::ToolCall {
    let mut arguments = serde_json::Map::new();
    arguments.insert(
        PIPELINE_ARGUMENT.to_string(),
        serde_json::Value::String(pipeline.to_string()),
    );
    crate::llm::ToolCall {
        id: String::new(),
        name: NU_TOOL.to_string(),
        arguments,
    }
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

/// The first non-empty line of `text`, short.
fn first_line(text: &str) -> String {
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with("Error:"))
        .unwrap_or_default();
    line.chars().take(160).collect()
}
