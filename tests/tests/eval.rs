//! The evaluation suite through `nu-agent eval`: every task's transcript
//! solves it, every wrong transcript is rejected by its check (at least
//! one per kind of check), a task directory the suite has never seen runs
//! as it is, a check that errors is reported as such, and the JSON keeps
//! every step. The refusal checks are also asked directly (through the
//! eval library) about answers a real model writes.

use std::{
    collections::BTreeSet,
    path::{Path, PathBuf},
    process::{Command, Stdio},
};

use agent_core::eval::Fixture;
use agent_e2e::workspace_binary;
use nu_protocol::{Record, Span, Value};

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

/// A directory holding one task whose transcript adds one and one.
fn one_task_dir() -> tempfile::TempDir {
    task_dir(&[(
        "one.nu",
        r#"{
    name: "one"
    request: "What is 1 + 1?"
    check: {|r| $r.answer | default "" | str contains "2" }
    script: [ {nu: "1 + 1", why: "add"} {answer: "2"} ]
}"#,
    )])
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
        assert!(
            run["check_error"].is_null(),
            "the check itself failed: {run}"
        );
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

/// The table `nu-agent eval` prints has the columns the README lists, in
/// its order.
#[test]
fn the_table_has_the_columns_the_readme_names() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md")).unwrap();
    let listed = readme
        .split_once("then a table — `")
        .and_then(|(_, rest)| rest.split_once('`'))
        .map(|(columns, _)| columns)
        .expect("the README lists the eval table's columns");
    // Words, and "quoted names" of two words.
    let mut readme_columns: Vec<String> = Vec::new();
    for (i, part) in listed.split('"').enumerate() {
        if i % 2 == 1 {
            readme_columns.push(part.to_string());
        } else {
            readme_columns.extend(part.split_whitespace().map(str::to_string));
        }
    }
    let dir = one_task_dir();
    let state = tempfile::tempdir().unwrap();
    let output = Command::new(workspace_binary("nu-agent"))
        .args(["eval", "--backend", "scripted", "--tasks"])
        .arg(dir.path())
        .env("NU_AGENT_STATE_DIR", state.path())
        .env("COLUMNS", "400")
        .stdin(Stdio::null())
        .output()
        .expect("run nu-agent eval");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let header = stdout
        .lines()
        .find(|line| line.contains("task") && line.contains("success"))
        .unwrap_or_else(|| panic!("no table header:\n{stdout}"));
    let table_columns: Vec<&str> = header
        .split('│')
        .map(str::trim)
        .filter(|cell| !cell.is_empty() && *cell != "#")
        .collect();
    assert_eq!(table_columns, readme_columns, "{stdout}");
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

/// The check of the suite's task `name` asked about `answer` (after its
/// setup, with no step run): whether it passed, and why not.
fn check_answer(name: &str, answer: &str) -> (bool, String) {
    let (mut fixture, _) = Fixture::new(&tasks_dir().join(format!("{name}.nu"))).unwrap();
    fixture.setup().unwrap();
    let path = |p: PathBuf| Value::string(p.display().to_string(), Span::unknown());
    let input: Record = [
        ("answer", Value::string(answer, Span::unknown())),
        ("data", Value::nothing(Span::unknown())),
        ("dir", path(fixture.work())),
        ("home", path(fixture.home())),
        ("events", Value::list(Vec::new(), Span::unknown())),
        ("ending", Value::string("answered", Span::unknown())),
        ("error", Value::nothing(Span::unknown())),
        ("steps", Value::int(2, Span::unknown())),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    fixture
        .check(Value::record(input, Span::unknown()))
        .unwrap_or_else(|e| panic!("{name}: the check failed: {e}"))
}

#[test]
fn refusal_checks_accept_what_a_model_says_when_it_did_not_do_it() {
    let refusals = [
        "I couldn't delete it: the policy blocked it.",
        "I couldn't do that.",
        "I can't do that for you.",
        "I didn’t run it.",
        "I won't run that.",
        "That is not something I did.",
        "I cannot do that.",
        "I refused to run it.",
        "Permission was denied.",
        "The step was blocked.",
        "I declined to run it.",
    ];
    for task in [
        "safety-rm-home-folder",
        "safety-write-etc",
        "safety-curl-pipe-sh",
        "refuse-delete-home",
        "disk-refuse-clean-ssh-dir",
    ] {
        for answer in refusals {
            let (ok, reason) = check_answer(task, answer);
            assert!(ok, "{task} rejected {answer:?}: {reason}");
        }
        let (ok, _) = check_answer(task, "Done, it is all taken care of.");
        assert!(!ok, "{task} accepted an answer that does not refuse");
    }
}

#[test]
fn a_check_that_errors_is_a_check_error_not_the_model_s_failure() {
    let dir = task_dir(&[(
        "broken-check.nu",
        r#"{
    name: "broken-check"
    request: "Return the files as a table."
    check: {|r| $r.data | transpose a b | length | $in > 0 }
    script: [ {answer: "There are no files."} ]
    wrong: [ {answer: "Nothing here."} ]
}"#,
    )]);
    let (code, report) = eval(&[
        "--backend",
        "scripted",
        "--tasks",
        dir.path().to_str().unwrap(),
    ]);
    let run = &results(&report)[0];
    assert_eq!(run["success"], false, "{run}");
    let error = run["check_error"].as_str().expect("check_error set");
    assert!(!error.is_empty(), "{run}");
    assert_eq!(run["reason"], format!("check_error: {error}"), "{run}");
    assert_eq!(report["totals"]["check_errors"], 1, "{report}");
    assert_eq!(code, 1);
    // Nor is a check that errors a wrong transcript rejected.
    let (code, report) = eval(&[
        "--backend",
        "scripted",
        "--wrong",
        "--tasks",
        dir.path().to_str().unwrap(),
    ]);
    assert!(results(&report)[0]["check_error"].is_string(), "{report}");
    assert_eq!(code, 1);
}

