//! Background jobs in a real nu 0.115 host: `agent job run`, `wait`,
//! `result`, `cancel`, `approve`/`deny`, `list` after the plugin is gone,
//! and the plugin kept alive while jobs run.

use std::{
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use agent_e2e::{
    nu_with_agent_env, register_plugin,
    replay::{ReplayServer, Turn},
    stdout_of,
};

struct Setup {
    dir: tempfile::TempDir,
    registry: PathBuf,
    work: PathBuf,
}

fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let registry = register_plugin(dir.path());
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    Setup {
        dir,
        registry,
        work,
    }
}

impl Setup {
    fn nu(&self, script: &str) -> std::process::Output {
        self.nu_env(script, &[])
    }

    fn nu_env(&self, script: &str, env: &[(&str, &str)]) -> std::process::Output {
        let state = self.dir.path().join("state").display().to_string();
        let cache = self.dir.path().join("cache").display().to_string();
        let mut all = vec![
            ("NU_AGENT_STATE_DIR", state.as_str()),
            ("NU_AGENT_CACHE", cache.as_str()),
        ];
        all.extend_from_slice(env);
        nu_with_agent_env(&self.registry, &self.work, script, &all)
    }

    /// `script` with the plugin's model at `server`.
    fn nu_model(&self, server: &ReplayServer, script: &str) -> std::process::Output {
        let url = server.url();
        self.nu_env(script, &[("NU_AGENT_BACKEND_URL", url.as_str())])
    }
}

/// Processes whose command line contains `marker`.
fn processes_with(marker: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let zombie = std::fs::read_to_string(entry.path().join("stat"))
            .map(|s| s.contains(") Z "))
            .unwrap_or(true);
        if zombie {
            continue;
        }
        if let Ok(cmd) = std::fs::read(entry.path().join("cmdline"))
            && String::from_utf8_lossy(&cmd)
                .replace('\0', " ")
                .contains(marker)
        {
            found.push(pid);
        }
    }
    found
}

/// Processes whose working directory lies under `dir`.
fn processes_in(dir: &Path) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if let Ok(cwd) = std::fs::read_link(entry.path().join("cwd"))
            && cwd.starts_with(dir)
        {
            found.push(pid);
        }
    }
    found
}

