# Group a CSV by a column and return the table as data: one row per
# region with its total amount (any column names; a region -> total
# record is accepted too).
{
    name: "data-csv-group-total"
    request: "Give me the total order amount per region from orders.csv, as a table."
    tags: [data csv group]
    kind: data
    setup: {||
        [
            [id region customer amount];
            [1 north acme 120]
            [2 south globex 75]
            [3 east initech 300]
            [4 north umbrella 80]
            [5 west hooli 45]
            [6 south acme 125]
            [7 east globex 50]
            [8 north initech 200]
            [9 west umbrella 155]
            [10 east hooli 10]
        ] | save orders.csv
    }
    check: {|r|
        let want = {north: 400 south: 200 east: 360 west: 200}
        let data = $r.data
        let rows = match ($data | describe | str replace -r '<.*' '') {
            "record" => ($data | transpose key value)
            "table" | "list" => $data
            _ => { return {ok: false, reason: $"no table came back with the answer: ($data | to nuon)"} }
        }
        if ($rows | length) != 4 {
            return {ok: false, reason: $"expected 4 rows \(one per region), got ($rows | length): ($data | to nuon)"}
        }
        for region in ($want | columns) {
            let total = $want | get $region
            let hits = $rows | where {|row|
                let values = if ($row | describe | str starts-with "record") { $row | values } else { [$row] }
                let names = $values | where ($it | describe) == "string" | each { str downcase }
                let numbers = $values | where ($it | describe) in ["int" "float"]
                ($region in $names) and ($numbers | any {|n| $n == $total })
            }
            if ($hits | is-empty) {
                return {ok: false, reason: $"no row gives ($region) = ($total): ($data | to nuon)"}
            }
        }
        true
    }
    script: [
        {nu: "open orders.csv | group-by region --to-table | each {|g| {region: $g.region, total: ($g.items | get amount | math sum)} } | sort-by region", why: "sum the amount per region"}
        {answer: "Totals per region: east 360, north 400, south 200, west 200.", out: 0}
    ]
    wrong: [
        {nu: "open orders.csv | group-by region --to-table | each {|g| {region: $g.region, orders: ($g.items | length)} }", why: "orders per region"}
        {answer: "Here are the regions.", out: 0}
    ]
}
