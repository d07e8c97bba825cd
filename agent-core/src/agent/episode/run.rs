//! The stage that runs a judged call: the policy's verdict carried out
//! (asked about where it asks), the step promoted to a background job when
//! it runs long, and after an error with an exact fix (`size > 10` →
//! `size > 10b`) the fixed form run next; what ran goes to the observe
//! stage (see `observe.rs`).

use super::*;

/// (Ask,) run and observe `pipeline` as it is, whose static verdict is
/// `decision`; where it fails on an error with an exact fix (`size >
/// 10` → `size > 10b`), the fixed pipeline runs next, at most
/// [`MAX_EXACT_FIXES`] times in a row (see [`rules::exact_fix`]).
pub(super) fn checked(
    agent: &mut Agent,
    step: usize,
    pipeline: &str,
    why: &str,
    decision: Decision,
    cancel: &CancelToken,
) -> (String, StepStatus) {
    let reach = scope::reaches_past(pipeline, &agent.facts.named_kinds)
        .filter(|_| agent.options.on(Lever::Scope));
    match reach {
        Some(scope::Reach::Narrowed(narrowed, note)) => {
            let (_, decision) = agent.shell.check(&narrowed);
            agent.ran_notes.push(note);
            return checked(agent, step, &narrowed, why, decision, cancel);
        }
        Some(scope::Reach::NotRun(text)) => {
            let preview = first_line(&text);
            let label = "past the request".to_string();
            return judge::not_run(agent, step, pipeline, why, label, preview, text);
        }
        None => {}
    }
    let (mut text, mut status, mut error) = once(agent, step, pipeline, why, decision, cancel);
    let mut pipeline = pipeline.to_string();
    for _ in 0..MAX_EXACT_FIXES {
        let fix = match (&error, status) {
            (Some(diagnostic), StepStatus::Failed) => {
                rules::exact_fix(&pipeline, diagnostic, &agent.options.levers)
            }
            _ => None,
        };
        let Some(rules::Rewritten {
            pipeline: fixed,
            note,
            rule,
        }) = fix
        else {
            break;
        };
        agent.ran_notes.push(format!("In Nushell {note}"));
        agent.rules_applied(step, [rule]);
        let (_, decision) = agent.shell.check(&fixed);
        (text, status, error) = once(agent, step, &fixed, why, decision, cancel);
        pipeline = fixed;
    }
    (text, status)
}

/// [`checked`] without the fix: the text the model reads,
/// the step's status and the engine's error.
fn once(
    agent: &mut Agent,
    step: usize,
    pipeline: &str,
    why: &str,
    decision: Decision,
    cancel: &CancelToken,
) -> (String, StepStatus, Option<Diagnostic>) {
    agent.last_ran = Some(pipeline.to_string());
    agent.emit(AgentEvent::Proposed {
        step,
        pipeline: pipeline.to_string(),
        why: why.to_string(),
        verdict: decision.verdict,
        label: verdict_label(&decision),
    });
    match decision.verdict {
        Verdict::Confirm => agent.emit(AgentEvent::AwaitingApproval {
            step,
            pipeline: pipeline.to_string(),
        }),
        Verdict::Allow => agent.emit(AgentEvent::Running {
            step,
            pipeline: pipeline.to_string(),
        }),
        Verdict::Block | Verdict::Refuse => {}
    }
    let limits = agent.step_limits();
    let started = Instant::now();
    let promote_after = match agent.options.promote_after {
        Some(after) if agent.background_on_its_own => Some(after.min(BACKGROUND_GRACE)),
        None if agent.background_on_its_own => Some(BACKGROUND_GRACE),
        after => after,
    };
    let promotable = promote_after.filter(|_| agent.may_promote());
    // The folder and its files before a change (the `effects` lever), to
    // tell after it what it changed; nothing is taken otherwise.
    let files_before = (agent.options.on(Lever::Effects)
        && may_change(&decision)
        && matches!(decision.verdict, Verdict::Allow | Verdict::Confirm))
    .then(|| {
        let cwd = agent.shell.cwd();
        effects::Files::under(&cwd).map(|files| (cwd, files))
    })
    .flatten();
    let ran = match promotable {
        None => agent.shell.run(pipeline, &limits, cancel),
        Some(after) => match agent.shell.run_or_promote(pipeline, &limits, cancel, after) {
            Foreground::Ran(ran) => ran,
            Foreground::Promoted {
                ran,
                step: promoted,
            } => {
                if let Some(notice) = &ran.notice {
                    agent.notice(notice.clone());
                }
                agent.may_have_changed |= may_change(&decision);
                agent.change_steps += usize::from(may_change(&decision));
                let text = agent.promote(step, pipeline, after, promoted, started);
                return (text, StepStatus::Stopped, None);
            }
        },
    };
    if let Some(notice) = &ran.notice {
        agent.notice(notice.clone());
    }
    let status = step_status(&ran);
    let changed_files = files_before
        .filter(|(cwd, _)| ran.outcome.cwd == *cwd)
        .and_then(|(cwd, before)| Some(before.changed(&effects::Files::under(&cwd)?)));
    agent.may_have_changed |=
        status == StepStatus::Ok && may_change(&decision) && changed_files != Some(0);
    let ran_at_all = !matches!(status, StepStatus::Blocked | StepStatus::Denied);
    agent.change_steps += usize::from(ran_at_all && may_change(&decision));
    let out = ran.approved_by.as_ref().map(|_| ran.outcome.index);
    agent.emit(AgentEvent::Observed {
        step,
        status,
        out,
        preview: preview(&ran, status),
        approved_by: ran.approved_by.clone(),
        duration: started.elapsed(),
    });
    observe::observed(
        agent,
        step,
        pipeline,
        ran,
        status,
        (&decision, changed_files),
        cancel,
    )
}

