# A field deep in a JSON config: the answer must give the server's port,
# not the database's or the metrics' port.
{
    name: "data-json-config-port"
    request: "Which port does the web server listen on, according to config.json?"
    tags: [data json]
    kind: answer
    setup: {||
        {
            app: {name: "shop" env: "staging"}
            server: {host: "0.0.0.0" port: 8443 tls: true}
            database: {host: "db.internal" port: 5432 name: "shop"}
            metrics: {enabled: true port: 9100}
        } | to json | save config.json
    }
    check: {|r|
        let text = $r.answer | default ""
        if not ($text =~ '\b8443\b') {
            return {ok: false, reason: $"the answer does not give port 8443: ($text)"}
        }
        true
    }
    script: [
        {nu: "open config.json | get server", why: "the server section"}
        {answer: "The web server listens on port 8443 (host 0.0.0.0, TLS on)."}
    ]
    wrong: [
        {nu: "open config.json | get database.port", why: "a port"}
        {answer: "It listens on port 5432."}
    ]
}
