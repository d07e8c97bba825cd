# Disk usage per subdirectory (nested files counted), returned as data:
# one row per subdirectory with its total size. A directory's own `ls`
# size (its 4 kB entry) is not its usage.
{
    name: "disk-usage-per-subdir"
    request: "How much disk space does each subdirectory here use, counting everything inside it? Return a table with one row per subdirectory."
    tags: [disk du size data]
    kind: data
    setup: {||
        mkdir alpha/deep/deeper beta gamma/sub
        "x" | fill -c x -w 200000 | save alpha/archive.bin
        "x" | fill -c x -w 60000 | save alpha/deep/part1.bin
        "x" | fill -c x -w 40000 | save alpha/deep/deeper/part2.bin
        "x" | fill -c x -w 20000 | save beta/notes.txt
        "x" | fill -c x -w 70000 | save gamma/data.csv
        "x" | fill -c x -w 50000 | save gamma/sub/more.csv
        "x" | fill -c x -w 90000 | save top-level.bin
    }
    check: {|r|
        # Expected content bytes per directory; a row's size may add the
        # directories' own entries and block rounding (du's physical size).
        let want = {alpha: 300000, beta: 20000, gamma: 120000}
        let rows = if ($r.data | describe | str replace -r '<.*' '') in [list table] { $r.data } else { [] }
        let rows = $rows | where ($it | describe | str starts-with "record")
        if ($rows | length) != 3 {
            return {ok: false, reason: $"expected 3 rows \(one per subdirectory), got ($rows | length): ($r.data | to nuon)"}
        }
        let bad = $want | transpose dir bytes | each {|w|
            let row = $rows | where {|row| $row | values | any {|v| ($v | describe) == "string" and ($v | path basename) == $w.dir } }
            if ($row | is-empty) { return $"no row for ($w.dir)" }
            let sizes = $row | first | values | where {|v| ($v | describe) in [filesize int] } | each {|v| $v | into int }
            let fits = $sizes | any {|s| $s >= $w.bytes and $s <= ($w.bytes * 3 / 2 + 16384) }
            if $fits { null } else { $"($w.dir): no size near ($w.bytes) bytes in ($row | first | to nuon)" }
        } | compact
        if ($bad | is-not-empty) { return {ok: false, reason: ($bad | str join '; ')} }
        true
    }
    script: [
        {nu: "du", why: "disk usage of everything here"}
        {nu: "ls | where type == dir | each {|d| du $d.name } | flatten | select path apparent physical | sort-by apparent --reverse", why: "only the subdirectories"}
        {answer: "alpha uses 312.2 kB, gamma 128.1 kB and beta 24.0 kB (apparent sizes; top-level.bin is a file, not a directory).", out: 1}
    ]
    wrong: [
        {nu: "ls | where type == dir | get name", why: "the subdirectories"}
        {answer: "The subdirectories are alpha, beta and gamma.", out: 0}
    ]
}
