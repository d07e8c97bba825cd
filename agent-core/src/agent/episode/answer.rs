//! The stage that checks an answer before it reaches the user (the
//! checks themselves are registered rules: `rules::ANSWER_CHECKS`), and
//! the answer the loop gives itself from the steps' own outcome when the
//! model has no turn left.

use super::*;

impl Agent {
    /// What the model reads of its `answer` call (`text`, returning
    /// `$out.{out}`), when the answer is sent back; otherwise the request
    /// ends with it ([`Stop::End`]). `progress`: the call counted as
    /// progress (a check that sends it back takes that back).
    pub(super) fn answer_call(
        &mut self,
        episode: &mut Episode,
        plan: Plan,
        text: String,
        out: Option<usize>,
        progress: bool,
    ) -> Result<String, Stop> {
        let step = plan.step;
        let said = Said {
            text: &text,
            by_tool: true,
            names_out: out.is_some(),
            out_exists: out.is_some_and(|n| self.shell.out(n).is_some()),
        };
        let text = match self.check_answer(episode, plan, &said) {
            Some(AnswerVerdict::AskAgain { told, .. }) => {
                episode.idle_turns += usize::from(progress);
                return Ok(told);
            }
            Some(AnswerVerdict::Outcome { .. }) => {
                return Err(Stop::End(
                    self.outcome_answer(episode.last_stop.as_deref(), episode.last_result),
                ));
            }
            Some(AnswerVerdict::Amended { text, .. }) => text,
            None => text,
        };
        let last_result = episode.last_result;
        let Some(n) = out else {
            return Err(Stop::End(self.answer_with_last_table(text, last_result)));
        };
        if let Some(value) = self.shell.out(n) {
            self.answered_out = Some(n);
            return Err(Stop::End(Ending::Answered {
                text: with_row_names(text, &value),
                data: Some(value),
            }));
        }
        // A result it miscounted (`$out.1` when the last step's is
        // `$out.0`): the last result is what it meant to return.
        let last = last_result.and_then(|m| Some((m, self.shell.out(m)?)));
        if let Some((m, value)) = last.filter(|_| !text.trim().is_empty()) {
            self.emit(AgentEvent::Repaired {
                step,
                message: format!(
                    "the answer named $out.{n}, which does not exist; it returns $out.{m}, the last result"
                ),
            });
            self.answered_out = Some(m);
            return Err(Stop::End(Ending::Answered {
                text,
                data: Some(value),
            }));
        }
        // Nothing to return, or no turn left to fix it in: the answer's
        // text is the answer.
        if (plan.answer_only || self.shell.out(0).is_none()) && !text.trim().is_empty() {
            self.answered_out = None;
            return Err(Stop::End(Ending::Answered { text, data: None }));
        }
        Ok(format!(
            "There is no $out.{n}: {}. Answer again with an existing one, or without `out`.",
            self.outs_so_far()
        ))
    }

    /// The verdict of the first answer check (those the levers leave on)
    /// that speaks of `said`, its repair reported; a check that sends an
    /// answer given with the tool back is remembered (it does so once).
    pub(super) fn check_answer(
        &mut self,
        episode: &mut Episode,
        plan: Plan,
        said: &Said<'_>,
    ) -> Option<AnswerVerdict> {
        let record = Record {
            messages: &self.messages,
            instructions: &self.instructions,
            request: &self.request,
            kind: self.options.kind,
            last_step: plan.last_step,
            answer_only: plan.answer_only,
            has_data: episode.has_data,
            stops: episode.stops,
            last_stop: episode.last_stop.as_deref(),
            last_result: episode.last_result.is_some(),
            last_is_table: self.is_a_table(episode.last_result),
            any_result: self.shell.out(0).is_some(),
            may_have_changed: self.may_have_changed,
            asked: &episode.asked,
        };
        let (check, verdict) = rules::answer_verdict(said, &record, &self.options.levers)?;
        let (AnswerVerdict::AskAgain { repair, .. }
        | AnswerVerdict::Outcome { repair }
        | AnswerVerdict::Amended { repair, .. }) = &verdict;
        let step = plan.step;
        self.emit(AgentEvent::Repaired {
            step,
            message: repair.clone(),
        });
        self.emit(AgentEvent::RuleApplied {
            step,
            rule: check.to_string(),
        });
        if let AnswerVerdict::AskAgain { must_run, .. } = &verdict
            && said.by_tool
        {
            episode.asked.push(check);
            episode.must_run |= *must_run;
        }
        Some(verdict)
    }

    /// The answer `text`; right after a step that gave a table (`$out.N`
    /// of `last_result`) it returns that table too, so it can be piped;
    /// with the `answer-output` lever, any result that holds something
    /// (a script's text too).
    pub(super) fn answer_with_last_table(
        &mut self,
        text: String,
        last_result: Option<usize>,
    ) -> Ending {
        let any_output = self.options.on(Lever::AnswerOutput);
        let table = last_result
            .and_then(|n| self.shell.out(n).map(|v| (n, v)))
            .filter(|(_, value)| is_table(value) || (any_output && holds_something(value)));
        self.answered_out = table.as_ref().map(|(n, _)| *n);
        let text = match &table {
            Some((_, value)) => with_row_names(text, value),
            None => text,
        };
        // Text that is one path here a line (`find`'s output) is returned
        // as the list of those paths, ready to pipe.
        let table = match (table, any_output) {
            (Some((n, value)), true) => {
                let cwd = self.shell.cwd();
                let listed = paths_listed(&value, &cwd).or_else(|| {
                    self.options
                        .on(Lever::TextTables)
                        .then(|| crate::agent::text_tables::tabulated(&value, &cwd))
                        .flatten()
                });
                Some((n, listed.unwrap_or(value)))
            }
            (table, _) => table,
        };
        Ending::Answered {
            text,
            data: table.map(|(_, value)| value),
        }
    }

