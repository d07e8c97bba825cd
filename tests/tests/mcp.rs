//! `nu-agent mcp` driven by a real MCP client: the official Python SDK
//! (`mcp` from PyPI, installed by `nu-scripts/install-mcp-client.sh`, named
//! by `$NU_AGENT_MCP_PYTHON`), through `tests/mcp/client.py`. Each test
//! runs one of its scenarios in a world of its own (a temp home, workspace,
//! temp and state dir) and judges what the client saw and what changed on
//! disk.
//!
//! Without `$NU_AGENT_MCP_PYTHON` the tests say so and pass;
//! `nu-scripts/test.sh` (and so CI) always sets it.

use std::{
    io::Read,
    path::{Path, PathBuf},
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use agent_core::policy::Verdict;
use agent_e2e::{
    redteam::{BLOCKED_AT_RUN_TIME, CASES, canaries, fixture},
    redteam_forms, workspace_binary,
};
use serde_json::{Value, json};

/// The longest one scenario may take before the harness kills it.
const DEADLINE: Duration = Duration::from_secs(300);

/// The client's python, or `None` (with a note) when it is not installed.
fn python() -> Option<PathBuf> {
    match std::env::var_os("NU_AGENT_MCP_PYTHON") {
        Some(path) if !path.is_empty() => Some(PathBuf::from(path)),
        _ => {
            eprintln!(
                "skipped: NU_AGENT_MCP_PYTHON is not set (run nu-scripts/install-mcp-client.sh, or nu-scripts/test.sh)"
            );
            None
        }
    }
}

fn client_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("mcp/client.py")
}

/// A home, a workspace inside it, a temp and a state dir.
struct World {
    _root: tempfile::TempDir,
    home: PathBuf,
    workspace: PathBuf,
    tmp: PathBuf,
    state: PathBuf,
}

impl World {
    fn new() -> World {
        let root = tempfile::tempdir().expect("temp dir");
        let home = root.path().join("home");
        let workspace = home.join("ws");
        let tmp = root.path().join("tmp");
        let state = root.path().join("state");
        for dir in [&workspace, &tmp, &state] {
            std::fs::create_dir_all(dir).expect("create a world dir");
        }
        World {
            home,
            workspace,
            tmp,
            state,
            _root: root,
        }
    }

    /// Run `scenario` of the client against `nu-agent mcp <server_args>`
    /// started in the workspace; what the client found.
    fn client(
        &self,
        python: &Path,
        scenario: &str,
        client_args: &[&str],
        server_args: &[&str],
    ) -> Value {
        scenario_in(
            python,
            Places {
                home: &self.home,
                workspace: &self.workspace,
                tmp: &self.tmp,
                state: &self.state,
            },
            scenario,
            client_args,
            server_args,
        )
    }

    /// The audit log's records.
    fn audit(&self) -> Vec<Value> {
        std::fs::read_to_string(self.state.join("audit.jsonl"))
            .unwrap_or_default()
            .lines()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect()
    }
}

/// Where a scenario runs.
#[derive(Clone, Copy)]
struct Places<'a> {
    home: &'a Path,
    workspace: &'a Path,
    tmp: &'a Path,
    state: &'a Path,
}

fn scenario_in(
    python: &Path,
    places: Places,
    scenario: &str,
    client_args: &[&str],
    server_args: &[&str],
) -> Value {
    let mut command = Command::new(python);
    command
        .arg(client_script())
        .arg(scenario)
        .args(client_args)
        .arg("--")
        .arg(workspace_binary("nu-agent"))
        .arg("mcp")
        .args(server_args)
        .current_dir(places.workspace)
        .env_clear()
        .env("HOME", places.home)
        .env("TMPDIR", places.tmp)
        .env("NU_AGENT_STATE_DIR", places.state)
        .env("NO_COLOR", "1")
        .env("LANG", "C.UTF-8")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(path) = std::env::var_os("PATH") {
        command.env("PATH", path);
    }
    let mut child = command.spawn().expect("start the MCP client");
    let mut stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let out = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout.read_to_string(&mut text);
        text
    });
    let err = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for the client") {
            break Some(status);
        }
        if started.elapsed() > DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let stdout = out.join().unwrap_or_default();
    let stderr = err.join().unwrap_or_default();
    let status = status.unwrap_or_else(|| {
        panic!("the {scenario} scenario ran past {DEADLINE:?}\nstderr:\n{stderr}")
    });
    assert!(
        status.success(),
        "the {scenario} scenario failed ({status})\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!("the client printed no JSON ({e}):\n{stdout}\nstderr:\n{stderr}")
    })
}

