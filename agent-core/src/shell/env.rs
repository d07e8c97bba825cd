//! Which of the caller's environment variables a session inherits.
//!
//! Three lists decide, strongest first:
//! 1. **Code injection** (`LD_*`, `BASH_ENV`, `PYTHONSTARTUP`,
//!    `GIT_SSH_COMMAND`, ...): variables that make a program load or run
//!    code. They never pass, whatever the configuration says.
//! 2. **Explicit user allowance** ([`EnvFilter::extra_allow`]): a name the
//!    user's policy lists, exactly or by a `PREFIX*` / `*SUFFIX` pattern,
//!    passes even when it looks like a secret: the user chose to share it.
//! 3. **Secrets** ([`is_secret_name`]) never pass by default; everything
//!    else passes only when it is on the built-in allow-list (PATH, HOME,
//!    locale, XDG dirs, tool homes).
//!
//! Name-based filtering is defence in depth, not a boundary: an allowed
//! `cat` can still read the file that holds a key. Values that do reach a
//! remote model are redacted separately (`crate::redact`).

/// Environment filter: the allow-list, plus names a user added.
#[derive(Clone, Debug, Default)]
pub struct EnvFilter {
    /// Extra allowed names or `PREFIX*` / `*SUFFIX` patterns (from config).
    ///
    /// An exact name or a pattern with a non-empty fixed part also lets a
    /// secret-looking name through; a bare `*` admits every name that is
    /// neither secret-looking nor code injection.
    pub extra_allow: Vec<String>,
}

/// Names always passed (exact).
const ALLOWED: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LANGUAGE",
    "TZ",
    "TMPDIR",
    "TMP",
    "TEMP",
    "HOSTNAME",
    "EDITOR",
    "VISUAL",
    "PAGER",
    "COLORTERM",
    "DISPLAY",
    "WAYLAND_DISPLAY",
    "DBUS_SESSION_BUS_ADDRESS",
    "GOPATH",
    "GOROOT",
    "VIRTUAL_ENV",
    "PWD",
    "NO_COLOR",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "RUSTUP_TOOLCHAIN",
    "CI",
];

/// Prefixes / suffixes always passed.
const ALLOWED_PREFIXES: &[&str] = &["LC_", "XDG_", "NU_", "CONDA_"];
const ALLOWED_SUFFIXES: &[&str] = &["_HOME"];

/// Code-injection names (compared case-insensitively): never passed, even
/// when allowed or configured.
const DENIED: &[&str] = &[
    "BASH_ENV",
    "ENV",
    "PROMPT_COMMAND",
    "PS4",
    "SHELLOPTS",
    "BASHOPTS",
    "IFS",
    "CDPATH",
    "GLOBIGNORE",
    "ZDOTDIR",
    "PERL5OPT",
    "PERL5LIB",
    "PERL5DB",
    "PERLLIB",
    "PYTHONSTARTUP",
    "PYTHONPATH",
    "PYTHONHOME",
    "PYTHONINSPECT",
    "NODE_OPTIONS",
    "NODE_PATH",
    "RUBYOPT",
    "RUBYLIB",
    "JAVA_TOOL_OPTIONS",
    "_JAVA_OPTIONS",
    "JDK_JAVA_OPTIONS",
    "LESSOPEN",
    "LESSCLOSE",
    "GCONV_PATH",
    "HOSTALIASES",
    "RESOLV_HOST_CONF",
    "LOCALDOMAIN",
    "MALLOC_CHECK_",
    "TERMCAP",
    "TERMINFO",
    "EXINIT",
    "VIMINIT",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_EXEC_PATH",
    "GIT_ASKPASS",
    "GIT_DIR",
    "GIT_PROXY_COMMAND",
    "GIT_TEMPLATE_DIR",
    "SSH_ASKPASS",
    "SUDO_ASKPASS",
    "GIT_EXTERNAL_DIFF",
    "GIT_PAGER",
    "GIT_EDITOR",
    "CARGO_BUILD_RUSTC_WRAPPER",
    "RUSTC_WRAPPER",
    "ENV_CONVERSIONS",
    "NU_LIB_DIRS",
    "NU_PLUGIN_DIRS",
];
const DENIED_PREFIXES: &[&str] = &["LD_", "DYLD_", "GIT_CONFIG", "BASH_FUNC_", "NU_AGENT_"];

/// Substrings (of the upper-cased name) that mark a credential, after
/// security.md §6.1 (`*KEY*`, `*SECRET*`, `*TOKEN*`, ...). `AUTH` is
/// checked separately so that `GIT_AUTHOR_NAME` is not taken for a secret.
const SECRET_MARKERS: &[&str] = &[
    "KEY",
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "PASSPHRASE",
    "PGPASS",
    "CREDENTIAL",
    "COOKIE",
    "JWT",
    "DSN",
];
/// Prefixes of cloud-provider variables, all treated as credentials.
const SECRET_PREFIXES: &[&str] = &["AWS_", "AZURE_"];
/// Names whose value is a credential or grants access (an agent socket, a
/// cluster or daemon to drive, a file of passwords).
///
/// Variables named `*_URL` / `*_URI` carry credentials only sometimes
/// (`postgres://user:pass@host`), which a name cannot tell. Only the names
/// that conventionally hold a connection string with a password are listed;
/// other URL variables are not on the allow-list anyway, so they pass only
/// when the user lists them, and credentials inside any URL are redacted
/// from text that leaves the machine.
const SECRET_NAMES: &[&str] = &[
    "DATABASE_URL",
    "SSH_AUTH_SOCK",
    "GPG_AGENT_INFO",
    "KUBECONFIG",
    "DOCKER_HOST",
    "DOCKER_CONFIG",
    "NETRC",
];