    /// The answer the steps give when the model cannot: what the policy
    /// stopped (`stopped`, the first line it was told), else the last
    /// result (`last_result`) as data, else the engine's last error.
    pub(super) fn outcome_answer(
        &mut self,
        stopped: Option<&str>,
        last_result: Option<usize>,
    ) -> Ending {
        if let Some(stopped) = stopped {
            self.answered_out = None;
            return Ending::Answered {
                text: format!("I did not do it: the policy stopped the step ({stopped})."),
                data: None,
            };
        }
        if let Some((n, value)) = last_result.and_then(|n| Some((n, self.shell.out(n)?))) {
            self.answered_out = Some(n);
            return Ending::Answered {
                text: match one_value(&value) {
                    Some(value) => format!("The last step found {value} ($out.{n})."),
                    None => with_what_it_holds(
                        format!("This is what the last step found ($out.{n})."),
                        &value,
                    ),
                },
                data: Some(value),
            };
        }
        self.answered_out = None;
        Ending::Answered {
            text: match &self.last_error {
                Some(failure) => format!("I could not finish the task: {failure}"),
                None => "I could not finish the task.".to_string(),
            },
            data: None,
        }
    }

    /// Whether the result `$out.N` of `last_result` is a table (an answer
    /// right after it returns it).
    pub(super) fn is_a_table(&self, last_result: Option<usize>) -> bool {
        last_result
            .and_then(|n| self.shell.out(n))
            .is_some_and(|value| is_table(&value))
    }
}

/// A result that is one short value (a number, a size, a word), as text.
pub(super) fn one_value(value: &Value) -> Option<String> {
    let text = match value {
        Value::Int { .. }
        | Value::Float { .. }
        | Value::Filesize { .. }
        | Value::Duration { .. }
        | Value::Bool { .. }
        | Value::String { .. } => value.to_abbreviated_string(&nu_protocol::Config::default()),
        _ => return None,
    };
    (!text.is_empty() && text.len() <= 80 && !text.contains('\n')).then_some(text)
}

/// `text`, an answer about `value`, with the names of its rows on a line
/// of their own where it names none of them ("There are 2 empty files."
/// about a table of them; see [`grounding::rows_unnamed`]).
pub(super) fn with_row_names(text: String, value: &Value) -> String {
    match grounding::rows_unnamed(&text, value) {
        Some(names) => format!("{}\n{names}", text.trim_end()),
        None => text,
    }
}

/// `text`, an answer that only points at `value`, with what a small
/// `value` holds: its rows' names, or its lines of text.
pub(super) fn with_what_it_holds(text: String, value: &Value) -> String {
    match grounding::lines_unquoted(&text, value) {
        Some(lines) => format!("{text}\n{lines}"),
        None => with_row_names(text, value),
    }
}

/// Whether `value` holds something to show: text that is not blank, a
/// list or record that is not empty, any other value but nothing.
pub(super) fn holds_something(value: &Value) -> bool {
    match value {
        Value::Nothing { .. } => false,
        Value::String { val, .. } => !val.trim().is_empty(),
        Value::List { vals, .. } => !vals.is_empty(),
        Value::Record { val, .. } => !val.is_empty(),
        _ => true,
    }
}

/// `value`, text whose every line names a file or folder under `cwd` (or
/// an absolute one that exists), as the list of those paths without a
/// leading `./`; `None` for any other value.
pub(super) fn paths_listed(value: &Value, cwd: &std::path::Path) -> Option<Value> {
    let Value::String { val, .. } = value else {
        return None;
    };
    let lines: Vec<&str> = val
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.is_empty())
        .collect();
    let paths: Vec<&str> = lines
        .iter()
        .map(|line| line.strip_prefix("./").unwrap_or(line))
        .filter(|path| crate::agent::text_tables::is_here(path, cwd))
        .collect();
    if paths.is_empty() || paths.len() != lines.len() {
        return None;
    }
    let span = value.span();
    Some(Value::list(
        paths.into_iter().map(|p| Value::string(p, span)).collect(),
        span,
    ))
}

/// Whether `value` is a table: a list of records, not empty.
pub(super) fn is_table(value: &Value) -> bool {
    match value {
        Value::List { vals, .. } => {
            !vals.is_empty() && vals.iter().all(|v| matches!(v, Value::Record { .. }))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_of_paths_here_is_a_list_and_other_text_is_not() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/a.rs"), "").unwrap();
        std::fs::write(dir.path().join("notes.md"), "").unwrap();
        let text = |t: &str| Value::test_string(t);
        let listed = paths_listed(&text("./src/a.rs\n./notes.md\n"), dir.path());
        assert_eq!(
            listed,
            Some(Value::test_list(vec![
                Value::test_string("src/a.rs"),
                Value::test_string("notes.md")
            ]))
        );
        // A line that names nothing here, a count, a table: left as they are.
        for other in ["./src/a.rs\n./gone.md", "3", "  \n"] {
            assert_eq!(paths_listed(&text(other), dir.path()), None, "{other}");
        }
        assert_eq!(paths_listed(&Value::test_int(3), dir.path()), None);
    }
}
