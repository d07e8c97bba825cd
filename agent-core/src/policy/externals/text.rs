//! Text tools: cat, grep, sed, awk, sort and the rest of coreutils' filters,
//! viewers (`less`), checksums, encoders, `diff`, `jq`/`yq` and the small
//! computing programs (`echo`, `seq`, `expr`...).
//!
//! Each program's options table (a `const` next to its grammar) lists the
//! options of its read-only forms; any other option asks. Options that
//! write (`sort -o`, `uniq IN OUT`, `sed -i`, `xxd IN OUT`, `iconv -o`,
//! `shuf -o`, `sdiff -o`) are parsed so that the file they write is named.
//! sed scripts and awk programs are parsed: only their pure commands are
//! read-only (no `e`/`w` in sed, no `system()`, pipes or output
//! redirection in awk).

use super::{
    Arg, Call, Category, Grammar, Long, Options, Parsed, flag, forbidden, optional, valued as val,
};

/// The grammar of `name` when it belongs to this family.
pub(super) fn grammar(name: &str) -> Option<Grammar> {
    let judge: Grammar = match name {
        "cat" => cat,
        "tac" => tac,
        "head" => head,
        "tail" => tail,
        "wc" => wc,
        "nl" => nl,
        "cut" => cut,
        "tr" => tr,
        "paste" => paste,
        "rev" => rev,
        "column" => column,
        "fmt" => fmt,
        "fold" => fold,
        "expand" => expand,
        "unexpand" => unexpand,
        "comm" => comm,
        "join" => join,
        "uniq" => uniq,
        "sort" => sort,
        "grep" | "egrep" | "fgrep" => grep,
        "sed" => sed,
        "awk" | "gawk" | "mawk" | "nawk" => awk,
        "base64" | "base32" => base64,
        "basenc" => basenc,
        "xxd" => xxd,
        "hexdump" | "hd" => hexdump,
        "od" => od,
        "strings" => strings,
        "md5sum" | "sha1sum" | "sha224sum" | "sha256sum" | "sha384sum" | "sha512sum" => checksum,
        "b2sum" => b2sum,
        "cksum" => cksum,
        "sum" => sum,
        "cmp" => cmp,
        "diff" => diff,
        "diff3" => diff3,
        "sdiff" => sdiff,
        "jq" => jq,
        "yq" => yq,
        "echo" | "printf" | "true" | "false" | "test" | "[" | "expr" | "factor" | "seq"
        | "sleep" | "yes" | ":" | "exit" | "pwd" | "type" => computes,
        "numfmt" => numfmt,
        "basename" => basename,
        "dirname" => dirname,
        "realpath" => realpath,
        "readlink" => readlink,
        "less" => less,
        "more" => more,
        "bc" => bc,
        "dc" => dc,
        "iconv" => iconv,
        "look" => look,
        "shuf" => shuf,
        "tsort" => tsort,
        "pr" => pr,
        _ => return None,
    };
    Some(judge)
}

// ---------------------------------------------------------------------------
// Helpers shared by the grammars.

/// `--help` and `--version`, which every GNU program has.
const HELP: Long = flag("help");
const VERSION: Long = flag("version");

/// The operands that name files (`-`, standard input, is not one).
fn files<'a>(args: impl IntoIterator<Item = &'a Arg>) -> Vec<Arg> {
    args.into_iter()
        .filter(|a| a.literal() != Some("-"))
        .cloned()
        .collect()
}

/// The values of the options `names` (files an option reads).
fn values_of(parsed: &Parsed, names: &[&str]) -> Vec<Arg> {
    parsed
        .opts()
        .filter(|(n, _)| names.contains(n))
        .filter_map(|(_, v)| v.cloned())
        .collect()
}

/// The read-only form that reads every operand as a file.
fn read_operands(call: &mut Call<'_>, options: &Options) -> Option<Parsed> {
    let parsed = call.parse(options)?;
    call.read(&files(parsed.operands()));
    Some(parsed)
}

/// A form that writes `target` (asks, and names the file in the label).
fn writes_to(call: &mut Call<'_>, target: &Arg, why: &str) {
    call.not_read_only(Category::Write, why);
    call.writes(target);
}

// ---------------------------------------------------------------------------
// coreutils filters: every operand is a file read.

/// `cat [-AbeEnstTuv] [FILE]...`
const CAT: Options = Options::gnu(
    "AbeEnstTuv",
    &[
        flag("show-all"),
        flag("number-nonblank"),
        flag("show-ends"),
        flag("number"),
        flag("squeeze-blank"),
        flag("show-tabs"),
        flag("show-nonprinting"),
        HELP,
        VERSION,
    ],
);

fn cat(call: &mut Call<'_>) {
    read_operands(call, &CAT);
}

/// `tac [-br] [-s SEP] [FILE]...`
const TAC: Options = Options::gnu(
    "brs:",
    &[
        flag("before"),
        flag("regex"),
        val("separator"),
        HELP,
        VERSION,
    ],
);

fn tac(call: &mut Call<'_>) {
    read_operands(call, &TAC);
}

/// `head [-c N] [-n N] [-NUM] [-qvz] [FILE]...`
const HEAD: Options = Options::gnu(
    "c:n:qvz",
    &[
        val("bytes"),
        val("lines"),
        flag("quiet"),
        flag("silent"),
        flag("verbose"),
        flag("zero-terminated"),
        HELP,
        VERSION,
    ],
)
.with_numeric();

fn head(call: &mut Call<'_>) {
    read_operands(call, &HEAD);
}

/// `tail [-c N] [-n N] [-NUM] [-f|-F] [-s SECS] [--pid PID] [-qvz] [FILE]...`
/// (`+N` operands of the obsolete form are read as file names: harmless).
const TAIL: Options = Options::gnu(
    "c:n:fFqs:vz",
    &[
        val("bytes"),
        optional("follow"),
        val("lines"),
        val("max-unchanged-stats"),
        val("pid"),
        flag("quiet"),
        flag("retry"),
        flag("silent"),
        val("sleep-interval"),
        flag("verbose"),
        flag("zero-terminated"),
        HELP,
        VERSION,
    ],
)
.with_numeric();

fn tail(call: &mut Call<'_>) {
    read_operands(call, &TAIL);
}

/// `wc [-clmwL] [--files0-from=F] [--total=WHEN] [FILE]...`
const WC: Options = Options::gnu(
    "clmwL",
    &[
        flag("bytes"),
        flag("chars"),
        flag("lines"),
        flag("words"),
        flag("max-line-length"),
        val("files0-from"),
        val("total"),
        HELP,
        VERSION,
    ],
);

fn wc(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&WC) else {
        return;
    };
    let mut read = files(parsed.operands());
    read.extend(files(&values_of(&parsed, &["--files0-from"])));
    call.read(&read);
}

/// `nl [-b STYLE] [-d CC] [-f STYLE] [-h STYLE] [-i N] [-l N] [-n FMT] [-p]
/// [-s SEP] [-v N] [-w N] [FILE]...`
const NL: Options = Options::gnu(
    "b:d:f:h:i:l:n:ps:v:w:",
    &[
        val("body-numbering"),
        val("section-delimiter"),
        val("footer-numbering"),
        val("header-numbering"),
        val("line-increment"),
        val("join-blank-lines"),
        val("number-format"),
        flag("no-renumber"),
        val("number-separator"),
        val("starting-line-number"),
        val("number-width"),
        HELP,
        VERSION,
    ],
);

fn nl(call: &mut Call<'_>) {
    read_operands(call, &NL);
}

/// `cut -b|-c|-f LIST [-d DELIM] [-nsz] [--complement] [FILE]...`
const CUT: Options = Options::gnu(
    "b:c:d:f:nsz",
    &[
        val("bytes"),
        val("characters"),
        val("delimiter"),
        val("fields"),
        flag("complement"),
        flag("only-delimited"),
        val("output-delimiter"),
        flag("zero-terminated"),
        HELP,
        VERSION,
    ],
);

fn cut(call: &mut Call<'_>) {
    read_operands(call, &CUT);
}

/// `tr [-cCdst] SET1 [SET2]`: the operands are character sets, not files.
const TR: Options = Options::gnu(
    "cCdst",
    &[
        flag("complement"),
        flag("delete"),
        flag("squeeze-repeats"),
        flag("truncate-set1"),
        HELP,
        VERSION,
    ],
);

fn tr(call: &mut Call<'_>) {
    if call.parse(&TR).is_some() {
        call.read(&[]);
    }
}

/// `paste [-d LIST] [-sz] [FILE]...`
const PASTE: Options = Options::gnu(
    "d:sz",
    &[
        val("delimiters"),
        flag("serial"),
        flag("zero-terminated"),
        HELP,
        VERSION,
    ],
);

fn paste(call: &mut Call<'_>) {
    read_operands(call, &PASTE);
}

/// `rev [-0] [FILE]...` (util-linux).
const REV: Options = Options::gnu("0hV", &[flag("zero"), HELP, VERSION]);

fn rev(call: &mut Call<'_>) {
    read_operands(call, &REV);
}

/// `column [-t] [-s SEP] [-o SEP] [-c WIDTH] [-x] [-J] [-N NAMES] ... [FILE]...`
/// (util-linux; `-o` is the output *separator*, not a file).
const COLUMN: Options = Options::gnu(
    "c:C:dE:eH:hi:JLl:N:n:O:o:p:R:r:s:T:tVW:x",
    &[
        val("output-width"),
        val("column"),
        flag("table-noheadings"),
        val("table-noextreme"),
        flag("table-header-repeat"),
        val("table-hide"),
        val("tree-id"),
        flag("json"),
        flag("keep-empty-lines"),
        val("table-columns-limit"),
        val("table-columns"),
        val("table-name"),
        val("table-order"),
        val("output-separator"),
        val("tree-parent"),
        val("table-right"),
        val("tree"),
        val("separator"),
        val("table-truncate"),
        flag("table"),
        val("table-wrap"),
        flag("fillrows"),
        HELP,
        VERSION,
    ],
);

fn column(call: &mut Call<'_>) {
    read_operands(call, &COLUMN);
}

/// `fmt [-WIDTH] [-w N] [-g N] [-p PREFIX] [-cstu] [FILE]...`
const FMT: Options = Options::gnu(
    "cp:stuw:g:",
    &[
        flag("crown-margin"),
        val("prefix"),
        flag("split-only"),
        flag("tagged-paragraph"),
        flag("uniform-spacing"),
        val("width"),
        val("goal"),
        HELP,
        VERSION,
    ],
)
.with_numeric();

fn fmt(call: &mut Call<'_>) {
    read_operands(call, &FMT);
}

/// `fold [-bs] [-w WIDTH] [-WIDTH] [FILE]...`
const FOLD: Options = Options::gnu(
    "bsw:",
    &[
        flag("bytes"),
        flag("characters"),
        flag("spaces"),
        val("width"),
        HELP,
        VERSION,
    ],
)
.with_numeric();

fn fold(call: &mut Call<'_>) {
    read_operands(call, &FOLD);
}

/// `expand [-i] [-t TABS] [-NUM] [FILE]...`
const EXPAND: Options =
    Options::gnu("it:", &[flag("initial"), val("tabs"), HELP, VERSION]).with_numeric();

fn expand(call: &mut Call<'_>) {
    read_operands(call, &EXPAND);
}

/// `unexpand [-a] [--first-only] [-t TABS] [FILE]...`
const UNEXPAND: Options = Options::gnu(
    "at:",
    &[flag("all"), flag("first-only"), val("tabs"), HELP, VERSION],
)
.with_numeric();

fn unexpand(call: &mut Call<'_>) {
    read_operands(call, &UNEXPAND);
}

/// `comm [-123z] [--output-delimiter=S] [--total] FILE1 FILE2`
const COMM: Options = Options::gnu(
    "123z",
    &[
        flag("check-order"),
        flag("nocheck-order"),
        val("output-delimiter"),
        flag("total"),
        flag("zero-terminated"),
        HELP,
        VERSION,
    ],
);

fn comm(call: &mut Call<'_>) {
    read_operands(call, &COMM);
}

/// `join [-a N] [-e S] [-i] [-j F] [-o FORMAT] [-t C] [-v N] [-1 F] [-2 F]
/// FILE1 FILE2` (`-o` is the output *format*).
const JOIN: Options = Options::gnu(
    "a:e:ij:o:t:v:z1:2:",
    &[
        flag("ignore-case"),
        flag("check-order"),
        flag("nocheck-order"),
        flag("zero-terminated"),
        flag("header"),
        HELP,
        VERSION,
    ],
);

