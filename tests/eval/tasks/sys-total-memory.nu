# A system fact: the total memory (RAM) of the machine, in the answer
# (any unit: GB, GiB, "7.8Gi"...) or as the size returned, within 10% of
# what `sys mem` says when the check runs.
{
    name: "sys-total-memory"
    request: "How much RAM does this machine have in total?"
    tags: [system memory]
    kind: answer
    check: {|r|
        let total = sys mem | get total | into int
        let scale = {b: 0, k: 1, m: 2, g: 3, t: 4}
        let said = $r.answer | default "" | parse --regex '(?i)(?<n>\d+(?:[.,]\d+)?)\s*(?<u>[kmgt]i?b?|bytes?|b)\b'
        | each {|s|
            let n = $s.n | str replace ',' '.' | into float
            let p = $scale | get ($s.u | str downcase | str substring 0..0)
            [($n * (1000 ** $p)) ($n * (1024 ** $p))]
        } | flatten
        let returned = match ($r.data | describe | str replace --regex '<.*' '') {
            "filesize" => [($r.data | into int)]
            "record" => ($r.data | values | where {|v| ($v | describe) == "filesize" } | each { into int })
            _ => []
        }
        let near = $said ++ $returned | where {|b| ($b - $total | math abs) <= $total * 0.1 }
        if ($near | is-empty) {
            return {ok: false, reason: $"the answer does not give the total memory, about ($total | into filesize): ($r.answer) \(data: ($r.data | to nuon)\)"}
        }
        true
    }
    script: [
        {nu: "sys mem | get total", why: "the total memory"}
        {answer: "The value returned is the machine's total memory.", out: 0}
    ]
}
