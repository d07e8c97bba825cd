//! The stage that judges what runs of a rewritten call: the pipeline as
//! it is, where it parses and calls only what exists; its exact Nushell
//! form, where it is bash the policy lets run unasked; its programs, where
//! it is a plain POSIX pipeline; or nothing, where it would only print
//! help or calls a name nothing can run (the model is told the Nushell
//! form). The policy's verdict goes with it to the run stage.

use super::*;

/// What runs of `written`, run and observed (see `run.rs`); or why
/// nothing does.
pub(super) fn judge(
    agent: &mut Agent,
    step: usize,
    written: rewrite::Written,
    why: &str,
    cancel: &CancelToken,
) -> (String, StepStatus) {
    let rewrite::Written {
        pipeline,
        parses,
        unknown,
        decision,
    } = written;
    let translation = agent.options.on(Lever::Translation);
    let engine = agent.shell.session().engine_state();
    let bash_in_nushell = translation
        && (bash_forms::asks_help_by_habit(engine, &pipeline)
            || bash_forms::feeds_a_table_to_a_program(engine, &pipeline));
    if let Some(text) = parses
        .then(|| usage::bare_family_hint(engine, &pipeline))
        .flatten()
    {
        let preview = first_line(&text);
        return not_run(
            agent,
            step,
            &pipeline,
            why,
            "only help".into(),
            preview,
            text,
        );
    }
    if parses && unknown.is_empty() && !bash_in_nushell {
        return run::checked(agent, step, &pipeline, why, decision, cancel);
    }
    let finds = |program: &str| agent.shell.finds_program(program);
    // Bash in a Nushell pipeline: its exact Nushell form (made exact
    // Nushell in turn: `sum amount` is `math sum amount`, which is `get
    // amount | math sum`) runs where the policy lets it run without a
    // question.
    let levers = &agent.options.levers;
    let nushell = rules::bash_as_nushell(engine, &pipeline, levers)
        .filter(|_| translation)
        .map(|(nu, forms)| {
            let nu = rules::as_nushell(&nu, true, levers).map_or(nu, |(fixed, _)| fixed);
            (nu, forms)
        })
        .and_then(|(nu, forms)| {
            let decision = agent.runs_unasked(&nu)?;
            Some((nu, forms, decision))
        });
    if let Some((nu, forms, decision)) = nushell {
        agent.rules_applied(step, forms);
        agent.ran_notes.push("That was bash".into());
        return run::checked(agent, step, &nu, why, decision, cancel);
    }
    // A plain POSIX pipeline of programs runs as those programs.
    let programs = (rules::PROGRAMS_OF_A_POSIX_PIPELINE.on(&agent.options.levers) && !parses)
        .then(|| bash_forms::as_programs(engine, &pipeline, finds))
        .flatten()
        .and_then(|programs| match agent.shell.check(&programs) {
            (Some(_), decision) => Some((programs, decision)),
            (None, _) => None,
        });
    if let Some((programs, decision)) = programs {
        agent.rules_applied(step, [rules::PROGRAMS_OF_A_POSIX_PIPELINE.name]);
        agent
            .ran_notes
            .push("That was no Nushell but a pipeline of programs".into());
        return run::checked(agent, step, &programs, why, decision, cancel);
    }
    if !unknown.is_empty() {
        let text = match posix::script_of(&pipeline) {
            Some(_) => habits::unknown_programs_in_script_message(&unknown),
            None => habits::unknown_programs_message(engine, &unknown),
        };
        let label = format!("not a command: {}", unknown.join(", "));
        let preview = format!("`{}` is not a command or a program", unknown[0]);
        return not_run(agent, step, &pipeline, why, label, preview, text);
    }
    run::checked(agent, step, &pipeline, why, decision, cancel)
}

/// A step the loop does not run, whatever the policy says (it calls no
/// command, or would only print help): proposed with `label`, observed
/// failed with `preview`; `text` is what the model reads.
pub(super) fn not_run(
    agent: &mut Agent,
    step: usize,
    pipeline: &str,
    why: &str,
    label: String,
    preview: String,
    text: String,
) -> (String, StepStatus) {
    agent.emit(AgentEvent::Proposed {
        step,
        pipeline: pipeline.to_string(),
        why: why.to_string(),
        verdict: Verdict::Refuse,
        label,
    });
    agent.emit(AgentEvent::Observed {
        step,
        status: StepStatus::Failed,
        out: None,
        preview,
        approved_by: None,
        duration: Duration::ZERO,
    });
    (text, StepStatus::Failed)
}
