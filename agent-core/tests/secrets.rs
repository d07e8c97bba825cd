//! Secrets stay out of the engine unless the user shares them, and out of
//! the audit log always.

use std::{
    io::Write,
    path::Path,
    sync::Arc,
    time::{SystemTime, UNIX_EPOCH},
};

use agent_core::{
    redact::Redactor,
    shell::{Engine, EnvFilter, Limits, Session, SessionSeed},
    store::audit::{AuditEvent, AuditLog, AuditRecord},
};
use nu_protocol::{Span, Value};

/// Secret variables with values unique to this run.
struct Canaries {
    vars: Vec<(String, String)>,
}

impl Canaries {
    fn new() -> Canaries {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        let random = format!("{nanos:x}{:x}", std::process::id());
        let alnum: String = random
            .chars()
            .chain("Zq9".chars().cycle())
            .take(36)
            .collect();
        Canaries {
            vars: vec![
                ("FAKE_API_KEY".into(), format!("canary-{random}")),
                ("GITHUB_TOKEN".into(), format!("ghp_{alnum}")),
                (
                    "AWS_SECRET_ACCESS_KEY".into(),
                    format!("{alnum}wJal").chars().take(40).collect(),
                ),
            ],
        }
    }

    fn names(&self) -> impl Iterator<Item = &str> {
        self.vars.iter().map(|(name, _)| name.as_str())
    }

    fn values(&self) -> impl Iterator<Item = &str> {
        self.vars.iter().map(|(_, value)| value.as_str())
    }
}

/// A session seeded with PATH, HOME, the canaries and `LD_PRELOAD`.
fn session(dir: &Path, canaries: &Canaries, extra_allow: &[&str]) -> Session {
    let mut env: Vec<(String, Value)> = ["PATH", "HOME"]
        .into_iter()
        .filter_map(|name| Some((name.to_string(), std::env::var(name).ok()?)))
        .chain(canaries.vars.iter().cloned())
        .chain([(
            "LD_PRELOAD".to_string(),
            "/nonexistent/canary-preload.so".to_string(),
        )])
        .map(|(name, value)| (name, Value::string(value, Span::unknown())))
        .collect();
    env.sort_by(|a, b| a.0.cmp(&b.0));
    let seed = SessionSeed {
        filter: EnvFilter {
            extra_allow: extra_allow.iter().map(|s| s.to_string()).collect(),
        },
        ..SessionSeed::new(dir).with_env(env)
    };
    Session::new(Engine::standard(), seed).expect("session")
}

/// What `$env | to json`, `$env | columns` and `^env` show, each as text.
fn views_of_env(session: &mut Session) -> Vec<(&'static str, String)> {
    ["$env | to json", "$env | columns | to json", "^env"]
        .into_iter()
        .map(|source| {
            let outcome = session.run(source, &Limits::default());
            assert!(outcome.error.is_none(), "{source}: {:?}", outcome.error);
            let text = outcome
                .value
                .as_str()
                .unwrap_or_else(|_| panic!("{source} gave no text: {:?}", outcome.value))
                .to_string();
            (source, text)
        })
        .collect()
}

#[test]
fn secret_variables_never_reach_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let canaries = Canaries::new();
    let mut session = session(dir.path(), &canaries, &["MY_*"]);
    for (source, text) in views_of_env(&mut session) {
        assert!(text.contains("PATH"), "{source} shows the environment");
        for secret in canaries.values().chain(canaries.names()) {
            assert!(!text.contains(secret), "{source} shows {secret}:\n{text}");
        }
        assert!(!text.contains("LD_PRELOAD"), "{source}:\n{text}");
        assert!(!text.contains("canary-preload"), "{source}:\n{text}");
    }
}

#[test]
fn listed_secrets_pass_but_code_injection_does_not() {
    let dir = tempfile::tempdir().unwrap();
    let canaries = Canaries::new();
    let mut session = session(
        dir.path(),
        &canaries,
        &[
            "FAKE_API_KEY",
            "GITHUB_TOKEN",
            "AWS_*",
            "LD_PRELOAD",
            "LD_*",
        ],
    );
    for (source, text) in views_of_env(&mut session) {
        for name in canaries.names() {
            assert!(text.contains(name), "{source} lacks {name}:\n{text}");
        }
        if source != "$env | columns | to json" {
            for value in canaries.values() {
                assert!(text.contains(value), "{source} lacks {value}:\n{text}");
            }
        }
        assert!(!text.contains("LD_PRELOAD"), "{source}:\n{text}");
        assert!(!text.contains("canary-preload"), "{source}:\n{text}");
    }
}

