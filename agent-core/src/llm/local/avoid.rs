//! Turning a reply away from calls the model already made. A greedy model
//! asked again in the same words writes the same call again, and sampling
//! warmer rarely helps a small model whose first choice is near certain.
//! So while the reply follows an avoided call token by token, each place
//! where the model's best other token would leave that path is weighed,
//! and when the reply is about to complete the avoided call it goes back to
//! the closest of those forks (the smallest logit gap) and takes the other
//! token there: the model's own most likely call that is not the old one.
//!
//! A call is compared as the grammar writes it (`{"name": "nu",
//! "arguments": {"pipeline": "…"`), up to the end of its first required
//! argument, so the same pipeline with other optional arguments counts as
//! the same call. After the fork (or where going back is not possible) only
//! the end is guarded: a token that would complete an avoided call is
//! replaced by the best one that does not.

use serde_json::Value;

use crate::llm::{ToolCall, ToolDef};

/// Where the reply could have left the avoided path.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Fork<T> {
    /// Tokens of the reply before the fork.
    pub at: usize,
    /// The token to take there.
    pub token: T,
    /// How far below the model's choice that token was (logits).
    gap: f32,
}

/// What to do with the sampler's choice.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Choice<T> {
    /// Take this token (the choice, or the best one that does not complete
    /// an avoided call).
    Take(T),
    /// Go back to the fork and take its token.
    Rewind(Fork<T>),
}

/// The calls one reply must not make again.
#[derive(Debug)]
pub(super) struct Avoid<T> {
    /// Each call as the grammar writes it, to the end of its first
    /// required argument.
    texts: Vec<Vec<u8>>,
    best: Option<Fork<T>>,
    /// The reply left the path at a fork already: guard only the end.
    forked: bool,
}

/// Where `text + piece` stands against the avoided calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Track {
    /// It spells all of an avoided call.
    Completes,
    /// It is still the start of one.
    OnPath,
    /// It is none of them.
    Off,
}

impl<T: Copy + PartialEq> Avoid<T> {
    /// The guard for `calls` and for calls whose first required argument
    /// begins as that of one of `starts` (None when none of them can be
    /// written out: an unknown tool, or one without a required argument).
    pub fn new(calls: &[ToolCall], starts: &[ToolCall], tools: &[ToolDef]) -> Option<Avoid<T>> {
        let beginnings = starts.iter().filter_map(|call| {
            let written = written_call(call, tools)?;
            // A string argument without its closing quote.
            written.strip_suffix('"').map(str::to_string)
        });
        let mut texts: Vec<Vec<u8>> = calls
            .iter()
            .filter_map(|call| written_call(call, tools))
            .chain(beginnings)
            .map(String::into_bytes)
            .collect();
        texts.dedup();
        (!texts.is_empty()).then_some(Avoid {
            texts,
            best: None,
            forked: false,
        })
    }

    /// Whether a reply whose call so far is `call` may still be on an
    /// avoided path (when not, choices need not be weighed).
    pub fn watching(&self, call: &[u8]) -> bool {
        self.texts.iter().any(|a| a.starts_with(call))
    }

    /// The token to take after `at` tokens of reply, `call` being the call
    /// object written so far, `chosen` the sampler's choice and `ranked`
    /// the best candidates the sampler kept, best first: each as (token,
    /// logit, bytes).
    pub fn choose(
        &mut self,
        call: &[u8],
        at: usize,
        chosen: &(T, f32, Vec<u8>),
        ranked: &[(T, f32, Vec<u8>)],
    ) -> Choice<T> {
        let texts = &self.texts;
        let track = |piece: &[u8]| track(texts, call, piece);
        let (chosen, chosen_logit, chosen_piece) = (chosen.0, chosen.1, &chosen.2);
        match track(chosen_piece) {
            Track::Off => Choice::Take(chosen),
            Track::Completes => match self.best.take().filter(|_| !self.forked) {
                Some(fork) => Choice::Rewind(fork),
                None => Choice::Take(
                    ranked
                        .iter()
                        .find(|(_, _, p)| !p.is_empty() && track(p) != Track::Completes)
                        .map_or(chosen, |(t, ..)| *t),
                ),
            },
            Track::OnPath => {
                if !self.forked {
                    let leaving = ranked
                        .iter()
                        .find(|(t, _, p)| *t != chosen && !p.is_empty() && track(p) == Track::Off);
                    if let Some((token, logit, _)) = leaving {
                        let gap = chosen_logit - logit;
                        if self.best.is_none_or(|b| gap < b.gap) {
                            self.best = Some(Fork {
                                at,
                                token: *token,
                                gap,
                            });
                        }
                    }
                }
                Choice::Take(chosen)
            }
        }
    }