fn text(found: &Value) -> &str {
    found["text"].as_str().unwrap_or_default()
}

fn is_error(found: &Value) -> bool {
    found["is_error"].as_bool() == Some(true)
}

#[test]
fn initialize_list_tools_run_and_keep_the_session_between_calls() {
    let Some(python) = python() else { return };
    let world = World::new();
    for name in ["a.txt", "b.txt", "c.txt"] {
        std::fs::write(world.workspace.join(name), name).expect("write");
    }
    std::fs::create_dir(world.workspace.join("sub")).expect("sub");
    std::fs::write(world.workspace.join("sub/inner.txt"), "x").expect("write");
    let found = world.client(&python, "basics", &[], &[]);

    assert_eq!(found["server"], "nu-agent");
    assert!(text(&json!({"text": found["instructions"]})).contains("$out.N"));
    assert_eq!(
        found["tools"],
        json!([
            "check",
            "help",
            "job_cancel",
            "job_result",
            "job_run",
            "job_status",
            "run"
        ])
    );
    // `ls | length`: the number, as structured content.
    assert!(!is_error(&found["count"]), "{}", found["count"]);
    assert_eq!(found["count"]["structured"]["value"], 4);
    assert_eq!(found["count"]["structured"]["out"], 0);
    // A variable, a def and the directory carry over between calls.
    assert_eq!(found["use"]["structured"]["value"], 6);
    assert_eq!(found["call_def"]["structured"]["value"], 42);
    assert_eq!(
        found["after_cd"]["structured"]["value"],
        json!(["inner.txt"])
    );
    assert_eq!(found["out"]["structured"]["value"], 104);
    // check: block, with the reason and the rule.
    assert_eq!(found["check"]["structured"]["verdict"], "block");
    let row = &found["check"]["structured"]["rows"][0];
    assert_eq!(row["rule"], "protected path");
    assert!(
        row["reason"]
            .as_str()
            .is_some_and(|r| r.contains("home directory")),
        "{row}"
    );
    // The same pipeline through run: a tool error with the reason.
    assert!(is_error(&found["blocked_run"]));
    assert!(
        text(&found["blocked_run"]).contains("blocked by the user's policy")
            && text(&found["blocked_run"]).contains("protected path"),
        "{}",
        found["blocked_run"]
    );
    // A parse error: nu's diagnostic.
    assert!(is_error(&found["parse_error"]));
    assert!(
        text(&found["parse_error"]).contains("nu::parser::"),
        "{}",
        found["parse_error"]
    );
    assert!(text(&found["help"]).starts_with("sort-by: "));
    assert!(is_error(&found["bad_args"]));
    assert!(text(&found["bad_args"]).contains("must be a string"));
    // $out.0 as a resource.
    assert_eq!(found["resource"], 4);
    assert!(
        found["resources"]
            .as_array()
            .is_some_and(|r| r.contains(&json!("nu-agent://out/0")))
    );
    // The audit log names the client on every record.
    let audit = world.audit();
    assert!(audit.iter().any(|r| r["pipeline"] == "ls | length"));
    assert!(audit.iter().any(|r| r["pipeline"] == "rm -rf ~"));
    for record in &audit {
        assert_eq!(record["client"], "nu-agent-tests", "{record}");
    }
}

/// A world with `gone.txt` to delete (`rm` asks in the default mode).
fn confirm_world() -> World {
    let world = World::new();
    std::fs::write(world.workspace.join("gone.txt"), "keep me?").expect("write");
    world
}

