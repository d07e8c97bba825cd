//! The system facts and how they read: a record for `agent context`, a few
//! short lines for the model.

use std::path::Path;

use nu_protocol::{Record, Span, Value};
use serde::{Deserialize, Serialize};

use crate::observe::format_size;

/// Disks shown to the model at most.
const PROMPT_DISKS: usize = 4;

/// Whether the user can act as root.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SudoAccess {
    /// The user is root.
    Root,
    /// `sudo` works without a password.
    Passwordless,
    /// `sudo` is installed and will ask for a password.
    WithPassword,
    /// No `sudo`.
    None,
}

impl SudoAccess {
    /// `root`, `passwordless`, `with-password`, `none`.
    pub fn as_str(self) -> &'static str {
        match self {
            SudoAccess::Root => "root",
            SudoAccess::Passwordless => "passwordless",
            SudoAccess::WithPassword => "with-password",
            SudoAccess::None => "none",
        }
    }
}

/// One mounted disk.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DiskFact {
    pub mount: String,
    pub fs: String,
    /// Bytes.
    pub total: u64,
    pub free: u64,
}

/// What the model is told about the machine.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SystemContext {
    /// `linux`, `macos`, ...
    pub os: String,
    /// `Debian GNU/Linux 12`.
    pub distro: Option<String>,
    pub kernel: Option<String>,
    pub arch: String,
    /// The CPU's brand.
    pub cpu: Option<String>,
    pub cores: usize,
    /// Bytes.
    pub ram_total: u64,
    pub ram_available: u64,
    pub disks: Vec<DiskFact>,
    pub user: String,
    pub sudo: SudoAccess,
    pub package_manager: Option<String>,
    /// The checked programs that are on PATH, in list order.
    pub tools: Vec<String>,
    /// The checked programs that are not.
    pub missing_tools: Vec<String>,
    pub nu_version: String,
    /// RFC 3339, UTC.
    pub gathered_at: String,
}

impl SystemContext {
    /// The facts as a nu record (sizes as file sizes).
    pub fn to_value(&self, span: Span) -> Value {
        let size = |bytes: u64| Value::filesize(i64::try_from(bytes).unwrap_or(i64::MAX), span);
        let text = |s: &str| Value::string(s, span);
        let optional = |s: &Option<String>| s.as_deref().map_or(Value::nothing(span), text);
        let strings = |list: &[String]| Value::list(list.iter().map(|s| text(s)).collect(), span);
        let disks = self
            .disks
            .iter()
            .map(|d| {
                let mut row = Record::new();
                row.push("mount", text(&d.mount));
                row.push("fs", text(&d.fs));
                row.push("total", size(d.total));
                row.push("free", size(d.free));
                Value::record(row, span)
            })
            .collect();
        let mut record = Record::new();
        record.push("os", text(&self.os));
        record.push("distro", optional(&self.distro));
        record.push("kernel", optional(&self.kernel));
        record.push("arch", text(&self.arch));
        record.push("cpu", optional(&self.cpu));
        record.push("cores", Value::int(self.cores as i64, span));
        record.push("ram_total", size(self.ram_total));
        record.push("ram_available", size(self.ram_available));
        record.push("disks", Value::list(disks, span));
        record.push("user", text(&self.user));
        record.push("sudo", text(self.sudo.as_str()));
        record.push("package_manager", optional(&self.package_manager));
        record.push("tools", strings(&self.tools));
        record.push("missing_tools", strings(&self.missing_tools));
        record.push("nu_version", text(&self.nu_version));
        record.push("gathered_at", text(&self.gathered_at));
        Value::record(record, span)
    }

    /// A few short lines for the system prompt, ending with `cwd`. Only
    /// facts that hold for the life of a process: free memory and free
    /// disk space are left out (stale in a long-lived plugin, answered
    /// from the prompt instead of a step, and a prompt that changes with
    /// them makes the same request on the same files decode differently
    /// from run to run and misses the saved prompt state).
    pub fn prompt_text(&self, cwd: &Path) -> String {
        let mut system = self.distro.clone().unwrap_or_else(|| self.os.clone());
        if let Some(kernel) = &self.kernel {
            system.push_str(&format!(", kernel {}", short_kernel(kernel)));
        }
        system.push_str(&format!(", {}, {} cores", self.arch, self.cores));
        if let Some(cpu) = &self.cpu {
            system.push_str(&format!(" ({})", short_cpu(cpu)));
        }
        system.push_str(&format!(", RAM {}", format_size(self.ram_total as i64)));
        // Mount points only: a size here is read as the free space by a
        // small model (`/ 271GB`), which only `sys disks` gives.
        let disks: Vec<String> = self
            .disks
            .iter()
            .take(PROMPT_DISKS)
            .map(|d| d.mount.clone())
            .collect();
        let sudo = match self.sudo {
            SudoAccess::Root => "root",
            SudoAccess::Passwordless => "sudo without password",
            SudoAccess::WithPassword => "sudo asks a password",
            SudoAccess::None => "no sudo",
        };
        let mut lines = vec![format!("Machine: {system}")];
        if !disks.is_empty() {
            lines.push(format!(
                "Disks: {} (free space now: `sys disks`)",
                disks.join(", ")
            ));
        }
        let mut user = format!("User: {} ({sudo})", self.user);
        if let Some(pm) = &self.package_manager {
            user.push_str(&format!("; package manager: {pm}"));
        }
        user.push_str(&format!("; shell: nu {}", self.nu_version));
        lines.push(user);
        if !self.tools.is_empty() {
            lines.push(format!("Installed: {}", self.tools.join(" ")));
        }
        if !self.missing_tools.is_empty() {
            lines.push(format!("Not installed: {}", self.missing_tools.join(" ")));
        }
        let mut place = format!("cwd: {}", cwd.display());
        if in_git_repository(cwd) {
            place.push_str(" (a git repository: read it with `^git`)");
        }
        lines.push(place);
        lines.join("\n")
    }
}

