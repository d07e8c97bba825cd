//! What the loop carries from one turn of a request to the next: one
//! [`Episode`] with named fields, which each stage reads and updates; what
//! one turn offers ([`Plan`]); and how a stage stops the turn ([`Stop`]).

use crate::llm::ToolCall;

/// The state of one request, turn after turn.
#[derive(Debug, Default)]
pub(super) struct Episode {
    /// Calls made in this request: the step of each, the step whose result
    /// answers it (itself, or the earlier one a repeat was not made again
    /// for) and its key (see `call_key`), to catch a model repeating
    /// itself (small models loop on the same call).
    pub made: Vec<(usize, usize, String)>,
    /// The same calls as the model wrote them (answers aside): every turn
    /// is steered away from them as it is written, on a backend that can
    /// steer its tokens, instead of being sampled whole and then again.
    pub made_calls: Vec<ToolCall>,
    /// Reads of files that gave a result, with its `$out`, since the last
    /// step that may have changed something (see `reuse`).
    pub reads: Vec<(String, usize)>,
    /// Turns in a row that did nothing (a call that could not be read, an
    /// empty reply, only repeated or invalid calls).
    pub idle_turns: usize,
    /// The last turn did nothing but start background jobs.
    pub only_waiting: bool,
    /// Pipelines that failed in this request, with the step and the first
    /// line of what the model was told: never run twice.
    pub failed: Vec<(String, usize, String)>,
    /// Steps the policy stopped (blocked, or not approved). After one,
    /// only `answer` is offered: nothing gets past a block, and the user's
    /// no is final (the same deletion in another form would ask again).
    pub stops: usize,
    /// The keys of the calls the policy stopped.
    pub stopped_calls: Vec<String>,
    /// What the last stopped step was told (its first line).
    pub last_stop: Option<String>,
    /// The model was told a turn is for `answer` only.
    pub told_to_answer: bool,
    /// A step of this request gave data (ran to its end).
    pub has_data: bool,
    /// The `$out` of the last step when it ran to its end.
    pub last_result: Option<usize>,
    /// What a pipeline that starts without input is fed: the last result,
    /// or after a failed step the data its source gave.
    pub feed_from: Option<usize>,
    /// The model has nothing more of its own to run (it copied a pipeline
    /// from the prompt's examples after it had results, tried to `exit`,
    /// showed a result again): the next turn is for `answer` only.
    pub must_answer: bool,
    /// The model answered with facts before any step gave data and was
    /// sent back to find them: the next turn offers only `nu` (a small
    /// model asked to check says its guess again).
    pub must_run: bool,
    /// The answer checks that sent an answer back in this request (each
    /// does once; see `rules::ANSWER_CHECKS`).
    pub asked: Vec<&'static str>,
}

/// What one turn offers and why.
#[derive(Clone, Copy, Debug)]
pub(super) struct Plan {
    /// The turn's number in the request (1-based).
    pub step: usize,
    /// The step limit's last turn, for a kind that answers.
    pub last_step: bool,
    /// Only `answer` is offered.
    pub answer_only: bool,
    pub offered: Offered,
}

/// The tools a turn offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Offered {
    /// Every tool of the prompt's kind.
    Both,
    /// Only `answer`: the step limit, a stop, or nothing more to run.
    Answer,
    /// Only `nu`: an answer came before any data.
    Run,
}

/// Why a stage ends the turn early.
#[derive(Debug)]
pub(super) enum Stop {
    /// On to the next turn: the model was told what to do instead.
    NextTurn,
    /// The request ends.
    End(super::super::event::Ending),
}
