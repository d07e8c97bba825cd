//! The plugin inside a real nu 0.115 host.

use std::path::Path;

use agent_e2e::{nu_with_agent as nu, register_plugin as registered, stdout_of};

fn fixture(dir: &Path) -> std::path::PathBuf {
    let work = dir.join("work");
    std::fs::create_dir(&work).unwrap();
    for i in 0..7 {
        std::fs::write(work.join(format!("file{i}.txt")), vec![b'x'; i * 10]).unwrap();
    }
    std::fs::create_dir(work.join("subdir")).unwrap();
    work
}

#[test]
fn agent_run_matches_nu_in_the_same_directory() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registered(dir.path());
    let work = fixture(dir.path());
    let out = nu(
        &registry,
        &work,
        r#"{ours: (agent run "ls | length"), nus: (ls | length)} | to json --raw"#,
    );
    let json: serde_json::Value = serde_json::from_str(stdout_of(&out).trim()).unwrap();
    assert_eq!(json["ours"], json["nus"]);
    assert_eq!(json["ours"], 8);
}

#[test]
fn agent_run_returns_structured_values() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registered(dir.path());
    let work = fixture(dir.path());
    let out = nu(
        &registry,
        &work,
        r#"agent run "ls | where type == file | sort-by size | last 2" | get name | to json --raw"#,
    );
    assert_eq!(stdout_of(&out).trim(), r#"["file5.txt","file6.txt"]"#);
}

#[test]
fn agent_alone_prints_help_and_errors_are_labeled() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registered(dir.path());
    let work = fixture(dir.path());
    let help = stdout_of(&nu(&registry, &work, "agent"));
    assert!(help.contains("agent run"), "{help}");
    assert!(help.contains("agent policy check"), "{help}");
    // `ask`, the command the README opens with, is named too.
    assert!(help.contains("ask \"<task>\""), "{help}");
    let help_agent = stdout_of(&nu(&registry, &work, "help agent"));
    assert!(help_agent.contains("ask \"<task>\""), "{help_agent}");

    let failed = nu(&registry, &work, r#"agent run "let x = [1, 2""#);
    assert!(!failed.status.success());
    let stderr = String::from_utf8_lossy(&failed.stderr);
    assert!(stderr.contains("the pipeline failed"), "{stderr}");
    assert!(stderr.contains("nu::parser"), "{stderr}");
}

fn stderr_of(output: &std::process::Output) -> String {
    assert!(
        !output.status.success(),
        "expected a failure; stdout: {}",
        String::from_utf8_lossy(&output.stdout)
    );
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn policy_check_blocks_deleting_home_and_refuses_what_does_not_parse() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registered(dir.path());
    let work = fixture(dir.path());
    let out = nu(
        &registry,
        &work,
        r#"[(agent policy check "rm -rf ~" | get verdict.0) (agent policy check "ls" | get verdict.0) (agent policy check "mkdir d" | get 0.category) (agent policy check "ls |" | get verdict.0)] | to json --raw"#,
    );
    assert_eq!(
        stdout_of(&out).trim(),
        r#"["block","allow","write","refuse"]"#
    );
    let rows = nu(
        &registry,
        &work,
        r#"agent policy check "ls | each { rm $in.name }" | select command category targets verdict | to json --raw"#,
    );
    let rows: serde_json::Value = serde_json::from_str(stdout_of(&rows).trim()).unwrap();
    let commands: Vec<&str> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["command"].as_str().unwrap())
        .collect();
    assert!(commands.contains(&"ls"), "{rows}");
    assert!(commands.iter().any(|c| c.starts_with("rm")), "{rows}");
}

