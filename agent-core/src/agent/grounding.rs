//! Facts in an answer that nothing the model read supports: numbers and
//! hashes it did not see in any result, the request or its own pipelines.
//! A small model with no data answers from imagination (`the commit is
//! 1234567…`, `ports 22, 80, 443`); such an answer is sent back once,
//! before it reaches the user, to be grounded in a result or cut down.
//! Numbers are only held to this while no step has given data: once one
//! has, a number may be derived from it (a sum, a difference). An answer
//! about a small table that names none of its rows ("There are 2 empty
//! files.") is given their names.

/// Facts of `answer` that appear in none of `sources`: numbers of two or
/// more digits or with decimals (small counts are left alone), and
/// hex strings of 7 or more characters (hashes), each once, in order.
/// A number counts as seen when a source holds a number that rounds to it
/// at the answer's precision (`12.5` is seen in `12.4999`). With
/// `numbers_too` false only hashes are looked at.
pub fn ungrounded(answer: &str, sources: &[&str], numbers_too: bool) -> Vec<String> {
    let seen_numbers: Vec<(f64, f64)> = sources
        .iter()
        .flat_map(|s| numbers(s))
        .filter_map(|n| value_and_unit(&n))
        .collect();
    let lowered: Vec<String> = sources.iter().map(|s| s.to_lowercase()).collect();
    let mut facts: Vec<String> = Vec::new();
    for word in answer.split(|c: char| !c.is_ascii_alphanumeric()) {
        if is_hash(word) && !lowered.iter().any(|s| s.contains(&word.to_lowercase())) {
            facts.push(word.to_string());
        }
    }
    // An address is an identifier like a hash: no sum or difference of
    // the data gives it.
    let mut without_addresses = answer.to_string();
    for address in ipv4_addresses(answer) {
        without_addresses = without_addresses.replace(&address, " ");
        if !sources.iter().any(|s| s.contains(&address)) && !facts.contains(&address) {
            facts.push(address);
        }
    }
    // So is a process's id or a port: `PID 1234`, `port 8080`.
    for id in identifiers(&without_addresses) {
        if !sources.iter().any(|s| holds_number(s, &id)) && !facts.contains(&id) {
            facts.push(id);
        }
    }
    for number in numbers(&without_addresses)
        .into_iter()
        .filter(|_| numbers_too)
    {
        let digits = number.chars().filter(char::is_ascii_digit).count();
        if digits < 2 && !number.contains('.') {
            continue;
        }
        let Some((value, unit)) = value_and_unit(&number) else {
            continue;
        };
        // Seen when a source's number is the same at the coarser of the
        // two precisions (`140.1` in `140kB`, `12.5` in `12.4999`).
        let seen = seen_numbers
            .iter()
            .any(|(n, n_unit)| (n - value).abs() <= unit.max(*n_unit) * 0.999);
        if !seen && !facts.contains(&number) {
            facts.push(number);
        }
    }
    facts
}

/// Most rows of a table an answer is completed with (see [`rows_unnamed`]).
const MAX_NAMED_ROWS: usize = 10;

/// For an answer about `table` (a small one, at most [`MAX_NAMED_ROWS`]
/// rows) that names none of its rows ("There are 2 empty files."): the
/// line that names them, from its `name` column or else its first column
/// of text (`name: a.txt, b.cfg`). `None` when the answer names one, the
/// table is larger, or no column names its rows.
pub fn rows_unnamed(answer: &str, table: &nu_protocol::Value) -> Option<String> {
    let rows = table.as_list().ok()?;
    if rows.is_empty() || rows.len() > MAX_NAMED_ROWS {
        return None;
    }
    let first = rows.first()?.as_record().ok()?;
    let column = first
        .get("name")
        .filter(|value| value.as_str().is_ok())
        .map(|_| "name".to_string())
        .or_else(|| {
            first
                .iter()
                .find(|(_, value)| value.as_str().is_ok())
                .map(|(column, _)| column.clone())
        })?;
    let names: Vec<&str> = rows
        .iter()
        .filter_map(|row| row.as_record().ok()?.get(&column)?.as_str().ok())
        .filter(|name| !name.trim().is_empty())
        .collect();
    let lowered = answer.to_lowercase();
    let named = names.iter().any(|name| {
        let name = name.to_lowercase();
        let base = name.rsplit('/').next().unwrap_or(&name).to_string();
        lowered.contains(&name) || lowered.contains(&base)
    });
    (!names.is_empty() && !named).then(|| format!("{column}: {}", names.join(", ")))
}

