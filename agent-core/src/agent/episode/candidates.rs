//! The stage that tries a turn's call before it is a step (the
//! `try-reads` lever, on trial): where the model's call is an `sh` script
//! the policy lets run as a read without a question, it is run aside
//! first — a fresh in-process session of the same guarded engine (the
//! runtime guards, each program in the per-program sandbox a read gets
//! where the machine has one; not the session's worker), audited, no
//! `$out` taken. Where it fails or
//! gives nothing, the model's next most likely call (sampled steered away
//! from the ones tried) is tried the same way, up to [`TRIES`] calls, and
//! the first that gives something is the turn. When none does, the
//! model's first call is the turn, as without the lever. A change is never
//! run aside: a call that may change something is taken as it is, or
//! passed over as an alternative. Where steps run in the sandboxed worker
//! and the machine has no per-program sandbox, nothing is run aside (it
//! would run with less than a step has).

use super::*;

/// Calls tried in all, the model's first included.
const TRIES: usize = 3;

/// What a call gave when it was run aside.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Aside {
    /// It ran and gave something.
    Gave,
    /// It failed, or gave nothing.
    Nothing,
    /// It is not tried aside (a change, Nushell, no script, an answer).
    NotRun,
}

/// `turn`, or the first of the model's next calls that gives something
/// where `turn`'s read gives nothing (see the module's doc); `avoid` gains
/// the calls passed over.
pub(super) fn tried(
    agent: &mut Agent,
    plan: Plan,
    turn: crate::llm::ChatTurn,
    avoid: &mut Vec<crate::llm::ToolCall>,
    cancel: &CancelToken,
) -> Result<crate::llm::ChatTurn, Stop> {
    let kept_safe = agent.shell.reads_aside_sandboxed_as_steps();
    if !agent.options.on(Lever::TryReads) || plan.answer_only || !agent.may_run() || !kept_safe {
        return Ok(turn);
    }
    match try_aside(agent, &turn, cancel) {
        Aside::Gave | Aside::NotRun => return Ok(turn),
        Aside::Nothing => {}
    }
    let first = turn;
    avoid.extend(first.tool_calls.iter().cloned());
    for _ in 1..TRIES {
        let next = agent.model_turn(plan.offered, agent.options.temperature, avoid, cancel)?;
        if try_aside(agent, &next, cancel) == Aside::Gave {
            let call = script_call(&next).unwrap_or_default();
            agent.emit(AgentEvent::Repaired {
                step: plan.step,
                message: format!(
                    "the model's read gave nothing when tried; its next call `{call}` did"
                ),
            });
            return Ok(next);
        }
        avoid.extend(next.tool_calls.iter().cloned());
    }
    Ok(first)
}

/// The script of `turn`'s one call, where it is one `sh` call.
fn script_call(turn: &crate::llm::ChatTurn) -> Option<String> {
    let [call] = turn.tool_calls.as_slice() else {
        return None;
    };
    match Action::from_call(call) {
        Action::Run {
            pipeline,
            script: true,
            background: false,
            ..
        } => Some(pipeline),
        _ => None,
    }
}

/// `turn`'s call run aside, where it is a script the policy lets run as a
/// read without a question and no Nushell.
fn try_aside(agent: &mut Agent, turn: &crate::llm::ChatTurn, cancel: &CancelToken) -> Aside {
    let Some(pipeline) = script_call(turn) else {
        return Aside::NotRun;
    };
    let Some(script) = posix::script_of(&pipeline) else {
        return Aside::NotRun;
    };
    if !call::nushell_in(agent, script).is_empty() {
        return Aside::NotRun;
    }
    let meant = rules::as_script_means(&pipeline, &agent.options.levers)
        .map_or(pipeline, |(meant, _)| meant);
    match agent.runs_unasked(&meant) {
        Some(decision) if !may_change(&decision) => {}
        _ => return Aside::NotRun,
    }
    let limits = agent.step_limits();
    match agent.shell.read_aside(&meant, &limits, cancel) {
        Some(value) if answer::holds_something(&value) => Aside::Gave,
        _ => Aside::Nothing,
    }
}
