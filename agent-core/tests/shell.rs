//! Behaviour of the embedded engine: state, externals, limits, failures.

use std::{
    path::Path,
    time::{Duration, Instant},
};

use agent_core::shell::{
    CancelToken, CutPart, Engine, Limits, OutputCut, Session, SessionSeed, StopReason, json_size,
};
use nu_protocol::{
    Category, PipelineData, ShellError, Signature, Span, Type, Value,
    engine::{Call, Command, EngineState, Stack},
};

fn session_in(dir: &Path) -> Session {
    let seed = SessionSeed::from_process().expect("process env").with_env(
        std::env::vars()
            .map(|(k, v)| (k, Value::string(v, Span::unknown())))
            .collect(),
    );
    let seed = SessionSeed {
        cwd: dir.to_path_buf(),
        ..seed
    };
    Session::new(Engine::standard(), seed).expect("session")
}

fn run(session: &mut Session, source: &str) -> Value {
    let outcome = session.run(source, &Limits::default());
    assert!(outcome.error.is_none(), "{source}: {:?}", outcome.error);
    outcome.value
}

#[test]
fn cd_let_def_and_env_persist_across_runs() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let mut session = session_in(dir.path());
    run(&mut session, "cd sub");
    run(&mut session, "let answer = 42");
    run(&mut session, "def double [x: int] { $x * 2 }");
    run(&mut session, "$env.AGENT_TEST_VAR = 'kept'");
    assert_eq!(
        session.cwd(),
        dir.path().join("sub").canonicalize().unwrap()
    );
    assert_eq!(run(&mut session, "double $answer").as_int().unwrap(), 84);
    assert_eq!(
        run(&mut session, "$env.AGENT_TEST_VAR").as_str().unwrap(),
        "kept"
    );
    assert_eq!(
        run(&mut session, "pwd | path basename")
            .as_str()
            .unwrap()
            .trim(),
        "sub"
    );
}

#[test]
fn external_stdout_stderr_and_exit_code_are_captured() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = session_in(dir.path());
    let outcome = session.run(
        "^sh -c 'echo out; echo err >&2; exit 3'",
        &Limits::default(),
    );
    assert!(outcome.error.is_none(), "{:?}", outcome.error);
    assert_eq!(outcome.value.as_str().unwrap(), "out\n");
    assert_eq!(outcome.stderr.unwrap().as_str().unwrap(), "err\n");
    assert_eq!(outcome.exit_code, Some(3));
}

#[test]
fn failing_external_in_the_middle_reports_its_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = session_in(dir.path());
    let outcome = session.run("^sh -c 'echo partial; exit 5' | lines", &Limits::default());
    assert_eq!(outcome.exit_code, Some(5), "{:?}", outcome.error);
    assert_eq!(outcome.value.as_list().unwrap().len(), 1);
    // A producer stopped early by its reader (SIGPIPE) is not a failure.
    let outcome = session.run("^yes | lines | first 3", &Limits::default());
    assert_eq!(outcome.exit_code, None);
    assert_eq!(outcome.value.as_list().unwrap().len(), 3);
}

/// Processes whose command line contains `marker` and that are not zombies.
fn live_processes_with(marker: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let path = entry.path();
        let Ok(cmdline) = std::fs::read(path.join("cmdline")) else {
            continue;
        };
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if !cmdline.contains(marker) {
            continue;
        }
        let stat = std::fs::read_to_string(path.join("stat")).unwrap_or_default();
        let state = stat
            .rsplit(')')
            .next()
            .and_then(|s| s.split_whitespace().next());
        if state != Some("Z") {
            found.push(cmdline);
        }
    }
    found
}

#[test]
fn cancel_kills_the_whole_process_tree_quickly() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = session_in(dir.path());
    let cancel = CancelToken::new();
    let canceller = cancel.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        canceller.cancel();
    });
    let started = Instant::now();
    let outcome = session.run_cancellable(
        "^sh -c 'sleep 30.4242; echo x'",
        &Limits::default(),
        &cancel,
    );
    let elapsed = started.elapsed();
    assert_eq!(outcome.stopped, Some(StopReason::Cancelled));
    assert!(elapsed < Duration::from_secs(2), "took {elapsed:?}");
    std::thread::sleep(Duration::from_millis(200));
    assert!(
        live_processes_with("30.4242").is_empty(),
        "{:?}",
        live_processes_with("30.4242")
    );
    // The session still works afterwards.
    assert_eq!(run(&mut session, "1 + 1").as_int().unwrap(), 2);
}