/// The lines of a short list of text (`git log … | lines`, at most
/// [`MAX_NAMED_ROWS`], none longer than [`MAX_QUOTED_LINE`] characters),
/// one per line, for an answer that quotes none of them: what a step found,
/// shown where the answer only points at it. `None` for any other value.
pub fn lines_unquoted(answer: &str, list: &nu_protocol::Value) -> Option<String> {
    let items = list.as_list().ok()?;
    if items.is_empty() || items.len() > MAX_NAMED_ROWS {
        return None;
    }
    let lines: Vec<&str> = items
        .iter()
        .map(|item| item.as_str().ok().map(str::trim))
        .collect::<Option<_>>()?;
    let fits = lines
        .iter()
        .all(|line| !line.is_empty() && line.chars().count() <= MAX_QUOTED_LINE);
    let quoted = lines.iter().any(|line| answer.contains(line));
    (fits && !quoted).then(|| lines.join("\n"))
}

/// The longest line [`lines_unquoted`] shows.
const MAX_QUOTED_LINE: usize = 160;

/// Whether `answer` says something was not done (`not`, `n't`, `cannot`,
/// `unable`, `refused`, `denied`, `blocked`, `declined`): what an answer
/// must say after the policy stopped a step. "Stopped" is not enough: "I
/// stopped the service" is a change made, and "the user stopped the step"
/// leaves the user to guess what was not done.
pub fn says_not_done(answer: &str) -> bool {
    let lowered = answer.to_lowercase().replace('\u{2019}', "'");
    lowered
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .any(|w| {
            matches!(w, "not" | "cannot" | "unable")
                || w.ends_with("n't")
                || ["refus", "denied", "blocked", "declin", "forbid"]
                    .iter()
                    .any(|stem| w.starts_with(stem))
        })
}

/// The numbers `text` gives as a process id or a port (`PID 1234`, `pid:
/// 77`, `port 8080`, `ports 22 and 80` gives 22): identifiers, which no
/// sum or difference of the data gives.
fn identifiers(text: &str) -> Vec<String> {
    static ID: std::sync::LazyLock<Option<regex::Regex>> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"(?i)\b(?:pid|process id|port)s?\b\W{0,3}(?:is\s+|of\s+|number\s+)?(\d{2,})\b",
        )
        .ok()
    });
    let Some(regex) = ID.as_ref() else {
        return Vec::new();
    };
    let mut found: Vec<String> = Vec::new();
    for id in regex.captures_iter(text).filter_map(|c| c.get(1)) {
        if !found.iter().any(|f| f == id.as_str()) {
            found.push(id.as_str().to_string());
        }
    }
    found
}

/// Whether `text` holds `number` as a number of its own: no digit either
/// side, nor a decimal point with a digit past it (`3` is not in `13` or
/// `1.3`; `1234` is in `PID 1234.`).
pub fn holds_number(text: &str, number: &str) -> bool {
    text.match_indices(number).any(|(at, _)| {
        let digit = |c: Option<char>| c.is_some_and(|c| c.is_ascii_digit());
        let mut before = text[..at].chars().rev();
        let mut after = text[at + number.len()..].chars();
        let (b1, a1) = (before.next(), after.next());
        let part_before = digit(b1) || (b1 == Some('.') && digit(before.next()));
        let part_after = digit(a1) || (a1 == Some('.') && digit(after.next()));
        !part_before && !part_after
    })
}

