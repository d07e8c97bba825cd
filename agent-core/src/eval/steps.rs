//! What each `nu` call of a task run did, as the report keeps it: the
//! pipeline, the policy's verdict, how it ended, the head of what the model
//! read back and the error, so a failure can be read from the JSON alone.
//!
//! The events say what the policy and the shell did; the conversation
//! holds what the model read (a tool message answering each call) and the
//! calls that never reached the policy (a background job, a call repeated).

use serde::Serialize;

use crate::{
    agent::{Action, AgentEvent, StepStatus},
    llm::{Message, Role},
};

/// Lines of an observation the report keeps.
const OBSERVATION_LINES: usize = 10;
/// Characters of an observation the report keeps.
const OBSERVATION_CHARS: usize = 800;

/// One `nu` call of a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct StepRecord {
    /// The model turn that made the call (from 1).
    pub step: usize,
    pub pipeline: String,
    /// Asked to run as a background job.
    pub background: bool,
    /// The policy's verdict (`allow`, `confirm`, `block`, `refuse`);
    /// `None` when the call never reached the foreground policy check (a
    /// background job, a call repeated and not made again).
    pub verdict: Option<String>,
    /// The policy asked the approver about it.
    pub asked: bool,
    /// How it ended (`ok`, `failed`, `stopped`, `denied`, `blocked`,
    /// `does not parse`); `None` when it did not run in the foreground.
    pub status: Option<String>,
    /// Who approved it, when it was asked about and approved.
    pub approved_by: Option<String>,
    /// The first lines of what the model read back about it.
    pub observation: String,
    /// Why it did not end `ok`, in one line.
    pub error: Option<String>,
}

impl StepRecord {
    /// It ran (to the end, into an error, or until stopped): approved
    /// steps too, which have no `running` event.
    pub fn ran(&self) -> bool {
        matches!(self.status.as_deref(), Some("ok" | "failed" | "stopped"))
    }
}

/// The `nu` calls of a fresh agent's conversation (`messages`, one
/// assistant message per model turn) with what `events` say of them.
pub fn step_records(messages: &[Message], events: &[AgentEvent]) -> Vec<StepRecord> {
    let mut judged = judged_steps(events).into_iter().peekable();
    let mut records = Vec::new();
    let mut turn = 0;
    for (at, message) in messages.iter().enumerate() {
        if message.role != Role::Assistant {
            continue;
        }
        turn += 1;
        // This turn's results: the tool messages before the next turn.
        let results: Vec<&Message> = messages[at + 1..]
            .iter()
            .take_while(|m| m.role != Role::Assistant)
            .filter(|m| m.role == Role::Tool)
            .collect();
        for call in &message.tool_calls {
            let Action::Run {
                pipeline,
                background,
                ..
            } = Action::from_call(call)
            else {
                continue;
            };
            let mut record = judged
                .next_if(|r| r.step == turn && r.pipeline == pipeline)
                .unwrap_or_else(|| StepRecord {
                    step: turn,
                    pipeline,
                    ..StepRecord::default()
                });
            record.background = background;
            record.observation = results
                .iter()
                .find(|m| m.tool_call_id.as_deref() == Some(call.id.as_str()))
                .map(|m| head(&m.content))
                .unwrap_or_default();
            records.push(record);
        }
    }
    // Steps the conversation does not show (it should show them all).
    records.extend(judged);
    records
}

/// The foreground steps as the events tell them: each `proposed` with its
/// approval and the `observed` that ends it (a step's events come in that
/// order, one step after the other).
fn judged_steps(events: &[AgentEvent]) -> Vec<StepRecord> {
    let mut records: Vec<StepRecord> = Vec::new();
    for event in events {
        match event {
            AgentEvent::Proposed {
                step,
                pipeline,
                verdict,
                ..
            } => records.push(StepRecord {
                step: *step,
                pipeline: pipeline.clone(),
                verdict: Some(verdict.as_str().to_string()),
                ..StepRecord::default()
            }),
            AgentEvent::AwaitingApproval { step, .. } => {
                if let Some(last) = records.last_mut().filter(|r| r.step == *step) {
                    last.asked = true;
                }
            }
            AgentEvent::Observed {
                step,
                status,
                preview,
                approved_by,
                ..
            } => {
                if let Some(last) = records
                    .last_mut()
                    .filter(|r| r.step == *step && r.status.is_none())
                {
                    last.status = Some(status.as_str().to_string());
                    last.approved_by = approved_by.clone();
                    if *status != StepStatus::Ok {
                        last.error = Some(preview.clone());
                    }
                }
            }
            _ => {}
        }
    }
    records
}

