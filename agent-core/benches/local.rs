//! Benchmark of the local llama.cpp backend, one JSON object per line on
//! stdout (progress on stderr); `nu-scripts/bench-local.sh` runs it and
//! prints the tables.
//!
//! 1. `speed`: prefill and decode tokens/s against llama-cpp-python on the
//!    same GGUF, the same token ids, threads, context (2048) and batch (512),
//!    runs interleaved (ours, peer, ours, peer, ...) so background load hits
//!    both alike. Prefill: a ~512-token prompt from an empty cache plus one
//!    greedy token. Decode: the last prompt token again, then 128 greedy
//!    tokens with end-of-generation banned.
//! 2. `episode`: a scripted six-step tool episode; prompt tokens evaluated
//!    per step with KV reuse on and off, against the tokens each step added.
//! 3. `validity`: 50 shell requests, tool choice Required and Auto, with and
//!    without the tool-call grammar: replies that are exactly one valid call,
//!    and how many are degenerate. `BENCH_LOCAL_GUARD=compare` instead runs
//!    the agent's setting with the repetition guard off and on, on the first
//!    turn, on a `late` set (the agent's prompt, tools and sampling at its
//!    fourth step) and on an `echo` set (each request followed by a long
//!    run of one character); `BENCH_LOCAL_SETS=first,late,echo` picks.
//! 4. `ttft`: time to first token of a fresh process (the `ttft` example)
//!    after a ~1,500-token prefix, with an empty prefix-cache directory and
//!    with the state file a previous run left.
//! 5. `busy`: decode tokens/s with 0, 1, … cores kept busy by spinning
//!    processes, the default thread choice against every core.
//! 6. `bandwidth`: the memory read bandwidth (a 512 MiB copy) over each
//!    model's weight bytes — the decode speed it allows — against decode
//!    with the default threads.
//! 7. `pipeline`: the `nu` calls of the `late` set (the agent's prompt,
//!    tools and step 4, greedy, a call required) with the pipeline grammar
//!    (`agent.pipeline_grammar`: heads from the standard engine and this
//!    machine's PATH) and without it (a free string), requests
//!    interleaved: decode tokens/s (the prompt cached by a one-token turn
//!    first) and how many pipelines parse and name only commands and
//!    programs that exist.
//! 8. `overhead`: the per-token path. Our generation loop's decode
//!    tokens/s (greedy, end-of-generation banned, 128 tokens after an
//!    agent-like prompt with tools) with the tool-call grammar off and on
//!    (lazy, waiting for a call), the median time per token spent outside
//!    `llama_decode`, against llama-bench's `tg` built on the same llama.cpp
//!    libraries (`BENCH_LOCAL_LLAMA_BENCH`, from
//!    `nu-scripts/build-llama-bench.sh`) at the same depth, threads, batch
//!    and flash-attention setting, runs alternated. Not in the default
//!    parts: `nu-scripts/bench-decode.sh` runs it.
//!
//! Settings from the environment: `BENCH_LOCAL_MODELS` (`smollm2,gemma3`),
//! `BENCH_LOCAL_THREADS` (`1,2`), `BENCH_LOCAL_RUNS` (5),
//! `BENCH_LOCAL_PARTS` (`speed,episode,validity,ttft,busy,bandwidth,pipeline`),
//! `BENCH_LOCAL_PYTHON` (llama-cpp-python's venv python; without it the
//! peer is skipped), `BENCH_LOCAL_TTFT` (the built `ttft` example; without
//! it part 4 is skipped), `NU_AGENT_TEST_MODEL` / `NU_AGENT_GEMMA_MODEL`
//! (model paths; default: the cached test models; `qwen0.5b` and
//! `qwen1.5b` name the cached Qwen2.5-Coder models). Without `--bench` (as
//! under `cargo test --benches`) it does one short run of each part.

use std::{
    error::Error,
    io::{BufRead, BufReader, Write},
    path::{Path, PathBuf},
    process::{Child, ChildStdin, ChildStdout, Command, Stdio},
    sync::Arc,
    time::{Duration, Instant},
};

use agent_core::{
    agent,
    llm::{
        ChatBackend, ChatRequest, ChatTurn, LocalBackend, LocalConfig, Message, ToolCall,
        ToolChoice, ToolDef,
    },
    policy::{NonInteractive, Policy, PolicyShell, ShellOptions},
    shell::{CancelToken, SessionSeed},
};
use serde_json::{Value, json};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

const N_CTX: u32 = 2048;
const N_BATCH: u32 = 512;
const PREFILL_TARGET: usize = 512;
const DECODE_TOKENS: u32 = 128;

struct Settings {
    full: bool,
    runs: usize,
    threads: Vec<u32>,
    models: Vec<(String, PathBuf)>,
    parts: Vec<String>,
    python: Option<PathBuf>,
    ttft: Option<PathBuf>,
    llama_bench: Option<PathBuf>,
    peer_flash_attn: bool,
}