/// The IPv4 addresses in `text` (four dot-separated numbers of at most
/// three digits, each at most 255), each once.
fn ipv4_addresses(text: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for word in text.split(|c: char| !(c.is_ascii_digit() || c == '.')) {
        let word = word.trim_matches('.');
        let parts: Vec<&str> = word.split('.').collect();
        let is_address = parts.len() == 4
            && parts
                .iter()
                .all(|p| !p.is_empty() && p.len() <= 3 && p.parse::<u16>().is_ok_and(|n| n <= 255));
        if is_address && !found.iter().any(|f| f == word) {
            found.push(word.to_string());
        }
    }
    found
}

/// The change an answer says was made (`deleted`, `renamed`…), where a
/// sentence states it as done: not negated, not a plan or a condition
/// ("I did not delete", "could not be removed", "would be moved").
pub fn claimed_change(answer: &str) -> Option<String> {
    // Verbs that describe files too ("created on", "modified yesterday")
    // count only as a statement of what was done.
    const DONE: &[&str] = &[
        "deleted",
        "removed",
        "renamed",
        "moved",
        "saved",
        "copied",
        "converted",
        "cleaned",
        "killed",
        "installed",
        "organized",
        "sorted into",
        "has been created",
        "have been created",
        "i created",
        "i have created",
        "i've created",
        "has been updated",
        "have been updated",
        "i updated",
        "i have updated",
        "has been changed",
        "have been changed",
        "i changed",
        "has been written",
        "i wrote",
        "bumped",
    ];
    // Words (whole words: "not" is not in "notes") and marks that make
    // a sentence something not done.
    const NOT_DONE: &[&str] = &[
        "not", "n't", "no", "nothing", "cannot", "unable", "blocked", "denied", "refused", "would",
        "will", "could", "should", "can", "need", "to be", "want", "if", "?",
    ];
    let not_done = |sentence: &str| {
        NOT_DONE.iter().any(|word| {
            if word.chars().all(|c| c.is_alphabetic() || c == ' ') {
                sentence
                    .match_indices(*word)
                    .any(|(at, _)| whole_word(sentence, at, word.len()))
            } else {
                sentence.contains(word)
            }
        })
    };
    answer
        .split(['.', '!', '\n', ';'])
        .map(str::to_lowercase)
        .filter(|sentence| !not_done(sentence))
        .find_map(|sentence| {
            DONE.iter()
                .find(|verb| {
                    sentence
                        .match_indices(*verb)
                        .any(|(at, _)| whole_word(&sentence, at, verb.len()))
                })
                .map(|verb| verb.to_string())
        })
}

/// Whether `text[at..at + len]` is a whole word (not inside a longer one).
fn whole_word(text: &str, at: usize, len: usize) -> bool {
    let before = text[..at].chars().next_back();
    let after = text[at + len..].chars().next();
    !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
}

/// A written number's value and the size of its last digit (`12.5` →
/// (12.5, 0.1)).
fn value_and_unit(number: &str) -> Option<(f64, f64)> {
    let plain = number.replace(',', "");
    let decimals = plain.split_once('.').map_or(0, |(_, d)| d.len());
    let value = plain.parse::<f64>().ok()?;
    Some((value, 10f64.powi(-(decimals as i32))))
}

/// A word that looks like a hash: 7+ hex digits with a letter and a digit.
fn is_hash(word: &str) -> bool {
    word.len() >= 7
        && word.chars().all(|c| c.is_ascii_hexdigit())
        && word.chars().any(|c| c.is_ascii_digit())
        && word.chars().any(|c| c.is_ascii_alphabetic())
}