fn join(call: &mut Call<'_>) {
    read_operands(call, &JOIN);
}

/// `uniq [-cdDiuz] [-f N] [-s N] [-w N] [INPUT [OUTPUT]]`: a second operand
/// is a file uniq *writes*.
const UNIQ: Options = Options::gnu(
    "cdDf:is:uw:z",
    &[
        flag("count"),
        flag("repeated"),
        optional("all-repeated"),
        val("skip-fields"),
        flag("ignore-case"),
        val("skip-chars"),
        flag("unique"),
        optional("group"),
        val("check-chars"),
        flag("zero-terminated"),
        HELP,
        VERSION,
    ],
)
.with_numeric();

fn uniq(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&UNIQ) else {
        return;
    };
    let operands: Vec<&Arg> = parsed.operands().collect();
    call.read(&files(operands.iter().take(1).copied()));
    if let Some(output) = operands.get(1).filter(|o| o.literal() != Some("-")) {
        writes_to(
            call,
            output,
            "a second operand is the file uniq writes its output to",
        );
    }
}

/// `sort [-bcCdfghiMmnRrsuVz] [-k KEY] [-t SEP] [-S SIZE] [--files0-from=F]
/// [--random-source=F] [FILE]...`; `-o FILE` writes, `-T DIR` writes
/// temporary files, `--compress-program` runs a program.
const SORT: Options = Options::gnu(
    "bcCdfghik:MmnRrsS:t:uVzo:T:",
    &[
        flag("ignore-leading-blanks"),
        flag("dictionary-order"),
        flag("ignore-case"),
        flag("general-numeric-sort"),
        flag("ignore-nonprinting"),
        flag("month-sort"),
        flag("human-numeric-sort"),
        flag("numeric-sort"),
        flag("random-sort"),
        val("random-source"),
        flag("reverse"),
        val("sort"),
        flag("version-sort"),
        val("batch-size"),
        optional("check"),
        flag("debug"),
        val("files0-from"),
        val("key"),
        flag("merge"),
        val("parallel"),
        flag("stable"),
        val("buffer-size"),
        val("field-separator"),
        flag("unique"),
        flag("zero-terminated"),
        val("output"),
        val("temporary-directory"),
        forbidden("compress-program"),
        HELP,
        VERSION,
    ],
);

fn sort(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&SORT) else {
        return;
    };
    let mut read = files(parsed.operands());
    read.extend(files(&values_of(
        &parsed,
        &["--files0-from", "--random-source"],
    )));
    call.read(&read);
    for (name, value) in parsed.opts() {
        match (name, value) {
            ("-o" | "--output", Some(file)) => writes_to(
                call,
                file,
                &format!("option `{name}` writes the sorted output to a file"),
            ),
            ("-T" | "--temporary-directory", Some(dir)) => writes_to(
                call,
                dir,
                &format!("option `{name}` writes temporary files into a directory"),
            ),
            ("--compress-program", _) => call.not_read_only(
                Category::Exec,
                "option `--compress-program` runs a program on temporary files",
            ),
            _ => {}
        }
    }
}

// ---------------------------------------------------------------------------
// grep

/// `grep [-EFGPiwxvcLlnohHrRsqzZabTU...] [-A N] [-B N] [-C N] [-NUM]
/// [-e PAT]... [-f FILE] [-m N] [--include=GLOB] [--exclude=GLOB]
/// [--exclude-dir=GLOB] [--exclude-from=FILE] [--color[=WHEN]] PATTERN [FILE]...`
/// (no option of grep writes or runs anything).
const GREP: Options = Options::gnu(
    "A:B:C:D:EFGHILPRTUVZabcd:e:f:hilm:noqrsuvwxyz",
    &[
        flag("extended-regexp"),
        flag("fixed-strings"),
        flag("basic-regexp"),
        flag("perl-regexp"),
        val("regexp"),
        val("file"),
        flag("ignore-case"),
        flag("no-ignore-case"),
        flag("word-regexp"),
        flag("line-regexp"),
        flag("null-data"),
        flag("no-messages"),
        flag("invert-match"),
        val("max-count"),
        flag("byte-offset"),
        flag("line-number"),
        flag("line-buffered"),
        flag("with-filename"),
        flag("no-filename"),
        val("label"),
        flag("only-matching"),
        flag("quiet"),
        flag("silent"),
        val("binary-files"),
        flag("text"),
        val("directories"),
        val("devices"),
        flag("recursive"),
        flag("dereference-recursive"),
        val("include"),
        val("exclude"),
        val("exclude-from"),
        val("exclude-dir"),
        flag("files-without-match"),
        flag("files-with-matches"),
        flag("count"),
        flag("initial-tab"),
        flag("null"),
        val("before-context"),
        val("after-context"),
        val("context"),
        optional("color"),
        optional("colour"),
        flag("binary"),
        flag("unix-byte-offsets"),
        HELP,
        VERSION,
    ],
)
.with_numeric();

fn grep(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&GREP) else {
        return;
    };
    let pattern_given = ["-e", "--regexp", "-f", "--file"]
        .iter()
        .any(|o| parsed.has(o));
    let skip = usize::from(!pattern_given);
    let mut read = files(parsed.operands().skip(skip));
    let recursive = ["-r", "-R", "--recursive", "--dereference-recursive"]
        .iter()
        .any(|o| parsed.has(o));
    if read.is_empty() && recursive {
        read.push(Arg::Literal(".".into()));
    }
    read.extend(files(&values_of(
        &parsed,
        &["-f", "--file", "--exclude-from"],
    )));
    call.read(&read);
}

// ---------------------------------------------------------------------------
// sed

/// `sed [-nrEsuz] [-l N] [--posix] [--debug] [--sandbox] [-e SCRIPT]...
/// [SCRIPT] [FILE]...`; `-i[SUFFIX]` edits the files (a write), `-f FILE`
/// runs a script this check cannot see. The script itself is parsed (see
/// [`sed_script`]).
const SED: Options = Options::gnu(
    "bnrsuzEe:f:i::l:",
    &[
        flag("quiet"),
        flag("silent"),
        val("expression"),
        val("file"),
        optional("in-place"),
        val("line-length"),
        flag("null-data"),
        flag("zero-terminated"),
        flag("regexp-extended"),
        flag("separate"),
        flag("unbuffered"),
        flag("posix"),
        flag("debug"),
        flag("sandbox"),
        flag("follow-symlinks"),
        flag("binary"),
        HELP,
        VERSION,
    ],
);

fn sed(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&SED) else {
        return;
    };
    let scripts = values_of(&parsed, &["-e", "--expression"]);
    let script_files = values_of(&parsed, &["-f", "--file"]);
    let mut operands: Vec<&Arg> = parsed.operands().collect();
    let mut script: Vec<Arg> = scripts;
    if script.is_empty() && script_files.is_empty() && !operands.is_empty() {
        script.push(operands.remove(0).clone());
    }
    let mut read = Vec::new();
    let mut refused = None;
    let mut written = Vec::new();
    if script.iter().all(|s| s.literal().is_some()) {
        let text: Vec<&str> = script.iter().filter_map(Arg::literal).collect();
        let (result, writes) = sed_script_writes(&text.join("\n"));
        written = writes;
        match result {
            Ok(files) => read.extend(files.into_iter().map(Arg::Literal)),
            Err(why) => refused = Some(why),
        }
    } else {
        // Judged again with its value before it runs.
        read.extend(script.iter().filter(|s| s.literal().is_none()).cloned());
    }
    let in_place = parsed.has("-i") || parsed.has("--in-place");
    let inputs = files(operands.iter().copied());
    if in_place {
        call.read(&read);
        call.not_read_only(
            Category::Write,
            "option `-i` (`--in-place`) edits the files in place",
        );
        for file in &inputs {
            call.writes(file);
        }
    } else {
        read.extend(inputs);
        call.read(&read);
    }
    if !script_files.is_empty() {
        call.not_read_only(
            Category::Exec,
            "option `-f FILE` runs a sed script from a file this check cannot see",
        );
    }
    if let Some((category, why)) = refused {
        call.not_read_only(category, why);
        for file in written {
            call.writes(&Arg::Literal(file));
        }
    }
}

/// Why a sed script is not read-only: the category of what it does and a
/// reason naming the command.
type Refusal = (Category, String);

/// A cursor over script text.
struct Cursor {
    chars: Vec<char>,
    at: usize,
    /// Files the script's `w`/`W` commands and `s///w` flags name.
    writes: Vec<String>,
}

impl Cursor {
    fn new(text: &str) -> Cursor {
        Cursor {
            chars: text.chars().collect(),
            at: 0,
            writes: Vec::new(),
        }
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek();
        if c.is_some() {
            self.at += 1;
        }
        c
    }

    /// Skip spaces and tabs (not newlines).
    fn skip_blanks(&mut self) {
        while matches!(self.peek(), Some(' ' | '\t' | '\r')) {
            self.at += 1;
        }
    }

    /// The rest of the line (the newline stays).
    fn rest_of_line(&mut self) -> String {
        let mut out = String::new();
        while let Some(c) = self.peek() {
            if c == '\n' {
                break;
            }
            out.push(c);
            self.at += 1;
        }
        out
    }

    fn digits(&mut self) -> bool {
        let start = self.at;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.at += 1;
        }
        self.at > start
    }
}

fn sed_error(why: impl Into<String>) -> Refusal {
    (Category::Exec, why.into())
}

/// Parse a sed script (GNU syntax) and return the files its `r`/`R`
/// commands read, or why it is not read-only. Read-only commands:
/// addresses (`N`, `$`, `/re/`, `\cREc`, `first~step`, `addr,+N`,
/// `addr,~N`, `!`), `{`/`}`, `=`, `a`/`i`/`c` text, `b`/`t`/`T` and
/// `:label`, `d D g G h H l n N p P q Q x z F`, `s/re/repl/FLAGS` (flags
/// `g i I m M p` and a number), `y/src/dst/`, `r`/`R FILE` (reads) and
/// comments. Anything else (`e`, `w`, `W`, `s///e`, `s///w`, what does not
/// parse) is refused with its name.
#[cfg(test)]
pub(crate) fn sed_script(text: &str) -> Result<Vec<String>, Refusal> {
    sed_script_writes(text).0
}

/// [`sed_script`], and the files its write commands name (where it
/// refused one).
fn sed_script_writes(text: &str) -> (Result<Vec<String>, Refusal>, Vec<String>) {
    let mut c = Cursor::new(text);
    let result = sed_parse(&mut c);
    (result, c.writes)
}

fn sed_parse(c: &mut Cursor) -> Result<Vec<String>, Refusal> {
    let mut depth = 0usize;
    let mut reads = Vec::new();
    loop {
        while matches!(c.peek(), Some(' ' | '\t' | '\r' | '\n' | ';')) {
            c.bump();
        }
        let Some(first) = c.peek() else {
            break;
        };
        if first == '#' {
            c.rest_of_line();
            continue;
        }
        let addressed = sed_address(c)?;
        c.skip_blanks();
        while c.peek() == Some('!') {
            c.bump();
            c.skip_blanks();
        }
        let Some(command) = c.bump() else {
            return Err(sed_error("the sed script has an address without a command"));
        };
        match command {
            '{' => {
                depth += 1;
                continue;
            }
            '}' => {
                if depth == 0 {
                    return Err(sed_error("the sed script has an unmatched `}`"));
                }
                depth -= 1;
            }
            '=' | 'd' | 'D' | 'g' | 'G' | 'h' | 'H' | 'n' | 'N' | 'p' | 'P' | 'x' | 'z' | 'F' => {}
            'l' | 'L' | 'q' | 'Q' => {
                c.skip_blanks();
                c.digits();
            }
            'b' | 't' | 'T' | 'v' => {
                sed_label(c);
            }
            ':' => {
                if addressed {
                    return Err(sed_error("sed script label `:` cannot have an address"));
                }
                if sed_label(c).is_empty() {
                    return Err(sed_error("sed script label `:` has no name"));
                }
            }
            'a' | 'i' | 'c' => {
                sed_text(c);
                continue;
            }
            's' => sed_substitute(c)?,
            'y' => {
                let delim = sed_delimiter(c, 'y')?;
                sed_part(c, delim, 'y')?;
                sed_part(c, delim, 'y')?;
            }
            'r' | 'R' => {
                c.skip_blanks();
                let file = c.rest_of_line();
                if file.is_empty() {
                    return Err(sed_error(format!(
                        "sed script command `{command}` needs a file name"
                    )));
                }
                reads.push(file);
                continue;
            }
            'w' | 'W' => {
                c.skip_blanks();
                let file = c.rest_of_line();
                c.writes.push(file);
                return Err((
                    Category::Write,
                    format!("sed script command `{command}` writes a file"),
                ));
            }
            'e' => {
                return Err(sed_error("sed script command `e` runs a shell command"));
            }
            other => {
                return Err(sed_error(format!(
                    "sed script command `{}` is not one of its read-only forms",
                    other.escape_debug()
                )));
            }
        }
        sed_end_of_command(c, command)?;
    }
    if depth > 0 {
        return Err(sed_error("the sed script has an unmatched `{`"));
    }
    Ok(reads)
}

