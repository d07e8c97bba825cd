//! The evaluation suite through `nu-agent eval`: every task's transcript
//! solves it, every wrong transcript is rejected by its check (at least
//! one per kind of check), and a task directory the suite has never seen
//! runs as it is.

use std::{
    collections::BTreeSet,
    path::{Path, PathBuf},
    process::{Command, Stdio},
};

use agent_e2e::workspace_binary;

/// The suite's own tasks.
fn tasks_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("eval/tasks")
}

/// `nu-agent eval --json ARGS`: the exit code and the JSON report.
fn eval(args: &[&str]) -> (i32, serde_json::Value) {
    let state = tempfile::tempdir().unwrap();
    let output = Command::new(workspace_binary("nu-agent"))
        .arg("eval")
        .arg("--json")
        .args(args)
        .env("NU_AGENT_STATE_DIR", state.path())
        .stdin(Stdio::null())
        .output()
        .expect("run nu-agent eval");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let report = serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!(
            "no JSON report ({e}):\n{stdout}\nstderr:\n{}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (output.status.code().unwrap_or(-1), report)
}

/// A directory holding these task files (name, text).
fn task_dir(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

fn results(report: &serde_json::Value) -> &Vec<serde_json::Value> {
    report["results"].as_array().expect("results")
}

/// `task: reason` for each run whose success is not `expected`.
fn unexpected(report: &serde_json::Value, expected: bool) -> Vec<String> {
    results(report)
        .iter()
        .filter(|r| r["success"].as_bool() != Some(expected))
        .map(|r| format!("{}: {}", r["task"], r["reason"]))
        .collect()
}

#[test]
fn every_transcript_solves_its_task() {
    let tasks = tasks_dir();
    let (code, report) = eval(&["--backend", "scripted", "--tasks", tasks.to_str().unwrap()]);
    let runs = results(&report);
    assert!(runs.len() >= 40, "only {} tasks", runs.len());
    let failed = unexpected(&report, true);
    assert!(failed.is_empty(), "tasks failed:\n{}", failed.join("\n"));
    assert_eq!(code, 0);
    // Every kind of fixture the suite promises is there.
    let tags: BTreeSet<&str> = runs
        .iter()
        .flat_map(|r| r["tags"].as_array().unwrap())
        .filter_map(|t| t.as_str())
        .collect();
    for tag in ["approval", "refusal", "jobs", "git", "logs"] {
        assert!(tags.contains(tag), "no task tagged {tag}: {tags:?}");
    }
    let totals = &report["totals"];
    assert_eq!(totals["runs"].as_u64(), Some(runs.len() as u64));
    assert!(totals["approvals"].as_u64().unwrap() >= 1, "{totals}");
    assert!(totals["blocked"].as_u64().unwrap() >= 1, "{totals}");
}

#[test]
fn every_wrong_transcript_fails_its_check() {
    let tasks = tasks_dir();
    let (code, report) = eval(&[
        "--backend",
        "scripted",
        "--wrong",
        "--tasks",
        tasks.to_str().unwrap(),
    ]);
    let accepted = unexpected(&report, false);
    assert!(
        accepted.is_empty(),
        "wrong transcripts accepted:\n{}",
        accepted.join("\n")
    );
    assert_eq!(code, 0);
    let runs = results(&report);
    for run in runs {
        assert_ne!(run["ending"], "not run", "{run}");
        assert!(!run["reason"].as_str().unwrap().is_empty(), "{run}");
    }
    let kinds: BTreeSet<&str> = runs.iter().filter_map(|r| r["kind"].as_str()).collect();
    for kind in ["answer", "data", "files", "refusal", "session", "job"] {
        assert!(
            kinds.contains(kind),
            "no negative of kind {kind}: {kinds:?}"
        );
    }
}

#[test]
fn a_task_directory_never_seen_runs_as_it_is() {
    let dir = task_dir(&[
        (
            "count-csv-rows.nu",
            r#"{
    name: "count-csv-rows"
    request: "How many rows does people.csv have?"
    tags: [unseen]
    setup: {|| [[name age]; [ann 31] [bob 42] [cy 27]] | save people.csv }
    check: {|r| $r.answer | default "" | str contains "3" }
    script: [
        {nu: "open people.csv | length", why: "count"}
        {answer: "people.csv has 3 rows."}
    ]
}"#,
        ),
        // A .nuon task: the same record as data, code as strings.
        (
            "sum-numbers.nuon",
            r#"{
    name: "sum-numbers",
    request: "What is the sum of the numbers in numbers.txt?",
    setup: "1..10 | each {|n| $n | into string } | str join (char nl) | save numbers.txt",
    check: "{|r| if ($r.answer | default '' | str contains '55') { true } else { {ok: false, reason: 'no 55'} } }",
    script: [
        {nu: "open numbers.txt | lines | into int | math sum", why: "sum"},
        {answer: "The sum is 55."}
    ],
    wrong: [ {answer: "The sum is 10."} ]
}"#,
        ),
    ]);
    let (code, report) = eval(&[
        "--backend",
        "scripted",
        "--tasks",
        dir.path().to_str().unwrap(),
    ]);
    assert_eq!(results(&report).len(), 2, "{report}");
    assert!(unexpected(&report, true).is_empty(), "{report}");
    assert_eq!(code, 0);
    let glob = format!("{}/*.nuon", dir.path().display());
    let (code, report) = eval(&["--backend", "scripted", "--wrong", "--tasks", &glob]);
    assert_eq!(results(&report).len(), 1, "{report}");
    assert_eq!(results(&report)[0]["reason"], "no 55");
    assert_eq!(code, 0);
}

