# Counting files by extension, subfolders included, returned as data: a
# table of extension and count (or a record extension -> count).
{
    name: "files-count-by-extension"
    request: "Count the files in this directory tree by extension and return the counts as a table."
    tags: [files extension data]
    kind: data
    setup: {||
        mkdir data/raw data/clean notes
        ["a" "b"] | each {|n| "1,2" | save $"data/raw/($n).csv" } | ignore
        ["c" "d" "e"] | each {|n| "1,2" | save $"data/clean/($n).csv" } | ignore
        "{}" | save data/schema.json
        "{}" | save settings.json
        ["intro" "todo" "ideas"] | each {|n| "# hi" | save $"notes/($n).md" } | ignore
        "# readme" | save README.md
    }
    check: {|r|
        let want = {csv: 5, json: 2, md: 4}
        let kind = $r.data | describe | str replace -r '<.*' ''
        # Only a table, a list or a record can hold the counts (an answer
        # without data, or with text, is the model's failure, not an error).
        if $kind not-in [record list table] {
            return {ok: false, reason: $"the data is ($kind), not a table of extension and count"}
        }
        # Normalise to a record extension -> count, whatever shape came back.
        let got = match $kind {
            "record" => ($r.data | items {|k, v| [$k (if ($v | describe | str replace -r '<.*' '') in [list table] { $v | length } else { $v })] } | reduce --fold {} {|it, acc| $acc | upsert $it.0 $it.1 })
            "list" | "table" => ($r.data | each {|row|
                if ($row | describe | str starts-with "record") {
                    let vals = $row | values
                    let ext = $vals | where ($it | describe) == "string" | get 0? | default ""
                    let lists = $vals | where ($it | describe | str replace -r '<.*' '') in [list table]
                    let n = $vals | where ($it | describe) == "int" | get 0? | default ($lists | get 0? | default [] | length)
                    [$ext $n]
                } else { ["" -1] }
            } | reduce --fold {} {|it, acc| $acc | upsert $it.0 $it.1 })
        }
        let got = $got | transpose ext n | update ext {|row| $row.ext | str trim --left --char "." | str downcase } | where ext != ""
        let got = $got | reduce --fold {} {|it, acc| $acc | upsert $it.ext $it.n }
        let bad = $want | transpose ext n | where {|w| ($got | get -o $w.ext) != $w.n }
        if ($bad | is-not-empty) {
            return {ok: false, reason: $"wrong counts: got ($got | to nuon), want ($want | to nuon)"}
        }
        true
    }
    script: [
        {nu: "ls **/* | where type == file | get name | path parse | group-by extension | transpose extension files | each {|g| {extension: $g.extension, count: ($g.files | length)} } | sort-by count --reverse", why: "count files per extension, recursively"}
        {answer: "5 .csv, 4 .md and 2 .json files.", out: 0}
    ]
    wrong: [
        {nu: "ls | where type == file | get name | path parse | group-by extension | transpose extension files | each {|g| {extension: $g.extension, count: ($g.files | length)} }", why: "count files per extension"}
        {answer: "1 .json and 1 .md file.", out: 0}
    ]
}
