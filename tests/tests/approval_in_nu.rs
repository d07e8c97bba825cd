//! The approval prompt of `agent run` in an interactive nu (driven through
//! tmux): the plugin takes the terminal, asks with one key, acts on the
//! answer, gives the terminal back, and keeps serving — Ctrl+C at the
//! prompt included.

use std::{
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use agent_e2e::{nu_binary, register_plugin, tmux::Tmux};

/// How long the plugin may take to show a prompt or finish a step (debug
/// builds on a busy two-core machine).
const STEP: Duration = Duration::from_secs(30);

/// Waiting on what the terminal shows.
trait Waits {
    fn wait_for_text(&self, text: &str);
    fn wait_for_nu_prompt(&self, cwd_name: &str);
}

impl Waits for Tmux {
    fn wait_for_text(&self, text: &str) {
        let started = Instant::now();
        while !self.screen().contains(text) {
            assert!(
                started.elapsed() < STEP,
                "timed out waiting for {text:?}; screen:\n{}",
                self.screen()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Wait until nu shows its prompt again, with nothing typed after it.
    fn wait_for_nu_prompt(&self, cwd_name: &str) {
        let marker = format!("{cwd_name}>");
        let started = Instant::now();
        loop {
            let screen = self.screen();
            let last = screen.lines().rev().find(|l| !l.trim().is_empty());
            if let Some(after) = last.and_then(|l| l.split_once(&marker)).map(|(_, a)| a)
                && !after.contains("agent")
            {
                return;
            }
            assert!(
                started.elapsed() < STEP,
                "timed out waiting for nu's prompt; screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

fn wait_for_file(path: &Path, tmux: &Tmux) -> String {
    let started = Instant::now();
    loop {
        if let Ok(text) = std::fs::read_to_string(path)
            && !text.is_empty()
        {
            return text;
        }
        assert!(
            started.elapsed() < STEP,
            "timed out waiting for {}; screen:\n{}",
            path.display(),
            tmux.screen()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// nu, in `work`, with the agent plugin loaded and never stopped for
/// idleness (so that its pid tells whether it survived).
fn nu_with_plugin(name: &str, dir: &Path, work: &Path) -> Tmux {
    let registry = register_plugin(dir);
    let nu = nu_binary();
    let tmux = Tmux::start(name, work, &format!("{} --no-config-file", nu.display()));
    tmux.wait_for_nu_prompt("work");
    tmux.send(&[
        &format!(
            "$env.config.plugin_gc = {{default: {{enabled: false}}}}; plugin use --plugin-config '{}' agent",
            registry.display()
        ),
        "Enter",
    ]);
    tmux.wait_for_nu_prompt("work");
    tmux
}

/// Save the agent plugin's pid to `path` (it starts the plugin if needed).
fn save_plugin_pid(tmux: &Tmux, path: &Path) -> String {
    tmux.send(&[
        &format!(
            "plugin list | where name == agent | get 0.pid | into string | save -f '{}'",
            path.display()
        ),
        "Enter",
    ]);
    wait_for_file(path, tmux)
}

fn setup() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    (dir, work)
}

#[test]
fn yes_runs_no_denies_and_the_plugin_keeps_serving() {
    let (dir, work) = setup();
    let tmux = nu_with_plugin("approve", dir.path(), &work);

    tmux.send(&[r#"agent run "mkdir approved""#, "Enter"]);
    tmux.wait_for_text("write: approved");
    tmux.wait_for_text("[Y]es [n]o [a]lways");
    let pid_file = dir.path().join("pid-before");
    tmux.send(&["y"]);
    tmux.wait_for_nu_prompt("work");
    assert!(work.join("approved").is_dir(), "{}", tmux.screen());
    let pid_before = save_plugin_pid(&tmux, &pid_file);

    tmux.send(&[r#"agent run "mkdir refused""#, "Enter"]);
    tmux.wait_for_text("write: refused");
    tmux.send(&["n"]);
    tmux.wait_for_text("not approved: write: refused");
    tmux.wait_for_nu_prompt("work");
    assert!(!work.join("refused").exists());

    assert_the_same_plugin_still_answers(&tmux, dir.path(), &pid_before);
}

#[test]
fn a_risky_step_defaults_to_no_and_ctrl_c_at_the_prompt_answers_no() {
    let (dir, work) = setup();
    let sibling = dir.path().join("sibling");
    std::fs::create_dir(&sibling).unwrap();
    std::fs::write(sibling.join("keep.txt"), "kept").unwrap();
    let tmux = nu_with_plugin("warn", dir.path(), &work);

    // Outside the writable roots: a warning, so Enter means No and there
    // is no "always".
    tmux.send(&[r#"agent run "rm -r ../sibling""#, "Enter"]);
    tmux.wait_for_text("Run it? [y]es [N]o");
    let screen = tmux.screen();
    let prompt = screen
        .lines()
        .find(|l| l.contains("Run it?"))
        .unwrap_or_default();
    assert!(!prompt.contains("[a]lways"), "{screen}");
    assert!(screen.contains("delete ⚠"), "{screen}");
    tmux.send(&["Enter"]);
    tmux.wait_for_text("not approved: delete");
    tmux.wait_for_nu_prompt("work");
    assert_eq!(
        std::fs::read_to_string(sibling.join("keep.txt")).unwrap(),
        "kept"
    );
    let pid_before = save_plugin_pid(&tmux, &dir.path().join("pid-before"));

    // Ctrl+C while the plugin holds the terminal is a key meaning No; it
    // does not kill the plugin.
    tmux.send(&[r#"agent run "mkdir interrupted""#, "Enter"]);
    tmux.wait_for_text("write: interrupted");
    tmux.send(&["C-c"]);
    tmux.wait_for_text("not approved: write: interrupted");
    tmux.wait_for_nu_prompt("work");
    assert!(!work.join("interrupted").exists());

    assert_the_same_plugin_still_answers(&tmux, dir.path(), &pid_before);
}

/// The plugin answers the next `agent run`, from the same process.
fn assert_the_same_plugin_still_answers(tmux: &Tmux, dir: &Path, pid_before: &str) {
    let marker = dir.join("after.txt");
    tmux.send(&[
        &format!(
            "agent run \"1 + 1\" | into string | save -f '{}'",
            marker.display()
        ),
        "Enter",
    ]);
    assert_eq!(wait_for_file(&marker, tmux), "2");
    let pid_after = save_plugin_pid(tmux, &dir.join("pid-after"));
    assert_eq!(pid_before, pid_after, "the plugin was restarted");
    if std::env::var_os("NU_AGENT_SHOW_SCREEN").is_some() {
        eprintln!("{}", tmux.screen());
    }
}

/// A shell in tmux (`command`), in `work`, with nu's path and the plugin
/// registry at hand.
fn shell_in(name: &str, work: &Path, command: &str) -> Tmux {
    let tmux = Tmux::start(name, work, command);
    std::thread::sleep(Duration::from_millis(300));
    tmux
}

/// Wait until the screen holds `rc=N` after the last prompt; returns N.
fn wait_for_rc(tmux: &Tmux) -> String {
    let started = Instant::now();
    loop {
        let screen = tmux.screen();
        if let Some(rc) = screen
            .lines()
            .filter_map(|l| l.trim().strip_prefix("rc="))
            .next_back()
        {
            return rc.trim().to_string();
        }
        assert!(
            started.elapsed() < STEP,
            "timed out waiting for rc=; screen:\n{screen}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `nu -c` and `nu script.nu` started from an interactive bash get the
/// terminal back after the prompt (they used to be stopped by SIGTTOU, rc
/// 150, until `fg`).
#[test]
fn nu_started_from_bash_is_not_stopped_by_a_prompt() {
    let (dir, work) = setup();
    let registry = register_plugin(dir.path());
    let nu = nu_binary();
    let use_agent = format!("plugin use --plugin-config '{}' agent", registry.display());
    std::fs::write(
        dir.path().join("script.nu"),
        format!("{use_agent}\nagent run \"mkdir from_script\"\n"),
    )
    .unwrap();
    let tmux = shell_in("bash", &work, "bash --norc --noprofile");
    tmux.send(&[
        &format!(
            "{} --no-config-file -c \"{use_agent}; agent run 'mkdir from_c'\"; echo rc=$?",
            nu.display()
        ),
        "Enter",
    ]);
    tmux.wait_for_text("[Y]es [n]o [a]lways");
    tmux.send(&["y"]);
    assert_eq!(wait_for_rc(&tmux), "0", "{}", tmux.screen());
    assert!(work.join("from_c").is_dir(), "{}", tmux.screen());
    assert!(!tmux.screen().contains("Stopped"), "{}", tmux.screen());

    tmux.send(&["clear", "Enter"]);
    tmux.send(&[
        &format!(
            "{} --no-config-file '{}'; echo rc=$?",
            nu.display(),
            dir.path().join("script.nu").display()
        ),
        "Enter",
    ]);
    tmux.wait_for_text("write: from_script");
    tmux.send(&["n"]);
    assert_eq!(wait_for_rc(&tmux), "1", "{}", tmux.screen());
    assert!(!work.join("from_script").exists());
    assert!(!tmux.screen().contains("Stopped"), "{}", tmux.screen());
}

/// `^nu -c` started from the nu REPL: the inner nu gets the terminal back
/// and the outer one its prompt.
#[test]
fn nu_c_started_from_the_nu_repl_is_not_stopped_by_a_prompt() {
    let (dir, work) = setup();
    let registry = register_plugin(dir.path());
    let nu = nu_binary();
    let tmux = Tmux::start(
        "nested",
        &work,
        &format!("{} --no-config-file", nu.display()),
    );
    tmux.wait_for_nu_prompt("work");
    tmux.send(&[
        &format!(
            "^'{}' --no-config-file -c \"plugin use --plugin-config '{}' agent; agent run 'mkdir nested'\"; $\"rc=($env.LAST_EXIT_CODE)\"",
            nu.display(),
            registry.display()
        ),
        "Enter",
    ]);
    tmux.wait_for_text("[Y]es [n]o [a]lways");
    tmux.send(&["y"]);
    assert_eq!(wait_for_rc(&tmux), "0", "{}", tmux.screen());
    assert!(work.join("nested").is_dir(), "{}", tmux.screen());
    tmux.wait_for_nu_prompt("work");
}

/// A delete over a list asks with real paths, not `0 files` up front, and
/// "always" on the first file covers the rest of that run.
#[test]
fn a_delete_over_a_list_asks_with_real_paths_and_always_covers_the_run() {
    let (dir, work) = setup();
    for name in ["a.bin", "b.bin", "c.bin"] {
        std::fs::write(work.join(name), vec![0u8; 3000]).unwrap();
    }
    let tmux = nu_with_plugin("list", dir.path(), &work);
    tmux.send(&[
        r#"agent run "ls *.bin | each { rm --permanent $in.name } | length""#,
        "Enter",
    ]);
    tmux.wait_for_text("delete: 1 file, 3kB: a.bin");
    tmux.wait_for_text("[a]lways");
    tmux.send(&["a"]);
    tmux.wait_for_nu_prompt("work");
    let screen = tmux.screen();
    for name in ["a.bin", "b.bin", "c.bin"] {
        assert!(!work.join(name).exists(), "{name} is left:\n{screen}");
    }
    assert!(!screen.contains("0 files"), "{screen}");
    assert_eq!(screen.matches("Run it?").count(), 1, "{screen}");
}

/// `e` at the prompt starts the edit line with the pipeline; the edited
/// pipeline is checked and asked about again.
#[test]
fn edit_starts_with_the_pipeline() {
    let (dir, work) = setup();
    let tmux = nu_with_plugin("edit", dir.path(), &work);
    tmux.send(&[r#"agent run "mkdir one""#, "Enter"]);
    tmux.wait_for_text("write: one");
    tmux.send(&["e"]);
    tmux.wait_for_text("edit> mkdir one");
    tmux.send(&["BSpace", "BSpace", "BSpace", "two", "Enter"]);
    tmux.wait_for_text("write: two");
    tmux.send(&["y"]);
    tmux.wait_for_nu_prompt("work");
    assert!(work.join("two").is_dir(), "{}", tmux.screen());
    assert!(!work.join("one").exists(), "{}", tmux.screen());
}

/// `a` lasts the nu session: the next `agent run` of the same command does
/// not ask, even where nu stops idle plugins at once.
#[test]
fn always_lasts_the_nu_session() {
    let (dir, work) = setup();
    let registry = register_plugin(dir.path());
    let tmux = Tmux::start(
        "always",
        &work,
        &format!("{} --no-config-file", nu_binary().display()),
    );
    tmux.wait_for_nu_prompt("work");
    tmux.send(&[
        &format!(
            "$env.config.plugin_gc = {{default: {{enabled: true, stop_after: 0sec}}}}; plugin use --plugin-config '{}' agent",
            registry.display()
        ),
        "Enter",
    ]);
    tmux.wait_for_nu_prompt("work");
    tmux.send(&[r#"agent run "mkdir kept""#, "Enter"]);
    tmux.wait_for_text("[a]lways");
    tmux.send(&["a"]);
    tmux.wait_for_nu_prompt("work");
    assert!(work.join("kept").is_dir(), "{}", tmux.screen());
    std::thread::sleep(Duration::from_millis(1500));
    let marker = dir.path().join("second.txt");
    tmux.send(&[
        &format!(
            "agent run \"mkdir kept; 'again'\" | save -f '{}'",
            marker.display()
        ),
        "Enter",
    ]);
    assert_eq!(wait_for_file(&marker, &tmux), "again");
    assert_eq!(
        tmux.screen().matches("Run it?").count(),
        1,
        "{}",
        tmux.screen()
    );
}
