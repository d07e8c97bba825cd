//! A change kept to the kinds of file the request names. Asked to "delete
//! the .log files in logs/ that are old", a small model writes `ls logs/ |
//! where modified < … | each { rm $in.name }`, which removes the folder's
//! other old files too. A step that removes or moves files, where the
//! request names kinds of file (`.log files`, `*.tmp`) that its pipeline
//! never mentions, runs with its listing kept to the one kind named (`ls
//! logs/*.log | where modified < … | each { rm $in.name }`), or where that
//! cannot be written, is not run and the model is told how to keep to
//! them.
//! The policy still judges whatever runs; this only keeps a change from
//! reaching past what was asked.

/// The extensions a request names as kinds of file, lowercased and
/// without the dot: `.log files` and `*.tmp` give `log` and `tmp`; a
/// file's own name (`report.pdf`) names no kind.
pub fn named_kinds(request: &str) -> Vec<String> {
    static KIND: std::sync::LazyLock<Option<regex::Regex>> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"(?:^|[\s(`'\x22*])\.([A-Za-z][A-Za-z0-9]{0,7})\b").ok()
    });
    let Some(regex) = KIND.as_ref() else {
        return Vec::new();
    };
    let mut kinds: Vec<String> = regex
        .captures_iter(request)
        .filter_map(|found| found.get(1))
        .map(|kind| kind.as_str().to_lowercase())
        .collect();
    kinds.dedup();
    kinds
}

/// What to do with a step that reaches past the kinds of file a request
/// names.
#[derive(Debug, PartialEq)]
pub enum Reach {
    /// Run this pipeline instead: the step's own, its listing kept to the
    /// one kind named; with the note the model reads.
    Narrowed(String, String),
    /// Do not run it; what the model is told.
    NotRun(String),
}

/// For a step that removes or moves the files a listing gives (`ls … |
/// each { rm … }`) while the request names kinds of file (`kinds`) its
/// pipeline never mentions: the step narrowed to the kind (one kind
/// named, a listing that can be narrowed), else what the model is told
/// instead of running it. `None` when the step keeps to them, changes no
/// listed files (a path named outright, `rm -rf build`, may be another
/// part of the request), or the request names no kind.
pub fn reaches_past(pipeline: &str, kinds: &[String]) -> Option<Reach> {
    let first = pipeline.trim_start();
    if !["ls", "glob"]
        .iter()
        .any(|lister| first == *lister || first.starts_with(&format!("{lister} ")))
    {
        return None;
    }
    static CHANGE: std::sync::LazyLock<Option<regex::Regex>> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"(?:^|[\s{(|;])\^?(rm|mv)\s").ok());
    let kind = kinds.first()?;
    let change = CHANGE.as_ref()?.captures(pipeline)?.get(1)?.as_str();
    let lower = pipeline.to_lowercase();
    let mentions = |kind: &str| {
        lower
            .match_indices(kind)
            .any(|(at, _)| is_word_at(&lower, at, kind.len()))
    };
    if kinds.iter().any(|kind| mentions(kind)) {
        return None;
    }
    let verb = if change == "rm" { "removes" } else { "moves" };
    if let [kind] = kinds
        && let Some(narrowed) = narrowed(pipeline, kind)
    {
        let note = format!("The request is about .{kind} files, and this {verb} files of any kind");
        return Some(Reach::Narrowed(narrowed, note));
    }
    Some(Reach::NotRun(format!(
        "Not run: the request is about .{kind} files, and this {verb} files of any kind. Keep to them: list only those (`ls *.{kind}`) and keep the rest of the pipeline."
    )))
}

/// Whether the `len` bytes at `at` in `text` are a whole word.
fn is_word_at(text: &str, at: usize, len: usize) -> bool {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    !text[..at].chars().next_back().is_some_and(is_word)
        && !text[at + len..].chars().next().is_some_and(is_word)
}

