//! Append-only JSON-lines files: opened private (0600) with `O_APPEND`, a
//! torn last line ended on open so the next record starts on its own line.

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

/// End a last line that a crash left without its newline.
fn close_torn_line(file: &File) -> std::io::Result<()> {
    let mut file = file;
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
