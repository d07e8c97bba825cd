//! The rewrites of a pipeline that ran and failed on an error with an
//! exact fix (the `repair` lever): the error says what Nushell wanted, and
//! the fixed pipeline runs next, in its place (at most twice in a row).
//! Each reads the engine's error, so each example is run in a real engine
//! by the test below. The pipeline work itself is in
//! [`repair`](super::super::repair).

use super::super::levers::Lever;
use super::super::{pipeline_text, repair};
use super::{Call, Example, Kind, Rule, TextRewrite, When, becomes, leaves};
use crate::shell::Diagnostic;

/// A rule of the repair family.
const fn rule(name: &'static str, serves: &'static str, examples: &'static [Example]) -> Rule {
    Rule::of(Kind::Rewrite, Lever::Repair, name, serves, examples)
}

/// The error `call` failed with, when its code is `code`.
fn failed_with<'a>(call: &Call<'a>, code: &str) -> Option<&'a Diagnostic> {
    call.error
        .filter(|error| error.code.as_deref() == Some(code))
}

/// The exact fixes, in the order they are tried: the first that fixes the
/// pipeline is the one that runs.
pub static EXACT_FIXES: &[TextRewrite] = &[
    TextRewrite {
        rule: rule(
            "field-of-each-line",
            "`lines | split row ' ' | get 1` takes the second word of all the lines together; awk's `$2` is each line's",
            &[
                becomes(
                    "\"a GET x\\nb GET y\" | lines | split row ' ' | get 1 | uniq --count",
                    "\"a GET x\\nb GET y\" | lines | each { split row ' ' | get 1 } | uniq --count",
                ),
                leaves("\"a b\" | split row ' ' | get 2"),
            ],
        ),
        when: When::Failed,
        apply: |call| {
            call.error?;
            Some((repair::field_of_each_line(call.pipeline)?, "`lines | split row ' '` makes one list of all the lines' words; a field of each line is `each { split row ' ' | get 1 }`".into()))
        },
    },
    TextRewrite {
        rule: rule(
            "value-not-opened",
            "`open` reads a file by its name; a variable that holds data is that data already",
            &[
                becomes(
                    "'[[a]; [1]]' | from nuon | open $in | get a",
                    "'[[a]; [1]]' | from nuon | $in | get a",
                ),
                leaves("let name = 'missing.txt'; open $name"),
            ],
        ),
        when: When::Failed,
        apply: |call| {
            let error = failed_with(call, "nu::shell::cant_convert")?;
            // Only where the value `open` was given is what could not be
            // made a file name (a later element's error leaves it alone).
            let (pipeline, value) = repair::value_not_opened(call.pipeline)?;
            error
                .labels
                .iter()
                .any(|label| label.text.ends_with("to string") && label.snippet == value)
                .then(|| (pipeline, format!(
                        "`open` reads a file by its name; `{value}` already holds the data: `{value} | …`"
                    )))
        },
    },
    TextRewrite {
        rule: rule(
            "rows-counted-per-group",
            "`group-by` gives a record of groups, which `length` does not count",
            &[
                becomes(
                    "[[g]; [a] [b] [a]] | group-by g | length",
                    "[[g]; [a] [b] [a]] | group-by g --to-table | update items { length } | rename g count",
                ),
                leaves("{a: 1} | length"),
            ],
        ),
        when: When::Failed,
        apply: |call| {
            let error = failed_with(call, "nu::shell::only_supports_this_input_type")?;
            let on_groups = error
                .labels
                .iter()
                .any(|label| label.text.contains("input type: record<"));
            if !on_groups {
                return None;
            }
            Some((repair::rows_counted_per_group(call.pipeline)?, "`group-by` gives a record of groups; rows per group are `group-by g --to-table | update items { length }`".into()))
        },
    },
    TextRewrite {
        rule: rule(
            "extension-column",
            "`ls` has no extension column; a file's is made from its name with `path parse`",
            &[
                becomes(
                    "ls | get extension",
                    "ls | insert extension {|f| $f.name | path parse | get extension } | get extension",
                ),
                leaves("ls | get owner"),
            ],
        ),
        when: When::Failed,
        apply: |call| {
            let error = failed_with(call, "nu::shell::column_not_found")?;
            let column = error.message.split('\'').nth(1)?;
            Some((
                repair::with_extension_column(call.pipeline, column)?,
                format!(
                    "`ls` has no `{column}` column; a file's is `$f.name | path parse | get extension`"
                ),
            ))
        },
    },
    TextRewrite {
        rule: rule(
            "row-matched-as-text",
            "`=~` matches text; a table's row is matched as the text of its values",
            &[
                becomes(
                    "[[a b]; [x y] [z w]] | where $it =~ 'x'",
                    "[[a b]; [x y] [z w]] | where ($it | values | str join ' ') =~ 'x'",
                ),
                leaves("[1 2] | where $it =~ 'x'"),
            ],
        ),
        when: When::Failed,
        apply: |call| {
            let error = failed_with(call, "nu::shell::operator_unsupported_type")?;
            let message = &error.message;
            let on_rows = (message.contains("'=~'") || message.contains("'!~'"))
                && message.contains("'record<");
            if !on_rows {
                return None;
            }
            Some((repair::rows_matched_as_text(call.pipeline)?, "a row is matched as the text of its values: `($it | values | str join ' ') =~ 'x'`".into()))
        },
    },
    TextRewrite {
        rule: rule(
            "date-compared-as-date",
            "a date compares with a date; a date written as text is made one with `into datetime`",
            &[
                becomes(
                    "[[modified]; [(date now)]] | where modified < '2023-01-01'",
                    "[[modified]; [(date now)]] | where modified < ('2023-01-01' | into datetime)",
                ),
                leaves("[[modified]; [(date now)]] | where modified < 3"),
            ],
        ),
        when: When::Failed,
        apply: |call| {
            let error = failed_with(call, "nu::shell::operator_incompatible_types")?;
            let message = &error.message;
            if !(message.contains("'datetime'") && message.contains("'string'")) {
                return None;
            }
            Some((
                repair::with_dates_as_dates(call.pipeline)?,
                "a date compares with a date, not with text".into(),
            ))
        },
    },
    TextRewrite {
        rule: rule(
            "number-compared-as-size",
            "a file size compares with a size; a bare number beside it is bytes",
            &[
                becomes(
                    "let n = 10; [[size]; [1kb]] | where size > 10",
                    "let n = 10; [[size]; [1kb]] | where size > 10b",
                ),
                leaves("let n = 10; [[size]; [1kb]] | where size > $n"),
            ],
        ),
        when: When::Failed,
        apply: |call| literal_of_the_other_type(call, Literal::NumberAsSize),
    },
    TextRewrite {
        rule: rule(
            "size-compared-as-number",
            "a number compares with a number; a size in bytes beside it is its number",
            &[
                becomes(
                    "[[rows]; [3]] | where rows > 0b",
                    "[[rows]; [3]] | where rows > 0",
                ),
                leaves("[[rows]; [3]] | where rows > 1kb"),
            ],
        ),
        when: When::Failed,
        apply: |call| literal_of_the_other_type(call, Literal::SizeAsNumber),
    },
];

