# Average of a CSV column: the answer must give the mean price (12.5),
# not the sum or the count.
{
    name: "data-csv-average-price"
    request: "What is the average price of the products in products.csv?"
    tags: [data csv math]
    kind: answer
    setup: {||
        [
            [sku name price stock];
            [A-100 "desk lamp" 18.0 12]
            [A-101 "notebook" 4.5 200]
            [A-102 "stapler" 9.0 35]
            [A-103 "mug" 7.5 60]
            [A-104 "backpack" 31.0 8]
            [A-105 "pen set" 5.0 150]
        ] | save products.csv
    }
    check: {|r|
        let text = $r.answer | default ""
        if not ($text =~ '\b12\.50?\b') {
            return {ok: false, reason: $"the answer does not give the average 12.5: ($text)"}
        }
        true
    }
    script: [
        {nu: "open products.csv | get price | math avg", why: "mean of the price column"}
        {answer: "The average price is 12.5 (6 products)."}
    ]
    wrong: [
        {nu: "open products.csv | get price | math sum", why: "total"}
        {answer: "The average price is 75."}
    ]
}
