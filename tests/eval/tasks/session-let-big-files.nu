# A variable kept between steps: one step does `let big = ...`, a later
# step reads `$big`. The answer must count the 3 files over 1 KB, and the
# events must show a later step that ran ok using a variable (or $out)
# set by an earlier one.
{
    name: "session-let-big-files"
    request: "In one step, store the files in this directory that are larger than 1 KB in a variable called big. Then, in a separate step, use $big to tell me how many there are and which ones."
    tags: [session variable files size]
    kind: session
    setup: {||
        let sizes = {"notes.txt": 100 "todo.md": 600 "edge.txt": 1000 "report.pdf": 1500 "data.csv": 4000 "photo.jpg": 12000}
        $sizes | transpose name size | each {|f| "x" | fill -c x -w $f.size | save $f.name } | ignore
    }
    check: {|r|
        let text = $r.answer | default "" | str downcase
        if not ($text =~ '\b(3|three)\b') {
            return {ok: false, reason: $"the answer does not give 3 files: ($r.answer)"}
        }
        let named = ["report.pdf" "data.csv" "photo.jpg"] | where {|f| $text | str contains $f }
        if ($named | length) != 3 {
            return {ok: false, reason: $"the answer does not name report.pdf, data.csv and photo.jpg: ($r.answer)"}
        }
        # Steps that ran ok, with their pipelines: `observed` says what ran
        # (an approved step has no `running` event).
        let ran = $r.events | where kind == "observed" and status == "ok" | select step pipeline
        if ($ran | length) < 2 {
            return {ok: false, reason: $"($ran | length) step\(s\) ran ok; the work was meant to span two steps"}
        }
        let reused = $ran | enumerate | any {|s|
            let before = $ran | first $s.index
            let vars = $before | get pipeline | each {|p| $p | parse -r 'let\s+(?:mut\s+)?(?P<v>\w+)' | get v } | flatten
            ($s.index > 0 and $s.item.pipeline =~ '\$out\b') or ($vars | any {|v| $s.item.pipeline =~ ('\$' + $v + '\b') })
        }
        if not $reused {
            return {ok: false, reason: "no step used a variable (or $out) kept from an earlier step"}
        }
        true
    }
    script: [
        {nu: "let big = (ls | where size > 1kb)", why: "keep the big files"}
        {nu: "$big | select name size", why: "use the variable"}
        {answer: "There are 3 files larger than 1 KB: photo.jpg, data.csv and report.pdf."}
    ]
    wrong: [
        {nu: "let big = (ls | where size > 1kb); $big | select name size", why: "all at once"}
        {answer: "There are 3 files larger than 1 KB: photo.jpg, data.csv and report.pdf."}
    ]
}
