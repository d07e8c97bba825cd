//! The agent's configuration: the record in `$env.config.plugins.agent`
//! (or, for `nu-agent`, a file holding the same record as NUON data, parsed
//! and never evaluated), typed and checked.
//! An error names the key it is about, e.g. `policy.mode`.

use std::path::{Path, PathBuf};

use nu_protocol::{ShellError, Value};

use crate::{
    agent::AgentSettings,
    llm::ModelSettings,
    policy::{Policy, PolicyError},
};

/// Keys the configuration record may have.
pub const CONFIG_KEYS: &[&str] = &["policy", "model", "agent"];

/// The whole configuration.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AgentConfig {
    pub policy: Policy,
    /// The `policy.hook` closure, evaluated by the host (the plugin).
    pub policy_hook: Option<Value>,
    /// The `model` record: backend, model and how to run it.
    pub model: ModelSettings,
    /// The `agent` record: how the loop runs.
    pub agent: AgentSettings,
}

/// A configuration that does not validate.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{key}: {message}")]
pub struct ConfigError {
    /// The key path, e.g. `policy.allow[2]`.
    pub key: String,
    pub message: String,
}

/// Configuration text that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConfigTextError {
    /// It is not one NUON record: what is wrong and where (`line 3,
    /// column 15: ...`), and a hint for a known mistake.
    #[error("not a NUON record: {message}")]
    Parse {
        message: String,
        hint: Option<String>,
    },
    /// The record does not validate.
    #[error("{0}")]
    Invalid(ConfigError),
}

/// What `nu-agent config init` writes: every key of the configuration
/// record with its default and why, as NUON comments. Keys whose default
/// is "decided at run time" or "none" are commented out; the rest hold
/// their default values, so the file reads back as the defaults.
pub const CONFIG_TEMPLATE: &str = r#"# nu-agent's configuration: the record of $env.config.plugins.agent, as NUON
# data. It is parsed, never run: literals only (durations like 5min and sizes
# like 64MiB are fine; closures, variables and commands are not).
# Every key below holds its default; change what you need, delete the rest.
{
  policy: {
    # read-only | confirm | auto-read | yolo: confirm asks before anything
    # that writes, deletes, uses the network or runs an unknown program.
    mode: confirm
    # Globs over the command with its arguments, e.g. "^git push origin *".
    allow: []            # run without asking (never lowers a block)
    confirm: []          # always ask
    block: []            # never run
    protect: []          # extra paths never written or deleted (~ expands)
    # off | read-only | workspace-write: the OS sandbox (Landlock + seccomp)
    # lets a run write only beneath the current dir, the temp dir and `writable`.
    sandbox: workspace-write
    writable: []         # extra writable roots for the sandbox
    network: false       # sandboxed runs may not open internet sockets unasked
    external_sandbox: true   # each external runs narrowed to its verdict (a read: read-only, offline)
    env: []              # secret-looking variables the agent may see anyway (names or PREFIX*)
    trash: true          # rm moves to the trash (restore from there); rm --permanent deletes
    password_ttl: 5min   # how long a sudo password typed at the prompt is remembered
    # hook: a closure judging each plan; only in nu config (a file holds no code)
  }
  model: {
    backend: local       # local: a GGUF model run by llama.cpp; openai: an OpenAI-compatible server
    # name: qwen2.5-coder-1.5b  # default: chosen for this machine (see `nu-agent model info`)
    context: 0           # context tokens; 0: the model's own, capped by memory and 32k
    # gpu_layers: 99     # default: all layers when the build has a GPU backend
    # threads: 4         # default: the physical cores other work leaves free, chosen before each turn
    keep_alive: 5min     # the model stays loaded this long after its last use
    think: false         # let the model reason in <think> (slower, sometimes better)
    temperature: 0.2     # 0 to 2: low keeps pipelines predictable
    max_tokens: 1024     # most tokens per model turn
    prefix_cache: true   # save the system prompt's KV state so a new process skips it
    # url: "http://127.0.0.1:8080/v1"   # the server, with backend: openai
    # remote_model: default             # the model name sent to the server
    # api_key_env: OPENAI_API_KEY       # the NAME of the variable holding the key, never the key
    timeout: 2min        # longest wait for the server
    retries: 2           # retries of a 429, a 5xx or a refused connection
    # fallback: local    # go on with the local model when the server cannot be reached
    # hub: "https://huggingface.co"     # where `nu-agent model pull` downloads from
    dirs: []             # extra directories with model files (absolute or ~/...)
  }
  agent: {
    max_steps: 15        # model turns per request
    step_timeout: 5min   # wall-clock limit of one pipeline
    max_output: 64MiB    # output cap per stream of one pipeline
    observe_tokens: 1500 # tokens of one result shown to the model
    # tool_choice: required   # default: required with the local backend (small models), auto with a server
    # context_tools: [git cargo python3 docker]   # default: a built-in list of common programs
    history: true        # save conversations in the state dir
    promote_after: 2min  # a step of ask still running after this goes on as a background job (0sec: never)
    pipeline_grammar: true   # the local model writes only pipelines whose commands exist (false: free text)
    read_named_files: true   # the files a request names are read first and their shape told to the model (with notes on git and the home directory)
    jobs: {              # background jobs (`agent job`)
      max_running: 4     # jobs running at once; the rest wait in a queue
      keep: 100          # finished jobs kept in the state dir
      max_age: 30day     # finished jobs older than this are removed
    }
  }
}
"#;

