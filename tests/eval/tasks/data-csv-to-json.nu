# Convert a CSV file into a JSON file: users.json must parse as a list of
# the same records (values compared as text), and users.csv must stay.
{
    name: "data-csv-to-json"
    request: "Convert users.csv into a JSON file named users.json (a list of records, one per row)."
    tags: [data csv json convert files]
    kind: files
    approve: ["save *"]
    setup: {||
        [
            [id name email role active];
            [1 "Ada Lovelace" "ada@example.com" admin true]
            [2 "Alan Turing" "alan@example.com" dev true]
            [3 "Grace Hopper" "grace@example.com" dev false]
            [4 "Linus Torvalds" "linus@example.com" ops true]
            [5 "Barbara Liskov" "barbara@example.com" dev true]
        ] | save users.csv
    }
    check: {|r|
        if not ("users.csv" | path exists) {
            return {ok: false, reason: "users.csv is gone"}
        }
        if not ("users.json" | path exists) {
            return {ok: false, reason: "there is no users.json"}
        }
        let got = try { open --raw users.json | from json } catch {|e|
            return {ok: false, reason: $"users.json is not valid JSON: ($e.msg)"}
        }
        let want = open --raw users.csv | from csv
        # Compare as text: "1" and 1, "true" and true are the same here.
        let text = {|rows| $rows | each {|row| $row | transpose k v | each {|c| $"($c.k)=($c.v | into string | str downcase)" } | sort | str join ";" } }
        if ($got | describe | str replace -r '<.*' '') not-in ["table" "list"] {
            return {ok: false, reason: $"users.json does not hold a list: ($got | to nuon | str substring 0..200)"}
        }
        if (do $text $got) != (do $text $want) {
            return {ok: false, reason: $"users.json differs from users.csv: ($got | to nuon | str substring 0..300)"}
        }
        true
    }
    script: [
        {nu: "open users.csv | first 2", why: "look at the columns"}
        {nu: "open users.csv | save users.json", why: "save as JSON (the extension picks the format)"}
        {nu: "open users.json | length", why: "check the rows"}
        {answer: "Wrote users.json with the 5 users from users.csv."}
    ]
    wrong: [
        {nu: "open users.csv | first | save users.json", why: "save it"}
        {answer: "Converted users.csv to users.json."}
    ]
}