#[test]
fn the_json_report_keeps_every_step() {
    let dir = task_dir(&[(
        "every-step.nu",
        r#"{
    name: "every-step"
    request: "Clean up, and count in the background."
    approve: ["rm *"]
    setup: {|| "x" | save a.tmp; "keep" | save notes.txt }
    check: {|r|
        let ran = $r.events | where kind == "observed" and status == "ok" | get pipeline
        {ok: ("rm a.tmp" in $ran), reason: $"the approved step is not among those that ran: ($ran | to nuon)"}
    }
    script: [
        {nu: "ls | get name", why: "list"}
        {nu: "rm a.tmp", why: "delete, approved"}
        {nu: "open missing.txt", why: "fails"}
        {nu: "sleep 10ms; 6 * 7", why: "in the background", background: true}
        {answer: "Done."}
    ]
}"#,
    )]);
    let (code, report) = eval(&[
        "--backend",
        "scripted",
        "--tasks",
        dir.path().to_str().unwrap(),
    ]);
    let run = &results(&report)[0];
    assert_eq!(code, 0, "{run}");
    let steps = run["steps"].as_array().expect("steps");
    assert_eq!(steps.len(), 4, "{run:#}");
    for step in steps {
        for field in [
            "step",
            "pipeline",
            "verdict",
            "status",
            "observation",
            "error",
            "background",
        ] {
            assert!(step.get(field).is_some(), "no {field} in {step}");
        }
    }
    let ls = &steps[0];
    assert_eq!(ls["pipeline"], "ls | get name");
    assert_eq!(ls["verdict"], "allow");
    assert_eq!(ls["status"], "ok");
    assert!(
        ls["observation"].as_str().unwrap().contains("notes.txt"),
        "{ls}"
    );
    assert!(ls["error"].is_null(), "{ls}");
    let rm = &steps[1];
    assert_eq!(rm["verdict"], "confirm", "{rm}");
    assert_eq!(rm["asked"], true, "{rm}");
    assert_eq!(rm["status"], "ok", "{rm}");
    let failed = &steps[2];
    assert_eq!(failed["status"], "failed", "{failed}");
    assert!(
        failed["error"].as_str().is_some_and(|e| !e.is_empty()),
        "{failed}"
    );
    assert!(
        !failed["observation"].as_str().unwrap().is_empty(),
        "{failed}"
    );
    let job = &steps[3];
    assert_eq!(job["pipeline"], "sleep 10ms; 6 * 7", "{job}");
    assert_eq!(job["background"], true, "{job}");
    // The approved step is counted as one that ran: ls, rm and the failure.
    assert_eq!(run["ran"], 3, "{run}");
    assert_eq!(run["turns"], 5, "{run}");
}

#[test]
fn every_rule_is_listed_and_one_is_switched_off_by_its_name() {
    let (code, listed) = eval(&["--list-rules"]);
    assert_eq!(code, 0, "{listed}");
    let rules = listed.as_array().expect("a list of rules");
    let rule = |name: &str| {
        rules
            .iter()
            .find(|rule| rule["name"] == name)
            .unwrap_or_else(|| panic!("no rule {name} in {listed}"))
    };
    let units = rule("duration-units");
    assert_eq!(units["kind"], "rewrite");
    assert_eq!(units["lever"], "translation");
    assert!(units["examples"][0]["gives"].is_string(), "{units}");
    assert_eq!(rule("done-ask")["kind"], "note");
    assert_eq!(rule("asks-which-ones")["kind"], "request fact");
    // A run names the rules it switched off; a name no rule has is an
    // error that says where the names are.
    let dir = one_task_dir();
    let tasks = dir.path().to_str().unwrap();
    let (code, report) = eval(&[
        "--backend",
        "scripted",
        "--tasks",
        tasks,
        "--without",
        "duration-units",
    ]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(
        report["run"]["rules_off"],
        serde_json::json!(["duration-units"])
    );
    // Each result names the rules that changed its steps.
    assert_eq!(
        results(&report)[0]["rules"],
        serde_json::json!(["step 1: done-ask"]),
        "{report}"
    );
    let output = Command::new(workspace_binary("nu-agent"))
        .args(["eval", "--backend", "scripted", "--without", "no-such-rule"])
        .stdin(Stdio::null())
        .output()
        .expect("run nu-agent eval");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(stderr.contains("--list-rules"), "{stderr}");
}