#[test]
fn agent_policy_shows_the_effective_policy() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registered(dir.path());
    let work = fixture(dir.path());
    let out = nu(
        &registry,
        &work,
        r#"agent policy | {mode: $in.mode, hook: $in.hook, ttl: ($in.password_ttl | into int), cwd_writable: ($env.PWD in $in.writable), layers: ($in.protections.layers | length), external_sandbox: $in.external_sandbox, note: $in.external_sandbox_note} | to json --raw"#,
    );
    let json: serde_json::Value = serde_json::from_str(stdout_of(&out).trim()).unwrap();
    // Each external runs in its own sandbox on this (Landlock) kernel.
    assert_eq!(json["external_sandbox"], true, "{json}");
    assert!(
        json["note"].as_str().unwrap_or("").starts_with("on:"),
        "{json}"
    );
    assert_eq!(json["mode"], "confirm");
    assert_eq!(json["hook"], false);
    assert_eq!(json["ttl"], 300_000_000_000_i64);
    assert_eq!(json["cwd_writable"], true);
    assert!(json["layers"].as_u64().unwrap() >= 2, "{json}");

    let configured = nu(
        &registry,
        &work,
        r#"$env.config.plugins.agent = {policy: {mode: read-only, block: ["^git push *"], hook: {|plan| "allow"}}}; agent policy | select mode block hook | to json --raw"#,
    );
    assert_eq!(
        stdout_of(&configured).trim(),
        r#"{"mode":"read-only","block":["^git push *"],"hook":true}"#
    );
    let off = nu(
        &registry,
        &work,
        r#"$env.config.plugins.agent = {policy: {external_sandbox: false}}; agent policy | get external_sandbox | to json --raw"#,
    );
    assert_eq!(stdout_of(&off).trim(), "false");
}

#[test]
fn an_invalid_config_names_the_key_and_nothing_runs() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registered(dir.path());
    let work = fixture(dir.path());
    let out = nu(
        &registry,
        &work,
        r#"$env.config.plugins.agent = {policy: {mode: nope}}; agent run --yes "mkdir d""#,
    );
    let stderr = stderr_of(&out);
    assert!(stderr.contains("policy.mode"), "{stderr}");
    assert!(!work.join("d").exists());
    let check = nu(
        &registry,
        &work,
        r#"$env.config.plugins.agent = {policy: {allow: [3]}}; agent policy check "ls""#,
    );
    assert!(stderr_of(&check).contains("policy.allow[0]"));
}

#[test]
fn a_policy_hook_that_says_block_stops_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registered(dir.path());
    let work = fixture(dir.path());
    let out = nu(
        &registry,
        &work,
        r#"$env.config.plugins.agent = {policy: {hook: {|plan| "block"}}}; agent run --yes "mkdir d""#,
    );
    let stderr = stderr_of(&out);
    assert!(stderr.contains("nu_agent::policy::blocked"), "{stderr}");
    assert!(!work.join("d").exists());
}

#[test]
fn the_policy_hook_sees_the_checked_plan() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registered(dir.path());
    let work = fixture(dir.path());
    // Blocks exactly the plan of `ls | length` as checked, lets others pass.
    let hook = r#"{|plan| if ($plan.pipeline == "ls | length" and $plan.verdict == "allow" and ($plan.rows | get command) == ["ls" "length"] and $plan.rows.0.category == "read" and $plan.rows.0.rule == "mode confirm") { "block" } else { "confirm" }}"#;
    let out = nu(
        &registry,
        &work,
        &format!(
            r#"$env.config.plugins.agent = {{policy: {{hook: {hook}}}}}; agent run "ls | length""#
        ),
    );
    let stderr = stderr_of(&out);
    assert!(stderr.contains("nu_agent::policy::blocked"), "{stderr}");

    let other = nu(
        &registry,
        &work,
        &format!(
            r#"$env.config.plugins.agent = {{policy: {{hook: {hook}}}}}; agent run --yes "[1 2] | math sum""#
        ),
    );
    assert_eq!(stdout_of(&other).trim(), "3");

    let bad = nu(
        &registry,
        &work,
        r#"$env.config.plugins.agent = {policy: {hook: {|plan| "perhaps"}}}; agent run "ls""#,
    );
    let stderr = stderr_of(&bad);
    assert!(stderr.contains("policy.hook"), "{stderr}");
    assert!(stderr.contains("perhaps"), "{stderr}");
}

