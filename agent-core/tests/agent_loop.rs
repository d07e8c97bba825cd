//! The agent loop on the scripted backend: whole episodes with a real
//! embedded engine and policy shell, the model's turns replayed.

use std::{
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use agent_core::{
    agent::{
        Agent, AgentEvent, AgentOptions, AgentState, Ending, FailureKind, Inbound, Lever, Levers,
        PromptKind, StepStatus, system_prompt,
    },
    llm::{
        ChatBackend, ChatEvent, ChatRequest, ChatTurn, LlmError, Message, Role, ScriptedBackend,
        ToolChoice,
    },
    policy::{NonInteractive, Policy, PolicyShell, ShellOptions},
    shell::{CancelToken, SessionSeed},
};
use nu_protocol::Value;

/// A scripted backend that also keeps the requests it was given.
struct Recording {
    inner: ScriptedBackend,
    requests: Arc<Mutex<Vec<ChatRequest>>>,
}

impl ChatBackend for Recording {
    fn name(&self) -> String {
        "recording".into()
    }

    fn chat(
        &mut self,
        request: &ChatRequest,
        on_event: &mut dyn FnMut(ChatEvent),
        cancel: &CancelToken,
    ) -> Result<ChatTurn, LlmError> {
        self.requests.lock().unwrap().push(request.clone());
        self.inner.chat(request, on_event, cancel)
    }
}

/// A call written as a model writes it.
fn call(name: &str, arguments: serde_json::Value) -> String {
    format!(
        "<tool_call>\n{}\n</tool_call>",
        serde_json::json!({"name": name, "arguments": arguments})
    )
}

fn nu(pipeline: &str) -> String {
    call(
        "nu",
        serde_json::json!({"pipeline": pipeline, "why": "test"}),
    )
}

fn answer(text: &str) -> String {
    call("answer", serde_json::json!({"text": text}))
}

/// How "how many files?" ends when the model's turns are `turns`, with
/// at most `max_steps`, and the requests the model was sent.
fn how_many_files(turns: Vec<String>, max_steps: usize) -> (Ending, Vec<ChatRequest>) {
    let options = AgentOptions {
        max_steps,
        ..AgentOptions::default()
    };
    let mut ep = episode(turns, Policy::default(), options);
    let ending = ep.agent.run("how many files?", &CancelToken::new());
    let requests = ep.requests.lock().unwrap().clone();
    (ending, requests)
}

/// A text answer and no data.
fn answered(text: &str) -> Ending {
    Ending::Answered {
        text: text.into(),
        data: None,
    }
}

struct Episode {
    agent: Agent,
    events: Arc<Mutex<Vec<AgentEvent>>>,
    requests: Arc<Mutex<Vec<ChatRequest>>>,
    dir: tempfile::TempDir,
}

impl Episode {
    fn events(&self) -> Vec<AgentEvent> {
        self.events.lock().unwrap().clone()
    }

    fn statuses(&self) -> Vec<StepStatus> {
        self.events()
            .iter()
            .filter_map(|e| match e {
                AgentEvent::Observed { status, .. } => Some(*status),
                _ => None,
            })
            .collect()
    }

    /// The names of the tools offered in the `n`th model request.
    fn tools_offered(&self, n: usize) -> Vec<String> {
        self.requests.lock().unwrap()[n]
            .tools
            .iter()
            .map(|t| t.name.clone())
            .collect()
    }

    /// What the first model request ended with: the request as the model
    /// read it (with what was read for it).
    /// The first request as the model read it, up to the notes on what is
    /// here and on the engine's commands (tested on their own).
    fn first_request_text(&self) -> String {
        let full = self.first_request_full();
        let cut = [
            "\n\nWhat is in the working directory",
            "\n\nThe working directory ",
            "\n\nCommands of this Nushell",
        ]
        .iter()
        .filter_map(|note| full.find(note))
        .min()
        .unwrap_or(full.len());
        full[..cut].to_string()
    }

    /// The first request as the model read it, notes and all.
    fn first_request_full(&self) -> String {
        let requests = self.requests.lock().unwrap();
        requests[0].messages.last().unwrap().content.clone()
    }

    /// The messages of the loop's repairs, in order.
    fn repaired(&self) -> Vec<String> {
        self.events()
            .iter()
            .filter_map(|e| match e {
                AgentEvent::Repaired { message, .. } => Some(message.clone()),
                _ => None,
            })
            .collect()
    }

    /// The arguments of every call in the conversation, as JSON text.
    fn calls_in_conversation(&self) -> Vec<String> {
        self.agent
            .messages()
            .iter()
            .flat_map(|m| m.tool_calls.iter())
            .map(|c| serde_json::Value::Object(c.arguments.clone()).to_string())
            .collect()
    }

    fn tool_results(&self) -> Vec<String> {
        self.agent
            .messages()
            .iter()
            .filter(|m| m.role == Role::Tool)
            .map(|m| m.content.clone())
            .collect()
    }

    /// The pipelines of the `nu` calls as the conversation shows them (the
    /// form that ran where another ran in the model's place).
    fn shown_pipelines(&self) -> Vec<String> {
        self.agent
            .messages()
            .iter()
            .flat_map(|m| &m.tool_calls)
            .filter_map(|call| call.arguments.get("pipeline")?.as_str())
            .map(str::to_string)
            .collect()
    }
}

/// What a step's observation ends with before the call to answer that a
/// step that gave something ends with.
fn value_end(observation: &str) -> &str {
    observation
        .strip_suffix("\n(If this is all the request needs, call `answer` now.)")
        .unwrap_or(observation)
}

fn episode(turns: Vec<String>, policy: Policy, options: AgentOptions) -> Episode {
    let dir = tempfile::tempdir().unwrap();
    for name in ["a.txt", "b.log", "c.txt"] {
        std::fs::write(dir.path().join(name), name.repeat(10)).unwrap();
    }
    episode_in(dir, turns, policy, options, Vec::new())
}

/// An episode in a folder holding `o.csv`, two rows whose `amount`s add
/// up to 5.5.
fn episode_with_amounts(turns: Vec<String>) -> Episode {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("o.csv"), "id,amount\n1,2.5\n2,3\n").unwrap();
    episode_in(
        dir,
        turns,
        Policy::default(),
        AgentOptions::default(),
        Vec::new(),
    )
}

fn episode_in(
    dir: tempfile::TempDir,
    turns: Vec<String>,
    policy: Policy,
    options: AgentOptions,
    history: Vec<Message>,
) -> Episode {
    episode_asking(
        dir,
        turns,
        policy,
        options,
        history,
        NonInteractive::default(),
    )
}

/// An episode whose confirmations `approver` answers.
fn episode_asking(
    dir: tempfile::TempDir,
    turns: Vec<String>,
    policy: Policy,
    options: AgentOptions,
    history: Vec<Message>,
    approver: NonInteractive,
) -> Episode {
    let shell = PolicyShell::new(
        policy,
        SessionSeed::new(dir.path()),
        Arc::new(approver),
        ShellOptions::default(),
    )
    .unwrap();
    let requests = Arc::new(Mutex::new(Vec::new()));
    let backend = Recording {
        inner: ScriptedBackend::new(turns),
        requests: requests.clone(),
    };
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink_events = events.clone();
    let agent = Agent::resume(
        Box::new(backend),
        shell,
        options,
        system_prompt(PromptKind::Task, "cwd: test"),
        history,
        Arc::new(move |event: &AgentEvent| sink_events.lock().unwrap().push(event.clone())),
    );
    Episode {
        agent,
        events,
        requests,
        dir,
    }
}

#[test]
fn a_multi_step_task_ends_with_the_answer_and_well_formed_events() {
    let mut ep = episode(
        vec![
            nu("ls | where name =~ txt | length"),
            nu("ls | get name | str join ','"),
            answer("There are 2 text files."),
        ],
        Policy::default(),
        AgentOptions::default(),
    );
    let ending = ep.agent.run("how many text files?", &CancelToken::new());
    assert_eq!(
        ending,
        Ending::Answered {
            text: "There are 2 text files.".into(),
            data: None
        }
    );
    assert_eq!(ep.agent.state(), AgentState::Answered);
    assert_eq!(ep.statuses(), vec![StepStatus::Ok, StepStatus::Ok]);
    // thinking → proposed → running → observed, twice, then thinking → answered.
    let states: Vec<AgentState> = ep.events().iter().filter_map(AgentEvent::state).collect();
    use AgentState::*;
    assert_eq!(
        states,
        vec![
            Thinking, Proposed, Running, Observed, Thinking, Proposed, Running, Observed, Thinking,
            Answered
        ]
    );
    let results = ep.tool_results();
    assert!(results[0].starts_with("$out.0"), "{}", results[0]);
    assert!(results[0].contains('2'), "{}", results[0]);
    assert!(results[1].contains("a.txt,b.log,c.txt"), "{}", results[1]);
    // The model saw the first result before the second turn.
    let requests = ep.requests.lock().unwrap();
    assert_eq!(requests.len(), 3);
    assert!(requests[1].messages.iter().any(|m| m.role == Role::Tool));
    assert_eq!(requests[0].messages[0].role, Role::System);
    assert_eq!(requests[0].tools.len(), 3);
}

#[test]
fn a_pipeline_that_does_not_parse_goes_back_unexecuted() {
    let mut ep = episode(
        vec![
            // Sampled again, the same: it goes back.
            nu("mkdir made; ls | where size >"),
            nu("mkdir made; ls | where size >"),
            nu("ls | length"),
            answer("ok"),
        ],
        Policy::default(),
        AgentOptions::default(),
    );
    let ending = ep.agent.run("count", &CancelToken::new());
    assert!(matches!(ending, Ending::Answered { .. }));
    assert_eq!(ep.statuses(), vec![StepStatus::Unparsable, StepStatus::Ok]);
    assert!(!ep.dir.path().join("made").exists(), "nothing of it ran");
    let results = ep.tool_results();
    assert!(
        results[0].contains("does not parse; nothing ran"),
        "{}",
        results[0]
    );
    assert!(results[0].contains("nu::parser"), "{}", results[0]);
    // Only pipelines that ran are numbered: the second is $out.0.
    assert!(results[1].starts_with("$out.0"), "{}", results[1]);
}

#[test]
fn a_denied_step_does_not_run_and_the_model_is_told() {
    let mut ep = episode(
        vec![nu("mkdir newdir"), answer("I could not create it.")],
        Policy::default(),
        AgentOptions::default(),
    );
    let ending = ep.agent.run("make a dir", &CancelToken::new());
    assert!(matches!(ending, Ending::Answered { .. }));
    assert_eq!(ep.statuses(), vec![StepStatus::Denied]);
    assert!(!ep.dir.path().join("newdir").exists());
    assert!(
        ep.events()
            .iter()
            .any(|e| matches!(e, AgentEvent::AwaitingApproval { .. }))
    );
    let told = &ep.tool_results()[0];
    assert!(told.contains("did not approve"), "{told}");
    // The model gets its instruction, not the user's hint.
    assert!(told.contains("do not retry it"), "{told}");
    assert!(!told.contains("--yes"), "{told}");
    // An answer that says the instruction back is not the answer: what the
    // steps themselves show is (asked again, a small model says it again,
    // a whole turn spent for nothing).
    let mut ep = episode(
        vec![
            nu("mkdir newdir"),
            answer("The user did not approve this; do not retry it, ask the user."),
            answer("I did not create newdir: you did not approve it."),
        ],
        Policy::default(),
        AgentOptions::default(),
    );
    let Ending::Answered { text, .. } = ep.agent.run("make a dir", &CancelToken::new()) else {
        panic!("no answer")
    };
    assert!(
        text.starts_with(
            "I did not do it: the policy stopped the step (Not run: the user did not approve it"
        ),
        "{text}"
    );
}

