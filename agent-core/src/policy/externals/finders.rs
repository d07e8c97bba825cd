//! Finders: ls, find, fd, rg, tree, du, df, stat, file, which, whereis,
//! locate, getfacl, lsattr, namei.
//!
//! Each program's read-only forms are its option table below; `find`'s
//! expression language is parsed by [`find`]. Anything else asks.

use super::{Arg, Call, Grammar, Long, Options, Parsed, Takes, forbidden};
use crate::policy::{Access, Category, Target};

/// The grammar of `name` when it belongs to this family.
pub(super) fn grammar(name: &str) -> Option<Grammar> {
    Some(match name {
        "ls" | "dir" | "vdir" => ls,
        "find" => find,
        "fd" | "fdfind" => fd,
        "rg" => rg,
        "tree" => tree,
        "du" => du,
        "df" => df,
        "stat" => stat,
        "file" => file,
        "which" => which,
        "whereis" => whereis,
        "locate" | "plocate" | "mlocate" => locate,
        "getfacl" => getfacl,
        "lsattr" => lsattr,
        "namei" => namei,
        _ => return None,
    })
}

/// Parse with `options`; every operand is a file or directory read.
fn read_operands(call: &mut Call<'_>, options: &Options) -> Option<Parsed> {
    let parsed = call.parse(options)?;
    call.read(parsed.operands());
    Some(parsed)
}

/// The values of options that name files the program reads.
fn option_values<'p>(parsed: &'p Parsed, names: &[&str]) -> Vec<&'p Arg> {
    parsed
        .opts()
        .filter(|(n, _)| names.contains(n))
        .filter_map(|(_, v)| v)
        .collect()
}

/// GNU `ls` (and `dir`, `vdir`): every option only changes the listing.
const LS: Options = Options::gnu(
    "aAbBcCdDfFgGhHiI:klLmnNopqQrRsStT:uUvw:xXZ1",
    &[
        Long("all", Takes::Nothing),
        Long("almost-all", Takes::Nothing),
        Long("author", Takes::Nothing),
        Long("escape", Takes::Nothing),
        Long("block-size", Takes::Value),
        Long("ignore-backups", Takes::Nothing),
        Long("color", Takes::Optional),
        Long("colour", Takes::Optional),
        Long("directory", Takes::Nothing),
        Long("dired", Takes::Nothing),
        Long("classify", Takes::Optional),
        Long("file-type", Takes::Nothing),
        Long("format", Takes::Value),
        Long("full-time", Takes::Nothing),
        Long("group-directories-first", Takes::Nothing),
        Long("no-group", Takes::Nothing),
        Long("human-readable", Takes::Nothing),
        Long("si", Takes::Nothing),
        Long("dereference-command-line", Takes::Nothing),
        Long("dereference-command-line-symlink-to-dir", Takes::Nothing),
        Long("hide", Takes::Value),
        Long("hyperlink", Takes::Optional),
        Long("indicator-style", Takes::Value),
        Long("inode", Takes::Nothing),
        Long("ignore", Takes::Value),
        Long("kibibytes", Takes::Nothing),
        Long("dereference", Takes::Nothing),
        Long("numeric-uid-gid", Takes::Nothing),
        Long("literal", Takes::Nothing),
        Long("hide-control-chars", Takes::Nothing),
        Long("show-control-chars", Takes::Nothing),
        Long("quote-name", Takes::Nothing),
        Long("quoting-style", Takes::Value),
        Long("reverse", Takes::Nothing),
        Long("recursive", Takes::Nothing),
        Long("size", Takes::Nothing),
        Long("sort", Takes::Value),
        Long("time", Takes::Value),
        Long("time-style", Takes::Value),
        Long("tabsize", Takes::Value),
        Long("width", Takes::Value),
        Long("context", Takes::Nothing),
        Long("zero", Takes::Nothing),
        Long("help", Takes::Nothing),
        Long("version", Takes::Nothing),
    ],
);

fn ls(call: &mut Call<'_>) {
    read_operands(call, &LS);
}

/// find's options before the start points.
fn find_leading_options(args: &[Arg]) -> usize {
    let mut i = 0;
    while let Some(Arg::Literal(a)) = args.get(i) {
        match a.as_str() {
            "-H" | "-L" | "-P" => i += 1,
            "-D" => i += 2,
            "--" => return i + 1,
            _ if a.len() > 2 && (a.starts_with("-O") || a.starts_with("-D")) => i += 1,
            _ => break,
        }
    }
    i.min(args.len())
}

/// Whether a find argument starts the expression (not a start point).
fn starts_expression(arg: &str) -> bool {
    (arg.starts_with('-') && arg.len() > 1) || matches!(arg, "(" | ")" | "!" | ",")
}

