//! The Landlock ruleset: read and execute everywhere, write beneath the
//! writable roots; with the network off also no TCP bind/connect and no
//! abstract UNIX sockets outside the sandbox.

use std::path::Path;

use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, PathBeneath, PathFd,
    Ruleset, RulesetAttr, RulesetCreated, RulesetCreatedAttr, RulesetStatus, Scope,
};

use super::{Enforcement, SandboxError, SandboxSpec};

/// The ABI the rules are written and tested for (Linux 6.12: scopes).
/// Newer kernels enforce exactly this; older ones as much of it as they
/// know (best effort), reported as [`Enforcement::Partial`].
const PINNED_ABI: ABI = ABI::V6;

/// Build the ruleset and restrict this process (single-threaded: every
/// later thread and child inherits it). Also sets `no_new_privs`.
pub(super) fn restrict(spec: &SandboxSpec) -> Result<Enforcement, SandboxError> {
    let abi = PINNED_ABI;
    let rejected = |err: landlock::RulesetError| SandboxError::Landlock(err.to_string());

    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(abi))
        .map_err(rejected)?
        // Signals only to processes inside the sandbox.
        .scope(Scope::Signal)
        .map_err(rejected)?;
    if !spec.network {
        // A second layer under seccomp: no TCP bind/connect at all, and no
        // abstract UNIX sockets of processes outside the sandbox.
        ruleset = ruleset
            .handle_access(AccessNet::from_all(abi))
            .map_err(rejected)?
            .scope(Scope::AbstractUnixSocket)
            .map_err(rejected)?;
    }
    let mut created = ruleset.create().map_err(rejected)?;
    created = allow(created, Path::new("/"), AccessFs::from_read(abi))?;
    created = allow(created, Path::new("/dev/null"), AccessFs::from_all(abi))?;
    for root in spec.writable_roots() {
        created = allow(created, root, AccessFs::from_all(abi))?;
    }
    let status = created
        .no_new_privs(true)
        .restrict_self()
        .map_err(rejected)?;
    match status.ruleset {
        RulesetStatus::FullyEnforced => Ok(Enforcement::Full),
        RulesetStatus::PartiallyEnforced => Ok(Enforcement::Partial),
        RulesetStatus::NotEnforced => Err(SandboxError::LandlockNotEnforced),
    }
}

/// Grant `access` beneath `path`, opened here so that a missing path is an
/// error (the crate's `path_beneath_rules` skips it silently). A file gets
/// only the rights that apply to files.
fn allow(
    ruleset: RulesetCreated,
    path: &Path,
    access: BitFlags<AccessFs>,
) -> Result<RulesetCreated, SandboxError> {
    let metadata = std::fs::metadata(path).map_err(|source| SandboxError::PathUnavailable {
        path: path.to_path_buf(),
        source,
    })?;
    let access = if metadata.is_dir() {
        access
    } else {
        access & AccessFs::from_file(PINNED_ABI)
    };
    let fd = PathFd::new(path).map_err(|err| SandboxError::PathUnavailable {
        path: path.to_path_buf(),
        source: std::io::Error::other(err.to_string()),
    })?;
    ruleset
        .add_rule(PathBeneath::new(fd, access))
        .map_err(|err| SandboxError::Landlock(err.to_string()))
}
