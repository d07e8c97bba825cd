//! The checks an answer passes before it reaches the user (the
//! `answer-checks` lever): it must not say back a message the model was
//! sent, claim a change no step made, leave out what the policy stopped,
//! state facts no result shows, or give nothing. A check that fails sends
//! the answer back once ([`AnswerVerdict::AskAgain`]); with no turn left, or
//! after it was sent back already, the steps' own outcome is the answer
//! ([`AnswerVerdict::Outcome`]). The first check in [`ANSWER_CHECKS`] that
//! speaks decides.
//!
//! A check reads the answer ([`Said`]) and what the steps did and the
//! model was told ([`Record`]); the record holds the conversation itself,
//! so a check's examples run through the same code as the loop's.

use super::super::levers::Lever;
use super::super::{
    echo, engine_docs, grounding,
    prompt::{self, PromptKind},
    tools::{ANSWER_TOOL, HELP_TOOL, NU_TOOL, tool_defs},
};
use super::{Example, Kind, Rule, becomes, leaves};
use crate::llm::{Message, Role};

/// The shortest reply taken as an echo of a message it equals (a short
/// answer may well be a word the user said)…
const ECHO_MIN_CHARS: usize = 12;
/// …and of a longer message it starts.
const ECHO_PREFIX_MIN_CHARS: usize = 40;

/// How each message sending an answer back begins.
pub const NOT_ANSWERED: &str = "Not answered yet:";

/// What the model is told when its answer announces something it does
/// not give.
const HOLLOW_ANSWER: &str = "Not answered yet: your answer ends with a colon and gives nothing after it. Answer with the result itself, or pass `out` to return a `$out.N`.";

/// What the model is told when its answer leaves out that the policy
/// stopped a step: the user must learn what was not done.
const STOP_UNSAID: &str = "Not answered yet: the policy stopped a step of this request (blocked, or not approved), and your answer does not say so. Answer again: what you did not do, and why.";

/// Phrases only the loop's own messages use (corrections, lookups,
/// unknown names): an answer containing one repeats a message, whatever
/// words it puts around it.
const HARNESS_PHRASES: &[&str] = &[
    "is not a Nushell command",
    "The request asks",
    "the rows themselves were asked for",
    "Close ones:",
    "There is no $out.",
    "Not answered yet:",
    "Answer again with",
    "You made this same call",
    "Fix the pipeline and call `nu` again",
    "this same pipeline failed at step",
    "Call `answer` now",
    "a message you were sent",
    "nu::shell::",
    "nu::parser::",
    "do not retry it",
    "This is the last step",
];

/// The answer a check looks at.
#[derive(Clone, Copy, Debug)]
pub struct Said<'a> {
    pub text: &'a str,
    /// It came with the `answer` tool; otherwise it is a reply that made
    /// no call at all (its text is the answer).
    pub by_tool: bool,
    /// It names a `$out` to return.
    pub names_out: bool,
    /// The `$out` it names exists.
    pub out_exists: bool,
}

impl Said<'_> {
    /// The word the loop's notes use for it.
    fn what(&self) -> &'static str {
        if self.by_tool { "answer" } else { "reply" }
    }
}

/// What the steps of the request did and what the model was told, as the
/// answer checks read it.
#[derive(Clone, Copy, Debug)]
pub struct Record<'a> {
    /// The conversation, the answer's own turn last.
    pub messages: &'a [Message],
    /// What the loop told the model in its own words.
    pub instructions: &'a [String],
    /// The request as the user wrote it.
    pub request: &'a str,
    pub kind: PromptKind,
    /// This turn is the last one.
    pub last_step: bool,
    /// This turn offered only `answer`.
    pub answer_only: bool,
    /// A step of this request ran to its end.
    pub has_data: bool,
    /// Steps the policy stopped in this request.
    pub stops: usize,
    /// What the last stopped step was told (its first line).
    pub last_stop: Option<&'a str>,
    /// The last step gave a result.
    pub last_result: bool,
    /// That result is a table (an answer right after it returns it).
    pub last_is_table: bool,
    /// Some result exists in this conversation (`$out.0`).
    pub any_result: bool,
    /// A step that may change something ran in this conversation.
    pub may_have_changed: bool,
    /// The checks that sent an answer back already in this request.
    pub asked: &'a [&'static str],
}

