//! `ask`, `agent explain`, `agent suggest` and `agent history` in a real nu
//! 0.115 host (non-interactive), and `nu-agent ask`. The model is the real
//! OpenAI-compatible backend talking to a local replay server, so every
//! episode is deterministic.

use std::{
    path::PathBuf,
    process::{Command, Output, Stdio},
    time::{Duration, Instant},
};

use agent_e2e::{
    nu_with_agent_env, register_plugin,
    replay::{ReplayServer, Turn},
    stdout_of, workspace_binary,
};

struct Setup {
    dir: tempfile::TempDir,
    work: PathBuf,
    registry: PathBuf,
}

fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    for (name, size) in [
        ("a.txt", 10),
        ("big.bin", 5_000),
        ("mid.log", 800),
        ("huge.iso", 9_000),
    ] {
        std::fs::write(work.join(name), vec![b'x'; size]).unwrap();
    }
    std::fs::create_dir(work.join("sub")).unwrap();
    let registry = register_plugin(dir.path());
    Setup {
        dir,
        work,
        registry,
    }
}

impl Setup {
    fn state(&self) -> String {
        self.dir.path().join("state").display().to_string()
    }

    /// Run `script` in nu with the plugin talking to `server`.
    fn nu(&self, server: &ReplayServer, script: &str) -> Output {
        let url = server.url();
        let state = self.state();
        let cache = self.dir.path().join("cache").display().to_string();
        nu_with_agent_env(
            &self.registry,
            &self.work,
            script,
            &[
                ("NU_AGENT_BACKEND_URL", url.as_str()),
                ("NU_AGENT_STATE_DIR", state.as_str()),
                ("NU_AGENT_CACHE", cache.as_str()),
            ],
        )
    }
}

