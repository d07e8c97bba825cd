//! The `nu` tool's pipeline grammar on llama.cpp's own grammar engine and
//! the test model's vocabulary (SmolLM2-135M-Instruct, fetched by
//! `nu-scripts/fetch-test-model.sh`; only its vocabulary is loaded). A
//! whole call is tokenized and each token is checked against the grammar
//! before it is accepted (accepting a token the grammar refuses aborts the
//! process): real Nushell passes to the end, invented command names are
//! refused at the first character no head continues with.

mod support;

use std::sync::{Arc, OnceLock};

use agent_core::{
    agent::{PromptKind, pipeline_grammar, pipeline_heads, prompt_examples, tool_defs},
    eval::{Fixture, Turn, discover},
    llm::{PIPELINE_KEYWORDS, ToolCall, llama_backend, py_json, tagged_call, tool_call_grammar},
    policy::programs_in,
    shell::{Engine, Session, SessionSeed},
};
use llama_cpp_2::{
    model::{LlamaModel, params::LlamaModelParams},
    sampling::LlamaSampler,
    token::{LlamaToken, data::LlamaTokenData, data_array::LlamaTokenDataArray},
};
use support::test_model;

/// Programs the tests' PATH has: fixed, so that what is refused does not
/// depend on the machine (`cat` and `grep` are not among them).
const PROGRAMS: &[&str] = &["git", "python3", "ss", "sort", "7z", "x86_64-linux-gnu-gcc"];

fn model() -> &'static LlamaModel {
    static MODEL: OnceLock<LlamaModel> = OnceLock::new();
    MODEL.get_or_init(|| {
        let params = LlamaModelParams::default().with_vocab_only(true);
        LlamaModel::load_from_file(llama_backend().unwrap(), test_model(), &params)
            .expect("the test model's vocabulary loads")
    })
}

/// The engine's commands and [`PROGRAMS`].
fn heads() -> Arc<[String]> {
    let programs: Vec<String> = PROGRAMS.iter().map(|p| p.to_string()).collect();
    pipeline_heads(Engine::standard().state(), &programs).into()
}

/// The grammar the agent's `ask` turns get with `heads`.
fn grammar_with(heads: Arc<[String]>) -> String {
    tool_call_grammar(
        &tool_defs(PromptKind::Task),
        1_024,
        Some(&pipeline_grammar(heads)),
    )
}

fn grammar() -> &'static str {
    static GRAMMAR: OnceLock<String> = OnceLock::new();
    GRAMMAR.get_or_init(|| grammar_with(heads()))
}

/// The `nu` call running `pipeline`, byte for byte as the model writes
/// it (not as the template renders it back, which breaks up `<|`).
fn call(pipeline: &str) -> String {
    let body =
        serde_json::json!({"name": "nu", "arguments": {"pipeline": pipeline, "why": "test"}});
    format!("<tool_call>\n{}\n</tool_call>", py_json(&body, None))
}

/// Whether the grammar lets `token` come next: the sampler applied to
/// candidates holding that token alone leaves its logit finite.
fn allowed(sampler: &mut LlamaSampler, token: LlamaToken) -> bool {
    let mut candidates =
        LlamaTokenDataArray::new(vec![LlamaTokenData::new(token, 0.0, 0.0)], false);
    sampler.apply(&mut candidates);
    candidates.data[0].logit().is_finite()
}

/// Feed `groups` of tokens (each group one unit of `text`) to a fresh
/// sampler on `grammar`, checking each token before accepting it: the
/// index of the first group the grammar refuses, or `None` when it takes
/// them all and may end there (end-of-generation allowed).
fn first_refused(grammar: &str, groups: &[Vec<LlamaToken>]) -> Result<Option<usize>, String> {
    let model = model();
    let mut sampler = LlamaSampler::grammar(model, grammar, "tagged")
        .map_err(|e| format!("the grammar was refused: {e}"))?;
    for (index, group) in groups.iter().enumerate() {
        for token in group {
            if !allowed(&mut sampler, *token) {
                return Ok(Some(index));
            }
            sampler.accept(*token);
        }
    }
    if allowed(&mut sampler, model.vocab().eos()) {
        Ok(None)
    } else {
        Ok(Some(groups.len()))
    }
}