/// An optional address or address range; whether there was one.
fn sed_address(c: &mut Cursor) -> Result<bool, Refusal> {
    if !sed_one_address(c, false)? {
        return Ok(false);
    }
    c.skip_blanks();
    if c.peek() == Some(',') {
        c.bump();
        c.skip_blanks();
        if !sed_one_address(c, true)? {
            return Err(sed_error(
                "the sed script has an address range without an end",
            ));
        }
    }
    Ok(true)
}

fn sed_one_address(c: &mut Cursor, second: bool) -> Result<bool, Refusal> {
    match c.peek() {
        Some('/') => {
            c.bump();
            sed_part(c, '/', 'a')?;
            sed_regex_flags(c);
        }
        Some('\\') => {
            c.bump();
            let delim = match c.bump() {
                Some(d) if d != '\n' && d != '\\' => d,
                _ => return Err(sed_error("the sed script has a bad `\\c` address")),
            };
            sed_part(c, delim, 'a')?;
            sed_regex_flags(c);
        }
        Some('$') => {
            c.bump();
        }
        Some(d) if d.is_ascii_digit() => {
            c.digits();
            if c.peek() == Some('~') {
                c.bump();
                c.digits();
            }
        }
        Some('+' | '~') if second => {
            c.bump();
            if !c.digits() {
                return Err(sed_error("the sed script has a bad address"));
            }
        }
        _ => return Ok(false),
    }
    Ok(true)
}

fn sed_regex_flags(c: &mut Cursor) {
    while matches!(c.peek(), Some('I' | 'M')) {
        c.bump();
    }
}

/// One delimited part (`re/` after the opening delimiter): a backslash
/// escapes the next character, an unescaped newline is an error (GNU
/// `match_slash`; bracket expressions are not special).
fn sed_part(c: &mut Cursor, delim: char, command: char) -> Result<(), Refusal> {
    loop {
        match c.bump() {
            None | Some('\n') => {
                return Err(sed_error(format!(
                    "the sed script has an unterminated `{command}`"
                )));
            }
            Some('\\') => {
                if c.bump().is_none() {
                    return Err(sed_error(format!(
                        "the sed script has an unterminated `{command}`"
                    )));
                }
            }
            Some(ch) if ch == delim => return Ok(()),
            Some(_) => {}
        }
    }
}

fn sed_delimiter(c: &mut Cursor, command: char) -> Result<char, Refusal> {
    match c.bump() {
        Some(d) if d != '\n' && d != '\\' => Ok(d),
        _ => Err(sed_error(format!(
            "the sed script has a bad delimiter after `{command}`"
        ))),
    }
}

/// `s/re/replacement/flags`.
fn sed_substitute(c: &mut Cursor) -> Result<(), Refusal> {
    let delim = sed_delimiter(c, 's')?;
    sed_part(c, delim, 's')?;
    sed_part(c, delim, 's')?;
    loop {
        match c.peek() {
            Some('g' | 'i' | 'I' | 'm' | 'M' | 'p') => {
                c.bump();
            }
            Some(d) if d.is_ascii_digit() => {
                c.bump();
            }
            Some('e') => {
                return Err(sed_error(
                    "sed script flag `e` of `s` runs the result as a shell command",
                ));
            }
            Some('w') => {
                c.bump();
                c.skip_blanks();
                let file = c.rest_of_line();
                c.writes.push(file);
                return Err((
                    Category::Write,
                    "sed script flag `w` of `s` writes a file".into(),
                ));
            }
            _ => return Ok(()),
        }
    }
}

/// A label (`b label`, `:label`): up to a blank, `;` or newline.
fn sed_label(c: &mut Cursor) -> String {
    c.skip_blanks();
    let mut label = String::new();
    while let Some(ch) = c.peek() {
        if matches!(ch, ' ' | '\t' | '\r' | '\n' | ';') {
            break;
        }
        label.push(ch);
        c.bump();
    }
    label
}

/// The text of `a`, `i`, `c`: one line (GNU one-liner) or `\` and the
/// next lines; a backslash at the end of a line continues the text.
fn sed_text(c: &mut Cursor) {
    c.skip_blanks();
    if c.peek() == Some('\\') {
        c.bump();
        c.bump();
    }
    while let Some(ch) = c.bump() {
        match ch {
            '\\' => {
                c.bump();
            }
            '\n' => break,
            _ => {}
        }
    }
}

/// After a command: blanks, then the end, `;`, a newline, `}` or `#`.
fn sed_end_of_command(c: &mut Cursor, command: char) -> Result<(), Refusal> {
    c.skip_blanks();
    match c.peek() {
        None | Some(';' | '\n' | '}' | '#') => Ok(()),
        Some(other) => Err(sed_error(format!(
            "the sed script has `{}` after command `{command}`, which this check does not parse",
            other.escape_debug()
        ))),
    }
}

// ---------------------------------------------------------------------------
// awk

/// `awk [-F FS] [-v VAR=VAL]... [-e PROGRAM]... [--posix|--sandbox|...] PROGRAM
/// [FILE | VAR=VAL]...` (gawk, mawk, nawk). `-f FILE` and `-E FILE` run a
/// program this check cannot see, `-i`/`-l` load extensions, the
/// `--dump-variables`/`--profile`/`--pretty-print` options write files and
/// `--debug` reads commands: they ask. The program is parsed (see
/// [`awk_program`]).
const AWK: Options = Options::posix(
    "F:v:f:e:i:l:E:bcCghkL::MnNOPrsStVW:",
    &[
        val("field-separator"),
        val("assign"),
        val("file"),
        val("source"),
        val("include"),
        val("load"),
        val("exec"),
        flag("characters-as-bytes"),
        flag("traditional"),
        flag("copyright"),
        flag("gen-pot"),
        optional("lint"),
        flag("bignum"),
        flag("non-decimal-data"),
        flag("use-lc-numeric"),
        flag("optimize"),
        flag("posix"),
        flag("re-interval"),
        flag("no-optimize"),
        flag("sandbox"),
        flag("lint-old"),
        flag("csv"),
        forbidden("dump-variables"),
        forbidden("debug"),
        forbidden("pretty-print"),
        forbidden("profile"),
        HELP,
        VERSION,
    ],
);

/// mawk's and gawk's `-W` words that only change how the program runs.
const AWK_W_WORDS: &[&str] = &[
    "interactive",
    "version",
    "usage",
    "help",
    "dump",
    "posix_space",
    "posix",
    "traditional",
    "sandbox",
    "re-interval",
    "lint",
];

fn awk(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&AWK) else {
        return;
    };
    let mut refusals: Vec<Refusal> = Vec::new();
    let mut sources: Vec<Arg> = Vec::new();
    for (name, value) in parsed.opts() {
        let text = value.map(Arg::text).unwrap_or("");
        match name {
            "-e" | "--source" => sources.extend(value.cloned()),
            "-f" | "--file" | "-E" | "--exec" => refusals.push((
                Category::Exec,
                format!("option `{name}` runs an awk program from a file this check cannot see"),
            )),
            "-i" | "--include" | "-l" | "--load" => refusals.push((
                Category::Exec,
                format!("option `{name}` loads an awk extension or library"),
            )),
            "--dump-variables" | "--profile" | "--pretty-print" => {
                refusals.push((Category::Write, format!("option `{name}` writes a file")))
            }
            "--debug" => refusals.push((
                Category::Exec,
                "option `--debug` runs the awk debugger".into(),
            )),
            "-W" => {
                let word = text.split('=').next().unwrap_or("");
                if !AWK_W_WORDS.contains(&word) && !word.starts_with("sprintf") {
                    refusals.push((
                        Category::Exec,
                        format!("option `-W {text}` is not one of its read-only forms"),
                    ));
                }
            }
            _ => {}
        }
        if text.contains("/inet") {
            refusals.push(awk_network());
        }
    }
    let from_file = parsed
        .opts()
        .any(|(n, _)| matches!(n, "-f" | "--file" | "-E" | "--exec"));
    let mut operands: Vec<&Arg> = parsed.operands().collect();
    if sources.is_empty() && !from_file && !operands.is_empty() {
        sources.push(operands.remove(0).clone());
    }
    let mut read = Vec::new();
    let mut written = Vec::new();
    for source in &sources {
        match source {
            Arg::Literal(text) => {
                let (reads, writes) = awk_files(text);
                read.extend(reads.into_iter().map(Arg::Literal));
                if let Err(refusal) = awk_program(text) {
                    refusals.push(refusal);
                    written.extend(writes);
                }
            }
            Arg::Dynamic(_) => read.push(source.clone()),
        }
    }
    for operand in operands {
        let text = operand.text();
        if text.contains("/inet") {
            refusals.push(awk_network());
        }
        if !is_awk_assignment(text) && text != "-" {
            read.push(operand.clone());
        }
    }
    call.read(&read);
    for (category, why) in refusals {
        call.not_read_only(category, why);
    }
    if call.step.floor.is_some() {
        for file in written {
            call.writes(&Arg::Literal(file));
        }
    }
}

/// The files an awk program names literally: `getline < "f"` reads `f`;
/// `> "f"`, `>> "f"` may write `f` (counted only when the program was
/// refused, where they are the write's targets).
fn awk_files(text: &str) -> (Vec<String>, Vec<String>) {
    let Ok(tokens) = awk_tokens(text) else {
        return (Vec::new(), Vec::new());
    };
    let mut reads = Vec::new();
    let mut writes = Vec::new();
    for (k, token) in tokens.iter().enumerate() {
        let next_str = match tokens.get(k + 1) {
            Some(AwkToken::Str(file)) => Some(file.clone()),
            _ => None,
        };
        match token {
            AwkToken::Punct(p) if p == "<" => {
                let after_getline = k > 0
                    && matches!(&tokens[k - 1], AwkToken::Word(w) if w == "getline")
                    || k > 1 && matches!(&tokens[k - 2], AwkToken::Word(w) if w == "getline");
                if after_getline && let Some(file) = next_str {
                    reads.push(file);
                }
            }
            AwkToken::Punct(p) if p == ">" || p == ">>" => {
                if let Some(file) = next_str
                    && file != "/dev/stdout"
                    && file != "/dev/stderr"
                {
                    writes.push(file);
                }
            }
            _ => {}
        }
    }
    (reads, writes)
}

fn awk_network() -> Refusal {
    (
        Category::Network,
        "gawk's special files `/inet/...` open network connections".into(),
    )
}

