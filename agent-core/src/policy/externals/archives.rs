//! Archives and compressors: tar, unzip, zipinfo, gzip, xz, bzip2, zstd,
//! lz4, 7z, ar, cpio. Only their listing and testing forms (and the forms
//! that decompress to standard output) are read-only; every form that
//! extracts, creates or replaces files asks, with the files as targets.

use super::{Arg, Call, Grammar, Long, Options, Parsed, Takes, forbidden};
use crate::policy::{Access, Category, Target};

/// The grammar of `name` when it belongs to this family.
pub(super) fn grammar(name: &str) -> Option<Grammar> {
    Some(match name {
        "tar" | "gtar" => tar,
        "unzip" => unzip,
        "zip" => zip,
        "zipinfo" => zipinfo,
        "gzip" | "gunzip" | "zcat" => gzip,
        "xz" | "unxz" | "xzcat" | "lzma" | "unlzma" | "lzcat" => xz,
        "bzip2" | "bunzip2" | "bzcat" => bzip2,
        "zstd" | "unzstd" | "zstdcat" | "zstdmt" => zstd,
        "lz4" | "unlz4" | "lz4cat" => lz4,
        "7z" | "7za" | "7zr" => seven_zip,
        "ar" => ar,
        "cpio" => cpio,
        _ => return None,
    })
}

/// Marks `path` as deleted by this form.
fn deletes(call: &mut Call<'_>, path: &Arg) {
    call.step
        .targets
        .push(Target::new(Access::Delete, path.text()));
}

/// The values of the options `names`, in order.
fn values<'p>(parsed: &'p Parsed, names: &[&str]) -> Vec<&'p Arg> {
    parsed
        .opts()
        .filter(|(n, _)| names.contains(n))
        .filter_map(|(_, v)| v)
        .collect()
}

/// An archive name that tar and cpio open on another machine through
/// `rsh`/`rmt`: a colon with no slash before it (`host:file`).
fn is_remote_archive(name: &str) -> bool {
    match name.find(':') {
        Some(at) if at > 0 => !name[..at].contains('/'),
        _ => false,
    }
}

/// Whether `letter` takes a value in getopt notation `spec`.
fn takes_value(spec: &str, letter: char) -> bool {
    let mut chars = spec.chars().peekable();
    while let Some(c) = chars.next() {
        let valued = chars.peek() == Some(&':');
        while chars.peek() == Some(&':') {
            chars.next();
        }
        if c == letter {
            return valued;
        }
    }
    false
}

const TAR_SHORT: &str = "AcdtruxaBhiklmMnoOpPRsSUvwWzZjJGK:b:C:f:F:g:H:I:L:N:T:V:X:";

/// GNU tar. Modes: `-t/--list` and `-d/--diff/--compare` only read;
/// `-c -x -r -u -A --delete` write. Options that run programs or write
/// side files are listed (as forbidden) only to be refused by name.
const TAR: Options = Options::gnu(
    TAR_SHORT,
    &[
        Long("list", Takes::Nothing),
        Long("diff", Takes::Nothing),
        Long("compare", Takes::Nothing),
        Long("test-label", Takes::Nothing),
        Long("extract", Takes::Nothing),
        Long("get", Takes::Nothing),
        Long("create", Takes::Nothing),
        Long("append", Takes::Nothing),
        Long("update", Takes::Nothing),
        Long("catenate", Takes::Nothing),
        Long("concatenate", Takes::Nothing),
        Long("delete", Takes::Nothing),
        Long("file", Takes::Value),
        Long("directory", Takes::Value),
        Long("files-from", Takes::Value),
        Long("exclude-from", Takes::Value),
        Long("exclude", Takes::Value),
        Long("exclude-vcs", Takes::Nothing),
        Long("exclude-vcs-ignores", Takes::Nothing),
        Long("exclude-caches", Takes::Nothing),
        Long("exclude-backups", Takes::Nothing),
        Long("wildcards", Takes::Nothing),
        Long("no-wildcards", Takes::Nothing),
        Long("wildcards-match-slash", Takes::Nothing),
        Long("no-wildcards-match-slash", Takes::Nothing),
        Long("anchored", Takes::Nothing),
        Long("no-anchored", Takes::Nothing),
        Long("ignore-case", Takes::Nothing),
        Long("no-ignore-case", Takes::Nothing),
        Long("recursion", Takes::Nothing),
        Long("no-recursion", Takes::Nothing),
        Long("null", Takes::Nothing),
        Long("no-null", Takes::Nothing),
        Long("verbatim-files-from", Takes::Nothing),
        Long("no-verbatim-files-from", Takes::Nothing),
        Long("unquote", Takes::Nothing),
        Long("no-unquote", Takes::Nothing),
        Long("occurrence", Takes::Optional),
        Long("gzip", Takes::Nothing),
        Long("gunzip", Takes::Nothing),
        Long("ungzip", Takes::Nothing),
        Long("bzip2", Takes::Nothing),
        Long("xz", Takes::Nothing),
        Long("lzip", Takes::Nothing),
        Long("lzma", Takes::Nothing),
        Long("lzop", Takes::Nothing),
        Long("zstd", Takes::Nothing),
        Long("compress", Takes::Nothing),
        Long("uncompress", Takes::Nothing),
        Long("auto-compress", Takes::Nothing),
        Long("no-auto-compress", Takes::Nothing),
        Long("verbose", Takes::Nothing),
        Long("block-number", Takes::Nothing),
        Long("totals", Takes::Optional),
        Long("full-time", Takes::Nothing),
        Long("utc", Takes::Nothing),
        Long("quoting-style", Takes::Value),
        Long("quote-chars", Takes::Value),
        Long("no-quote-chars", Takes::Value),
        Long("show-transformed-names", Takes::Nothing),
        Long("show-stored-names", Takes::Nothing),
        Long("transform", Takes::Value),
        Long("xform", Takes::Value),
        Long("strip-components", Takes::Value),
        Long("to-stdout", Takes::Nothing),
        Long("ignore-zeros", Takes::Nothing),
        Long("ignore-failed-read", Takes::Nothing),
        Long("blocking-factor", Takes::Value),
        Long("record-size", Takes::Value),
        Long("format", Takes::Value),
        Long("posix", Takes::Nothing),
        Long("label", Takes::Value),
        Long("starting-file", Takes::Value),
        Long("seek", Takes::Nothing),
        Long("no-seek", Takes::Nothing),
        Long("sparse", Takes::Nothing),
        Long("force-local", Takes::Nothing),
        Long("absolute-names", Takes::Nothing),
        Long("dereference", Takes::Nothing),
        Long("hard-dereference", Takes::Nothing),
        Long("check-links", Takes::Nothing),
        Long("one-file-system", Takes::Nothing),
        Long("numeric-owner", Takes::Nothing),
        Long("same-owner", Takes::Nothing),
        Long("no-same-owner", Takes::Nothing),
        Long("same-permissions", Takes::Nothing),
        Long("no-same-permissions", Takes::Nothing),
        Long("preserve-permissions", Takes::Nothing),
        Long("acls", Takes::Nothing),
        Long("no-acls", Takes::Nothing),
        Long("selinux", Takes::Nothing),
        Long("no-selinux", Takes::Nothing),
        Long("xattrs", Takes::Nothing),
        Long("no-xattrs", Takes::Nothing),
        Long("xattrs-include", Takes::Value),
        Long("xattrs-exclude", Takes::Value),
        Long("checkpoint", Takes::Optional),
        Long("warning", Takes::Value),
        Long("restrict", Takes::Nothing),
        Long("interactive", Takes::Nothing),
        Long("confirmation", Takes::Nothing),
        Long("multi-volume", Takes::Nothing),
        Long("tape-length", Takes::Value),
        Long("read-full-records", Takes::Nothing),
        Long("help", Takes::Nothing),
        Long("usage", Takes::Nothing),
        Long("version", Takes::Nothing),
        Long("show-defaults", Takes::Nothing),
        forbidden("to-command"),
        forbidden("checkpoint-action"),
        forbidden("index-file"),
        forbidden("use-compress-program"),
        forbidden("rmt-command"),
        forbidden("rsh-command"),
        forbidden("info-script"),
        forbidden("new-volume-script"),
        forbidden("volno-file"),
        forbidden("listed-incremental"),
        forbidden("remove-files"),
    ],
);

