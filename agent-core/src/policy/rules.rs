//! The user's policy, read from `$env.config.plugins.agent.policy`.
//!
//! Every key is checked: an unknown key, a wrong type or a bad pattern is
//! an error that names the key, and a policy that fails validation stops
//! the agent (it never falls back to something looser).

use std::{path::PathBuf, time::Duration};

use nu_protocol::Value;
use serde::{Deserialize, Serialize};

use super::{Pattern, sandbox::SandboxMode};

/// How much runs without asking.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Only reads run; everything else is blocked.
    ReadOnly,
    /// Reads run; anything that changes something, talks to the network or
    /// runs an unknown program asks. The default.
    Confirm,
    /// As `confirm`, and unknown programs also run without asking when the
    /// OS sandbox is read-only, enforced, and the network is off (the
    /// sandbox guarantees they can only read).
    AutoRead,
    /// Everything runs without asking, except what is blocked (protected
    /// paths, forbidden commands, your `block` list).
    Yolo,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::ReadOnly => "read-only",
            Mode::Confirm => "confirm",
            Mode::AutoRead => "auto-read",
            Mode::Yolo => "yolo",
        }
    }

    fn parse(text: &str) -> Option<Mode> {
        Some(match text {
            "read-only" => Mode::ReadOnly,
            "confirm" => Mode::Confirm,
            "auto-read" => Mode::AutoRead,
            "yolo" => Mode::Yolo,
            _ => return None,
        })
    }
}

/// The effective policy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Policy {
    pub mode: Mode,
    /// Commands that run without asking (never overrides a block).
    pub allow: Vec<Pattern>,
    /// Commands that always ask.
    pub confirm: Vec<Pattern>,
    /// Commands that never run.
    pub block: Vec<Pattern>,
    /// Extra paths the agent may never write or delete (`~` allowed).
    pub protect: Vec<String>,
    pub sandbox: SandboxMode,
    /// Extra writable roots; the session's cwd and the temp dir always are
    /// (in `workspace-write`).
    pub writable: Vec<String>,
    /// May sandboxed pipelines use the network without an approval?
    pub network: bool,
    /// Run each external program under an OS sandbox narrowed to its
    /// verdict (a read runs read-only, without the network), in every mode
    /// where the kernel offers Landlock. Turned off only by name.
    #[serde(default = "on")]
    pub external_sandbox: bool,
    /// Environment variables passed to the agent although they look secret.
    pub env: Vec<String>,
    /// `rm` moves to the trash (default) instead of deleting.
    pub trash: bool,
    /// How long an entered sudo password is remembered.
    pub password_ttl: Duration,
    /// A `hook` closure is configured (evaluated by the host, not here).
    pub has_hook: bool,
}

impl Default for Policy {
    /// The policy a new user gets.
    fn default() -> Policy {
        Policy {
            mode: Mode::Confirm,
            allow: Vec::new(),
            confirm: Vec::new(),
            block: Vec::new(),
            protect: Vec::new(),
            sandbox: SandboxMode::WorkspaceWrite,
            writable: Vec::new(),
            network: false,
            external_sandbox: true,
            env: Vec::new(),
            trash: true,
            password_ttl: Duration::from_secs(300),
            has_hook: false,
        }
    }
}

impl Policy {
    /// The most permissive policy its user could write from this one:
    /// mode yolo, no `block`, `confirm` or `protect` entries, no hook.
    /// What it still blocks, no policy allows.
    pub fn most_permissive(&self) -> Policy {
        Policy {
            mode: Mode::Yolo,
            confirm: Vec::new(),
            block: Vec::new(),
            protect: Vec::new(),
            has_hook: false,
            ..self.clone()
        }
    }
}

fn on() -> bool {
    true
}

/// A policy that does not validate, naming the key.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("policy.{key}: {message}")]
pub struct PolicyError {
    /// The key path, e.g. `mode` or `allow[2]`.
    pub key: String,
    pub message: String,
}

