//! The `agent` record of the configuration: how the loop runs and what the
//! system context checks.

use std::time::Duration;

use nu_protocol::Value;

use super::{
    levers::{Lever, Levers},
    prompt::PromptKind,
};
use crate::{
    config::ConfigError,
    llm::{
        ToolChoice,
        settings::{boolean, count, duration, string},
    },
    observe::ObserveMode,
};

/// How the loop runs.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentOptions {
    pub kind: PromptKind,
    /// Most model turns per request (`ask --max-steps`).
    pub max_steps: usize,
    /// `Required` makes every turn a tool call (small local models only
    /// call tools when held to it); `Auto` lets the model answer in text.
    pub tool_choice: ToolChoice,
    /// Tokens of one result's rendering for the model.
    pub observe_tokens: usize,
    /// The model's context, in tokens: older messages are shortened to
    /// stay inside it.
    pub context_tokens: usize,
    /// Most tokens per model turn.
    pub max_tokens: u32,
    pub temperature: f32,
    /// Wall-clock limit of one pipeline.
    pub step_timeout: Option<Duration>,
    /// Most bytes collected from one stream of a step (the output cap).
    pub max_output: usize,
    /// A step still running after this long goes on as a background job
    /// (where there is a runner and the sandbox worker runs steps).
    pub promote_after: Option<Duration>,
    /// How results are written for the model (compact unless measuring).
    pub observe: ObserveMode,
    /// Hold the `nu` tool's pipeline to Nushell's shape, its elements
    /// starting with what the session knows (see
    /// [`crate::llm::PipelineGrammar`]; a backend that cannot ignores it).
    pub pipeline_grammar: bool,
    /// Read the files a task's request names (within the working
    /// directory, when the policy allows it) and tell the model their
    /// shape with the request (see `named_files`), with the notes on a
    /// git repository and the home directory.
    pub read_named_files: bool,
    /// The parts of the loop switched off (to measure them; all on in
    /// `ask`). The grammar's and the named files' levers are the two
    /// settings above: see [`AgentOptions::without`].
    pub levers: Levers,
}

impl Default for AgentOptions {
    fn default() -> AgentOptions {
        AgentOptions {
            kind: PromptKind::Task,
            max_steps: 15,
            tool_choice: ToolChoice::Auto,
            observe_tokens: 1_500,
            context_tokens: 8_192,
            max_tokens: 1_024,
            temperature: 0.2,
            step_timeout: Some(Duration::from_secs(300)),
            max_output: crate::shell::DEFAULT_MAX_OUTPUT,
            promote_after: Some(Duration::from_secs(120)),
            observe: ObserveMode::Compact,
            pipeline_grammar: true,
            read_named_files: true,
            levers: Levers::default(),
        }
    }
}

impl AgentOptions {
    /// These options with `levers` switched off.
    pub fn without(mut self, levers: Levers) -> AgentOptions {
        self.pipeline_grammar &= levers.on(Lever::PipelineGrammar);
        self.read_named_files &= levers.on(Lever::NamedFiles);
        self.levers = levers;
        self
    }

    /// Whether a task's model is offered the `sh` tool (the `posix`
    /// lever).
    pub fn offers_sh(&self) -> bool {
        self.kind == PromptKind::Task && self.on(Lever::Posix)
    }

    /// Whether `lever` is on.
    pub fn on(&self, lever: Lever) -> bool {
        self.levers.on(lever)
    }
}

/// Keys the `agent` record may have.
pub const AGENT_KEYS: &[&str] = &[
    "max_steps",
    "step_timeout",
    "max_output",
    "observe_tokens",
    "tool_choice",
    "context_tools",
    "history",
    "jobs",
    "promote_after",
    "pipeline_grammar",
    "read_named_files",
];

/// The keys of `agent.jobs`.
pub const JOB_KEYS: &[&str] = &["max_running", "keep", "max_age"];

/// Background jobs (`agent.jobs`).
#[derive(Clone, Debug, PartialEq)]
pub struct JobSettings {
    /// Jobs running at once; the rest wait in a queue.
    pub max_running: usize,
    /// Finished jobs kept on disk (the oldest go first).
    pub keep: usize,
    /// Finished jobs older than this are removed.
    pub max_age: Duration,
}