fn env_list(name: &str, default: &str) -> Vec<String> {
    std::env::var(name)
        .unwrap_or_else(|_| default.to_string())
        .split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

fn cached_model(file: &str) -> PathBuf {
    PathBuf::from(std::env::var_os("HOME").unwrap_or_default())
        .join(".cache/nu-agent/models")
        .join(file)
}

fn settings() -> Settings {
    let full = std::env::args().any(|a| a == "--bench");
    let models: Vec<(String, PathBuf)> = env_list("BENCH_LOCAL_MODELS", "smollm2,gemma3")
        .into_iter()
        .filter_map(|name| {
            let path = match name.as_str() {
                "smollm2" => std::env::var_os("NU_AGENT_TEST_MODEL")
                    .map(PathBuf::from)
                    .unwrap_or_else(|| cached_model("SmolLM2-135M-Instruct.Q4_1.gguf")),
                "gemma3" => std::env::var_os("NU_AGENT_GEMMA_MODEL")
                    .map(PathBuf::from)
                    .unwrap_or_else(|| cached_model("gemma-3-270m-q4_k_m.gguf")),
                "qwen0.5b" => cached_model("qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"),
                "qwen1.5b" => cached_model("qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"),
                other => PathBuf::from(other),
            };
            if path.is_file() {
                Some((name, path))
            } else {
                eprintln!("bench local: {} missing, skipped", path.display());
                None
            }
        })
        .collect();
    // A short run (under `cargo test --benches`): the first model, one
    // thread.
    let models = if full {
        models
    } else {
        models.into_iter().take(1).collect()
    };
    let threads = env_list("BENCH_LOCAL_THREADS", "1,2")
        .iter()
        .filter_map(|t| t.parse().ok())
        .take(if full { usize::MAX } else { 1 })
        .collect();
    Settings {
        full,
        runs: if full {
            std::env::var("BENCH_LOCAL_RUNS")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(5)
        } else {
            1
        },
        threads,
        models,
        parts: env_list(
            "BENCH_LOCAL_PARTS",
            "speed,episode,validity,ttft,busy,bandwidth,pipeline",
        ),
        python: std::env::var_os("BENCH_LOCAL_PYTHON").map(PathBuf::from),
        ttft: std::env::var_os("BENCH_LOCAL_TTFT").map(PathBuf::from),
        llama_bench: std::env::var_os("BENCH_LOCAL_LLAMA_BENCH").map(PathBuf::from),
        peer_flash_attn: std::env::var("BENCH_LOCAL_PEER_FLASH_ATTN").map_or(true, |v| v != "0"),
    }
}

fn emit(line: Value) {
    println!("{line}");
    let _ = std::io::stdout().flush();
}

fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    match sorted.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => sorted[n / 2],
        n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

fn config(model: &Path, threads: u32) -> LocalConfig {
    let mut config = LocalConfig::new(model);
    config.load.context = Some(N_CTX);
    config.load.threads = Some(threads);
    config.load.gpu_layers = Some(0);
    config.keep_alive = Duration::from_secs(600);
    config
}

fn chat(backend: &mut LocalBackend, request: &ChatRequest) -> Result<(ChatTurn, f64)> {
    let started = Instant::now();
    let turn = backend.chat(request, &mut |_| {}, &CancelToken::new())?;
    Ok((turn, started.elapsed().as_secs_f64()))
}

/// llama-cpp-python in a child process, driven by JSON lines.
struct Peer {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl Peer {
    fn start(python: &Path) -> Result<Peer> {
        let script =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../nu-scripts/bench_llama_cpp_python.py");
        let mut child = Command::new(python)
            .arg(&script)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("could not start {}: {e}", python.display()))?;
        let input = child.stdin.take().ok_or("no stdin for the peer")?;
        let output = BufReader::new(child.stdout.take().ok_or("no stdout for the peer")?);
        Ok(Peer {
            child,
            input,
            output,
        })
    }

    fn call(&mut self, request: Value) -> Result<Value> {
        writeln!(self.input, "{request}")?;
        self.input.flush()?;
        let mut line = String::new();
        if self.output.read_line(&mut line)? == 0 {
            return Err("llama-cpp-python exited".into());
        }
        let reply: Value = serde_json::from_str(&line)?;
        if let Some(error) = reply.get("error") {
            return Err(format!("llama-cpp-python: {error}").into());
        }
        Ok(reply)
    }

    fn seconds(reply: &Value) -> Result<f64> {
        reply["seconds"]
            .as_f64()
            .ok_or_else(|| "llama-cpp-python gave no time".into())
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = writeln!(self.input, "{}", json!({"cmd": "quit"}));
        let _ = self.input.flush();
        if self.child.wait_timeout_secs(5).is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

trait WaitTimeout {
    fn wait_timeout_secs(&mut self, secs: u64) -> Option<std::process::ExitStatus>;
}

impl WaitTimeout for Child {
    fn wait_timeout_secs(&mut self, secs: u64) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + Duration::from_secs(secs);
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.try_wait() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }
}

const PROSE: &[&str] = &[
    "Nushell treats the output of every command as structured data, so a directory listing is a table with columns for the name, the type, the size and the modification time.",
    "A pipeline passes that table from one command to the next, and each step can filter rows, pick columns, sort, group or compute new values without parsing any text.",
    "External programs still work: their output arrives as a string, which the lines, split and parse commands turn into a table when the format is regular enough.",
    "Configuration lives in a script that runs at startup, where aliases, custom commands, environment variables and the prompt are defined in the same language as everything else.",
    "Errors point at the span of the command that failed, with a label explaining what went wrong, which makes long pipelines far easier to debug than in most shells.",
    "Plugins extend the shell with new commands that run in their own process and talk to the engine over a small protocol of messages.",
    "Values have types such as int, float, filesize, duration, date, record, list and table, and commands declare the types they take and return.",
    "The history, the completions and the key bindings can all be changed, and a menu shows matching commands or files as the user types.",
];

/// A user message whose rendered prompt is close to (not over) `target`
/// tokens.
fn prefill_request(backend: &mut LocalBackend, target: usize) -> Result<ChatRequest> {
    let mut sentences: Vec<&str> = Vec::new();
    let mut request = ChatRequest::new(vec![Message::user("")], vec![]);
    for sentence in PROSE.iter().cycle().take(200) {
        sentences.push(sentence);
        let candidate = ChatRequest::new(vec![Message::user(sentences.join(" "))], vec![]);
        if backend.prompt_tokens(&candidate)?.len() > target {
            break;
        }
        request = candidate;
    }
    // Then word by word up to the target.
    let last_words: Vec<&str> = PROSE[0].split(' ').collect();
    let mut text = match request.messages.first() {
        Some(m) => m.content.clone(),
        None => String::new(),
    };
    for word in last_words {
        let candidate_text = format!("{text} {word}");
        let candidate = ChatRequest::new(vec![Message::user(candidate_text.clone())], vec![]);
        if backend.prompt_tokens(&candidate)?.len() > target {
            break;
        }
        text = candidate_text;
    }
    Ok(ChatRequest::new(vec![Message::user(text)], vec![]))
}

fn speed(settings: &Settings) -> Result<()> {
    let mut peer = match &settings.python {
        Some(python) => Some(Peer::start(python)?),
        None => {
            eprintln!("bench local: BENCH_LOCAL_PYTHON unset, llama-cpp-python skipped");
            None
        }
    };
    for (name, path) in &settings.models {
        for &threads in &settings.threads {
            eprintln!("bench local: speed {name}, {threads} thread(s)");
            let mut config = config(path, threads);
            config.turn.ignore_eog = true;
            let mut backend = LocalBackend::new(config);
            backend.load()?;
            let mut request = prefill_request(&mut backend, PREFILL_TARGET)?;
            let tokens = backend.prompt_tokens(&request)?;
            let rendered = backend.render(&request)?.text;
            let mut same_tokens = Value::Null;
            if let Some(peer) = peer.as_mut() {
                peer.call(json!({"cmd": "load", "model": path, "threads": threads,
                    "n_ctx": N_CTX, "n_batch": N_BATCH, "flash_attn": settings.peer_flash_attn}))?;
                let theirs = peer.call(json!({"cmd": "tokenize", "text": rendered}))?;
                same_tokens = json!(theirs["tokens"] == json!(tokens));
            }
            let mut ours_prefill = Vec::new();
            let mut ours_decode = Vec::new();
            let mut peer_prefill = Vec::new();
            let mut peer_decode = Vec::new();
            // One warm-up round first (page cache, allocations), unrecorded.
            for run in 0..=settings.runs {
                let record = run > 0;
                backend.clear_cache();
                request.max_tokens = 1;
                let (turn, seconds) = chat(&mut backend, &request)?;
                if turn.usage.prompt_evaluated as usize != tokens.len() {
                    return Err(format!("prefill evaluated {:?}", turn.usage).into());
                }
                if record {
                    ours_prefill.push(seconds);
                }
                if let Some(peer) = peer.as_mut() {
                    let reply = peer.call(json!({"cmd": "prefill", "tokens": tokens}))?;
                    if record {
                        peer_prefill.push(Peer::seconds(&reply)?);
                    }
                }
                request.max_tokens = DECODE_TOKENS;
                let (turn, seconds) = chat(&mut backend, &request)?;
                if turn.usage.completion_tokens != DECODE_TOKENS || turn.usage.prompt_evaluated != 1
                {
                    return Err(format!("decode ran {:?}", turn.usage).into());
                }
                if record {
                    ours_decode.push(seconds);
                }
                if let Some(peer) = peer.as_mut() {
                    let reply =
                        peer.call(json!({"cmd": "decode", "tokens": tokens, "n": DECODE_TOKENS}))?;
                    if record {
                        peer_decode.push(Peer::seconds(&reply)?);
                    }
                }
            }
            for (phase, count, ours, theirs) in [
                ("prefill", tokens.len(), &ours_prefill, &peer_prefill),
                ("decode", DECODE_TOKENS as usize, &ours_decode, &peer_decode),
            ] {
                let rate = |samples: &Vec<f64>| {
                    if samples.is_empty() {
                        Value::Null
                    } else {
                        json!(count as f64 / median(samples))
                    }
                };
                emit(json!({
                    "part": "speed", "model": name, "threads": threads, "phase": phase,
                    "tokens": count, "n_ctx": N_CTX, "n_batch": N_BATCH,
                    "peer_flash_attn": settings.peer_flash_attn, "same_tokens": same_tokens,
                    "ours_tps": rate(ours), "peer_tps": rate(theirs),
                    "ours_seconds": ours, "peer_seconds": theirs,
                }));
            }
        }
    }
    Ok(())
}

fn tool(name: &str, description: &str, properties: &[&str], required: &[&str]) -> ToolDef {
    let props: serde_json::Map<String, Value> = properties
        .iter()
        .map(|p| (p.to_string(), json!({"type": "string"})))
        .collect();
    ToolDef {
        name: name.into(),
        description: description.into(),
        parameters: json!({"type": "object", "properties": props, "required": required}),
    }
}

fn tools() -> Vec<ToolDef> {
    vec![
        tool(
            "nu",
            "Run a Nushell pipeline and see its result.",
            &["pipeline", "why"],
            &["pipeline"],
        ),
        tool(
            "read_file",
            "Read a text file.",
            &["path", "from", "to"],
            &["path"],
        ),
        tool(
            "answer",
            "Give the final answer to the user.",
            &["text"],
            &["text"],
        ),
    ]
}

const SYSTEM: &str = "You are a shell assistant inside Nushell. Use the nu tool to run pipelines and read_file to read files, then give the answer with the answer tool.";

/// Tool results of the episode, about 60 tokens each.
const RESULTS: &[&str] = &[
    "╭───┬─────────────┬──────┬──────────╮\n│ # │ name        │ type │ size     │\n├───┼─────────────┼──────┼──────────┤\n│ 0 │ app.log     │ file │ 812.4 MB │\n│ 1 │ access.log  │ file │ 96.1 MB  │\n╰───┴─────────────┴──────┴──────────╯",
    "2024-05-02 10:14:03 ERROR worker 3: connection refused (db:5432)\n2024-05-02 10:14:05 WARN retrying in 2s\n2024-05-02 10:14:07 ERROR worker 3: connection refused (db:5432)",
    "╭───┬────────┬───────╮\n│ # │ level  │ count │\n├───┼────────┼───────┤\n│ 0 │ ERROR  │  1482 │\n│ 1 │ WARN   │   311 │\n│ 2 │ INFO   │ 90210 │\n╰───┴────────┴───────╯",
    "╭───┬───────┬──────────┬───────╮\n│ # │ pid   │ name     │ cpu   │\n├───┼───────┼──────────┼───────┤\n│ 0 │ 4411  │ postgres │ 0.0   │\n│ 1 │ 4532  │ worker   │ 97.3  │\n╰───┴───────┴──────────┴───────╯",
    "Filesystem /dev/sda1: size 48.0 GB, used 46.9 GB, available 1.1 GB, 98% full; the largest directory is /var/log at 912 MB.",
    "The database service is inactive (dead) since 10:13:58; its last log line reads: FATAL could not write to file pg_wal/xlogtemp: No space left on device.",
];

fn episode_turns(model: &Path, reuse: bool) -> Result<Vec<(ChatTurn, f64)>> {
    let mut config = config(model, 1);
    config.turn.reuse = reuse;
    let mut backend = LocalBackend::new(config);
    // Load first: the host's warm context may hold an earlier prompt.
    backend.load()?;
    backend.clear_cache();
    let mut messages = vec![
        Message::system(SYSTEM),
        Message::user(
            "The app is failing. Find the biggest log file, see what is wrong and tell me.",
        ),
    ];
    let mut turns = Vec::new();
    for (step, result) in RESULTS.iter().enumerate() {
        let mut request = ChatRequest::new(messages.clone(), tools());
        request.tool_choice = ToolChoice::Required;
        request.max_tokens = 96;
        let (turn, seconds) = chat(&mut backend, &request)?;
        let id = format!("call_{step}");
        let mut calls = turn.tool_calls.clone();
        for call in &mut calls {
            call.id = id.clone();
        }
        messages.push(Message::assistant(turn.content.clone(), calls));
        messages.push(Message::tool(id, *result));
        turns.push((turn, seconds));
    }
    Ok(turns)
}

fn episode(settings: &Settings) -> Result<()> {
    for (name, path) in &settings.models {
        eprintln!("bench local: episode {name}");
        let with_reuse = episode_turns(path, true)?;
        let without = episode_turns(path, false)?;
        let same_output = with_reuse
            .iter()
            .zip(&without)
            .all(|(a, b)| a.0.content == b.0.content && a.0.tool_calls == b.0.tool_calls);
        for (step, ((reused, reused_s), (full, full_s))) in
            with_reuse.iter().zip(&without).enumerate()
        {
            let before = step
                .checked_sub(1)
                .map(|s| {
                    let u = with_reuse[s].0.usage;
                    u.prompt_tokens + u.completion_tokens
                })
                .unwrap_or(0);
            let new = reused.usage.prompt_tokens.saturating_sub(before);
            emit(json!({
                "part": "episode", "model": name, "step": step + 1,
                "prompt_tokens": reused.usage.prompt_tokens, "new_tokens": new,
                "evaluated_reuse": reused.usage.prompt_evaluated,
                "evaluated_no_reuse": full.usage.prompt_evaluated,
                "ratio": f64::from(reused.usage.prompt_evaluated) / f64::from(new.max(1)),
                "completion_tokens": reused.usage.completion_tokens,
                "seconds_reuse": reused_s, "seconds_no_reuse": full_s,
                "calls": reused.tool_calls.len(), "same_output": same_output,
            }));
        }
    }
    Ok(())
}

/// Fifty shell requests of every kind (files, processes, git, text, the
/// system, arithmetic, chit-chat).
const REQUESTS: &[&str] = &[
    "list the files in this directory",
    "how much disk space is free?",
    "show the 5 largest files",
    "what is my username",
    "count the lines in Cargo.toml",
    "find all rust files under src",
    "which processes use the most memory",
    "print the current date",
    "show environment variables that mention PATH",
    "what git branch am I on",
    "make a directory called build",
    "show the first 3 lines of README.md",
    "what is the kernel version",
    "sort files by modification time",
    "how many CPU cores does this machine have",
    "show hidden files",
    "what is 17 * 23",
    "convert data.json to yaml",
    "tell me a joke",
    "is port 8080 in use",
    "show the last 20 lines of /var/log/syslog",
    "which files changed in the last commit",
    "how big is the target directory",
    "find TODO comments in the source code",
    "what is the uptime of this machine",
    "list the docker containers that are running",
    "show the contents of config.toml",
    "how many files are in the current directory",
    "rename notes.txt to notes.md",
    "which shell am I using",
    "show my IP address",
    "what time zone is this machine in",
    "list the installed python packages",
    "compress the logs folder into a tar.gz",
    "search for the word 'error' in app.log",
    "show the git log for the last week",
    "what is the size of each subdirectory",
    "delete the empty files here",
    "show the memory usage",
    "what does the ls command do?",
    "open the CSV file sales.csv and sum the amount column",
    "show which user owns /etc/passwd",
    "list the open network connections",
    "check whether python3 is installed",
    "print the fibonacci numbers below 100",
    "show the differences between a.txt and b.txt",
    "what is the home directory",
    "how many commits are in this repository",
    "summarize what is in this folder",
    "thanks, that is all",
];

fn valid(turn: &ChatTurn, tools: &[ToolDef]) -> bool {
    if turn.tool_calls.len() != 1 || turn.repair.is_some() {
        return false;
    }
    let call = &turn.tool_calls[0];
    tools.iter().any(|tool| {
        tool.name == call.name
            && tool
                .schema()
                .required
                .iter()
                .all(|r| call.arguments.get(r).is_some_and(|v| !v.is_null()))
    })
}

/// Three steps already taken (the agent's own pipelines and results),
/// before the turn measured by the `late` set.
const LATE_STEPS: &[(&str, usize)] = &[
    ("ls | sort-by size --reverse | first 2", 0),
    ("open app.log | lines | last 3", 1),
    ("ps | sort-by cpu --reverse | first 2", 3),
];

/// Where a request is asked: `first` = the bench's short prompt and tools,
/// first turn, 128 tokens, greedy; `late` = the agent's own system prompt,
/// tools and sampling (temperature 0.2, up to 1,024 tokens) at its fourth
/// step, where a small model degenerates.
#[derive(Clone, Copy, Debug)]
enum Set {
    First,
    Late,
    /// `first`, each request followed by a long run of one character (a
    /// pasted separator, a big number), which invites a small model to
    /// copy it on and on: where loops can be counted.
    Echo,
}

impl Set {
    fn request(self, prompt: &str) -> ChatRequest {
        match self {
            Set::Echo => {
                let filler = ["0", "=", "a", "-", "_"][prompt.len() % 5].repeat(64);
                Set::First.request(&format!("{prompt} {filler}"))
            }
            Set::First => {
                let mut request = ChatRequest::new(
                    vec![Message::system(SYSTEM), Message::user(prompt)],
                    tools(),
                );
                request.max_tokens = 128;
                request
            }
            Set::Late => {
                let mut messages = vec![
                    Message::system(agent::system_prompt(agent::PromptKind::Task, "")),
                    Message::user(prompt),
                ];
                for (step, (pipeline, result)) in LATE_STEPS.iter().enumerate() {
                    let id = format!("call_{step}");
                    let call = ToolCall {
                        id: id.clone(),
                        name: agent::NU_TOOL.into(),
                        arguments: json!({"pipeline": pipeline, "why": "look"})
                            .as_object()
                            .cloned()
                            .unwrap_or_default(),
                    };
                    messages.push(Message::assistant("", vec![call]));
                    messages.push(Message::tool(id, RESULTS[*result]));
                }
                let mut request =
                    ChatRequest::new(messages, agent::tool_defs(agent::PromptKind::Task));
                request.max_tokens = 1024;
                request.temperature = 0.2;
                request
            }
        }
    }
}

/// Whether a call's pipeline or answer, or the reply's text, is degenerate.
fn degenerate(turn: &ChatTurn) -> bool {
    turn.tool_calls.iter().any(|call| {
        ["pipeline", "text"].iter().any(|key| {
            call.arguments
                .get(*key)
                .and_then(|v| v.as_str())
                .is_some_and(|s| agent::degenerate(s).is_some())
        })
    }) || agent::degenerate(&turn.content).is_some()
}

fn validity(settings: &Settings) -> Result<()> {
    let requests = if settings.full {
        REQUESTS
    } else {
        &REQUESTS[..3]
    };
    // BENCH_LOCAL_GUARD=compare: only the agent's own setting (grammar,
    // call required), on both sets, with the repetition guard off and on.
    let compare_guard = std::env::var("BENCH_LOCAL_GUARD").is_ok_and(|v| v == "compare");
    let runs: Vec<(Set, bool, ToolChoice, bool)> = if compare_guard {
        let sets = std::env::var("BENCH_LOCAL_SETS").unwrap_or_else(|_| "first,late,echo".into());
        [Set::First, Set::Late, Set::Echo]
            .into_iter()
            .filter(|set| sets.contains(&format!("{set:?}").to_lowercase()))
            .collect::<Vec<_>>()
            .into_iter()
            .flat_map(|set| {
                [false, true]
                    .into_iter()
                    .map(move |guard| (set, true, ToolChoice::Required, guard))
            })
            .collect()
    } else {
        [true, false]
            .into_iter()
            .flat_map(|g| {
                [ToolChoice::Required, ToolChoice::Auto]
                    .into_iter()
                    .map(move |c| (Set::First, g, c, true))
            })
            .collect()
    };
    for (name, path) in &settings.models {
        for &(set, grammar, choice, guard) in &runs {
            eprintln!(
                "bench local: validity {name}, {set:?}, grammar {grammar}, {choice:?}, guard {guard}"
            );
            let mut config = config(path, 1);
            config.turn.grammar = grammar;
            config.turn.repetition_guard = guard;
            let mut backend = LocalBackend::new(config);
            let (mut ok, mut prose, mut broken, mut repeats, mut tokens) = (0, 0, 0, 0, 0);
            let mut failures = Vec::new();
            let started = Instant::now();
            for prompt in requests {
                let mut request = set.request(prompt);
                request.tool_choice = choice;
                let (turn, _) = chat(&mut backend, &request)?;
                tokens += turn.usage.completion_tokens;
                if degenerate(&turn) {
                    repeats += 1;
                    failures.push(json!({"prompt": prompt, "degenerate": true,
                        "calls": turn.tool_calls, "content": turn.content}));
                }
                if valid(&turn, &request.tools) {
                    ok += 1;
                } else {
                    let is_prose = turn.tool_calls.is_empty() && turn.repair.is_none();
                    if is_prose {
                        prose += 1;
                    } else {
                        broken += 1;
                    }
                    // Every broken call, and the first prose reply.
                    if !is_prose || prose == 1 {
                        failures.push(json!({"prompt": prompt, "content": turn.content,
                            "calls": turn.tool_calls, "repair": turn.repair}));
                    }
                }
            }
            emit(json!({
                "part": "validity", "model": name, "set": format!("{set:?}").to_lowercase(),
                "grammar": grammar, "choice": format!("{choice:?}"), "guard": guard,
                "requests": requests.len(), "valid": ok, "prose": prose, "broken": broken,
                "degenerate": repeats, "completion_tokens": tokens,
                "seconds": started.elapsed().as_secs_f64(), "examples": failures,
            }));
        }
    }
    Ok(())
}

/// One fresh `ttft` process: its JSON line and its wall time.
fn ttft_run(binary: &Path, model: &Path, cache: &Path, threads: u32) -> Result<(Value, f64)> {
    let started = Instant::now();
    let output = Command::new(binary)
        .arg(model)
        .arg("--cache")
        .arg(cache)
        .args([
            "--threads",
            &threads.to_string(),
            "--context",
            &N_CTX.to_string(),
        ])
        .stderr(Stdio::null())
        .output()?;
    let wall = started.elapsed().as_secs_f64();
    if !output.status.success() {
        return Err(format!("{} failed: {}", binary.display(), output.status).into());
    }
    let line = String::from_utf8_lossy(&output.stdout);
    let value: Value = serde_json::from_str(line.trim())?;
    Ok((value, wall))
}

fn state_files(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "kv"))
                .collect()
        })
        .unwrap_or_default()
}

