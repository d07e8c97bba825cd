# Finding files by size, subfolders included: the files over 10 KB come
# back as data (`answer out: N`), one row per file, and nothing else.
{
    name: "files-larger-than-10kb"
    request: "List every file larger than 10 KB in this directory and its subfolders, and return them as a table."
    tags: [files size data]
    kind: data
    setup: {||
        mkdir assets/icons docs
        "x" | fill -c x -w 2000 | save readme.md
        "x" | fill -c x -w 40000 | save dump.sql
        "x" | fill -c x -w 8000 | save assets/logo.svg
        "x" | fill -c x -w 120000 | save assets/hero.png
        "x" | fill -c x -w 15000 | save assets/icons/sprite.png
        "x" | fill -c x -w 9000 | save docs/guide.md
    }
    check: {|r|
        let want = ["dump.sql" "hero.png" "sprite.png"]
        let rows = if ($r.data | describe | str starts-with "list") or ($r.data | describe | str starts-with "table") { $r.data } else { [] }
        if ($rows | is-empty) {
            return {ok: false, reason: $"no list returned as data: ($r.data | describe)"}
        }
        # Each row names a file: a string, or a record with a name/path column.
        let names = $rows | each {|row|
            let text = match ($row | describe | str replace -r '<.*' '') {
                "string" => $row
                "record" => ($row.name? | default $row.path? | default ($row | values | where ($it | describe) == "string" | get 0?) | default "")
                _ => ""
            }
            $text | path basename
        } | sort
        if $names != $want {
            return {ok: false, reason: $"the rows name ($names | str join ', '), not ($want | str join ', ')"}
        }
        true
    }
    script: [
        {nu: "ls **/* | where type == file and size > 10kb | select name size | sort-by size --reverse", why: "files over 10 KB, recursively"}
        {answer: "Three files are larger than 10 KB: assets/hero.png, dump.sql and assets/icons/sprite.png.", out: 0}
    ]
    wrong: [
        {nu: "ls $env.PWD | where type == file and size > 10kb | select name size", why: "files over 10 KB"}
        {answer: "Only dump.sql is larger than 10 KB.", out: 0}
    ]
}
