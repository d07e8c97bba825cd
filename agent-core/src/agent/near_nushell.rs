//! Pipelines that are almost Nushell, made Nushell where the fix is exact:
//! - durations in other languages' units (`30days`, `24h`, `5minutes`) in
//!   Nushell's (`30day`, `24hr`, `5min`): Nushell reads `30days` as a
//!   string, so `(date now) - 30days` does not parse;
//! - a closure of `each`, `where`, `filter`… that uses `$it` without naming
//!   its parameter (`each { mkdir $it }`): `$it` is the element, so it is
//!   named (`each {|it| mkdir $it }`);
//! - columns listed with commas, as in SQL or Python (`select city, temp`,
//!   `get region, total`): Nushell separates arguments with spaces and
//!   reads `city,` as a column named `city,`, so the commas go (and `get`
//!   of several columns is `select`);
//! - text made a date by calling `date` on it (`date '2024-01-01'`), which
//!   is `('2024-01-01' | into datetime)`;
//! - `split ' '` without its subcommand, which is `split row ' '`;
//! - a record field whose value joins values with operators (`{c: ($r.f -
//!   32) * 5 / 9}`), which Nushell reads as the next key: the value is
//!   put in parentheses (`{c: (($r.f - 32) * 5 / 9)}`);
//! - Python's string methods on a value (`$f.name.split('.')[-1]`,
//!   `$in.name.replace('a', 'b')`): `($f.name | split row '.' | last)`;
//! - `map { … }` (JavaScript's and Python's name), which is `each { … }`;
//! - `rename $f.name new` in a closure over files: Nushell's `rename`
//!   renames columns; a file is renamed with `mv`; so are the files of a
//!   listing given to `rename 'a' 'b'` (`each {|f| mv $f.name ($f.name |
//!   str replace 'a' 'b') }`), and the rename program's call with nothing
//!   piped in (`rename '.a' '.b' *.a`, or the glob first);
//! - a file size compared with a bare number (`where size > 1000`): the
//!   number is bytes (`1000b`); Nushell cannot compare the two and, in a
//!   stream, counts the error values as rows (`| length` gives them all);
//! - an aggregate written as a function of a column, as in SQL or pandas
//!   (`math sum(total)`, `math avg price`): `get total | math sum`, and
//!   right after `group-by region` the same per group (`math sum total`
//!   parses, and gives back its input unchanged);
//! - a last `| table`, which turns the data into drawn text;
//! - a row of `ls` or `ps` matched as text (`where $it =~ '.log'`), which
//!   is its name (`where name =~ '.log'`);
//! - an aggregate of a whole `ls` listing (`ls | math sum`), which is of
//!   its `size`; `lines` of a listing (`ls *.log | lines | …`), which are
//!   each listed file's lines (`insert count {|f| open --raw $f.name | …}`);
//! - a listed file's size made from its contents (`size: (open $f.name |
//!   length)`), which is its `size` column (`size: $f.size`);
//! - folders kept by their `size` from an `ls` without `--du` (the size of
//!   a folder's entry, never of what it holds);
//! - a pipeline handed to a new `nu` (`nu -c 'ls | length'`): the tool runs
//!   Nushell already, so the pipeline runs as itself, here, under the same
//!   policy (a new `nu` would be a program the policy cannot see into).
//!
//! Nothing here decides what may run: the fixed pipeline is judged by the
//! policy as any other. Each fix is a rule of `rules::translation`, which
//! names it, says what it serves and applies it in order.

/// The pipeline of `nu -c '<pipeline>'` (or `^nu --commands "…"`), the
/// whole step: one quoted string with no quote or escape of its kind
/// inside. `None` for anything else.
pub fn without_nu_command(pipeline: &str) -> Option<String> {
    let text = pipeline.trim();
    let rest = text.strip_prefix('^').unwrap_or(text).strip_prefix("nu")?;
    let rest = rest.trim_start();
    let rest = ["-c", "--commands"]
        .iter()
        .find_map(|flag| rest.strip_prefix(flag)?.strip_prefix(char::is_whitespace))?
        .trim();
    let quote = rest.chars().next().filter(|c| matches!(c, '\'' | '"'))?;
    let inner = rest.strip_prefix(quote)?.strip_suffix(quote)?;
    let escaped = quote == '"' && inner.contains('\\');
    let plain = !(inner.contains(quote) || escaped);
    (plain && !inner.trim().is_empty()).then(|| inner.trim().to_string())
}

/// The columns that hold file sizes in the tables of `ls`, `du` and `ps`.
const SIZE_COLUMNS: &[&str] = &["size", "apparent", "physical", "mem", "virtual"];

/// `pipeline` with each bare whole number compared with a size column
/// (`size > 1000`, `$f.size == 0`) written in bytes (`1000b`), and the
/// first such number; `None` when there is none.
pub fn sizes_in_bytes(pipeline: &str) -> Option<(String, String)> {
    static COMPARED: std::sync::LazyLock<Option<regex::Regex>> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"(?:^|[\s(])(?:\$[A-Za-z_][\w-]*\.)?(\w+)\s*(?:==|!=|<=|>=|<|>)\s*(\d+)")
            .ok()
    });
    let regex = COMPARED.as_ref()?;
    let chars: Vec<char> = pipeline.chars().collect();
    let code = outside_strings(&chars);
    // Whether the character at byte offset `at` is code.
    let is_code = |at: usize| code.get(pipeline[..at].chars().count()) == Some(&true);
    let mut out = String::with_capacity(pipeline.len() + 2);
    let mut last = 0;
    let mut first = None;
    for found in regex.captures_iter(pipeline) {
        let (Some(column), Some(number)) = (found.get(1), found.get(2)) else {
            continue;
        };
        let unit_follows = pipeline[number.end()..]
            .starts_with(|c: char| c.is_alphanumeric() || c == '.' || c == '_');
        if !SIZE_COLUMNS.contains(&column.as_str()) || unit_follows || !is_code(number.start()) {
            continue;
        }
        out.push_str(&pipeline[last..number.end()]);
        out.push('b');
        last = number.end();
        first.get_or_insert_with(|| number.as_str().to_string());
    }
    let first = first?;
    out.push_str(&pipeline[last..]);
    Some((out, first))
}

/// Units other languages use, with Nushell's name for each. Months and
/// years have no exact Nushell duration and are left alone.
const UNITS: &[(&str, &str)] = &[
    ("days", "day"),
    ("d", "day"),
    ("hours", "hr"),
    ("hour", "hr"),
    ("hrs", "hr"),
    ("h", "hr"),
    ("minutes", "min"),
    ("minute", "min"),
    ("mins", "min"),
    ("seconds", "sec"),
    ("second", "sec"),
    ("secs", "sec"),
    ("s", "sec"),
    ("weeks", "wk"),
    ("week", "wk"),
    ("wks", "wk"),
    ("w", "wk"),
];

/// `pipeline` with each duration outside strings written in Nushell's
/// units, and the words changed (`30days` → `30day`); `None` when there
/// is none.
pub fn in_nushell_units(pipeline: &str) -> Option<(String, Vec<(String, String)>)> {
    let chars: Vec<char> = pipeline.chars().collect();
    let code = outside_strings(&chars);
    let mut out = String::with_capacity(pipeline.len());
    let mut changed = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let starts_word = i == 0 || !is_word_char(chars[i - 1]);
        if code[i] && chars[i].is_ascii_digit() && starts_word {
            let number_end = number_end(&chars, i);
            let word_end = (number_end..chars.len())
                .find(|&j| !is_word_char(chars[j]))
                .unwrap_or(chars.len());
            let number: String = chars[i..number_end].iter().collect();
            let unit: String = chars[number_end..word_end].iter().collect();
            match UNITS.iter().find(|(other, _)| *other == unit) {
                Some((_, nu_unit)) => {
                    changed.push((format!("{number}{unit}"), format!("{number}{nu_unit}")));
                    out.push_str(&number);
                    out.push_str(nu_unit);
                }
                None => out.extend(&chars[i..word_end]),
            }
            i = word_end;
            continue;
        }
        out.push(chars[i]);
        i += 1;
    }
    (!changed.is_empty()).then_some((out, changed))
}

/// Commands whose closure gets the element as its one parameter, so
/// `$it` in it means that parameter.
const ELEMENT_CLOSURES: &[&str] = &[
    "each", "par-each", "where", "filter", "any", "all", "while", "until",
];

/// `pipeline` with `|it|` named in each closure of an
/// [`ELEMENT_CLOSURES`] command that uses `$it` without a parameter list;
/// `None` when there is none.
pub fn with_named_it(pipeline: &str) -> Option<String> {
    let chars: Vec<char> = pipeline.chars().collect();
    let code = outside_strings(&chars);
    let mut insert_after = Vec::new();
    for open in (0..chars.len()).filter(|&i| code[i] && chars[i] == '{') {
        let before: String = chars[..open].iter().collect();
        let command = before.split_whitespace().next_back().unwrap_or_default();
        if !ELEMENT_CLOSURES.contains(&command) {
            continue;
        }
        let Some(close) = matching_brace(&chars, &code, open) else {
            continue;
        };
        let body: String = chars[open + 1..close].iter().collect();
        if body.trim_start().starts_with('|') {
            continue;
        }
        let uses_it = (open + 1..close).any(|i| {
            code[i]
                && chars[i..].starts_with(&['$', 'i', 't'])
                && chars.get(i + 3).is_none_or(|c| !is_name_char(*c))
        });
        if uses_it {
            // A record written as the closure (`each {name: $it.name}`)
            // is the closure's value: `each {|it| {name: $it.name} }`.
            insert_after.push((open, close, is_record_body(&body)));
        }
    }
    if insert_after.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(pipeline.len() + 7 * insert_after.len());
    for (i, c) in chars.iter().enumerate() {
        if insert_after
            .iter()
            .any(|&(_, close, record)| record && close == i)
        {
            out.push_str("} ");
        }
        out.push(*c);
        if let Some(&(_, _, record)) = insert_after.iter().find(|(open, ..)| *open == i) {
            out.push_str("|it|");
            if record {
                out.push_str(" {");
            } else if !chars.get(i + 1).is_some_and(|c| c.is_whitespace()) {
                out.push(' ');
            }
        }
    }
    Some(out)
}