/// tar options that run a program or write a side file.
const TAR_REFUSED: &[(&str, &str)] = &[
    ("--to-command", "runs a command on every member"),
    ("--checkpoint-action", "can run a command at checkpoints"),
    ("--index-file", "writes its verbose output to a file"),
    ("--use-compress-program", "runs a program to decompress"),
    ("-I", "runs a program to decompress"),
    ("--rmt-command", "runs a program for remote archives"),
    ("--rsh-command", "runs a program for remote archives"),
    ("--info-script", "runs a script at the end of each volume"),
    (
        "--new-volume-script",
        "runs a script at the end of each volume",
    ),
    ("-F", "runs a script at the end of each volume"),
    ("--volno-file", "writes the volume number to a file"),
    ("--listed-incremental", "writes a snapshot file"),
    ("-g", "writes a snapshot file"),
    ("--remove-files", "removes files"),
];

/// tar's mode of a canonical option name.
fn tar_mode(option: &str) -> Option<&'static str> {
    Some(match option {
        "-t" | "--list" => "list",
        "-d" | "--diff" | "--compare" => "diff",
        "--test-label" => "test-label",
        "-x" | "--extract" | "--get" => "extract",
        "-c" | "--create" => "create",
        "-r" | "--append" => "append",
        "-u" | "--update" => "update",
        "-A" | "--catenate" | "--concatenate" => "concatenate",
        "--delete" => "delete",
        _ => return None,
    })
}

/// `tar tzvf x.tgz`: the old bundled first argument, spelled as options
/// (each letter that takes a value takes the next argument in order).
fn tar_expand_bundle(args: &[Arg]) -> Vec<Arg> {
    let Some(Arg::Literal(first)) = args.first() else {
        return args.to_vec();
    };
    if first.is_empty() || first.starts_with('-') {
        return args.to_vec();
    }
    let mut expanded = Vec::new();
    let mut rest = args[1..].iter();
    for letter in first.chars() {
        expanded.push(Arg::Literal(format!("-{letter}")));
        if takes_value(TAR_SHORT, letter)
            && let Some(value) = rest.next()
        {
            expanded.push(value.clone());
        }
    }
    expanded.extend(rest.cloned());
    expanded
}

fn tar(call: &mut Call<'_>) {
    let args = tar_expand_bundle(call.args);
    let parsed = match super::parse(&TAR, &args) {
        Ok(parsed) => parsed,
        Err(error) => return call.not_read_only(Category::Exec, error.describe()),
    };
    for (option, why) in TAR_REFUSED {
        if parsed.has(option) {
            return call.not_read_only(Category::Exec, format!("`{option}` {why}"));
        }
    }
    let archives = values(&parsed, &["-f", "--file"]);
    if !parsed.has("--force-local")
        && let Some(remote) = archives
            .iter()
            .filter_map(|a| a.literal())
            .find(|a| is_remote_archive(a))
    {
        let why = format!("the archive `{remote}` is on another machine (rsh)");
        return call.not_read_only(Category::Network, why);
    }
    let modes: Vec<&str> = parsed.opts().filter_map(|(n, _)| tar_mode(n)).collect();
    let directory = values(&parsed, &["-C", "--directory"])
        .last()
        .map(|a| (*a).clone())
        .unwrap_or_else(|| Arg::Literal(".".into()));
    // `-x -O` extracts to standard output only: no file is written.
    let to_stdout = parsed.has("-O") || parsed.has("--to-stdout");
    if let Some(mode) = modes.iter().find(|m| match **m {
        "list" | "diff" | "test-label" => false,
        "extract" => !to_stdout,
        _ => true,
    }) {
        let why = format!("mode `{mode}` writes files");
        if *mode == "extract" {
            call.not_read_only(Category::Write, why);
            call.writes(&directory);
        } else if *mode == "delete" {
            call.not_read_only(Category::Write, "`--delete` rewrites the archive");
            for archive in &archives {
                call.writes(archive);
            }
        } else {
            call.not_read_only(Category::Write, why);
            for archive in &archives {
                call.writes(archive);
            }
        }
        return;
    }
    let informational = ["--help", "--usage", "--version", "--show-defaults"];
    if modes.is_empty() && !informational.iter().any(|o| parsed.has(o)) {
        return call.not_read_only(Category::Exec, "no mode given (`-t` lists)");
    }
    let mut read: Vec<&Arg> = archives.into_iter().filter(|a| a.text() != "-").collect();
    read.extend(values(
        &parsed,
        &["-T", "--files-from", "-X", "--exclude-from"],
    ));
    if modes.contains(&"diff") {
        read.push(&directory);
        call.read(read);
        return;
    }
    call.read(read);
}

