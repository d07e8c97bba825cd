//! Gathering the facts with the embedded engine, once per process.

use std::{
    process::{Command, Stdio},
    sync::{Mutex, PoisonError},
    time::{Duration, Instant},
};

use nu_protocol::Value;

use super::{DiskFact, SudoAccess, SystemContext};
use crate::shell::{Engine, Limits, Session, SessionSeed};

/// How long the whole gathering may take.
const GATHER_LIMIT: Duration = Duration::from_secs(10);
/// How long `sudo -n true` may take.
const SUDO_LIMIT: Duration = Duration::from_secs(2);
/// Package managers, in the order they are looked for.
const PACKAGE_MANAGERS: &[&str] = &[
    "apt", "dnf", "yum", "pacman", "zypper", "apk", "brew", "nix", "pkg",
];
/// Filesystems that are not disks a user fills.
const PSEUDO_FILESYSTEMS: &[&str] = &[
    "tmpfs",
    "devtmpfs",
    "overlay",
    "squashfs",
    "proc",
    "sysfs",
    "cgroup",
    "cgroup2",
    "devpts",
    "autofs",
    "efivarfs",
    "ramfs",
    "nsfs",
    "fuse.snapfuse",
];

/// The facts of the last gathering, and the tool list they were for.
static CACHED: Mutex<Option<(Vec<String>, SystemContext)>> = Mutex::new(None);

/// The process-wide facts: gathered on first use (or when `tools` differs
/// from the last list), again when `refresh`.
pub fn system_context(tools: &[String], refresh: bool) -> SystemContext {
    let mut cached = CACHED.lock().unwrap_or_else(PoisonError::into_inner);
    if !refresh
        && let Some((list, context)) = cached.as_ref()
        && list.as_slice() == tools
    {
        return context.clone();
    }
    let context = gather(tools);
    *cached = Some((tools.to_vec(), context.clone()));
    context
}

/// Gather the facts now. A probe that fails leaves its fields empty; it
/// never stops the others.
pub fn gather(tools: &[String]) -> SystemContext {
    let names = tools
        .iter()
        .chain(
            PACKAGE_MANAGERS
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
                .iter(),
        )
        .map(|t| format!("'{}'", t.replace('\'', "")))
        .collect::<Vec<_>>()
        .join(" ");
    let source = format!(
        "{{
            host: (try {{ sys host }} catch {{ {{}} }}),
            cpu: (try {{ sys cpu | first 1 | get 0?.brand? }} catch {{ null }}),
            cores: (try {{ sys cpu | length }} catch {{ 0 }}),
            mem: (try {{ sys mem }} catch {{ {{}} }}),
            disks: (try {{ sys disks | select mount? type? total? free? }} catch {{ [] }}),
            user: ($env.USER? | default (try {{ whoami }} catch {{ 'unknown' }})),
            found: ([{names}] | where {{|t| which $t | is-not-empty }}),
            version: (version | get version),
        }}"
    );
    let value = SessionSeed::from_process()
        .ok()
        .and_then(|seed| Session::new(Engine::standard(), seed).ok())
        .map(|mut session| {
            session
                .run(&source, &Limits::default().with_timeout(GATHER_LIMIT))
                .value
        })
        .unwrap_or(Value::nothing(nu_protocol::Span::unknown()));
    from_value(&value, tools)
}

