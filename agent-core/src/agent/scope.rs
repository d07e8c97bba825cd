//! A change kept to the kinds of file the request names. Asked to "delete
//! the .log files in logs/ that are old", a small model writes `ls logs/ |
//! where modified < … | each { rm $in.name }`, which removes the folder's
//! other old files too. A step that removes or moves files, where the
//! request names kinds of file (`.log files`, `*.tmp`) that its pipeline
//! never mentions, is not run: the model is told how to keep to them.
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

/// For a step that removes or moves the files a listing gives (`ls … |
/// each { rm … }`) while the request names kinds of file (`kinds`) its
/// pipeline never mentions: what the model is told instead of running
/// it. `None` when the step keeps to them, changes no listed files (a
/// path named outright, `rm -rf build`, may be another part of the
/// request), or the request names no kind.
pub fn reaches_past(pipeline: &str, kinds: &[String]) -> Option<String> {
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
    let kept = match listed_folder(pipeline) {
        Some(folder) => format!("`ls {folder}*.{kind} | …`"),
        None => format!("`ls *.{kind} | …`"),
    };
    Some(format!(
        "Not run: the request is about .{kind} files, and this {verb} files of any kind. Keep to them: {kept}."
    ))
}

/// Whether the `len` bytes at `at` in `text` are a whole word.
fn is_word_at(text: &str, at: usize, len: usize) -> bool {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    !text[..at].chars().next_back().is_some_and(is_word)
        && !text[at + len..].chars().next().is_some_and(is_word)
}

/// The folder the pipeline's first `ls` lists (`ls logs/` gives `logs/`),
/// with a slash at its end; `None` for `ls` of the working directory.
fn listed_folder(pipeline: &str) -> Option<String> {
    let first = pipeline.split('|').next()?.trim();
    let mut words = first.split_whitespace();
    if words.next()? != "ls" {
        return None;
    }
    let folder = words.find(|w| !w.starts_with('-'))?;
    if folder.contains(['*', '$', '(']) {
        return None;
    }
    Some(format!("{}/", folder.trim_end_matches('/')))
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
        let told = reaches_past(
            "ls logs/ | where modified < (date now) | each { rm $in.name }",
            &kinds,
        )
        .unwrap();
        assert!(
            told.contains(".log files") && told.contains("`ls logs/*.log | …`"),
            "{told}"
        );
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
        assert!(
            reaches_past("ls | each {|f| mv $f.name old/ }", &kinds)
                .unwrap()
                .contains("moves")
        );
    }
}
