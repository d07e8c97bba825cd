//! What is here: the working directory's entries, told with a task's
//! request, so a model names files that exist instead of inventing paths
//! (`/path/to/folder`, `logs.txt`) before it has looked. Two levels deep:
//! each folder with its first entries, files with their sizes; at most
//! [`MAX_LINES`] lines and a count of what is left out, so a home folder
//! costs no more than a small project. In a git work tree, the branch.
//!
//! It is a listing made by the loop, not a step: nothing runs in the
//! user's shell and nothing is asked. Lever: `what-is-here`.

use std::path::Path;

/// Most lines of the listing.
const MAX_LINES: usize = 30;
/// Most entries named inside one folder.
const MAX_INSIDE: usize = 8;

/// The note added to the request: the entries of `cwd`, or `None` where
/// it cannot be read.
pub(crate) fn note(cwd: &Path) -> Option<String> {
    let entries = sorted_entries(cwd)?;
    let mut lines = Vec::new();
    for entry in entries.iter().take(MAX_LINES) {
        lines.push(match &entry.kind {
            Kind::Dir => format!("- {}/{}", entry.name, inside(&cwd.join(&entry.name))),
            Kind::File(size) => format!("- {} ({})", entry.name, size_text(*size)),
            Kind::Link => format!("- {} (link)", entry.name),
        });
    }
    if entries.len() > MAX_LINES {
        lines.push(format!("- … and {} more", entries.len() - MAX_LINES));
    }
    let mut head = format!(
        "What is in the working directory {} now ({} entries; paths are relative to it):",
        cwd.display(),
        entries.len()
    );
    if entries.is_empty() {
        head = format!("The working directory {} is empty.", cwd.display());
    }
    if let Some(branch) = git_branch(cwd) {
        head.push_str(&format!("\n(a git repository, on branch {branch})"));
    }
    Some(if lines.is_empty() {
        head
    } else {
        format!("{head}\n{}", lines.join("\n"))
    })
}

/// An entry of a folder.
struct Entry {
    name: String,
    kind: Kind,
}

enum Kind {
    Dir,
    File(u64),
    Link,
}

/// The entries of `dir` (`.git` left out), folders first, each group by
/// name; names that are not UTF-8 are shown lossily.
fn sorted_entries(dir: &Path) -> Option<Vec<Entry>> {
    let mut entries: Vec<Entry> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .filter(|e| e.file_name() != ".git")
        .filter_map(|e| {
            let meta = e.path().symlink_metadata().ok()?;
            let kind = if meta.is_symlink() {
                Kind::Link
            } else if meta.is_dir() {
                Kind::Dir
            } else {
                Kind::File(meta.len())
            };
            Some(Entry {
                name: e.file_name().to_string_lossy().into_owned(),
                kind,
            })
        })
        .collect();
    entries.sort_by(|a, b| {
        let rank = |e: &Entry| !matches!(e.kind, Kind::Dir);
        rank(a).cmp(&rank(b)).then_with(|| a.name.cmp(&b.name))
    });
    Some(entries)
}

/// ` (3 entries: a.txt, sub/, …)` for a folder, ` (empty)` when empty.
fn inside(dir: &Path) -> String {
    let Some(entries) = sorted_entries(dir) else {
        return " (unreadable)".into();
    };
    if entries.is_empty() {
        return " (empty)".into();
    }
    let mut names: Vec<String> = entries
        .iter()
        .take(MAX_INSIDE)
        .map(|e| match e.kind {
            Kind::Dir => format!("{}/", e.name),
            _ => e.name.clone(),
        })
        .collect();
    if entries.len() > MAX_INSIDE {
        names.push("…".into());
    }
    let count = entries.len();
    let noun = if count == 1 { "entry" } else { "entries" };
    format!(" ({count} {noun}: {})", names.join(", "))
}

/// `512 B`, `1.5 KiB`, `3.2 MiB` …
fn size_text(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// The branch checked out in the git work tree holding `dir`, read from
/// its `HEAD` (no program runs).
fn git_branch(dir: &Path) -> Option<String> {
    let git = dir
        .ancestors()
        .map(|d| d.join(".git"))
        .find(|g| g.is_dir())?;
    let head = std::fs::read_to_string(git.join("HEAD")).ok()?;
    let head = head.trim();
    Some(match head.strip_prefix("ref: refs/heads/") {
        Some(branch) => branch.to_string(),
        None => format!("a detached HEAD at {}", &head[..head.len().min(8)]),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_come_first_with_what_is_in_them_and_files_with_sizes() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("logs/old")).unwrap();
        std::fs::write(dir.path().join("logs/app.log"), "x").unwrap();
        std::fs::create_dir(dir.path().join("empty")).unwrap();
        std::fs::write(dir.path().join("b.csv"), vec![b'1'; 2048]).unwrap();
        std::fs::write(dir.path().join("a.txt"), "hello").unwrap();
        let text = note(dir.path()).unwrap();
        let lines: Vec<&str> = text.lines().skip(1).collect();
        assert_eq!(
            lines,
            [
                "- empty/ (empty)",
                "- logs/ (2 entries: old/, app.log)",
                "- a.txt (5 B)",
                "- b.csv (2.0 KiB)"
            ],
            "{text}"
        );
        assert!(
            text.starts_with("What is in the working directory"),
            "{text}"
        );
    }

    #[test]
    fn a_big_folder_is_cut_with_a_count_and_git_names_its_branch() {
        let dir = tempfile::tempdir().unwrap();
        for n in 0..45 {
            std::fs::write(dir.path().join(format!("f{n:02}.txt")), "").unwrap();
        }
        std::fs::create_dir(dir.path().join(".git")).unwrap();
        std::fs::write(dir.path().join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
        let text = note(dir.path()).unwrap();
        assert!(text.contains("(45 entries"), "{text}");
        assert!(text.contains("on branch main"), "{text}");
        assert!(text.ends_with("- … and 15 more"), "{text}");
        assert!(!text.contains(".git/"), "{text}");
    }

    #[test]
    fn an_empty_folder_says_so() {
        let dir = tempfile::tempdir().unwrap();
        assert!(note(dir.path()).unwrap().contains("is empty"));
    }
}
