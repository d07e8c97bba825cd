//! One thing a pipeline could do: the unit the policy judges.

use serde::{Deserialize, Serialize};

use super::{Category, Verdict};

/// How a step touches one target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Access {
    Read,
    Write,
    Delete,
    /// A network host (or URL) the step talks to.
    Host,
    /// Sends local data to the network (a request body, an upload).
    Send,
    /// A script file the step runs.
    Run,
    /// The directory a program runs in whose project configuration it
    /// obeys: git's repository (`git -C DIR`, or `.`), the toolchain file
    /// a rustup proxy follows.
    Repository,
}

/// A path or host a step touches, as written (or as evaluated at runtime).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Target {
    pub access: Access,
    pub value: String,
}

impl Target {
    pub fn new(access: Access, value: impl Into<String>) -> Target {
        Target {
            access,
            value: value.into(),
        }
    }
}

/// A verdict a step gets whatever the mode, with the reason.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Floor {
    pub verdict: Verdict,
    pub reason: String,
}

/// One command the pipeline could run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Step {
    /// The normalised command line rules match on: `rm -rf ~`,
    /// `^git push origin main`.
    pub command: String,
    /// The command's name: `rm`, `http post`, `^git`.
    pub name: String,
    pub category: Category,
    pub targets: Vec<Target>,
    /// Set by classification: forbidden builtins, known-dangerous shapes.
    pub floor: Option<Floor>,
    /// Some argument is only known when it runs (`rm $path`).
    pub dynamic: bool,
    /// A recursive delete or permission change (`rm -r`, `chmod -R`).
    pub recursive: bool,
}

impl Step {
    /// A step with no targets and no floor.
    pub fn new(name: impl Into<String>, command: impl Into<String>, category: Category) -> Step {
        Step {
            command: command.into(),
            name: name.into(),
            category,
            targets: Vec::new(),
            floor: None,
            dynamic: false,
            recursive: false,
        }
    }

    /// Raise the floor to `verdict` (never lowers it).
    pub fn raise(&mut self, verdict: Verdict, reason: impl Into<String>) {
        if self.floor.as_ref().is_none_or(|f| f.verdict < verdict) {
            self.floor = Some(Floor {
                verdict,
                reason: reason.into(),
            });
        }
    }

    pub fn with_target(mut self, access: Access, value: impl Into<String>) -> Step {
        self.targets.push(Target::new(access, value));
        self
    }
}
