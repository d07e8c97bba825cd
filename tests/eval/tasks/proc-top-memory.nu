# A process question on the live system: the process using the most
# memory. The setup starts eval-memhog (perl holding 1.5 GB) so that there
# is a clear answer. But the machine is not the task's own: another process
# can hold more (a loaded model of a few GB, this eval's own process when it
# runs the model in-process), and then that process is the right answer.
# So the check measures, before it stops the hog, which process really is
# top by memory, and accepts the PID of either: the hog (the answer the
# fixture set up, had memory shifted since the agent looked) or the real
# top one. The answer (or the first row returned) must give that PID.
{
    name: "proc-top-memory"
    request: "Which process is using the most memory right now? Tell me its name and PID."
    tags: [processes memory]
    kind: answer
    setup: {||
        let bin = $env.HOME | path dirname | path join state eval-memhog
        ^ln -s (which -a perl | where type == external | get 0.path) $bin
        job spawn { try { ^$bin -e '$x = "x" x 1_500_000_000; sleep 300' } }
        mut tries = 0
        while (ps | where name == "eval-memhog" and ppid == $nu.pid and mem > 1gb | is-empty) and $tries < 100 {
            sleep 100ms
            $tries += 1
        }
    }
    check: {|r|
        let top = ps | sort-by mem --reverse | first
        let hog = ps | where name == "eval-memhog" and ppid == $nu.pid
        $hog | each {|p| kill $p.pid } | ignore
        if ($hog | is-empty) { return {ok: false, reason: "eval-memhog was not running"} }
        let accepted = [$hog.0.pid $top.pid] | uniq
        let first_row = match ($r.data | describe | str replace --regex '<.*' '') {
            "record" => $r.data
            "list" | "table" => ($r.data | get -o 0)
            _ => null
        }
        let row_pid = if ($first_row | describe | str starts-with "record") { $first_row | get -o pid | default "" } else { "" }
        let numbers = $"($r.answer | default '') ($row_pid)" | parse --regex '(?<n>\d+)' | get n | each { into int }
        if ($accepted | all {|pid| $pid not-in $numbers }) {
            let also = if $top.pid != $hog.0.pid { $" or the top process ($top.name)'s PID ($top.pid)" } else { "" }
            return {ok: false, reason: $"the answer does not give eval-memhog's PID ($hog.0.pid)($also): ($r.answer)"}
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