/// Why `nu-agent config init` did not write the template.
#[derive(Debug, thiserror::Error)]
pub enum ConfigInitError {
    #[error(
        "{} already exists; nothing was written (move it away, or pass --config with another path)",
        path.display()
    )]
    Exists { path: PathBuf },
    #[error("cannot write the configuration file {}: {source}", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// Write [`CONFIG_TEMPLATE`] to `path`, creating its directory; an
/// existing file (or anything else at `path`) is never replaced.
pub fn write_template(path: &Path) -> Result<(), ConfigInitError> {
    let write_error = |source| ConfigInitError::Write {
        path: path.to_path_buf(),
        source,
    };
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(write_error)?;
    }
    // create_new: the check and the creation are one step, so a file that
    // appears meanwhile is not overwritten either.
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|source| {
            if source.kind() == std::io::ErrorKind::AlreadyExists {
                ConfigInitError::Exists {
                    path: path.to_path_buf(),
                }
            } else {
                write_error(source)
            }
        })?;
    std::io::Write::write_all(&mut file, CONFIG_TEMPLATE.as_bytes()).map_err(write_error)
}

impl ConfigTextError {
    fn in_file(self, path: &Path) -> ConfigFileError {
        let path = path.to_path_buf();
        match self {
            ConfigTextError::Parse { message, hint } => ConfigFileError::Parse {
                path,
                message,
                hint,
            },
            ConfigTextError::Invalid(error) => ConfigFileError::Invalid { path, error },
        }
    }
}

/// A configuration file that cannot be used; the message names the file,
/// and the key when a value is wrong.
#[derive(Debug, thiserror::Error)]
pub enum ConfigFileError {
    #[error("cannot read the configuration file {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("the configuration file {} is not a NUON record: {message}", path.display())]
    Parse {
        path: PathBuf,
        message: String,
        hint: Option<String>,
    },
    #[error("the configuration file {} is invalid: {error}", path.display())]
    Invalid { path: PathBuf, error: ConfigError },
}

impl ConfigFileError {
    /// The file.
    pub fn path(&self) -> &Path {
        match self {
            ConfigFileError::Read { path, .. }
            | ConfigFileError::Parse { path, .. }
            | ConfigFileError::Invalid { path, .. } => path,
        }
    }

    /// The key path of a value that does not validate, e.g. `policy.mode`.
    pub fn key(&self) -> Option<&str> {
        match self {
            ConfigFileError::Invalid { error, .. } => Some(&error.key),
            _ => None,
        }
    }

