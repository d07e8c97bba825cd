//! The text of a pipeline read as Nushell's lexer reads it: its elements
//! (split at each `|` that Nushell's own lexer sees as a pipe, so one
//! inside a string, a closure or brackets is not), and the small readers
//! the rewrites share: where strings are, where a command's words and
//! arguments are, where a bracket closes.

/// Commands that keep a table's rows as they are (fewer, or in another
/// order), so its columns are still the listing's after them.
pub(super) const KEEPS_ROWS: &[&str] = &[
    "where", "filter", "find", "sort-by", "sort", "first", "last", "skip", "take", "reverse",
    "uniq-by",
];

/// The elements of `pipeline`, trimmed, where its first command is one
/// of `heads` (`ls`); `None` else.
pub(super) fn elements_after(pipeline: &str, heads: &[&str]) -> Option<Vec<String>> {
    let elements: Vec<String> = top_level_elements(pipeline)
        .iter()
        .map(|element| element.trim().to_string())
        .collect();
    let head = elements.first()?.split_whitespace().next()?;
    heads.contains(&head).then_some(elements)
}

/// Whether `element` (a pipeline element) keeps the rows of a table.
pub(super) fn keeps_rows(element: &str) -> bool {
    element
        .split_whitespace()
        .next()
        .is_some_and(|command| KEEPS_ROWS.contains(&command))
}

/// `pipeline` without its last element, where `is_dropped` says so of it
/// and something comes before it.
pub(super) fn without_last_element(
    pipeline: &str,
    is_dropped: impl Fn(&str) -> bool,
) -> Option<String> {
    let mut elements = top_level_elements(pipeline);
    let last = elements.pop()?;
    (is_dropped(&last) && !elements.is_empty()).then(|| {
        elements
            .iter()
            .map(|element| element.trim())
            .collect::<Vec<_>>()
            .join(" | ")
    })
}

/// A bare column name: letters, digits, `_`, `-`.
pub(super) fn is_plain_name(word: &str) -> bool {
    !word.is_empty()
        && !word.starts_with('-')
        && word
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-'))
}

/// The elements of `pipeline` as Nushell's lexer reads it: split at each
/// pipe token (`|`, `e>|`, `o+e>|`), so a `|` inside a string, a closure,
/// brackets or a comment is no boundary. Text the lexer cannot read (an
/// unclosed string or bracket) is split at each `|` outside strings and
/// brackets.
pub(crate) fn top_level_elements(pipeline: &str) -> Vec<String> {
    let mut elements = Vec::new();
    let mut start = 0;
    for (pipe_start, pipe_end) in pipes(pipeline) {
        elements.push(
            pipeline
                .get(start..pipe_start)
                .unwrap_or_default()
                .to_string(),
        );
        start = pipe_end;
    }
    elements.push(pipeline.get(start..).unwrap_or_default().to_string());
    elements
}

/// `pipeline`'s first element and what follows its pipe, as the lexer
/// splits them (see [`top_level_elements`]); `None` for one element.
pub(crate) fn split_first(pipeline: &str) -> Option<(&str, &str)> {
    let (start, end) = pipes(pipeline).into_iter().next()?;
    Some((pipeline.get(..start)?, pipeline.get(end..)?))
}

/// `pipeline`'s first element (all of it where it is one).
pub(crate) fn first_element(pipeline: &str) -> &str {
    split_first(pipeline).map_or(pipeline, |(first, _)| first)
}

/// The byte ranges of `pipeline`'s top-level pipes: the lexer's pipe
/// tokens, or where it cannot read the text, each `|` outside strings and
/// brackets.
fn pipes(pipeline: &str) -> Vec<(usize, usize)> {
    use nu_parser::TokenContents;
    let (tokens, error) = nu_parser::lex(pipeline.as_bytes(), 0, &[], &[], false);
    if error.is_none() {
        return tokens
            .iter()
            .filter(|token| {
                matches!(
                    token.contents,
                    TokenContents::Pipe
                        | TokenContents::ErrGreaterPipe
                        | TokenContents::OutErrGreaterPipe
                )
            })
            .map(|token| (token.span.start, token.span.end))
            .collect();
    }
    let at: Vec<(usize, char)> = pipeline.char_indices().collect();
    let chars: Vec<char> = at.iter().map(|(_, c)| *c).collect();
    let code = outside_strings(&chars);
    let mut pipes = Vec::new();
    let mut depth = 0usize;
    for (i, &(byte, c)) in at.iter().enumerate() {
        if !code[i] {
            continue;
        }
        match c {
            '{' | '(' | '[' => depth += 1,
            '}' | ')' | ']' => depth = depth.saturating_sub(1),
            '|' if depth == 0 => pipes.push((byte, byte + 1)),
            _ => {}
        }
    }
    pipes
}

/// Where the string argument right after `end` (past spaces) starts and
/// ends (its quotes included).
pub(super) fn quoted_argument(chars: &[char], code: &[bool], end: usize) -> Option<(usize, usize)> {
    let start = (end..chars.len()).find(|&i| !chars[i].is_whitespace())?;
    if start == end || code[start] || !matches!(chars[start], '\'' | '"') {
        return None;
    }
    // The closing quote is not code either: the string ends where code
    // starts again.
    let after = (start + 1..chars.len())
        .find(|&i| code[i])
        .unwrap_or(chars.len());
    (after - 1 > start && chars[after - 1] == chars[start]).then_some((start, after))
}

/// `chars` with each `(start, end, text)` range replaced; `None` when
/// there is none.
pub(super) fn splice(chars: &[char], replaced: &[(usize, usize, String)]) -> Option<String> {
    if replaced.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(chars.len() + 16);
    let mut i = 0;
    for (start, end, text) in replaced {
        out.extend(&chars[i..*start]);
        out.push_str(text);
        i = *end;
    }
    out.extend(&chars[i..]);
    Some(out)
}

