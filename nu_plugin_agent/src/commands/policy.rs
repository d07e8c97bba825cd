//! `agent policy`: the effective policy and the protections in force.

use std::path::PathBuf;

use agent_core::policy::{
    Policy,
    sandbox::{self, LandlockSupport, Protections, SandboxMode, SeccompSupport},
};
use nu_plugin::{EngineInterface, EvaluatedCall, SimplePluginCommand};
use nu_protocol::{Category, Example, LabeledError, Record, Signature, Span, Type, Value};

use crate::{
    AgentPlugin,
    commands::run::sandbox_worker,
    convert::{caller_cwd, config_from_caller},
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
        Ok(policy_value(
            &config.policy,
            &writable,
            &protections,
            enforced,
            call.head,
        ))
    }
}

/// The policy as a record.
fn policy_value(
    policy: &Policy,
    writable: &[PathBuf],
    protections: &Protections,
    sandbox_enforced: bool,
    span: Span,
) -> Value {
    let strings = |items: &mut dyn Iterator<Item = &str>| {
        Value::list(items.map(|s| Value::string(s, span)).collect(), span)
    };
    let mut record = Record::new();
    record.push("mode", Value::string(policy.mode.as_str(), span));
    record.push("sandbox", Value::string(policy.sandbox.as_str(), span));
    record.push("sandbox_enforced", Value::bool(sandbox_enforced, span));
    record.push("network", Value::bool(policy.network, span));
    let (external_sandbox, external_sandbox_note) =
        agent_core::policy::sandbox::external_sandbox_status(policy.external_sandbox);
    record.push("external_sandbox", Value::bool(external_sandbox, span));
    record.push(
        "external_sandbox_note",
        Value::string(external_sandbox_note, span),
    );
    let writable: Vec<String> = writable
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    record.push(
        "writable",
        strings(&mut writable.iter().map(String::as_str)),
    );
    record.push(
        "protect",
        strings(&mut policy.protect.iter().map(String::as_str)),
    );
    record.push(
        "allow",
        strings(&mut policy.allow.iter().map(|p| p.as_str())),
    );
    record.push(
        "confirm",
        strings(&mut policy.confirm.iter().map(|p| p.as_str())),
    );
    record.push(
        "block",
        strings(&mut policy.block.iter().map(|p| p.as_str())),
    );
    record.push("env", strings(&mut policy.env.iter().map(String::as_str)));
    record.push("trash", Value::bool(policy.trash, span));
    record.push(
        "password_ttl",
        Value::duration(
            i64::try_from(policy.password_ttl.as_nanos()).unwrap_or(i64::MAX),
            span,
        ),
    );
    record.push("hook", Value::bool(policy.has_hook, span));
    record.push(
        "protections",
        protections_value(protections, sandbox_enforced, external_sandbox, span),
    );
    Value::record(record, span)
}

/// `{landlock, seccomp, layers}`: what the kernel offers and the layers a
/// run goes through.
fn protections_value(
    protections: &Protections,
    sandbox_enforced: bool,
    external_sandbox: bool,
    span: Span,
) -> Value {
    let landlock = match &protections.landlock {
        LandlockSupport::Abi(abi) => format!("ABI {abi}"),
        LandlockSupport::Unavailable(why) => why.to_string(),
    };
    let mut layers = vec!["static check", "runtime guards"];
    if sandbox_enforced {
        layers.push("os sandbox");
    }
    if external_sandbox {
        layers.push("per-external sandbox");
    }
    let mut record = Record::new();
    record.push("landlock", Value::string(landlock, span));
    record.push(
        "seccomp",
        Value::bool(
            matches!(protections.seccomp, SeccompSupport::Available),
            span,
        ),
    );
    record.push(
        "layers",
        Value::list(
            layers.into_iter().map(|l| Value::string(l, span)).collect(),
            span,
        ),
    );
    // What a launched read is kept from, on this kernel.
    let read_launch = if external_sandbox {
        protections.read_launch()
    } else {
        Vec::new()
    };
    record.push(
        "read_launch",
        Value::list(
            read_launch
                .into_iter()
                .map(|l| Value::string(l, span))
                .collect(),
            span,
        ),
    );
    Value::record(record, span)
}