/// Whether the whole `text`, tokenized as the model's tokens, passes the
/// grammar (and completes it); the error names the refused token.
fn accepts_with(grammar: &str, text: &str) -> Result<(), String> {
    let vocab = model().vocab();
    let tokens = vocab.tokenize(text.as_bytes(), false, true);
    let groups: Vec<Vec<LlamaToken>> = tokens.iter().map(|t| vec![*t]).collect();
    match first_refused(grammar, &groups)? {
        None => Ok(()),
        Some(at) if at == tokens.len() => Err(format!("{text:?} is not complete")),
        Some(at) => {
            let piece = |t: &LlamaToken| {
                String::from_utf8_lossy(&vocab.token_to_piece(*t, true, None)).into_owned()
            };
            let before: String = tokens[..at].iter().map(piece).collect();
            Err(format!(
                "token {:?} refused after {before:?}",
                piece(&tokens[at])
            ))
        }
    }
}

fn accepts(pipeline: &str) -> Result<(), String> {
    accepts_with(grammar(), &call(pipeline))
}

/// The byte offset in `pipeline` of the first character the grammar
/// refuses, fed one character at a time (`None`: all taken).
fn refused_at(pipeline: &str) -> Option<usize> {
    let text = call(pipeline);
    let start = text.find("\"pipeline\": \"").unwrap() + "\"pipeline\": \"".len();
    let vocab = model().vocab();
    let offsets: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
    let groups: Vec<Vec<LlamaToken>> = text
        .chars()
        .map(|c| vocab.tokenize(c.to_string().as_bytes(), false, false))
        .collect();
    let at = first_refused(grammar(), &groups).unwrap()?;
    let offset = offsets.get(at).copied().unwrap_or(text.len());
    Some(offset - start)
}

/// Where the first `n` bytes of `pipeline` end in its JSON text.
fn json_len(pipeline: &str, n: usize) -> usize {
    serde_json::to_string(&pipeline[..n]).unwrap().len() - 2
}

#[test]
fn the_prompts_examples_pass_and_its_placeholders_do_not() {
    // `a; b` and `(cmd)` are forms with placeholder names.
    let placeholders = ["a; b", "(cmd)"];
    for example in prompt_examples() {
        if placeholders.contains(&example) {
            assert!(accepts(example).is_err(), "{example}");
        } else {
            accepts(example).unwrap_or_else(|e| panic!("{example}: {e}"));
        }
    }
}

#[test]
fn every_eval_tasks_script_passes() {
    let tasks = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/eval/tasks");
    let files = discover(tasks).unwrap();
    assert!(files.len() > 20, "{} tasks", files.len());
    let mut checked = 0;
    let programs: Vec<String> = PROGRAMS.iter().map(|p| p.to_string()).collect();
    for file in &files {
        let (fixture, task) = Fixture::new(file).unwrap();
        // Each step's heads are what the session knows by then: a `def`
        // of one step is a head in the next, as in the agent.
        let mut session =
            Session::new(Engine::standard(), SessionSeed::new(fixture.work())).unwrap();
        for turn in &task.script {
            if let Turn::Nu { pipeline, .. } = turn {
                let heads = pipeline_heads(session.engine_state(), &programs);
                accepts_with(&grammar_with(heads.into()), &call(pipeline))
                    .unwrap_or_else(|e| panic!("{}: {pipeline}: {e}", task.name));
                checked += 1;
                let _ = session.declare(pipeline, &fixture.work());
            }
        }
    }
    assert!(checked > 40, "{checked} pipelines");
}

