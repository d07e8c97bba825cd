//! What a step that may change files did to them (the `effects` lever):
//! the files under the working directory (each path's kind, size,
//! permissions and modification time) are taken before the step and
//! after it, so a change that ran without an error but touched nothing
//! (`rm -f` of names that are not here, a `find … -delete` that matched
//! nothing) is told as that, not as done, and an answer saying it was
//! done is sent back.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The most entries taken: past them (a home folder, a large repository)
/// nothing is said of what a step changed.
const MAX_ENTRIES: usize = 20_000;

/// What one path is, as far as a change shows.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Entry {
    kind: Kind,
    len: u64,
    mode: u32,
    modified: Option<SystemTime>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    File,
    Dir,
    Link,
    Other,
}

/// The files under a folder, each path (relative to it) with what it is.
#[derive(Debug, PartialEq, Eq)]
pub struct Files(BTreeMap<PathBuf, Entry>);

impl Files {
    /// The files under `dir` (links not followed); `None` when there are
    /// more than [`MAX_ENTRIES`] or `dir` cannot be read.
    pub fn under(dir: &Path) -> Option<Files> {
        let mut entries = BTreeMap::new();
        let mut pending = vec![dir.to_path_buf()];
        while let Some(at) = pending.pop() {
            for item in std::fs::read_dir(&at).ok()? {
                let Ok(item) = item else { continue };
                let path = item.path();
                let Ok(meta) = std::fs::symlink_metadata(&path) else {
                    continue;
                };
                let kind = if meta.file_type().is_symlink() {
                    Kind::Link
                } else if meta.is_dir() {
                    pending.push(path.clone());
                    Kind::Dir
                } else if meta.is_file() {
                    Kind::File
                } else {
                    Kind::Other
                };
                let entry = Entry {
                    kind,
                    len: if kind == Kind::File { meta.len() } else { 0 },
                    mode: mode(&meta),
                    modified: meta.modified().ok(),
                };
                let relative = path.strip_prefix(dir).unwrap_or(&path).to_path_buf();
                entries.insert(relative, entry);
                if entries.len() > MAX_ENTRIES {
                    return None;
                }
            }
        }
        Some(Files(entries))
    }

    /// How many paths were made, removed or altered between `self` and
    /// `after`.
    pub fn changed(&self, after: &Files) -> usize {
        let altered = after
            .0
            .iter()
            .filter(|(path, entry)| self.0.get(*path) != Some(*entry))
            .count();
        let removed = self.0.keys().filter(|p| !after.0.contains_key(*p)).count();
        altered + removed
    }
}

#[cfg(unix)]
fn mode(meta: &std::fs::Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode()
}

#[cfg(not(unix))]
fn mode(meta: &std::fs::Metadata) -> u32 {
    u32::from(meta.permissions().readonly())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_is_counted_and_nothing_done_is_zero() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "x").unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("sub").join("b.txt"), "y").unwrap();
        let before = Files::under(dir.path()).unwrap();
        // Removing a name that is not here changes nothing.
        let _ = std::fs::remove_file(dir.path().join("c.txt"));
        assert_eq!(before.changed(&Files::under(dir.path()).unwrap()), 0);
        // Removing one file deep down is seen (the file, and its folder's
        // time where the file system keeps it).
        std::fs::remove_file(dir.path().join("sub").join("b.txt")).unwrap();
        let after = Files::under(dir.path()).unwrap();
        assert!(before.changed(&after) >= 1);
        // Permissions alone are a change.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let before = Files::under(dir.path()).unwrap();
            let file = dir.path().join("a.txt");
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
            assert_eq!(before.changed(&Files::under(dir.path()).unwrap()), 1);
        }
    }

    #[test]
    fn a_folder_too_large_to_take_says_nothing() {
        assert!(Files::under(Path::new("/no/such/folder")).is_none());
    }
}
