//! What protections the running kernel offers, asked without changing
//! anything.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The protections the OS sandbox can use on this machine.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Protections {
    /// Landlock: the filesystem (and TCP) boundary.
    pub landlock: LandlockSupport,
    /// seccomp: the socket boundary.
    pub seccomp: SeccompSupport,
}

impl Protections {
    /// True when a sandboxed mode can be enforced (Landlock is the boundary
    /// for writes, seccomp for the network).
    pub fn can_sandbox(&self) -> bool {
        matches!(self.landlock, LandlockSupport::Abi(_))
            && matches!(self.seccomp, SeccompSupport::Available)
    }
}

impl Protections {
    /// What a launched read (an external the policy judged read-only) is
    /// kept from on this machine, one line per protection in force; empty
    /// when the per-external sandbox cannot run here.
    pub fn read_launch(&self) -> Vec<String> {
        let LandlockSupport::Abi(abi) = self.landlock else {
            return Vec::new();
        };
        if !matches!(self.seccomp, SeccompSupport::Available) {
            return Vec::new();
        }
        let mut out = vec![format!(
            "landlock ABI {abi}: no file created, written, renamed or deleted{}",
            if abi >= 3 { ", none truncated" } else { "" }
        )];
        if abi >= 4 {
            out.push("landlock: no TCP bind or connect".into());
        }
        if abi >= 6 {
            out.push(
                "landlock: no signal to, or abstract unix socket of, a process outside".into(),
            );
        }
        out.extend(
            [
                "seccomp: no internet socket (netlink stays, to read the kernel's network state)",
                "seccomp: no unix socket, so no local daemon (but the daemon readers: systemctl, docker, ...)",
                "seccomp: no chmod, chown, utime, xattr or chattr flag change",
                "seccomp: no mount, namespace, keyring, bpf, ptrace, terminal input or clearing the kernel log",
                "capabilities: a read as root keeps only those that read (no CAP_NET_ADMIN, CAP_SYS_ADMIN, ...)",
                "process view (only `ss ... -p` and `lsof -i ...`, the system's own): no Landlock, so other processes' sockets can be named; instead every mount read-only in a private mount namespace, the same seccomp filter, and no signal, priority, limit or descriptor of another process",
            ]
            .map(String::from),
        );
        out
    }
}

impl fmt::Display for Protections {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "landlock: {}\nseccomp: {}", self.landlock, self.seccomp)
    }
}

/// Whether Landlock can be used, and which ABI the kernel speaks.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LandlockSupport {
    /// Available; the kernel's ABI version (1 = Linux 5.13 ... 7 = 6.15).
    Abi(i32),
    /// Not usable, and why.
    Unavailable(LandlockMissing),
}

/// Why Landlock cannot be used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LandlockMissing {
    /// The kernel is built without it (`ENOSYS`), or older than 5.13.
    NotBuiltIn,
    /// Built in but not enabled at boot (`EOPNOTSUPP`).
    Disabled,
    /// A container (or another outer seccomp filter) hides the syscall.
    InContainer,
    /// Not Linux.
    NotLinux,
}

impl fmt::Display for LandlockMissing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LandlockMissing::NotBuiltIn => {
                "the kernel is built without Landlock (it needs Linux 5.13 or later with CONFIG_SECURITY_LANDLOCK=y)"
            }
            LandlockMissing::Disabled => {
                "Landlock is built into the kernel but not enabled (add landlock to the lsm= kernel boot parameter)"
            }
            LandlockMissing::InContainer => {
                "the container this runs in blocks the Landlock syscalls (its seccomp profile)"
            }
            LandlockMissing::NotLinux => "Landlock exists only on Linux",
        })
    }
}

impl fmt::Display for LandlockSupport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LandlockSupport::Abi(abi) => write!(f, "ABI {abi}"),
            LandlockSupport::Unavailable(why) => write!(f, "no ({why})"),
        }
    }
}

/// Whether seccomp filters can be installed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SeccompSupport {
    /// Filters with an errno action can be installed.
    Available,
    /// The kernel lacks seccomp filters (or the architecture is not one the
    /// filter is written for).
    Unavailable(String),
}

impl fmt::Display for SeccompSupport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SeccompSupport::Available => f.write_str("yes"),
            SeccompSupport::Unavailable(why) => write!(f, "no ({why})"),
        }
    }
}