/// Which literal a comparison of two types is rewritten in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Literal {
    /// A bare number compared with a file size: `10` → `10b`.
    NumberAsSize,
    /// A size in bytes compared with a number: `0b` → `0`.
    SizeAsNumber,
}

/// `call`, which failed on a comparison of a file size and a number, with
/// its literal side written in the other side's type; `None` where that
/// is not exact (the literal is a variable, or a size in other units).
fn literal_of_the_other_type(call: &Call<'_>, literal: Literal) -> Option<(String, String)> {
    let error = failed_with(call, "nu::shell::operator_incompatible_types")?;
    let (types, literal_type) = match literal {
        Literal::NumberAsSize => ("Types 'filesize' and 'int'", "int"),
        Literal::SizeAsNumber => ("Types 'int' and 'filesize'", "filesize"),
    };
    if !error.message.contains(types) {
        return None;
    }
    let label = error.labels.iter().find(|label| {
        label.text == literal_type && label.snippet.chars().all(|c| c.is_ascii_alphanumeric())
    })?;
    let written = label.snippet.as_str();
    let fixed_literal = match literal {
        Literal::NumberAsSize => {
            written.parse::<u64>().ok()?;
            format!("{written}b")
        }
        Literal::SizeAsNumber => {
            let number = written.strip_suffix(['b', 'B'])?;
            number.parse::<u64>().ok()?;
            number.to_string()
        }
    };
    let pipeline = call.pipeline;
    let start = pipeline_text::char_offset(pipeline, label.line, label.column)?;
    let end = start + written.len();
    if pipeline.get(start..end) != Some(written)
        || pipeline[end..].starts_with(|c: char| c.is_ascii_alphanumeric())
    {
        return None;
    }
    let note = match literal {
        Literal::NumberAsSize => {
            format!("a file size compares with a size: `{fixed_literal}` for `{written}`")
        }
        Literal::SizeAsNumber => {
            format!("a number compares with a number: `{fixed_literal}` for `{written}`")
        }
    };
    Some((
        format!("{}{fixed_literal}{}", &pipeline[..start], &pipeline[end..]),
        note,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shell::{Engine, Limits, Session, SessionSeed};

    #[test]
    fn each_exact_fix_gives_its_examples_on_the_error_it_runs_into() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["a.csv", "b.csv", "c.md"] {
            std::fs::write(dir.path().join(name), "x").unwrap();
        }
        let mut session = Session::new(
            Engine::standard(),
            SessionSeed::new(dir.path().to_path_buf()),
        )
        .unwrap();
        let limits = Limits::default();
        let mut wrong = Vec::new();
        for fix in EXACT_FIXES {
            for example in fix.rule.examples {
                let outcome = session.run(example.given, &limits);
                let error = outcome.error.as_ref();
                let name = fix.rule.name;
                let Some(diagnostic) = error else {
                    wrong.push(format!("{name}: `{}` must fail as given", example.given));
                    continue;
                };
                let call = Call {
                    pipeline: example.given,
                    error,
                    facts: None,
                    cwd: None,
                };
                let gives = super::super::Rewrite::rewrite(fix, &call).map(|done| done.pipeline);
                if gives.as_deref() != example.gives {
                    wrong.push(format!(
                        "{name}: `{}` ({:?}, {:?}) gave {gives:?}",
                        example.given, diagnostic.code, diagnostic.message
                    ));
                }
                if let Some(fixed) = example.gives
                    && let Some(error) = session.run(fixed, &limits).error
                {
                    wrong.push(format!("{name}: `{fixed}` fails: {}", error.message));
                }
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }
}
