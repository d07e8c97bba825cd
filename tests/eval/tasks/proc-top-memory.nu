# A process question on the live system: the process using the most
# memory. The check takes the top 3 by memory when it runs (the list
# moves a little between the answer and the check) and wants one of their
# PIDs in the answer or in the first row returned.
{
    name: "proc-top-memory"
    request: "Which process is using the most memory right now? Tell me its name and PID."
    tags: [processes memory]
    kind: answer
    check: {|r|
        let top = ps | sort-by mem --reverse | first 3
        let first_row = match ($r.data | describe | str replace --regex '<.*' '') {
            "record" => $r.data
            "list" | "table" => ($r.data | get -o 0)
            _ => null
        }
        let row_pid = if ($first_row | describe | str starts-with "record") { $first_row | get -o pid | default "" } else { "" }
        let numbers = $"($r.answer | default '') ($row_pid)" | parse --regex '(?<n>\d+)' | get n | each { into int }
        if ($top | where pid in $numbers | is-empty) {
            let names = $top | each {|p| $"($p.name) \(($p.pid)\)" } | str join ', '
            return {ok: false, reason: $"the answer names none of the top processes by memory, ($names): ($r.answer)"}
        }
        true
    }
    script: [
        {nu: "ps | sort-by mem --reverse | first 5 | select pid name mem", why: "processes by memory, largest first"}
        {answer: "The first row is the process using the most memory (its name, PID and memory).", out: 0}
    ]
    wrong: [
        {nu: "ps | sort-by mem | first 5 | select pid name mem", why: "processes by memory"}
        {answer: "These processes use the most memory; the first one leads.", out: 0}
    ]
}
