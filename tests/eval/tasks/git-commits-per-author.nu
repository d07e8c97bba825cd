# A git history question answered with data: the commits of every author,
# counted over the whole history (not only the newest commits).
{
    name: "git-commits-per-author"
    request: "How many commits has each author made in this repository? Give me a table of author and count."
    tags: [git data]
    kind: data
    setup: {||
        ^git init -q -b main
        let commits = [
            ["Ann Lee" "2024-04-01T09:00:00+00:00" "Start the project"]
            ["Ann Lee" "2024-04-02T09:00:00+00:00" "Add the parser"]
            ["Carlos Diaz" "2024-04-03T11:00:00+00:00" "Fix a typo"]
            ["Ann Lee" "2024-04-04T09:30:00+00:00" "Parse numbers"]
            ["Bea Novak" "2024-04-05T15:00:00+00:00" "Add CI"]
            ["Ann Lee" "2024-04-06T10:00:00+00:00" "Parse strings"]
            ["Carlos Diaz" "2024-04-07T12:00:00+00:00" "Update docs"]
            ["Carlos Diaz" "2024-04-08T12:30:00+00:00" "Release 0.1"]
        ]
        $commits | enumerate | each {|c|
            let name = $c.item.0
            let date = $c.item.1
            $"change ($c.index)\n" | save --append log.txt
            ^git add log.txt
            with-env {GIT_AUTHOR_DATE: $date, GIT_COMMITTER_DATE: $date} {
                ^git -c $"user.name=($name)" -c $"user.email=($name | str downcase | str replace ' ' '.')@example.com" commit -q -m $c.item.2
            }
        } | ignore
    }
    check: {|r|
        let expected = {"Ann Lee": 4, "Carlos Diaz": 3, "Bea Novak": 1}
        let rows = match ($r.data | describe | str replace --regex '<.*' '') {
            "record" => ($r.data | transpose author count)
            "list" | "table" => $r.data
            _ => { return {ok: false, reason: $"no table returned \(data: ($r.data | to nuon)\)"} }
        }
        let rows = $rows | each {|row| if ($row | describe | str starts-with "record") { $row | values } else { [$row] } }
        for author in ($expected | columns) {
            let first = $author | split words | first | str downcase
            let row = $rows | where {|vals| $vals | any {|v| ($v | describe) == "string" and ($v | str downcase | str contains $first) } }
            if ($row | length) != 1 {
                return {ok: false, reason: $"($row | length) rows name ($author): ($r.data | to nuon)"}
            }
            let want = $expected | get $author
            if not ($row.0 | any {|v| (($v | describe) == "int" and $v == $want) or (($v | describe) == "string" and ($v | str trim) == ($want | into string)) }) {
                return {ok: false, reason: $"($author) does not have ($want) commits: ($row.0 | to nuon)"}
            }
        }
        true
    }
    script: [
        {nu: "^git log --format=%an | lines | uniq --count | rename author commits | sort-by commits --reverse", why: "count the commits per author"}
        {answer: "Ann Lee made 4 commits, Carlos Diaz 3 and Bea Novak 1.", out: 0}
    ]
    wrong: [
        {nu: "^git log -5 --format=%an | lines | uniq --count | rename author commits", why: "recent commits per author"}
        {answer: "Commits per author:", out: 0}
    ]
}