fn ttft(settings: &Settings) -> Result<()> {
    let Some(binary) = &settings.ttft else {
        eprintln!("bench local: BENCH_LOCAL_TTFT unset, time to first token skipped");
        return Ok(());
    };
    let threads = 1;
    for (name, path) in &settings.models {
        eprintln!("bench local: ttft {name}");
        let base = std::env::temp_dir().join(format!("nu-agent-bench-ttft-{}", std::process::id()));
        let cold_dir = base.join("cold");
        let warm_dir = base.join("warm");
        let _ = std::fs::remove_dir_all(&base);
        std::fs::create_dir_all(&warm_dir)?;
        // The warm directory's state file, from a first run.
        ttft_run(binary, path, &warm_dir, threads)?;
        let files = state_files(&warm_dir);
        let state_bytes = files
            .first()
            .and_then(|f| std::fs::metadata(f).ok())
            .map(|m| m.len());
        let (mut cold, mut warm, mut cold_wall, mut warm_wall) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let (mut prompt_tokens, mut warm_evaluated) = (0, 0);
        for _ in 0..settings.runs {
            let _ = std::fs::remove_dir_all(&cold_dir);
            std::fs::create_dir_all(&cold_dir)?;
            let (value, wall) = ttft_run(binary, path, &cold_dir, threads)?;
            cold.push(value["ttft_ms"].as_f64().unwrap_or(f64::NAN));
            cold_wall.push(wall * 1e3);
            prompt_tokens = value["prompt_tokens"].as_u64().unwrap_or(0);
            let (value, wall) = ttft_run(binary, path, &warm_dir, threads)?;
            warm.push(value["ttft_ms"].as_f64().unwrap_or(f64::NAN));
            warm_wall.push(wall * 1e3);
            warm_evaluated = value["prompt_evaluated"].as_u64().unwrap_or(0);
        }
        let _ = std::fs::remove_dir_all(&base);
        emit(json!({
            "part": "ttft", "model": name, "threads": threads,
            "prompt_tokens": prompt_tokens,
            "prefix_tokens": prompt_tokens.saturating_sub(warm_evaluated),
            "warm_evaluated": warm_evaluated, "state_files": files.len(),
            "state_bytes": state_bytes,
            "cold_ms": median(&cold), "warm_ms": median(&warm),
            "ratio": median(&cold) / median(&warm),
            "cold_wall_ms": median(&cold_wall), "warm_wall_ms": median(&warm_wall),
            "cold_samples": cold, "warm_samples": warm,
        }));
    }
    Ok(())
}

