//! The conversation history as the loop's [`Transcript`]: every message,
//! notice and ending appended to the conversation's file in the state dir.

use std::path::Path;

use super::event::Ending;
use crate::{
    llm::Message,
    store::{ConversationLog, History, RunEnd},
};

/// Where the conversation is recorded as it grows (the history).
pub trait Transcript: Send {
    /// A message joined the conversation.
    fn message(&mut self, message: &Message);
    /// Something the user was told (e.g. messages were shortened).
    fn notice(&mut self, text: &str);
    /// A request ended after `steps` model turns.
    fn end(&mut self, ending: &Ending, steps: usize);
    /// The conversation's id in the history, where it has one.
    fn id(&self) -> Option<String> {
        None
    }
}

impl Transcript for ConversationLog {
    fn message(&mut self, message: &Message) {
        if let Err(err) = self.append(message) {
            eprintln!("agent: the history was not written: {err}");
        }
    }

    fn notice(&mut self, text: &str) {
        if let Err(err) = ConversationLog::notice(self, text) {
            eprintln!("agent: the history was not written: {err}");
        }
    }

    fn end(&mut self, ending: &Ending, steps: usize) {
        let (answer, error) = match ending {
            Ending::Answered { text, .. } => (Some(text.clone()), None),
            Ending::Failed(failure) => (None, Some(failure.message.clone())),
            Ending::Cancelled => (None, None),
        };
        let end = RunEnd {
            time: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            outcome: ending.as_str().to_string(),
            steps,
            answer,
            error,
        };
        if let Err(err) = ConversationLog::end(self, &end) {
            eprintln!("agent: the history was not written: {err}");
        }
    }

    fn id(&self) -> Option<String> {
        Some(ConversationLog::id(self).to_string())
    }
}

/// Why the history cannot be used for a request.
#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    #[error("there is no conversation to continue")]
    NothingToContinue,
    #[error("cannot use the conversation history: {0}")]
    Store(#[from] crate::store::StoreError),
}

/// The transcript for a request and the messages it goes on from: the
/// last conversation when `continue_last`, else a new one.
pub fn open_history(
    continue_last: bool,
    cwd: &Path,
    model: &str,
    request: &str,
) -> Result<(Box<dyn Transcript>, Vec<Message>), HistoryError> {
    let history = History::open_default()?;
    if continue_last {
        let id = history.last_id()?.ok_or(HistoryError::NothingToContinue)?;
        let (conversation, log) = history.resume(&id)?;
        return Ok((Box::new(log), conversation.messages));
    }
    let log = history.start(&cwd.display().to_string(), model, request)?;
    Ok((Box::new(log), Vec::new()))
}