/// Whether a closure's body is a record's fields (`name: $it.name, size:
/// 1`), which Nushell would run as a command named `name:`.
fn is_record_body(body: &str) -> bool {
    let body = body.trim_start();
    let key_end = body
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
        .unwrap_or(body.len());
    key_end > 0
        && body[key_end..].trim_start().starts_with(':')
        && !body[key_end..].trim_start().starts_with("::")
}

/// Operators that join two values into one expression.
const BINARY_OPERATORS: &[&str] = &[
    "+",
    "-",
    "*",
    "/",
    "//",
    "mod",
    "**",
    "++",
    "==",
    "!=",
    "<",
    "<=",
    ">",
    ">=",
    "=~",
    "!~",
    "and",
    "or",
    "in",
    "not-in",
    "starts-with",
    "ends-with",
];

/// `pipeline` with each record field whose value is an expression of
/// operators written in parentheses (`{c: ($it.f - 32) * 5 / 9}` →
/// `{c: (($it.f - 32) * 5 / 9)}`): a field's value is one expression, and
/// Nushell reads the operator as the next key ("Expected `:` after record
/// key"). `None` when there is none.
pub fn record_values_in_parens(pipeline: &str) -> Option<String> {
    let chars: Vec<char> = pipeline.chars().collect();
    let code = outside_strings(&chars);
    let mut wrapped: Vec<(usize, usize, String)> = Vec::new();
    for open in (0..chars.len()).filter(|&i| code[i] && chars[i] == '{') {
        let Some(close) = matching_brace(&chars, &code, open) else {
            continue;
        };
        let body: String = chars[open + 1..close].iter().collect();
        if !is_record_body(&body) {
            continue;
        }
        for (start, end) in record_fields(&chars, &code, open + 1, close) {
            let Some(colon) = (start..end).find(|&i| code[i] && chars[i] == ':') else {
                continue;
            };
            let Some(value_start) = (colon + 1..end).find(|&i| !chars[i].is_whitespace()) else {
                continue;
            };
            let value_end = (value_start..end)
                .rev()
                .find(|&i| !chars[i].is_whitespace())
                .map_or(value_start, |i| i + 1);
            let overlaps = wrapped
                .iter()
                .any(|&(s, e, _)| value_start < e && s < value_end);
            if !overlaps && joins_values(&chars, &code, value_start, value_end) {
                let value: String = chars[value_start..value_end].iter().collect();
                wrapped.push((value_start, value_end, format!("({value})")));
            }
        }
    }
    wrapped.sort_by_key(|&(start, ..)| start);
    splice(&chars, &wrapped)
}

/// The `(start, end)` of each field of the record whose body is
/// `chars[start..end]`: split at a `,` or a line break outside brackets.
fn record_fields(chars: &[char], code: &[bool], start: usize, end: usize) -> Vec<(usize, usize)> {
    let mut fields = Vec::new();
    let mut depth = 0usize;
    let mut field_start = start;
    for i in start..end {
        if !code[i] {
            continue;
        }
        match chars[i] {
            '{' | '(' | '[' => depth += 1,
            '}' | ')' | ']' => depth = depth.saturating_sub(1),
            ',' | '\n' if depth == 0 => {
                fields.push((field_start, i));
                field_start = i + 1;
            }
            _ => {}
        }
    }
    fields.push((field_start, end));
    fields
}

