//! A git repository, for a small model: a request about git made in one is
//! told how git reads it, and reads of git's own files under `.git` are
//! not written at all. A 1.5B model otherwise opens `.git/logs`,
//! `.git/refs/heads/main` or `open . | lines` to answer "who made the last
//! commit", whatever the system prompt says.

/// Words of a request about a git repository's history or state, whole
/// (`git`, `repo`) or as the start of one (`commits`, `branches`).
const GIT_WORDS: &[&str] = &[
    "git",
    "repo",
    "repos",
    "tracked",
    "untracked",
    "staged",
    "unstaged",
];
/// …and their stems.
const GIT_STEMS: &[&str] = &["commit", "uncommit", "repositor", "branch"];

/// Words of a request about the working tree's state rather than the
/// history, as the start of one (`uncommitted`, `changes`, `modified`).
const STATE_STEMS: &[&str] = &[
    "uncommit",
    "chang",
    "modif",
    "staged",
    "unstaged",
    "untracked",
    "status",
    "dirty",
];

/// How to read the repository, for a request about git made in one
/// (`in_repository`), leading with the command for what it asks: the
/// state of the files, or the history. Nothing is run for it: git runs
/// code a repository configures, even to read.
pub fn note(request: &str, in_repository: bool) -> Option<&'static str> {
    let request = request.to_lowercase();
    let words: Vec<&str> = request.split(|c: char| !c.is_alphanumeric()).collect();
    let about_git = words.iter().any(|word| {
        GIT_WORDS.contains(word) || GIT_STEMS.iter().any(|stem| word.starts_with(stem))
    });
    let about_state = words
        .iter()
        .any(|word| STATE_STEMS.iter().any(|stem| word.starts_with(stem)));
    let note = if about_state {
        STATE_NOTE
    } else {
        HISTORY_NOTE
    };
    (in_repository && about_git).then_some(note)
}

/// What [`note`] tells of the history (naming no `.git`: a small model
/// copies the names it reads).
const HISTORY_NOTE: &str = "This is a git repository: `git log --format='%h|%an|%ad|%s' | lines | split column '|' hash author date subject` lists its commits, newest first (add `-- FILE` for one file's); `git status --short | lines` lists changed files.";

/// What [`note`] tells of the files' state.
const STATE_NOTE: &str = "This is a git repository: `git status --short | lines` lists the files changed since the last commit (`M ` staged, ` M` changed and not staged, both tracked; `??` not tracked); `git log --format='%h|%an|%ad|%s' | lines` lists its commits.";

/// For a pipeline that read the git log and found nothing by filtering
/// its lines for a file's name (`where $it =~ 'LICENSE'`), in `cwd`
/// where that file is: a log line names no files; `-- FILE` selects the
/// commits that changed it.
pub fn file_history_hint(pipeline: &str, cwd: &std::path::Path) -> Option<String> {
    let log = pipeline.trim_start().trim_start_matches('^');
    if !log.starts_with("git log") || log.contains(" -- ") {
        return None;
    }
    let file = pipeline
        .split(['\'', '"'])
        .skip(1)
        .step_by(2)
        .find(|word| {
            !word.is_empty() && !word.contains(['%', '|', '/', ' ']) && cwd.join(word).is_file()
        })?;
    Some(format!(
        "Note: a commit's log line does not name the files it changed. `git log --format='%h|%an|%ad|%s' -- {file} | lines | split column '|' hash author date subject` lists the commits that changed {file}, newest first; `--diff-filter=A` keeps the one that added it."
    ))
}

/// Pipelines a model may not write in a git repository: reads of git's
/// own files under `.git` (`open .git/logs`, `open .git | lines`), which
/// never answer a question about the repository the way `^git` does. The
/// first is a whole pipeline, the others beginnings.
pub const AVOIDED: [&str; 3] = ["open .git", "open .git/", "open .git "];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_about_git_in_a_repository_is_told_how_to_read_it() {
        for request in [
            "Who made the last commit?",
            "How many commits per author in this repo",
            "Which tracked files changed?",
            "what branch am I on",
        ] {
            assert!(note(request, true).is_some(), "{request}");
            assert_eq!(note(request, false), None, "{request}");
        }
        assert_eq!(note("free up disk space", true), None);
        assert_eq!(note("report the digits, gitlab aside", true), None);
        assert_eq!(note("Who made the last commit?", true), Some(HISTORY_NOTE));
        assert_eq!(
            note("Which tracked files have uncommitted changes?", true),
            Some(STATE_NOTE)
        );
    }

    #[test]
    fn a_log_searched_for_a_file_name_is_told_to_select_the_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("LICENSE"), "MIT").unwrap();
        let searched = "git log --format='%h|%s' | lines | where $it =~ 'LICENSE'";
        let hint = file_history_hint(searched, dir.path()).unwrap_or_default();
        assert!(
            hint.contains("-- LICENSE |") && hint.contains("--diff-filter=A"),
            "{hint}"
        );
        assert_eq!(
            file_history_hint("git log --format='%h|%s' -- LICENSE | lines", dir.path()),
            None
        );
        assert_eq!(
            file_history_hint(
                "git log --format='%h|%s' | lines | where $it =~ 'fix'",
                dir.path()
            ),
            None
        );
    }
}
