//! The stage that takes each call of a turn in order: a repeat is not
//! made again, a `help` call looks a command up, an `answer` goes to the
//! answer stage, and a `nu` call is run (in the background, fed the last
//! result, or not at all: `exit`, a result shown again, a pipeline that
//! failed before), its pipeline passed on to the rewrite stage.

use super::*;

/// Takes each call of `turn`, its result pushed for the model to read.
pub(super) fn take_calls(
    agent: &mut Agent,
    episode: &mut Episode,
    plan: Plan,
    turn: &crate::llm::ChatTurn,
    cancel: &CancelToken,
) -> Result<(), Stop> {
    let calls_message = agent.messages.len();
    agent.push(Message::assistant(
        turn.content.clone(),
        turn.tool_calls.clone(),
    ));
    episode.only_waiting = !turn.tool_calls.is_empty();
    for call in &turn.tool_calls {
        if cancel.is_cancelled() {
            return Err(Stop::End(Ending::Cancelled));
        }
        let result = take_call(agent, episode, plan, call, calls_message, cancel)?;
        agent.push(Message::tool(call.id.clone(), result));
    }
    Ok(())
}

/// What the model reads of `call`.
fn take_call(
    agent: &mut Agent,
    episode: &mut Episode,
    plan: Plan,
    call: &crate::llm::ToolCall,
    calls_message: usize,
    cancel: &CancelToken,
) -> Result<String, Stop> {
    let step = plan.step;
    let signature = call_key(call);
    let action = if call.name == posix::SH_TOOL && !agent.options.offers_sh() {
        no_such_tool(posix::SH_TOOL)
    } else {
        Action::from_call(call)
    };
    let action = match without_degenerate(action) {
        Ok(action) => action,
        Err((what, unit, repeats)) => {
            agent.emit(AgentEvent::Repaired {
                step,
                message: format!(
                    "a degenerate {what} (`{unit}` repeated {repeats} times); asked again"
                ),
            });
            Action::Invalid(format!(
                "Your {what} was `{unit}` repeated {repeats} times, which is not a real {what}. Write a real one, or call `answer` with what you know."
            ))
        }
    };
    let repeated = episode
        .made
        .iter()
        .rev()
        .find(|(_, _, s)| *s == signature)
        .map(|(n, ran, _)| (*n, *ran));
    let repeats_last_step = repeated.is_some_and(|(n, _)| n + 1 >= step);
    let skipped = repeated.filter(|_| {
        matches!(action, Action::Help { .. })
            || (repeats_last_step && matches!(action, Action::Run { .. }))
    });
    episode.made.push((
        step,
        skipped.map_or(step, |(_, ran)| ran),
        signature.clone(),
    ));
    if call.name != ANSWER_TOOL {
        episode.made_calls.push(call.clone());
    }
    if let Some((_, earlier)) = skipped {
        // Asking again for what the policy stopped is a stop too.
        episode.stops += usize::from(episode.stopped_calls.contains(&signature));
        agent.emit(AgentEvent::Repaired {
            step,
            message: format!("the same call as step {earlier}; not made again"),
        });
        return Ok(format!(
            "You made this same call at step {earlier}; its result is above. Do something different, or call `answer`."
        ));
    }
    // An answer naming a `$out` that does not exist is no progress
    // either (a small model repeats it forever).
    let progress = match &action {
        Action::Invalid(_) => false,
        Action::Answer { out: Some(n), .. } => agent.shell.out(*n).is_some(),
        // `The answer is:` with nothing after it.
        Action::Answer { text, out: None } => !rules::hollow_answer(text),
        _ => true,
    };
    if progress {
        episode.idle_turns = 0;
    }
    Ok(match action {
        Action::Run {
            pipeline,
            why,
            background,
            script,
        } => {
            let ran = RunCall {
                call,
                calls_message,
                signature: &signature,
                progress,
                background,
                script,
            };
            run(agent, episode, step, ran, pipeline, why, cancel)
        }
        Action::Help { command } => {
            agent.emit(AgentEvent::LookedUp {
                step,
                command: command.clone(),
            });
            command_help(agent.shell.session().engine_state(), &command)
        }
        Action::Answer { text, out } => agent.answer_call(episode, plan, text, out, progress)?,
        Action::Invalid(message) => message,
    })
}

