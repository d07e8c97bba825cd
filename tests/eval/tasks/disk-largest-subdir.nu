# The subdirectory that uses the most disk space, nested files included:
# logs/ (many files, some in a subfolder) beats media/, which holds the
# single largest file. The answer must name logs.
{
    name: "disk-largest-subdir"
    request: "Which subdirectory here takes up the most disk space?"
    tags: [disk du size]
    kind: answer
    setup: {||
        mkdir logs/archive media src
        1..6 | each {|n| "x" | fill -c x -w 12000 | save $"logs/app($n).log" } | ignore
        1..4 | each {|n| "x" | fill -c x -w 15000 | save $"logs/archive/old($n).log" } | ignore
        "x" | fill -c x -w 90000 | save media/intro.mp4
        "x" | fill -c x -w 5000 | save media/thumb.png
        "x" | fill -c x -w 30000 | save src/main.c
    }
    check: {|r|
        if ($r.answer | default "" | str downcase | str contains "logs") { true } else {
            {ok: false, reason: $"the answer does not name logs: ($r.answer)"}
        }
    }
    script: [
        {nu: "du | where ($it.path | path type) == dir | select path apparent | sort-by apparent --reverse", why: "disk usage per subdirectory"}
        {answer: "logs/ takes the most space (140.1 kB including logs/archive), ahead of media/ (99.0 kB) and src/ (34.0 kB)."}
    ]
    wrong: [
        {nu: "ls **/* | where type == file | sort-by size --reverse | first | select name size", why: "biggest file"}
        {answer: "media/ takes the most space: it holds intro.mp4 (90.0 kB)."}
    ]
}
