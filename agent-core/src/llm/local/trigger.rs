//! Where a lazy tool-call grammar starts, watched here rather than by
//! llama.cpp.
//!
//! Until its trigger fires, llama.cpp's lazy grammar
//! (`llama_grammar_accept_impl` in `llama-grammar.cpp`) appends every
//! accepted token's text to a buffer and runs each trigger pattern over the
//! whole buffer again (`std::regex_search`): the longer the prose before a
//! call, the more each of its tokens costs (with a pattern like
//! `[\s\S]*?(<tool_call>)[\s\S]*`, milliseconds a token after a few hundred
//! tokens). So the grammar is told nothing of the reply until a call
//! starts: [`Trigger`] follows the text at a cost per token of that token's
//! own length, and when the opener appears (or a bare call object starts
//! the reply) it hands over the tokens from the one that holds the call's
//! first byte. Told those few tokens, llama.cpp's own patterns
//! ([`patterns`]) fire on the last of them, from the same byte, and the
//! grammar sees the call from its opener on, as it did when it was told
//! every token.

use llama_cpp_2::token::LlamaToken;

use super::grammar::CALL_OPENER;

/// How a call object written without the opener starts. It starts a call
/// only at the very start of the reply, after nothing but whitespace.
pub const BARE_CALL: &str = r#"{"name": "#;

/// The trigger patterns llama.cpp is given, in the order it tries them:
/// the opener anywhere, and a bare call object at the start of its buffer.
/// llama.cpp searches for a pattern (`std::regex_search`; only a pattern
/// that both starts with `^` and ends with `$` must match the whole
/// buffer) and feeds the grammar from the first capture group that matched,
/// or else from the match's start. As it is only told the reply from the
/// token that holds the call's first byte, its buffer's start is the
/// reply's start whenever a bare call is there.
pub fn patterns() -> Vec<String> {
    vec![
        regex_escape(CALL_OPENER),
        format!(r"^\s*({})", regex_escape(BARE_CALL)),
    ]
}

/// `text` as a regular expression matching itself.
fn regex_escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        if r"\^$.|?*+()[]{}/".contains(c) {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    escaped
}

/// What ECMAScript's `\s` matches in llama.cpp's patterns (its buffer is
/// bytes, so only ASCII).
fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r')
}

/// Whether `text` (after leading whitespace) starts a bare call: `Some`
/// once it can tell, `None` while what is there is the start of one.
fn starts_bare(text: &[u8]) -> Option<bool> {
    let lead = text.iter().take_while(|b| is_space(**b)).count();
    let rest = &text[lead..];
    let bare = BARE_CALL.as_bytes();
    if rest.len() >= bare.len() {
        Some(rest.starts_with(bare))
    } else if bare.starts_with(rest) {
        None
    } else {
        Some(false)
    }
}

/// The reply's tokens as a lazy grammar would see them, until a call
/// starts.
#[derive(Debug)]
pub(super) struct Trigger {
    /// The opener as one token, where the vocabulary has one: that token
    /// starts a call whatever came before (llama.cpp's trigger token).
    opener_token: Option<LlamaToken>,
    tokens: Vec<LlamaToken>,
    /// Where each token's text starts in `text`.
    starts: Vec<usize>,
    text: Vec<u8>,
    /// How many bytes at the start of `text` are whitespace.
    lead: usize,
    /// Whether the reply may still be a bare call.
    bare: bool,
}

impl Trigger {
    pub fn new(opener_token: Option<LlamaToken>) -> Trigger {
        Trigger {
            opener_token,
            tokens: Vec::new(),
            starts: Vec::new(),
            text: Vec::new(),
            lead: 0,
            bare: true,
        }
    }

    /// Follow the reply by `token`, whose text is `piece`. Where a call
    /// starts with it: the tokens the grammar must be told, from the one
    /// that holds the call's first byte to this one.
    pub fn push(&mut self, token: LlamaToken, piece: &[u8]) -> Option<&[LlamaToken]> {
        let index = self.tokens.len();
        // Where an opener this piece completes can start.
        let from = self.text.len().saturating_sub(CALL_OPENER.len() - 1);
        self.tokens.push(token);
        self.starts.push(self.text.len());
        self.text.extend_from_slice(piece);
        let first = if Some(token) == self.opener_token {
            Some(index)
        } else if let Some(at) = find(&self.text[from..], CALL_OPENER.as_bytes()) {
            let first = self.token_at(from + at);
            // llama.cpp's bare pattern is anchored at its buffer's start,
            // which is then this token's: should the text it holds before
            // the opener read as a bare call there, the grammar is told
            // the whole reply instead (no vocabulary has such a token).
            if starts_bare(&self.text[self.starts[first]..]) == Some(true) {
                Some(0)
            } else {
                Some(first)
            }
        } else if self.bare {
            while self.lead < self.text.len() && is_space(self.text[self.lead]) {
                self.lead += 1;
            }
            match starts_bare(&self.text[self.lead..]) {
                Some(true) => Some(self.token_at(self.lead)),
                Some(false) => {
                    self.bare = false;
                    None
                }
                None => None,
            }
        } else {
            None
        };
        first.map(|first| &self.tokens[first..])
    }