/// `name=value` operands set a variable instead of naming a file.
fn is_awk_assignment(text: &str) -> bool {
    text.split_once('=').is_some_and(|(name, _)| {
        let mut chars = name.chars();
        chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// One token of an awk program.
#[derive(Clone, Debug, PartialEq, Eq)]
enum AwkToken {
    Word(String),
    /// A string literal's text, escapes as written.
    Str(String),
    Regex,
    Number,
    Punct(String),
    Newline,
}

/// Operators of more than one character, longest first.
const AWK_OPERATORS: &[&str] = &[
    "**=", "&&", "||", "|&", ">>", ">=", "<=", "==", "!=", "!~", "++", "--", "+=", "-=", "*=",
    "/=", "%=", "^=", "**",
];

/// Keywords after which a `/` starts a regular expression.
const AWK_REGEX_AFTER: &[&str] = &["print", "printf", "return", "case", "do", "else", "in"];

/// Split an awk program into tokens, knowing strings, comments and
/// regular expression literals (a `/` starts one where an operand is
/// expected: at the start, after an operator or `(`, `,`, `{`, `;`, a
/// newline, certain keywords, or the `)` closing an `if`/`while`/`for`).
fn awk_tokens(text: &str) -> Result<Vec<AwkToken>, Refusal> {
    let chars: Vec<char> = text.chars().collect();
    let unparsable = |why: &str| (Category::Exec, format!("the awk program {why}"));
    let mut tokens: Vec<AwkToken> = Vec::new();
    let mut parens: Vec<bool> = Vec::new();
    let mut after_control = false;
    let mut i = 0;
    while i < chars.len() {
        let ch = chars[i];
        let mut closes_control = false;
        match ch {
            ' ' | '\t' | '\r' => {
                i += 1;
                continue;
            }
            '\\' if matches!(chars.get(i + 1), Some('\n')) => {
                i += 2;
                continue;
            }
            '\\' if matches!(chars.get(i + 1), Some('\r'))
                && matches!(chars.get(i + 2), Some('\n')) =>
            {
                i += 3;
                continue;
            }
            '\n' => {
                tokens.push(AwkToken::Newline);
                i += 1;
            }
            '#' => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
                continue;
            }
            '"' => {
                i += 1;
                let mut value = String::new();
                loop {
                    match chars.get(i) {
                        None | Some('\n') => return Err(unparsable("has an unterminated string")),
                        Some('\\') => {
                            value.push('\\');
                            if let Some(next) = chars.get(i + 1) {
                                value.push(*next);
                            }
                            i += 2;
                        }
                        Some('"') => {
                            i += 1;
                            break;
                        }
                        Some(other) => {
                            value.push(*other);
                            i += 1;
                        }
                    }
                }
                tokens.push(AwkToken::Str(value));
            }
            '/' if awk_regex_allowed(tokens.last(), after_control) => {
                i = awk_regex_end(&chars, i + 1).map_err(|why| unparsable(&why))?;
                tokens.push(AwkToken::Regex);
            }
            '@' => {
                return Err((
                    Category::Exec,
                    "awk `@` (gawk's `@load`, `@include` and indirect function calls) is not one of its read-only forms".into(),
                ));
            }
            c if c.is_ascii_digit()
                || (c == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit)) =>
            {
                while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '.') {
                    i += 1;
                }
                tokens.push(AwkToken::Number);
            }
            c if c.is_alphabetic() || c == '_' => {
                let start = i;
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                tokens.push(AwkToken::Word(chars[start..i].iter().collect()));
            }
            _ => {
                let rest: String = chars[i..chars.len().min(i + 3)].iter().collect();
                let op = AWK_OPERATORS
                    .iter()
                    .find(|op| rest.starts_with(**op))
                    .map(|op| op.to_string())
                    .unwrap_or_else(|| ch.to_string());
                i += op.chars().count();
                match op.as_str() {
                    "(" => {
                        let control = matches!(
                            tokens.last(),
                            Some(AwkToken::Word(w)) if matches!(w.as_str(), "if" | "while" | "for" | "switch")
                        );
                        parens.push(control);
                    }
                    ")" => match parens.pop() {
                        Some(control) => closes_control = control,
                        None => return Err(unparsable("has an unmatched `)`")),
                    },
                    _ => {}
                }
                tokens.push(AwkToken::Punct(op));
            }
        }
        after_control = closes_control;
    }
    if !parens.is_empty() {
        return Err(unparsable("has an unmatched `(`"));
    }
    Ok(tokens)
}

fn awk_regex_allowed(last: Option<&AwkToken>, after_control: bool) -> bool {
    match last {
        None | Some(AwkToken::Newline) => true,
        Some(AwkToken::Word(w)) => AWK_REGEX_AFTER.contains(&w.as_str()),
        Some(AwkToken::Str(_) | AwkToken::Number | AwkToken::Regex) => false,
        Some(AwkToken::Punct(p)) => match p.as_str() {
            ")" => after_control,
            "]" | "$" | "++" | "--" => false,
            _ => true,
        },
    }
}

/// The index after a regular expression literal that starts at `i` (after
/// its `/`), with gawk's bracket rules; a `/` inside a bracket expression
/// is refused because awks disagree on where such a literal ends.
fn awk_regex_end(chars: &[char], mut i: usize) -> Result<usize, String> {
    let mut in_bracket: i32 = 0;
    let mut bracket_start = 0usize;
    loop {
        let Some(&ch) = chars.get(i) else {
            return Err("has an unterminated regular expression".into());
        };
        match ch {
            '\n' => return Err("has an unterminated regular expression".into()),
            '\\' => {
                i += 2;
                continue;
            }
            '[' if chars.get(i + 1) == Some(&':') || in_bracket == 0 => {
                in_bracket += 1;
                if in_bracket == 1 {
                    bracket_start = i;
                }
            }
            ']' => {
                let literal = in_bracket > 0
                    && (i == bracket_start + 1 || (i == bracket_start + 2 && chars[i - 1] == '^'));
                if !literal {
                    in_bracket -= 1;
                }
            }
            '/' if in_bracket > 0 => {
                return Err(
                    "has a `/` inside a bracket expression of a regular expression, which awks read differently"
                        .into(),
                );
            }
            '/' => return Ok(i + 1),
            _ => {}
        }
        i += 1;
    }
}

/// Assignment operators (and `++`/`--`) that change what they follow.
const AWK_ASSIGN: &[&str] = &["=", "+=", "-=", "*=", "/=", "%=", "^=", "**=", "++", "--"];

/// Parse an awk program enough to refuse what is not read-only:
/// `system()`, any `|` (`print | "cmd"`, `"cmd" | getline`, `|&`), output
/// redirection `>`/`>>` after `print`/`printf` at its own parenthesis
/// depth (a `>` elsewhere is a comparison; `> "/dev/stdout"` and
/// `> "/dev/stderr"` are allowed), changes to `ENVIRON`, gawk's `@`
/// forms, `extension()` and `/inet` special files. `getline < FILE` reads.
pub(crate) fn awk_program(text: &str) -> Result<(), Refusal> {
    if mentions_call(text, "system") {
        return Err(awk_system());
    }
    let tokens = awk_tokens(text)?;
    let mut depth = 0usize;
    let mut print_depth: Option<usize> = None;
    for (k, token) in tokens.iter().enumerate() {
        match token {
            AwkToken::Word(w) => match w.as_str() {
                "system" => return Err(awk_system()),
                "extension" => {
                    return Err((
                        Category::Exec,
                        "awk function `extension()` loads native code".into(),
                    ));
                }
                "ENVIRON" => awk_environ(&tokens, k)?,
                "ARGV" | "ARGC" => {
                    return Err((
                        Category::Exec,
                        format!("awk `{w}` can change which files the program reads"),
                    ));
                }
                "getline" => {
                    let from = matches!(tokens.get(k + 1), Some(AwkToken::Punct(p)) if p == "<");
                    if from && !matches!(tokens.get(k + 2), Some(AwkToken::Str(_))) {
                        return Err((
                            Category::Exec,
                            "awk `getline <` reads a file named only when it runs".into(),
                        ));
                    }
                }
                "print" | "printf" => print_depth = Some(depth),
                _ => {}
            },
            AwkToken::Str(s) if s.contains("/inet") => return Err(awk_network()),
            AwkToken::Punct(p) => match p.as_str() {
                "(" => depth += 1,
                ")" => {
                    depth = depth.saturating_sub(1);
                    if print_depth.is_some_and(|d| depth < d) {
                        print_depth = None;
                    }
                }
                ";" | "{" | "}" => print_depth = None,
                "|" | "|&" => {
                    return Err((
                        Category::Exec,
                        format!("awk `{p}` pipes to or from a shell command"),
                    ));
                }
                ">" | ">>" if print_depth == Some(depth) => {
                    let standard = matches!(
                        tokens.get(k + 1),
                        Some(AwkToken::Str(s)) if s == "/dev/stdout" || s == "/dev/stderr"
                    );
                    let ends = match tokens.get(k + 2) {
                        None | Some(AwkToken::Newline) => true,
                        Some(AwkToken::Punct(q)) => q == ";" || q == "}",
                        _ => false,
                    };
                    let standard = standard && ends;
                    if !standard {
                        return Err((
                            Category::Write,
                            format!("awk output redirection `{p}` after print writes a file"),
                        ));
                    }
                }
                _ => {}
            },
            AwkToken::Newline => {
                let continues = k > 0
                    && matches!(
                        &tokens[k - 1],
                        AwkToken::Punct(q) if matches!(q.as_str(), "," | "&&" | "||")
                    );
                if !continues {
                    print_depth = None;
                }
            }
            _ => {}
        }
    }
    Ok(())
}

fn awk_system() -> Refusal {
    (
        Category::Exec,
        "awk function `system()` runs a shell command".into(),
    )
}

/// Whether `name` appears as a word followed by `(` anywhere in `text`
/// (strings included: a belt to the tokenizer's braces).
fn mentions_call(text: &str, name: &str) -> bool {
    text.match_indices(name).any(|(at, _)| {
        let before_ok = text[..at]
            .chars()
            .next_back()
            .is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
        let after = text[at + name.len()..].trim_start();
        before_ok && after.starts_with('(')
    })
}

/// `ENVIRON[...]` may be read; assigning, incrementing or deleting it, or
/// passing the whole array anywhere but `in`, is refused.
fn awk_environ(tokens: &[AwkToken], k: usize) -> Result<(), Refusal> {
    let refuse = || {
        Err((
            Category::Exec,
            "awk changes to `ENVIRON` are not one of its read-only forms".into(),
        ))
    };
    let before = k.checked_sub(1).and_then(|p| tokens.get(p));
    if matches!(before, Some(AwkToken::Word(w)) if w == "delete")
        || matches!(before, Some(AwkToken::Punct(p)) if p == "++" || p == "--")
    {
        return refuse();
    }
    if !matches!(tokens.get(k + 1), Some(AwkToken::Punct(p)) if p == "[") {
        if matches!(before, Some(AwkToken::Word(w)) if w == "in") {
            return Ok(());
        }
        return refuse();
    }
    let mut nesting = 0usize;
    let mut j = k + 1;
    while let Some(token) = tokens.get(j) {
        if let AwkToken::Punct(p) = token {
            match p.as_str() {
                "[" => nesting += 1,
                "]" => {
                    nesting -= 1;
                    if nesting == 0 {
                        break;
                    }
                }
                _ => {}
            }
        }
        j += 1;
    }
    match tokens.get(j + 1) {
        Some(AwkToken::Punct(p)) if AWK_ASSIGN.contains(&p.as_str()) => refuse(),
        _ => Ok(()),
    }
}

// ---------------------------------------------------------------------------
// Encoders, dumps, checksums.

/// `base64|base32 [-d] [-i] [-w COLS] [FILE]`
const BASE64: Options = Options::gnu(
    "dinw:",
    &[
        flag("decode"),
        flag("ignore-garbage"),
        val("wrap"),
        HELP,
        VERSION,
    ],
);

fn base64(call: &mut Call<'_>) {
    read_operands(call, &BASE64);
}

/// `basenc --base64|--base32|... [-d] [-i] [-w COLS] [FILE]`
const BASENC: Options = Options::gnu(
    "diw:",
    &[
        flag("base64"),
        flag("base64url"),
        flag("base58"),
        flag("base32"),
        flag("base32hex"),
        flag("base16"),
        flag("base2msbf"),
        flag("base2lsbf"),
        flag("z85"),
        flag("decode"),
        flag("ignore-garbage"),
        val("wrap"),
        HELP,
        VERSION,
    ],
);

fn basenc(call: &mut Call<'_>) {
    read_operands(call, &BASENC);
}

/// xxd's flags (its own parser: one option per argument, long spellings).
const XXD_FLAGS: &[&str] = &[
    "-a",
    "-autoskip",
    "-b",
    "-bits",
    "-C",
    "-capitalize",
    "-d",
    "-decimal",
    "-E",
    "-EBCDIC",
    "-e",
    "-h",
    "-help",
    "-i",
    "-include",
    "-p",
    "-ps",
    "-postscript",
    "-plain",
    "-r",
    "-revert",
    "-u",
    "-uppercase",
    "-v",
    "-version",
];
/// xxd's options with a value (next argument, or attached to the short form:
/// `-c16`).
const XXD_VALUED: &[&str] = &[
    "-c",
    "-cols",
    "-g",
    "-groupsize",
    "-l",
    "-len",
    "-o",
    "-offset",
    "-s",
    "-seek",
    "-n",
    "-name",
    "-R",
];