/// `pipeline` with its first element, an `ls` of a folder or a glob,
/// listing only `.kind` files (`ls logs/` → `ls logs/*.kind`, `ls` →
/// `ls *.kind`, `ls **/*` → `ls **/*.kind`); `None` for any other listing.
fn narrowed(pipeline: &str, kind: &str) -> Option<String> {
    let (first, rest) = match super::pipeline_text::split_first(pipeline) {
        Some((first, rest)) => (first.trim(), Some(rest.trim())),
        None => (pipeline.trim(), None),
    };
    let words: Vec<&str> = first.split_whitespace().collect();
    if words.first() != Some(&"ls") {
        return None;
    }
    let paths: Vec<&str> = words[1..]
        .iter()
        .copied()
        .filter(|w| !w.starts_with('-'))
        .collect();
    let flags: Vec<&str> = words[1..]
        .iter()
        .copied()
        .filter(|w| w.starts_with('-'))
        .collect();
    let listed = match paths.as_slice() {
        [] => format!("*.{kind}"),
        [path] if path.contains(['$', '(', '\'', '"', '`', '?', '[']) => return None,
        [path] if path.ends_with('*') => format!("{path}.{kind}"),
        [path] if !path.contains('*') => format!("{}/*.{kind}", path.trim_end_matches('/')),
        _ => return None,
    };
    let mut head = vec!["ls"];
    head.extend(flags);
    head.push(&listed);
    let head = head.join(" ");
    Some(match rest {
        Some(rest) => format!("{head} | {rest}"),
        None => head,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_of_file_are_read_from_the_request() {
        assert_eq!(
            named_kinds("Delete the .log files in logs/ older than a week"),
            ["log"]
        );
        assert_eq!(named_kinds("remove every *.tmp and *.TMP file"), ["tmp"]);
        assert_eq!(
            named_kinds("rename the .jpeg files to .jpg"),
            ["jpeg", "jpg"]
        );
        assert!(named_kinds("move report.pdf into pdf/").is_empty());
        assert!(named_kinds("delete the old files. Keep the rest.").is_empty());
    }

    #[test]
    fn a_change_past_the_named_kinds_is_not_run() {
        let kinds = vec!["log".to_string()];
        let Some(Reach::Narrowed(narrowed, note)) = reaches_past(
            "ls logs/ | where modified < (date now) | each { rm $in.name }",
            &kinds,
        ) else {
            panic!("narrowed")
        };
        assert_eq!(
            narrowed,
            "ls logs/*.log | where modified < (date now) | each { rm $in.name }"
        );
        assert!(note.contains(".log files"), "{note}");
        for (listing, kept) in [
            (
                "ls | each { rm $in.name }",
                "ls *.log | each { rm $in.name }",
            ),
            (
                "ls -a **/* | each { rm $in.name }",
                "ls -a **/*.log | each { rm $in.name }",
            ),
        ] {
            assert!(
                matches!(reaches_past(listing, &kinds), Some(Reach::Narrowed(n, _)) if n == kept),
                "{listing}"
            );
        }
        // Two kinds, or a listing it cannot narrow: not run.
        let two = vec!["log".to_string(), "txt".to_string()];
        assert!(matches!(
            reaches_past("ls logs | each { rm $in.name }", &two),
            Some(Reach::NotRun(_))
        ));
        assert!(matches!(
            reaches_past("ls $dir | each { rm $in.name }", &kinds),
            Some(Reach::NotRun(_))
        ));
        for kept in [
            "ls logs/*.log | where modified < (date now) | each { rm $in.name }",
            "ls logs | where name =~ '\\.log$' | each { rm $in.name }",
            "ls logs | where extension == 'log' | each {|f| rm $f.name }",
            "ls logs | where modified < (date now)",
        ] {
            assert_eq!(reaches_past(kept, &kinds), None, "{kept}");
        }
        assert_eq!(
            reaches_past("ls logs | each { rm $in.name }", &[]),
            None,
            "no kind named"
        );
        assert_eq!(reaches_past("rm -rf build", &kinds), None, "named outright");
        assert!(matches!(
            reaches_past("ls | each {|f| mv $f.name old/ }", &kinds),
            Some(Reach::Narrowed(_, note)) if note.contains("moves")
        ));
    }
}