impl Agent {
    /// Show `call` of the assistant message at `index` as having run
    /// `ran` (the exact form that ran in its place); the call as shown.
    pub(super) fn show_call_as_ran(
        &mut self,
        index: usize,
        call: &crate::llm::ToolCall,
        ran: &str,
    ) -> crate::llm::ToolCall {
        let shown = with_pipeline(call, ran);
        if let Some(transcript) = &mut self.transcript {
            transcript.notice(&format!("call {} ran as `{ran}`", call.id));
        }
        if let Some(message) = self.messages.get_mut(index) {
            for made in message.tool_calls.iter_mut().filter(|c| c.id == call.id) {
                *made = shown.clone();
            }
        }
        shown
    }

    /// What the model reads of a step that ran with `status`, saying
    /// `text`, with what the episode learns of it: the result to feed on,
    /// the reads still fresh, what failed or was stopped.
    #[allow(clippy::too_many_arguments)]
    fn observed(
        &mut self,
        episode: &mut Episode,
        step: usize,
        ran: RunCall<'_>,
        key: String,
        changes_before: usize,
        text: String,
        status: StepStatus,
    ) -> String {
        episode.last_result = (status == StepStatus::Ok)
            .then(|| self.last_out())
            .flatten();
        episode.feed_from = episode.last_result.or(self.source_shown.take());
        if self.change_steps != changes_before {
            episode.reads.clear();
        } else if let (Some(n), Some(ran)) = (episode.last_result, &self.last_ran) {
            episode.reads.push((ran.clone(), n));
        }
        // What ran in the call's place is the call the model reads it
        // made: shown its own form and the fixed one's result, a model
        // runs the fixed form again to see it work (a whole turn).
        let in_place = self.last_ran.take().filter(|ran| normalize(ran) != key);
        // What the step itself said first (a stop's reason), before the
        // notes on the form that ran.
        let said_first = first_line(&text);
        let text = ran_in_place(
            &std::mem::take(&mut self.ran_notes),
            in_place.as_deref(),
            status,
            text,
        );
        let mut keys = vec![key];
        if let Some(in_place) = in_place {
            let shown = if self.options.on(Lever::ShowAsRan) {
                self.show_call_as_ran(ran.calls_message, ran.call, &in_place)
            } else {
                with_pipeline(ran.call, &in_place)
            };
            keys.push(normalize(&in_place));
            episode.made.push((step, step, call_key(&shown)));
            episode.made_calls.push(shown);
        }
        let mut failed_now = |text: &str| {
            for key in &keys {
                episode.failed.push((key.clone(), step, first_line(text)));
            }
        };
        match status {
            StepStatus::Blocked | StepStatus::Denied => {
                failed_now(&text);
                episode.stops += 1;
                episode.stopped_calls.push(ran.signature.to_string());
                episode.last_stop = Some(said_first);
            }
            StepStatus::Failed | StepStatus::Unparsable => failed_now(&text),
            StepStatus::Ok => episode.has_data = true,
            _ => {}
        }
        text
    }
}