/// Whether `chars[start..end]` holds a [`BINARY_OPERATORS`] word outside
/// brackets and strings: two values joined, not one.
fn joins_values(chars: &[char], code: &[bool], start: usize, end: usize) -> bool {
    let is_operator = |word: &str| BINARY_OPERATORS.contains(&word);
    let mut depth = 0usize;
    let mut word = String::new();
    for (&c, &is_code) in chars[start..end].iter().zip(&code[start..end]) {
        if is_code && c.is_whitespace() {
            if depth == 0 && is_operator(&word) {
                return true;
            }
            word.clear();
            continue;
        }
        if is_code {
            match c {
                '{' | '(' | '[' => depth += 1,
                '}' | ')' | ']' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        word.push(c);
    }
    is_operator(&word)
}

/// Commands whose arguments are column names.
const COLUMN_COMMANDS: &[&str] = &["select", "get", "reject", "sort-by", "group-by", "uniq-by"];

/// `pipeline` without the commas between the columns of a
/// [`COLUMN_COMMANDS`] command (`select a, b` → `select a b`); `get` of
/// more than one column becomes `select`. `None` when there is none.
pub fn without_list_commas(pipeline: &str) -> Option<String> {
    let chars: Vec<char> = pipeline.chars().collect();
    let code = outside_strings(&chars);
    let mut drop = vec![false; chars.len()];
    let mut to_select = Vec::new();
    for (start, end) in command_words(&chars, &code) {
        let name: String = chars[start..end].iter().collect();
        if !COLUMN_COMMANDS.contains(&name.as_str()) {
            continue;
        }
        let args_end = arguments_end(&chars, &code, end);
        let commas: Vec<usize> = (end..args_end)
            .filter(|&i| code[i] && chars[i] == ',')
            .collect();
        if commas.is_empty() {
            continue;
        }
        // A comma inside brackets is a list's or record's, not the model's.
        if (end..args_end).any(|i| code[i] && matches!(chars[i], '[' | '{' | '(')) {
            continue;
        }
        for &i in &commas {
            drop[i] = true;
        }
        if name == "get" {
            to_select.push(start);
        }
    }
    if !drop.contains(&true) {
        return None;
    }
    let mut out = String::with_capacity(pipeline.len() + 3);
    let mut i = 0;
    while i < chars.len() {
        if to_select.contains(&i) {
            out.push_str("select");
            i += 3;
            continue;
        }
        if drop[i] {
            // `a, b` → `a b`; `a,b` → `a b`.
            if !chars.get(i + 1).is_some_and(|c| c.is_whitespace()) {
                out.push(' ');
            }
        } else {
            out.push(chars[i]);
        }
        i += 1;
    }
    Some(out)
}

/// `pipeline` with `date 'text'` written `('text' | into datetime)`;
/// `None` when there is none.
pub fn date_of_text(pipeline: &str) -> Option<String> {
    let chars: Vec<char> = pipeline.chars().collect();
    let code = outside_strings(&chars);
    let mut replaced: Vec<(usize, usize, String)> = Vec::new();
    for (start, end) in command_words(&chars, &code) {
        let name: String = chars[start..end].iter().collect();
        if name != "date" {
            continue;
        }
        // GNU date's `-d`/`--date` before the text (`date -d '2023-01-01'`).
        let word_at = (end..chars.len()).find(|&i| !chars[i].is_whitespace());
        let text_from = word_at
            .and_then(|at| {
                ["-d", "--date"].iter().find_map(|flag| {
                    let flag_end = at + flag.chars().count();
                    let is_flag = chars[at..]
                        .iter()
                        .take(flag.len())
                        .copied()
                        .eq(flag.chars())
                        && chars.get(flag_end).is_some_and(|c| c.is_whitespace());
                    is_flag.then_some(flag_end)
                })
            })
            .unwrap_or(end);
        let Some((quote_start, quote_end)) = quoted_argument(&chars, &code, text_from) else {
            continue;
        };
        // Nothing else may follow the text in the same command.
        let rest = (quote_end..chars.len())
            .find(|&i| !chars[i].is_whitespace())
            .map(|i| chars[i]);
        if !matches!(rest, None | Some('|' | ')' | ';' | '}')) {
            continue;
        }
        let text: String = chars[quote_start..quote_end].iter().collect();
        replaced.push((start, quote_end, format!("({text} | into datetime)")));
    }
    splice(&chars, &replaced)
}

/// `pipeline` with `--no-highlight` after each `find` that has none and
/// filters what is piped into it for another command (its colour codes
/// are in the values the next one reads: `ps | find x | where name ==
/// 'x'` finds nothing); `None` when there is none. A `find` that starts
/// the pipeline is bash's (`find . -type f | wc -l`), left as it is.
pub fn find_without_highlight(pipeline: &str) -> Option<String> {
    let chars: Vec<char> = pipeline.chars().collect();
    let code = outside_strings(&chars);
    let mut replaced: Vec<(usize, usize, String)> = Vec::new();
    for (start, end) in command_words(&chars, &code) {
        if chars[start..end].iter().collect::<String>() != "find" {
            continue;
        }
        let piped_in = (0..start)
            .rev()
            .find(|&i| !chars[i].is_whitespace())
            .is_some_and(|i| code[i] && chars[i] == '|');
        let element_end = arguments_end(&chars, &code, end);
        let piped_on = chars.get(element_end) == Some(&'|');
        if !(piped_in && piped_on) {
            continue;
        }
        let args: String = chars[end..element_end].iter().collect();
        let has_flag = args.split_whitespace().any(|word| {
            word == "--no-highlight"
                || (word.starts_with('-') && !word.starts_with("--") && word.contains('n'))
        });
        if !has_flag {
            replaced.push((end, end, " --no-highlight".to_string()));
        }
    }
    splice(&chars, &replaced)
}

/// `pipeline` with `--date=iso-strict` after each `git log` whose format
/// shows a date in git's default form (`%ad`, `%cd`: "Fri Mar 1 09:00:00
/// 2024", which sorts by weekday as text) and names no `--date`; `None`
/// when there is none.
pub fn git_dates_that_sort(pipeline: &str) -> Option<String> {
    let chars: Vec<char> = pipeline.chars().collect();
    let code = outside_strings(&chars);
    let mut replaced: Vec<(usize, usize, String)> = Vec::new();
    for (start, end) in command_words(&chars, &code) {
        let name: String = chars[start..end].iter().collect();
        if name.trim_start_matches('^') != "git" {
            continue;
        }
        let Some(sub_start) = (end..chars.len()).find(|&i| !chars[i].is_whitespace()) else {
            continue;
        };
        let sub_end = (sub_start..chars.len())
            .find(|&i| !code[i] || !is_word_char(chars[i]))
            .unwrap_or(chars.len());
        if chars[sub_start..sub_end].iter().collect::<String>() != "log" {
            continue;
        }
        let element_end = arguments_end(&chars, &code, sub_end);
        let element: String = chars[sub_end..element_end].iter().collect();
        let default_dates = element.contains("%ad") || element.contains("%cd");
        if default_dates && !element.contains("--date") {
            replaced.push((sub_end, sub_end, " --date=iso-strict".to_string()));
        }
    }
    splice(&chars, &replaced)
}

/// `pipeline` with `split 'x'` written `split row 'x'`; `None` when there
/// is none.
pub fn split_row(pipeline: &str) -> Option<String> {
    let chars: Vec<char> = pipeline.chars().collect();
    let code = outside_strings(&chars);
    let mut replaced: Vec<(usize, usize, String)> = Vec::new();
    for (start, end) in command_words(&chars, &code) {
        let name: String = chars[start..end].iter().collect();
        if name == "split" && quoted_argument(&chars, &code, end).is_some() {
            replaced.push((start, end, "split row".to_string()));
        }
    }
    splice(&chars, &replaced)
}

/// Other languages' names of `each` (JavaScript's and Python's `map`,
/// PowerShell's `foreach`).
const NAMES_OF_EACH: &[&str] = &["map", "foreach", "forEach"];

/// `pipeline` with `map { … }` (a closure run for each element, as in
/// JavaScript or Python) written `each { … }`; `None` when there is none.
pub fn map_as_each(pipeline: &str) -> Option<String> {
    let chars: Vec<char> = pipeline.chars().collect();
    let code = outside_strings(&chars);
    let mut replaced: Vec<(usize, usize, String)> = Vec::new();
    for (start, end) in command_words(&chars, &code) {
        let name: String = chars[start..end].iter().collect();
        let closure_next = chars[end..]
            .iter()
            .find(|c| !c.is_whitespace())
            .is_some_and(|&c| c == '{');
        if NAMES_OF_EACH.contains(&name.as_str()) && closure_next {
            replaced.push((start, end, "each".to_string()));
        }
    }
    splice(&chars, &replaced)
}

/// `pipeline` with `rename $x.name …` (a file's name as the column to
/// rename) inside a closure written `mv $x.name …`; `None` when there is
/// none.
pub fn files_renamed_with_mv(pipeline: &str) -> Option<String> {
    let chars: Vec<char> = pipeline.chars().collect();
    let code = outside_strings(&chars);
    let mut replaced = Vec::new();
    for (start, end) in command_words(&chars, &code) {
        let name: String = chars[start..end].iter().collect();
        if name != "rename" {
            continue;
        }
        let rest: String = chars[end..].iter().collect();
        let first = rest.split_whitespace().next().unwrap_or_default();
        let in_closure = chars[..start].iter().filter(|&&c| c == '{').count()
            > chars[..start].iter().filter(|&&c| c == '}').count();
        if in_closure && first.starts_with('$') && first.ends_with(".name") {
            // `rename $f.name to new` (SQL's `RENAME … TO`): `to` would be
            // a second path.
            let word_at = |from: usize| (from..chars.len()).find(|&i| !chars[i].is_whitespace());
            let word_end = |from: usize| {
                (from..chars.len())
                    .find(|&i| chars[i].is_whitespace())
                    .unwrap_or(chars.len())
            };
            let after_first = word_at(end).map(word_end);
            let to = after_first.and_then(word_at).filter(|&at| {
                chars[at..word_end(at)].iter().collect::<String>() == "to"
                    && word_end(at) < chars.len()
            });
            match (after_first, to) {
                (Some(first_end), Some(to)) if code[to] => {
                    let first: String = chars[end..first_end].iter().collect();
                    replaced.push((start, word_end(to), format!("mv{first}")));
                }
                _ => replaced.push((start, end, "mv".to_string())),
            }
        }
    }
    splice(&chars, &replaced)
}

/// `pipeline` with the files of a listing renamed by a text in their
/// names (`ls *.jpeg | rename 'jpeg' 'jpg'`, which renames the listing's
/// columns): `ls *.jpeg | each {|f| mv $f.name ($f.name | str replace
/// 'jpeg' 'jpg') }`. Only literal texts, after a listing and filters that
/// keep its rows; `None` for anything else.
pub fn listing_renamed_with_mv(pipeline: &str) -> Option<String> {
    let mut elements = elements_after(pipeline, &["ls"])?;
    let at = elements
        .iter()
        .position(|element| element.split_whitespace().next() == Some("rename"))?;
    if !elements[1..at].iter().all(|element| keeps_rows(element)) {
        return None;
    }
    let [_, from, to] = elements[at].split_whitespace().collect::<Vec<_>>()[..] else {
        return None;
    };
    if !is_literal_text(from) || !is_literal_text(to) {
        return None;
    }
    elements[at] = renamed_with_mv(from, to);
    Some(elements.join(" | "))
}

/// `pipeline` whose first element opens a program as a file (`open ^ss
/// -tln`, `open --raw ^ps`): the program run, `^ss -tln`. `None` for
/// anything else.
pub fn program_opened_as_file(pipeline: &str) -> Option<String> {
    let mut elements: Vec<String> = top_level_elements(pipeline)
        .iter()
        .map(|element| element.trim().to_string())
        .collect();
    let mut words = elements.first()?.split_whitespace();
    if words.next() != Some("open") {
        return None;
    }
    let rest: Vec<&str> = words.skip_while(|word| word.starts_with('-')).collect();
    let program = rest.first().filter(|word| {
        word.len() > 1 && word.starts_with('^') && !word.contains(['(', '$', '\'', '"'])
    })?;
    elements[0] = std::iter::once(*program)
        .chain(rest[1..].iter().copied())
        .collect::<Vec<_>>()
        .join(" ");
    Some(elements.join(" | "))
}

/// `pipeline` with the files of a listing given to a remove or move that
/// takes no input (`ls *.tmp | rm`, `… | remove`, `… | delete`; `… | mv
/// old/`, `… | move old/`): each file removed or moved, `ls *.tmp | each
/// { rm $in.name }`, `each { mv $in.name old/ }`. Only right after a
/// listing and filters that keep its rows, with no path given to the
/// remove and one to the move; `rm`'s `-r`/`-f` stay. `None` for anything
/// else.
#[cfg(test)]
fn listing_removed_or_moved_with_each(pipeline: &str) -> Option<String> {
    listing_removed_with_each(pipeline).or_else(|| listing_moved_with_each(pipeline))
}

/// `pipeline` with the files of a listing given to a remove that takes no
/// input (`ls *.tmp | remove`): `ls *.tmp | each { rm $in.name }` (see
/// [`listing_given_to`]).
pub fn listing_removed_with_each(pipeline: &str) -> Option<String> {
    listing_given_to(pipeline, &["rm", "remove", "delete", "del"])
}

/// `pipeline` with the files of a listing given to a move that takes no
/// input (`ls *.pdf | move pdf/`): `ls *.pdf | each { mv $in.name pdf/ }`
/// (see [`listing_given_to`]).
pub fn listing_moved_with_each(pipeline: &str) -> Option<String> {
    listing_given_to(pipeline, &["mv", "move"])
}

/// `pipeline` with the files of a listing given to one of `verbs` (a
/// remove or a move) written as each file's. Only right after a listing
/// and filters that keep its rows, with no path given to a remove and one
/// to a move; `rm`'s `-r`/`-f` stay. `None` for anything else.
fn listing_given_to(pipeline: &str, verbs: &[&str]) -> Option<String> {
    let mut elements = elements_after(pipeline, &["ls"])?;
    let at = 1 + elements[1..]
        .iter()
        .position(|element| !keeps_rows(element))?;
    let words: Vec<&str> = elements[at].split_whitespace().collect();
    let (head, args) = words.split_first()?;
    let (flags, paths): (Vec<&str>, Vec<&str>) = args.iter().partition(|a| a.starts_with('-'));
    let head = head.trim_start_matches('^');
    if !verbs.contains(&head) {
        return None;
    }
    let each = match (head, paths.as_slice()) {
        ("rm" | "remove" | "delete" | "del", []) => {
            let mut rm = String::from("rm");
            for (short, long) in [('r', "recursive"), ('f', "force")] {
                let given = flags.iter().any(|flag| {
                    *flag == format!("--{long}")
                        || (!flag.starts_with("--") && flag[1..].contains(short))
                });
                if given {
                    rm.push_str(&format!(" -{short}"));
                }
            }
            format!("each {{ {rm} $in.name }}")
        }
        ("mv" | "move", [dest]) if flags.is_empty() && is_literal_text(dest) => {
            format!("each {{ mv $in.name {dest} }}")
        }
        _ => return None,
    };
    elements[at] = each;
    Some(elements.join(" | "))
}

/// `pipeline` that is the rename program's call given to Nushell's
/// `rename` with nothing piped in (`rename '.jpeg' '.jpg' *.jpeg`, or the
/// files first, `rename **/* '.jpeg' '.jpg'`): one glob of files and two
/// texts, run as `ls **/* | where ($it.name | str contains '.jpeg') | each
/// {|f| mv $f.name ($f.name | str replace '.jpeg' '.jpg') }`. `None` for
/// anything else (Nushell's `rename` of columns always has input).
pub fn rename_program_with_mv(pipeline: &str) -> Option<String> {
    let mut elements = elements_after(pipeline, &["rename"])?;
    let is_glob = |word: &str| word.contains(['*', '?']) && !word.starts_with(['\'', '"', '$']);
    let is_text = |word: &str| is_literal_text(word) && !word.contains('*');
    let args: Vec<&str> = elements[0].split_whitespace().skip(1).collect();
    let (glob, from, to) = match args[..] {
        [glob, from, to] if is_glob(glob) && is_text(from) && is_text(to) => (glob, from, to),
        [from, to, glob] if is_glob(glob) && is_text(from) && is_text(to) => (glob, from, to),
        _ => return None,
    };
    elements[0] = format!(
        "ls {glob} | where ($it.name | str contains {from}) | {}",
        renamed_with_mv(from, to)
    );
    Some(elements.join(" | "))
}

/// Whether `word` is a literal text (`jpeg`, `'.jpg'`): no variable,
/// expression, closure or flag.
fn is_literal_text(word: &str) -> bool {
    let inner = word.trim_matches(|c| c == '\'' || c == '"');
    !inner.is_empty()
        && !word.starts_with('-')
        && !inner.contains(['$', '(', ')', '{', '}', '\'', '"'])
}

/// The closure over listed files that renames each, `from` in its name
/// made `to`, with `mv`.
fn renamed_with_mv(from: &str, to: &str) -> String {
    format!("each {{|f| mv $f.name ($f.name | str replace {from} {to}) }}")
}

/// Python's string methods and the Nushell command for each.
const PYTHON_METHODS: &[(&str, &str, usize)] = &[
    ("split", "split row", 1),
    ("replace", "str replace --all", 2),
    ("lower", "str downcase", 0),
    ("upper", "str upcase", 0),
    ("strip", "str trim", 0),
    ("startswith", "str starts-with", 1),
    ("endswith", "str ends-with", 1),
];

/// `pipeline` with each `$value.method(args)[index]` of a
/// [`PYTHON_METHODS`] method written `($value | command args | last)`;
/// `None` when there is none.
pub fn without_python_methods(pipeline: &str) -> Option<String> {
    let chars: Vec<char> = pipeline.chars().collect();
    let code = outside_strings(&chars);
    let mut replaced = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if !(code[i] && chars[i] == '$') {
            i += 1;
            continue;
        }
        let path_end = (i + 1..chars.len())
            .find(|&j| !(chars[j].is_alphanumeric() || matches!(chars[j], '_' | '.' | '-')))
            .unwrap_or(chars.len());
        let path: String = chars[i..path_end].iter().collect();
        let Some((value, method)) = path.rsplit_once('.') else {
            i = path_end;
            continue;
        };
        let known = PYTHON_METHODS.iter().find(|(m, ..)| *m == method);
        let (Some((_, command, arity)), Some('(')) = (known, chars.get(path_end)) else {
            i = path_end;
            continue;
        };
        let Some(close) = matching_paren(&chars, &code, path_end) else {
            break;
        };
        let inside: String = chars[path_end + 1..close].iter().collect();
        let args = split_arguments(&inside);
        if args.len() != *arity {
            i = close + 1;
            continue;
        }
        let mut nushell = format!("({value} | {command}");
        for arg in &args {
            nushell.push(' ');
            nushell.push_str(arg);
        }
        let mut end = close + 1;
        // `[-1]`, `[0]`, `[2]` after it.
        if chars.get(end) == Some(&'[')
            && let Some(index_end) = (end + 1..chars.len()).find(|&j| chars[j] == ']')
        {
            let index: String = chars[end + 1..index_end].iter().collect();
            let taken = match index.trim().parse::<i64>() {
                Ok(-1) => Some(" | last".to_string()),
                Ok(0) => Some(" | first".to_string()),
                Ok(n) if n > 0 => Some(format!(" | get {n}")),
                _ => None,
            };
            if let Some(taken) = taken {
                nushell.push_str(&taken);
                end = index_end + 1;
            }
        }
        nushell.push(')');
        replaced.push((i, end, nushell));
        i = end;
    }
    splice(&chars, &replaced)
}

/// The comma-separated arguments of a call, each trimmed (commas inside
/// strings stay).
fn split_arguments(inside: &str) -> Vec<String> {
    let chars: Vec<char> = inside.chars().collect();
    let code = outside_strings(&chars);
    let mut args = Vec::new();
    let mut current = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if code[i] && c == ',' {
            args.push(current.trim().to_string());
            current.clear();
        } else {
            current.push(c);
        }
    }
    if !current.trim().is_empty() {
        args.push(current.trim().to_string());
    }
    args
}

