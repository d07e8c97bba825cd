//! The stage that samples a turn: the conversation fitted to the context,
//! the tools the [`Plan`] offers, the pipeline grammar, and the calls to
//! steer away from; a turn that repeats an earlier call, or whose pipeline
//! cannot run, is sampled again steered away from it.

use super::*;

/// The model's turn for `plan`, sampled again (steered away, then
/// warmer) while it repeats a call made before or writes a pipeline
/// that cannot run.
pub(super) fn sample(
    agent: &mut Agent,
    episode: &Episode,
    plan: Plan,
    cancel: &CancelToken,
) -> Result<crate::llm::ChatTurn, Stop> {
    let step = plan.step;
    let resample = agent.options.on(Lever::Resample);
    let mut avoid = if resample {
        episode.made_calls.clone()
    } else {
        Vec::new()
    };
    let mut turn = agent.model_turn(plan.offered, agent.options.temperature, &avoid, cancel)?;
    // A call made before gives nothing new, and a greedy model
    // asked again in the same words makes it again (a backend that
    // cannot steer its tokens, or a repeat in other whitespace):
    // sample the turn anew, warmer, without the repeat in the
    // conversation, and with the calls it repeated to be steered
    // away from.
    for temperature in RESAMPLE_TEMPERATURES {
        let Some(earlier) = repeated_call(&turn, &episode.made).filter(|_| resample) else {
            break;
        };
        agent.emit(AgentEvent::Repaired {
            step,
            message: format!("the same call as step {earlier}; sampled again"),
        });
        avoid.extend(
            turn.tool_calls
                .iter()
                .filter(|call| call.name != ANSWER_TOOL)
                .cloned(),
        );
        let temperature = temperature.max(agent.options.temperature);
        turn = agent.model_turn(plan.offered, temperature, &avoid, cancel)?;
    }
    // A pipeline that cannot run is not shown to the model: it
    // is sampled again, steered away from it.
    for temperature in UNRUNNABLE_TEMPERATURES {
        // Before any result, a copied example is only a guess to
        // steer away from; after, it means the model is done (see
        // the reply stage).
        let before_results = !episode.has_data && episode.stops == 0;
        let unrunnable = agent
            .unrunnable_call(&turn, before_results)
            .filter(|_| resample);
        let Some((call, why)) = unrunnable else {
            break;
        };
        agent.emit(AgentEvent::Repaired {
            step,
            message: format!("a pipeline that {why}; sampled again"),
        });
        avoid.push(call);
        let temperature = temperature.max(agent.options.temperature);
        turn = agent.model_turn(plan.offered, temperature, &avoid, cancel)?;
    }
    // A read that gives nothing is tried against the model's next calls.
    candidates::tried(agent, plan, turn, &mut avoid, cancel)
}

impl Agent {
    /// One model turn offering the tools `offered` allows, the
    /// conversation fitted to the context first; a
    /// prompt that still does not fit is shortened further and retried.
    pub(super) fn model_turn(
        &mut self,
        offered: Offered,
        temperature: f32,
        avoid: &[crate::llm::ToolCall],
        cancel: &CancelToken,
    ) -> Result<crate::llm::ChatTurn, Stop> {
        let mut tools = tool_defs(self.options.kind);
        if self.options.offers_sh() {
            // First: the tool the request's files and text are done with.
            tools.insert(0, posix::tool_def());
            if self.options.on(Lever::ShOnly) {
                tools.retain(|t| [posix::SH_TOOL, ANSWER_TOOL].contains(&t.name.as_str()));
            }
        }
        let mut tool_choice = self.options.tool_choice;
        let runs = [NU_TOOL, posix::SH_TOOL];
        let only: Option<&[&str]> = match offered {
            Offered::Both => None,
            Offered::Answer => Some(&[ANSWER_TOOL]),
            Offered::Run => {
                Some(&runs[..]).filter(|_| tools.iter().any(|t| runs.contains(&t.name.as_str())))
            }
        };
        if let Some(only) = only {
            tools.retain(|t| only.contains(&t.name.as_str()));
            tool_choice = ToolChoice::Required;
        }
        let pipeline_grammar = (self.options.pipeline_grammar
            && tools.iter().any(|t| t.name == NU_TOOL))
        .then(|| pipeline_grammar(self.pipeline_heads()));
        let (whole_avoided, avoided_starts) = self.repository_avoided(&tools);
        let reserve = self.options.max_tokens as usize + TOOLS_RESERVE;
        let mut limit = self.options.context_tokens.saturating_sub(reserve).max(256);
        for attempt in 0..=CONTEXT_RETRIES {
            if let Some(notice) = compact::fit(&mut self.messages, limit) {
                self.notice(notice);
            }
            let request = ChatRequest {
                messages: self.messages.clone(),
                tools: tools.clone(),
                tool_choice,
                max_tokens: self.options.max_tokens,
                temperature,
                avoid: avoid.iter().cloned().chain(whole_avoided.clone()).collect(),
                avoid_starts: avoided_starts.clone(),
                pipeline_grammar: pipeline_grammar.clone(),
            };
            let sink = self.sink.clone();
            let mut notices = Vec::new();
            let mut on_event = |event: ChatEvent| match event {
                ChatEvent::Text(text) => sink(&AgentEvent::Text(text)),
                ChatEvent::Reasoning(text) => sink(&AgentEvent::Reasoning(text)),
                ChatEvent::Notice(text) => notices.push(text),
                _ => {}
            };
            let result = self.backend.chat(&request, &mut on_event, cancel);
            for notice in notices {
                self.notice(notice);
            }
            match result {
                Ok(turn) if turn.finish == Some(FinishReason::Cancelled) => {
                    return Err(Stop::End(Ending::Cancelled));
                }
                Ok(turn) => {
                    self.usage.prompt_tokens += turn.usage.prompt_tokens;
                    self.usage.prompt_evaluated += turn.usage.prompt_evaluated;
                    self.usage.completion_tokens += turn.usage.completion_tokens;
                    return Ok(turn);
                }
                Err(_) if cancel.is_cancelled() => return Err(Stop::End(Ending::Cancelled)),
                Err(LlmError::ContextTooLong { .. }) if attempt < CONTEXT_RETRIES => {
                    limit = (estimate(&self.messages) / 2).max(256);
                }
                Err(error) => return Err(Stop::End(Ending::Failed(Failure::from(&error)))),
            }
        }
        Err(Stop::End(Ending::Failed(Failure::new(
            FailureKind::ContextFull,
            "the conversation does not fit the model's context even shortened",
        ))))
    }

