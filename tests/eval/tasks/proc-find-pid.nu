# A process question: the setup starts a program named eval-ticker (a
# `sleep` under another name); the answer (or the row it returns) must
# give its PID. The check stops it.
{
    name: "proc-find-pid"
    request: "Is a program called eval-ticker running on this machine? If so, what is its process ID?"
    tags: [processes]
    kind: answer
    setup: {||
        let bin = $env.HOME | path dirname | path join state eval-ticker
        ^ln -s (which -a sleep | where type == external | get 0.path) $bin
        job spawn { try { ^$bin 300 } }
        mut tries = 0
        while (ps | where name == "eval-ticker" and ppid == $nu.pid | is-empty) and $tries < 50 {
            sleep 100ms
            $tries += 1
        }
    }
    check: {|r|
        let ticker = ps | where name == "eval-ticker" and ppid == $nu.pid
        $ticker | each {|p| kill $p.pid } | ignore
        if ($ticker | is-empty) { return {ok: false, reason: "eval-ticker was not running"} }
        let pid = $ticker.0.pid | into string
        # The PID in the answer, or in the few rows it returned as data.
        let rows = match ($r.data | describe | str replace --regex '<.*' '') {
            "record" => [$r.data]
            "list" | "table" => $r.data
            _ => []
        }
        let shown = if ($rows | length) <= 3 { $rows | to nuon } else { "" }
        let numbers = $"($r.answer | default '') ($shown)" | parse --regex '(?<n>\d+)' | get n
        if not ($pid in $numbers) {
            return {ok: false, reason: $"neither the answer nor its data gives PID ($pid): ($r.answer)"}
        }
        true
    }
    script: [
        {nu: "ps | where name =~ 'eval-ticker' | select pid ppid name status mem", why: "find the process by name"}
        {answer: "Yes, eval-ticker is running; its PID is in the row returned.", out: 0}
    ]
    wrong: [
        {nu: "ps | where name == 'ticker'", why: "find the process"}
        {answer: "No, no process called eval-ticker is running."}
    ]
}
