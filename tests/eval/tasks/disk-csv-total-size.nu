# Total size of all .csv files, subfolders included: 50,000 bytes
# (10,000 + 25,000 + 15,000). The answer must give that total, in bytes,
# kB or KiB; the top-level file alone (10 kB) is not it.
{
    name: "disk-csv-total-size"
    request: "What is the total size of all the .csv files here, including the ones in subfolders?"
    tags: [disk size extension]
    kind: answer
    setup: {||
        mkdir data/archive
        "x" | fill -c x -w 10000 | save sales.csv
        "x" | fill -c x -w 25000 | save data/customers.csv
        "x" | fill -c x -w 15000 | save data/archive/sales-2020.csv
        "x" | fill -c x -w 80000 | save data/dump.json
        "x" | fill -c x -w 7000 | save notes.txt
    }
    check: {|r|
        let text = $r.answer | default "" | str downcase
        if ($text =~ '(\b50[,. _]?000\b|\b50(\.0+)?\s*kb\b|\b48\.8\d*\s*kib\b)') { true } else {
            {ok: false, reason: $"the answer does not give 50,000 bytes \(50 kB, 48.8 KiB): ($r.answer)"}
        }
    }
    script: [
        {nu: "ls **/*.csv | select name size", why: "the csv files, recursively"}
        {nu: "ls **/*.csv | get size | math sum", why: "their total"}
        {answer: "The three .csv files take 50 kB in all (sales.csv 10.0 kB, data/customers.csv 25.0 kB, data/archive/sales-2020.csv 15.0 kB)."}
    ]
    wrong: [
        {nu: "ls *.csv | get size | math sum", why: "total of the csv files"}
        {answer: "The .csv files take 10.0 kB in total."}
    ]
}
