//! The OS holds where the grammar fails: every form of a "reader" that
//! writes, deletes or runs code (the bypass classes found in the old
//! reader list) is run for real, once as it is — which must change the
//! fixture, so the test can fail — and once through the launcher under
//! the read-only spec a misjudged read would get, which must change
//! nothing. Also: the network is closed to a read, the protected paths of
//! a writable workspace stay read-only, an approved write reaches only its
//! targets, and `agent policy` says whether all this is active.

use std::{
    collections::BTreeMap,
    net::TcpListener,
    path::{Path, PathBuf},
    process::{Command, Output},
};

use agent_core::policy::sandbox::{EXEC_ARG, ExecSpec};
use agent_e2e::{redteam::fixture, workspace_binary};

/// One form: its name, the program and its arguments (`{home}` stands for
/// the fixture home), and whether run as it is it must change the fixture.
struct Form {
    name: &'static str,
    argv: &'static [&'static str],
    writes_when_unsandboxed: bool,
}

const fn form(name: &'static str, argv: &'static [&'static str], writes: bool) -> Form {
    Form {
        name,
        argv,
        writes_when_unsandboxed: writes,
    }
}

/// The classes of issue 12's list, as the programs receive them.
const FORMS: &[Form] = &[
    form(
        "sed e command",
        &["sed", "1e touch MARK-sed-e", "notes.md"],
        true,
    ),
    form(
        "sed s///e flag",
        &["sed", "s/.*/touch MARK-sed-s/e", "payload.txt"],
        true,
    ),
    form(
        "sed w command",
        &["sed", "-n", "w stolen.txt", "notes.md"],
        true,
    ),
    form(
        "sed w into ~/.bashrc",
        &["sed", "-n", "w {home}/.bashrc", "notes.md"],
        true,
    ),
    form(
        "sed w through a symlink into ~/.ssh",
        &["sed", "-n", "w lnk/authorized_keys", "notes.md"],
        true,
    ),
    form(
        "sed W command",
        &["sed", "-n", "W stolen-W.txt", "notes.md"],
        true,
    ),
    form("env -S", &["env", "-S", "touch MARK-env-S"], true),
    form("dc !", &["dc", "-e", "!touch MARK-dc"], true),
    form("tree -o", &["tree", "-o", "MARK-tree.txt"], true),
    form("sort -oFILE", &["sort", "-oMARK-sort", "notes.md"], true),
    form(
        "sort --compress-program",
        &["sort", "--compress-program=touch", "-S", "1", "notes.md"],
        false,
    ),
    form(
        "xz -t -z (last mode wins)",
        &["xz", "-t", "-z", "payload.txt"],
        true,
    ),
    form("flock -c", &["flock", "lk", "-c", "touch MARK-flock"], true),
    form("xxd outfile", &["xxd", "notes.md", "MARK-xxd"], true),
    form(
        "GNU time --output",
        &["/usr/bin/time", "--output=MARK-time", "true"],
        true,
    ),
    form("strace -o", &["strace", "-o", "MARK-strace", "true"], true),
    form("file -C", &["file", "-C", "-m", "magic"], true),
    form(
        "tar --index-file",
        &["tar", "-tf", "x.tar", "--index-file=MARK-tar"],
        true,
    ),
    form(
        "tar --to-command",
        &["tar", "-xf", "x.tar", "--to-command=touch MARK-tar-cmd"],
        true,
    ),
    form(
        "awk system()",
        &["awk", "BEGIN { system(\"touch MARK-awk\") }"],
        true,
    ),
    form(
        "awk print >",
        &["awk", "{ print > \"MARK-awk-redirect\" }", "notes.md"],
        true,
    ),
    form(
        "awk pipe",
        &["awk", "BEGIN { print \"x\" | \"touch MARK-awk-pipe\" }"],
        true,
    ),
    form(
        "find -fprint",
        &["find", ".", "-maxdepth", "1", "-fprint", "MARK-find"],
        true,
    ),
    form(
        "find -delete",
        &["find", ".", "-name", "payload.txt", "-delete"],
        true,
    ),
    form(
        "find -exec",
        &[
            "find",
            ".",
            "-maxdepth",
            "0",
            "-exec",
            "touch",
            "MARK-find-exec",
            ";",
        ],
        true,
    ),
    form("rg --pre", &["rg", "--pre", "./pre.sh", "CANARY"], true),
    form(
        "git grep -O",
        &["git", "grep", "-Otouch MARK-git-grep", "CANARY"],
        false,
    ),
    form(
        "git -c alias",
        &["git", "-c", "alias.x=!touch MARK-git-alias", "x"],
        true,
    ),
    form(
        "git reflog expire",
        &["git", "reflog", "expire", "--expire=now", "--all"],
        true,
    ),
    form(
        "git tag (a subcommand that writes)",
        &["git", "tag", "MARK-tag"],
        true,
    ),
    form(
        "journalctl --vacuum",
        &["journalctl", "--vacuum-size=1M"],
        false,
    ),
    form("man -P", &["man", "-P", "touch MARK-man", "ls"], false),
    form(
        "cp over ~/.profile",
        &["cp", "notes.md", "{home}/.profile"],
        true,
    ),
    form("sh -c redirect", &["sh", "-c", "echo x > MARK-sh"], true),
    form(
        "python writes",
        &["python3", "-c", "open('MARK-py', 'w').write('x')"],
        true,
    ),
];

/// Every path under `root` with its content (a symlink by its target, a
/// directory as empty): what "nothing changed" compares.
fn snapshot(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            // The sandboxed temp dirs are the fixture's own TMPDIR: skip it.
            if path.file_name().is_some_and(|n| n == "tmp") && dir == root {
                continue;
            }
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let content = if kind.is_symlink() {
                std::fs::read_link(&path)
                    .map(|t| t.to_string_lossy().into_owned().into_bytes())
                    .unwrap_or_default()
            } else if kind.is_dir() {
                stack.push(path.clone());
                Vec::new()
            } else {
                std::fs::read(&path).unwrap_or_default()
            };
            out.insert(path, content);
        }
    }
    out
}