    /// What to do about it, in one line.
    pub fn help(&self) -> String {
        let path = self.path().display();
        match self {
            ConfigFileError::Read { .. } => {
                format!("create {path}, or point --config or NU_AGENT_CONFIG at a readable file")
            }
            ConfigFileError::Parse {
                hint: Some(hint), ..
            } => hint.clone(),
            ConfigFileError::Parse { .. } => format!(
                "{path} holds one NUON record, the same as $env.config.plugins.agent, e.g. {{ policy: {{ mode: confirm }} }}; it is data: no closures, variables or commands"
            ),
            ConfigFileError::Invalid { error, .. } => format!(
                "fix `{}` in {path}; nothing runs under a policy that cannot be read",
                error.key
            ),
        }
    }
}

/// A NUON parse error of `text` with the line and column of the mistake.
/// A word where a key should be is the usual one (`keep_alive: 5 minutes`:
/// nu reads `minutes` as the next key and stumbles on the key after it),
/// so the error points at that word, and at a number and a unit written
/// apart says how to write them.
fn located(text: &str, error: &ShellError) -> ConfigTextError {
    let Some((at, end, msg)) = nuon_span(text, error) else {
        return ConfigTextError::Parse {
            message: nuon_message(error),
            hint: None,
        };
    };
    let key_expected = msg.starts_with("Expected `:` after record key")
        || msg.starts_with("Incomplete record field");
    if key_expected && let Some((stray, value)) = stray_word(text, at) {
        let (line, column) = line_column(text, stray.0);
        let word = &text[stray.0..stray.1];
        return match value {
            Some(value) => {
                let number = &text[value.0..value.1];
                let (line, column) = line_column(text, value.0);
                match unit_of(word).filter(|_| is_number(number)) {
                    Some(unit) => ConfigTextError::Parse {
                        message: format!(
                            "line {line}, column {column}: `{number} {word}` is a number and a unit written apart"
                        ),
                        hint: Some(format!(
                            "`{number} {word}` is not NUON; write {number}{unit}"
                        )),
                    },
                    None => ConfigTextError::Parse {
                        message: format!(
                            "line {line}, column {column}: `{number} {word}` is two words where one value should be (nu reads `{word}` as the next key)"
                        ),
                        hint: Some(format!(
                            "quote a value of several words (\"{number} {word}\"); fields are `key: value`, separated by newlines or commas"
                        )),
                    },
                }
            }
            None => ConfigTextError::Parse {
                message: format!("line {line}, column {column}: `{word}` has no `:` after it"),
                hint: Some("fields are `key: value`, separated by newlines or commas".to_string()),
            },
        };
    }
    let (line, column) = line_column(text, at);
    let shown = shown(text.get(at..end).unwrap_or_default());
    // `{ mode confirm }`: braces without `key:` fields read as code.
    let code = msg.starts_with("closures not supported") || msg.starts_with("blocks not supported");
    ConfigTextError::Parse {
        message: match shown {
            Some(shown) => format!("line {line}, column {column}: {msg}, at `{shown}`"),
            None => format!("line {line}, column {column}: {msg}"),
        },
        hint: code.then(|| {
            "a record's fields are `key: value` (`{ mode: confirm }`); braces without them read as code, which a config file cannot hold".to_string()
        }),
    }
}

/// Where in `text` a NUON error points (start, end) and its message: nuon
/// reports a window of the text and a span within it.
fn nuon_span(text: &str, error: &ShellError) -> Option<(usize, usize, String)> {
    match error {
        ShellError::Generic(generic) => nuon_span(text, generic.inner.first()?),
        ShellError::OutsideSpannedLabeledError { src, msg, span, .. } => {
            let window = text.find(src.as_str())?;
            let at = (window + span.start).min(text.len());
            let end = (window + span.end).clamp(at, text.len());
            (text.is_char_boundary(at) && text.is_char_boundary(end))
                .then(|| (at, end, msg.clone()))
        }
        _ => None,
    }
}

/// The word before `at` that nu took for a key (its start and end), and
/// the value word before it on the same line, if one is there.
#[allow(clippy::type_complexity)]
fn stray_word(text: &str, at: usize) -> Option<((usize, usize), Option<(usize, usize)>)> {
    let code = without_comments(text);
    let word_before = |end: usize| -> Option<(usize, usize)> {
        let trimmed = code
            .get(..end)?
            .trim_end_matches(|c: char| c.is_whitespace() || c == ',');
        let end = trimmed.len();
        let start = trimmed
            .char_indices()
            .rev()
            .find(|(_, c)| c.is_whitespace() || matches!(c, ',' | '{' | '[' | ':' | '}' | ']'))
            .map_or(0, |(i, c)| i + c.len_utf8());
        (start < end).then_some((start, end))
    };
    let stray = word_before(at)?;
    // A value only on the same line, with nothing but blanks between: a
    // word on a line of its own, or after a comma, is a key without `:`.
    let value = word_before(stray.0).filter(|value| {
        code[value.1..stray.0]
            .chars()
            .all(|c| c == ' ' || c == '\t')
    });
    Some((stray, value))
}