/// True when `name` looks like it holds a secret: a token, key, password or
/// credential, a cloud-provider variable (`AWS_*`, `AZURE_*`), or access to
/// an agent or daemon (`SSH_AUTH_SOCK`, `KUBECONFIG`, `DOCKER_HOST`, ...).
/// Case-insensitive.
pub fn is_secret_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_NAMES.contains(&upper.as_str())
        || SECRET_PREFIXES.iter().any(|p| upper.starts_with(p))
        || SECRET_MARKERS.iter().any(|m| upper.contains(m))
        || mentions_auth(&upper)
}

/// `AUTH` anywhere except as the start of `AUTHOR` (but `AUTHORIZATION`
/// and `AUTHORITY` count).
fn mentions_auth(upper: &str) -> bool {
    upper.match_indices("AUTH").any(|(at, _)| {
        let rest = &upper[at + "AUTH".len()..];
        !rest.starts_with("OR") || rest.starts_with("ORI")
    })
}

/// True when `name` makes a program load or run code (`LD_PRELOAD`,
/// `BASH_ENV`, `GIT_SSH_COMMAND`, `GIT_CONFIG_*`, ...): never passed into a
/// session, and never to be set by a model. Case-insensitive.
pub fn is_code_injection_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    DENIED.contains(&upper.as_str()) || DENIED_PREFIXES.iter().any(|p| upper.starts_with(p))
}

/// The variables a pipeline may set without changing what a program
/// runs or which configuration it reads: language, time zone, terminal
/// size and colour, and the ones nu itself keeps (`PWD` after `cd`, the
/// last exit code). Everything else — `HOME`, `XDG_*`, `GIT_*`, a pager,
/// `MANROFFOPT`, `GROFF_BIN_PATH`, `LESSKEYIN`, `RIPGREP_CONFIG_PATH`, a
/// name nobody has listed yet — may point a program at configuration or
/// code the workspace wrote: an allowlist, never a list of denied names.
const HARMLESS: &[&str] = &[
    "LANG",
    "LANGUAGE",
    "TZ",
    "COLUMNS",
    "LINES",
    "NO_COLOR",
    "CLICOLOR",
    "CLICOLOR_FORCE",
    "FORCE_COLOR",
    "TERM",
    "COLORTERM",
    // Kept by nu itself.
    "PWD",
    "OLDPWD",
    "LAST_EXIT_CODE",
    "CMD_DURATION_MS",
    "config",
];
/// Prefixes of harmless variables: the locale categories.
const HARMLESS_PREFIXES: &[&str] = &["LC_"];

/// True when setting `name` may point programs at other configuration or
/// code: every variable that is not on the short harmless list
/// (`HARMLESS`), including the code-injection ones.
pub fn redirects_configuration(name: &str) -> bool {
    if is_code_injection_name(name) {
        return true;
    }
    !(HARMLESS.contains(&name) || HARMLESS_PREFIXES.iter().any(|p| name.starts_with(p)))
}

impl EnvFilter {
    /// True when `name` may pass into a session.
    pub fn allows(&self, name: &str) -> bool {
        if is_code_injection_name(name) {
            return false;
        }
        if self.lists_explicitly(name) {
            return true;
        }
        if is_secret_name(name) {
            return false;
        }
        ALLOWED.contains(&name)
            || ALLOWED_PREFIXES.iter().any(|p| name.starts_with(p))
            || ALLOWED_SUFFIXES.iter().any(|s| name.ends_with(s))
            || self.extra_allow.iter().any(|pattern| pattern == "*")
    }

    /// True when a configured name or pattern with a fixed part matches.
    fn lists_explicitly(&self, name: &str) -> bool {
        self.extra_allow
            .iter()
            .any(|pattern| pattern != "*" && matches_pattern(pattern, name))
    }
}

fn matches_pattern(pattern: &str, name: &str) -> bool {
    if let Some(prefix) = pattern.strip_suffix('*') {
        name.starts_with(prefix)
    } else if let Some(suffix) = pattern.strip_prefix('*') {
        name.ends_with(suffix)
    } else {
        pattern == name
    }
}

