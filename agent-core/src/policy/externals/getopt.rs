//! Options parsed the way the program itself parses them (GNU `getopt_long`
//! rules): combined short flags (`-nr`), a short option's value attached or
//! in the next argument (`-oFILE`, `-o FILE`), `--long=value` and
//! `--long value`, unique abbreviations of long options (`--out` for
//! `--output`), `--` ends the options, and (with `permute`) options may
//! follow operands.
//!
//! A grammar lists only the options of a program's read-only forms; any
//! other option is an error that names it, and the caller asks.

use super::Arg;

/// Whether a long option takes a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Takes {
    /// `--name` only.
    Nothing,
    /// `--name=value` or `--name value`.
    Value,
    /// `--name` or `--name=value` (never the next argument).
    Optional,
}

/// One long option: `Long("output", Takes::Value)`.
#[derive(Clone, Copy, Debug)]
pub struct Long(pub &'static str, pub Takes);

/// The options a grammar accepts.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Short options in getopt's notation: a letter alone is a flag, a
    /// letter followed by `:` takes a value (attached or next argument),
    /// followed by `::` an optional value (attached only).
    pub short: &'static str,
    pub long: &'static [Long],
    /// Options may come after operands (GNU); otherwise the first operand
    /// ends the options (POSIX, and programs like `env` and `xargs`).
    pub permute: bool,
    /// `-NUM` is an option (`head -5`, `tail -20`).
    pub numeric: bool,
    /// A single `-` is an operand (stdin), not an error.
    pub dash_is_operand: bool,
}

impl Options {
    /// No options at all; operands only.
    pub const NONE: Options = Options {
        short: "",
        long: &[],
        permute: true,
        numeric: false,
        dash_is_operand: true,
    };

    /// GNU-style options with these short and long forms.
    pub const fn gnu(short: &'static str, long: &'static [Long]) -> Options {
        Options {
            short,
            long,
            permute: true,
            numeric: false,
            dash_is_operand: true,
        }
    }

    /// Options only before the first operand (POSIX `getopt`, `+` mode).
    pub const fn posix(short: &'static str, long: &'static [Long]) -> Options {
        Options {
            short,
            long,
            permute: false,
            numeric: false,
            dash_is_operand: true,
        }
    }

    /// `-NUM` accepted as an option.
    pub const fn with_numeric(mut self) -> Options {
        self.numeric = true;
        self
    }
}

/// One parsed argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// An option by its canonical name (`-n`, `--output`), with its value.
    Opt { name: String, value: Option<Arg> },
    /// An operand (a file, a pattern, a subcommand...).
    Operand(Arg),
}

impl Item {
    /// The option's canonical name, if this is an option.
    pub fn opt(&self) -> Option<&str> {
        match self {
            Item::Opt { name, .. } => Some(name),
            Item::Operand(_) => None,
        }
    }
}

/// What parsing found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Parsed {
    pub items: Vec<Item>,
}

impl Parsed {
    /// The operands in order.
    pub fn operands(&self) -> impl Iterator<Item = &Arg> {
        self.items.iter().filter_map(|i| match i {
            Item::Operand(a) => Some(a),
            Item::Opt { .. } => None,
        })
    }

    /// The literal operands (dynamic ones skipped).
    pub fn literal_operands(&self) -> Vec<&str> {
        self.operands().filter_map(Arg::literal).collect()
    }

    /// Whether option `name` (canonical) was given.
    pub fn has(&self, name: &str) -> bool {
        self.items.iter().any(|i| i.opt() == Some(name))
    }

    /// The options in order, by canonical name.
    pub fn opts(&self) -> impl Iterator<Item = (&str, Option<&Arg>)> {
        self.items.iter().filter_map(|i| match i {
            Item::Opt { name, value } => Some((name.as_str(), value.as_ref())),
            Item::Operand(_) => None,
        })
    }

    /// The value of the last `name` option.
    pub fn value(&self, name: &str) -> Option<&Arg> {
        self.opts()
            .filter(|(n, _)| *n == name)
            .filter_map(|(_, v)| v)
            .last()
    }
}

/// Why an argument list is not one of the grammar's forms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FormError {
    /// An option the grammar does not list (shown as written).
    Unknown(String),
    /// An abbreviation that fits several long options.
    Ambiguous(String),
    /// An option that needs a value got none.
    MissingValue(String),
    /// A long option that takes no value got one (`--all=x`).
    UnexpectedValue(String),
}