#[test]
fn a_blocked_step_does_not_run() {
    let policy = Policy {
        block: vec![agent_core::policy::Pattern::new("mkdir *").unwrap()],
        ..Policy::default()
    };
    let mut ep = episode(
        vec![nu("mkdir blocked"), answer("blocked")],
        policy,
        AgentOptions::default(),
    );
    ep.agent.run("make a dir", &CancelToken::new());
    assert_eq!(ep.statuses(), vec![StepStatus::Blocked]);
    assert!(!ep.dir.path().join("blocked").exists());
    let told = &ep.tool_results()[0];
    assert!(told.contains("blocked by"), "{told}");
    assert!(told.contains("do not retry it"), "{told}");
    assert!(!told.contains("change the policy"), "{told}");
    assert!(
        ep.events().iter().any(
            |e| matches!(e, AgentEvent::Proposed { verdict, .. } if verdict.as_str() == "block")
        )
    );
}

#[test]
fn a_block_is_followed_by_an_answer_and_a_false_one_is_replaced() {
    let policy = Policy {
        block: vec![agent_core::policy::Pattern::new("mkdir *").unwrap()],
        ..Policy::default()
    };
    let mut ep = episode(
        vec![
            nu("mkdir blocked"),
            nu("mkdir blocked2"),
            answer("The folder is there now; I created it."),
            answer("Done: the folder is there now."),
            answer("All set."),
        ],
        policy,
        AgentOptions::default(),
    );
    let ending = ep.agent.run("make a dir", &CancelToken::new());
    // Nothing gets past a block: the next turn offered only `answer`, so
    // the second `mkdir` was never a step. The false answers were sent
    // back once for each reason (a change no step made, the stop left
    // out); the third is replaced by what the steps show.
    assert_eq!(ep.statuses(), vec![StepStatus::Blocked]);
    let Ending::Answered { text, data: None } = ending else {
        panic!("{ending:?}");
    };
    assert!(
        text.starts_with("I did not do it: the policy stopped the step"),
        "{text}"
    );
    assert!(
        ep.repaired()
            .iter()
            .any(|r| r.contains("contradicts the steps")),
        "{:?}",
        ep.repaired()
    );
}

/// After a step that found something, a last answer that leaves out what
/// the policy stopped keeps what it found, with the stop said after it.
#[test]
fn a_last_answer_that_leaves_out_a_stop_keeps_what_was_found() {
    let policy = Policy {
        block: vec![agent_core::policy::Pattern::new("mkdir *").unwrap()],
        ..Policy::default()
    };
    let mut ep = episode(
        vec![
            nu("[[pid name]; [4242 ticker]]"),
            nu("mkdir blocked"),
            answer("ticker runs as pid 4242."),
            answer("ticker runs as pid 4242."),
        ],
        policy,
        AgentOptions::default(),
    );
    let ending = ep.agent.run("which pid has ticker", &CancelToken::new());
    assert_eq!(ep.statuses(), vec![StepStatus::Ok, StepStatus::Blocked]);
    let Ending::Answered { text, .. } = ending else {
        panic!("{ending:?}");
    };
    assert!(text.starts_with("ticker runs as pid 4242."), "{text}");
    assert!(
        text.contains("\nNot done: the policy stopped a step"),
        "{text}"
    );
    assert!(
        ep.repaired()
            .iter()
            .any(|r| r.contains("said after the answer")),
        "{:?}",
        ep.repaired()
    );
}

/// The answer a run with `max_steps` ends with after one step that shows
/// 10.0.0.7, then `answers`, with the loop's repairs.
fn last_answer_after(max_steps: usize, answers: &[&str]) -> (String, Vec<String>) {
    let options = AgentOptions {
        max_steps,
        ..AgentOptions::default()
    };
    let mut turns = vec![nu("[[ip hits]; ['10.0.0.7' 9]]")];
    turns.extend(answers.iter().map(|text| answer(text)));
    let mut ep = episode(turns, Policy::default(), options);
    let ending = ep
        .agent
        .run("which address is busiest", &CancelToken::new());
    let Ending::Answered { text, data } = ending else {
        panic!("{ending:?}");
    };
    assert!(data.is_some(), "the last result is returned");
    (text, ep.repaired())
}

/// On the last turn, an answer naming an address no result shows cannot
/// be sent back: the steps' own account replaces it. Said twice, the
/// address is not grounded by its own earlier answer (nor by the message
/// that sent it back, which quotes it).
#[test]
fn a_last_answer_with_an_address_no_result_shows_is_replaced() {
    let (text, repaired) = last_answer_after(2, &["The busiest address is 192.168.1.100."]);
    assert!(
        text.starts_with("This is what the last step found"),
        "{text}"
    );
    // The steps' account shows what the small table holds.
    assert!(text.ends_with("\nip: 10.0.0.7"), "{text}");
    assert!(
        repaired.iter().any(|r| r.contains("contradicts the steps")),
        "{repaired:?}"
    );
    let twice = ["The busiest address is 192.168.1.1."; 2];
    let (text, repaired) = last_answer_after(3, &twice);
    assert!(!text.contains("192.168.1.1"), "{text}");
    assert!(
        repaired.iter().any(|r| r.contains("no result shows")),
        "{repaired:?}"
    );
}

#[test]
fn the_step_limit_ends_the_loop() {
    let options = AgentOptions {
        max_steps: 2,
        ..AgentOptions::default()
    };
    let mut ep = episode(
        vec![nu("ls"), nu("ls"), nu("ls"), answer("late")],
        Policy::default(),
        options,
    );
    match ep.agent.run("loop", &CancelToken::new()) {
        Ending::Failed(failure) => {
            assert!(
                failure.message.contains("no answer after 2 steps"),
                "{failure}"
            );
            assert_eq!(failure.kind, FailureKind::StepLimit);
        }
        other => panic!("expected a failure, got {other:?}"),
    }
    assert_eq!(ep.agent.state(), AgentState::Failed);
    assert_eq!(ep.requests.lock().unwrap().len(), 2);
}

/// An answer that announces something it does not give (`The answer
/// is:`) is not an answer: the model is asked again; with no turn left
/// the steps' own outcome is the answer, and a model that keeps doing it
/// is stopped as stuck.
#[test]
fn a_hollow_answer_is_not_an_answer() {
    let steps = AgentOptions::default().max_steps;
    let turns = vec![
        answer("The answer is:"),
        "There are:".into(),
        answer("There are 3 files."),
    ];
    let (ending, requests) = how_many_files(turns, steps);
    assert_eq!(ending, answered("There are 3 files."));
    assert_eq!(requests.len(), 3);

    // On the last step no turn is left to ask again in: the steps' own
    // outcome is the answer.
    let (ending, _) = how_many_files(vec![answer("The answer is:"); 2], 2);
    assert_eq!(ending, answered("I could not finish the task."));

    // It is no progress: a model that keeps doing it is stopped as stuck
    // long before the step limit.
    let (ending, requests) = how_many_files(vec![answer("The answer is:"); 15], steps);
    match ending {
        Ending::Failed(failure) => assert_eq!(failure.kind, FailureKind::Stuck, "{failure}"),
        other => panic!("{other:?}"),
    }
    assert!(requests.len() < 15);
}

/// An answer that is only the name of a tool (a tiny model calls
/// `answer` with the text "answer") says nothing: the model is told so
/// and asked again, and on the last step the steps' own outcome is the
/// answer.
#[test]
fn an_answer_that_is_only_a_tool_name_is_not_an_answer() {
    let steps = AgentOptions::default().max_steps;
    let turns = vec![answer("answer"), answer("There are 3 files.")];
    let (ending, requests) = how_many_files(turns, steps);
    assert_eq!(ending, answered("There are 3 files."));
    assert_eq!(requests.len(), 2);
    let told = &requests[1].messages.last().unwrap().content;
    assert!(told.contains("`answer` is the name of a tool"), "{told}");

    let (ending, _) = how_many_files(vec![answer("`nu`."), answer("Answer")], 2);
    assert_eq!(ending, answered("I could not finish the task."));
    // Naming a `$out` that does not exist returns nothing either.
    let turns = vec![
        call("answer", serde_json::json!({"text": "answer", "out": 3})),
        answer("There are 3 files."),
    ];
    let (ending, requests) = how_many_files(turns, steps);
    assert_eq!(ending, answered("There are 3 files."));
    assert_eq!(requests.len(), 2);
    // On the last step, an empty one with such an `out` too.
    let turns = vec![
        nu("ls | length"),
        call("answer", serde_json::json!({"text": "", "out": 7})),
    ];
    let (ending, _) = how_many_files(turns, 2);
    match ending {
        Ending::Answered { text, data } => {
            assert!(text.starts_with("The last step found 3"), "{text}");
            assert!(data.is_some());
        }
        other => panic!("{other:?}"),
    }
    // A word that is also a tool's name, inside an answer, is an answer.
    let (ending, _) = how_many_files(vec![answer("The nu answer is 3.")], steps);
    assert_eq!(ending, answered("The nu answer is 3."));
}