/// find's read-only primaries (tests, global options, printing actions)
/// and how many arguments each takes.
const FIND_PRIMARIES: &[(&str, usize)] = &[
    // Global and positional options.
    ("-maxdepth", 1),
    ("-mindepth", 1),
    ("-depth", 0),
    ("-d", 0),
    ("-xdev", 0),
    ("-mount", 0),
    ("-noleaf", 0),
    ("-follow", 0),
    ("-daystart", 0),
    ("-regextype", 1),
    ("-files0-from", 1),
    ("-ignore_readdir_race", 0),
    ("-noignore_readdir_race", 0),
    ("-warn", 0),
    ("-nowarn", 0),
    ("-help", 0),
    ("--help", 0),
    ("-version", 0),
    ("--version", 0),
    // Tests.
    ("-name", 1),
    ("-iname", 1),
    ("-path", 1),
    ("-ipath", 1),
    ("-wholename", 1),
    ("-iwholename", 1),
    ("-regex", 1),
    ("-iregex", 1),
    ("-type", 1),
    ("-xtype", 1),
    ("-size", 1),
    ("-mtime", 1),
    ("-mmin", 1),
    ("-atime", 1),
    ("-amin", 1),
    ("-ctime", 1),
    ("-cmin", 1),
    ("-newer", 1),
    ("-anewer", 1),
    ("-cnewer", 1),
    ("-perm", 1),
    ("-user", 1),
    ("-group", 1),
    ("-uid", 1),
    ("-gid", 1),
    ("-nouser", 0),
    ("-nogroup", 0),
    ("-empty", 0),
    ("-links", 1),
    ("-inum", 1),
    ("-samefile", 1),
    ("-readable", 0),
    ("-writable", 0),
    ("-executable", 0),
    ("-true", 0),
    ("-false", 0),
    ("-lname", 1),
    ("-ilname", 1),
    ("-used", 1),
    ("-fstype", 1),
    ("-context", 1),
    // Actions that only print.
    ("-print", 0),
    ("-print0", 0),
    ("-printf", 1),
    ("-ls", 0),
    ("-prune", 0),
    ("-quit", 0),
    // Operators.
    ("-not", 0),
    ("-a", 0),
    ("-and", 0),
    ("-o", 0),
    ("-or", 0),
];

/// `-newerXY` (X, Y among `a B c m`, Y also `t`): one argument.
fn is_newer_xy(primary: &str) -> bool {
    let Some(xy) = primary.strip_prefix("-newer") else {
        return false;
    };
    let mut letters = xy.chars();
    matches!(
        (letters.next(), letters.next(), letters.next()),
        (
            Some('a' | 'B' | 'c' | 'm'),
            Some('a' | 'B' | 'c' | 'm' | 't'),
            None
        )
    )
}

/// GNU find: options (`-H -L -P -D -O`), start points (read), then an
/// expression of read-only primaries. `-exec`/`-execdir` run a command,
/// judged on its own with `{}` standing for what is found under the start
/// points (so `-exec grep -c x {} +` reads); `-ok`/`-okdir` ask on a
/// terminal,
/// `-delete` deletes, `-fprint`/`-fprint0`/`-fprintf`/`-fls` write a file.
fn find(call: &mut Call<'_>) {
    let args = call.args;
    let mut i = find_leading_options(args);
    let mut starts: Vec<Arg> = Vec::new();
    while let Some(arg) = args.get(i) {
        match arg {
            Arg::Literal(a) if starts_expression(a) => break,
            _ => starts.push(arg.clone()),
        }
        i += 1;
    }
    if starts.is_empty() {
        starts.push(Arg::Literal(".".into()));
    }
    let mut read_files: Vec<Arg> = Vec::new();
    let mut read_only = true;
    // Whether a test narrows what is found, and whether an operator may
    // widen it again (`!`, `-o`, `,`).
    let mut selects = false;
    let mut widens = false;
    while i < args.len() {
        let Arg::Literal(primary) = &args[i] else {
            // Only known when it runs: the runtime guard judges it again.
            i += 1;
            continue;
        };
        let primary = primary.as_str();
        i += 1;
        if matches!(primary, "(" | ")" | "!" | ",") {
            widens |= primary != "(" && primary != ")";
            continue;
        }
        let takes = FIND_PRIMARIES
            .iter()
            .find(|(name, _)| *name == primary)
            .map(|(_, n)| *n)
            .or_else(|| is_newer_xy(primary).then_some(1));
        if let Some(count) = takes {
            widens |= matches!(primary, "-not" | "-o" | "-or");
            selects |= !FIND_NOT_SELECTING.contains(&primary);
            if i + count > args.len() {
                call.not_read_only(Category::Exec, format!("`{primary}` needs an argument"));
                return;
            }
            if matches!(
                primary,
                "-files0-from" | "-newer" | "-anewer" | "-cnewer" | "-samefile"
            ) {
                read_files.push(args[i].clone());
            }
            i += count;
            continue;
        }
        match primary {
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                let batch_allowed = matches!(primary, "-exec" | "-execdir");
                let begin = i;
                let mut end = None;
                while i < args.len() {
                    let word = args[i].literal();
                    if word == Some(";")
                        || (batch_allowed
                            && word == Some("+")
                            && args.get(i - 1).and_then(Arg::literal) == Some("{}"))
                    {
                        end = Some(i);
                        break;
                    }
                    i += 1;
                }
                let end = end.unwrap_or(args.len());
                // `-exec` is judged as `xargs` is: find itself only reads,
                // and the command it runs is judged on its own. `-ok` asks
                // on the terminal, which a step does not have.
                if !batch_allowed {
                    read_only = false;
                    call.not_read_only(
                        Category::Exec,
                        format!("`{primary}` asks on the terminal before each command"),
                    );
                }
                let inner: Vec<Arg> = args[begin..end]
                    .iter()
                    .flat_map(|a| substitute_found(a, &starts))
                    .collect();
                if let Some((program, rest)) = inner.split_first() {
                    call.run_inner(program, rest);
                }
                i = end + 1;
            }
            "-delete" => {
                read_only = false;
                call.not_read_only(Category::Delete, "`-delete` deletes what it finds");
                // Narrowed by tests (`-name '*.o' -delete`): what it finds
                // under the start points; otherwise the start points whole.
                let narrowed = selects && !widens;
                for start in &starts {
                    let target = if narrowed {
                        found_under(start.text())
                    } else {
                        start.text().to_string()
                    };
                    call.step.targets.push(Target::new(Access::Delete, target));
                }
                call.step.recursive |= !narrowed;
            }
            "-fprint" | "-fprint0" | "-fls" | "-fprintf" => {
                read_only = false;
                let Some(out) = args.get(i) else {
                    call.not_read_only(Category::Write, format!("`{primary}` writes a file"));
                    return;
                };
                call.not_read_only(
                    Category::Write,
                    format!("`{primary}` writes the file {}", out.text()),
                );
                call.writes(out);
                i += if primary == "-fprintf" { 2 } else { 1 };
            }
            _ => {
                call.not_read_only(
                    Category::Exec,
                    format!("`{primary}` is not one of its read-only forms"),
                );
                return;
            }
        }
    }
    if read_only {
        starts.extend(read_files);
        call.read(starts.iter());
    }
}

