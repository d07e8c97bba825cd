//! The stage that runs one step: the call rewritten into the form that
//! runs (the request's scope, almost-Nushell, bash), judged by the policy,
//! run (asked about where the policy asks), an exact fix after its error,
//! and what its result tells the model with the notes on it (see
//! [`rules`](super::super::rules)).

use super::*;

impl Agent {
    /// Check, (ask,) run and observe one pipeline; the text for the model
    /// and how the step ended. A pipeline that does not parse, or calls
    /// names that are neither commands nor programs, runs as its exact
    /// Nushell form where the policy allows that unasked, else as its
    /// programs where it is plain POSIX; names nothing can run go back to
    /// the model unrun, with the Nushell form.
    pub(super) fn run_step(
        &mut self,
        step: usize,
        pipeline: &str,
        why: &str,
        cancel: &CancelToken,
    ) -> (String, StepStatus) {
        // To what the request's words ask ("which files" answered with the
        // rows, "in each file" per file, subfolders too): the pipeline
        // that fits runs in its place (see `rules::scope`).
        let cwd = self.shell.cwd();
        if let Some((scoped, done)) =
            rules::scoped(pipeline, &self.facts, &cwd, &self.options.levers)
        {
            self.ran_notes.extend(done.iter().map(|d| d.note.clone()));
            self.rules_applied(step, done.iter().map(|d| d.rule));
            return self.run_step(step, &scoped, why, cancel);
        }
        let (plan, decision) = self.shell.check(pipeline);
        // A filter copied with a made-up value of the prompt's examples
        // (`where size > 1mb`, `first 3`) the request does not give: the
        // read runs without it.
        if let Some((kept, note)) = plan
            .as_ref()
            .and_then(|_| self.without_copied_filters(pipeline, &decision))
        {
            self.ran_notes.push(note);
            return self.run_step(step, &kept, why, cancel);
        }
        // Almost Nushell (`30days` for `30day`, `each { $it }`,
        // `select a, b`): the exact Nushell form runs (and is judged) in
        // its place.
        let translation = self.options.on(Lever::Translation);
        if let Some((nushell, done)) =
            rules::as_nushell(pipeline, plan.is_some(), &self.options.levers)
        {
            self.ran_notes
                .push(format!("In Nushell {}", notes_of(&done)));
            self.rules_applied(step, done.iter().map(|d| d.rule));
            return self.run_step(step, &nushell, why, cancel);
        }
        let finds = |program: &str| self.shell.finds_program(program);
        let unknown = plan
            .as_ref()
            .map(|plan| crate::policy::unknown_programs(&plan.steps, finds))
            .unwrap_or_default();
        let engine = self.shell.session().engine_state();
        // `^sys cpu` with no program `sys` here: the command `sys cpu`.
        if let Some(command) = translation
            .then(|| habits::without_caret_of_commands(engine, pipeline, &unknown))
            .flatten()
        {
            self.ran_notes.push(format!(
                "`{}` is a Nushell command, not a program: no `^`",
                unknown.join("`, `")
            ));
            return self.run_step(step, &command, why, cancel);
        }
        let bash_in_nushell = translation
            && (bash_forms::asks_help_by_habit(engine, pipeline)
                || bash_forms::feeds_a_table_to_a_program(engine, pipeline));
        if let Some(text) = plan
            .as_ref()
            .and_then(|_| usage::bare_family_hint(engine, pipeline))
        {
            let preview = first_line(&text);
            return self.not_run(step, pipeline, why, "only help".into(), preview, text);
        }
        if plan.is_some() && unknown.is_empty() && !bash_in_nushell {
            return self.run_checked(step, pipeline, why, decision, cancel);
        }
        // Bash in a Nushell pipeline: its exact Nushell form (made exact
        // Nushell in turn: `sum amount` is `math sum amount`, which is
        // `get amount | math sum`) runs where the policy lets it run
        // without a question.
        let nushell = bash_forms::as_nushell(engine, pipeline)
            .filter(|_| translation)
            .map(|nu| {
                rules::as_nushell(&nu, true, &self.options.levers).map_or(nu, |(fixed, _)| fixed)
            })
            .and_then(|nu| {
                let (plan, decision) = self.shell.check(&nu);
                let runs = plan.is_some_and(|plan| {
                    crate::policy::unknown_programs(&plan.steps, finds).is_empty()
                }) && decision.verdict == Verdict::Allow;
                runs.then_some((nu, decision))
            });
        if let Some((nu, decision)) = nushell {
            self.ran_notes.push("That was bash".into());
            return self.run_checked(step, &nu, why, decision, cancel);
        }
        // A plain POSIX pipeline of programs runs as those programs.
        let programs = (translation && plan.is_none())
            .then(|| bash_forms::as_programs(engine, pipeline, finds))
            .flatten()
            .and_then(|programs| match self.shell.check(&programs) {
                (Some(_), decision) => Some((programs, decision)),
                (None, _) => None,
            });
        if let Some((programs, decision)) = programs {
            self.ran_notes
                .push("That was no Nushell but a pipeline of programs".into());
            return self.run_checked(step, &programs, why, decision, cancel);
        }
        if !unknown.is_empty() {
            let text = habits::unknown_programs_message(engine, &unknown);
            let label = format!("not a command: {}", unknown.join(", "));
            let preview = format!("`{}` is not a command or a program", unknown[0]);
            return self.not_run(step, pipeline, why, label, preview, text);
        }
        self.run_checked(step, pipeline, why, decision, cancel)
    }

