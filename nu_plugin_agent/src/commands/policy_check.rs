//! `agent policy check`: the plan of a pipeline and the policy's verdicts,
//! without running anything.

use agent_core::{
    policy::{Judge, check, facts_for, sandbox},
    shell::Engine,
};
use nu_plugin::{EngineInterface, EvaluatedCall, SimplePluginCommand};
use nu_protocol::{
    Category, Example, LabeledError, Record, Signature, Spanned, SyntaxShape, Type, Value,
};

use crate::{
    AgentPlugin,
    caller::{caller_cwd, config_from_caller, sandbox_worker},
    convert::rows_value,
};

/// `agent policy check "<pipeline>"`.
pub struct AgentPolicyCheck;

impl SimplePluginCommand for AgentPolicyCheck {
    type Plugin = AgentPlugin;

    fn name(&self) -> &str {
        "agent policy check"
    }

    fn signature(&self) -> Signature {
        Signature::build(self.name())
            .input_output_type(Type::Nothing, Type::table())
            .required(
                "pipeline",
                SyntaxShape::String,
                "The Nushell pipeline to check.",
            )
            .category(Category::Misc)
    }

    fn description(&self) -> &str {
        "Check a pipeline against your policy without running it: every command it could run, with its category, targets and verdict."
    }

    fn extra_description(&self) -> &str {
        "One row per command the pipeline could run (closures and subexpressions included): the verdict (allow, confirm, block), category (read, write, delete, network, exec, privileged, process, unknown), command, why, the literal targets, and the rule that decided (in this order, so that a narrow terminal shows the verdict and why first). The pipeline's verdict is the strictest row. A pipeline that does not parse is one row with the verdict `refuse` and the parser's message. The policy hook is not consulted; `agent run` asks it."
    }

    fn search_terms(&self) -> Vec<&str> {
        vec![
            "policy",
            "permissions",
            "dry run",
            "explain",
            "verdict",
            "plan",
        ]
    }

    fn examples(&self) -> Vec<Example<'_>> {
        vec![
            Example {
                example: r#"agent policy check "ls""#,
                description: "Reading runs without asking",
                result: Some(Value::test_list(vec![Value::test_record(step(
                    "ls",
                    "read",
                    "allow",
                    "only reads",
                    "mode confirm",
                ))])),
            },
            Example {
                example: r#"(agent policy check "rm -rf /").verdict.0"#,
                description: "Deleting the root of the file system never runs",
                result: Some(Value::test_string("block")),
            },
            Example {
                example: r#"(agent policy check "mkdir build").verdict.0"#,
                description: "A write asks in the default mode",
                result: Some(Value::test_string("confirm")),
            },
            Example {
                example: r#"(agent policy check "ls |").verdict.0"#,
                description: "A pipeline that does not parse is refused",
                result: Some(Value::test_string("refuse")),
            },
        ]
    }

    fn run(
        &self,
        _plugin: &AgentPlugin,
        engine: &EngineInterface,
        call: &EvaluatedCall,
        _input: &Value,
    ) -> Result<Value, LabeledError> {
        let pipeline: Spanned<String> = call.req(0)?;
        let config = config_from_caller(engine, call.head)?;
        let policy = &config.policy;
        let cwd = caller_cwd(engine)?;
        let facts = facts_for(policy, &cwd);
        let judge = Judge {
            policy,
            facts: &facts,
            sandbox_enforced: policy.sandbox != sandbox::SandboxMode::Off
                && sandbox::probe().can_sandbox()
                && sandbox_worker().is_some(),
            session_allow: &[],
            secret_read: None,
        };
        let decision = check(Engine::standard().state(), &judge, &pipeline.item);
        Ok(rows_value(&decision.rows, call.head))
    }
}

/// An example row without targets.
fn step(command: &str, category: &str, verdict: &str, reason: &str, rule: &str) -> Record {
    let mut record = Record::new();
    record.push("verdict", Value::test_string(verdict));
    record.push("category", Value::test_string(category));
    record.push("command", Value::test_string(command));
    record.push("reason", Value::test_string(reason));
    record.push("targets", Value::test_list(Vec::new()));
    record.push("rule", Value::test_string(rule));
    record
}
