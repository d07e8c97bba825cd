//! Why a request stopped without an answer, and what the user can do
//! about that particular stop.

use std::{fmt, path::PathBuf};

use crate::llm::LlmError;

/// A request that ended without an answer.
#[derive(Clone, Debug, PartialEq)]
pub struct Failure {
    /// What happened, in one sentence.
    pub message: String,
    pub kind: FailureKind,
}

/// The kinds of stop that call for different advice.
#[derive(Clone, Debug, PartialEq)]
pub enum FailureKind {
    /// The step limit was reached; the conversation can go on.
    StepLimit,
    /// The model went round in circles.
    Stuck,
    /// The conversation does not fit the model's context, even shortened.
    ContextFull,
    /// The model file could not be found, read or loaded.
    ModelFile { path: PathBuf },
    /// The model server could not be reached at `url`.
    Unreachable { url: String },
    /// Anything else the model backend reported.
    Backend,
}

/// The front end a hint is written for: the commands it names differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrontEnd {
    /// `ask` in nu.
    Ask,
    /// `agent explain` in nu (no `--continue`, no history).
    Explain,
    /// `nu-agent ask`.
    Cli,
}

impl FrontEnd {
    /// `agent model list` in nu, `nu-agent model list` in a shell.
    fn model_command(self, rest: &str) -> String {
        match self {
            FrontEnd::Cli => format!("nu-agent model {rest}"),
            FrontEnd::Ask | FrontEnd::Explain => format!("agent model {rest}"),
        }
    }
}

impl Failure {
    pub fn new(kind: FailureKind, message: impl Into<String>) -> Self {
        Failure {
            message: message.into(),
            kind,
        }
    }

    /// What the user can do about this stop, written for `front`; `None`
    /// where the message says all there is.
    pub fn help(&self, front: FrontEnd) -> Option<String> {
        match &self.kind {
            FailureKind::StepLimit => Some(match front {
                FrontEnd::Ask => "go on where it stopped with `ask --continue` (what it did: `agent history --last`), or raise the limit with --max-steps".into(),
                FrontEnd::Explain => "raise the limit with --max-steps, or ask a narrower question".into(),
                FrontEnd::Cli => "go on where it stopped with `nu-agent ask --continue`, or raise the limit with --max-steps".into(),
            }),
            FailureKind::Stuck => Some(format!(
                "rephrase the request, or use a larger model (see `{}`)",
                front.model_command("list")
            )),
            FailureKind::ContextFull => Some(match front {
                FrontEnd::Explain => "pipe in less data, or raise model.context".into(),
                FrontEnd::Ask | FrontEnd::Cli => {
                    "start a new conversation (without --continue), or raise model.context".into()
                }
            }),
            FailureKind::ModelFile { path } => Some(format!(
                "the model file is {}; see the models with `{}`, and download one again with `{}`",
                path.display(),
                front.model_command("list"),
                front.model_command("pull <name>"),
            )),
            FailureKind::Unreachable { url } => {
                let base = url.trim_end_matches("/chat/completions");
                let check = match front {
                    FrontEnd::Cli => format!("curl {base}/models"),
                    FrontEnd::Ask | FrontEnd::Explain => format!("http get {base}/models"),
                };
                Some(format!(
                    "is the server at {base} running? check it with `{check}`, or point model.url at one that is"
                ))
            }
            FailureKind::Backend => None,
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<&LlmError> for Failure {
    fn from(error: &LlmError) -> Self {
        let kind = match error {
            LlmError::ModelMissing { path }
            | LlmError::NotGguf { path }
            | LlmError::LoadFailed { path }
            | LlmError::Io { path, .. } => FailureKind::ModelFile { path: path.clone() },
            LlmError::Remote {
                url,
                unreachable: true,
                ..
            } => FailureKind::Unreachable { url: url.clone() },
            LlmError::ContextTooLong { .. } => FailureKind::ContextFull,
            LlmError::Backend(_) | LlmError::Remote { .. } => FailureKind::Backend,
        };
        Failure::new(kind, error.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_fronts() -> [FrontEnd; 3] {
        [FrontEnd::Ask, FrontEnd::Explain, FrontEnd::Cli]
    }

    #[test]
    fn a_corrupt_model_file_points_at_the_file_and_the_model_commands() {
        let error = LlmError::LoadFailed {
            path: "/models/broken.gguf".into(),
        };
        let failure = Failure::from(&error);
        let help = failure.help(FrontEnd::Ask).unwrap_or_default();
        assert!(help.contains("/models/broken.gguf"), "{help}");
        assert!(help.contains("`agent model list`"), "{help}");
        assert!(help.contains("`agent model pull <name>`"), "{help}");
        let help = failure.help(FrontEnd::Cli).unwrap_or_default();
        assert!(help.contains("`nu-agent model pull <name>`"), "{help}");
        for front in all_fronts() {
            let help = failure.help(front).unwrap_or_default();
            assert!(!help.contains("--continue"), "{help}");
        }
    }

    #[test]
    fn a_dead_server_names_its_url_and_how_to_check_it() {
        let error = LlmError::Remote {
            url: "http://127.0.0.1:9/v1/chat/completions".into(),
            message: "the server cannot be reached".into(),
            unreachable: true,
        };
        let failure = Failure::from(&error);
        let help = failure.help(FrontEnd::Ask).unwrap_or_default();
        assert!(
            help.contains("`http get http://127.0.0.1:9/v1/models`"),
            "{help}"
        );
        let help = failure.help(FrontEnd::Cli).unwrap_or_default();
        assert!(
            help.contains("`curl http://127.0.0.1:9/v1/models`"),
            "{help}"
        );
        for front in all_fronts() {
            let help = failure.help(front).unwrap_or_default();
            assert!(!help.contains("--continue"), "{help}");
            assert!(!help.contains("history"), "{help}");
        }
    }

    #[test]
    fn a_refusing_server_gets_no_advice_meant_for_other_stops() {
        let error = LlmError::Remote {
            url: "http://127.0.0.1:9/v1/chat/completions".into(),
            message: "401 unauthorized".into(),
            unreachable: false,
        };
        let failure = Failure::from(&error);
        assert_eq!(failure.kind, FailureKind::Backend);
        assert_eq!(failure.help(FrontEnd::Ask), None);
    }

    #[test]
    fn only_the_step_limit_offers_to_go_on() {
        let failure = Failure::new(FailureKind::StepLimit, "no answer after 3 steps");
        let ask = failure.help(FrontEnd::Ask).unwrap_or_default();
        assert!(ask.contains("ask --continue"), "{ask}");
        assert!(ask.contains("--max-steps"), "{ask}");
        let cli = failure.help(FrontEnd::Cli).unwrap_or_default();
        assert!(cli.contains("nu-agent ask --continue"), "{cli}");
        let explain = failure.help(FrontEnd::Explain).unwrap_or_default();
        assert!(!explain.contains("--continue"), "{explain}");
        assert!(explain.contains("--max-steps"), "{explain}");
        let stuck = Failure::new(FailureKind::Stuck, "the model keeps repeating itself");
        for front in all_fronts() {
            let help = stuck.help(front).unwrap_or_default();
            assert!(!help.contains("--continue"), "{help}");
        }
    }
}