/// unzip's listing, testing and to-stdout forms (`-l -v -t -z -p -c`, and
/// `-Z`, zipinfo's mode). Any other form extracts.
const UNZIP: Options = Options::gnu(
    "lvtzpcfuonqabCjLMUVWXKDTsd:x:P:O:I:h",
    &[Long("help", Takes::Nothing)],
);

fn unzip(call: &mut Call<'_>) {
    let args = call.args;
    if let Some(Arg::Literal(first)) = args.first()
        && first.starts_with("-Z")
    {
        // `unzip -Z` is zipinfo; what follows are zipinfo's options.
        return zipinfo_args(call, &args[1..]);
    }
    let Some(parsed) = call.parse(&UNZIP) else {
        return;
    };
    let zip_file: Vec<&Arg> = parsed.operands().take(1).collect();
    let read_only = ["-l", "-v", "-t", "-z", "-p", "-c", "-h"]
        .iter()
        .any(|o| parsed.has(o));
    if read_only || parsed.operands().next().is_none() {
        return call.read(zip_file);
    }
    let directory = values(&parsed, &["-d"])
        .last()
        .map(|a| (*a).clone())
        .unwrap_or_else(|| Arg::Literal(".".into()));
    call.not_read_only(
        Category::Write,
        format!("extracts into {}", directory.text()),
    );
    call.writes(&directory);
}

/// Info-ZIP zip: its only read-only forms are help (`-h`, `-h2`, `-v`,
/// `-L` alone) and `-sf`/`--show-files ARCHIVE` (lists the archive). Every
/// other form writes the archive; `-T` tests it by running `unzip` and
/// `-TT CMD` runs CMD through a shell, so both ask with the reason named.
fn zip(call: &mut Call<'_>) {
    let args = call.args;
    let literal: Vec<&str> = args.iter().filter_map(Arg::literal).collect();
    let dynamic = literal.len() != args.len();
    if let Some(test) = literal.iter().find(|a| {
        matches!(**a, "-T" | "--test" | "-TT" | "--unzip-command")
            || a.starts_with("--test")
            || a.starts_with("-TT")
            || (a.starts_with('-') && !a.starts_with("--") && a.contains('T'))
    }) {
        return call.not_read_only(
            Category::Exec,
            format!("`{test}` tests the archive by running unzip, or with -TT the given command"),
        );
    }
    let help = |a: &&str| matches!(*a, "-h" | "-h2" | "--help" | "-v" | "-L" | "--license");
    if !dynamic && (literal.is_empty() || (literal.len() == 1 && help(&literal[0]))) {
        return call.read([]);
    }
    if !dynamic
        && literal.len() == 2
        && matches!(literal[0], "-sf" | "--show-files")
        && !literal[1].starts_with('-')
    {
        return call.read(args.get(1));
    }
    let archive = args
        .iter()
        .find(|a| a.literal().is_none_or(|t| !t.starts_with('-')))
        .cloned();
    call.not_read_only(Category::Write, "creates or changes a zip archive");
    if let Some(archive) = archive {
        call.writes(&archive);
    }
}

/// zipinfo: lists a zip archive.
const ZIPINFO: Options = Options::gnu("12smlvhMtTzCx:", &[]);

fn zipinfo(call: &mut Call<'_>) {
    let args = call.args;
    zipinfo_args(call, args);
}

fn zipinfo_args(call: &mut Call<'_>, args: &[Arg]) {
    match super::parse(&ZIPINFO, args) {
        Ok(parsed) => call.read(parsed.operands().take(1)),
        Err(error) => call.not_read_only(Category::Exec, error.describe()),
    }
}

/// Judges a compressor's form once its options are known: `read_only`
/// forms read the files; the others write (and delete, unless `keep`)
/// every file operand.
fn compressor_verdict(
    call: &mut Call<'_>,
    read_only: bool,
    files: &[&Arg],
    keep: bool,
    outputs: &[&Arg],
    action: &str,
) {
    if read_only {
        return call.read(files.iter().copied());
    }
    if keep {
        call.not_read_only(
            Category::Write,
            format!("{action} writes a file next to each input"),
        );
    } else {
        call.not_read_only(
            Category::Delete,
            format!("{action} replaces each input file (and deletes it)"),
        );
    }
    if outputs.is_empty() {
        for file in files {
            call.writes(file);
        }
    } else {
        for out in outputs {
            call.writes(out);
        }
    }
    if !keep {
        for file in files {
            deletes(call, file);
        }
    }
}

/// The file operands (not `-`, standard input).
fn file_operands(parsed: &Parsed) -> Vec<&Arg> {
    parsed.operands().filter(|a| a.text() != "-").collect()
}

