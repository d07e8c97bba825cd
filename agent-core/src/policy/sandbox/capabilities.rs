//! Capabilities of a launched read: a program run as root keeps only the
//! ones that read (past file permissions), never those that change the
//! machine (`CAP_NET_ADMIN` reconfigures the network over netlink,
//! `CAP_SYS_ADMIN`, `CAP_CHOWN`, ...).

use super::SandboxError;

/// The capabilities a read may keep: read any file or directory
/// (`CAP_DAC_OVERRIDE`, `CAP_DAC_READ_SEARCH`), look at other processes
/// in `/proc` (`CAP_SYS_PTRACE`; the `ptrace` syscall itself is refused
/// by seccomp) and read the kernel log (`CAP_SYSLOG`, for `dmesg` where
/// `kernel.dmesg_restrict` is set; clearing it is refused by seccomp).
/// File contents stay read-only by Landlock, metadata by seccomp.
const KEPT_BY_A_READ: &[u32] = &[
    CAP_DAC_OVERRIDE,
    CAP_DAC_READ_SEARCH,
    CAP_SYS_PTRACE,
    CAP_SYSLOG,
];

// From linux/capability.h (not in `libc`).
const CAP_DAC_OVERRIDE: u32 = 1;
const CAP_DAC_READ_SEARCH: u32 = 2;
const CAP_SETPCAP: u32 = 8;
const CAP_SYS_PTRACE: u32 = 19;
const CAP_SYSLOG: u32 = 34;

/// Take every other capability out of the bounding, inheritable and
/// ambient sets of this thread, so a program started from it never gets
/// them (root gets its capabilities at `execve` from the bounding set).
/// Without `CAP_SETPCAP` (not root) the bounding set cannot shrink, and
/// need not: `no_new_privs` keeps file capabilities from being gained.
pub(super) fn keep_only_read_capabilities() -> Result<(), SandboxError> {
    // SAFETY: PR_CAP_AMBIENT_CLEAR_ALL takes no pointers and only lowers.
    unsafe {
        libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL,
            0,
            0,
            0,
        );
    }
    let can_drop = has_setpcap();
    for cap in 0..64u32 {
        if KEPT_BY_A_READ.contains(&cap) {
            continue;
        }
        // SAFETY: PR_CAPBSET_DROP takes a capability number and only lowers.
        let rc = unsafe { libc::prctl(libc::PR_CAPBSET_DROP, cap as libc::c_ulong, 0, 0, 0) };
        if rc != 0 {
            let err = std::io::Error::last_os_error();
            // Past the kernel's last capability: every one is dropped.
            if err.raw_os_error() == Some(libc::EINVAL) {
                break;
            }
            if can_drop {
                return Err(SandboxError::Capabilities(err.to_string()));
            }
        }
    }
    lower_inheritable()
}

#[repr(C)]
struct CapHeader {
    version: u32,
    pid: libc::c_int,
}

#[repr(C)]
#[derive(Clone, Copy, Default)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

const CAPABILITY_VERSION_3: u32 = 0x2008_0522;

fn capget() -> Result<[CapData; 2], SandboxError> {
    let mut header = CapHeader {
        version: CAPABILITY_VERSION_3,
        pid: 0,
    };
    let mut data = [CapData::default(); 2];
    // SAFETY: the kernel writes two `CapData` (version 3) into `data`.
    let rc = unsafe { libc::syscall(libc::SYS_capget, &mut header, data.as_mut_ptr()) };
    if rc != 0 {
        return Err(SandboxError::Capabilities(
            std::io::Error::last_os_error().to_string(),
        ));
    }
    Ok(data)
}

fn has_setpcap() -> bool {
    capget().is_ok_and(|data| data[0].effective & (1 << CAP_SETPCAP) != 0)
}

/// The inheritable set down to the kept capabilities (lowering it needs
/// no privilege).
fn lower_inheritable() -> Result<(), SandboxError> {
    let mut data = capget()?;
    let mut kept = [0u32; 2];
    for cap in KEPT_BY_A_READ {
        kept[(cap / 32) as usize] |= 1 << (cap % 32);
    }
    data[0].inheritable &= kept[0];
    data[1].inheritable &= kept[1];
    let mut header = CapHeader {
        version: CAPABILITY_VERSION_3,
        pid: 0,
    };
    // SAFETY: the kernel reads the header and two `CapData`.
    let rc = unsafe { libc::syscall(libc::SYS_capset, &mut header, data.as_ptr()) };
    if rc != 0 {
        return Err(SandboxError::Capabilities(
            std::io::Error::last_os_error().to_string(),
        ));
    }
    Ok(())
}
