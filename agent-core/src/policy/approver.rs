//! Who says yes to a step that needs confirmation.

use serde::{Deserialize, Serialize};

use super::pattern::Pattern;

/// One question to the approver: a step (or a whole pipeline) that the
/// policy says needs confirmation, described with its concrete targets.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApprovalRequest {
    /// One line per effect, e.g. `delete ⚠: 3 files, 8.1 GB: a.iso, b.iso, c.zip`
    /// or `run: ^apt-get update`.
    pub labels: Vec<String>,
    /// Each step asked about, as the normalised command the rules match on
    /// (`^git push origin`, `rm a.txt`): a pre-approval must cover every one.
    pub steps: Vec<String>,
    /// The pipeline the step belongs to, as the model wrote it.
    pub pipeline: String,
    /// Why the policy asks.
    pub reason: String,
    /// A risky step: the prompt defaults to No and offers no "always".
    pub warning: bool,
    /// Runs as another user (sudo, doas, ...): needs a password prompt.
    pub privileged: bool,
}

impl ApprovalRequest {
    /// The steps asked about as one line, `; ` between them (for a
    /// question shown where labels are missing).
    pub fn command(&self) -> String {
        self.steps.join("; ")
    }
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

    /// Why `request` was denied without a question, where this approver
    /// can say (the steps no `--approve` pattern matches), for the user's
    /// hint. `None`: the usual hint.
    fn not_covered(&self, _request: &ApprovalRequest) -> Option<String> {
        None
    }
}

/// The approver when nobody is at a terminal: every confirmation is denied
/// unless `--yes` was given or every step asked about matches an
/// `--approve` pattern.
#[derive(Clone, Debug, Default)]
pub struct NonInteractive {
    /// `--yes`: approve every confirmation (never a block).
    pub yes: bool,
    /// `--approve <glob>`: commands approved in advance.
    pub approve: Vec<String>,
}

impl NonInteractive {
    /// True when `request` was approved in advance: by `--yes`, or by
    /// patterns that match each of its steps on its own. A pattern is
    /// never matched against the pipeline's text or the steps joined, so
    /// `mkdir *` does not cover a `rm` chained after a `mkdir`; a request
    /// that names no step is covered by no pattern.
    fn pre_approved(&self, request: &ApprovalRequest) -> bool {
        self.yes || (!request.steps.is_empty() && self.uncovered(request).is_empty())
    }

    /// The steps of `request` that no `--approve` pattern matches (the
    /// front ends refuse patterns that do not parse before anything runs).
    fn uncovered<'a>(&self, request: &'a ApprovalRequest) -> Vec<&'a String> {
        let patterns: Vec<Pattern> = self
            .approve
            .iter()
            .filter_map(|glob| Pattern::new(glob).ok())
            .collect();
        request
            .steps
            .iter()
            .filter(|step| !patterns.iter().any(|pattern| pattern.matches(step)))
            .collect()
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

    fn not_covered(&self, request: &ApprovalRequest) -> Option<String> {
        if self.yes || self.approve.is_empty() {
            return None;
        }
        let uncovered = self.uncovered(request);
        let first = uncovered.first()?;
        let quoted = |items: &mut dyn Iterator<Item = &String>| {
            items
                .map(|i| format!("`{i}`"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        Some(format!(
            "{} matches none of the --approve patterns ({}); each step that asks must match one on its own, e.g. --approve '{}'",
            quoted(&mut uncovered.iter().copied()),
            quoted(&mut self.approve.iter()),
            first.replace('\'', ""),
        ))
    }

    fn approve(&self, request: &ApprovalRequest) -> Approval {
        if self.pre_approved(request) {
            Approval::Yes
        } else {
            Approval::No
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asking(steps: &[&str]) -> ApprovalRequest {
        ApprovalRequest {
            labels: steps.iter().map(|s| format!("run: {s}")).collect(),
            steps: steps.iter().map(|s| s.to_string()).collect(),
            pipeline: steps.join("; "),
            reason: "changes files".into(),
            warning: false,
            privileged: false,
        }
    }

    fn approving(patterns: &[&str]) -> NonInteractive {
        NonInteractive {
            yes: false,
            approve: patterns.iter().map(|p| p.to_string()).collect(),
        }
    }

    #[test]
    fn a_pattern_approves_the_step_it_names() {
        let approver = approving(&["mkdir *"]);
        assert_eq!(approver.approve(&asking(&["mkdir q8"])), Approval::Yes);
    }

    #[test]
    fn a_pattern_never_covers_a_step_chained_after_the_one_it_names() {
        let approver = approving(&["mkdir *"]);
        assert_eq!(
            approver.approve(&asking(&["mkdir q8", "rm victim.bin"])),
            Approval::No
        );
        // Joined, the steps would match `mkdir *`: they are matched one by one.
        assert!(
            Pattern::new("mkdir *")
                .unwrap()
                .matches("mkdir q8; rm victim.bin")
        );
    }

    #[test]
    fn a_denial_names_the_steps_no_pattern_matches() {
        let approver = approving(&["mkdir *"]);
        let why = approver
            .not_covered(&asking(&["mkdir q8", "rm victim.bin"]))
            .expect("a reason");
        assert!(why.starts_with("`rm victim.bin` matches none"), "{why}");
        assert!(why.contains("`mkdir *`"), "{why}");
        assert_eq!(approver.not_covered(&asking(&["mkdir q8"])), None);
        assert_eq!(
            NonInteractive::default().not_covered(&asking(&["rm a"])),
            None
        );
    }

    #[test]
    fn every_step_must_be_covered_by_some_pattern() {
        let approver = approving(&["mkdir *", "^git commit *"]);
        assert_eq!(
            approver.approve(&asking(&["mkdir d", "^git commit -m x"])),
            Approval::Yes
        );
        assert_eq!(
            approver.approve(&asking(&["mkdir d", "^git push"])),
            Approval::No
        );
    }

    #[test]
    fn a_request_naming_no_step_is_covered_by_no_pattern_but_yes_approves_it() {
        assert_eq!(approving(&["*"]).approve(&asking(&[])), Approval::No);
        let yes = NonInteractive {
            yes: true,
            approve: Vec::new(),
        };
        assert_eq!(yes.approve(&asking(&["rm a", "rm b"])), Approval::Yes);
    }

    #[test]
    fn an_invalid_pattern_approves_nothing() {
        assert_eq!(
            approving(&["", "  "]).approve(&asking(&["ls"])),
            Approval::No
        );
    }
}