    /// The reply went back to its fork: from here only the end is guarded.
    pub fn forked(&mut self) {
        self.forked = true;
        self.best = None;
    }
}

/// Where `call` followed by `piece` stands against the avoided `texts`.
fn track(texts: &[Vec<u8>], call: &[u8], piece: &[u8]) -> Track {
    let mut text = call.to_vec();
    text.extend_from_slice(piece);
    if texts.iter().any(|a| text.starts_with(a)) {
        Track::Completes
    } else if texts.iter().any(|a| a.starts_with(&text)) {
        Track::OnPath
    } else {
        Track::Off
    }
}

/// The call object written so far in `reply`: what follows the opener
/// `<tool_call>\n`, or the reply itself when it starts with a bare call.
pub(super) fn call_so_far(reply: &[u8]) -> Option<&[u8]> {
    const OPENER: &[u8] = b"<tool_call>\n";
    if let Some(at) = reply.windows(OPENER.len()).position(|w| w == OPENER) {
        return Some(&reply[at + OPENER.len()..]);
    }
    let start = reply.iter().position(|b| !b.is_ascii_whitespace())?;
    let rest = &reply[start..];
    let bare = b"{\"name\": ";
    (rest.starts_with(bare) || bare.starts_with(rest)).then_some(rest)
}

