//! A guard against a small model's loops: once the text generated so far
//! ends in a short unit repeated many times (`0000…`, `pip_pip_pip_…`),
//! the sampler's choice is not allowed to continue the loop and the best
//! token it kept that breaks it is taken instead.
//!
//! It acts only on such a tail, so ordinary output (and therefore greedy
//! decoding with or without the KV cache reused) is exactly what the model
//! would produce without it.

/// Longest repeated unit looked for, in characters.
const MAX_PERIOD: usize = 16;
/// A loop must cover this many characters of the tail (fewer than the
/// agent's degenerate-output check needs, so a guarded reply stops short
/// of being one)…
const MIN_SPAN: usize = 16;
/// …and repeat its unit at least this many times.
const MIN_REPEATS: usize = 4;
/// How much of the tail is kept (enough for the longest span looked for).
const KEEP: usize = 4 * MAX_PERIOD * MIN_REPEATS;
/// How many of the sampler's candidates are tried, best first, for one
/// that breaks the loop.
pub(super) const MAX_ALTERNATIVES: usize = 64;

/// The tail of a turn's generated text, as characters.
#[derive(Debug, Default)]
pub(super) struct LoopGuard {
    tail: Vec<char>,
}

impl LoopGuard {
    /// Add a generated piece (lossy UTF-8: a split character only blurs
    /// the tail for a moment).
    pub(super) fn push(&mut self, piece: &[u8]) {
        self.tail.extend(String::from_utf8_lossy(piece).chars());
        if self.tail.len() > 2 * KEEP {
            self.tail.drain(..self.tail.len() - KEEP);
        }
    }

    /// The period of the loop the tail ends in, if it ends in one.
    pub(super) fn looping(&self) -> Option<usize> {
        let n = self.tail.len();
        (1..=MAX_PERIOD).find(|&period| {
            let span = MIN_SPAN.max(period * MIN_REPEATS);
            span <= n && (n - span + period..n).all(|i| self.tail[i] == self.tail[i - period])
        })
    }

    /// Whether appending `piece` would carry a loop of `period` on: every
    /// character it adds repeats the one `period` places before it.
    pub(super) fn continues(&self, period: usize, piece: &[u8]) -> bool {
        let added: Vec<char> = String::from_utf8_lossy(piece).chars().collect();
        if added.is_empty() {
            return true;
        }
        let n = self.tail.len();
        added.iter().enumerate().all(|(j, c)| {
            let back = n + j - period;
            let earlier = if back < n {
                self.tail[back]
            } else {
                added[back - n]
            };
            *c == earlier
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard(text: &str) -> LoopGuard {
        let mut guard = LoopGuard::default();
        guard.push(text.as_bytes());
        guard
    }

    #[test]
    fn a_long_repeated_unit_is_a_loop() {
        assert_eq!(
            guard(&format!("ls /tmp/1{}", "0".repeat(16))).looping(),
            Some(1)
        );
        assert_eq!(guard(&"pip_".repeat(4)).looping(), Some(4));
        assert_eq!(guard(&"nushell-".repeat(5)).looping(), Some(8));
    }

    #[test]
    fn ordinary_text_is_not() {
        for text in [
            "ls | where size > 1mb | sort-by size --reverse | first 5",
            "1..2000000 | each {|i| $i} | length",
            "echo '==============='",
            "ls ../../../../docs",
            "The five largest files are a.iso, b.iso, c.zip, d.tar and e.log.",
            "",
            "aaaa",
        ] {
            assert_eq!(guard(text).looping(), None, "{text}");
        }
    }

    #[test]
    fn a_piece_that_repeats_the_unit_continues_and_one_that_leaves_does_not() {
        let zeros = guard(&"0".repeat(40));
        assert!(zeros.continues(1, b"0"));
        assert!(zeros.continues(1, b"000"));
        assert!(!zeros.continues(1, b"\""));
        assert!(!zeros.continues(1, b"00\""));
        let pip = guard(&"pip_".repeat(10));
        assert!(pip.continues(4, b"pip"));
        assert!(!pip.continues(4, b"_"));
        assert!(!pip.continues(4, b" "));
        // An empty piece does not break anything.
        assert!(pip.continues(4, b""));
    }

    #[test]
    fn the_tail_stays_short() {
        let mut guard = LoopGuard::default();
        for _ in 0..10_000 {
            guard.push(b"ab");
        }
        assert!(guard.tail.len() <= 2 * KEEP);
        assert_eq!(guard.looping(), Some(2));
    }
}
