//! `nu-agent policy check|show`: check a pipeline against the policy
//! without running it (every command, its category, targets and verdict),
//! or show the effective policy and which protections are active.

use std::{path::PathBuf, process::ExitCode};

use agent_core::{
    policy::{
        Judge, Policy, PolicyReport, check, facts_for,
        sandbox::{self, SandboxMode},
    },
    shell::Engine,
};

use crate::common::EXIT_FAILED;

/// `nu-agent policy check`: the plan and verdicts, nothing runs.
pub fn policy_check(pipeline: &str, policy: Policy, json: bool) -> ExitCode {
    let cwd = match std::env::current_dir() {
        Ok(cwd) => cwd,
        Err(err) => {
            eprintln!("nu-agent: cannot read the current directory: {err}");
            return ExitCode::from(EXIT_FAILED);
        }
    };
    let facts = facts_for(&policy, &cwd);
    let judge = Judge {
        policy: &policy,
        facts: &facts,
        sandbox_enforced: policy.sandbox != SandboxMode::Off && sandbox::probe().can_sandbox(),
        session_allow: &[],
        secret_read: None,
    };
    let decision = check(Engine::standard().state(), &judge, pipeline);
    if json {
        let value = serde_json::json!({
            "pipeline": pipeline,
            "verdict": decision.verdict,
            "rows": decision.rows,
        });
        println!("{value}");
    } else {
        println!("verdict: {}", decision.verdict);
        for row in &decision.rows {
            let targets = if row.targets.is_empty() {
                String::new()
            } else {
                format!(" → {}", row.targets.join(", "))
            };
            println!(
                "  {:<7} {:<10} {}{targets}\n          {} ({})",
                row.verdict, row.category, row.command, row.reason, row.rule
            );
        }
    }
    ExitCode::SUCCESS
}

/// `nu-agent policy show`: the keys of `agent policy`, as text or JSON.
pub fn policy_show(policy: &Policy, json: bool) -> ExitCode {
    let protections = sandbox::probe();
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let enforced = policy.sandbox != SandboxMode::Off
        && protections.can_sandbox()
        && crate::common::worker_exe().is_some();
    let writable = policy.writable_roots(&cwd, home.as_deref());
    let report = PolicyReport::new(policy, &writable, &protections, enforced);
    if json {
        println!("{}", report.to_json());
    } else {
        print!("{}", report.to_text());
    }
    ExitCode::SUCCESS
}