/// `xxd [FLAGS] [-c N] [-g N] [-l N] [-s N] [-o N] [-n NAME] [INFILE
/// [OUTFILE]]`: a second operand is a file xxd *writes*.
fn xxd(call: &mut Call<'_>) {
    let args = call.args;
    let mut operands: Vec<&Arg> = Vec::new();
    let mut i = 0;
    let mut options_done = false;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        let text = match arg {
            Arg::Literal(t) if !options_done && t.starts_with('-') && t != "-" => t.as_str(),
            _ => {
                options_done = true;
                operands.push(arg);
                continue;
            }
        };
        if text == "--" {
            options_done = true;
            continue;
        }
        if XXD_FLAGS.contains(&text) {
            continue;
        }
        if XXD_VALUED.contains(&text) {
            if i >= args.len() {
                call.not_read_only(Category::Exec, format!("option `{text}` needs a value"));
                return;
            }
            i += 1;
            continue;
        }
        let attached = text.len() > 2
            && XXD_VALUED.contains(&&text[..2])
            && text[2..].starts_with(|c: char| c.is_ascii_digit() || c == '+' || c == '-');
        if !attached {
            call.not_read_only(
                Category::Exec,
                format!("option `{text}` is not one of its read-only forms"),
            );
            return;
        }
    }
    call.read(&files(operands.iter().take(1).copied()));
    if let Some(output) = operands.get(1).filter(|o| o.literal() != Some("-")) {
        writes_to(
            call,
            output,
            "a second operand is the file xxd writes its output to",
        );
    }
}

/// `hexdump [-bcCdovx] [-e FMT] [-f FMTFILE] [-n LEN] [-s SKIP] [FILE]...`
/// (util-linux; `-f` reads a format file).
const HEXDUMP: Options = Options::gnu(
    "bcCde:f:L::n:os:vxhV",
    &[
        flag("one-byte-octal"),
        flag("one-byte-char"),
        flag("one-byte-hex"),
        flag("canonical"),
        flag("two-bytes-decimal"),
        flag("two-bytes-octal"),
        flag("two-bytes-hex"),
        val("format"),
        val("format-file"),
        optional("color"),
        val("length"),
        val("skip"),
        flag("no-squeezing"),
        HELP,
        VERSION,
    ],
);

fn hexdump(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&HEXDUMP) else {
        return;
    };
    let mut read = files(parsed.operands());
    read.extend(values_of(&parsed, &["-f", "--format-file"]));
    call.read(&read);
}

/// `od [-A RADIX] [-j SKIP] [-N LEN] [-t TYPE] [-S N] [-w[N]] [-abcdfhilosvx]
/// [FILE]...`
const OD: Options = Options::gnu(
    "A:abcDdeFfHhIij:LlN:OoS:st:vw::Xx",
    &[
        val("address-radix"),
        val("endian"),
        val("skip-bytes"),
        val("read-bytes"),
        optional("strings"),
        val("format"),
        flag("output-duplicates"),
        optional("width"),
        flag("traditional"),
        HELP,
        VERSION,
    ],
);

fn od(call: &mut Call<'_>) {
    read_operands(call, &OD);
}

/// `strings [-afw] [-n N] [-NUM] [-t RADIX] [-o] [-e ENC] [-s SEP] [-T BFD]
/// [FILE]...` (`@FILE` response files read options this check cannot see).
const STRINGS: Options = Options::gnu(
    "adfhn:ot:e:s:T:U:vVw",
    &[
        flag("all"),
        flag("data"),
        flag("print-file-name"),
        val("bytes"),
        val("radix"),
        val("encoding"),
        val("output-separator"),
        val("target"),
        val("unicode"),
        flag("include-all-whitespace"),
        HELP,
        VERSION,
    ],
)
.with_numeric();

fn strings(call: &mut Call<'_>) {
    let Some(parsed) = read_operands(call, &STRINGS) else {
        return;
    };
    if parsed.literal_operands().iter().any(|o| o.starts_with('@')) {
        call.not_read_only(
            Category::Exec,
            "an `@FILE` operand reads further options from a file",
        );
    }
}

/// `md5sum|sha*sum [-bctwz] [--check] [--tag] [--quiet] [--status] [--strict]
/// [--ignore-missing] [FILE]...` (`--check` reads the files a list names).
const CHECKSUM: Options = Options::gnu(
    "bctwz",
    &[
        flag("binary"),
        flag("check"),
        flag("tag"),
        flag("text"),
        flag("zero"),
        flag("ignore-missing"),
        flag("quiet"),
        flag("status"),
        flag("strict"),
        flag("warn"),
        HELP,
        VERSION,
    ],
);

fn checksum(call: &mut Call<'_>) {
    read_operands(call, &CHECKSUM);
}

/// `b2sum`: as `md5sum`, with `-l BITS`.
const B2SUM: Options = Options::gnu(
    "bctwzl:",
    &[
        flag("binary"),
        flag("check"),
        flag("tag"),
        flag("text"),
        flag("zero"),
        flag("ignore-missing"),
        flag("quiet"),
        flag("status"),
        flag("strict"),
        flag("warn"),
        val("length"),
        HELP,
        VERSION,
    ],
);

fn b2sum(call: &mut Call<'_>) {
    read_operands(call, &B2SUM);
}

/// `cksum [-a ALGO] [-l BITS] [--base64] [--raw] [--untagged] [-c] [FILE]...`
const CKSUM: Options = Options::gnu(
    "a:bcl:tzw",
    &[
        val("algorithm"),
        flag("base64"),
        flag("check"),
        val("length"),
        flag("raw"),
        flag("tag"),
        flag("untagged"),
        flag("zero"),
        flag("ignore-missing"),
        flag("quiet"),
        flag("status"),
        flag("strict"),
        flag("warn"),
        flag("debug"),
        flag("binary"),
        flag("text"),
        HELP,
        VERSION,
    ],
);

fn cksum(call: &mut Call<'_>) {
    read_operands(call, &CKSUM);
}

/// `sum [-rs] [FILE]...`
const SUM: Options = Options::gnu("rs", &[flag("sysv"), HELP, VERSION]);

fn sum(call: &mut Call<'_>) {
    read_operands(call, &SUM);
}

// ---------------------------------------------------------------------------
// Comparisons.

/// `cmp [-bls] [-i SKIP] [-n LIMIT] FILE1 [FILE2 [SKIP1 [SKIP2]]]`
const CMP: Options = Options::gnu(
    "bi:ln:sv",
    &[
        flag("print-bytes"),
        val("ignore-initial"),
        flag("verbose"),
        val("bytes"),
        flag("quiet"),
        flag("silent"),
        HELP,
        VERSION,
    ],
);

fn cmp(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&CMP) else {
        return;
    };
    call.read(&files(parsed.operands().take(2)));
}

/// The long options of `diff` (all read-only; `--from-file`, `--to-file`
/// and `--exclude-from` name files it reads).
const DIFF_LONG: &[Long] = &[
    flag("normal"),
    flag("brief"),
    flag("report-identical-files"),
    optional("context"),
    optional("unified"),
    flag("ed"),
    flag("rcs"),
    flag("side-by-side"),
    val("width"),
    flag("left-column"),
    flag("suppress-common-lines"),
    flag("show-c-function"),
    val("show-function-line"),
    val("label"),
    flag("expand-tabs"),
    flag("initial-tab"),
    val("tabsize"),
    flag("suppress-blank-empty"),
    flag("paginate"),
    flag("recursive"),
    flag("no-dereference"),
    flag("new-file"),
    flag("unidirectional-new-file"),
    flag("ignore-file-name-case"),
    flag("no-ignore-file-name-case"),
    val("exclude"),
    val("exclude-from"),
    val("starting-file"),
    val("from-file"),
    val("to-file"),
    flag("ignore-case"),
    flag("ignore-tab-expansion"),
    flag("ignore-trailing-space"),
    flag("ignore-space-change"),
    flag("ignore-all-space"),
    flag("ignore-blank-lines"),
    val("ignore-matching-lines"),
    flag("text"),
    flag("strip-trailing-cr"),
    val("ifdef"),
    val("old-group-format"),
    val("new-group-format"),
    val("unchanged-group-format"),
    val("changed-group-format"),
    val("line-format"),
    val("old-line-format"),
    val("new-line-format"),
    val("unchanged-line-format"),
    flag("minimal"),
    val("horizon-lines"),
    flag("speed-large-files"),
    optional("color"),
    val("palette"),
    flag("binary"),
    HELP,
    VERSION,
];

/// `diff [-abBcdeEfhHiNnpPqrsStTuwyZ] [-C N] [-U N] [-NUM] [-D NAME] [-F RE]
/// [-I RE] [-L LABEL] [-S FILE] [-W N] [-x PAT] [-X FILE] FILES...`
const DIFF: Options =
    Options::gnu("abBcC:dD:eEfF:hHiI:lL:nNpPqrsS:tTuU:vwW:x:X:yZ", DIFF_LONG).with_numeric();

fn diff(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&DIFF) else {
        return;
    };
    let mut read = files(parsed.operands());
    read.extend(values_of(
        &parsed,
        &["--from-file", "--to-file", "--exclude-from", "-X"],
    ));
    call.read(&read);
}

/// `diff3 [-3AaEeiLmTxX] [-L LABEL]... MINE OLDER YOURS`;
/// `--diff-program` runs a program.
const DIFF3: Options = Options::gnu(
    "3AaEeiL:mTxX",
    &[
        flag("easy-only"),
        flag("show-all"),
        flag("text"),
        flag("show-overlap"),
        flag("ed"),
        flag("overlap-only"),
        val("label"),
        flag("merge"),
        flag("initial-tab"),
        flag("strip-trailing-cr"),
        val("diff-program"),
        HELP,
        VERSION,
    ],
);

fn diff3(call: &mut Call<'_>) {
    let Some(parsed) = read_operands(call, &DIFF3) else {
        return;
    };
    if parsed.has("--diff-program") {
        call.not_read_only(
            Category::Exec,
            "option `--diff-program` runs another program",
        );
    }
}

/// `sdiff [-abBdEHilstWZ] [-I RE] [-w N] FILE1 FILE2`; `-o FILE` merges
/// interactively into a file it writes, `--diff-program` runs a program.
const SDIFF: Options = Options::gnu(
    "abBdEHiI:lo:stvw:WZ",
    &[
        flag("text"),
        flag("ignore-space-change"),
        flag("ignore-blank-lines"),
        flag("minimal"),
        flag("ignore-tab-expansion"),
        flag("speed-large-files"),
        flag("ignore-case"),
        val("ignore-matching-lines"),
        flag("left-column"),
        val("output"),
        flag("suppress-common-lines"),
        flag("expand-tabs"),
        val("tabsize"),
        val("width"),
        flag("ignore-all-space"),
        flag("ignore-trailing-space"),
        flag("strip-trailing-cr"),
        val("diff-program"),
        HELP,
        VERSION,
    ],
);

fn sdiff(call: &mut Call<'_>) {
    let Some(parsed) = read_operands(call, &SDIFF) else {
        return;
    };
    for (name, value) in parsed.opts() {
        match (name, value) {
            ("-o" | "--output", Some(file)) => writes_to(
                call,
                file,
                &format!("option `{name}` writes the merged file"),
            ),
            ("--diff-program", _) => call.not_read_only(
                Category::Exec,
                "option `--diff-program` runs another program",
            ),
            _ => {}
        }
    }
}

// ---------------------------------------------------------------------------
// jq and yq: filters are data (no filter writes or runs anything).

/// A jq-like command line: single-letter flags that combine (`-rc`), long
/// flags matched exactly, options with one or two values.
struct JqForms {
    /// Single-letter flags (combinable).
    letters: &'static str,
    /// Single letters that take a value (next argument or attached).
    valued_letters: &'static str,
    long_flags: &'static [&'static str],
    long_valued: &'static [&'static str],
    /// `--arg NAME VALUE` and friends.
    long_two: &'static [&'static str],
    /// Options that write (refused with their name).
    writes: &'static [&'static str],
}

