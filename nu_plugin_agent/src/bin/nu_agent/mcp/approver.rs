//! Approvals from the human at the MCP client: a step the policy asks
//! about is put to the user through MCP elicitation (the client shows it
//! and the user answers yes, no or always); a client that cannot elicit
//! gets a denial that says how to approve in advance. Nothing the calling
//! agent sends approves a step: the answer comes only from the client's
//! elicitation form, or from patterns the user gave the server.

use std::{
    sync::{Arc, Mutex, mpsc},
    time::{Duration, Instant},
};

use agent_core::{
    policy::{Approval, ApprovalRequest, Approver, NonInteractive},
    shell::CancelToken,
};
use rmcp::{
    RoleServer,
    model::{ElicitRequestParams, ElicitationAction},
    service::Peer,
};
use serde_json::json;

/// How long a question waits for the user before it counts as "no".
const ANSWER_WAIT: Duration = Duration::from_secs(10 * 60);

/// What every approver of one MCP connection shares.
pub struct ClientLink {
    /// The client, to send the elicitation to.
    pub peer: Peer<RoleServer>,
    /// The runtime the connection is served on.
    pub runtime: tokio::runtime::Handle,
    /// The client declared the elicitation capability.
    pub elicits: bool,
    /// The client's name (`clientInfo.name`).
    pub client: String,
    /// `--approve` patterns from the server's command line.
    pub approve: Vec<String>,
}

/// The approver of one session or job of an MCP connection.
pub struct McpApprover {
    link: Arc<ClientLink>,
    /// The cancel token of the step being run: a cancelled call stops
    /// waiting for the user.
    cancel: Mutex<CancelToken>,
    /// Who gave the last answer, for the audit log.
    answered_by: Mutex<String>,
}

impl McpApprover {
    /// An approver over `link`.
    pub fn new(link: Arc<ClientLink>) -> McpApprover {
        McpApprover {
            link,
            cancel: Mutex::new(CancelToken::new()),
            answered_by: Mutex::new(String::new()),
        }
    }

    /// Whether the client can ask the user.
    pub fn elicits(&self) -> bool {
        self.link.elicits
    }

    /// Stop waiting for an answer when `cancel` is cancelled.
    pub fn follow(&self, cancel: &CancelToken) {
        *self.cancel.lock().unwrap_or_else(|p| p.into_inner()) = cancel.clone();
    }

    fn set_answered_by(&self, who: String) {
        *self.answered_by.lock().unwrap_or_else(|p| p.into_inner()) = who;
    }

    /// Put `request` to the user; `None` when no answer came (the client
    /// failed, the call was cancelled, the time ran out).
    fn elicit(&self, request: &ApprovalRequest) -> Option<Approval> {
        let params: ElicitRequestParams = serde_json::from_value(json!({
            "mode": "form",
            "message": question(request),
            "requestedSchema": answer_schema(!request.warning),
        }))
        .ok()?;
        let (tx, rx) = mpsc::channel();
        let peer = self.link.peer.clone();
        let asked = self.link.runtime.spawn(async move {
            let _ = tx.send(peer.create_elicitation(params).await);
        });
        let cancel = self
            .cancel
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        let started = Instant::now();
        let result = loop {
            match rx.recv_timeout(Duration::from_millis(50)) {
                Ok(result) => break Some(result),
                Err(mpsc::RecvTimeoutError::Disconnected) => break None,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if cancel.is_cancelled() || started.elapsed() > ANSWER_WAIT {
                        asked.abort();
                        break None;
                    }
                }
            }
        };
        let answer = result?.ok()?;
        if answer.action != ElicitationAction::Accept {
            return Some(Approval::No);
        }
        let chosen = answer
            .content
            .as_ref()
            .and_then(|c| c.get("answer"))
            .and_then(|a| a.as_str());
        Some(match chosen {
            Some("yes") => Approval::Yes,
            Some("always") if !request.warning => Approval::Always,
            _ => Approval::No,
        })
    }
}

impl Approver for McpApprover {
    fn approve(&self, request: &ApprovalRequest) -> Approval {
        let advance = NonInteractive {
            yes: false,
            approve: self.link.approve.clone(),
        };
        if advance.approve(request) == Approval::Yes {
            self.set_answered_by(advance.who());
            return Approval::Yes;
        }
        // A password is never asked through the agent's client.
        if request.privileged || !self.link.elicits {
            return Approval::No;
        }
        let answer = self.elicit(request).unwrap_or(Approval::No);
        self.set_answered_by(format!("user (through {})", self.link.client));
        answer
    }

    fn who(&self) -> String {
        let who = self.answered_by.lock().unwrap_or_else(|p| p.into_inner());
        if who.is_empty() {
            format!("user (through {})", self.link.client)
        } else {
            who.clone()
        }
    }
}

/// The text of the question: what the step does, why the policy asks, and
/// the pipeline.
fn question(request: &ApprovalRequest) -> String {
    let mut text =
        String::from("nu-agent: the agent asks to run a step that needs your approval.\n");
    for label in &request.labels {
        text.push_str(&format!("  {label}\n"));
    }
    text.push_str(&format!("Why it asks: {}\n", request.reason));
    text.push_str(&format!("Pipeline: {}\n", request.pipeline));
    if request.warning {
        text.push_str("⚠ This step is risky: check it before you say yes.\n");
    }
    text.push_str("Run it?");
    text
}

/// The form: one choice, yes, no, and (unless the step is risky) always.
fn answer_schema(offer_always: bool) -> serde_json::Value {
    let mut choices = vec![
        json!({"const": "yes", "title": "Yes, run it this once"}),
        json!({"const": "no", "title": "No"}),
    ];
    if offer_always {
        choices.push(
            json!({"const": "always", "title": "Always: allow this command for the session"}),
        );
    }
    json!({
        "type": "object",
        "properties": {
            "answer": {"type": "string", "title": "Run it?", "oneOf": choices}
        },
        "required": ["answer"],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_form_is_a_valid_elicitation() {
        for always in [true, false] {
            let params: Result<ElicitRequestParams, _> = serde_json::from_value(json!({
                "mode": "form",
                "message": "run?",
                "requestedSchema": answer_schema(always),
            }));
            assert!(params.is_ok(), "{params:?}");
        }
    }
}