fn changes(before: &BTreeMap<PathBuf, Vec<u8>>, after: &BTreeMap<PathBuf, Vec<u8>>) -> Vec<String> {
    let mut out = Vec::new();
    for (path, content) in after {
        match before.get(path) {
            None => out.push(format!("created {}", path.display())),
            Some(old) if old != content => out.push(format!("changed {}", path.display())),
            Some(_) => {}
        }
    }
    for path in before.keys() {
        if !after.contains_key(path) {
            out.push(format!("removed {}", path.display()));
        }
    }
    out
}

/// A fixture with what the forms need: `lnk -> ~/.ssh`, a tar archive, a
/// magic file for `file -C`, an executable `pre.sh` for `rg --pre`.
struct World {
    fixture: agent_e2e::redteam::Fixture,
    tmp: PathBuf,
}

impl World {
    fn new() -> World {
        let fixture = fixture().expect("fixture");
        let ws = fixture.workspace.clone();
        std::os::unix::fs::symlink(fixture.home.join(".ssh"), ws.join("lnk")).expect("symlink");
        std::fs::write(ws.join("magic"), "0 string CANARY canary text\n").expect("magic");
        std::fs::write(
            ws.join("pre.sh"),
            "#!/bin/sh\ntouch MARK-rg-pre\ncat \"$1\"\n",
        )
        .expect("pre");
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(ws.join("pre.sh"), std::fs::Permissions::from_mode(0o755))
            .expect("chmod");
        let tar = Command::new("tar")
            .args(["-cf", "x.tar", "notes.md"])
            .current_dir(&ws)
            .status()
            .expect("tar");
        assert!(tar.success());
        let tmp = fixture.root.path().join("tmp");
        std::fs::create_dir_all(&tmp).expect("tmp");
        World { fixture, tmp }
    }

    fn argv(&self, form: &Form) -> Vec<String> {
        let home = self.fixture.home.to_string_lossy();
        form.argv
            .iter()
            .map(|a| a.replace("{home}", &home))
            .collect()
    }

    fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut command = Command::new(program);
        command
            .current_dir(&self.fixture.workspace)
            .env_clear()
            .env("HOME", &self.fixture.home)
            .env("TMPDIR", &self.tmp)
            .env("LANG", "C.UTF-8")
            .env("GIT_CONFIG_NOSYSTEM", "1");
        if let Some(path) = std::env::var_os("PATH") {
            command.env("PATH", path);
        }
        // rustup and cargo find their toolchains where the user keeps them.
        if let Some(home) = std::env::var_os("HOME").map(PathBuf::from) {
            for (name, dir) in [("RUSTUP_HOME", ".rustup"), ("CARGO_HOME", ".cargo")] {
                let value = std::env::var_os(name)
                    .map(PathBuf::from)
                    .unwrap_or(home.join(dir));
                if value.is_dir() {
                    command.env(name, value);
                }
            }
        }
        command
    }

    /// Run `argv` as it is.
    fn run_plain(&self, argv: &[String]) -> Output {
        self.command(&argv[0])
            .args(&argv[1..])
            .output()
            .expect("start the program")
    }

    /// `nu-agent ARGS...` in the fixture, with its own state dir.
    fn nu_agent(&self, args: &[&str]) -> Output {
        self.command(workspace_binary("nu-agent"))
            .env("NU_AGENT_STATE_DIR", self.tmp.join("state"))
            .args(args)
            .output()
            .expect("nu-agent")
    }

    /// Run `argv` through the launcher under `spec`.
    fn run_launched(&self, spec: &ExecSpec, argv: &[String]) -> Output {
        self.command(workspace_binary("nu-agent"))
            .arg(EXEC_ARG)
            .arg(serde_json::to_string(spec).expect("spec"))
            .arg("--")
            .args(argv)
            .output()
            .expect("start the launcher")
    }

    fn snapshot(&self) -> BTreeMap<PathBuf, Vec<u8>> {
        let mut all = snapshot(self.fixture.root.path());
        // git may refresh its index under a read-only command.
        all.retain(|p, _| !p.ends_with(".git/index"));
        all
    }
}

