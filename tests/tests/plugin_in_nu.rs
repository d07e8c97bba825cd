//! The plugin inside a real nu 0.115 host.

use std::path::Path;

use agent_e2e::{nu_with_agent as nu, register_plugin as registered, stdout_of};

fn fixture(dir: &Path) -> std::path::PathBuf {
    let work = dir.join("work");
    std::fs::create_dir(&work).unwrap();
    for i in 0..7 {
        std::fs::write(work.join(format!("file{i}.txt")), vec![b'x'; i * 10]).unwrap();
    }
    std::fs::create_dir(work.join("subdir")).unwrap();
    work
}

#[test]
fn agent_run_matches_nu_in_the_same_directory() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registered(dir.path());
    let work = fixture(dir.path());
    let out = nu(
        &registry,
        &work,
        r#"{ours: (agent run "ls | length"), nus: (ls | length)} | to json --raw"#,
    );
    let json: serde_json::Value = serde_json::from_str(stdout_of(&out).trim()).unwrap();
    assert_eq!(json["ours"], json["nus"]);
    assert_eq!(json["ours"], 8);
}

#[test]
fn agent_run_returns_structured_values() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registered(dir.path());
    let work = fixture(dir.path());
    let out = nu(
        &registry,
        &work,
        r#"agent run "ls | where type == file | sort-by size | last 2" | get name | to json --raw"#,
    );
    assert_eq!(stdout_of(&out).trim(), r#"["file5.txt","file6.txt"]"#);
}

#[test]
fn agent_alone_prints_help_and_errors_are_labeled() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registered(dir.path());
    let work = fixture(dir.path());
    let help = stdout_of(&nu(&registry, &work, "agent"));
    assert!(help.contains("agent run"), "{help}");

    let failed = nu(&registry, &work, r#"agent run "let x = [1, 2""#);
    assert!(!failed.status.success());
    let stderr = String::from_utf8_lossy(&failed.stderr);
    assert!(stderr.contains("the pipeline failed"), "{stderr}");
    assert!(stderr.contains("nu::parser"), "{stderr}");
}
