# A git status question: the tracked files with changes not committed yet,
# the staged one included (a plain `git diff` misses it).
{
    name: "git-uncommitted-files"
    request: "Which tracked files in this repository have changes that are not committed yet?"
    tags: [git]
    kind: answer
    setup: {||
        ^git init -q -b main
        mkdir src docs
        "# Shop\n" | save README.md
        "print('shop')\n" | save src/app.py
        "port = 8080\n" | save config.toml
        "Read me first.\n" | save docs/guide.md
        "MIT\n" | save LICENSE
        ^git add .
        with-env {GIT_AUTHOR_DATE: "2024-05-01T09:00:00+00:00", GIT_COMMITTER_DATE: "2024-05-01T09:00:00+00:00"} {
            ^git -c user.name=Ann -c user.email=ann@example.com commit -q -m "Initial commit"
        }
        "print('shop v2')\n" | save -f src/app.py
        "port = 9090\n" | save -f config.toml
        ^git add config.toml
        "remember the milk\n" | save notes.txt
    }
    check: {|r|
        let answer = $r.answer | default "" | str downcase
        let missing = ["app.py" "config.toml"] | where {|f| not ($answer | str contains $f) }
        if ($missing | is-not-empty) {
            return {ok: false, reason: $"the answer does not name ($missing | str join ', '): ($r.answer)"}
        }
        let wrong = ["guide.md" "license"] | where {|f| $answer | str contains $f }
        if ($wrong | is-not-empty) {
            return {ok: false, reason: $"the answer names unchanged files ($wrong | str join ', '): ($r.answer)"}
        }
        true
    }
    script: [
        {nu: "^git status --porcelain | lines | parse --regex '^(?<state>..) (?<file>.+)$'", why: "staged, unstaged and untracked changes"}
        {answer: "Two tracked files have uncommitted changes: config.toml (staged) and src/app.py (not staged). notes.txt is new and untracked."}
    ]
    wrong: [
        {nu: "^git diff --name-only | lines", why: "changed files"}
        {answer: "Only src/app.py has uncommitted changes."}
    ]
}