impl Record<'_> {
    fn task(&self) -> bool {
        self.kind == PromptKind::Task
    }

    fn asked(&self, check: &str) -> bool {
        self.asked.contains(&check)
    }

    /// Whether `text` repeats a message the model was sent (the request, a
    /// result, a correction) rather than answering: a small model told
    /// "You made this same call…" may say it back as its answer. An
    /// answer `with_data` (a table returned with it) may be the request in
    /// fewer words: it heads the table.
    pub fn echoes_a_message(&self, text: &str, with_data: bool) -> bool {
        let said = normalize(text);
        // The request alone, as the user wrote it (its message may carry
        // the loop's notes after it).
        let request_again = said.len() >= ECHO_MIN_CHARS && normalize(self.request) == said;
        if request_again
            || HARNESS_PHRASES.iter().any(|phrase| said.contains(phrase))
            || prompt::is_example_answer(text)
            || echo::is_shape_line(text)
            || (!with_data && echo::restates(text, self.request))
        {
            return true;
        }
        // Words of a tool's own description ("answer the user. Set out to
        // N to return $out.N as data.").
        let describes_a_tool = said.len() >= ECHO_PREFIX_MIN_CHARS
            && tool_defs(self.kind)
                .iter()
                .any(|tool| normalize(&tool.description).contains(&said));
        if describes_a_tool {
            return true;
        }
        self.messages
            .iter()
            .filter(|m| matches!(m.role, Role::User | Role::Tool))
            .any(|m| {
                let sent = normalize(&m.content);
                (said.len() >= ECHO_MIN_CHARS && sent == said)
                    || (said.len() >= ECHO_PREFIX_MIN_CHARS && sent.starts_with(&said))
                    // Words of the loop's own instructions ("… what you
                    // found, or what you could not do and why."); a result
                    // may be quoted.
                    || (m.role == Role::User
                        && said.len() >= ECHO_PREFIX_MIN_CHARS
                        && sent.contains(&said))
                    // The loop's notes on a result, said back in other
                    // punctuation ("No shell to exit. A task ends with
                    // answer: …").
                    || (m.role == Role::Tool
                        && (echo::repeats_words(text, echo::loop_notes(&m.content))
                            || echo::is_quoted_code(text, echo::loop_notes(&m.content))))
            })
            || self
                .instructions
                .iter()
                .any(|told| echo::repeats_words(text, told))
    }

    /// Facts of `answer` that no message of the conversation holds (the
    /// machine's facts in the system prompt, the results, the requests,
    /// the pipelines written).
    pub fn ungrounded(&self, answer: &str, numbers_too: bool) -> Vec<String> {
        // Not the turn that answers, nor the model's own earlier answers
        // and text, nor the loop's messages sending an answer back (they
        // quote it): a fact made up and said again would ground itself.
        let before = &self.messages[..self.messages.len().saturating_sub(1)];
        let mut sources: Vec<&str> = before
            .iter()
            .filter(|m| m.role != Role::Assistant && !m.content.starts_with(NOT_ANSWERED))
            // A value in an example of the engine's help is not a fact here.
            .map(|m| {
                m.content
                    .split(engine_docs::HEADING)
                    .next()
                    .unwrap_or_default()
            })
            .collect();
        let calls: Vec<String> = before
            .iter()
            .flat_map(|m| &m.tool_calls)
            .filter(|call| call.name != ANSWER_TOOL)
            .map(|call| serde_json::Value::Object(call.arguments.clone()).to_string())
            .collect();
        sources.extend(calls.iter().map(String::as_str));
        grounding::ungrounded(answer, &sources, numbers_too)
    }
}

/// What a check decided of an answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AnswerVerdict {
    /// Sent back: the model is `told` why, and the event says `repair`.
    /// With `must_run`, the next turn offers only `nu`.
    AskAgain {
        told: String,
        repair: String,
        must_run: bool,
    },
    /// The steps' own outcome is the answer (the event says `repair`).
    Outcome { repair: String },
    /// The answer goes out as `text` (something said after it).
    Amended { text: String, repair: String },
}

