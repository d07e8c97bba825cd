//! The engine's own knowledge, per request: the embedded engine's commands
//! ranked against the request's words (BM25 over each command's name,
//! search terms, description and examples, as `help --find` would search
//! them), and the best few told with the request, each with its usage and
//! the example that fits the request best. What a model needs to write a
//! command it half knows comes from the engine that will run it — its
//! signatures and its tested examples — not from a hand-written cheat
//! sheet. Lever: `engine-docs`.

use std::collections::HashMap;

use nu_protocol::engine::EngineState;

/// Commands told with a request.
const TOLD: usize = 4;
/// The first line of the note.
pub(crate) const HEADING: &str = "Commands of this Nushell that may fit (from its help):";
/// BM25's term-frequency saturation and length normalisation.
const K1: f64 = 1.2;
const B: f64 = 0.75;
/// Words that say nothing about which command fits.
const STOP_WORDS: &[&str] = &[
    "a",
    "an",
    "the",
    "and",
    "or",
    "of",
    "in",
    "on",
    "at",
    "to",
    "for",
    "from",
    "with",
    "by",
    "is",
    "are",
    "be",
    "it",
    "its",
    "this",
    "that",
    "these",
    "those",
    "all",
    "each",
    "every",
    "me",
    "my",
    "i",
    "you",
    "your",
    "what",
    "which",
    "how",
    "do",
    "does",
    "please",
    "can",
    "show",
    "print",
    "display",
    "get",
    "give",
    "tell",
    "there",
    "here",
    "into",
    "as",
    "than",
    "current",
    "directory",
    "folder",
    "under",
    "named",
    "name",
    "whose",
    "their",
    "them",
    "then",
    "only",
    "any",
    "some",
    "one",
    "more",
    "most",
    "using",
    "use",
];

/// A command as the index holds it.
struct Doc {
    name: String,
    usage: String,
    description: String,
    /// `(code, what it does)` of each example.
    examples: Vec<(String, String)>,
    terms: HashMap<String, f64>,
    length: f64,
}

/// The note added to a request: the commands that fit it best, or `None`
/// when none shares a word with it.
pub(crate) fn note(engine: &EngineState, request: &str) -> Option<String> {
    let query = words(request);
    if query.is_empty() {
        return None;
    }
    let docs = index(engine);
    let ranked = rank(&docs, &query);
    if ranked.is_empty() {
        return None;
    }
    let lines: Vec<String> = ranked
        .into_iter()
        .take(TOLD)
        .map(|doc| {
            let mut line = format!("- `{}`: {}", doc.usage, doc.description);
            if let Some((code, what)) = best_example(doc, &query) {
                line.push_str(&format!(" e.g. `{code}` ({what})"));
            }
            line
        })
        .collect();
    Some(format!("{HEADING}\n{}", lines.join("\n")))
}

/// Every builtin command of `engine` (no aliases, custom commands,
/// plugins or deprecated ones).
fn index(engine: &EngineState) -> Vec<Doc> {
    let mut docs = Vec::new();
    for (_, id) in engine.get_decls_sorted(false) {
        let decl = engine.get_decl(id);
        if !decl.is_builtin() || !decl.deprecation_info().is_empty() {
            continue;
        }
        let signature = decl.signature();
        let name = signature.name.clone();
        let description = first_sentence(decl.description());
        if description.to_lowercase().contains("deprecated") {
            continue;
        }
        let examples: Vec<(String, String)> = decl
            .examples()
            .iter()
            .map(|e| (e.example.to_string(), first_sentence(e.description)))
            .collect();
        let mut terms: HashMap<String, f64> = HashMap::new();
        let mut add = |text: &str, weight: f64| {
            for word in words(text) {
                *terms.entry(word).or_default() += weight;
            }
        };
        add(&name, 3.0);
        add(&signature.search_terms.join(" "), 2.0);
        add(&description, 1.0);
        for (code, what) in &examples {
            add(what, 0.5);
            add(code, 0.5);
        }
        let length = terms.values().sum();
        docs.push(Doc {
            usage: usage(&signature),
            name,
            description,
            examples,
            terms,
            length,
        });
    }
    docs
}

