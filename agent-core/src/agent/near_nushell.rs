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
//! - a file size compared with a bare number (`where size > 1000`): the
//!   number is bytes (`1000b`); Nushell cannot compare the two and, in a
//!   stream, counts the error values as rows (`| length` gives them all);
//! - an aggregate written as a function of a column, as in SQL or pandas
//!   (`math sum(total)`, `math avg price`): `get total | math sum`, and
//!   right after `group-by region` the same per group (`math sum total`
//!   parses, and gives back its input unchanged);
//! - a last `| table`, which turns the data into drawn text;
//! - a pipeline handed to a new `nu` (`nu -c 'ls | length'`): the tool runs
//!   Nushell already, so the pipeline runs as itself, here, under the same
//!   policy (a new `nu` would be a program the policy cannot see into).
//!
//! The forms about a listing of files are in `listing_forms`. Nothing here
//! decides what may run: the fixed pipeline is judged by the policy as any
//! other. Each fix is a rule of `rules::translation`, which names it, says
//! what it serves and applies it in order.

use super::pipeline_text::*;

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
pub(super) const AGGREGATES: &[&str] = &["sum", "avg", "max", "min", "median"];

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

#[cfg(test)]
mod tests;