/// GNU gzip (`gunzip` is `gzip -d`, `zcat` is `gzip -dc`): `-c`, `-l` and
/// `-t` write nothing; otherwise each file is replaced.
const GZIP: Options = Options::gnu(
    "cdfhklLnNqrS:tvV123456789",
    &[
        Long("stdout", Takes::Nothing),
        Long("to-stdout", Takes::Nothing),
        Long("decompress", Takes::Nothing),
        Long("uncompress", Takes::Nothing),
        Long("force", Takes::Nothing),
        Long("help", Takes::Nothing),
        Long("keep", Takes::Nothing),
        Long("list", Takes::Nothing),
        Long("license", Takes::Nothing),
        Long("no-name", Takes::Nothing),
        Long("name", Takes::Nothing),
        Long("quiet", Takes::Nothing),
        Long("recursive", Takes::Nothing),
        Long("rsyncable", Takes::Nothing),
        Long("suffix", Takes::Value),
        Long("synchronous", Takes::Nothing),
        Long("test", Takes::Nothing),
        Long("verbose", Takes::Nothing),
        Long("version", Takes::Nothing),
        Long("fast", Takes::Nothing),
        Long("best", Takes::Nothing),
    ],
);

fn gzip(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&GZIP) else {
        return;
    };
    let files = file_operands(&parsed);
    let informational = ["-h", "--help", "-V", "--version", "-L", "--license"];
    let read_only = call.name == "zcat"
        || files.is_empty()
        || [
            "-c",
            "--stdout",
            "--to-stdout",
            "-l",
            "--list",
            "-t",
            "--test",
        ]
        .iter()
        .chain(informational.iter())
        .any(|o| parsed.has(o));
    let keep = parsed.has("-k") || parsed.has("--keep");
    let action = if call.name == "gunzip" || parsed.has("-d") || parsed.has("--decompress") {
        "decompressing"
    } else {
        "compressing"
    };
    compressor_verdict(call, read_only, &files, keep, &[], action);
}

/// xz and lzma (`unxz`/`unlzma` decompress, `xzcat`/`lzcat` to standard
/// output). The last of `-z -d -t -l` is the mode: `xz -t -z f`
/// compresses (and deletes) f.
const XZ: Options = Options::gnu(
    "cC:defF:hHklLM:qQrS:tT:vVz0123456789",
    &[
        Long("compress", Takes::Nothing),
        Long("decompress", Takes::Nothing),
        Long("uncompress", Takes::Nothing),
        Long("test", Takes::Nothing),
        Long("list", Takes::Nothing),
        Long("keep", Takes::Nothing),
        Long("force", Takes::Nothing),
        Long("stdout", Takes::Nothing),
        Long("to-stdout", Takes::Nothing),
        Long("single-stream", Takes::Nothing),
        Long("no-sparse", Takes::Nothing),
        Long("suffix", Takes::Value),
        Long("files", Takes::Optional),
        Long("files0", Takes::Optional),
        Long("format", Takes::Value),
        Long("check", Takes::Value),
        Long("ignore-check", Takes::Nothing),
        Long("extreme", Takes::Nothing),
        Long("fast", Takes::Nothing),
        Long("best", Takes::Nothing),
        Long("block-size", Takes::Value),
        Long("block-list", Takes::Value),
        Long("flush-timeout", Takes::Value),
        Long("memlimit-compress", Takes::Value),
        Long("memlimit-decompress", Takes::Value),
        Long("memlimit-mt-decompress", Takes::Value),
        Long("memlimit", Takes::Value),
        Long("memory", Takes::Value),
        Long("no-adjust", Takes::Nothing),
        Long("threads", Takes::Value),
        Long("lzma1", Takes::Optional),
        Long("lzma2", Takes::Optional),
        Long("x86", Takes::Optional),
        Long("arm", Takes::Optional),
        Long("arm64", Takes::Optional),
        Long("delta", Takes::Optional),
        Long("quiet", Takes::Nothing),
        Long("verbose", Takes::Nothing),
        Long("no-warn", Takes::Nothing),
        Long("robot", Takes::Nothing),
        Long("info-memory", Takes::Nothing),
        Long("help", Takes::Nothing),
        Long("long-help", Takes::Nothing),
        Long("version", Takes::Nothing),
    ],
);

/// The last mode option given, by `modes` (canonical name → mode).
fn last_mode<'m>(parsed: &Parsed, modes: &[(&str, &'m str)]) -> Option<&'m str> {
    parsed
        .opts()
        .filter_map(|(n, _)| modes.iter().find(|(o, _)| *o == n).map(|(_, m)| *m))
        .last()
}

fn xz(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&XZ) else {
        return;
    };
    let default = match call.name {
        "unxz" | "unlzma" | "xzcat" | "lzcat" => "decompress",
        _ => "compress",
    };
    let mode = last_mode(
        &parsed,
        &[
            ("-z", "compress"),
            ("--compress", "compress"),
            ("-d", "decompress"),
            ("--decompress", "decompress"),
            ("--uncompress", "decompress"),
            ("-t", "test"),
            ("--test", "test"),
            ("-l", "list"),
            ("--list", "list"),
        ],
    )
    .unwrap_or(default);
    let files = file_operands(&parsed);
    let to_stdout = matches!(call.name, "xzcat" | "lzcat")
        || ["-c", "--stdout", "--to-stdout"]
            .iter()
            .any(|o| parsed.has(o));
    let informational = [
        "-h",
        "-H",
        "--help",
        "--long-help",
        "-V",
        "--version",
        "--info-memory",
    ];
    let names_from_file = parsed.has("--files") || parsed.has("--files0");
    let read_only = matches!(mode, "test" | "list")
        || to_stdout
        || (files.is_empty() && !names_from_file)
        || informational.iter().any(|o| parsed.has(o));
    let keep = parsed.has("-k") || parsed.has("--keep");
    let action = if mode == "decompress" {
        "decompressing"
    } else {
        "compressing"
    };
    compressor_verdict(call, read_only, &files, keep, &[], action);
}