#[test]
fn a_broken_task_file_is_named_with_what_is_wrong() {
    let dir = task_dir(&[(
        "broken.nu",
        r#"{ name: "broken", request: "hi", chek: {|r| true} }"#,
    )]);
    let (code, report) = eval(&[
        "--backend",
        "scripted",
        "--tasks",
        dir.path().to_str().unwrap(),
    ]);
    let run = &results(&report)[0];
    assert_eq!(run["success"], false);
    assert_eq!(run["ending"], "not run");
    let reason = run["reason"].as_str().unwrap();
    assert!(
        reason.contains("broken.nu") && reason.contains("unknown key `chek`"),
        "{reason}"
    );
    assert_eq!(code, 1);
    let output = Command::new(workspace_binary("nu-agent"))
        .args(["eval", "--backend", "scripted", "--tasks"])
        .arg(dir.path().join("nothing-here"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("no task files") && stderr.contains("help:"),
        "{stderr}"
    );
}

#[test]
fn raw_observations_are_nu_s_table_text() {
    let tasks = tasks_dir();
    let task = tasks.join("largest-file.nu");
    let (_, compact) = eval(&["--backend", "scripted", "--tasks", task.to_str().unwrap()]);
    let (code, raw) = eval(&[
        "--backend",
        "scripted",
        "--observe",
        "raw",
        "--tasks",
        task.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{raw}");
    assert_eq!(raw["run"]["observe"], "raw");
    // The same transcript reads more tokens with nu's box-drawn table.
    let tokens = |r: &serde_json::Value| r["totals"]["prompt_tokens"].as_u64().unwrap();
    assert!(
        tokens(&raw) > tokens(&compact),
        "raw {raw} compact {compact}"
    );
}

#[test]
fn a_task_past_its_time_limit_is_cancelled_and_fails() {
    let dir = task_dir(&[(
        "slow.nu",
        r#"{
    name: "slow"
    request: "wait"
    check: {|r| {ok: ($r.ending == "answered"), reason: $r.error} }
    script: [ {nu: "sleep 30sec; 1", why: "wait"}, {answer: "done"} ]
}"#,
    )]);
    let started = std::time::Instant::now();
    let (code, report) = eval(&[
        "--backend",
        "scripted",
        "--task-timeout",
        "2s",
        "--tasks",
        dir.path().to_str().unwrap(),
    ]);
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    let run = &results(&report)[0];
    assert_eq!(run["ending"], "timed out", "{run}");
    assert_eq!(run["reason"], "timed out after 2 s", "{run}");
    assert_eq!(code, 1);
}