#[test]
fn cancel_mid_step_stops_the_pipeline_and_the_loop() {
    let mut ep = episode(
        vec![nu("sleep 20sec"), answer("never")],
        Policy::default(),
        AgentOptions::default(),
    );
    let cancel = CancelToken::new();
    let trigger = cancel.clone();
    let events = ep.events.clone();
    std::thread::spawn(move || {
        // Cancel once the step is running.
        for _ in 0..200 {
            if events
                .lock()
                .unwrap()
                .iter()
                .any(|e| matches!(e, AgentEvent::Running { .. }))
            {
                std::thread::sleep(Duration::from_millis(200));
                trigger.cancel();
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    });
    let started = Instant::now();
    let ending = ep.agent.run("wait", &cancel);
    assert_eq!(ending, Ending::Cancelled);
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(ep.agent.state(), AgentState::Cancelled);
    assert_eq!(
        ep.requests.lock().unwrap().len(),
        1,
        "no turn after the cancel"
    );
}

#[test]
fn an_answer_returns_a_result_as_data() {
    let mut ep = episode(
        vec![
            nu("ls | sort-by name | select name"),
            call("answer", serde_json::json!({"text": "the files", "out": 0})),
        ],
        Policy::default(),
        AgentOptions::default(),
    );
    let Ending::Answered {
        data: Some(Value::List { vals, .. }),
        ..
    } = ep.agent.run("list the files", &CancelToken::new())
    else {
        panic!("expected data");
    };
    let names: Vec<String> = vals
        .iter()
        .map(|row| {
            row.get_data_by_key("name")
                .unwrap()
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(names, ["a.txt", "b.log", "c.txt"]);
    assert!(
        ep.events()
            .iter()
            .any(|e| matches!(e, AgentEvent::Answered { out: Some(0), .. }))
    );
}

#[test]
fn an_answer_naming_a_missing_result_right_after_one_returns_that_result() {
    let mut ep = episode(
        vec![
            nu("ls | length"),
            call("answer", serde_json::json!({"text": "3 files", "out": 1})),
        ],
        Policy::default(),
        AgentOptions::default(),
    );
    let ending = ep.agent.run("how many files?", &CancelToken::new());
    assert_eq!(
        ending,
        Ending::Answered {
            text: "3 files".into(),
            data: Some(Value::test_int(3))
        }
    );
    assert!(
        ep.repaired()
            .iter()
            .any(|m| m.contains("$out.1, which does not exist; it returns $out.0")),
        "{:?}",
        ep.repaired()
    );
}

#[test]
fn an_answer_naming_a_missing_result_goes_back_to_the_model() {
    let mut ep = episode(
        vec![
            nu("ls | length"),
            // The last step failed: there is no last result to return.
            nu("open missing.csv"),
            call("answer", serde_json::json!({"text": "x", "out": 4})),
            answer("plain"),
        ],
        Policy::default(),
        AgentOptions::default(),
    );
    let ending = ep.agent.run("x", &CancelToken::new());
    assert_eq!(
        ending,
        Ending::Answered {
            text: "plain".into(),
            data: None
        }
    );
    assert!(
        ep.tool_results()[2].contains("There is no $out.4"),
        "{:?}",
        ep.tool_results()
    );
}

#[test]
fn an_answer_naming_an_out_when_nothing_ran_is_the_text() {
    let mut ep = episode(
        vec![call(
            "answer",
            serde_json::json!({"text": "I did not delete it.", "out": 0}),
        )],
        Policy::default(),
        AgentOptions::default(),
    );
    let ending = ep.agent.run("x", &CancelToken::new());
    assert_eq!(
        ending,
        Ending::Answered {
            text: "I did not delete it.".into(),
            data: None
        }
    );
}

#[test]
fn continue_resumes_the_conversation_with_its_results() {
    let mut first = episode(
        vec![nu("ls | length"), answer("3 files")],
        Policy::default(),
        AgentOptions::default(),
    );
    first.agent.run("how many files?", &CancelToken::new());
    let history: Vec<Message> = first.agent.messages().to_vec();
    let dir = tempfile::tempdir().unwrap();
    let mut second = episode_in(
        dir,
        vec![answer("still 3")],
        Policy::default(),
        AgentOptions::default(),
        history,
    );
    let ending = second.agent.run("and now?", &CancelToken::new());
    assert!(matches!(ending, Ending::Answered { .. }));
    let requests = second.requests.lock().unwrap();
    let messages = &requests[0].messages;
    assert_eq!(
        messages.iter().filter(|m| m.role == Role::System).count(),
        1
    );
    assert!(
        messages
            .iter()
            .any(|m| m.role == Role::User && m.content.starts_with("how many files?"))
    );
    assert!(
        messages
            .iter()
            .any(|m| m.role == Role::Tool && m.content.starts_with("$out.0"))
    );
    assert!(
        messages.last().unwrap().content.starts_with("and now?"),
        "{}",
        messages.last().unwrap().content
    );
}

/// A continued conversation numbers its new results after the earlier
/// ones (not `$out.0` again), and an earlier number says it was not kept.
#[test]
fn continue_numbers_new_results_after_the_earlier_ones() {
    let mut first = episode(
        vec![nu("ls | length"), nu("ls | get name"), answer("3 files")],
        Policy::default(),
        AgentOptions::default(),
    );
    first.agent.run("how many files?", &CancelToken::new());
    let history: Vec<Message> = first.agent.messages().to_vec();
    let dir = tempfile::tempdir().unwrap();
    let mut second = episode_in(
        dir,
        vec![nu("ls | length"), answer("still 3")],
        Policy::default(),
        AgentOptions::default(),
        history,
    );
    second.agent.run("and now?", &CancelToken::new());
    let results = second.tool_results();
    let last = results.last().unwrap();
    assert!(last.starts_with("$out.2"), "{last}");
    match second.agent.shell().out(0) {
        Some(Value::String { val, .. }) => assert!(val.contains("not kept"), "{val}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn outside_events_arrive_between_turns_and_help_looks_up_commands() {
    let mut ep = episode(
        vec![
            call("help", serde_json::json!({"command": "sort-by"})),
            answer("done"),
        ],
        Policy::default(),
        AgentOptions::default(),
    );
    ep.agent
        .inbox()
        .send(Inbound::Note("job 3 finished".into()))
        .unwrap();
    ep.agent.run("sort things", &CancelToken::new());
    assert!(
        ep.events()
            .iter()
            .any(|e| matches!(e, AgentEvent::External(t) if t == "job 3 finished"))
    );
    assert!(
        ep.agent
            .messages()
            .iter()
            .any(|m| m.content == "[event] job 3 finished")
    );
    assert!(
        ep.tool_results()[0].starts_with("sort-by:"),
        "{}",
        ep.tool_results()[0]
    );
}

#[test]
fn a_plain_text_reply_is_the_answer_and_streams() {
    let mut ep = episode(
        vec!["Nothing to do here.".to_string()],
        Policy::default(),
        AgentOptions {
            tool_choice: ToolChoice::Auto,
            ..AgentOptions::default()
        },
    );
    let ending = ep.agent.run("hi", &CancelToken::new());
    assert_eq!(
        ending,
        Ending::Answered {
            text: "Nothing to do here.".into(),
            data: None
        }
    );
    let streamed: String = ep
        .events()
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Text(t) => Some(t.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(streamed, "Nothing to do here.");
}

#[test]
fn big_results_are_shortened_with_a_notice_to_fit_the_context() {
    let options = AgentOptions {
        context_tokens: 3_000,
        max_tokens: 256,
        ..AgentOptions::default()
    };
    let mut ep = episode(
        vec![
            nu("1..400 | each { |i| {n: $i, name: $'file($i).txt'} }"),
            nu("1..400 | each { |i| {n: $i, name: $'other($i).txt'} }"),
            nu("ls | length"),
            nu("ls | length"),
            answer("done"),
        ],
        Policy::default(),
        options,
    );
    ep.agent.run("big", &CancelToken::new());
    assert!(
        ep.events()
            .iter()
            .any(|e| matches!(e, AgentEvent::Notice(t) if t.contains("shortened"))),
        "{:?}",
        ep.events()
    );
    let requests = ep.requests.lock().unwrap();
    let last = requests.last().unwrap();
    assert_eq!(last.messages[0].role, Role::System);
    assert!(last.messages[0].content.contains("nu-agent"));
    assert!(agent_core::agent::estimate_tokens(&last.messages) <= 3_000);
}

fn shell_in(dir: &std::path::Path) -> PolicyShell {
    PolicyShell::new(
        Policy::default(),
        SessionSeed::new(dir),
        Arc::new(NonInteractive::default()),
        ShellOptions::default(),
    )
    .unwrap()
}

#[test]
fn suggest_returns_a_pipeline_that_parses_with_its_verdict_and_runs_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let shell = shell_in(dir.path());
    let mut backend = ScriptedBackend::new([nu("mkdir out; ls | where size >"), nu("mkdir out")]);
    let sink: agent_core::agent::EventSink = Arc::new(|_: &AgentEvent| {});
    let suggestion = agent_core::agent::suggest(
        &mut backend,
        &shell,
        "make a dir",
        system_prompt(PromptKind::Suggest, ""),
        &AgentOptions::default(),
        &sink,
        &CancelToken::new(),
    )
    .unwrap();
    assert_eq!(suggestion.pipeline, "mkdir out");
    assert_eq!(suggestion.decision.verdict.as_str(), "confirm");
    assert!(!dir.path().join("out").exists());
    // The second request carried the parse error back.
    let second = &backend.requests[1].messages;
    assert!(second.iter().any(|m| m.content.contains("does not parse")));
    assert_eq!(backend.requests[0].tools.len(), 2, "nu and help, no answer");
}

#[test]
fn suggest_gives_up_with_the_last_error() {
    let dir = tempfile::tempdir().unwrap();
    let shell = shell_in(dir.path());
    let mut backend = ScriptedBackend::new(vec![nu("ls |"); 4]);
    let sink: agent_core::agent::EventSink = Arc::new(|_: &AgentEvent| {});
    let error = agent_core::agent::suggest(
        &mut backend,
        &shell,
        "x",
        system_prompt(PromptKind::Suggest, ""),
        &AgentOptions::default(),
        &sink,
        &CancelToken::new(),
    )
    .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("no pipeline that parses after 4 tries"),
        "{error}"
    );
}

#[test]
fn explain_without_investigate_offers_no_nu_tool() {
    let options = AgentOptions {
        kind: PromptKind::Explain { investigate: false },
        ..AgentOptions::default()
    };
    let mut ep = episode(
        vec![answer("It is a list of files.")],
        Policy::default(),
        options,
    );
    let request = agent_core::agent::request_with_input(
        "what is this?",
        Some(&Value::test_list(vec![Value::test_string("a.txt")])),
        200,
    );
    let ending = ep.agent.run(&request, &CancelToken::new());
    assert!(matches!(ending, Ending::Answered { .. }));
    assert_eq!(ep.tools_offered(0), ["help", "answer"]);
    let requests = ep.requests.lock().unwrap();
    assert!(requests[0].messages[1].content.contains("a.txt"));
}

#[test]
fn a_repeated_call_is_sampled_again_steered_away_and_left_out_of_the_conversation() {
    let mut ep = episode(
        vec![
            call("help", serde_json::json!({"command": "ls"})),
            call("help", serde_json::json!({"command": "ls"})),
            nu("ls | length"),
            nu("ls  |  length"),
            answer("3"),
        ],
        Policy::default(),
        AgentOptions {
            temperature: 0.0,
            ..AgentOptions::default()
        },
    );
    let ending = ep.agent.run("count", &CancelToken::new());
    assert!(matches!(ending, Ending::Answered { .. }), "{ending:?}");
    assert_eq!(ep.statuses(), vec![StepStatus::Ok], "the pipeline ran once");
    // The repeats were sampled again and never joined the conversation.
    assert_eq!(ep.tool_results().len(), 2);
    let calls = ep
        .agent
        .messages()
        .iter()
        .filter(|m| !m.tool_calls.is_empty())
        .count();
    assert_eq!(calls, 3, "help, the pipeline and the answer");
    let requests = ep.requests.lock().unwrap();
    let temperatures: Vec<f32> = requests.iter().map(|r| r.temperature).collect();
    assert_eq!(temperatures, vec![0.0, 0.0, 0.0, 0.0, 0.0]);
    // Every turn is asked to avoid the calls made before it, and each
    // resample the call it repeated too (a backend that steers never
    // writes the repeat; this scripted one does not steer).
    let avoided: Vec<Vec<&str>> = requests
        .iter()
        .map(|r| r.avoid.iter().map(|c| c.name.as_str()).collect())
        .collect();
    assert_eq!(
        avoided,
        vec![
            vec![],
            vec!["help"],
            vec!["help", "help"],
            vec!["help", "nu"],
            vec!["help", "nu", "nu"]
        ]
    );
    drop(requests);
    let repaired = ep.repaired();
    assert_eq!(
        repaired,
        [
            "the same call as step 1; sampled again",
            "the same call as step 2; sampled again"
        ]
    );
}

#[test]
fn a_call_repeated_through_every_resample_is_not_made_again() {
    let mut ep = episode(
        vec![
            nu("ls | length"),
            nu("ls | length"),
            nu("ls | length"),
            nu("ls | length"),
            nu("ls | length"),
            answer("3"),
        ],
        Policy::default(),
        AgentOptions::default(),
    );
    ep.agent.run("count", &CancelToken::new());
    let results = ep.tool_results();
    assert!(results[1].contains("same call at step 1"), "{results:?}");
    let repaired = ep.repaired();
    assert_eq!(
        repaired,
        [
            "the same call as step 1; sampled again",
            "the same call as step 1; sampled again",
            "the same call as step 1; sampled again",
            "the same call as step 1; not made again"
        ]
    );
    let temperatures: Vec<f32> = ep
        .requests
        .lock()
        .unwrap()
        .iter()
        .map(|r| r.temperature)
        .collect();
    assert_eq!(temperatures[1..5], [0.2, 0.2, 0.7, 1.0], "then warmer");
    assert_eq!(ep.statuses(), vec![StepStatus::Ok], "the pipeline ran once");
}

#[test]
fn a_model_going_round_in_circles_is_asked_to_answer_then_stopped() {
    let help = || call("help", serde_json::json!({"command": "ls"}));
    // Each idle step is the repeat and its three resamples.
    let mut turns = vec![help(); 9];
    turns.push(answer("ls lists files"));
    let mut ep = episode(turns, Policy::default(), AgentOptions::default());
    let ending = ep.agent.run("what does ls do?", &CancelToken::new());
    assert!(matches!(ending, Ending::Answered { .. }), "{ending:?}");
    assert_eq!(ep.tools_offered(9), ["answer"]);
    assert_eq!(
        ep.requests.lock().unwrap()[9].tool_choice,
        ToolChoice::Required
    );
    assert!(
        ep.events()
            .iter()
            .any(|e| matches!(e, AgentEvent::Notice(t) if t.contains("round in circles")))
    );

    let mut ep = episode(vec![help(); 20], Policy::default(), AgentOptions::default());
    match ep.agent.run("what does ls do?", &CancelToken::new()) {
        Ending::Failed(failure) => assert!(
            failure.message.contains("keeps repeating itself"),
            "{failure}"
        ),
        other => panic!("expected a failure, got {other:?}"),
    }
    assert!(
        ep.requests.lock().unwrap().len() <= 17,
        "one useful turn, at most four idle steps of four samples each"
    );
}

#[test]
fn an_answer_naming_a_missing_out_again_and_again_ends_as_its_text() {
    let bad = || {
        call(
            "answer",
            serde_json::json!({"text": "The largest is big.bin", "out": 5}),
        )
    };
    // The last step failed: there is no last result to return instead.
    let mut turns = vec![nu("ls | length"), nu("open missing.csv")];
    turns.extend(vec![bad(); 15]);
    let mut ep = episode(turns, Policy::default(), AgentOptions::default());
    // Sent back twice, then asked for an answer only: its text stands,
    // without the result it cannot name.
    let ending = ep.agent.run("which file is largest?", &CancelToken::new());
    assert_eq!(
        ending,
        Ending::Answered {
            text: "The largest is big.bin".into(),
            data: None
        }
    );
    assert_eq!(ep.requests.lock().unwrap().len(), 5);
    assert!(
        ep.events()
            .iter()
            .any(|e| matches!(e, AgentEvent::Notice(t) if t.contains("round in circles")))
    );
}

#[test]
fn degenerate_pipelines_and_answers_go_back_to_the_model() {
    let zeros = format!("The largest is 1{}", "0".repeat(470));
    let mut ep = episode(
        vec![
            nu(&format!("ls | {}", "pip_".repeat(40))),
            answer(&zeros),
            "0000000000000000000000000000000000000000".to_string(),
            answer("a.txt is the largest"),
        ],
        Policy::default(),
        AgentOptions::default(),
    );
    let ending = ep.agent.run("which file is largest?", &CancelToken::new());
    let Ending::Answered { text, .. } = ending else {
        panic!("expected an answer, got {ending:?}");
    };
    assert_eq!(text, "a.txt is the largest");
    assert!(
        ep.statuses().is_empty(),
        "the degenerate pipeline never ran"
    );
    let results = ep.tool_results();
    assert!(
        results[0].contains("`pip_` repeated 40 times"),
        "{results:?}"
    );
    assert!(results[1].contains("`0` repeated 470 times"), "{results:?}");
    let repaired = ep.repaired();
    assert_eq!(
        repaired,
        [
            "a degenerate pipeline (`pip_` repeated 40 times); asked again",
            "a degenerate answer (`0` repeated 470 times); asked again",
            "a degenerate reply (`0` repeated 40 times); asked again",
        ]
    );
}

#[test]
fn an_invented_command_is_an_error_never_a_question_and_a_known_one_is_translated() {
    let mut ep = episode(
        vec![
            nu("ls | frobnicate"),
            nu("ls | frobnicate"),
            nu("ls | where name =~ txt | count"),
            answer("There are 2 text files."),
        ],
        Policy::default(),
        AgentOptions::default(),
    );
    let ending = ep.agent.run("how many text files?", &CancelToken::new());
    assert!(matches!(ending, Ending::Answered { .. }), "{ending:?}");
    assert_eq!(ep.statuses(), vec![StepStatus::Failed, StepStatus::Ok]);
    assert!(
        !ep.events()
            .iter()
            .any(|e| matches!(e, AgentEvent::AwaitingApproval { .. })),
        "nobody was asked about running `frobnicate`"
    );
    let results = ep.tool_results();
    assert!(
        results[0].contains("`frobnicate` is not a Nushell command"),
        "{}",
        results[0]
    );
    // `count` has an exact Nushell form, which ran.
    assert!(
        results[1].starts_with("That was bash; it ran as `ls | where name =~ txt | length`."),
        "{}",
        results[1]
    );
    assert!(
        ep.shown_pipelines()
            .contains(&"ls | where name =~ txt | length".to_string()),
        "{:?}",
        ep.shown_pipelines()
    );
    assert!(results[1].contains('2'), "{}", results[1]);
}

/// An answer that only says back a result's shape line or the loop's own
/// words (in other punctuation) is no answer; said twice, the steps' own
/// outcome answers, naming a result that is one value.
#[test]
fn an_answer_saying_back_a_shape_or_an_instruction_ends_with_the_value_found() {
    let mut ep = episode(
        vec![
            nu("open a.txt | str length"),
            answer("list: 1 items (int)"),
            answer("The last step. Call answer now: what you found."),
        ],
        Policy::default(),
        AgentOptions {
            max_steps: 3,
            ..AgentOptions::default()
        },
    );
    let ending = ep.agent.run("how long is a.txt?", &CancelToken::new());
    match ending {
        Ending::Answered { text, .. } => {
            assert_eq!(text, "The last step found 50 ($out.0).")
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        ep.repaired(),
        vec![
            "the answer repeated a message it was sent; asked again".to_string(),
            "the answer repeated a message again; the steps' own outcome is the answer".to_string(),
        ]
    );
}

/// A lever switched off (`nu-agent eval --without`) leaves the loop as it
/// was without it: no translation runs bash's Nushell form; without the
/// call shown as it ran, the model reads its own call.
#[test]
fn a_lever_switched_off_leaves_the_models_call_as_it_was() {
    let turns = || {
        vec![
            nu("ls | where name =~ txt | count"),
            answer("There are 2 text files."),
        ]
    };
    let without = |lever| AgentOptions::default().without(Levers::without([lever]));
    // Untranslated, `count` is a name nothing runs: the turn is sampled
    // again (the script's next turn answers).
    let mut ep = episode(turns(), Policy::default(), without(Lever::Translation));
    ep.agent.run("how many text files?", &CancelToken::new());
    assert_eq!(ep.statuses(), vec![]);
    assert_eq!(
        ep.repaired(),
        vec!["a pipeline that calls a name that is no command or program; sampled again"]
    );

    let mut ep = episode(turns(), Policy::default(), without(Lever::ShowAsRan));
    ep.agent.run("how many text files?", &CancelToken::new());
    assert_eq!(ep.statuses(), vec![StepStatus::Ok]);
    assert!(
        ep.tool_results()[0]
            .starts_with("That was bash; it ran as `ls | where name =~ txt | length`."),
        "{:?}",
        ep.tool_results()
    );
    assert_eq!(
        ep.shown_pipelines(),
        vec!["ls | where name =~ txt | count".to_string()]
    );
}

#[test]
fn a_pipeline_that_failed_is_not_run_again_later() {
    let mut ep = episode(
        vec![
            nu("open missing.csv"),
            nu("ls | length"),
            // Sampled again three times, the same each time.
            nu("open   missing.csv"),
            nu("open missing.csv"),
            nu("open missing.csv"),
            nu("open missing.csv"),
            answer("missing.csv does not exist."),
        ],
        Policy::default(),
        AgentOptions::default(),
    );
    ep.agent.run("open missing.csv", &CancelToken::new());
    assert_eq!(ep.statuses(), vec![StepStatus::Failed, StepStatus::Ok]);
    let results = ep.tool_results();
    assert!(
        results[2].contains("this same pipeline failed at step 1"),
        "{}",
        results[2]
    );
}

#[test]
fn a_posix_pipeline_nu_cannot_parse_runs_as_programs() {
    let mut ep = episode(
        vec![nu("du -sh a.txt | cut -f2"), answer("It is a.txt.")],
        Policy::default(),
        AgentOptions::default(),
    );
    // `-s` is no flag of Nushell's `du`: nu cannot parse it.
    ep.agent.run("how big is a.txt?", &CancelToken::new());
    assert_eq!(ep.statuses(), vec![StepStatus::Ok]);
    let proposed: Vec<String> = ep
        .events()
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Proposed { pipeline, .. } => Some(pipeline.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(proposed, vec!["^du -sh a.txt | ^cut -f2".to_string()]);
    let results = ep.tool_results();
    assert!(
        results[0].starts_with("That was no Nushell but a pipeline of programs; it ran as `^du"),
        "{}",
        results[0]
    );
    assert_eq!(ep.shown_pipelines(), vec!["^du -sh a.txt | ^cut -f2"]);
    assert!(results[0].contains("a.txt"), "{}", results[0]);
}

#[test]
fn the_last_step_offers_only_answer() {
    let options = AgentOptions {
        max_steps: 2,
        ..AgentOptions::default()
    };
    let mut ep = episode(
        vec![nu("ls | length"), answer("3 files.")],
        Policy::default(),
        options,
    );
    let ending = ep.agent.run("how many files?", &CancelToken::new());
    assert!(matches!(ending, Ending::Answered { .. }), "{ending:?}");
    let requests = ep.requests.lock().unwrap();
    assert_eq!(requests[0].tools.len(), 3);
    let last: Vec<&str> = requests[1].tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(last, vec!["answer"]);
    assert_eq!(requests[1].tool_choice, ToolChoice::Required);
}

#[test]
fn an_example_copied_from_the_prompt_before_any_result_is_sampled_again() {
    let mut ep = episode(
        vec![
            // The prompt's own example, on a file that is not here.
            nu("open f.csv | get score | math avg"),
            nu("ls | length"),
            answer("3 files."),
        ],
        Policy::default(),
        AgentOptions::default(),
    );
    ep.agent.run("how many files?", &CancelToken::new());
    assert_eq!(ep.statuses(), vec![StepStatus::Ok]);
    assert_eq!(
        ep.repaired(),
        ["a pipeline that copies the prompt's example, on files that are not here; sampled again"]
    );
    assert_eq!(ep.shown_pipelines(), vec!["ls | length"]);
}

#[test]
fn an_example_copied_from_the_prompt_after_results_is_not_run_and_answer_is_asked() {
    let mut ep = episode(
        vec![
            nu("ls | where name ends-with '.txt' | length"),
            // The prompt's own example, on a file this task never named.
            nu("open f.csv | get score | math avg"),
            answer("There are 2 text files."),
        ],
        Policy::default(),
        AgentOptions::default(),
    );
    let ending = ep.agent.run("how many text files?", &CancelToken::new());
    assert!(matches!(ending, Ending::Answered { .. }), "{ending:?}");
    assert_eq!(ep.statuses(), vec![StepStatus::Ok]);
    // The copy is not in the conversation; the request is put again.
    assert_eq!(ep.tool_results().len(), 1);
    let told = ep
        .agent
        .messages()
        .iter()
        .filter(|m| m.role == Role::User)
        .map(|m| m.content.clone())
        .next_back()
        .unwrap_or_default();
    assert!(
        told.contains("from the examples in your instructions")
            && told.ends_with("The request: how many text files?"),
        "{told}"
    );
    assert!(
        !ep.agent
            .messages()
            .iter()
            .any(|m| m
                .tool_calls
                .iter()
                .any(|c| serde_json::Value::Object(c.arguments.clone())
                    .to_string()
                    .contains("f.csv"))),
        "the copy is left out"
    );
    assert_eq!(ep.tools_offered(2), ["answer"]);
}

#[test]
fn an_answer_after_a_stopped_step_must_say_what_was_not_done() {
    let mut ep = episode(
        vec![
            nu("rm a.txt"),
            answer("There are 3 files here."),
            answer("I did not delete a.txt: the step was not approved."),
        ],
        Policy::default(),
        AgentOptions::default(),
    );
    let ending = ep.agent.run("delete a.txt", &CancelToken::new());
    assert_eq!(
        ending,
        Ending::Answered {
            text: "I did not delete a.txt: the step was not approved.".into(),
            data: None
        }
    );
    assert!(ep.dir.path().join("a.txt").exists());
    assert!(
        ep.tool_results()[1].contains("does not say so"),
        "{:?}",
        ep.tool_results()
    );
}

#[test]
fn an_example_as_the_first_step_runs() {
    let mut ep = episode(
        vec![
            nu("ls | where type == dir"),
            answer("There are no folders."),
        ],
        Policy::default(),
        AgentOptions::default(),
    );
    ep.agent.run("which folders are here?", &CancelToken::new());
    assert_eq!(ep.statuses(), vec![StepStatus::Ok]);
}

/// A pipeline handed to a new `nu` runs as itself in the session (a `nu`
/// on PATH would be a program the policy cannot see into).
#[test]
fn a_pipeline_handed_to_a_new_nu_runs_here() {
    let mut ep = episode(
        vec![nu("nu -c '[1 2 3] | length'"), answer("There are 3.")],
        Policy::default(),
        AgentOptions::default(),
    );
    ep.agent.run("how many items?", &CancelToken::new());
    assert_eq!(ep.statuses(), vec![StepStatus::Ok]);
    let results = ep.tool_results();
    assert!(
        results[0].starts_with(
            "In Nushell a pipeline runs here as it is: `nu -c 'ls'` is `ls`; it ran as `[1 2 3] | length`."
        ),
        "{}",
        results[0]
    );
    assert_eq!(ep.shown_pipelines(), vec!["[1 2 3] | length"]);
}

#[test]
fn durations_in_other_languages_units_run_in_nushells() {
    let mut ep = episode(
        vec![
            nu("ls | where modified > ((date now) - 2days) | length"),
            answer("3 files changed in the last two days."),
        ],
        Policy::default(),
        AgentOptions::default(),
    );
    ep.agent
        .run("how many files changed in two days?", &CancelToken::new());
    assert_eq!(ep.statuses(), vec![StepStatus::Ok]);
    let results = ep.tool_results();
    assert!(
        results[0].starts_with(
            "In Nushell `2days` is `2day`; it ran as `ls | where modified > ((date now) - 2day) | length`."
        ),
        "{}",
        results[0]
    );
    // The call reads as the form that ran: the model is not drawn to run
    // the fixed form again to see it work.
    assert_eq!(
        ep.shown_pipelines(),
        vec!["ls | where modified > ((date now) - 2day) | length"]
    );
    assert!(results[0].contains('3'), "{}", results[0]);
    // The rules behind the step are named: the rewrite, and the note that
    // asks for the answer.
    let rules: Vec<String> = ep
        .events()
        .into_iter()
        .filter_map(|event| match event {
            AgentEvent::RuleApplied { step: 1, rule } => Some(rule),
            _ => None,
        })
        .collect();
    assert_eq!(rules, ["duration-units", "done-ask"]);
}

#[test]
fn a_rule_switched_off_by_its_name_leaves_the_step_as_written() {
    let mut ep = episode(
        vec![
            nu("ls | where modified > ((date now) - 2days) | length"),
            answer("I could not tell."),
        ],
        Policy::default(),
        AgentOptions::default().without(Levers::default().without_rules(["duration-units"])),
    );
    ep.agent
        .run("how many files changed in two days?", &CancelToken::new());
    // Written in other units it cannot run: nothing runs in its place.
    assert!(!ep.events().iter().any(|event| matches!(
        event,
        AgentEvent::Proposed { pipeline, .. } if pipeline.contains("2day)")
    )));
    assert!(!ep.events().iter().any(
        |event| matches!(event, AgentEvent::RuleApplied { rule, .. } if rule == "duration-units")
    ));
}

#[test]
fn an_answer_with_facts_no_result_shows_goes_back_once() {
    let mut ep = episode(
        vec![
            answer("The last commit is 1a2b3c4d5e by 42 people."),
            nu("ls | length"),
            answer("There are 3 files; I found no commit."),
        ],
        Policy::default(),
        AgentOptions::default(),
    );
    let ending = ep
        .agent
        .run("what is the last commit?", &CancelToken::new());
    assert_eq!(
        ending,
        Ending::Answered {
            text: "There are 3 files; I found no commit.".into(),
            data: None
        }
    );
    let results = ep.tool_results();
    assert!(
        results[0].contains("1a2b3c4d5e") && results[0].contains("42"),
        "{}",
        results[0]
    );
}

/// The text and rows of an answer that returned a table.
fn answered_table(ending: Ending) -> (String, Vec<Value>) {
    match ending {
        Ending::Answered {
            text,
            data: Some(Value::List { vals, .. }),
        } => (text, vals.to_vec()),
        other => panic!("expected the table as data, got {other:?}"),
    }
}

#[test]
fn an_answer_right_after_a_table_returns_the_table() {
    let mut ep = episode(
        vec![
            nu("ls | where name =~ txt | select name"),
            answer("a.txt and c.txt."),
        ],
        Policy::default(),
        AgentOptions::default(),
    );
    let ending = ep.agent.run("which text files?", &CancelToken::new());
    let (text, vals) = answered_table(ending);
    assert_eq!(text, "a.txt and c.txt.");
    assert_eq!(vals.len(), 2);
    assert!(
        ep.events()
            .iter()
            .any(|e| matches!(e, AgentEvent::Answered { out: Some(0), .. }))
    );
    // After a value that is not a table, the answer is its text alone.
    let mut ep = episode(
        vec![nu("ls | length"), answer("3 files.")],
        Policy::default(),
        AgentOptions::default(),
    );
    assert_eq!(
        ep.agent.run("how many files?", &CancelToken::new()),
        Ending::Answered {
            text: "3 files.".into(),
            data: None
        }
    );
}

#[test]
fn a_reply_that_repeats_a_message_it_was_sent_is_not_the_answer() {
    // As plain text: asked again, and the real answer after a table
    // returns the table.
    let mut ep = episode(
        vec![
            nu("ls | where name =~ txt | select name"),
            "which text files?".to_string(),
            answer("which text files?"),
            "The text files are a.txt and c.txt.".to_string(),
        ],
        Policy::default(),
        AgentOptions::default(),
    );
    let ending = ep.agent.run("which text files?", &CancelToken::new());
    let (text, vals) = answered_table(ending);
    assert_eq!(text, "The text files are a.txt and c.txt.");
    assert_eq!(vals.len(), 2);
    assert_eq!(
        ep.repaired(),
        [
            "the reply repeated a message it was sent; asked again",
            "the answer repeated a message it was sent; asked again"
        ]
    );
}

/// "how many text files are here" for "How many text files are here?":
/// the request with words left out answers nothing, so the model is asked
/// again; over a table it returns, it heads the table and stands.
#[test]
fn an_answer_that_is_the_request_in_fewer_words_is_not_the_answer() {
    let mut ep = episode(
        vec![
            nu("ls | where name =~ txt | length"),
            answer("how many text files here"),
            answer("There are 2 text files."),
        ],
        Policy::default(),
        AgentOptions::default(),
    );
    let ending = ep
        .agent
        .run("How many text files are here?", &CancelToken::new());
    assert!(
        matches!(&ending, Ending::Answered { text, .. } if text == "There are 2 text files."),
        "{ending:?}"
    );
    assert_eq!(
        ep.repaired(),
        ["the answer repeated a message it was sent; asked again"]
    );
    let mut ep = episode(
        vec![
            nu("ls | where name =~ txt | select name"),
            answer("the text files here"),
        ],
        Policy::default(),
        AgentOptions::default(),
    );
    let ending = ep
        .agent
        .run("List the text files here.", &CancelToken::new());
    let (text, vals) = answered_table(ending);
    assert!(text.starts_with("the text files here"), "{text}");
    assert_eq!(vals.len(), 2);
    assert!(ep.repaired().is_empty(), "{:?}", ep.repaired());
}

#[test]
fn an_answer_that_is_words_of_an_instruction_it_was_sent_is_not_the_answer() {
    let mut ep = episode(
        vec![
            nu("ls | length"),
            answer("what you found, or what you could not do and why."),
            answer("3 files."),
        ],
        Policy::default(),
        AgentOptions {
            max_steps: 2,
            ..AgentOptions::default()
        },
    );
    let ending = ep.agent.run("how many files?", &CancelToken::new());
    // Told on the last step to answer "with what you found, or what you
    // could not do and why", it said those words back: no turn is left to
    // ask again in, so the steps' own outcome is the answer.
    assert_eq!(
        ep.repaired(),
        ["the answer repeated a message it was sent; the steps' own outcome is the answer"]
    );
    assert!(
        matches!(&ending, Ending::Answered { text, .. } if text == "The last step found 3 ($out.0)."),
        "{ending:?}"
    );
}

#[test]
fn an_answer_that_is_words_of_a_tool_s_description_is_not_the_answer() {
    let mut ep = episode(
        vec![
            nu("ls | length"),
            answer("answer the user. Set out to N to return $out.N as data."),
            answer("3 files."),
        ],
        Policy::default(),
        AgentOptions::default(),
    );
    let ending = ep.agent.run("how many files?", &CancelToken::new());
    assert_eq!(
        ep.repaired(),
        ["the answer repeated a message it was sent; asked again"]
    );
    assert_eq!(
        ending,
        Ending::Answered {
            text: "3 files.".into(),
            data: None
        }
    );
}

#[test]
fn an_answer_saying_something_changed_when_nothing_did_goes_back_once() {
    // NonInteractive denies the delete: nothing changed.
    let mut ep = episode(
        vec![
            nu("rm a.txt"),
            answer("I have deleted a.txt."),
            answer("I did not delete a.txt: the step was denied."),
        ],
        Policy::default(),
        AgentOptions::default(),
    );
    let ending = ep.agent.run("delete a.txt", &CancelToken::new());
    assert_eq!(
        ending,
        Ending::Answered {
            text: "I did not delete a.txt: the step was denied.".into(),
            data: None
        }
    );
    assert!(ep.dir.path().join("a.txt").exists());
    assert!(
        ep.tool_results()[1].contains("your answer says `deleted`"),
        "{:?}",
        ep.tool_results()
    );
    // After a step that may change something ran, the claim stands.
    let policy = Policy {
        allow: vec![agent_core::policy::Pattern::new("rm *").unwrap()],
        ..Policy::default()
    };
    let mut ep = episode(
        vec![nu("rm a.txt"), answer("I have deleted a.txt.")],
        policy,
        AgentOptions::default(),
    );
    assert_eq!(
        ep.agent.run("delete a.txt", &CancelToken::new()),
        Ending::Answered {
            text: "I have deleted a.txt.".into(),
            data: None
        }
    );
    assert!(!ep.dir.path().join("a.txt").exists());
    // `each { rm … }` gives an empty list for the files it removed: the
    // claim stands.
    let policy = Policy {
        allow: vec![agent_core::policy::Pattern::new("rm *").unwrap()],
        ..Policy::default()
    };
    let mut ep = episode(
        vec![
            nu("ls *.txt | each { rm $in.name }"),
            answer("I have deleted the text files."),
        ],
        policy,
        AgentOptions::default(),
    );
    assert_eq!(
        ep.agent.run("delete the text files", &CancelToken::new()),
        Ending::Answered {
            text: "I have deleted the text files.".into(),
            data: None
        }
    );
    assert!(!ep.dir.path().join("a.txt").exists());
    assert!(
        !ep.tool_results()[0].contains("Nothing came out"),
        "{:?}",
        ep.tool_results()
    );
}

#[test]
fn a_nushell_value_piped_into_a_program_named_like_a_command_runs_as_the_command() {
    // coreutils' `sum` would checksum the table's text.
    let mut ep = episode(
        vec![nu("ls | get size | sum"), answer("150 B")],
        Policy::default(),
        AgentOptions::default(),
    );
    ep.agent.run("total size?", &CancelToken::new());
    let results = ep.tool_results();
    assert!(
        results[0].starts_with("That was bash; it ran as `ls | get size | math sum`."),
        "{results:?}"
    );
    assert_eq!(ep.shown_pipelines(), vec!["ls | get size | math sum"]);
    assert!(value_end(&results[0]).ends_with("150B"), "{results:?}");
}

#[test]
fn turns_carry_the_sessions_heads_for_the_pipeline_grammar() {
    let mut ep = episode(
        vec![nu("def shout [] { 'hey' }"), nu("shout"), answer("done")],
        Policy::default(),
        AgentOptions::default(),
    );
    ep.agent
        .run("define a command and use it", &CancelToken::new());
    let requests = ep.requests.lock().unwrap();
    assert_eq!(requests.len(), 3);
    let grammar = |i: usize| {
        requests[i]
            .pipeline_grammar
            .clone()
            .expect("a pipeline grammar")
    };
    let first = grammar(0);
    assert_eq!(
        (first.tool.as_str(), first.argument.as_str()),
        ("nu", "pipeline")
    );
    // Commands by their first word; not in the tool's schema the model
    // reads.
    assert!(first.heads.iter().any(|h| h == "ls") && first.heads.iter().any(|h| h == "str"));
    assert!(!first.heads.iter().any(|h| h == "str trim"));
    assert!(!first.heads.iter().any(|h| h == "shout"));
    // Once the `def` ran, its command is a head.
    assert!(grammar(1).heads.iter().any(|h| h == "shout"));
    drop(requests);

    let mut ep = episode(
        vec![nu("ls"), answer("done")],
        Policy::default(),
        AgentOptions {
            pipeline_grammar: false,
            ..AgentOptions::default()
        },
    );
    ep.agent.run("list", &CancelToken::new());
    let requests = ep.requests.lock().unwrap();
    assert!(!requests.is_empty());
    assert!(requests.iter().all(|r| r.pipeline_grammar.is_none()));
}

#[test]
fn exit_is_not_run_and_the_next_turn_is_for_answer_only() {
    let mut ep = episode(
        vec![
            nu("ls | length"),
            nu("exit"),
            answer("There are 3 files here."),
        ],
        Policy::default(),
        AgentOptions::default(),
    );
    let ending = ep.agent.run("how many files?", &CancelToken::new());
    assert_eq!(
        ending,
        Ending::Answered {
            text: "There are 3 files here.".into(),
            data: None
        }
    );
    assert_eq!(ep.statuses(), vec![StepStatus::Ok]);
    assert!(
        ep.tool_results()[1].contains("no shell to exit"),
        "{:?}",
        ep.tool_results()
    );
    assert_eq!(ep.tools_offered(2), ["answer"]);
}

/// A step that is only `$out.N` shows what the model was shown already:
/// it is not run, and the next turn is for `answer`.
#[test]
fn a_result_shown_again_is_not_run_and_the_answer_is_asked_for() {
    let mut ep = episode(
        vec![
            nu("ls | where name =~ txt | get name"),
            nu("$out.0"),
            answer("a.txt and c.txt."),
        ],
        Policy::default(),
        AgentOptions::default(),
    );
    let ending = ep
        .agent
        .run("which text files are here?", &CancelToken::new());
    assert!(matches!(ending, Ending::Answered { .. }), "{ending:?}");
    assert_eq!(ep.statuses(), vec![StepStatus::Ok]);
    assert!(
        ep.tool_results()[1].starts_with("Not run: `$out.0` was shown to you"),
        "{:?}",
        ep.tool_results()
    );
    assert!(
        ep.repaired()
            .iter()
            .any(|r| r.contains("only shows `$out.0` again")),
        "{:?}",
        ep.repaired()
    );
    assert_eq!(ep.tools_offered(2), ["answer"]);
}

/// The user's no is final: after a denied step the next turn is for
/// `answer`, so the same change in another form is never asked again.
#[test]
fn after_a_denied_step_the_next_turn_is_for_answer_only() {
    let mut ep = episode(
        vec![
            nu("mkdir newdir"),
            answer("I did not create newdir: you did not approve it."),
        ],
        Policy::default(),
        AgentOptions::default(),
    );
    let ending = ep.agent.run("make a dir", &CancelToken::new());
    assert!(matches!(ending, Ending::Answered { .. }), "{ending:?}");
    assert_eq!(ep.statuses(), vec![StepStatus::Denied]);
    assert_eq!(ep.tools_offered(1), ["answer"]);
}

#[test]
fn a_command_that_works_on_input_given_none_takes_the_last_result() {
    let mut ep = episode(
        vec![
            nu("ls | where name =~ txt"),
            nu("length"),
            answer("2 text files."),
        ],
        Policy::default(),
        AgentOptions::default(),
    );
    ep.agent.run("how many text files?", &CancelToken::new());
    assert_eq!(ep.statuses(), vec![StepStatus::Ok, StepStatus::Ok]);
    assert_eq!(ep.shown_pipelines()[1], "$out.0 | length");
    assert!(
        ep.tool_results()[1].ends_with("\n(If this is all the request needs, call `answer` now.)"),
        "{:?}",
        ep.tool_results()
    );
    let results = ep.tool_results();
    assert!(
        results[1].starts_with("`length` works on its input and was given none: the last result went in; it ran as `$out.0 | length`.")
            && value_end(&results[1]).ends_with('2'),
        "{results:?}"
    );
}

#[test]
fn a_command_given_none_after_a_failed_step_takes_the_data_its_source_gave() {
    let mut ep = episode_with_amounts(vec![
        nu("open o.csv | get price | math sum"),
        nu("get amount | math sum"),
        answer("5.5 in all."),
    ]);
    ep.agent
        .run("what is the total amount?", &CancelToken::new());
    assert_eq!(ep.statuses(), vec![StepStatus::Failed, StepStatus::Ok]);
    let results = ep.tool_results();
    // The failed step's source was read again and shown as `$out.1`;
    // the next pipeline, written without input, means that data.
    assert!(results[0].contains("`open o.csv` ($out.1)"), "{results:?}");
    assert_eq!(ep.shown_pipelines()[1], "$out.1 | get amount | math sum");
    assert!(value_end(&results[1]).ends_with("5.5"), "{results:?}");
}

#[test]
fn a_command_given_none_after_a_result_it_cannot_take_asks_for_the_answer() {
    let mut ep = episode(
        vec![nu("ls | length"), nu("math avg"), answer("3 files.")],
        Policy::default(),
        AgentOptions::default(),
    );
    let ending = ep.agent.run("how many files?", &CancelToken::new());
    assert_eq!(
        ending,
        Ending::Answered {
            text: "3 files.".into(),
            data: None
        }
    );
    // `math avg` did not run: the last result is one number.
    assert_eq!(ep.statuses(), vec![StepStatus::Ok]);
    let results = ep.tool_results();
    assert!(
        results[1].starts_with("Not run: `math avg` works on its input and was given none")
            && results[1].contains("($out.0) is an int"),
        "{results:?}"
    );
}

#[test]
fn a_pipeline_that_reads_again_what_a_step_read_goes_on_from_its_out() {
    let mut ep = episode_with_amounts(vec![
        nu("open o.csv"),
        nu("open o.csv | get amount | math sum"),
        answer("5.5"),
    ]);
    ep.agent
        .run("show o.csv, then its total", &CancelToken::new());
    assert_eq!(
        ep.shown_pipelines(),
        vec!["open o.csv", "$out.0 | get amount | math sum"]
    );
    let results = ep.tool_results();
    assert!(
        results[1].starts_with("`open o.csv` was read at an earlier step and nothing changed since: its result `$out.0` was used; it ran as `$out.0 | get amount | math sum`.")
            && value_end(&results[1]).ends_with("5.5"),
        "{results:?}"
    );
}

#[test]
fn a_read_after_a_change_reads_again() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.tmp"), "x").unwrap();
    let policy = Policy {
        allow: vec![agent_core::policy::Pattern::new("rm *").unwrap()],
        ..Policy::default()
    };
    let mut ep = episode_in(
        dir,
        vec![
            nu("ls"),
            nu("rm a.tmp"),
            nu("ls | length"),
            answer("none left"),
        ],
        policy,
        AgentOptions::default(),
        Vec::new(),
    );
    ep.agent.run("delete a.tmp", &CancelToken::new());
    assert_eq!(ep.shown_pipelines(), vec!["ls", "rm a.tmp", "ls | length"]);
    let results = ep.tool_results();
    assert!(value_end(&results[2]).ends_with('0'), "{results:?}");
}

#[test]
fn the_form_that_ran_in_a_call_s_place_is_not_run_again() {
    let mut ep = episode(
        vec![
            nu("ls | where size > 10 | length"),
            // The fixed form, written out as it was shown.
            nu("ls | where size > 10b | length"),
            answer("3 files are over 10 bytes."),
        ],
        Policy::default(),
        AgentOptions::default(),
    );
    ep.agent
        .run("how many files over 10 bytes?", &CancelToken::new());
    assert_eq!(ep.statuses(), vec![StepStatus::Ok]);
    assert!(
        ep.events().iter().any(|e| matches!(
            e,
            AgentEvent::Repaired { message, .. } if message.contains("the same call as step 1")
        )),
        "{:?}",
        ep.events()
    );
}

#[test]
fn a_size_compared_with_a_bare_number_is_compared_in_bytes() {
    let mut ep = episode(
        vec![
            // A size column by name: written in bytes before it runs.
            nu("ls | where size > 10 | get name | length"),
            // Sizes under another name: the engine's error, then again.
            nu("ls | get size | where $it > 10 | math sum"),
            answer("3 files are over 10 bytes."),
        ],
        Policy::default(),
        AgentOptions::default(),
    );
    ep.agent
        .run("how many files over 10 bytes?", &CancelToken::new());
    assert_eq!(
        ep.statuses(),
        vec![StepStatus::Ok, StepStatus::Failed, StepStatus::Ok]
    );
    let results = ep.tool_results();
    assert!(
        results[0].starts_with("In Nushell a file size compares with a size: `10b`")
            && value_end(&results[0]).ends_with('3'),
        "{}",
        results[0]
    );
    assert!(
        results[1].starts_with(
            "In Nushell a file size compares with a size: `10b` for `10`; it ran as `ls | get size | where $it > 10b | math sum`."
        ) && value_end(&results[1]).ends_with("150B"),
        "{}",
        results[1]
    );
    assert_eq!(
        ep.shown_pipelines()[1],
        "ls | get size | where $it > 10b | math sum"
    );
}

#[test]
fn a_pipeline_that_cannot_run_is_sampled_again_and_never_shown() {
    let mut ep = episode(
        vec![
            nu("ls | where size >"),
            nu("ls | length"),
            // Its resample cannot run either: this one goes back.
            nu("ls | frobnicate"),
            nu("ls | frobnicate -x"),
            answer("There are 3 files."),
        ],
        Policy::default(),
        AgentOptions::default(),
    );
    let ending = ep.agent.run("how many files?", &CancelToken::new());
    assert!(matches!(ending, Ending::Answered { .. }), "{ending:?}");
    assert_eq!(ep.statuses(), vec![StepStatus::Ok, StepStatus::Failed]);
    assert_eq!(
        ep.repaired(),
        [
            "a pipeline that does not parse; sampled again",
            "a pipeline that calls a name that is no command or program; sampled again",
        ]
    );
    // The one a resample replaced is not in the conversation; the resample
    // was steered away from it.
    let calls = ep.calls_in_conversation();
    assert!(calls.iter().all(|c| !c.contains("size >")), "{calls:?}");
    assert!(
        calls.iter().any(|c| c.contains("frobnicate -x")),
        "{calls:?}"
    );
    assert!(
        ep.tool_results()[1].contains("`frobnicate` is not a Nushell command"),
        "{:?}",
        ep.tool_results()
    );
    // Each resample avoids the call it replaced, besides the calls made
    // before it (`ls | length`, from the second turn on).
    let requests = ep.requests.lock().unwrap();
    let avoided: Vec<usize> = requests.iter().map(|r| r.avoid.len()).collect();
    assert_eq!(avoided, [0, 1, 1, 2, 2]);
}

#[test]
fn the_files_a_request_names_are_read_first_and_take_no_out_number() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("orders.csv"),
        "id,region,amount\n1,north,120\n2,south,75\n",
    )
    .unwrap();
    std::fs::write(dir.path().join(".secret.txt"), "hidden").unwrap();
    let mut ep = episode_in(
        dir,
        vec![
            nu("open orders.csv | get amount | math sum"),
            call("answer", serde_json::json!({"text": "195", "out": 0})),
        ],
        Policy::default(),
        AgentOptions::default(),
        Vec::new(),
    );
    let ending = ep.agent.run(
        "Sum the amount in orders.csv (not .secret.txt).",
        &CancelToken::new(),
    );
    let Ending::Answered {
        data: Some(Value::Int { val: 195, .. }),
        ..
    } = ending
    else {
        panic!("the step's sum is $out.0: {ending:?}");
    };
    let first = ep.first_request_text();
    assert!(
        first.starts_with("Sum the amount in orders.csv (not .secret.txt).\n\n")
            && first.contains(
                "- orders.csv: a table of 2 rows; columns: id (int), region (string), amount (int); first row: id: 1, region: north, amount: 120"
            )
            && !first.contains("hidden"),
        "{first}"
    );

    // Off, the request goes as it was written.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("orders.csv"), "id\n1\n").unwrap();
    let mut ep = episode_in(
        dir,
        vec![answer("done")],
        Policy::default(),
        AgentOptions {
            read_named_files: false,
            ..AgentOptions::default()
        },
        Vec::new(),
    );
    ep.agent.run("Read orders.csv", &CancelToken::new());
    assert_eq!(ep.first_request_text(), "Read orders.csv");
}

#[test]
fn bash_made_nushell_is_made_exact_nushell_too() {
    // `sum amount` is `math sum amount`, which parses and gives the table
    // back unchanged: the column is taken first.
    let mut ep = episode_with_amounts(vec![nu("open o.csv | sum amount"), answer("5.5")]);
    ep.agent.run("total amount?", &CancelToken::new());
    let results = ep.tool_results();
    assert!(
        results[0].starts_with("That was bash; it ran as `open o.csv | get amount | math sum`.")
            && value_end(&results[0]).ends_with("5.5"),
        "{results:?}"
    );
    assert_eq!(
        ep.shown_pipelines(),
        vec!["open o.csv | get amount | math sum"]
    );
}

#[test]
fn in_a_git_repository_git_is_named_and_its_own_files_are_not_read() {
    let pipelines = |calls: &[agent_core::llm::ToolCall]| -> Vec<String> {
        calls
            .iter()
            .map(|c| c.arguments["pipeline"].as_str().unwrap().to_string())
            .collect()
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    let mut ep = episode_in(
        dir,
        vec![answer("Ann")],
        Policy::default(),
        AgentOptions::default(),
        Vec::new(),
    );
    ep.agent
        .run("Who made the last commit?", &CancelToken::new());
    let requests = ep.requests.lock().unwrap();
    let first = &requests[0];
    assert!(
        first
            .messages
            .last()
            .unwrap()
            .content
            .contains("This is a git repository: `git log"),
        "{:?}",
        first.messages.last()
    );
    assert_eq!(pipelines(&first.avoid), ["open .git"]);
    assert_eq!(pipelines(&first.avoid_starts), ["open .git/", "open .git "]);
    drop(requests);

    // Elsewhere, nothing is avoided and nothing added.
    let mut ep = episode(
        vec![answer("none")],
        Policy::default(),
        AgentOptions::default(),
    );
    ep.agent
        .run("Who made the last commit?", &CancelToken::new());
    {
        let requests = ep.requests.lock().unwrap();
        assert!(requests[0].avoid.is_empty() && requests[0].avoid_starts.is_empty());
    }
    assert_eq!(ep.first_request_text(), "Who made the last commit?");
}

#[test]
fn a_filter_that_kept_nothing_shows_the_rows_it_was_given() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("app.log"),
        "ts=1 level=info msg=start\nts=2 level=error msg=disk full\n",
    )
    .unwrap();
    let mut ep = episode_in(
        dir,
        vec![
            nu("open app.log | lines | where $it =~ 'ERROR' | first 1"),
            answer("none"),
        ],
        Policy::default(),
        AgentOptions::default(),
        Vec::new(),
    );
    ep.agent.run("the first error", &CancelToken::new());
    let told = &ep.tool_results()[0];
    assert!(
        told.contains(
            "Nothing came out. Before `where $it =~ 'ERROR'`, `open app.log | lines` gave 2 rows ($out.1)"
        ),
        "{told}"
    );
    assert!(told.contains("level=error msg=disk full"), "{told}");
}

#[test]
fn a_delete_past_the_kinds_of_file_the_request_names_runs_kept_to_them() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("logs")).unwrap();
    for name in ["a.log", "notes.txt"] {
        std::fs::write(dir.path().join("logs").join(name), "x").unwrap();
    }
    let policy = Policy {
        allow: vec![agent_core::policy::Pattern::new("rm *").unwrap()],
        ..Policy::default()
    };
    let mut ep = episode_in(
        dir,
        vec![
            nu("ls logs/ | each { rm $in.name }"),
            answer("Deleted logs/a.log."),
        ],
        policy,
        AgentOptions::default(),
        Vec::new(),
    );
    ep.agent
        .run("Delete the .log files in logs/", &CancelToken::new());
    let told = ep.tool_results();
    assert!(
        told[0].starts_with(
            "The request is about .log files, and this removes files of any kind; it ran as `ls logs/*.log | each { rm $in.name }`."
        ),
        "{told:?}"
    );
    assert_eq!(
        ep.shown_pipelines(),
        vec!["ls logs/*.log | each { rm $in.name }"]
    );
    assert!(!ep.dir.path().join("logs/a.log").exists());
    assert!(ep.dir.path().join("logs/notes.txt").exists());
}

#[test]
fn rows_matched_by_a_regex_run_again_matched_as_their_text() {
    let mut ep = episode(
        vec![
            nu("[[name n]; [x1 1] [y2 2]] | where $it =~ 'y' | get name"),
            answer("y2"),
        ],
        Policy::default(),
        AgentOptions::default(),
    );
    ep.agent.run("which row has a y?", &CancelToken::new());
    let results = ep.tool_results();
    assert!(
        results[0].contains(
            "; it ran as `[[name n]; [x1 1] [y2 2]] | where ($it | values | str join ' ') =~ 'y' | get name`."
        ) && results[0].contains("y2"),
        "{results:?}"
    );
    assert_eq!(
        ep.shown_pipelines(),
        vec!["[[name n]; [x1 1] [y2 2]] | where ($it | values | str join ' ') =~ 'y' | get name"]
    );
}

#[test]
fn a_named_file_the_policy_would_ask_about_or_block_is_not_read() {
    for policy in [
        Policy {
            confirm: vec![agent_core::policy::Pattern::new("open private.csv").unwrap()],
            ..Policy::default()
        },
        Policy {
            block: vec![agent_core::policy::Pattern::new("open *").unwrap()],
            ..Policy::default()
        },
    ] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("private.csv"), "card\n4111\n").unwrap();
        let mut ep = episode_in(
            dir,
            vec![answer("not read")],
            policy,
            AgentOptions::default(),
            Vec::new(),
        );
        ep.agent.run("Sum private.csv", &CancelToken::new());
        assert_eq!(ep.first_request_text(), "Sum private.csv");
    }
}