#[test]
fn timeout_returns_what_was_produced_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = session_in(dir.path());
    let limits = Limits::default().with_timeout(Duration::from_millis(700));
    let started = Instant::now();
    let outcome = session.run("^sh -c 'echo first; sleep 20.777; echo never'", &limits);
    assert!(started.elapsed() < Duration::from_secs(3));
    assert_eq!(
        outcome.stopped,
        Some(StopReason::TimedOut(Duration::from_millis(700)))
    );
    assert_eq!(outcome.value.as_str().unwrap(), "first\n");
    assert!(outcome.stopped.unwrap().to_string().contains("time limit"));
    assert!(live_processes_with("20.777").is_empty());
}

#[test]
fn builtin_loops_stop_at_the_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = session_in(dir.path());
    let limits = Limits::default().with_timeout(Duration::from_millis(300));
    let outcome = session.run("loop { }", &limits);
    assert!(matches!(outcome.stopped, Some(StopReason::TimedOut(_))));
    assert!(
        outcome.error.is_none(),
        "the interrupt is explained by the stop: {:?}",
        outcome.error
    );
}

#[test]
fn output_cap_cuts_streams() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = session_in(dir.path());
    let limits = Limits::default().with_max_output_bytes(1000);
    let outcome = session.run("^sh -c 'yes hello'", &limits);
    let cut = |part| Some(StopReason::OutputCapped(OutputCut { limit: 1000, part }));
    assert_eq!(outcome.stopped, cut(CutPart::Bytes));
    assert_eq!(outcome.value.as_str().unwrap().len(), 1000);

    // Rows count as their JSON: the first ones whose JSON fits in 1000
    // bytes, whatever they take in memory.
    let outcome = session.run("1..1000000 | each { $in * 2 }", &limits);
    let rows = outcome.value.as_list().unwrap();
    let kept = rows.len();
    assert_eq!(outcome.stopped, cut(CutPart::Rows { kept }));
    let expected: Vec<i64> = (1..=kept as i64).map(|i| i * 2).collect();
    assert_eq!(
        rows.iter().map(|r| r.as_int().unwrap()).collect::<Vec<_>>(),
        expected
    );
    assert!(json_size(&outcome.value) <= 1000);
    let one_more = Value::test_list(
        (1..=kept as i64 + 1)
            .map(|i| Value::test_int(i * 2))
            .collect(),
    );
    assert!(json_size(&one_more) > 1000);
}

#[test]
fn parse_error_has_line_and_column_and_runs_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = session_in(dir.path());
    let outcome = session.run(
        "'x' | save side_effect.txt\nlet y = [1, 2",
        &Limits::default(),
    );
    let error = outcome.error.expect("a parse error");
    assert!(
        error
            .code
            .as_deref()
            .unwrap_or("")
            .starts_with("nu::parser"),
        "{error:?}"
    );
    let label = error.labels.first().expect("a label");
    assert_eq!(label.line, 2, "{error:?}");
    assert!(label.column >= 1);
    assert!(!dir.path().join("side_effect.txt").exists());
    assert!(error.rendered.contains("let y"));
}

#[test]
fn runtime_error_is_structured() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = session_in(dir.path());
    let outcome = session.run("[{a: 1}] | get b", &Limits::default());
    let error = outcome.error.expect("an error");
    assert_eq!(error.code.as_deref(), Some("nu::shell::column_not_found"));
    assert!(!error.labels.is_empty());
    assert!(!error.rendered.contains('\u{1b}'));
}

#[test]
fn an_error_inside_a_closure_keeps_its_innermost_cause_and_place() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = session_in(dir.path());
    let outcome = session.run("[1] | each { open nofile.txt }", &Limits::default());
    let error = outcome.error.expect("an error");
    assert_eq!(
        error.code.as_deref(),
        Some("nu::shell::eval_block_with_input")
    );
    let cause = error.root_cause();
    assert!(
        cause
            .code
            .as_deref()
            .is_some_and(|c| c.contains("not_found")),
        "{cause:?}"
    );
    assert!(cause.message.contains("not found"), "{cause:?}");
    let label = cause.labels.first().expect("the cause's place");
    assert_eq!((label.line, label.column), (1, 19), "{label:?}");
    assert_eq!(label.snippet, "nofile.txt");
    // An error that wraps none is its own cause.
    let outcome = session.run("[{a: 1}] | get b", &Limits::default());
    let error = outcome.error.expect("an error");
    assert_eq!(error.root_cause(), &error);
}

