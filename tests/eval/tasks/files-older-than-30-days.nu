# Finding files by age: the files last modified more than 30 days ago
# (fixed dates years back) must be named; recent ones only as the contrast.
{
    name: "files-older-than-30-days"
    request: "Which files in this directory have not been modified in the last 30 days?"
    tags: [files age]
    kind: answer
    setup: {||
        "q4" | save report-2019.txt
        "cfg" | save legacy.conf
        "draft" | save draft.md
        "todo" | save todo.txt
        "rows" | save export.csv
        touch --timestamp 2019-12-31T12:00:00 report-2019.txt
        touch --timestamp 2021-06-15T08:30:00 legacy.conf
    }
    check: {|r|
        let text = $r.answer | default "" | str downcase
        let missing = ["report-2019.txt" "legacy.conf"] | where {|f| not ($text | str contains $f) }
        if ($missing | is-not-empty) {
            return {ok: false, reason: $"the answer does not name ($missing | str join ', '): ($r.answer)"}
        }
        # Recent files may be named only as the contrast ("the others are recent").
        let recent = ["draft.md" "todo.txt" "export.csv"] | where {|f| $text | str contains $f }
        if ($recent | is-not-empty) and not ($text =~ '\b(recent|recently|other|others|rest|newer|except|but)\b') {
            return {ok: false, reason: $"the answer names recent files ($recent | str join ', '): ($r.answer)"}
        }
        true
    }
    script: [
        {nu: "ls | where modified < ((date now) - 30day) | select name modified", why: "files older than 30 days"}
        {answer: "Two files have not been modified in the last 30 days: report-2019.txt (2019-12-31) and legacy.conf (2021-06-15)."}
    ]
    wrong: [
        {nu: "ls | sort-by modified | select name modified", why: "files by age"}
        {answer: "The oldest files are report-2019.txt, legacy.conf, draft.md, todo.txt and export.csv."}
    ]
}
