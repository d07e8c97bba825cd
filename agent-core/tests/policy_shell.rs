//! The policy shell in-process: one approval per pipeline, "always",
//! edits, denials, runtime guards behind a disabled static layer, and the
//! sudo password path.

use std::{
    path::Path,
    sync::{Arc, Mutex},
};

use agent_core::{
    policy::{
        Approval, ApprovalRequest, Approver, BLOCKED_CODE, DENIED_CODE, Layers, NonInteractive,
        Policy, PolicyShell, Ran, ShellOptions, Verdict, sandbox::SandboxMode,
    },
    shell::{CancelToken, Limits, SessionSeed},
};
use nu_protocol::{Span, Value};

/// Answers from a script and records every question.
struct Scripted {
    answers: Mutex<Vec<Approval>>,
    asked: Mutex<Vec<ApprovalRequest>>,
    password: Option<String>,
}

impl Scripted {
    fn new(answers: Vec<Approval>) -> Arc<Scripted> {
        Arc::new(Scripted {
            answers: Mutex::new(answers),
            asked: Mutex::new(Vec::new()),
            password: None,
        })
    }

    fn asked(&self) -> Vec<ApprovalRequest> {
        self.asked.lock().unwrap().clone()
    }
}

impl Approver for Scripted {
    fn approve(&self, request: &ApprovalRequest) -> Approval {
        self.asked.lock().unwrap().push(request.clone());
        let mut answers = self.answers.lock().unwrap();
        if answers.is_empty() {
            Approval::No
        } else {
            answers.remove(0)
        }
    }

    fn password(&self, _prompt: &str) -> Option<String> {
        self.password.clone()
    }
}

fn shell_in(
    dir: &Path,
    policy: Policy,
    approver: Arc<dyn Approver>,
    layers: Layers,
) -> PolicyShell {
    let path = std::env::var("PATH").unwrap_or_default();
    let seed = SessionSeed::new(dir).with_env(vec![(
        "PATH".into(),
        Value::string(
            format!("{}:{path}", dir.join("bin").display()),
            Span::unknown(),
        ),
    )]);
    let policy = Policy {
        sandbox: SandboxMode::Off,
        ..policy
    };
    let options = ShellOptions {
        layers,
        ..ShellOptions::default()
    };
    PolicyShell::new(policy, seed, approver, options).expect("shell")
}

fn run(shell: &mut PolicyShell, pipeline: &str) -> Ran {
    shell.run(pipeline, &Limits::default(), &CancelToken::new())
}

fn code(ran: &Ran) -> Option<String> {
    ran.outcome.error.as_ref().and_then(|d| d.code.clone())
}

#[test]
fn a_pipeline_is_approved_once() {
    let dir = tempfile::tempdir().unwrap();
    let approver = Scripted::new(vec![Approval::Yes]);
    let mut shell = shell_in(
        dir.path(),
        Policy::default(),
        approver.clone(),
        Layers::default(),
    );
    let ran = run(&mut shell, "mkdir a; mkdir b; 'x' | save a/f.txt");
    assert_eq!(code(&ran), None, "{:?}", ran.outcome.error);
    assert!(dir.path().join("a/f.txt").exists() && dir.path().join("b").is_dir());
    let asked = approver.asked();
    assert_eq!(asked.len(), 1, "one question for the whole pipeline");
    assert_eq!(asked[0].labels.len(), 3, "{:?}", asked[0].labels);
    assert_eq!(ran.decision.verdict, Verdict::Confirm);
}

#[test]
fn denied_pipelines_do_not_run_and_say_why() {
    let dir = tempfile::tempdir().unwrap();
    let approver = Scripted::new(vec![Approval::No]);
    let mut shell = shell_in(dir.path(), Policy::default(), approver, Layers::default());
    let ran = run(&mut shell, "mkdir nope");
    assert_eq!(code(&ran).as_deref(), Some(DENIED_CODE));
    assert!(!dir.path().join("nope").exists());
    assert_eq!(ran.approved_by, None);
}

