//! The stage that rewrites a call into the form that runs: to what the
//! request's words ask (the `rules::scope` rewrites), without a filter
//! copied from the prompt's examples, as exact Nushell (the
//! `rules::translation` rewrites), `^name` of a Nushell command as the
//! command. The rewrites apply again to their own output until none does;
//! the judge stage then takes the pipeline (see `judge.rs`).

use super::*;

/// The most rewrites one call gets. Each is exact and none undoes another:
/// the cap only stops a loop two rewrites could make between them.
const MAX_REWRITES: usize = 16;

/// A call as the judge stage takes it.
pub(super) struct Written {
    pub pipeline: String,
    /// It parses.
    pub parses: bool,
    /// The names it calls that are neither commands nor programs here.
    pub unknown: Vec<String>,
    /// The policy's verdict on it.
    pub decision: Decision,
}

/// `pipeline` rewritten into the form that runs (each rewrite's note kept
/// for the model, each rule reported), then judged, run and observed: the
/// text for the model and how the step ended. A `script` of the `sh` tool
/// is no Nushell to rewrite: it goes to the judge as it is.
pub(super) fn rewrite(
    agent: &mut Agent,
    step: usize,
    pipeline: &str,
    script: bool,
    why: &str,
    cancel: &CancelToken,
) -> (String, StepStatus) {
    let written = if script {
        let mut written = as_written(agent, pipeline.to_string());
        // Bash's own words (`while`, `do`, `exit`) are no programs to find.
        written.unknown.retain(|name| !posix::is_shell_word(name));
        written
    } else {
        rewritten(agent, step, pipeline)
    };
    judge::judge(agent, step, written, why, cancel)
}

/// `pipeline` after every rewrite that applies, as the judge takes it.
fn rewritten(agent: &mut Agent, step: usize, pipeline: &str) -> Written {
    let mut pipeline = pipeline.to_string();
    for _ in 0..MAX_REWRITES {
        // To what the request's words ask ("which files" answered with
        // the rows, "in each file" per file, subfolders too).
        let cwd = agent.shell.cwd();
        if let Some((scoped, done)) =
            rules::scoped(&pipeline, &agent.facts, &cwd, &agent.options.levers)
        {
            agent.ran_notes.extend(done.iter().map(|d| d.note.clone()));
            agent.rules_applied(step, done.iter().map(|d| d.rule));
            pipeline = scoped;
            continue;
        }
        let (plan, decision) = agent.shell.check(&pipeline);
        // A filter copied with a made-up value of the prompt's examples
        // (`where size > 1mb`, `first 3`) the request does not give: the
        // read runs without it.
        if let Some((kept, note)) = plan
            .as_ref()
            .and_then(|_| agent.without_copied_filters(&pipeline, &decision))
        {
            agent.ran_notes.push(note);
            agent.rules_applied(step, [rules::COPIED_FILTER.name]);
            pipeline = kept;
            continue;
        }
        // Almost Nushell (`30days` for `30day`, `each { $it }`,
        // `select a, b`): the exact Nushell form.
        if let Some((nushell, done)) =
            rules::as_nushell(&pipeline, plan.is_some(), &agent.options.levers)
        {
            agent
                .ran_notes
                .push(format!("In Nushell {}", notes_of(&done)));
            agent.rules_applied(step, done.iter().map(|d| d.rule));
            pipeline = nushell;
            continue;
        }
        let unknown = agent.unknown_names(plan.as_ref());
        // `^sys cpu` with no program `sys` here: the command `sys cpu`.
        let engine = agent.shell.session().engine_state();
        if let Some(command) = rules::CARET_OF_A_COMMAND
            .on(&agent.options.levers)
            .then(|| habits::without_caret_of_commands(engine, &pipeline, &unknown))
            .flatten()
        {
            agent.rules_applied(step, [rules::CARET_OF_A_COMMAND.name]);
            agent.ran_notes.push(format!(
                "`{}` is a Nushell command, not a program: no `^`",
                unknown.join("`, `")
            ));
            pipeline = command;
            continue;
        }
        return Written {
            parses: plan.is_some(),
            pipeline,
            unknown,
            decision,
        };
    }
    as_written(agent, pipeline)
}

/// `pipeline` as it is, judged by the policy.
fn as_written(agent: &mut Agent, pipeline: String) -> Written {
    let (plan, decision) = agent.shell.check(&pipeline);
    Written {
        parses: plan.is_some(),
        unknown: agent.unknown_names(plan.as_ref()),
        pipeline,
        decision,
    }
}

/// The notes of the rewrites `done`, as one clause ("`30days` is
/// `30day`; a closure names its parameter: …").
pub(super) fn notes_of(done: &[rules::Rewritten]) -> String {
    let notes: Vec<&str> = done.iter().map(|d| d.note.as_str()).collect();
    notes.join("; ")
}
