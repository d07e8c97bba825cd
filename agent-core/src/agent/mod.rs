//! The agent: a UI-agnostic loop that asks the model, runs the pipelines it
//! proposes under the user's policy, and feeds the results back until the
//! model answers.
//!
//! States: thinking → proposed → awaiting approval → running → observed →
//! … → answered | failed | cancelled, each reported as an [`AgentEvent`].
//! The model has three tools: `nu` (run a pipeline), `help` (a command's
//! usage from the embedded engine) and `answer` (finish, optionally
//! returning a result `$out.N` as data). A pipeline that does not parse
//! goes back to the model with the parser's diagnostic, unexecuted.

mod background;
mod bare_input;
mod bash_forms;
mod compact;
mod copied_values;
mod data_shape;
mod degenerate;
mod dialect;
mod echo;
mod effects;
mod emptied;
mod engine_docs;
mod episode;
mod event;
mod failure;
mod grounding;
mod habits;
mod home_directory;
mod levers;
mod listing_forms;
mod missing_paths;
mod named_files;
mod near_nushell;
mod pipeline_text;
mod posix;
mod prompt;
mod repair;
mod repository;
mod reuse;
mod rules;
mod scope;
mod settings;
mod suggest;
mod text_tables;
mod tools;
mod transcript;
mod usage;
mod what_is_here;

pub use background::{BackgroundRunner, HandedOver, JobDone, JobDoneFn};
pub use compact::{estimate as estimate_tokens, fit as fit_context};
pub use degenerate::degenerate;
pub use episode::{Agent, Inbound};
pub use event::{AgentEvent, AgentState, Ending, EventSink, StepStatus};
pub use failure::{Failure, FailureKind, FrontEnd};
pub use levers::{Lever, Levers};
pub use prompt::{PromptKind, prompt_examples, request_with_input, system_prompt, without_example};
pub use rules::{Kind as RuleKind, Rule, Switch, all as all_rules};
pub use settings::{AGENT_KEYS, AgentOptions, AgentSettings, JOB_KEYS, JobSettings};
pub use suggest::{SuggestError, Suggestion, suggest};
pub use tools::{
    ANSWER_TOOL, Action, HELP_TOOL, NU_TOOL, PIPELINE_ARGUMENT, command_help, pipeline_grammar,
    pipeline_heads, tool_defs,
};
pub use transcript::{HistoryError, Transcript, open_history};
