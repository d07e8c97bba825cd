//! What a small model writes about a listing of files that Nushell reads
//! otherwise, made Nushell where the fix is exact:
//! - `rename $f.name new` in a closure over files: Nushell's `rename`
//!   renames columns; a file is renamed with `mv`; so are the files of a
//!   listing given to `rename 'a' 'b'`, and the rename program's call with
//!   nothing piped in (`rename '.a' '.b' *.a`, or the glob first);
//! - the files of a listing given to a remove or move that takes no input
//!   (`ls *.tmp | rm`): each file removed or moved;
//! - a row of `ls` or `ps` matched as text (`where $it =~ '.log'`), which
//!   is its name (`where name =~ '.log'`);
//! - an aggregate of a whole `ls` listing (`ls | math sum`), which is of
//!   its `size`; `lines` of a listing (`ls *.log | lines | …`), which are
//!   each listed file's lines;
//! - a listed file's size made from its contents (`size: (open $f.name |
//!   length)`), which is its `size` column (`size: $f.size`);
//! - folders kept by their `size` from an `ls` without `--du` (the size of
//!   a folder's entry, never of what it holds).
//!
//! Nothing here decides what may run. Each fix is a rule of
//! `rules::translation`.

use super::near_nushell::AGGREGATES;
use super::pipeline_text::*;

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
pub(super) fn listing_removed_or_moved_with_each(pipeline: &str) -> Option<String> {
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
pub(super) fn listing_given_to(pipeline: &str, verbs: &[&str]) -> Option<String> {
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
pub(super) fn is_literal_text(word: &str) -> bool {
    let inner = word.trim_matches(|c| c == '\'' || c == '"');
    !inner.is_empty()
        && !word.starts_with('-')
        && !inner.contains(['$', '(', ')', '{', '}', '\'', '"'])
}

/// The closure over listed files that renames each, `from` in its name
/// made `to`, with `mv`.
pub(super) fn renamed_with_mv(from: &str, to: &str) -> String {
    format!("each {{|f| mv $f.name ($f.name | str replace {from} {to}) }}")
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
    let first = super::pipeline_text::first_element(pipeline).trim();
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
pub(super) const DATA_EXTENSIONS: &[&str] = &[
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