/// Tokens decoded per run of the busy-CPU part (a slow setting decodes
/// about one token a second).
const BUSY_DECODE_TOKENS: u32 = 48;

/// `n` processes that each keep a core busy, killed when dropped.
struct Spinners(Vec<Child>);

impl Spinners {
    fn start(n: usize) -> Result<Spinners> {
        let mut children = Vec::new();
        for _ in 0..n {
            children.push(
                Command::new("sh")
                    .args(["-c", "while :; do :; done"])
                    .spawn()?,
            );
        }
        Ok(Spinners(children))
    }
}

impl Drop for Spinners {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Decode tokens/s of one turn, from its first streamed piece to its end
/// (the turn's setup — choosing threads, the one new prompt token — left
/// out).
fn decode_rate(backend: &mut LocalBackend, request: &ChatRequest) -> Result<f64> {
    let mut first: Option<Instant> = None;
    let turn = backend.chat(
        request,
        &mut |event| {
            if matches!(event, agent_core::llm::ChatEvent::Text(_)) && first.is_none() {
                first = Some(Instant::now());
            }
        },
        &CancelToken::new(),
    )?;
    let first = first.ok_or("nothing was decoded")?;
    let tokens = turn.usage.completion_tokens.saturating_sub(1).max(1);
    Ok(f64::from(tokens) / first.elapsed().as_secs_f64())
}

/// Decode speed with 0, 1, … cores kept busy by other processes: the
/// default thread choice against `threads` = every core.
fn busy(settings: &Settings) -> Result<()> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    // The short run (`cargo test --benches`) keeps every core free.
    let most_busy = if settings.full { cores } else { 0 };
    for (name, path) in &settings.models {
        for busy in 0..=most_busy {
            let spinners = Spinners::start(busy)?;
            // Let the other work settle before anything is measured.
            std::thread::sleep(Duration::from_millis(500));
            for (setting, threads) in [("default", None), ("all cores", Some(cores as u32))] {
                eprintln!("bench local: busy {name}, {busy} busy core(s), {setting}");
                let mut config = config(path, 1);
                config.load.threads = threads;
                config.turn.ignore_eog = true;
                let mut backend = LocalBackend::new(config);
                backend.load()?;
                let mut request = prefill_request(&mut backend, 128)?;
                let mut rates = Vec::new();
                for run in 0..=settings.runs {
                    backend.clear_cache();
                    request.max_tokens = 1;
                    chat(&mut backend, &request)?;
                    request.max_tokens = BUSY_DECODE_TOKENS;
                    let rate = decode_rate(&mut backend, &request)?;
                    if run > 0 {
                        rates.push(rate);
                    }
                }
                emit(json!({
                    "part": "busy", "model": name, "cores": cores, "busy_cores": busy,
                    "setting": setting, "decode_tps": median(&rates), "samples": rates,
                }));
            }
            drop(spinners);
        }
    }
    Ok(())
}

