//! The `nu-agent` CLI from a plain process, as a bash user or script runs it.

use std::{
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use agent_e2e::{nu, stdout_of, workspace_binary};

fn nu_agent(cwd: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(workspace_binary("nu-agent"))
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .output()
        .expect("run nu-agent")
}

fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..5 {
        std::fs::write(dir.path().join(format!("f{i}.txt")), vec![b'x'; i * 1000]).unwrap();
    }
    dir
}

#[test]
fn json_output_equals_nus_own() {
    let dir = fixture();
    let pipeline = "ls | where size > 1500b | sort-by name | select name size";
    let ours = stdout_of(&nu_agent(dir.path(), &["run", "--json", pipeline]));
    let nus = stdout_of(&nu(dir.path(), &format!("{pipeline} | to json --indent 2")));
    let ours: serde_json::Value = serde_json::from_str(&ours).unwrap();
    let nus: serde_json::Value = serde_json::from_str(&nus).unwrap();
    assert_eq!(ours, nus);
    assert_eq!(ours.as_array().unwrap().len(), 3);
}

#[test]
fn default_output_is_nus_table() {
    let dir = fixture();
    let out = stdout_of(&nu_agent(
        dir.path(),
        &["run", "ls | sort-by name | get name"],
    ));
    assert!(out.contains("f0.txt") && out.contains("f4.txt"), "{out}");
    assert!(out.contains('│') || out.contains('|'), "a table: {out}");
}

#[test]
fn observe_prints_the_model_rendering() {
    let dir = fixture();
    let out = stdout_of(&nu_agent(
        dir.path(),
        &["run", "--observe", "ls | sort-by name | select name size"],
    ));
    assert_eq!(
        out,
        "$out.0\ntable: 5 rows × 2 columns\nname:str|size:filesize\nf0.txt|0B\nf1.txt|1kB\nf2.txt|2kB\nf3.txt|3kB\nf4.txt|4kB\n"
    );
}

#[test]
fn parse_errors_exit_non_zero_with_the_diagnostic() {
    let dir = fixture();
    let out = nu_agent(dir.path(), &["run", "ls | where size >"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("nu::parser"), "{stderr}");
    assert!(out.stdout.is_empty());
}

#[test]
fn external_failure_exits_with_its_code() {
    let dir = fixture();
    let out = nu_agent(
        dir.path(),
        &["run", "^sh -c 'echo hi; echo bad >&2; exit 7'"],
    );
    assert_eq!(out.status.code(), Some(7));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "hi\n");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "bad\n");
}

#[test]
fn a_bad_timeout_is_a_usage_error_not_a_crash() {
    let dir = fixture();
    for bad in ["99999999999999999999999h", "-5s", "soon", "3 fortnights"] {
        let out = nu_agent(dir.path(), &["run", &format!("--timeout={bad}"), "1"]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("duration"),
            "{bad}"
        );
    }
}

#[test]
fn timeout_exits_124_quickly() {
    let dir = fixture();
    let started = Instant::now();
    let out = nu_agent(dir.path(), &["run", "--timeout", "500ms", "^sleep 30"]);
    assert_eq!(out.status.code(), Some(124));
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(String::from_utf8_lossy(&out.stderr).contains("time limit"));
}

#[test]
fn ctrl_c_stops_the_run_and_its_processes() {
    let dir = fixture();
    let child = Command::new(workspace_binary("nu-agent"))
        .args(["run", "^sh -c 'sleep 31.4159; echo never'"])
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(700));
    let started = Instant::now();
    // SAFETY: kill(2) on our own child process.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let out = child.wait_with_output().unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(out.status.code(), Some(130));
    assert!(!String::from_utf8_lossy(&out.stdout).contains("never"));
    let leftover = Command::new("pgrep")
        .args(["-f", "sleep 31.4159"])
        .output()
        .unwrap();
    assert!(
        leftover.stdout.is_empty(),
        "left running: {}",
        String::from_utf8_lossy(&leftover.stdout)
    );
}

/// `auto-read` with a read-only sandbox: a program the policy does not know
/// runs without asking, because the kernel lets it only read.
#[test]
fn auto_read_runs_unknown_programs_inside_the_read_only_sandbox() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let tool = bin.join("sometool");
    std::fs::write(
        &tool,
        "#!/bin/sh\necho read-ok\necho x > \"$1\" 2>/dev/null && echo wrote\nexit 0\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let target = dir.path().join("written.txt");
    let run = |mode: &str| {
        Command::new(workspace_binary("nu-agent"))
            .args(["run", "--mode", mode, "--sandbox", "read-only"])
            .arg(format!("^sometool '{}'", target.display()))
            .current_dir(dir.path())
            .env("PATH", &path)
            .stdin(Stdio::null())
            .output()
            .expect("run nu-agent")
    };
    // In confirm mode an unknown program asks, and nobody is there.
    let asked = run("confirm");
    assert_eq!(asked.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&asked.stderr).contains("nu_agent::policy::denied"));
    // In auto-read it runs, and the sandbox keeps it from writing.
    let ran = run("auto-read");
    let stdout = stdout_of(&ran);
    assert!(
        stdout.contains("read-ok"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    assert!(!stdout.contains("wrote"), "{stdout}");
    assert!(!target.exists());
}

/// A config file as `echo '...' > file` writes it (with a trailing newline)
/// is read as data: its `block` rule holds.
#[test]
fn a_config_file_with_a_trailing_newline_is_honoured() {
    let dir = fixture();
    let config = dir.path().join("config.nuon");
    std::fs::write(&config, "{ policy: { block: [\"^git *\"] } }\n").unwrap();
    let config = config.to_string_lossy().into_owned();
    let out = stdout_of(&nu_agent(
        dir.path(),
        &[
            "--config",
            &config,
            "policy",
            "check",
            "--json",
            "^git status",
        ],
    ));
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["verdict"], "block", "{json}");
}