/// find primaries that select nothing (global options, actions that only
/// print, `-and`).
const FIND_NOT_SELECTING: &[&str] = &[
    "-maxdepth",
    "-mindepth",
    "-depth",
    "-d",
    "-xdev",
    "-mount",
    "-noleaf",
    "-follow",
    "-daystart",
    "-regextype",
    "-files0-from",
    "-ignore_readdir_race",
    "-noignore_readdir_race",
    "-warn",
    "-nowarn",
    "-help",
    "--help",
    "-version",
    "--version",
    "-print",
    "-print0",
    "-printf",
    "-ls",
    "-prune",
    "-quit",
    "-true",
    "-a",
    "-and",
    "-not",
    "-o",
    "-or",
];

/// What find finds under a start point, as a path pattern (`src/*`).
fn found_under(start: &str) -> String {
    if start.ends_with('/') {
        format!("{start}*")
    } else {
        format!("{start}/*")
    }
}

/// `{}` in an `-exec` command stands for what find finds: under the start
/// points.
fn substitute_found(arg: &Arg, starts: &[Arg]) -> Vec<Arg> {
    match arg {
        Arg::Literal(text) if text == "{}" => starts
            .iter()
            .map(|s| Arg::Literal(found_under(s.text())))
            .collect(),
        Arg::Literal(text) if text.contains("{}") => {
            let start = starts.first().map(Arg::text).unwrap_or(".");
            vec![Arg::Literal(text.replace("{}", &found_under(start)))]
        }
        other => vec![other.clone()],
    }
}

/// fd: searches and prints; `-x/--exec` and `-X/--exec-batch` (run a
/// command per result) are not among its read-only forms. `-l` runs `ls`.
const FD: Options = Options::gnu(
    "HIusigFaLp0d:E:t:e:S:o:c:j:1qlhV",
    &[
        Long("hidden", Takes::Nothing),
        Long("no-hidden", Takes::Nothing),
        Long("no-ignore", Takes::Nothing),
        Long("ignore", Takes::Nothing),
        Long("no-ignore-vcs", Takes::Nothing),
        Long("ignore-vcs", Takes::Nothing),
        Long("no-ignore-parent", Takes::Nothing),
        Long("no-global-ignore-file", Takes::Nothing),
        Long("no-require-git", Takes::Nothing),
        Long("unrestricted", Takes::Nothing),
        Long("case-sensitive", Takes::Nothing),
        Long("ignore-case", Takes::Nothing),
        Long("glob", Takes::Nothing),
        Long("regex", Takes::Nothing),
        Long("fixed-strings", Takes::Nothing),
        Long("and", Takes::Value),
        Long("absolute-path", Takes::Nothing),
        Long("relative-path", Takes::Nothing),
        Long("list-details", Takes::Nothing),
        Long("follow", Takes::Nothing),
        Long("no-follow", Takes::Nothing),
        Long("full-path", Takes::Nothing),
        Long("print0", Takes::Nothing),
        Long("max-depth", Takes::Value),
        Long("maxdepth", Takes::Value),
        Long("min-depth", Takes::Value),
        Long("exact-depth", Takes::Value),
        Long("exclude", Takes::Value),
        Long("prune", Takes::Nothing),
        Long("type", Takes::Value),
        Long("extension", Takes::Value),
        Long("size", Takes::Value),
        Long("changed-within", Takes::Value),
        Long("changed-after", Takes::Value),
        Long("change-newer-than", Takes::Value),
        Long("newer", Takes::Value),
        Long("changed-before", Takes::Value),
        Long("change-older-than", Takes::Value),
        Long("older", Takes::Value),
        Long("owner", Takes::Value),
        Long("format", Takes::Value),
        Long("color", Takes::Value),
        Long("hyperlink", Takes::Optional),
        Long("threads", Takes::Value),
        Long("max-results", Takes::Value),
        Long("quiet", Takes::Nothing),
        Long("show-errors", Takes::Nothing),
        Long("base-directory", Takes::Value),
        Long("path-separator", Takes::Value),
        Long("search-path", Takes::Value),
        Long("strip-cwd-prefix", Takes::Optional),
        Long("one-file-system", Takes::Nothing),
        Long("mount", Takes::Nothing),
        Long("xdev", Takes::Nothing),
        Long("ignore-file", Takes::Value),
        Long("help", Takes::Nothing),
        Long("version", Takes::Nothing),
        forbidden("exec"),
        forbidden("exec-batch"),
        forbidden("batch-size"),
    ],
);