/// The machine's memory read bandwidth (every core summing its share of a
/// 512 MiB buffer, median of 5) and the decode speed it allows each model:
/// every token reads all the weights once.
fn bandwidth(settings: &Settings) -> Result<()> {
    const WORDS: usize = 64 << 20;
    let buffer: Vec<u64> = (0..WORDS as u64).collect();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut rates = Vec::new();
    for _ in 0..6 {
        let started = Instant::now();
        let total: u64 = std::thread::scope(|scope| {
            let workers: Vec<_> = buffer
                .chunks(WORDS.div_ceil(cores))
                .map(|chunk| {
                    scope
                        .spawn(move || chunk.iter().fold(0u64, |sum, word| sum.wrapping_add(*word)))
                })
                .collect();
            workers
                .into_iter()
                .map(|w| w.join().unwrap_or(0))
                .fold(0u64, u64::wrapping_add)
        });
        std::hint::black_box(total);
        rates.push((WORDS * 8) as f64 / started.elapsed().as_secs_f64());
    }
    rates.remove(0);
    let read = median(&rates);
    for (name, path) in &settings.models {
        eprintln!("bench local: bandwidth {name}");
        let weights = std::fs::metadata(path)?.len() as f64;
        let mut config = config(path, 1);
        config.load.threads = None;
        config.turn.ignore_eog = true;
        let mut backend = LocalBackend::new(config);
        backend.load()?;
        let mut request = prefill_request(&mut backend, 128)?;
        let mut decode = Vec::new();
        for run in 0..=settings.runs {
            backend.clear_cache();
            request.max_tokens = 1;
            chat(&mut backend, &request)?;
            request.max_tokens = DECODE_TOKENS;
            let rate = decode_rate(&mut backend, &request)?;
            if run > 0 {
                decode.push(rate);
            }
        }
        let limit = read / weights;
        let decode = median(&decode);
        emit(json!({
            "part": "bandwidth", "model": name, "read_gbps": read / 1e9,
            "weight_bytes": weights, "limit_tps": limit, "decode_tps": decode,
            "share": decode / limit,
        }));
    }
    Ok(())
}

