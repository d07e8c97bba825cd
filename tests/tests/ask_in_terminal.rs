//! `ask` in an interactive nu (driven through tmux): the step line with the
//! policy's verdict, the approval prompt answered by a key, the result on
//! disk, the answer, and Ctrl+C while the model's step runs. The model is
//! the real OpenAI-compatible backend talking to a local replay server.

use std::{
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use agent_e2e::{
    nu_binary, register_plugin,
    replay::{ReplayServer, Turn},
    tmux::Tmux,
};

/// How long a step may take to show (debug builds on a busy machine).
const STEP: Duration = Duration::from_secs(40);

fn wait_for(tmux: &Tmux, text: &str) {
    let started = Instant::now();
    while !tmux.screen().contains(text) {
        assert!(
            started.elapsed() < STEP,
            "timed out waiting for {text:?}; screen:\n{}",
            tmux.screen()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// nu in `work` with the plugin, its model the replay server at `url`.
fn nu_in_terminal(name: &str, dir: &Path, work: &Path, url: &str) -> Tmux {
    let registry = register_plugin(dir);
    let command = format!(
        "env NU_AGENT_STATE_DIR='{}' NU_AGENT_BACKEND_URL='{url}' {} --no-config-file",
        dir.join("state").display(),
        nu_binary().display()
    );
    let tmux = Tmux::start(name, work, &command);
    wait_for(&tmux, "work>");
    tmux.send(&[
        &format!(
            "plugin use --plugin-config '{}' agent; print ready",
            registry.display()
        ),
        "Enter",
    ]);
    wait_for(&tmux, "\nready");
    tmux
}

fn setup() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    (dir, work)
}

#[test]
fn approving_with_y_runs_the_step_and_the_answer_shows() {
    let (dir, work) = setup();
    let server = ReplayServer::start(vec![
        Turn::nu("mkdir made-by-agent"),
        Turn::answer("Made the directory."),
    ]);
    let tmux = nu_in_terminal("ask-yes", dir.path(), &work, &server.url());
    tmux.send(&[r#"ask "make a directory""#, "Enter"]);
    wait_for(&tmux, "[Y]es [n]o");
    let screen = tmux.screen();
    assert!(
        screen.contains("● mkdir made-by-agent [confirm"),
        "{screen}"
    );
    assert!(screen.contains("write: made-by-agent"), "{screen}");
    tmux.send(&["y"]);
    wait_for(&tmux, "Made the directory.");
    assert!(work.join("made-by-agent").is_dir(), "{}", tmux.screen());
    assert!(
        tmux.screen().contains("approved by user"),
        "{}",
        tmux.screen()
    );
    if std::env::var_os("NU_AGENT_SHOW_SCREEN").is_some() {
        eprintln!("{}", tmux.screen());
    }
}

#[test]
fn denying_with_n_keeps_the_disk_and_tells_the_model() {
    let (dir, work) = setup();
    let server = ReplayServer::start(vec![
        Turn::nu("mkdir refused-dir"),
        Turn::answer("I did not create it."),
    ]);
    let tmux = nu_in_terminal("ask-no", dir.path(), &work, &server.url());
    tmux.send(&[r#"ask "make a directory""#, "Enter"]);
    wait_for(&tmux, "[Y]es [n]o");
    tmux.send(&["n"]);
    wait_for(&tmux, "I did not create it.");
    assert!(!work.join("refused-dir").exists());
    assert!(tmux.screen().contains("denied"), "{}", tmux.screen());
    let shown = server.shown(1);
    assert!(shown.contains("did not approve"), "{shown}");
}

#[test]
fn ctrl_c_stops_a_running_step_and_the_conversation_can_continue() {
    let (dir, work) = setup();
    let server = ReplayServer::start(vec![
        Turn::nu("sleep 30sec; 'late' | save late.txt"),
        Turn::answer("back again"),
    ]);
    let tmux = nu_in_terminal("ask-ctrl-c", dir.path(), &work, &server.url());
    tmux.send(&[r#"ask "wait a while""#, "Enter"]);
    // `save` asks first; approve it so that the step runs.
    wait_for(&tmux, "[Y]es [n]o");
    tmux.send(&["y"]);
    std::thread::sleep(Duration::from_millis(1500));
    let started = Instant::now();
    tmux.send(&["C-c"]);
    wait_for(&tmux, "interrupted");
    assert!(started.elapsed() < Duration::from_secs(15));
    if std::env::var_os("NU_AGENT_SHOW_SCREEN").is_some() {
        eprintln!("{}", tmux.screen());
    }
    std::thread::sleep(Duration::from_millis(500));
    assert!(!work.join("late.txt").exists());
    tmux.send(&[r#"ask --continue "are you there?""#, "Enter"]);
    wait_for(&tmux, "back again");
    let shown = server.shown(1);
    assert!(shown.contains("wait a while"), "{shown}");
}

#[test]
fn alt_s_replaces_the_command_line_with_the_suggestion() {
    let (dir, work) = setup();
    let server = ReplayServer::start(vec![Turn::call(
        "nu",
        serde_json::json!({"pipeline": "ls | where size > 1mb", "why": "big files"}),
    )]);
    let tmux = nu_in_terminal("suggest-key", dir.path(), &work, &server.url());
    let module = Path::new(env!("CARGO_MANIFEST_DIR")).join("../nu-scripts/agent.nu");
    tmux.send(&[
        &format!("use '{}'; print loaded", module.display()),
        "Enter",
    ]);
    wait_for(&tmux, "\nloaded");
    tmux.send(&["files over a megabyte"]);
    wait_for(&tmux, "files over a megabyte");
    tmux.send(&["M-s"]);
    wait_for(&tmux, "> ls | where size > 1mb");
    let shown = server.shown(0);
    assert!(shown.contains("files over a megabyte"), "{shown}");
    // Nothing ran: the line waits for the user.
    let screen = tmux.screen();
    let last = screen
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    assert!(last.contains("> ls | where size > 1mb"), "{screen}");
    // While it thought, a line of its own said so, and it stays.
    assert!(
        screen
            .lines()
            .any(|l| l.starts_with("agent suggest: thinking about \"files over a megabyte\"")),
        "{screen}"
    );
}

/// An error of Alt+S stays on a line of its own below the prompt, and the
/// command line keeps the request.
#[test]
fn alt_s_shows_its_error_on_a_line_that_stays() {
    let (dir, work) = setup();
    let dead = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}/v1", listener.local_addr().unwrap())
    };
    let tmux = nu_in_terminal("suggest-error", dir.path(), &work, &dead);
    let module = Path::new(env!("CARGO_MANIFEST_DIR")).join("../nu-scripts/agent.nu");
    tmux.send(&[
        &format!(
            "$env.config.plugins.agent = {{model: {{retries: 0, timeout: 5sec}}}}; use '{}'; print loaded",
            module.display()
        ),
        "Enter",
    ]);
    wait_for(&tmux, "\nloaded");
    tmux.send(&["files over a megabyte"]);
    wait_for(&tmux, "files over a megabyte");
    tmux.send(&["M-s"]);
    wait_for(&tmux, "\nagent suggest: http");
    std::thread::sleep(Duration::from_millis(300));
    let screen = tmux.screen();
    assert!(
        screen.lines().any(|l| l.starts_with("agent suggest: http")),
        "{screen}"
    );
    let last = screen
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    assert!(last.contains("> files over a megabyte"), "{screen}");
}

/// `a` (always) at a prompt of `ask` covers the same command for the rest
/// of that `ask`: a later step with it does not ask again.
#[test]
fn always_covers_the_same_command_for_the_rest_of_the_ask() {
    let (dir, work) = setup();
    let server = ReplayServer::start(vec![
        Turn::nu("mkdir made"),
        Turn::nu("ls | length"),
        Turn::nu("mkdir made; 'again'"),
        Turn::answer("made it twice"),
    ]);
    let tmux = nu_in_terminal("ask-always", dir.path(), &work, &server.url());
    tmux.send(&[r#"ask "make a directory twice""#, "Enter"]);
    wait_for(&tmux, "[a]lways");
    tmux.send(&["a"]);
    wait_for(&tmux, "made it twice");
    let screen = tmux.screen();
    assert_eq!(screen.matches("Run it?").count(), 1, "{screen}");
    assert!(work.join("made").is_dir(), "{screen}");
}

/// A step of `ask` whose paths are known only when it runs asks then, on
/// a prompt the progress line does not draw over; `a` covers the other
/// files.
#[test]
fn a_runtime_question_in_ask_is_shown_and_always_covers_the_run() {
    let (dir, work) = setup();
    for name in ["a.bin", "b.bin", "c.bin"] {
        std::fs::write(work.join(name), vec![0u8; 3000]).unwrap();
    }
    let server = ReplayServer::start(vec![
        Turn::nu("ls *.bin | each { rm --permanent $in.name } | length"),
        Turn::answer("deleted them"),
    ]);
    let tmux = nu_in_terminal("ask-runtime", dir.path(), &work, &server.url());
    tmux.send(&[r#"ask "delete the bin files""#, "Enter"]);
    wait_for(&tmux, "delete: 1 file, 3kB: a.bin");
    wait_for(&tmux, "Run it? [Y]es [n]o [a]lways");
    // A person takes a while: the prompt stays on the screen meanwhile.
    std::thread::sleep(Duration::from_secs(2));
    assert!(
        tmux.screen().contains("Run it? [Y]es [n]o [a]lways"),
        "{}",
        tmux.screen()
    );
    tmux.send(&["a"]);
    wait_for(&tmux, "deleted them");
    let screen = tmux.screen();
    for name in ["a.bin", "b.bin", "c.bin"] {
        assert!(!work.join(name).exists(), "{name} is left:\n{screen}");
    }
    assert_eq!(screen.matches("Run it?").count(), 1, "{screen}");
}
