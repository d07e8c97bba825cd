//! The seccomp filter: no internet sockets when the network is off, and
//! never the syscalls that get around the other rules.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

use super::SandboxError;

/// Syscalls denied in every sandboxed mode: `io_uring` can create sockets
/// without `socket(2)`, `ptrace` and `process_vm_*` reach into other
/// processes.
const ALWAYS_DENIED: &[libc::c_long] = &[
    libc::SYS_io_uring_setup,
    libc::SYS_io_uring_enter,
    libc::SYS_io_uring_register,
    libc::SYS_ptrace,
    libc::SYS_process_vm_readv,
    libc::SYS_process_vm_writev,
];

/// Install the filter on this thread; threads and children started later
/// inherit it. Sets `no_new_privs` first.
pub(super) fn install(block_network: bool) -> Result<(), SandboxError> {
    let program = program(block_network)?;
    seccompiler::apply_filter(&program).map_err(|err| SandboxError::Seccomp(err.to_string()))?;
    #[cfg(target_arch = "x86_64")]
    seccompiler::apply_filter(&deny_x32()).map_err(|err| SandboxError::Seccomp(err.to_string()))?;
    Ok(())
}

/// The main filter: default allow, the listed syscalls fail with `EPERM`.
/// Another architecture's syscalls (e.g. 32-bit x86) kill the process: the
/// filter cannot vouch for their numbers.
// `c_long` is `i64` only on 64-bit targets: keep the conversion.
#[allow(clippy::useless_conversion)]
pub(super) fn program(block_network: bool) -> Result<BpfProgram, SandboxError> {
    let compile = |err: seccompiler::BackendError| SandboxError::Seccomp(err.to_string());
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = ALWAYS_DENIED
        .iter()
        // An empty rule list matches the syscall whatever its arguments.
        .map(|nr| (i64::from(*nr), Vec::new()))
        .collect();
    if block_network {
        // The boundary is socket creation: only local sockets may exist,
        // so connect/bind/sendto have nothing to reach the network with.
        // Local are AF_UNIX (D-Bus, daemons' sockets: the policy judges
        // those) and AF_NETLINK (how `ip addr` and `ss` read the kernel's
        // network state).
        let not_local = |family: libc::c_int| {
            SeccompCondition::new(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Ne, family as u64)
                .map_err(compile)
        };
        let not_local_family = SeccompRule::new(vec![
            not_local(libc::AF_UNIX)?,
            not_local(libc::AF_NETLINK)?,
        ])
        .map_err(compile)?;
        rules.insert(i64::from(libc::SYS_socket), vec![not_local_family.clone()]);
        rules.insert(i64::from(libc::SYS_socketpair), vec![not_local_family]);
    }
    errno_filter(rules, libc::EPERM)
}

/// What one launched program may still do beyond its files and the
/// network: reach local daemons, and (for a read) change any state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct LaunchLimits {
    /// Nothing writable and no network: a read. Refuses every syscall that
    /// changes state without writing a file's content (metadata,
    /// namespaces, mounts, keys, BPF).
    pub read_only: bool,
    /// It may create `AF_UNIX` sockets, i.e. talk to a local daemon.
    pub local_sockets: bool,
}

/// Syscalls that change a file's mode, owner, timestamps or extended
/// attributes: Landlock does not cover them (landlock(7) CAVEATS).
const METADATA: &[libc::c_long] = &[
    #[cfg(target_arch = "x86_64")]
    libc::SYS_chmod,
    libc::SYS_fchmod,
    libc::SYS_fchmodat,
    SYS_FCHMODAT2,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_chown,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_lchown,
    libc::SYS_fchown,
    libc::SYS_fchownat,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_utime,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_utimes,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_futimesat,
    libc::SYS_utimensat,
    libc::SYS_setxattr,
    libc::SYS_lsetxattr,
    libc::SYS_fsetxattr,
    SYS_SETXATTRAT,
    libc::SYS_removexattr,
    libc::SYS_lremovexattr,
    libc::SYS_fremovexattr,
    SYS_REMOVEXATTRAT,
];

