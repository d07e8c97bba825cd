# Finding empty (0-byte) files, subfolders included: both must be named,
# and not the tiny 1-byte file next to them.
{
    name: "files-find-empty"
    request: "Find the empty files in this directory and its subfolders."
    tags: [files size cleanup]
    kind: answer
    setup: {||
        mkdir config cache
        touch placeholder.txt
        touch config/override.cfg
        "x" | save cache/marker.tmp
        "x" | fill -c x -w 400 | save config/base.cfg
        "x" | fill -c x -w 3000 | save notes.txt
    }
    check: {|r|
        let text = $r.answer | default "" | str downcase
        let missing = ["placeholder.txt" "override.cfg"] | where {|f| not ($text | str contains $f) }
        if ($missing | is-not-empty) {
            return {ok: false, reason: $"the answer does not name ($missing | str join ', '): ($r.answer)"}
        }
        if ($text | str contains "marker.tmp") and not ($text =~ '\b(not|1 ?b|one byte|1 byte)\b') {
            return {ok: false, reason: $"the answer counts marker.tmp \(1 byte) as empty: ($r.answer)"}
        }
        true
    }
    script: [
        {nu: "ls **/* | where type == file and size == 0b | get name", why: "0-byte files, recursively"}
        {answer: "Two files are empty: placeholder.txt and config/override.cfg."}
    ]
    wrong: [
        {nu: "ls **/* | where type == file and size < 10b | get name", why: "tiny files"}
        {answer: "The empty files are placeholder.txt, config/override.cfg and cache/marker.tmp."}
    ]
}
