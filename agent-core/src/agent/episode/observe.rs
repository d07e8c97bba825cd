//! The stage that observes a step that ran: what its result tells the
//! model (rendered to the token budget, a policy stop in the model's own
//! words), with the notes the rules add to it (`rules::NOTES`: after an
//! error how to write it instead; after a result that is not what it
//! seems, why), which may read again what the step read.

use super::*;

/// What the model reads of `ran`, the step `pipeline` of `step` whose
/// verdict was `decision` and which changed `changed_files` paths under
/// the working directory (where they were taken: the `effects` lever),
/// with the notes on it; its status; and the engine's error.
pub(super) fn observed(
    agent: &mut Agent,
    step: usize,
    pipeline: &str,
    ran: Ran,
    status: StepStatus,
    (decision, changed_files): (&Decision, Option<usize>),
    cancel: &CancelToken,
) -> (String, StepStatus, Option<Diagnostic>) {
    let observed = observation(
        &ran,
        status,
        agent.options.observe_tokens,
        agent.options.observe,
    );
    if matches!(status, StepStatus::Failed | StepStatus::Unparsable)
        && let Some(diagnostic) = &ran.outcome.error
    {
        agent.last_error = Some(diagnostic.message.clone());
    }
    let recalled = agent
        .options
        .on(Lever::Recall)
        .then(|| agent.request.clone());
    let outcome = rules::Outcome {
        pipeline,
        status,
        error: ran.outcome.error.as_ref(),
        value: &ran.outcome.value,
        index: ran.outcome.index,
        changes: may_change(decision),
        changed_files,
        stderr: ran.outcome.stderr.as_ref(),
        exit_code: ran.outcome.exit_code,
        cwd: &ran.outcome.cwd,
        wants_subfolders: agent.facts.subfolders,
        task: agent.options.kind == PromptKind::Task,
        recalled: recalled.as_deref(),
    };
    let levers = agent.options.levers.clone();
    let mut reads = StepReads { agent, cancel };
    let (observed, told_by) = rules::with_notes(observed, &outcome, &mut reads, &levers);
    agent.rules_applied(step, told_by);
    let text = match &ran.notice {
        Some(notice) => format!("Note: {notice}.\n{observed}"),
        None => observed,
    };
    (text, status, ran.outcome.error)
}

/// `pipeline` (a read the loop makes to explain a step) run where the
/// policy allows it without a question; `None` when it would ask, is
/// refused, or fails.
fn read_again(agent: &mut Agent, pipeline: &str, cancel: &CancelToken) -> Option<Ran> {
    let (_, decision) = agent.shell.check(pipeline);
    if decision.verdict != Verdict::Allow {
        return None;
    }
    let limits = agent.step_limits();
    let ran = agent.shell.run(pipeline, &limits, cancel);
    (ran.outcome.error.is_none() && ran.approved_by.is_some()).then_some(ran)
}

/// What the notes on a step may read again (see [`rules::Reads`]).
struct StepReads<'a> {
    agent: &'a mut Agent,
    cancel: &'a CancelToken,
}

impl rules::Reads for StepReads<'_> {
    fn read(&mut self, pipeline: &str) -> Option<(usize, Value)> {
        let ran = read_again(self.agent, pipeline, self.cancel)?;
        Some((ran.outcome.index, ran.outcome.value))
    }

    fn earlier_outs(&self, before: usize) -> Vec<(usize, Value)> {
        self.agent.earlier_outs(before)
    }

    fn shown_source(&mut self, index: usize) {
        self.agent.source_shown = Some(index);
    }

    fn engine(&self) -> &nu_protocol::engine::EngineState {
        self.agent.shell.session().engine_state()
    }
}

/// What the model is told to do about a step the policy stopped, in place
/// of the hint the user reads.
fn model_instruction(diagnostic: &Diagnostic) -> Option<&'static str> {
    match diagnostic.code.as_deref() {
        Some(DENIED_CODE) => Some(
            "the user did not approve this; do not retry it, ask the user or choose another way",
        ),
        Some(BLOCKED_CODE) => Some(
            "the user's policy does not allow this whatever is approved; do not retry it, choose another way or tell the user what the policy stops",
        ),
        _ => None,
    }
}

/// A diagnostic as the model reads it: a policy stop carries the model's
/// instruction instead of the user's hint (`--yes`, the config).
fn for_model(diagnostic: &Diagnostic) -> Option<Diagnostic> {
    let instruction = model_instruction(diagnostic)?;
    let rendered = diagnostic.rendered.trim_end();
    let body = match diagnostic.help {
        Some(_) => rendered
            .rfind("\n  help: ")
            .map_or(rendered, |at| &rendered[..at]),
        None => rendered,
    };
    let mut diagnostic = diagnostic.clone();
    diagnostic.rendered = format!("{}\n  help: {instruction}", body.trim_end());
    diagnostic.help = Some(instruction.to_string());
    Some(diagnostic)
}

/// What the model reads about a step.
fn observation(ran: &Ran, status: StepStatus, tokens: usize, mode: ObserveMode) -> String {
    let budget = Budget::approx(tokens);
    let diagnostic = || {
        ran.outcome
            .error
            .as_ref()
            .map(|d| {
                for_model(d)
                    .map_or_else(|| d.rendered.clone(), |d| d.rendered)
                    .trim_end()
                    .to_string()
            })
            .unwrap_or_default()
    };
    match status {
        StepStatus::Unparsable => format!(
            "This pipeline does not parse; nothing ran.\n{}\nFix it and call `nu` again (`help <command>` shows a command's usage).",
            diagnostic()
        ),
        StepStatus::Denied if ran.approved_by.is_none() => {
            format!("Not run: the user did not approve it.\n{}", diagnostic())
        }
        StepStatus::Blocked if ran.approved_by.is_none() => {
            format!("Not run: blocked by the user's policy.\n{}", diagnostic())
        }
        _ => match ran.outcome.error.as_ref().and_then(for_model) {
            Some(error) => {
                let mut outcome = ran.outcome.clone();
                outcome.error = Some(error);
                render_outcome_as(&outcome, &budget, mode)
            }
            None => render_outcome_as(&ran.outcome, &budget, mode),
        },
    }
}
