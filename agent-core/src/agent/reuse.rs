//! A pipeline that starts by reading again what an earlier step of the
//! request read (`open orders.csv | where …` after `open orders.csv`), with
//! nothing changed since: it goes on from that step's `$out` instead, as a
//! Nushell user would (`$out.0 | where …`). The same data, not read twice
//! (a large file, a deep listing), and the model sees the form that reuses
//! a result.

use super::pipeline_text::top_level_elements;

/// Commands whose output depends only on the files they read: what a step
/// gave with them stays true until a step changes something.
const FILE_READS: &[&str] = &["open", "ls"];

/// `pipeline` with its start that repeats the read `pipeline` of an
/// earlier step (`$out.{out}`) put as that `$out`, and the note for the
/// model; the longest such start. `None` where no earlier read starts it,
/// or it is that read whole (a repeat, dealt with as one).
pub fn reusing(pipeline: &str, reads: &[(String, usize)]) -> Option<(String, String)> {
    let elements = words_of_elements(pipeline);
    reads
        .iter()
        .filter(|(read, _)| {
            let head = read.split_whitespace().next().unwrap_or_default();
            FILE_READS.contains(&head)
        })
        .filter_map(|(read, out)| {
            let read_elements = words_of_elements(read);
            let n = read_elements.len();
            (n < elements.len() && elements[..n] == read_elements[..])
                .then_some((n, read, *out))
        })
        .max_by_key(|(n, ..)| *n)
        .map(|(n, read, out)| {
            let rest = top_level_elements(pipeline)[n..]
                .iter()
                .map(|element| element.trim())
                .collect::<Vec<_>>()
                .join(" | ");
            (
                format!("$out.{out} | {rest}"),
                format!("`{read}` was read at an earlier step and nothing changed since: its result `$out.{out}` was used"),
            )
        })
}

/// Each element of `pipeline` as its words, so spacing does not count.
fn words_of_elements(pipeline: &str) -> Vec<Vec<String>> {
    top_level_elements(pipeline)
        .iter()
        .map(|element| element.split_whitespace().map(str::to_string).collect())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reads() -> Vec<(String, usize)> {
        vec![
            ("open orders.csv".to_string(), 0),
            ("open orders.csv | where status == pending".to_string(), 1),
            ("ps".to_string(), 2),
        ]
    }

    #[test]
    fn a_pipeline_starting_with_an_earlier_read_goes_on_from_its_result() {
        assert_eq!(
            reusing("open orders.csv  | get amount | math sum", &reads()),
            Some((
                "$out.0 | get amount | math sum".to_string(),
                "`open orders.csv` was read at an earlier step and nothing changed since: its result `$out.0` was used".to_string()
            ))
        );
        // The longest earlier read that starts it.
        assert_eq!(
            reusing(
                "open orders.csv | where status == pending | length",
                &reads()
            )
            .map(|(piped, _)| piped),
            Some("$out.1 | length".to_string())
        );
    }

    #[test]
    fn other_pipelines_are_left_alone() {
        for pipeline in [
            // The read whole: a repeat.
            "open orders.csv",
            // Another file, or the same word inside a longer element.
            "open orders2.csv | length",
            "open orders.csv --raw | lines",
            // Not a read of files: it may give something else now.
            "ps | where name =~ x",
        ] {
            assert_eq!(reusing(pipeline, &reads()), None, "{pipeline}");
        }
    }
}
