//! Which paths the agent may write, and which reads are sensitive.
//!
//! Paths are judged in two forms, and the stricter answer wins: the path as
//! written (with `~` expanded and made absolute against the session's cwd,
//! `.`/`..` resolved without touching the disk), and the same path with
//! symlinks resolved as far as it exists.

use std::{
    ffi::OsString,
    path::{Component, Path, PathBuf},
};

/// The variables that say where a user's directories are.
const USER_VARS: &[&str] = &[
    "HOME",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
    "NU_AGENT_STATE_DIR",
];

/// Where the user's directories are (`HOME`, the XDG dirs, the agent's
/// state dir), as one environment says: this process's, or a session's
/// (the sandbox worker's own environment is the session's, so the parent
/// must judge `~` by the same one).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UserDirs(Vec<(String, OsString)>);

impl UserDirs {
    /// This process's.
    pub fn of_process() -> UserDirs {
        UserDirs::from_lookup(|name| std::env::var_os(name))
    }

    /// A session's, from its environment; this process's when it names no
    /// `HOME` (then it says nothing of the others either).
    pub fn of_env(env: &[(String, nu_protocol::Value)]) -> UserDirs {
        let lookup = |name: &str| {
            env.iter()
                .find(|(k, _)| k == name)
                .and_then(|(_, v)| v.as_str().ok().map(OsString::from))
        };
        if lookup("HOME").is_some_and(|h| !h.is_empty()) {
            UserDirs::from_lookup(lookup)
        } else {
            UserDirs::of_process()
        }
    }

    fn from_lookup(lookup: impl Fn(&str) -> Option<OsString>) -> UserDirs {
        UserDirs(
            USER_VARS
                .iter()
                .filter_map(|name| Some((name.to_string(), lookup(name)?)))
                .collect(),
        )
    }

    /// The directory `name` holds, when set and not empty.
    pub fn get(&self, name: &str) -> Option<PathBuf> {
        self.0
            .iter()
            .find(|(k, v)| k == name && !v.is_empty())
            .map(|(_, v)| PathBuf::from(v))
    }
}

/// System trees that the agent never writes or deletes into.
const SYSTEM_TREES: &[&str] = &[
    "/etc", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/boot", "/var",
    "/sys", "/proc", "/dev", "/opt", "/srv", "/snap",
];

/// Device files a write to is harmless.
const HARMLESS_DEVICES: &[&str] = &["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"];

/// Paths under the home directory that hold startup files, keys, config of
/// the shell and of this agent: writing them is persistence or tampering.
const PROTECTED_IN_HOME: &[&str] = &[
    ".ssh",
    ".gnupg",
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".bash_aliases",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".zlogout",
    ".kshrc",
    ".mkshrc",
    ".cshrc",
    ".tcshrc",
    ".inputrc",
    ".xprofile",
    ".xinitrc",
    ".xsession",
    ".xsessionrc",
    ".pam_environment",
    ".gitconfig",
    ".git-credentials",
    ".netrc",
    ".npmrc",
    ".pypirc",
    ".aws",
    ".azure",
    ".kube",
    ".docker",
    ".cargo/config",
    ".cargo/config.toml",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".config/git",
    ".config/fish",
    ".config/nushell",
    ".config/autostart",
    ".config/systemd",
    ".config/environment.d",
    ".config/gcloud",
    ".config/nu-agent",
    ".local/bin",
    ".local/share/nushell",
    ".local/share/systemd",
    ".local/state/nu-agent",
];