    /// Say that the rules named `names` changed step `step` (see
    /// [`AgentEvent::RuleApplied`]).
    fn rules_applied(&mut self, step: usize, names: impl IntoIterator<Item = &'static str>) {
        for rule in names {
            self.emit(AgentEvent::RuleApplied {
                step,
                rule: rule.to_string(),
            });
        }
    }

    /// A step the loop does not run, whatever the policy says (it calls
    /// no command, or would only print help): proposed with `label`,
    /// observed failed with `preview`; `text` is what the model reads.
    fn not_run(
        &mut self,
        step: usize,
        pipeline: &str,
        why: &str,
        label: String,
        preview: String,
        text: String,
    ) -> (String, StepStatus) {
        self.emit(AgentEvent::Proposed {
            step,
            pipeline: pipeline.to_string(),
            why: why.to_string(),
            verdict: Verdict::Refuse,
            label,
        });
        self.emit(AgentEvent::Observed {
            step,
            status: StepStatus::Failed,
            out: None,
            preview,
            approved_by: None,
            duration: Duration::ZERO,
        });
        (text, StepStatus::Failed)
    }

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

    /// The first `nu` call of `turn` whose pipeline cannot run, with why
    /// (see [`Agent::why_unrunnable`]).
    pub(super) fn unrunnable_call(
        &self,
        turn: &crate::llm::ChatTurn,
        examples_unrunnable: bool,
    ) -> Option<(crate::llm::ToolCall, &'static str)> {
        if !self.may_run() {
            return None;
        }
        turn.tool_calls
            .iter()
            .find_map(|call| match without_degenerate(Action::from_call(call)) {
                Ok(Action::Run { pipeline, .. }) => self
                    .why_unrunnable(&pipeline, examples_unrunnable)
                    .map(|why| (call.clone(), why)),
                _ => None,
            })
    }

