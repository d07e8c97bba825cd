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

/// How to read the repository, for a request about git made in one
/// (`in_repository`). Nothing is run for it: git runs code a repository
/// configures, even to read.
pub fn note(request: &str, in_repository: bool) -> Option<&'static str> {
    let request = request.to_lowercase();
    let about_git = request.split(|c: char| !c.is_alphanumeric()).any(|word| {
        GIT_WORDS.contains(&word) || GIT_STEMS.iter().any(|stem| word.starts_with(stem))
    });
    (in_repository && about_git).then_some(NOTE)
}

/// What [`note`] tells (naming no `.git`: a small model
/// copies the names it reads).
const NOTE: &str = "This is a git repository: `git log --format='%h|%an|%ad|%s' | lines | split column '|' hash author date subject` lists its commits, newest first (add `-- FILE` for one file's); `git status --short | lines` lists changed files.";

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
            assert_eq!(note(request, true), Some(NOTE), "{request}");
            assert_eq!(note(request, false), None, "{request}");
        }
        assert_eq!(note("free up disk space", true), None);
        assert_eq!(note("report the digits, gitlab aside", true), None);
    }
}
