//! What a model's pipeline may do, decided by the user's policy.
//!
//! Enforcement is layered so that one missed case in one layer is caught by
//! another:
//! 1. a static [`plan`] of every command the parsed pipeline could run, each
//!    with a [`Category`] and its literal targets, judged against the
//!    [`Policy`] before anything runs;
//! 2. runtime guards that shadow the side-effecting builtins (and
//!    `run-external`) in the embedded engine and re-check the *evaluated*
//!    arguments;
//! 3. an OS sandbox (Landlock + seccomp in a worker process) in the
//!    sandboxed modes.
//!
//! The strictest verdict wins; anything unknown asks; nobody to ask means no.

mod approver;
pub mod builtins;
mod category;
mod decide;
mod enforce;
mod externals;
mod guard;
mod paths;
mod pattern;
mod plan;
mod report;
mod repository;
mod rules;
pub mod sandbox;
pub mod shell_words;
mod step;
mod unknown_program;

pub use approver::{Approval, ApprovalRequest, Approver, NonInteractive};
pub use category::{Category, Verdict};
pub use decide::{Decision, Judge, Row, SESSION_RULE};
pub use enforce::{
    Foreground, Layers, PolicyHook, PolicyShell, PromotedStep, Ran, ShellOptions, WorkerInfo,
    facts_for, programs_in, worker_engine,
};
pub use guard::{
    AlwaysAllowed, BLOCKED_BEFORE_RUN_HELP, BLOCKED_CODE, BLOCKED_HELP, DENIED_CODE, GuardEvent,
    Guardrails, JOB_DENIED_HELP, JOB_NOT_APPROVED_HELP, NOBODY_TO_ASK_HELP, NOT_APPROVED_HELP,
    asked_when_it_runs, guarded_engine, label, never_allowed_help,
};
pub use paths::{PathFacts, ReadJudgement, UserDirs, WriteJudgement};
pub use pattern::{Pattern, PatternError};
pub use plan::{Plan, plan, plan_in};
pub use report::PolicyReport;
pub use rules::{Mode, POLICY_KEYS, Policy, PolicyError};
pub use step::{Access, Floor, Step, Target};
pub use unknown_program::{NOT_FOUND_CODE, not_found, unknown_programs};

use nu_protocol::engine::EngineState;

/// Plan `pipeline` against `engine` and judge it: the whole static layer.
/// A pipeline that does not parse is refused with the parser's message.
pub fn check(engine: &EngineState, judge: &Judge, pipeline: &str) -> Decision {
    match plan_in(engine, pipeline, judge.facts.cwd()) {
        Ok(plan) => judge.decide(&plan),
        Err(diagnostic) => Decision::refused(diagnostic.summary()),
    }
}

/// Variables that make programs load or run other code (`LD_PRELOAD`,
/// `BASH_ENV`, `GIT_SSH_COMMAND`, ...): setting one is blocked.
pub fn code_injection_variable(name: &str) -> bool {
    crate::shell::is_code_injection_name(name)
}
