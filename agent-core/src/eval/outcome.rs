//! How a task run went, and the totals over a suite run.

use std::time::Duration;

use serde::Serialize;

use super::StepRecord;

/// One run of one task.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TaskResult {
    pub task: String,
    /// The task's `kind` (what its check looks at).
    pub kind: String,
    pub tags: Vec<String>,
    /// Which repetition (from 1).
    pub run: usize,
    pub success: bool,
    /// Why it failed (the check's reason, or what stopped the agent;
    /// `check_error: ...` when the check itself failed).
    pub reason: String,
    /// The check itself failed (an error, or a value that is not a
    /// verdict): the suite's fault, not the model's.
    pub check_error: Option<String>,
    /// How the agent's loop ended: `answered`, `failed`, `cancelled`, or
    /// `not run` when the fixture could not be built.
    pub ending: String,
    /// Model turns taken.
    pub turns: usize,
    /// Steps that ran (ok, failed or stopped; approved ones included).
    pub ran: usize,
    /// Turns whose tool call could not be used (repaired and sent back).
    pub repairs: usize,
    /// What each repair was, as `step N: what was repaired` (calls
    /// rewritten, sent back or not made show here, not in `steps`).
    pub repaired: Vec<String>,
    /// The rules that changed a step, as `step N: rule` (see
    /// `nu-agent eval --list-rules`).
    pub rules: Vec<String>,
    /// Pipelines that did not parse.
    pub parse_errors: usize,
    /// Steps the policy asked about.
    pub approvals: usize,
    /// Steps the policy blocked.
    pub blocked: usize,
    pub prompt_tokens: u64,
    /// Prompt tokens not served from a cache.
    pub prompt_evaluated: u64,
    pub completion_tokens: u64,
    /// The agent's time (setup and check excluded), in seconds.
    pub seconds: f64,
    /// The pipelines the model proposed, in order.
    pub pipelines: Vec<String>,
    /// Each `nu` call: its pipeline, verdict, status, observation, error.
    pub steps: Vec<StepRecord>,
    /// The answer's text, when it answered.
    pub answer: Option<String>,
}

/// Sums over the runs of a suite.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Totals {
    pub runs: usize,
    pub succeeded: usize,
    /// `succeeded / runs`.
    pub success_rate: f64,
    /// Runs whose check itself failed (counted apart from the model's
    /// failures; they are not successes either).
    pub check_errors: usize,
    pub turns: usize,
    pub ran: usize,
    pub repairs: usize,
    pub parse_errors: usize,
    pub approvals: usize,
    pub blocked: usize,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// Median prompt + completion tokens of one run.
    pub median_tokens: u64,
    pub seconds: f64,
}

impl Totals {
    /// The totals of `results`.
    pub fn of(results: &[TaskResult]) -> Totals {
        let mut totals = Totals {
            runs: results.len(),
            ..Totals::default()
        };
        for r in results {
            totals.succeeded += usize::from(r.success);
            totals.check_errors += usize::from(r.check_error.is_some());
            totals.turns += r.turns;
            totals.ran += r.ran;
            totals.repairs += r.repairs;
            totals.parse_errors += r.parse_errors;
            totals.approvals += r.approvals;
            totals.blocked += r.blocked;
            totals.prompt_tokens += r.prompt_tokens;
            totals.completion_tokens += r.completion_tokens;
            totals.seconds += r.seconds;
        }
        if !results.is_empty() {
            totals.success_rate = totals.succeeded as f64 / results.len() as f64;
        }
        let mut tokens: Vec<u64> = results
            .iter()
            .map(|r| r.prompt_tokens + r.completion_tokens)
            .collect();
        tokens.sort_unstable();
        totals.median_tokens = match tokens.len() {
            0 => 0,
            n if n % 2 == 1 => tokens[n / 2],
            n => (tokens[n / 2 - 1] + tokens[n / 2]) / 2,
        };
        totals
    }
}

impl TaskResult {
    /// The agent's time as a duration.
    pub fn duration(&self) -> Duration {
        Duration::from_secs_f64(self.seconds)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn totals_sum_and_take_the_median() {
        let run = |success, tokens| TaskResult {
            success,
            prompt_tokens: tokens,
            completion_tokens: 10,
            turns: 2,
            ..TaskResult::default()
        };
        let broken = TaskResult {
            check_error: Some("no such column".into()),
            ..run(false, 300)
        };
        let totals = Totals::of(&[run(true, 100), broken, run(true, 200)]);
        assert_eq!(totals.runs, 3);
        assert_eq!(totals.succeeded, 2);
        assert_eq!(totals.check_errors, 1);
        assert_eq!(totals.turns, 6);
        assert_eq!(totals.median_tokens, 210);
        assert!((totals.success_rate - 2.0 / 3.0).abs() < 1e-9);
        assert_eq!(Totals::of(&[]).median_tokens, 0);
    }
}
