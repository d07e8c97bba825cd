# A system fact: the free space on the filesystem holding the working
# directory (the mount it is on, not any disk), in the answer (any unit)
# or as the size returned, within 10% of what `df` says when the check runs.
{
    name: "sys-disk-free"
    request: "How much free space is left on the disk this directory is on?"
    tags: [system disk]
    kind: answer
    check: {|r|
        let free = ^df -Pk $r.dir | lines | last | split row --regex '\s+' | get 3 | into int | $in * 1024
        let scale = {b: 0, k: 1, m: 2, g: 3, t: 4}
        let said = $r.answer | default "" | parse --regex '(?i)(?<n>\d+(?:[.,]\d+)?)\s*(?<u>[kmgt]i?b?|bytes?|b)\b'
        | each {|s|
            let n = $s.n | str replace ',' '.' | into float
            let p = $scale | get ($s.u | str downcase | str substring 0..0)
            [($n * (1000 ** $p)) ($n * (1024 ** $p))]
        } | flatten
        let rows = match ($r.data | describe | str replace --regex '<.*' '') {
            "filesize" => [$r.data]
            "record" => [$r.data]
            "list" | "table" => (if ($r.data | length) <= 2 { $r.data } else { [] })
            _ => []
        }
        let returned = $rows | each {|row|
            if ($row | describe) == "filesize" { [$row] } else if ($row | describe | str starts-with "record") {
                $row | values | where {|v| ($v | describe) == "filesize" }
            } else { [] }
        } | flatten | each { into int }
        let near = $said ++ $returned | where {|b| ($b - $free | math abs) <= $free * 0.1 }
        if ($near | is-empty) {
            return {ok: false, reason: $"the answer does not give the free space, about ($free | into filesize): ($r.answer) \(data: ($r.data | to nuon)\)"}
        }
        true
    }
    script: [
        {nu: "let here = pwd; sys disks | where {|d| $here | str starts-with $d.mount } | sort-by {|d| $d.mount | str length } --reverse | first | select device mount free total", why: "the mount holding this directory"}
        {answer: "The filesystem holding this directory has the free space shown.", out: 0}
    ]
}
