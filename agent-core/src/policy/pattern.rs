//! Glob patterns over a normalised command line (`"^git push *"`, `"rm *"`).

use serde::{Deserialize, Serialize};

/// A glob over a command line: `*` matches any run of characters (spaces
/// included), `?` exactly one, `\` escapes the next character. Matching is
/// on the whole line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Pattern {
    source: String,
    tokens: Vec<Token>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    Literal(char),
    AnyOne,
    AnyRun,
}

/// Why a pattern is not valid.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PatternError {
    #[error("the pattern is empty")]
    Empty,
    #[error("the pattern ends with a lone `\\`")]
    TrailingEscape,
    #[error("the pattern has a control character")]
    ControlCharacter,
}

impl Pattern {
    /// Parse a pattern.
    pub fn new(source: &str) -> Result<Pattern, PatternError> {
        if source.trim().is_empty() {
            return Err(PatternError::Empty);
        }
        let mut tokens = Vec::new();
        let mut chars = source.chars();
        while let Some(c) = chars.next() {
            let token = match c {
                '*' => Token::AnyRun,
                '?' => Token::AnyOne,
                '\\' => Token::Literal(chars.next().ok_or(PatternError::TrailingEscape)?),
                c if c.is_control() => return Err(PatternError::ControlCharacter),
                c => Token::Literal(c),
            };
            if token == Token::AnyRun && tokens.last() == Some(&Token::AnyRun) {
                continue;
            }
            tokens.push(token);
        }
        Ok(Pattern {
            source: source.to_string(),
            tokens,
        })
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// True when the whole of `text` matches. Linear in `text` times the
    /// number of `*`s (the classic two-pointer glob match, no backtracking
    /// blow-up).
    pub fn matches(&self, text: &str) -> bool {
        let text: Vec<char> = text.chars().collect();
        let (mut t, mut p) = (0, 0);
        let mut star: Option<(usize, usize)> = None;
        while t < text.len() {
            match self.tokens.get(p) {
                Some(Token::AnyRun) => {
                    star = Some((p, t));
                    p += 1;
                }
                Some(Token::AnyOne) => {
                    p += 1;
                    t += 1;
                }
                Some(Token::Literal(c)) if *c == text[t] => {
                    p += 1;
                    t += 1;
                }
                _ => match star {
                    Some((star_p, star_t)) => {
                        p = star_p + 1;
                        t = star_t + 1;
                        star = Some((star_p, star_t + 1));
                    }
                    None => return false,
                },
            }
        }
        self.tokens[p..].iter().all(|token| *token == Token::AnyRun)
    }
}

impl TryFrom<String> for Pattern {
    type Error = PatternError;
    fn try_from(source: String) -> Result<Self, Self::Error> {
        Pattern::new(&source)
    }
}

impl From<Pattern> for String {
    fn from(pattern: Pattern) -> String {
        pattern.source
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(pattern: &str, text: &str) -> bool {
        Pattern::new(pattern).unwrap().matches(text)
    }

    #[test]
    fn globs_over_whole_command_lines() {
        assert!(matches("^git push *", "^git push origin main"));
        assert!(!matches("^git push *", "^git pull"));
        assert!(matches("rm *", "rm -r build"));
        assert!(!matches("rm *", "^rm x"));
        assert!(matches("*", ""));
        assert!(matches("ls", "ls"));
        assert!(!matches("ls", "ls -l"));
        assert!(matches("^git ? *", "^git a b"));
        assert!(matches("a\\*b", "a*b"));
        assert!(!matches("a\\*b", "axb"));
        assert!(matches("*a*b*c*", "xxaxxbxxcxx"));
    }

    #[test]
    fn bad_patterns_say_why() {
        assert_eq!(Pattern::new(" "), Err(PatternError::Empty));
        assert_eq!(Pattern::new("a\\"), Err(PatternError::TrailingEscape));
        assert_eq!(Pattern::new("a\nb"), Err(PatternError::ControlCharacter));
    }

    #[test]
    /// The classic backtracking trap: a naive matcher takes exponential
    /// time here (and this test would never end); this one is linear.
    fn long_inputs_do_not_backtrack() {
        let pattern = Pattern::new("*a*a*a*a*a*b").unwrap();
        let text = "a".repeat(16 * 1024);
        assert!(!pattern.matches(&text));
        assert!(pattern.matches(&format!("{text}b")));
    }
}
