# Long work suited to a background job: the model sends it to the
# background and answers from the job's result.
{
    name: "job-background-count"
    request: "Count the lines of every .log file here; it may take a while, so run it in the background."
    tags: [jobs logs]
    kind: job
    setup: {||
        1..3 | each {|n| 1..($n * 100) | each {|i| $"line ($i)"} | str join "\n" | save $"app($n).log" }
        | ignore
    }
    check: {|r|
        let job_steps = $r.events | where kind == "external"
        if ($job_steps | is-empty) {
            return {ok: false, reason: "no background job reported back"}
        }
        if not ($r.answer | default "" | str contains "600") {
            return {ok: false, reason: $"the answer does not give 600 lines: ($r.answer)"}
        }
        true
    }
    script: [
        {nu: "sleep 1sec; glob *.log | each {|f| open --raw $f | lines | length } | math sum", why: "count lines", background: true}
        {answer: "The .log files hold 600 lines in all."}
    ]
    wrong: [
        {nu: "glob *.log | length", why: "count files"}
        {answer: "There are 3 log files."}
    ]
}
