//! The grammar's two orders on the test model (SmolLM2-135M-Instruct,
//! fetched by `nu-scripts/fetch-test-model.sh`; skipped when it is not
//! there): greedy, the chain choosing first and the grammar checking its
//! choice gives the tokens the grammar filtering first gave, and the
//! grammar still holds the call where it refuses the chain's choice.

use std::sync::{Arc, OnceLock};

use super::{GrammarOrder, Sampled, TurnOptions, run_turn_in};
use crate::{
    agent::{PromptKind, pipeline_grammar, pipeline_heads, tool_defs},
    llm::{
        ChatRequest, ChatTurn, Message, ModelDir, ToolCall, ToolChoice,
        local::host::{LoadSpec, LoadedModel, load, new_context_with},
    },
    shell::{CancelToken, Engine},
};

const SYSTEM: &str =
    "You are a shell assistant inside Nushell. Use the nu tool to run pipelines, then answer.";

/// The test model, loaded once for these tests (one thread).
fn model() -> Option<Arc<LoadedModel>> {
    static MODEL: OnceLock<Option<Arc<LoadedModel>>> = OnceLock::new();
    MODEL
        .get_or_init(|| {
            let path = match std::env::var_os("NU_AGENT_TEST_MODEL") {
                Some(path) => path.into(),
                None => ModelDir::from_env()
                    .ok()?
                    .path()
                    .join("SmolLM2-135M-Instruct.Q4_1.gguf"),
            };
            if !path.is_file() {
                eprintln!(
                    "skipped: {} is missing (nu-scripts/fetch-test-model.sh)",
                    path.display()
                );
                return None;
            }
            let spec = LoadSpec {
                path,
                context: Some(2048),
                gpu_layers: None,
                threads: Some(1),
            };
            Some(Arc::new(load(&spec).expect("the test model loads")))
        })
        .clone()
}

/// One turn of `request` on a fresh context, the grammar in `order`.
fn turn(
    model: &Arc<LoadedModel>,
    request: &ChatRequest,
    order: GrammarOrder,
) -> (ChatTurn, Sampled) {
    let mut context = new_context_with(model, 1).expect("a context");
    let options = TurnOptions::default();
    run_turn_in(
        &mut context,
        request,
        &options,
        order,
        &mut |_| {},
        &CancelToken::new(),
    )
    .expect("the turn runs")
}

/// The agent's tools, the `nu` pipeline held to the standard engine's
/// commands and a few programs (or a free string).
fn request(messages: Vec<Message>, pipeline: bool) -> ChatRequest {
    let mut request = ChatRequest::new(messages, tool_defs(PromptKind::Task));
    if pipeline {
        let programs = vec!["git".to_string(), "python3".to_string()];
        let heads = pipeline_heads(Engine::standard().state(), &programs);
        request.pipeline_grammar = Some(pipeline_grammar(heads.into()));
    }
    request
}

/// Both orders on `request`: the same tokens; what each cost is printed
/// (`-- --nocapture`). The sample-first turn's figures.
fn same_tokens(
    model: &Arc<LoadedModel>,
    label: &str,
    request: &ChatRequest,
) -> (ChatTurn, Sampled) {
    let (old_turn, old) = turn(model, request, GrammarOrder::GrammarFirst);
    let (new_turn, new) = turn(model, request, GrammarOrder::SampleFirst);
    let piece = |tokens: &[_]| {
        let vocab = model.model.vocab();
        tokens
            .iter()
            .map(|t| String::from_utf8_lossy(&vocab.token_to_piece(*t, true, None)).into_owned())
            .collect::<String>()
    };
    assert_eq!(
        old.tokens,
        new.tokens,
        "{label}: grammar first {:?}, sample first {:?}",
        piece(&old.tokens),
        piece(&new.tokens)
    );
    assert_eq!(old_turn.tool_calls, new_turn.tool_calls, "{label}");
    assert_eq!(old.stats.refused, 0, "{label}");
    let per_choice = |s: &Sampled| s.stats.time / s.stats.choices.max(1) as u32;
    let stats = new.stats;
    let allowed = stats.choices - stats.refused;
    eprintln!(
        "{label}: {} tokens; a choice took {:?} with the grammar first, {:?} sampling first \
         ({allowed} allowed at {:?}, {} refused and made again at {:?})",
        new.tokens.len(),
        per_choice(&old),
        per_choice(&new),
        (stats.time - stats.refused_time) / allowed.max(1) as u32,
        stats.refused,
        stats.refused_time / stats.refused.max(1) as u32,
    );
    (new_turn, new)
}