/// The aggregates of `math` a column is handed to.
const AGGREGATES: &[&str] = &["sum", "avg", "max", "min", "median"];

/// `pipeline` with `math F(col)` / `math F col` written `get col | math F`,
/// and, right after `group-by g`, per group:
/// `group-by g --to-table | each {|g| {g: $g.g, col: ($g.items | get col | math F)} }`;
/// a later `F(col)` (in `sort-by sum(total)`) is the column `col` then.
/// `None` when there is none.
pub fn aggregate_of_column(pipeline: &str) -> Option<String> {
    let elements = top_level_elements(pipeline);
    let mut out: Vec<String> = Vec::with_capacity(elements.len());
    let mut changed = false;
    let mut calls: Vec<(String, String)> = Vec::new();
    for element in &elements {
        let element = element.trim();
        let Some((function, column)) = math_of_column(element) else {
            let mut element = element.to_string();
            for (call, column) in &calls {
                element = element.replace(call.as_str(), column);
            }
            out.push(element);
            continue;
        };
        changed = true;
        calls.push((format!("{function}({column})"), column.clone()));
        let group = out.last().and_then(|previous| {
            let mut words = previous.split_whitespace();
            (words.next() == Some("group-by"))
                .then(|| words.next())
                .flatten()
                .filter(|g| is_plain_name(g))
                .filter(|_| words.next().is_none())
                .map(str::to_string)
        });
        match group {
            Some(group) => {
                out.pop();
                out.push(format!("group-by {group} --to-table"));
                out.push(format!(
                    "each {{|g| {{{group}: $g.{group}, {column}: ($g.items | get {column} | math {function})}} }}"
                ));
            }
            None => out.push(format!("get {column} | math {function}")),
        }
    }
    changed.then(|| out.join(" | "))
}

/// The aggregate and column of `math F(col)` or `math F col`.
fn math_of_column(element: &str) -> Option<(String, String)> {
    let rest = element.strip_prefix("math ")?.trim();
    let (function, column) = match rest.split_once('(') {
        Some((function, column)) => (function.trim(), column.strip_suffix(')')?.trim()),
        None => rest.split_once(char::is_whitespace)?,
    };
    let column = column.trim();
    let column = ['\'', '"', '`']
        .iter()
        .find_map(|quote| column.strip_prefix(*quote)?.strip_suffix(*quote))
        .unwrap_or(column);
    (AGGREGATES.contains(&function) && is_plain_name(column))
        .then(|| (function.to_string(), column.to_string()))
}

/// Commands that keep a table's rows as they are (fewer, or in another
/// order), so its columns are still the listing's after them.
const KEEPS_ROWS: &[&str] = &[
    "where", "filter", "find", "sort-by", "sort", "first", "last", "skip", "take", "reverse",
    "uniq-by",
];

/// The elements of `pipeline`, trimmed, where its first command is one
/// of `heads` (`ls`); `None` else.
fn elements_after(pipeline: &str, heads: &[&str]) -> Option<Vec<String>> {
    let elements: Vec<String> = top_level_elements(pipeline)
        .iter()
        .map(|element| element.trim().to_string())
        .collect();
    let head = elements.first()?.split_whitespace().next()?;
    heads.contains(&head).then_some(elements)
}

/// Whether `element` (a pipeline element) keeps the rows of a table.
fn keeps_rows(element: &str) -> bool {
    element
        .split_whitespace()
        .next()
        .is_some_and(|command| KEEPS_ROWS.contains(&command))
}

/// `pipeline` with an aggregate of a whole `ls` listing (`ls *.csv | math
/// sum`, which cannot add rows of names and dates) taken of its sizes,
/// the one column such an aggregate means: `ls *.csv | get size | math
/// sum`. Words after the aggregate that look like flags (`--bytes`, as
/// `du` has) go: `math` has none. `None` when there is none.
pub fn sizes_of_listing(pipeline: &str) -> Option<String> {
    let mut elements = elements_after(pipeline, &["ls"])?;
    let at = 1 + elements[1..]
        .iter()
        .position(|element| !keeps_rows(element))?;
    let mut words = elements[at].split_whitespace();
    let is_math = words.next() == Some("math");
    let function = words.next().unwrap_or_default();
    let flags_only = words.all(|w| w.trim_matches(|c| c == '\'' || c == '"').starts_with('-'));
    if !(is_math && AGGREGATES.contains(&function) && flags_only) {
        return None;
    }
    elements[at] = format!("get size | math {function}");
    Some(elements.join(" | "))
}

/// `pipeline` with the rows of an `ls` or `ps` table matched by their name
/// (`ls | where $it =~ '.log'`, which fails: `=~` reads text, and a row is
/// a record): `ls | where name =~ '.log'`, a listing's row being known by
/// its name. `None` when it has no such match.
pub fn rows_matched_by_name(pipeline: &str) -> Option<String> {
    static ROW_MATCH: std::sync::LazyLock<Option<regex::Regex>> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"^where\s+\$it\s*(=~|!~|starts-with|ends-with)\s").ok()
    });
    let regex = ROW_MATCH.as_ref()?;
    let mut elements = elements_after(pipeline, &["ls", "ps"])?;
    let mut changed = false;
    for element in elements.iter_mut().skip(1) {
        if regex.is_match(element) {
            *element = element.replacen("$it", "name", 1);
            changed = true;
        } else if !keeps_rows(element) {
            break;
        }
    }
    changed.then(|| elements.join(" | "))
}

/// `pipeline` with the lines of listed files read from the files: `ls
/// logs/*.log | lines | where $it =~ 'ERROR' | length` (`lines` of the
/// listing's rows, never the files' text) is each file's own: `ls
/// logs/*.log | insert count {|f| open --raw $f.name | lines | where $it
/// =~ 'ERROR' | length}`, a table of the files and what the rest gave for
/// each (`count` where it ends in `length`, else `lines`). `None` for
/// anything else.
pub fn lines_of_listed_files(pipeline: &str) -> Option<String> {
    let elements = elements_after(pipeline, &["ls"])?;
    let at = elements.iter().position(|element| element == "lines")?;
    if !elements[1..at].iter().all(|element| keeps_rows(element)) {
        return None;
    }
    let column = if elements.last().is_some_and(|last| last == "length") {
        "count"
    } else {
        "lines"
    };
    Some(format!(
        "{} | insert {column} {{|f| open --raw $f.name | {} }}",
        elements[..at].join(" | "),
        elements[at..].join(" | ")
    ))
}