#[test]
fn a_confirm_step_runs_when_the_user_answers_yes_through_elicitation() {
    let Some(python) = python() else { return };
    let world = confirm_world();
    let found = world.client(&python, "confirm", &["--answer", "yes"], &[]);
    assert!(!is_error(&found["run"]), "{}", found["run"]);
    assert!(!world.workspace.join("gone.txt").exists());
    let asked = found["asked"].as_array().cloned().unwrap_or_default();
    assert_eq!(asked.len(), 1, "{found}");
    let message = asked[0]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("gone.txt") && message.contains("rm gone.txt"),
        "{message}"
    );
    let choices = asked[0]["schema"]["properties"]["answer"]["oneOf"].to_string();
    assert!(
        choices.contains("yes") && choices.contains("no") && choices.contains("always"),
        "{choices}"
    );
    let audit = world.audit();
    assert!(
        audit.iter().any(|r| r["pipeline"] == "rm gone.txt"
            && r["verdict"] == "ran"
            && r["approved_by"]
                .as_str()
                .is_some_and(|by| by.contains("nu-agent-tests"))),
        "{audit:?}"
    );
}

#[test]
fn a_confirm_step_answered_no_is_denied_and_changes_nothing() {
    let Some(python) = python() else { return };
    for answer in ["no", "decline"] {
        let world = confirm_world();
        let found = world.client(&python, "confirm", &["--answer", answer], &[]);
        assert!(is_error(&found["run"]), "{answer}: {}", found["run"]);
        assert!(
            text(&found["run"]).contains("the user did not approve it"),
            "{answer}: {}",
            found["run"]
        );
        assert_eq!(
            std::fs::read_to_string(world.workspace.join("gone.txt")).ok(),
            Some("keep me?".into()),
            "{answer}"
        );
        assert_eq!(found["asked"].as_array().map(Vec::len), Some(1));
    }
}

#[test]
fn a_client_without_elicitation_is_denied_with_the_pre_approval_hint() {
    let Some(python) = python() else { return };
    let world = confirm_world();
    let found = world.client(&python, "confirm", &["--answer", "none"], &[]);
    let run = &found["run"];
    assert!(is_error(run), "{run}");
    assert!(
        text(run).contains("does not support elicitation")
            && text(run).contains("nu-agent mcp --approve 'rm gone.txt'")
            && text(run).contains("policy.allow"),
        "{run}"
    );
    assert!(world.workspace.join("gone.txt").exists());

    // Approved in advance on the server's command line, it runs.
    let found = world.client(
        &python,
        "confirm",
        &["--answer", "none"],
        &["--approve", "rm gone.txt"],
    );
    assert!(!is_error(&found["run"]), "{}", found["run"]);
    assert!(!world.workspace.join("gone.txt").exists());
}

/// `nu-agent mcp --approve 'mkdir *'` approves a `mkdir` and never a
/// step chained after it: that one is asked of the client (denied here,
/// where the client cannot be asked).
#[test]
fn a_pre_approval_approves_only_the_steps_it_names() {
    let Some(python) = python() else { return };
    let world = confirm_world();
    let found = world.client(
        &python,
        "one_run",
        &["--pipeline", "mkdir q8; rm gone.txt"],
        &["--approve", "mkdir *"],
    );
    assert!(is_error(&found["run"]), "{}", found["run"]);
    assert!(world.workspace.join("gone.txt").exists());
    assert!(!world.workspace.join("q8").exists());

    let found = world.client(
        &python,
        "one_run",
        &["--pipeline", "mkdir q9"],
        &["--approve", "mkdir *"],
    );
    assert!(!is_error(&found["run"]), "{}", found["run"]);
    assert!(world.workspace.join("q9").is_dir());
}

