# Count the ERROR lines of an app log: 7 lines have the level ERROR; two
# other lines only mention "error" in their message and must not count.
{
    name: "logs-count-errors"
    request: "How many ERROR lines are there in app.log?"
    tags: [logs count]
    kind: answer
    setup: {||
        [
            "2024-05-06 08:00:01 INFO  server started on :8080"
            "2024-05-06 08:00:02 INFO  connected to database"
            "2024-05-06 08:03:17 ERROR payment gateway timeout (order 1182)"
            "2024-05-06 08:04:00 INFO  GET /api/items 200"
            "2024-05-06 08:05:12 WARN  slow query: 1.8s"
            "2024-05-06 08:07:45 ERROR null customer id in checkout"
            "2024-05-06 08:09:30 INFO  GET /api/cart 200"
            "2024-05-06 08:10:02 INFO  error budget at 82% (no action)"
            "2024-05-06 08:12:44 ERROR payment gateway timeout (order 1190)"
            "2024-05-06 08:15:00 INFO  cache refreshed"
            "2024-05-06 08:16:21 WARN  retried after transient error"
            "2024-05-06 08:18:09 ERROR could not send email to user 77"
            "2024-05-06 08:20:00 INFO  GET /api/items 200"
            "2024-05-06 08:22:31 ERROR disk usage above 95% on /var"
            "2024-05-06 08:25:10 INFO  POST /api/orders 201"
            "2024-05-06 08:27:55 ERROR payment gateway timeout (order 1203)"
            "2024-05-06 08:30:00 INFO  health check ok"
            "2024-05-06 08:31:40 ERROR worker 3 crashed, restarting"
            "2024-05-06 08:33:03 INFO  worker 3 back up"
            "2024-05-06 08:35:00 INFO  GET /api/cart 200"
        ] | str join "\n" | save app.log
    }
    check: {|r|
        let text = $r.answer | default ""
        if not ($text =~ '\b7\b') {
            return {ok: false, reason: $"the answer does not give 7 ERROR lines: ($text)"}
        }
        if ($text =~ '\b9\b') {
            return {ok: false, reason: $"the answer also counts lines that only mention an error: ($text)"}
        }
        true
    }
    script: [
        {nu: "open app.log | lines | parse '{date} {time} {level} {msg}' | where level == ERROR | length", why: "lines whose level is ERROR"}
        {answer: "app.log has 7 ERROR lines."}
    ]
    wrong: [
        {nu: "open app.log | lines | find --ignore-case error | length", why: "any line with error"}
        {answer: "There are 9 ERROR lines in app.log."}
    ]
}