/// `fchmodat2(2)` (Linux 6.6), `setxattrat(2)` and `removexattrat(2)`
/// (6.13): the same number on every architecture, not in `libc` for all.
const SYS_FCHMODAT2: libc::c_long = 452;
const SYS_SETXATTRAT: libc::c_long = 463;
const SYS_REMOVEXATTRAT: libc::c_long = 466;

/// Syscalls that reach beyond the program's own files: mounts and
/// namespaces (a way around the other rules), the kernel keyring, BPF,
/// opening files by handle (outside any path rule).
const STATE: &[libc::c_long] = &[
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_mount_setattr,
    libc::SYS_move_mount,
    libc::SYS_open_tree,
    libc::SYS_fsopen,
    libc::SYS_fsconfig,
    libc::SYS_fsmount,
    libc::SYS_fspick,
    libc::SYS_pivot_root,
    libc::SYS_chroot,
    libc::SYS_setns,
    libc::SYS_unshare,
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
    libc::SYS_bpf,
    libc::SYS_open_by_handle_at,
    libc::SYS_perf_event_open,
];

/// `ioctl` requests that change a file's flags (`chattr`: immutable,
/// append-only) or inject input into a terminal.
const IOCTLS_CHANGING_STATE: &[u64] = &[
    0x4008_6602, // FS_IOC_SETFLAGS
    0x4004_6602, // FS_IOC32_SETFLAGS
    0x401c_5820, // FS_IOC_FSSETXATTR
];
/// Typing into the user's terminal (`TIOCSTI`) or its console
/// (`TIOCLINUX`): refused to every launched program.
const IOCTLS_TERMINAL: &[u64] = &[
    0x5412, // TIOCSTI
    0x541c, // TIOCLINUX
];

/// `syslog(2)` actions that change state: read-and-clear, clear, console
/// off, console on, console level.
const SYSLOG_CHANGES: &[u64] = &[4, 5, 6, 7, 8];

/// The namespace flags of `clone(2)`.
const NEW_NAMESPACES: &[libc::c_int] = &[
    libc::CLONE_NEWNS,
    libc::CLONE_NEWUTS,
    libc::CLONE_NEWIPC,
    libc::CLONE_NEWUSER,
    libc::CLONE_NEWPID,
    libc::CLONE_NEWNET,
    libc::CLONE_NEWCGROUP,
];

/// Install the launched program's own filters on top of the sandbox's
/// (seccomp filters stack; the strictest answer wins).
pub(super) fn install_launch(limits: LaunchLimits) -> Result<(), SandboxError> {
    let apply = |program: &BpfProgram| {
        seccompiler::apply_filter(program).map_err(|err| SandboxError::Seccomp(err.to_string()))
    };
    apply(&launch_program(limits)?)?;
    if limits.read_only {
        apply(&clone3_unavailable()?)?;
    }
    Ok(())
}

/// The filter of [`install_launch`]: default allow; what `limits` takes
/// away fails with `EPERM`.
#[allow(clippy::useless_conversion)]
pub(super) fn launch_program(limits: LaunchLimits) -> Result<BpfProgram, SandboxError> {
    let compile = |err: seccompiler::BackendError| SandboxError::Seccomp(err.to_string());
    let equals = |arg: u8, value: u64| {
        SeccompCondition::new(arg, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, value)
            .map_err(compile)
    };
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    let mut ioctls: Vec<u64> = IOCTLS_TERMINAL.to_vec();
    if !limits.local_sockets {
        // No socket to a daemon, by path or in the abstract namespace
        // (`socketpair` makes only a connected pair: still allowed).
        rules.insert(
            i64::from(libc::SYS_socket),
            vec![SeccompRule::new(vec![equals(0, libc::AF_UNIX as u64)?]).map_err(compile)?],
        );
    }
    if limits.read_only {
        for nr in METADATA.iter().chain(STATE) {
            rules.insert(i64::from(*nr), Vec::new());
        }
        ioctls.extend_from_slice(IOCTLS_CHANGING_STATE);
        let mut clone = Vec::new();
        for flag in NEW_NAMESPACES {
            let flag = *flag as u64;
            clone.push(
                SeccompRule::new(vec![
                    SeccompCondition::new(
                        0,
                        SeccompCmpArgLen::Qword,
                        SeccompCmpOp::MaskedEq(flag),
                        flag,
                    )
                    .map_err(compile)?,
                ])
                .map_err(compile)?,
            );
        }
        rules.insert(i64::from(libc::SYS_clone), clone);
        // syslog(2) may read the kernel log, not clear it or change the
        // console (`dmesg -C`, `-D`, `-n`).
        let mut syslog = Vec::new();
        for action in SYSLOG_CHANGES {
            syslog.push(SeccompRule::new(vec![equals(0, *action)?]).map_err(compile)?);
        }
        rules.insert(i64::from(libc::SYS_syslog), syslog);
    }
    let mut ioctl = Vec::new();
    for request in ioctls {
        ioctl.push(SeccompRule::new(vec![equals(1, request)?]).map_err(compile)?);
    }
    rules.insert(i64::from(libc::SYS_ioctl), ioctl);
    errno_filter(rules, libc::EPERM)
}