/// A call that parses into the `nu` tool (with its pipeline) or another
/// of the agent's tools.
fn assert_parses(label: &str, turn: &ChatTurn) -> ToolCall {
    assert_eq!(turn.tool_calls.len(), 1, "{label}: {turn:?}");
    assert!(turn.repair.is_none(), "{label}: {turn:?}");
    let call = turn.tool_calls[0].clone();
    if call.name == "nu" {
        assert!(
            call.arguments
                .get("pipeline")
                .is_some_and(|p| p.is_string()),
            "{label}: {call:?}"
        );
    }
    call
}

#[test]
fn a_required_call_samples_the_same_tokens_checking_only_the_choice() {
    let Some(model) = model() else { return };
    let mut longest = 0;
    let mut refused = 0;
    for (prompt, pipeline) in [
        (
            "show the 5 largest files in this directory and their sizes",
            true,
        ),
        (
            "read config.json, keep the entries whose enabled field is true, rename the field name to title and save the result as enabled.yaml",
            true,
        ),
        ("count the lines of every rust file under src", false),
    ] {
        let mut request = request(
            vec![Message::system(SYSTEM), Message::user(prompt)],
            pipeline,
        );
        request.tool_choice = ToolChoice::Required;
        request.max_tokens = 160;
        let (turn, sampled) = same_tokens(&model, prompt, &request);
        assert_parses(prompt, &turn);
        longest = longest.max(sampled.tokens.len());
        refused += sampled.stats.refused;
    }
    assert!(longest >= 64, "the longest reply is {longest} tokens");
    // The model would start with prose: the grammar refused its choice
    // and it was made again from what the grammar allows.
    assert!(refused > 0, "the grammar never refused the chain's choice");
}

#[test]
fn a_lazy_grammar_samples_the_same_tokens_and_its_trigger_sees_every_token() {
    let Some(model) = model() else { return };
    let mut calls = 0;
    // The last one the model answers in prose to the budget: the grammar
    // never triggers, and filters nothing in either order.
    for prompt in [
        "show the largest file",
        "how much disk space is free",
        "read config.json, keep the entries whose enabled field is true, rename the field name to title and save the result as enabled.yaml",
    ] {
        // Two earlier requests, each answered with a call first: the model
        // starts a call by itself, and only then is the grammar on.
        let mut messages = vec![Message::system(SYSTEM)];
        for (i, (asked, pipeline, result)) in [
            ("list the files", "ls", "a.txt b.txt"),
            ("what is the date", "date now", "Sun, 22 Nov 2026"),
        ]
        .into_iter()
        .enumerate()
        {
            let id = format!("call_{i}");
            let mut arguments = serde_json::Map::new();
            arguments.insert("pipeline".into(), pipeline.into());
            arguments.insert("why".into(), "to see".into());
            let call = ToolCall {
                id: id.clone(),
                name: "nu".into(),
                arguments,
            };
            messages.push(Message::user(asked));
            messages.push(Message::assistant("", vec![call]));
            messages.push(Message::tool(&id, result));
        }
        messages.push(Message::user(prompt));
        let mut request = request(messages, true);
        request.max_tokens = 160;
        let (turn, _) = same_tokens(&model, prompt, &request);
        if !turn.tool_calls.is_empty() {
            assert_parses(prompt, &turn);
            calls += 1;
        }
    }
    assert!(calls > 0, "the model never started a call by itself");
}

#[test]
fn sampled_warm_a_refused_choice_is_made_again_within_the_grammar() {
    let Some(model) = model() else { return };
    for prompt in ["list the files here", "tell me a joke"] {
        let mut request = request(vec![Message::system(SYSTEM), Message::user(prompt)], true);
        request.tool_choice = ToolChoice::Required;
        request.temperature = 0.8;
        request.max_tokens = 160;
        let (turn, sampled) = turn(&model, &request, GrammarOrder::SampleFirst);
        assert_parses(prompt, &turn);
        assert!(sampled.stats.refused > 0, "{prompt}: {sampled:?}");
    }
}
