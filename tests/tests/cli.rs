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

/// A NUON mistake in the config file is reported at its own line and
/// column (not at the key after it), with the text and how to write it.
#[test]
fn a_config_file_mistake_names_its_line_column_and_text() {
    let dir = fixture();
    let config = dir.path().join("config.nuon");
    std::fs::write(
        &config,
        "{\n  model: {\n    keep_alive: 5 minutes\n    think: false\n  }\n}\n",
    )
    .unwrap();
    let path = config.to_string_lossy().into_owned();
    let out = nu_agent(dir.path(), &["--config", &path, "run", "1"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "the configuration file {path} is not a NUON record: line 3, column 17: `5 minutes`"
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains("help: `5 minutes` is not NUON; write 5min"),
        "{stderr}"
    );
}

/// A model path in NU_AGENT_MODEL that is not there is an error that says
/// where the path came from.
#[test]
fn a_missing_model_in_nu_agent_model_names_the_variable() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-model.gguf");
    let out = Command::new(workspace_binary("nu-agent"))
        .args(["ask", "hello"])
        .current_dir(dir.path())
        .env("NU_AGENT_MODEL", &missing)
        .env("NU_AGENT_CACHE", dir.path())
        .env("NU_AGENT_STATE_DIR", dir.path())
        .env_remove("NU_AGENT_BACKEND_URL")
        .env_remove("NU_AGENT_CONFIG")
        .stdin(Stdio::null())
        .output()
        .expect("run nu-agent");
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "{} does not exist (the model comes from NU_AGENT_MODEL",
            missing.display()
        )),
        "{stderr}"
    );
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
    // The rows whose JSON fits in 1 KiB: `[1,2,…,282]` is 1021 bytes.
    let rows: Vec<u64> = serde_json::from_str(stdout_of(&out).trim()).unwrap();
    assert_eq!(rows, (1..=282).collect::<Vec<u64>>());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "nu-agent: warning: output cut at 1 KiB (282 rows kept, counted as JSON); raise it with --max-output"
        ),
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

