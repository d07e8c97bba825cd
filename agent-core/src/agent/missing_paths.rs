//! The paths a program said are not there (`No such file or directory` on
//! its stderr), and where something of that name is: a path one or two
//! letters off (`task-0fb72e8` for `task-0fb72e80`), or a file of that name
//! in a folder below (`a.txt` for `dir1/a.txt`). A small model copies long
//! paths badly and drops folders from them; told where the name is, it
//! writes the path that is there.

use std::path::{Component, Path, PathBuf};

/// The most paths named back for one missing path.
const MOST_FOUND: usize = 3;

/// The most entries looked at when searching for a name below the working
/// directory.
const MOST_ENTRIES: usize = 5_000;

/// How many letters a name may be off and still be the one meant.
const MOST_EDITS: usize = 2;

/// The paths `stderr` says are not there, in order, each once.
pub fn missing(stderr: &str) -> Vec<String> {
    let mut paths: Vec<String> = Vec::new();
    for line in stderr.lines() {
        let Some(before) = line.split(": No such file or directory").next() else {
            continue;
        };
        if before.len() == line.len() {
            continue;
        }
        let path = quoted(before).unwrap_or_else(|| {
            // `grep: a.txt`: the last part after a program's `name: `.
            before.rsplit(": ").next().unwrap_or(before).to_string()
        });
        let path = path.trim().to_string();
        if !path.is_empty() && !paths.contains(&path) {
            paths.push(path);
        }
    }
    paths
}

/// The last quoted part of `text` (`'…'`, `"…"`, `‘…’`).
fn quoted(text: &str) -> Option<String> {
    for (open, close) in [('\'', '\''), ('‘', '’'), ('"', '"')] {
        if let Some(end) = text.rfind(close)
            && let Some(start) = text[..end].rfind(open)
            && start < end
        {
            let inner = &text[start + open.len_utf8()..end];
            if !inner.is_empty() {
                return Some(inner.to_string());
            }
        }
    }
    None
}

/// Where something named as `path` is, seen from `cwd`: the same path a
/// few letters off, else files of its name below `cwd` (relative to it).
/// Empty when there is none, or when `path` is there after all.
pub fn nearest(path: &str, cwd: &Path) -> Vec<String> {
    let full = cwd.join(path);
    if full.symlink_metadata().is_ok() {
        return Vec::new();
    }
    let shown = |near: &Path| {
        if Path::new(path).is_absolute() {
            near.display().to_string()
        } else {
            near.strip_prefix(cwd)
                .map(|p| p.display().to_string())
                .unwrap_or_else(|_| near.display().to_string())
        }
    };
    if let Some(near) = letters_off(&full) {
        return vec![shown(&near)];
    }
    let extended = named_with_an_extension(path, cwd);
    if !extended.is_empty() {
        return extended;
    }
    match Path::new(path).file_name().and_then(|n| n.to_str()) {
        Some(name) => named_below(name, cwd),
        None => Vec::new(),
    }
}

/// The entries beside `path` (seen from `cwd`, shown as `path` is
/// written) whose name is its name with an extension: `notes` →
/// `notes.txt`. Empty where `path` is there, or none is.
pub fn named_with_an_extension(path: &str, cwd: &Path) -> Vec<String> {
    let full = cwd.join(path);
    if full.symlink_metadata().is_ok() {
        return Vec::new();
    }
    let written = Path::new(path);
    with_an_extension(&full)
        .into_iter()
        .filter_map(|near| {
            let name = near.file_name()?;
            Some(written.with_file_name(name).display().to_string())
        })
        .collect()
}

/// The entries beside `path` whose name is its name with an extension
/// (`notes` → `notes.txt`, `notes.md`): a name written without its
/// extension. At most [`MOST_FOUND`], by name.
fn with_an_extension(path: &Path) -> Vec<PathBuf> {
    let (Some(folder), Some(name)) = (path.parent(), path.file_name().and_then(|n| n.to_str()))
    else {
        return Vec::new();
    };
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .take(MOST_ENTRIES)
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|entry| {
            entry.strip_prefix(name).is_some_and(|rest| {
                rest.len() > 1 && rest.starts_with('.') && !rest[1..].contains('.')
            })
        })
        .map(|entry| folder.join(entry))
        .collect();
    found.sort();
    found.truncate(MOST_FOUND);
    found
}