    /// The token whose text holds the byte at `at`.
    fn token_at(&self, at: usize) -> usize {
        self.starts.partition_point(|start| *start <= at).max(1) - 1
    }
}

/// Where `needle` first occurs in `haystack`.
fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Push `pieces` (token ids counting from 1) until the trigger fires:
    /// the index of that piece and the ids it hands over.
    fn fire(opener_token: Option<LlamaToken>, pieces: &[&str]) -> Option<(usize, Vec<i32>)> {
        let mut trigger = Trigger::new(opener_token);
        for (i, piece) in pieces.iter().enumerate() {
            let token = LlamaToken(i as i32 + 1);
            if let Some(told) = trigger.push(token, piece.as_bytes()) {
                return Some((i, told.iter().map(|t| t.0).collect()));
            }
        }
        None
    }

    #[test]
    fn the_patterns_are_the_opener_anywhere_and_a_bare_call_at_the_start() {
        assert_eq!(
            patterns(),
            vec!["<tool_call>".to_string(), r#"^\s*(\{"name": )"#.to_string()]
        );
    }

    #[test]
    fn an_opener_split_over_tokens_hands_over_the_tokens_it_spans() {
        let pieces = ["Let me look.", "\n", "<", "tool", "_call", ">", "\n"];
        assert_eq!(fire(None, &pieces), Some((5, vec![3, 4, 5, 6])));
        // The opener's first byte inside a token: that token too.
        let pieces = ["Sure", ".<", "tool_", "call>"];
        assert_eq!(fire(None, &pieces), Some((3, vec![2, 3, 4])));
    }

    #[test]
    fn the_opener_token_fires_by_itself() {
        let opener = Some(LlamaToken(3));
        assert_eq!(
            fire(opener, &["Ok", "\n", "<tool_call>"]),
            Some((2, vec![3]))
        );
        // Its text alone, as another token, fires too.
        assert_eq!(fire(opener, &["Ok", "<tool_call>"]), Some((1, vec![2])));
    }

    #[test]
    fn the_opener_after_long_prose_fires_on_the_token_that_completes_it() {
        let mut pieces = vec!["word "; 5000];
        pieces.extend(["<tool", "_call", ">"]);
        assert_eq!(fire(None, &pieces), Some((5002, vec![5001, 5002, 5003])));
    }

    #[test]
    fn a_bare_call_fires_only_at_the_start_of_the_reply() {
        let pieces = ["\n ", " {\"", "name", "\": ", "\"nu\""];
        assert_eq!(fire(None, &pieces), Some((3, vec![2, 3, 4])));
        assert_eq!(fire(None, &["{\"name\": "]), Some((0, vec![1])));
        assert_eq!(
            fire(None, &["Here", " {\"", "name", "\": ", "\"nu\""]),
            None
        );
        assert_eq!(fire(None, &["{\"", "nam", "\": "]), None);
        assert_eq!(fire(None, &["{\"name\":\""]), None);
    }

    #[test]
    fn whitespace_then_an_opener_fires_on_the_opener() {
        assert_eq!(
            fire(None, &["\n", "<tool_call>", "\n{\"name\": "]),
            Some((1, vec![2]))
        );
    }

    #[test]
    fn a_token_that_reads_as_a_bare_call_before_the_opener_hands_over_the_whole_reply() {
        let pieces = ["Hi", " {\"name\": <", "tool_call>"];
        assert_eq!(fire(None, &pieces), Some((2, vec![1, 2, 3])));
    }

    #[test]
    fn an_empty_piece_before_the_opener_is_not_handed_over() {
        let pieces = ["x", "", "<tool_call", "", ">"];
        assert_eq!(fire(None, &pieces), Some((4, vec![3, 4, 5])));
    }
}