#[test]
fn an_allowed_read_runs_under_the_read_only_launcher() {
    let Some(python) = python() else { return };
    let world = World::new();
    let ws = &world.workspace;
    // A repository whose configuration runs a payload on `git status`: a
    // read the grammar allows, whose write the OS must stop.
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args(["-c", "user.email=t@example.com", "-c", "user.name=t"])
            .args(args)
            .current_dir(ws)
            .env("HOME", &world.home)
            .output()
            .expect("git");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    std::fs::write(ws.join("notes.md"), "hi\n").expect("write");
    git(&["init", "-q", "."]);
    git(&["add", "notes.md"]);
    git(&["commit", "-qm", "init"]);
    let payload = ws.join("payload.sh");
    std::fs::write(
        &payload,
        format!(
            "#!/bin/sh\ntouch {}/MARK\necho payload ran >&2\nexit 0\n",
            ws.display()
        ),
    )
    .expect("payload");
    let mut perms = std::fs::metadata(&payload).expect("meta").permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&payload, perms).expect("chmod");
    git(&["config", "core.fsmonitor", &payload.to_string_lossy()]);

    let found = world.client(&python, "readonly", &[], &[]);
    assert_eq!(found["check"]["structured"]["verdict"], "allow");
    assert_eq!(found["check"]["structured"]["rows"][0]["category"], "read");
    let run = &found["run"];
    assert!(!is_error(run), "{run}");
    // The payload ran, and its write was refused by the OS.
    assert!(text(run).contains("payload ran"), "{run}");
    assert!(text(run).contains("Permission denied"), "{run}");
    assert!(!ws.join("MARK").exists(), "the read wrote its marker");
}

#[test]
fn a_job_runs_in_the_background_and_gives_its_result() {
    let Some(python) = python() else { return };
    let world = World::new();
    let found = world.client(&python, "job", &[], &[]);
    let id = found["id"].as_u64().expect("a job id");
    assert!(!is_error(&found["result"]), "{}", found["result"]);
    assert_eq!(found["result"]["structured"]["status"], "completed");
    assert_eq!(
        found["result"]["structured"]["value"],
        json!({"answer": 42})
    );
    assert_eq!(found["resource"], json!({"answer": 42}));
    assert!(is_error(&found["missing"]));
    // A job that did not complete has no result: an error naming its status.
    assert!(is_error(&found["cancelled"]), "{}", found["cancelled"]);
    assert_eq!(found["cancelled"]["structured"]["status"], "cancelled");
    // The record is the plugin's: `nu-agent job` (like `agent job list`
    // in nu) reads it from the same state dir.
    let out = Command::new(workspace_binary("nu-agent"))
        .args(["job", "status", &id.to_string(), "--json"])
        .env("NU_AGENT_STATE_DIR", &world.state)
        .env("HOME", &world.home)
        .output()
        .expect("nu-agent job status");
    let record: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    assert_eq!(record["status"], "completed", "{record}");
}

#[test]
fn cancelling_a_run_stops_the_step_and_kills_its_processes() {
    let Some(python) = python() else { return };
    let world = World::new();
    let found = world.client(&python, "cancel", &[], &[]);
    assert!(
        found["seen"].as_array().is_some_and(|s| !s.is_empty()),
        "the long step never started: {found}"
    );
    assert!(
        found["gone_after"].as_f64().is_some_and(|s| s < 5.0),
        "its process outlived the cancel: {found}"
    );
    // The session goes on, with what it held.
    assert_eq!(found["after"]["structured"]["value"], 8, "{found}");
}

#[test]
fn twenty_concurrent_calls_from_one_client_hold() {
    let Some(python) = python() else { return };
    let world = World::new();
    let found = world.client(&python, "concurrent", &[], &[]);
    let results = found["results"].as_array().cloned().unwrap_or_default();
    assert_eq!(results.len(), 20);
    let mut outs = Vec::new();
    for (i, result) in results.iter().enumerate() {
        assert!(!is_error(result), "{result}");
        assert_eq!(result["structured"]["value"], json!(i * 3), "{result}");
        outs.push(result["structured"]["out"].as_u64().expect("out"));
    }
    outs.sort_unstable();
    assert_eq!(outs, (0..20).collect::<Vec<u64>>());
}