/// A cut run exits 0 with the part that fits on stdout and one warning on
/// stderr, whatever the pipeline: bytes of an external the cut kills, rows
/// of an external the cut kills, rows of a list. `agent run` in nu does
/// the same with the same warnings (see `plugin_in_nu.rs`).
#[test]
fn a_cut_run_exits_zero_with_the_part_that_fits_and_the_warning() {
    let dir = fixture();
    let runs = [
        (
            "^head -c 3000000 /dev/zero",
            "1MiB",
            None,
            "output cut at 1 MiB (counted in bytes); raise it with --max-output",
        ),
        (
            "^yes | lines",
            "1KiB",
            Some(255),
            "output cut at 1 KiB (255 rows kept, counted as JSON); raise it with --max-output",
        ),
        (
            "1..100000 | each {|i| $i} | collect",
            "1KiB",
            Some(282),
            "output cut at 1 KiB (282 rows kept, counted as JSON); raise it with --max-output",
        ),
    ];
    for (pipeline, cap, rows, warning) in runs {
        let mut args = vec!["run", "--max-output", cap, pipeline];
        if rows.is_some() {
            args.insert(1, "--json");
        }
        let out = nu_agent(dir.path(), &args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{pipeline}: {stderr}");
        let warning = format!("nu-agent: warning: {warning}");
        assert_eq!(stderr.matches(&warning).count(), 1, "{pipeline}: {stderr}");
        match rows {
            Some(rows) => {
                let value: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
                assert_eq!(value.len(), rows, "{pipeline}");
            }
            // The text, and the newline the terminal gets after it.
            None => assert_eq!(out.stdout.len(), (1 << 20) + 1, "{pipeline}"),
        }
    }
}

/// A result as big as the cap allows comes back whole through the sandbox
/// worker: 50 MB of NUL bytes (300 MB if it were JSON text) under the
/// 64 MiB default.
#[test]
fn a_big_result_comes_back_whole_from_the_sandbox_worker() {
    let dir = fixture();
    let size = 50_000_000;
    let out = nu_agent(
        dir.path(),
        &[
            "run",
            "--sandbox",
            "workspace-write",
            &format!("^head -c {size} /dev/zero"),
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("cut at"), "{stderr}");
    // The text, and the newline the terminal gets after it.
    assert_eq!(out.stdout.len(), size + 1);
    assert!(out.stdout[..size].iter().all(|b| *b == 0));
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

/// Every command the template's comments name exists (`agent undo` did
/// not), and its `threads` comment says what the README says.
#[test]
fn the_config_template_names_only_commands_that_exist() {
    let dir = tempfile::tempdir().unwrap();
    let template = agent_core::config::CONFIG_TEMPLATE;
    let named: Vec<&str> = template
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|quoted| quoted.starts_with("agent ") || quoted.starts_with("nu-agent "))
        .collect();
    assert!(!named.is_empty());
    for command in named {
        let words: Vec<&str> = command
            .split_whitespace()
            .skip(1)
            .take_while(|w| w.chars().all(|c| c.is_ascii_lowercase()))
            .collect();
        let mut args = words.clone();
        args.push("--help");
        let out = nu_agent(dir.path(), &args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "`{command}` is not a command: {out:?}"
        );
    }
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md")).unwrap();
    assert!(readme.contains("the physical cores other work leaves free"));
    assert!(template.contains("the physical cores other work leaves free"));
}

/// `rm -rf ~` is blocked under any policy, and its help says so instead of
/// sending the user to the policy; a block by the mode still does.
#[test]
fn a_block_no_policy_lowers_does_not_say_change_the_policy() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    std::fs::write(home.join("keep.txt"), "x").unwrap();
    let run = |args: &[&str]| {
        Command::new(workspace_binary("nu-agent"))
            .args(args)
            .current_dir(dir.path())
            .env("HOME", &home)
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("XDG_STATE_HOME")
            .env_remove("NU_AGENT_CONFIG")
            .stdin(Stdio::null())
            .output()
            .expect("run nu-agent")
    };
    for args in [
        &["run", "--mode", "yolo", "rm -rf ~"][..],
        &["run", "--yes", "rm -rf ~"][..],
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("no policy allows it") && stderr.contains("is your home directory"),
            "{args:?}: {stderr}"
        );
        assert!(!stderr.contains("change the policy"), "{args:?}: {stderr}");
        assert!(home.join("keep.txt").exists(), "{args:?}");
    }
    let out = run(&["run", "--mode", "read-only", "mkdir made"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("change the policy"), "{stderr}");
    assert!(!dir.path().join("made").exists());
}

/// With no terminal and nothing approved in advance, the denial says
/// nobody could be asked (not "approve it at the prompt").
#[test]
fn a_denial_with_no_terminal_says_nobody_could_be_asked() {
    let dir = tempfile::tempdir().unwrap();
    let out = nu_agent(dir.path(), &["run", "mkdir made"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("nobody could be asked"), "{stderr}");
    assert!(!dir.path().join("made").exists());
}

/// `--approve 'mkdir *'` approves a `mkdir` and never a step chained
/// after it (in the default sandboxed mode); an empty pattern is an error
/// naming it.
#[test]
fn a_pre_approval_approves_only_the_steps_it_names() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("victim.bin"), "kept").unwrap();
    for pipeline in [
        "mkdir q8; rm victim.bin",
        "mkdir q8 | ignore; rm victim.bin",
        "[a] | each { mkdir q8; rm victim.bin }",
    ] {
        let out = nu_agent(dir.path(), &["run", "--approve", "mkdir *", pipeline]);
        assert_eq!(out.status.code(), Some(1), "{pipeline}: {out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("not approved"), "{pipeline}: {stderr}");
        assert!(
            stderr.contains("matches none of the --approve patterns"),
            "{pipeline}: {stderr}"
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("victim.bin"))
                .ok()
                .as_deref(),
            Some("kept"),
            "{pipeline}"
        );
    }
    let out = nu_agent(dir.path(), &["run", "--approve", "mkdir *", "mkdir d"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(dir.path().join("d").is_dir());

    for empty in ["", "  "] {
        let out = nu_agent(dir.path(), &["run", "--approve", empty, "mkdir e"]);
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("the pattern is empty"), "{stderr}");
        assert!(!dir.path().join("e").exists());
    }
}

/// A name that is neither a command nor a program is an error with the
/// engine's "did you mean", not a question.
#[test]
fn a_misspelt_command_is_an_error_with_did_you_mean() {
    let dir = tempfile::tempdir().unwrap();
    let out = nu_agent(dir.path(), &["run", "lss -la"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("Command `lss` not found"), "{stderr}");
    assert!(stderr.contains("Did you mean `ls`?"), "{stderr}");
    assert!(!stderr.contains("not approved"), "{stderr}");
}

/// A write refused by the read-only sandbox says so and how to widen it,
/// from a builtin and from an external.
#[test]
fn the_read_only_sandbox_explains_a_refused_write() {
    let dir = tempfile::tempdir().unwrap();
    for pipeline in ["mkdir made", "^touch made"] {
        let out = nu_agent(
            dir.path(),
            &["run", "--sandbox", "read-only", "--yes", pipeline],
        );
        assert_ne!(out.status.code(), Some(0), "{out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("read-only sandbox refused"),
            "{pipeline}: {stderr}"
        );
        assert!(
            stderr.contains("--sandbox workspace-write"),
            "{pipeline}: {stderr}"
        );
        assert!(!dir.path().join("made").exists());
    }
}

/// `nu-agent policy show` reads as text without `--json`, and its JSON
/// has the keys of `agent policy`.
#[test]
fn policy_show_is_text_and_its_json_has_the_keys_of_agent_policy() {
    let dir = tempfile::tempdir().unwrap();
    let text = stdout_of(&nu_agent(dir.path(), &["policy", "show"]));
    assert!(text.starts_with("mode "), "{text}");
    assert!(text.contains("\npassword_ttl      5min\n"), "{text}");
    let json: serde_json::Value = serde_json::from_str(&stdout_of(&nu_agent(
        dir.path(),
        &["policy", "show", "--json"],
    )))
    .unwrap();
    let registry = agent_e2e::register_plugin(dir.path());
    let plugin: serde_json::Value = serde_json::from_str(&stdout_of(&agent_e2e::nu_with_agent(
        &registry,
        dir.path(),
        "agent policy | to json",
    )))
    .unwrap();
    let keys =
        |v: &serde_json::Value| -> Vec<String> { v.as_object().unwrap().keys().cloned().collect() };
    assert_eq!(keys(&json), keys(&plugin));
    assert_eq!(keys(&json["protections"]), keys(&plugin["protections"]));
}

/// `print` in `nu-agent run` shows on stderr; the value on stdout.
#[test]
fn print_in_nu_agent_run_shows_on_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let out = nu_agent(dir.path(), &["run", "print hello; 5"]);
    assert_eq!(stdout_of(&out).trim(), "5");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("hello"),
        "{out:?}"
    );
}

