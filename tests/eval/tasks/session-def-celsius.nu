# A `def` in one step, used in a later one: the custom command must
# survive between steps. The answer must name Phoenix at 40 °C, and a
# later step that ran ok must call a command defined by an earlier step.
{
    name: "session-def-celsius"
    request: "Define a custom command to-celsius that converts a Fahrenheit temperature to Celsius. Then, in a later step, use it on temps.csv to tell me which city is the hottest and how hot it is in Celsius."
    tags: [session def csv]
    kind: session
    setup: {||
        [
            [city fahrenheit];
            [Oslo 50]
            [Lisbon 86]
            [Phoenix 104]
            [Lagos 95]
            [Denver 68]
        ] | save temps.csv
    }
    check: {|r|
        let text = $r.answer | default "" | str downcase
        if not ($text | str contains "phoenix") {
            return {ok: false, reason: $"the answer does not name Phoenix: ($r.answer)"}
        }
        if not ($text =~ '\b40(\.0+)?\b') {
            return {ok: false, reason: $"the answer does not give 40 °C: ($r.answer)"}
        }
        # Steps that ran ok, with their pipelines: `observed` says what ran
        # (an approved step has no `running` event).
        let ran = $r.events | where kind == "observed" and status == "ok" | select step pipeline
        if ($ran | length) < 2 {
            return {ok: false, reason: $"($ran | length) step\(s\) ran ok; the work was meant to span two steps"}
        }
        let reused = $ran | enumerate | any {|s|
            let before = $ran | first $s.index
            let defs = $before | get pipeline | each {|p| $p | parse -r r#'def\s+(?:--\w+\s+)*["']?(?P<d>[\w-]+)'# | get d } | flatten
            $defs | any {|d| $s.item.pipeline =~ ('(^|[\s(|{;])' + $d + '([\s)|};]|$)') }
        }
        if not $reused {
            return {ok: false, reason: "no later step called a command defined in an earlier step"}
        }
        true
    }
    script: [
        {nu: "def to-celsius [f: number] { ($f - 32) * 5 / 9 }", why: "define the conversion"}
        {nu: "open temps.csv | insert celsius {|row| to-celsius $row.fahrenheit } | sort-by celsius --reverse", why: "convert every city, hottest first"}
        {answer: "Phoenix is the hottest: 104 °F, which is 40 °C."}
    ]
    wrong: [
        {nu: "open temps.csv | insert celsius {|row| ($row.fahrenheit - 32) * 5 / 9 } | sort-by celsius --reverse | first", why: "convert inline"}
        {answer: "Phoenix is the hottest at 40 °C."}
    ]
}