/// Red team: `--approve 'mkdir *'` approves a `mkdir` and nothing chained
/// with it, however it is chained. Each pipeline must leave `victim.bin`
/// as it was.
#[test]
fn a_pre_approval_never_covers_a_step_chained_after_the_one_it_names() {
    let chained = [
        "mkdir q8; rm victim.bin",
        "mkdir q8 | ignore; rm victim.bin",
        "mkdir q8\nrm victim.bin",
        "[a] | each { mkdir q8; rm victim.bin }",
        "[a] | par-each { mkdir q8; rm victim.bin }",
        "do { mkdir q8; rm victim.bin }",
        "mkdir (rm victim.bin; 'q8')",
        "mkdir q8; ^rm victim.bin",
        "mkdir q8; 'gone' | save -f victim.bin",
        "mkdir q8; mv victim.bin moved.bin",
        "def tidy [] { rm victim.bin }; mkdir q8; tidy",
        "mkdir q8 && rm victim.bin",
    ];
    for pipeline in chained {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("victim.bin"), "kept").unwrap();
        let approver = Arc::new(NonInteractive {
            yes: false,
            approve: vec!["mkdir *".into()],
        });
        let mut shell = shell_in(dir.path(), Policy::default(), approver, Layers::default());
        let ran = run(&mut shell, pipeline);
        assert!(ran.outcome.error.is_some(), "{pipeline}: ran");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("victim.bin"))
                .ok()
                .as_deref(),
            Some("kept"),
            "{pipeline}"
        );
    }
}

#[test]
fn a_pre_approval_approves_the_step_it_names() {
    let dir = tempfile::tempdir().unwrap();
    let approver = Arc::new(NonInteractive {
        yes: false,
        approve: vec!["mkdir *".into(), "touch *".into()],
    });
    let mut shell = shell_in(dir.path(), Policy::default(), approver, Layers::default());
    let ran = run(&mut shell, "mkdir d; touch d/f");
    assert_eq!(code(&ran), None, "{:?}", ran.outcome.error);
    assert!(dir.path().join("d/f").is_file());
    assert_eq!(
        ran.approved_by.as_deref(),
        Some("--approve mkdir *, touch *")
    );
}

/// A name that is neither a command nor a program is an error before any
/// question; a path is asked about as before (an earlier statement may
/// make it).
#[test]
fn a_program_that_is_not_here_is_an_error_not_a_question() {
    let dir = tempfile::tempdir().unwrap();
    let approver = Scripted::new(vec![Approval::Yes]);
    let mut shell = shell_in(
        dir.path(),
        Policy::default(),
        approver.clone(),
        Layers::default(),
    );
    let ran = run(&mut shell, "lss -la");
    assert_eq!(code(&ran).as_deref(), Some("nu::shell::external_command"));
    let error = ran.outcome.error.expect("an error");
    assert_eq!(error.help.as_deref(), Some("Did you mean `ls`?"));
    assert!(approver.asked().is_empty(), "nothing is asked");

    let ran = run(
        &mut shell,
        "\"#!/bin/sh\necho made\n\" | save run.sh; ^chmod +x run.sh; ^./run.sh",
    );
    assert_eq!(approver.asked().len(), 1);
    assert_eq!(code(&ran), None, "{:?}", ran.outcome.error);
    assert_eq!(ran.outcome.value.as_str().ok().map(str::trim), Some("made"));
}

