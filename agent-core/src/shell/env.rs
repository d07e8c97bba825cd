//! Which of the caller's environment variables a session inherits.
//!
//! An allow-list: names a shell session needs (PATH, HOME, locale, XDG dirs,
//! tool homes). A deny-list always wins over it: variables that make a
//! program load or run code (`LD_PRELOAD`, `BASH_ENV`, `PYTHONSTARTUP`, ...)
//! and variables that look like secrets (`*_TOKEN`, `*_API_KEY`, ...), so
//! the model can neither inject code through the environment nor read keys.

/// Environment filter: the allow-list, plus names a user added.
#[derive(Clone, Debug, Default)]
pub struct EnvFilter {
    /// Extra allowed names or `PREFIX*` / `*SUFFIX` patterns (from config).
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

/// Names never passed, even when allowed or configured.
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
/// Substrings (case-insensitive) that mark a secret.
const SECRET_MARKERS: &[&str] = &[
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "API_KEY",
    "APIKEY",
    "ACCESS_KEY",
    "PRIVATE_KEY",
    "CREDENTIAL",
    "AUTH",
    "SESSION_KEY",
];

impl EnvFilter {
    /// True when `name` may pass into a session.
    pub fn allows(&self, name: &str) -> bool {
        if Self::denied(name) {
            return false;
        }
        ALLOWED.contains(&name)
            || ALLOWED_PREFIXES.iter().any(|p| name.starts_with(p))
            || ALLOWED_SUFFIXES.iter().any(|s| name.ends_with(s))
            || self
                .extra_allow
                .iter()
                .any(|pattern| matches_pattern(pattern, name))
    }

    fn denied(name: &str) -> bool {
        let upper = name.to_ascii_uppercase();
        DENIED.contains(&name)
            || DENIED_PREFIXES.iter().any(|p| upper.starts_with(p))
            || SECRET_MARKERS.iter().any(|m| upper.contains(m))
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

    #[test]
    fn code_injection_and_secrets_never_pass() {
        let filter = EnvFilter {
            extra_allow: vec!["LD_PRELOAD".into(), "MY_*".into()],
        };
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
        ] {
            assert!(!filter.allows(name), "{name} must not pass");
        }
        for name in [
            "PATH",
            "HOME",
            "LC_ALL",
            "XDG_DATA_HOME",
            "CARGO_HOME",
            "MY_VAR",
            "LANG",
        ] {
            assert!(filter.allows(name), "{name} must pass");
        }
        assert!(!EnvFilter::default().allows("MY_VAR"));
    }
}