/// bzip2 (`bunzip2` decompresses, `bzcat` to standard output). The last
/// of `-z -d -t` is the mode.
const BZIP2: Options = Options::gnu(
    "cdzkftsqvLVh123456789",
    &[
        Long("stdout", Takes::Nothing),
        Long("decompress", Takes::Nothing),
        Long("compress", Takes::Nothing),
        Long("keep", Takes::Nothing),
        Long("force", Takes::Nothing),
        Long("test", Takes::Nothing),
        Long("small", Takes::Nothing),
        Long("quiet", Takes::Nothing),
        Long("verbose", Takes::Nothing),
        Long("license", Takes::Nothing),
        Long("version", Takes::Nothing),
        Long("help", Takes::Nothing),
        Long("fast", Takes::Nothing),
        Long("best", Takes::Nothing),
    ],
);

fn bzip2(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&BZIP2) else {
        return;
    };
    let default = match call.name {
        "bunzip2" | "bzcat" => "decompress",
        _ => "compress",
    };
    let mode = last_mode(
        &parsed,
        &[
            ("-z", "compress"),
            ("--compress", "compress"),
            ("-d", "decompress"),
            ("--decompress", "decompress"),
            ("-t", "test"),
            ("--test", "test"),
        ],
    )
    .unwrap_or(default);
    let files = file_operands(&parsed);
    let informational = ["-h", "--help", "-V", "--version", "-L", "--license"];
    let read_only = mode == "test"
        || call.name == "bzcat"
        || parsed.has("-c")
        || parsed.has("--stdout")
        || files.is_empty()
        || informational.iter().any(|o| parsed.has(o));
    let keep = parsed.has("-k") || parsed.has("--keep");
    let action = if mode == "decompress" {
        "decompressing"
    } else {
        "compressing"
    };
    compressor_verdict(call, read_only, &files, keep, &[], action);
}

/// zstd (`unzstd` decompresses, `zstdcat` to standard output). The last of
/// `-z -d -t -l` is the mode. It keeps its input unless `--rm`, but
/// writes an output file unless `-c`; `-o FILE` writes FILE.
const ZSTD: Options = Options::gnu(
    "zdtlcko:fqvT::M::D:rhHVC",
    &[
        Long("compress", Takes::Nothing),
        Long("decompress", Takes::Nothing),
        Long("uncompress", Takes::Nothing),
        Long("test", Takes::Nothing),
        Long("list", Takes::Nothing),
        Long("stdout", Takes::Nothing),
        Long("keep", Takes::Nothing),
        Long("force", Takes::Nothing),
        Long("quiet", Takes::Nothing),
        Long("verbose", Takes::Nothing),
        Long("threads", Takes::Value),
        Long("memory", Takes::Value),
        Long("long", Takes::Optional),
        Long("fast", Takes::Optional),
        Long("ultra", Takes::Nothing),
        Long("no-progress", Takes::Nothing),
        Long("progress", Takes::Nothing),
        Long("check", Takes::Nothing),
        Long("no-check", Takes::Nothing),
        Long("format", Takes::Value),
        Long("exclude-compressed", Takes::Nothing),
        Long("rsyncable", Takes::Nothing),
        Long("sparse", Takes::Nothing),
        Long("no-sparse", Takes::Nothing),
        Long("content-size", Takes::Nothing),
        Long("no-content-size", Takes::Nothing),
        Long("help", Takes::Nothing),
        Long("version", Takes::Nothing),
        Long("output-dir-flat", Takes::Value),
        Long("output-dir-mirror", Takes::Value),
        forbidden("rm"),
        forbidden("trace"),
        forbidden("train"),
    ],
)
.with_numeric();

fn zstd(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&ZSTD) else {
        return;
    };
    for option in ["--trace", "--train"] {
        if parsed.has(option) {
            let why = format!("`{option}` writes a file");
            return call.not_read_only(Category::Write, why);
        }
    }
    let default = match call.name {
        "unzstd" | "zstdcat" => "decompress",
        _ => "compress",
    };
    let mode = last_mode(
        &parsed,
        &[
            ("-z", "compress"),
            ("--compress", "compress"),
            ("-d", "decompress"),
            ("--decompress", "decompress"),
            ("--uncompress", "decompress"),
            ("-t", "test"),
            ("--test", "test"),
            ("-l", "list"),
            ("--list", "list"),
        ],
    )
    .unwrap_or(default);
    let files = file_operands(&parsed);
    let outputs = values(&parsed, &["-o", "--output-dir-flat", "--output-dir-mirror"]);
    let to_stdout = call.name == "zstdcat" || parsed.has("-c") || parsed.has("--stdout");
    let informational = ["-h", "-H", "--help", "-V", "--version"];
    let read_only = matches!(mode, "test" | "list")
        || (outputs.is_empty() && (to_stdout || files.is_empty()))
        || informational.iter().any(|o| parsed.has(o));
    let keep = !parsed.has("--rm");
    let action = if mode == "decompress" {
        "decompressing"
    } else {
        "compressing"
    };
    compressor_verdict(call, read_only, &files, keep, &outputs, action);
}

/// lz4 (`unlz4` decompresses, `lz4cat` to standard output). `lz4 IN OUT`
/// writes OUT; the last of `-z -d -t --list` is the mode.
const LZ4: Options = Options::gnu(
    "zdtcmkfqvB:hHV",
    &[
        Long("compress", Takes::Nothing),
        Long("decompress", Takes::Nothing),
        Long("uncompress", Takes::Nothing),
        Long("test", Takes::Nothing),
        Long("list", Takes::Nothing),
        Long("stdout", Takes::Nothing),
        Long("to-stdout", Takes::Nothing),
        Long("multiple", Takes::Nothing),
        Long("keep", Takes::Nothing),
        Long("force", Takes::Nothing),
        Long("quiet", Takes::Nothing),
        Long("verbose", Takes::Nothing),
        Long("fast", Takes::Optional),
        Long("best", Takes::Nothing),
        Long("favor-decSpeed", Takes::Nothing),
        Long("sparse", Takes::Nothing),
        Long("no-sparse", Takes::Nothing),
        Long("no-frame-crc", Takes::Nothing),
        Long("content-size", Takes::Nothing),
        Long("no-content-size", Takes::Nothing),
        Long("help", Takes::Nothing),
        Long("version", Takes::Nothing),
        forbidden("rm"),
    ],
)
.with_numeric();