/// Syscalls that act on another process: a process-view read runs
/// without Landlock's signal scope and keeps `CAP_SYS_PTRACE` (as root)
/// to read other users' `/proc/PID/fd`, so these are refused outright:
/// signals, priorities, scheduling, memory placement, descriptors taken
/// from another process.
const OTHER_PROCESSES: &[libc::c_long] = &[
    libc::SYS_kill,
    libc::SYS_tkill,
    libc::SYS_tgkill,
    libc::SYS_rt_sigqueueinfo,
    libc::SYS_rt_tgsigqueueinfo,
    libc::SYS_pidfd_send_signal,
    libc::SYS_pidfd_getfd,
    libc::SYS_process_madvise,
    libc::SYS_setpriority,
    libc::SYS_ioprio_set,
    libc::SYS_sched_setscheduler,
    libc::SYS_sched_setparam,
    libc::SYS_sched_setaffinity,
    libc::SYS_sched_setattr,
    libc::SYS_migrate_pages,
    libc::SYS_move_pages,
    libc::SYS_openat2,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_mknod,
    libc::SYS_mknodat,
];

/// `fcntl` commands that direct signals at another process (`F_SETOWN`,
/// `F_SETSIG`, `F_SETOWN_EX`).
const FCNTL_SIGNALS: &[u64] = &[8, 10, 15];
/// `ioctl` requests that do the same (`FIOSETOWN`, `SIOCSPGRP`).
const IOCTLS_SIGNALS: &[u64] = &[0x8901, 0x8902];

/// Install the process-view filter (see `process_view`) on top of the
/// read launch's: [`OTHER_PROCESSES`], signal owners, and `prlimit64`
/// setting a limit.
pub(super) fn install_process_view() -> Result<(), SandboxError> {
    seccompiler::apply_filter(&process_view_program()?)
        .map_err(|err| SandboxError::Seccomp(err.to_string()))
}

#[allow(clippy::useless_conversion)]
fn process_view_program() -> Result<BpfProgram, SandboxError> {
    let compile = |err: seccompiler::BackendError| SandboxError::Seccomp(err.to_string());
    let equals = |arg: u8, value: u64| {
        SeccompCondition::new(arg, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, value)
            .map_err(compile)
    };
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = OTHER_PROCESSES
        .iter()
        .map(|nr| (i64::from(*nr), Vec::new()))
        .collect();
    let mut fcntl = Vec::new();
    for command in FCNTL_SIGNALS {
        fcntl.push(SeccompRule::new(vec![equals(1, *command)?]).map_err(compile)?);
    }
    rules.insert(i64::from(libc::SYS_fcntl), fcntl);
    let mut ioctl = Vec::new();
    for request in IOCTLS_SIGNALS {
        ioctl.push(SeccompRule::new(vec![equals(1, *request)?]).map_err(compile)?);
    }
    rules.insert(i64::from(libc::SYS_ioctl), ioctl);
    let sets_limit =
        SeccompCondition::new(2, SeccompCmpArgLen::Qword, SeccompCmpOp::Ne, 0).map_err(compile)?;
    rules.insert(
        i64::from(libc::SYS_prlimit64),
        vec![SeccompRule::new(vec![sets_limit]).map_err(compile)?],
    );
    errno_filter(rules, libc::EPERM)
}