#[test]
fn three_clients_at_once_hold() {
    let Some(python) = python() else { return };
    let world = World::new();
    let found = world.client(&python, "clients", &[], &[]);
    for n in 0..3u64 {
        let mine = found[n.to_string()].as_array().cloned().unwrap_or_default();
        assert_eq!(mine.len(), 5, "{found}");
        for (i, result) in mine.iter().enumerate() {
            assert_eq!(result["structured"]["value"], json!(n * 100 + i as u64));
        }
    }
    let clients: std::collections::BTreeSet<String> = world
        .audit()
        .iter()
        .filter_map(|r| r["client"].as_str().map(String::from))
        .collect();
    assert_eq!(
        clients.into_iter().collect::<Vec<_>>(),
        vec!["client-0", "client-1", "client-2"]
    );
}

/// The red-team corpus through the MCP tools: `check` gives every case its
/// verdict (as the static layer does); `run` runs no `block`, `confirm` or
/// `refuse` case (a client without elicitation, nothing approved) and
/// every `allow` case, and the fixture's canaries stay as they were.
#[test]
fn the_red_team_corpus_meets_its_verdicts_through_mcp() {
    let Some(python) = python() else { return };
    let f = fixture().expect("the red-team fixture");
    let tmp = f.root.path().join("tmp");
    let state = f.root.path().join("state");
    for dir in [&tmp, &state] {
        std::fs::create_dir_all(dir).expect("create a fixture dir");
    }
    let before = canaries(&f);
    let cases: Vec<_> = CASES.iter().chain(redteam_forms::all()).collect();
    let listed: Vec<Value> = cases
        .iter()
        .map(|case| {
            json!({
                "id": case.id,
                "pipeline": case.pipeline,
                "run": true,
                "fresh": case.expect == Verdict::Allow,
            })
        })
        .collect();
    let file = f.root.path().join("cases.json");
    std::fs::write(&file, serde_json::to_string(&listed).expect("json")).expect("write cases");
    let found = scenario_in(
        &python,
        Places {
            home: &f.home,
            workspace: &f.workspace,
            tmp: &tmp,
            state: &state,
        },
        "redteam",
        &["--cases", &file.to_string_lossy()],
        &[],
    );
    let found: Vec<Value> = found.as_array().cloned().unwrap_or_default();
    assert_eq!(found.len(), cases.len());
    let mut wrong = Vec::new();
    for (case, got) in cases.iter().zip(&found) {
        assert_eq!(got["id"], case.id);
        let expect = if BLOCKED_AT_RUN_TIME.contains(&case.id) {
            Verdict::Confirm
        } else {
            case.expect
        };
        let verdict = got["check"]["structured"]["verdict"]
            .as_str()
            .unwrap_or_default();
        if verdict != expect.as_str() {
            wrong.push(format!(
                "{} {:?}: check gave {verdict}, expected {expect}",
                case.id,
                case.pipeline.chars().take(100).collect::<String>()
            ));
        }
        let run = &got["run"];
        let stopped = text(run).starts_with("Not run:")
            || text(run).starts_with("This pipeline does not parse");
        let ok = match case.expect {
            Verdict::Allow => !stopped,
            Verdict::Block | Verdict::Confirm | Verdict::Refuse => is_error(run) && stopped,
        };
        if !ok {
            wrong.push(format!(
                "{} {:?}: run expected {}: {}",
                case.id,
                case.pipeline.chars().take(100).collect::<String>(),
                case.expect,
                text(run).chars().take(300).collect::<String>()
            ));
        }
    }
    assert_eq!(canaries(&f), before, "a canary changed");
    assert!(
        wrong.is_empty(),
        "{} of {} cases wrong:\n{}",
        wrong.len(),
        cases.len(),
        wrong.join("\n")
    );
}

// ---- streamable HTTP (`nu-agent mcp --http 127.0.0.1:0`) ----
//
// The client starts one server for the scenario, reads its address and
// bearer token from stderr, opens every connection as an MCP session of
// its own over HTTP, and stops the server with SIGTERM at the end.

