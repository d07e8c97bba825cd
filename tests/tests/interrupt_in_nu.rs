//! Ctrl+C in an interactive nu (driven through tmux) stops `agent run`, kills
//! the processes it started, and leaves the plugin serving.

use std::{
    process::Command,
    time::{Duration, Instant},
};

use agent_e2e::{nu_binary, register_plugin, tmux::Tmux};

fn wait_for(what: &str, timeout: Duration, mut check: impl FnMut() -> bool) {
    let started = Instant::now();
    while !check() {
        assert!(started.elapsed() < timeout, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn sleeping(marker: &str) -> bool {
    let out = Command::new("pgrep").args(["-f", marker]).output().unwrap();
    !out.stdout.is_empty()
}

#[test]
fn ctrl_c_in_nu_stops_agent_run_and_the_plugin_keeps_serving() {
    let dir = tempfile::tempdir().unwrap();
    let registry = register_plugin(dir.path());
    let nu = nu_binary();
    let tmux = Tmux::start(
        "interrupt",
        dir.path(),
        &format!("{} --no-config-file", nu.display()),
    );
    wait_for("the nu prompt", Duration::from_secs(20), || {
        tmux.screen().contains('>')
    });

    tmux.send(&[
        &format!("plugin use --plugin-config '{}' agent", registry.display()),
        "Enter",
    ]);
    tmux.send(&[
        r#"agent run --yes "^sh -c 'sleep 27.1828; echo never'""#,
        "Enter",
    ]);
    wait_for("the external to start", Duration::from_secs(20), || {
        sleeping("sleep 27.1828")
    });

    let started = Instant::now();
    tmux.send(&["C-c"]);
    wait_for("the external to be killed", Duration::from_secs(3), || {
        !sleeping("sleep 27.1828")
    });
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );

    let marker = dir.path().join("after.txt");
    tmux.send(&[
        &format!(
            "agent run '40 + 2' | into string | save -f '{}'",
            marker.display()
        ),
        "Enter",
    ]);
    wait_for(
        "the plugin to answer again",
        Duration::from_secs(20),
        || marker.exists(),
    );
    assert_eq!(
        std::fs::read_to_string(&marker).unwrap(),
        "42",
        "screen:\n{}",
        tmux.screen()
    );
    let screen = tmux.screen();
    assert!(!screen.lines().any(|l| l.trim() == "never"), "{screen}");
    assert!(screen.contains("agent run was interrupted"), "{screen}");
    if std::env::var_os("NU_AGENT_SHOW_SCREEN").is_some() {
        eprintln!("{screen}");
    }
}

#[test]
fn ctrl_c_of_a_foreground_command_leaves_background_jobs_running() {
    let dir = tempfile::tempdir().unwrap();
    let registry = register_plugin(dir.path());
    let state = dir.path().join("state");
    let nu = nu_binary();
    let tmux = Tmux::start(
        "interrupt-jobs",
        dir.path(),
        &format!(
            "env NU_AGENT_STATE_DIR='{}' {} --no-config-file",
            state.display(),
            nu.display()
        ),
    );
    wait_for("the nu prompt", Duration::from_secs(20), || {
        tmux.screen().contains('>')
    });
    tmux.send(&[
        &format!("plugin use --plugin-config '{}' agent", registry.display()),
        "Enter",
    ]);
    tmux.send(&[
        r#"let id = (agent job run --yes "^sh -c 'sleep 4.1414; echo job'")"#,
        "Enter",
    ]);
    wait_for(
        "the job's external to start",
        Duration::from_secs(20),
        || sleeping("sleep 4.1414"),
    );
    tmux.send(&[
        r#"agent run --yes "^sh -c 'sleep 27.1829; echo never'""#,
        "Enter",
    ]);
    wait_for(
        "the foreground external to start",
        Duration::from_secs(20),
        || sleeping("sleep 27.1829"),
    );
    tmux.send(&["C-c"]);
    wait_for(
        "the foreground external to be killed",
        Duration::from_secs(3),
        || !sleeping("sleep 27.1829"),
    );
    assert!(sleeping("sleep 4.1414"), "the job's process was killed too");
    let marker = dir.path().join("job.txt");
    tmux.send(&[
        &format!(
            "agent job wait $id | get status | save -f '{}'",
            marker.display()
        ),
        "Enter",
    ]);
    wait_for("the job to finish", Duration::from_secs(20), || {
        marker.exists()
    });
    assert_eq!(
        std::fs::read_to_string(&marker).unwrap(),
        "completed",
        "screen:\n{}",
        tmux.screen()
    );
}