/// Whether `dir` is inside a git work tree (it or a folder above it has a
/// `.git`): a small model otherwise opens the files under `.git`.
pub fn in_git_repository(dir: &Path) -> bool {
    dir.ancestors().any(|folder| folder.join(".git").exists())
}

/// `6.1.0-18-amd64` → `6.1`.
fn short_kernel(kernel: &str) -> String {
    let numbers: Vec<&str> = kernel.split(['.', '-']).take(2).collect();
    numbers.join(".")
}

/// The CPU brand without marketing noise: `AMD EPYC 7B13 64-Core Processor`
/// → `AMD EPYC 7B13`.
fn short_cpu(brand: &str) -> String {
    let noise = ["(R)", "(TM)", "(tm)", "CPU", "Processor"];
    let mut words: Vec<&str> = brand
        .split_whitespace()
        .filter(|w| !noise.contains(w) && !w.ends_with("-Core") && !w.starts_with('@'))
        .collect();
    words.truncate(4);
    words.join(" ").replace("(R)", "").replace("(TM)", "")
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn sample() -> SystemContext {
        SystemContext {
            os: "linux".into(),
            distro: Some("Debian GNU/Linux 12".into()),
            kernel: Some("6.1.0-18-amd64".into()),
            arch: "x86_64".into(),
            cpu: Some("AMD EPYC 7B13 64-Core Processor".into()),
            cores: 2,
            ram_total: 8 << 30,
            ram_available: 5 << 30,
            disks: vec![DiskFact {
                mount: "/".into(),
                fs: "ext4".into(),
                total: 100 << 30,
                free: 40 << 30,
            }],
            user: "alice".into(),
            sudo: SudoAccess::WithPassword,
            package_manager: Some("apt".into()),
            tools: vec!["git".into(), "cargo".into()],
            missing_tools: vec!["docker".into()],
            nu_version: "0.115.1".into(),
            gathered_at: "2026-11-22T10:00:00Z".into(),
        }
    }

    #[test]
    fn the_prompt_text_is_short_and_has_the_facts() {
        let text = sample().prompt_text(Path::new("/home/alice/proj"));
        for fact in [
            "Debian GNU/Linux 12",
            "kernel 6.1",
            "x86_64",
            "AMD EPYC 7B13",
            "sudo asks a password",
            "apt",
            "Installed: git cargo",
            "Not installed: docker",
            "cwd: /home/alice/proj",
        ] {
            assert!(text.contains(fact), "{fact} missing from {text}");
        }
        assert!(text.len() < 500, "{text}");
        // What changes from minute to minute is not in it.
        let mut later = sample();
        later.ram_available = 1 << 30;
        later.disks[0].free = 7 << 30;
        assert_eq!(later.prompt_text(Path::new("/home/alice/proj")), text);
        assert!(!text.contains("free)"), "{text}");
        // A disk's size is read as its free space: only `sys disks` says.
        assert!(
            text.contains("Disks: / (free space now: `sys disks`)"),
            "{text}"
        );
        assert!(!text.contains("git repository"), "{text}");
    }

    #[test]
    fn a_git_repository_is_named_with_how_to_read_it() {
        let repo = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(repo.path().join(".git")).unwrap();
        std::fs::create_dir_all(repo.path().join("src/deep")).unwrap();
        for dir in [repo.path().to_path_buf(), repo.path().join("src/deep")] {
            let text = sample().prompt_text(&dir);
            assert!(
                text.ends_with("(a git repository: read it with `^git`)"),
                "{text}"
            );
        }
    }

    #[test]
    fn the_record_has_sizes_as_file_sizes() {
        let value = sample().to_value(Span::test_data());
        let record = value.as_record().unwrap();
        assert!(matches!(
            record.get("ram_total"),
            Some(Value::Filesize { .. })
        ));
        assert_eq!(
            record.get("sudo").unwrap().as_str().unwrap(),
            "with-password"
        );
    }
}