/// Keep the variables `filter` allows.
pub fn filter_env<V>(
    vars: impl IntoIterator<Item = (String, V)>,
    filter: &EnvFilter,
) -> Vec<(String, V)> {
    vars.into_iter()
        .filter(|(name, _)| filter.allows(name))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filter(extra: &[&str]) -> EnvFilter {
        EnvFilter {
            extra_allow: extra.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn secrets_and_code_injection_do_not_pass_by_default() {
        let filter = EnvFilter::default();
        for name in [
            "LD_PRELOAD",
            "LD_LIBRARY_PATH",
            "BASH_ENV",
            "PYTHONSTARTUP",
            "OPENAI_API_KEY",
            "GITHUB_TOKEN",
            "DYLD_INSERT_LIBRARIES",
            "NODE_OPTIONS",
            "GIT_CONFIG_COUNT",
            "MY_PASSWORD",
            "NU_API_KEY",
            "CONDA_TOKEN",
            "XDG_SECRET_HOME",
            "MY_VAR",
        ] {
            assert!(!filter.allows(name), "{name} must not pass");
        }
        for name in [
            "PATH",
            "HOME",
            "LC_ALL",
            "XDG_DATA_HOME",
            "CARGO_HOME",
            "LANG",
        ] {
            assert!(filter.allows(name), "{name} must pass");
        }
    }

    #[test]
    fn explicitly_listed_secrets_pass() {
        let filter = filter(&["GITHUB_TOKEN", "MY_*", "*_API_KEY", "AWS_PROFILE"]);
        for name in [
            "GITHUB_TOKEN",
            "MY_PASSWORD",
            "MY_VAR",
            "OPENAI_API_KEY",
            "AWS_PROFILE",
        ] {
            assert!(filter.allows(name), "{name} must pass when listed");
        }
        for name in ["GITLAB_TOKEN", "AWS_SECRET_ACCESS_KEY", "OPENAI_API_KEYS"] {
            assert!(!filter.allows(name), "{name} is not listed");
        }
    }

    #[test]
    fn code_injection_never_passes_even_when_listed() {
        let filter = filter(&[
            "LD_PRELOAD",
            "LD_*",
            "BASH_ENV",
            "PYTHONSTARTUP",
            "GIT_SSH_COMMAND",
            "GIT_*",
            "*_OPTIONS",
            "ld_audit",
            "*",
        ]);
        for name in [
            "LD_PRELOAD",
            "LD_AUDIT",
            "ld_audit",
            "BASH_ENV",
            "PYTHONSTARTUP",
            "GIT_SSH_COMMAND",
            "GIT_CONFIG_GLOBAL",
            "GIT_DIR",
            "NODE_OPTIONS",
            "JAVA_TOOL_OPTIONS",
            "NU_AGENT_API_KEY",
        ] {
            assert!(!filter.allows(name), "{name} must never pass");
        }
        assert!(filter.allows("GIT_AUTHOR_NAME"));
        assert!(is_code_injection_name("GIT_CONFIG_KEY_0"));
        assert!(is_code_injection_name("ld_preload"));
        assert!(!is_code_injection_name("GITHUB_TOKEN"));
    }

    #[test]
    fn bare_star_admits_everything_but_secrets() {
        let filter = filter(&["*"]);
        assert!(filter.allows("MY_VAR"));
        assert!(filter.allows("JAVA_URL"));
        for name in ["GITHUB_TOKEN", "AWS_REGION", "SSH_AUTH_SOCK", "LD_PRELOAD"] {
            assert!(!filter.allows(name), "{name} must not pass through `*`");
        }
    }

    #[test]
    fn secret_names() {
        for name in [
            "OPENAI_API_KEY",
            "ANTHROPIC_API_KEY",
            "GITHUB_TOKEN",
            "gh_token",
            "SECRET_KEY_BASE",
            "PGPASSWORD",
            "PGPASSFILE",
            "KEY_PASSPHRASE",
            "GOOGLE_APPLICATION_CREDENTIALS",
            "AWS_ACCESS_KEY_ID",
            "AWS_REGION",
            "AZURE_CLIENT_ID",
            "DATABASE_URL",
            "SENTRY_DSN",
            "SSH_AUTH_SOCK",
            "GPG_AGENT_INFO",
            "KUBECONFIG",
            "DOCKER_HOST",
            "HTTP_AUTHORIZATION",
            "XAUTHORITY",
            "NPM_CONFIG__AUTH",
            "SESSION_COOKIE",
        ] {
            assert!(is_secret_name(name), "{name} is a secret name");
        }
        for name in [
            "PATH",
            "HOME",
            "LANG",
            "GIT_AUTHOR_NAME",
            "GIT_AUTHOR_EMAIL",
            "EDITOR",
            "XDG_DATA_HOME",
            "HOMEBREW_API_DOMAIN",
            "CI_PROJECT_URL",
        ] {
            assert!(!is_secret_name(name), "{name} is not a secret name");
        }
    }

    #[test]
    fn filter_env_keeps_allowed_pairs_in_order() {
        let vars = vec![
            ("PATH".to_string(), 1),
            ("GITHUB_TOKEN".to_string(), 2),
            ("HOME".to_string(), 3),
            ("LD_PRELOAD".to_string(), 4),
        ];
        let kept = filter_env(vars, &filter(&["GITHUB_TOKEN", "LD_PRELOAD"]));
        assert_eq!(
            kept,
            vec![
                ("PATH".to_string(), 1),
                ("GITHUB_TOKEN".to_string(), 2),
                ("HOME".to_string(), 3)
            ]
        );
    }
}
