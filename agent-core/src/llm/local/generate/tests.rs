//! The grammar's two orders on the test model (SmolLM2-135M-Instruct,
//! fetched by `nu-scripts/fetch-test-model.sh`; skipped when it is not
//! there): greedy, the chain choosing first and the grammar checking its
//! choice gives the tokens the grammar filtering first gave, and the
//! grammar still holds the call where it refuses the chain's choice.

use std::{
    sync::{Arc, OnceLock},
    time::{Duration, Instant},
};

use llama_cpp_2::token::LlamaToken;

use super::{GrammarOrder, Sampled, Sampling, TurnOptions, run_turn_in, sampler};
use crate::{
    agent::{PromptKind, pipeline_grammar, pipeline_heads, tool_defs},
    llm::{
        ChatRequest, ChatTurn, Message, ModelDir, ToolCall, ToolChoice,
        local::host::{LoadSpec, LoadedModel, load, new_context_with},
        parse_reply,
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
    // Whole replies of some length were compared (the test model's run
    // 39–56 tokens: its `nu` is written as itself since the tool's name is a
    // habit head of the pipeline grammar, no longer forced into `nu-check`).
    assert!(longest >= 48, "the longest reply is {longest} tokens");
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

/// Prose with neither a call's opener nor a bare call object in it, some
/// 230 tokens long.
const PROSE: &str = "The largest file in this directory is the build log, which takes up most of the space on the disk. \
It was written by the last compilation and holds every warning the compiler printed, one per line, with the file and the line it came from. \
You can remove it safely: the next build writes it again. The second largest is the archive of old releases, which you may want to keep, \
since it is the only copy of the versions that were shipped before the move to the new server. \
Free space is about twelve gigabytes, enough for several more builds, but the cache of downloaded packages grows with each of them, \
so it is worth clearing it from time to time. Nothing else here is large: the sources, the documentation and the scripts together \
take less than a hundred megabytes, and the configuration files are a few kilobytes each. If you want, I can list the files by size, \
show how much each folder takes, or find the files that have not been touched for a year, so that you can decide what to delete. \
Tell me which of these you would like, and whether the archive should be moved somewhere else first.";

/// A call to `nu` as the grammar writes it, its opener aside.
const CALL_BODY: &str = "\n{\"name\": \"nu\", \"arguments\": {\"pipeline\": \"ls | sort-by size\", \"why\": \"to see\"}}";

/// `text`'s tokens (no special tokens parsed).
fn tokens_of(model: &LoadedModel, text: &str) -> Vec<LlamaToken> {
    model.model.vocab().tokenize(text.as_bytes(), false, false)
}

/// A turn's samplers for the agent's tools (the pipeline held to its
/// grammar), a call optional: the grammar lazy.
fn lazy_sampling(model: &Arc<LoadedModel>) -> Sampling {
    let context = new_context_with(model, 1).expect("a context");
    let request = request(vec![Message::system(SYSTEM)], true);
    let options = TurnOptions::default();
    sampler(&context, &request, &options, 512, GrammarOrder::SampleFirst).expect("the samplers")
}

/// Accept `text`'s tokens into `sampling`, each one the grammar allows.
fn accept_all(model: &LoadedModel, sampling: &mut Sampling, text: &str) {
    for token in tokens_of(model, text) {
        let piece = model.model.vocab().token_to_piece(token, true, None);
        assert!(
            sampling.allows(token),
            "the grammar refuses {:?} of {text:?}",
            String::from_utf8_lossy(&piece)
        );
        sampling.accept(token);
    }
}

/// The mean of `times`.
fn mean(times: &[Duration]) -> Duration {
    times.iter().sum::<Duration>() / times.len().max(1) as u32
}

#[test]
fn a_lazy_grammar_accepts_long_prose_at_a_cost_that_does_not_grow() {
    let Some(model) = model() else { return };
    let tokens = tokens_of(&model, &format!("{PROSE} {PROSE}"));
    assert!(tokens.len() >= 400, "the prose is {} tokens", tokens.len());
    // The least of a few runs, token by token: the machine may be busy.
    let mut least = vec![Duration::MAX; tokens.len()];
    for _ in 0..3 {
        let mut sampling = lazy_sampling(&model);
        for (token, least) in tokens.iter().zip(&mut least) {
            let started = Instant::now();
            sampling.accept(*token);
            *least = (*least).min(started.elapsed());
        }
    }
    let windows: Vec<_> = least.chunks(50).map(mean).collect();
    eprintln!(
        "{} tokens of prose: a token's accept took {windows:?} (the mean of each 50)",
        tokens.len()
    );
    // A few microseconds' leeway for the clock and a busy machine; a
    // trigger that scans the whole reply at each token costs tens of
    // microseconds by the end, one with the old patterns milliseconds.
    let (first, last) = (mean(&least[..50]), mean(&least[least.len() - 50..]));
    assert!(
        last <= first * 3 + Duration::from_micros(5),
        "an accept took {first:?} over the first 50 tokens, {last:?} over the last 50"
    );
}

#[test]
fn a_call_opened_after_long_prose_is_held_to_the_grammar_and_parses() {
    let Some(model) = model() else { return };
    let schemas: Vec<_> = tool_defs(PromptKind::Task)
        .iter()
        .map(|t| t.schema())
        .collect();
    let vocab = model.model.vocab();
    let prose = tokens_of(&model, "Free");
    let refused_after = |prefix: &str| {
        let mut sampling = lazy_sampling(&model);
        accept_all(&model, &mut sampling, prefix);
        !sampling.allows(prose[0])
    };
    // A bare object in the middle of prose is prose.
    assert!(!refused_after(&format!("{PROSE} {{\"name\": ")));
    assert!(!refused_after(&format!("{PROSE}\n")));
    for (label, before) in [
        ("after long prose", format!("{PROSE}\n")),
        ("at the start", String::new()),
        ("after a sentence inside a token", "Sure.".to_string()),
    ] {
        let text = format!("{before}<tool_call>{CALL_BODY}\n</tool_call>");
        // Once the opener is there, the grammar holds what follows.
        assert!(refused_after(&format!("{before}<tool_call>")), "{label}");
        let mut sampling = lazy_sampling(&model);
        accept_all(&model, &mut sampling, &text);
        let eog = vocab.eos();
        assert!(sampling.allows(eog), "{label}: the call is not complete");
        let reply = parse_reply(&text, &schemas);
        assert_eq!(reply.calls.len(), 1, "{label}: {reply:?}");
        assert_eq!(reply.calls[0].name, "nu", "{label}");
        assert_eq!(
            reply.calls[0].arguments["pipeline"], "ls | sort-by size",
            "{label}"
        );
    }
    // A bare call at the very start (after whitespace) is held too.
    assert!(refused_after("\n {\"name\": "));
    let text = format!(" {}", CALL_BODY.trim_start());
    let mut sampling = lazy_sampling(&model);
    accept_all(&model, &mut sampling, &text);
    assert!(
        sampling.allows(vocab.eos()),
        "the bare call is not complete"
    );
    assert_eq!(parse_reply(&text, &schemas).calls.len(), 1, "{text}");
}

/// Greedy, with no grammar and end-of-generation banned, the choice read
/// off the logits is llama.cpp's own chain's (which the grammar-first
/// order still runs), token for token.
#[test]
fn the_greedy_choice_off_the_logits_is_the_chains() {
    let Some(model) = model() else { return };
    let mut request = ChatRequest::new(
        vec![
            Message::system(SYSTEM),
            Message::user("Explain how a shell runs a pipeline of three commands."),
        ],
        Vec::new(),
    );
    request.max_tokens = 96;
    let options = TurnOptions {
        ignore_eog: true,
        ..TurnOptions::default()
    };
    let tokens = |order| {
        let mut context = new_context_with(&model, 1).expect("a context");
        let (_, sampled) = run_turn_in(
            &mut context,
            &request,
            &options,
            order,
            &mut |_| {},
            &CancelToken::new(),
        )
        .expect("the turn runs");
        sampled.tokens
    };
    let chain = tokens(GrammarOrder::GrammarFirst);
    assert_eq!(chain.len(), 96);
    assert_eq!(chain, tokens(GrammarOrder::SampleFirst));
}