/// A filter copied with the prompt example's made-up size (`where size >
/// 1mb`) and count (`first 3`), which the request does not give: the
/// read runs without them and the model is told why.
#[test]
fn a_filter_copied_with_an_examples_value_runs_without_it() {
    let mut ep = episode(
        vec![
            nu("ls | where size > 1mb | sort-by size --reverse | first 3 | get name"),
            answer("a.txt, b.log and c.txt."),
        ],
        Policy::default(),
        AgentOptions::default(),
    );
    let ending = ep
        .agent
        .run("which files are here, biggest first?", &CancelToken::new());
    assert!(matches!(ending, Ending::Answered { .. }), "{ending:?}");
    assert_eq!(ep.statuses(), vec![StepStatus::Ok]);
    let results = ep.tool_results();
    assert!(
        results[0].starts_with(
            "`where size > 1mb | first 3` kept rows by a made-up value of the prompt's examples, which the request does not give; it ran as `ls | sort-by size --reverse | get name`."
        ),
        "{results:?}"
    );
    assert_eq!(
        ep.shown_pipelines()[0],
        "ls | sort-by size --reverse | get name"
    );
}

/// The same filters where the request gives their values, or in a step
/// that changes something, run as written.
#[test]
fn a_filter_whose_value_the_request_gives_runs_as_written() {
    let mut ep = episode(
        vec![
            nu("ls | sort-by size --reverse | first 3 | get name"),
            answer("a.txt, b.log and c.txt."),
        ],
        Policy::default(),
        AgentOptions::default(),
    );
    ep.agent
        .run("name the 3 biggest files here", &CancelToken::new());
    assert_eq!(
        ep.shown_pipelines()[0],
        "ls | sort-by size --reverse | first 3 | get name"
    );
    assert!(!ep.tool_results()[0].contains("made-up value"));
}