fn lz4(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&LZ4) else {
        return;
    };
    let default = match call.name {
        "unlz4" | "lz4cat" => "decompress",
        _ => "compress",
    };
    let mode = last_mode(
        &parsed,
        &[
            ("-z", "compress"),
            ("--compress", "compress"),
            ("-d", "decompress"),
            ("--decompress", "decompress"),
            ("--uncompress", "decompress"),
            ("-t", "test"),
            ("--test", "test"),
            ("--list", "list"),
        ],
    )
    .unwrap_or(default);
    let files = file_operands(&parsed);
    let multiple = parsed.has("-m") || parsed.has("--multiple");
    let to_stdout = call.name == "lz4cat"
        || parsed.has("-c")
        || parsed.has("--stdout")
        || parsed.has("--to-stdout");
    let informational = ["-h", "-H", "--help", "-V", "--version"];
    let read_only = matches!(mode, "test" | "list")
        || (files.is_empty() && !multiple)
        || (to_stdout && (multiple || files.len() <= 1))
        || informational.iter().any(|o| parsed.has(o));
    let keep = !parsed.has("--rm");
    let action = if mode == "decompress" {
        "decompressing"
    } else {
        "compressing"
    };
    // `lz4 IN OUT`: the second operand is the output.
    let (inputs, outputs): (Vec<&Arg>, Vec<&Arg>) = if !multiple && files.len() == 2 {
        (vec![files[0]], vec![files[1]])
    } else {
        (files.clone(), Vec::new())
    };
    compressor_verdict(call, read_only, &inputs, keep, &outputs, action);
}

/// 7-Zip: the commands `l` (list), `t` (test), `i` (formats) and `h`
/// (hashes) only read; switches limited to those that change listing.
fn seven_zip(call: &mut Call<'_>) {
    let args = call.args;
    let mut command: Option<String> = None;
    let mut operands: Vec<&Arg> = Vec::new();
    let mut switches_done = false;
    for arg in args {
        let Arg::Literal(text) = arg else {
            operands.push(arg);
            continue;
        };
        if !switches_done && text == "--" {
            switches_done = true;
            continue;
        }
        if !switches_done && text.starts_with('-') && text.len() > 1 {
            let switch = text[1..].to_ascii_lowercase();
            let allowed = [
                "y", "ba", "bd", "slt", "sccutf-8", "scswin", "scsutf-8", "sns",
            ]
            .contains(&switch.as_str())
                || [
                    "p", "bb", "bs", "bt", "r", "t", "i", "x", "scc", "scs", "mmt",
                ]
                .iter()
                .any(|p| switch.starts_with(p) && !switch.starts_with("sdel"));
            if !allowed {
                let why = format!("switch `{text}` is not one of its read-only forms");
                return call.not_read_only(Category::Exec, why);
            }
            continue;
        }
        if command.is_none() {
            command = Some(text.to_ascii_lowercase());
        } else {
            operands.push(arg);
        }
    }
    match command.as_deref() {
        Some("l" | "t" | "h") => call.read(operands.into_iter().take(1)),
        Some("i") | None => call.read([]),
        Some(other @ ("x" | "e" | "a" | "u" | "d" | "rn")) => {
            let why = format!("command `{other}` writes files");
            call.not_read_only(Category::Write, why);
            for archive in operands.into_iter().take(1) {
                call.writes(archive);
            }
        }
        Some(other) => {
            let why = format!("command `{other}` is not one of its read-only forms");
            call.not_read_only(Category::Exec, why);
        }
    }
}

/// ar: `t` (list members) and `p` (print them) only read, with the
/// modifiers `v`, `O`, `P`. Any other operation changes or extracts.
fn ar(call: &mut Call<'_>) {
    let args = call.args;
    let Some(Arg::Literal(first)) = args.first() else {
        return call.not_read_only(Category::Exec, "its operation is only known when it runs");
    };
    if matches!(first.as_str(), "--help" | "--version" | "-h" | "-V") && args.len() == 1 {
        return call.read([]);
    }
    let letters = first.strip_prefix('-').unwrap_or(first);
    let operations: Vec<char> = letters
        .chars()
        .filter(|c| "dmpqrstx".contains(*c))
        .collect();
    let read_only = matches!(operations.as_slice(), ['t'] | ['p'])
        && letters.chars().all(|c| "tpvOP".contains(c));
    if read_only {
        return call.read(args.get(1));
    }
    let why = format!("operation `{first}` is not one of its read-only forms (`t`, `p`)");
    call.not_read_only(Category::Write, why);
    if let Some(archive) = args.get(1) {
        call.writes(archive);
    }
}

/// GNU cpio: only `-t` (list, with `-i` implied) reads; `-i` extracts,
/// `-o` creates and `-p` copies.
const CPIO: Options = Options::gnu(
    "0aAbBcC:dE:fF:H:iI:lLmM:nO:oprR:sStuvV",
    &[
        Long("list", Takes::Nothing),
        Long("extract", Takes::Nothing),
        Long("create", Takes::Nothing),
        Long("pass-through", Takes::Nothing),
        Long("file", Takes::Value),
        Long("pattern-file", Takes::Value),
        Long("format", Takes::Value),
        Long("verbose", Takes::Nothing),
        Long("quiet", Takes::Nothing),
        Long("dot", Takes::Nothing),
        Long("numeric-uid-gid", Takes::Nothing),
        Long("nonmatching", Takes::Nothing),
        Long("block-size", Takes::Value),
        Long("io-size", Takes::Value),
        Long("only-verify-crc", Takes::Nothing),
        Long("to-stdout", Takes::Nothing),
        Long("force-local", Takes::Nothing),
        Long("null", Takes::Nothing),
        Long("help", Takes::Nothing),
        Long("usage", Takes::Nothing),
        Long("version", Takes::Nothing),
        forbidden("rsh-command"),
    ],
);