impl Default for JobSettings {
    fn default() -> JobSettings {
        JobSettings {
            max_running: 4,
            keep: 100,
            max_age: Duration::from_secs(30 * 24 * 3600),
        }
    }
}

impl JobSettings {
    fn from_value(value: &Value) -> Result<JobSettings, ConfigError> {
        let mut settings = JobSettings::default();
        let Value::Record { val, .. } = value else {
            return Err(error(
                "jobs",
                format!("expected a record, got {}", value.get_type()),
            ));
        };
        for (key, value) in val.iter() {
            let name = format!("jobs.{key}");
            match key.as_str() {
                "max_running" => {
                    settings.max_running = count(&name, value).map_err(rekey)? as usize;
                    if settings.max_running == 0 {
                        return Err(error(&name, "expected an int above 0, got 0"));
                    }
                }
                "keep" => settings.keep = count(&name, value).map_err(rekey)? as usize,
                "max_age" => settings.max_age = duration(&name, value).map_err(rekey)?,
                _ => {
                    return Err(error(
                        &name,
                        format!("unknown key (known keys: {})", JOB_KEYS.join(", ")),
                    ));
                }
            }
        }
        Ok(settings)
    }
}

/// The `agent` settings, with their defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentSettings {
    /// Most model turns per request.
    pub max_steps: usize,
    /// Wall-clock limit of one pipeline.
    pub step_timeout: Duration,
    /// Most bytes collected from one stream of a pipeline (the output
    /// cap), for the agent's steps and `agent run`.
    pub max_output: usize,
    /// Tokens of one result's rendering for the model.
    pub observe_tokens: usize,
    /// `auto`, or `required` (every turn a tool call: for small models),
    /// `None`: required for the local backend, auto for a server.
    pub tool_choice: Option<ToolChoice>,
    /// Programs the system context reports as installed or missing;
    /// `None`: `context::DEFAULT_TOOLS`.
    pub context_tools: Option<Vec<String>>,
    /// Save conversations in the state dir.
    pub history: bool,
    /// Background jobs.
    pub jobs: JobSettings,
    /// A step of `ask` still running after this long becomes a background
    /// job; `None` (`promote_after: 0sec`) never.
    pub promote_after: Option<Duration>,
    /// Hold the local model's pipelines to Nushell's shape: each pipeline
    /// element starts with a command, a program or a value the session
    /// knows, and quotes and brackets balance (off: a free string, for
    /// an ablation).
    pub pipeline_grammar: bool,
    /// Read the files a task's request names (plain files in the working
    /// directory the policy lets `open` without a question) and tell the
    /// model their shape with the request, with the notes on a git
    /// repository and the home directory (off: for an ablation).
    pub read_named_files: bool,
}

impl Default for AgentSettings {
    fn default() -> AgentSettings {
        AgentSettings {
            max_steps: 15,
            step_timeout: Duration::from_secs(300),
            max_output: crate::shell::DEFAULT_MAX_OUTPUT,
            observe_tokens: 1_500,
            tool_choice: None,
            context_tools: None,
            history: true,
            jobs: JobSettings::default(),
            promote_after: Some(Duration::from_secs(120)),
            pipeline_grammar: true,
            read_named_files: true,
        }
    }
}

