//! `nu-agent`: the agent's engine from any shell, without a nu host.

use std::{
    io::{IsTerminal, Write},
    path::PathBuf,
    process::ExitCode,
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::Duration,
};

use agent_core::{
    config::AgentConfig,
    llm::{
        Catalog, DownloadError, GpuReport, ModelSettings, PullError, catalog_entry, describe,
        list_models, pull,
    },
    observe::{Budget, render_outcome},
    policy::{
        Approver, Judge, Layers, NonInteractive, Policy, PolicyShell, ShellOptions, check,
        facts_for,
        sandbox::{self, SandboxMode, WORKER_ARG},
        worker_engine,
    },
    shell::{
        CancelToken, Engine, Limits, Session, SessionSeed, StopReason, humanize_bytes, parse_size,
    },
    ui::TerminalApprover,
};
use clap::{Args, Parser, Subcommand};
use nu_plugin_agent::model_report::{
    PullProgress, info_value, pulled_value, rows_value, settings_value,
};
use nu_protocol::{Span, Value};

#[path = "nu_agent/ask.rs"]
mod ask;

/// Exit code of a run stopped by its time limit (as `timeout(1)`).
const EXIT_TIMED_OUT: u8 = 124;
/// Exit code of a pipeline that failed to parse or run.
const EXIT_FAILED: u8 = 1;
/// Exit code after Ctrl+C.
const EXIT_INTERRUPTED: u8 = 130;

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
        /// Most output kept from one stream, e.g. 200MiB or 1GB (default:
        /// agent.max_output, 64 MiB); past it the run is cut.
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
    Policy {
        #[command(subcommand)]
        command: PolicyCommand,
    },
    /// The models: list them, show one, pull one from the hub.
    Model {
        #[command(subcommand)]
        command: ModelCommand,
    },
    /// The configuration file.
    Config {
        #[command(subcommand)]
        command: ConfigCommand,
    },
    /// Print a completion script for a shell, e.g.
    /// `nu-agent completions bash > ~/.local/share/bash-completion/completions/nu-agent`.
    Completions {
        /// bash, zsh or fish.
        shell: CompletionShell,
    },
}

#[derive(Subcommand)]
enum ConfigCommand {
    /// Write a commented configuration file holding every key with its
    /// default (to --config FILE, else $NU_AGENT_CONFIG, else
    /// ~/.config/nu-agent/config.nuon); an existing file is never replaced.
    Init,
}

/// The shells `nu-agent completions` writes scripts for.
#[derive(Clone, Copy, clap::ValueEnum)]
enum CompletionShell {
    Bash,
    Zsh,
    Fish,
}

impl From<CompletionShell> for clap_complete::Shell {
    fn from(shell: CompletionShell) -> clap_complete::Shell {
        match shell {
            CompletionShell::Bash => clap_complete::Shell::Bash,
            CompletionShell::Zsh => clap_complete::Shell::Zsh,
            CompletionShell::Fish => clap_complete::Shell::Fish,
        }
    }
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
    /// the model directory, with progress, resume and a checksum.
    Pull {
        /// A catalog model name, e.g. qwen3-1.7b.
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
    /// Approve steps matching this pattern, e.g. '^git push *' (repeatable).
    #[arg(long, value_name = "GLOB")]
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
    let cli = Cli::parse();
    // Neither reads the configuration: `config init` may be what creates it.
    match cli.command {
        Command::Config {
            command: ConfigCommand::Init,
        } => return config_init(cli.config),
        Command::Completions { shell } => {
            let mut command = <Cli as clap::CommandFactory>::command();
            clap_complete::generate(
                clap_complete::Shell::from(shell),
                &mut command,
                "nu-agent",
                &mut std::io::stdout(),
            );
            return ExitCode::SUCCESS;
        }
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
            let output = Output {
                json,
                observe,
                budget,
            };
            let mut limits = Limits::default()
                .with_max_output_bytes(max_output.unwrap_or(config.agent.max_output));
            if let Some(timeout) = timeout {
                limits = limits.with_timeout(timeout);
            }
            run(&pipeline, policy, &approval, layers, &limits, &output)
        }
        Command::Policy { command } => match command {
            PolicyCommand::Check {
                pipeline,
                json,
                overrides,
            } => match overrides.apply(config.policy) {
                Ok(policy) => policy_check(&pipeline, policy, json),
                Err(message) => {
                    eprintln!("nu-agent: {message}");
                    ExitCode::from(EXIT_FAILED)
                }
            },
            PolicyCommand::Show { json } => policy_show(&config.policy, json),
        },
        Command::Model { command } => model(command, config.model),
        Command::Config { .. } | Command::Completions { .. } => ExitCode::SUCCESS,
    }
}