/// An answer of facts before any step ran is sent back, and the next
/// turn offers only `nu`: a small model asked to check says its guess
/// again.
#[test]
fn an_answer_of_facts_before_any_step_is_followed_by_a_step() {
    let mut ep = episode(
        vec![
            answer("There are 42 text files."),
            nu("ls | where name =~ txt | length"),
            answer("There are 2 text files."),
        ],
        Policy::default(),
        AgentOptions::default(),
    );
    let ending = ep
        .agent
        .run("how many text files are here?", &CancelToken::new());
    assert!(matches!(ending, Ending::Answered { .. }), "{ending:?}");
    assert!(
        ep.repaired()
            .iter()
            .any(|r| r.contains("before any step gave data")),
        "{:?}",
        ep.repaired()
    );
    assert_eq!(ep.tools_offered(1), ["nu"]);
    assert!(ep.tools_offered(2).contains(&"answer".to_string()));
}

/// Files opened by a glob give one figure over them all; asked for each
/// file's, the step runs as a figure per listed file.
#[test]
fn files_opened_by_a_glob_give_each_files_figure_when_asked_per_file() {
    let mut ep = episode(
        vec![
            nu("open *.txt | lines | length"),
            answer("a.txt and c.txt have their counts."),
        ],
        Policy::default(),
        AgentOptions::default(),
    );
    ep.agent
        .run("how many lines are in each .txt file?", &CancelToken::new());
    assert_eq!(ep.statuses(), vec![StepStatus::Ok]);
    assert_eq!(
        ep.shown_pipelines()[0],
        "ls *.txt | insert count {|f| open --raw $f.name | lines | length }"
    );
}