#[derive(Clone)]
struct Explode;

impl Command for Explode {
    fn name(&self) -> &str {
        "explode"
    }
    fn signature(&self) -> Signature {
        Signature::build("explode")
            .input_output_types(vec![(Type::Any, Type::Any)])
            .category(Category::Debug)
    }
    fn description(&self) -> &str {
        "Panics, for tests."
    }
    fn run(
        &self,
        _: &EngineState,
        _: &mut Stack,
        _: &Call,
        _: PipelineData,
    ) -> Result<PipelineData, ShellError> {
        panic!("boom from a command");
    }
}

#[test]
fn a_panic_in_evaluation_leaves_the_session_serving() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::with_commands(vec![Box::new(Explode)]);
    let mut session = Session::new(&engine, SessionSeed::new(dir.path())).unwrap();
    run(&mut session, "let kept = 7");
    let outcome = session.run("explode", &Limits::default());
    assert!(matches!(outcome.stopped, Some(StopReason::Panicked(ref m)) if m.contains("boom")));
    assert!(outcome.error.is_some());
    assert_eq!(run(&mut session, "$kept + 1").as_int().unwrap(), 8);
}

#[test]
fn non_utf8_file_names_do_not_break_listing_and_show_escaped() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let name = std::ffi::OsStr::from_bytes(b"bad-\xff-name.txt");
    std::fs::write(dir.path().join(name), b"x").unwrap();
    std::fs::write(dir.path().join("good.txt"), b"x").unwrap();
    let mut session = session_in(dir.path());
    // nu's own `ls` skips names that are not UTF-8 (as nu does); it must not fail.
    let outcome = session.run("ls | get name", &Limits::default());
    assert!(outcome.error.is_none(), "{:?}", outcome.error);
    assert!(
        outcome
            .value
            .as_list()
            .unwrap()
            .iter()
            .any(|n| n.as_str().unwrap() == "good.txt")
    );
    // The external `ls` sees every name; its output is kept byte-exact and
    // the model reads the bad byte escaped.
    let outcome = session.run("^ls", &Limits::default());
    assert!(outcome.error.is_none(), "{:?}", outcome.error);
    assert_eq!(
        outcome.value.as_binary().unwrap(),
        b"bad-\xff-name.txt\ngood.txt\n"
    );
    let rendered = agent_core::observe::render(
        &outcome.value,
        &agent_core::observe::Budget::approx(100),
        Some(0),
    );
    assert!(
        rendered.contains("bad-\\xFF-name.txt\ngood.txt"),
        "{rendered}"
    );
}

/// `glob` skips a name that is not UTF-8 with a warning, as `ls` does,
/// instead of returning a lossy path that names no file.
#[test]
fn glob_skips_names_that_are_not_utf8_with_a_warning() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let bad = std::ffi::OsStr::from_bytes(b"bad\xff.txt");
    std::fs::write(dir.path().join(bad), b"x").unwrap();
    std::fs::write(dir.path().join("good.txt"), b"y").unwrap();
    let mut session = session_in(dir.path());
    let outcome = session.run("glob * | path basename", &Limits::default());
    assert!(outcome.error.is_none(), "{:?}", outcome.error);
    let names: Vec<&str> = outcome
        .value
        .as_list()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert_eq!(names, ["good.txt"]);
    assert!(
        outcome
            .printed
            .iter()
            .any(|line| line.contains("glob skipped") && line.contains("bad\\xFF.txt")),
        "{:?}",
        outcome.printed
    );
    // What it returns opens.
    let outcome = session.run("glob * | each { open $in } | str join", &Limits::default());
    assert!(outcome.error.is_none(), "{:?}", outcome.error);
    assert_eq!(outcome.value.as_str().unwrap(), "y");
}