/// How a run ended, from what the shell reports.
fn step_status(ran: &Ran) -> StepStatus {
    let code = ran
        .outcome
        .error
        .as_ref()
        .and_then(|d| d.code.clone())
        .unwrap_or_default();
    if code == BLOCKED_CODE {
        StepStatus::Blocked
    } else if code == DENIED_CODE {
        StepStatus::Denied
    } else if ran.approved_by.is_none() {
        if ran.decision.verdict == Verdict::Refuse
            && ran.decision.rows.iter().any(|r| r.rule == "parse error")
        {
            StepStatus::Unparsable
        } else {
            StepStatus::Blocked
        }
    } else if ran.outcome.stopped.is_some() {
        StepStatus::Stopped
    } else if ran.outcome.error.is_some() || ran.outcome.exit_code.is_some_and(|c| c != 0) {
        StepStatus::Failed
    } else {
        StepStatus::Ok
    }
}

/// A one-line summary of a step's result for the terminal.
fn preview(ran: &Ran, status: StepStatus) -> String {
    if let Some(error) = &ran.outcome.error {
        return error.message.lines().next().unwrap_or("").to_string();
    }
    let mut text = match &ran.outcome.value {
        Value::Nothing { .. } => "nothing".to_string(),
        Value::List { vals, .. } => {
            let columns = vals
                .first()
                .and_then(|v| v.as_record().ok())
                .map(|r| r.len());
            match columns {
                Some(c) => format!("table {} rows × {c} columns", vals.len()),
                None => format!("list of {}", vals.len()),
            }
        }
        Value::Record { val, .. } => format!("record of {} fields", val.len()),
        Value::String { val, .. } => {
            let lines = val.lines().count();
            if lines > 1 {
                format!("text, {lines} lines")
            } else {
                render(&ran.outcome.value, &Budget::approx(30), None)
            }
        }
        other => render(other, &Budget::approx(30), None),
    };
    if let Some(code) = ran.outcome.exit_code.filter(|c| *c != 0) {
        text.push_str(&format!(", exit code {code}"));
    }
    if status == StepStatus::Stopped
        && let Some(stopped) = &ran.outcome.stopped
    {
        text.push_str(&format!(" ({stopped})"));
    }
    text
}

/// The policy's one-line reason: the categories for an allowed pipeline,
/// the deciding rule's reason otherwise.
fn verdict_label(decision: &Decision) -> String {
    if decision.verdict == Verdict::Allow {
        let mut categories: Vec<&str> = decision.rows.iter().map(|r| r.category.as_str()).collect();
        categories.dedup();
        return categories.join(", ");
    }
    decision
        .deciding_rows()
        .next()
        .map(|row| {
            if row.command.is_empty() {
                row.reason.clone()
            } else {
                format!("{}: {}", row.category.as_str(), row.reason)
            }
        })
        .unwrap_or_default()
}