/// `pipeline` that opens several files by a glob and ends in a figure
/// (`open logs/*.log | lines | where $it =~ 'ERROR' | length`: one figure
/// over all the files) taken of each file on its own: `ls logs/*.log |
/// insert count {|f| open --raw $f.name | lines | where $it =~ 'ERROR' |
/// length }` (`count` for `length`, else the math function's name: `sum`,
/// `avg`…). For a request that asks for each file's figure. `None` for
/// anything else.
pub fn opened_glob_per_file(pipeline: &str) -> Option<String> {
    let elements: Vec<String> = top_level_elements(pipeline)
        .iter()
        .map(|element| element.trim().to_string())
        .collect();
    let (first, rest) = elements.split_first()?;
    let mut words = first.split_whitespace();
    if words.next() != Some("open") {
        return None;
    }
    let paths: Vec<&str> = words.filter(|word| !word.starts_with('-')).collect();
    let [glob] = paths[..] else {
        return None;
    };
    if !glob.contains('*') || glob.starts_with(['\'', '"', '$', '(']) {
        return None;
    }
    let last: Vec<&str> = rest.last()?.split_whitespace().collect();
    let column = match last[..] {
        ["length"] => "count",
        ["math", function] if AGGREGATES.contains(&function) => function,
        _ => return None,
    };
    let raw = if rest.first().is_some_and(|element| element == "lines") {
        " --raw"
    } else {
        ""
    };
    Some(format!(
        "ls {glob} | insert {column} {{|f| open{raw} $f.name | {} }}",
        rest.join(" | ")
    ))
}

/// `pipeline` without a last `table` element (`… | table`, `table -e`):
/// `table` draws the value as text, so what comes back (and what an
/// answer returns as data) is a string of box-drawing lines instead of
/// the table. `None` when it does not end so (or is `table` alone).
pub fn without_display_table(pipeline: &str) -> Option<String> {
    without_last_element(pipeline, |last| {
        let mut words = last.split_whitespace();
        words.next() == Some("table") && words.all(|word| word.starts_with('-'))
    })
}

/// `pipeline` without the count it ends with (`| length`, or the shell's
/// `| count`): for a request that asks which rows, not how many. `None`
/// when it does not end so (or is the count alone).
pub fn without_final_count(pipeline: &str) -> Option<String> {
    without_last_element(pipeline, |last| ["length", "count"].contains(&last.trim()))
}

/// `pipeline` without its last element, where `is_dropped` says so of it
/// and something comes before it.
fn without_last_element(pipeline: &str, is_dropped: impl Fn(&str) -> bool) -> Option<String> {
    let mut elements = top_level_elements(pipeline);
    let last = elements.pop()?;
    (is_dropped(&last) && !elements.is_empty()).then(|| {
        elements
            .iter()
            .map(|element| element.trim())
            .collect::<Vec<_>>()
            .join(" | ")
    })
}

/// `pipeline` with a size field of a listed file made from its contents
/// (`ls *.csv | each {|f| {size: (open $f.name | length)}}`) written as
/// the file's size from the listing (`size: $f.size`); `None` when it has
/// none.
pub fn size_from_listing(pipeline: &str) -> Option<String> {
    static SIZE_FIELD: std::sync::LazyLock<Option<regex::Regex>> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"(\bsize\s*:\s*)\(\s*open\s+\$([A-Za-z_]\w*)\.name\s*\|\s*(?:lines\s*\|\s*)?length\s*\)",
        )
        .ok()
    });
    let first = pipeline.split('|').next()?.trim();
    if !(first == "ls" || first.starts_with("ls ")) {
        return None;
    }
    let regex = SIZE_FIELD.as_ref()?;
    regex
        .is_match(pipeline)
        .then(|| regex.replace_all(pipeline, "${1}$$${2}.size").into_owned())
}

/// Extensions of the files `open` reads as data (a table or record, whose
/// `length` counts rows); any other file it gives as text.
const DATA_EXTENSIONS: &[&str] = &[
    "csv", "tsv", "json", "jsonl", "toml", "yaml", "yml", "nuon", "xml", "xlsx", "ods", "ssv",
    "msgpack", "msgpackz", "db", "sqlite", "sqlite3", "parquet", "arrow", "avro",
];

/// `pipeline` with the text of a file counted in lines (`open app.log |
/// length`, which counts its bytes, as `open app.log | lines | length`),
/// where the file is known to be text: a literal name, or each file of an
/// `ls *.log` the pipeline starts with (`open $f.name | length`), whose
/// extension `open` reads as no data. `None` otherwise.
pub fn text_lines_counted(pipeline: &str) -> Option<String> {
    static OPEN_LENGTH: std::sync::LazyLock<Option<regex::Regex>> =
        std::sync::LazyLock::new(|| {
            regex::Regex::new(r#"open\s+([^\s|()]+)\s*\|\s*length\b"#).ok()
        });
    let regex = OPEN_LENGTH.as_ref()?;
    let listed = top_level_elements(pipeline)
        .first()
        .filter(|first| first.split_whitespace().next() == Some("ls"))
        .and_then(|first| first.split_whitespace().nth(1).map(str::to_string));
    let is_text = |file: &str| {
        let file = file.trim_matches(|c| c == '\'' || c == '"');
        let named = if file.starts_with('$') {
            listed.as_deref().unwrap_or_default()
        } else {
            file
        };
        let extension = std::path::Path::new(named)
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_lowercase);
        extension.is_some_and(|e| !DATA_EXTENSIONS.contains(&e.as_str()))
    };
    let mut changed = false;
    let fixed = regex.replace_all(pipeline, |caps: &regex::Captures| {
        if is_text(&caps[1]) {
            changed = true;
            format!("open {} | lines | length", &caps[1])
        } else {
            caps[0].to_string()
        }
    });
    changed.then(|| fixed.into_owned())
}

/// `pipeline` with `--du` given to the `ls` it starts with, when it keeps
/// folders (`where type == dir`) and uses their `size`: without `--du` a
/// folder's size is its entry's (4 KiB on most file systems), never what
/// the folder holds, so the pipeline cannot mean it. `None` otherwise.
pub fn folder_sizes_with_du(pipeline: &str) -> Option<String> {
    let elements = top_level_elements(pipeline);
    let first = elements.first()?.trim();
    if !ls_without_du(first) {
        return None;
    }
    let uses_size = elements[1..].iter().any(|element| {
        element
            .split(|c: char| !c.is_alphanumeric() && c != '_')
            .any(|w| w == "size")
    });
    (keeps_folders(pipeline) && uses_size).then(|| {
        let rest: Vec<&str> = elements[1..].iter().map(|e| e.trim()).collect();
        let ls = format!("ls --du{}", &first[2..]);
        std::iter::once(ls.as_str())
            .chain(rest)
            .collect::<Vec<_>>()
            .join(" | ")
    })
}

/// Whether `pipeline` keeps only folders (`where type == dir`, `$it.type
/// == 'dir'`).
pub fn keeps_folders(pipeline: &str) -> bool {
    top_level_elements(pipeline).iter().any(|element| {
        let words: Vec<&str> = element.split_whitespace().collect();
        words.windows(3).any(|w| {
            w[0].trim_start_matches("$it.") == "type"
                && w[1] == "=="
                && w[2].trim_matches(|c| c == '\'' || c == '"') == "dir"
        })
    })
}

/// Whether `element` is an `ls` that does not measure what folders hold:
/// no `--du`, and no group of short flags with its `d` (`-ld`).
pub fn ls_without_du(element: &str) -> bool {
    let mut words = element.split_whitespace();
    words.next() == Some("ls")
        && !words
            .any(|w| w == "--du" || (w.starts_with('-') && !w.starts_with("--") && w.contains('d')))
}

/// A bare column name: letters, digits, `_`, `-`.
fn is_plain_name(word: &str) -> bool {
    !word.is_empty()
        && !word.starts_with('-')
        && word
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-'))
}

/// The elements of `pipeline` split at each `|` outside strings, brackets
/// and closures.
pub(crate) fn top_level_elements(pipeline: &str) -> Vec<String> {
    let chars: Vec<char> = pipeline.chars().collect();
    let code = outside_strings(&chars);
    let mut elements = Vec::new();
    let mut depth = 0usize;
    let mut current = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if code[i] {
            match c {
                '{' | '(' | '[' => depth += 1,
                '}' | ')' | ']' => depth = depth.saturating_sub(1),
                '|' if depth == 0 => {
                    elements.push(std::mem::take(&mut current));
                    continue;
                }
                _ => {}
            }
        }
        current.push(c);
    }
    elements.push(current);
    elements
}

/// Where the string argument right after `end` (past spaces) starts and
/// ends (its quotes included).
fn quoted_argument(chars: &[char], code: &[bool], end: usize) -> Option<(usize, usize)> {
    let start = (end..chars.len()).find(|&i| !chars[i].is_whitespace())?;
    if start == end || code[start] || !matches!(chars[start], '\'' | '"') {
        return None;
    }
    // The closing quote is not code either: the string ends where code
    // starts again.
    let after = (start + 1..chars.len())
        .find(|&i| code[i])
        .unwrap_or(chars.len());
    (after - 1 > start && chars[after - 1] == chars[start]).then_some((start, after))
}

/// `chars` with each `(start, end, text)` range replaced; `None` when
/// there is none.
fn splice(chars: &[char], replaced: &[(usize, usize, String)]) -> Option<String> {
    if replaced.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(chars.len() + 16);
    let mut i = 0;
    for (start, end, text) in replaced {
        out.extend(&chars[i..*start]);
        out.push_str(text);
        i = *end;
    }
    out.extend(&chars[i..]);
    Some(out)
}