impl PolicyError {
    fn new(key: impl Into<String>, message: impl Into<String>) -> PolicyError {
        PolicyError {
            key: key.into(),
            message: message.into(),
        }
    }
}

/// The keys a policy record may have.
pub const POLICY_KEYS: &[&str] = &[
    "mode",
    "allow",
    "confirm",
    "block",
    "protect",
    "sandbox",
    "writable",
    "network",
    "external_sandbox",
    "env",
    "trash",
    "password_ttl",
    "hook",
];

impl Policy {
    /// Read a policy from its nu value (`$env.config.plugins.agent.policy`).
    /// `Nothing` gives the default policy.
    pub fn from_value(value: &Value) -> Result<Policy, PolicyError> {
        let mut policy = Policy::default();
        let record = match value {
            Value::Nothing { .. } => return Ok(policy),
            Value::Record { val, .. } => val,
            other => {
                return Err(PolicyError::new(
                    "",
                    format!("expected a record, got {}", other.get_type()),
                )
                .with_root());
            }
        };
        for (key, value) in record.iter() {
            match key.as_str() {
                "mode" => {
                    let text = string(key, value)?;
                    policy.mode = Mode::parse(&text).ok_or_else(|| {
                        PolicyError::new(
                            key,
                            format!(
                                "expected one of read-only, confirm, auto-read, yolo; got `{text}`"
                            ),
                        )
                    })?;
                }
                "allow" => policy.allow = patterns(key, value)?,
                "confirm" => policy.confirm = patterns(key, value)?,
                "block" => policy.block = patterns(key, value)?,
                "protect" => policy.protect = strings(key, value)?,
                "writable" => policy.writable = strings(key, value)?,
                "env" => policy.env = strings(key, value)?,
                "sandbox" => {
                    let text = string(key, value)?;
                    policy.sandbox =
                        text.parse()
                            .map_err(|e: super::sandbox::UnknownSandboxMode| {
                                PolicyError::new(key, e.to_string())
                            })?;
                }
                "network" => policy.network = boolean(key, value)?,
                "external_sandbox" => policy.external_sandbox = boolean(key, value)?,
                "trash" => policy.trash = boolean(key, value)?,
                "password_ttl" => match value {
                    Value::Duration { val, .. } if *val >= 0 => {
                        policy.password_ttl = Duration::from_nanos(*val as u64)
                    }
                    Value::Int { val, .. } if *val >= 0 => {
                        policy.password_ttl = Duration::from_secs(*val as u64)
                    }
                    other => {
                        return Err(PolicyError::new(
                            key,
                            format!("expected a duration such as 5min, got {}", other.get_type()),
                        ));
                    }
                },
                "hook" => match value {
                    Value::Closure { .. } => policy.has_hook = true,
                    Value::Nothing { .. } => policy.has_hook = false,
                    other => {
                        return Err(PolicyError::new(
                            key,
                            format!(
                                "expected a closure {{|plan| ...}} returning allow, confirm or block; got {}",
                                other.get_type()
                            ),
                        ));
                    }
                },
                unknown => {
                    return Err(PolicyError::new(
                        unknown,
                        format!("unknown key (known keys: {})", POLICY_KEYS.join(", ")),
                    ));
                }
            }
        }
        Ok(policy)
    }

    /// The writable roots for a session in `cwd`: the cwd, the system temp
    /// dir and the configured extra roots (`~` expanded).
    pub fn writable_roots(
        &self,
        cwd: &std::path::Path,
        home: Option<&std::path::Path>,
    ) -> Vec<PathBuf> {
        let mut roots = vec![cwd.to_path_buf(), std::env::temp_dir()];
        for raw in &self.writable {
            let path = match (raw.strip_prefix("~/"), home) {
                (Some(rest), Some(home)) => home.join(rest),
                _ if raw == "~" => home
                    .map(PathBuf::from)
                    .unwrap_or_else(|| PathBuf::from(raw)),
                _ => PathBuf::from(raw),
            };
            roots.push(if path.is_absolute() {
                path
            } else {
                cwd.join(path)
            });
        }
        roots
    }
}

