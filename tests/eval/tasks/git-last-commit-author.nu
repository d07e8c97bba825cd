# A git history question: the author of the newest commit (not the first,
# not the most frequent one) must be named.
{
    name: "git-last-commit-author"
    request: "Who made the last commit in this git repository?"
    tags: [git]
    kind: answer
    setup: {||
        ^git init -q -b main
        let commit = {|name: string, date: string, message: string|
            with-env {GIT_AUTHOR_DATE: $date, GIT_COMMITTER_DATE: $date} {
                ^git -c $"user.name=($name)" -c $"user.email=($name | str downcase | str replace ' ' '.')@example.com" commit -q -m $message
            }
        }
        "# Demo\n" | save README.md
        ^git add README.md
        do $commit "Ann Lee" "2024-03-01T09:00:00+00:00" "Start the project"
        "fn main() {}\n" | save main.rs
        ^git add main.rs
        do $commit "Ann Lee" "2024-03-02T10:30:00+00:00" "Add main"
        "# Demo\n\nA demo.\n" | save -f README.md
        ^git add README.md
        do $commit "Carlos Diaz" "2024-03-03T14:00:00+00:00" "Describe the project"
        "fn main() { println!(\"hi\") }\n" | save -f main.rs
        ^git add main.rs
        do $commit "Ann Lee" "2024-03-04T08:15:00+00:00" "Say hi"
        "target/\n" | save .gitignore
        ^git add .gitignore
        do $commit "Bea Novak" "2024-03-05T16:45:00+00:00" "Ignore build output"
    }
    check: {|r|
        let author = ^git log -1 --format=%an | str trim | str downcase
        let answer = $r.answer | default "" | str downcase
        let at = $answer | str index-of ($author | split words | first)
        if $at < 0 {
            return {ok: false, reason: $"the answer does not name ($author): ($r.answer)"}
        }
        # Other authors may be mentioned, but after the one who made it.
        let others = ^git log --format=%an | lines | uniq | str downcase | where $it != $author
        let before = $others | where {|o| let i = $answer | str index-of ($o | split words | first); $i >= 0 and $i < $at }
        if ($before | is-not-empty) {
            return {ok: false, reason: $"the answer names ($before | str join ', ') first: ($r.answer)"}
        }
        true
    }
    script: [
        {nu: "^git log -1 --format='%an <%ae> %ad %s'", why: "the newest commit"}
        {answer: "The last commit was made by Bea Novak (bea.novak@example.com): \"Ignore build output\"."}
    ]
    wrong: [
        {nu: "^git log --reverse --format='%an %s' | lines | first", why: "the first commit"}
        {answer: "Ann Lee made the last commit (\"Start the project\")."}
    ]
}
