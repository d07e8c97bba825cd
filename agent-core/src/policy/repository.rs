//! Which repository's configuration git obeys where it runs, and which
//! toolchain a rustup proxy (`cargo`, `rustc`, `rustup`) runs there.
//!
//! A repository's configuration names programs git runs for a read
//! (`diff.external`, textconv drivers, `core.fsmonitor`,
//! `tar.<format>.command`, a pager). The session's own repository is the
//! user's; any other — a bare-layout directory a project committed
//! (`x.git/` with `HEAD`, `config`, `objects`), a tree unpacked from an
//! archive with its `.git` — may have been written by someone else, so git
//! run there asks. Asking is an allowlist of one repository; pinning the
//! dangerous keys off would be a list of denied keys that the next git
//! release can outgrow.

use std::path::{Path, PathBuf};

/// The git directory git would use when started in `dir`, found as git
/// finds it (the nearest `.git` above, or a directory that is itself a
/// git directory), with whether it has the bare layout. `None` when `dir`
/// is in no repository.
pub fn git_dir_of(dir: &Path) -> Option<(PathBuf, bool)> {
    let start = dir.canonicalize().ok()?;
    for d in start.ancestors() {
        let dot_git = d.join(".git");
        if dot_git.is_dir() {
            return Some((dot_git.canonicalize().unwrap_or(dot_git), false));
        }
        if dot_git.is_file() {
            // A gitfile (`gitdir: <path>`, worktrees and submodules).
            let text = std::fs::read_to_string(&dot_git).ok()?;
            let target = text.trim().strip_prefix("gitdir:")?.trim();
            let target = d.join(target);
            return Some((target.canonicalize().unwrap_or(target), false));
        }
        if is_git_directory(d) {
            return Some((d.to_path_buf(), true));
        }
    }
    None
}

/// git's own test: `HEAD` and the `objects` and `refs` directories.
fn is_git_directory(dir: &Path) -> bool {
    dir.join("HEAD").is_file() && dir.join("objects").is_dir() && dir.join("refs").is_dir()
}

/// Why running git in `dir` obeys configuration other than the session's
/// own repository `session` (`None` when it is the same repository, or
/// no repository at all).
pub fn foreign_repository(dir: &Path, session: Option<&Path>) -> Option<String> {
    let (git_dir, bare) = git_dir_of(dir)?;
    if session.is_some_and(|own| own == git_dir) {
        return None;
    }
    let what = if bare {
        "a bare-layout directory"
    } else {
        "another repository than the session's"
    };
    Some(format!(
        "runs git in {} ({what}), whose configuration can name programs git runs (diff drivers, textconv, fsmonitor)",
        git_dir.display()
    ))
}

/// The programs rustup puts on PATH as proxies: each runs the toolchain
/// the nearest `rust-toolchain.toml` names, even for `--version`.
pub const RUSTUP_PROXIES: &[&str] = &["cargo", "rustc", "rustdoc", "rustup"];

/// Why a rustup proxy started in `dir` would run a toolchain the project
/// points at by path (`[toolchain] path = "..."` in the nearest
/// `rust-toolchain.toml` or `rust-toolchain`): that directory's `rustc`
/// is any program. A channel name is the user's own toolchain.
pub fn toolchain_override(dir: &Path) -> Option<String> {
    let start = dir.canonicalize().ok()?;
    for d in start.ancestors() {
        for name in ["rust-toolchain.toml", "rust-toolchain"] {
            let file = d.join(name);
            let Ok(text) = std::fs::read_to_string(&file) else {
                continue;
            };
            let names_a_path = text.lines().any(|line| {
                let line = line.trim();
                line.strip_prefix("path")
                    .is_some_and(|rest| rest.trim_start().starts_with('='))
            });
            // rustup stops at the nearest file.
            return names_a_path.then(|| {
                format!(
                    "{} names a toolchain by path, whose programs rustup would run",
                    file.display()
                )
            });
        }
    }
    None
}

/// Why cargo started in `dir` loads configuration the project wrote: a
/// `.cargo/config.toml` (or `.cargo/config`) in `dir` or above it, other
/// than the user's own in `cargo_home`. It can name a `rustc-wrapper` or
/// `rustc` that `cargo tree` and `cargo metadata` run.
pub fn cargo_configuration(dir: &Path, cargo_home: Option<&Path>) -> Option<String> {
    let start = dir.canonicalize().ok()?;
    let own = cargo_home.and_then(|h| h.canonicalize().ok());
    for d in start.ancestors() {
        let cargo_dir = d.join(".cargo");
        if own.as_deref() == Some(cargo_dir.as_path()) {
            continue;
        }
        for name in ["config.toml", "config"] {
            let file = cargo_dir.join(name);
            if file.is_file() {
                return Some(format!(
                    "cargo loads {}, which can name a program for it to run (a rustc-wrapper)",
                    file.display()
                ));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_session_repository_is_its_own_and_a_bare_layout_is_foreign() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().canonicalize().unwrap();
        for sub in [
            ".git/objects",
            ".git/refs",
            "src",
            "x.git/objects",
            "x.git/refs/heads",
        ] {
            std::fs::create_dir_all(ws.join(sub)).unwrap();
        }
        std::fs::write(ws.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::write(ws.join("x.git/HEAD"), "ref: refs/heads/main\n").unwrap();
        let own = git_dir_of(&ws).map(|(g, _)| g);
        assert_eq!(own, Some(ws.join(".git")));
        let own = own.as_deref();
        assert_eq!(foreign_repository(&ws.join("src"), own), None);
        // Inside its own git directory: still its own configuration.
        assert_eq!(foreign_repository(&ws.join(".git"), own), None);
        let why = foreign_repository(&ws.join("x.git/refs/heads"), own).expect("foreign");
        assert!(why.contains("bare-layout"), "{why}");
        // A repository unpacked beside: another's configuration.
        std::fs::create_dir_all(ws.join("src/vendor/.git")).unwrap();
        let why = foreign_repository(&ws.join("src/vendor"), own).expect("foreign");
        assert!(why.contains("another repository"), "{why}");
        // A toolchain by path asks; a channel does not.
        assert_eq!(toolchain_override(&ws.join("src")), None);
        std::fs::write(
            ws.join("rust-toolchain.toml"),
            "[toolchain]\nchannel = \"1.90\"\n",
        )
        .unwrap();
        assert_eq!(toolchain_override(&ws.join("src")), None);
        std::fs::write(
            ws.join("rust-toolchain.toml"),
            "[toolchain]\npath = \"./tc\"\n",
        )
        .unwrap();
        let why = toolchain_override(&ws.join("src")).expect("a path");
        assert!(why.contains("rust-toolchain.toml"), "{why}");
        // The project's cargo configuration asks; the user's own does not.
        assert_eq!(cargo_configuration(&ws.join("src"), None), None);
        std::fs::create_dir_all(ws.join(".cargo")).unwrap();
        std::fs::write(ws.join(".cargo/config.toml"), "[build]\n").unwrap();
        let why = cargo_configuration(&ws.join("src"), None).expect("project config");
        assert!(why.contains(".cargo/config.toml"), "{why}");
        assert_eq!(
            cargo_configuration(&ws.join("src"), Some(&ws.join(".cargo"))),
            None
        );
        // Not a repository: nothing to obey.
        let outside = tempfile::tempdir().unwrap();
        assert_eq!(foreign_repository(outside.path(), own), None);
    }
}