impl AnswerVerdict {
    fn ask(told: impl Into<String>, repair: impl Into<String>) -> AnswerVerdict {
        AnswerVerdict::AskAgain {
            told: told.into(),
            repair: repair.into(),
            must_run: false,
        }
    }

    fn outcome(repair: impl Into<String>) -> AnswerVerdict {
        AnswerVerdict::Outcome {
            repair: repair.into(),
        }
    }

    /// The verdict's kind, as an example names it: `asked again`, `the
    /// steps' outcome`, or the amended text.
    #[cfg(test)]
    pub fn as_example(&self) -> String {
        match self {
            AnswerVerdict::AskAgain { .. } => ASKED_AGAIN.to_string(),
            AnswerVerdict::Outcome { .. } => THE_OUTCOME.to_string(),
            AnswerVerdict::Amended { text, .. } => text.clone(),
        }
    }
}

/// An example's word for [`AnswerVerdict::AskAgain`].
const ASKED_AGAIN: &str = "asked again";
/// An example's word for [`AnswerVerdict::Outcome`].
const THE_OUTCOME: &str = "the steps' outcome";

/// The scene a check's examples are judged in: the request, the results
/// the model was shown, and how the request stands.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(
    not(test),
    expect(
        dead_code,
        reason = "read by the test that judges each check's examples"
    )
)]
pub struct Scene {
    pub request: &'static str,
    /// The results shown, one tool message each.
    pub results: &'static [&'static str],
    pub last_step: bool,
    pub stops: usize,
    pub may_have_changed: bool,
    /// The checks that sent an answer back already.
    pub asked: &'static [&'static str],
}

/// A check of an answer before it reaches the user.
pub struct AnswerCheck {
    pub rule: Rule,
    /// Where its examples hold.
    #[cfg_attr(
        not(test),
        expect(
            dead_code,
            reason = "read by the test that judges each check's examples"
        )
    )]
    pub scene: Scene,
    /// The verdict on `said`, given `record`; `None`: the check passes it.
    pub check: fn(&Said<'_>, &Record<'_>) -> Option<AnswerVerdict>,
}

const fn check(
    name: &'static str,
    serves: &'static str,
    examples: &'static [Example],
    scene: Scene,
    check: fn(&Said<'_>, &Record<'_>) -> Option<AnswerVerdict>,
) -> AnswerCheck {
    AnswerCheck {
        rule: Rule::of(
            Kind::AnswerCheck,
            Lever::AnswerChecks,
            name,
            serves,
            examples,
        ),
        scene,
        check,
    }
}

/// A scene after one listing, nothing asked yet, turns left.
const AFTER_A_LISTING: Scene = Scene {
    request: "which files here are the largest?",
    results: &[
        "╭─name─────┬─size──╮\n│ big.iso  │ 700 MB │\n│ notes.md │ 2 kB   │\n╰──────────┴───────╯",
    ],
    last_step: false,
    stops: 0,
    may_have_changed: false,
    asked: &[],
};

/// A scene where the policy blocked the only step.
const AFTER_A_BLOCK: Scene = Scene {
    request: "delete the old logs",
    results: &[],
    last_step: false,
    stops: 1,
    may_have_changed: false,
    asked: &[],
};

