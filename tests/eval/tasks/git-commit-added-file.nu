# A git history question: the commit that first added a file (not the
# newest one touching it), named by hash and message.
{
    name: "git-commit-added-file"
    request: "Which commit added the file LICENSE to this repository? Tell me its hash and its message."
    tags: [git]
    kind: answer
    setup: {||
        ^git init -q -b main
        let commit = {|date: string, message: string|
            with-env {GIT_AUTHOR_DATE: $date, GIT_COMMITTER_DATE: $date} {
                ^git -c user.name=Ann -c user.email=ann@example.com commit -q -m $message
            }
        }
        "# Tool\n" | save README.md
        ^git add README.md
        do $commit "2024-06-01T09:00:00+00:00" "Start the project"
        "fn main() {}\n" | save main.rs
        ^git add main.rs
        do $commit "2024-06-02T09:00:00+00:00" "Add the entry point"
        "MIT License\nCopyright (c) 2023 Ann\n" | save LICENSE
        ^git add LICENSE
        do $commit "2024-06-03T09:00:00+00:00" "Add the MIT license"
        "# Tool\n\nDoes things.\n" | save -f README.md
        ^git add README.md
        do $commit "2024-06-04T09:00:00+00:00" "Explain what the tool does"
        "MIT License\nCopyright (c) 2024 Ann\n" | save -f LICENSE
        ^git add LICENSE
        do $commit "2024-06-05T09:00:00+00:00" "Update the license year"
    }
    check: {|r|
        let added = ^git log --diff-filter=A --format=%H -- LICENSE | str trim
        let changed = ^git log -1 --format=%H -- LICENSE | str trim
        let answer = $r.answer | default "" | str downcase
        if not ($answer | str contains ($added | str substring 0..6)) {
            return {ok: false, reason: $"the answer does not give the hash ($added | str substring 0..6): ($r.answer)"}
        }
        if ($answer | str contains ($changed | str substring 0..6)) {
            return {ok: false, reason: $"the answer also gives the hash of the later change: ($r.answer)"}
        }
        if not ($answer | str contains "mit license") {
            return {ok: false, reason: $"the answer does not give the message \"Add the MIT license\": ($r.answer)"}
        }
        true
    }
    script: [
        {nu: "^git log --diff-filter=A --format='%h %ad %s' -- LICENSE", why: "the commit that added LICENSE"}
        {answer: "LICENSE was added by commit 74717ea with the message \"Add the MIT license\"."}
    ]
    wrong: [
        {nu: "^git log -1 --format='%h %s' -- LICENSE", why: "the commit touching LICENSE"}
        {answer: "LICENSE was added by commit 2e694fa, \"Update the license year\"."}
    ]
}