fn cpio(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&CPIO) else {
        return;
    };
    if parsed.has("--rsh-command") {
        return call.not_read_only(Category::Exec, "`--rsh-command` runs a program");
    }
    if parsed.has("-M") {
        return call.not_read_only(Category::Exec, "`-M` prompts for volumes with a message");
    }
    let archives = values(&parsed, &["-F", "--file", "-I", "-O"]);
    if !parsed.has("--force-local")
        && let Some(remote) = archives
            .iter()
            .filter_map(|a| a.literal())
            .find(|a| is_remote_archive(a))
    {
        let why = format!("the archive `{remote}` is on another machine (rsh)");
        return call.not_read_only(Category::Network, why);
    }
    let listing = parsed.has("-t") || parsed.has("--list");
    let creates = ["-o", "--create", "-p", "--pass-through", "-O"]
        .iter()
        .any(|o| parsed.has(o));
    let informational = ["--help", "--usage", "--version", "-V"];
    if informational.iter().any(|o| parsed.has(o)) && !creates {
        return call.read([]);
    }
    if listing && !creates {
        let mut read = archives;
        read.extend(values(&parsed, &["-E", "--pattern-file"]));
        return call.read(read);
    }
    if creates {
        call.not_read_only(
            Category::Write,
            "`-o`/`-p` writes an archive or copies files",
        );
        for target in values(&parsed, &["-F", "--file", "-O"]) {
            call.writes(target);
        }
        for dir in parsed.operands() {
            call.writes(dir);
        }
        return;
    }
    call.not_read_only(Category::Write, "`-i` extracts into the current directory");
    call.writes(&Arg::Literal(".".into()));
}

#[cfg(test)]
mod tests {
    use super::super::examples::{check, judge};
    use crate::policy::{Access, Category};

    const MATCH: &[&str] = &[
        "tar -tf x.tar",
        "tar -tzf x.tgz",
        "tar -tvf x.tar src/main.rs",
        "tar tvf x.tar",
        "tar tzvf x.tgz",
        "tar -t -f x.tar",
        "tar --list --file=x.tar",
        "tar --list -f x.tar --wildcards '*.rs'",
        "tar -tJf x.tar.xz",
        "tar -tjvf x.tar.bz2",
        "tar --zstd -tf x.tar.zst",
        "tar -tf x.tar --exclude='*.o'",
        "tar -df x.tar -C src",
        "tar --diff -f x.tar",
        "tar --compare --file x.tar",
        "tar -tf ./host:x.tar",
        "tar --force-local -tf host:x.tar",
        "tar -tf x.tar -T list.txt",
        "tar --version",
        "tar -tf -",
        "tar -xOf x.tar notes.md",
        "tar xOzf x.tgz",
        "tar -x --to-stdout -f x.tar",
        "unzip -l x.zip",
        "unzip -v x.zip",
        "unzip -t x.zip",
        "unzip -tq x.zip",
        "unzip -p x.zip README",
        "unzip -c x.zip README",
        "unzip -l x.zip -d out",
        "unzip -Z x.zip",
        "unzip -Z -1 x.zip",
        "zip -sf x.zip",
        "zip --show-files x.zip",
        "zip -h",
        "zip -v",
        "zip",
        "unzip -z x.zip",
        "zipinfo x.zip",
        "zipinfo -1 x.zip",
        "gzip -l x.gz",
        "gzip -t x.gz",
        "gzip -c notes.md",
        "gzip -dc x.gz",
        "gzip --stdout notes.md",
        "gzip -d --to-stdout x.gz",
        "gzip -9c notes.md",
        "gzip",
        "gunzip -c x.gz",
        "gunzip -t x.gz",
        "zcat x.gz",
        "zcat -f notes.md",
        "xz -l x.xz",
        "xz --list x.xz",
        "xz -t x.xz",
        "xz -dc x.xz",
        "xz -z -t x",
        "xz -9e -c notes.md",
        "xzcat x.xz",
        "unxz -c x.xz",
        "unxz -t x.xz",
        "lzma -c notes.md",
        "bzip2 -t x.bz2",
        "bzip2 -dc x.bz2",
        "bzip2 -z -t x",
        "bzcat x.bz2",
        "bunzip2 -c x.bz2",
        "zstd -l x.zst",
        "zstd -t x.zst",
        "zstd -dc x.zst",
        "zstd -d -c x.zst",
        "zstd -19 -c notes.md",
        "zstd --list x.zst",
        "zstdcat x.zst",
        "unzstd -c x.zst",
        "unzstd -t x.zst",
        "zstd",
        "lz4 -t x.lz4",
        "lz4 -dc x.lz4",
        "lz4cat x.lz4",
        "lz4 --list x.lz4",
        "7z l x.7z",
        "7z t x.7z",
        "7z l -slt x.7z",
        "7za l x.zip",
        "7zr t -pSECRET x.7z",
        "7z i",
        "ar t lib.a",
        "ar tv lib.a",
        "ar -t lib.a",
        "ar p lib.a member.o",
        "cpio -t -F x.cpio",
        "cpio -itv -F x.cpio",
        "cpio --list --file=x.cpio",
        "cpio -it",
    ];