#[test]
fn always_becomes_a_session_rule() {
    let dir = tempfile::tempdir().unwrap();
    let approver = Scripted::new(vec![Approval::Always]);
    let mut shell = shell_in(
        dir.path(),
        Policy::default(),
        approver.clone(),
        Layers::default(),
    );
    assert_eq!(code(&run(&mut shell, "touch f")), None);
    assert_eq!(code(&run(&mut shell, "touch f")), None);
    assert_eq!(
        approver.asked().len(),
        1,
        "the second run needs no question"
    );
    // A different command still asks (and is denied: no answers left).
    assert_eq!(
        code(&run(&mut shell, "touch g")).as_deref(),
        Some(DENIED_CODE)
    );
}

#[test]
fn an_edited_pipeline_runs_instead() {
    let dir = tempfile::tempdir().unwrap();
    let approver = Scripted::new(vec![Approval::Edit("mkdir edited".into()), Approval::Yes]);
    let mut shell = shell_in(dir.path(), Policy::default(), approver, Layers::default());
    let ran = run(&mut shell, "mkdir original");
    assert_eq!(code(&ran), None);
    assert!(dir.path().join("edited").is_dir());
    assert!(!dir.path().join("original").exists());
    assert_eq!(ran.pipeline, "mkdir edited");
}

#[test]
fn guards_block_what_the_static_layer_cannot_see() {
    let dir = tempfile::tempdir().unwrap();
    let keep = dir.path().join("keep");
    std::fs::create_dir(&keep).unwrap();
    std::fs::write(keep.join("canary"), "canary").unwrap();
    let policy = Policy {
        protect: vec![keep.to_string_lossy().into_owned()],
        ..Policy::default()
    };
    for pipeline in [
        // The target is a value: only the guard sees it.
        format!("let p = '{}'; rm -r $p", keep.display()),
        // Dynamic builtin dispatch reaches the guarded `rm`.
        format!("let c = 'rm'; %$c -r '{}'", keep.display()),
        format!("let p = '{}/canary'; 'x' | save -f $p", keep.display()),
        format!(
            "let p = '{}/canary'; ^sh -c $'echo x > ($p)'",
            keep.display()
        ),
    ] {
        // --yes: only a block may stop it.
        let approver = Scripted::new(vec![Approval::Yes; 4]);
        let mut shell = shell_in(
            dir.path(),
            policy.clone(),
            approver,
            Layers::without("static").unwrap(),
        );
        let ran = run(&mut shell, &pipeline);
        assert!(ran.outcome.error.is_some(), "{pipeline}: ran");
        assert_eq!(
            std::fs::read_to_string(keep.join("canary")).unwrap(),
            "canary",
            "{pipeline}"
        );
        if !pipeline.contains("^sh") {
            assert_eq!(
                code(&ran).as_deref(),
                Some(BLOCKED_CODE),
                "{pipeline}: {:?}",
                ran.outcome.error
            );
        }
    }
}