impl PolicyError {
    fn with_root(mut self) -> PolicyError {
        self.key = String::new();
        self
    }
}

fn string(key: &str, value: &Value) -> Result<String, PolicyError> {
    match value {
        Value::String { val, .. } => Ok(val.clone()),
        other => Err(PolicyError::new(
            key,
            format!("expected a string, got {}", other.get_type()),
        )),
    }
}

fn boolean(key: &str, value: &Value) -> Result<bool, PolicyError> {
    match value {
        Value::Bool { val, .. } => Ok(*val),
        other => Err(PolicyError::new(
            key,
            format!("expected true or false, got {}", other.get_type()),
        )),
    }
}

fn strings(key: &str, value: &Value) -> Result<Vec<String>, PolicyError> {
    match value {
        Value::List { vals, .. } => vals
            .iter()
            .enumerate()
            .map(|(i, v)| string(&format!("{key}[{i}]"), v))
            .collect(),
        Value::String { val, .. } => Ok(vec![val.clone()]),
        other => Err(PolicyError::new(
            key,
            format!("expected a list of strings, got {}", other.get_type()),
        )),
    }
}

fn patterns(key: &str, value: &Value) -> Result<Vec<Pattern>, PolicyError> {
    strings(key, value)?
        .iter()
        .enumerate()
        .map(|(i, text)| {
            Pattern::new(text).map_err(|e| {
                PolicyError::new(format!("{key}[{i}]"), format!("bad pattern `{text}`: {e}"))
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use nu_protocol::{Record, Span};

    fn record(pairs: Vec<(&str, Value)>) -> Value {
        let mut r = Record::new();
        for (k, v) in pairs {
            r.push(k, v);
        }
        Value::record(r, Span::test_data())
    }

    fn s(text: &str) -> Value {
        Value::string(text, Span::test_data())
    }

    #[test]
    fn reads_every_key() {
        let p = Policy::from_value(&record(vec![
            ("mode", s("yolo")),
            (
                "allow",
                Value::list(vec![s("^git push *")], Span::test_data()),
            ),
            ("block", s("rm *")),
            ("sandbox", s("read-only")),
            ("network", Value::bool(true, Span::test_data())),
            (
                "password_ttl",
                Value::duration(60_000_000_000, Span::test_data()),
            ),
        ]))
        .unwrap();
        assert_eq!(p.mode, Mode::Yolo);
        assert!(p.allow[0].matches("^git push origin"));
        assert!(p.block[0].matches("rm x"));
        assert_eq!(p.sandbox, SandboxMode::ReadOnly);
        assert!(p.network);
        assert_eq!(p.password_ttl, Duration::from_secs(60));
        assert_eq!(
            Policy::from_value(&Value::nothing(Span::test_data())).unwrap(),
            Policy::default()
        );
    }

    #[test]
    fn errors_name_the_key() {
        let e = Policy::from_value(&record(vec![("mdoe", s("yolo"))])).unwrap_err();
        assert_eq!(e.key, "mdoe");
        assert!(e.to_string().contains("unknown key"));
        let e = Policy::from_value(&record(vec![("mode", s("sometimes"))])).unwrap_err();
        assert_eq!(e.key, "mode");
        let e = Policy::from_value(&record(vec![(
            "allow",
            Value::list(vec![s("ls"), s("a\\")], Span::test_data()),
        )]))
        .unwrap_err();
        assert_eq!(e.key, "allow[1]");
        let e = Policy::from_value(&record(vec![("network", s("yes"))])).unwrap_err();
        assert_eq!(e.key, "network");
        let e = Policy::from_value(&s("confirm")).unwrap_err();
        assert!(e.to_string().contains("expected a record"));
    }
}