    const NOT_MATCH: &[&str] = &[
        "tar -xf x.tar",
        "tar xf x.tar",
        "tar xzvf x.tgz",
        "tar -xzf x.tgz -C /tmp",
        "tar -cf x.tar src",
        "tar czf x.tgz src",
        "tar -rf x.tar notes.md",
        "tar -uf x.tar notes.md",
        "tar -Af x.tar y.tar",
        "tar --delete -f x.tar notes.md",
        "tar -tf x.tar -x",
        "tar -xOf x.tar -c",
        "tar -t -x -f x.tar",
        "tar -x -t -f x.tar",
        "tar tvf x.tar --extract",
        "tar -tf x.tar --to-command='sh -c id'",
        "tar -tf x.tar --to-c=id",
        "tar -tf x.tar --checkpoint=1 --checkpoint-action=exec=id",
        "tar -tf x.tar --index-file=out.txt",
        "tar -tf x.tar -I 'sh -c id'",
        "tar -tf x.tar --use-compress-program=./evil",
        "tar -tf x.tar --rmt-command=./evil",
        "tar -tf x.tar --rsh-command=./evil",
        "tar -tf x.tar -F ./evil",
        "tar -tf x.tar --info-script=./evil",
        "tar -tf x.tar --new-volume-script=./evil",
        "tar -tf x.tar --volno-file=vol",
        "tar -tf x.tar -g snap",
        "tar -tf host:x.tar",
        "tar -tf user@host:/x.tar",
        "tar tf host:x.tar",
        "tar -f x.tar",
        "tar -tf x.tar --bogus",
        "tar -cf x.tar src --remove-files",
        "unzip x.zip",
        "unzip -o x.zip",
        "unzip x.zip -d out",
        "unzip -q x.zip",
        "unzip -Z --bogus x.zip",
        "zip -T -TT 'sh -c id' x.zip",
        "zip -T x.zip",
        "zip -TT=id x.zip",
        "zip --test x.zip",
        "zip --unzip-command id -T x.zip",
        "zip -qT x.zip",
        "zip -l x.zip",
        "zip -t 01012020 x.zip",
        "zip --test x.jar",
        "zip x.zip notes.md",
        "zip -r out.zip .",
        "zip -sf x.zip y.zip",
        "zip -d x.zip notes.md",
        "zip -sf -TT id x.zip",
        "gzip notes.md",
        "gzip -k notes.md",
        "gzip -d x.gz",
        "gzip -r src",
        "gunzip x.gz",
        "gzip -f notes.md",
        "xz notes.md",
        "xz -t -z notes.md",
        "xz -l -d x.xz",
        "xz -d x.xz",
        "xz -k notes.md",
        "unxz x.xz",
        "unxz -t -z notes.md",
        "lzma notes.md",
        "xz --files=list.txt",
        "bzip2 notes.md",
        "bzip2 -t -z notes.md",
        "bunzip2 x.bz2",
        "zstd notes.md",
        "zstd -d x.zst",
        "zstd -t -z notes.md",
        "zstd -c notes.md -o out.zst",
        "zstd --rm notes.md",
        "zstd -o out.zst notes.md",
        "zstd --trace log notes.md",
        "zstd --train src/*",
        "unzstd x.zst",
        "zstd -l -d x.zst",
        "lz4 notes.md",
        "lz4 notes.md out.lz4",
        "lz4 -c notes.md out.lz4",
        "lz4 -d x.lz4",
        "unlz4 x.lz4",
        "lz4 -t -z notes.md",
        "7z x x.7z",
        "7z e x.7z",
        "7z a x.7z src",
        "7z u x.7z notes.md",
        "7z d x.7z notes.md",
        "7z rn x.7z a b",
        "7z l x.7z -sdel",
        "7z l x.7z -so",
        "7z l x.7z -oout",
        "7z b",
        "ar x lib.a",
        "ar r lib.a x.o",
        "ar d lib.a x.o",
        "ar q lib.a x.o",
        "ar ts lib.a",
        "ar s lib.a",
        "ar --plugin ./evil.so t lib.a",
        "cpio -i -F x.cpio",
        "cpio -id",
        "cpio -o -F x.cpio",
        "cpio -p dir",
        "cpio -t -o",
        "cpio -t -F host:x.cpio",
        "cpio -t --rsh-command=./evil -F x.cpio",
    ];

    #[test]
    fn examples() {
        check(MATCH, NOT_MATCH);
    }

    #[test]
    fn write_forms_name_their_targets() {
        let plan = judge("tar -xzf x.tgz -C out");
        assert_eq!(plan.steps[0].category, Category::Write);
        assert!(
            plan.steps[0]
                .targets
                .iter()
                .any(|t| t.access == Access::Write && t.value == "out")
        );
        let plan = judge("xz -t -z notes.md");
        assert_eq!(plan.steps[0].category, Category::Delete);
        assert!(
            plan.steps[0]
                .targets
                .iter()
                .any(|t| t.access == Access::Delete && t.value == "notes.md")
        );
        let plan = judge("unzip x.zip -d out");
        assert!(
            plan.steps[0]
                .targets
                .iter()
                .any(|t| t.access == Access::Write && t.value == "out")
        );
        let plan = judge("zstd -o out.zst notes.md");
        assert_eq!(plan.steps[0].category, Category::Write);
        assert!(
            plan.steps[0]
                .targets
                .iter()
                .any(|t| t.access == Access::Write && t.value == "out.zst")
        );
    }

    #[test]
    fn reasons_name_the_form() {
        let reason = |line: &str| {
            judge(line).steps[0]
                .floor
                .as_ref()
                .map(|f| f.reason.clone())
                .unwrap_or_default()
        };
        assert!(reason("tar -tf x --index-file=F").contains("--index-file"));
        assert!(reason("tar -tf x --to-c=id").contains("--to-command"));
        assert!(reason("7z l x.7z -sdel").contains("-sdel"));
        assert!(reason("tar -tf host:x.tar").contains("host:x.tar"));
    }

    #[test]
    fn the_archive_is_read() {
        let plan = judge("tar tzvf x.tgz");
        let values: Vec<_> = plan.steps[0].targets.iter().map(|t| &t.value).collect();
        assert_eq!(values, ["x.tgz"]);
    }
}