#[test]
fn audit_log_holds_no_secret_values() {
    let dir = tempfile::tempdir().unwrap();
    let canaries = Canaries::new();
    let log = AuditLog::open(dir.path())
        .unwrap()
        .with_redactor(Redactor::from_env(canaries.vars.clone()));
    let values: Vec<&str> = canaries.values().collect();
    let record = AuditRecord {
        error: Some(format!(
            "curl failed for token {} with key {}",
            values[1], values[2]
        )),
        verdict: Some("confirm".into()),
        approved_by: Some("user".into()),
        ..AuditRecord::new(
            AuditEvent::Execution,
            format!(
                "http get https://api.example.com -H [Authorization {}] | save {}",
                values[0], values[1]
            ),
        )
    };
    log.append(&record).unwrap();
    let on_disk = std::fs::read_to_string(dir.path().join("audit.jsonl")).unwrap();
    for value in &values {
        assert!(!on_disk.contains(value), "{value} is on disk:\n{on_disk}");
    }
    assert!(on_disk.contains("[REDACTED:"), "{on_disk}");
    let read = AuditLog::read(dir.path()).unwrap();
    assert_eq!(read.len(), 1);
    assert_eq!(read[0].approved_by.as_deref(), Some("user"));
    // The same secret gets the same number in the pipeline and the error.
    let github = "[REDACTED:github-token#";
    let number = |text: &str| {
        let at = text.find(github).map(|at| at + github.len())?;
        text.get(at..)?.split(']').next().map(str::to_string)
    };
    assert_eq!(
        number(&read[0].pipeline),
        number(read[0].error.as_deref().unwrap_or_default())
    );
    assert!(
        number(&read[0].pipeline).is_some(),
        "{:?}",
        read[0].pipeline
    );
}

#[cfg(unix)]
#[test]
fn audit_log_is_private() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let log = AuditLog::open(&state).unwrap();
    log.append(&AuditRecord::new(AuditEvent::Decision, "ls"))
        .unwrap();
    let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&state.join("audit.jsonl")), 0o600);
    assert_eq!(mode(&state), 0o700);
}

#[test]
fn concurrent_appends_never_interleave() {
    const THREADS: usize = 8;
    const RECORDS: usize = 200;
    let dir = tempfile::tempdir().unwrap();
    let shared = Arc::new(AuditLog::open(dir.path()).unwrap());
    let padding = "x".repeat(6000);
    std::thread::scope(|scope| {
        for thread in 0..THREADS {
            // Half share one handle, half open their own (as other
            // processes would).
            let log = if thread % 2 == 0 {
                Arc::clone(&shared)
            } else {
                Arc::new(AuditLog::open(dir.path()).unwrap())
            };
            let padding = &padding;
            scope.spawn(move || {
                for index in 0..RECORDS {
                    let record = AuditRecord {
                        session: Some(format!("{thread}/{index}")),
                        plan: serde_json::Value::String(padding.clone()),
                        ..AuditRecord::new(AuditEvent::Execution, format!("echo {index}"))
                    };
                    log.append(&record).unwrap();
                }
            });
        }
    });
    let text = std::fs::read_to_string(dir.path().join("audit.jsonl")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), THREADS * RECORDS);
    let mut seen = std::collections::HashSet::new();
    for line in lines {
        let record: AuditRecord = serde_json::from_str(line).expect("every line parses");
        assert!(seen.insert(record.session.unwrap()));
    }
    assert_eq!(seen.len(), THREADS * RECORDS);
}

/// What a writer killed mid-record leaves: half a line, no newline.
fn tear(dir: &Path) {
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(dir.join("audit.jsonl"))
        .unwrap();
    file.write_all(br#"{"time":"2026-01-01T00:00:00Z","event":"execu"#)
        .unwrap();
}

#[test]
fn a_torn_last_line_is_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let log = AuditLog::open(dir.path()).unwrap();
    let records: Vec<AuditRecord> = (0..3)
        .map(|i| AuditRecord::new(AuditEvent::Decision, format!("ls {i}")))
        .collect();
    for record in &records {
        log.append(record).unwrap();
    }
    tear(dir.path());
    assert_eq!(AuditLog::read(dir.path()).unwrap(), records);
    // A writer that opened the log before the tear glues its record onto
    // the torn line; the reader still finds it.
    let glued = AuditRecord::new(AuditEvent::Approval, "glued");
    log.append(&glued).unwrap();
    // A writer opening the log after a tear closes the torn line first.
    tear(dir.path());
    let after = AuditRecord::new(AuditEvent::Execution, "after");
    AuditLog::open(dir.path()).unwrap().append(&after).unwrap();
    let mut expected = records;
    expected.extend([glued, after]);
    assert_eq!(AuditLog::read(dir.path()).unwrap(), expected);
    let text = std::fs::read_to_string(dir.path().join("audit.jsonl")).unwrap();
    assert!(text.ends_with("}\n"), "{text}");
    assert!(
        text.lines()
            .last()
            .unwrap()
            .contains(r#""pipeline":"after""#)
    );
    assert_eq!(text.lines().count(), 6);
}