impl FormError {
    /// A reason a user can read: "option `-o`".
    pub fn describe(&self) -> String {
        match self {
            FormError::Unknown(o) => format!("option `{o}` is not one of its read-only forms"),
            FormError::Ambiguous(o) => format!("option `{o}` is ambiguous"),
            FormError::MissingValue(o) => format!("option `{o}` needs a value"),
            FormError::UnexpectedValue(o) => format!("option `{o}` takes no value"),
        }
    }
}

/// Parse `args` against `options`.
///
/// A dynamic argument (its text only known when it runs) counts as an
/// operand: the plan marks the step dynamic, and the runtime guard, which
/// sees every value, parses the call again before it runs.
pub fn parse(options: &Options, args: &[Arg]) -> Result<Parsed, FormError> {
    let mut parsed = Parsed::default();
    let mut i = 0;
    let mut only_operands = false;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        let text = match arg {
            Arg::Dynamic(_) => {
                parsed.items.push(Item::Operand(arg.clone()));
                continue;
            }
            Arg::Literal(text) => text.as_str(),
        };
        if only_operands || !text.starts_with('-') || (text == "-" && options.dash_is_operand) {
            parsed.items.push(Item::Operand(arg.clone()));
            if !options.permute {
                only_operands = true;
            }
            continue;
        }
        if text == "--" {
            only_operands = true;
            continue;
        }
        if let Some(long) = text.strip_prefix("--") {
            let (name, attached) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            let found = find_long(options, name)?;
            let value = match (found.1, attached) {
                (Takes::Nothing, Some(_)) => {
                    return Err(FormError::UnexpectedValue(format!("--{}", found.0)));
                }
                (Takes::Nothing, None) | (Takes::Optional, None) => None,
                (_, Some(v)) => Some(Arg::Literal(v.to_string())),
                (Takes::Value, None) => match args.get(i) {
                    Some(next) => {
                        i += 1;
                        Some(next.clone())
                    }
                    None => return Err(FormError::MissingValue(format!("--{}", found.0))),
                },
            };
            parsed.items.push(Item::Opt {
                name: format!("--{}", found.0),
                value,
            });
            continue;
        }
        let letters = &text[1..];
        if options.numeric && letters.chars().all(|c| c.is_ascii_digit()) {
            parsed.items.push(Item::Opt {
                name: "-NUM".into(),
                value: Some(Arg::Literal(letters.to_string())),
            });
            continue;
        }
        for (at, letter) in letters.char_indices() {
            let Some(kind) = short_kind(options.short, letter) else {
                return Err(FormError::Unknown(format!("-{letter}")));
            };
            let rest = &letters[at + letter.len_utf8()..];
            match kind {
                ShortKind::Flag => parsed.items.push(Item::Opt {
                    name: format!("-{letter}"),
                    value: None,
                }),
                ShortKind::Value | ShortKind::Optional if !rest.is_empty() => {
                    parsed.items.push(Item::Opt {
                        name: format!("-{letter}"),
                        value: Some(Arg::Literal(rest.to_string())),
                    });
                    break;
                }
                ShortKind::Optional => {
                    parsed.items.push(Item::Opt {
                        name: format!("-{letter}"),
                        value: None,
                    });
                    break;
                }
                ShortKind::Value => {
                    let Some(next) = args.get(i) else {
                        return Err(FormError::MissingValue(format!("-{letter}")));
                    };
                    i += 1;
                    parsed.items.push(Item::Opt {
                        name: format!("-{letter}"),
                        value: Some(next.clone()),
                    });
                    break;
                }
            }
        }
    }
    Ok(parsed)
}

enum ShortKind {
    Flag,
    Value,
    Optional,
}

fn short_kind(spec: &str, letter: char) -> Option<ShortKind> {
    let letters: Vec<char> = spec.chars().collect();
    let mut i = 0;
    while i < letters.len() {
        let c = letters[i];
        let colons = letters[i + 1..].iter().take_while(|c| **c == ':').count();
        if c == letter && c != ':' {
            return Some(match colons {
                0 => ShortKind::Flag,
                1 => ShortKind::Value,
                _ => ShortKind::Optional,
            });
        }
        i += 1 + colons;
    }
    None
}

/// An exact long name, or the one long option it uniquely abbreviates.
fn find_long(options: &Options, name: &str) -> Result<(&'static str, Takes), FormError> {
    if let Some(Long(n, t)) = options.long.iter().find(|l| l.0 == name) {
        return Ok((n, *t));
    }
    if name.is_empty() {
        return Err(FormError::Unknown("--".into()));
    }
    let mut candidates = options.long.iter().filter(|l| l.0.starts_with(name));
    match (candidates.next(), candidates.next()) {
        (Some(Long(n, t)), None) => Ok((n, *t)),
        (Some(_), Some(_)) => Err(FormError::Ambiguous(format!("--{name}"))),
        (None, _) => Err(FormError::Unknown(format!("--{name}"))),
    }
}

