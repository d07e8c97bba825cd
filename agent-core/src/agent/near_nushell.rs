//! Pipelines that are almost Nushell, made Nushell where the fix is exact:
//! - durations in other languages' units (`30days`, `24h`, `5minutes`) in
//!   Nushell's (`30day`, `24hr`, `5min`): Nushell reads `30days` as a
//!   string, so `(date now) - 30days` does not parse;
//! - a closure of `each`, `where`, `filter`… that uses `$it` without naming
//!   its parameter (`each { mkdir $it }`): `$it` is the element, so it is
//!   named (`each {|it| mkdir $it }`).
//!
//! Nothing here decides what may run: the fixed pipeline is judged by the
//! policy as any other.

/// `pipeline` with every exact fix made, and a note of each (for the
/// model: "`30days` is `30day`"); `None` when nothing needed fixing.
pub fn as_nushell(pipeline: &str) -> Option<(String, Vec<String>)> {
    let mut text = pipeline.to_string();
    let mut notes = Vec::new();
    if let Some((fixed, changed)) = in_nushell_units(&text) {
        let words: Vec<String> = changed
            .iter()
            .map(|(other, nu)| format!("`{other}` is `{nu}`"))
            .collect();
        notes.push(words.join(", "));
        text = fixed;
    }
    if let Some(fixed) = with_named_it(&text) {
        notes.push("a closure names its parameter: `each {|it| ... }`".to_string());
        text = fixed;
    }
    (!notes.is_empty()).then_some((text, notes))
}

/// Units other languages use, with Nushell's name for each. Months and
/// years have no exact Nushell duration and are left alone.
const UNITS: &[(&str, &str)] = &[
    ("days", "day"),
    ("d", "day"),
    ("hours", "hr"),
    ("hour", "hr"),
    ("hrs", "hr"),
    ("h", "hr"),
    ("minutes", "min"),
    ("minute", "min"),
    ("mins", "min"),
    ("seconds", "sec"),
    ("second", "sec"),
    ("secs", "sec"),
    ("s", "sec"),
    ("weeks", "wk"),
    ("week", "wk"),
    ("wks", "wk"),
    ("w", "wk"),
];

/// `pipeline` with each duration outside strings written in Nushell's
/// units, and the words changed (`30days` → `30day`); `None` when there
/// is none.
pub fn in_nushell_units(pipeline: &str) -> Option<(String, Vec<(String, String)>)> {
    let chars: Vec<char> = pipeline.chars().collect();
    let code = outside_strings(&chars);
    let mut out = String::with_capacity(pipeline.len());
    let mut changed = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let starts_word = i == 0 || !is_word_char(chars[i - 1]);
        if code[i] && chars[i].is_ascii_digit() && starts_word {
            let number_end = number_end(&chars, i);
            let word_end = (number_end..chars.len())
                .find(|&j| !is_word_char(chars[j]))
                .unwrap_or(chars.len());
            let number: String = chars[i..number_end].iter().collect();
            let unit: String = chars[number_end..word_end].iter().collect();
            match UNITS.iter().find(|(other, _)| *other == unit) {
                Some((_, nu_unit)) => {
                    changed.push((format!("{number}{unit}"), format!("{number}{nu_unit}")));
                    out.push_str(&number);
                    out.push_str(nu_unit);
                }
                None => out.extend(&chars[i..word_end]),
            }
            i = word_end;
            continue;
        }
        out.push(chars[i]);
        i += 1;
    }
    (!changed.is_empty()).then_some((out, changed))
}

/// Commands whose closure gets the element as its one parameter, so
/// `$it` in it means that parameter.
const ELEMENT_CLOSURES: &[&str] = &[
    "each", "par-each", "where", "filter", "any", "all", "while", "until",
];

/// `pipeline` with `|it|` named in each closure of an
/// [`ELEMENT_CLOSURES`] command that uses `$it` without a parameter list;
/// `None` when there is none.
pub fn with_named_it(pipeline: &str) -> Option<String> {
    let chars: Vec<char> = pipeline.chars().collect();
    let code = outside_strings(&chars);
    let mut insert_after = Vec::new();
    for open in (0..chars.len()).filter(|&i| code[i] && chars[i] == '{') {
        let before: String = chars[..open].iter().collect();
        let command = before.split_whitespace().next_back().unwrap_or_default();
        if !ELEMENT_CLOSURES.contains(&command) {
            continue;
        }
        let Some(close) = matching_brace(&chars, &code, open) else {
            continue;
        };
        let body: String = chars[open + 1..close].iter().collect();
        if body.trim_start().starts_with('|') {
            continue;
        }
        let uses_it = (open + 1..close).any(|i| {
            code[i]
                && chars[i..].starts_with(&['$', 'i', 't'])
                && chars.get(i + 3).is_none_or(|c| !is_name_char(*c))
        });
        if uses_it {
            insert_after.push(open);
        }
    }
    if insert_after.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(pipeline.len() + 5 * insert_after.len());
    for (i, c) in chars.iter().enumerate() {
        out.push(*c);
        if insert_after.contains(&i) {
            out.push_str("|it|");
            if !chars.get(i + 1).is_some_and(|c| c.is_whitespace()) {
                out.push(' ');
            }
        }
    }
    Some(out)
}