/// A port (or a PID) no result shows is sent back once even after data;
/// said again, the steps' own outcome is the answer.
#[test]
fn an_identifier_no_result_shows_said_again_gives_the_steps_outcome() {
    let mut ep = episode(
        vec![
            nu("ls | where name =~ txt | get name"),
            answer("a.txt is served on port 8080."),
            answer("It is port 8080."),
        ],
        Policy::default(),
        AgentOptions::default(),
    );
    let ending = ep.agent.run(
        "which text file is served, and on which port?",
        &CancelToken::new(),
    );
    let Ending::Answered { text, data } = ending else {
        panic!("{ending:?}");
    };
    assert!(
        text.starts_with("This is what the last step found ($out.0)."),
        "{text}"
    );
    assert!(data.is_some());
    let repaired = ep.repaired();
    assert!(
        repaired
            .iter()
            .any(|r| r.contains("states 8080 that no result shows")),
        "{repaired:?}"
    );
    assert!(
        repaired.iter().any(|r| r.contains("states 8080 again")),
        "{repaired:?}"
    );
}

/// With the levers on trial switched on, a task's request goes with what
/// is in the working directory and the engine's commands that fit its
/// words; each is a lever of its own, off by default.
#[test]
fn a_request_is_told_what_is_here_and_the_engine_s_commands_that_fit() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("logs")).unwrap();
    std::fs::write(dir.path().join("logs/app.log"), "ok\n").unwrap();
    let tried = Levers::switched([], Lever::ON_TRIAL);
    let mut ep = episode_in(
        dir,
        vec![answer("done")],
        Policy::default(),
        AgentOptions::default().without(tried),
        Vec::new(),
    );
    ep.agent.run("sort the rows by size", &CancelToken::new());
    let full = ep.first_request_full();
    assert!(
        full.starts_with("sort the rows by size\n\nWhat is in the working directory"),
        "{full}"
    );
    assert!(full.contains("- logs/ (1 entry: app.log)"), "{full}");
    assert!(
        full.contains("Commands of this Nushell that may fit") && full.contains("`sort-by"),
        "{full}"
    );
    for (lever, gone) in [
        (Lever::WhatIsHere, "What is in the working directory"),
        (Lever::EngineDocs, "Commands of this Nushell"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let mut ep = episode_in(
            dir,
            vec![answer("done")],
            Policy::default(),
            AgentOptions::default().without(Levers::switched([lever], Lever::ON_TRIAL)),
            Vec::new(),
        );
        ep.agent.run("sort the rows by size", &CancelToken::new());
        let full = ep.first_request_full();
        assert!(!full.contains(gone), "{lever}: {full}");
    }
    // Both are on trial: off unless a run switches them on.
    let dir = tempfile::tempdir().unwrap();
    let mut ep = episode_in(
        dir,
        vec![answer("done")],
        Policy::default(),
        AgentOptions::default(),
        Vec::new(),
    );
    ep.agent.run("sort the rows by size", &CancelToken::new());
    assert_eq!(ep.first_request_full(), "sort the rows by size");
}