fn installed(program: &str) -> bool {
    program.starts_with('/') && Path::new(program).exists()
        || std::env::var_os("PATH")
            .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
}

#[test]
fn misjudged_forms_write_nothing_under_the_read_only_launcher() {
    let mut table = Vec::new();
    let mut failures = Vec::new();
    for form in FORMS {
        assert!(
            installed(form.argv[0]),
            "{} is not installed (.ci/run installs it)",
            form.argv[0]
        );
        // As it is: the form really writes (else this test proves nothing).
        let plain = World::new();
        let argv = plain.argv(form);
        let before = plain.snapshot();
        let out = plain.run_plain(&argv);
        let unsandboxed = changes(&before, &plain.snapshot());
        if form.writes_when_unsandboxed && unsandboxed.is_empty() {
            failures.push(format!(
                "{}: changed nothing even without the sandbox (exit {:?}, stderr {})",
                form.name,
                out.status.code(),
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        // Under the read-only launcher: nothing at all.
        let world = World::new();
        let argv = world.argv(form);
        let before = world.snapshot();
        let out = world.run_launched(&ExecSpec::read_only(), &argv);
        let sandboxed = changes(&before, &world.snapshot());
        if !sandboxed.is_empty() {
            failures.push(format!(
                "{}: wrote under the read-only launcher: {}",
                form.name,
                sandboxed.join(", ")
            ));
        }
        table.push(format!(
            "{:<40} {:>10} {:>10} {:>6}",
            form.name,
            unsandboxed.len(),
            sandboxed.len(),
            out.status
                .code()
                .map(|c| c.to_string())
                .unwrap_or("signal".into())
        ));
    }
    println!(
        "\n{:<40} {:>10} {:>10} {:>6}",
        "form", "changes", "sandboxed", "exit"
    );
    for row in &table {
        println!("{row}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_read_reaches_no_network() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("listen");
    listener.set_nonblocking(true).expect("nonblocking");
    let port = listener.local_addr().expect("addr").port();
    let script = format!("echo hi > /dev/tcp/127.0.0.1/{port}");
    let world = World::new();
    let argv: Vec<String> = ["bash", "-c", &script]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let out = world.run_launched(&ExecSpec::read_only(), &argv);
    assert!(!out.status.success(), "connected from a read");
    assert!(listener.accept().is_err(), "the listener got a connection");
    // The same with the network allowed connects (the test can fail).
    let spec = ExecSpec {
        writable: Vec::new(),
        network: true,
        protected: Vec::new(),
        nested: false,
        local_sockets: false,
        process_view: false,
        broker: None,
    };
    let out = world.run_launched(&spec, &argv);
    assert_connected(&out, || listener.accept().is_ok(), "the network on");
}

/// `out` succeeded and its connection reached the test's listener (the
/// positive half of a test that must be able to fail).
fn assert_connected(out: &Output, accepted: impl FnOnce() -> bool, with: &str) {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::thread::sleep(std::time::Duration::from_millis(100));
    assert!(accepted(), "no connection with {with}");
}

#[test]
fn an_approved_write_reaches_only_its_targets_and_never_git_internals() {
    let world = World::new();
    let ws = world.fixture.workspace.clone();
    // What the guard computes for a write step with the workspace as its
    // target: the workspace's entries without `.git`.
    let writable =
        agent_core::policy::sandbox::carve_out(std::slice::from_ref(&ws), &[ws.join(".git")]);
    assert!(!writable.iter().any(|p| p.starts_with(ws.join(".git"))));
    let spec = ExecSpec {
        writable,
        network: false,
        protected: Vec::new(),
        nested: false,
        local_sockets: false,
        process_view: false,
        broker: None,
    };
    let sh = |script: &str| -> Output {
        let argv: Vec<String> = ["sh", "-c", script].iter().map(|s| s.to_string()).collect();
        world.run_launched(&spec, &argv)
    };
    assert!(sh("echo ok >> src/main.rs").status.success());
    assert!(sh("echo ok > build/new.txt").status.success());
    assert!(!sh("echo x >> .git/config").status.success());
    assert!(!sh("echo x > .git/hooks/post-checkout").status.success());
    assert!(!sh("echo x >> ../.bashrc").status.success());
    let config = std::fs::read_to_string(ws.join(".git/config")).expect("config");
    assert!(!config.ends_with("x\n"));
    assert!(!ws.join(".git/hooks/post-checkout").exists());
    // A write approved for one directory reaches nothing else.
    let spec = ExecSpec {
        writable: vec![ws.join("build")],
        network: false,
        protected: Vec::new(),
        nested: false,
        local_sockets: false,
        process_view: false,
        broker: None,
    };
    let argv: Vec<String> = ["sh", "-c", "echo x > build/a.txt && echo x > src/b.txt"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let out = world.run_launched(&spec, &argv);
    assert!(!out.status.success());
    assert!(ws.join("build/a.txt").exists());
    assert!(!ws.join("src/b.txt").exists());
}

#[test]
fn git_internals_stay_read_only_inside_a_writable_workspace() {
    // The launcher (outside any other sandbox, as with `sandbox: off`)
    // mounts them read-only: new files in the repository's root are fine.
    let world = World::new();
    let ws = world.fixture.workspace.clone();
    let spec = ExecSpec {
        writable: vec![ws.clone()],
        network: false,
        protected: vec![ws.join(".git")],
        nested: false,
        local_sockets: false,
        process_view: false,
        broker: None,
    };
    let sh = |script: &str| -> Output {
        let argv: Vec<String> = ["sh", "-c", script].iter().map(|s| s.to_string()).collect();
        world.run_launched(&spec, &argv)
    };
    assert!(sh("echo ok > new.txt").status.success());
    assert!(ws.join("new.txt").exists());
    let out = sh("echo x >> .git/config");
    assert!(!out.status.success());
    let config = std::fs::read_to_string(ws.join(".git/config")).expect("config");
    assert!(!config.ends_with("x\n"), "{config}");

    // Through the whole stack in the default mode (worker + launcher): an
    // approved write creates its file in the repository's root; the guards
    // are not what stops `.git` here, so a script that hides the write
    // from them is stopped by the OS.
    let world = World::new();
    let ws = world.fixture.workspace.clone();
    let run = |pipeline: &str| -> Output { world.nu_agent(&["run", "--yes", pipeline]) };
    let out = run("^sh -c 'echo hi > made-by-agent.txt'");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(ws.join("made-by-agent.txt").exists());
    let out = run("^sh -c 'cd .git; echo x >> config'");
    assert!(!out.status.success());
    let config = std::fs::read_to_string(ws.join(".git/config")).expect("config");
    assert!(!config.ends_with("x\n"), "{config}");
}

#[test]
fn a_pipeline_that_redirects_configuration_makes_externals_ask_at_run_time() {
    // With the static layer off, the runtime guard alone sees the value
    // the pipeline gave HOME, XDG_CONFIG_HOME or a pager, and asks (no
    // terminal: denied); git never runs with the workspace's config.
    for pipeline in [
        "with-env {HOME: $env.PWD} { ^git log -1 }",
        "let h = $env.PWD; with-env {HOME: $h} { ^git diff }",
        "$env.XDG_CONFIG_HOME = $env.PWD; ^git log -1",
        "$env.PAGER = 'cat'; ^git log -1",
    ] {
        let world = World::new();
        let out = world.nu_agent(&["run", "--disable-layer", "static", pipeline]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{pipeline}: ran");
        assert!(
            stderr.contains("nu_agent::policy::denied"),
            "{pipeline}: {stderr}"
        );
        assert!(stderr.contains("the pipeline set"), "{pipeline}: {stderr}");
    }
    // The same program with the environment as the session began runs.
    let world = World::new();
    let out = world.nu_agent(&["run", "--disable-layer", "static", "^git log -1 --oneline"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_launcher_refuses_to_run_what_it_cannot_sandbox() {
    let world = World::new();
    let out = world
        .command(workspace_binary("nu-agent"))
        .args([EXEC_ARG, "not json", "--", "touch", "MARK"])
        .output()
        .expect("launcher");
    assert_eq!(out.status.code(), Some(126));
    assert!(!world.fixture.workspace.join("MARK").exists());
    // A writable path that does not exist fails closed.
    let spec = ExecSpec {
        writable: vec![world.fixture.workspace.join("no/such/dir")],
        network: false,
        protected: Vec::new(),
        nested: false,
        local_sockets: false,
        process_view: false,
        broker: None,
    };
    let argv: Vec<String> = ["touch", "MARK"].iter().map(|s| s.to_string()).collect();
    let out = world.run_launched(&spec, &argv);
    assert_eq!(out.status.code(), Some(126));
    assert!(!world.fixture.workspace.join("MARK").exists());
    assert!(String::from_utf8_lossy(&out.stderr).contains("was not run"));
}

#[test]
fn policy_show_says_whether_externals_are_sandboxed() {
    let world = World::new();
    let show = |config: Option<&Path>| -> serde_json::Value {
        let mut command = world.command(workspace_binary("nu-agent"));
        if let Some(config) = config {
            command.arg("--config").arg(config);
        }
        let out = command
            .args(["policy", "show", "--json"])
            .output()
            .expect("policy show");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).expect("json")
    };
    let on = show(None);
    assert_eq!(on["external_sandbox"], true, "{on}");
    assert!(
        on["external_sandbox_note"]
            .as_str()
            .unwrap_or("")
            .starts_with("on")
    );
    // Each protection a launched read gets on this kernel is named.
    let lines = on["read_launch"].to_string();
    for named in ["landlock ABI", "chmod", "unix socket", "capabilities"] {
        assert!(lines.contains(named), "{named} missing from {lines}");
    }
    let config = world.tmp.join("off.nuon");
    std::fs::write(&config, "{ policy: { external_sandbox: false } }\n").expect("config");
    let off = show(Some(&config));
    assert_eq!(off["external_sandbox"], false, "{off}");
    assert_eq!(off["read_launch"], serde_json::json!([]), "{off}");
}

/// What a read must never change about a file, besides its content: mode,
/// owner, modification time, extended attributes and `chattr` flags.
fn file_state(path: &Path) -> String {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::symlink_metadata(path).expect("metadata");
    let mut names = vec![0u8; 4096];
    let c_path = std::ffi::CString::new(path.to_string_lossy().as_bytes()).expect("path");
    // SAFETY: `c_path` is NUL-terminated and `names` has the given length.
    let len = unsafe { libc::listxattr(c_path.as_ptr(), names.as_mut_ptr().cast(), names.len()) };
    names.truncate(usize::try_from(len).unwrap_or(0));
    let flags = Command::new("lsattr")
        .arg("-d")
        .arg(path)
        .output()
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .split_whitespace()
                .next()
                .unwrap_or("")
                .to_string()
        })
        .unwrap_or_default();
    format!(
        "mode {:o} owner {}:{} mtime {}.{} xattrs {:?} flags {flags}",
        meta.mode(),
        meta.uid(),
        meta.gid(),
        meta.mtime(),
        meta.mtime_nsec(),
        String::from_utf8_lossy(&names),
    )
}

fn owned(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

#[test]
fn a_read_changes_no_metadata_under_the_read_only_launcher() {
    let xattr = "import os; os.setxattr('notes.md', 'user.mark', b'1')";
    let unxattr = "import os; os.removexattr('notes.md', 'user.keep')";
    let forms: &[(&str, Vec<String>)] = &[
        ("chmod", owned(&["chmod", "0777", "notes.md"])),
        (
            "chmod through a directory",
            owned(&["chmod", "-R", "go-rwx", "."]),
        ),
        ("chown", owned(&["chown", "1234:1234", "notes.md"])),
        (
            "touch -d",
            owned(&["touch", "-m", "-d", "2001-01-01", "notes.md"]),
        ),
        (
            "touch (now)",
            owned(&["sh", "-c", "sleep 0.01; touch notes.md"]),
        ),
        ("setxattr", owned(&["python3", "-c", xattr])),
        ("removexattr", owned(&["python3", "-c", unxattr])),
        ("chattr +a", owned(&["chattr", "+a", "notes.md"])),
    ];
    let mut failures = Vec::new();
    for (name, argv) in forms {
        let prepare = |world: &World| {
            let file = world.fixture.workspace.join("notes.md");
            let out = world.run_plain(&owned(&[
                "python3",
                "-c",
                "import os; os.setxattr('notes.md', 'user.keep', b'1')",
            ]));
            assert!(out.status.success(), "cannot set an xattr to test with");
            file
        };
        let plain = World::new();
        let file = prepare(&plain);
        let before = file_state(&file);
        let out = plain.run_plain(argv);
        let after = file_state(&file);
        // Undo what must not outlive the test (an append-only file cannot
        // be removed).
        let _ = Command::new("chattr").arg("-a").arg(&file).status();
        if before == after && (is_root() || !matches!(*name, "chown" | "chattr +a")) {
            failures.push(format!(
                "{name}: changed nothing even without the sandbox (exit {:?}, {})",
                out.status.code(),
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        let world = World::new();
        let file = prepare(&world);
        let before = file_state(&file);
        let out = world.run_launched(&ExecSpec::read_only(), argv);
        let after = file_state(&file);
        let _ = Command::new("chattr").arg("-a").arg(&file).status();
        if before != after {
            failures.push(format!(
                "{name}: changed {before} to {after} under the launcher"
            ));
        }
        if out.status.success() && !name.starts_with("chmod through") {
            failures.push(format!("{name}: reported success under the launcher"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A local daemon (a tmux server, D-Bus, `docker.sock`) runs whatever a
/// client tells it: a read reaches none, by path or abstract name.
#[test]
fn a_read_reaches_no_unix_socket_but_a_daemon_reader_does() {
    use std::os::linux::net::SocketAddrExt;
    use std::os::unix::net::{SocketAddr, UnixListener};
    let world = World::new();
    let path = world.fixture.workspace.join("daemon.sock");
    let listener = UnixListener::bind(&path).expect("listen");
    listener.set_nonblocking(true).expect("nonblocking");
    let name = format!("nu-agent-test-{}", std::process::id());
    let abstract_listener =
        UnixListener::bind_addr(&SocketAddr::from_abstract_name(name.as_bytes()).expect("name"))
            .expect("abstract listen");
    abstract_listener
        .set_nonblocking(true)
        .expect("nonblocking");
    let connect = |address: &str| {
        owned(&[
            "python3",
            "-c",
            &format!(
                "import socket; s = socket.socket(socket.AF_UNIX); s.connect({address}); s.send(b'run-shell x')"
            ),
        ])
    };
    let by_path = connect(&format!("'{}'", path.display()));
    let by_name = connect(&format!("'\\0{name}'"));
    for argv in [&by_path, &by_name] {
        let out = world.run_launched(&ExecSpec::read_only(), argv);
        assert!(!out.status.success(), "connected from a read: {argv:?}");
    }
    // The same spec with the network on still has no local daemons.
    let mut spec = ExecSpec::read_only();
    spec.network = true;
    assert!(!world.run_launched(&spec, &by_path).status.success());
    assert!(listener.accept().is_err(), "the listener got a connection");
    assert!(
        abstract_listener.accept().is_err(),
        "the abstract listener got a connection"
    );
    // A program allowed local daemons connects (the test can fail).
    let mut spec = ExecSpec::read_only();
    spec.local_sockets = true;
    let out = world.run_launched(&spec, &by_path);
    assert_connected(&out, || listener.accept().is_ok(), "local sockets allowed");
}

/// As root, a read cannot reconfigure the machine: no netlink write (an
/// interface's alias), no namespace, no mount, no key.
#[test]
fn a_read_as_root_changes_no_network_namespace_or_key() {
    let world = World::new();
    let alias = || std::fs::read_to_string("/sys/class/net/lo/ifalias").unwrap_or_default();
    let set_alias = owned(&["ip", "link", "set", "dev", "lo", "alias", "nu-agent-mark"]);
    let add_key = "import ctypes, sys; libc = ctypes.CDLL(None); \
         nr = {'x86_64': 248, 'aarch64': 217}[__import__('platform').machine()]; \
         sys.exit(0 if libc.syscall(nr, b'user', b'nu-agent', b'x', 1, -3) >= 0 else 1)";
    let forms = [
        ("netlink write", set_alias.clone()),
        ("unshare -m", owned(&["unshare", "-m", "true"])),
        ("unshare -U", owned(&["unshare", "-U", "true"])),
        ("add_key", owned(&["python3", "-c", add_key])),
    ];
    let mut failures = Vec::new();
    for (name, argv) in &forms {
        let before = alias();
        let plain = world.run_plain(argv);
        let changed = alias() != before;
        if *name == "netlink write" {
            let _ = Command::new("ip")
                .args(["link", "set", "dev", "lo", "alias", before.trim()])
                .status();
            if is_root() && !changed {
                failures.push(format!("{name}: changed nothing without the sandbox"));
            }
        } else if !plain.status.success() && is_root() {
            failures.push(format!(
                "{name}: failed without the sandbox: {}",
                String::from_utf8_lossy(&plain.stderr).trim()
            ));
        }
        let before = alias();
        let out = world.run_launched(&ExecSpec::read_only(), argv);
        if alias() != before {
            let _ = Command::new("ip")
                .args(["link", "set", "dev", "lo", "alias", before.trim()])
                .status();
            failures.push(format!("{name}: changed the network under the launcher"));
        }
        if out.status.success() {
            failures.push(format!("{name}: succeeded under the launcher"));
        }
    }
    // The kernel log stays readable (dmesg as root keeps CAP_SYSLOG), but
    // not clearable; clearing is not tried without the sandbox, as it would
    // clear this machine's log.
    if installed("dmesg") {
        let read = world.run_launched(&ExecSpec::read_only(), &owned(&["dmesg"]));
        let plain = world.run_plain(&owned(&["dmesg"]));
        if plain.status.success() && !read.status.success() {
            failures.push(format!(
                "dmesg: reads without the sandbox, not under it: {}",
                String::from_utf8_lossy(&read.stderr).trim()
            ));
        }
        let clear = world.run_launched(&ExecSpec::read_only(), &owned(&["dmesg", "-C"]));
        if clear.status.success() {
            failures.push("dmesg -C: cleared the kernel log under the launcher".into());
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The reads that ask a daemon still work through the whole stack where
/// the daemon exists (their launch keeps unix sockets); where it does not,
/// the case says so and is skipped.
#[test]
fn daemon_reads_still_work_where_the_daemon_exists() {
    let mut ran = 0;
    for argv in [
        &["systemctl", "status", "--no-pager"][..],
        &["journalctl", "-n", "5", "--no-pager"],
        &["docker", "ps"],
        &["timedatectl", "status"],
    ] {
        let world = World::new();
        if !installed(argv[0]) {
            println!("skipped {argv:?}: not installed");
            continue;
        }
        let plain = world.run_plain(&owned(argv));
        if !plain.status.success() {
            println!(
                "skipped {argv:?}: fails without the agent too (no daemon here): {}",
                String::from_utf8_lossy(&plain.stderr).trim()
            );
            continue;
        }
        let pipeline = format!("^{}", argv.join(" "));
        let out = world.nu_agent(&["run", &pipeline]);
        assert!(
            out.status.success(),
            "{pipeline} failed through the agent: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        ran += 1;
    }
    println!("{ran} daemon reads ran");
}

/// Reads that obey configuration the workspace wrote, each pointed at a
/// payload that changes metadata, talks to a daemon's socket and (as
/// root) reconfigures the network. Run as they are, the payload runs (a
/// marker file appears: the test can fail); through the read-only launch
/// a misjudged form would get, it changes nothing of that.
#[test]
fn workspace_configured_reads_change_nothing_under_the_read_only_launcher() {
    let empty_tree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
    let forms: &[(&str, &[&str])] = &[
        ("man -C", &["man", "-C", "man.conf", "-l", "x.1"]),
        (
            "zip -T -TT",
            &["zip", "-T", "-TT", "{ws}/payload.sh", "x.zip"],
        ),
        (
            "git diff in a bare-layout directory",
            &["git", "-C", "x.git", "diff", empty_tree, "HEAD"],
        ),
        (
            "cargo tree with a rustc-wrapper",
            &["cargo", "tree", "--offline"],
        ),
        ("rustup toolchain path", &["rustc", "--version"]),
        (
            "GROFF_BIN_PATH",
            &["env", "GROFF_BIN_PATH={ws}/gbin", "man", "-l", "x.1"],
        ),
        ("LESSKEYIN", &["env", "LESSKEYIN={ws}/keys", "less", "x.1"]),
        (
            "RIPGREP_CONFIG_PATH",
            &["env", "RIPGREP_CONFIG_PATH={ws}/rgrc", "rg", "TH", "x.1"],
        ),
    ];
    let mut failures = Vec::new();
    for (name, argv) in forms {
        if !installed(argv[0]) {
            println!("skipped {name}: {} is not installed", argv[0]);
            continue;
        }
        let plain = configured_world(name);
        let ws = plain.fixture.workspace.clone();
        let argv: Vec<String> = argv
            .iter()
            .map(|a| a.replace("{ws}", &ws.to_string_lossy()))
            .collect();
        let out = plain.run_plain(&argv);
        if !ws.join("MARK").exists() {
            failures.push(format!(
                "{name}: the payload did not run even without the sandbox: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        let _ = Command::new("chattr")
            .arg("-a")
            .arg(ws.join("notes.md"))
            .status();
        let _ = Command::new("ip")
            .args(["link", "set", "dev", "lo", "alias", ""])
            .status();

        let world = configured_world(name);
        let ws = world.fixture.workspace.clone();
        let argv: Vec<String> = argv
            .iter()
            .map(|a| {
                a.replace(
                    &plain.fixture.workspace.to_string_lossy().into_owned(),
                    &ws.to_string_lossy(),
                )
            })
            .collect();
        let listener =
            std::os::unix::net::UnixListener::bind(ws.join("daemon.sock")).expect("listen");
        listener.set_nonblocking(true).expect("nonblocking");
        let alias = std::fs::read_to_string("/sys/class/net/lo/ifalias").unwrap_or_default();
        let before = file_state(&ws.join("notes.md"));
        world.run_launched(&ExecSpec::read_only(), &argv);
        let after = file_state(&ws.join("notes.md"));
        if before != after {
            failures.push(format!("{name}: changed {before} to {after}"));
        }
        if ws.join("MARK").exists() {
            failures.push(format!("{name}: wrote its marker"));
        }
        if listener.accept().is_ok() {
            failures.push(format!("{name}: reached the unix socket"));
        }
        if std::fs::read_to_string("/sys/class/net/lo/ifalias").unwrap_or_default() != alias {
            let _ = Command::new("ip")
                .args(["link", "set", "dev", "lo", "alias", alias.trim()])
                .status();
            failures.push(format!("{name}: changed the network"));
        }
        let _ = Command::new("chattr")
            .arg("-a")
            .arg(ws.join("notes.md"))
            .status();
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A fixture whose workspace configures the reads of
/// [`workspace_configured_reads_change_nothing_under_the_read_only_launcher`]
/// to run `payload.sh` (the rustup form's toolchain file only for it:
/// it would redirect cargo too).
fn configured_world(form: &str) -> World {
    use std::os::unix::fs::PermissionsExt;
    let world = World::new();
    let ws = world.fixture.workspace.clone();
    let w = ws.to_string_lossy().into_owned();
    let connect =
        format!("import socket; s = socket.socket(socket.AF_UNIX); s.connect('{w}/daemon.sock')");
    let payload = format!(
        "#!/bin/sh\ntouch {w}/MARK\nchmod 0777 {w}/notes.md\ntouch -m -d 2001-01-01 {w}/notes.md\n\
         chattr +a {w}/notes.md\npython3 -c \"{connect}\"\n\
         ip link set dev lo alias nu-agent-mark\necho rustc 9.9.9\nexit 0\n"
    );
    let executable = |path: &Path, text: &str| {
        std::fs::write(path, text).expect("write");
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    };
    executable(&ws.join("payload.sh"), &payload);
    std::fs::write(
        ws.join("man.conf"),
        format!("DEFINE nroff {w}/payload.sh\n"),
    )
    .expect("conf");
    std::fs::write(ws.join("x.1"), ".TH X 1\n.SH NAME\nx \\- y\n").expect("page");
    std::fs::create_dir_all(ws.join("gbin")).expect("gbin");
    for program in ["troff", "grotty"] {
        executable(&ws.join("gbin").join(program), &payload);
    }
    std::fs::write(
        ws.join("keys"),
        format!("#env\nLESSOPEN=|{w}/payload.sh %s\n"),
    )
    .expect("lesskey");
    std::fs::write(ws.join("rgrc"), format!("--pre={w}/payload.sh\n")).expect("rgrc");
    let zip = world.run_plain(&owned(&["zip", "-q", "x.zip", "notes.md"]));
    assert!(zip.status.success() || !installed("zip"));
    let bare = world.run_plain(&owned(&["git", "clone", "-q", "--bare", ".", "x.git"]));
    assert!(
        bare.status.success(),
        "{}",
        String::from_utf8_lossy(&bare.stderr)
    );
    let mut config = std::fs::read_to_string(ws.join("x.git/config")).expect("config");
    config.push_str(&format!("[diff]\n\texternal = {w}/payload.sh\n"));
    std::fs::write(ws.join("x.git/config"), config).expect("config");
    std::fs::create_dir_all(ws.join(".cargo")).expect(".cargo");
    std::fs::write(
        ws.join(".cargo/config.toml"),
        format!("[build]\nrustc-wrapper = \"{w}/payload.sh\"\n"),
    )
    .expect("cargo config");
    if form.starts_with("rustup") {
        std::fs::create_dir_all(ws.join("tc/bin")).expect("toolchain");
        executable(&ws.join("tc/bin/rustc"), &payload);
        std::fs::write(
            ws.join("rust-toolchain.toml"),
            format!("[toolchain]\npath = \"{w}/tc\"\n"),
        )
        .expect("toolchain file");
    }
    world
}

/// A run that trashes nothing leaves no trash behind; one that deletes
/// still moves the file to the trash.
#[test]
fn no_trash_appears_unless_something_is_trashed() {
    let world = World::new();
    let trash = world.fixture.home.join(".local/share/Trash");
    let run = |pipeline: &str| world.nu_agent(&["run", "--yes", pipeline]);
    for pipeline in ["ls", "^ls", "open --raw notes.md | lines | length"] {
        let out = run(pipeline);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!trash.exists(), "{pipeline} made {}", trash.display());
    }
    std::fs::write(world.fixture.workspace.join("junk.txt"), "x").expect("junk");
    let out = run("rm junk.txt");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!world.fixture.workspace.join("junk.txt").exists());
    assert!(trash.join("files/junk.txt").exists(), "not in the trash");
}

/// A SQLite database (a custom value, lazy) crosses the sandbox protocol
/// as the table it stands for, in the default sandboxed mode.
#[test]
fn sqlite_values_come_back_from_the_sandbox() {
    let world = World::new();
    let db = world.fixture.workspace.join("x.db");
    let made = world.run_plain(&owned(&[
        "python3",
        "-c",
        &format!(
            "import sqlite3; c = sqlite3.connect('{}'); c.execute('create table t (a int, b text)'); \
             c.execute(\"insert into t values (1, 'one'), (2, 'two')\"); c.commit()",
            db.display()
        ),
    ]));
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let run = |sandbox: &str, pipeline: &str| {
        let out = world.nu_agent(&["run", "--sandbox", sandbox, pipeline]);
        assert!(
            out.status.success(),
            "{sandbox}: {pipeline}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    for pipeline in [
        "open x.db | get t",
        "open x.db | get t | get b | str join ','",
        "open x.db | get t | length",
        "open x.db",
    ] {
        // As with the sandbox off, in the default (sandboxed) mode.
        let off = run("off", pipeline);
        assert_eq!(run("workspace-write", pipeline), off, "{pipeline}");
        assert_eq!(run("read-only", pipeline), off, "{pipeline}");
    }
    assert!(run("workspace-write", "open x.db | get t").contains("two"));
}
