//! The stage that reads the model's reply before any call runs: a reply
//! that could not be read as a call, an empty or degenerate one, a reply
//! that answers in text (checked as an answer is), and a pipeline copied
//! from the prompt's examples after the model's own steps.

use super::*;

/// `turn`'s calls, when it made any the loop should take; otherwise
/// the model is told what to do instead ([`Stop::NextTurn`]) or its
/// text is the answer ([`Stop::End`]).
pub(super) fn read_reply(
    agent: &mut Agent,
    episode: &mut Episode,
    plan: Plan,
    turn: &crate::llm::ChatTurn,
) -> Result<(), Stop> {
    let step = plan.step;
    episode.idle_turns += 1;
    if let Some(repair) = turn.repair.clone() {
        agent.emit(AgentEvent::Repaired {
            step,
            message: format!(
                "the reply could not be read as a tool call (it began `{}`); asked again",
                normalize(&turn.content)
                    .chars()
                    .take(120)
                    .collect::<String>()
            ),
        });
        agent.push(Message::assistant(turn.content.clone(), Vec::new()));
        agent.instruct(repair);
        return Err(Stop::NextTurn);
    }
    if turn.tool_calls.is_empty() {
        return Err(agent.text_reply(episode, plan, turn));
    }
    if agent.copies_example(episode, turn) {
        // An example of the prompt copied after the model's own steps
        // gave results (or were stopped): it has nothing more of its
        // own to run. The copy is left out of the conversation (its
        // theme would carry into the answer) and the request is put
        // before the model again, for `answer` only.
        episode.must_answer = true;
        episode.told_to_answer = true;
        agent.emit(AgentEvent::Repaired {
            step,
            message: "a pipeline copied from the prompt's examples; not run, asked to answer"
                .into(),
        });
        agent.instructions.push(COPIED_EXAMPLE.to_string());
        agent.push(Message::user(format!(
            "{COPIED_EXAMPLE}\nThe request: {}",
            agent.request
        )));
        return Err(Stop::NextTurn);
    }
    Ok(())
}

impl Agent {
    /// A reply that made no call: empty or degenerate, it is asked again;
    /// otherwise its text is the answer, once the answer checks pass it.
    fn text_reply(
        &mut self,
        episode: &mut Episode,
        plan: Plan,
        turn: &crate::llm::ChatTurn,
    ) -> Stop {
        let step = plan.step;
        let text = turn.content.trim().to_string();
        if text.is_empty() {
            self.emit(AgentEvent::Repaired {
                step,
                message: "an empty reply; asked again".into(),
            });
            self.push(Message::assistant("", Vec::new()));
            self.instruct(
                "Your reply was empty. Call a tool: `nu` to run a pipeline, or `answer`.",
            );
            return Stop::NextTurn;
        }
        if let Some((unit, repeats)) = super::super::degenerate::degenerate(&text) {
            self.emit(AgentEvent::Repaired {
                step,
                message: format!(
                    "a degenerate reply (`{unit}` repeated {repeats} times); asked again"
                ),
            });
            self.push(Message::assistant(turn.content.clone(), Vec::new()));
            self.instruct(format!(
                "Your reply was `{unit}` repeated {repeats} times. Call a tool: `nu` to run a pipeline, or `answer` with what you know."
            ));
            return Stop::NextTurn;
        }
        self.push(Message::assistant(turn.content.clone(), Vec::new()));
        let said = Said {
            text: &text,
            by_tool: false,
            names_out: false,
            out_exists: false,
        };
        match self.check_answer(episode, plan, &said) {
            Some(AnswerVerdict::AskAgain { told, .. }) => {
                self.instruct(told);
                Stop::NextTurn
            }
            Some(AnswerVerdict::Outcome { .. }) => {
                Stop::End(self.outcome_answer(episode.last_stop.as_deref(), episode.last_result))
            }
            Some(AnswerVerdict::Amended { .. }) | None => {
                Stop::End(self.answer_with_last_table(text, episode.last_result))
            }
        }
    }

    /// Whether `turn` runs a pipeline copied from the prompt's examples
    /// after the model's own steps gave results or were stopped.
    fn copies_example(&self, episode: &Episode, turn: &crate::llm::ChatTurn) -> bool {
        if self.options.kind != PromptKind::Task || !(episode.has_data || episode.stops > 0) {
            return false;
        }
        let cwd = self.shell.cwd();
        turn.tool_calls.iter().any(|call| {
            matches!(Action::from_call(call), Action::Run { pipeline, .. }
                if prompt::is_example(&pipeline)
                    || prompt::names_an_example_file_not_here(&pipeline, &cwd))
        })
    }
}