impl AgentSettings {
    /// Read the `agent` record; `nothing` gives the defaults. Errors name
    /// the key, e.g. `agent.max_steps`.
    pub fn from_value(value: &Value) -> Result<AgentSettings, ConfigError> {
        let mut settings = AgentSettings::default();
        let record = match value {
            Value::Nothing { .. } => return Ok(settings),
            Value::Record { val, .. } => val,
            other => {
                return Err(error(
                    "",
                    format!("expected a record, got {}", other.get_type()),
                ));
            }
        };
        for (key, value) in record.iter() {
            let key = key.as_str();
            if matches!(value, Value::Nothing { .. }) && AGENT_KEYS.contains(&key) {
                continue;
            }
            match key {
                "max_steps" => {
                    settings.max_steps = count(key, value).map_err(rekey)? as usize;
                    if settings.max_steps == 0 {
                        return Err(error(key, "expected an int above 0, got 0"));
                    }
                }
                "step_timeout" => settings.step_timeout = duration(key, value).map_err(rekey)?,
                "max_output" => settings.max_output = max_output(key, value)?,
                "observe_tokens" => {
                    settings.observe_tokens = (count(key, value).map_err(rekey)? as usize).max(100)
                }
                "tool_choice" => {
                    settings.tool_choice = Some(match string(key, value).map_err(rekey)?.as_str() {
                        "auto" => ToolChoice::Auto,
                        "required" => ToolChoice::Required,
                        other => {
                            return Err(error(
                                key,
                                format!("expected auto or required, got `{other}`"),
                            ));
                        }
                    })
                }
                "context_tools" => {
                    let Value::List { vals, .. } = value else {
                        return Err(error(
                            key,
                            format!("expected a list of program names, got {}", value.get_type()),
                        ));
                    };
                    settings.context_tools = Some(
                        vals.iter()
                            .enumerate()
                            .map(|(i, v)| string(&format!("{key}[{i}]"), v).map_err(rekey))
                            .collect::<Result<_, _>>()?,
                    );
                }
                "history" => settings.history = boolean(key, value).map_err(rekey)?,
                "pipeline_grammar" => {
                    settings.pipeline_grammar = boolean(key, value).map_err(rekey)?
                }
                "read_named_files" => {
                    settings.read_named_files = boolean(key, value).map_err(rekey)?
                }
                "jobs" => settings.jobs = JobSettings::from_value(value)?,
                "promote_after" => {
                    let after = duration(key, value).map_err(rekey)?;
                    settings.promote_after = (!after.is_zero()).then_some(after);
                }
                unknown => {
                    return Err(error(
                        unknown,
                        format!("unknown key (known keys: {})", AGENT_KEYS.join(", ")),
                    ));
                }
            }
        }
        Ok(settings)
    }
}

impl AgentOptions {
    /// The loop's options for `kind` from the whole configuration: the
    /// `agent` record, and the model's token budget, temperature and
    /// context. Every turn is a tool call with the local backend (small
    /// models call tools only when held to it) unless `agent.tool_choice`
    /// says otherwise.
    pub fn from_config(config: &crate::config::AgentConfig, kind: PromptKind) -> Self {
        let agent = &config.agent;
        let model = &config.model;
        AgentOptions {
            kind,
            max_steps: agent.max_steps,
            tool_choice: agent.tool_choice.unwrap_or(match model.backend {
                crate::llm::BackendKind::Local => ToolChoice::Required,
                crate::llm::BackendKind::OpenAi => ToolChoice::Auto,
            }),
            observe_tokens: agent.observe_tokens,
            context_tokens: model.context.map_or(8_192, |c| c as usize),
            max_tokens: model.max_tokens,
            temperature: model.temperature,
            step_timeout: Some(agent.step_timeout),
            max_output: agent.max_output,
            promote_after: agent.promote_after,
            observe: crate::observe::ObserveMode::Compact,
            pipeline_grammar: agent.pipeline_grammar,
            read_named_files: agent.read_named_files,
            levers: Levers::default(),
        }
    }
}

/// A positive file size (`200MiB`), or a string that reads as one.
fn max_output(key: &str, value: &Value) -> Result<usize, ConfigError> {
    let bytes = match value {
        Value::Filesize { val, .. } => usize::try_from(val.get()).ok().filter(|b| *b > 0),
        Value::Int { val, .. } => usize::try_from(*val).ok().filter(|b| *b > 0),
        Value::String { val, .. } => {
            return crate::shell::parse_size(val).map_err(|e| error(key, e.to_string()));
        }
        other => {
            return Err(error(
                key,
                format!(
                    "expected a file size such as 200MiB, got {}",
                    other.get_type()
                ),
            ));
        }
    };
    bytes.ok_or_else(|| error(key, "expected a file size above 0, such as 200MiB"))
}

fn error(key: &str, message: impl Into<String>) -> ConfigError {
    ConfigError {
        key: if key.is_empty() {
            "agent".into()
        } else {
            format!("agent.{key}")
        },
        message: message.into(),
    }
}

