//! Background work inside the loop: a step that runs long goes on as a
//! job (promoted), a step the model sends to the background starts as
//! one, and what jobs report arrives between turns.

use super::*;

impl Agent {
    /// Take an event from outside into the conversation.
    pub(super) fn take(&mut self, inbound: Inbound) {
        let text = match inbound {
            Inbound::Note(note) => note,
            Inbound::JobDone(done) => {
                self.pending_jobs = self.pending_jobs.saturating_sub(1);
                self.job_report(done)
            }
        };
        self.emit(AgentEvent::External(
            text.lines().next().unwrap_or_default().to_string(),
        ));
        self.push(Message::user(format!("[event] {text}")));
    }

    /// What the model is told of a background step that ended; its value
    /// becomes the next `$out.N`.
    pub(super) fn job_report(&mut self, done: super::super::background::JobDone) -> String {
        let head = format!(
            "background job {} (`{}`) {}",
            done.id,
            done.pipeline,
            done.status.as_str()
        );
        let error = done
            .error
            .as_deref()
            .map(|e| format!(": {e}"))
            .unwrap_or_default();
        match done.value {
            Some(value) => {
                let n = self.shell.adopt_out(value.clone());
                let shown = self.options.observe.render(
                    &value,
                    &Budget::approx(self.options.observe_tokens),
                    Some(n),
                );
                format!("{head}{error}; its result is $out.{n}:\n{shown}")
            }
            None => format!("{head}{error}; it returned nothing"),
        }
    }

    /// Block until something arrives in the inbox; `None` when cancelled.
    pub(super) fn wait_for_inbox(&mut self, cancel: &CancelToken) -> Option<Inbound> {
        loop {
            if cancel.is_cancelled() {
                return None;
            }
            match self.inbox.recv_timeout(INBOX_POLL) {
                Ok(inbound) => return Some(inbound),
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                // The sender lives in `self`: never disconnected.
                Err(mpsc::RecvTimeoutError::Disconnected) => return None,
            }
        }
    }

    /// Where a background job reports its end: this loop's inbox.
    pub(super) fn job_done_to_inbox(&self) -> super::super::background::JobDoneFn {
        let inbox = self.inbox_sender.clone();
        Box::new(move |done| {
            let _ = inbox.send(Inbound::JobDone(done));
        })
    }

    /// Hand a step that ran past `after` to the runner as a job; the text
    /// for the model.
    pub(super) fn promote(
        &mut self,
        step: usize,
        pipeline: &str,
        after: Duration,
        promoted: Box<crate::policy::PromotedStep>,
        started: Instant,
    ) -> String {
        let Some(runner) = self.background.clone() else {
            return "The step could not go on in the background.".into();
        };
        let done = self.job_done_to_inbox();
        let handed: super::super::background::HandedOver =
            Box::new(move |cancel, approver| promoted.finish(cancel, approver));
        let (preview, text) = match runner.adopt(pipeline, handed, done) {
            Ok(id) => {
                self.pending_jobs += 1;
                (
                    format!(
                        "still running after {} s: now background job {id}",
                        after.as_secs()
                    ),
                    format!(
                        "Still running after {} s, so it goes on as background job {id}; its result comes as an [event] message with its $out number. The steps that follow run in a new session: variables and definitions of earlier steps are gone (`$out` is kept).",
                        after.as_secs()
                    ),
                )
            }
            Err(why) => (
                format!("could not go on in the background: {why}"),
                format!(
                    "It ran past {} s and could not go on in the background: {why}.",
                    after.as_secs()
                ),
            ),
        };
        self.emit(AgentEvent::Observed {
            step,
            status: StepStatus::Stopped,
            out: None,
            preview,
            approved_by: None,
            duration: started.elapsed(),
        });
        text
    }

    /// Start `pipeline` as a background job; the text for the model.
    pub(super) fn start_job(&mut self, step: usize, pipeline: &str) -> String {
        let Some(runner) = self.background.clone() else {
            return "There are no background jobs here; run it without `background`.".into();
        };
        // Almost Nushell starts as its exact Nushell form, as a step runs.
        let (plan, _) = self.shell.check(pipeline);
        let fixed = rules::as_nushell(pipeline, plan.is_some(), &self.options.levers);
        let pipeline = fixed
            .as_ref()
            .map_or(pipeline, |(nushell, _)| nushell.as_str());
        let (_, decision) = self.shell.check(pipeline);
        let copied = self.without_copied_filters(pipeline, &decision);
        let (pipeline, copied_note) = match &copied {
            Some((kept, note)) => (kept.as_str(), format!("{note}; it runs as `{kept}`.\n")),
            None => (pipeline, String::new()),
        };
        let done = self.job_done_to_inbox();
        match runner.start(pipeline, done) {
            Ok(id) => {
                self.pending_jobs += 1;
                self.notice(format!(
                    "step {step}: started as background job {id} (`agent job status {id}`)"
                ));
                let fixed = fixed.as_ref().map_or(String::new(), |(nushell, done)| {
                    format!(
                        "In Nushell {}; it runs as `{nushell}`.\n",
                        rewrite::notes_of(done)
                    )
                });
                format!(
                    "{fixed}{copied_note}Started as background job {id}. When it ends, its result comes as an [event] message with its $out number."
                )
            }
            Err(why) => {
                format!("The background job could not start: {why}. Run it without `background`.")
            }
        }
    }

    /// Whether a step running long can go on as a background job (there
    /// is a runner, and the sandbox worker runs steps).
    pub(super) fn may_promote(&self) -> bool {
        self.background.is_some() && self.shell.sandboxed()
    }
}
