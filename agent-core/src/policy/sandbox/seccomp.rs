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
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
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
}