/// What an HTTP scenario found, after checking what the server itself did:
/// it listened on loopback on the port it picked, printed a token, and
/// stopped cleanly on SIGTERM.
fn over_http(world: &World, python: &Path, scenario: &str, client_args: &[&str]) -> Value {
    let mut args = vec!["--http"];
    args.extend_from_slice(client_args);
    let ran = world.client(python, scenario, &args, &[]);
    let url = ran["url"].as_str().unwrap_or_default();
    let port = url
        .strip_prefix("http://127.0.0.1:")
        .and_then(|rest| rest.strip_suffix("/mcp"))
        .and_then(|port| port.parse::<u16>().ok());
    assert!(port.is_some_and(|p| p != 0), "{ran}");
    let log = ran["server_log"].as_str().unwrap_or_default();
    assert!(log.contains("bearer token: "), "{log}");
    assert_eq!(ran["exit_code"], 0, "{log}");
    ran["found"].clone()
}

#[test]
fn over_http_initialize_list_tools_run_and_keep_the_session_between_calls() {
    let Some(python) = python() else { return };
    let world = World::new();
    for name in ["a.txt", "b.txt", "c.txt"] {
        std::fs::write(world.workspace.join(name), name).expect("write");
    }
    std::fs::create_dir(world.workspace.join("sub")).expect("sub");
    let found = over_http(&world, &python, "basics", &[]);
    assert_eq!(found["server"], "nu-agent");
    assert_eq!(
        found["tools"],
        json!([
            "check",
            "help",
            "job_cancel",
            "job_result",
            "job_run",
            "job_status",
            "run"
        ])
    );
    assert!(!is_error(&found["count"]), "{}", found["count"]);
    assert_eq!(found["count"]["structured"]["value"], 4);
    assert_eq!(found["let"]["is_error"], false, "{}", found["let"]);
    assert_eq!(found["use"]["structured"]["value"], 6);
    assert_eq!(found["call_def"]["structured"]["value"], 42);
    assert_eq!(found["out"]["structured"]["value"], 104);
    assert_eq!(found["check"]["structured"]["verdict"], "block");
    assert_eq!(found["resource"], 4);
    let audit = world.audit();
    assert!(audit.iter().any(|r| r["pipeline"] == "ls | length"));
    for record in &audit {
        assert_eq!(record["client"], "nu-agent-tests", "{record}");
    }
}

#[test]
fn over_http_an_elicitation_answered_yes_runs_the_step_and_no_denies_it() {
    let Some(python) = python() else { return };
    let world = confirm_world();
    let found = over_http(&world, &python, "confirm", &["--answer", "yes"]);
    assert!(!is_error(&found["run"]), "{}", found["run"]);
    assert!(!world.workspace.join("gone.txt").exists());
    let asked = found["asked"].as_array().cloned().unwrap_or_default();
    assert_eq!(asked.len(), 1, "{found}");
    assert!(
        asked[0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("rm gone.txt")),
        "{found}"
    );

    let world = confirm_world();
    let found = over_http(&world, &python, "confirm", &["--answer", "no"]);
    assert!(is_error(&found["run"]), "{}", found["run"]);
    assert!(
        text(&found["run"]).contains("the user did not approve it"),
        "{}",
        found["run"]
    );
    assert_eq!(found["asked"].as_array().map(Vec::len), Some(1));
    assert_eq!(
        std::fs::read_to_string(world.workspace.join("gone.txt")).ok(),
        Some("keep me?".into())
    );
}

#[test]
fn over_http_a_client_without_elicitation_is_denied_with_the_pre_approval_hint() {
    let Some(python) = python() else { return };
    let world = confirm_world();
    let found = over_http(&world, &python, "confirm", &["--answer", "none"]);
    assert!(is_error(&found["run"]), "{}", found["run"]);
    assert!(
        text(&found["run"]).contains("--approve"),
        "{}",
        found["run"]
    );
    assert!(world.workspace.join("gone.txt").exists());
}