fn sh(script: &str) -> String {
    call("sh", serde_json::json!({"script": script, "why": "test"}))
}

/// With the `posix` lever (on trial) the model may write bash: the `sh`
/// tool is offered and told of, a script that parses runs as the shell's
/// own pipeline under the policy, one that does not goes back with the
/// parser's error, and the same effect gets the same verdict as from the
/// `nu` tool.
#[test]
fn a_bash_script_runs_under_the_policy_with_the_same_verdicts() {
    let posix = || AgentOptions::default().without(Levers::switched([], [Lever::Posix]));
    let in_files = |turns: Vec<String>, options: AgentOptions| {
        let dir = tempfile::tempdir().unwrap();
        for name in ["a.txt", "b.txt", "c.log"] {
            std::fs::write(dir.path().join(name), "x\n").unwrap();
        }
        let mut ep = episode_in(dir, turns, Policy::default(), options, Vec::new());
        ep.agent.run("how many text files?", &CancelToken::new());
        ep
    };
    let ep = in_files(
        vec![
            sh("echo 'unclosed"),
            sh("ls *.txt | wc -l"),
            sh("find . -name '*.txt' -delete"),
            answer("2 text files."),
        ],
        posix(),
    );
    let requests = ep.requests.lock().unwrap().clone();
    let tools: Vec<&str> = requests[0].tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(tools, ["sh", "nu", "help", "answer"]);
    assert!(
        requests[0].messages[0]
            .content
            .contains("the `sh` tool runs a bash command line"),
        "{}",
        requests[0].messages[0].content
    );
    let results = ep.tool_results();
    assert!(results[0].contains("not valid shell"), "{}", results[0]);
    assert!(
        results[1].lines().any(|l| l.trim() == "2"),
        "{}",
        results[1]
    );
    // Nothing ran for the script that did not parse; the delete is asked
    // about, and refused with no one to ask.
    assert_eq!(ep.statuses(), [StepStatus::Ok, StepStatus::Denied]);
    assert!(ep.dir.path().join("a.txt").exists());
    // The same effects, through either tool: the same verdicts.
    for (script, pipeline, status) in [
        (
            "find . -name '*.txt' -delete",
            "^find . -name '*.txt' -delete",
            StepStatus::Denied,
        ),
        ("rm -rf ~", "rm -rf ~", StepStatus::Blocked),
        ("cat a.txt", "open a.txt", StepStatus::Ok),
    ] {
        let by_sh = in_files(vec![sh(script), answer("done")], posix());
        let by_nu = in_files(vec![nu(pipeline), answer("done")], posix());
        assert_eq!(by_sh.statuses(), [status], "{script}");
        assert_eq!(by_nu.statuses(), [status], "{pipeline}");
    }
    // A loop is bash's, not a program's: a script reading each name with
    // `while read` is asked about (its `$f` is only known when it runs)
    // and, approved, runs.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "x\ny\n").unwrap();
    let yes = NonInteractive {
        yes: true,
        ..NonInteractive::default()
    };
    let mut ep = episode_asking(
        dir,
        vec![
            sh("find . -name '*.txt' | while read -r f; do wc -l \"$f\"; done"),
            answer("done"),
        ],
        Policy::default(),
        posix(),
        Vec::new(),
        yes,
    );
    ep.agent
        .run("lines of each text file?", &CancelToken::new());
    assert_eq!(ep.statuses(), [StepStatus::Ok]);
    let results = ep.tool_results();
    assert!(results[0].contains("2 ./a.txt"), "{}", results[0]);
    // Nushell written as a script runs as Nushell; a `find -exec` left
    // open is closed (and asked about, as any `-exec`).
    let ep = in_files(
        vec![
            sh("open a.txt | lines | length"),
            sh("find . -name 'a.txt' -exec cat {}"),
            answer("done"),
        ],
        posix(),
    );
    let results = ep.tool_results();
    assert!(
        results[0].contains("is Nushell, not bash") && results[0].lines().any(|l| l == "1"),
        "{}",
        results[0]
    );
    assert!(
        results[1].contains("ends at `\\;`") && results[1].contains("-exec cat {} \\;'#"),
        "{}",
        results[1]
    );
    // Off by default: no `sh` tool, and a call to it runs nothing.
    let ep = in_files(vec![sh("ls"), answer("done")], AgentOptions::default());
    let requests = ep.requests.lock().unwrap().clone();
    assert!(!requests[0].tools.iter().any(|t| t.name == "sh"));
    assert!(!requests[0].messages[0].content.contains("`sh` tool"));
    assert!(ep.statuses().is_empty());
}

