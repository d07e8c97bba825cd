//! Degenerate model output: a pipeline or an answer that is mostly one
//! short unit repeated (`0000…`, `pip_pip_pip_…`), which a small model
//! falls into. Such a turn is sent back to the model, never run or shown
//! as the answer.

/// Shortest text judged (shorter repeats are ordinary: `===`, `1000`).
const MIN_LEN: usize = 24;
/// Longest repeated unit looked for, in characters.
const MAX_UNIT: usize = 8;
/// A run must cover this share of the text…
const SHARE: f64 = 0.6;
/// …and repeat its unit at least this many times.
const MIN_REPEATS: usize = 6;

/// The repeated unit and how often it repeats, when `text` is degenerate.
pub fn degenerate(text: &str) -> Option<(String, usize)> {
    let chars: Vec<char> = text.trim().chars().collect();
    if chars.len() < MIN_LEN {
        return None;
    }
    let mut best: Option<(usize, usize, usize)> = None; // (covered, unit, repeats)
    for unit in 1..=MAX_UNIT {
        let mut i = 0;
        while i + unit <= chars.len() {
            let mut repeats = 1;
            while i + (repeats + 1) * unit <= chars.len()
                && chars[i..i + unit] == chars[i + repeats * unit..i + (repeats + 1) * unit]
            {
                repeats += 1;
            }
            let covered = repeats * unit;
            if repeats >= MIN_REPEATS && best.is_none_or(|(c, _, _)| covered > c) {
                best = Some((covered, unit, repeats));
            }
            i += if repeats > 1 { covered } else { 1 };
        }
    }
    let (covered, unit, repeats) = best?;
    if (covered as f64) < SHARE * chars.len() as f64 {
        return None;
    }
    let start = (0..chars.len())
        .find(|&i| {
            i + unit * repeats <= chars.len()
                && (1..repeats)
                    .all(|k| chars[i..i + unit] == chars[i + k * unit..i + (k + 1) * unit])
        })
        .unwrap_or(0);
    Some((chars[start..start + unit].iter().collect(), repeats))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_repeats_are_degenerate() {
        let zeros = format!("The largest is 1{}", "0".repeat(470));
        assert_eq!(degenerate(&zeros), Some(("0".into(), 470)));
        let pip = "pip_".repeat(40);
        assert_eq!(degenerate(&pip).map(|(u, _)| u), Some("pip_".into()));
        let nushell = format!("ls | {}", "nushell-".repeat(20));
        assert!(degenerate(&nushell).is_some());
    }

    #[test]
    fn ordinary_pipelines_and_answers_are_not() {
        for text in [
            "ls | where size > 1mb | sort-by size --reverse | first 5",
            "The five largest files are a.iso, b.iso, c.zip, d.tar and e.log.",
            "ls **/*.rs | where modified > ((date now) - 1day) | get name",
            "1000000",
            "==========",
            "sys disks | where free < 10gb | select mount free total",
            "| name | size |\n|------|------|\n| a    | 1 MB |",
        ] {
            assert_eq!(degenerate(text), None, "{text}");
        }
    }
}