/// `clone3(2)` passes its flags in memory, where a filter cannot read
/// them: it answers `ENOSYS`, so the C library falls back to `clone(2)`,
/// whose flags the launch filter checks.
#[allow(clippy::useless_conversion)]
fn clone3_unavailable() -> Result<BpfProgram, SandboxError> {
    errno_filter(
        BTreeMap::from([(i64::from(libc::SYS_clone3), Vec::new())]),
        libc::ENOSYS,
    )
}

/// Compile `rules`: default allow, a matching syscall fails with `errno`.
fn errno_filter(
    rules: BTreeMap<i64, Vec<SeccompRule>>,
    errno: libc::c_int,
) -> Result<BpfProgram, SandboxError> {
    let compile = |err: seccompiler::BackendError| SandboxError::Seccomp(err.to_string());
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(errno as u32),
        target_arch()?,
    )
    .map_err(compile)?;
    BpfProgram::try_from(filter).map_err(compile)
}

fn target_arch() -> Result<TargetArch, SandboxError> {
    if cfg!(target_arch = "x86_64") {
        Ok(TargetArch::x86_64)
    } else if cfg!(target_arch = "aarch64") {
        Ok(TargetArch::aarch64)
    } else {
        Err(SandboxError::Unsupported)
    }
}

/// x32 syscalls share the x86_64 audit arch but carry bit 30 in their
/// number (`socket` is `0x40000000 + 41`), so the main filter's numbers
/// would not match them: refuse every x32 syscall.
#[cfg(target_arch = "x86_64")]
fn deny_x32() -> BpfProgram {
    use seccompiler::sock_filter;
    const AUDIT_ARCH_X86_64: u32 = 62 | 0x8000_0000 | 0x4000_0000;
    const X32_SYSCALL_BIT: u32 = 0x4000_0000;
    const ARCH_OFFSET: u32 = 4;
    const NR_OFFSET: u32 = 0;
    let stmt = |code: u32, k: u32| sock_filter {
        code: code as u16,
        jt: 0,
        jf: 0,
        k,
    };
    let jump = |code: u32, k: u32, jt: u8, jf: u8| sock_filter {
        code: code as u16,
        jt,
        jf,
        k,
    };
    vec![
        stmt(libc::BPF_LD | libc::BPF_W | libc::BPF_ABS, ARCH_OFFSET),
        // Not x86_64: the main filter decides.
        jump(
            libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K,
            AUDIT_ARCH_X86_64,
            0,
            3,
        ),
        stmt(libc::BPF_LD | libc::BPF_W | libc::BPF_ABS, NR_OFFSET),
        jump(
            libc::BPF_JMP | libc::BPF_JSET | libc::BPF_K,
            X32_SYSCALL_BIT,
            0,
            1,
        ),
        stmt(
            libc::BPF_RET | libc::BPF_K,
            libc::SECCOMP_RET_ERRNO | libc::EPERM as u32,
        ),
        stmt(libc::BPF_RET | libc::BPF_K, libc::SECCOMP_RET_ALLOW),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_network_rules_only_exist_when_the_network_is_off() {
        let open = program(false).unwrap();
        let closed = program(true).unwrap();
        assert!(closed.len() > open.len());
        // Both start with the architecture check.
        assert_eq!(open[..3], closed[..3]);
    }

    #[test]
    fn a_read_launch_refuses_more_than_a_write_launch() {
        let limits = |read_only, local_sockets| LaunchLimits {
            read_only,
            local_sockets,
        };
        let read = launch_program(limits(true, false)).unwrap();
        let daemon_read = launch_program(limits(true, true)).unwrap();
        let write = launch_program(limits(false, false)).unwrap();
        let approved = launch_program(limits(false, true)).unwrap();
        assert!(read.len() > daemon_read.len());
        assert!(read.len() > write.len());
        assert!(write.len() > approved.len());
        assert!(clone3_unavailable().is_ok());
        assert!(process_view_program().is_ok());
    }
}