#[test]
fn yes_approves_a_write_and_without_it_non_interactive_nu_denies() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registered(dir.path());
    let work = fixture(dir.path());
    let approved = nu(&registry, &work, r#"agent run --yes "mkdir d""#);
    stdout_of(&approved);
    assert!(work.join("d").is_dir());

    let denied = nu(&registry, &work, r#"agent run "mkdir e""#);
    let stderr = stderr_of(&denied);
    assert!(stderr.contains("nu_agent::policy::denied"), "{stderr}");
    assert!(stderr.contains("not approved"), "{stderr}");
    assert!(stderr.contains("--yes"), "{stderr}");
    assert!(!work.join("e").exists());

    let pattern = nu(
        &registry,
        &work,
        r#"agent run --approve "mkdir f*" "mkdir f1"; agent run --approve "mkdir f*" "mkdir g1""#,
    );
    assert!(!pattern.status.success());
    assert!(work.join("f1").is_dir());
    assert!(!work.join("g1").exists());
}

/// A pre-approval approves only the steps it names, in every form the
/// flag takes: a string, a literal list, a list in a variable, repeated;
/// an empty pattern is an error naming it.
#[test]
fn a_pre_approval_approves_only_the_steps_it_names() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registered(dir.path());
    let work = fixture(dir.path());
    std::fs::write(work.join("victim.bin"), "kept").unwrap();
    for pipeline in [
        "mkdir q8; rm victim.bin",
        "mkdir q8 | ignore; rm victim.bin",
        "[a] | each { mkdir q8; rm victim.bin }",
    ] {
        let out = nu(
            &registry,
            &work,
            &format!("agent run --approve 'mkdir *' '{pipeline}'"),
        );
        let stderr = stderr_of(&out);
        assert!(stderr.contains("not approved"), "{pipeline}: {stderr}");
        assert_eq!(
            std::fs::read_to_string(work.join("victim.bin"))
                .ok()
                .as_deref(),
            Some("kept"),
            "{pipeline}"
        );
    }
    for (script, made) in [
        (r#"agent run --approve ['mkdir *'] "mkdir q3""#, "q3"),
        (
            r#"let patterns = ['^git *' 'mkdir *']; agent run --approve $patterns "mkdir q4""#,
            "q4",
        ),
        (
            r#"agent run --approve 'touch *' --approve 'mkdir *' "mkdir q5; touch q5/f""#,
            "q5/f",
        ),
    ] {
        let out = nu(&registry, &work, script);
        stdout_of(&out);
        assert!(work.join(made).exists(), "{script}");
    }
    let out = nu(&registry, &work, r#"agent run --approve [""] "mkdir q6""#);
    let stderr = stderr_of(&out);
    assert!(stderr.contains("the pattern is empty"), "{stderr}");
    assert!(!work.join("q6").exists());
}

/// `agent run` logs its decision and its run in the state dir's audit log,
/// as `nu-agent run` does.
#[test]
fn agent_run_writes_the_audit_log() {
    use agent_core::store::{AuditEvent, AuditLog};
    let dir = tempfile::tempdir().unwrap();
    let registry = registered(dir.path());
    let work = fixture(dir.path());
    let state = dir.path().join("state");
    let state_env = state.to_string_lossy().into_owned();
    let out = agent_e2e::nu_with_agent_env(
        &registry,
        &work,
        r#"agent run "ls | length""#,
        &[("NU_AGENT_STATE_DIR", &state_env)],
    );
    assert_eq!(stdout_of(&out).trim(), "8");
    let records = AuditLog::read(&state).unwrap();
    let ours: Vec<_> = records
        .iter()
        .filter(|r| r.pipeline == "ls | length")
        .collect();
    let decision = ours
        .iter()
        .find(|r| r.event == AuditEvent::Decision)
        .unwrap_or_else(|| panic!("no decision in {records:?}"));
    assert_eq!(decision.verdict.as_deref(), Some("allow"));
    let ran = ours
        .iter()
        .find(|r| r.event == AuditEvent::Execution)
        .unwrap_or_else(|| panic!("no execution in {records:?}"));
    assert_eq!(ran.verdict.as_deref(), Some("ran"));
    assert!(ran.session.is_some(), "{ran:?}");

    // A refused run is logged too.
    let denied = agent_e2e::nu_with_agent_env(
        &registry,
        &work,
        r#"agent run "mkdir logged""#,
        &[("NU_AGENT_STATE_DIR", &state_env)],
    );
    assert!(!denied.status.success());
    let records = AuditLog::read(&state).unwrap();
    let logged = |event: AuditEvent, verdict: &str| {
        records.iter().any(|r| {
            r.pipeline == "mkdir logged"
                && r.event == event
                && r.verdict.as_deref() == Some(verdict)
        })
    };
    assert!(logged(AuditEvent::Decision, "confirm"), "{records:?}");
    assert!(logged(AuditEvent::Execution, "not run"), "{records:?}");
    assert!(!work.join("logged").exists());
}

/// `--max-output` raises the output cap (64 MiB by default) for one run,
/// or lowers it, and a run cut at the cap says which flag raises it.
#[test]
fn max_output_raises_or_lowers_the_cap_and_the_warning_names_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registered(dir.path());
    let work = fixture(dir.path());
    let out = nu(
        &registry,
        &work,
        r#"agent run --max-output 200MiB "1..2000000 | each {|i| $i} | length""#,
    );
    assert_eq!(stdout_of(&out).trim(), "2000000");

    // 100,000 rows are 588,896 bytes of JSON: cut under 100 KiB, whole
    // under 1 MiB.
    let out = nu(
        &registry,
        &work,
        r#"[(agent run --max-output 100KiB "1..100000 | each {|i| $i}" | length), (agent run --max-output 1MiB "1..100000 | each {|i| $i}" | length)] | to json --raw"#,
    );
    let counts: Vec<u64> = serde_json::from_str(stdout_of(&out).trim()).unwrap();
    assert!(counts[0] < 100_000, "{counts:?}");
    assert_eq!(counts[1], 100_000);

    let out = nu(
        &registry,
        &work,
        r#"agent run --max-output 1KiB "1..100000 | each {|i| $i}" | length"#,
    );
    assert_eq!(stdout_of(&out).trim(), "282");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "warning: agent run: output cut at 1 KiB (282 rows kept, counted as JSON); raise it with --max-output"
        ),
        "{stderr}"
    );

    let out = nu(&registry, &work, r#"agent run --max-output 0b "1""#);
    assert!(!out.status.success());
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains("--max-output must be a size above 0"),
        "{stderr}"
    );
}