/// The `(start, end)` of each word in command position: first in the
/// pipeline, or after `|`, `;`, `(` or a closure's `{` / parameters.
fn command_words(chars: &[char], code: &[bool]) -> Vec<(usize, usize)> {
    let mut words = Vec::new();
    let mut at_command = true;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if !code[i] {
            at_command = false;
            i += 1;
            continue;
        }
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if matches!(c, '|' | ';' | '(' | '{') {
            at_command = true;
            i += 1;
            continue;
        }
        if at_command && (c.is_alphanumeric() || c == '^') {
            let end = (i..chars.len())
                .find(|&j| {
                    !code[j] || !(chars[j].is_alphanumeric() || matches!(chars[j], '-' | '_' | '^'))
                })
                .unwrap_or(chars.len());
            words.push((i, end));
            at_command = false;
            i = end;
            continue;
        }
        at_command = false;
        i += 1;
    }
    words
}

/// Where the arguments of the command whose name ends at `from` end: the
/// first `|`, `;`, newline, or `)` / `}` closing what holds the command,
/// outside strings (the length when none).
fn arguments_end(chars: &[char], code: &[bool], from: usize) -> usize {
    (from..chars.len())
        .find(|&i| code[i] && matches!(chars[i], '|' | ';' | ')' | '}' | '\n'))
        .unwrap_or(chars.len())
}

/// The `}` closing the `{` at `open`, outside strings.
fn matching_brace(chars: &[char], code: &[bool], open: usize) -> Option<usize> {
    matching(chars, code, open, ('{', '}'))
}

/// The `)` closing the `(` at `open`, outside strings.
fn matching_paren(chars: &[char], code: &[bool], open: usize) -> Option<usize> {
    matching(chars, code, open, ('(', ')'))
}

/// The closing bracket of `pair` for its opening one at `open`, outside
/// strings.
fn matching(chars: &[char], code: &[bool], open: usize, pair: (char, char)) -> Option<usize> {
    let mut depth = 0usize;
    for i in open..chars.len() {
        if !code[i] {
            continue;
        }
        if chars[i] == pair.0 {
            depth += 1;
        } else if chars[i] == pair.1 {
            depth = depth.saturating_sub(1);
            if depth == 0 {
                return Some(i);
            }
        }
    }
    None
}

/// For each character, whether it is code: outside a '…', "…" or `…`
/// string (the quotes themselves are not code).
fn outside_strings(chars: &[char]) -> Vec<bool> {
    let mut code = Vec::with_capacity(chars.len());
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for &c in chars {
        match quote {
            Some(q) => {
                code.push(false);
                if escaped {
                    escaped = false;
                } else if c == '\\' && q == '"' {
                    escaped = true;
                } else if c == q {
                    quote = None;
                }
            }
            None if matches!(c, '\'' | '"' | '`') => {
                quote = Some(c);
                code.push(false);
            }
            None => code.push(true),
        }
    }
    code
}

/// A character of a variable's name.
fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-')
}

/// Where the number starting at `start` ends: digits, with one decimal
/// point followed by a digit.
fn number_end(chars: &[char], start: usize) -> usize {
    let mut end = start;
    let mut seen_point = false;
    while end < chars.len() {
        if chars[end].is_ascii_digit() {
            end += 1;
        } else if chars[end] == '.'
            && !seen_point
            && chars.get(end + 1).is_some_and(char::is_ascii_digit)
        {
            seen_point = true;
            end += 1;
        } else {
            break;
        }
    }
    end
}

