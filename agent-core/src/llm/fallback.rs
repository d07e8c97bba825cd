//! A remote backend with the local model behind it: when the server
//! cannot be reached at all (connection refused, no such host, no answer
//! in time), the turn and the rest of the conversation run on the local
//! model, and the switch is announced. A server that answers with an
//! error (a bad key, a missing model) is that error: nothing falls back
//! silently.

use super::{ChatBackend, ChatEvent, ChatRequest, ChatTurn, LlmError};
use crate::shell::CancelToken;

/// Builds the local backend when it is first needed.
type MakeLocal = Box<dyn FnMut() -> Result<Box<dyn ChatBackend>, LlmError> + Send>;

/// The remote backend, falling back to a lazily built local one.
pub struct FallbackBackend {
    remote: Box<dyn ChatBackend>,
    make_local: MakeLocal,
    local: Option<Box<dyn ChatBackend>>,
}

impl FallbackBackend {
    /// `remote` first; `make_local` builds the local backend the first
    /// time the server cannot be reached (and again on the next such turn
    /// if it failed).
    pub fn new(
        remote: Box<dyn ChatBackend>,
        make_local: impl FnMut() -> Result<Box<dyn ChatBackend>, LlmError> + Send + 'static,
    ) -> FallbackBackend {
        FallbackBackend {
            remote,
            make_local: Box::new(make_local),
            local: None,
        }
    }

    /// Whether the conversation has moved to the local model.
    pub fn on_local(&self) -> bool {
        self.local.is_some()
    }
}

impl ChatBackend for FallbackBackend {
    fn name(&self) -> String {
        match &self.local {
            Some(local) => format!("{} (the server was unreachable)", local.name()),
            None => self.remote.name(),
        }
    }

    fn chat(
        &mut self,
        request: &ChatRequest,
        on_event: &mut dyn FnMut(ChatEvent),
        cancel: &CancelToken,
    ) -> Result<ChatTurn, LlmError> {
        if let Some(local) = self.local.as_mut() {
            return local.chat(request, on_event, cancel);
        }
        let (url, message) = match self.remote.chat(request, on_event, cancel) {
            Err(LlmError::Remote {
                url,
                message,
                unreachable: true,
            }) => (url, message),
            answered => return answered,
        };
        let local = (self.make_local)().map_err(|error| LlmError::Remote {
            url: url.clone(),
            message: format!("{message}; the local fallback is unavailable too: {error}"),
            unreachable: true,
        })?;
        on_event(ChatEvent::Notice(format!(
            "{url} cannot be reached ({message}); this conversation goes on with the local model {}",
            local.name()
        )));
        self.local.insert(local).chat(request, on_event, cancel)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::{Message, ScriptedBackend};

    /// A backend that always fails with `error`.
    struct Failing(fn() -> LlmError);

    impl ChatBackend for Failing {
        fn name(&self) -> String {
            "failing".into()
        }

        fn chat(
            &mut self,
            _: &ChatRequest,
            _: &mut dyn FnMut(ChatEvent),
            _: &CancelToken,
        ) -> Result<ChatTurn, LlmError> {
            Err((self.0)())
        }
    }

    fn unreachable() -> LlmError {
        LlmError::Remote {
            url: "http://127.0.0.1:9/v1/chat/completions".into(),
            message: "the server cannot be reached".into(),
            unreachable: true,
        }
    }

    fn refused() -> LlmError {
        LlmError::Remote {
            url: "http://127.0.0.1:9/v1/chat/completions".into(),
            message: "HTTP 401: bad key".into(),
            unreachable: false,
        }
    }

    fn turn(backend: &mut dyn ChatBackend) -> (Result<ChatTurn, LlmError>, Vec<ChatEvent>) {
        let mut events = Vec::new();
        let request = ChatRequest::new(vec![Message::user("hi")], Vec::new());
        let result = backend.chat(&request, &mut |e| events.push(e), &CancelToken::new());
        (result, events)
    }

    #[test]
    fn an_unreachable_server_moves_the_conversation_to_the_local_model() {
        let built = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let count = built.clone();
        let mut backend = FallbackBackend::new(Box::new(Failing(unreachable)), move || {
            count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            Ok(Box::new(ScriptedBackend::new(["local one", "local two"])) as Box<dyn ChatBackend>)
        });
        let (result, events) = turn(&mut backend);
        assert_eq!(result.unwrap().content, "local one");
        assert!(
            matches!(&events[0], ChatEvent::Notice(n) if n.contains("cannot be reached")),
            "{events:?}"
        );
        assert!(backend.on_local());
        let (result, events) = turn(&mut backend);
        assert_eq!(result.unwrap().content, "local two");
        assert!(!events.iter().any(|e| matches!(e, ChatEvent::Notice(_))));
        assert_eq!(built.load(std::sync::atomic::Ordering::SeqCst), 1);
    }

    #[test]
    fn a_refusal_is_an_error_not_a_fallback() {
        let mut backend = FallbackBackend::new(Box::new(Failing(refused)), || {
            Ok(Box::new(ScriptedBackend::new(["local"])) as Box<dyn ChatBackend>)
        });
        let (result, events) = turn(&mut backend);
        assert!(result.unwrap_err().to_string().contains("HTTP 401"));
        assert!(events.is_empty(), "{events:?}");
        assert!(!backend.on_local());
    }

    #[test]
    fn a_missing_local_model_says_both_things() {
        let mut backend = FallbackBackend::new(Box::new(Failing(unreachable)), || {
            Err(LlmError::Backend(
                "model qwen3-4b is not downloaded yet".into(),
            ))
        });
        let message = turn(&mut backend).0.unwrap_err().to_string();
        assert!(message.contains("cannot be reached"), "{message}");
        assert!(message.contains("not downloaded yet"), "{message}");
    }
}
