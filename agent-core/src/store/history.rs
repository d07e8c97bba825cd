//! Conversation history: one append-only JSON-lines file per conversation
//! in `<state dir>/history/<id>.jsonl` — a `meta` line, then `message`,
//! `notice` and `end` lines as the conversation grows (`ask --continue`
//! appends to the same file). Nothing is rewritten; a torn or garbled line
//! is skipped when reading, never fatal. Message text is redacted before it
//! is written.

use std::{
    fs::File,
    io::{BufRead, BufReader},
    path::{Path, PathBuf},
    sync::{
        Mutex,
        atomic::{AtomicUsize, Ordering},
    },
};

use serde::{Deserialize, Serialize};

use super::{
    StoreError,
    append::{append_line, open_append},
    state_dir::create_private_dir,
};
use crate::{llm::Message, redact::Redactor};

/// The history directory's name inside the state dir.
pub const HISTORY_DIR: &str = "history";

/// One conversation's header.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConversationMeta {
    pub id: String,
    /// RFC 3339, UTC.
    pub started: String,
    pub cwd: String,
    pub model: String,
    /// The first request.
    pub prompt: String,
}

/// How one request of a conversation ended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunEnd {
    pub time: String,
    /// `answered`, `failed` or `cancelled`.
    pub outcome: String,
    /// Model turns it took.
    pub steps: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// One line of a conversation file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
enum Line {
    Meta(ConversationMeta),
    Message { message: Message },
    Notice { text: String },
    End(RunEnd),
}

/// A stored conversation, read back.
#[derive(Clone, Debug, PartialEq)]
pub struct Conversation {
    pub meta: ConversationMeta,
    pub messages: Vec<Message>,
    pub notices: Vec<String>,
    pub ends: Vec<RunEnd>,
}

/// A row of `agent history`.
#[derive(Clone, Debug, PartialEq)]
pub struct ConversationSummary {
    pub meta: ConversationMeta,
    /// Requests made in it (`ask` and each `--continue`).
    pub runs: usize,
    /// Model turns over all runs.
    pub steps: usize,
    /// How the last run ended.
    pub outcome: Option<String>,
    /// The last answer.
    pub answer: Option<String>,
    pub messages: usize,
    pub path: PathBuf,
}

/// The conversations of one state dir.
#[derive(Debug)]
pub struct History {
    dir: PathBuf,
    redactor: Redactor,
}

/// Numbers ids made in the same second by this process.
static SEQUENCE: AtomicUsize = AtomicUsize::new(0);

impl History {
    /// `<state dir>/history`, created private.
    pub fn open_default() -> Result<History, StoreError> {
        History::open(&super::state_dir()?.join(HISTORY_DIR))
    }

    /// The history in `dir` (created private if missing).
    pub fn open(dir: &Path) -> Result<History, StoreError> {
        create_private_dir(dir)?;
        Ok(History {
            dir: dir.to_path_buf(),
            redactor: Redactor::default(),
        })
    }