fn fd(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&FD) else {
        return;
    };
    if let Some((name, _)) = parsed
        .opts()
        .find(|(n, _)| matches!(*n, "--exec" | "--exec-batch" | "--batch-size"))
    {
        call.not_read_only(
            Category::Exec,
            format!("`{name}` runs a command on every result"),
        );
        return;
    }
    // The first operand is the pattern, the others are paths searched.
    let mut paths: Vec<&Arg> = parsed.operands().skip(1).collect();
    paths.extend(option_values(
        &parsed,
        &["--search-path", "--base-directory", "--ignore-file"],
    ));
    call.read(paths);
}

/// ripgrep's read-only options. `--pre`, `--pre-glob` and
/// `--hostname-bin` run programs, `-z/--search-zip` runs decompressors:
/// they are listed as forbidden (ripgrep takes no abbreviations, so
/// `--pre` must not be read as an abbreviation of `--pretty`).
const RG: Options = Options::gnu(
    "A:B:C:bcd:e:E:f:Fg:hHiIj:lLm:M:nNoOpPqr:sSt:T:uUvVwxy0",
    &[
        Long("after-context", Takes::Value),
        Long("before-context", Takes::Value),
        Long("context", Takes::Value),
        Long("binary", Takes::Nothing),
        Long("no-binary", Takes::Nothing),
        Long("block-buffered", Takes::Nothing),
        Long("no-block-buffered", Takes::Nothing),
        Long("byte-offset", Takes::Nothing),
        Long("no-byte-offset", Takes::Nothing),
        Long("case-sensitive", Takes::Nothing),
        Long("color", Takes::Value),
        Long("colors", Takes::Value),
        Long("column", Takes::Nothing),
        Long("no-column", Takes::Nothing),
        Long("context-separator", Takes::Value),
        Long("no-context-separator", Takes::Nothing),
        Long("count", Takes::Nothing),
        Long("count-matches", Takes::Nothing),
        Long("crlf", Takes::Nothing),
        Long("no-crlf", Takes::Nothing),
        Long("debug", Takes::Nothing),
        Long("trace", Takes::Nothing),
        Long("dfa-size-limit", Takes::Value),
        Long("encoding", Takes::Value),
        Long("no-encoding", Takes::Nothing),
        Long("engine", Takes::Value),
        Long("field-context-separator", Takes::Value),
        Long("field-match-separator", Takes::Value),
        Long("file", Takes::Value),
        Long("files", Takes::Nothing),
        Long("files-with-matches", Takes::Nothing),
        Long("files-without-match", Takes::Nothing),
        Long("fixed-strings", Takes::Nothing),
        Long("no-fixed-strings", Takes::Nothing),
        Long("follow", Takes::Nothing),
        Long("no-follow", Takes::Nothing),
        Long("generate", Takes::Value),
        Long("glob", Takes::Value),
        Long("glob-case-insensitive", Takes::Nothing),
        Long("no-glob-case-insensitive", Takes::Nothing),
        Long("heading", Takes::Nothing),
        Long("no-heading", Takes::Nothing),
        Long("help", Takes::Nothing),
        Long("hidden", Takes::Nothing),
        Long("no-hidden", Takes::Nothing),
        Long("hyperlink-format", Takes::Value),
        Long("iglob", Takes::Value),
        Long("ignore-case", Takes::Nothing),
        Long("ignore-file", Takes::Value),
        Long("ignore-file-case-insensitive", Takes::Nothing),
        Long("no-ignore-file-case-insensitive", Takes::Nothing),
        Long("include-zero", Takes::Nothing),
        Long("no-include-zero", Takes::Nothing),
        Long("invert-match", Takes::Nothing),
        Long("no-invert-match", Takes::Nothing),
        Long("json", Takes::Nothing),
        Long("no-json", Takes::Nothing),
        Long("line-buffered", Takes::Nothing),
        Long("no-line-buffered", Takes::Nothing),
        Long("line-number", Takes::Nothing),
        Long("no-line-number", Takes::Nothing),
        Long("line-regexp", Takes::Nothing),
        Long("max-columns", Takes::Value),
        Long("max-columns-preview", Takes::Nothing),
        Long("no-max-columns-preview", Takes::Nothing),
        Long("max-count", Takes::Value),
        Long("max-depth", Takes::Value),
        Long("maxdepth", Takes::Value),
        Long("max-filesize", Takes::Value),
        Long("mmap", Takes::Nothing),
        Long("no-mmap", Takes::Nothing),
        Long("multiline", Takes::Nothing),
        Long("no-multiline", Takes::Nothing),
        Long("multiline-dotall", Takes::Nothing),
        Long("no-multiline-dotall", Takes::Nothing),
        Long("no-config", Takes::Nothing),
        Long("no-filename", Takes::Nothing),
        Long("with-filename", Takes::Nothing),
        Long("no-ignore", Takes::Nothing),
        Long("ignore", Takes::Nothing),
        Long("no-ignore-dot", Takes::Nothing),
        Long("no-ignore-exclude", Takes::Nothing),
        Long("no-ignore-files", Takes::Nothing),
        Long("no-ignore-global", Takes::Nothing),
        Long("no-ignore-messages", Takes::Nothing),
        Long("no-ignore-parent", Takes::Nothing),
        Long("no-ignore-vcs", Takes::Nothing),
        Long("no-messages", Takes::Nothing),
        Long("messages", Takes::Nothing),
        Long("no-pcre2-unicode", Takes::Nothing),
        Long("no-require-git", Takes::Nothing),
        Long("no-unicode", Takes::Nothing),
        Long("null", Takes::Nothing),
        Long("null-data", Takes::Nothing),
        Long("one-file-system", Takes::Nothing),
        Long("no-one-file-system", Takes::Nothing),
        Long("only-matching", Takes::Nothing),
        Long("passthru", Takes::Nothing),
        Long("passthrough", Takes::Nothing),
        Long("path-separator", Takes::Value),
        Long("pcre2", Takes::Nothing),
        Long("no-pcre2", Takes::Nothing),
        Long("pcre2-version", Takes::Nothing),
        Long("pretty", Takes::Nothing),
        Long("quiet", Takes::Nothing),
        Long("regex-size-limit", Takes::Value),
        Long("regexp", Takes::Value),
        Long("replace", Takes::Value),
        Long("smart-case", Takes::Nothing),
        Long("sort", Takes::Value),
        Long("sortr", Takes::Value),
        Long("sort-files", Takes::Nothing),
        Long("no-sort-files", Takes::Nothing),
        Long("stats", Takes::Nothing),
        Long("no-stats", Takes::Nothing),
        Long("stop-on-nonmatch", Takes::Nothing),
        Long("text", Takes::Nothing),
        Long("no-text", Takes::Nothing),
        Long("threads", Takes::Value),
        Long("trim", Takes::Nothing),
        Long("no-trim", Takes::Nothing),
        Long("type", Takes::Value),
        Long("type-add", Takes::Value),
        Long("type-clear", Takes::Value),
        Long("type-list", Takes::Nothing),
        Long("type-not", Takes::Value),
        Long("unrestricted", Takes::Nothing),
        Long("vimgrep", Takes::Nothing),
        Long("word-regexp", Takes::Nothing),
        Long("auto-hybrid-regex", Takes::Nothing),
        Long("no-auto-hybrid-regex", Takes::Nothing),
        Long("no-search-zip", Takes::Nothing),
        Long("no-pre", Takes::Nothing),
        Long("version", Takes::Nothing),
        forbidden("pre"),
        forbidden("pre-glob"),
        forbidden("hostname-bin"),
        forbidden("search-zip"),
    ],
);