/// Piped stdin is the pipeline's input, as in `nu -c`.
#[test]
fn piped_stdin_is_the_pipelines_input() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(workspace_binary("nu-agent"))
        .args(["run", "lines | length"])
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(b"a\nb\n").unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(stdout_of(&out).trim(), "2");
    // No stdin: no input.
    let out = nu_agent(dir.path(), &["run", "$in | describe"]);
    assert_eq!(stdout_of(&out).trim(), "nothing");
}

/// File names that are not UTF-8: `ls` skips them with nu's warning (on
/// stderr and for the model), and `^ls` shows them with `\xNN`.
#[test]
fn non_utf8_file_names_are_warned_about_and_escaped() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let bad = std::ffi::OsStr::from_bytes(b"caf\xc3\xa9\xff.txt");
    std::fs::write(dir.path().join(bad), "x").unwrap();
    std::fs::write(dir.path().join("good.txt"), "x").unwrap();
    let out = nu_agent(dir.path(), &["run", "ls | length"]);
    assert_eq!(stdout_of(&out).trim(), "1");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("non-utf8 filename"), "{stderr}");
    let seen = stdout_of(&nu_agent(dir.path(), &["run", "--observe", "^ls"]));
    assert!(seen.contains("caf\u{e9}\\xFF.txt"), "{seen}");
    assert!(!seen.contains("unknown data"), "{seen}");
}

