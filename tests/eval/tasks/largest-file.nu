# The largest file: the answer must name it.
{
    name: "largest-file"
    request: "Which file in this directory is the largest?"
    tags: [files size]
    kind: answer
    setup: {||
        "x" | fill -c x -w 1000 | save small.txt
        "x" | fill -c x -w 50000 | save big.log
        "x" | fill -c x -w 9000 | save medium.csv
    }
    check: {|r|
        if ($r.answer | default "" | str contains "big.log") { true } else {
            {ok: false, reason: $"the answer does not name big.log: ($r.answer)"}
        }
    }
    script: [
        {nu: "ls | sort-by size --reverse | first 3 | select name size", why: "largest files first"}
        {answer: "big.log is the largest file (50.0 kB)."}
    ]
    wrong: [
        {nu: "ls | sort-by size | first", why: "smallest by mistake"}
        {answer: "small.txt is the largest file."}
    ]
}