/// Reads under the home directory that can hand out credentials.
const SENSITIVE_IN_HOME: &[&str] = &[
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".config/gcloud",
    ".kube",
    ".docker/config.json",
    ".netrc",
    ".git-credentials",
    ".pgpass",
    ".npmrc",
    ".pypirc",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".password-store",
    ".local/share/keyrings",
    ".mozilla",
    ".config/google-chrome",
    ".config/chromium",
    ".local/state/nu-agent",
    // Tokens of command-line clients.
    ".config/gh",
    ".config/hub",
    ".config/glab-cli",
    ".config/rclone",
    ".config/containers/auth.json",
    ".vault-token",
    ".terraform.d/credentials.tfrc.json",
    ".s3cfg",
    // Shell and REPL history: commands typed with their secrets.
    ".bash_history",
    ".zsh_history",
    ".zhistory",
    ".sh_history",
    ".history",
    ".python_history",
    ".node_repl_history",
    ".psql_history",
    ".mysql_history",
    ".sqlite_history",
    ".local/share/fish/fish_history",
    ".config/nushell/history.txt",
    ".config/nushell/history.sqlite3",
];

/// `.env` files that hold examples, not secrets.
const ENV_EXAMPLES: &[&str] = &[
    ".env.example",
    ".env.sample",
    ".env.template",
    ".env.dist",
    ".env.defaults",
];

/// System files that hold password hashes or grant root.
const SENSITIVE_SYSTEM: &[&str] = &[
    "/etc/shadow",
    "/etc/gshadow",
    "/etc/sudoers",
    "/etc/sudoers.d",
];

/// How a write or delete of one path is judged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WriteJudgement {
    /// Inside a writable root and not protected.
    Inside,
    /// Not protected, but outside every writable root.
    Outside,
    /// Never: the reason names what the path is.
    Protected(String),
}

/// How a read of one path is judged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReadJudgement {
    Ordinary,
    /// Can hand out credentials: asks, and never goes with network use.
    Sensitive(String),
    /// Never: the environment block of a process (holds API keys).
    Forbidden(String),
}

/// The facts paths are judged against: home, cwd, writable roots and the
/// protected trees.
#[derive(Clone, Debug)]
pub struct PathFacts {
    home: Option<PathBuf>,
    cwd: PathBuf,
    /// The git directory of the session's own repository (where it
    /// started), see [`super::repository`].
    repository: Option<PathBuf>,
    writable: Vec<PathBuf>,
    protected: Vec<(PathBuf, String)>,
    /// How many of the last `protected` entries are the policy's own
    /// `protect` paths (the rest are built in).
    policy_protected: usize,
}

impl PathFacts {
    /// Facts for a session in `cwd` of a user whose home is `home`.
    /// `writable` are the writable roots; `protect` are the user's extra
    /// protected paths (`~` allowed); `config_dirs` are the nu config
    /// directories (`$nu.default-config-dir` and the like) and `state_dir`
    /// the agent's own state directory.
    pub fn new(
        cwd: PathBuf,
        home: Option<PathBuf>,
        writable: &[PathBuf],
        protect: &[String],
        config_dirs: &[PathBuf],
    ) -> PathFacts {
        let repository = super::repository::git_dir_of(&cwd).map(|(dir, _)| dir);
        let mut facts = PathFacts {
            home: home.clone(),
            repository,
            cwd,
            writable: Vec::new(),
            protected: Vec::new(),
            policy_protected: 0,
        };
        facts.writable = writable.iter().map(|p| facts.absolute(p)).collect();
        for tree in SYSTEM_TREES {
            facts
                .protected
                .push((PathBuf::from(tree), format!("{tree} is a system directory")));
        }
        if let Some(home) = &home {
            for rel in PROTECTED_IN_HOME {
                facts
                    .protected
                    .push((home.join(rel), format!("~/{rel} is a protected path")));
            }
        }
        for dir in config_dirs {
            let dir = facts.absolute(dir);
            let reason = format!("{} holds the shell's config", dir.display());
            facts.protected.push((dir, reason));
        }
        for raw in protect {
            let path = facts.resolve(raw);
            facts
                .protected
                .push((path, format!("{raw} is protected by your policy")));
        }
        facts.policy_protected = protect.len();
        facts
    }

