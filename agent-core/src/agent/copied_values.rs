//! A filter copied with the prompt's made-up value. A small model copies
//! the prompt's examples whole, values and all: `ls **/* | where size >
//! 1mb | sort-by size --reverse | first 3` for "the largest folder",
//! `lines | where $it =~ 'urgent'` for lines it was never asked to pick.
//! The example's value is in no request it was not written for, so the
//! rows such a filter keeps are the example's, not the user's. A read
//! whose filter (`where`, `first N`, `last N`, `find`) holds a value of
//! the prompt's examples that the request does not give runs without that
//! filter: the rows it would have hidden come back, and the model is told
//! why. A step that may change something is never touched (dropping a
//! filter there would widen the change).

use super::grounding::holds_number;
use super::pipeline_text::top_level_elements;
use super::prompt::prompt_examples;

/// A value written in a filter.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Value {
    /// A quoted string, lowercased (`'urgent'`).
    Text(String),
    /// A number with its unit (`1mb`, `2hr`): the number and the unit.
    Quantity(String, String),
    /// The count of `first N` / `last N`.
    Count(String),
}

/// The commands that keep some of their input's rows (or lines).
const FILTERS: [&str; 4] = ["where", "first", "last", "find"];

/// The values the prompt's example filters hold.
fn example_values() -> &'static [Value] {
    static VALUES: std::sync::LazyLock<Vec<Value>> = std::sync::LazyLock::new(|| {
        let mut values: Vec<Value> = prompt_examples()
            .into_iter()
            .flat_map(|example| top_level_elements(example).into_iter().skip(1))
            .flat_map(|element| values_of_filter(&element))
            .collect();
        values.dedup();
        values
    });
    &VALUES
}

/// The values of `element` where it is a filter; none else.
fn values_of_filter(element: &str) -> Vec<Value> {
    let element = element.trim();
    let mut words = element.split_whitespace();
    let Some(head) = words.next().filter(|head| FILTERS.contains(head)) else {
        return Vec::new();
    };
    if head == "first" || head == "last" {
        return words
            .next()
            .filter(|count| count.chars().all(|c| c.is_ascii_digit()))
            .map(|count| vec![Value::Count(count.to_string())])
            .unwrap_or_default();
    }
    static LITERAL: std::sync::LazyLock<Option<regex::Regex>> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r#"'([^']+)'|"([^"]+)"|\b(\d+(?:\.\d+)?)([a-zA-Z]+)\b"#).ok()
    });
    let Some(regex) = LITERAL.as_ref() else {
        return Vec::new();
    };
    regex
        .captures_iter(element)
        .filter_map(|found| {
            if let Some(text) = found.get(1).or_else(|| found.get(2)) {
                return Some(Value::Text(text.as_str().to_lowercase()));
            }
            let number = found.get(3)?.as_str().to_string();
            let unit = found.get(4)?.as_str().to_lowercase();
            Some(Value::Quantity(number, unit))
        })
        .collect()
}

/// Whether `request` gives `value`: the text in it, or the number as a
/// number of its own (`1 GB` gives the `1` of `1mb`: the unit is the
/// model's to get right), or the count as a number or a word.
fn gives(request: &str, value: &Value) -> bool {
    let lower = request.to_lowercase();
    match value {
        Value::Text(text) => lower.contains(text.as_str()),
        Value::Quantity(number, _) => holds_number(&lower, number),
        Value::Count(count) => {
            holds_number(&lower, count)
                || count
                    .parse::<usize>()
                    .ok()
                    .and_then(|n| NUMBER_WORDS.get(n))
                    .is_some_and(|word| {
                        lower
                            .split(|c: char| !c.is_alphabetic())
                            .any(|said| said == *word)
                    })
        }
    }
}

/// The names of the numbers a request may give a count in.
const NUMBER_WORDS: [&str; 13] = [
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve",
];

/// `pipeline` without the filters that hold a value of the prompt's
/// examples the request does not give, and those filters; `None` when
/// it has none (or only its first element would go).
pub fn without_copied_filters(pipeline: &str, request: &str) -> Option<(String, Vec<String>)> {
    let elements: Vec<String> = top_level_elements(pipeline)
        .iter()
        .map(|element| element.trim().to_string())
        .collect();
    let copied = |element: &str| {
        values_of_filter(element)
            .iter()
            .any(|value| example_values().contains(value) && !gives(request, value))
    };
    let (first, rest) = elements.split_first()?;
    let (dropped, kept): (Vec<String>, Vec<String>) =
        rest.iter().cloned().partition(|element| copied(element));
    if dropped.is_empty() {
        return None;
    }
    let kept: Vec<&str> = std::iter::once(first.as_str())
        .chain(kept.iter().map(String::as_str))
        .collect();
    Some((kept.join(" | "), dropped))
}

/// What the model reads of a step that ran without `dropped`.
pub fn note(dropped: &[String]) -> String {
    format!(
        "`{}` kept rows by a made-up value of the prompt's examples, which the request does not give",
        dropped.join(" | ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_examples_values_are_found_in_the_prompt() {
        let values = example_values();
        assert!(values.contains(&Value::Count("3".into())), "{values:?}");
        assert!(
            values.contains(&Value::Quantity("1".into(), "mb".into())),
            "{values:?}"
        );
        assert!(
            values.iter().any(|value| matches!(value, Value::Text(_))),
            "{values:?}"
        );
    }

    #[test]
    fn a_copied_size_and_count_go_and_the_rest_stays() {
        let (ran, dropped) = without_copied_filters(
            "ls **/* | where size > 1mb | sort-by size --reverse | first 3",
            "which folder here is the biggest?",
        )
        .unwrap();
        assert_eq!(ran, "ls **/* | sort-by size --reverse");
        assert_eq!(dropped, vec!["where size > 1mb", "first 3"]);
        assert!(note(&dropped).contains("`where size > 1mb | first 3`"));
    }

    #[test]
    fn a_copied_text_goes_before_a_count() {
        let text = example_values()
            .iter()
            .find_map(|value| match value {
                Value::Text(text) => Some(text.clone()),
                _ => None,
            })
            .unwrap();
        let pipeline = format!("open *.log | lines | where $it =~ '{text}' | length");
        let (ran, _) =
            without_copied_filters(&pipeline, "how many lines do the logs have?").unwrap();
        assert_eq!(ran, "open *.log | lines | length");
    }

    #[test]
    fn values_the_request_gives_stay() {
        for (pipeline, request) in [
            ("ls | where size > 1mb", "list files over 1 MB"),
            (
                "ls | sort-by size --reverse | first 3",
                "the 3 biggest files",
            ),
            (
                "ls | sort-by size --reverse | first 3",
                "the three biggest files",
            ),
            ("ls | where size > 10mb | first 5", "files over 10mb"),
            ("ls | where type == dir", "the folders"),
        ] {
            assert_eq!(
                without_copied_filters(pipeline, request),
                None,
                "{pipeline}"
            );
        }
    }

    #[test]
    fn a_number_inside_another_is_not_given() {
        assert!(!holds_number("files over 13 kb", "3"));
        assert!(!holds_number("version 1.3", "3"));
        assert!(holds_number("top 3 files", "3"));
        assert!(holds_number("PID 1234.", "1234"));
    }

    #[test]
    fn the_first_element_is_never_dropped() {
        assert_eq!(without_copied_filters("first 3", "show some"), None);
    }
}