/// The checks, in the order they look at an answer.
pub static ANSWER_CHECKS: &[AnswerCheck] = &[
    check(
        "echo-with-no-turn-left",
        "a small model sent back for echoing a message echoes again: on the last turn, after it was told once, or after a stop, the steps' own outcome is the answer",
        &[
            becomes("which files here are the largest?", THE_OUTCOME),
            leaves("big.iso is the largest file, 700 MB."),
        ],
        Scene {
            last_step: true,
            ..AFTER_A_LISTING
        },
        |said, record| {
            let again = said.by_tool
                && (record.asked(ECHO) || (record.last_stop.is_some() && !record.last_result));
            ((record.last_step || again) && echoes(said, record)).then(|| {
                let how = if said.by_tool && record.asked(ECHO) {
                    "repeated a message again"
                } else {
                    "repeated a message it was sent"
                };
                AnswerVerdict::outcome(format!(
                    "the {} {how}; the steps' own outcome is the answer",
                    said.what()
                ))
            })
        },
    ),
    check(
        ECHO,
        "a small model says back the request, a result or the loop's own note as its answer",
        &[
            becomes("which files here are the largest?", ASKED_AGAIN),
            becomes("You made this same call at step 1", ASKED_AGAIN),
            leaves("big.iso is the largest file, 700 MB."),
        ],
        AFTER_A_LISTING,
        |said, record| {
            ((!said.by_tool || !record.asked(ECHO)) && echoes(said, record)).then(|| {
                let told = if said.by_tool {
                    "Not answered yet: that text is a message you were sent, not an answer. Answer with what the results show."
                } else {
                    "That is a message you were sent, not an answer. Call `answer` with what the results show, or run a pipeline that finds it."
                };
                AnswerVerdict::ask(
                    told,
                    format!("the {} repeated a message it was sent; asked again", said.what()),
                )
            })
        },
    ),
    check(
        "change-no-step-made",
        "a small model says it added, deleted or saved after steps that only read",
        &[
            becomes("I deleted the old logs.", ASKED_AGAIN),
            leaves("big.iso is the largest file, 700 MB."),
        ],
        AFTER_A_LISTING,
        |said, record| {
            if !said.by_tool
                || record.asked(CHANGE_NO_STEP_MADE)
                || record.last_step
                || !record.task()
                || record.may_have_changed
            {
                return None;
            }
            let verb = grounding::claimed_change(said.text)?;
            Some(AnswerVerdict::ask(
                format!(
                    "Not answered yet: your answer says `{verb}`, but no step that changes anything ran in this request (those that tried were blocked, denied or failed, or changed no file; a file is written with `save -f file`). Do it now, or answer with what you did and did not do, and why."
                ),
                format!("the answer says `{verb}` though no step changed anything; asked to check"),
            ))
        },
    ),
    check(
        "stop-unsaid",
        "the user must learn what the policy stopped; a small model answers as if the step ran",
        &[
            becomes("The logs are gone.", ASKED_AGAIN),
            leaves("I did not delete them: the policy blocked it."),
        ],
        AFTER_A_BLOCK,
        |said, record| {
            (said.by_tool
                && !record.asked(STOP_UNSAID_CHECK)
                && record.stops > 0
                && !record.last_step
                && record.task()
                && !grounding::says_not_done(said.text))
            .then(|| {
                AnswerVerdict::ask(
                    STOP_UNSAID,
                    "the answer does not say what the policy stopped; asked again",
                )
            })
        },
    ),
    check(
        UNGROUNDED,
        "a small model with no data answers from imagination: figures, hashes, addresses, ports no result shows",
        &[
            becomes(
                "big.iso was last changed in commit 9f8e7d6c5b.",
                ASKED_AGAIN,
            ),
            leaves("big.iso is the largest file, 700 MB."),
        ],
        AFTER_A_LISTING,
        |said, record| {
            if !said.by_tool || record.asked(UNGROUNDED) || record.answer_only || !record.task() {
                return None;
            }
            let facts = record.ungrounded(said.text, !record.has_data);
            if facts.is_empty() {
                return None;
            }
            let facts = facts.join(", ");
            Some(if !record.has_data && record.stops == 0 {
                AnswerVerdict::AskAgain {
                    told: format!(
                        "Not answered yet: your answer states {facts}, but no step has shown anything yet. Run a pipeline that finds it."
                    ),
                    repair: format!(
                        "the answer states {facts} before any step gave data; the next turn runs a step"
                    ),
                    must_run: true,
                }
            } else {
                AnswerVerdict::ask(
                    format!(
                        "Not answered yet: your answer states {facts} but no result shows that. Run a pipeline that finds it, then answer; or answer with only what the results show."
                    ),
                    format!("the answer states {facts} that no result shows; asked to check"),
                )
            })
        },
    ),
    check(
        "ungrounded-again",
        "sent back once for an identifier no result shows, a small model says it again: the steps' own outcome is the answer",
        &[
            becomes("The commit is 1a2b3c4d5e.", THE_OUTCOME),
            leaves("big.iso is the largest file, 700 MB."),
        ],
        Scene {
            asked: &[UNGROUNDED],
            ..AFTER_A_LISTING
        },
        |said, record| {
            if !said.by_tool || !record.asked(UNGROUNDED) || !record.has_data || !record.task() {
                return None;
            }
            let facts = record.ungrounded(said.text, false);
            (!facts.is_empty()).then(|| {
                AnswerVerdict::outcome(format!(
                    "the answer states {} again, which no result shows; the steps' own outcome is the answer",
                    facts.join(", ")
                ))
            })
        },
    ),
    check(
        "hollow",
        "a small model announces an answer and gives nothing after the colon, or answers with a tool's name",
        &[
            becomes("The largest files are:", ASKED_AGAIN),
            becomes("answer", ASKED_AGAIN),
            leaves("big.iso is the largest file, 700 MB."),
        ],
        Scene {
            results: &["3"],
            ..AFTER_A_LISTING
        },
        |said, record| {
            let returns_nothing = !said.by_tool || !said.names_out || !said.out_exists;
            if !hollow_answer(said.text) || !returns_nothing || record.last_is_table {
                return None;
            }
            Some(if record.last_step {
                AnswerVerdict::outcome(
                    "an answer that gives nothing (nothing after its colon, or only a tool's name) on the last step; the steps' own outcome is the answer",
                )
            } else {
                let (told, repair) = hollow_answer_repair(said.text);
                AnswerVerdict::ask(told, repair)
            })
        },
    ),
    check(
        "contradicts-the-steps",
        "with no turn left to send it back, an answer claiming a change no step made, or facts no result shows, is replaced by the steps' own account",
        &[
            becomes("I deleted the old logs.", THE_OUTCOME),
            leaves("I did not delete them: the policy blocked it."),
        ],
        Scene {
            last_step: true,
            ..AFTER_A_BLOCK
        },
        |said, record| {
            if !said.by_tool || !record.answer_only || !record.task() {
                return None;
            }
            let claims_change = grounding::claimed_change(said.text).is_some();
            let stop_unsaid = record.stops > 0
                && !grounding::says_not_done(said.text)
                && (claims_change || !record.any_result);
            let contradicts = stop_unsaid
                || (!record.may_have_changed && claims_change)
                || !record.ungrounded(said.text, !record.has_data).is_empty();
            contradicts.then(|| {
                AnswerVerdict::outcome(
                    "the last answer contradicts the steps; the steps' own outcome is the answer",
                )
            })
        },
    ),
    check(
        "stop-said-after",
        "a last answer that keeps what a step found but leaves out what the policy stopped gets the stop said after it",
        &[
            becomes(
                "big.iso is the largest file.",
                "big.iso is the largest file.\nNot done: the policy stopped a step (Blocked: rm).",
            ),
            leaves("big.iso is the largest; deleting it was not allowed."),
        ],
        Scene {
            last_step: true,
            stops: 1,
            ..AFTER_A_LISTING
        },
        |said, record| {
            let stopped = record.last_stop?;
            (said.by_tool
                && record.answer_only
                && record.stops > 0
                && record.any_result
                && record.task()
                && !grounding::says_not_done(said.text))
            .then(|| AnswerVerdict::Amended {
                text: match said.text.trim_end() {
                    "" => format!("I did not do it: the policy stopped the step ({stopped})."),
                    text => format!("{text}\nNot done: the policy stopped a step ({stopped})."),
                },
                repair: "the last answer leaves out what the policy stopped; it is said after the answer".into(),
            })
        },
    ),
];

