//! The persistent session of one MCP connection: a thread that owns the
//! policy shell (the same one `ask`'s steps run in: its sandbox worker
//! keeps variables, `def`s, `cd` and `$out.N` between calls) and takes the
//! connection's requests one at a time, in the order they came.

use std::{
    sync::{Arc, mpsc},
    thread,
};

use agent_core::{
    agent::command_help,
    observe::{Budget, render_outcome},
    policy::{BLOCKED_CODE, DENIED_CODE, Decision, PolicyShell, Ran, Row, ShellOptions, Verdict},
    shell::{CancelToken, Limits, SessionSeed, StopReason},
};
use nu_protocol::Value;
use tokio::sync::oneshot;

use super::{Settings, approver::McpApprover, json::to_json};

/// What a `run` gave back to the client.
pub struct RunReply {
    /// The compact observation (or, for a step that did not run, why).
    pub text: String,
    /// The result: `{out, value, cwd, exit_code, stopped}` (absent for a
    /// step that did not run).
    pub structured: Option<serde_json::Value>,
    /// The step failed, was stopped, blocked, denied or does not parse.
    pub is_error: bool,
}

/// One request to the session's thread.
enum Request {
    Run {
        pipeline: String,
        limits: Limits,
        cancel: CancelToken,
        reply: oneshot::Sender<RunReply>,
    },
    Check {
        pipeline: String,
        reply: oneshot::Sender<Decision>,
    },
    Help {
        command: String,
        reply: oneshot::Sender<String>,
    },
    Out {
        index: usize,
        reply: oneshot::Sender<Option<Value>>,
    },
    Seed {
        reply: oneshot::Sender<(SessionSeed, usize)>,
    },
}

/// The sending end of a session's thread; the thread ends when it is
/// dropped (and its sandbox worker with it).
pub struct Session {
    requests: mpsc::Sender<Request>,
}

/// The session's thread is gone (it could not start its shell).
pub struct Gone(pub String);

impl Session {
    /// Start the session's thread with its shell under `settings`,
    /// answering through `approver`.
    pub fn start(
        settings: Arc<Settings>,
        approver: Arc<McpApprover>,
        client: String,
    ) -> Result<Session, Gone> {
        let (requests, incoming) = mpsc::channel();
        let (ready_tx, ready_rx) = mpsc::channel();
        thread::Builder::new()
            .name("mcp-session".into())
            .spawn(move || {
                let options = ShellOptions {
                    layers: settings.layers,
                    worker_exe: crate::common::worker_exe(),
                    audit: PolicyShell::audit_log(&settings.seed),
                    client: Some(client),
                    ..ShellOptions::default()
                };
                let shell = PolicyShell::new(
                    settings.policy.clone(),
                    settings.seed.clone(),
                    approver.clone(),
                    options,
                );
                match shell {
                    Ok(shell) => {
                        let _ = ready_tx.send(Ok(()));
                        serve(shell, &settings, &approver, incoming);
                    }
                    Err(diagnostic) => {
                        let _ = ready_tx.send(Err(diagnostic.rendered));
                    }
                }
            })
            .map_err(|e| Gone(format!("cannot start the session's thread: {e}")))?;
        match ready_rx.recv() {
            Ok(Ok(())) => Ok(Session { requests }),
            Ok(Err(message)) => Err(Gone(message)),
            Err(_) => Err(Gone("the session's thread ended as it started".into())),
        }
    }

    async fn ask<T>(&self, make: impl FnOnce(oneshot::Sender<T>) -> Request) -> Result<T, Gone> {
        let (tx, rx) = oneshot::channel();
        self.requests
            .send(make(tx))
            .map_err(|_| Gone("the session has ended".into()))?;
        rx.await
            .map_err(|_| Gone("the session ended during the call".into()))
    }

    /// Run `pipeline` (after the calls before it); `cancel` stops it.
    pub async fn run(
        &self,
        pipeline: String,
        limits: Limits,
        cancel: CancelToken,
    ) -> Result<RunReply, Gone> {
        self.ask(|reply| Request::Run {
            pipeline,
            limits,
            cancel,
            reply,
        })
        .await
    }

    /// The plan and verdict of `pipeline` in the session as it stands.
    pub async fn check(&self, pipeline: String) -> Result<Decision, Gone> {
        self.ask(|reply| Request::Check { pipeline, reply }).await
    }

    /// `help <command>` from the session's engine (its own `def`s too).
    pub async fn help(&self, command: String) -> Result<String, Gone> {
        self.ask(|reply| Request::Help { command, reply }).await
    }

    /// `$out.index`, if that run exists.
    pub async fn out(&self, index: usize) -> Result<Option<Value>, Gone> {
        self.ask(|reply| Request::Out { index, reply }).await
    }

    /// Where a job started now begins (the session's directory and
    /// environment), and how many results the session holds.
    pub async fn seed(&self) -> Result<(SessionSeed, usize), Gone> {
        self.ask(|reply| Request::Seed { reply }).await
    }
}

fn serve(
    mut shell: PolicyShell,
    settings: &Settings,
    approver: &McpApprover,
    incoming: mpsc::Receiver<Request>,
) {
    let mut outs = 0usize;
    for request in incoming {
        match request {
            Request::Run {
                pipeline,
                limits,
                cancel,
                reply,
            } => {
                if cancel.is_cancelled() {
                    let _ = reply.send(RunReply {
                        text: "cancelled before it started; nothing ran".into(),
                        structured: None,
                        is_error: true,
                    });
                    continue;
                }
                approver.follow(&cancel);
                let ran = shell.run(&pipeline, &limits, &cancel);
                if ran.approved_by.is_some() && ran.outcome.error.is_none() {
                    outs = outs.max(ran.outcome.index + 1);
                }
                let _ = reply.send(reply_of(&ran, settings, approver));
            }
            Request::Check { pipeline, reply } => {
                let _ = reply.send(shell.check(&pipeline).1);
            }
            Request::Help { command, reply } => {
                let _ = reply.send(command_help(shell.session().engine_state(), &command));
            }
            Request::Out { index, reply } => {
                let _ = reply.send(shell.out(index));
            }
            Request::Seed { reply } => {
                let _ = reply.send((shell.seed(), outs));
            }
        }
    }
}

