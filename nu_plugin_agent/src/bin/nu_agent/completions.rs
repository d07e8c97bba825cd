//! `nu-agent completions <shell>`: print the completion script clap writes
//! for bash, zsh or fish.

use std::process::ExitCode;

use crate::{Cli, CompletionShell, broken_pipe::write_stdout};

impl From<CompletionShell> for clap_complete::Shell {
    fn from(shell: CompletionShell) -> clap_complete::Shell {
        match shell {
            CompletionShell::Bash => clap_complete::Shell::Bash,
            CompletionShell::Zsh => clap_complete::Shell::Zsh,
            CompletionShell::Fish => clap_complete::Shell::Fish,
        }
    }
}

/// Write the script for `shell` on stdout.
pub fn completions(shell: CompletionShell) -> ExitCode {
    let mut command = <Cli as clap::CommandFactory>::command();
    let mut script = Vec::new();
    clap_complete::generate(
        clap_complete::Shell::from(shell),
        &mut command,
        "nu-agent",
        &mut script,
    );
    match write_stdout(&script) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("nu-agent: cannot write the completions: {e}");
            ExitCode::FAILURE
        }
    }
}