/// The NUON unit for a unit word written apart from its number
/// (`minutes` → `min`, `MB` → `mb`).
fn unit_of(word: &str) -> Option<&'static str> {
    Some(match word.to_ascii_lowercase().as_str() {
        "ns" | "nanosecond" | "nanoseconds" => "ns",
        "us" | "µs" | "microsecond" | "microseconds" => "us",
        "ms" | "millisecond" | "milliseconds" => "ms",
        "s" | "sec" | "secs" | "second" | "seconds" => "sec",
        "m" | "min" | "mins" | "minute" | "minutes" => "min",
        "h" | "hr" | "hrs" | "hour" | "hours" => "hr",
        "d" | "day" | "days" => "day",
        "w" | "wk" | "wks" | "week" | "weeks" => "wk",
        "b" | "byte" | "bytes" => "b",
        "kb" => "kb",
        "mb" => "mb",
        "gb" => "gb",
        "tb" => "tb",
        "kib" => "kib",
        "mib" => "mib",
        "gib" => "gib",
        "tib" => "tib",
        _ => return None,
    })
}

/// `text` with its `#` comments blanked out (same length, so offsets
/// still point into `text`).
fn without_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let mut quote: Option<char> = None;
        let mut previous = ' ';
        let mut comment_at = None;
        for (i, c) in line.char_indices() {
            match quote {
                Some(q) if c == q && previous != '\\' => quote = None,
                Some(_) => {}
                None if matches!(c, '"' | '\'' | '`') => quote = Some(c),
                None if c == '#' && previous.is_whitespace() => {
                    comment_at = Some(i);
                    break;
                }
                None => {}
            }
            previous = c;
        }
        match comment_at {
            Some(i) => {
                out.push_str(&line[..i]);
                let rest = &line[i..];
                let newline = rest.ends_with('\n');
                let blank = rest.len() - usize::from(newline);
                out.extend(std::iter::repeat_n(' ', blank));
                if newline {
                    out.push('\n');
                }
            }
            None => out.push_str(line),
        }
    }
    out
}

fn is_number(word: &str) -> bool {
    word.replace('_', "").parse::<f64>().is_ok()
}

