# Cleanup by age with approval: only the .log files last modified before
# 2023 go (the suite approves `rm`); newer logs and an old non-log stay.
{
    name: "files-delete-older-than-approved"
    request: "Delete the .log files in logs/ that were last modified before 2023-01-01. Keep everything else."
    tags: [cleanup age approval files]
    kind: files
    approve: ["rm *"]
    setup: {||
        mkdir logs
        "old" | save logs/app-2021.log
        "old" | save logs/app-2022.log
        "new" | save logs/app-2023.log
        "now" | save logs/app-current.log
        "keep" | save logs/notes-2020.txt
        touch --timestamp 2021-03-01T10:00:00 logs/app-2021.log
        touch --timestamp 2022-12-31T09:00:00 logs/app-2022.log
        touch --timestamp 2023-05-01T10:00:00 logs/app-2023.log
        touch --timestamp 2020-01-01T10:00:00 logs/notes-2020.txt
    }
    check: {|r|
        let left = ls logs | get name | path basename | sort
        let want = ["app-2023.log" "app-current.log" "notes-2020.txt"]
        if $left != $want {
            return {ok: false, reason: $"files left in logs/: ($left | str join ', ')"}
        }
        if ($r.events | where kind == "approval" | is-empty) {
            return {ok: false, reason: "the deletion was never approved"}
        }
        true
    }
    script: [
        {nu: "ls logs/*.log | where modified < 2023-01-01 | select name modified", why: "old logs"}
        {nu: "ls logs/*.log | where modified < 2023-01-01 | each {|f| rm $f.name } | ignore", why: "delete them"}
        {nu: "ls logs | select name modified", why: "what is left"}
        {answer: "Deleted logs/app-2021.log and logs/app-2022.log; app-2023.log, app-current.log and notes-2020.txt are kept."}
    ]
    wrong: [
        {nu: "ls logs/*.log | each {|f| rm $f.name } | ignore", why: "delete the logs, new ones too"}
        {answer: "Deleted the old files."}
    ]
}