/// A cut run succeeds with the part that fits and one warning, whatever
/// the pipeline: the same runs, parts and warnings as `nu-agent run`'s
/// (`a_cut_run_exits_zero_with_the_part_that_fits_and_the_warning` in
/// `cli.rs`).
#[test]
fn a_cut_run_succeeds_with_the_part_that_fits_and_the_warning() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registered(dir.path());
    let work = fixture(dir.path());
    let runs = [
        (
            "^head -c 3000000 /dev/zero",
            "1MiB",
            "str length",
            1usize << 20,
            "output cut at 1 MiB (counted in bytes); raise it with --max-output",
        ),
        (
            "^yes | lines",
            "1KiB",
            "length",
            255,
            "output cut at 1 KiB (255 rows kept, counted as JSON); raise it with --max-output",
        ),
        (
            "1..100000 | each {|i| $i} | collect",
            "1KiB",
            "length",
            282,
            "output cut at 1 KiB (282 rows kept, counted as JSON); raise it with --max-output",
        ),
    ];
    for (pipeline, cap, measure, kept, warning) in runs {
        let out = nu(
            &registry,
            &work,
            &format!("agent run --max-output {cap} '{pipeline}' | {measure}"),
        );
        assert_eq!(stdout_of(&out).trim(), kept.to_string(), "{pipeline}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            stderr
                .matches(&format!("warning: agent run: {warning}"))
                .count(),
            1,
            "{pipeline}: {stderr}"
        );
    }
}

/// A result as big as the cap allows comes back whole through the sandbox
/// worker (the default `workspace-write` mode): 50 MB of NUL bytes (300 MB
/// if it were JSON text).
#[test]
fn a_big_result_comes_back_whole_from_the_sandbox_worker() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registered(dir.path());
    let work = fixture(dir.path());
    let out = nu(
        &registry,
        &work,
        r#"agent run "^head -c 50000000 /dev/zero" | str length"#,
    );
    assert_eq!(stdout_of(&out).trim(), "50000000");
}

/// A run stopped by `--timeout` says so, whatever failed when it struck
/// (an external killed, an `each` cut short).
#[test]
fn a_run_stopped_by_its_time_limit_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registered(dir.path());
    let work = fixture(dir.path());
    for pipeline in ["^sleep 5; 1", "[1 2 3] | each { ^sleep 5 }"] {
        let out = nu(
            &registry,
            &work,
            &format!("agent run --timeout 1sec \"{pipeline}\""),
        );
        let stderr = stderr_of(&out);
        assert!(
            stderr.contains("nu_agent::run::timeout"),
            "{pipeline}: {stderr}"
        );
        assert!(stderr.contains("1s time limit"), "{pipeline}: {stderr}");
        assert!(!stderr.contains("SIGKILL"), "{pipeline}: {stderr}");
        assert!(
            !stderr.contains("Eval block failed"),
            "{pipeline}: {stderr}"
        );
    }
}

