//! Read-only paths inside writable roots. Landlock can only grant, never
//! subtract, so `.git` inside a writable workspace is made read-only the
//! way bubblewrap does it: a private mount namespace (inside a new user
//! namespace when not root) where each protected path is bind-mounted
//! read-only over itself. Writes there fail with `EROFS` for this process
//! and everything it starts. Must run while the process is single-threaded
//! and before Landlock (a Landlock domain forbids mounting).

use std::path::{Path, PathBuf};

/// Make `paths` read-only for this process and its children. Paths that
/// do not exist are skipped. An error means nothing is guaranteed: the
/// caller falls back to leaving those paths out of the writable set.
#[cfg(target_os = "linux")]
pub(super) fn protect_read_only(paths: &[PathBuf]) -> Result<(), String> {
    let paths: Vec<&PathBuf> = paths.iter().filter(|p| p.exists()).collect();
    if paths.is_empty() {
        return Ok(());
    }
    enter_mount_namespace()?;
    for path in paths {
        bind_read_only(path)?;
    }
    Ok(())
}

#[cfg(not(target_os = "linux"))]
pub(super) fn protect_read_only(_paths: &[PathBuf]) -> Result<(), String> {
    Err("read-only bind mounts need Linux".into())
}

/// A private mount namespace; a user namespace first when this process
/// lacks `CAP_SYS_ADMIN` (the user keeps their own uid and gid inside).
#[cfg(target_os = "linux")]
pub(super) fn enter_mount_namespace() -> Result<(), String> {
    // SAFETY: getuid/getgid have no preconditions.
    let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
    // SAFETY: unshare only changes this (single-threaded) process's
    // namespaces; failure is reported through errno.
    let plain = unsafe { libc::unshare(libc::CLONE_NEWNS) } == 0;
    if !plain {
        // SAFETY: as above.
        if unsafe { libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNS) } != 0 {
            return Err(format!(
                "no mount namespace: {}",
                std::io::Error::last_os_error()
            ));
        }
        let write = |file: &str, text: String| {
            std::fs::write(file, text).map_err(|e| format!("{file}: {e}"))
        };
        write("/proc/self/setgroups", "deny".into())?;
        write("/proc/self/uid_map", format!("{uid} {uid} 1"))?;
        write("/proc/self/gid_map", format!("{gid} {gid} 1"))?;
    }
    // Nothing mounted here reaches the rest of the system.
    mount(None, Path::new("/"), libc::MS_REC | libc::MS_PRIVATE)
}

#[cfg(target_os = "linux")]
fn bind_read_only(path: &Path) -> Result<(), String> {
    mount(Some(path), path, libc::MS_BIND | libc::MS_REC)?;
    mount(
        None,
        path,
        libc::MS_BIND | libc::MS_REMOUNT | libc::MS_RDONLY | libc::MS_REC,
    )
}

#[cfg(target_os = "linux")]
fn mount(source: Option<&Path>, target: &Path, flags: libc::c_ulong) -> Result<(), String> {
    use std::{ffi::CString, os::unix::ffi::OsStrExt};
    let c = |p: &Path| {
        CString::new(p.as_os_str().as_bytes()).map_err(|_| format!("{} has a NUL", p.display()))
    };
    let target_c = c(target)?;
    let source_c = source.map(c).transpose()?;
    // SAFETY: every pointer is a valid NUL-terminated string or null, as
    // mount(2) allows for the source, type and data of a bind/remount.
    let rc = unsafe {
        libc::mount(
            source_c.as_ref().map_or(std::ptr::null(), |s| s.as_ptr()),
            target_c.as_ptr(),
            std::ptr::null(),
            flags,
            std::ptr::null(),
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(format!(
            "mount {}: {}",
            target.display(),
            std::io::Error::last_os_error()
        ))
    }
}

/// Whether `path` lies on a read-only mount (already protected, e.g. by
/// the worker this process runs in).
#[cfg(target_os = "linux")]
pub(super) fn is_read_only(path: &Path) -> bool {
    use std::{ffi::CString, os::unix::ffi::OsStrExt};
    let Ok(c) = CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: statvfs writes into the zeroed struct we own.
    let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `c` is a valid C string and `stat` a valid out-pointer.
    let rc = unsafe { libc::statvfs(c.as_ptr(), &mut stat) };
    rc == 0 && stat.f_flag & libc::ST_RDONLY != 0
}

#[cfg(not(target_os = "linux"))]
pub(super) fn is_read_only(_path: &Path) -> bool {
    false
}
