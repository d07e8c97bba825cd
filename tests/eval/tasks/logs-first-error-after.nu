# The first error after a given time in a logfmt log: after 12:00 it is
# the 12:07:33 "TLS certificate expired" error, not an earlier one (nor
# the warnings between).
{
    name: "logs-first-error-after"
    request: "What is the first error in server.log after 12:00 (noon)? Tell me when it happened and what it says."
    tags: [logs time]
    kind: answer
    setup: {||
        [
            [ts level msg service];
            ["2024-05-06T10:15:02Z" info "server started" api]
            ["2024-05-06T10:47:19Z" error "upstream connection refused" api]
            ["2024-05-06T11:20:00Z" info "cache warmed" cache]
            ["2024-05-06T11:59:58Z" error "job queue full" worker]
            ["2024-05-06T12:00:41Z" warn "slow response 2.3s" api]
            ["2024-05-06T12:04:10Z" info "user login" auth]
            ["2024-05-06T12:05:55Z" warn "retrying after error" worker]
            ["2024-05-06T12:07:33Z" error "TLS certificate expired" gateway]
            ["2024-05-06T12:30:12Z" error "disk full on /data" storage]
            ["2024-05-06T13:02:00Z" info "backup finished" storage]
            ["2024-05-06T13:45:27Z" error "upstream connection refused" api]
        ] | each {|e| $'ts=($e.ts) level=($e.level) msg="($e.msg)" service=($e.service)' } | str join "\n" | save server.log
    }
    check: {|r|
        let text = $r.answer | default "" | str downcase
        if not ($text =~ 'certificate') {
            return {ok: false, reason: $"the answer does not name the TLS certificate error: ($r.answer)"}
        }
        if not ($text =~ '12:07') {
            return {ok: false, reason: $"the answer does not give the time 12:07: ($r.answer)"}
        }
        true
    }
    script: [
        {nu: "open server.log | lines | parse 'ts={ts} level={level} msg=\"{msg}\" service={service}' | where level == error and ts > '2024-05-06T12:00' | first", why: "errors after noon, the first one"}
        {answer: "The first error after noon is at 12:07:33 (2024-05-06T12:07:33Z) from the gateway: \"TLS certificate expired\"."}
    ]
    wrong: [
        {nu: "open server.log | lines | where ($it | str contains 'level=error') | first", why: "first error"}
        {answer: "The first error is at 10:47:19: upstream connection refused."}
    ]
}