/// What the model reads of a `nu` call of `pipeline`: its step run,
/// or why it was not.
fn run(
    agent: &mut Agent,
    episode: &mut Episode,
    step: usize,
    ran: RunCall<'_>,
    pipeline: String,
    why: String,
    cancel: &CancelToken,
) -> String {
    let to_background = ran.background && agent.background.is_some() && agent.may_run();
    // Sent to the background by the model alone, a step runs here and
    // goes on as a job only if it takes long: a small model sends its
    // every step there (`ls` included) and then waits for nothing.
    let on_its_own = to_background && !agent.facts.background && agent.may_promote();
    let starts_job = to_background && !on_its_own;
    if !starts_job {
        episode.only_waiting = false;
    }
    let key = normalize(&pipeline);
    let failed_before = episode.failed.iter().find(|(k, ..)| *k == key).cloned();
    // A first command that works on input, given none after a step
    // gave a result, means that result.
    let feed = if agent.may_run() && agent.options.on(Lever::Feed) && !ran.script {
        episode
            .feed_from
            .and_then(|n| Some((n, agent.shell.out(n)?)))
            .and_then(|(n, last)| {
                let engine = agent.shell.session().engine_state();
                bare_input::feed(engine, &pipeline, n, &last)
            })
    } else {
        None
    };
    let shown_again = only_an_out(&pipeline).filter(|n| {
        agent.options.kind == PromptKind::Task
            && agent.options.on(Lever::Resample)
            && agent.shell.out(*n).is_some()
    });
    if starts_job && failed_before.is_none() {
        return agent.start_job(step, &pipeline);
    }
    if let Some(n) = shown_again {
        // Nothing new to see: a small model looks again at what it
        // has instead of answering from it.
        episode.must_answer = true;
        episode.told_to_answer = true;
        agent.emit(AgentEvent::Repaired {
            step,
            message: format!("a step that only shows `$out.{n}` again; not run, asked to answer"),
        });
        return format!(
            "Not run: `$out.{n}` was shown to you when it was made; shown again it gives nothing new. Call `answer` now with what the results show (`out: {n}` returns it to the user)."
        );
    }
    if let Some(Feed::NothingToTake(told)) = feed {
        episode.must_answer = true;
        episode.told_to_answer = true;
        agent.emit(AgentEvent::Repaired {
            step,
            message: "a command that works on input, given none after a result it cannot take; not run, asked to answer".into(),
        });
        return told;
    }
    if is_exit(&pipeline) {
        // A small model ends a task the shell's way.
        episode.must_answer = true;
        episode.told_to_answer = true;
        agent.emit(AgentEvent::Repaired {
            step,
            message: "`exit` is no step; not run, asked to answer".into(),
        });
        return EXIT_IS_NO_STEP.to_string();
    }
    if !agent.may_run() {
        return "Nothing may run here: explain from what you were shown, then call `answer`."
            .to_string();
    }
    if let Some((_, earlier, error)) = failed_before {
        agent.emit(AgentEvent::Repaired {
            step,
            message: format!("the pipeline that failed at step {earlier}; not run again"),
        });
        episode.idle_turns += usize::from(ran.progress);
        return format!(
            "Not run: this same pipeline failed at step {earlier} ({error}). Change what failed, try another command, or call `answer`."
        );
    }
    agent.last_ran = None;
    agent.ran_notes.clear();
    let (pipeline, note) = match feed {
        Some(Feed::Piped(piped, note)) => (piped, Some(note)),
        _ => match reuse::reusing(&pipeline, &episode.reads)
            .filter(|_| agent.options.on(Lever::Feed) && !ran.script)
        {
            Some((reused, note)) => (reused, Some(note)),
            None => (pipeline, None),
        },
    };
    agent.ran_notes.extend(note);
    let (pipeline, script) = if ran.script {
        as_script(agent, step, pipeline)
    } else {
        (pipeline, false)
    };
    let changes_before = agent.change_steps;
    agent.background_on_its_own = on_its_own;
    agent.source_shown = None;
    let (text, status) = rewrite::rewrite(agent, step, &pipeline, script, &why, cancel);
    agent.background_on_its_own = false;
    agent.observed(episode, step, ran, key, changes_before, text, status)
}

/// The commands of `script` that are Nushell's, not programs here (see
/// [`posix::nushell_heads`]).
pub(super) fn nushell_in(agent: &Agent, script: &str) -> Vec<String> {
    let engine = agent.shell.session().engine_state();
    let is_command = |name: &str| engine.find_decl(name.as_bytes(), &[]).is_some();
    let is_program = |name: &str| agent.shell.finds_program(name);
    posix::nushell_heads(script, is_command, is_program)
}