/// Ask the kernel what it offers. Has no side effects: it creates no
/// ruleset and installs no filter.
pub fn probe() -> Protections {
    Protections {
        landlock: landlock_support(),
        seccomp: seccomp_support(),
    }
}

/// `landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION)`.
#[cfg(target_os = "linux")]
pub(super) fn landlock_support() -> LandlockSupport {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
    // SAFETY: with the VERSION flag the kernel reads neither the (null)
    // attribute pointer nor anything else; it only returns the ABI version.
    let abi = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    if abi > 0 {
        return LandlockSupport::Abi(i32::try_from(abi).unwrap_or(i32::MAX));
    }
    let errno = std::io::Error::last_os_error().raw_os_error();
    LandlockSupport::Unavailable(match errno {
        Some(libc::EOPNOTSUPP) => LandlockMissing::Disabled,
        Some(libc::EPERM) => LandlockMissing::InContainer,
        _ if in_container() => LandlockMissing::InContainer,
        _ => LandlockMissing::NotBuiltIn,
    })
}

#[cfg(not(target_os = "linux"))]
pub(super) fn landlock_support() -> LandlockSupport {
    LandlockSupport::Unavailable(LandlockMissing::NotLinux)
}

/// Docker, Podman and systemd-nspawn leave a marker.
#[cfg(target_os = "linux")]
fn in_container() -> bool {
    std::path::Path::new("/.dockerenv").exists()
        || std::path::Path::new("/run/.containerenv").exists()
        || std::env::var_os("container").is_some()
}

/// `seccomp(SECCOMP_GET_ACTION_AVAIL, 0, &SECCOMP_RET_ERRNO)`: the filter
/// mode exists and supports the action the sandbox uses.
#[cfg(target_os = "linux")]
fn seccomp_support() -> SeccompSupport {
    if !cfg!(any(target_arch = "x86_64", target_arch = "aarch64")) {
        return SeccompSupport::Unavailable(format!(
            "the filter is written for x86_64 and aarch64, not {}",
            std::env::consts::ARCH
        ));
    }
    let action: u32 = libc::SECCOMP_RET_ERRNO;
    // SAFETY: the kernel reads one u32 from a valid pointer and changes
    // nothing.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_GET_ACTION_AVAIL,
            0u32,
            &action as *const u32,
        )
    };
    if rc == 0 {
        SeccompSupport::Available
    } else {
        SeccompSupport::Unavailable(format!(
            "the kernel refuses seccomp filters: {}",
            std::io::Error::last_os_error()
        ))
    }
}

#[cfg(not(target_os = "linux"))]
fn seccomp_support() -> SeccompSupport {
    SeccompSupport::Unavailable("seccomp exists only on Linux".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_reads_as_the_policy_command_shows_it() {
        let protections = Protections {
            landlock: LandlockSupport::Abi(7),
            seccomp: SeccompSupport::Available,
        };
        assert_eq!(protections.to_string(), "landlock: ABI 7\nseccomp: yes");
        assert!(protections.can_sandbox());
        let missing = Protections {
            landlock: LandlockSupport::Unavailable(LandlockMissing::Disabled),
            seccomp: SeccompSupport::Available,
        };
        assert!(
            missing
                .to_string()
                .starts_with("landlock: no (Landlock is built")
        );
        assert!(!missing.can_sandbox());
        assert!(missing.read_launch().is_empty());
        let lines = protections.read_launch();
        assert!(lines.iter().any(|l| l.contains("chmod")));
        assert!(lines.iter().any(|l| l.contains("abstract unix socket")));
        assert!(lines.iter().any(|l| l.contains("process view")));
        let old = Protections {
            landlock: LandlockSupport::Abi(3),
            seccomp: SeccompSupport::Available,
        };
        assert!(!old.read_launch().iter().any(|l| l.contains("TCP")));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn probing_twice_gives_the_same_answer_and_restricts_nothing() {
        let restrictions = || {
            std::fs::read_to_string("/proc/self/status")
                .unwrap()
                .lines()
                .filter(|line| line.starts_with("NoNewPrivs:") || line.starts_with("Seccomp:"))
                .map(str::to_string)
                .collect::<Vec<_>>()
        };
        let before = restrictions();
        let first = probe();
        assert_eq!(first, probe());
        assert_eq!(before, restrictions());
        assert_eq!(before.len(), 2);
    }
}