fn stderr_of(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn ask_returns_data_that_keeps_flowing() {
    let s = setup();
    let server = ReplayServer::start(vec![
        Turn::nu("ls | where type == file | sort-by size --reverse | first 5 | select name size"),
        Turn::call(
            "answer",
            serde_json::json!({"text": "the largest", "out": 0}),
        ),
    ]);
    let out = s.nu(
        &server,
        r#"ask "the 5 largest files here" | first 2 | get name | to json --raw"#,
    );
    assert_eq!(stdout_of(&out).trim(), r#"["huge.iso","big.bin"]"#);
    // The step line and its verdict are on stderr.
    let stderr = stderr_of(&out);
    assert!(stderr.contains("● ls | where type == file"), "{stderr}");
    assert!(stderr.contains("[allow"), "{stderr}");
    assert!(stderr.contains("$out.0"), "{stderr}");
}

#[test]
fn a_text_answer_is_a_string_and_piped_input_is_context() {
    let s = setup();
    let server = ReplayServer::start(vec![Turn::answer("The linker is missing: install gcc.")]);
    let out = s.nu(
        &server,
        r#""error: linker `cc` not found" | ask "why did it fail?" | str upcase"#,
    );
    assert_eq!(
        stdout_of(&out).trim(),
        "THE LINKER IS MISSING: INSTALL GCC."
    );
    let shown = server.shown(0);
    assert!(shown.contains("why did it fail?"), "{shown}");
    assert!(shown.contains("linker `cc` not found"), "{shown}");
    // The system prompt names the machine and the cwd.
    assert!(shown.contains("Machine: "), "{shown}");
    assert!(
        shown.contains(&format!("cwd: {}", s.work.display())),
        "{shown}"
    );
}

#[test]
fn steps_that_ask_are_denied_without_a_terminal_unless_approved_in_advance() {
    let s = setup();
    let server = ReplayServer::start(vec![Turn::nu("mkdir made"), Turn::answer("could not")]);
    let out = s.nu(&server, r#"ask "make a dir""#);
    stdout_of(&out);
    assert!(!s.work.join("made").exists());
    assert!(
        server.shown(1).contains("did not approve"),
        "{}",
        server.shown(1)
    );
    let stderr = stderr_of(&out);
    assert!(stderr.contains("nobody could be asked"), "{stderr}");

    let server = ReplayServer::start(vec![Turn::nu("mkdir made"), Turn::answer("made")]);
    stdout_of(&s.nu(&server, r#"ask --yes "make a dir""#));
    assert!(s.work.join("made").is_dir());

    let server = ReplayServer::start(vec![Turn::nu("mkdir other"), Turn::answer("made")]);
    stdout_of(&s.nu(&server, r#"ask --approve "mkdir *" "make another""#));
    assert!(s.work.join("other").is_dir());
}

/// The model writes the pipeline: a pre-approval meant for one command
/// does not let it chain another change behind it.
#[test]
fn a_pre_approval_does_not_cover_a_change_the_model_chains_after_it() {
    let s = setup();
    std::fs::write(s.work.join("victim.bin"), "kept").unwrap();
    let server = ReplayServer::start(vec![
        Turn::nu("mkdir other; rm victim.bin"),
        Turn::answer("I did not make it: not approved."),
    ]);
    stdout_of(&s.nu(&server, r#"ask --approve "mkdir *" "make a dir""#));
    assert_eq!(
        std::fs::read_to_string(s.work.join("victim.bin"))
            .ok()
            .as_deref(),
        Some("kept")
    );
    assert!(!s.work.join("other").exists());
    assert!(
        server.shown(1).contains("did not approve"),
        "{}",
        server.shown(1)
    );
}

#[test]
fn continue_goes_on_with_the_last_conversation_and_history_lists_it() {
    let s = setup();
    let server = ReplayServer::start(vec![
        Turn::nu("ls | length"),
        Turn::answer("5 entries"),
        Turn::answer("still 5"),
    ]);
    stdout_of(&s.nu(&server, r#"ask "how many entries?""#));
    let out = s.nu(&server, r#"ask --continue "and now?""#);
    assert_eq!(stdout_of(&out).trim(), "still 5");
    let shown = server.shown(2);
    assert!(shown.contains("how many entries?"), "{shown}");
    assert!(shown.contains("$out.0"), "{shown}");
    assert!(shown.contains("and now?"), "{shown}");

    let server = ReplayServer::start(Vec::new());
    let out = s.nu(
        &server,
        "agent history | select runs steps outcome prompt | to json --raw",
    );
    let rows: serde_json::Value = serde_json::from_str(stdout_of(&out).trim()).unwrap();
    assert_eq!(rows.as_array().map(Vec::len), Some(1), "{rows}");
    assert_eq!(rows[0]["runs"], 2);
    assert_eq!(rows[0]["steps"], 3);
    assert_eq!(rows[0]["outcome"], "answered");
    assert_eq!(rows[0]["prompt"], "how many entries?");
    let out = s.nu(&server, "agent history --last | get role | to json --raw");
    assert_eq!(
        stdout_of(&out).trim(),
        r#"["user","assistant","tool","assistant","user","assistant"]"#
    );
}

#[test]
fn the_step_limit_and_a_dead_server_are_errors_that_say_so() {
    let s = setup();
    let server = ReplayServer::start(vec![
        Turn::nu("ls"),
        Turn::nu("ps | length"),
        Turn::nu("pwd"),
    ]);
    let out = s.nu(&server, r#"ask --max-steps 2 "loop""#);
    assert!(!out.status.success());
    assert!(
        stderr_of(&out).contains("no answer after 2 steps"),
        "{}",
        stderr_of(&out)
    );

    // A closed port.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let started = Instant::now();
    let state = s.state();
    let url = format!("http://127.0.0.1:{port}/v1");
    let out = nu_with_agent_env(
        &s.registry,
        &s.work,
        r#"$env.config.plugins.agent = {model: {retries: 0, timeout: 5sec}}; ask "hi""#,
        &[
            ("NU_AGENT_BACKEND_URL", url.as_str()),
            ("NU_AGENT_STATE_DIR", state.as_str()),
        ],
    );
    assert!(!out.status.success());
    let stderr = stderr_of(&out);
    assert!(stderr.contains(&format!("127.0.0.1:{port}")), "{stderr}");
    assert!(started.elapsed() < Duration::from_secs(60));
}

#[test]
fn cd_moves_the_caller_to_the_agents_directory() {
    let s = setup();
    let server = ReplayServer::start(vec![Turn::nu("cd sub"), Turn::answer("moved")]);
    let out = s.nu(&server, r#"ask --cd "go to sub" | ignore; pwd"#);
    assert_eq!(
        stdout_of(&out).trim(),
        s.work.join("sub").display().to_string()
    );
    let server = ReplayServer::start(vec![Turn::nu("cd sub"), Turn::answer("moved")]);
    let out = s.nu(&server, r#"ask "go to sub" | ignore; pwd"#);
    assert_eq!(stdout_of(&out).trim(), s.work.display().to_string());
}

#[test]
fn suggest_and_explain_run_nothing() {
    let s = setup();
    let server = ReplayServer::start(vec![Turn::call(
        "nu",
        serde_json::json!({"pipeline": "mkdir out", "why": "make it"}),
    )]);
    let out = s.nu(&server, r#"agent suggest "make a dir" | to json --raw"#);
    let record: serde_json::Value = serde_json::from_str(stdout_of(&out).trim()).unwrap();
    assert_eq!(record["pipeline"], "mkdir out");
    assert_eq!(record["why"], "make it");
    assert_eq!(record["verdict"], "confirm");
    assert!(!s.work.join("out").exists());

    let server = ReplayServer::start(vec![Turn::answer("It lists files over a megabyte.")]);
    let out = s.nu(&server, r#"agent explain "ls | where size > 1mb""#);
    assert_eq!(stdout_of(&out).trim(), "It lists files over a megabyte.");
    let shown = server.shown(0);
    assert!(shown.contains("ls | where size > 1mb"), "{shown}");
    assert!(shown.contains("ls: read (allow)"), "{shown}");
    let tools: Vec<String> = server.requests()[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(tools, ["help", "answer"]);

    let server = ReplayServer::start(vec![Turn::answer("A table of files.")]);
    let out = s.nu(&server, r#"ls | agent explain "what is this?""#);
    assert_eq!(stdout_of(&out).trim(), "A table of files.");
    assert!(server.shown(0).contains("huge.iso"), "{}", server.shown(0));
}

#[test]
fn explain_takes_a_closure_or_bytes() {
    let s = setup();
    let server = ReplayServer::start(vec![Turn::answer("It kills busy processes.")]);
    let out = s.nu(
        &server,
        "agent explain { ps | where cpu > 50 | each { kill $in.pid } }",
    );
    assert_eq!(stdout_of(&out).trim(), "It kills busy processes.");
    let shown = server.shown(0);
    assert!(
        shown.contains("ps | where cpu > 50 | each { kill $in.pid }"),
        "{shown}"
    );
    assert!(shown.contains("kill"), "{shown}");

    let server = ReplayServer::start(vec![Turn::answer("A gzip file.")]);
    let out = s.nu(&server, "0x[1f 8b 08 00 00 00 00 00] | agent explain");
    assert_eq!(stdout_of(&out).trim(), "A gzip file.");
    let shown = server.shown(0);
    assert!(shown.contains("Explain this data"), "{shown}");
    assert!(shown.contains("binary 8B, gzip data"), "{shown}");
}

#[test]
fn explain_investigate_may_only_read() {
    let s = setup();
    let server = ReplayServer::start(vec![
        Turn::nu("ls | length"),
        Turn::nu("mkdir investigated"),
        Turn::answer("five entries; I could not write"),
    ]);
    let out = s.nu(
        &server,
        r#"agent explain --investigate "what is in this directory?""#,
    );
    assert_eq!(stdout_of(&out).trim(), "five entries; I could not write");
    assert!(!s.work.join("investigated").exists());
    let shown = server.shown(2);
    assert!(shown.contains("$out.0"), "{shown}");
    assert!(shown.contains("blocked by"), "{shown}");
}

/// `nu-agent` with the replay server, stdin from `input` (or none).
fn nu_agent(s: &Setup, server: &ReplayServer, args: &[&str], input: Option<&str>) -> Output {
    let mut child = Command::new(workspace_binary("nu-agent"))
        .args(args)
        .current_dir(&s.work)
        .env("NU_AGENT_BACKEND_URL", server.url())
        .env("NU_AGENT_STATE_DIR", s.state())
        .env("NO_COLOR", "1")
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(text) = input {
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(text.as_bytes())
            .unwrap();
    }
    child.wait_with_output().unwrap()
}

#[test]
fn nu_agent_ask_prints_the_answer_and_reads_stdin_as_context() {
    let s = setup();
    let server = ReplayServer::start(vec![Turn::nu("ls | length"), Turn::answer("5 entries")]);
    let out = nu_agent(&s, &server, &["ask", "how many entries?"], None);
    assert_eq!(stdout_of(&out).trim(), "5 entries");

    let server = ReplayServer::start(vec![Turn::answer("a build log")]);
    let out = nu_agent(
        &s,
        &server,
        &["ask", "what is this?"],
        Some("make: *** [all] Error 2\n"),
    );
    assert_eq!(stdout_of(&out).trim(), "a build log");
    assert!(server.shown(0).contains("Error 2"), "{}", server.shown(0));

    let server = ReplayServer::start(vec![
        Turn::nu("ls | where type == file | sort-by name | select name"),
        Turn::call("answer", serde_json::json!({"text": "files", "out": 0})),
    ]);
    let out = nu_agent(&s, &server, &["ask", "--json", "list files"], None);
    let json: serde_json::Value = serde_json::from_str(stdout_of(&out).trim()).unwrap();
    assert_eq!(json["data"][0]["name"], "a.txt");

    let server = ReplayServer::start(vec![
        Turn::nu("mkdir made"),
        Turn::answer("I did not make it: not approved."),
    ]);
    let out = nu_agent(&s, &server, &["ask", "make it"], None);
    stdout_of(&out);
    assert!(!s.work.join("made").exists(), "no terminal: denied");
}

#[test]
fn nu_agent_ask_json_prints_one_document_for_text_and_for_data() {
    let s = setup();
    let server = ReplayServer::start(vec![Turn::nu("ls | length"), Turn::answer("5 entries")]);
    let out = nu_agent(&s, &server, &["ask", "--json", "how many entries?"], None);
    let json: serde_json::Value = serde_json::from_str(&stdout_of(&out)).unwrap();
    assert_eq!(json["answer"], "5 entries");
    assert_eq!(json["data"], serde_json::Value::Null);
    assert_eq!(json["steps"], 2);
    assert!(json["conversation"].is_string(), "{json}");

    let server = ReplayServer::start(vec![
        Turn::nu("ls | where type == file | sort-by name | select name"),
        Turn::call("answer", serde_json::json!({"text": "files", "out": 0})),
    ]);
    let out = nu_agent(&s, &server, &["ask", "--json", "list files"], None);
    let json: serde_json::Value = serde_json::from_str(&stdout_of(&out)).unwrap();
    // The text names none of the rows it returns: their names follow it.
    assert_eq!(
        json["answer"],
        "files\nname: a.txt, big.bin, huge.iso, mid.log"
    );
    assert_eq!(json["data"][0]["name"], "a.txt");
    assert_eq!(json["data"].as_array().map(Vec::len), Some(4));
    assert_eq!(json["steps"], 2);
}

/// A run that stops without an answer still prints its one document:
/// no answer, the failure, the steps, the conversation; exit 1.
#[test]
fn nu_agent_ask_json_prints_one_document_when_the_agent_stops() {
    let s = setup();
    let server = ReplayServer::start(vec![Turn::nu("ls | length"), Turn::nu("ls")]);
    let out = nu_agent(
        &s,
        &server,
        &["ask", "--json", "--max-steps", "2", "how many entries?"],
        None,
    );
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    assert_eq!(json["answer"], serde_json::Value::Null, "{json}");
    assert_eq!(json["data"], serde_json::Value::Null, "{json}");
    assert!(
        json["failure"]
            .as_str()
            .is_some_and(|f| f.contains("2 steps")),
        "{json}"
    );
    assert_eq!(json["steps"], 2, "{json}");
    assert!(json["conversation"].is_string(), "{json}");
}

/// A URL where nothing listens.
fn dead_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    format!("http://127.0.0.1:{port}/v1")
}

/// Text with nu's line wrapping undone.
fn unwrapped(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn a_dead_server_is_named_with_how_to_check_it_and_no_continue() {
    let s = setup();
    let url = dead_url();
    let state = s.state();
    let out = nu_with_agent_env(
        &s.registry,
        &s.work,
        r#"ask "hello""#,
        &[
            ("NU_AGENT_BACKEND_URL", url.as_str()),
            ("NU_AGENT_STATE_DIR", state.as_str()),
        ],
    );
    assert!(!out.status.success());
    let stderr = unwrapped(&stderr_of(&out));
    assert!(
        stderr.contains(&format!("http get {url}/models")),
        "{stderr}"
    );
    assert!(!stderr.contains("--continue"), "{stderr}");

    let out = Command::new(workspace_binary("nu-agent"))
        .args(["ask", "hello"])
        .current_dir(&s.work)
        .env("NU_AGENT_BACKEND_URL", &url)
        .env("NU_AGENT_STATE_DIR", &state)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = stderr_of(&out);
    assert!(stderr.contains(&format!("curl {url}/models")), "{stderr}");
    assert!(!stderr.contains("--continue"), "{stderr}");
}

#[test]
fn the_step_limit_offers_to_go_on() {
    let s = setup();
    let server = ReplayServer::start(vec![Turn::nu("ls | length"), Turn::nu("ls | first")]);
    let out = s.nu(&server, r#"ask --max-steps 1 "count""#);
    assert!(!out.status.success());
    let stderr = unwrapped(&stderr_of(&out));
    assert!(stderr.contains("no answer after 1 steps"), "{stderr}");
    assert!(stderr.contains("ask --continue"), "{stderr}");
}

#[test]
fn agent_run_says_a_parse_error_once_where_it_is() {
    let s = setup();
    let state = s.state();
    let out = nu_with_agent_env(
        &s.registry,
        &s.work,
        "agent run 'ls |'",
        &[("NU_AGENT_STATE_DIR", state.as_str())],
    );
    assert!(!out.status.success());
    let stderr = stderr_of(&out);
    assert_eq!(
        stderr.matches("Unexpected end of code").count(),
        1,
        "{stderr}"
    );
    assert_eq!(
        stderr.matches("expected closing pipeline").count(),
        1,
        "{stderr}"
    );
}

#[test]
fn a_denial_tells_the_user_how_to_approve_not_what_the_model_is_told() {
    let s = setup();
    let state = s.state();
    let out = nu_with_agent_env(
        &s.registry,
        &s.work,
        "agent run --approve 'ls *' 'mkdir made'",
        &[("NU_AGENT_STATE_DIR", state.as_str())],
    );
    assert!(!out.status.success());
    assert!(!s.work.join("made").exists());
    let stderr = unwrapped(&stderr_of(&out));
    assert!(stderr.contains("not approved"), "{stderr}");
    // The patterns given do not cover the step: the hint names it.
    assert!(
        stderr.contains("`mkdir made` matches none of the --approve patterns"),
        "{stderr}"
    );
    assert!(!stderr.contains("do not retry"), "{stderr}");
}

/// A slow model outside a terminal: a line when the turn starts, then a
/// heartbeat from a timer while the server sends nothing; --quiet keeps
/// stderr free of both. NU_AGENT_HEARTBEAT_SECS shortens the interval.
#[test]
fn a_slow_turn_shows_a_heartbeat_on_stderr_unless_quiet() {
    let s = setup();
    let slow = || Turn::answer("done").after(Duration::from_millis(2_600));
    let heartbeats = |stderr: &str| {
        stderr
            .lines()
            .filter(|l| l.starts_with("thinking… ") && l.ends_with(" s"))
            .count()
    };

    let server = ReplayServer::start(vec![slow()]);
    let url = server.url();
    let state = s.state();
    let env = [
        ("NU_AGENT_BACKEND_URL", url.as_str()),
        ("NU_AGENT_STATE_DIR", state.as_str()),
        ("NU_AGENT_HEARTBEAT_SECS", "1"),
    ];
    let out = nu_with_agent_env(&s.registry, &s.work, r#"ask "take your time""#, &env);
    assert_eq!(stdout_of(&out).trim(), "done");
    let stderr = stderr_of(&out);
    assert!(stderr.contains("thinking… (step 1/"), "{stderr}");
    assert!(stderr.contains("thinking… 1 s\n"), "{stderr}");
    assert!(heartbeats(&stderr) >= 2, "{stderr}");

    let server = ReplayServer::start(vec![slow()]);
    let url = server.url();
    let env = [
        ("NU_AGENT_BACKEND_URL", url.as_str()),
        ("NU_AGENT_STATE_DIR", state.as_str()),
        ("NU_AGENT_HEARTBEAT_SECS", "1"),
    ];
    let out = nu_with_agent_env(
        &s.registry,
        &s.work,
        r#"ask --quiet "take your time""#,
        &env,
    );
    assert_eq!(stdout_of(&out).trim(), "done");
    let stderr = stderr_of(&out);
    assert!(!stderr.contains("thinking…"), "{stderr}");

    // nu-agent ask: the same lines, and none with --quiet.
    for (args, expect) in [
        (&["ask", "take your time"][..], true),
        (&["ask", "--quiet", "take your time"][..], false),
    ] {
        let server = ReplayServer::start(vec![slow()]);
        let out = Command::new(workspace_binary("nu-agent"))
            .args(args)
            .current_dir(&s.work)
            .env("NU_AGENT_BACKEND_URL", server.url())
            .env("NU_AGENT_STATE_DIR", s.state())
            .env("NU_AGENT_HEARTBEAT_SECS", "1")
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(stdout_of(&out).trim(), "done");
        let stderr = stderr_of(&out);
        if expect {
            assert!(stderr.contains("thinking… (step 1/"), "{stderr}");
            assert!(heartbeats(&stderr) >= 2, "{stderr}");
        } else {
            assert_eq!(stderr, "", "quiet: nothing on stderr");
        }
    }
}
