//! Structured errors: what went wrong, where (line and column), and how to fix it.

use nu_protocol::engine::{EngineState, StateWorkingSet};
use serde::{Deserialize, Serialize};

/// A parse, compile or runtime error in a form a model or a user can act on.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Diagnostic {
    /// nu's error code, e.g. `nu::parser::unexpected_eof`.
    pub code: Option<String>,
    pub message: String,
    pub help: Option<String>,
    pub labels: Vec<DiagnosticLabel>,
    /// The full plain-text rendering nu would print (no ANSI).
    pub rendered: String,
    /// The innermost error this one wraps, where nu nests them (`each`'s
    /// "Eval block failed with pipeline input" around the `open` that
    /// failed inside its closure): the cause a user acts on.
    #[serde(default)]
    pub cause: Option<Box<Diagnostic>>,
}

/// The innermost error `error` wraps (following the first related error,
/// then the diagnostic source, at most a few levels down); `None` when it
/// wraps none.
fn innermost_cause(error: &dyn miette::Diagnostic) -> Option<&dyn miette::Diagnostic> {
    const MOST_LEVELS: usize = 16;
    let mut current = error;
    let mut found = None;
    for _ in 0..MOST_LEVELS {
        let next = match current.related().and_then(|mut related| related.next()) {
            Some(next) => next,
            None => match current.diagnostic_source() {
                Some(next) => next,
                None => break,
            },
        };
        found = Some(next);
        current = next;
    }
    found
}

/// A pointer into the source of the pipeline.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct DiagnosticLabel {
    pub text: String,
    /// 1-based line in the pipeline source.
    pub line: usize,
    /// 1-based column (in characters).
    pub column: usize,
    /// The source text the label points at.
    pub snippet: String,
}

impl Diagnostic {
    /// Build a diagnostic from any nu error, resolving label spans against
    /// the engine's sources.
    pub fn from_nu(
        engine: &EngineState,
        error: &(dyn miette::Diagnostic + Send + Sync + 'static),
    ) -> Self {
        let working_set = StateWorkingSet::new(engine);
        Self::from_working_set(&working_set, error)
    }

    pub(crate) fn from_working_set(
        working_set: &StateWorkingSet,
        error: &(dyn miette::Diagnostic + Send + Sync + 'static),
    ) -> Self {
        let rendered = nu_protocol::format_cli_error(None, working_set, error, None);
        let cause = innermost_cause(error).map(|inner| Box::new(Self::parts(working_set, inner)));
        Diagnostic {
            rendered: without_ansi(&rendered).into_owned(),
            cause,
            ..Self::parts(working_set, error)
        }
    }

    /// `error`'s code, message, help and labels (its rendering is only
    /// its message: a cause is shown within its outer error's rendering).
    fn parts(working_set: &StateWorkingSet, error: &dyn miette::Diagnostic) -> Self {
        let labels = error
            .labels()
            .map(|labels| {
                labels
                    .filter_map(|label| {
                        locate(working_set, label.offset(), label.len()).map(
                            |(line, column, snippet)| DiagnosticLabel {
                                text: label.label().unwrap_or_default().to_string(),
                                line,
                                column,
                                snippet,
                            },
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        Diagnostic {
            code: error.code().map(|c| c.to_string()),
            message: error.to_string(),
            help: error.help().map(|h| h.to_string()),
            labels,
            rendered: error.to_string(),
            cause: None,
        }
    }

    /// The innermost cause, or this diagnostic when it wraps none.
    pub fn root_cause(&self) -> &Diagnostic {
        self.cause.as_deref().unwrap_or(self)
    }

    /// A diagnostic that did not come from nu (e.g. a crash in the engine).
    pub fn plain(code: &str, message: impl Into<String>, help: Option<String>) -> Self {
        let message = message.into();
        let mut rendered = format!("Error: {code}\n\n  × {message}");
        if let Some(help) = &help {
            rendered.push_str(&format!("\n  help: {help}"));
        }
        Diagnostic {
            code: Some(code.to_string()),
            message,
            help,
            labels: Vec::new(),
            rendered,
            cause: None,
        }
    }

    /// One line: `message (line L, column C: label) — help`.
    pub fn summary(&self) -> String {
        let mut out = self.message.clone();
        if let Some(label) = self.labels.first() {
            out.push_str(&format!(" (line {}, column {}", label.line, label.column));
            if !label.text.is_empty() {
                out.push_str(&format!(": {}", label.text));
            }
            out.push(')');
        }
        if let Some(help) = &self.help {
            out.push_str(&format!(" — {help}"));
        }
        out
    }
}

/// Line, column and text of a global span offset, within its source file.
fn locate(
    working_set: &StateWorkingSet,
    offset: usize,
    len: usize,
) -> Option<(usize, usize, String)> {
    let file = working_set
        .files()
        .find(|f| f.covered_span.start <= offset && offset <= f.covered_span.end)?;
    let local = offset - file.covered_span.start;
    let content = &file.content;
    let before = content.get(..local)?;
    let line = before.iter().filter(|b| **b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |p| p + 1);
    let column = String::from_utf8_lossy(&before[line_start..])
        .chars()
        .count()
        + 1;
    let end = (local + len).min(content.len());
    let snippet = String::from_utf8_lossy(&content[local..end]).into_owned();
    Some((line, column, snippet))
}

/// `text` without terminal escape sequences (colours, as `find` marks what
/// it matched with): they are no part of the data, and a model reads them
/// as noise or copies them into its answer; error rendering may colour
/// regardless of config.
pub(crate) fn without_ansi(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains('\x1b') {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\x1b' {
            out.push(c);
            continue;
        }
        match chars.next() {
            // CSI: parameters and intermediates up to a final byte.
            Some('[') => {
                for c in chars.by_ref() {
                    if ('\x40'..='\x7e').contains(&c) {
                        break;
                    }
                }
            }
            // OSC (a title, a hyperlink): up to BEL or ESC `\`.
            Some(']') => {
                while let Some(c) = chars.next() {
                    if c == '\x07' {
                        break;
                    }
                    if c == '\x1b' {
                        chars.next_if_eq(&'\\');
                        break;
                    }
                }
            }
            // A two-character escape, or a lone ESC at the end.
            _ => {}
        }
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::without_ansi;

    #[test]
    fn terminal_escapes_are_left_out() {
        assert_eq!(without_ansi("\x1b[41;39mred\x1b[0m text"), "red text");
        assert_eq!(
            without_ansi("\x1b]8;;http://x\x1b\\link\x1b]8;;\x07 end\x1b"),
            "link end"
        );
        assert_eq!(without_ansi("plain"), "plain");
    }
}
