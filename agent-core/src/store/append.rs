//! Append-only JSON-lines files: opened private (0600) with `O_APPEND`, a
//! torn last line ended on open so the next record starts on its own line,
//! each record written whole under an advisory lock.

use std::{
    fs::{File, OpenOptions},
    io::{Read, Seek, SeekFrom, Write},
    path::Path,
};

use super::StoreError;

/// Open `path` for appending (and reading), creating it private; a torn
/// last line left by a crash is ended first.
pub(crate) fn open_append(path: &Path) -> Result<File, StoreError> {
    let mut options = OpenOptions::new();
    options.read(true).append(true).create(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let file = options.open(path).map_err(|source| StoreError::Open {
        path: path.to_path_buf(),
        source,
    })?;
    close_torn_line(&file).map_err(|source| StoreError::Write {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(file)
}

/// End a last line that a crash left without its newline. Done under the
/// same lock as [`append_line`]: a line another writer is writing at this
/// moment is not torn, and must not be cut in two.
fn close_torn_line(file: &File) -> std::io::Result<()> {
    locked(file, || end_last_line(file))
}

fn end_last_line(mut file: &File) -> std::io::Result<()> {
    if file.metadata()?.len() == 0 {
        return Ok(());
    }
    file.seek(SeekFrom::End(-1))?;
    let mut last = [0u8];
    file.read_exact(&mut last)?;
    if last[0] != b'\n' {
        file.write_all(b"\n")?;
    }
    Ok(())
}

/// Append `line` (one whole record, newline included) to `file`, which was
/// opened with [`open_append`] from `path`. Other handles (another thread's,
/// the CLI's, a second plugin's) append too, and not every filesystem keeps
/// an `O_APPEND` write whole, so the write is made under an exclusive
/// advisory lock; a filesystem without locks still gets the write.
pub(crate) fn append_line(file: &File, path: &Path, line: &[u8]) -> Result<(), StoreError> {
    locked(file, || {
        let mut writer = file;
        writer.write_all(line)
    })
    .map_err(|source| StoreError::Write {
        path: path.to_path_buf(),
        source,
    })
}

/// `work` under an exclusive advisory lock on `file` (without one where the
/// filesystem has no locks).
fn locked<T>(file: &File, work: impl FnOnce() -> std::io::Result<T>) -> std::io::Result<T> {
    let held = file.lock().is_ok();
    let result = work();
    if held {
        let _ = file.unlock();
    }
    result
}
