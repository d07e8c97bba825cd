//! Who says yes to a step that needs confirmation.

use serde::{Deserialize, Serialize};

/// One question to the approver: a step (or a whole pipeline) that the
/// policy says needs confirmation, described with its concrete targets.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApprovalRequest {
    /// One line per effect, e.g. `delete ⚠: 3 files, 8.1 GB: a.iso, b.iso, c.zip`
    /// or `run: ^apt-get update`.
    pub labels: Vec<String>,
    /// The normalised command the rules match on, e.g. `^git push origin`.
    pub command: String,
    /// The pipeline the step belongs to, as the model wrote it.
    pub pipeline: String,
    /// Why the policy asks.
    pub reason: String,
    /// A risky step: the prompt defaults to No and offers no "always".
    pub warning: bool,
    /// Runs as another user (sudo, doas, ...): needs a password prompt.
    pub privileged: bool,
}

/// The approver's answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Approval {
    /// Run it this once.
    Yes,
    /// Do not run it; the model is told it was denied.
    No,
    /// Run it, and allow the same command for the rest of the session.
    Always,
    /// Run this edited pipeline instead.
    Edit(String),
}

/// Decides on steps the policy says need confirmation.
pub trait Approver: Send + Sync {
    /// Ask about one request. Implementations that cannot reach a person
    /// must answer [`Approval::No`].
    fn approve(&self, request: &ApprovalRequest) -> Approval;

    /// The password for a privileged step, asked from the person at the
    /// terminal (never from the model). `None` when nobody can answer.
    fn password(&self, _prompt: &str) -> Option<String> {
        None
    }

    /// Who answered, for the audit log (`user`, `--yes`, `--approve`).
    fn who(&self) -> String {
        "user".into()
    }
}

/// The approver when nobody is at a terminal: every confirmation is denied
/// unless `--yes` was given or the command matches an `--approve` pattern.
#[derive(Clone, Debug, Default)]
pub struct NonInteractive {
    /// `--yes`: approve every confirmation (never a block).
    pub yes: bool,
    /// `--approve <glob>`: commands approved in advance.
    pub approve: Vec<String>,
}

impl NonInteractive {
    /// True when `command` was approved in advance.
    fn pre_approved(&self, command: &str) -> bool {
        self.yes
            || self
                .approve
                .iter()
                .filter_map(|glob| super::pattern::Pattern::new(glob).ok())
                .any(|pattern| pattern.matches(command))
    }
}

impl Approver for NonInteractive {
    fn who(&self) -> String {
        if self.yes {
            "--yes".into()
        } else {
            format!("--approve {}", self.approve.join(", "))
        }
    }

    fn approve(&self, request: &ApprovalRequest) -> Approval {
        if self.pre_approved(&request.command) {
            Approval::Yes
        } else {
            Approval::No
        }
    }
}