/// A block no policy lowers (the home directory) says so in its help,
/// under any mode and in both layers; a block the policy sets (its mode,
/// a `block` rule, a `protect` path) says to change the policy.
#[test]
fn a_block_says_whether_a_change_of_policy_would_allow_it() {
    use agent_core::policy::{Mode, Pattern};
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let keep = dir.path().join("keep");
    std::fs::create_dir(&home).unwrap();
    std::fs::create_dir(&keep).unwrap();
    let help = |policy: Policy, layers: Layers, pipeline: &str| {
        let seed = SessionSeed::new(dir.path()).with_env(vec![
            (
                "PATH".into(),
                Value::string(std::env::var("PATH").unwrap_or_default(), Span::unknown()),
            ),
            (
                "HOME".into(),
                Value::string(home.to_string_lossy(), Span::unknown()),
            ),
        ]);
        let policy = Policy {
            sandbox: SandboxMode::Off,
            ..policy
        };
        let options = ShellOptions {
            layers,
            ..ShellOptions::default()
        };
        // --yes: only a block may stop it.
        let approver = Scripted::new(vec![Approval::Yes; 4]);
        let mut shell = PolicyShell::new(policy, seed, approver, options).expect("shell");
        let ran = run(&mut shell, pipeline);
        assert_eq!(code(&ran).as_deref(), Some(BLOCKED_CODE), "{pipeline}");
        ran.outcome.error.and_then(|d| d.help).unwrap_or_default()
    };
    let yolo = Policy {
        mode: Mode::Yolo,
        ..Policy::default()
    };
    let read_only = Policy {
        mode: Mode::ReadOnly,
        ..Policy::default()
    };
    let allowed = Policy {
        allow: vec![Pattern::new("rm *").unwrap()],
        ..Policy::default()
    };
    let rm_home = format!("rm -r '{}'", home.display());
    for layers in [Layers::default(), Layers::without("static").unwrap()] {
        for policy in [&yolo, &read_only, &allowed] {
            let help = help(policy.clone(), layers, &rm_home);
            assert!(
                help.contains("no policy allows it")
                    && help.contains("is your home directory")
                    && !help.contains("change the policy"),
                "{help}"
            );
        }
        let blocked_by_rule = Policy {
            block: vec![Pattern::new("mkdir *").unwrap()],
            ..yolo.clone()
        };
        let protected = Policy {
            protect: vec![keep.to_string_lossy().into_owned()],
            ..yolo.clone()
        };
        for (policy, pipeline) in [
            (blocked_by_rule, "mkdir made".to_string()),
            (read_only.clone(), "mkdir made".to_string()),
            (protected, format!("rm -r '{}'", keep.display())),
        ] {
            let help = help(policy, layers, &pipeline);
            assert!(help.contains("change the policy"), "{pipeline}: {help}");
        }
    }
    assert!(home.is_dir() && keep.is_dir());
}

#[test]
fn an_approved_sudo_gets_the_password_on_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    // A stand-in for sudo that records what it read on stdin.
    let fake = bin.join("sudo");
    std::fs::write(
        &fake,
        "#!/bin/sh\nread pw\nfor last; do :; done\nprintf '%s' \"$pw\" > \"$last\"\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let approver = Arc::new(Scripted {
        answers: Mutex::new(vec![Approval::Yes]),
        asked: Mutex::new(Vec::new()),
        password: Some("hunter2".into()),
    });
    let mut shell = shell_in(
        dir.path(),
        Policy::default(),
        approver.clone(),
        Layers::default(),
    );
    let got = dir.path().join("got");
    let ran = run(&mut shell, &format!("^sudo -S '{}'", got.display()));
    assert_eq!(code(&ran), None, "{:?}", ran.outcome.error);
    assert_eq!(std::fs::read_to_string(&got).unwrap(), "hunter2");
    assert!(approver.asked()[0].privileged);
    // The password is never in the audit trail the shell keeps.
    assert!(!format!("{:?}", ran.decision).contains("hunter2"));
}

#[test]
fn home_is_the_session_s_not_the_process_s() {
    // The sandbox worker's environment is the session's, so `~` there is
    // the session's HOME: the policy must protect that one too.
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::write(home.join(".ssh/id_ed25519"), "key").unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let seed = SessionSeed::new(&work).with_env(vec![
        (
            "PATH".into(),
            Value::string(std::env::var("PATH").unwrap_or_default(), Span::unknown()),
        ),
        (
            "HOME".into(),
            Value::string(home.display().to_string(), Span::unknown()),
        ),
    ]);
    let policy = Policy {
        sandbox: SandboxMode::Off,
        ..Policy::default()
    };
    let shell =
        PolicyShell::new(policy, seed, Scripted::new(vec![]), ShellOptions::default()).unwrap();
    let key = home.join(".ssh/id_ed25519");
    let (_, decision) = shell.check(&format!("rm '{}'", key.display()));
    assert_eq!(decision.verdict, Verdict::Block, "{:?}", decision.rows);
    assert!(
        decision
            .deciding_rows()
            .any(|row| row.reason.contains(".ssh")),
        "{:?}",
        decision.rows
    );
}