#[test]
fn over_http_clients_at_once_get_sessions_of_their_own() {
    let Some(python) = python() else { return };
    let world = World::new();
    let found = over_http(&world, &python, "isolation", &[]);
    assert!(!is_error(&found["a_let"]), "{found}");
    assert_eq!(found["a_x"]["structured"]["value"], "a", "{found}");
    assert_eq!(found["b_x"]["structured"]["value"], "b", "{found}");
    // A variable of one session does not exist in the other.
    assert!(is_error(&found["b_only_a"]), "{found}");
    assert_eq!(found["a_only_a"]["structured"]["value"], 2, "{found}");

    // Three clients interleaving their calls on one server.
    let found = over_http(&world, &python, "clients", &[]);
    for n in 0..3u64 {
        let mine = found[n.to_string()].as_array().cloned().unwrap_or_default();
        assert_eq!(mine.len(), 5, "{found}");
        for (i, result) in mine.iter().enumerate() {
            assert_eq!(
                result["structured"]["value"],
                json!(n * 100 + i as u64),
                "{found}"
            );
        }
    }
    let clients: std::collections::BTreeSet<String> = world
        .audit()
        .iter()
        .filter_map(|r| r["client"].as_str().map(String::from))
        .collect();
    assert!(
        clients.contains("client-a") && clients.contains("client-2"),
        "{clients:?}"
    );
}

#[test]
fn over_http_a_request_without_the_token_is_refused() {
    let Some(python) = python() else { return };
    let world = World::new();
    let found = over_http(&world, &python, "auth", &[]);
    for name in ["no_token", "wrong_token", "basic"] {
        assert_eq!(found[name]["status"], 401, "{name}: {found}");
    }
    assert_eq!(found["other_path"]["status"], 404, "{found}");
    for name in ["browser", "other_host"] {
        let status = found[name]["status"].as_u64().unwrap_or_default();
        assert!((400..500).contains(&status), "{name}: {found}");
    }
    assert_eq!(found["with_token"]["structured"]["value"], 3, "{found}");
}

#[test]
fn over_http_a_non_loopback_address_is_refused() {
    let world = World::new();
    for address in ["0.0.0.0:0", "[::]:8765", "192.168.1.10:8765"] {
        let output = Command::new(workspace_binary("nu-agent"))
            .args(["mcp", "--http", address])
            .current_dir(&world.workspace)
            .env("HOME", &world.home)
            .env("NU_AGENT_STATE_DIR", &world.state)
            .stdin(Stdio::null())
            .output()
            .expect("run nu-agent mcp");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{address}: {stderr}");
        assert!(
            stderr.contains("not a loopback address"),
            "{address}: {stderr}"
        );
    }
}

#[test]
fn over_http_a_client_that_probes_for_the_sessionless_protocol_gets_a_session() {
    let Some(python) = python() else { return };
    let world = World::new();
    let found = over_http(&world, &python, "modern", &[]);
    // 2026-07-28 has no sessions over HTTP: the server offers only the
    // versions with the initialize handshake, and the client falls back.
    assert_eq!(found["handshake"], "2025-11-25", "{found}");
    assert_eq!(found["use"]["structured"]["value"], 6, "{found}");
}

#[test]
fn over_http_a_job_runs_and_a_cancelled_run_stops_its_processes() {
    let Some(python) = python() else { return };
    let world = World::new();
    let found = over_http(&world, &python, "job", &[]);
    assert_eq!(found["result"]["structured"]["status"], "completed");
    assert_eq!(
        found["result"]["structured"]["value"],
        json!({"answer": 42})
    );
    assert_eq!(found["resource"], json!({"answer": 42}));

    let found = over_http(&world, &python, "cancel", &["--marker", "37.5"]);
    assert!(
        found["seen"].as_array().is_some_and(|s| !s.is_empty()),
        "the long step never started: {found}"
    );
    assert!(
        found["gone_after"].as_f64().is_some_and(|s| s < 5.0),
        "its process outlived the cancel: {found}"
    );
    assert_eq!(found["after"]["structured"]["value"], 8, "{found}");
}