/// What a run printed before its time limit comes back, with a warning
/// naming the limit (as its help says), not an error that loses it.
#[test]
fn a_run_stopped_by_its_time_limit_returns_what_it_produced() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registered(dir.path());
    let work = fixture(dir.path());
    let out = nu(
        &registry,
        &work,
        r#"agent run --yes --timeout 1sec "^sh -c 'echo first; sleep 20.313; echo never'" | str trim"#,
    );
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(stdout_of(&out).trim(), "first", "{stderr}");
    assert!(stderr.contains("1s time limit"), "{stderr}");
    assert!(stderr.contains("returning what it produced"), "{stderr}");
}

/// An error inside a closure is told by its cause (the file that is not
/// there), as `nu-agent run` tells it, not by the closure around it.
#[test]
fn an_error_inside_a_closure_is_told_by_its_cause() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registered(dir.path());
    let work = fixture(dir.path());
    let out = nu(
        &registry,
        &work,
        r#"agent run "[1] | each { open nofile.txt }""#,
    );
    let stderr = stderr_of(&out);
    assert!(!out.status.success());
    assert!(stderr.contains("not found"), "{stderr}");
    assert!(stderr.contains("nofile.txt"), "{stderr}");
    assert!(!stderr.contains("Eval block failed"), "{stderr}");
}

/// A name that is neither a command nor a program is an error with the
/// engine's "did you mean" before anything is asked (no terminal here:
/// were it asked, the answer would be a denial).
#[test]
fn a_misspelt_command_is_an_error_with_did_you_mean_not_a_question() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registered(dir.path());
    let work = fixture(dir.path());
    let out = nu(&registry, &work, r#"agent run "lss -la""#);
    let stderr = stderr_of(&out);
    assert!(!out.status.success());
    assert!(stderr.contains("Command `lss` not found"), "{stderr}");
    assert!(stderr.contains("Did you mean `ls`?"), "{stderr}");
    assert!(!stderr.contains("nu_agent::policy::denied"), "{stderr}");
    assert!(!stderr.contains("not approved"), "{stderr}");
}

/// The plan reads at 80 columns: the verdict and why come first, the
/// nested targets after them.
#[test]
fn policy_check_reads_at_80_columns() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registered(dir.path());
    let work = fixture(dir.path());
    let out = stdout_of(&nu(
        &registry,
        &work,
        r#"let plan = (agent policy check "ls | each { rm $in.name }; cp a.txt b.txt; ^curl https://example.com -o x"); print ($plan | columns | str join ' '); $plan | table --width 80"#,
    ));
    let mut lines = out.lines();
    assert_eq!(
        lines.next(),
        Some("verdict category command reason targets rule"),
        "{out}"
    );
    let table = lines.collect::<Vec<_>>().join("\n");
    for shown in ["confirm", "writes files", "cp a.txt b.txt", "deletes"] {
        assert!(table.contains(shown), "{shown} is not shown:\n{table}");
    }
}

/// What `print` writes shows on stderr, as nu's own `print` does; the
/// value is the output.
#[test]
fn print_in_agent_run_shows_on_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registered(dir.path());
    let work = fixture(dir.path());
    let out = nu(
        &registry,
        &work,
        r#"agent run "print hello; ^echo hi; 5" | to nuon"#,
    );
    assert_eq!(stdout_of(&out).trim(), "5");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("hello"), "{stderr}");
    // An earlier statement's external output shows too, as in nu.
    assert!(stderr.contains("hi"), "{stderr}");
}

/// Piped input is the pipeline's input: `ls | agent run "length"`.
#[test]
fn piped_input_is_the_pipelines_input() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registered(dir.path());
    let work = fixture(dir.path());
    let out = nu(
        &registry,
        &work,
        r#"{n: (ls | agent run "length"), first: ([3 1 2] | agent run "sort | first"), none: (agent run "$in | describe")} | to nuon"#,
    );
    let expected = format!(
        "{{n: {}, first: 1, none: nothing}}",
        std::fs::read_dir(&work).unwrap().count()
    );
    assert_eq!(stdout_of(&out).trim(), expected);
}
