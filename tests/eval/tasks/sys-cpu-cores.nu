# A system fact: the number of CPU cores, checked against the machine the
# suite runs on (logical cores, or physical ones where they differ), in
# the answer or in the value returned.
{
    name: "sys-cpu-cores"
    request: "How many CPU cores does this machine have?"
    tags: [system cpu]
    kind: answer
    check: {|r|
        let logical = sys cpu | length
        let blocks = open --raw /proc/cpuinfo | split row "\n\n" | where {|b| ($b | str trim) != "" }
        let physical = $blocks | each {|b|
            let f = $b | lines | parse --regex '^(?<k>[^:]+?)\s*:\s*(?<v>.*)$'
            let core = $f | where k == "core id" | get -o 0.v | default ($f | where k == "processor" | get -o 0.v | default "")
            $"($f | where k == 'physical id' | get -o 0.v | default '0')/($core)"
        } | uniq | length
        let data = if ($r.data | describe) in ["int" "string"] { $r.data | into string } else { "" }
        let numbers = $"($r.answer | default '') ($data)" | parse --regex '(?<n>\d+)' | get n | each { into int }
        if ($numbers | where {|n| $n == $logical or $n == $physical } | is-empty) {
            return {ok: false, reason: $"the answer gives neither ($logical) \(logical\) nor ($physical) \(physical\) cores: ($r.answer) \(data: ($r.data | to nuon)\)"}
        }
        true
    }
    script: [
        {nu: "sys cpu | length", why: "one row per logical core"}
        {answer: "The value returned is the number of logical CPU cores of this machine.", out: 0}
    ]
    wrong: [
        {nu: "sys cpu | get brand | uniq | length", why: "count the CPUs"}
        {answer: "This machine has 1 CPU.", out: 0}
    ]
}