/// 1-based line and column (in characters) of byte `at` of `text`.
fn line_column(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

/// `at` trimmed and cut to 60 characters; `None` when empty.
fn shown(at: &str) -> Option<String> {
    let at = at.trim();
    if at.is_empty() {
        return None;
    }
    let mut shown: String = at.chars().take(60).collect();
    if shown.len() < at.len() {
        shown.push('…');
    }
    Some(shown)
}

/// The innermost message of a NUON parse error, with the text it points
/// at.
pub(crate) fn nuon_message(error: &ShellError) -> String {
    match error {
        ShellError::Generic(generic) => match generic.inner.first() {
            Some(inner) => nuon_message(inner),
            None => generic.msg.to_string(),
        },
        ShellError::OutsideSpannedLabeledError { src, msg, span, .. } => {
            let at = src
                .get(span.start..span.end)
                .map(str::trim)
                .filter(|at| !at.is_empty());
            match at {
                Some(at) => {
                    let mut shown: String = at.chars().take(60).collect();
                    if shown.len() < at.len() {
                        shown.push('…');
                    }
                    format!("{msg}, at `{shown}`")
                }
                None => msg.clone(),
            }
        }
        other => other.to_string(),
    }
}

impl From<PolicyError> for ConfigError {
    fn from(e: PolicyError) -> ConfigError {
        ConfigError {
            key: if e.key.is_empty() {
                "policy".into()
            } else {
                format!("policy.{}", e.key)
            },
            message: e.message,
        }
    }
}

impl AgentConfig {
    /// Read the configuration record; `None` or `nothing` gives the defaults.
    pub fn from_value(value: Option<&Value>) -> Result<AgentConfig, ConfigError> {
        let mut config = AgentConfig::default();
        let record = match value {
            None | Some(Value::Nothing { .. }) => return Ok(config),
            Some(Value::Record { val, .. }) => val,
            Some(Value::Error { error, .. }) => {
                return Err(ConfigError {
                    key: "$env.config.plugins.agent".into(),
                    message: format!("evaluating it failed: {error}"),
                });
            }
            Some(other) => {
                return Err(ConfigError {
                    key: "$env.config.plugins.agent".into(),
                    message: format!("expected a record, got {}", other.get_type()),
                });
            }
        };
        for (key, value) in record.iter() {
            match key.as_str() {
                "policy" => {
                    config.policy = Policy::from_value(value)?;
                    config.policy_hook = value
                        .as_record()
                        .ok()
                        .and_then(|r| r.get("hook"))
                        .filter(|v| matches!(v, Value::Closure { .. }))
                        .cloned();
                }
                "model" => config.model = ModelSettings::from_value(value)?,
                "agent" => config.agent = AgentSettings::from_value(value)?,
                unknown => {
                    return Err(ConfigError {
                        key: unknown.to_string(),
                        message: format!("unknown key (known keys: {})", CONFIG_KEYS.join(", ")),
                    });
                }
            }
        }
        Ok(config)
    }

    /// Read the configuration from a file holding the record as NUON data
    /// (`{ policy: { mode: confirm } }`, as in nu config). The text is
    /// parsed, never evaluated: literals only (durations and file sizes
    /// keep their units; closures, variables and commands are refused).
    /// Comments, CRLF line ends and trailing whitespace are fine; an empty
    /// file gives the defaults. The record goes through the same checks as
    /// `$env.config.plugins.agent` ([`AgentConfig::from_value`]).
    pub fn from_file(path: &Path) -> Result<AgentConfig, ConfigFileError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigFileError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        AgentConfig::from_nuon(&text).map_err(|error| error.in_file(path))
    }

    /// Read the configuration from NUON text (the contents of a config
    /// file); see [`AgentConfig::from_file`].
    pub fn from_nuon(text: &str) -> Result<AgentConfig, ConfigTextError> {
        let value = nuon::from_nuon(text, None).map_err(|error| located(text, &error))?;
        match &value {
            Value::Record { .. } | Value::Nothing { .. } => {
                AgentConfig::from_value(Some(&value)).map_err(ConfigTextError::Invalid)
            }
            other => Err(ConfigTextError::Parse {
                message: format!(
                    "expected a record such as {{ policy: {{ mode: confirm }} }}, got {}",
                    other.get_type()
                ),
                hint: None,
            }),
        }
    }

    /// The configuration file `nu-agent` reads: `NU_AGENT_CONFIG`, else
    /// `$XDG_CONFIG_HOME/nu-agent/config.nuon` (`~/.config/...`) if it exists.
    pub fn default_file() -> Option<PathBuf> {
        if let Some(path) = std::env::var_os("NU_AGENT_CONFIG").filter(|p| !p.is_empty()) {
            return Some(PathBuf::from(path));
        }
        AgentConfig::default_path().filter(|path| path.is_file())
    }

    /// Where `nu-agent`'s configuration file goes: `NU_AGENT_CONFIG`, else
    /// `$XDG_CONFIG_HOME/nu-agent/config.nuon` (`~/.config/...`), whether
    /// or not it exists; `None` without a home directory.
    pub fn default_path() -> Option<PathBuf> {
        if let Some(path) = std::env::var_os("NU_AGENT_CONFIG").filter(|p| !p.is_empty()) {
            return Some(PathBuf::from(path));
        }
        let base = std::env::var_os("XDG_CONFIG_HOME")
            .filter(|p| !p.is_empty())
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
        Some(base.join("nu-agent").join("config.nuon"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nu_protocol::{Record, Span};

    #[test]
    fn errors_name_the_full_key() {
        let mut policy = Record::new();
        policy.push("mode", Value::test_string("sometimes"));
        let mut top = Record::new();
        top.push("policy", Value::test_record(policy));
        let err = AgentConfig::from_value(Some(&Value::test_record(top))).unwrap_err();
        assert_eq!(err.key, "policy.mode");
        let mut top = Record::new();
        top.push("polcy", Value::test_record(Record::new()));
        let err = AgentConfig::from_value(Some(&Value::test_record(top))).unwrap_err();
        assert_eq!(err.key, "polcy");
        assert!(AgentConfig::from_value(Some(&Value::nothing(Span::test_data()))).is_ok());
    }

    #[test]
    fn a_nuon_mistake_is_located_with_a_hint() {
        let parse = |text: &str| match AgentConfig::from_nuon(text) {
            Err(ConfigTextError::Parse { message, hint }) => (message, hint),
            other => panic!("{text:?}: {other:?}"),
        };
        // nu stumbles on the key after `5 minutes`; the mistake is on the
        // line before, ahead of a comment.
        let text =
            "{\n  model: {\n    keep_alive: 5 minutes   # how long\n    think: false\n  }\n}\n";
        assert_eq!(
            parse(text),
            (
                "line 3, column 17: `5 minutes` is a number and a unit written apart".into(),
                Some("`5 minutes` is not NUON; write 5min".into())
            )
        );
        // The last field of its record.
        let (message, hint) = parse("{ policy: { password_ttl: 2 MB } }");
        assert!(
            message.starts_with("line 1, column 27: `2 MB`"),
            "{message}"
        );
        assert_eq!(hint.as_deref(), Some("`2 MB` is not NUON; write 2mb"));
        let (message, hint) = parse("{ model: { name: my model, think: false } }");
        assert!(
            message.starts_with("line 1, column 18: `my model` is two words"),
            "{message}"
        );
        assert!(hint.unwrap().contains("\"my model\""));
        let (message, hint) = parse("{\n policy: { mode confirm } }");
        assert_eq!(
            message,
            "line 2, column 10: closures not supported in nuon, at `{ mode confirm }`"
        );
        assert!(hint.unwrap().contains("`key: value`"));
        let (message, _) = parse("{ policy: { mode: confirm\n sandbox } }");
        assert_eq!(message, "line 2, column 2: `sandbox` has no `:` after it");
        // Other errors are located too, with the text they point at.
        let (message, hint) = parse("{ policy: { mode: (mkdir made) } }");
        assert!(message.starts_with("line 1, column 19: "), "{message}");
        assert!(message.contains("(mkdir made)"), "{message}");
        assert_eq!(hint, None);
    }

    #[test]
    fn reads_a_config_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.nuon");
        std::fs::write(
            &path,
            "{ policy: { mode: read-only, block: [\"^git push *\"] } }",
        )
        .unwrap();
        let config = AgentConfig::from_file(&path).unwrap();
        assert_eq!(config.policy.mode, crate::policy::Mode::ReadOnly);
        std::fs::write(
            &path,
            "{ policy: { password_ttl: 1min }, model: { keep_alive: 90sec, context: 4096 } }",
        )
        .unwrap();
        let config = AgentConfig::from_file(&path).unwrap();
        assert_eq!(
            config.policy.password_ttl,
            std::time::Duration::from_secs(60)
        );
        assert_eq!(config.model.keep_alive, std::time::Duration::from_secs(90));
        assert_eq!(config.model.context, Some(4096));
        std::fs::write(&path, "{ model: { context: big } }").unwrap();
        assert_eq!(
            AgentConfig::from_file(&path).unwrap_err().key(),
            Some("model.context")
        );
        std::fs::write(&path, "{ policy: { mode: 3 } }").unwrap();
        assert_eq!(
            AgentConfig::from_file(&path).unwrap_err().key(),
            Some("policy.mode")
        );
    }

    const BLOCK_GIT: &str = r#"{ policy: { block: ["^git *"] } }"#;

    fn file_with(text: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.nuon");
        std::fs::write(&path, text).unwrap();
        (dir, path)
    }

    fn blocks_git(config: &AgentConfig) -> bool {
        config.policy.block.len() == 1 && config.policy.block[0].matches("^git status")
    }

    #[test]
    fn newlines_comments_and_crlf_read_the_same_record() {
        let (_dir, path) = file_with(BLOCK_GIT);
        let plain = AgentConfig::from_file(&path).unwrap();
        assert!(blocks_git(&plain), "{:?}", plain.policy);
        for text in [
            format!("{BLOCK_GIT}\n"),
            format!("{BLOCK_GIT}\n\n  \t\n"),
            format!("# nu-agent's configuration\n{BLOCK_GIT} # the policy\n"),
            "{\r\n  policy: {\r\n    block: [\"^git *\"] # no git\r\n  }\r\n}\r\n".to_string(),
        ] {
            let (_dir, path) = file_with(&text);
            let config = AgentConfig::from_file(&path).unwrap_or_else(|e| panic!("{text:?}: {e}"));
            assert_eq!(config, plain, "{text:?}");
        }
    }

    #[test]
    fn a_bad_mode_is_refused_naming_the_key_and_the_file() {
        for text in [
            "{ policy: { mode: nonsense } }",
            "{ policy: { mode: nonsense } }\n",
            "{ policy: { mode: \"nonsense\" } }\r\n",
        ] {
            let (_dir, path) = file_with(text);
            let err = AgentConfig::from_file(&path).unwrap_err();
            assert_eq!(err.key(), Some("policy.mode"), "{text:?}");
            let message = err.to_string();
            assert!(message.contains(&path.display().to_string()), "{message}");
            assert!(message.contains("nonsense"), "{message}");
            assert!(err.help().contains("policy.mode"), "{}", err.help());
        }
    }

    #[test]
    fn an_unknown_key_is_refused_naming_it() {
        let (_dir, path) = file_with("{ policy: { mode: confirm }, polcy: {} }\n");
        let err = AgentConfig::from_file(&path).unwrap_err();
        assert_eq!(err.key(), Some("polcy"));
        assert!(err.to_string().contains("unknown key"), "{err}");
        let (_dir, path) = file_with("{ policy: { blok: [\"^git *\"] } }\n");
        assert_eq!(
            AgentConfig::from_file(&path).unwrap_err().key(),
            Some("policy.blok")
        );
    }

    #[test]
    fn the_file_is_data_not_code() {
        let marker = tempfile::tempdir().unwrap();
        let touched = marker.path().join("touched");
        for text in [
            format!("{{ policy: {{ mode: (touch {}) }} }}", touched.display()),
            format!("touch {}; {BLOCK_GIT}", touched.display()),
            format!("{BLOCK_GIT}\n| to nuon"),
            "{ policy: { hook: {|plan| \"allow\"} } }".to_string(),
            "{ policy: { mode: $env.MODE } }".to_string(),
            "{ policy: { mode: confirm }".to_string(),
            "[1 2 3]".to_string(),
        ] {
            let (_dir, path) = file_with(&text);
            let err = AgentConfig::from_file(&path).unwrap_err();
            assert!(
                matches!(err, ConfigFileError::Parse { .. }),
                "{text:?}: {err}"
            );
            assert!(
                err.to_string().contains(&path.display().to_string()),
                "{err}"
            );
        }
        assert!(!touched.exists());
    }

    #[test]
    fn durations_and_file_sizes_keep_their_units() {
        let (_dir, path) = file_with(
            "{\n  policy: { password_ttl: 5min }\n  model: { keep_alive: 2hr, timeout: 1500ms }\n  agent: { step_timeout: 30sec }\n}\n",
        );
        let config = AgentConfig::from_file(&path).unwrap();
        assert_eq!(
            config.policy.password_ttl,
            std::time::Duration::from_secs(300)
        );
        assert_eq!(
            config.model.keep_alive,
            std::time::Duration::from_secs(7200)
        );
        assert_eq!(config.model.timeout, std::time::Duration::from_millis(1500));
        assert_eq!(
            config.agent.step_timeout,
            std::time::Duration::from_secs(30)
        );
        let value = nuon::from_nuon("{ size: 1mb }\n", None).unwrap();
        assert_eq!(
            value.get_data_by_key("size").map(|v| v.get_type()),
            Some(nu_protocol::Type::Filesize)
        );
    }

    #[test]
    fn an_empty_file_gives_the_defaults_and_a_missing_one_names_itself() {
        let (_dir, path) = file_with("# nothing configured yet\n");
        assert_eq!(
            AgentConfig::from_file(&path).unwrap(),
            AgentConfig::default()
        );
        let missing = path.with_file_name("missing.nuon");
        let err = AgentConfig::from_file(&missing).unwrap_err();
        assert!(matches!(err, ConfigFileError::Read { .. }), "{err}");
        assert!(err.to_string().contains("missing.nuon"), "{err}");
    }

    /// The record the plugin gets from the host and the file's record go
    /// through the same checks and give the same configuration.
    #[test]
    fn the_host_value_and_the_file_are_checked_alike() {
        let record = |pairs: Vec<(&str, Value)>| {
            let mut r = Record::new();
            for (k, v) in pairs {
                r.push(k, v);
            }
            Value::test_record(r)
        };
        let host = record(vec![(
            "policy",
            record(vec![(
                "block",
                Value::test_list(vec![Value::test_string("^git *")]),
            )]),
        )]);
        let from_host = AgentConfig::from_value(Some(&host)).unwrap();
        assert!(blocks_git(&from_host));
        assert_eq!(AgentConfig::from_nuon(BLOCK_GIT).unwrap(), from_host);

        let bad_mode = record(vec![(
            "policy",
            record(vec![("mode", Value::test_string("nonsense"))]),
        )]);
        assert_eq!(
            AgentConfig::from_value(Some(&bad_mode)).unwrap_err().key,
            "policy.mode"
        );
        let unknown = record(vec![("policy", record(vec![])), ("modle", record(vec![]))]);
        let err = AgentConfig::from_value(Some(&unknown)).unwrap_err();
        assert_eq!(err.key, "modle");
        assert!(err.message.contains("unknown key"), "{err}");
    }

    #[test]
    fn the_template_reads_back_as_the_defaults() {
        assert_eq!(
            AgentConfig::from_nuon(CONFIG_TEMPLATE).unwrap(),
            AgentConfig::default()
        );
        // Uncommenting a line gives a valid configuration too.
        let uncommented: String = CONFIG_TEMPLATE
            .lines()
            .map(|line| match line.trim_start().strip_prefix("# ") {
                Some(rest)
                    if rest.split_once(':').is_some_and(|(key, _)| {
                        crate::llm::MODEL_KEYS.contains(&key)
                            || crate::agent::AGENT_KEYS.contains(&key)
                    }) =>
                {
                    format!("{rest}\n")
                }
                _ => format!("{line}\n"),
            })
            .collect();
        let config = AgentConfig::from_nuon(&uncommented).unwrap();
        assert_eq!(config.model.name.as_deref(), Some("qwen2.5-coder-1.5b"));
        assert!(config.model.fallback_local);
    }

    #[test]
    fn the_template_names_every_key() {
        let keys = [
            ("policy", crate::policy::POLICY_KEYS),
            ("model", crate::llm::MODEL_KEYS),
            ("agent", crate::agent::AGENT_KEYS),
        ];
        for (section, section_keys) in keys {
            assert!(CONFIG_TEMPLATE.contains(&format!("  {section}: {{")));
            for key in section_keys {
                let named = CONFIG_TEMPLATE.lines().any(|line| {
                    let line = line.trim_start();
                    let line = line.strip_prefix("# ").unwrap_or(line);
                    line.starts_with(&format!("{key}:"))
                });
                assert!(named, "{section}.{key} is not in the template");
            }
        }
    }

    #[test]
    fn the_template_is_written_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("deeper").join("config.nuon");
        write_template(&path).unwrap();
        assert_eq!(
            AgentConfig::from_file(&path).unwrap(),
            AgentConfig::default()
        );
        std::fs::write(&path, "{ policy: { mode: yolo } }").unwrap();
        let err = write_template(&path).unwrap_err();
        assert!(matches!(err, ConfigInitError::Exists { .. }), "{err}");
        assert!(
            err.to_string().contains(&path.display().to_string()),
            "{err}"
        );
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "{ policy: { mode: yolo } }"
        );
    }
}