/// jq 1.6–1.8: `jq [-rjacCMnesSR] [--tab] [--indent N] [--arg N V]
/// [--argjson N JSON] [--slurpfile N FILE] [--rawfile N FILE] [-L DIR]
/// [-f] [--args|--jsonargs] FILTER [FILE]...`
const JQ: JqForms = JqForms {
    letters: "rjacCMnesSRhVf0b",
    valued_letters: "L",
    long_flags: &[
        "--seq",
        "--stream",
        "--stream-errors",
        "--slurp",
        "--raw-input",
        "--null-input",
        "--compact-output",
        "--color-output",
        "--monochrome-output",
        "--ascii-output",
        "--unbuffered",
        "--sort-keys",
        "--raw-output",
        "--raw-output0",
        "--join-output",
        "--tab",
        "--exit-status",
        "--from-file",
        "--args",
        "--jsonargs",
        "--debug-dump-disasm",
        "--debug-trace",
        "--help",
        "--version",
        "--build-configuration",
        "--nul-output",
        "--binary",
    ],
    long_valued: &["--indent", "--library-path"],
    long_two: &["--arg", "--argjson", "--slurpfile", "--rawfile"],
    writes: &[],
};

fn jq(call: &mut Call<'_>) {
    jq_like(call, &JQ, &[]);
}

/// yq (mikefarah's and the Python one): `yq [eval|e|eval-all|ea]
/// [-rcnejaCMPNSyYx] [-o FMT] [-p FMT] [-I N] [--arg N V] EXPR [FILE]...`;
/// `-i`/`--inplace` writes the files, `-s`/`--split-exp` (mikefarah)
/// writes one file per document.
const YQ: JqForms = JqForms {
    letters: "rcnejaCMPNSyYxhV0v",
    valued_letters: "opIw",
    long_flags: &[
        "--unwrapScalar",
        "--null-input",
        "--exit-status",
        "--colors",
        "--no-colors",
        "--prettyPrint",
        "--no-doc",
        "--nul-output",
        "--yaml-output",
        "--yaml-roundtrip",
        "--xml-output",
        "--toml-output",
        "--tab",
        "--compact-output",
        "--raw-output",
        "--join-output",
        "--ascii-output",
        "--sort-keys",
        "--slurp",
        "--seq",
        "--stream",
        "--indentless-lists",
        "--explicit-start",
        "--explicit-end",
        "--header-preamble",
        "--verbose",
        "--help",
        "--version",
        "--args",
        "--jsonargs",
    ],
    long_valued: &[
        "--output-format",
        "--input-format",
        "--indent",
        "--front-matter",
        "--expression",
        "--csv-separator",
        "--xml-attribute-prefix",
        "--xml-content-name",
        "--width",
        "--from-file",
    ],
    long_two: &["--arg", "--argjson", "--slurpfile", "--rawfile"],
    writes: &[
        "-i",
        "--inplace",
        "--in-place",
        "-s",
        "--split-exp",
        "--split-exp-file",
    ],
};

fn yq(call: &mut Call<'_>) {
    jq_like(call, &YQ, &["eval", "e", "eval-all", "ea"]);
}

fn jq_like(call: &mut Call<'_>, forms: &JqForms, subcommands: &[&str]) {
    let args = call.args;
    let mut positionals: Vec<&Arg> = Vec::new();
    let mut reads: Vec<Arg> = Vec::new();
    let mut named_args = false;
    let mut writes: Vec<&str> = Vec::new();
    let mut options_done = false;
    let mut from_file = false;
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        let text = match arg {
            Arg::Literal(t) if !options_done && t.starts_with('-') && t.len() > 1 => t.as_str(),
            _ => {
                positionals.push(arg);
                continue;
            }
        };
        if text == "--" {
            options_done = true;
            continue;
        }
        if let Some(w) = forms
            .writes
            .iter()
            .find(|w| text == **w || text.starts_with(&format!("{w}=")))
        {
            writes.push(w);
            continue;
        }
        if text.starts_with("--") {
            let name = text.split('=').next().unwrap_or(text);
            if forms.long_flags.contains(&text) {
                named_args |= matches!(text, "--args" | "--jsonargs");
                from_file |= text == "--from-file";
            } else if forms.long_valued.contains(&name) {
                let value = if name == text {
                    i += 1;
                    args.get(i - 1).cloned()
                } else {
                    text.split_once('=')
                        .map(|(_, v)| Arg::Literal(v.to_string()))
                };
                if name == "--from-file" {
                    reads.extend(value);
                }
            } else if forms.long_two.contains(&text) {
                if matches!(text, "--slurpfile" | "--rawfile")
                    && let Some(file) = args.get(i + 1)
                {
                    reads.push(file.clone());
                }
                i += 2;
            } else {
                call.not_read_only(
                    Category::Exec,
                    format!("option `{text}` is not one of its read-only forms"),
                );
                return;
            }
            if i > args.len() {
                call.not_read_only(Category::Exec, format!("option `{text}` needs a value"));
                return;
            }
            continue;
        }
        for (at, letter) in text.char_indices().skip(1) {
            if forms.valued_letters.contains(letter) {
                if at + 1 == text.len() {
                    i += 1;
                }
                break;
            }
            if forms.writes.contains(&format!("-{letter}").as_str()) {
                writes.push(if letter == 'i' { "-i" } else { "-s" });
                continue;
            }
            from_file |= letter == 'f';
            if !forms.letters.contains(letter) {
                call.not_read_only(
                    Category::Exec,
                    format!("option `-{letter}` is not one of its read-only forms"),
                );
                return;
            }
        }
        if i > args.len() {
            call.not_read_only(Category::Exec, format!("option `{text}` needs a value"));
            return;
        }
    }
    if positionals
        .first()
        .and_then(|p| p.literal())
        .is_some_and(|p| subcommands.contains(&p))
    {
        positionals.remove(0);
    }
    // The first positional is the filter (or, with `-f`, the file holding
    // it: a read either way); the others are files unless `--args`.
    let mut rest = positionals.into_iter();
    if let Some(filter) = rest.next()
        && (from_file || filter.literal().is_none())
    {
        reads.push(filter.clone());
    }
    let inputs = if named_args { Vec::new() } else { files(rest) };
    reads.extend(inputs.iter().cloned());
    call.read(&reads);
    if !writes.is_empty() {
        call.not_read_only(
            Category::Write,
            format!("option `{}` writes files", writes[0]),
        );
        if writes
            .iter()
            .any(|w| matches!(*w, "-i" | "--inplace" | "--in-place"))
        {
            for file in &inputs {
                call.writes(file);
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Programs that only compute from their arguments.

/// `echo`, `printf`, `true`, `false`, `test`/`[`, `expr`, `factor`, `seq`,
/// `sleep`, `yes`, `:`, `exit`, `pwd`, `type`: any arguments (none of their
/// options reads a file,
/// writes or runs anything; `seq -1 5` and `expr 1 - 2` take words that
/// look like options).
fn computes(call: &mut Call<'_>) {
    call.read(&[]);
}

/// `numfmt [--from=U] [--to=U] [--field=F] ... [NUMBER]...`
const NUMFMT: Options = Options::gnu(
    "d:z",
    &[
        val("delimiter"),
        val("field"),
        val("format"),
        val("from"),
        val("from-unit"),
        val("grouping"),
        optional("header"),
        val("invalid"),
        val("padding"),
        val("round"),
        val("suffix"),
        val("to"),
        val("to-unit"),
        flag("unit-separator"),
        flag("debug"),
        flag("zero-terminated"),
        HELP,
        VERSION,
    ],
)
.with_numeric();

fn numfmt(call: &mut Call<'_>) {
    if call.parse(&NUMFMT).is_some() {
        call.read(&[]);
    }
}

/// `basename [-az] [-s SUFFIX] NAME...`
const BASENAME: Options = Options::gnu(
    "as:z",
    &[flag("multiple"), val("suffix"), flag("zero"), HELP, VERSION],
);

fn basename(call: &mut Call<'_>) {
    if call.parse(&BASENAME).is_some() {
        call.read(&[]);
    }
}

/// `dirname [-z] NAME...`
const DIRNAME: Options = Options::gnu("z", &[flag("zero"), HELP, VERSION]);

fn dirname(call: &mut Call<'_>) {
    if call.parse(&DIRNAME).is_some() {
        call.read(&[]);
    }
}

/// `realpath [-eEmLPqsz] [--relative-to=DIR] [--relative-base=DIR] PATH...`
const REALPATH: Options = Options::gnu(
    "eEmLPqsz",
    &[
        flag("canonicalize-existing"),
        flag("canonicalize-missing"),
        flag("logical"),
        flag("physical"),
        flag("quiet"),
        flag("strip"),
        flag("no-symlinks"),
        flag("zero"),
        val("relative-to"),
        val("relative-base"),
        HELP,
        VERSION,
    ],
);

fn realpath(call: &mut Call<'_>) {
    read_operands(call, &REALPATH);
}

/// `readlink [-efmnqsvz] PATH...`
const READLINK: Options = Options::gnu(
    "efmnqsvz",
    &[
        flag("canonicalize"),
        flag("canonicalize-existing"),
        flag("canonicalize-missing"),
        flag("no-newline"),
        flag("quiet"),
        flag("silent"),
        flag("verbose"),
        flag("zero"),
        HELP,
        VERSION,
    ],
);

fn readlink(call: &mut Call<'_>) {
    read_operands(call, &READLINK);
}

// ---------------------------------------------------------------------------
// Pagers.

/// `less [-aABcCdeEfFgGiIJKLmMnNqQrRsSuUVwWX~] [-b N] [-h N] [-j N] [-p PAT]
/// [-P PROMPT] [-t TAG] [-T TAGS] [-x N] [-y N] [-z N] [-# N] [+G|+F|+N|+/PAT]
/// [FILE]...`; `-o`/`-O` log files write, `-k` lesskey files may set
/// `LESSOPEN` (runs commands), `-+` and other `+cmd` run less commands.
const LESS: Options = Options::gnu(
    "aABcCdeEfFgGiIJKLmMnNqQrRsSuUVwWX~b:D:h:j:p:P:t:T:x:y:z:#:\"",
    &[
        flag("search-skip-screen"),
        flag("auto-buffers"),
        flag("clear-screen"),
        flag("CLEAR-SCREEN"),
        flag("dumb"),
        flag("quit-at-eof"),
        flag("QUIT-AT-EOF"),
        flag("force"),
        flag("quit-if-one-screen"),
        flag("hilite-search"),
        flag("HILITE-SEARCH"),
        flag("ignore-case"),
        flag("IGNORE-CASE"),
        flag("status-column"),
        flag("no-lessopen"),
        flag("long-prompt"),
        flag("LONG-PROMPT"),
        flag("line-numbers"),
        flag("LINE-NUMBERS"),
        flag("quiet"),
        flag("QUIET"),
        flag("silent"),
        flag("SILENT"),
        flag("raw-control-chars"),
        flag("RAW-CONTROL-CHARS"),
        flag("squeeze-blank-lines"),
        flag("chop-long-lines"),
        flag("underline-special"),
        flag("UNDERLINE-SPECIAL"),
        flag("hilite-unread"),
        flag("HILITE-UNREAD"),
        flag("no-init"),
        flag("no-keypad"),
        flag("tilde"),
        flag("mouse"),
        flag("no-vbell"),
        flag("incsearch"),
        flag("use-color"),
        flag("no-histdups"),
        flag("save-marks"),
        flag("follow-name"),
        flag("redraw-on-quit"),
        flag("quotes"),
        val("buffers"),
        val("color"),
        val("max-back-scroll"),
        val("jump-target"),
        val("pattern"),
        val("prompt"),
        val("tag"),
        val("tag-file"),
        val("tabs"),
        val("max-forw-scroll"),
        val("window"),
        val("shift"),
        val("header"),
        val("wheel-lines"),
        val("wordwrap"),
        forbidden("log-file"),
        forbidden("LOG-FILE"),
        forbidden("lesskey-file"),
        forbidden("lesskey-src"),
        forbidden("lesskey-content"),
        HELP,
        VERSION,
    ],
);

fn less(call: &mut Call<'_>) {
    let args = call.args;
    if let Some(bad) = args
        .iter()
        .filter_map(Arg::literal)
        .find(|a| a.starts_with("-+"))
    {
        call.not_read_only(
            Category::Exec,
            format!("option `{bad}` is not one of its read-only forms"),
        );
        return;
    }
    let Some(parsed) = call.parse(&LESS) else {
        return;
    };
    pager_operands(call, &parsed);
    if let Some((name, _)) = parsed.opts().find(|(n, _)| {
        matches!(
            *n,
            "--log-file" | "--LOG-FILE" | "--lesskey-file" | "--lesskey-src" | "--lesskey-content"
        )
    }) {
        call.not_read_only(
            Category::Exec,
            format!("option `{name}` is not one of its read-only forms"),
        );
    }
}

/// A pager's operands: files, and `+N`, `+G`, `+F`, `+g`, `+/PATTERN`
/// (an initial line or search); any other `+cmd` runs pager commands.
fn pager_operands(call: &mut Call<'_>, parsed: &Parsed) {
    let mut read = Vec::new();
    let mut bad = None;
    for operand in parsed.operands() {
        match operand.literal() {
            Some(text) if text.starts_with('+') => {
                let command = &text[1..];
                let harmless = command.chars().all(|c| c.is_ascii_digit())
                    || matches!(command, "G" | "F" | "g")
                    || (command.starts_with('/') && !command.contains(['\n', '\r']));
                if !harmless {
                    bad = Some(text.to_string());
                }
            }
            Some("-") => {}
            _ => read.push(operand.clone()),
        }
    }
    call.read(&read);
    if let Some(text) = bad {
        call.not_read_only(
            Category::Exec,
            format!("initial command `{text}` runs pager commands"),
        );
    }
}

/// `more [-dflcpsu] [-n N] [-NUM] [+N|+/PAT] [FILE]...` (util-linux).
const MORE: Options = Options::gnu(
    "dflcpsun:eV",
    &[
        flag("silent"),
        flag("logical"),
        flag("no-pause"),
        flag("print-over"),
        flag("clean-print"),
        flag("squeeze"),
        flag("plain"),
        val("lines"),
        flag("exit-on-eof"),
        HELP,
        VERSION,
    ],
)
.with_numeric();

fn more(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&MORE) else {
        return;
    };
    pager_operands(call, &parsed);
}

// ---------------------------------------------------------------------------
// Calculators.

/// `bc [-hilqsvw] [-e EXPR] [-f FILE] [FILE]...` (GNU bc and Gavin Howard's
/// bc: neither has a shell escape; its files are scripts it reads).
const BC: Options = Options::gnu(
    "hilqsvwe:f:",
    &[
        flag("interactive"),
        flag("mathlib"),
        flag("quiet"),
        flag("standard"),
        flag("warn"),
        val("expression"),
        val("file"),
        flag("no-prompt"),
        HELP,
        VERSION,
    ],
);

fn bc(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&BC) else {
        return;
    };
    let mut read = files(parsed.operands());
    read.extend(values_of(&parsed, &["-f", "--file"]));
    call.read(&read);
}

/// `dc` is never a reader: its `!` command runs a shell command.
fn dc(call: &mut Call<'_>) {
    call.not_read_only(
        Category::Exec,
        "dc's `!` command runs shell commands, so dc is never only a reader",
    );
}

// ---------------------------------------------------------------------------
// The rest.

/// `iconv [-cls] [-f FROM] [-t TO] [FILE]...`; `-o FILE` writes.
const ICONV: Options = Options::gnu(
    "cf:lo:st:",
    &[
        val("from-code"),
        val("to-code"),
        flag("list"),
        val("output"),
        flag("silent"),
        flag("verbose"),
        HELP,
        VERSION,
    ],
);

fn iconv(call: &mut Call<'_>) {
    let Some(parsed) = read_operands(call, &ICONV) else {
        return;
    };
    if let Some(output) = parsed.value("-o").or(parsed.value("--output")) {
        let output = output.clone();
        writes_to(
            call,
            &output,
            "option `-o` writes the converted text to a file",
        );
    }
}

/// `look [-bdf] [-t CHAR] STRING [FILE]` (util-linux).
const LOOK: Options = Options::gnu(
    "abdft:hV",
    &[
        flag("alternative"),
        flag("alphanum"),
        flag("ignore-case"),
        val("terminate"),
        HELP,
        VERSION,
    ],
);

fn look(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&LOOK) else {
        return;
    };
    call.read(&files(parsed.operands().skip(1)));
}