    /// These facts without the policy's own `protect` paths: only the
    /// protected paths no policy can lift.
    pub fn without_policy_protect(&self) -> PathFacts {
        let mut facts = self.clone();
        let built_in = facts.protected.len().saturating_sub(facts.policy_protected);
        facts.protected.truncate(built_in);
        facts.policy_protected = 0;
        facts
    }

    /// Facts for this process's user: `HOME`, XDG config dir, the state dir
    /// the agent uses (`NU_AGENT_STATE_DIR` or the XDG default).
    pub fn for_user(cwd: PathBuf, writable: &[PathBuf], protect: &[String]) -> PathFacts {
        PathFacts::for_user_in(cwd, writable, protect, &UserDirs::of_process())
    }

    /// Facts for the user whose directories `user` names (a session's
    /// `HOME` and XDG dirs, which a caller may set apart from this
    /// process's).
    pub fn for_user_in(
        cwd: PathBuf,
        writable: &[PathBuf],
        protect: &[String],
        user: &UserDirs,
    ) -> PathFacts {
        let home = user.get("HOME");
        let mut config_dirs = crate::shell::Engine::standard().nu_dirs();
        if let Some(xdg) = user.get("XDG_CONFIG_HOME") {
            config_dirs.push(xdg.join("nushell"));
        }
        if let Some(dir) = user.get("NU_AGENT_STATE_DIR") {
            config_dirs.push(dir);
        }
        if let Some(dir) = user.get("XDG_STATE_HOME") {
            config_dirs.push(dir.join("nu-agent"));
        }
        PathFacts::new(cwd, home, writable, protect, &config_dirs)
    }

    /// The writable roots, absolute.
    pub fn writable_roots(&self) -> &[PathBuf] {
        &self.writable
    }