    /// Redact messages with `redactor` (e.g. one knowing the session's
    /// secret values) instead of the built-in shapes alone.
    pub fn with_redactor(self, redactor: Redactor) -> History {
        History { redactor, ..self }
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Start a new conversation.
    pub fn start(
        &self,
        cwd: &str,
        model: &str,
        prompt: &str,
    ) -> Result<ConversationLog, StoreError> {
        let now = chrono::Utc::now();
        let id = format!(
            "{}-{}-{}",
            now.format("%Y%m%dT%H%M%S%3fZ"),
            std::process::id(),
            SEQUENCE.fetch_add(1, Ordering::SeqCst)
        );
        let meta = ConversationMeta {
            id: id.clone(),
            started: now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            cwd: cwd.to_string(),
            model: model.to_string(),
            prompt: self.redactor.redact(prompt).into_owned(),
        };
        let log = self.log(&id)?;
        log.write(&Line::Meta(meta))?;
        Ok(log)
    }

    /// Go on with conversation `id`: what it holds, and its log to append to.
    pub fn resume(&self, id: &str) -> Result<(Conversation, ConversationLog), StoreError> {
        let conversation = self.load(id)?;
        Ok((conversation, self.log(id)?))
    }

    /// The newest conversation's id.
    pub fn last_id(&self) -> Result<Option<String>, StoreError> {
        Ok(self.ids()?.into_iter().next_back())
    }

    /// Conversation `id`, read back (unreadable lines skipped).
    pub fn load(&self, id: &str) -> Result<Conversation, StoreError> {
        let path = self.path(id)?;
        let file = File::open(&path).map_err(|source| match source.kind() {
            std::io::ErrorKind::NotFound => StoreError::UnknownConversation(id.to_string()),
            _ => StoreError::Read {
                path: path.clone(),
                source,
            },
        })?;
        read_conversation(file, &path)?
            .ok_or_else(|| StoreError::UnknownConversation(id.to_string()))
    }

    /// Every conversation, newest first.
    pub fn list(&self) -> Result<Vec<ConversationSummary>, StoreError> {
        let mut rows = Vec::new();
        for id in self.ids()?.into_iter().rev() {
            let Ok(path) = self.path(&id) else { continue };
            let Ok(file) = File::open(&path) else {
                continue;
            };
            let Ok(Some(conversation)) = read_conversation(file, &path) else {
                continue;
            };
            let last = conversation.ends.last();
            rows.push(ConversationSummary {
                runs: conversation.ends.len(),
                steps: conversation.ends.iter().map(|e| e.steps).sum(),
                outcome: last.map(|e| e.outcome.clone()),
                answer: last.and_then(|e| e.answer.clone()),
                messages: conversation.messages.len(),
                meta: conversation.meta,
                path,
            });
        }
        Ok(rows)
    }

    /// The ids on disk, oldest first (ids sort by time).
    fn ids(&self) -> Result<Vec<String>, StoreError> {
        let entries = std::fs::read_dir(&self.dir).map_err(|source| StoreError::Read {
            path: self.dir.clone(),
            source,
        })?;
        let mut ids: Vec<String> = entries
            .filter_map(Result::ok)
            .filter_map(|e| e.file_name().into_string().ok())
            .filter_map(|name| name.strip_suffix(".jsonl").map(str::to_string))
            .filter(|id| valid_id(id))
            .collect();
        ids.sort();
        Ok(ids)
    }

    fn path(&self, id: &str) -> Result<PathBuf, StoreError> {
        if !valid_id(id) {
            return Err(StoreError::UnknownConversation(id.to_string()));
        }
        Ok(self.dir.join(format!("{id}.jsonl")))
    }

    fn log(&self, id: &str) -> Result<ConversationLog, StoreError> {
        let path = self.path(id)?;
        let file = open_append(&path)?;
        Ok(ConversationLog {
            id: id.to_string(),
            path,
            file: Mutex::new(file),
            redactor: self.redactor.clone(),
        })
    }
}

/// Ids are letters, digits, `-` and `_`: never a path.
fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 100
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// A conversation file's lines; `None` without a meta line.
fn read_conversation(file: File, path: &Path) -> Result<Option<Conversation>, StoreError> {
    let mut reader = BufReader::new(file);
    let mut meta = None;
    let mut messages = Vec::new();
    let mut notices = Vec::new();
    let mut ends = Vec::new();
    let mut line = Vec::new();
    loop {
        line.clear();
        let read = reader
            .read_until(b'\n', &mut line)
            .map_err(|source| StoreError::Read {
                path: path.to_path_buf(),
                source,
            })?;
        if read == 0 {
            break;
        }
        match serde_json::from_slice::<Line>(&line) {
            Ok(Line::Meta(m)) if meta.is_none() => meta = Some(m),
            Ok(Line::Meta(_)) => {}
            Ok(Line::Message { message }) => messages.push(message),
            Ok(Line::Notice { text }) => notices.push(text),
            Ok(Line::End(end)) => ends.push(end),
            Err(_) => {}
        }
    }
    Ok(meta.map(|meta| Conversation {
        meta,
        messages,
        notices,
        ends,
    }))
}

/// Appends to one conversation's file: one line per write, never a panic.
#[derive(Debug)]
pub struct ConversationLog {
    id: String,
    path: PathBuf,
    file: Mutex<File>,
    redactor: Redactor,
}

impl ConversationLog {
    /// The conversation's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Append a message (its text and call arguments redacted).
    pub fn append(&self, message: &Message) -> Result<(), StoreError> {
        let mut message = message.clone();
        message.content = self.redactor.redact(&message.content).into_owned();
        for call in &mut message.tool_calls {
            for value in call.arguments.values_mut() {
                if let serde_json::Value::String(text) = value {
                    *text = self.redactor.redact(text).into_owned();
                }
            }
        }
        self.write(&Line::Message { message })
    }

