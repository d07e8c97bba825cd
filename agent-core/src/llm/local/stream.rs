//! Turning a model's token pieces into the events a user sees: whole UTF-8
//! characters only, reasoning (`<think>…</think>`) apart from the answer,
//! and the text of a tool call kept out of the answer.

use crate::llm::ChatEvent;

const THINK_OPEN: &str = "<think>";
const THINK_CLOSE: &str = "</think>";
/// Text that starts a tool call; from there on nothing is streamed.
const CALL_OPENERS: &[&str] = &["<tool_call>", "<function", "```json", "```\n{"];
const CALL_CLOSE: &str = "</tool_call>";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    Answer,
    Reasoning,
    Call,
}

/// Splits streamed pieces into events and keeps the whole text.
pub struct StreamSplitter {
    /// Bytes of a character split across tokens.
    pending: Vec<u8>,
    /// Everything decoded so far (as the model wrote it).
    text: String,
    /// Where streaming stopped: text from here is held back.
    emitted: usize,
    part: Part,
    /// Whether answer text has been seen (a bare `{` first means a call).
    answer_started: bool,
}

impl StreamSplitter {
    /// `in_reasoning`: the prompt already opened a `<think>` block.
    pub fn new(in_reasoning: bool) -> StreamSplitter {
        StreamSplitter {
            pending: Vec::new(),
            text: String::new(),
            emitted: 0,
            part: if in_reasoning {
                Part::Reasoning
            } else {
                Part::Answer
            },
            answer_started: false,
        }
    }

    /// Add a token's bytes; events for what can be shown now go to `emit`.
    pub fn push(&mut self, bytes: &[u8], emit: &mut dyn FnMut(ChatEvent)) {
        self.pending.extend_from_slice(bytes);
        let valid = match std::str::from_utf8(&self.pending) {
            Ok(s) => s.len(),
            Err(e) if e.error_len().is_some() => {
                // Invalid bytes, not just an unfinished character: replace.
                let lossy = String::from_utf8_lossy(&self.pending).into_owned();
                self.pending.clear();
                self.text.push_str(&lossy);
                self.advance(false, emit);
                return;
            }
            Err(e) => e.valid_up_to(),
        };
        let decoded: Vec<u8> = self.pending.drain(..valid).collect();
        self.text.push_str(&String::from_utf8_lossy(&decoded));
        self.advance(false, emit);
    }

    /// Whether a tool call was opened and closed (generation may stop).
    pub fn call_closed(&self) -> bool {
        self.part == Part::Call && self.text[self.emitted..].contains(CALL_CLOSE)
    }

    /// Flush at the end of generation: the whole text, and the text held
    /// back as a possible call (to show if it turns out not to be one).
    pub fn finish(mut self, emit: &mut dyn FnMut(ChatEvent)) -> (String, String) {
        if !self.pending.is_empty() {
            let rest = String::from_utf8_lossy(&self.pending).into_owned();
            self.text.push_str(&rest);
            self.pending.clear();
        }
        self.advance(true, emit);
        let held = self.text[self.emitted..].to_string();
        (self.text, held)
    }

    fn advance(&mut self, at_end: bool, emit: &mut dyn FnMut(ChatEvent)) {
        loop {
            let rest = &self.text[self.emitted..];
            match self.part {
                Part::Call => return,
                Part::Reasoning => {
                    if let Some(at) = rest.find(THINK_CLOSE) {
                        if at > 0 {
                            emit(ChatEvent::Reasoning(rest[..at].to_string()));
                        }
                        self.emitted += at + THINK_CLOSE.len();
                        self.part = Part::Answer;
                        continue;
                    }
                    let safe = if at_end {
                        rest.len()
                    } else {
                        safe_len(rest, &[THINK_CLOSE])
                    };
                    if safe > 0 {
                        emit(ChatEvent::Reasoning(rest[..safe].to_string()));
                        self.emitted += safe;
                    }
                    return;
                }
                Part::Answer => {
                    if !self.answer_started {
                        let trimmed = rest.trim_start();
                        if trimmed.is_empty() {
                            if at_end {
                                self.emitted = self.text.len();
                            }
                            return;
                        }
                        if trimmed.starts_with('{') {
                            // A bare call object: never streamed as text.
                            self.part = Part::Call;
                            return;
                        }
                        if !at_end && is_marker_prefix(trimmed) {
                            return;
                        }
                        self.answer_started = true;
                    }
                    let think = rest.find(THINK_OPEN);
                    let call = CALL_OPENERS.iter().filter_map(|o| rest.find(o)).min();
                    match (think, call) {
                        (Some(t), c) if c.is_none_or(|c| t < c) => {
                            emit_text(&rest[..t], emit);
                            self.emitted += t + THINK_OPEN.len();
                            self.part = Part::Reasoning;
                            continue;
                        }
                        (_, Some(c)) => {
                            emit_text(&rest[..c], emit);
                            self.emitted += c;
                            self.part = Part::Call;
                            return;
                        }
                        _ => {
                            let mut markers = vec![THINK_OPEN];
                            markers.extend_from_slice(CALL_OPENERS);
                            let safe = if at_end {
                                rest.len()
                            } else {
                                safe_len(rest, &markers)
                            };
                            emit_text(&rest[..safe], emit);
                            self.emitted += safe;
                            return;
                        }
                    }
                }
            }
        }
    }
}