    /// The protected paths that lie beneath `root` or hold it, for the OS
    /// rules (see [`super::sandbox::carve_out`]): the protected trees, and
    /// the `.git` directory of a repository at `root` or around it.
    pub fn protected_around(&self, root: &Path) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = self
            .protected
            .iter()
            .map(|(tree, _)| tree.clone())
            .filter(|tree| tree.starts_with(root) || root.starts_with(tree))
            .collect();
        let git = root.join(".git");
        if git.exists() {
            out.push(git);
        }
        let mut prefix = PathBuf::new();
        for component in root.components() {
            prefix.push(component);
            if component.as_os_str() == ".git" {
                out.push(prefix.clone());
                break;
            }
        }
        out
    }

    /// The session's working directory.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// Why git run in `raw` obeys another repository's configuration than
    /// the session's own; `None` when it does not.
    pub fn foreign_repository(&self, raw: &str) -> Option<String> {
        super::repository::foreign_repository(&self.resolve(raw), self.repository.as_deref())
    }

    /// Why a rustup proxy (`cargo`, `rustc`, `rustup`) started in `raw`
    /// runs a toolchain the project names by path, or cargo there loads
    /// the project's `.cargo/config.toml`; `None` when neither.
    pub fn rust_project_configuration(&self, raw: &str, cargo: bool) -> Option<String> {
        let dir = self.resolve(raw);
        super::repository::toolchain_override(&dir).or_else(|| {
            let cargo_home = std::env::var_os("CARGO_HOME")
                .map(PathBuf::from)
                .or_else(|| self.home.as_ref().map(|h| h.join(".cargo")));
            cargo
                .then(|| super::repository::cargo_configuration(&dir, cargo_home.as_deref()))
                .flatten()
        })
    }

    /// A copy of these facts for another working directory.
    pub fn with_cwd(&self, cwd: PathBuf) -> PathFacts {
        PathFacts {
            cwd,
            ..self.clone()
        }
    }

    /// `raw` with `~` expanded, made absolute against the cwd and with
    /// `.`/`..` resolved lexically.
    pub fn resolve(&self, raw: &str) -> PathBuf {
        let expanded = match (raw.strip_prefix('~'), &self.home) {
            (Some(""), Some(home)) => home.clone(),
            (Some(rest), Some(home)) if rest.starts_with('/') => home.join(&rest[1..]),
            _ => PathBuf::from(raw),
        };
        self.absolute(&expanded)
    }

    fn absolute(&self, path: &Path) -> PathBuf {
        let joined = if path.is_absolute() {
            path.to_path_buf()
        } else {
            self.cwd.join(path)
        };
        normalize(&joined)
    }

    /// Both forms of `raw`: lexical, and with symlinks resolved as far as
    /// the path exists (when that differs).
    fn forms(&self, raw: &str) -> Vec<PathBuf> {
        let lexical = self.resolve(raw);
        let mut forms = vec![lexical.clone()];
        if let Some(real) = resolve_symlinks(&lexical)
            && real != lexical
        {
            forms.push(real);
        }
        forms
    }

    /// Judge a write (create, change) of `raw`.
    pub fn judge_write(&self, raw: &str) -> WriteJudgement {
        self.judge(raw, false)
    }

    /// Judge a delete of `raw` (a directory counts with all it holds).
    pub fn judge_delete(&self, raw: &str) -> WriteJudgement {
        self.judge(raw, true)
    }

    fn judge(&self, raw: &str, delete: bool) -> WriteJudgement {
        if raw.contains('\0') {
            return WriteJudgement::Protected("the path contains a NUL byte".into());
        }
        let glob = has_glob(raw);
        let mut verdict = WriteJudgement::Inside;
        for path in self.forms(raw) {
            let judged = if glob {
                self.judge_glob(&path, delete)
            } else {
                self.judge_path(&path, delete)
            };
            verdict = stricter(verdict, judged);
        }
        verdict
    }

    fn judge_path(&self, path: &Path, delete: bool) -> WriteJudgement {
        if HARMLESS_DEVICES.iter().any(|d| path == Path::new(d)) {
            return WriteJudgement::Inside;
        }
        if path.parent().is_none() {
            return WriteJudgement::Protected("/ is the root of the file system".into());
        }
        if Some(path) == self.home.as_deref() {
            return WriteJudgement::Protected(format!("{} is your home directory", path.display()));
        }
        if let Some(reason) = git_internals(path, delete) {
            return WriteJudgement::Protected(reason);
        }
        if delete && path.join(".git").exists() {
            return WriteJudgement::Protected(format!(
                "{} holds a git repository (its .git internals)",
                path.display()
            ));
        }
        for (tree, reason) in &self.protected {
            if path.starts_with(tree) {
                return WriteJudgement::Protected(reason.clone());
            }
            if delete && tree.starts_with(path) {
                return WriteJudgement::Protected(format!(
                    "{} holds protected paths ({reason})",
                    path.display()
                ));
            }
        }
        if self.writable.iter().any(|root| path.starts_with(root)) {
            WriteJudgement::Inside
        } else {
            WriteJudgement::Outside
        }
    }

    /// A glob: judge the directory it expands in, and refuse a wildcard
    /// straight in `/`, the home directory or a protected tree.
    fn judge_glob(&self, pattern: &Path, delete: bool) -> WriteJudgement {
        let base = glob_base(pattern);
        let last = pattern
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let everything = last.chars().all(|c| matches!(c, '*' | '.'));
        let critical = base.parent().is_none()
            || Some(base.as_path()) == self.home.as_deref()
            || self
                .protected
                .iter()
                .any(|(tree, _)| tree.starts_with(&base));
        if delete && everything && critical && base != self.cwd {
            return WriteJudgement::Protected(format!(
                "a wildcard in {} reaches protected paths",
                base.display()
            ));
        }
        let matches_protected = self.protected.iter().find(|(tree, _)| {
            glob_could_match(pattern, tree) && (delete || tree.starts_with(&base))
        });
        if let Some((_, reason)) = matches_protected {
            return WriteJudgement::Protected(format!("the pattern can match: {reason}"));
        }
        // Files matched directly in `/` or the home directory are judged by
        // where they land, not as the directory itself.
        if base.parent().is_none() || Some(base.as_path()) == self.home.as_deref() {
            return if self.writable.iter().any(|root| base.starts_with(root)) {
                WriteJudgement::Inside
            } else {
                WriteJudgement::Outside
            };
        }
        self.judge_path(&base, false)
    }

    /// Judge a read of `raw`.
    pub fn judge_read(&self, raw: &str) -> ReadJudgement {
        let mut verdict = ReadJudgement::Ordinary;
        for path in self.forms(raw) {
            let judged = self.judge_read_path(&path);
            if rank_read(&judged) > rank_read(&verdict) {
                verdict = judged;
            }
        }
        verdict
    }

    /// Judge a read of `raw` by a program that reads the whole tree
    /// beneath a directory (`grep -r`, `rg`, `find`, `du`, `tar c`): as
    /// [`PathFacts::judge_read`], and sensitive too when the directory
    /// holds one of the credential stores of the home directory or the
    /// system (`~`, `/home`, `/`). It asks rather than excluding them: the
    /// program, not the agent, walks the tree. Files named like secrets
    /// deeper in a project (`.env`) are not searched for.
    pub fn judge_tree_read(&self, raw: &str) -> ReadJudgement {
        let direct = self.judge_read(raw);
        if direct != ReadJudgement::Ordinary {
            return direct;
        }
        let dir = self.resolve(raw);
        if !dir.is_dir() {
            return direct;
        }
        let reached = |inside: &Path| inside.starts_with(&dir) && inside != dir && inside.exists();
        if let Some(home) = &self.home {
            for rel in SENSITIVE_IN_HOME {
                if reached(&home.join(rel)) {
                    return ReadJudgement::Sensitive(format!(
                        "a read of the whole tree {} reaches ~/{rel}, which holds credentials",
                        dir.display()
                    ));
                }
            }
        }
        for system in SENSITIVE_SYSTEM {
            if reached(Path::new(system)) {
                return ReadJudgement::Sensitive(format!(
                    "a read of the whole tree {} reaches {system}, which holds credentials",
                    dir.display()
                ));
            }
        }
        direct
    }

    fn judge_read_path(&self, path: &Path) -> ReadJudgement {
        let parts: Vec<String> = path
            .components()
            .filter_map(|c| match c {
                Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect();
        if parts.first().map(String::as_str) == Some("proc")
            && matches!(parts.last().map(String::as_str), Some("environ" | "mem"))
        {
            return ReadJudgement::Forbidden(format!(
                "{} holds a process's secrets (its environment or memory)",
                path.display()
            ));
        }
        let sensitive = |reason: String| ReadJudgement::Sensitive(reason);
        if parts.first().map(String::as_str) == Some("proc")
            && parts.last().map(String::as_str) == Some("cmdline")
        {
            return sensitive(format!("{} can hold secrets", path.display()));
        }
        for system in SENSITIVE_SYSTEM {
            if path.starts_with(system) {
                return sensitive(format!("{system} holds credentials"));
            }
        }
        let name = parts.last().map(String::as_str).unwrap_or("");
        if let Some(home) = &self.home {
            for rel in SENSITIVE_IN_HOME {
                if path.starts_with(home.join(rel)) {
                    if rel == &".ssh" && (name.ends_with(".pub") || name == "known_hosts") {
                        return ReadJudgement::Ordinary;
                    }
                    return sensitive(format!("~/{rel} holds credentials"));
                }
            }
        }
        let lower = name.to_ascii_lowercase();
        if (lower == ".env" || lower.starts_with(".env."))
            && !ENV_EXAMPLES.contains(&lower.as_str())
            || lower == ".envrc"
            || lower.starts_with("secrets.")
        {
            return sensitive(format!("{name} usually holds secrets"));
        }
        if lower.ends_with("_history") || lower == ".history" {
            return sensitive(format!("{name} is a command history"));
        }
        if [".pem", ".key", ".p12", ".pfx", ".keystore"]
            .iter()
            .any(|ext| lower.ends_with(ext))
        {
            return sensitive(format!("{name} looks like a private key"));
        }
        if lower.starts_with("id_") && !lower.ends_with(".pub") && !lower.contains('.') {
            return sensitive(format!("{name} looks like an SSH private key"));
        }
        ReadJudgement::Ordinary
    }
}

fn stricter(a: WriteJudgement, b: WriteJudgement) -> WriteJudgement {
    let rank = |j: &WriteJudgement| match j {
        WriteJudgement::Inside => 0,
        WriteJudgement::Outside => 1,
        WriteJudgement::Protected(_) => 2,
    };
    if rank(&b) > rank(&a) { b } else { a }
}

fn rank_read(judgement: &ReadJudgement) -> u8 {
    match judgement {
        ReadJudgement::Ordinary => 0,
        ReadJudgement::Sensitive(_) => 1,
        ReadJudgement::Forbidden(_) => 2,
    }
}

/// Writes into `.git` internals (config, hooks, refs...), or deleting a
/// `.git` directory itself.
fn git_internals(path: &Path, delete: bool) -> Option<String> {
    let components: Vec<_> = path.components().collect();
    let at = components
        .iter()
        .position(|c| matches!(c, Component::Normal(s) if *s == ".git"))?;
    let inside = at + 1 < components.len();
    (inside || delete).then(|| format!("{} is inside a git repository's .git", path.display()))
}

/// `.` and `..` resolved without touching the disk.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    if out.as_os_str().is_empty() {
        out.push("/");
    }
    out
}