/// `call` as the grammar writes it, to the end of its tool's first
/// required argument.
fn written_call(call: &ToolCall, tools: &[ToolDef]) -> Option<String> {
    let tool = tools.iter().find(|t| t.name == call.name)?;
    let key = tool
        .parameters
        .get("required")
        .and_then(Value::as_array)
        .and_then(|r| r.first())
        .and_then(Value::as_str)?;
    let value = call.arguments.get(key)?;
    Some(format!(
        "{{\"name\": {}, \"arguments\": {{{}: {}",
        serde_json::to_string(&call.name).ok()?,
        serde_json::to_string(key).ok()?,
        serde_json::to_string(value).ok()?,
    ))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn nu_tool() -> ToolDef {
        ToolDef {
            name: "nu".into(),
            description: String::new(),
            parameters: json!({
                "type": "object",
                "properties": {"pipeline": {"type": "string"}, "background": {"type": "boolean"}},
                "required": ["pipeline"],
            }),
        }
    }

    fn nu_call(pipeline: &str) -> ToolCall {
        ToolCall {
            id: "call_0".into(),
            name: "nu".into(),
            arguments: json!({"pipeline": pipeline}).as_object().unwrap().clone(),
        }
    }

    /// Candidates as (token, logit, piece), best first.
    fn ranked(pieces: &[(u32, f32, &str)]) -> Vec<(u32, f32, Vec<u8>)> {
        pieces
            .iter()
            .map(|(t, l, p)| (*t, *l, p.as_bytes().to_vec()))
            .collect()
    }

    /// `avoid.choose` with the sampler's choice `chosen` among `ranked`.
    fn choose_from(
        avoid: &mut Avoid<u32>,
        call: &[u8],
        at: usize,
        chosen: u32,
        ranked: &[(u32, f32, Vec<u8>)],
    ) -> Choice<u32> {
        let entry = ranked.iter().find(|(t, ..)| *t == chosen).unwrap().clone();
        avoid.choose(call, at, &entry, ranked)
    }

    #[test]
    fn a_call_is_written_as_the_grammar_writes_it() {
        let call = nu_call("ls | where name =~ \"x\"\n");
        assert_eq!(
            written_call(&call, &[nu_tool()]).unwrap(),
            r#"{"name": "nu", "arguments": {"pipeline": "ls | where name =~ \"x\"\n""#
        );
        assert!(written_call(&call, &[]).is_none(), "unknown tool");
    }

    #[test]
    fn the_call_so_far_follows_the_opener_or_is_the_bare_object() {
        assert_eq!(
            call_so_far(b"Let me look.\n<tool_call>\n{\"na"),
            Some(&b"{\"na"[..])
        );
        assert_eq!(call_so_far(b"<tool_call>"), None);
        assert_eq!(
            call_so_far(b"  {\"name\": \"nu"),
            Some(&b"{\"name\": \"nu"[..])
        );
        assert_eq!(call_so_far(b"  {\"na"), Some(&b"{\"na"[..]));
        assert_eq!(call_so_far(b"The answer"), None);
    }

    #[test]
    fn completing_an_avoided_call_goes_back_to_the_closest_fork() {
        let mut avoid = Avoid::new(&[nu_call("ls -la")], &[], &[nu_tool()]).unwrap();
        let prefix = br#"{"name": "nu", "arguments": {"pipeline": ""#;
        // At the first token of the pipeline `ls` is far ahead of `du`.
        let mut call = prefix.to_vec();
        assert!(avoid.watching(&call));
        let choice = choose_from(
            &mut avoid,
            &call,
            10,
            1,
            &ranked(&[(1, 9.0, "ls"), (2, 4.0, "du")]),
        );
        assert_eq!(choice, Choice::Take(1));
        call.extend_from_slice(b"ls");
        // After `ls`, the end of the pipeline is close behind ` -la`.
        let choice = choose_from(
            &mut avoid,
            &call,
            11,
            3,
            &ranked(&[(3, 5.0, " -la"), (4, 4.5, "\"")]),
        );
        assert_eq!(choice, Choice::Take(3));
        call.extend_from_slice(b" -la");
        // Closing the string would write the old call: back to the fork
        // after `ls` (gap 0.5), not the one before it (gap 5).
        let choice = choose_from(
            &mut avoid,
            &call,
            12,
            4,
            &ranked(&[(4, 8.0, "\""), (5, 1.0, " |")]),
        );
        assert_eq!(
            choice,
            Choice::Rewind(Fork {
                at: 11,
                token: 4,
                gap: 0.5
            })
        );
        avoid.forked();
    }

    #[test]
    fn after_the_fork_only_the_end_is_guarded() {
        let mut avoid = Avoid::new(&[nu_call("ls")], &[], &[nu_tool()]).unwrap();
        avoid.forked();
        let mut call = br#"{"name": "nu", "arguments": {"pipeline": ""#.to_vec();
        call.extend_from_slice(b"ls");
        let choice = choose_from(
            &mut avoid,
            &call,
            12,
            4,
            &ranked(&[(4, 8.0, "\"}"), (5, 1.0, " |")]),
        );
        assert_eq!(choice, Choice::Take(5));
        // Off the path, the sampler's choice stands.
        call.extend_from_slice(b" |");
        assert!(!avoid.watching(&call));
        let choice = choose_from(
            &mut avoid,
            &call,
            13,
            4,
            &ranked(&[(4, 8.0, "\""), (5, 1.0, " |")]),
        );
        assert_eq!(choice, Choice::Take(4));
    }

    #[test]
    fn a_different_call_is_left_alone() {
        let mut avoid = Avoid::new(&[nu_call("ls -la")], &[], &[nu_tool()]).unwrap();
        let call = br#"{"name": "nu", "arguments": {"pipeline": "ls"#.to_vec();
        let choice = choose_from(
            &mut avoid,
            &call,
            12,
            6,
            &ranked(&[(6, 8.0, " |"), (3, 7.0, " -la")]),
        );
        assert_eq!(choice, Choice::Take(6));
        // The same pipeline with an optional argument after it is the same
        // call.
        let call = br#"{"name": "nu", "arguments": {"pipeline": "ls -la"#.to_vec();
        let choice = choose_from(
            &mut avoid,
            &call,
            13,
            7,
            &ranked(&[(7, 8.0, "\", "), (8, 2.0, " /")]),
        );
        assert_eq!(choice, Choice::Take(8));
    }

    #[test]
    fn a_pipeline_may_not_begin_as_an_avoided_start() {
        let mut avoid = Avoid::new(&[], &[nu_call("open .git/")], &[nu_tool()]).unwrap();
        let call = br#"{"name": "nu", "arguments": {"pipeline": "open .git"#.to_vec();
        assert!(avoid.watching(&call));
        // `/` would begin the avoided start: the best other token is taken.
        let choice = choose_from(
            &mut avoid,
            &call,
            14,
            9,
            &ranked(&[(9, 8.0, "/logs"), (10, 5.0, "ignore")]),
        );
        assert_eq!(choice, Choice::Take(10));
        // Whatever follows another beginning is free.
        let call = br#"{"name": "nu", "arguments": {"pipeline": "open .gitignore"#.to_vec();
        assert!(!avoid.watching(&call));
        assert!(Avoid::<u32>::new(&[], &[], &[nu_tool()]).is_none());
    }
}