/// `nu-agent config init`: the commented template, never over a file.
fn config_init(path: Option<PathBuf>) -> ExitCode {
    let Some(path) = path.or_else(AgentConfig::default_path) else {
        eprintln!(
            "nu-agent: no configuration path: HOME is not set; pass --config FILE or set NU_AGENT_CONFIG"
        );
        return ExitCode::from(EXIT_FAILED);
    };
    match agent_core::config::write_template(&path) {
        Ok(()) => {
            println!("{}", path.display());
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("nu-agent: {error}");
            ExitCode::from(EXIT_FAILED)
        }
    }
}

/// `nu-agent model ...`: the plugin's `agent model` records, printed as
/// nu's table or as JSON.
fn model(command: ModelCommand, settings: ModelSettings) -> ExitCode {
    let lookup = |name: &str| std::env::var_os(name);
    let settings = settings.with_env(&lookup);
    let catalog = Catalog::builtin();
    let span = Span::unknown();
    let dir = match settings.model_dir(&lookup) {
        Ok(dir) => dir,
        Err(error) => {
            eprintln!("nu-agent: {error}");
            return ExitCode::from(EXIT_FAILED);
        }
    };
    let (value, json) = match command {
        ModelCommand::List { json } => {
            // No model is ever resident in this process.
            let rows = list_models(&dir, &catalog, None);
            for row in &rows {
                if let Some(error) = &row.error {
                    eprintln!("nu-agent: warning: {error}");
                }
            }
            (rows_value(&rows, span), json)
        }
        ModelCommand::Info { name, json } => {
            let choice = settings.model_choice(&lookup, &catalog);
            let model_name = choice.model.clone();
            let chosen_because = match &name {
                Some(_) => "named on the command line".to_string(),
                None => choice.reason,
            };
            let facts = match describe(&dir, &catalog, name.as_deref().unwrap_or(&model_name)) {
                Ok(facts) => facts,
                Err(error) => {
                    eprintln!("nu-agent: {error}");
                    return ExitCode::from(EXIT_FAILED);
                }
            };
            let backend = settings_value(&settings, &model_name, &settings.hub_url(&lookup), span);
            (
                info_value(
                    &facts,
                    None,
                    &GpuReport::detect(),
                    backend,
                    Some(&chosen_because),
                    span,
                ),
                json,
            )
        }
        ModelCommand::Pull { name, json } => {
            let name = name.unwrap_or_else(|| ModelSettings::default_entry(&catalog).name.clone());
            let entry = match catalog_entry(&catalog, &name) {
                Ok(entry) => entry,
                Err(error) => {
                    eprintln!("nu-agent: {error}");
                    return ExitCode::from(EXIT_FAILED);
                }
            };
            let cancel = cancel_on_ctrl_c();
            let mut bar = PullProgress::new(&entry.name);
            let result = pull(
                entry,
                &settings.hub_url(&lookup),
                dir.path(),
                &mut |progress| bar.update(progress),
                &cancel,
            );
            bar.finish();
            match result {
                Ok(pulled) => (pulled_value(&pulled, span), json),
                Err(error) => {
                    eprintln!("nu-agent: model pull {}: {error}", entry.name);
                    if matches!(error, PullError::Download(DownloadError::Cancelled { .. })) {
                        eprintln!(
                            "nu-agent: run `nu-agent model pull {}` again to resume",
                            entry.name
                        );
                        return ExitCode::from(EXIT_INTERRUPTED);
                    }
                    return ExitCode::from(EXIT_FAILED);
                }
            }
        }
    };
    print_value(&value, json)
}

