# Logs across several files, returned as data: the ERROR lines per .log
# file under logs/ (a row per file naming it, with its count; the file
# with no errors may be left out or given 0; notes.txt is not a log).
{
    name: "logs-errors-per-file"
    request: "Count the ERROR lines in each .log file under logs/ and give me the result as a table."
    tags: [logs count files group]
    kind: data
    setup: {||
        mkdir logs
        let write = {|name, levels|
            $levels | enumerate | each {|x|
                let sec = $x.index | fill -a right -c '0' -w 2
                $"2024-05-06T09:00:($sec) ($x.item) request ($x.index) handled"
            } | str join "\n" | save ($"logs/($name)")
        }
        do $write "api.log" [INFO ERROR INFO INFO ERROR WARN ERROR INFO ERROR INFO]
        do $write "worker.log" [INFO INFO ERROR INFO WARN INFO ERROR INFO]
        do $write "db.log" [INFO WARN INFO INFO INFO]
        do $write "auth.log" [ERROR INFO ERROR ERROR INFO ERROR ERROR INFO INFO]
        "ERROR ERROR ERROR: these are notes, not a log" | save logs/notes.txt
    }
    check: {|r|
        let want = {"api.log": 4 "worker.log": 2 "auth.log": 5}
        let data = $r.data
        let rows = match ($data | describe | str replace -r '<.*' '') {
            "record" => ($data | transpose key value)
            "table" | "list" => $data
            _ => { return {ok: false, reason: $"no table came back with the answer: ($data | to nuon)"} }
        }
        let row_values = {|row| if ($row | describe | str starts-with "record") { $row | values } else { [$row] } }
        for file in ($want | columns) {
            let count = $want | get $file
            let hits = $rows | where {|row|
                let values = do $row_values $row
                let named = $values | any {|v| ($v | describe) == "string" and ($v | str ends-with $file) }
                $named and ($values | any {|v| ($v | describe) in ["int" "float"] and $v == $count })
            }
            if ($hits | is-empty) {
                return {ok: false, reason: $"no row gives ($file) = ($count): ($data | to nuon)"}
            }
        }
        let others = $rows | where {|row|
            not (do $row_values $row | any {|v| ($v | describe) == "string" and ($want | columns | any {|f| $v | str ends-with $f }) })
        }
        let bad = $others | where {|row|
            let values = do $row_values $row
            let is_db = $values | any {|v| ($v | describe) == "string" and ($v | str ends-with "db.log") }
            let zero = $values | any {|v| ($v | describe) in ["int" "float"] and $v == 0 }
            not ($is_db and $zero)
        }
        if ($bad | is-not-empty) {
            return {ok: false, reason: $"unexpected rows: ($bad | to nuon)"}
        }
        true
    }
    script: [
        {nu: "ls logs | get name", why: "which files are there"}
        {nu: "glob logs/*.log | each {|f| {file: ($f | path basename), errors: (open --raw $f | lines | where ($it | str contains ' ERROR ') | length)} } | sort-by file", why: "ERROR lines per .log file"}
        {answer: "ERROR lines per file: api.log 4, auth.log 5, db.log 0, worker.log 2.", out: 1}
    ]
    wrong: [
        {nu: "glob logs/* | each {|f| {file: ($f | path basename), lines: (open --raw $f | lines | length)} }", why: "lines per file"}
        {answer: "Here is the table.", out: 0}
    ]
}
