//! Keeping a conversation inside the model's context: older observations
//! are shortened to their first line (which names their `$out.N`), then the
//! longest older messages are cut in the middle — always with a notice the
//! user sees. The system prompt, the tools and the latest exchange are never
//! cut.

use crate::{
    llm::{Message, Role},
    observe::{ApproxTokenCounter, TokenCounter},
};

/// Tokens a message costs beyond its text (role markers, call framing).
const MESSAGE_OVERHEAD: usize = 8;
/// Messages at the end that are never shortened: the last call, its
/// result, and the one before.
const KEEP_LAST: usize = 3;
/// What a shortened observation says after its first line.
const DROPPED: &str = "[the rest was dropped to fit the context; the full value is kept]";

/// The estimated prompt tokens of `messages`.
pub fn estimate(messages: &[Message]) -> usize {
    messages.iter().map(message_tokens).sum()
}

fn message_tokens(message: &Message) -> usize {
    let calls: usize = message
        .tool_calls
        .iter()
        .map(|call| {
            let arguments = serde_json::Value::Object(call.arguments.clone()).to_string();
            ApproxTokenCounter.count(&call.name) + ApproxTokenCounter.count(&arguments)
        })
        .sum();
    ApproxTokenCounter.count(&message.content) + calls + MESSAGE_OVERHEAD
}

/// Shorten older messages until `messages` fit in `limit` tokens. Returns
/// the notice to show, or `None` when nothing changed. The first message
/// (the system prompt) and the last [`KEEP_LAST`] are never touched; when
/// even the shortened conversation does not fit, the notice says so and the
/// backend reports the context error.
pub fn fit(messages: &mut [Message], limit: usize) -> Option<String> {
    let before = estimate(messages);
    if before <= limit {
        return None;
    }
    let mut total = before;
    let protected_from = messages.len().saturating_sub(KEEP_LAST).max(1);
    let mut shortened = 0;
    // 1. Observations, oldest first, down to their first line.
    for message in messages.iter_mut().take(protected_from).skip(1) {
        if total <= limit {
            break;
        }
        if message.role != Role::Tool || message.content.ends_with(DROPPED) {
            continue;
        }
        let first = message.content.lines().next().unwrap_or("").to_string();
        let cost = message_tokens(message);
        message.content = format!("{first}\n{DROPPED}");
        total = total.saturating_sub(cost) + message_tokens(message);
        shortened += 1;
    }
    // 2. The longest older texts (piped input, long answers), cut in the
    //    middle. Only a message's text is cut (its tool calls stay as they
    //    were made), and a cut that saves nothing ends it.
    while total > limit {
        let Some((index, cost)) = messages
            .iter()
            .enumerate()
            .take(protected_from)
            .skip(1)
            .map(|(i, m)| (i, ApproxTokenCounter.count(&m.content)))
            .filter(|(_, cost)| *cost > 64)
            .max_by_key(|(_, cost)| *cost)
        else {
            break;
        };
        let over = total - limit;
        let message_cost = message_tokens(&messages[index]);
        let keep_chars = message_chars_to_keep(&messages[index].content, cost, over);
        messages[index].content = cut_middle(&messages[index].content, keep_chars);
        let now = total.saturating_sub(message_cost) + message_tokens(&messages[index]);
        shortened += 1;
        if now >= total {
            total = now;
            break;
        }
        total = now;
    }
    let after = total;
    let mut notice = format!(
        "the conversation outgrew the model's context: {shortened} older message{} shortened (about {} → {} tokens of {limit})",
        if shortened == 1 { "" } else { "s" },
        group(before),
        group(after),
    );
    if after > limit {
        notice.push_str("; the latest messages alone are too long");
    }
    Some(notice)
}

/// How many characters of `text` (costing `cost` tokens) to keep so that
/// about `over` tokens go.
fn message_chars_to_keep(text: &str, cost: usize, over: usize) -> usize {
    let chars = text.chars().count();
    let keep_share = cost.saturating_sub(over + 32) as f64 / cost.max(1) as f64;
    ((chars as f64 * keep_share) as usize).min(chars.saturating_sub(1))
}

