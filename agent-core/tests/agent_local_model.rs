//! A whole `ask` episode on a real model (SmolLM2-135M-Instruct, fetched by
//! `nu-scripts/fetch-test-model.sh`): the loop must end within its step
//! limit with well-formed events, whatever the small model writes. Answer
//! quality is not asserted. Also measures the system prompt with the tools
//! and the machine's context in the model's own tokens.

mod support;

use std::{
    sync::{Arc, Mutex},
    time::Duration,
};
use support::test_model;

use agent_core::{
    agent::{Agent, AgentEvent, AgentOptions, AgentState, Ending, PromptKind, system_prompt},
    context::{DEFAULT_TOOLS, system_context},
    llm::{LocalBackend, LocalConfig, ToolChoice},
    policy::{NonInteractive, Policy, PolicyShell, ShellOptions},
    shell::{CancelToken, SessionSeed},
};

/// The system prompt's budget with tools and context, in tokens.
const PROMPT_BUDGET: u32 = 1_200;

/// Checks the order of a run's events: thinking starts each turn, a
/// proposal is followed by approval/running/observed, one final event last.
fn assert_well_formed(events: &[AgentEvent], max_steps: usize) {
    let states: Vec<AgentState> = events.iter().filter_map(AgentEvent::state).collect();
    assert_eq!(states.first(), Some(&AgentState::Thinking), "{states:?}");
    let finals = states.iter().filter(|s| s.is_final()).count();
    assert_eq!(finals, 1, "{states:?}");
    assert!(states.last().is_some_and(|s| s.is_final()), "{states:?}");
    for pair in states.windows(2) {
        use AgentState::*;
        let ok = match pair[0] {
            Thinking => matches!(pair[1], Thinking | Proposed | Answered | Failed | Cancelled),
            Proposed => matches!(pair[1], AwaitingApproval | Running | Observed),
            AwaitingApproval | Running => pair[1] == Observed,
            Observed => matches!(pair[1], Proposed | Thinking | Failed | Cancelled),
            Answered | Failed | Cancelled => false,
        };
        assert!(ok, "{:?} then {:?} in {states:?}", pair[0], pair[1]);
    }
    let mut last_step = 0;
    for event in events {
        if let AgentEvent::Thinking { step, .. } = event {
            assert_eq!(*step, last_step + 1);
            assert!(*step <= max_steps);
            last_step = *step;
        }
    }
}

#[test]
fn a_real_model_episode_ends_within_its_step_limit() {
    let dir = tempfile::tempdir().unwrap();
    for (name, size) in [("big.bin", 50_000), ("small.txt", 10), ("mid.log", 2_000)] {
        std::fs::write(dir.path().join(name), vec![b'x'; size]).unwrap();
    }
    let mut config = LocalConfig::new(test_model());
    config.load.context = Some(4096);
    config.load.threads = Some(1);
    config.keep_alive = Duration::from_secs(60);
    let backend = LocalBackend::new(config);
    let shell = PolicyShell::new(
        Policy::default(),
        SessionSeed::new(dir.path()),
        Arc::new(NonInteractive::default()),
        ShellOptions::default(),
    )
    .unwrap();
    let tools: Vec<String> = DEFAULT_TOOLS.iter().map(|t| t.to_string()).collect();
    let context = system_context(&tools, false).prompt_text(dir.path());
    let max_steps = 4;
    let options = AgentOptions {
        kind: PromptKind::Task,
        max_steps,
        tool_choice: ToolChoice::Required,
        observe_tokens: 300,
        context_tokens: 4096,
        max_tokens: 200,
        temperature: 0.0,
        step_timeout: Some(Duration::from_secs(20)),
        ..AgentOptions::default()
    };
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink_events = events.clone();
    let mut agent = Agent::new(
        Box::new(backend),
        shell,
        options,
        system_prompt(PromptKind::Task, &context),
        Arc::new(move |e: &AgentEvent| sink_events.lock().unwrap().push(e.clone())),
    );
    let ending = agent.run(
        "Which file in this directory is the largest?",
        &CancelToken::new(),
    );
    let events = events.lock().unwrap().clone();
    eprintln!("ending: {ending:?}");
    for event in &events {
        if !matches!(event, AgentEvent::Text(_)) {
            eprintln!("{event:?}");
        }
    }
    match &ending {
        Ending::Answered { .. } => {}
        Ending::Failed(error) => assert!(
            error.message.contains("no answer after 4 steps"),
            "only the step limit may end it without an answer: {error}"
        ),
        Ending::Cancelled => panic!("nothing cancelled it"),
    }
    assert_well_formed(&events, max_steps);
}

#[test]
fn the_system_prompt_with_tools_and_context_fits_its_budget() {
    use agent_core::llm::{ChatBackend, ChatRequest, Message};
    let mut config = LocalConfig::new(test_model());
    config.load.context = Some(4096);
    config.load.threads = Some(1);
    config.keep_alive = Duration::from_secs(60);
    let mut backend = LocalBackend::new(config);
    let tools: Vec<String> = DEFAULT_TOOLS.iter().map(|t| t.to_string()).collect();
    let cwd = std::env::current_dir().unwrap();
    let context = system_context(&tools, false).prompt_text(&cwd);
    let mut request = ChatRequest::new(
        vec![
            Message::system(system_prompt(PromptKind::Task, &context)),
            Message::user("hi"),
        ],
        agent_core::agent::tool_defs(PromptKind::Task),
    );
    request.max_tokens = 1;
    let turn = backend
        .chat(&request, &mut |_| {}, &CancelToken::new())
        .expect("a turn");
    let tokens = turn.usage.prompt_tokens;
    eprintln!("system prompt + tools + context + 'hi': {tokens} tokens (SmolLM2 vocabulary)");
    assert!(tokens <= PROMPT_BUDGET, "{tokens} tokens");
}
