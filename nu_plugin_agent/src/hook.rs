//! The user's `policy.hook` closure as the policy shell's [`PolicyHook`].
//!
//! The closure lives in the host (it arrives inside the plugin config as a
//! `Value::Closure`), so judging means asking nu to evaluate it with
//! `engine.eval_closure`. The hook gets the checked plan as a record
//! `{pipeline, verdict, rows: [{command category targets verdict reason rule}]}`
//! (as its parameter and as `$in`) and returns `allow`, `confirm` or
//! `block`.
//!
//! Threads: [`PolicyHook`] is `Send + Sync`. `EngineInterface` is a
//! cloneable handle to the plugin's connection (shared state behind `Arc`,
//! engine calls answered through channels) and is itself `Send + Sync`, so
//! the hook keeps a clone and calls nu from the thread that runs the
//! policy shell; nu evaluates the closure while it waits for this call.

use agent_core::policy::{Decision, PolicyHook, Verdict};
use nu_plugin::EngineInterface;
use nu_protocol::{Span, Spanned, Value, engine::Closure};

use crate::convert::plan_value;

/// `policy.hook`, evaluated in the caller's nu.
pub struct ClosureHook {
    engine: EngineInterface,
    closure: Spanned<Closure>,
    /// The span the plan record is given (the call's).
    span: Span,
}

impl ClosureHook {
    /// The hook for the configured `policy.hook` value, or `None` when the
    /// value is not a closure.
    pub fn new(engine: &EngineInterface, hook: &Value, span: Span) -> Option<ClosureHook> {
        match hook {
            Value::Closure { val, .. } => Some(ClosureHook {
                engine: engine.clone(),
                closure: Spanned {
                    item: (**val).clone(),
                    span: hook.span(),
                },
                span,
            }),
            _ => None,
        }
    }
}

impl PolicyHook for ClosureHook {
    fn judge(&self, pipeline: &str, decision: &Decision) -> Result<Verdict, String> {
        let plan = plan_value(pipeline, decision, self.span);
        let answer = self
            .engine
            .eval_closure(&self.closure, vec![plan.clone()], Some(plan))
            .map_err(|e| format!("policy.hook raised an error: {e}"))?;
        verdict_of(&answer)
    }
}

/// The hook's answer as a verdict: the strings `allow`, `confirm`, `block`.
fn verdict_of(answer: &Value) -> Result<Verdict, String> {
    let expected = "it must return \"allow\", \"confirm\" or \"block\"";
    match answer {
        Value::String { val, .. } => match val.trim() {
            "allow" => Ok(Verdict::Allow),
            "confirm" => Ok(Verdict::Confirm),
            "block" => Ok(Verdict::Block),
            other => Err(format!("policy.hook returned `{other}`; {expected}")),
        },
        other => Err(format!(
            "policy.hook returned a {}; {expected}",
            other.get_type()
        )),
    }
}

// The policy shell may call its hook from another thread.
const _: fn() = || {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<ClosureHook>();
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_three_verdict_names_are_answers() {
        assert_eq!(verdict_of(&Value::test_string("allow")), Ok(Verdict::Allow));
        assert_eq!(
            verdict_of(&Value::test_string("confirm")),
            Ok(Verdict::Confirm)
        );
        assert_eq!(verdict_of(&Value::test_string("block")), Ok(Verdict::Block));
        let refuse = verdict_of(&Value::test_string("refuse")).unwrap_err();
        assert!(refuse.contains("policy.hook returned `refuse`"), "{refuse}");
        let number = verdict_of(&Value::test_int(1)).unwrap_err();
        assert!(number.contains("policy.hook returned a int"), "{number}");
    }
}