/// A config file that is code, or has a bad value, stops nu-agent before it
/// does anything, naming the file and the key.
#[test]
fn a_bad_config_file_refuses_to_start_naming_the_file_and_key() {
    let dir = fixture();
    let config = dir.path().join("config.nuon");
    let path = config.to_string_lossy().into_owned();
    let start = |text: &str| {
        std::fs::write(&config, text).unwrap();
        let out = nu_agent(
            dir.path(),
            &["--config", &path, "run", "--yes", "mkdir made"],
        );
        assert_eq!(out.status.code(), Some(1), "{text:?}");
        assert!(!dir.path().join("made").exists(), "{text:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let stderr = start("{ policy: { mode: \"nonsense\" } }\n");
    assert!(stderr.contains(&path), "{stderr}");
    assert!(stderr.contains("policy.mode"), "{stderr}");
    assert!(stderr.contains("help:"), "{stderr}");
    let stderr = start("{ policy: { mode: yolo }, polcy: {} }\n");
    assert!(stderr.contains("polcy"), "{stderr}");
    let stderr = start("{ policy: { mode: (mkdir made) } }\n");
    assert!(stderr.contains(&path), "{stderr}");
    assert!(stderr.contains("NUON"), "{stderr}");
}

#[test]
fn max_output_sets_the_cap_and_a_cut_run_names_the_flag() {
    let dir = fixture();
    let out = nu_agent(
        dir.path(),
        &[
            "run",
            "--json",
            "--max-output",
            "1KiB",
            "1..100000 | each {|i| $i}",
        ],
    );
    let rows: Vec<u64> = serde_json::from_str(stdout_of(&out).trim()).unwrap();
    assert!(!rows.is_empty() && rows.len() < 100, "{}", rows.len());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("nu-agent: output cut at 1 KiB; raise it with --max-output"),
        "{stderr}"
    );

    let out = nu_agent(
        dir.path(),
        &[
            "run",
            "--max-output",
            "200MiB",
            "1..2000000 | each {|i| $i} | length",
        ],
    );
    assert_eq!(stdout_of(&out).trim(), "2000000");

    let out = nu_agent(dir.path(), &["run", "--max-output", "lots", "1"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("`lots` is not a size"), "{stderr}");
}

#[test]
fn config_init_writes_a_template_that_reads_back_and_never_overwrites() {
    let dir = tempfile::tempdir().unwrap();
    // The default path: $XDG_CONFIG_HOME/nu-agent/config.nuon.
    let init = |extra: &[&str]| {
        Command::new(workspace_binary("nu-agent"))
            .args(extra)
            .args(["config", "init"])
            .current_dir(dir.path())
            .env("XDG_CONFIG_HOME", dir.path().join("xdg"))
            .env_remove("NU_AGENT_CONFIG")
            .stdin(Stdio::null())
            .output()
            .expect("run nu-agent")
    };
    let out = init(&[]);
    let default_path = dir.path().join("xdg/nu-agent/config.nuon");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(
        std::fs::read_to_string(&default_path).unwrap(),
        agent_core::config::CONFIG_TEMPLATE
    );
    // --config FILE, and the file it writes is what the CLI then reads.
    let path = dir.path().join("mine.nuon");
    let path_arg = path.to_str().unwrap();
    assert_eq!(init(&["--config", path_arg]).status.code(), Some(0));
    let shown = stdout_of(&nu_agent(
        dir.path(),
        &["--config", path_arg, "policy", "show", "--json"],
    ));
    let shown: serde_json::Value = serde_json::from_str(&shown).unwrap();
    assert_eq!(shown["mode"], "confirm");
    assert_eq!(shown["sandbox"], "workspace-write");

    std::fs::write(&path, "{ policy: { mode: yolo } }\n").unwrap();
    let again = init(&["--config", path_arg]);
    assert_eq!(again.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert!(stderr.contains(path_arg), "{stderr}");
    assert!(stderr.contains("already exists"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "{ policy: { mode: yolo } }\n"
    );
}

#[test]
fn completions_name_the_subcommands() {
    let dir = tempfile::tempdir().unwrap();
    // How each shell's script offers a subcommand.
    type Offer = fn(&str) -> String;
    let offers: [(&str, Offer); 3] = [
        ("bash", |name| format!(" {name} ")),
        ("zsh", |name| format!("'{name}:")),
        ("fish", |name| format!("-a \"{name}\"")),
    ];
    for (shell, offer) in offers {
        let script = stdout_of(&nu_agent(dir.path(), &["completions", shell]));
        for subcommand in [
            "ask",
            "run",
            "policy",
            "model",
            "config",
            "completions",
            "init",
            "pull",
        ] {
            assert!(
                script.contains(&offer(subcommand)),
                "{shell}: {subcommand} is not offered in\n{script}"
            );
        }
    }
    let zsh = stdout_of(&nu_agent(dir.path(), &["completions", "zsh"]));
    assert!(zsh.starts_with("#compdef nu-agent"), "{zsh}");
    let out = nu_agent(dir.path(), &["completions", "powershell"]);
    assert_eq!(out.status.code(), Some(2));
}
