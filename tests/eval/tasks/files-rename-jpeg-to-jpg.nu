# A bulk rename (mv asks; the suite approves it): every .jpeg file,
# subfolders included, becomes .jpg with the same name and content; a
# file that only has "jpeg" inside its name keeps it.
{
    name: "files-rename-jpeg-to-jpg"
    request: "Rename every .jpeg file here (subfolders too) to .jpg, keeping the rest of the name."
    tags: [files extension rename approval]
    kind: files
    approve: ["mv *"]
    setup: {||
        mkdir trip/day2
        "img-sunset" | save sunset.jpeg
        "img-cat" | save cat.jpg
        "img-beach" | save trip/beach.jpeg
        "img-dunes" | save trip/day2/dunes.jpeg
        "list of jpeg files" | save jpeg-notes.txt
        "img-logo" | save logo.png
    }
    check: {|r|
        let jpeg = glob **/*.jpeg
        if ($jpeg | is-not-empty) {
            return {ok: false, reason: $".jpeg files left: ($jpeg | path relative-to $r.dir | str join ', ')"}
        }
        let want = {
            "sunset.jpg": "img-sunset"
            "cat.jpg": "img-cat"
            "trip/beach.jpg": "img-beach"
            "trip/day2/dunes.jpg": "img-dunes"
            "jpeg-notes.txt": "list of jpeg files"
            "logo.png": "img-logo"
        }
        let bad = $want | transpose path text | where {|f| not ($f.path | path exists) or ((open --raw $f.path) != $f.text) }
        if ($bad | is-not-empty) {
            return {ok: false, reason: $"missing or changed: ($bad | get path | str join ', ')"}
        }
        let count = glob **/* --no-dir | length
        if $count != 6 {
            return {ok: false, reason: $"($count) files now, 6 expected"}
        }
        true
    }
    script: [
        {nu: "glob **/*.jpeg | path relative-to $env.PWD", why: "the .jpeg files"}
        {nu: "glob **/*.jpeg | each {|f| mv $f ($f | path parse | update extension jpg | path join) } | ignore", why: "rename them to .jpg"}
        {nu: "glob **/*.jp*g | path relative-to $env.PWD", why: "check the result"}
        {answer: "Renamed sunset.jpeg, trip/beach.jpeg and trip/day2/dunes.jpeg to .jpg; cat.jpg was already .jpg."}
    ]
    wrong: [
        {nu: "glob *.jpeg | each {|f| mv $f ($f | str replace '.jpeg' '.jpg') } | ignore", why: "rename the .jpeg files"}
        {answer: "Renamed the .jpeg files to .jpg."}
    ]
}