fn rg(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&RG) else {
        return;
    };
    if let Some((name, _)) = parsed
        .opts()
        .find(|(n, _)| matches!(*n, "--pre" | "--pre-glob" | "--hostname-bin"))
    {
        call.not_read_only(
            Category::Exec,
            format!("`{name}` runs a program on the files it searches"),
        );
        return;
    }
    if parsed.has("--search-zip") {
        call.not_read_only(Category::Exec, "`--search-zip` runs decompression programs");
        return;
    }
    // Without -e/-f (or --files, --type-list) the first operand is the pattern.
    let pattern_given = ["-e", "--regexp", "-f", "--file", "--files", "--type-list"]
        .iter()
        .any(|o| parsed.has(o));
    let skip = usize::from(!pattern_given);
    let mut paths: Vec<&Arg> = parsed.operands().skip(skip).collect();
    paths.extend(option_values(&parsed, &["-f", "--file", "--ignore-file"]));
    call.read(paths);
}

/// tree: `-o FILE` writes its output to a file and `-R` (with `-H`)
/// writes `00Tree.html` into every directory: neither is listed.
const TREE: Options = Options::gnu(
    "adlfxL:P:I:qNQpugshDFvtcUrCAXJSniH:T:",
    &[
        Long("gitignore", Takes::Nothing),
        Long("gitfile", Takes::Value),
        Long("ignore-case", Takes::Nothing),
        Long("matchdirs", Takes::Nothing),
        Long("metafirst", Takes::Nothing),
        Long("prune", Takes::Nothing),
        Long("info", Takes::Nothing),
        Long("infofile", Takes::Value),
        Long("noreport", Takes::Nothing),
        Long("charset", Takes::Value),
        Long("filelimit", Takes::Value),
        Long("timefmt", Takes::Value),
        Long("si", Takes::Nothing),
        Long("du", Takes::Nothing),
        Long("inodes", Takes::Nothing),
        Long("device", Takes::Nothing),
        Long("dirsfirst", Takes::Nothing),
        Long("filesfirst", Takes::Nothing),
        Long("sort", Takes::Value),
        Long("nolinks", Takes::Nothing),
        Long("hintro", Takes::Value),
        Long("houtro", Takes::Value),
        Long("fromfile", Takes::Nothing),
        Long("fromtabfile", Takes::Nothing),
        Long("fflinks", Takes::Nothing),
        Long("condense", Takes::Nothing),
        Long("help", Takes::Nothing),
        Long("version", Takes::Nothing),
    ],
);

fn tree(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&TREE) else {
        return;
    };
    let mut paths: Vec<&Arg> = parsed.operands().collect();
    if paths.is_empty() && !parsed.has("--fromfile") && !parsed.has("--fromtabfile") {
        return call.read([&Arg::Literal(".".into())]);
    }
    paths.extend(option_values(
        &parsed,
        &["--gitfile", "--infofile", "--hintro", "--houtro"],
    ));
    call.read(paths);
}

