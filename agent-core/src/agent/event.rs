//! What the agent loop reports as it goes: the front ends draw these, the
//! history records the conversation they describe.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use nu_protocol::Value;

use super::failure::Failure;
use crate::policy::Verdict;

/// Where the loop is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AgentState {
    /// Waiting for the model's turn.
    Thinking,
    /// The model proposed a pipeline; the policy is judging it.
    Proposed,
    /// The policy asks the user about the pipeline.
    AwaitingApproval,
    /// The pipeline runs.
    Running,
    /// The result went back to the model.
    Observed,
    /// Ended with an answer.
    Answered,
    /// Ended with an error (or without an answer within the step limit).
    Failed,
    /// Ended by Ctrl+C (or another cancel).
    Cancelled,
}

impl AgentState {
    /// True for the three end states.
    pub fn is_final(self) -> bool {
        matches!(
            self,
            AgentState::Answered | AgentState::Failed | AgentState::Cancelled
        )
    }
}

/// How one pipeline step ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StepStatus {
    /// It ran to the end.
    Ok,
    /// It ran and failed (an error, a non-zero exit).
    Failed,
    /// It was stopped early (time limit, output cap).
    Stopped,
    /// The user (or the non-interactive approver) said no.
    Denied,
    /// The policy blocks it; it did not run.
    Blocked,
    /// It did not parse; it went back to the model unexecuted.
    Unparsable,
}

impl StepStatus {
    /// The word the terminal shows.
    pub fn as_str(self) -> &'static str {
        match self {
            StepStatus::Ok => "ok",
            StepStatus::Failed => "failed",
            StepStatus::Stopped => "stopped",
            StepStatus::Denied => "denied",
            StepStatus::Blocked => "blocked",
            StepStatus::Unparsable => "does not parse",
        }
    }
}

/// One thing that happened in the loop.
#[derive(Clone, Debug, PartialEq)]
pub enum AgentEvent {
    /// A model turn began (`step` counts turns from 1).
    Thinking { step: usize, max_steps: usize },
    /// Answer text as the model streams it.
    Text(String),
    /// Reasoning text (`<think>`), not part of the answer.
    Reasoning(String),
    /// Something the user should see that is not the answer: a switch to
    /// the local model, older observations dropped to fit the context.
    Notice(String),
    /// The model proposed `pipeline`; `verdict` is the policy's static one
    /// and `label` its one-line reason.
    Proposed {
        step: usize,
        pipeline: String,
        why: String,
        verdict: Verdict,
        label: String,
    },
    /// The policy asks the user before `pipeline` runs.
    AwaitingApproval { step: usize, pipeline: String },
    /// `pipeline` started.
    Running { step: usize, pipeline: String },
    /// The step is over; `preview` is a one-line summary of its result and
    /// `out` its `$out` index when it ran.
    Observed {
        step: usize,
        status: StepStatus,
        out: Option<usize>,
        preview: String,
        approved_by: Option<String>,
        duration: Duration,
    },
    /// The model looked up a command with the `help` tool.
    LookedUp { step: usize, command: String },
    /// The model's turn was not acted on (a call that could not be read,
    /// an empty reply, a call repeated); `message` says which, briefly.
    Repaired { step: usize, message: String },
    /// A rule of the agent (see `nu-agent eval --list-rules`) changed the
    /// step: rewrote its pipeline, or added a note to its result.
    RuleApplied { step: usize, rule: String },
    /// Something arrived from outside the loop between turns.
    External(String),
    /// The end: the answer text, and the `$out` index returned as data.
    Answered { text: String, out: Option<usize> },
    /// The end: why the loop stopped without an answer.
    Failed { error: String },
    /// The end: cancelled.
    Cancelled,
}

impl AgentEvent {
    /// The state this event puts the loop in, for those that change it.
    pub fn state(&self) -> Option<AgentState> {
        Some(match self {
            AgentEvent::Thinking { .. } => AgentState::Thinking,
            AgentEvent::Proposed { .. } => AgentState::Proposed,
            AgentEvent::AwaitingApproval { .. } => AgentState::AwaitingApproval,
            AgentEvent::Running { .. } => AgentState::Running,
            AgentEvent::Observed { .. } => AgentState::Observed,
            AgentEvent::Answered { .. } => AgentState::Answered,
            AgentEvent::Failed { .. } => AgentState::Failed,
            AgentEvent::Cancelled => AgentState::Cancelled,
            _ => return None,
        })
    }
}

/// Where the loop's events go: the front end's view, a test's list.
pub type EventSink = std::sync::Arc<dyn Fn(&AgentEvent) + Send + Sync>;

/// How a request ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Ending {
    /// The model answered; `data` is the `$out.N` it returned.
    Answered { text: String, data: Option<Value> },
    /// Stopped without an answer.
    Failed(Failure),
    /// Cancelled (Ctrl+C).
    Cancelled,
}

impl Ending {
    /// `answered`, `failed` or `cancelled`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Ending::Answered { .. } => "answered",
            Ending::Failed(_) => "failed",
            Ending::Cancelled => "cancelled",
        }
    }
}
