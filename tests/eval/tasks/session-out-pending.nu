# `$out` from an earlier step: open the CSV once, then filter that result
# in a later step. The answer must give 3 pending orders worth 225.5, and
# a later step that ran ok must read $out (or a variable) from an earlier one.
{
    name: "session-out-pending"
    request: "Open orders.csv and show it to me. Then, working from that result rather than reopening the file, tell me how many orders are still pending and what they add up to."
    tags: [session out csv]
    kind: session
    setup: {||
        [
            [order customer status amount];
            [1001 acme shipped 99.0]
            [1002 globex pending 40.0]
            [1003 initech cancelled 15.0]
            [1004 umbrella pending 125.5]
            [1005 hooli shipped 310.0]
            [1006 acme shipped 22.0]
            [1007 initech pending 60.0]
            [1008 globex cancelled 75.0]
        ] | save orders.csv
    }
    check: {|r|
        let text = $r.answer | default "" | str downcase
        if not ($text =~ '\b(3|three)\b') {
            return {ok: false, reason: $"the answer does not give 3 pending orders: ($r.answer)"}
        }
        if not ($text =~ '\b225[.,]50?\b') {
            return {ok: false, reason: $"the answer does not give the total 225.5: ($r.answer)"}
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
            return {ok: false, reason: "no later step used $out (or a variable) from an earlier step"}
        }
        true
    }
    script: [
        {nu: "open orders.csv", why: "show the orders"}
        {nu: "$out.0 | where status == pending | select order customer amount", why: "the pending ones, from step 0's result"}
        {nu: "$out.1 | get amount | math sum", why: "their total"}
        {answer: "3 orders are still pending (1002, 1004, 1007), adding up to 225.5."}
    ]
    # A later step that starts with the whole of an earlier read (`open
    # orders.csv | …` after `open orders.csv`) runs from that read's `$out`
    # (the loop reuses it), so the wrong way is to reopen the file in every
    # step, filtered each time.
    wrong: [
        {nu: "open orders.csv | where status == pending | length", why: "count the pending ones"}
        {nu: "open orders.csv | where status == pending | get amount | math sum", why: "reopen and sum"}
        {answer: "3 orders are pending, 225.5 in all."}
    ]
}