/// A long option that takes no value: `--all`.
pub const fn flag(name: &'static str) -> Long {
    Long(name, Takes::Nothing)
}

/// A long option that takes a value: `--key=3`, `--key 3`.
pub const fn valued(name: &'static str) -> Long {
    Long(name, Takes::Value)
}

/// A long option with an optional attached value: `--color[=WHEN]`.
pub const fn optional(name: &'static str) -> Long {
    Long(name, Takes::Optional)
}

/// The long option names a real program accepts as abbreviations of a
/// write option: a grammar that omits `--output` still refuses `--out`
/// because no listed option starts with `out`. When a listed option
/// *does* share the prefix (`--outline` vs `--output`), `--out` would be
/// accepted as `--outline` only where the program itself would also read
/// it as ambiguous; list the write option as [`forbidden`] so the prefix
/// stays ambiguous, as in the program.
pub const fn forbidden(name: &'static str) -> Long {
    Long(name, Takes::Optional)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(args: &[&str]) -> Vec<Arg> {
        args.iter().map(|a| Arg::Literal(a.to_string())).collect()
    }

    const SORT: Options = Options::gnu(
        "bfnrk:t:",
        &[
            Long("reverse", Takes::Nothing),
            Long("key", Takes::Value),
            Long("numeric-sort", Takes::Nothing),
        ],
    );

    #[test]
    fn combined_and_attached_short_options() {
        let p = parse(&SORT, &lit(&["-nrk2", "f"])).unwrap();
        assert!(p.has("-n") && p.has("-r"));
        assert_eq!(p.value("-k"), Some(&Arg::Literal("2".into())));
        assert_eq!(p.literal_operands(), vec!["f"]);
        assert_eq!(
            parse(&SORT, &lit(&["-oFILE", "f"])),
            Err(FormError::Unknown("-o".into()))
        );
        assert_eq!(
            parse(&SORT, &lit(&["-no", "x"])),
            Err(FormError::Unknown("-o".into()))
        );
    }

    #[test]
    fn long_options_abbreviated_and_with_values() {
        let p = parse(&SORT, &lit(&["--rev", "--key=3", "--numeric", "f"])).unwrap();
        assert!(p.has("--reverse") && p.has("--numeric-sort"));
        assert_eq!(p.value("--key"), Some(&Arg::Literal("3".into())));
        assert_eq!(
            parse(&SORT, &lit(&["--output=x"])),
            Err(FormError::Unknown("--output".into()))
        );
        assert_eq!(
            parse(&SORT, &lit(&["--reverse=1"])),
            Err(FormError::UnexpectedValue("--reverse".into()))
        );
        const TWO: Options =
            Options::gnu("", &[Long("outline", Takes::Nothing), forbidden("output")]);
        assert_eq!(
            parse(&TWO, &lit(&["--out"])),
            Err(FormError::Ambiguous("--out".into()))
        );
    }

    #[test]
    fn double_dash_ends_options_and_permute_decides_order() {
        let p = parse(&SORT, &lit(&["--", "-o", "x"])).unwrap();
        assert_eq!(p.literal_operands(), vec!["-o", "x"]);
        assert!(parse(&SORT, &lit(&["f", "-o"])).is_err());
        let posix = Options::posix("n", &[]);
        let p = parse(&posix, &lit(&["cmd", "-o"])).unwrap();
        assert_eq!(p.literal_operands(), vec!["cmd", "-o"]);
    }

    #[test]
    fn numbers_dashes_and_dynamic_arguments() {
        let head = Options::gnu("n:", &[]).with_numeric();
        assert!(parse(&head, &lit(&["-5", "-"])).unwrap().has("-NUM"));
        let p = parse(&SORT, &[Arg::Dynamic("$x".into())]).unwrap();
        assert_eq!(p.operands().count(), 1);
        let p = parse(
            &SORT,
            &[Arg::Literal("--".into()), Arg::Dynamic("$x".into())],
        )
        .unwrap();
        assert_eq!(p.operands().count(), 1);
        assert_eq!(
            parse(&SORT, &lit(&["-k"])),
            Err(FormError::MissingValue("-k".into()))
        );
    }
}
