//! The machine the agent works on, for the system prompt: OS and distro,
//! kernel, arch, CPU, RAM, disks, user and sudo, package manager, and which
//! of a list of programs are installed. Gathered with the embedded engine
//! (`sys host`, `sys cpu`, `sys mem`, `sys disks`, `which`) once per
//! process; `agent context --refresh` gathers again.

mod facts;
mod gather;

pub use facts::{DiskFact, SudoAccess, SystemContext, in_git_repository};
pub use gather::{gather, system_context};

/// Programs checked by default (`agent.context_tools` replaces the list).
pub const DEFAULT_TOOLS: &[&str] = &[
    "git",
    "cargo",
    "python3",
    "node",
    "docker",
    "podman",
    "rg",
    "fd",
    "jq",
    "curl",
    "wget",
    "make",
    "gcc",
    "systemctl",
    "tar",
    "zip",
    "unzip",
];