/// The pipeline of an `sh` call as it runs, and whether it is still a
/// script: Nushell written as a script (`open f | lines`) runs as the
/// Nushell it is, and a `find -exec` left open is closed.
fn as_script(agent: &mut Agent, step: usize, pipeline: String) -> (String, bool) {
    let Some(script) = posix::script_of(&pipeline) else {
        return (pipeline, true);
    };
    let nushell = nushell_in(agent, script);
    if !nushell.is_empty() && agent.options.on(Lever::Translation) {
        agent.ran_notes.push(format!(
            "`{}` is Nushell, not bash: that ran as a Nushell pipeline",
            nushell.join("`, `")
        ));
        return (script.to_string(), false);
    }
    match rules::as_script_means(&pipeline, &agent.options.levers) {
        Some((meant, done)) => {
            agent.ran_notes.extend(done.iter().map(|d| d.note.clone()));
            agent.rules_applied(step, done.iter().map(|d| d.rule));
            (meant, true)
        }
        None => (pipeline, true),
    }
}

/// The `nu` call being taken, as the stages after it need it.
#[derive(Clone, Copy)]
struct RunCall<'a> {
    call: &'a crate::llm::ToolCall,
    /// The index of the message that made it.
    calls_message: usize,
    /// Its key (see [`call_key`]).
    signature: &'a str,
    /// The call is progress (it resets the idle turns).
    progress: bool,
    /// The model sent it to the background.
    background: bool,
    /// It runs a script of the `sh` tool.
    script: bool,
}

/// What the model is told of an `exit` step.
const EXIT_IS_NO_STEP: &str = "Not run: there is no shell to exit. A task ends with `answer`: call it now with what you found, or what you could not do and why.";

/// Whether `pipeline` only ends the shell (`exit`, `exit 0`, `quit`).
pub(super) fn is_exit(pipeline: &str) -> bool {
    let words: Vec<&str> = pipeline
        .trim()
        .trim_end_matches(';')
        .split_whitespace()
        .collect();
    match words.as_slice() {
        ["exit" | "quit" | "logout"] => true,
        ["exit", code] => code.parse::<i64>().is_ok(),
        _ => false,
    }
}

/// N, where `pipeline` is only `$out.N` (a result shown again).
fn only_an_out(pipeline: &str) -> Option<usize> {
    pipeline.trim().strip_prefix("$out.")?.parse().ok()
}

/// What the model reads of a step that ran as `ran` in place of its own
/// pipeline, for the reasons `notes`, given the step's own `text`: the
/// reasons and the form that ran, said once (a fix leading to another
/// shows no pipeline between to be copied).
fn ran_in_place(notes: &[String], ran: Option<&str>, status: StepStatus, text: String) -> String {
    if notes.is_empty() {
        return text;
    }
    let notes = notes.join(". ");
    match ran {
        Some(ran) if matches!(status, StepStatus::Blocked | StepStatus::Denied) => {
            format!("{notes}; it was put as `{ran}`.\n{text}")
        }
        Some(ran) => format!("{notes}; it ran as `{ran}`.\n{text}"),
        None => format!("{notes}.\n{text}"),
    }
}

/// `call` with `pipeline` for its pipeline.
pub(super) fn with_pipeline(call: &crate::llm::ToolCall, pipeline: &str) -> crate::llm::ToolCall {
    let mut call = call.clone();
    call.arguments.insert(
        PIPELINE_ARGUMENT.to_string(),
        serde_json::Value::String(pipeline.to_string()),
    );
    call
}

/// `action`, unless its pipeline or answer is degenerate (one short unit
/// repeated): then what it was, the unit and how often it repeats.
pub(super) fn without_degenerate(action: Action) -> Result<Action, (&'static str, String, usize)> {
    let (what, text) = match &action {
        Action::Run { pipeline, .. } => ("pipeline", pipeline),
        Action::Answer { text, .. } => ("answer", text),
        Action::Help { .. } | Action::Invalid(_) => return Ok(action),
    };
    match super::super::degenerate::degenerate(text) {
        Some((unit, repeats)) => Err((what, unit, repeats)),
        None => Ok(action),
    }
}