/// GNU du.
const DU: Options = Options::gnu(
    "0abcDhHklLmPsSxX:d:B:t:",
    &[
        Long("null", Takes::Nothing),
        Long("all", Takes::Nothing),
        Long("apparent-size", Takes::Nothing),
        Long("block-size", Takes::Value),
        Long("bytes", Takes::Nothing),
        Long("total", Takes::Nothing),
        Long("dereference-args", Takes::Nothing),
        Long("max-depth", Takes::Value),
        Long("files0-from", Takes::Value),
        Long("human-readable", Takes::Nothing),
        Long("inodes", Takes::Nothing),
        Long("si", Takes::Nothing),
        Long("count-links", Takes::Nothing),
        Long("dereference", Takes::Nothing),
        Long("no-dereference", Takes::Nothing),
        Long("separate-dirs", Takes::Nothing),
        Long("summarize", Takes::Nothing),
        Long("threshold", Takes::Value),
        Long("time", Takes::Optional),
        Long("time-style", Takes::Value),
        Long("exclude-from", Takes::Value),
        Long("exclude", Takes::Value),
        Long("one-file-system", Takes::Nothing),
        Long("help", Takes::Nothing),
        Long("version", Takes::Nothing),
    ],
);

fn du(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&DU) else {
        return;
    };
    let mut paths: Vec<&Arg> = parsed.operands().collect();
    paths.extend(option_values(
        &parsed,
        &["-X", "--exclude-from", "--files0-from"],
    ));
    call.read(paths);
}

/// GNU df (`--output` is a list of fields, not a file).
const DF: Options = Options::gnu(
    "ahHiklPTt:x:B:v",
    &[
        Long("all", Takes::Nothing),
        Long("block-size", Takes::Value),
        Long("human-readable", Takes::Nothing),
        Long("si", Takes::Nothing),
        Long("inodes", Takes::Nothing),
        Long("local", Takes::Nothing),
        Long("no-sync", Takes::Nothing),
        Long("sync", Takes::Nothing),
        Long("output", Takes::Optional),
        Long("portability", Takes::Nothing),
        Long("print-type", Takes::Nothing),
        Long("type", Takes::Value),
        Long("exclude-type", Takes::Value),
        Long("total", Takes::Nothing),
        Long("help", Takes::Nothing),
        Long("version", Takes::Nothing),
    ],
);

fn df(call: &mut Call<'_>) {
    read_operands(call, &DF);
}

/// GNU stat.
const STAT: Options = Options::gnu(
    "Lfc:t",
    &[
        Long("dereference", Takes::Nothing),
        Long("file-system", Takes::Nothing),
        Long("cached", Takes::Value),
        Long("format", Takes::Value),
        Long("printf", Takes::Value),
        Long("terse", Takes::Nothing),
        Long("help", Takes::Nothing),
        Long("version", Takes::Nothing),
    ],
);

fn stat(call: &mut Call<'_>) {
    read_operands(call, &STAT);
}

/// file(1). `-C/--compile` writes `magic.mgc`; `-p/--preserve-date`
/// resets access times; `-S/--no-sandbox` turns its own sandbox off:
/// none is listed. `-m` reads a magic file.
const FILE: Options = Options::gnu(
    "bcdEe:F:f:hiklLm:NnP:rsvzZ0",
    &[
        Long("apple", Takes::Nothing),
        Long("brief", Takes::Nothing),
        Long("checking-printout", Takes::Nothing),
        Long("exclude", Takes::Value),
        Long("exclude-quiet", Takes::Value),
        Long("extension", Takes::Nothing),
        Long("files-from", Takes::Value),
        Long("separator", Takes::Value),
        Long("no-dereference", Takes::Nothing),
        Long("mime", Takes::Nothing),
        Long("mime-type", Takes::Nothing),
        Long("mime-encoding", Takes::Nothing),
        Long("keep-going", Takes::Nothing),
        Long("list", Takes::Nothing),
        Long("dereference", Takes::Nothing),
        Long("magic-file", Takes::Value),
        Long("no-pad", Takes::Nothing),
        Long("no-buffer", Takes::Nothing),
        Long("parameter", Takes::Value),
        Long("raw", Takes::Nothing),
        Long("special-files", Takes::Nothing),
        Long("uncompress", Takes::Nothing),
        Long("uncompress-noreport", Takes::Nothing),
        Long("print0", Takes::Nothing),
        Long("help", Takes::Nothing),
        Long("version", Takes::Nothing),
    ],
);

fn file(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&FILE) else {
        return;
    };
    let mut paths: Vec<&Arg> = parsed.operands().collect();
    paths.extend(option_values(
        &parsed,
        &["-f", "--files-from", "-m", "--magic-file"],
    ));
    call.read(paths);
}

/// which (GNU and Debian): operands are program names.
const WHICH: Options = Options::gnu(
    "asivV",
    &[
        Long("all", Takes::Nothing),
        Long("read-alias", Takes::Nothing),
        Long("skip-alias", Takes::Nothing),
        Long("read-functions", Takes::Nothing),
        Long("skip-functions", Takes::Nothing),
        Long("skip-dot", Takes::Nothing),
        Long("skip-tilde", Takes::Nothing),
        Long("show-dot", Takes::Nothing),
        Long("show-tilde", Takes::Nothing),
        Long("tty-only", Takes::Nothing),
        Long("help", Takes::Nothing),
        Long("version", Takes::Nothing),
    ],
);

fn which(call: &mut Call<'_>) {
    if call.parse(&WHICH).is_some() {
        call.read([]);
    }
}

/// whereis: operands are program names (and the directories of -B/-M/-S).
const WHEREIS: Options = Options::gnu(
    "bmsulBMSfhV",
    &[
        Long("help", Takes::Nothing),
        Long("version", Takes::Nothing),
    ],
);

fn whereis(call: &mut Call<'_>) {
    if call.parse(&WHEREIS).is_some() {
        call.read([]);
    }
}