/// Tokens a `pipeline` turn may take (a call with a long pipeline fits).
const PIPELINE_TOKENS: u32 = 160;

/// Decode speed and valid pipelines with the pipeline grammar on and off.
fn pipeline(settings: &Settings) -> Result<()> {
    let requests = if settings.full {
        REQUESTS
    } else {
        &REQUESTS[..3]
    };
    let dir = tempfile::tempdir()?;
    let shell = PolicyShell::new(
        Policy::default(),
        SessionSeed::new(dir.path()),
        Arc::new(NonInteractive::default()),
        ShellOptions::default(),
    )
    .map_err(|d| d.summary())?;
    let heads: Arc<[String]> =
        agent::pipeline_heads(shell.session().engine_state(), &shell.programs()).into();
    for (name, path) in &settings.models {
        let mut backend = LocalBackend::new(config(path, 1));
        backend.load()?;
        // Per setting: completion tokens, decode seconds, `nu` calls,
        // pipelines that parse with every command known, examples.
        let mut totals = [
            (0u32, 0f64, 0usize, 0usize, Vec::new()),
            (0, 0.0, 0, 0, Vec::new()),
        ];
        for prompt in requests {
            for (on, total) in [false, true].into_iter().zip(totals.iter_mut()) {
                eprintln!("bench local: pipeline {name}, grammar {on}, {prompt:?}");
                let mut request = Set::Late.request(prompt);
                request.tool_choice = ToolChoice::Required;
                request.temperature = 0.0;
                request.pipeline_grammar = on.then(|| agent::pipeline_grammar(heads.clone()));
                // The prompt into the cache first: the measured turn
                // evaluates one token, then decodes.
                request.max_tokens = 1;
                chat(&mut backend, &request)?;
                request.max_tokens = PIPELINE_TOKENS;
                let (turn, seconds) = chat(&mut backend, &request)?;
                total.0 += turn.usage.completion_tokens;
                total.1 += seconds;
                for call in turn.tool_calls.iter().filter(|c| c.name == agent::NU_TOOL) {
                    let Some(pipeline) = call.arguments.get("pipeline").and_then(Value::as_str)
                    else {
                        continue;
                    };
                    total.2 += 1;
                    // Parses, and every program it calls exists (an
                    // unknown word at a command's place is parsed as a
                    // program).
                    let (plan, _) = shell.check(pipeline);
                    let known = plan.is_some_and(|plan| {
                        plan.steps.iter().all(|step| {
                            step.name.strip_prefix('^').is_none_or(|program| {
                                program.contains('$') || shell.finds_program(program)
                            })
                        })
                    });
                    if known {
                        total.3 += 1;
                    } else if total.4.len() < 10 {
                        total
                            .4
                            .push(json!({"prompt": prompt, "pipeline": pipeline}));
                    }
                }
            }
        }
        let off_tps = f64::from(totals[0].0) / totals[0].1;
        for (on, (tokens, seconds, calls, known, examples)) in [false, true].into_iter().zip(totals)
        {
            let tps = f64::from(tokens) / seconds;
            emit(json!({
                "part": "pipeline", "model": name, "pipeline_grammar": on,
                "heads": heads.len(), "requests": requests.len(),
                "completion_tokens": tokens, "seconds": seconds, "decode_tps": tps,
                "ratio_to_off": tps / off_tps, "nu_calls": calls, "known_pipelines": known,
                "examples": examples,
            }));
        }
    }
    Ok(())
}

