# Records of a JSON array that match two conditions, returned as data:
# exactly the active accounts whose last login is before 2024 (rows may
# have any columns, as long as each names its user).
{
    name: "data-json-filter-stale"
    request: "In accounts.json, which active accounts have not logged in since before 2024-01-01? Return them as a table."
    tags: [data json filter]
    kind: data
    setup: {||
        [
            {user: "amara" active: true last_login: "2024-03-02T09:15:00Z" plan: "pro"}
            {user: "bjorn" active: true last_login: "2023-11-20T17:40:00Z" plan: "free"}
            {user: "chen" active: false last_login: "2022-06-01T08:00:00Z" plan: "free"}
            {user: "dalia" active: true last_login: "2023-02-14T12:00:00Z" plan: "team"}
            {user: "emeka" active: true last_login: "2024-01-01T00:05:00Z" plan: "pro"}
            {user: "farah" active: false last_login: "2023-12-31T23:00:00Z" plan: "team"}
            {user: "goran" active: true last_login: "2021-09-09T10:10:00Z" plan: "free"}
            {user: "hana" active: true last_login: "2024-07-19T06:30:00Z" plan: "free"}
        ] | to json | save accounts.json
    }
    check: {|r|
        let want = [bjorn dalia goran]
        let data = $r.data
        let kind = $data | describe | str replace -r '<.*' ''
        if $kind not-in ["table" "list"] {
            return {ok: false, reason: $"no table came back with the answer: ($data | to nuon)"}
        }
        # The user each row names (a row may also be just the name).
        let users = $data | each {|row|
            let values = if ($row | describe | str starts-with "record") { $row | values } else { [$row] }
            let names = $values | each {|v| $v | to nuon | str trim -c '"' } | where $it in [amara bjorn chen dalia emeka farah goran hana]
            $names | first 1
        } | flatten
        if ($users | length) != ($data | length) {
            return {ok: false, reason: $"some rows do not name a user: ($data | to nuon)"}
        }
        if ($users | sort) != $want {
            return {ok: false, reason: $"the rows are ($users | sort | str join ', '), expected ($want | str join ', ')"}
        }
        true
    }
    script: [
        {nu: "open accounts.json | where active and (($it.last_login | into datetime) < (2024-01-01 | into datetime))", why: "active accounts with an old login"}
        {answer: "3 active accounts have not logged in since before 2024: bjorn, dalia and goran.", out: 0}
    ]
    wrong: [
        {nu: "open accounts.json | where last_login < '2024'", why: "old logins"}
        {answer: "These accounts are stale.", out: 0}
    ]
}