/// Print `value` as nu's table, or as JSON.
fn print_value(value: &Value, json: bool) -> ExitCode {
    let seed = match SessionSeed::from_process() {
        Ok(seed) => seed,
        Err(err) => {
            eprintln!("nu-agent: cannot read the current directory: {err}");
            return ExitCode::from(EXIT_FAILED);
        }
    };
    let session = match Session::new(Engine::standard(), seed) {
        Ok(session) => session,
        Err(diagnostic) => {
            eprintln!("{}", diagnostic.rendered);
            return ExitCode::from(EXIT_FAILED);
        }
    };
    let text = if json {
        session.pipe_value(value.clone(), "to json --indent 2")
    } else {
        render_for_terminal(&session, value)
    };
    match text {
        Ok(text) => {
            let mut stdout = std::io::stdout().lock();
            let _ = stdout.write_all(text.as_bytes());
            if !text.is_empty() && !text.ends_with('\n') {
                let _ = stdout.write_all(b"\n");
            }
            ExitCode::SUCCESS
        }
        Err(diagnostic) => {
            eprintln!("{}", diagnostic.rendered);
            ExitCode::from(EXIT_FAILED)
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

/// How `run` prints.
struct Output {
    json: bool,
    observe: bool,
    budget: usize,
}

/// The approver for this call: the terminal when a person is there,
/// otherwise (or with --yes / --approve) the non-interactive rules.
fn approver(flags: &ApprovalFlags) -> Arc<dyn Approver> {
    let scripted = flags.yes || !flags.approve.is_empty();
    if !scripted
        && std::io::stdin().is_terminal()
        && let Some(terminal) = TerminalApprover::open()
    {
        return Arc::new(terminal);
    }
    Arc::new(NonInteractive {
        yes: flags.yes,
        approve: flags.approve.clone(),
    })
}

fn run(
    pipeline: &str,
    policy: Policy,
    approval: &ApprovalFlags,
    layers: Layers,
    limits: &Limits,
    output: &Output,
) -> ExitCode {
    let seed = match SessionSeed::from_process() {
        Ok(seed) => seed,
        Err(err) => {
            eprintln!("nu-agent: cannot read the current directory: {err}");
            return ExitCode::from(EXIT_FAILED);
        }
    };
    let audit = PolicyShell::audit_log(&seed);
    let options = ShellOptions {
        layers,
        // /proc/self/exe still works when the binary was replaced on disk
        // (a rebuild) while this process runs.
        worker_exe: Some(PathBuf::from("/proc/self/exe"))
            .filter(|p| p.exists())
            .or_else(|| std::env::current_exe().ok()),
        hook: None,
        audit,
        ..ShellOptions::default()
    };
    let mut shell = match PolicyShell::new(policy, seed, approver(approval), options) {
        Ok(shell) => shell,
        Err(diagnostic) => {
            eprintln!("{}", diagnostic.rendered);
            return ExitCode::from(EXIT_FAILED);
        }
    };
    let cancel = cancel_on_ctrl_c();
    let ran = shell.run(pipeline, limits, &cancel);
    let outcome = &ran.outcome;
    let session = shell.session();

    let mut stdout = std::io::stdout().lock();
    if output.observe {
        let _ = writeln!(
            stdout,
            "{}",
            render_outcome(outcome, &Budget::approx(output.budget))
        );
        return exit_code(&outcome.stopped, outcome.error.is_some(), outcome.exit_code);
    }
    if let Some(diagnostic) = &outcome.error {
        eprintln!("{}", diagnostic.rendered);
    } else {
        let text = if output.json {
            session.pipe_value(outcome.value.clone(), "to json --indent 2")
        } else {
            render_for_terminal(session, &outcome.value)
        };
        match text {
            Ok(text) => {
                let _ = stdout.write_all(text.as_bytes());
                if !text.is_empty() && !text.ends_with('\n') {
                    let _ = stdout.write_all(b"\n");
                }
            }
            Err(diagnostic) => {
                eprintln!("{}", diagnostic.rendered);
                return ExitCode::from(EXIT_FAILED);
            }
        }
    }
    if let Some(Value::String { val, .. }) = &outcome.stderr {
        eprint!("{val}");
    }
    match &outcome.stopped {
        Some(StopReason::OutputCapped(bytes)) => eprintln!(
            "nu-agent: output cut at {}; raise it with --max-output",
            humanize_bytes(*bytes)
        ),
        Some(stopped) => eprintln!("nu-agent: {stopped}"),
        None => {}
    }
    exit_code(&outcome.stopped, outcome.error.is_some(), outcome.exit_code)
}

/// `nu-agent policy check`: the plan and verdicts, nothing runs.
fn policy_check(pipeline: &str, policy: Policy, json: bool) -> ExitCode {
    let cwd = match std::env::current_dir() {
        Ok(cwd) => cwd,
        Err(err) => {
            eprintln!("nu-agent: cannot read the current directory: {err}");
            return ExitCode::from(EXIT_FAILED);
        }
    };
    let facts = facts_for(&policy, &cwd);
    let judge = Judge {
        policy: &policy,
        facts: &facts,
        sandbox_enforced: policy.sandbox != SandboxMode::Off && sandbox::probe().can_sandbox(),
        session_allow: &[],
    };
    let decision = check(Engine::standard().state(), &judge, pipeline);
    if json {
        let value = serde_json::json!({
            "pipeline": pipeline,
            "verdict": decision.verdict,
            "rows": decision.rows,
        });
        println!("{value}");
    } else {
        println!("verdict: {}", decision.verdict);
        for row in &decision.rows {
            let targets = if row.targets.is_empty() {
                String::new()
            } else {
                format!(" → {}", row.targets.join(", "))
            };
            println!(
                "  {:<7} {:<10} {}{targets}\n          {} ({})",
                row.verdict, row.category, row.command, row.reason, row.rule
            );
        }
    }
    ExitCode::SUCCESS
}

/// `nu-agent policy show`.
fn policy_show(policy: &Policy, json: bool) -> ExitCode {
    let protections = sandbox::probe();
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let (external_sandbox, external_sandbox_note) =
        sandbox::external_sandbox_status(policy.external_sandbox);
    let value = serde_json::json!({
        "mode": policy.mode,
        "sandbox": policy.sandbox,
        "sandbox_enforced": policy.sandbox != SandboxMode::Off && protections.can_sandbox(),
        "network": policy.network,
        "external_sandbox": external_sandbox,
        "external_sandbox_note": external_sandbox_note,
        "writable": policy.writable_roots(&cwd, home.as_deref()),
        "protect": policy.protect,
        "allow": policy.allow,
        "confirm": policy.confirm,
        "block": policy.block,
        "env": policy.env,
        "trash": policy.trash,
        "password_ttl_secs": policy.password_ttl.as_secs(),
        "protections": protections.to_string(),
    });
    if json {
        println!("{value}");
    } else if let Ok(text) = serde_json::to_string_pretty(&value) {
        println!("{text}");
    }
    ExitCode::SUCCESS
}

/// Strings and raw bytes print as they are; structured values as nu's table.
fn render_for_terminal(
    session: &Session,
    value: &Value,
) -> Result<String, agent_core::shell::Diagnostic> {
    match value {
        Value::String { val, .. } => Ok(val.clone()),
        Value::Nothing { .. } => Ok(String::new()),
        Value::Binary { val, .. } if !std::io::stdout().is_terminal() => {
            let _ = std::io::stdout().write_all(val);
            Ok(String::new())
        }
        other => {
            let width = terminal_width();
            session.pipe_value(other.clone(), &format!("table --width {width}"))
        }
    }
}

fn terminal_width() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(if std::io::stdout().is_terminal() {
            120
        } else {
            200
        })
}

fn exit_code(stopped: &Option<StopReason>, failed: bool, external: Option<i32>) -> ExitCode {
    match stopped {
        Some(StopReason::TimedOut(_)) => return ExitCode::from(EXIT_TIMED_OUT),
        Some(StopReason::Cancelled) => return ExitCode::from(EXIT_INTERRUPTED),
        Some(StopReason::Panicked(_) | StopReason::Abandoned) => {
            return ExitCode::from(EXIT_FAILED);
        }
        _ => {}
    }
    if let Some(code) = external.filter(|c| *c != 0) {
        return ExitCode::from(u8::try_from(code.clamp(1, 255)).unwrap_or(EXIT_FAILED));
    }
    if failed {
        ExitCode::from(EXIT_FAILED)
    } else {
        ExitCode::SUCCESS
    }
}

/// `200MiB`, `64MB`, `1GiB`, or plain bytes.
fn parse_max_output(text: &str) -> Result<usize, String> {
    parse_size(text).map_err(|e| e.to_string())
}

/// `500ms`, `30s`, `2m`, `1h`, or plain seconds.
fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: f64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a duration (try 500ms, 30s, 2m)"))?;
    let seconds = match unit.trim() {
        "" | "s" | "sec" => number,
        "ms" => number / 1000.0,
        "m" | "min" => number * 60.0,
        "h" | "hr" => number * 3600.0,
        other => {
            return Err(format!(
                "unknown duration unit `{other}` (use ms, s, m or h)"
            ));
        }
    };
    Duration::try_from_secs_f64(seconds)
        .map_err(|_| format!("`{text}` is not a positive duration of a sensible size"))
}

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_sigint(_: libc::c_int) {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// A token cancelled by Ctrl+C (SIGINT).
fn cancel_on_ctrl_c() -> CancelToken {
    let token = CancelToken::new();
    // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, on_sigint as *const () as libc::sighandler_t);
    }
    let watcher = token.clone();
    std::thread::spawn(move || {
        loop {
            if INTERRUPTED.load(Ordering::SeqCst) {
                watcher.cancel();
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    });
    token
}
