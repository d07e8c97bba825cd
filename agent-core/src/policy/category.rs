//! The kinds of effect a command can have, and the verdicts on them.

use serde::{Deserialize, Serialize};

/// What a command does to the machine, from harmless to unknown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Category {
    /// Reads files, system state, or only computes.
    Read,
    /// Creates or changes files.
    Write,
    /// Removes files.
    Delete,
    /// Talks to the network.
    Network,
    /// Runs an external program whose effect is not known.
    Exec,
    /// Runs something as another user (sudo and friends).
    Privileged,
    /// Signals or changes other processes.
    Process,
    /// Cannot be known before it runs (a dynamic command name, a script).
    Unknown,
}

impl Category {
    /// The name used in tables and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Read => "read",
            Category::Write => "write",
            Category::Delete => "delete",
            Category::Network => "network",
            Category::Exec => "exec",
            Category::Privileged => "privileged",
            Category::Process => "process",
            Category::Unknown => "unknown",
        }
    }
}

impl std::fmt::Display for Category {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The decision on a step or a whole pipeline. Ordered: the strictest wins.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Runs without asking.
    Allow,
    /// Runs only when someone approves it.
    Confirm,
    /// Never runs; the user has to change the policy.
    Block,
    /// Not even parsed into something that could run.
    Refuse,
}

impl Verdict {
    /// The name used in tables and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Allow => "allow",
            Verdict::Confirm => "confirm",
            Verdict::Block => "block",
            Verdict::Refuse => "refuse",
        }
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