#[test]
fn binary_output_stays_binary() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = session_in(dir.path());
    let outcome = session.run(r"^printf '\211PNG\r\n\032\n\000\377'", &Limits::default());
    assert!(outcome.error.is_none(), "{:?}", outcome.error);
    let bytes = outcome.value.as_binary().expect("binary");
    assert!(bytes.starts_with(b"\x89PNG"));
    let rendered = agent_core::observe::render(
        &outcome.value,
        &agent_core::observe::Budget::approx(100),
        Some(0),
    );
    assert_eq!(rendered, "binary 10B, PNG image");
}

#[test]
fn every_value_is_kept_in_out() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..5 {
        std::fs::write(dir.path().join(format!("f{i}.txt")), vec![b'x'; i * 100]).unwrap();
    }
    let mut session = session_in(dir.path());
    let first = session.run("ls | sort-by name", &Limits::default());
    assert_eq!(first.index, 0);
    run(&mut session, "'unrelated'");
    let sliced = run(&mut session, "$out.0 | where size > 150b | get name");
    let names: Vec<&str> = sliced
        .as_list()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["f2.txt", "f3.txt", "f4.txt"]);
    assert_eq!(session.out(1).unwrap().as_str().unwrap(), "unrelated");
}

#[test]
fn print_goes_into_the_run_output() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = session_in(dir.path());
    let outcome = session.run("print 'hello'; print -n a b; 5", &Limits::default());
    assert_eq!(outcome.printed.concat(), "hello\nab");
    assert_eq!(outcome.value.as_int().unwrap(), 5);
}

#[test]
fn injected_and_secret_env_vars_do_not_pass() {
    let dir = tempfile::tempdir().unwrap();
    let env = vec![
        ("LD_PRELOAD".to_string(), Value::test_string("/tmp/evil.so")),
        ("GITHUB_TOKEN".to_string(), Value::test_string("secret")),
        ("LANG".to_string(), Value::test_string("C.UTF-8")),
        ("PATH".to_string(), Value::test_string("/usr/bin:/bin")),
    ];
    let mut session = Session::new(
        Engine::standard(),
        SessionSeed::new(dir.path()).with_env(env),
    )
    .unwrap();
    assert_eq!(run(&mut session, "$env.LANG").as_str().unwrap(), "C.UTF-8");
    assert!(!run(&mut session, "'LD_PRELOAD' in $env").as_bool().unwrap());
    assert!(
        !run(&mut session, "'GITHUB_TOKEN' in $env")
            .as_bool()
            .unwrap()
    );
    let out = run(&mut session, "^sh -c 'echo ${LD_PRELOAD:-none}'");
    assert_eq!(out.as_str().unwrap(), "none\n");
    assert_eq!(run(&mut session, "$env.PATH | length").as_int().unwrap(), 2);
}

#[test]
fn externals_get_no_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = session_in(dir.path());
    // `cat` with a null stdin ends at once instead of waiting on a terminal.
    let limits = Limits::default().with_timeout(Duration::from_secs(5));
    let outcome = session.run("^cat", &limits);
    assert!(outcome.stopped.is_none());
    assert_eq!(outcome.value.as_str().unwrap(), "");
}

#[test]
fn input_is_the_next_runs_pipeline_input_only() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = session_in(dir.path());
    session.set_input(Value::test_list(vec![
        Value::test_int(3),
        Value::test_int(1),
        Value::test_int(2),
    ]));
    assert_eq!(run(&mut session, "sort | first"), Value::test_int(1));
    assert_eq!(
        run(&mut session, "$in | describe"),
        Value::test_string("nothing")
    );
}

#[test]
fn an_earlier_statements_external_output_is_printed_not_lost() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = session_in(dir.path());
    let outcome = session.run(
        "^echo hi; ^printf 'no newline'; print later; 5",
        &Limits::default(),
    );
    assert_eq!(outcome.value, Value::test_int(5));
    // Order between `print` and a pipe read on another thread is not kept.
    let mut printed: Vec<String> = outcome
        .printed
        .iter()
        .map(|l| l.trim_end().to_string())
        .collect();
    printed.sort();
    assert_eq!(printed, ["hi", "later", "no newline"]);
    // The next run starts clean.
    let outcome = session.run("6", &Limits::default());
    assert!(outcome.printed.is_empty(), "{:?}", outcome.printed);
}