/// The numbers written in `text` (`1,024`, `12.5`), not those inside words
/// (`v2`, `a1b2`).
fn numbers(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let starts = chars[i].is_ascii_digit() && (i == 0 || !chars[i - 1].is_alphanumeric());
        if !starts {
            i += 1;
            continue;
        }
        let mut end = i;
        while end < chars.len()
            && (chars[end].is_ascii_digit()
                || (matches!(chars[end], '.' | ',')
                    && chars.get(end + 1).is_some_and(char::is_ascii_digit)))
        {
            end += 1;
        }
        // `1a2b…` is a hash, not the number 1 (but `50kB` is 50).
        let inside_word = chars.get(end).is_some_and(|c| c.is_ascii_hexdigit())
            && chars[i..end].iter().all(char::is_ascii_digit)
            && chars.get(end + 1).is_some_and(|c| c.is_ascii_hexdigit());
        if !inside_word {
            found.push(chars[i..end].iter().collect());
        }
        i = end.max(i + 1);
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pid_or_port_no_result_shows_is_ungrounded_even_after_data() {
        let sources = ["pid|name|mem\n15641|eval-memhog|200MB\n1|init|9MB"];
        assert_eq!(
            ungrounded("eval-memhog, with PID 12345.", &sources, false),
            vec!["12345"]
        );
        assert!(ungrounded("eval-memhog (PID 15641) uses most.", &sources, false).is_empty());
        assert_eq!(
            ungrounded("The server listens on port 8080.", &["port: 8443"], false),
            vec!["8080"]
        );
        assert!(ungrounded("It listens on port 8443.", &["port: 8443"], false).is_empty());
        assert!(ungrounded("It uses 12345 bytes.", &sources, false).is_empty());
        assert_eq!(identifiers("pid: 77, PIDs 12 and 13"), vec!["77", "12"]);
    }

    #[test]
    fn facts_not_in_any_result_are_caught() {
        let sources = [
            "How big is data.csv?",
            "╭───┬──────────┬────────╮\n│ 0 │ data.csv │ 1,536 B │",
        ];
        assert!(ungrounded("data.csv is 1536 bytes.", &sources, true).is_empty());
        assert_eq!(
            ungrounded("data.csv is 2048 bytes, commit 1a2b3c4d5e.", &sources, true),
            vec!["1a2b3c4d5e".to_string(), "2048".into()]
        );
        // Small counts and numbers the request holds are left alone.
        assert!(ungrounded("3 files; data.csv", &sources, true).is_empty());
        // Once data came, numbers may be derived from it; hashes may not.
        assert_eq!(
            ungrounded("2048 bytes, commit 1a2b3c4d5e.", &sources, false),
            vec!["1a2b3c4d5e".to_string()]
        );
    }

    #[test]
    fn an_address_no_result_holds_is_caught_even_after_data() {
        let sources = ["│ 10.0.0.7 │ 412 │", "open access.log | lines"];
        assert!(ungrounded("10.0.0.7 made 412 requests.", &sources, true).is_empty());
        assert_eq!(
            ungrounded("192.168.1.100 made 100 requests.", &sources, false),
            vec!["192.168.1.100".to_string()]
        );
        assert_eq!(
            ungrounded("192.168.1.100 made 100 requests.", &sources, true),
            vec!["192.168.1.100".to_string(), "100".into()]
        );
        // Versions and decimals are not addresses.
        assert!(ungrounded("Version 1.2.3 of it.", &sources, false).is_empty());
    }

    #[test]
    fn an_answer_saying_what_was_not_done_is_told_from_one_that_does_not() {
        assert!(says_not_done("I could not copy it: the policy blocked it."));
        assert!(says_not_done("I didn\u{2019}t delete anything."));
        assert!(says_not_done("The step was denied."));
        assert!(says_not_done("Copying to /etc was refused by your policy."));
        assert!(!says_not_done("The disk usage of / is 271GB."));
        assert!(!says_not_done("Copied demo.conf to /etc."));
        assert!(!says_not_done("Nothing else to report, notes are here."));
        assert!(!says_not_done(
            "The user stopped the step by blocking it with the policy."
        ));
        assert!(!says_not_done("I stopped the nginx service."));
    }

    #[test]
    fn a_number_rounded_from_a_result_is_seen() {
        let sources = ["│ 12.4999 │", "17.25", "logs|140kB", "big.log|50kB"];
        assert!(ungrounded("logs/ takes 140.1 kB; big.log 50.0 kB.", &sources, true).is_empty());
        assert_eq!(
            ungrounded("It is 142 kB.", &sources, true),
            vec!["142".to_string()]
        );
        assert!(ungrounded("The average is 12.5.", &sources, true).is_empty());
        assert!(ungrounded("About 17.3 GB.", &sources, true).is_empty());
        assert_eq!(
            ungrounded("It is 13.5.", &sources, true),
            vec!["13.5".to_string()]
        );
    }

    #[test]
    fn hashes_match_a_longer_hash_they_start() {
        let sources = ["commit 9fceb02d0ae598e95dc970b74767f19372d61af8"];
        assert!(ungrounded("The last commit is 9fceb02.", &sources, true).is_empty());
        assert_eq!(
            ungrounded("The last commit is 1234567abc.", &sources, true),
            vec!["1234567abc".to_string()]
        );
    }

    #[test]
    fn a_change_stated_as_done_is_found_and_others_are_not() {
        assert_eq!(
            claimed_change("I have deleted the files in ~/.ssh/backup.").as_deref(),
            Some("deleted")
        );
        assert_eq!(
            claimed_change("Done. All .jpeg files were renamed to .jpg").as_deref(),
            Some("renamed")
        );
        // "not" is a word, not a part of one.
        assert_eq!(
            claimed_change("I removed the notes and another draft.").as_deref(),
            Some("removed")
        );
        for not_a_claim in [
            "I did not delete anything: the policy blocked `rm -rf ~/.ssh`.",
            "The files could not be removed because the step was denied.",
            "Nothing was deleted.",
            "The largest file is big.log (50 kB).",
            "These files would be moved: a.txt, b.txt",
            "The file was last modified yesterday.",
            "report.pdf was created on 2024-01-02 and updated since.",
            "It lists the undeleted entries.",
            "No files were removed.",
            "The files weren't moved?",
        ] {
            assert_eq!(claimed_change(not_a_claim), None, "{not_a_claim}");
        }
    }

    #[test]
    fn an_answer_that_names_no_row_of_its_small_table_is_given_the_names() {
        use nu_protocol::{Span, Value, record};
        let row = |name: &str| {
            Value::test_record(record! {
                "name" => Value::test_string(name),
                "size" => Value::test_int(0),
            })
        };
        let table = Value::list(
            vec![row("placeholder.txt"), row("conf/override.cfg")],
            Span::test_data(),
        );
        assert_eq!(
            rows_unnamed("There are 2 empty files.", &table).as_deref(),
            Some("name: placeholder.txt, conf/override.cfg")
        );
        assert_eq!(
            rows_unnamed("override.cfg and placeholder.txt are empty", &table),
            None
        );
        let big = Value::list(
            (0..11).map(|i| row(&format!("f{i}"))).collect(),
            Span::test_data(),
        );
        assert_eq!(rows_unnamed("There are 11 files.", &big), None);
        let numbers = Value::list(
            vec![Value::test_record(
                record! { "count" => Value::test_int(3) },
            )],
            Span::test_data(),
        );
        assert_eq!(rows_unnamed("3", &numbers), None);
    }

    #[test]
    fn a_short_list_of_lines_is_shown_where_the_answer_quotes_none() {
        use nu_protocol::{Span, Value};
        let list = |lines: &[&str]| {
            Value::list(
                lines.iter().map(|l| Value::test_string(*l)).collect(),
                Span::test_data(),
            )
        };
        let log = list(&["a1b2c3d|Bea Novak|Fix", "9f8e7d6|Ann Lee|Start"]);
        assert_eq!(
            lines_unquoted("This is what the last step found.", &log).as_deref(),
            Some("a1b2c3d|Bea Novak|Fix\n9f8e7d6|Ann Lee|Start")
        );
        assert_eq!(lines_unquoted("a1b2c3d|Bea Novak|Fix", &log), None);
        let many: Vec<String> = (0..11).map(|i| format!("line {i}")).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        assert_eq!(lines_unquoted("", &list(&many)), None);
        assert_eq!(lines_unquoted("", &list(&[""])), None);
        assert_eq!(lines_unquoted("", &Value::test_int(3)), None);
    }
}