/// The shared value readers name `model.<key>`; here it is `agent.<key>`.
fn rekey(mut e: ConfigError) -> ConfigError {
    if let Some(key) = e.key.strip_prefix("model.") {
        e.key = format!("agent.{key}");
    }
    e
}

#[cfg(test)]
mod tests {
    use super::*;
    use nu_protocol::Record;

    #[test]
    fn the_jobs_record_is_read_and_its_bad_keys_named() {
        let mut jobs = Record::new();
        jobs.push("max_running", Value::test_int(2));
        jobs.push("max_age", Value::test_duration(3_600_000_000_000));
        let mut record = Record::new();
        record.push("jobs", Value::test_record(jobs));
        let settings = AgentSettings::from_value(&Value::test_record(record)).unwrap();
        assert_eq!(settings.jobs.max_running, 2);
        assert_eq!(settings.jobs.keep, 100);
        assert_eq!(settings.jobs.max_age, Duration::from_secs(3600));
        for (key, value) in [
            ("max_running", Value::test_int(0)),
            ("retention", Value::test_int(1)),
        ] {
            let mut jobs = Record::new();
            jobs.push(key, value);
            let mut record = Record::new();
            record.push("jobs", Value::test_record(jobs));
            let err = AgentSettings::from_value(&Value::test_record(record)).unwrap_err();
            assert_eq!(err.key, format!("agent.jobs.{key}"));
        }
    }

    #[test]
    fn reads_keys_and_names_bad_ones() {
        let mut record = Record::new();
        record.push("max_steps", Value::test_int(4));
        record.push("tool_choice", Value::test_string("required"));
        let settings = AgentSettings::from_value(&Value::test_record(record)).unwrap();
        assert_eq!(settings.max_steps, 4);
        assert_eq!(settings.tool_choice, Some(ToolChoice::Required));
        let mut record = Record::new();
        record.push("max_steps", Value::test_string("many"));
        let err = AgentSettings::from_value(&Value::test_record(record)).unwrap_err();
        assert_eq!(err.key, "agent.max_steps");
        let mut record = Record::new();
        record.push("steps", Value::test_int(1));
        let err = AgentSettings::from_value(&Value::test_record(record)).unwrap_err();
        assert_eq!(err.key, "agent.steps");
    }

    #[test]
    fn the_pipeline_grammar_is_on_unless_turned_off() {
        assert!(AgentSettings::default().pipeline_grammar);
        let read = |value: Value| {
            let mut record = Record::new();
            record.push("pipeline_grammar", value);
            AgentSettings::from_value(&Value::test_record(record))
        };
        let settings = read(Value::test_bool(false)).unwrap();
        assert!(!settings.pipeline_grammar);
        let options = super::AgentOptions::from_config(
            &crate::config::AgentConfig {
                agent: settings,
                ..Default::default()
            },
            super::PromptKind::Task,
        );
        assert!(!options.pipeline_grammar);
        assert!(super::AgentOptions::default().pipeline_grammar);
        let err = read(Value::test_string("yes")).unwrap_err();
        assert_eq!(err.key, "agent.pipeline_grammar");
    }

    #[test]
    fn the_output_cap_is_a_positive_file_size() {
        let read = |value: Value| {
            let mut record = Record::new();
            record.push("max_output", value);
            AgentSettings::from_value(&Value::test_record(record))
        };
        assert_eq!(
            AgentSettings::default().max_output,
            crate::shell::DEFAULT_MAX_OUTPUT
        );
        let settings = read(Value::test_filesize(200 << 20)).unwrap();
        assert_eq!(settings.max_output, 200 << 20);
        let options = super::AgentOptions::from_config(
            &crate::config::AgentConfig {
                agent: settings,
                ..Default::default()
            },
            super::PromptKind::Task,
        );
        assert_eq!(options.max_output, 200 << 20);
        assert_eq!(read(Value::test_string("1KiB")).unwrap().max_output, 1024);
        for bad in [
            Value::test_filesize(0),
            Value::test_string("lots"),
            Value::test_bool(true),
        ] {
            let err = read(bad).unwrap_err();
            assert_eq!(err.key, "agent.max_output");
            assert!(err.message.contains("200MiB"), "{}", err.message);
        }
    }
}