/// With `sh-only` (on trial, with `posix`) the model is offered `sh` and
/// `answer` alone, told of no other tool; with `answer-output` an answer
/// right after a script returns the script's output as its value (text
/// of paths here as their list), as an answer after a table returns the
/// table.
#[test]
fn with_sh_only_scripts_are_the_one_tool_and_an_answer_returns_their_text() {
    let run = |with: Vec<Lever>| {
        let dir = tempfile::tempdir().unwrap();
        for name in ["a.txt", "b.txt"] {
            std::fs::write(dir.path().join(name), "x\n").unwrap();
        }
        let options = AgentOptions::default().without(Levers::switched([], with));
        let mut ep = episode_in(
            dir,
            vec![sh("ls *.txt"), answer("The text files are listed.")],
            Policy::default(),
            options,
            Vec::new(),
        );
        let ending = ep
            .agent
            .run("which text files are here?", &CancelToken::new());
        (ep, ending)
    };
    let (ep, ending) = run(vec![Lever::Posix, Lever::ShOnly, Lever::AnswerOutput]);
    let requests = ep.requests.lock().unwrap().clone();
    let tools: Vec<&str> = requests[0].tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(tools, ["sh", "answer"]);
    let prompt = &requests[0].messages[0].content;
    assert!(
        prompt.contains("Work in bash") && !prompt.contains("`nu`"),
        "{prompt}"
    );
    // Its text, one path here a line, comes back as the list of them.
    let Ending::Answered {
        text,
        data: Some(Value::List { vals, .. }),
    } = ending
    else {
        panic!("{ending:?}")
    };
    assert_eq!(text, "The text files are listed.");
    let names: Vec<&str> = vals.iter().filter_map(|v| v.as_str().ok()).collect();
    assert_eq!(names, ["a.txt", "b.txt"]);
    // Without `answer-output`, the text alone; without `sh-only`, `nu`
    // is offered beside `sh`.
    let (ep, ending) = run(vec![Lever::Posix]);
    assert!(
        matches!(ending, Ending::Answered { data: None, .. }),
        "{ending:?}"
    );
    let requests = ep.requests.lock().unwrap().clone();
    assert!(requests[0].tools.iter().any(|t| t.name == "nu"));
}

/// `request` worked on in a folder holding `file` (name, text), with the
/// levers on trial `with` switched on and every question answered yes.
fn run_approved(
    (name, text): (&str, &str),
    turns: Vec<String>,
    with: Vec<Lever>,
    request: &str,
) -> Episode {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(name), text).unwrap();
    let yes = NonInteractive {
        yes: true,
        ..NonInteractive::default()
    };
    let mut ep = episode_asking(
        dir,
        turns,
        Policy::default(),
        AgentOptions::default().without(Levers::switched([], with)),
        Vec::new(),
        yes,
    );
    ep.agent.run(request, &CancelToken::new());
    ep
}

/// With `effects` (on trial) a change that ran without an error but
/// changed no file here is told so, not as done, and an answer saying it
/// was done is sent back; a change that did change a file is done.
#[test]
fn with_effects_a_change_that_changed_nothing_is_told_and_not_claimed() {
    let run = |turns: Vec<String>, with: Vec<Lever>| {
        run_approved(("notes.txt", "x\n"), turns, with, "remove the notes")
    };
    let turns = || {
        vec![
            nu("rm -f notes.md"),
            answer("I removed the notes."),
            nu("rm notes.txt"),
            answer("I removed notes.txt."),
        ]
    };
    let ep = run(turns(), vec![Lever::Effects]);
    let results = ep.tool_results();
    assert!(results[0].contains("changed no file"), "{}", results[0]);
    assert!(!results[0].contains("call `answer` now"), "{}", results[0]);
    assert!(results.len() > 1, "{:#?}", ep.events());
    assert!(
        results[1].contains("no step that changes anything"),
        "{}",
        results[1]
    );
    assert!(results[2].contains("Done: it ran"), "{}", results[2]);
    assert!(!ep.dir.path().join("notes.txt").exists());
    // Off, the first change is taken as done and its answer ends the
    // request.
    let ep = run(turns(), vec![]);
    let results = ep.tool_results();
    assert!(results[0].contains("Done: it ran"), "{}", results[0]);
    assert_eq!(results.len(), 1, "{results:?}");
    assert!(ep.dir.path().join("notes.txt").exists());
}

/// With `try-reads` (on trial) a script that reads and gives nothing is
/// tried aside and gives way to the model's next call that gives
/// something, which is the step; a read that gives something, and a
/// change, are taken as they are (a change is never run aside).
#[test]
fn with_try_reads_a_read_that_gives_nothing_gives_way_to_the_next_call() {
    let run = |turns: Vec<String>, with: Vec<Lever>| {
        let notes = ("notes.txt", "remember the milk\n");
        run_approved(notes, turns, with, "what do my notes say?")
    };
    let reads = || {
        vec![
            sh("cat note.txt"),
            sh("cat notes.txt"),
            answer("They say: remember the milk."),
        ]
    };
    let with = vec![Lever::Posix, Lever::ShOnly, Lever::TryReads];
    let ep = run(reads(), with.clone());
    let results = ep.tool_results();
    assert_eq!(results.len(), 1, "{results:?}");
    assert!(results[0].contains("remember the milk"), "{}", results[0]);
    let calls = ep.calls_in_conversation();
    assert!(
        calls.iter().all(|c| !c.contains("note.txt")),
        "the call passed over is not in the conversation: {calls:?}"
    );
    // Off, the read that gives nothing is a step of its own.
    let ep = run(reads(), vec![Lever::Posix, Lever::ShOnly]);
    let results = ep.tool_results();
    assert_eq!(results.len(), 2, "{results:?}");
    assert!(results[0].contains("No such file"), "{}", results[0]);
    // A read that gives something is not tried against another call.
    let ep = run(
        vec![sh("cat notes.txt"), answer("They say: remember the milk.")],
        with.clone(),
    );
    assert_eq!(ep.requests.lock().unwrap().len(), 2);
    // A change is not run aside: it runs once, as the step.
    let ep = run(
        vec![sh("echo made >> log.txt"), answer("I wrote log.txt.")],
        with,
    );
    assert_eq!(ep.requests.lock().unwrap().len(), 2);
    let log = std::fs::read_to_string(ep.dir.path().join("log.txt")).unwrap();
    assert_eq!(log, "made\n");
}
