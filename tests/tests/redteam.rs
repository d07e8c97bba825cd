//! The red-team corpus against the static layer: every case meets its
//! verdict under the default policy, and routine work stays `allow`.

use std::path::PathBuf;

use agent_core::{
    policy::{Judge, PathFacts, Policy, Verdict, check},
    shell::Engine,
};
use agent_e2e::redteam::{BLOCKED_AT_RUN_TIME, CASES, ROUTINE, fixture};

fn verdict_of(facts: &PathFacts, pipeline: &str) -> (Verdict, String) {
    let policy = Policy::default();
    let judge = Judge {
        policy: &policy,
        facts,
        sandbox_enforced: true,
        session_allow: &[],
        secret_read: None,
    };
    let decision = check(Engine::standard().state(), &judge, pipeline);
    let why = decision
        .deciding_rows()
        .map(|r| format!("{} [{}: {}]", r.command, r.rule, r.reason))
        .collect::<Vec<_>>()
        .join("; ");
    (decision.verdict, why)
}

fn fixture_facts(home: PathBuf, workspace: PathBuf) -> PathFacts {
    let mut config_dirs = Engine::standard().nu_dirs();
    config_dirs.push(home.join(".config/nushell"));
    PathFacts::new(
        workspace.clone(),
        Some(home.clone()),
        &[workspace, std::env::temp_dir()],
        &[],
        &config_dirs,
    )
}

#[test]
fn every_case_meets_its_verdict_statically() {
    let f = fixture().expect("fixture");
    let facts = fixture_facts(f.home.clone(), f.workspace.clone());
    let mut wrong = Vec::new();
    for case in CASES.iter().chain(agent_e2e::redteam_forms::all()) {
        let (got, why) = verdict_of(&facts, case.pipeline);
        let expect = if BLOCKED_AT_RUN_TIME.contains(&case.id) {
            Verdict::Confirm
        } else {
            case.expect
        };
        if got != expect {
            let shown: String = case.pipeline.chars().take(120).collect();
            wrong.push(format!(
                "{} {shown:?}: expected {}, got {got} ({why}) — {}",
                case.id, expect, case.why
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} cases wrong:\n{}",
        wrong.len(),
        CASES.len() + agent_e2e::redteam_forms::all().count(),
        wrong.join("\n")
    );
}

#[test]
fn routine_work_stays_allowed() {
    let f = fixture().expect("fixture");
    let facts = fixture_facts(f.home.clone(), f.workspace.clone());
    let asked: Vec<String> = ROUTINE
        .iter()
        .filter_map(|pipeline| {
            let (got, why) = verdict_of(&facts, pipeline);
            (got != Verdict::Allow).then(|| format!("{pipeline:?}: {got} ({why})"))
        })
        .collect();
    assert!(
        asked.is_empty(),
        "routine work that asks:\n{}",
        asked.join("\n")
    );
}

/// The static layer never panics on half-written pipelines: every prefix
/// of every corpus case (as a model cut off mid-stream would send it) gets
/// a verdict, and one that does not parse is refused.
#[test]
fn every_prefix_of_every_case_gets_a_verdict() {
    let f = fixture().expect("fixture");
    let facts = fixture_facts(f.home.clone(), f.workspace.clone());
    let mut checked = 0;
    for case in CASES {
        let bounds: Vec<usize> = case
            .pipeline
            .char_indices()
            .map(|(i, _)| i)
            .filter(|i| *i <= 200)
            .collect();
        for end in bounds {
            let prefix = &case.pipeline[..end];
            let outcome = std::panic::catch_unwind(|| verdict_of(&facts, prefix));
            assert!(
                outcome.is_ok(),
                "{}: panicked on the prefix {prefix:?}",
                case.id
            );
            checked += 1;
        }
    }
    assert!(checked > 5_000, "only {checked} prefixes");
}