/// A character that continues a word: a number's unit, a name, a path.
fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '.' | '-' | '$' | '/')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `pipeline` with every translation made (see
    /// [`super::super::rules::as_nushell`]).
    fn as_nushell(pipeline: &str, parses: bool) -> Option<(String, Vec<String>)> {
        let levers = super::super::levers::Levers::default();
        super::super::rules::as_nushell(pipeline, parses, &levers)
            .map(|(text, done)| (text, done.into_iter().map(|d| d.note).collect()))
    }

    #[test]
    fn find_before_another_command_leaves_its_colours_out() {
        assert_eq!(
            find_without_highlight("ps | find 'ticker' | where name =~ ticker").as_deref(),
            Some("ps | find --no-highlight 'ticker' | where name =~ ticker")
        );
        // Last in the pipeline (only shown), or already without colours.
        assert_eq!(find_without_highlight("ps | find ticker"), None);
        // Bash's `find` starts a pipeline: not Nushell's.
        assert_eq!(find_without_highlight("find . -type f | wc -l"), None);
        assert_eq!(find_without_highlight("ps | find -n x | first"), None);
        assert_eq!(
            find_without_highlight("ls | find --no-highlight x | first"),
            None
        );
    }

    #[test]
    fn git_dates_in_the_default_form_are_asked_for_as_iso() {
        assert_eq!(
            git_dates_that_sort("git log --format='%h|%an|%ad' | lines").as_deref(),
            Some("git log --date=iso-strict --format='%h|%an|%ad' | lines")
        );
        assert_eq!(
            git_dates_that_sort("^git log -n 3 --pretty=format:'%cd %s'").as_deref(),
            Some("^git log --date=iso-strict -n 3 --pretty=format:'%cd %s'")
        );
        // A date form of its own, no date, or not `log`: as written.
        assert_eq!(
            git_dates_that_sort("git log --date=short --format='%ad'"),
            None
        );
        assert_eq!(git_dates_that_sort("git log --format='%h %an %s'"), None);
        assert_eq!(git_dates_that_sort("git show --format='%ad'"), None);
        assert_eq!(git_dates_that_sort("echo '%ad' | git log"), None);
    }

    fn fixed(pipeline: &str) -> Option<String> {
        in_nushell_units(pipeline).map(|(text, _)| text)
    }

    #[test]
    fn a_size_compared_with_a_bare_number_is_compared_in_bytes() {
        let bytes = |p: &str| sizes_in_bytes(p).map(|(text, _)| text);
        assert_eq!(
            bytes("ls | where size > 10000 | get name").as_deref(),
            Some("ls | where size > 10000b | get name")
        );
        assert_eq!(
            bytes("ls **/* | where type == file and size == 0").as_deref(),
            Some("ls **/* | where type == file and size == 0b")
        );
        assert_eq!(
            bytes("ls | each {|f| if $f.size>0 { $f.name } }").as_deref(),
            Some("ls | each {|f| if $f.size>0b { $f.name } }")
        );
        assert_eq!(
            bytes("ps | where mem > 1000000 | length").as_deref(),
            Some("ps | where mem > 1000000b | length")
        );
        // Units, other columns, strings and other names stay as they are.
        for same in [
            "ls | where size > 10kb",
            "ls | where size > 1.5",
            "open t.csv | where amount > 10",
            "ls | where name == 'size > 10'",
            "ls | where filesize > 10",
        ] {
            assert_eq!(bytes(same), None, "{same}");
        }
        assert!(
            as_nushell("ls | where size > 10", true).is_some_and(|(text, notes)| text
                == "ls | where size > 10b"
                && notes[0].contains("`10b`"))
        );
    }

    #[test]
    fn other_languages_units_become_nushell_units() {
        assert_eq!(
            fixed("ls | where modified < ((date now) - 30days)").as_deref(),
            Some("ls | where modified < ((date now) - 30day)")
        );
        assert_eq!(
            fixed("ls **/* | where modified > ((date now) - 24hours) | first 5").as_deref(),
            Some("ls **/* | where modified > ((date now) - 24hr) | first 5")
        );
        assert_eq!(fixed("sleep 2s").as_deref(), Some("sleep 2sec"));
        assert_eq!(
            fixed("(date now) - 1.5h").as_deref(),
            Some("(date now) - 1.5hr")
        );
        let (_, changed) = in_nushell_units("x - 2weeks - 3d").unwrap();
        assert_eq!(
            changed,
            vec![
                ("2weeks".to_string(), "2wk".to_string()),
                ("3d".to_string(), "3day".to_string())
            ]
        );
    }

    #[test]
    fn it_in_an_element_closure_is_named() {
        assert_eq!(
            with_named_it("ls | each { mkdir $it.name; mv $it.name x }").as_deref(),
            Some("ls | each {|it| mkdir $it.name; mv $it.name x }")
        );
        assert_eq!(
            with_named_it("[1 2] | where {$it > 1} | each { $it + 1 }").as_deref(),
            Some("[1 2] | where {|it| $it > 1} | each {|it| $it + 1 }")
        );
        // Named already, `$in`, a record, another command, a string, `$item`.
        assert_eq!(with_named_it("each {|x| $x + 1}"), None);
        assert_eq!(with_named_it("each { $in + 1 }"), None);
        assert_eq!(with_named_it("each { {name: $in} }"), None);
        assert_eq!(with_named_it("update a { $it + 1 }"), None);
        assert_eq!(with_named_it("each { '$it' }"), None);
        assert_eq!(with_named_it("each { $item }"), None);
        // The outer closure is named; a record inside it is left as it is.
        assert_eq!(
            with_named_it("ls | each { {n: $it.name} }").as_deref(),
            Some("ls | each {|it| {n: $it.name} }")
        );
        // A record written as the closure becomes its value.
        assert_eq!(
            with_named_it("open t.csv | each {city: $it.city, f: 1} | first").as_deref(),
            Some("open t.csv | each {|it| {city: $it.city, f: 1} } | first")
        );
    }

    #[test]
    fn both_fixes_are_made_with_a_note_each() {
        let (text, notes) = as_nushell(
            "ls | where modified < ((date now) - 7days) | each { rm $it.name }",
            false,
        )
        .unwrap();
        assert_eq!(
            text,
            "ls | where modified < ((date now) - 7day) | each {|it| rm $it.name }"
        );
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert_eq!(as_nushell("ls | each {|it| $it.name }", false), None);
    }

    #[test]
    fn column_lists_lose_their_commas() {
        assert_eq!(
            without_list_commas("open t.csv | select city, temp | sort-by temp").as_deref(),
            Some("open t.csv | select city temp | sort-by temp")
        );
        assert_eq!(
            without_list_commas("open o.csv | get region, total | first 2").as_deref(),
            Some("open o.csv | select region total | first 2")
        );
        assert_eq!(
            without_list_commas("ls | sort-by size,name").as_deref(),
            Some("ls | sort-by size name")
        );
        // A list or record argument, a comma in a string, another command.
        assert_eq!(without_list_commas("select [a, b]"), None);
        assert_eq!(without_list_commas("where name == 'a, b'"), None);
        assert_eq!(without_list_commas("get 'a, b'"), None);
        assert_eq!(without_list_commas("[1, 2] | math sum"), None);
        assert_eq!(without_list_commas("ls | get name"), None);
        // Parsing pipelines get this fix alone.
        let (text, notes) = as_nushell("open t.csv | select a, b", true).unwrap();
        assert_eq!(text, "open t.csv | select a b");
        assert_eq!(notes.len(), 1);
        assert_eq!(as_nushell("sleep 2s", true), None);
    }

    #[test]
    fn date_of_text_is_into_datetime() {
        assert_eq!(
            date_of_text("open a.json | where modified < (date '2024-01-01')").as_deref(),
            Some("open a.json | where modified < (('2024-01-01' | into datetime))")
        );
        assert_eq!(
            date_of_text("date \"2024-01-01 10:00\" | format date '%Y'").as_deref(),
            Some("(\"2024-01-01 10:00\" | into datetime) | format date '%Y'")
        );
        assert_eq!(
            date_of_text("ls | where modified < (date -d '2023-01-01')").as_deref(),
            Some("ls | where modified < (('2023-01-01' | into datetime))")
        );
        assert_eq!(
            date_of_text("date --date \"2023-01-01\"").as_deref(),
            Some("(\"2023-01-01\" | into datetime)")
        );
        assert_eq!(date_of_text("date -d now"), None);
        assert_eq!(date_of_text("date now"), None);
        assert_eq!(date_of_text("date format '%Y'"), None);
        assert_eq!(date_of_text("'date' | str length"), None);
        assert_eq!(date_of_text("ls | where name == date"), None);
    }

    #[test]
    fn folders_kept_by_their_size_are_listed_with_du() {
        assert_eq!(
            folder_sizes_with_du("ls **/* | where type == dir | sort-by size --reverse | first 1")
                .as_deref(),
            Some("ls --du **/* | where type == dir | sort-by size --reverse | first 1")
        );
        assert_eq!(
            folder_sizes_with_du("ls | where type == 'dir' | select name size").as_deref(),
            Some("ls --du | where type == 'dir' | select name size")
        );
        // Already with `--du` (`-d`), files only, or no size used.
        assert_eq!(
            folder_sizes_with_du("ls -d | where type == dir | sort-by size"),
            None
        );
        assert_eq!(
            folder_sizes_with_du("ls --du | where type == dir | sort-by size"),
            None
        );
        assert_eq!(
            folder_sizes_with_du("ls | where type == file | sort-by size"),
            None
        );
        assert_eq!(
            folder_sizes_with_du("ls | where type == dir | get name"),
            None
        );
        assert_eq!(
            folder_sizes_with_du("ps | where type == dir | get size"),
            None
        );
    }

    #[test]
    fn a_last_table_that_draws_the_value_is_dropped() {
        assert_eq!(
            without_display_table("open a.json | where active | table").as_deref(),
            Some("open a.json | where active")
        );
        assert_eq!(
            without_display_table("ls | table -e").as_deref(),
            Some("ls")
        );
        assert_eq!(without_display_table("table"), None);
        assert_eq!(
            text_lines_counted(
                "ls **/*.log | each {|f| {file: $f.name, rows: (open $f.name | length)} }"
            )
            .as_deref(),
            Some(
                "ls **/*.log | each {|f| {file: $f.name, rows: (open $f.name | lines | length)} }"
            )
        );
        assert_eq!(
            text_lines_counted("open app.log | length").as_deref(),
            Some("open app.log | lines | length")
        );
        // Rows of data, and files of no known kind, are left alone.
        assert_eq!(text_lines_counted("open orders.csv | length"), None);
        assert_eq!(
            text_lines_counted("ls *.json | each {|f| open $f.name | length }"),
            None
        );
        assert_eq!(
            text_lines_counted("ls | each {|f| open $f.name | length }"),
            None
        );
        assert_eq!(
            without_final_count("ls | where size == 0b | length").as_deref(),
            Some("ls | where size == 0b")
        );
        assert_eq!(without_final_count("ls | each { length }"), None);
        assert_eq!(without_final_count("length"), None);
        assert_eq!(without_display_table("ls | table | lines"), None);
        assert_eq!(without_display_table("ls | get table"), None);
        assert_eq!(without_display_table("ls | table --width 80"), None);
        let (fixed, _) = as_nushell("ls | table", true).unwrap();
        assert_eq!(fixed, "ls");
    }

    #[test]
    fn an_aggregate_of_a_column_is_get_then_math() {
        assert_eq!(
            aggregate_of_column("open o.csv | math sum(total)").as_deref(),
            Some("open o.csv | get total | math sum")
        );
        assert_eq!(
            aggregate_of_column("open o.csv | select region total | group-by region | math sum(total) | sort-by sum(total) --reverse").as_deref(),
            Some("open o.csv | select region total | group-by region --to-table | each {|g| {region: $g.region, total: ($g.items | get total | math sum)} } | sort-by total --reverse")
        );
        assert_eq!(
            aggregate_of_column("open p.csv | group-by kind | math avg price").as_deref(),
            Some(
                "open p.csv | group-by kind --to-table | each {|g| {kind: $g.kind, price: ($g.items | get price | math avg)} }"
            )
        );
        // Nushell already, or not a column.
        assert_eq!(
            aggregate_of_column("open o.csv | get total | math sum"),
            None
        );
        assert_eq!(aggregate_of_column("[1 2] | math sum"), None);
        assert_eq!(aggregate_of_column("math round --precision 2"), None);
        // A quoted column parses, and gives the table back unchanged.
        assert_eq!(
            aggregate_of_column("open o.csv | where status == 'pending' | math sum 'amount'")
                .as_deref(),
            Some("open o.csv | where status == 'pending' | get amount | math sum")
        );
        assert_eq!(
            as_nushell("open o.csv | math sum amount", true),
            Some((
                "open o.csv | get amount | math sum".to_string(),
                vec!["a column's total is `get total | math sum`; per group: `group-by g --to-table | each {|g| ... }`".to_string()]
            ))
        );
        assert_eq!(aggregate_of_column("each { math sum(x) }"), None);
    }

    #[test]
    fn python_methods_become_commands() {
        assert_eq!(
            without_python_methods("ls | each {|f| {file: $f.name, ext: $f.name.split('.')[-1]}}")
                .as_deref(),
            Some("ls | each {|f| {file: $f.name, ext: ($f.name | split row '.' | last)}}")
        );
        assert_eq!(
            without_python_methods(
                "ls *.jpeg | each { mv $in.name $in.name.replace('.jpeg', '.jpg') }"
            )
            .as_deref(),
            Some("ls *.jpeg | each { mv $in.name ($in.name | str replace --all '.jpeg' '.jpg') }")
        );
        assert_eq!(
            without_python_methods("$x.lower() == 'a'").as_deref(),
            Some("($x | str downcase) == 'a'")
        );
        // Not a known method, the wrong number of arguments, a column.
        assert_eq!(without_python_methods("$x.frob('a')"), None);
        assert_eq!(without_python_methods("$x.split()"), None);
        assert_eq!(without_python_methods("$f.name | str length"), None);
        assert_eq!(without_python_methods("'$x.split(1)'"), None);
    }

    #[test]
    fn a_file_renamed_with_rename_is_moved() {
        assert_eq!(
            files_renamed_with_mv(
                "ls *.jpeg | each { rename $in.name ($in.name | str replace '.jpeg' '.jpg') }"
            )
            .as_deref(),
            Some("ls *.jpeg | each { mv $in.name ($in.name | str replace '.jpeg' '.jpg') }")
        );
        assert_eq!(
            files_renamed_with_mv("ls | each {|f| rename $f.name x }").as_deref(),
            Some("ls | each {|f| mv $f.name x }")
        );
        assert_eq!(
            files_renamed_with_mv(
                "ls **/*.jpeg | each { rename $in.name to ($in.name | str replace '.jpeg' '.jpg') }"
            )
            .as_deref(),
            Some("ls **/*.jpeg | each { mv $in.name ($in.name | str replace '.jpeg' '.jpg') }")
        );
        // Columns renamed as Nushell means it.
        assert_eq!(files_renamed_with_mv("open a.csv | rename a b"), None);
        assert_eq!(files_renamed_with_mv("rename $c.name x"), None);
    }

    #[test]
    fn a_size_made_from_a_files_contents_is_its_listed_size() {
        assert_eq!(
            size_from_listing(
                "ls **/*.csv | each {|f| {file: $f.name, size: (open $f.name | length)}} | get size | math sum"
            )
            .as_deref(),
            Some("ls **/*.csv | each {|f| {file: $f.name, size: $f.size}} | get size | math sum")
        );
        assert_eq!(
            size_from_listing("ls | each {|f| {rows: (open $f.name | length)}}"),
            None
        );
        assert_eq!(
            size_from_listing("glob *.csv | each {|f| {size: (open $f.name | length)}}"),
            None
        );
    }

    #[test]
    fn map_with_a_closure_is_each() {
        assert_eq!(
            map_as_each("ls | map { $it.name } | foreach {|n| $n }").as_deref(),
            Some("ls | each { $it.name } | each {|n| $n }")
        );
        assert_eq!(map_as_each("ls | where name =~ 'map {'"), None);
        assert_eq!(map_as_each("^map a b"), None);
        let (text, _) = as_nushell("open t.csv | map {city: $it.city}", false).unwrap();
        assert_eq!(text, "open t.csv | each {|it| {city: $it.city} }");
        let (text, notes) = as_nushell("open t.csv | map { $it.price * 2 }", false).unwrap();
        assert_eq!(text, "open t.csv | each {|it| $it.price * 2 }");
        assert_eq!(notes.len(), 2);
    }

    #[test]
    fn a_record_fields_expression_is_put_in_parentheses() {
        assert_eq!(
            record_values_in_parens(
                "open t.csv | each {|it| {city: $it.city, celsius: ($it.f - 32) * 5 / 9} }"
            )
            .as_deref(),
            Some("open t.csv | each {|it| {city: $it.city, celsius: (($it.f - 32) * 5 / 9)} }")
        );
        assert_eq!(
            record_values_in_parens("{a: 1 + 2, b: 'x' ++ $y, c: (1 + 2), d: '-'}").as_deref(),
            Some("{a: (1 + 2), b: ('x' ++ $y), c: (1 + 2), d: '-'}")
        );
        assert_eq!(
            record_values_in_parens("{\n  big: $f.size > 1kb\n  name: $f.name\n}").as_deref(),
            Some("{\n  big: ($f.size > 1kb)\n  name: $f.name\n}")
        );
        // One value each, operators inside strings, closures: nothing.
        assert_eq!(record_values_in_parens("{a: (1 + 2), b: 'a + b'}"), None);
        assert_eq!(
            record_values_in_parens("ls | where { $in.size > 1kb }"),
            None
        );
        assert_eq!(record_values_in_parens("each {|f| $f.size * 2 }"), None);
        let (text, notes) = as_nushell("[1 2] | each {|x| {v: $x * 2} }", false).unwrap();
        assert_eq!(text, "[1 2] | each {|x| {v: ($x * 2)} }");
        assert_eq!(notes.len(), 1);
        // A pipeline that parses is never touched by it.
        assert_eq!(as_nushell("[1 2] | each {|x| {v: ($x * 2)} }", true), None);
    }

    #[test]
    fn split_without_a_subcommand_is_split_row() {
        assert_eq!(
            split_row("open a.log | lines | each { split ' ' | first }").as_deref(),
            Some("open a.log | lines | each { split row ' ' | first }")
        );
        assert_eq!(split_row("split row ' '"), None);
        assert_eq!(split_row("split column ','"), None);
        assert_eq!(split_row("str split ' '"), None);
        let (text, notes) = as_nushell("open a.log | lines | split ' ' | first", false).unwrap();
        assert_eq!(text, "open a.log | lines | split row ' ' | first");
        assert_eq!(notes.len(), 1);
    }

    #[test]
    fn strings_names_and_real_units_are_left_alone() {
        assert_eq!(fixed("ls | where modified > ((date now) - 1day)"), None);
        assert_eq!(fixed("open 'report 30days.txt'"), None);
        assert_eq!(fixed("open \"30d \\\" 2h\""), None);
        assert_eq!(fixed("ls | where size > 10kb"), None);
        assert_eq!(fixed("open v1.2s.txt | first 3"), None);
        assert_eq!(fixed("open log-2d.txt"), None);
        assert_eq!(fixed("$out.2s"), None);
        assert_eq!(fixed("ls | first 5"), None);
        // No exact Nushell duration: months and years stay.
        assert_eq!(fixed("(date now) - 1month"), None);
    }

    #[test]
    fn a_pipeline_handed_to_a_new_nu_runs_as_itself() {
        for (written, inner) in [
            ("nu -c 'ls | length'", "ls | length"),
            ("^nu --commands \"sys mem\"", "sys mem"),
            ("  nu -c  'ps | first 3' ", "ps | first 3"),
        ] {
            assert_eq!(
                without_nu_command(written).as_deref(),
                Some(inner),
                "{written}"
            );
        }
        for other in [
            "nu",
            "nu script.nu",
            "nu -c ls",
            "nu -c 'ls' | length",
            "nu -c \"echo \\\"x\\\"\"",
            "nu -c ''",
            "nushell -c 'ls'",
            "nu-check -c 'ls'",
        ] {
            assert_eq!(without_nu_command(other), None, "{other}");
        }
    }

    #[test]
    fn an_aggregate_of_a_listing_is_of_its_sizes() {
        assert_eq!(
            sizes_of_listing("ls **/*.csv | math sum '--bytes'").as_deref(),
            Some("ls **/*.csv | get size | math sum")
        );
        assert_eq!(
            sizes_of_listing("ls | where name =~ log | sort-by size | first 3 | math avg")
                .as_deref(),
            Some("ls | where name =~ log | sort-by size | first 3 | get size | math avg")
        );
        assert_eq!(sizes_of_listing("ls | get size | math sum"), None);
        assert_eq!(sizes_of_listing("ls | math sum size"), None);
        assert_eq!(sizes_of_listing("open a.csv | math sum"), None);
        assert_eq!(sizes_of_listing("ls | length"), None);
    }

    #[test]
    fn lines_of_a_listing_are_each_files_lines() {
        assert_eq!(
            lines_of_listed_files("ls logs/*.log | lines | where $it =~ 'ERROR' | length")
                .as_deref(),
            Some(
                "ls logs/*.log | insert count {|f| open --raw $f.name | lines | where $it =~ 'ERROR' | length }"
            )
        );
        assert_eq!(
            lines_of_listed_files("ls *.txt | where size > 0b | lines").as_deref(),
            Some("ls *.txt | where size > 0b | insert lines {|f| open --raw $f.name | lines }")
        );
        assert_eq!(lines_of_listed_files("ls | get name | lines"), None);
        assert_eq!(lines_of_listed_files("open a.log | lines | length"), None);
        assert_eq!(
            lines_of_listed_files("ls | each {|f| open $f.name | lines }"),
            None
        );
    }

    #[test]
    fn a_listings_row_is_matched_by_its_name() {
        assert_eq!(
            rows_matched_by_name("ls | where type == file | where $it =~ '.log' | lines | length")
                .as_deref(),
            Some("ls | where type == file | where name =~ '.log' | lines | length")
        );
        assert_eq!(
            rows_matched_by_name("ps | where $it !~ 'x'").as_deref(),
            Some("ps | where name !~ 'x'")
        );
        assert_eq!(
            rows_matched_by_name("ls | get name | where $it =~ 'x'"),
            None
        );
        assert_eq!(
            rows_matched_by_name("open a.log | lines | where $it =~ 'x'"),
            None
        );
        assert_eq!(rows_matched_by_name("ls | where name =~ 'x'"), None);
    }

    #[test]
    fn a_listing_given_to_rename_renames_its_files() {
        assert_eq!(
            listing_renamed_with_mv("ls **/* | where name =~ '.jpeg' | rename 'jpeg' 'jpg' | ls")
                .as_deref(),
            Some(
                "ls **/* | where name =~ '.jpeg' | each {|f| mv $f.name ($f.name | str replace 'jpeg' 'jpg') } | ls"
            )
        );
        assert_eq!(listing_renamed_with_mv("ls | rename $it '.jpg'"), None);
        assert_eq!(listing_renamed_with_mv("ls | get name | rename a b"), None);
        assert_eq!(listing_renamed_with_mv("open a.csv | rename a b"), None);
        assert_eq!(listing_renamed_with_mv("ls | rename -c {name: file}"), None);
    }

    #[test]
    fn files_opened_by_a_glob_give_each_files_figure() {
        assert_eq!(
            opened_glob_per_file("open logs/*.log | lines | where $it =~ 'ERROR' | length")
                .as_deref(),
            Some(
                "ls logs/*.log | insert count {|f| open --raw $f.name | lines | where $it =~ 'ERROR' | length }"
            )
        );
        assert_eq!(
            opened_glob_per_file("open *.csv | get amount | math sum").as_deref(),
            Some("ls *.csv | insert sum {|f| open $f.name | get amount | math sum }")
        );
        assert_eq!(opened_glob_per_file("open a.log | lines | length"), None);
        assert_eq!(opened_glob_per_file("open *.log | lines"), None);
        assert_eq!(opened_glob_per_file("open *.log"), None);
    }

    #[test]
    fn a_program_opened_as_a_file_runs() {
        assert_eq!(
            program_opened_as_file("open ^ss -tln | lines").as_deref(),
            Some("^ss -tln | lines")
        );
        assert_eq!(
            program_opened_as_file("open --raw ^ps").as_deref(),
            Some("^ps")
        );
        assert_eq!(program_opened_as_file("open ss.txt"), None);
        assert_eq!(program_opened_as_file("open ^"), None);
        assert_eq!(program_opened_as_file("ls | open ^x"), None);
    }

    #[test]
    fn a_listing_given_to_a_remove_or_move_is_each_file_removed_or_moved() {
        for (written, fixed) in [
            ("ls *.tmp | remove", "ls *.tmp | each { rm $in.name }"),
            ("ls *.tmp | rm", "ls *.tmp | each { rm $in.name }"),
            (
                "ls | where modified < ((date now) - 1day) | delete -rf",
                "ls | where modified < ((date now) - 1day) | each { rm -r -f $in.name }",
            ),
            (
                "ls *.pdf | move pdf/",
                "ls *.pdf | each { mv $in.name pdf/ }",
            ),
            (
                "ls *.pdf | ^mv 'pdf'",
                "ls *.pdf | each { mv $in.name 'pdf' }",
            ),
        ] {
            assert_eq!(
                listing_removed_or_moved_with_each(written).as_deref(),
                Some(fixed),
                "{written}"
            );
        }
        for untouched in [
            "ls *.tmp | each { rm $in.name }",
            "rm *.tmp",
            "ls | get name | rm",
            "ls *.pdf | mv a b",
            "ls *.pdf | move $dest",
            "open list.txt | lines | remove",
        ] {
            assert_eq!(
                listing_removed_or_moved_with_each(untouched),
                None,
                "{untouched}"
            );
        }
    }

    #[test]
    fn the_rename_programs_call_renames_files_with_mv() {
        let want = "ls **/* | where ($it.name | str contains '.jpeg') | each {|f| mv $f.name ($f.name | str replace '.jpeg' '.jpg') }";
        assert_eq!(
            rename_program_with_mv("rename **/* '.jpeg' '.jpg'").as_deref(),
            Some(want)
        );
        assert_eq!(
            rename_program_with_mv("rename '.jpeg' '.jpg' **/*").as_deref(),
            Some(want)
        );
        assert_eq!(rename_program_with_mv("ls | rename a b c"), None);
        assert_eq!(rename_program_with_mv("rename a b"), None);
        assert_eq!(rename_program_with_mv("rename a b c"), None);
    }
}
