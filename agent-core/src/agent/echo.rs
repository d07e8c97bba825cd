//! Whether a reply only says back what the model was sent: a small model
//! with nothing of its own to say copies the loop's instructions ("The last
//! step. Call answer now."), a note it was given (without its backticks),
//! the shape line of a result ("list: 0 items (nothing)"), or the request
//! itself in fewer words ("free space on /").

/// Words in a row a reply shares with the loop's own words to be taken as
/// their echo ("the last step call answer now").
pub const WORD_RUN: usize = 6;

/// Whether `said` holds [`WORD_RUN`] words in a row of the prose of
/// `sent`, compared as words: case, backticks and punctuation aside. The
/// code `sent` quotes (`` `ls | length` ``, a span with a space) is not
/// its prose: an answer may well name the pipeline that found it.
pub fn repeats_words(said: &str, sent: &str) -> bool {
    let said = words(said);
    let sent = words(&without_code(sent));
    said.len() >= WORD_RUN
        && said
            .windows(WORD_RUN)
            .any(|run| sent.windows(WORD_RUN).any(|other| other == run))
}

/// Fewest words of an answer taken as the request said back (see
/// [`restates`]): "Yes." or "None found." add their own words anyway.
pub const RESTATED_WORDS: usize = 3;

/// Whether `answer` (at least [`RESTATED_WORDS`] words) is the request
/// with words left out: its words are the request's, in the request's
/// order, case and punctuation aside ("find empty files in this
/// directory" for "Find the empty files in this directory…"). An answer
/// says something the request did not (a number, a name, a "no"), or
/// says it in its own order ("x.txt is here" for "Is x.txt here?").
pub fn restates(answer: &str, request: &str) -> bool {
    let said = words(answer);
    let mut asked = words(request).into_iter();
    said.len() >= RESTATED_WORDS && said.iter().all(|word| asked.any(|other| other == *word))
}

/// Whether `said` is only a span of code that `sent` quotes (`` `ls
/// **/…` `` of a loop note): code the model was shown, said back as if
/// it were the answer.
pub fn is_quoted_code(said: &str, sent: &str) -> bool {
    let said = said.trim().trim_matches('`').trim();
    !said.is_empty()
        && sent
            .split('`')
            .skip(1)
            .step_by(2)
            .any(|code| code.trim() == said && code.contains(char::is_whitespace))
}

/// The part of a tool result the loop wrote: the notes before the result
/// itself (`$out.N` and what follows is the data a reply may quote).
pub fn loop_notes(result: &str) -> &str {
    let data_at = result
        .match_indices("$out.")
        .map(|(at, _)| at)
        .find(|at| *at == 0 || result[..*at].ends_with('\n'));
    &result[..data_at.unwrap_or(result.len())]
}

/// Whether `text` starts with the shape line of a result as the model
/// reads it (`table: 3 rows × 4 columns`, `list: 0 items (nothing)`, with
/// or without its `table:`/`list:`), which says nothing to a user.
pub fn is_shape_line(text: &str) -> bool {
    let line = text.trim_start().lines().next().unwrap_or_default().trim();
    let line = line
        .strip_prefix("table:")
        .or_else(|| line.strip_prefix("list:"))
        .unwrap_or(line)
        .trim_start();
    let Some((count, rest)) = line.split_once(' ') else {
        return false;
    };
    count.parse::<u64>().is_ok()
        && (rest.starts_with("items (")
            || rest.starts_with("rows × ") && rest.split_whitespace().nth(3) == Some("columns"))
}

/// `text` without its spans of code (backticked, holding a space);
/// a one-word span (`` `answer` ``) stays, as a word.
fn without_code(text: &str) -> String {
    text.split('`')
        .enumerate()
        .filter(|(i, part)| i % 2 == 0 || !part.contains(char::is_whitespace))
        .map(|(_, part)| part)
        .collect::<Vec<_>>()
        .join(" ")
}

/// `text` as lowercase words, without the punctuation around them.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| c.is_whitespace() || c == '`')
        .map(|word| {
            word.trim_matches(|c: char| !c.is_alphanumeric() && c != '$')
                .to_lowercase()
        })
        .filter(|word| !word.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_a_note_quotes_said_back_is_an_echo() {
        let note =
            "`ls **/…` looks into subfolders, as the request asks; it ran as `ls **/* | length`.";
        assert!(is_quoted_code("ls **/…", note));
        assert!(is_quoted_code("`ls **/* | length`", note));
        assert!(!is_quoted_code("ls", "`ls` lists"));
        assert!(!is_quoted_code("3 files", note));
    }

    #[test]
    fn an_answer_that_adds_no_word_to_the_request_restates_it() {
        let request = "How much free space is left on the disk this directory is on?";
        assert!(restates("free space on /", request));
        assert!(restates("Free space left on the disk.", request));
        assert!(!restates("12 GB free on /", request));
        assert!(!restates("The disk has 12G left.", request));
        assert!(!restates("free space", request));
        let find = "Find the empty files in this directory and its subfolders.";
        assert!(restates(
            "find empty files in this directory and its subfolders",
            find
        ));
        assert!(!restates("The empty files are a.txt and b/c.cfg.", find));
        assert!(!restates(
            "There are no empty files in this directory.",
            find
        ));
        let yes = "Is there a file named notes.txt in this directory?";
        assert!(!restates("notes.txt is in this directory", yes));
    }

    #[test]
    fn an_instruction_said_back_in_other_punctuation_is_an_echo() {
        let sent = "This is the last step. Call `answer` now: what you found, or what you could not do and why.";
        assert!(repeats_words("The last step. Call answer now.", sent));
        assert!(repeats_words(
            "The last step. Call `nu` now: what you found, or what you could not do and why.",
            sent
        ));
        let note = "Not run: there is no shell to exit. A task ends with `answer`: call it now.";
        assert!(repeats_words(
            "No shell to exit. A task ends with answer: call it now.",
            note
        ));
        // An answer naming the pipeline a note quotes is no echo.
        assert!(!repeats_words(
            "I ran open app.log | lines | where $it =~ 'ERROR' | length: 7 lines.",
            "A count gives only how many; it ran as `open app.log | lines | where $it =~ 'ERROR' | length`."
        ));
        // An answer sharing a few words is no echo.
        assert!(!repeats_words(
            "I did not do it: the last step failed.",
            sent
        ));
        assert!(!repeats_words("3 files", sent));
    }

    #[test]
    fn the_loops_notes_end_where_the_result_starts() {
        assert_eq!(
            loop_notes("In Nushell `30days` is `30day`; it ran as `x`.\n$out.0\n3"),
            "In Nushell `30days` is `30day`; it ran as `x`.\n"
        );
        assert_eq!(loop_notes("$out.2\nlist: 1 items (str)"), "");
        assert_eq!(
            loop_notes("Not run: `length` takes input (see $out.0)."),
            "Not run: `length` takes input (see $out.0)."
        );
    }

    #[test]
    fn a_results_shape_line_is_known_as_it_was_shown_or_cut() {
        for text in [
            "list: 0 items (nothing)",
            "1 items (str)",
            "0 rows × 4 columns",
            "table: 8 rows × 4 columns\nhash:str|author:str",
            "2 items (str) city fahrenheit",
        ] {
            assert!(is_shape_line(text), "{text}");
        }
        for text in [
            "3 files are larger than 10 kB",
            "2 items are left",
            "The table has 3 rows.",
            "42",
        ] {
            assert!(!is_shape_line(text), "{text}");
        }
    }
}