/// `shuf [-rz] [-n N] [-e ARG...|-i LO-HI|FILE] [--random-source=F]`;
/// `-o FILE` writes.
const SHUF: Options = Options::gnu(
    "ei:n:o:rz",
    &[
        flag("echo"),
        val("input-range"),
        val("head-count"),
        val("output"),
        val("random-source"),
        flag("repeat"),
        flag("zero-terminated"),
        HELP,
        VERSION,
    ],
);

fn shuf(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&SHUF) else {
        return;
    };
    let mut read = if parsed.has("-e") || parsed.has("--echo") {
        Vec::new()
    } else {
        files(parsed.operands())
    };
    read.extend(values_of(&parsed, &["--random-source"]));
    call.read(&read);
    if let Some(output) = parsed.value("-o").or(parsed.value("--output")) {
        let output = output.clone();
        writes_to(
            call,
            &output,
            "option `-o` writes the shuffled lines to a file",
        );
    }
}

/// `tsort [FILE]`
const TSORT: Options = Options::gnu("", &[HELP, VERSION]);

fn tsort(call: &mut Call<'_>) {
    read_operands(call, &TSORT);
}

/// `pr [+PAGE[:LAST]] [-COLUMNS] [-adFfJmrtTv] [-D FMT] [-h HEADER] [-l N]
/// [-n[SEP[DIGITS]]] [-N N] [-o MARGIN] [-s[C]] [-S[S]] [-w N] [-W N]
/// [FILE]...` (`-o` is a margin, not an output).
const PR: Options = Options::gnu(
    "acdD:e::fFh:i::Jl:mn::N:o:rs::S::tTvw:W:",
    &[
        val("pages"),
        val("columns"),
        flag("across"),
        flag("show-control-chars"),
        flag("double-space"),
        val("date-format"),
        optional("expand-tabs"),
        flag("form-feed"),
        val("header"),
        optional("output-tabs"),
        flag("join-lines"),
        val("length"),
        flag("merge"),
        optional("number-lines"),
        val("first-line-number"),
        val("indent"),
        flag("no-file-warnings"),
        optional("separator"),
        optional("sep-string"),
        flag("omit-header"),
        flag("omit-pagination"),
        flag("show-nonprinting"),
        val("width"),
        val("page-width"),
        HELP,
        VERSION,
    ],
)
.with_numeric();

fn pr(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&PR) else {
        return;
    };
    let read: Vec<Arg> = files(parsed.operands())
        .into_iter()
        .filter(|a| !a.literal().is_some_and(|t| t.starts_with('+')))
        .collect();
    call.read(&read);
}

#[cfg(test)]
mod tests {
    use super::super::examples::{check, judge, reasons};
    use super::{Category, awk_program, sed_script};
    use crate::policy::Verdict;

    /// Read-only forms people and models type.
    const MATCH: &[&str] = &[
        "cat -n src/main.rs",
        "cat -A notes.md",
        "cat --show-all -- -weird-name",
        "tac log.txt",
        "head -n 20 f",
        "head -20 f",
        "head -c 100 f",
        "head --lines=5 a b",
        "tail -n +5 f",
        "tail -f /var/log/syslog",
        "tail -50 f",
        "tail -F --retry -n 100 app.log",
        "wc -l src/lib.rs",
        "wc -lw a b",
        "wc --files0-from=list.txt",
        "nl -ba f",
        "cut -d: -f1,3 /etc/passwd",
        "cut -c1-10 f",
        "tr a-z A-Z",
        "tr -d '\\r'",
        "tr -s ' '",
        "paste -sd, f",
        "rev f",
        "column -t -s, data.csv",
        "column -t -o ' | ' f",
        "fmt -w 72 f",
        "fold -w 80 f",
        "expand -t 4 f",
        "unexpand -a f",
        "comm -12 a b",
        "join -t, -1 1 -2 2 a b",
        "join -o 1.1,2.2 a b",
        "uniq -c f",
        "uniq -d",
        "sort f",
        "sort -k2 -n -r f",
        "sort -nrk2 f",
        "sort -t: -k3,3n /etc/passwd",
        "sort -u --parallel=4 -S 1G f",
        "sort --files0-from=list",
        "sort -c f",
        "sort --rev f",
        "grep -rn --include='*.rs' foo src",
        "grep -rn TODO",
        "grep -i error log.txt",
        "grep -E 'a|b' f",
        "grep -e foo -e bar f",
        "grep -f patterns.txt f",
        "grep -c x f",
        "grep -l -r --exclude-dir=target fn src",
        "grep -A3 -B2 -C1 x f",
        "grep -5 x f",
        "grep -P '\\d+' f",
        "grep -wxvo x f",
        "grep --color=always -n x f",
        "grep -- -o f",
        "egrep 'a|b' f",
        "fgrep -F x f",
        "sed -n 1p f",
        "sed -n '10,20p' f",
        "sed 's/foo/bar/g' f",
        "sed -E 's/(a+)/[\\1]/2' f",
        "sed -n '/start/,/end/p' f",
        "sed '/^#/d;/^$/d' f",
        "sed -e 's/a/b/' -e 's/c/d/Ig' f",
        "sed '$!N;P;D' f",
        "sed ':a;N;$!ba;s/\\n/ /g' f",
        "sed -n '$=' f",
        "sed '1~2d' f",
        "sed '0,/x/s//y/' f",
        "sed '/x/,+3d' f",
        "sed '5q' f",
        "sed '/err/Q 1' f",
        "sed 'y/abc/xyz/' f",
        "sed '1i\\\nheader' f",
        "sed '1a hello; w out' f",
        "sed '/x/{s/a/b/;p}' f",
        "sed -n '/x/{p;q}' f",
        "sed 's|/usr|/opt|g' f",
        "sed 's/a\\/b/c/g' f",
        "sed '\\%x%d' f",
        "sed -n 'l 40' f",
        "sed 'h;G;x;g;H;z' f",
        "sed 's/x/y/ # comment' f",
        "sed -z 's/\\n/,/g' f",
        "sed --posix -n p f",
        "sed --sandbox -n p f",
        "sed --debug -n p f",
        "sed -s -n '$p' a b",
        "sed 'r header.txt' f",
        "sed '/x/!d' f",
        "sed -n '/a/I,/b/Mp' f",
        "sed '2,5{/x/d}' f",
        "sed --expression=p f",
        "awk '{print $1}' f",
        "awk -F: '{print $1, $7}' /etc/passwd",
        "awk '$3 > 100 { print }' f",
        "awk '$3 >= 100 && $2 < 5' f",
        "awk 'NR==1, /end/' f",
        "awk '{ s += $2 } END { print s / NR }' f",
        "awk -v n=3 'NR > n { print $0 }' f",
        "awk 'BEGIN { x = 4 / 2; print x }'",
        "awk '{ print (a > b) }' f",
        "awk '{ print $1 > \"/dev/stderr\" }' f",
        "awk 'length($0) > 80' f",
        "awk '{ n = split($0, a, \"|\"); print n }' f",
        "awk '/a|b/ { c++ } END { print c }' f",
        "awk '{ if ($1 > 0) print \"pos\"; else print \"neg\" }' f",
        "awk 'BEGIN { while ((getline line < \"f\") > 0) n++; print n }'",
        "awk '{ print ENVIRON[\"HOME\"] }'",
        "awk 'BEGIN { for (k in ENVIRON) print k }'",
        "awk '{ gsub(/x/, \"y\"); print }' f",
        "awk 'function f(x) { return x * 2 } { print f($1) }' f",
        "awk '{ printf \"%s %d\\n\", $1, $2 }' f",
        "awk -e '{ print }' f",
        "awk '{ print }' n=1 f",
        "gawk --posix '{ print }' f",
        "mawk -W interactive '{ print }'",
        "awk '{ print $1 }\n$2 > 5 { print $2 }' f",
        "awk '# a comment with | and > \"x\"\n{ print }' f",
        "base64 f",
        "base64 -d f",
        "base32 -w0 f",
        "basenc --base16 f",
        "xxd f",
        "xxd -l 64 -c 16 f",
        "xxd -c16 -g1 f",
        "xxd -p f",
        "xxd -r -p hex",
        "xxd -s -32 f",
        "xxd f -",
        "uniq f -",
        "hexdump -C f",
        "hd f",
        "hexdump -n 64 -e '16/1 \"%02x\"' f",
        "od -An -tx1 f",
        "od -c f",
        "strings -n 8 bin",
        "strings -a -t x bin",
        "md5sum f",
        "sha256sum -c SHA256SUMS",
        "sha1sum --tag a b",
        "b2sum -l 256 f",
        "cksum -a sha256 f",
        "sum -r f",
        "cmp a b",
        "cmp -l a b",
        "diff a b",
        "diff -u a b",
        "diff -ruN dir1 dir2",
        "diff --color=always -U3 a b",
        "diff -x target -r a b",
        "diff3 a b c",
        "diff3 -m a b c",
        "sdiff -s a b",
        "jq . f.json",
        "jq -r '.name' package.json",
        "jq -rc '.[] | .id' f.json",
        "jq --arg x 1 '.a = $x' f.json",
        "jq -n --argjson v '{\"a\":1}' '$v'",
        "jq --slurpfile s other.json '.a' f.json",
        "jq -s 'length' a.json b.json",
        "jq --tab -S . f",
        "jq --indent 4 . f",
        "jq -n '$ARGS' --args a b",
        "jq -f prog.jq data.json",
        "jq -e '.ok' f",
        "yq '.a.b' f.yaml",
        "yq e '.a' f.yaml",
        "yq eval -o json '.a' f.yaml",
        "yq -oyaml -P . f.yml",
        "yq -r .name f.yaml",
        "echo hello world",
        "echo -n -e 'a\\tb'",
        "printf '%s\\n' a b",
        "seq 10",
        "seq -5 5",
        "seq -w 1 2 10",
        "numfmt --to=iec 1048576",
        "factor 42",
        "expr 1 + 2",
        "expr 5 - 3",
        "test -f x",
        "[ -d src ]",
        "true",
        "false",
        "sleep 1",
        "yes",
        "basename /a/b.rs .rs",
        "basename -s .rs -a a.rs b.rs",
        "dirname /a/b",
        "realpath .",
        "realpath --relative-to=/home src",
        "readlink -f link",
        "less f",
        "less -R +G f",
        "less -N -S f",
        "less +/pattern f",
        "less +10 f",
        "less -p foo f",
        "more f",
        "more +20 f",
        "bc -l",
        "bc calc.bc",
        "iconv -f latin1 -t utf-8 f",
        "iconv -l",
        "look pre",
        "look pre words.txt",
        "shuf f",
        "shuf -n 3 -e a b c",
        "shuf -i 1-10",
        "tsort deps",
        "pr -2 -t f",
        "pr -o 4 f",
        "cat --help",
        "grep --version",
    ];

