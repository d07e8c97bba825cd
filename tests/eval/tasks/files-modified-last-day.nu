# Finding files by age, as data: the files modified in the last 24 hours
# (made by the setup) come back as rows; the old ones (fixed dates in
# 2020-2022), subfolders included, must not.
{
    name: "files-modified-last-day"
    request: "Which files here, subfolders included, were modified in the last 24 hours? Return them as a table."
    tags: [files age data]
    kind: data
    setup: {||
        mkdir src docs
        "fresh" | save changelog.md
        "fresh" | save src/parser.rs
        "fresh" | save docs/usage.md
        "old" | save license.txt
        "old" | save src/legacy.rs
        "old" | save docs/history.md
        touch --timestamp 2020-02-02T10:00:00 license.txt
        touch --timestamp 2021-07-07T10:00:00 src/legacy.rs
        touch --timestamp 2022-11-11T10:00:00 docs/history.md
    }
    check: {|r|
        let want = ["changelog.md" "parser.rs" "usage.md"]
        let rows = if ($r.data | describe | str replace -r '<.*' '') in [list table] { $r.data } else { [] }
        if ($rows | is-empty) {
            return {ok: false, reason: $"no list returned as data: ($r.data | to nuon)"}
        }
        let names = $rows | each {|row|
            let text = match ($row | describe | str replace -r '<.*' '') {
                "string" => $row
                "record" => ($row.name? | default $row.path? | default ($row | values | where ($it | describe) == "string" | get 0?) | default "")
                _ => ""
            }
            $text | path basename
        } | where $it not-in ["src" "docs"] | sort   # the folders changed too: let them pass
        if $names != $want {
            return {ok: false, reason: $"the rows name ($names | str join ', '), not ($want | str join ', ')"}
        }
        true
    }
    script: [
        {nu: "ls **/* | where type == file and modified > ((date now) - 1day) | select name modified", why: "files changed in the last day"}
        {answer: "Three files changed in the last 24 hours: changelog.md, src/parser.rs and docs/usage.md.", out: 0}
    ]
    wrong: [
        {nu: "ls **/* | where type == file | sort-by modified --reverse | first 4 | select name modified", why: "most recent files"}
        {answer: "The most recently modified files are changelog.md, src/parser.rs, docs/usage.md and docs/history.md.", out: 0}
    ]
}
