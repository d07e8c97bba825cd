//! Helpers for end-to-end tests: find the real `nu` host and the built
//! binaries, and run them.

use std::{
    path::{Path, PathBuf},
    process::{Command, Output},
};

pub mod redteam;
pub mod redteam_forms;
pub mod replay;
pub mod tmux;

/// The nu minor version the plugin speaks.
pub const NU_VERSION_PREFIX: &str = "0.115.";

/// The real `nu` host: `$NU_AGENT_TEST_NU`, the cached host that `.ci/run`
/// and the quick start install, or `nu` on PATH — whichever is 0.115.x.
pub fn nu_binary() -> PathBuf {
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Ok(path) = std::env::var("NU_AGENT_TEST_NU") {
        candidates.push(path.into());
    }
    if let Some(home) = std::env::var_os("HOME") {
        candidates.push(Path::new(&home).join(".cache/nu-agent/nu-0.115.1/nu"));
    }
    candidates.push("nu".into());
    for candidate in &candidates {
        if let Ok(out) = Command::new(candidate).arg("--version").output()
            && String::from_utf8_lossy(&out.stdout)
                .trim()
                .starts_with(NU_VERSION_PREFIX)
        {
            return candidate.clone();
        }
    }
    panic!(
        "no nu {NU_VERSION_PREFIX}x host found (tried {candidates:?}); run `nu-scripts/install-nu.sh` or set NU_AGENT_TEST_NU"
    );
}

/// A binary of this workspace, next to the test executable's target dir.
pub fn workspace_binary(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    // target/<profile>/deps/<test> -> target/<profile>/<name>
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("test executable in target/<profile>/deps");
    let path = profile_dir.join(name);
    assert!(
        path.exists(),
        "{} is not built; run `cargo test --workspace` (it builds every binary)",
        path.display()
    );
    path
}

/// Run `nu` with no config files in `cwd`.
pub fn nu(cwd: &Path, script: &str) -> Output {
    nu_env(cwd, script, &[])
}

/// Run `nu` with no config files in `cwd`, with `env` added.
pub fn nu_env(cwd: &Path, script: &str, env: &[(&str, &str)]) -> Output {
    Command::new(nu_binary())
        .arg("--no-config-file")
        .arg("--commands")
        .arg(script)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .envs(env.iter().copied())
        .output()
        .expect("run nu")
}

/// Register the plugin binary in a private registry file; returns the file.
pub fn register_plugin(dir: &Path) -> PathBuf {
    let registry = dir.join("plugins.msgpackz");
    let plugin = workspace_binary("nu_plugin_agent");
    let add = nu(
        dir,
        &format!(
            "plugin add --plugin-config '{}' '{}'",
            registry.display(),
            plugin.display()
        ),
    );
    stdout_of(&add);
    registry
}

/// Run `script` in nu after `plugin use agent` from `registry`.
pub fn nu_with_agent(registry: &Path, cwd: &Path, script: &str) -> Output {
    nu(
        cwd,
        &format!(
            "plugin use --plugin-config '{}' agent; {script}",
            registry.display()
        ),
    )
}

/// [`nu_with_agent`] with `env` added to nu's environment.
pub fn nu_with_agent_env(
    registry: &Path,
    cwd: &Path,
    script: &str,
    env: &[(&str, &str)],
) -> Output {
    nu_env(
        cwd,
        &format!(
            "plugin use --plugin-config '{}' agent; {script}",
            registry.display()
        ),
        env,
    )
}

/// stdout of a successful command, or a panic showing its stderr.
pub fn stdout_of(output: &Output) -> String {
    assert!(
        output.status.success(),
        "command failed ({}):\nstdout: {}\nstderr: {}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}
