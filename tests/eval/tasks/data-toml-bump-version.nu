# Change one value in a TOML file and save it: the file must still parse,
# hold the new version, and keep every other key as it was.
{
    name: "data-toml-bump-version"
    request: "Set the package version in app.toml to 1.3.0 and save the file."
    tags: [data toml edit files]
    kind: files
    approve: ["save *"]
    setup: {||
        {
            package: {name: "demo-app" version: "1.2.3" edition: "2021" authors: ["Ada <ada@example.com>"]}
            dependencies: {serde: "1.0" toml: "0.8"}
            features: {default: ["cli"] cli: []}
        } | to toml | save app.toml
    }
    check: {|r|
        let doc = try { open --raw app.toml | from toml } catch {|e|
            return {ok: false, reason: $"app.toml does not parse as TOML: ($e.msg)"}
        }
        let version = $doc | get -o package.version
        if $version != "1.3.0" {
            return {ok: false, reason: $"package.version is ($version | to nuon), not \"1.3.0\""}
        }
        let kept = [
            [path value];
            [package.name "demo-app"]
            [package.edition "2021"]
            [package.authors ["Ada <ada@example.com>"]]
            [dependencies.serde "1.0"]
            [dependencies.toml "0.8"]
            [features.default ["cli"]]
            [features.cli []]
        ]
        for k in $kept {
            let now = $doc | get -o ($k.path | split row "." | into cell-path)
            if $now != $k.value {
                return {ok: false, reason: $"($k.path) changed: ($now | to nuon)"}
            }
        }
        let keys = [($doc | columns | sort) ($doc.package | columns | sort)]
        if $keys != [[dependencies features package] [authors edition name version]] {
            return {ok: false, reason: $"the keys changed: ($doc | to nuon)"}
        }
        true
    }
    script: [
        {nu: "open app.toml | get package", why: "see the current version"}
        {nu: "open app.toml | update package.version '1.3.0' | save --force app.toml", why: "write the new version"}
        {nu: "open app.toml | get package.version", why: "check it"}
        {answer: "app.toml now has version 1.3.0; nothing else changed."}
    ]
    wrong: [
        {nu: "open app.toml | upsert version '1.3.0' | save --force app.toml", why: "set the version"}
        {answer: "The version is now 1.3.0."}
    ]
}