fn settle(mut gone: impl FnMut() -> bool, limit: Duration) -> bool {
    let started = Instant::now();
    while started.elapsed() < limit {
        if gone() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    gone()
}

#[test]
fn a_job_runs_past_the_plugin_gc_and_returns_its_value() {
    let s = setup();
    let out = s.nu(
        r#"$env.config.plugin_gc = {default: {enabled: true, stop_after: 100ms}, plugins: {}}
        let id = (agent job run "sleep 2sec; {answer: 42}")
        let pid = (plugin list | where name == agent | get pid.0)
        sleep 1500ms
        let record = (agent job wait $id)
        {status: $record.status, result: (agent job result $id), same_plugin: ((plugin list | where name == agent | get pid.0) == $pid)} | to nuon"#,
    );
    assert_eq!(
        stdout_of(&out).trim(),
        "{status: completed, result: {answer: 42}, same_plugin: true}"
    );
}

#[test]
fn cancel_ends_the_job_and_every_process_under_it() {
    let s = setup();
    let marker = "sleep 1234";
    let out = s.nu(&format!(
        r#"let id = (agent job run --yes "^sh -c '{marker} & {marker}'")
        sleep 1500ms
        let record = (agent job cancel $id)
        $record.status"#
    ));
    assert_eq!(stdout_of(&out).trim(), "cancelled");
    assert!(
        settle(|| processes_with(marker).is_empty(), Duration::from_secs(6)),
        "left running: {:?}",
        processes_with(marker)
    );
}

#[test]
fn fifty_jobs_under_the_limit_all_finish_once_with_their_values() {
    let s = setup();
    let out = s.nu(
        r#"$env.config.plugins = {agent: {agent: {jobs: {max_running: 4}}}}
        let ids = (1..50 | each {|i| agent job run $"($i) * 2"})
        let values = ($ids | each {|id| agent job wait $id; agent job result $id})
        let list = (agent job list)
        {sum: ($values | math sum), completed: ($list | where status == completed | length), jobs: ($list | length)} | to nuon"#,
    );
    assert_eq!(
        stdout_of(&out).trim(),
        "{sum: 2550, completed: 50, jobs: 50}"
    );
    // Each job ran exactly once: one `running` line in each event log.
    let jobs = s.dir.path().join("state/jobs");
    for id in 1..=50 {
        let events =
            std::fs::read_to_string(jobs.join(id.to_string()).join("events.jsonl")).unwrap();
        assert_eq!(
            events.matches("\"status\":\"running\"").count(),
            1,
            "job {id}"
        );
    }
}

/// `--approve 'mkdir *'` on a job approves its `mkdir` and never a step
/// chained after it: the job fails, nothing is deleted.
#[test]
fn a_job_s_pre_approval_approves_only_the_steps_it_names() {
    let s = setup();
    std::fs::write(s.work.join("victim.bin"), "kept").unwrap();
    let out = s.nu(
        r#"let chained = (agent job run --approve 'mkdir *' "mkdir q8; rm victim.bin" | agent job wait $in)
        let alone = (agent job run --approve ['mkdir *'] "mkdir q9" | agent job wait $in)
        {chained: $chained.status, why: ($chained.error | str contains 'not approved'), alone: $alone.status} | to nuon"#,
    );
    assert_eq!(
        stdout_of(&out).trim(),
        "{chained: failed, why: true, alone: completed}"
    );
    assert_eq!(
        std::fs::read_to_string(s.work.join("victim.bin"))
            .ok()
            .as_deref(),
        Some("kept")
    );
    assert!(!s.work.join("q8").exists());
    assert!(s.work.join("q9").is_dir());
}

#[test]
fn a_job_that_needs_approval_waits_and_goes_on_when_approved_or_denied() {
    let s = setup();
    let out = s.nu(
        r#"let yes = (agent job run "mkdir made")
        let no = (agent job run "mkdir refused")
        sleep 1sec
        let waiting = (agent job list | where status == waiting | get waiting_for)
        agent job approve $yes | ignore
        agent job deny $no | ignore
        let a = (agent job wait $yes)
        let b = (agent job wait $no)
        {waiting: ($waiting | length), mentions: ($waiting | str join ' ' | str contains 'made'), approved: $a.status, denied: $b.status, why: ($b.error | str contains 'not approved'), denied_by_you: ($b.error | str contains 'you denied this step'), approve: ($b.error | str contains 'agent job approve'), prompt: ($b.error | str contains 'at the prompt')} | to nuon"#,
    );
    assert_eq!(
        stdout_of(&out).trim(),
        "{waiting: 2, mentions: true, approved: completed, denied: failed, why: true, denied_by_you: true, approve: false, prompt: false}"
    );
    assert!(s.work.join("made").is_dir());
    assert!(!s.work.join("refused").exists());
}

/// In `nu -c` a job starts with a warning that it dies with this nu; once
/// lost, its duration no longer grows.
#[test]
fn a_job_in_nu_c_warns_that_it_dies_with_nu_and_a_lost_one_stops_its_clock() {
    let s = setup();
    let out = s.nu(r#"agent job run "sleep 100sec""#);
    let id = stdout_of(&out).trim().to_string();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("warning: job {id} runs inside this nu")),
        "{stderr}"
    );
    let status = |s: &Setup| {
        stdout_of(&s.nu(&format!(
            "agent job status {id} | select status duration | update duration {{ into int }} | to nuon"
        )))
    };
    let first = status(&s);
    assert!(first.contains("status: lost"), "{first}");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(status(&s), first);
}