/// `glob` treats a file name that is not UTF-8 as `ls` does: skipped, with
/// a warning, so what it returns opens.
#[test]
fn glob_skips_non_utf8_file_names_with_a_warning_as_ls_does() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let bad = std::ffi::OsStr::from_bytes(b"bad\xff.txt");
    std::fs::write(dir.path().join(bad), "x").unwrap();
    std::fs::write(dir.path().join("good.txt"), "x").unwrap();
    let out = nu_agent(dir.path(), &["run", "glob * | each { open $in } | length"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(stdout_of(&out).trim(), "1");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("glob skipped") && stderr.contains("bad\\xFF.txt"),
        "{stderr}"
    );
}

/// A reader that closes early (`nu-agent completions bash | head -1`) is a
/// normal end: no panic, success.
#[test]
fn a_closed_stdout_ends_the_output_quietly() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        &["completions", "bash"][..],
        &["policy", "show"][..],
        &["policy", "check", "ls"][..],
    ] {
        let mut child = Command::new(workspace_binary("nu-agent"))
            .args(args)
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Close the reading end before the program writes.
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
    }
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
            "job",
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

/// `nu-agent job ...` with `NU_AGENT_STATE_DIR` set to `state`.
fn nu_agent_jobs(state: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(workspace_binary("nu-agent"))
        .arg("job")
        .args(args)
        .current_dir(state)
        .env("NU_AGENT_STATE_DIR", state)
        .env("COLUMNS", "200")
        .stdin(Stdio::null())
        .output()
        .expect("run nu-agent")
}

fn set_status(
    store: &agent_core::jobs::JobStore,
    id: u64,
    status: agent_core::jobs::JobStatus,
    detail: Option<&str>,
) {
    store
        .append(
            id,
            agent_core::jobs::EventKind::Status {
                status,
                detail: detail.map(str::to_string),
            },
        )
        .unwrap();
}