/// The request of the `overhead` part: the agent-like tools offered (so a
/// lazy tool-call grammar waits for a call) and a question answered in
/// prose.
fn overhead_request() -> ChatRequest {
    let mut request = ChatRequest::new(
        vec![
            Message::system(SYSTEM),
            Message::user(
                "Without running anything, explain in detail how a Unix shell runs a pipeline of three commands.",
            ),
        ],
        tools(),
    );
    request.temperature = 0.0;
    request
}

/// One llama-bench text-generation run (`-p 0 -n tokens -d depth`, one
/// repetition after its warm-up): tokens/s.
fn llama_bench_tg(
    binary: &Path,
    model: &Path,
    threads: u32,
    depth: usize,
    tokens: u32,
) -> Result<f64> {
    let output = Command::new(binary)
        .arg("-m")
        .arg(model)
        .args([
            "-p",
            "0",
            "-n",
            &tokens.to_string(),
            "-d",
            &depth.to_string(),
        ])
        .args(["-t", &threads.to_string(), "-b", &N_BATCH.to_string()])
        .args(["-ub", &N_BATCH.to_string(), "-ngl", "0", "-fa", "auto"])
        .args(["-r", "1", "-o", "json"])
        .stderr(Stdio::null())
        .output()?;
    if !output.status.success() {
        return Err(format!("{} failed: {}", binary.display(), output.status).into());
    }
    let value: Value = serde_json::from_slice(&output.stdout)?;
    value[0]["avg_ts"]
        .as_f64()
        .ok_or_else(|| "llama-bench gave no avg_ts".into())
}

