//! The stage that builds a turn: what came in between turns (a job that
//! ended, a late note) is taken, the limits are checked, and the turn's
//! [`Plan`] says which tools it offers and what the model is told first
//! (answer now: the last step, a stop, going round in circles).

use super::*;

/// Takes what came in, checks the step and stuck limits, and counts
/// the turn (`steps`); ends the request when a limit is reached.
pub(super) fn open_turn(
    agent: &mut Agent,
    episode: &Episode,
    steps: &mut usize,
    cancel: &CancelToken,
) -> Result<usize, Stop> {
    if cancel.is_cancelled() {
        return Err(Stop::End(Ending::Cancelled));
    }
    while let Ok(inbound) = agent.inbox.try_recv() {
        agent.take(inbound);
    }
    if episode.only_waiting && agent.pending_jobs > 0 {
        // The last turn only started jobs: nothing to look at until
        // one of them ends.
        match agent.wait_for_inbox(cancel) {
            Some(inbound) => agent.take(inbound),
            None => return Err(Stop::End(Ending::Cancelled)),
        }
    }
    if *steps >= agent.options.max_steps {
        return Err(Stop::End(Ending::Failed(Failure::new(
            FailureKind::StepLimit,
            format!("no answer after {} steps", agent.options.max_steps),
        ))));
    }
    *steps += 1;
    let step = *steps;
    agent.emit(AgentEvent::Thinking {
        step,
        max_steps: agent.options.max_steps,
    });
    if episode.idle_turns >= STUCK_GIVE_UP {
        return Err(Stop::End(Ending::Failed(Failure::new(
            FailureKind::Stuck,
            "the model keeps repeating itself without an answer",
        ))));
    }
    Ok(step)
}

/// What turn `step` offers, with what the model is told first when it
/// must answer now.
pub(super) fn plan(agent: &mut Agent, episode: &mut Episode, step: usize) -> Plan {
    let can_answer = agent.options.kind != PromptKind::Suggest;
    let last_step = step == agent.options.max_steps && step > 1 && can_answer;
    let stopped = episode.stops > 0 && can_answer;
    let answer_only =
        episode.idle_turns >= STUCK_TURNS || last_step || stopped || episode.must_answer;
    let offered = match (answer_only, std::mem::take(&mut episode.must_run)) {
        (true, _) => Offered::Answer,
        (false, true) => Offered::Run,
        (false, false) => Offered::Both,
    };
    if episode.idle_turns == STUCK_TURNS {
        agent.notice("the model is going round in circles; it is asked to answer now".into());
        agent
            .instruct("You are repeating yourself. Stop and call `answer` now with what you know.");
    } else if answer_only && !episode.told_to_answer {
        episode.told_to_answer = true;
        agent.instruct(if last_step {
            "This is the last step. Call `answer` now: what you found, or what you could not do and why."
        } else {
            "The policy or the user stopped your step. Call `answer` now: tell the user what you did not do and why."
        });
    }
    Plan {
        step,
        last_step,
        answer_only,
        offered,
    }
}