/// `path` with symlinks resolved in its longest existing prefix.
fn resolve_symlinks(path: &Path) -> Option<PathBuf> {
    let mut existing = path.to_path_buf();
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = existing.canonicalize() {
            let mut full = real;
            for part in rest.iter().rev() {
                full.push(part);
            }
            return Some(normalize(&full));
        }
        let name = existing.file_name()?.to_os_string();
        rest.push(name);
        if !existing.pop() {
            return None;
        }
    }
}

/// True when `raw` holds glob characters nu would expand.
pub fn has_glob(raw: &str) -> bool {
    raw.contains(['*', '?', '['])
}

/// The directory a glob expands in: its components before the first one
/// with a wildcard.
fn glob_base(pattern: &Path) -> PathBuf {
    let mut base = PathBuf::new();
    for component in pattern.components() {
        if has_glob(&component.as_os_str().to_string_lossy()) {
            break;
        }
        base.push(component);
    }
    base
}

/// Could `pattern` match `path` or one of its ancestors? Component-wise:
/// `**` matches any run of components, other wildcards one component.
fn glob_could_match(pattern: &Path, path: &Path) -> bool {
    let pattern: Vec<String> = pattern
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let path: Vec<String> = path
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    fn walk(pattern: &[String], path: &[String]) -> bool {
        match (pattern.first(), path.first()) {
            (None, _) => true,
            (Some(p), _) if p == "**" => {
                (0..=path.len()).any(|skip| walk(&pattern[1..], &path[skip..]))
            }
            // The pattern goes deeper than the path: it matches inside it.
            (Some(_), None) => true,
            (Some(p), Some(c)) => component_matches(p, c) && walk(&pattern[1..], &path[1..]),
        }
    }
    walk(&pattern, &path)
}