/// locate, plocate, mlocate: queries the database; `-u`/`-U` (update it)
/// are not listed. `-d` reads another database.
const LOCATE: Options = Options::gnu(
    "Abcd:eELPHil:n:m0Sqr:swNhVp",
    &[
        Long("all", Takes::Nothing),
        Long("basename", Takes::Nothing),
        Long("count", Takes::Nothing),
        Long("database", Takes::Value),
        Long("existing", Takes::Nothing),
        Long("follow", Takes::Nothing),
        Long("nofollow", Takes::Nothing),
        Long("ignore-case", Takes::Nothing),
        Long("limit", Takes::Value),
        Long("mmap", Takes::Nothing),
        Long("null", Takes::Nothing),
        Long("statistics", Takes::Nothing),
        Long("quiet", Takes::Nothing),
        Long("regexp", Takes::Value),
        Long("regex", Takes::Nothing),
        Long("stdio", Takes::Nothing),
        Long("wholename", Takes::Nothing),
        Long("literal", Takes::Nothing),
        Long("help", Takes::Nothing),
        Long("version", Takes::Nothing),
    ],
);

fn locate(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&LOCATE) else {
        return;
    };
    call.read(option_values(&parsed, &["-d", "--database"]));
}

/// getfacl: prints access control lists.
const GETFACL: Options = Options::gnu(
    "adceEsRLPtnp0vh",
    &[
        Long("access", Takes::Nothing),
        Long("default", Takes::Nothing),
        Long("omit-header", Takes::Nothing),
        Long("all-effective", Takes::Nothing),
        Long("no-effective", Takes::Nothing),
        Long("skip-base", Takes::Nothing),
        Long("recursive", Takes::Nothing),
        Long("logical", Takes::Nothing),
        Long("physical", Takes::Nothing),
        Long("tabular", Takes::Nothing),
        Long("numeric", Takes::Nothing),
        Long("absolute-names", Takes::Nothing),
        Long("one-file-system", Takes::Nothing),
        Long("null", Takes::Nothing),
        Long("version", Takes::Nothing),
        Long("help", Takes::Nothing),
    ],
);

fn getfacl(call: &mut Call<'_>) {
    read_operands(call, &GETFACL);
}

/// lsattr: prints file attributes.
const LSATTR: Options = Options::gnu("RVadlpv", &[]);

fn lsattr(call: &mut Call<'_>) {
    read_operands(call, &LSATTR);
}

/// namei: follows a path name to its end.
const NAMEI: Options = Options::gnu(
    "xmolnvZhV",
    &[
        Long("mountpoints", Takes::Nothing),
        Long("modes", Takes::Nothing),
        Long("owners", Takes::Nothing),
        Long("long", Takes::Nothing),
        Long("nosymlinks", Takes::Nothing),
        Long("vertical", Takes::Nothing),
        Long("context", Takes::Nothing),
        Long("help", Takes::Nothing),
        Long("version", Takes::Nothing),
    ],
);

fn namei(call: &mut Call<'_>) {
    read_operands(call, &NAMEI);
}

#[cfg(test)]
mod tests {
    use super::super::examples::{check, is_read_only, judge};
    use crate::policy::{Access, Category};

    const MATCH: &[&str] = &[
        "ls",
        "ls -la",
        "ls -lah --sort=size",
        "ls -lhS src",
        "ls -1 --color=never",
        "ls --color -R src",
        "ls -ltr --time-style=long-iso",
        "ls -I '*.o' --hide=target",
        "ls -w80 -C",
        "ls -- -o",
        "dir -l",
        "vdir",
        "find . -name '*.rs' -mtime -1",
        "find . -type f -name '*.md'",
        "find -L src -maxdepth 2 -type d",
        "find src '(' -name '*.rs' -o -name '*.toml' ')' -print",
        "find . ! -path './target/*' -iname readme",
        "find . -not -name '*.lock' -size +1M -ls",
        "find . -newer Cargo.toml -print0",
        "find . -newermt 2024-01-01 -type f",
        "find . -perm -u+x -type f -printf '%p %s\\n'",
        "find . -name target -prune -o -name '*.rs' -print",
        "find . -empty -user root -quit",
        "find",
        "find -H -O3 . -regextype posix-extended -regex '.*\\.rs'",
        "find / -xdev -mount -noleaf -links +2 -inum 5",
        "find . -mmin -5 , -amin +3",
        "find . -type l -xtype f -lname '*x*'",
        "find . -files0-from list.txt",
        "fd",
        "fd -e rs",
        "fd -H -I pattern src",
        "fd -t f -0 -d 3 foo",
        "fdfind --type file --extension md",
        "fd -l foo",
        "fd --changed-within 1d -E target",
        "rg foo",
        "rg -n -i foo src",
        "rg -S -w -l TODO",
        "rg -c -t rust fn",
        "rg -T js -g '*.rs' --glob '!target' foo",
        "rg --hidden --no-ignore -uu foo",
        "rg -A 3 -B2 -C5 foo",
        "rg -e foo -e bar src",
        "rg -F '(' --json",
        "rg --files",
        "rg --type-list",
        "rg -o -r '$1' 'a(b)'",
        "rg --replace=x foo",
        "rg --pretty foo",
        "rg -nrX foo",
        "rg --sort path --max-count=1 foo",
        "rg -f patterns.txt src",
        "tree",
        "tree -L 2 src",
        "tree -a -I target --dirsfirst",
        "tree -d -L2",
        "tree -H . -T title",
        "tree --gitignore -J",
        "du -sh *",
        "du -sh src Cargo.toml",
        "du -h --max-depth=1 .",
        "du -ah --exclude=target -d 2",
        "du -sb --apparent-size src",
        "df -h",
        "df -hT /",
        "df --output=source,pcent",
        "df -i",
        "stat Cargo.toml",
        "stat -c '%s %n' src/main.rs",
        "stat --format=%Y Cargo.toml",
        "file Cargo.toml",
        "file -b --mime-type notes.md",
        "file -i -L src/main.rs",
        "file -m magic notes.md",
        "file -z archive.gz",
        "which cargo",
        "which -a python3",
        "whereis ls",
        "whereis -b ls",
        "locate foo",
        "locate -i -l 10 foo",
        "plocate -c foo",
        "mlocate -b '\\foo'",
        "getfacl src",
        "getfacl -R -p src",
        "lsattr -d src",
        "namei -l /usr/bin/ls",
    ];

