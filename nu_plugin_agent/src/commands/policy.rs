//! `agent policy`: the effective policy and the protections in force.

use std::path::PathBuf;

use agent_core::policy::{
    PolicyReport,
    sandbox::{self, SandboxMode},
};
use nu_plugin::{EngineInterface, EvaluatedCall, SimplePluginCommand};
use nu_protocol::{Category, Example, LabeledError, Record, Signature, Span, Type, Value};

use crate::{
    AgentPlugin,
    caller::{caller_cwd, config_from_caller, sandbox_worker},
};

/// `agent policy`.
pub struct AgentPolicy;

impl SimplePluginCommand for AgentPolicy {
    type Plugin = AgentPlugin;

    fn name(&self) -> &str {
        "agent policy"
    }

    fn signature(&self) -> Signature {
        Signature::build(self.name())
            .input_output_type(Type::Nothing, Type::record())
            .category(Category::Misc)
    }

    fn description(&self) -> &str {
        "Show the effective policy of `agent run` and which protections are active."
    }

    fn extra_description(&self) -> &str {
        "The policy comes from $env.config.plugins.agent.policy (defaults where a key is missing); an invalid one is an error naming the key. `writable` is the list of roots for the current directory. `protections` says what this machine enforces: the Landlock ABI (or why it is missing), whether seccomp filters work, the enforcement layers a run goes through, and what a launched read is kept from on this kernel (`read_launch`)."
    }

    fn search_terms(&self) -> Vec<&str> {
        vec![
            "policy",
            "permissions",
            "sandbox",
            "landlock",
            "seccomp",
            "config",
        ]
    }

    fn examples(&self) -> Vec<Example<'_>> {
        vec![
            Example {
                example: "(agent policy).mode",
                description: "The mode of the default policy",
                result: Some(Value::test_string("confirm")),
            },
            Example {
                example: "(agent policy).hook",
                description: "Whether a policy hook is configured",
                result: Some(Value::test_bool(false)),
            },
            Example {
                example: "agent policy | get protections",
                description: "What the OS sandbox can enforce on this machine",
                result: None,
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
        let config = config_from_caller(engine, call.head)?;
        let cwd = caller_cwd(engine)?;
        let home = std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from);
        let writable = config.policy.writable_roots(&cwd, home.as_deref());
        let protections = sandbox::probe();
        let enforced = config.policy.sandbox != SandboxMode::Off
            && protections.can_sandbox()
            && sandbox_worker().is_some();
        let report = PolicyReport::new(&config.policy, &writable, &protections, enforced);
        Ok(policy_value(&report, call.head))
    }
}

/// The policy as a record: the keys of [`PolicyReport`].
fn policy_value(report: &PolicyReport, span: Span) -> Value {
    let strings = |items: &[String]| {
        Value::list(items.iter().map(|s| Value::string(s, span)).collect(), span)
    };
    let mut record = Record::new();
    record.push("mode", Value::string(&report.mode, span));
    record.push("sandbox", Value::string(&report.sandbox, span));
    record.push(
        "sandbox_enforced",
        Value::bool(report.sandbox_enforced, span),
    );
    record.push("network", Value::bool(report.network, span));
    record.push(
        "external_sandbox",
        Value::bool(report.external_sandbox, span),
    );
    record.push(
        "external_sandbox_note",
        Value::string(&report.external_sandbox_note, span),
    );
    record.push("writable", strings(&report.writable));
    record.push("protect", strings(&report.protect));
    record.push("allow", strings(&report.allow));
    record.push("confirm", strings(&report.confirm));
    record.push("block", strings(&report.block));
    record.push("env", strings(&report.env));
    record.push("trash", Value::bool(report.trash, span));
    record.push(
        "password_ttl",
        Value::duration(
            i64::try_from(report.password_ttl.as_nanos()).unwrap_or(i64::MAX),
            span,
        ),
    );
    record.push("hook", Value::bool(report.hook, span));
    let mut protections = Record::new();
    protections.push("landlock", Value::string(&report.landlock, span));
    protections.push("seccomp", Value::bool(report.seccomp, span));
    protections.push(
        "layers",
        Value::list(
            report
                .layers
                .iter()
                .map(|l| Value::string(*l, span))
                .collect(),
            span,
        ),
    );
    record.push("protections", Value::record(protections, span));
    // What a launched read is kept from, on this kernel.
    record.push("read_launch", strings(&report.read_launch));
    Value::record(record, span)
}