    /// Forms that write, run code, or are not parsed: they ask.
    const NOT_MATCH: &[&str] = &[
        // sort
        "sort -o out f",
        "sort -oout f",
        "sort -no out f",
        "sort --output=out f",
        "sort --out out f",
        "sort -T /tmp f",
        "sort --compress-program=sh f",
        "sort --compress=gzip f",
        // uniq, xxd second operand
        "uniq in out",
        "uniq -c in out",
        "xxd f out",
        "xxd -r hex bin",
        "xxd -c 16 f out",
        "xxd -X f",
        // sed
        "sed '1e rm -rf src' f",
        "sed e f",
        "sed -n 'w stolen.txt' f",
        "sed 'W out' f",
        "sed 's/a/b/e' f",
        "sed 's/a/b/w out' f",
        "sed 's/a/b/gw out' f",
        "sed -n '/x/{w out\n}' f",
        "sed -e p -e 'w out' f",
        "sed -i s/a/b/ f",
        "sed -i.bak 's/a/b/' f",
        "sed --in-place=.bak p f",
        "sed -ni p f",
        "sed -f script.sed f",
        "sed --file=script.sed f",
        "sed 'k' f",
        "sed 's/a/b' f",
        "sed '{p' f",
        "sed 'p}' f",
        "sed 'b end w x' f",
        "sed 'p w x' f",
        "sed '1!e ls' f",
        "sed '/x/ e' f",
        "sed '$ e id' f",
        "sed 's/x/y/;e' f",
        "sed 'y/ab/' f",
        "sed --unknown p f",
        // awk
        "awk 'BEGIN { system(\"touch x\") }'",
        "awk 'BEGIN { system (\"id\") }'",
        "awk '{ print | \"sh\" }' f",
        "awk '{ print $0 | \"sort\" }' f",
        "awk 'BEGIN { \"id\" | getline x; print x }'",
        "awk 'BEGIN { print \"x\" |& \"cat\" }'",
        "awk '{ print > \"out.txt\" }' f",
        "awk '{ print $1 >> \"out.txt\" }' f",
        "awk '{ printf(\"%s\", $1) > \"out\" }' f",
        "awk '{ print (a) > \"out\" }' f",
        "awk '{ if ($1 > 0) print > \"out\" }' f",
        "awk '{ print a[1 > 2] }' f",
        "awk '{ print > \"/dev/stderr\" \"x\" }' f",
        "awk 'BEGIN { ENVIRON[\"PATH\"] = \"/tmp\" }'",
        "awk 'BEGIN { delete ENVIRON }'",
        "awk '@load \"filefuncs\"; BEGIN { }'",
        "awk 'BEGIN { f = \"system\"; @f(\"id\") }'",
        "awk 'BEGIN { extension(\"x.so\", \"init\") }'",
        "awk 'BEGIN { getline < \"/inet/tcp/0/example.com/80\" }'",
        "awk -f prog.awk f",
        "awk --file=prog.awk f",
        "gawk -i inplace '{ print }' f",
        "gawk -l filefuncs '{ print }' f",
        "gawk -E prog.awk f",
        "gawk --dump-variables '{ print }' f",
        "gawk -o '{ print }' f",
        "gawk --profile=p '{ print }' f",
        "mawk -W exec prog.awk",
        "awk 'BEGIN { x = \"a }' f",
        "awk '# system(\"id\") only in a comment\n{ print }' f",
        "awk '/[/]/ { print }' f",
        "awk 'BEGIN { if (1) /\"/; print \"x\" | \"sh\"; y = /\"/ }'",
        "awk -v 'h=/inet/tcp/0/x/80' 'BEGIN { getline < h }'",
        // jq, yq
        "jq --unknown . f",
        "jq -Z . f",
        "yq -i '.a = 1' f.yaml",
        "yq --inplace '.a = 1' f.yaml",
        "yq -s '.a' f.yaml",
        "yq e -i '.a = 1' f.yaml",
        // less, more
        "less '+!touch x' f",
        "less '+|sh' f",
        "less -o log f",
        "less -Olog f",
        "less --log-file=x f",
        "less -k keys f",
        "less --lesskey-src=k f",
        "less -+R f",
        "more '+!id' f",
        // the rest
        "dc -e '2 3 + p'",
        "dc -e '!touch x'",
        "dc f",
        "iconv -f latin1 -t utf8 -o out f",
        "shuf -o out f",
        "sdiff -o merged a b",
        "sdiff --diff-program=sh a b",
        "diff3 --diff-program=sh a b c",
        "strings @opts bin",
        "head --unknown f",
        "cat -z f",
        "wc --unknown f",
        "tail -x f",
        "grep --pre=sh x f",
        "numfmt --bogus 1",
        "basename --bogus x",
    ];

    #[test]
    fn examples() {
        check(MATCH, NOT_MATCH);
    }

    #[test]
    fn reasons_name_the_form() {
        for (line, needle) in [
            ("sed '1e rm -rf src' f", "`e` runs a shell command"),
            ("sed -n 'w stolen.txt' f", "`w` writes a file"),
            ("sed 's/a/b/e' f", "flag `e`"),
            ("sed 'k' f", "command `k`"),
            ("sed -f s.sed f", "`-f FILE`"),
            ("awk 'BEGIN { system(\"x\") }'", "`system()`"),
            ("awk '{ print | \"sh\" }' f", "`|`"),
            ("awk '{ print > \"o\" }' f", "redirection `>`"),
            ("awk -f p.awk f", "`-f`"),
            ("sort -oFILE f", "option `-o`"),
            ("dc -e 1p", "`!`"),
            ("less '+!id' f", "`+!id`"),
            ("xxd -X f", "`-X`"),
        ] {
            let why = reasons(line);
            assert!(why.contains(needle), "{line}: {why}");
        }
    }

    #[test]
    fn writing_forms_name_their_targets() {
        for (line, target) in [
            ("sort -o out.txt f", "out.txt"),
            ("sort --output=out.txt f", "out.txt"),
            ("uniq in out.txt", "out.txt"),
            ("xxd f out.txt", "out.txt"),
            ("sed -i s/a/b/ notes.md", "notes.md"),
            ("iconv -o out.txt f", "out.txt"),
            ("shuf -o out.txt f", "out.txt"),
            ("sdiff -o out.txt a b", "out.txt"),
            ("yq -i '.a = 1' c.yaml", "c.yaml"),
        ] {
            let plan = judge(line);
            let step = &plan.steps[0];
            assert_eq!(step.category, Category::Write, "{line}");
            assert_eq!(
                step.floor.as_ref().map(|f| f.verdict),
                Some(Verdict::Confirm),
                "{line}"
            );
            assert!(
                step.targets
                    .iter()
                    .any(|t| t.access == crate::policy::Access::Write && t.value == target),
                "{line}: {:?}",
                step.targets
            );
        }
    }

    #[test]
    fn reads_name_their_files() {
        let plan = judge("grep -f pats.txt x a.txt");
        let values: Vec<&str> = plan.steps[0]
            .targets
            .iter()
            .map(|t| t.value.as_str())
            .collect();
        assert_eq!(values, vec!["x", "a.txt", "pats.txt"]);
        let plan = judge("grep foo a.txt");
        let values: Vec<&str> = plan.steps[0]
            .targets
            .iter()
            .map(|t| t.value.as_str())
            .collect();
        assert_eq!(values, vec!["a.txt"]);
        let plan = judge("sed 'r /etc/hostname' f");
        let values: Vec<&str> = plan.steps[0]
            .targets
            .iter()
            .map(|t| t.value.as_str())
            .collect();
        assert_eq!(values, vec!["/etc/hostname", "f"]);
        let plan = judge("awk '{ print }' n=1 f");
        let values: Vec<&str> = plan.steps[0]
            .targets
            .iter()
            .map(|t| t.value.as_str())
            .collect();
        assert_eq!(values, vec!["f"]);
    }

    #[test]
    fn sed_script_parsing() {
        assert!(sed_script("p").is_ok());
        assert!(sed_script("").is_ok());
        // `a` text runs to the end of the line, continued by a backslash.
        assert!(sed_script("a foo; e ls").is_ok());
        assert!(sed_script("a foo\\\ne ls").is_ok());
        assert!(sed_script("a foo\ne ls").is_err());
        assert!(sed_script("1i\\\n  text\np").is_ok());
        // Regexes are not bracket-aware in GNU sed: `s/[/]/x/` ends early.
        assert!(sed_script("s/[/]/x/").is_err());
        assert!(sed_script("s/a/b/;s/c/d/").is_ok());
        assert!(sed_script("/x/{\n  s/a/b/\n  p\n}").is_ok());
        assert_eq!(sed_script("w x").map_err(|e| e.0), Err(Category::Write));
        assert_eq!(sed_script("e").map_err(|e| e.0), Err(Category::Exec));
        // Labels end at blanks: what follows must end the command.
        assert!(sed_script(":a;N;ba").is_ok());
        assert!(sed_script("b x w y").is_err());
    }

    #[test]
    fn awk_program_parsing() {
        for ok in [
            "{ print $1 }",
            "$3 > 100 { print }",
            "{ print (x > y) ? \"a\" : \"b\" }",
            "{ x = $1 > $2; print x }",
            "{ print a / b / c }",
            "{ print a /= 2 }",
            "/a\\/b/ { print }",
            "/[[:alpha:]]+/ { print }",
            "/[]a]/ { print }",
            "{ print \"a > b\" }",
            "{ print \"x\" > \"/dev/stdout\" }",
            "{ print \"x\" > \"/dev/stderr\"; next }",
            "{ print \\\n $1 }",
        ] {
            assert_eq!(awk_program(ok), Ok(()), "{ok}");
        }
        for bad in [
            "{ print > \"x\" }",
            "{ print $1, $2 > $3 }",
            "{ printf \"%s\", $1 >> \"log\" }",
            "{ print $1 \\\n > \"x\" }",
            "{ print | \"cat\" }",
            "{ system(\"id\") }",
            "{ s = \"system(\" }",
            "{ ENVIRON[\"X\"]++ }",
            "{ ++ENVIRON[\"X\"] }",
            "{ split($0, ENVIRON) }",
            "/x/ { print } /[/]/",
            "{ x = /unterminated }",
            "@include \"x.awk\"",
        ] {
            assert!(awk_program(bad).is_err(), "{bad}");
        }
    }
}