/// One path component against one glob component (`*`, `?`, `[...]` taken
/// as any one character). Hidden names match only a pattern that starts
/// with a dot, as in nu's glob.
fn component_matches(pattern: &str, name: &str) -> bool {
    if name.starts_with('.') && !pattern.starts_with('.') && has_glob(pattern) {
        return false;
    }
    let simplified: String = simplify_classes(pattern);
    super::Pattern::new(&simplified)
        .map(|p| p.matches(name))
        .unwrap_or(true)
}

fn simplify_classes(pattern: &str) -> String {
    let mut out = String::new();
    let mut in_class = false;
    for c in pattern.chars() {
        match (c, in_class) {
            ('[', false) => {
                in_class = true;
                out.push('?');
            }
            (']', true) => in_class = false,
            (_, true) => {}
            (c, false) => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts() -> PathFacts {
        PathFacts::new(
            PathBuf::from("/home/u/work"),
            Some(PathBuf::from("/home/u")),
            &[PathBuf::from("/home/u/work"), PathBuf::from("/tmp")],
            &["~/secret-notes".into()],
            &[PathBuf::from("/home/u/.config/nushell")],
        )
    }

    fn protected(j: WriteJudgement) -> bool {
        matches!(j, WriteJudgement::Protected(_))
    }

    #[test]
    fn writes_are_judged_by_where_they_land() {
        let f = facts();
        assert_eq!(f.judge_write("out.txt"), WriteJudgement::Inside);
        assert_eq!(f.judge_write("/tmp/x"), WriteJudgement::Inside);
        assert_eq!(f.judge_write("~/notes.txt"), WriteJudgement::Outside);
        assert!(protected(f.judge_write("~/.bashrc")));
        assert!(protected(f.judge_write("../.ssh/authorized_keys")));
        assert!(protected(f.judge_write("/etc/hosts")));
        assert!(protected(f.judge_write(".git/config")));
        assert!(protected(f.judge_write("~/secret-notes/a")));
        assert_eq!(f.judge_write("/dev/null"), WriteJudgement::Inside);
    }

    #[test]
    fn deleting_an_ancestor_of_a_protected_path_is_protected() {
        let f = facts();
        assert!(protected(f.judge_delete("~")));
        assert!(protected(f.judge_delete("/")));
        assert!(protected(f.judge_delete("~/.config")));
        assert!(protected(f.judge_delete(".git")));
        assert_eq!(f.judge_delete("build"), WriteJudgement::Inside);
        assert_eq!(f.judge_delete("~/Downloads/a.iso"), WriteJudgement::Outside);
    }

    #[test]
    fn wildcards_in_critical_places_are_protected() {
        let f = facts();
        assert!(protected(f.judge_delete("~/*")));
        assert!(protected(f.judge_delete("/*")));
        assert!(protected(f.judge_delete("~/.ssh/*")));
        assert!(protected(f.judge_delete("~/.*")));
        assert_eq!(f.judge_delete("*.log"), WriteJudgement::Inside);
        assert_eq!(f.judge_delete("~/*.log"), WriteJudgement::Outside);
        assert_eq!(f.judge_delete("~/Downloads/*.iso"), WriteJudgement::Outside);
        assert_eq!(
            f.judge_delete("~/**/*.pem"),
            WriteJudgement::Protected("the pattern can match: ~/.ssh is a protected path".into())
                .clone()
        );
    }

    #[test]
    fn sensitive_reads() {
        let f = facts();
        assert!(matches!(
            f.judge_read("~/.ssh/id_ed25519"),
            ReadJudgement::Sensitive(_)
        ));
        assert_eq!(
            f.judge_read("~/.ssh/id_ed25519.pub"),
            ReadJudgement::Ordinary
        );
        assert!(matches!(
            f.judge_read("/proc/self/environ"),
            ReadJudgement::Forbidden(_)
        ));
        assert!(matches!(
            f.judge_read("/proc/*/environ"),
            ReadJudgement::Forbidden(_)
        ));
        assert!(matches!(f.judge_read(".env"), ReadJudgement::Sensitive(_)));
        assert!(matches!(
            f.judge_read("server.pem"),
            ReadJudgement::Sensitive(_)
        ));
        assert_eq!(f.judge_read("Cargo.toml"), ReadJudgement::Ordinary);
        assert_eq!(f.judge_read("/etc/hosts"), ReadJudgement::Ordinary);
        assert!(matches!(
            f.judge_read("/etc/shadow"),
            ReadJudgement::Sensitive(_)
        ));
    }
}
