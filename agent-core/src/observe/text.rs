//! Text and the head-and-tail ("sandwich") cut shared by every shape.

use super::{Budget, SliceHint, group_digits};

/// Lines always shown, then `count` body lines produced on demand; over
/// budget, the first lines (about two thirds of the room) and the last lines
/// around a marker naming how many were left out.
pub(crate) fn fit_lines(
    fixed: Vec<String>,
    count: usize,
    line_at: &dyn Fn(usize) -> String,
    budget: &Budget,
    marker: &dyn Fn(usize, usize) -> String,
) -> String {
    let fixed_tokens: usize = fixed.iter().map(|l| budget.count(l) + 1).sum();
    let room = budget.max_tokens.saturating_sub(fixed_tokens);

    // Does everything fit? Stop counting as soon as it cannot.
    let mut lines = Vec::new();
    let mut used = 0;
    let mut all_fit = true;
    for i in 0..count {
        let line = line_at(i);
        used += budget.count(&line) + 1;
        if used > room {
            all_fit = false;
            break;
        }
        lines.push(line);
    }
    let mut out = fixed;
    if all_fit {
        out.extend(lines);
        return out.join("\n");
    }

    let marker_room = budget.count(&marker(count, count)) + 1;
    let body_room = room.saturating_sub(marker_room);
    let head_room = body_room * 2 / 3;
    let mut head = Vec::new();
    let mut used = 0;
    for line in lines.into_iter() {
        let cost = budget.count(&line) + 1;
        if used + cost > head_room && !head.is_empty() {
            break;
        }
        used += cost;
        head.push(line);
    }
    let mut tail = Vec::new();
    let mut i = count;
    while i > head.len() + 1 {
        i -= 1;
        let line = line_at(i);
        let cost = budget.count(&line) + 1;
        if used + cost > body_room {
            break;
        }
        used += cost;
        tail.push(line);
    }
    tail.reverse();
    let omitted = count - head.len() - tail.len();
    let head_len = head.len();
    out.extend(head);
    if omitted > 0 {
        out.push(marker(head_len, omitted));
    }
    out.extend(tail);
    out.join("\n")
}

/// A string: whole when it fits, else head and tail lines (or characters,
/// for one long line) around a marker.
pub(crate) fn render_text(text: &str, budget: &Budget, slice: &SliceHint) -> String {
    if budget.count(text) <= budget.max_tokens {
        return text.to_string();
    }
    let target = slice.target();
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() > 8 {
        let line_at = |i: usize| lines[i].to_string();
        let marker = |head: usize, omitted: usize| {
            format!(
                "… {} lines omitted — slice {target} | lines | skip {head} | first 40 …",
                group_digits(omitted)
            )
        };
        return fit_lines(Vec::new(), lines.len(), &line_at, budget, &marker);
    }
    // Few, long lines: cut by characters in proportion to the budget.
    let chars: Vec<char> = text.chars().collect();
    let tokens = budget.count(text).max(1);
    // In u128: a long text times a large budget must not overflow.
    let keep_chars = (chars.len() as u128 * budget.max_tokens.saturating_sub(30) as u128
        / tokens as u128) as usize;
    let head_chars = keep_chars * 2 / 3;
    let tail_chars = keep_chars - head_chars;
    let head: String = chars[..head_chars].iter().collect();
    let tail: String = chars[chars.len() - tail_chars..].iter().collect();
    let omitted = chars.len() - head_chars - tail_chars;
    format!(
        "{head}\n… {} chars omitted — slice {target} | str substring {head_chars}..{} …\n{tail}",
        group_digits(omitted),
        head_chars + omitted - 1
    )
}