    const NOT_MATCH: &[&str] = &[
        "ls --foo",
        "find . -delete",
        "find . -name '*.o' -delete",
        "find . -exec rm {} ';'",
        "find . -execdir sh -c 'touch x' ';'",
        "find . -ok rm {} ';'",
        "find . -okdir rm {} ';'",
        "find . -fprint out.txt",
        "find . -fprint0 out.txt",
        "find . -fls out.txt",
        "find . -fprintf out.txt '%p'",
        "find . -name",
        "find . -frobnicate",
        "find . -maxdepth 1 -delete -print",
        "fd -x rm",
        "fd --exec rm",
        "fd -X rm",
        "fd --exec-batch rm",
        "fd -Hx rm",
        "fd --exec-b rm",
        "rg --pre cat foo",
        "rg --pre=sh foo",
        "rg --pre-glob '*.pdf' --pre pdftotext foo",
        "rg --hostname-bin ./evil foo",
        "rg -z foo",
        "rg --search-zip foo",
        "rg -nz foo",
        "rg --unknown foo",
        "tree -o out.txt",
        "tree -aoout.txt",
        "tree -R -H .",
        "tree -R",
        "du --foo",
        "df --foo",
        "stat --bogus x",
        "file -C -m magic",
        "file --compile",
        "file -p notes.md",
        "file -S notes.md",
        "which --foo",
        "locate -u",
        "locate -U /",
        "getfacl --set u::rwx x",
        "lsattr -s",
    ];

    #[test]
    fn examples() {
        check(MATCH, NOT_MATCH);
    }

    #[test]
    fn reasons_name_the_form() {
        let plan = judge("tree -o out.txt");
        let reason = &plan.steps[0].floor.as_ref().unwrap().reason;
        assert!(reason.contains("`-o`"), "{reason}");
        let plan = judge("rg --pre cat foo");
        let reason = &plan.steps[0].floor.as_ref().unwrap().reason;
        assert!(reason.contains("--pre"), "{reason}");
        let plan = judge("find . -frobnicate");
        let reason = &plan.steps[0].floor.as_ref().unwrap().reason;
        assert!(reason.contains("-frobnicate"), "{reason}");
    }

    #[test]
    fn find_categories_and_targets() {
        let plan = judge("find build -delete");
        assert_eq!(plan.steps[0].category, Category::Delete);
        assert!(
            plan.steps[0]
                .targets
                .iter()
                .any(|t| t.access == Access::Delete && t.value == "build")
        );
        let plan = judge("find build -name '*.o' -delete");
        assert!(
            plan.steps[0]
                .targets
                .iter()
                .any(|t| t.access == Access::Delete && t.value == "build/*")
        );
        let plan = judge("find build ! -name '*.o' -delete");
        assert!(
            plan.steps[0]
                .targets
                .iter()
                .any(|t| t.access == Access::Delete && t.value == "build")
        );
        let plan = judge("find . -fprint out.txt");
        assert_eq!(plan.steps[0].category, Category::Write);
        assert!(
            plan.steps[0]
                .targets
                .iter()
                .any(|t| t.access == Access::Write && t.value == "out.txt")
        );
        let plan = judge("find . -exec rm -rf {} ';'");
        // find reads; the inner `rm` is judged too, on what is found.
        assert_eq!(plan.steps[0].category, Category::Read);
        assert!(plan.steps.len() > 1, "{:?}", plan.steps);
        assert_eq!(plan.steps[1].category, Category::Delete);
        // A read-only command run on what is found keeps the whole read-only.
        for read in [
            "find . -name '*.rs' -exec cat {} +",
            "find logs -name '*.log' -exec grep -c ERROR {} +",
            "find . -type f -size +10k -exec ls -lh {} ';'",
        ] {
            assert!(is_read_only(&judge(read)), "{read}");
        }
        let plan = judge("find ~/.ssh -exec cat {} +");
        assert!(
            plan.steps[1]
                .targets
                .iter()
                .any(|t| t.access == Access::Read && t.value == "~/.ssh/*"),
            "{:?}",
            plan.steps
        );
        let plan = judge("find / -exec rm -rf / ';'");
        assert!(
            plan.steps[1]
                .targets
                .iter()
                .any(|t| t.access == Access::Delete && t.value == "/"),
            "{:?}",
            plan.steps
        );
    }

    #[test]
    fn start_points_are_read() {
        let plan = judge("find src -name x");
        assert!(is_read_only(&plan));
        assert!(
            plan.steps[0]
                .targets
                .iter()
                .any(|t| t.access == Access::Read && t.value == "src")
        );
        let plan = judge("rg foo src");
        let values: Vec<_> = plan.steps[0].targets.iter().map(|t| &t.value).collect();
        assert_eq!(values, ["src"]);
    }
}