/// The `}` closing the `{` at `open`, outside strings.
fn matching_brace(chars: &[char], code: &[bool], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for i in open..chars.len() {
        if !code[i] {
            continue;
        }
        match chars[i] {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// For each character, whether it is code: outside a '…', "…" or `…`
/// string (the quotes themselves are not code).
fn outside_strings(chars: &[char]) -> Vec<bool> {
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
fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-')
}

/// Where the number starting at `start` ends: digits, with one decimal
/// point followed by a digit.
fn number_end(chars: &[char], start: usize) -> usize {
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
fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '.' | '-' | '$' | '/')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed(pipeline: &str) -> Option<String> {
        in_nushell_units(pipeline).map(|(text, _)| text)
    }

    #[test]
    fn other_languages_units_become_nushell_units() {
        assert_eq!(
            fixed("ls | where modified < ((date now) - 30days)").as_deref(),
            Some("ls | where modified < ((date now) - 30day)")
        );
        assert_eq!(
            fixed("ls **/* | where modified > ((date now) - 24hours) | first 5").as_deref(),
            Some("ls **/* | where modified > ((date now) - 24hr) | first 5")
        );
        assert_eq!(fixed("sleep 2s").as_deref(), Some("sleep 2sec"));
        assert_eq!(
            fixed("(date now) - 1.5h").as_deref(),
            Some("(date now) - 1.5hr")
        );
        let (_, changed) = in_nushell_units("x - 2weeks - 3d").unwrap();
        assert_eq!(
            changed,
            vec![
                ("2weeks".to_string(), "2wk".to_string()),
                ("3d".to_string(), "3day".to_string())
            ]
        );
    }

    #[test]
    fn it_in_an_element_closure_is_named() {
        assert_eq!(
            with_named_it("ls | each { mkdir $it.name; mv $it.name x }").as_deref(),
            Some("ls | each {|it| mkdir $it.name; mv $it.name x }")
        );
        assert_eq!(
            with_named_it("[1 2] | where {$it > 1} | each { $it + 1 }").as_deref(),
            Some("[1 2] | where {|it| $it > 1} | each {|it| $it + 1 }")
        );
        // Named already, `$in`, a record, another command, a string, `$item`.
        assert_eq!(with_named_it("each {|x| $x + 1}"), None);
        assert_eq!(with_named_it("each { $in + 1 }"), None);
        assert_eq!(with_named_it("each { {name: $in} }"), None);
        assert_eq!(with_named_it("update a { $it + 1 }"), None);
        assert_eq!(with_named_it("each { '$it' }"), None);
        assert_eq!(with_named_it("each { $item }"), None);
        // The outer closure is named; a record inside it is left as it is.
        assert_eq!(
            with_named_it("ls | each { {n: $it.name} }").as_deref(),
            Some("ls | each {|it| {n: $it.name} }")
        );
    }

    #[test]
    fn both_fixes_are_made_with_a_note_each() {
        let (text, notes) =
            as_nushell("ls | where modified < ((date now) - 7days) | each { rm $it.name }")
                .unwrap();
        assert_eq!(
            text,
            "ls | where modified < ((date now) - 7day) | each {|it| rm $it.name }"
        );
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert_eq!(as_nushell("ls | each {|it| $it.name }"), None);
    }

    #[test]
    fn strings_names_and_real_units_are_left_alone() {
        assert_eq!(fixed("ls | where modified > ((date now) - 1day)"), None);
        assert_eq!(fixed("open 'report 30days.txt'"), None);
        assert_eq!(fixed("open \"30d \\\" 2h\""), None);
        assert_eq!(fixed("ls | where size > 10kb"), None);
        assert_eq!(fixed("open v1.2s.txt | first 3"), None);
        assert_eq!(fixed("open log-2d.txt"), None);
        assert_eq!(fixed("$out.2s"), None);
        assert_eq!(fixed("ls | first 5"), None);
        // No exact Nushell duration: months and years stay.
        assert_eq!(fixed("(date now) - 1month"), None);
    }
}
