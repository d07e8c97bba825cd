//! The base engine every session clones.

use std::{
    path::Path,
    sync::{Arc, OnceLock},
};

use nu_protocol::{
    Config, UseAnsiColoring,
    engine::{Command, EngineState, StateWorkingSet},
};

use super::{
    Diagnostic, Outcome,
    print::{Print, PrintSink},
};

/// Name of the variable that holds every run's full value (`$out.N`).
pub(crate) const OUT_VARIABLE: &str = "out";

/// A configured Nushell engine: the language, nu-command's builtins, plain
/// text (no ANSI), and externals that never see a terminal.
#[derive(Clone)]
pub struct Engine {
    state: EngineState,
    hooks: Option<Arc<dyn RunHooks>>,
}

/// Checks around every run of a session on an engine (the policy's runtime
/// layer plugs in here).
pub trait RunHooks: Send + Sync {
    /// Before `source` is evaluated in `cwd`; an error stops the run before
    /// anything runs.
    fn before_run(&self, engine: &EngineState, source: &str, cwd: &Path) -> Result<(), Diagnostic>;

    /// After the run; may turn a run that went on past a refused step into
    /// an error.
    fn after_run(&self, outcome: &mut Outcome);
}

impl Engine {
    /// The process-wide standard engine, built on first use.
    pub fn standard() -> &'static Engine {
        static STANDARD: OnceLock<Engine> = OnceLock::new();
        STANDARD.get_or_init(|| Engine::with_commands(Vec::new()))
    }

    /// A standard engine with extra commands registered last, so a command
    /// with the name of a builtin shadows it.
    pub fn with_commands(extra: Vec<Box<dyn Command>>) -> Engine {
        let state = nu_cmd_lang::create_default_context();
        let mut state = nu_command::add_shell_command_context(state);
        // `http` with rustls needs a process-wide crypto provider.
        let _ = nu_command::tls::CRYPTO_PROVIDER.default();

        let mut config = Config::clone(state.get_config());
        config.use_ansi_coloring = UseAnsiColoring::False;
        config.show_banner = nu_protocol::BannerKind::None;
        // `rm` moves to the trash unless asked otherwise (`rm --permanent`).
        config.rm.always_trash = true;
        state.set_config(config);
        // `$nu.config-path` and friends name the user's real nu files, so
        // the policy sees a write to them for what it is.
        if let Ok((dirs, _warnings)) =
            nu_config::resolve_paths(&nu_config::SystemEnv, &nu_config::CliOverrides::default())
        {
            state.config_dirs = dirs;
        }
        state.generate_nu_constant();
        // Externals get a null stdin and their own session (setsid): no
        // terminal reads, no password prompts, and a process group we can kill.
        state.is_mcp = true;

        let mut working_set = StateWorkingSet::new(&state);
        // A `print` that has nowhere to write until a session gives it a sink.
        working_set.add_decl(Box::new(Print::new(PrintSink::default())));
        for command in extra {
            working_set.add_decl(command);
        }
        // Declare `$out` in the top-level scope; each session's stack holds
        // its value.
        let source = format!("let {OUT_VARIABLE} = []");
        let _ = nu_parser::parse(
            &mut working_set,
            Some("agent-init"),
            source.as_bytes(),
            false,
        );
        let delta = working_set.render();
        if let Err(err) = state.merge_delta(delta) {
            // Merging a delta of known-good declarations cannot fail; keep
            // the engine usable (without `$out`) if it ever does.
            eprintln!("nu-agent: engine setup: {err}");
        }
        Engine { state, hooks: None }
    }

    /// This engine with `hooks` around every run of its sessions.
    pub fn with_hooks(mut self, hooks: Arc<dyn RunHooks>) -> Engine {
        self.hooks = Some(hooks);
        self
    }

    /// The hooks around every run, if any.
    pub fn hooks(&self) -> Option<&Arc<dyn RunHooks>> {
        self.hooks.as_ref()
    }

    /// This engine with `rm` moving files to the trash (`true`, the
    /// default) or deleting them.
    pub fn with_trash(mut self, trash: bool) -> Engine {
        let mut config = Config::clone(self.state.get_config());
        config.rm.always_trash = trash;
        self.state.set_config(config);
        self
    }

    /// The underlying nu engine state.
    pub fn state(&self) -> &EngineState {
        &self.state
    }

    /// The user's nu directories: config (with the plugin registry and the
    /// autoload dirs), data, and the vendor autoload dirs.
    pub fn nu_dirs(&self) -> Vec<std::path::PathBuf> {
        let dirs = &self.state.config_dirs;
        let mut out = vec![dirs.config_home.clone(), dirs.data_home.clone()];
        out.extend(dirs.user_autoload_dirs.iter().cloned());
        out.extend(dirs.vendor_autoload_dirs.iter().cloned());
        out.retain(|p| !p.as_os_str().is_empty());
        out
    }
}