/// The first [`OBSERVATION_LINES`] lines of `text`, at most
/// [`OBSERVATION_CHARS`] characters, with `…` where it was cut.
fn head(text: &str) -> String {
    let text = text.trim_end();
    let mut kept: String = text
        .lines()
        .take(OBSERVATION_LINES)
        .collect::<Vec<_>>()
        .join("\n");
    if kept.chars().count() > OBSERVATION_CHARS {
        kept = kept.chars().take(OBSERVATION_CHARS).collect();
    }
    if kept.len() < text.len() {
        kept.push('…');
    }
    kept
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::{llm::ToolCall, policy::Verdict};

    fn nu_call(id: &str, pipeline: &str, background: bool) -> ToolCall {
        let mut arguments = serde_json::Map::new();
        arguments.insert("pipeline".into(), pipeline.into());
        if background {
            arguments.insert("background".into(), true.into());
        }
        ToolCall {
            id: id.into(),
            name: "nu".into(),
            arguments,
        }
    }

    fn proposed(step: usize, pipeline: &str, verdict: Verdict) -> AgentEvent {
        AgentEvent::Proposed {
            step,
            pipeline: pipeline.into(),
            why: String::new(),
            verdict,
            label: String::new(),
        }
    }

    fn observed(step: usize, status: StepStatus, preview: &str, by: Option<&str>) -> AgentEvent {
        AgentEvent::Observed {
            step,
            status,
            out: None,
            preview: preview.into(),
            approved_by: by.map(str::to_string),
            duration: Duration::ZERO,
        }
    }

    #[test]
    fn calls_get_their_verdict_status_and_observation() {
        let long: String = (1..=30).map(|n| format!("line {n}\n")).collect();
        let messages = vec![
            Message::system("prompt"),
            Message::user("do it"),
            Message::assistant(
                "",
                vec![
                    nu_call("call_0", "ls", false),
                    nu_call("call_1", "rm a.txt", false),
                ],
            ),
            Message::tool("call_0", long.clone()),
            Message::tool("call_1", "removed a.txt"),
            Message::assistant("", vec![nu_call("call_0", "sleep 1sec", true)]),
            Message::tool("call_0", "Started as background job 1."),
            Message::user("[event] background job 1 (`sleep 1sec`) ok"),
            Message::assistant("", vec![nu_call("call_0", "cp x /etc/x", false)]),
            Message::tool("call_0", "Error: blocked"),
        ];
        let events = vec![
            AgentEvent::Thinking {
                step: 1,
                max_steps: 8,
            },
            proposed(1, "ls", Verdict::Allow),
            AgentEvent::Running {
                step: 1,
                pipeline: "ls".into(),
            },
            observed(1, StepStatus::Ok, "table 30 rows", None),
            proposed(1, "rm a.txt", Verdict::Confirm),
            AgentEvent::AwaitingApproval {
                step: 1,
                pipeline: "rm a.txt".into(),
            },
            observed(1, StepStatus::Ok, "nothing", Some("--yes")),
            proposed(3, "cp x /etc/x", Verdict::Block),
            observed(3, StepStatus::Blocked, "blocked: a system directory", None),
        ];
        let records = step_records(&messages, &events);
        assert_eq!(records.len(), 4, "{records:#?}");
        let ls = &records[0];
        assert_eq!((ls.step, ls.pipeline.as_str()), (1, "ls"));
        assert_eq!(ls.verdict.as_deref(), Some("allow"));
        assert_eq!(ls.status.as_deref(), Some("ok"));
        assert!(ls.observation.starts_with("line 1\n") && ls.observation.ends_with('…'));
        assert_eq!(ls.observation.lines().count(), OBSERVATION_LINES);
        assert!(ls.ran() && ls.error.is_none());
        let rm = &records[1];
        assert!(rm.asked && rm.ran(), "an approved step ran: {rm:?}");
        assert_eq!(rm.approved_by.as_deref(), Some("--yes"));
        assert_eq!(rm.observation, "removed a.txt");
        let job = &records[2];
        assert!(job.background && job.verdict.is_none() && !job.ran());
        assert_eq!(
            (job.step, job.observation.as_str()),
            (2, "Started as background job 1.")
        );
        let cp = &records[3];
        assert_eq!(cp.status.as_deref(), Some("blocked"));
        assert_eq!(cp.error.as_deref(), Some("blocked: a system directory"));
        assert!(!cp.ran());
    }

    #[test]
    fn a_repeated_call_is_not_paired_with_a_later_step() {
        let messages = vec![
            Message::user("list"),
            Message::assistant("", vec![nu_call("call_0", "ls", false)]),
            Message::tool("call_0", "a.txt"),
            Message::assistant("", vec![nu_call("call_0", "ls", false)]),
            Message::tool("call_0", "You made this same call at step 1."),
        ];
        let events = vec![
            proposed(1, "ls", Verdict::Allow),
            observed(1, StepStatus::Ok, "a.txt", None),
        ];
        let records = step_records(&messages, &events);
        assert_eq!(records.len(), 2);
        assert_eq!(records[1].step, 2);
        assert_eq!(records[1].status, None);
        assert!(records[1].observation.starts_with("You made"));
    }

    #[test]
    fn long_lines_are_cut_on_a_character() {
        let text = "é".repeat(OBSERVATION_CHARS + 5);
        let kept = head(&text);
        assert_eq!(kept.chars().count(), OBSERVATION_CHARS + 1);
        assert_eq!(head("short\n"), "short");
    }
}