const ECHO: &str = "echo";
const CHANGE_NO_STEP_MADE: &str = "change-no-step-made";
const STOP_UNSAID_CHECK: &str = "stop-unsaid";
const UNGROUNDED: &str = "ungrounded";

/// The verdict of the first check `on` (those `levers` leave on) that
/// speaks of `said`, with the check's name.
pub fn verdict(
    said: &Said<'_>,
    record: &Record<'_>,
    levers: &super::Levers,
) -> Option<(&'static str, AnswerVerdict)> {
    ANSWER_CHECKS
        .iter()
        .filter(|check| check.rule.on(levers))
        .find_map(|check| Some((check.rule.name, (check.check)(said, record)?)))
}

fn echoes(said: &Said<'_>, record: &Record<'_>) -> bool {
    let with_data = (said.by_tool && said.names_out) || record.last_is_table;
    record.echoes_a_message(said.text, with_data)
}

/// An answer with no content: empty, an introduction (`The answer is:`)
/// to something it does not give, or only the name of a tool (`answer`).
pub fn hollow_answer(text: &str) -> bool {
    let text = text.trim();
    text.is_empty() || text.ends_with(':') || tool_named(text).is_some()
}

/// The tool `text` names and nothing else (backticks and a full stop
/// aside), as the agent's tools spell it: a tiny model calls `answer`
/// with the text `answer`.
fn tool_named(text: &str) -> Option<&'static str> {
    let bare = text.trim_matches(|c: char| c == '`' || c == '.' || c.is_whitespace());
    [NU_TOOL, ANSWER_TOOL, HELP_TOOL]
        .into_iter()
        .find(|tool| bare.eq_ignore_ascii_case(tool))
}