fn emit_text(text: &str, emit: &mut dyn FnMut(ChatEvent)) {
    if !text.is_empty() {
        emit(ChatEvent::Text(text.to_string()));
    }
}

/// Whether `text` is an unfinished marker that the next piece may complete.
fn is_marker_prefix(text: &str) -> bool {
    std::iter::once(THINK_OPEN)
        .chain(CALL_OPENERS.iter().copied())
        .any(|m| m.len() > text.len() && m.starts_with(text))
}

/// How much of `text` can be shown without cutting into a marker that may
/// be completed by the next piece (a char boundary).
fn safe_len(text: &str, markers: &[&str]) -> usize {
    let mut cut = text.len();
    for marker in markers {
        for len in (1..marker.len()).rev() {
            if text.len() >= len && text.ends_with(&marker[..len]) {
                cut = cut.min(text.len() - len);
                break;
            }
        }
    }
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(pieces: &[&[u8]], in_reasoning: bool) -> (Vec<ChatEvent>, String) {
        let mut events = Vec::new();
        let mut s = StreamSplitter::new(in_reasoning);
        for p in pieces {
            s.push(p, &mut |e| events.push(e));
        }
        let (text, _held) = s.finish(&mut |e| events.push(e));
        (events, text)
    }

    fn joined(events: &[ChatEvent], reasoning: bool) -> String {
        events
            .iter()
            .filter_map(|e| match e {
                ChatEvent::Text(t) if !reasoning => Some(t.as_str()),
                ChatEvent::Reasoning(t) if reasoning => Some(t.as_str()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn utf8_split_across_tokens_is_whole() {
        let bytes = "héllo 🌍".as_bytes();
        let pieces: Vec<&[u8]> = bytes.chunks(1).collect();
        let (events, text) = run(&pieces, false);
        assert_eq!(text, "héllo 🌍");
        for e in &events {
            if let ChatEvent::Text(t) = e {
                assert!(!t.contains('\u{FFFD}'));
            }
        }
        assert_eq!(joined(&events, false), "héllo 🌍");
    }

    #[test]
    fn reasoning_is_kept_apart() {
        let (events, _) = run(
            &[b"<thi", b"nk>plan", b" it</th", b"ink>Answer", b" here"],
            false,
        );
        assert_eq!(joined(&events, true), "plan it");
        assert_eq!(joined(&events, false), "Answer here");
        let (events, _) = run(&[b"still thinking</think>done"], true);
        assert_eq!(joined(&events, true), "still thinking");
        assert_eq!(joined(&events, false), "done");
    }

    #[test]
    fn calls_are_not_streamed() {
        let (events, text) = run(
            &[
                b"Let me look.\n<tool",
                b"_call>\n{\"name\"",
                b"}\n</tool_call>",
            ],
            false,
        );
        assert_eq!(joined(&events, false), "Let me look.\n");
        assert!(text.ends_with("</tool_call>"));
        let (events, _) = run(&[b" {\"name\": \"nu\"}"], false);
        assert_eq!(joined(&events, false), "");
    }

    #[test]
    fn a_lone_angle_bracket_is_text() {
        let (events, _) = run(&[b"<", b"b> bold"], false);
        assert_eq!(joined(&events, false), "<b> bold");
        let (events, _) = run(&[b"1 < 2"], false);
        assert_eq!(joined(&events, false), "1 < 2");
    }

    #[test]
    fn invalid_bytes_do_not_stop_the_stream() {
        let (events, _) = run(&[b"a\xff", b"b"], false);
        assert_eq!(joined(&events, false), "a\u{FFFD}b");
    }
}