/// `text` with its middle replaced by a marker, keeping `keep` characters.
fn cut_middle(text: &str, keep: usize) -> String {
    let chars: Vec<char> = text.chars().collect();
    let head = keep / 2;
    let tail = keep - head;
    let dropped = chars.len().saturating_sub(keep);
    format!(
        "{}\n[… {dropped} characters dropped to fit the context …]\n{}",
        chars[..head.min(chars.len())].iter().collect::<String>(),
        chars[chars.len().saturating_sub(tail)..]
            .iter()
            .collect::<String>()
    )
}

fn group(n: usize) -> String {
    crate::observe::group_digits(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn observation(n: usize, rows: usize) -> Message {
        let body: Vec<String> = (0..rows).map(|i| format!("file{i}.txt | 4.1kB")).collect();
        Message::tool(
            format!("call_{n}"),
            format!("$out.{n}\n{}", body.join("\n")),
        )
    }

    #[test]
    fn messages_whose_tokens_are_in_their_calls_end_the_shortening() {
        use crate::llm::ToolCall;
        let call = |n: usize| ToolCall {
            id: format!("call_{n}"),
            name: "nu".into(),
            arguments: serde_json::json!({"pipeline": "ls | ".repeat(300)})
                .as_object()
                .cloned()
                .unwrap_or_default(),
        };
        let mut messages = vec![Message::system("system prompt"), Message::user("task")];
        for n in 0..6 {
            messages.push(Message::assistant("x ".repeat(40), vec![call(n)]));
            messages.push(Message::tool(format!("call_{n}"), "$out.0\n3"));
        }
        // Far under what the calls alone cost: it must end, saying so.
        let notice = fit(&mut messages, 100).expect("a notice");
        assert!(notice.contains("too long"), "{notice}");
    }

    #[test]
    fn fits_by_shortening_old_observations_first() {
        let mut messages = vec![Message::system("system prompt"), Message::user("task")];
        for n in 0..6 {
            messages.push(Message::assistant("", Vec::new()));
            messages.push(observation(n, 200));
        }
        let system = messages[0].clone();
        let last = messages.last().cloned();
        let limit = estimate(&messages) / 2;
        let notice = fit(&mut messages, limit).expect("a notice");
        assert!(notice.contains("shortened"), "{notice}");
        assert!(estimate(&messages) <= limit);
        assert_eq!(messages[0], system);
        assert_eq!(messages.last().cloned(), last);
        assert!(
            messages[3]
                .content
                .starts_with("$out.0\n[the rest was dropped")
        );
    }

    #[test]
    fn nothing_changes_within_the_limit() {
        let mut messages = vec![Message::system("s"), Message::user("u")];
        assert_eq!(fit(&mut messages, 1_000), None);
    }

    #[test]
    fn long_piped_input_is_cut_in_the_middle() {
        let log = "line of a long build log\n".repeat(2_000);
        let mut messages = vec![
            Message::system("s"),
            Message::user(log),
            Message::assistant("", Vec::new()),
            Message::tool("c", "$out.0\nok"),
            Message::user("and now?"),
        ];
        let notice = fit(&mut messages, 2_000).expect("a notice");
        assert!(estimate(&messages) <= 2_000, "{notice}");
        assert!(
            messages[1]
                .content
                .contains("characters dropped to fit the context")
        );
        assert!(messages[1].content.starts_with("line of a long build log"));
    }

    #[test]
    fn says_so_when_the_latest_messages_alone_are_too_long() {
        let mut messages = vec![Message::system("s"), Message::user("x ".repeat(5_000))];
        let notice = fit(&mut messages, 100).expect("a notice");
        assert!(notice.contains("too long"), "{notice}");
        assert_eq!(messages[1].content, "x ".repeat(5_000));
    }
}