/// What the model is told of its hollow answer `text`, and what the
/// repair says: the colon with nothing after it, or a tool's name.
fn hollow_answer_repair(text: &str) -> (String, &'static str) {
    if let Some(tool) = tool_named(text) {
        (
            format!(
                "{NOT_ANSWERED} `{tool}` is the name of a tool, not an answer. Call `answer` with what the results show, or run a pipeline that finds it."
            ),
            "an answer that is only a tool's name; asked again",
        )
    } else {
        (
            HOLLOW_ANSWER.to_string(),
            "an answer with nothing after its colon; asked again",
        )
    }
}

/// `text` with runs of whitespace as one space, trimmed.
pub fn normalize(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The record of `scene`, its conversation in `messages` (the request,
    /// each result, then the answer's own turn).
    fn record<'a>(scene: &Scene, messages: &'a [Message]) -> Record<'a> {
        Record {
            messages,
            instructions: &[],
            request: scene.request,
            kind: PromptKind::Task,
            last_step: scene.last_step,
            answer_only: scene.last_step || scene.stops > 0,
            has_data: !scene.results.is_empty(),
            stops: scene.stops,
            last_stop: (scene.stops > 0).then_some("Blocked: rm"),
            last_result: !scene.results.is_empty(),
            last_is_table: false,
            any_result: !scene.results.is_empty(),
            may_have_changed: scene.may_have_changed,
            asked: scene.asked,
        }
    }

    #[test]
    fn each_answer_check_gives_its_examples() {
        for check in ANSWER_CHECKS {
            let scene = &check.scene;
            for example in check.rule.examples {
                let mut messages = vec![Message::user(scene.request)];
                messages.extend(
                    scene
                        .results
                        .iter()
                        .enumerate()
                        .map(|(n, result)| Message::tool(format!("call-{n}"), *result)),
                );
                messages.push(Message::assistant(example.given, Vec::new()));
                let said = Said {
                    text: example.given,
                    by_tool: true,
                    names_out: false,
                    out_exists: false,
                };
                let gives = (check.check)(&said, &record(scene, &messages));
                assert_eq!(
                    gives.as_ref().map(AnswerVerdict::as_example).as_deref(),
                    example.gives,
                    "{}: {}",
                    check.rule.name,
                    example.given
                );
            }
        }
    }

    #[test]
    fn a_reply_without_a_call_is_sent_back_for_an_echo_every_time() {
        let scene = Scene {
            asked: &[ECHO],
            ..AFTER_A_LISTING
        };
        let messages = [
            Message::user(scene.request),
            Message::assistant(scene.request, Vec::new()),
        ];
        let record = record(&scene, &messages);
        let reply = Said {
            text: scene.request,
            by_tool: false,
            names_out: false,
            out_exists: false,
        };
        let answer = Said {
            by_tool: true,
            ..reply
        };
        let levers = super::super::Levers::default();
        assert_eq!(
            verdict(&reply, &record, &levers).map(|(name, _)| name),
            Some(ECHO)
        );
        assert_eq!(
            verdict(&answer, &record, &levers).map(|(name, _)| name),
            Some("echo-with-no-turn-left")
        );
    }
}
