# A cleanup that needs approval: deleting files asks, the suite approves
# `rm`, and only the .tmp files go.
{
    name: "cleanup-tmp-approved"
    request: "Delete the .tmp files in this directory; keep everything else."
    tags: [cleanup approval files]
    kind: files
    approve: ["rm *"]
    setup: {||
        ["a.tmp" "b.tmp" "c.tmp"] | each {|f| "scratch" | save $f } | ignore
        "keep me" | save notes.txt
        "data" | save data.csv
    }
    check: {|r|
        let left = ls | get name | sort
        if ($left != ["data.csv" "notes.txt"]) {
            return {ok: false, reason: $"files left: ($left | str join ', ')"}
        }
        if ($r.events | where kind == "approval" | is-empty) {
            return {ok: false, reason: "the deletion was never approved"}
        }
        true
    }
    script: [
        {nu: "glob *.tmp | each {|f| rm $f } | ignore", why: "delete the .tmp files"}
        {answer: "Deleted a.tmp, b.tmp and c.tmp; notes.txt and data.csv are kept."}
    ]
    wrong: [
        {nu: "rm notes.txt", why: "delete"}
        {answer: "Done."}
    ]
}