    /// Why `pipeline` cannot run, judged before anything runs the way
    /// [`Agent::run_step`] would take it: it does not parse even after the
    /// exact fixes of almost-Nushell and bash, it calls a name that is
    /// neither a command nor a program here, or (where `examples_unrunnable`)
    /// it is a prompt example on files that are not here. `None` when it
    /// can run.
    fn why_unrunnable(&self, pipeline: &str, examples_unrunnable: bool) -> Option<&'static str> {
        if is_exit(pipeline) {
            return None;
        }
        if examples_unrunnable && prompt::is_example_on_missing_files(pipeline, &self.shell.cwd()) {
            return Some("copies the prompt's example, on files that are not here");
        }
        let translation = self.options.on(Lever::Translation);
        let (plan, _) = self.shell.check(pipeline);
        let fixed = rules::as_nushell(pipeline, plan.is_some(), &self.options.levers);
        let pipeline = fixed.as_ref().map_or(pipeline, |(fixed, _)| fixed.as_str());
        let (plan, _) = self.shell.check(pipeline);
        let finds = |program: &str| self.shell.finds_program(program);
        let unknown = plan
            .as_ref()
            .is_some_and(|plan| !crate::policy::unknown_programs(&plan.steps, finds).is_empty());
        if plan.is_some() && !unknown {
            return None;
        }
        let engine = self.shell.session().engine_state();
        if translation
            && (bash_forms::as_nushell(engine, pipeline).is_some()
                || (plan.is_none() && bash_forms::as_programs(engine, pipeline, finds).is_some()))
        {
            return None;
        }
        Some(if unknown {
            "calls a name that is no command or program"
        } else {
            "does not parse"
        })
    }

    /// (Ask,) run and observe `pipeline` as it is, whose static verdict is
    /// `decision`; where it fails on an error with an exact fix (`size >
    /// 10` → `size > 10b`), the fixed pipeline runs next, at most
    /// [`MAX_EXACT_FIXES`] times in a row (see [`rules::exact_fix`]).
    fn run_checked(
        &mut self,
        step: usize,
        pipeline: &str,
        why: &str,
        decision: Decision,
        cancel: &CancelToken,
    ) -> (String, StepStatus) {
        let reach = scope::reaches_past(pipeline, &self.facts.named_kinds)
            .filter(|_| self.options.on(Lever::Scope));
        match reach {
            Some(scope::Reach::Narrowed(narrowed, note)) => {
                let (_, decision) = self.shell.check(&narrowed);
                self.ran_notes.push(note);
                return self.run_checked(step, &narrowed, why, decision, cancel);
            }
            Some(scope::Reach::NotRun(text)) => {
                let preview = first_line(&text);
                let label = "past the request".to_string();
                return self.not_run(step, pipeline, why, label, preview, text);
            }
            None => {}
        }
        let (mut text, mut status, mut error) =
            self.run_once(step, pipeline, why, decision, cancel);
        let mut pipeline = pipeline.to_string();
        for _ in 0..MAX_EXACT_FIXES {
            let fix = match (&error, status) {
                (Some(diagnostic), StepStatus::Failed) => {
                    rules::exact_fix(&pipeline, diagnostic, &self.options.levers)
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
            self.ran_notes.push(format!("In Nushell {note}"));
            self.rules_applied(step, [rule]);
            let (_, decision) = self.shell.check(&fixed);
            (text, status, error) = self.run_once(step, &fixed, why, decision, cancel);
            pipeline = fixed;
        }
        (text, status)
    }

    /// [`Agent::run_checked`] without the fix: the text the model reads,
    /// the step's status and the engine's error.
    fn run_once(
        &mut self,
        step: usize,
        pipeline: &str,
        why: &str,
        decision: Decision,
        cancel: &CancelToken,
    ) -> (String, StepStatus, Option<Diagnostic>) {
        self.last_ran = Some(pipeline.to_string());
        self.emit(AgentEvent::Proposed {
            step,
            pipeline: pipeline.to_string(),
            why: why.to_string(),
            verdict: decision.verdict,
            label: verdict_label(&decision),
        });
        match decision.verdict {
            Verdict::Confirm => self.emit(AgentEvent::AwaitingApproval {
                step,
                pipeline: pipeline.to_string(),
            }),
            Verdict::Allow => self.emit(AgentEvent::Running {
                step,
                pipeline: pipeline.to_string(),
            }),
            Verdict::Block | Verdict::Refuse => {}
        }
        let limits = self.step_limits();
        let started = Instant::now();
        let promote_after = match self.options.promote_after {
            Some(after) if self.background_on_its_own => Some(after.min(BACKGROUND_GRACE)),
            None if self.background_on_its_own => Some(BACKGROUND_GRACE),
            after => after,
        };
        let promotable = promote_after.filter(|_| self.may_promote());
        let ran = match promotable {
            None => self.shell.run(pipeline, &limits, cancel),
            Some(after) => match self.shell.run_or_promote(pipeline, &limits, cancel, after) {
                Foreground::Ran(ran) => ran,
                Foreground::Promoted {
                    ran,
                    step: promoted,
                } => {
                    if let Some(notice) = &ran.notice {
                        self.notice(notice.clone());
                    }
                    self.may_have_changed |= may_change(&decision);
                    self.change_steps += usize::from(may_change(&decision));
                    let text = self.promote(step, pipeline, after, promoted, started);
                    return (text, StepStatus::Stopped, None);
                }
            },
        };
        if let Some(notice) = &ran.notice {
            self.notice(notice.clone());
        }
        let status = step_status(&ran);
        self.may_have_changed |= status == StepStatus::Ok && may_change(&decision);
        let ran_at_all = !matches!(status, StepStatus::Blocked | StepStatus::Denied);
        self.change_steps += usize::from(ran_at_all && may_change(&decision));
        let out = ran.approved_by.as_ref().map(|_| ran.outcome.index);
        self.emit(AgentEvent::Observed {
            step,
            status,
            out,
            preview: preview(&ran, status),
            approved_by: ran.approved_by.clone(),
            duration: started.elapsed(),
        });
        let observed = observation(
            &ran,
            status,
            self.options.observe_tokens,
            self.options.observe,
        );
        if matches!(status, StepStatus::Failed | StepStatus::Unparsable)
            && let Some(diagnostic) = &ran.outcome.error
        {
            self.last_error = Some(diagnostic.message.clone());
        }
        let outcome = rules::Outcome {
            pipeline,
            status,
            error: ran.outcome.error.as_ref(),
            value: &ran.outcome.value,
            index: ran.outcome.index,
            changes: may_change(&decision),
            cwd: &ran.outcome.cwd,
            wants_subfolders: self.facts.subfolders,
            task: self.options.kind == PromptKind::Task,
        };
        let levers = self.options.levers.clone();
        let mut reads = StepReads {
            agent: self,
            cancel,
        };
        let (observed, told_by) = rules::with_notes(observed, &outcome, &mut reads, &levers);
        self.rules_applied(step, told_by);
        let text = match &ran.notice {
            Some(notice) => format!("Note: {notice}.\n{observed}"),
            None => observed,
        };
        (text, status, ran.outcome.error)
    }

    /// `pipeline` (a read the loop makes to explain a step) run where the
    /// policy allows it without a question; `None` when it would ask, is
    /// refused, or fails.
    fn read_again(&mut self, pipeline: &str, cancel: &CancelToken) -> Option<Ran> {
        let (_, decision) = self.shell.check(pipeline);
        if decision.verdict != Verdict::Allow {
            return None;
        }
        let limits = self.step_limits();
        let ran = self.shell.run(pipeline, &limits, cancel);
        (ran.outcome.error.is_none() && ran.approved_by.is_some()).then_some(ran)
    }
}

/// The notes of the rewrites `done`, as one clause ("`30days` is
/// `30day`; a closure names its parameter: …").
pub(super) fn notes_of(done: &[rules::Rewritten]) -> String {
    let notes: Vec<&str> = done.iter().map(|d| d.note.as_str()).collect();
    notes.join("; ")
}

/// What the notes on a step may read again (see [`rules::Reads`]).
struct StepReads<'a> {
    agent: &'a mut Agent,
    cancel: &'a CancelToken,
}

impl rules::Reads for StepReads<'_> {
    fn read(&mut self, pipeline: &str) -> Option<(usize, Value)> {
        let ran = self.agent.read_again(pipeline, self.cancel)?;
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