#[test]
fn real_nushell_passes() {
    for pipeline in [
        // Closures and strings holding `|`.
        "ls | each {|f| $f.name | str upcase }",
        "ls | where { |f| $f.size > 1kb } | get name",
        "'a|b|c' | split row '|' | length",
        "\"x | y\" | str replace '|' '/'",
        "[1 2 3] | each { |x| $x * 2 } | math sum",
        "{|| ls } | do $in",
        // Programs, variables, `$out`.
        "^git log --format='%h %an %s' | lines",
        "git status --short | lines",
        "$out.0 | first 3",
        "$env.PATH | length",
        "$in | get name",
        "let x = 3; $x + 1",
        "mut n = 0; $n += 1; $n",
        // Records, lists, subexpressions, numbers.
        "{name: 'a', size: 3} | to json",
        "{\"a b\": 1, c: [1 2]} | columns",
        "[{a: 1} {a: 2}] | where a > 1",
        "(ls | length) + 1",
        "-1 | math abs",
        "1..10 | each { $in * $in } | math sum",
        "ls | where modified > ((date now) - 1day)",
        // Several lines, leading pipes, tabs, comments.
        "ls\n| where size > 1kb\n| length",
        "# the big ones\nls | sort-by size --reverse # largest first\n| first 3",
        "let big = (ls\n  | where size > 1mb)\n$big | length",
        "ls\t| length",
        // Definitions, blocks, interpolation, escapes, raw strings.
        "def greet [name: string, --loud(-l)] { $\"hello ($name)\" }",
        "$\"($env.HOME | path basename) is home\"",
        "$'(ls | length) files'",
        "if (ls | is-empty) { 'none' } else { 'some' }",
        "try { open x.json } catch { |e| $e.msg }",
        "match 3 { 1 => 'one', _ => 'many' }",
        "for f in (ls) { print $f.name }",
        "\"a\\\"b\\\\c\" | str length",
        "r#'it's raw'# | str length",
        "ls | where name =~ '\\.rs$' | get name",
        "open f.txt | lines | where ($it | str contains '<b>')",
        "ls | where size < 10kb",
        "not (ls | is-empty)",
        "^ls e>| lines",
        "./build.sh --release",
        "sys mem",
        "",
    ] {
        accepts(pipeline).unwrap_or_else(|e| panic!("{pipeline:?}: {e}"));
    }
}

/// The longest start of `word` that some head (or keyword) begins with.
fn known_prefix(word: &str) -> usize {
    let heads = heads();
    let words: Vec<&str> = heads
        .iter()
        .map(String::as_str)
        .chain(PIPELINE_KEYWORDS.iter().copied())
        .collect();
    (0..=word.len())
        .rev()
        .find(|n| words.iter().any(|h| h.starts_with(&word[..*n])))
        .unwrap_or(0)
}

#[test]
fn invented_commands_are_refused_at_the_first_character_no_head_continues() {
    for (pipeline, word) in [
        ("frobnicate | length", "frobnicate"),
        ("ls | frobnicate", "frobnicate"),
        ("ls | each {|x| frobnicate $x }", "frobnicate"),
        ("ls; bogus", "bogus"),
        ("(nosuch) | length", "nosuch"),
        ("ls\nprintln x", "println"),
        ("let x = (ls | zqx -l)", "zqx"),
    ] {
        let word_at = pipeline.find(word).unwrap();
        let known = known_prefix(word);
        assert!(known < word.len(), "{word} is a head");
        assert_eq!(
            refused_at(pipeline),
            Some(json_len(pipeline, word_at + known)),
            "{pipeline:?}: {word} after {:?}",
            &word[..known]
        );
        assert!(accepts(pipeline).is_err(), "{pipeline}");
    }
}

/// Names from other languages that the loop translates (`count` →
/// `length`) or names the Nushell form of are written as they are: the
/// grammar does not force them into another head (`count` into a program
/// `count-14`).
#[test]
fn habits_of_other_languages_are_written_as_they_are() {
    for pipeline in [
        "count | length",
        "ls | count",
        "ls | map { |x| $x }",
        "cat f | grep x",
        "open f | grep x",
        "let x = (ls | wc -l)",
        "ls | get size | sum",
        "ls *.tmp | delete",
        // The tool's own name, written as a command: not forced into
        // `nu-check` (a step that checks nothing and fails).
        "nu",
        "nu -c 'ls'",
    ] {
        accepts(pipeline).unwrap_or_else(|e| panic!("{pipeline:?}: {e}"));
    }
}

#[test]
fn a_name_must_end_before_its_arguments_and_text_must_balance() {
    for (pipeline, at) in [
        // A whole head followed by more letters: `ls` then `x`.
        ("lsx", 2),
        // A brace may hold a record: a word that is no head is a key until
        // something other than a colon follows it.
        ("ls | each { frobnicate $in }", 23),
        // `<|` cannot be written, in a string or out of one.
        ("'<|im_end|>' | str length", 2),
        ("$x <| 3", 4),
        // A bare `$` starts a variable.
        ("ls | get $ ", 10),
        // The pipeline cannot end inside a closure, a list or a string
        // (the JSON string's closing quote is refused).
        ("ls | each { $in.name", 20),
        ("[1 2", 4),
        ("'open", 5),
    ] {
        assert_eq!(refused_at(pipeline), Some(at), "{pipeline:?}");
    }
}

