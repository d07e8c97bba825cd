# The most frequent client IP of a web access log: 10.0.0.7 (9 requests);
# 10.0.0.70 shares its prefix and must not be merged with it.
{
    name: "logs-top-ip"
    request: "Which IP address made the most requests in access.log, and how many?"
    tags: [logs count group]
    kind: answer
    setup: {||
        let ips = [
            ...(1..9 | each { "10.0.0.7" })
            ...(1..7 | each { "192.168.1.20" })
            ...(1..5 | each { "172.16.0.4" })
            ...(1..4 | each { "10.0.0.70" })
        ]
        let paths = ["/" "/index.html" "/api/items" "/api/cart" "/login" "/static/app.js"]
        $ips | enumerate | sort-by {|x| ($x.index * 11) mod 25 } | enumerate | each {|x|
            let minute = $x.index * 2 | fill -a right -c '0' -w 2
            let path = $paths | get ($x.index mod 6)
            let status = if ($x.index mod 7) == 3 { 404 } else { 200 }
            $'($x.item.item) - - [06/May/2024:14:($minute):05 +0000] "GET ($path) HTTP/1.1" ($status) (500 + $x.index * 13)'
        } | str join "\n" | save access.log
    }
    check: {|r|
        let text = $r.answer | default ""
        if not ($text =~ '10\.0\.0\.7\b(?!0)') {
            return {ok: false, reason: $"the answer does not name 10.0.0.7: ($text)"}
        }
        if not ($text =~ '\b9\b') {
            return {ok: false, reason: $"the answer does not give 9 requests: ($text)"}
        }
        true
    }
    script: [
        {nu: "open access.log | lines | parse '{ip} - - {rest}' | group-by ip --to-table | each {|g| {ip: $g.ip, requests: ($g.items | length)} } | sort-by requests --reverse | first 3", why: "requests per IP"}
        {answer: "10.0.0.7 made the most requests: 9."}
    ]
    wrong: [
        {nu: "open access.log | lines | length", why: "count"}
        {answer: "10.0.0.70 made the most requests (9)."}
    ]
}