/// The `(start, end)` of each word in command position: first in the
/// pipeline, or after `|`, `;`, `(` or a closure's `{` / parameters.
pub(super) fn command_words(chars: &[char], code: &[bool]) -> Vec<(usize, usize)> {
    let mut words = Vec::new();
    let mut at_command = true;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if !code[i] {
            at_command = false;
            i += 1;
            continue;
        }
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if matches!(c, '|' | ';' | '(' | '{') {
            at_command = true;
            i += 1;
            continue;
        }
        if at_command && (c.is_alphanumeric() || c == '^') {
            let end = (i..chars.len())
                .find(|&j| {
                    !code[j] || !(chars[j].is_alphanumeric() || matches!(chars[j], '-' | '_' | '^'))
                })
                .unwrap_or(chars.len());
            words.push((i, end));
            at_command = false;
            i = end;
            continue;
        }
        at_command = false;
        i += 1;
    }
    words
}

/// Where the arguments of the command whose name ends at `from` end: the
/// first `|`, `;`, newline, or `)` / `}` closing what holds the command,
/// outside strings (the length when none).
pub(super) fn arguments_end(chars: &[char], code: &[bool], from: usize) -> usize {
    (from..chars.len())
        .find(|&i| code[i] && matches!(chars[i], '|' | ';' | ')' | '}' | '\n'))
        .unwrap_or(chars.len())
}

/// The `}` closing the `{` at `open`, outside strings.
pub(super) fn matching_brace(chars: &[char], code: &[bool], open: usize) -> Option<usize> {
    matching(chars, code, open, ('{', '}'))
}

/// The `)` closing the `(` at `open`, outside strings.
pub(super) fn matching_paren(chars: &[char], code: &[bool], open: usize) -> Option<usize> {
    matching(chars, code, open, ('(', ')'))
}

/// The closing bracket of `pair` for its opening one at `open`, outside
/// strings.
pub(super) fn matching(
    chars: &[char],
    code: &[bool],
    open: usize,
    pair: (char, char),
) -> Option<usize> {
    let mut depth = 0usize;
    for i in open..chars.len() {
        if !code[i] {
            continue;
        }
        if chars[i] == pair.0 {
            depth += 1;
        } else if chars[i] == pair.1 {
            depth = depth.saturating_sub(1);
            if depth == 0 {
                return Some(i);
            }
        }
    }
    None
}

/// For each character, whether it is code: outside a '…', "…" or `…`
/// string (the quotes themselves are not code).
pub(super) fn outside_strings(chars: &[char]) -> Vec<bool> {
    let mut code = Vec::with_capacity(chars.len());
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for &c in chars {
        match quote {
            Some(q) => {
                code.push(false);
                if escaped {
                    escaped = false;
                } else if c == '\\' && q == '"' {
                    escaped = true;
                } else if c == q {
                    quote = None;
                }
            }
            None if matches!(c, '\'' | '"' | '`') => {
                quote = Some(c);
                code.push(false);
            }
            None => code.push(true),
        }
    }
    code
}

/// A character of a variable's name.
pub(super) fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-')
}

/// Where the number starting at `start` ends: digits, with one decimal
/// point followed by a digit.
pub(super) fn number_end(chars: &[char], start: usize) -> usize {
    let mut end = start;
    let mut seen_point = false;
    while end < chars.len() {
        if chars[end].is_ascii_digit() {
            end += 1;
        } else if chars[end] == '.'
            && !seen_point
            && chars.get(end + 1).is_some_and(char::is_ascii_digit)
        {
            seen_point = true;
            end += 1;
        } else {
            break;
        }
    }
    end
}

/// A character that continues a word: a number's unit, a name, a path.
pub(super) fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '.' | '-' | '$' | '/')
}

/// The byte offset where the pipeline element holding `line`:`column`
/// (1-based, in characters) starts: after the `|` or `;` before it.
pub(super) fn element_start(pipeline: &str, line: usize, column: usize) -> Option<usize> {
    let at = char_offset(pipeline, line, column)?;
    let line_start = pipeline[..at].rfind('\n').map_or(0, |i| i + 1);
    let start = pipeline[line_start..at]
        .rfind(['|', ';'])
        .map_or(0, |i| i + 1);
    Some(line_start + start)
}

/// The byte offset of `line`:`column` (1-based, in characters) in `text`;
/// a column past the line's end is its end.
pub(super) fn char_offset(text: &str, line: usize, column: usize) -> Option<usize> {
    let line_start: usize = text
        .split_inclusive('\n')
        .take(line.checked_sub(1)?)
        .map(str::len)
        .sum();
    let line_text = text.get(line_start..)?.lines().next()?;
    let within = line_text
        .char_indices()
        .nth(column.saturating_sub(1))
        .map_or(line_text.len(), |(i, _)| i);
    Some(line_start + within)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pipe_in_a_string_a_closure_or_brackets_is_no_boundary() {
        assert_eq!(
            top_level_elements("ls | where name =~ 'a|b' | each {|f| $f.name | str upcase }"),
            vec![
                "ls ",
                " where name =~ 'a|b' ",
                " each {|f| $f.name | str upcase }"
            ]
        );
        assert_eq!(top_level_elements("ls|length"), vec!["ls", "length"]);
        // Unclosed: read as text.
        assert_eq!(
            top_level_elements("open 'a|b | lines"),
            vec!["open 'a|b | lines"]
        );
        assert_eq!(
            top_level_elements("ls | each { open $in.name | lines"),
            vec!["ls ", " each { open $in.name | lines"]
        );
    }
}