    /// What a pipeline element may start with in this session: its
    /// engine's commands and the programs on its PATH, read again only
    /// when the engine has new commands.
    pub(super) fn pipeline_heads(&mut self) -> Arc<[String]> {
        let engine = self.shell.session().engine_state();
        let commands = engine.num_decls();
        if let Some((known, heads)) = &self.heads
            && *known == commands
        {
            return heads.clone();
        }
        let heads: Arc<[String]> = pipeline_heads(engine, &self.shell.programs()).into();
        self.heads = Some((commands, heads.clone()));
        heads
    }

    /// The calls no reply may make, whole and as beginnings, in a git
    /// repository where the `nu` tool is offered (see
    /// [`repository::AVOIDED`]); none elsewhere.
    fn repository_avoided(
        &self,
        tools: &[crate::llm::ToolDef],
    ) -> (Vec<crate::llm::ToolCall>, Vec<crate::llm::ToolCall>) {
        let in_repository = tools.iter().any(|t| t.name == NU_TOOL)
            && crate::context::in_git_repository(&self.shell.cwd());
        if !in_repository {
            return (Vec::new(), Vec::new());
        }
        let [whole, starts @ ..] = repository::AVOIDED;
        (
            vec![nu_call(whole)],
            starts.iter().map(|start| nu_call(start)).collect(),
        )
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
                // A script passed the shell's grammar; what it names is
                // judged as it runs (Nushell in it runs as Nushell).
                Ok(Action::Run {
                    pipeline,
                    script: false,
                    ..
                }) => self
                    .why_unrunnable(&pipeline, examples_unrunnable)
                    .map(|why| (call.clone(), why)),
                _ => None,
            })
    }

    /// Why `pipeline` cannot run, judged before anything runs the way
    /// the rewrite and judge stages would take it: it does not parse even after the
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
        let levers = &self.options.levers;
        let as_programs = plan.is_none()
            && rules::PROGRAMS_OF_A_POSIX_PIPELINE.on(levers)
            && bash_forms::as_programs(engine, pipeline, finds).is_some();
        if translation
            && (rules::bash_as_nushell(engine, pipeline, levers).is_some() || as_programs)
        {
            return None;
        }
        Some(if unknown {
            "calls a name that is no command or program"
        } else {
            "does not parse"
        })
    }
}

/// The step of an earlier call that `turn` makes again (a pipeline or a
/// lookup; an answer may be repeated).
fn repeated_call(turn: &crate::llm::ChatTurn, made: &[(usize, usize, String)]) -> Option<usize> {
    turn.tool_calls
        .iter()
        .filter(|call| call.name != ANSWER_TOOL)
        .find_map(|call| {
            let key = call_key(call);
            made.iter().find(|(_, _, k)| *k == key).map(|(n, ..)| *n)
        })
}