/// `path` with each missing part replaced by the one entry of its folder
/// that is at most [`MOST_EDITS`] letters off, where that gives a path
/// that is there.
fn letters_off(path: &Path) -> Option<PathBuf> {
    let mut near = PathBuf::new();
    let mut changed = false;
    for component in path.components() {
        let Component::Normal(part) = component else {
            near.push(component.as_os_str());
            continue;
        };
        let next = near.join(part);
        if next.symlink_metadata().is_ok() {
            near = next;
            continue;
        }
        let part = part.to_str()?;
        if part.chars().count() < 3 {
            return None;
        }
        let mut close: Vec<(usize, String)> = std::fs::read_dir(&near)
            .ok()?
            .take(MOST_ENTRIES)
            .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
            .map(|name| (edits(part, &name), name))
            .filter(|(edits, _)| *edits <= MOST_EDITS)
            .collect();
        close.sort();
        // The closest, where no other is as close.
        match close.as_slice() {
            [(best, name), rest @ ..] if rest.first().is_none_or(|(e, _)| e > best) => {
                near.push(name);
                changed = true;
            }
            _ => return None,
        }
    }
    (changed && near.symlink_metadata().is_ok()).then_some(near)
}

/// Files or folders named `name` below `cwd`, relative to it (at most
/// [`MOST_FOUND`], nearest first).
fn named_below(name: &str, cwd: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut seen = 0;
    let mut folders = std::collections::VecDeque::from([cwd.to_path_buf()]);
    while let Some(folder) = folders.pop_front() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            seen += 1;
            if seen > MOST_ENTRIES {
                return found;
            }
            let path = entry.path();
            if entry.file_name().to_str() == Some(name)
                && let Ok(relative) = path.strip_prefix(cwd)
            {
                found.push(relative.display().to_string());
                if found.len() == MOST_FOUND {
                    return found;
                }
            }
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                folders.push_back(path);
            }
        }
    }
    found
}

/// The edit distance between `a` and `b` (letters added, removed or
/// changed).
fn edits(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_missing_paths_are_read_from_what_programs_say() {
        let stderr = "ls: cannot access '/w/task-0fb72e8/work': No such file or directory\n\
                      grep: a.txt: No such file or directory\n\
                      find: ‘logs’: No such file or directory\n\
                      grep: a.txt: No such file or directory\n\
                      something else";
        assert_eq!(missing(stderr), ["/w/task-0fb72e8/work", "a.txt", "logs"]);
    }

    #[test]
    fn a_path_letters_off_or_a_name_below_is_found() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("task-0fb72e80/work/dir1")).unwrap();
        std::fs::write(root.join("task-0fb72e80/work/dir1/a.txt"), "x").unwrap();
        let typo = root.join("task-0fb72e8/work");
        assert_eq!(
            nearest(&typo.display().to_string(), root),
            [root.join("task-0fb72e80/work").display().to_string()]
        );
        let work = root.join("task-0fb72e80/work");
        assert_eq!(nearest("a.txt", &work), ["dir1/a.txt"]);
        // There after all, or nothing like it: nothing to say.
        assert!(nearest("dir1", &work).is_empty());
        assert!(nearest("zzz.md", &work).is_empty());
    }

    #[test]
    fn a_name_written_without_its_extension_is_found_beside_it() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("folder1")).unwrap();
        for file in ["text2.txt", "text2.md", "text20.txt", "text2.txt.bak"] {
            std::fs::write(root.join("folder1").join(file), "x").unwrap();
        }
        assert_eq!(
            nearest("folder1/text2", root),
            ["folder1/text2.md", "folder1/text2.txt"]
        );
        let absolute = root.join("folder1/text2").display().to_string();
        assert_eq!(
            nearest(&absolute, root)[1],
            root.join("folder1/text2.txt").display().to_string()
        );
        assert!(nearest("folder1/text9", root).is_empty());
    }

    #[test]
    fn edits_count_letters() {
        assert_eq!(edits("task-0fb72e8", "task-0fb72e80"), 1);
        assert_eq!(edits("abc", "abc"), 0);
        assert_eq!(edits("kitten", "sitting"), 3);
    }
}