/// Read the gathered record (any missing part stays empty).
fn from_value(value: &Value, tools: &[String]) -> SystemContext {
    let get = |path: &[&str]| -> Option<Value> {
        let mut current = value.clone();
        for key in path {
            current = current.as_record().ok()?.get(*key)?.clone();
        }
        Some(current)
    };
    let text = |path: &[&str]| {
        get(path)
            .and_then(|v| v.as_str().ok().map(str::to_string))
            .filter(|s| !s.trim().is_empty())
    };
    let bytes = |v: Option<Value>| match v {
        Some(Value::Filesize { val, .. }) => u64::try_from(val.get()).unwrap_or(0),
        Some(Value::Int { val, .. }) => u64::try_from(val).unwrap_or(0),
        _ => 0,
    };
    let distro = match (text(&["host", "name"]), text(&["host", "os_version"])) {
        (Some(name), Some(version)) => Some(format!("{name} {version}")),
        (name, _) => name.or_else(os_release_name),
    };
    let found: Vec<String> = match get(&["found"]) {
        Some(Value::List { vals, .. }) => vals
            .iter()
            .filter_map(|v| v.as_str().ok().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    };
    let disks = match get(&["disks"]) {
        Some(Value::List { vals, .. }) => vals
            .iter()
            .filter_map(|row| {
                let row = row.as_record().ok()?;
                let fs = row.get("type")?.as_str().ok()?.to_string();
                if PSEUDO_FILESYSTEMS.contains(&fs.as_str()) {
                    return None;
                }
                Some(DiskFact {
                    mount: row.get("mount")?.as_str().ok()?.to_string(),
                    fs,
                    total: bytes(row.get("total").cloned()),
                    free: bytes(row.get("free").cloned()),
                })
            })
            .filter(|d| d.total > 0)
            .collect(),
        _ => Vec::new(),
    };
    let user = text(&["user"]).unwrap_or_else(|| "unknown".into());
    SystemContext {
        os: std::env::consts::OS.to_string(),
        distro,
        kernel: text(&["host", "kernel_version"]),
        arch: std::env::consts::ARCH.to_string(),
        cpu: text(&["cpu"]),
        cores: match get(&["cores"]) {
            Some(Value::Int { val, .. }) if val > 0 => val as usize,
            _ => std::thread::available_parallelism().map_or(1, |n| n.get()),
        },
        ram_total: bytes(get(&["mem", "total"])),
        ram_available: bytes(get(&["mem", "available"])),
        disks,
        sudo: sudo_access(found.iter().any(|t| t == "sudo")),
        user,
        package_manager: PACKAGE_MANAGERS
            .iter()
            .find(|pm| found.iter().any(|t| t == *pm))
            .map(|pm| pm.to_string()),
        tools: tools
            .iter()
            .filter(|t| found.contains(t))
            .cloned()
            .collect(),
        missing_tools: tools
            .iter()
            .filter(|t| !found.contains(t))
            .cloned()
            .collect(),
        nu_version: text(&["version"]).unwrap_or_else(|| "0.115".into()),
        gathered_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
    }
}

/// `PRETTY_NAME` of `/etc/os-release`.
fn os_release_name() -> Option<String> {
    let text = std::fs::read_to_string("/etc/os-release").ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix("PRETTY_NAME="))
        .map(|v| v.trim_matches('"').to_string())
}

/// Root, or what `sudo -n true` says (never prompting, bounded in time).
fn sudo_access(installed: bool) -> SudoAccess {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        return SudoAccess::Root;
    }
    if !installed {
        return SudoAccess::None;
    }
    let child = Command::new("sudo")
        .args(["-n", "true"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    let Ok(mut child) = child else {
        return SudoAccess::WithPassword;
    };
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => return SudoAccess::Passwordless,
            Ok(Some(_)) | Err(_) => return SudoAccess::WithPassword,
            Ok(None) if started.elapsed() > SUDO_LIMIT => {
                let _ = child.kill();
                let _ = child.wait();
                return SudoAccess::WithPassword;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tools() -> Vec<String> {
        ["sh", "definitely-not-installed-xyz"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    }

    #[test]
    fn gathers_this_machine() {
        let context = gather(&tools());
        assert_eq!(context.arch, std::env::consts::ARCH);
        assert!(context.cores >= 1);
        assert!(context.ram_total > 0, "{context:?}");
        assert!(!context.user.is_empty());
        assert_eq!(context.tools, ["sh"]);
        assert_eq!(context.missing_tools, ["definitely-not-installed-xyz"]);
        assert!(context.kernel.is_some(), "{context:?}");
    }

    #[test]
    fn the_context_is_cached_until_refreshed() {
        let first = system_context(&tools(), false);
        let second = system_context(&tools(), false);
        assert_eq!(first.gathered_at, second.gathered_at);
        std::thread::sleep(Duration::from_millis(5));
        let refreshed = system_context(&tools(), true);
        assert_ne!(first.gathered_at, refreshed.gathered_at);
    }
}
