//! Tool-call parsing under random input: never a panic, every call it
//! returns is valid for the tools offered, and a well-formed call anywhere
//! in ordinary text is found.
//!
//! `NU_AGENT_FUZZ_CASES` sets the number of inputs per property (default
//! 20,000, so the suite stays quick); a million per property:
//! `NU_AGENT_FUZZ_CASES=1000000 cargo test --release -p agent-core --test toolcall_fuzz`.

use agent_core::llm::{Reply, ToolSchema, parse_reply};
use proptest::prelude::*;

fn tools() -> Vec<ToolSchema> {
    vec![
        ToolSchema::new("nu", &["pipeline"]),
        ToolSchema::new("help", &["command"]),
        ToolSchema::new("answer", &["text"]),
    ]
}

fn cases() -> u32 {
    std::env::var("NU_AGENT_FUZZ_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(20_000)
}

/// Every call is for an offered tool and carries its required arguments.
fn valid(reply: &Reply) -> bool {
    let tools = tools();
    reply.calls.iter().all(|call| {
        tools.iter().any(|t| {
            t.name == call.name && t.required.iter().all(|r| call.arguments.contains_key(r))
        })
    })
}

/// Text built from the pieces calls are made of, in random order.
fn call_shaped_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("<tool_call>".to_string()),
        Just("</tool_call>".to_string()),
        Just("<function=nu>".to_string()),
        Just("</function>".to_string()),
        Just("<think>".to_string()),
        Just("</think>".to_string()),
        Just("```json\n".to_string()),
        Just("```".to_string()),
        Just("{".to_string()),
        Just("}".to_string()),
        Just("\"name\"".to_string()),
        Just("\"arguments\"".to_string()),
        Just("\"pipeline\"".to_string()),
        Just("\"nu\"".to_string()),
        Just(":".to_string()),
        Just(",".to_string()),
        Just("\"".to_string()),
        Just("\\".to_string()),
        "\\PC{0,6}",
    ];
    prop::collection::vec(piece, 0..40).prop_map(|pieces| pieces.concat())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases(),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn any_text_parses_without_panic(text in "\\PC{0,200}") {
        let reply = parse_reply(&text, &tools());
        prop_assert!(valid(&reply));
    }

    #[test]
    fn call_shaped_text_parses_without_panic(text in call_shaped_text()) {
        let reply = parse_reply(&text, &tools());
        prop_assert!(valid(&reply));
    }

    #[test]
    fn a_well_formed_call_in_prose_is_found(
        before in "[a-zA-Z0-9 .,!?\n]{0,60}",
        pipeline in "\\PC{1,40}",
        after in "[a-zA-Z0-9 .,!?\n]{0,60}",
    ) {
        let json = serde_json::json!({"name": "nu", "arguments": {"pipeline": pipeline}});
        let text = format!("{before}<tool_call>\n{json}\n</tool_call>{after}");
        let reply = parse_reply(&text, &tools());
        prop_assert_eq!(reply.calls.len(), 1);
        prop_assert_eq!(reply.calls[0].arguments["pipeline"].as_str(), Some(pipeline.as_str()));
        prop_assert!(reply.repair.is_none());
    }
}