#[test]
fn job_list_status_and_result_read_the_plugins_records() {
    use agent_core::jobs::{JobKind, JobStatus, JobStore};
    use nu_protocol::{Record, Span, Value};

    let state = tempfile::tempdir().unwrap();
    let store = JobStore::open(state.path()).unwrap();
    let done = store.create(JobKind::Run, "ls | length").unwrap();
    set_status(&store, done, JobStatus::Running, None);
    let mut record = Record::new();
    record.push("answer", Value::int(42, Span::unknown()));
    record.push("files", Value::string("a.txt", Span::unknown()));
    store
        .save_result(done, &Value::record(record, Span::unknown()))
        .unwrap();
    set_status(&store, done, JobStatus::Completed, None);
    // Owned by this (live) test process, so it stays waiting, not lost.
    let waiting = store.create(JobKind::Task, "tidy up").unwrap();
    set_status(&store, waiting, JobStatus::Running, None);
    set_status(&store, waiting, JobStatus::Waiting, Some("delete: a.txt"));

    let out = nu_agent_jobs(state.path(), &["list", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let rows: serde_json::Value = serde_json::from_str(&stdout_of(&out)).unwrap();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert_eq!(rows[0]["id"], done);
    assert_eq!(rows[0]["kind"], "run");
    assert_eq!(rows[0]["status"], "completed");
    assert_eq!(rows[0]["title"], "ls | length");
    assert!(rows[0]["started"].is_string(), "{rows:?}");
    assert!(rows[0]["waiting_for"].is_null(), "{rows:?}");
    assert_eq!(rows[1]["id"], waiting);
    assert_eq!(rows[1]["kind"], "task");
    assert_eq!(rows[1]["status"], "waiting");
    assert_eq!(rows[1]["waiting_for"], "delete: a.txt");
    let columns: Vec<&str> = rows[0]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        columns,
        [
            "id",
            "kind",
            "status",
            "title",
            "started",
            "duration",
            "waiting_for"
        ]
    );

    // The default is nu's table.
    let table = stdout_of(&nu_agent_jobs(state.path(), &["list"]));
    assert!(
        table.contains("tidy up") && table.contains("delete: a.txt"),
        "{table}"
    );
    assert!(table.contains('│'), "a table: {table}");

    let out = nu_agent_jobs(state.path(), &["status", &waiting.to_string(), "--json"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let status: serde_json::Value = serde_json::from_str(&stdout_of(&out)).unwrap();
    assert_eq!(status["status"], "waiting");
    assert_eq!(status["waiting_for"], "delete: a.txt");
    assert_eq!(status["pid"], std::process::id());
    assert_eq!(status["has_result"], false);

    // The value, as `run --json` prints one.
    let out = nu_agent_jobs(state.path(), &["result", &done.to_string(), "--json"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let value: serde_json::Value = serde_json::from_str(&stdout_of(&out)).unwrap();
    assert_eq!(value, serde_json::json!({"answer": 42, "files": "a.txt"}));
    let table = stdout_of(&nu_agent_jobs(state.path(), &["result", &done.to_string()]));
    assert!(table.contains("answer") && table.contains("42"), "{table}");

    // A job without a result says so, with its status.
    let out = nu_agent_jobs(state.path(), &["result", &waiting.to_string()]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("job {waiting} has no result")) && stderr.contains("waiting"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());

    // An unknown id names itself and where to look.
    for command in ["status", "result", "logs"] {
        let out = nu_agent_jobs(state.path(), &[command, "99"]);
        assert_eq!(out.status.code(), Some(1), "{command}: {out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("no job 99") && stderr.contains("nu-agent job list"),
            "{command}: {stderr}"
        );
        assert!(out.stdout.is_empty(), "{command}: {out:?}");
    }
}

/// A job that did not complete has no result, even where its run left a
/// value behind: `job result` is an error naming its status (and why it
/// failed), exit 1, nothing on stdout.
#[test]
fn job_result_of_a_job_that_did_not_complete_is_an_error_naming_its_status() {
    use agent_core::jobs::{JobKind, JobStatus, JobStore};
    use nu_protocol::{Span, Value};

    let state = tempfile::tempdir().unwrap();
    let store = JobStore::open(state.path()).unwrap();
    let ended = |status: JobStatus, detail: &str| {
        let id = store.create(JobKind::Run, "^false").unwrap();
        set_status(&store, id, JobStatus::Running, None);
        // What a failed or cancelled run leaves: nothing.
        store
            .save_result(id, &Value::nothing(Span::unknown()))
            .unwrap();
        set_status(&store, id, status, Some(detail));
        id
    };
    let failed = ended(JobStatus::Failed, "the external command exited with code 1");
    let cancelled = ended(JobStatus::Cancelled, "cancelled");
    let timed_out = ended(JobStatus::TimedOut, "stopped after 1.0 s");
    let running = store.create(JobKind::Run, "sleep 1min").unwrap();
    set_status(&store, running, JobStatus::Running, None);
    for (id, says, help) in [
        (
            failed,
            "it failed: the external command exited with code 1",
            "nu-agent job logs",
        ),
        (cancelled, "it was cancelled", "nu-agent job logs"),
        (
            timed_out,
            "it timed out (stopped after 1.0 s)",
            "nu-agent job logs",
        ),
        (running, "it is still running", "agent job wait"),
    ] {
        let out = nu_agent_jobs(state.path(), &["result", &id.to_string()]);
        assert_eq!(out.status.code(), Some(1), "{says}: {out:?}");
        assert!(out.stdout.is_empty(), "{says}: {out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(&format!("job {id} has no result: {says}")),
            "{stderr}"
        );
        assert!(stderr.contains(help), "{stderr}");
    }
    let out = nu_agent_jobs(state.path(), &["status", &failed.to_string(), "--json"]);
    let status: serde_json::Value = serde_json::from_str(&stdout_of(&out)).unwrap();
    assert_eq!(status["has_result"], false);
}

#[test]
fn job_logs_print_one_line_per_event() {
    use agent_core::jobs::{EventKind, JobKind, JobStatus, JobStore};

    let state = tempfile::tempdir().unwrap();
    let store = JobStore::open(state.path()).unwrap();
    let id = store.create(JobKind::Run, "rm a.txt").unwrap();
    set_status(&store, id, JobStatus::Running, None);
    store
        .append(
            id,
            EventKind::Log {
                text: "step 1: rm a.txt".into(),
            },
        )
        .unwrap();
    set_status(&store, id, JobStatus::Failed, Some("denied: delete a.txt"));

    let out = nu_agent_jobs(state.path(), &["logs", &id.to_string()]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = stdout_of(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    let expected = [
        ("created", "run job by pid"),
        ("status", "running"),
        ("log", "step 1: rm a.txt"),
        ("status", "failed: denied: delete a.txt"),
    ];
    for (line, (event, what)) in lines.iter().zip(expected) {
        // `YYYY-MM-DD HH:MM:SS.mmm  event    what`
        let (date, rest) = line.split_once(' ').unwrap();
        assert_eq!(date.len(), 10, "{line}");
        assert!(date.starts_with("20"), "{line}");
        let rest: Vec<&str> = rest.splitn(2, "  ").collect();
        assert_eq!(rest[1].split_whitespace().next(), Some(event), "{line}");
        assert!(line.contains(what), "{line}");
    }
}

#[test]
fn job_clean_removes_finished_jobs_and_keeps_unfinished_ones() {
    use agent_core::jobs::{JobKind, JobStatus, JobStore};

    let state = tempfile::tempdir().unwrap();
    let store = JobStore::open(state.path()).unwrap();
    for status in [
        JobStatus::Completed,
        JobStatus::Failed,
        JobStatus::Cancelled,
    ] {
        let id = store.create(JobKind::Run, "ls").unwrap();
        set_status(&store, id, JobStatus::Running, None);
        set_status(&store, id, status, None);
    }
    let running = store.create(JobKind::Task, "still going").unwrap();
    set_status(&store, running, JobStatus::Running, None);

    let out = nu_agent_jobs(state.path(), &["clean", "--keep", "1"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(stdout_of(&out), "removed 2 finished jobs\n");
    let out = nu_agent_jobs(state.path(), &["clean", "--keep", "0"]);
    assert_eq!(stdout_of(&out), "removed 1 finished job\n");
    let left: Vec<u64> = store.list().iter().map(|r| r.id).collect();
    assert_eq!(left, [running], "the running job stays");
    let out = nu_agent_jobs(state.path(), &["clean", "--older-than", "soon"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

#[test]
fn every_command_s_help_ends_with_examples_that_parse() {
    let dir = tempfile::tempdir().unwrap();
    for command in [
        "ask",
        "run",
        "policy",
        "model",
        "config",
        "job",
        "eval",
        "mcp",
        "completions",
    ] {
        let help = stdout_of(&nu_agent(dir.path(), &[command, "--help"]));
        let (_, examples) = help
            .split_once("Examples:")
            .unwrap_or_else(|| panic!("`nu-agent {command} --help` has no examples:\n{help}"));
        for example in examples
            .lines()
            .map(str::trim)
            .filter(|l| l.starts_with("nu-agent "))
        {
            assert!(
                example.starts_with(&format!("nu-agent {command}")),
                "{command}: {example}"
            );
        }
    }
    // An example's own flags are the command's: `policy check --json`
    // parses (clap exits 2 on flags it does not know).
    let output = nu_agent(dir.path(), &["policy", "check", "--json", "^git push"]);
    assert_ne!(output.status.code(), Some(2), "{output:?}");
}
