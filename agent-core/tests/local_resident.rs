//! The resident model (its own test binary: it watches the process-wide
//! host, so no other test may use it meanwhile): concurrent conversations
//! share one loaded model, each with its own context, and the model is
//! unloaded once idle for the keep-alive.

mod support;

use std::time::Duration;
use support::test_model;

use agent_core::{
    llm::{ChatBackend, ChatRequest, LocalBackend, LocalConfig, Message, ModelHost},
    shell::CancelToken,
};

#[test]
fn concurrent_conversations_share_the_model_and_it_unloads_when_idle() {
    let mut config = LocalConfig::new(test_model());
    config.load.context = Some(1024);
    config.load.threads = Some(1);
    config.keep_alive = Duration::from_secs(2);
    let host = ModelHost::global();

    let mut first = LocalBackend::new(config.clone());
    let mut second = LocalBackend::new(config.clone());
    first.load().unwrap();
    second.load().unwrap();
    let resident = host.resident().expect("loaded");
    assert_eq!(resident.in_use, 2);
    assert_eq!(resident.n_ctx, 1024);
    let loaded_at = resident.loaded_at;

    let answers: Vec<String> = std::thread::scope(|scope| {
        let runs: Vec<_> = [&mut first, &mut second]
            .into_iter()
            .zip(["Name a colour.", "Name an animal."])
            .map(|(backend, prompt)| {
                scope.spawn(move || {
                    let mut request = ChatRequest::new(vec![Message::user(prompt)], vec![]);
                    request.max_tokens = 12;
                    backend
                        .chat(&request, &mut |_| {}, &CancelToken::new())
                        .map(|t| t.content)
                })
            })
            .collect();
        runs.into_iter()
            .map(|r| r.join().unwrap().expect("turn"))
            .collect()
    });
    assert!(answers.iter().all(|a| !a.is_empty()), "{answers:?}");
    // Still the same load: nothing was loaded twice.
    assert_eq!(host.resident().unwrap().loaded_at, loaded_at);

    drop(first);
    drop(second);
    assert_eq!(host.resident().expect("kept alive").in_use, 0);
    // A new conversation within the keep-alive reuses the loaded model.
    let mut third = LocalBackend::new(config);
    third.load().unwrap();
    assert_eq!(host.resident().unwrap().loaded_at, loaded_at);
    drop(third);
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while host.resident().is_some() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(host.resident().is_none(), "unloaded after the keep-alive");
}