/// The per-token path: decode tokens/s of our generation loop (greedy,
/// end-of-generation banned, the sampler chain, loop guard, stream
/// splitter and detokenizing all in) with the tool-call grammar off and
/// on (lazy, waiting for a call), the time per token spent outside
/// `llama_decode`, and llama.cpp's llama-bench (`tg`, same libraries,
/// threads, batch, flash attention, depth = our prompt) — runs alternated
/// ours (off), ours (on), llama-bench, … and the median of each taken.
fn overhead(settings: &Settings) -> Result<()> {
    let llama_bench = settings.llama_bench.as_ref();
    if llama_bench.is_none() {
        eprintln!("bench local: BENCH_LOCAL_LLAMA_BENCH unset, llama-bench skipped");
    }
    let tokens = if settings.full { DECODE_TOKENS } else { 16 };
    for (name, path) in &settings.models {
        for &threads in &settings.threads {
            let mut config = config(path, threads);
            config.turn.ignore_eog = true;
            let mut backend = LocalBackend::new(config);
            backend.load()?;
            let mut request = overhead_request();
            let depth = backend.prompt_tokens(&request)?.len();
            // Per setting (grammar off, on): tokens/s, median ms outside
            // decode per token, share of the step outside decode, tokens.
            let mut ours: [Vec<(f64, f64, f64, u32)>; 2] = [Vec::new(), Vec::new()];
            let mut theirs = Vec::new();
            for run in 0..=settings.runs {
                let record = run > 0;
                for (grammar, samples) in [false, true].into_iter().zip(ours.iter_mut()) {
                    eprintln!(
                        "bench local: overhead {name}, {threads} thread(s), grammar {grammar}, run {run}"
                    );
                    backend.turn_options_mut().grammar = grammar;
                    backend.clear_cache();
                    request.max_tokens = 1;
                    chat(&mut backend, &request)?;
                    request.max_tokens = tokens;
                    let (turn, _) = chat(&mut backend, &request)?;
                    let timing = backend.last_timing();
                    let steps: f64 = timing.steps.iter().map(Duration::as_secs_f64).sum();
                    let outside: Vec<f64> =
                        timing.outside().map(|d| d.as_secs_f64() * 1e3).collect();
                    let n = timing.steps.len();
                    if record && n > 0 {
                        samples.push((
                            n as f64 / steps,
                            median(&outside),
                            outside.iter().sum::<f64>() / 1e3 / steps,
                            turn.usage.completion_tokens,
                        ));
                    }
                }
                if let Some(binary) = llama_bench {
                    eprintln!(
                        "bench local: overhead {name}, {threads} thread(s), llama-bench, run {run}"
                    );
                    let rate = llama_bench_tg(binary, path, threads, depth, tokens)?;
                    if record {
                        theirs.push(rate);
                    }
                }
            }
            let column = |samples: &Vec<(f64, f64, f64, u32)>,
                          pick: fn(&(f64, f64, f64, u32)) -> f64| {
                median(&samples.iter().map(pick).collect::<Vec<_>>())
            };
            let reference = if theirs.is_empty() {
                None
            } else {
                Some(median(&theirs))
            };
            let mut line = json!({
                "part": "overhead", "model": name, "threads": threads, "depth": depth,
                "tokens": tokens, "n_ctx": N_CTX, "n_batch": N_BATCH,
                "llama_bench_tps": reference, "llama_bench_samples": theirs,
            });
            for (label, samples) in [("off", &ours[0]), ("on", &ours[1])] {
                let tps = column(samples, |s| s.0);
                line[format!("grammar_{label}_tps")] = json!(tps);
                line[format!("grammar_{label}_ratio")] = json!(reference.map(|r| tps / r));
                line[format!("grammar_{label}_outside_ms")] = json!(column(samples, |s| s.1));
                line[format!("grammar_{label}_outside_share")] = json!(column(samples, |s| s.2));
                line[format!("grammar_{label}_tokens")] = json!(samples.iter().map(|s| s.3).min());
                line[format!("grammar_{label}_samples")] =
                    json!(samples.iter().map(|s| s.0).collect::<Vec<_>>());
            }
            emit(line);
        }
    }
    Ok(())
}

fn main() -> Result<()> {
    let settings = settings();
    if settings.models.is_empty() {
        eprintln!("bench local: no model (run nu-scripts/fetch-test-model.sh)");
        return Ok(());
    }
    for part in &settings.parts {
        match part.as_str() {
            "speed" => speed(&settings)?,
            "episode" => episode(&settings)?,
            "validity" => validity(&settings)?,
            "ttft" => ttft(&settings)?,
            "busy" => busy(&settings)?,
            "bandwidth" => bandwidth(&settings)?,
            "pipeline" => pipeline(&settings)?,
            "overhead" => overhead(&settings)?,
            other => eprintln!("bench local: unknown part {other:?}"),
        }
    }
    Ok(())
}
