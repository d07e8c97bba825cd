# Organising files: every top-level file moves into a folder named after
# its extension (mkdir and mv ask; the suite approves both), contents
# intact, and the folder that was already there is left alone.
{
    name: "files-sort-into-folders-by-extension"
    request: "Tidy this directory: move each file into a folder named after its extension, e.g. report.pdf into pdf/. Leave existing folders alone."
    tags: [files extension organise approval]
    kind: files
    approve: ["mkdir *" "mv *"]
    setup: {||
        "%PDF report" | save report.pdf
        "%PDF invoice" | save invoice.pdf
        "a,b" | save budget.csv
        "c,d" | save contacts.csv
        "PNG1" | save photo.png
        "meeting notes" | save notes.txt
        mkdir projects
        "keep" | save projects/plan.txt
    }
    check: {|r|
        let want = {
            "pdf/report.pdf": "%PDF report"
            "pdf/invoice.pdf": "%PDF invoice"
            "csv/budget.csv": "a,b"
            "csv/contacts.csv": "c,d"
            "png/photo.png": "PNG1"
            "txt/notes.txt": "meeting notes"
            "projects/plan.txt": "keep"
        }
        let bad = $want | transpose path text | where {|f| not ($f.path | path exists) or ((open --raw $f.path) != $f.text) }
        if ($bad | is-not-empty) {
            return {ok: false, reason: $"missing or changed: ($bad | get path | str join ', ')"}
        }
        let loose = ls | where type == file | get name
        if ($loose | is-not-empty) {
            return {ok: false, reason: $"files still at the top: ($loose | str join ', ')"}
        }
        let dirs = ls | where type == dir | get name | sort
        if $dirs != [csv pdf png projects txt] {
            return {ok: false, reason: $"folders: ($dirs | str join ', ')"}
        }
        true
    }
    script: [
        {nu: "ls | where type == file | get name | path parse | get extension | uniq", why: "which extensions there are"}
        {nu: "ls | where type == file | get name | each {|f| let ext = ($f | path parse | get extension); mkdir $ext; mv $f $ext } | ignore", why: "move each file into its extension's folder"}
        {nu: "ls **/* | where type == file | get name", why: "the new layout"}
        {answer: "Moved the files into pdf/ (report.pdf, invoice.pdf), csv/ (budget.csv, contacts.csv), png/ (photo.png) and txt/ (notes.txt); projects/ is untouched."}
    ]
    wrong: [
        {nu: "mkdir sorted; ls | where type == file | each {|f| mv $f.name sorted/ } | ignore", why: "move the files into one folder"}
        {answer: "Moved every file into sorted/."}
    ]
}