    /// Append a notice the user was shown.
    pub fn notice(&self, text: &str) -> Result<(), StoreError> {
        self.write(&Line::Notice {
            text: text.to_string(),
        })
    }

    /// Append how a request ended.
    pub fn end(&self, end: &RunEnd) -> Result<(), StoreError> {
        let mut end = end.clone();
        end.answer = end.answer.map(|a| self.redactor.redact(&a).into_owned());
        self.write(&Line::End(end))
    }

    fn write(&self, line: &Line) -> Result<(), StoreError> {
        let mut bytes = serde_json::to_vec(line)?;
        bytes.push(b'\n');
        let file = self.file.lock().unwrap_or_else(|p| p.into_inner());
        append_line(&file, &self.path, &bytes)
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;
    use crate::llm::ToolCall;

    fn end(outcome: &str, steps: usize) -> RunEnd {
        RunEnd {
            time: "2026-11-22T10:00:00Z".into(),
            outcome: outcome.into(),
            steps,
            answer: Some("done".into()),
            error: None,
        }
    }

    #[test]
    fn a_conversation_reads_back_as_written_and_resumes() {
        let dir = tempfile::tempdir().unwrap();
        let history = History::open(dir.path()).unwrap();
        let log = history.start("/home/u", "smollm2", "count files").unwrap();
        let call = ToolCall {
            id: "call_0".into(),
            name: "nu".into(),
            arguments: serde_json::json!({"pipeline": "ls | length"})
                .as_object()
                .cloned()
                .unwrap(),
        };
        let messages = vec![
            Message::user("count files"),
            Message::assistant("", vec![call]),
            Message::tool("call_0", "$out.0\n3"),
        ];
        for m in &messages {
            log.append(m).unwrap();
        }
        log.end(&end("answered", 2)).unwrap();
        let id = log.id().to_string();
        assert_eq!(history.last_id().unwrap(), Some(id.clone()));
        let (conversation, log) = history.resume(&id).unwrap();
        assert_eq!(conversation.messages, messages);
        assert_eq!(conversation.meta.prompt, "count files");
        log.append(&Message::user("and now?")).unwrap();
        log.notice("shortened").unwrap();
        log.end(&end("failed", 1)).unwrap();
        let rows = history.list().unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!((rows[0].runs, rows[0].steps, rows[0].messages), (2, 3, 4));
        assert_eq!(rows[0].outcome.as_deref(), Some("failed"));
        assert_eq!(history.load(&id).unwrap().notices, ["shortened"]);
    }

    #[test]
    fn torn_and_garbled_lines_are_skipped_and_newest_comes_first() {
        let dir = tempfile::tempdir().unwrap();
        let history = History::open(dir.path()).unwrap();
        let first = history.start("/", "m", "one").unwrap();
        first.append(&Message::user("one")).unwrap();
        let path = dir.path().join(format!("{}.jsonl", first.id()));
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        file.write_all(b"not json at all\n{\"kind\":\"message\",\"message\":{\"role\"")
            .unwrap();
        drop(first);
        // Reopening ends the torn line; the next record is whole.
        let (_, log) = history
            .resume(&history.last_id().unwrap().unwrap())
            .unwrap();
        log.append(&Message::user("two")).unwrap();
        let second = history.start("/", "m", "newer").unwrap();
        let conversation = history.load(log.id()).unwrap();
        let texts: Vec<&str> = conversation
            .messages
            .iter()
            .map(|m| m.content.as_str())
            .collect();
        assert_eq!(texts, ["one", "two"]);
        let rows = history.list().unwrap();
        assert_eq!(rows[0].meta.id, second.id());
        assert_eq!(rows.len(), 2);
    }

    #[test]
    fn ids_that_are_paths_are_refused_and_secrets_are_redacted() {
        let dir = tempfile::tempdir().unwrap();
        let history = History::open(dir.path()).unwrap();
        for bad in ["../x", "a/b", "", ".."] {
            assert!(matches!(
                history.load(bad),
                Err(StoreError::UnknownConversation(_))
            ));
        }
        let log = history.start("/", "m", "x").unwrap();
        let token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
        log.append(&Message::user(format!("use {token}"))).unwrap();
        let text = std::fs::read_to_string(dir.path().join(format!("{}.jsonl", log.id()))).unwrap();
        assert!(!text.contains(token), "{text}");
    }
}