#[test]
fn the_sessions_own_definitions_are_heads() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = Session::new(Engine::standard(), SessionSeed::new(dir.path())).unwrap();
    session
        .declare(
            "def greet [name: string] { $\"hello ($name)\" }; alias ll = ls -l",
            dir.path(),
        )
        .unwrap();
    let heads = pipeline_heads(session.engine_state(), &[]);
    assert!(heads.iter().any(|h| h == "greet") && heads.iter().any(|h| h == "ll"));
    let grammar = grammar_with(heads.into());
    for pipeline in ["greet world", "ll | length"] {
        accepts_with(&grammar, &call(pipeline)).unwrap();
        assert!(accepts(pipeline).is_err(), "{pipeline}");
    }
}

#[test]
fn without_heads_the_pipeline_is_a_free_string() {
    let free = tool_call_grammar(&tool_defs(PromptKind::Task), 1_024, None);
    for pipeline in ["count | frobnicate", "ls | each { x"] {
        accepts_with(&free, &call(pipeline)).unwrap();
        assert!(accepts(pipeline).is_err(), "{pipeline}");
    }
    // The other tools are the same either way.
    let answer = tagged_call(&ToolCall {
        id: String::new(),
        name: "answer".into(),
        arguments: serde_json::json!({"text": "count | frob"})
            .as_object()
            .cloned()
            .unwrap_or_default(),
    });
    accepts_with(&free, &answer).unwrap();
    accepts_with(grammar(), &answer).unwrap();
}

/// The median time `grammar` takes to filter the whole vocabulary once
/// `text` has been accepted (what it adds to every token there).
fn filter_time(grammar: &str, text: &str) -> std::time::Duration {
    let model = model();
    let mut sampler = LlamaSampler::grammar(model, grammar, "tagged").unwrap();
    for token in model.vocab().tokenize(text.as_bytes(), false, true) {
        assert!(allowed(&mut sampler, token), "{text}");
        sampler.accept(token);
    }
    let all: Vec<LlamaTokenData> = (0..model.n_vocab())
        .map(|t| LlamaTokenData::new(LlamaToken(t), 0.0, 0.0))
        .collect();
    let mut times: Vec<_> = (0..5)
        .map(|_| {
            let mut candidates = LlamaTokenDataArray::new(all.clone(), false);
            let started = std::time::Instant::now();
            sampler.apply(&mut candidates);
            started.elapsed()
        })
        .collect();
    times.sort();
    times[2]
}

/// The grammar for this machine's PATH and the standard engine, measured
/// (`-- --nocapture` prints its size, and what filtering the vocabulary
/// costs where a pipeline element starts and inside its arguments, against
/// the free string): llama.cpp must take it, and it stays far from the
/// sizes that make parsing it each turn costly. Nothing is asserted of the
/// times; `nu-scripts/bench-local.sh` measures decoding.
#[test]
fn the_grammar_of_this_machines_heads_is_measured() {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let dirs: Vec<_> = std::env::split_paths(&path).collect();
    let programs = programs_in(&dirs);
    let heads: Arc<[String]> = pipeline_heads(Engine::standard().state(), &programs).into();
    let grammar = grammar_with(heads.clone());
    let pipeline_rules = grammar.lines().filter(|l| l.starts_with("pl-")).count();
    let trie_rules = grammar.lines().filter(|l| l.starts_with("pl-h")).count();
    model();
    let started = std::time::Instant::now();
    let sampler = LlamaSampler::grammar(model(), &grammar, "tagged");
    let parse = started.elapsed();
    eprintln!(
        "pipeline grammar: {} heads ({} programs), {} rules ({pipeline_rules} pipeline, {trie_rules} trie), {} bytes; llama.cpp parsed it in {parse:?}",
        heads.len(),
        programs.len(),
        grammar.lines().count(),
        grammar.len(),
    );
    assert!(sampler.is_ok());
    assert!(grammar.len() < 1 << 20, "{} bytes", grammar.len());
    let free = tool_call_grammar(&tool_defs(PromptKind::Task), 1_024, None);
    let text = call("ls | where size > 1kb | sort-by size");
    let start = text.find("sort-by").unwrap();
    let middle = text.find("1kb").unwrap() + 1;
    for (place, prefix) in [
        ("an element's start", &text[..start]),
        ("an argument", &text[..middle]),
    ] {
        eprintln!(
            "filtering {} tokens at {place}: {:?} with the pipeline grammar, {:?} with the free string",
            model().n_vocab(),
            filter_time(&grammar, prefix),
            filter_time(&free, prefix),
        );
    }
}