/// What the client reads about a run: as the agent's model reads it, and
/// for a step that did not run, why, and what the user can do.
fn reply_of(ran: &Ran, settings: &Settings, approver: &McpApprover) -> RunReply {
    let error = |text: String| RunReply {
        text,
        structured: None,
        is_error: true,
    };
    // The policy's code, also where nu wrapped the policy's error in its
    // own (a denial inside a closure `par-each` runs).
    let code = match &ran.outcome.error {
        Some(d) if matches!(d.code.as_deref(), Some(BLOCKED_CODE | DENIED_CODE)) => {
            d.code.as_deref().unwrap_or_default()
        }
        Some(d) if d.rendered.contains(&format!("Error: {BLOCKED_CODE}")) => BLOCKED_CODE,
        Some(d) if d.rendered.contains(&format!("Error: {DENIED_CODE}")) => DENIED_CODE,
        _ => "",
    };
    let diagnostic = ran
        .outcome
        .error
        .as_ref()
        .map(|d| d.rendered.trim_end().to_string())
        .unwrap_or_default();
    if ran.approved_by.is_none() || code == BLOCKED_CODE || code == DENIED_CODE {
        let parse_error = ran.decision.verdict == Verdict::Refuse
            && ran.decision.rows.iter().any(|r| r.rule == "parse error");
        if parse_error {
            return error(format!(
                "This pipeline does not parse; nothing ran.\n{diagnostic}"
            ));
        }
        let denied = code == DENIED_CODE
            || (code != BLOCKED_CODE && ran.decision.verdict == Verdict::Confirm);
        let rows = deciding(
            ran,
            if denied {
                Verdict::Confirm
            } else {
                Verdict::Block
            },
        );
        let mut text = if denied {
            String::from("Not run: the user did not approve it.\n")
        } else {
            String::from("Not run: blocked by the user's policy.\n")
        };
        for row in &rows {
            text.push_str(&row_line(row));
            text.push('\n');
        }
        match &ran.outcome.error {
            // The denial's own help names the terminal's flags; what the
            // user can do here follows below.
            Some(error) if denied && error.code.as_deref() == Some(DENIED_CODE) => {
                text.push_str(&format!("  × {}", error.message))
            }
            _ => text.push_str(&diagnostic),
        }
        if denied && !approver.elicits() {
            text.push_str(&format!("\n{}", pre_approval_hint(&rows)));
        } else if denied {
            text.push_str("\nDo not retry it: ask the user, or choose another way.");
        } else {
            text.push_str(
                "\nThe policy does not allow this whatever is approved; do not retry it in another form.",
            );
        }
        return error(text);
    }
    let text = render_outcome(&ran.outcome, &Budget::approx(settings.observe_tokens));
    let failed = ran.outcome.error.is_some()
        || ran.outcome.stopped.is_some()
        || ran.outcome.exit_code.is_some_and(|c| c != 0);
    let mut structured = serde_json::json!({
        "out": ran.outcome.index,
        "value": to_json(&ran.outcome.value),
        "cwd": ran.outcome.cwd.to_string_lossy(),
    });
    if let Some(code) = ran.outcome.exit_code {
        structured["exit_code"] = code.into();
    }
    if let Some(stopped) = &ran.outcome.stopped {
        structured["stopped"] = match stopped {
            StopReason::Cancelled => "cancelled".into(),
            StopReason::TimedOut(_) => "timed out".into(),
            other => other.to_string().into(),
        };
    }
    RunReply {
        text,
        structured: Some(structured),
        is_error: failed,
    }
}

/// The rows of `verdict` that stopped the run: the static plan's, else the
/// runtime guards'.
fn deciding(ran: &Ran, verdict: Verdict) -> Vec<Row> {
    let from_plan: Vec<Row> = ran
        .decision
        .rows
        .iter()
        .filter(|r| r.verdict == verdict)
        .cloned()
        .collect();
    if !from_plan.is_empty() {
        return from_plan;
    }
    ran.guard_events
        .iter()
        .filter(|e| e.row.verdict == verdict && e.approved_by.is_none())
        .map(|e| e.row.clone())
        .collect()
}

/// `  rm -rf ~ — delete: … (rule: policy.block[0])`
pub fn row_line(row: &Row) -> String {
    let targets = if row.targets.is_empty() {
        String::new()
    } else {
        format!(" → {}", row.targets.join(", "))
    };
    format!(
        "  {} [{} {}]{targets}: {} (rule: {})",
        row.command, row.verdict, row.category, row.reason, row.rule
    )
}

/// How the user approves such a step in advance, when the client cannot
/// ask them.
fn pre_approval_hint(rows: &[Row]) -> String {
    let example = rows
        .first()
        .map(|r| r.command.clone())
        .filter(|c| !c.is_empty())
        .unwrap_or_else(|| "^git push *".into());
    format!(
        "Nobody could be asked: this MCP client does not support elicitation, so the user cannot answer here. \
         The user can approve such steps in advance: start the server with `nu-agent mcp --approve '{example}'` \
         (a glob; repeatable), or add the command to `policy.allow` in nu-agent's config file."
    )
}