/// The docs sharing a word with `query`, best first (BM25).
fn rank<'a>(docs: &'a [Doc], query: &[String]) -> Vec<&'a Doc> {
    let count = docs.len() as f64;
    let average = docs.iter().map(|d| d.length).sum::<f64>() / count.max(1.0);
    let idf = |word: &str| {
        let holding = docs.iter().filter(|d| d.terms.contains_key(word)).count() as f64;
        ((count - holding + 0.5) / (holding + 0.5) + 1.0).ln()
    };
    let weights: Vec<(String, f64)> = query.iter().map(|w| (w.clone(), idf(w))).collect();
    let mut scored: Vec<(f64, &Doc)> = docs
        .iter()
        .map(|doc| {
            let score = weights
                .iter()
                .filter_map(|(word, idf)| {
                    let tf = *doc.terms.get(word)?;
                    let norm = K1 * (1.0 - B + B * doc.length / average.max(1.0));
                    Some(idf * tf * (K1 + 1.0) / (tf + norm))
                })
                .sum::<f64>();
            (score, doc)
        })
        .filter(|(score, _)| *score > 0.0)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.name.cmp(&b.1.name)));
    scored.into_iter().map(|(_, doc)| doc).collect()
}

/// The example of `doc` sharing most words with `query` (the first one
/// when none shares any).
fn best_example<'a>(doc: &'a Doc, query: &[String]) -> Option<&'a (String, String)> {
    let shared = |example: &(String, String)| {
        let text = words(&format!("{} {}", example.0, example.1));
        query.iter().filter(|w| text.contains(w)).count()
    };
    let best = doc.examples.iter().map(shared).max()?;
    doc.examples.iter().find(|e| shared(e) == best)
}

/// `name <required> [optional] ...rest`.
fn usage(signature: &nu_protocol::Signature) -> String {
    let mut text = signature.name.clone();
    for arg in &signature.required_positional {
        text.push_str(&format!(" <{}>", arg.name));
    }
    for arg in &signature.optional_positional {
        text.push_str(&format!(" [{}]", arg.name));
    }
    if let Some(rest) = &signature.rest_positional {
        text.push_str(&format!(" ...{}", rest.name));
    }
    text
}

/// The words of `text` that can tell commands apart: lower case, stop
/// words dropped, a plural's `s` dropped.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() > 1)
        .map(str::to_lowercase)
        .filter(|w| !STOP_WORDS.contains(&w.as_str()))
        .map(|w| stem(&w))
        .collect()
}

fn stem(word: &str) -> String {
    if let Some(base) = word.strip_suffix("ies").filter(|b| b.len() >= 3) {
        return format!("{base}y");
    }
    for suffix in ["sses", "xes", "ches", "shes"] {
        if word.ends_with(suffix) {
            return word[..word.len() - 2].to_string();
        }
    }
    match word.strip_suffix('s') {
        Some(base) if base.len() >= 3 && !base.ends_with(['s', 'u', 'i']) => base.to_string(),
        _ => word.to_string(),
    }
}

fn first_sentence(text: &str) -> String {
    let line = text.lines().next().unwrap_or("").trim();
    let cut = line.find(". ").map_or(line, |at| &line[..at]);
    let cut = cut.trim_end_matches('.');
    if cut.chars().count() > 120 {
        let mut short: String = cut.chars().take(117).collect();
        short.push('…');
        short
    } else {
        cut.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shell::Engine;

    fn told(request: &str) -> Vec<String> {
        let engine = Engine::standard();
        let docs = index(engine.state());
        rank(&docs, &words(request))
            .into_iter()
            .take(TOLD)
            .map(|d| d.name.clone())
            .collect()
    }

    #[test]
    fn the_engine_s_own_commands_are_found_by_the_request_s_words() {
        // Each request's words meet a command's name, search terms or
        // description, never a list written here.
        for (request, command) in [
            ("count the lines of notes.txt", "lines"),
            ("sort the rows by size", "sort-by"),
            (
                "find every file matching *.log recursively with a glob",
                "glob",
            ),
            ("sum of the price column", "math sum"),
        ] {
            let found = told(request);
            assert!(found.iter().any(|c| c == command), "{request}: {found:?}");
        }
    }

    #[test]
    fn a_note_gives_usage_and_an_example_and_nothing_for_no_words() {
        let engine = Engine::standard();
        let text = note(engine.state(), "sort the rows by size").unwrap();
        assert!(text.contains("`sort-by"), "{text}");
        assert!(text.contains("e.g. `"), "{text}");
        assert!(text.lines().count() <= TOLD + 1, "{text}");
        assert_eq!(note(engine.state(), "the of a"), None);
    }

    #[test]
    fn plurals_meet_their_singular() {
        assert_eq!(words("Files and directories"), ["file", "directory"]);
        assert_eq!(
            words("process processes status"),
            ["process", "process", "status"]
        );
    }
}