#[test]
fn a_job_asks_for_a_read_that_obeys_the_workspaces_configuration() {
    // man -C names the programs man runs: a background job waits for the
    // user like a foreground run, and denied, the payload never runs.
    let s = setup();
    let payload = s.work.join("payload.sh");
    std::fs::write(
        &payload,
        format!("#!/bin/sh\ntouch {}/MARK\ncat\n", s.work.display()),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&payload, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(
        s.work.join("man.conf"),
        format!("DEFINE nroff {}\n", payload.display()),
    )
    .unwrap();
    std::fs::write(s.work.join("x.1"), ".TH X 1\n.SH NAME\nx \\- y\n").unwrap();
    let out = s.nu(r#"let id = (agent job run "^man -C man.conf -l x.1")
        sleep 1sec
        let waiting = (agent job list | where id == $id | get waiting_for | str join ' ')
        agent job deny $id | ignore
        let done = (agent job wait $id)
        {status: $done.status, asked: ($waiting | str contains 'man -C man.conf'), denied: ($done.error | str contains 'not approved')} | to nuon"#);
    assert_eq!(
        stdout_of(&out).trim(),
        "{status: failed, asked: true, denied: true}",
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!s.work.join("MARK").exists(), "the payload ran");
}

#[test]
fn after_plugin_stop_finished_jobs_stay_and_interrupted_ones_are_lost() {
    let s = setup();
    let out = s.nu(
        r#"let done = (agent job run "'kept'")
        agent job wait $done | ignore
        let long = (agent job run "sleep 100sec")
        sleep 1sec
        plugin stop agent
        sleep 500ms
        let list = (agent job list)
        {done: ($list | where id == $done | get status.0), result: (agent job result $done), long: ($list | where id == $long | get status.0)} | to nuon"#,
    );
    assert_eq!(
        stdout_of(&out).trim(),
        "{done: completed, result: kept, long: lost}"
    );
    assert!(
        settle(|| processes_in(&s.work).is_empty(), Duration::from_secs(2)),
        "left running: {:?}",
        processes_in(&s.work)
    );
}

#[test]
fn after_sigkill_of_the_plugin_the_job_is_lost_and_nothing_is_left() {
    let s = setup();
    let out = s.nu(r#"let long = (agent job run "sleep 100sec")
        sleep 1sec
        let pid = (plugin list | where name == agent | get pid.0)
        ^kill -9 $pid
        sleep 1sec
        agent job status $long | get status"#);
    assert_eq!(stdout_of(&out).trim(), "lost");
    assert!(
        settle(|| processes_in(&s.work).is_empty(), Duration::from_secs(2)),
        "left running: {:?}",
        processes_in(&s.work)
    );
}

/// A job that did not complete has no result: `agent job result` is an
/// error naming its status, not `null` or nothing.
#[test]
fn the_result_of_a_failed_cancelled_or_running_job_is_an_error_naming_its_status() {
    let s = setup();
    let out = s.nu(r#"let failed = (agent job run "error make {msg: 'boom'}")
        agent job wait $failed | ignore
        let cancelled = (agent job run "sleep 100sec")
        sleep 500ms
        agent job cancel $cancelled | ignore
        let running = (agent job run "sleep 100sec")
        sleep 500ms
        let why = {|id| try { agent job result $id; "a result" } catch {|e| $e.msg } }
        [(do $why $failed) (do $why $cancelled) (do $why $running)] | str join (char nl)"#);
    let stdout = stdout_of(&out);
    let messages: Vec<&str> = stdout.trim().lines().collect();
    assert_eq!(messages.len(), 3, "{messages:?}: {out:?}");
    assert!(
        messages[0].starts_with("job 1 has no result: it failed: boom"),
        "{messages:?}"
    );
    assert_eq!(messages[1], "job 2 has no result: it was cancelled");
    assert_eq!(messages[2], "job 3 has no result: it is still running");
}

#[test]
fn an_unknown_id_is_an_error_at_the_id() {
    let s = setup();
    let out = s.nu("agent job result 99");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("there is no job 99"), "{stderr}");
    assert!(stderr.contains("agent job list"), "{stderr}");
}

#[test]
fn ask_sends_a_long_step_to_the_background_and_answers_with_its_data() {
    let s = setup();
    let server = ReplayServer::start(vec![
        Turn::call(
            "nu",
            serde_json::json!({"pipeline": "sleep 1sec; {answer: 42}", "why": "long", "background": true}),
        ),
        Turn::call(
            "answer",
            serde_json::json!({"text": "here it is", "out": 0}),
        ),
    ]);
    let out = s.nu_model(
        &server,
        r#"ask "compute the answer in the background" | to nuon"#,
    );
    assert_eq!(stdout_of(&out).trim(), "{answer: 42}");
    let told = server.shown(1);
    assert!(told.contains("Started as background job 1"), "{told}");
    assert!(
        told.contains(
            "[event] background job 1 (`sleep 1sec; {answer: 42}`) completed; its result is $out.0"
        ),
        "{told}"
    );
}

/// A step the model alone sends to the background (the user did not ask
/// for one) runs here first: a quick one gives its result at once, no job.
#[test]
fn a_quick_step_the_model_alone_sends_to_the_background_runs_at_once() {
    let s = setup();
    let server = ReplayServer::start(vec![
        Turn::call(
            "nu",
            serde_json::json!({"pipeline": "6 * 7", "why": "compute", "background": true}),
        ),
        Turn::call(
            "answer",
            serde_json::json!({"text": "here it is", "out": 0}),
        ),
    ]);
    let out = s.nu_model(
        &server,
        r#"{answer: (ask "compute the answer"), jobs: (agent job list | length)} | to nuon"#,
    );
    assert_eq!(stdout_of(&out).trim(), "{answer: 42, jobs: 0}");
    let told = server.shown(1);
    assert!(!told.contains("background job"), "{told}");
    assert!(told.contains("$out.0\n42"), "{told}");
}

#[test]
fn a_step_past_promote_after_becomes_a_job() {
    let s = setup();
    let server = ReplayServer::start(vec![
        Turn::nu("sleep 3sec; 'slow'"),
        Turn::answer("it goes on in the background"),
    ]);
    let out = s.nu_model(
        &server,
        r#"$env.config.plugins = {agent: {agent: {promote_after: 1sec}}}
        let answer = (ask "do the slow thing")
        let record = (agent job wait 1)
        {answer: $answer, status: $record.status, result: (agent job result 1)} | to nuon"#,
    );
    assert_eq!(
        stdout_of(&out).trim(),
        "{answer: \"it goes on in the background\", status: completed, result: slow}"
    );
    let told = server.shown(1);
    assert!(told.contains("goes on as background job 1"), "{told}");
}

#[test]
fn a_denied_step_of_a_task_job_is_explained_to_the_model() {
    let s = setup();
    let server = ReplayServer::start(vec![
        Turn::nu("mkdir made"),
        Turn::answer("I could not make it"),
    ]);
    let out = s.nu_model(
        &server,
        r#"let id = (agent job spawn "make a directory")
        sleep 1500ms
        let waiting = (agent job status $id)
        agent job deny $id | ignore
        let record = (agent job wait $id)
        {waiting: $waiting.status, status: $record.status, answer: (agent job result $id), logged: ((agent job logs $id | where event == log | length) > 0)} | to nuon"#,
    );
    assert_eq!(
        stdout_of(&out).trim(),
        "{waiting: waiting, status: completed, answer: \"I could not make it\", logged: true}"
    );
    let told = server.shown(1);
    assert!(told.contains("the user did not approve it"), "{told}");
    assert!(!s.work.join("made").exists());
}

#[test]
fn ask_bg_returns_an_id_and_the_next_ask_shows_a_waiting_job() {
    let s = setup();
    let server = ReplayServer::start(vec![
        Turn::answer("background answer"),
        Turn::answer("foreground answer"),
    ]);
    let out = s.nu_model(
        &server,
        r#"let task = (ask --bg "say something")
        agent job wait $task | ignore
        let waiting = (agent job run "mkdir made")
        sleep 1sec
        let answer = (ask "and now?")
        {task: (agent job result $task), answer: $answer, waiting: (agent job status $waiting | get status)} | to nuon"#,
    );
    assert_eq!(
        stdout_of(&out).trim(),
        "{task: \"background answer\", answer: \"foreground answer\", waiting: waiting}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("background job 2 waits for your approval")
            && stderr.contains("agent job approve 2"),
        "{stderr}"
    );
}
