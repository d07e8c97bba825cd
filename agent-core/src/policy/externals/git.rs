//! git: read-only subcommands and their read-only options.
//!
//! Global options are parsed first (POSIX: they stop at the subcommand);
//! options that point git at other configuration or code (`-c`,
//! `--config-env`, `--exec-path`, `--git-dir`, `--work-tree`) or start the
//! pager (`-p`) are not in the table. Each read-only subcommand has its own
//! table; options that write, run a configured program or reach the network
//! are named in a `REFUSED` list so that the reason says what they do. Any
//! other subcommand changes the repository, reaches the network, or is an
//! alias from configuration: it asks.

use crate::policy::Access;

use super::{
    Arg, Call, Category, FormError, Grammar, Options, Parsed, flag as n, forbidden, optional as o,
    parse, valued as v,
};

/// The grammar of `name` when it belongs to this family.
pub(super) fn grammar(name: &str) -> Option<Grammar> {
    match name {
        "git" => Some(git),
        _ => None,
    }
}

/// `git [global options] <subcommand> ...`: the global options of read-only
/// forms. `-c`, `--config-env`, `--exec-path`, `--git-dir`, `--work-tree`,
/// `--namespace`, `--super-prefix` and `-p`/`--paginate` are absent.
const GLOBAL: Options = Options::posix(
    "C:Pvh",
    &[
        n("no-pager"),
        n("bare"),
        n("literal-pathspecs"),
        n("glob-pathspecs"),
        n("noglob-pathspecs"),
        n("icase-pathspecs"),
        n("no-optional-locks"),
        n("no-replace-objects"),
        n("no-lazy-fetch"),
        n("no-advice"),
        n("version"),
        n("help"),
        n("html-path"),
        n("man-path"),
        n("info-path"),
        o("list-cmds"),
        // Listed so that their abbreviations stay theirs; refused below.
        forbidden("paginate"),
        forbidden("config-env"),
        forbidden("exec-path"),
        forbidden("git-dir"),
        forbidden("work-tree"),
        forbidden("namespace"),
        forbidden("super-prefix"),
    ],
);

/// Why a global option that is not read-only asks.
fn global_refusal(option: &str) -> Option<(Category, &'static str)> {
    Some(match option {
        "-c" | "--config-env" => (
            Category::Exec,
            "sets configuration, which can name a program for git to run (pager, editor, diff driver, hooks)",
        ),
        "--exec-path" => (
            Category::Exec,
            "points git at another directory of git programs",
        ),
        "--git-dir" | "--work-tree" | "--namespace" | "--super-prefix" => (
            Category::Exec,
            "points git at another repository, whose configuration can name a program to run",
        ),
        "-p" | "--paginate" => (Category::Exec, "starts the pager named in configuration"),
        _ => return None,
    })
}

/// Options of the revision walk and of diff output: `log`, `show`,
/// `whatchanged`, `diff`, `diff-tree`, `diff-index`, `diff-files`,
/// `rev-list`, `shortlog`, `range-diff`, `cherry`, `stash show`,
/// `reflog show`, `format-patch --stdout`. Short: `-p -u -s -z -n N -L
/// RANGE -S STR -G RE -O ORDERFILE -R -M -C -B -D -l N -w -b -i -E -F -P
/// -g -m -c -t -U N -W -a -X -I RE -r -q -N` and `-NUM`.
const REVS: Options = Options::gnu(
    "pusznL:S:G:O:RM::C::B::Dl:wbiEFPgmctU:WaX::I:rqNev",
    &[
        // Revision selection and walking.
        n("all"),
        o("branches"),
        o("tags"),
        o("remotes"),
        v("glob"),
        v("exclude"),
        v("exclude-hidden"),
        n("reflog"),
        n("alternate-refs"),
        n("single-worktree"),
        n("ignore-missing"),
        n("bisect"),
        n("stdin"),
        n("cherry-mark"),
        n("cherry-pick"),
        n("left-only"),
        n("right-only"),
        n("cherry"),
        n("walk-reflogs"),
        n("merge"),
        n("boundary"),
        n("not"),
        v("max-count"),
        v("skip"),
        v("since"),
        v("after"),
        v("until"),
        v("before"),
        v("since-as-filter"),
        v("max-age"),
        v("min-age"),
        v("author"),
        v("committer"),
        v("grep-reflog"),
        v("grep"),
        n("all-match"),
        n("invert-grep"),
        n("regexp-ignore-case"),
        n("basic-regexp"),
        n("extended-regexp"),
        n("fixed-strings"),
        n("perl-regexp"),
        n("remove-empty"),
        n("merges"),
        n("no-merges"),
        v("min-parents"),
        v("max-parents"),
        n("no-min-parents"),
        n("no-max-parents"),
        n("first-parent"),
        n("exclude-first-parent-only"),
        n("simplify-by-decoration"),
        n("simplify-merges"),
        n("full-history"),
        n("dense"),
        n("sparse"),
        o("ancestry-path"),
        n("show-pulls"),
        n("date-order"),
        n("author-date-order"),
        n("topo-order"),
        n("reverse"),
        o("no-walk"),
        n("do-walk"),
        n("in-commit-order"),
        n("end-of-options"),
        // Commit formatting.
        o("pretty"),
        v("format"),
        n("abbrev-commit"),
        n("no-abbrev-commit"),
        n("oneline"),
        v("encoding"),
        o("expand-tabs"),
        n("no-expand-tabs"),
        o("notes"),
        n("no-notes"),
        o("show-notes"),
        n("show-notes-by-default"),
        n("standard-notes"),
        n("no-standard-notes"),
        n("show-signature"),
        n("relative-date"),
        v("date"),
        n("parents"),
        n("children"),
        n("left-right"),
        n("graph"),
        n("no-graph"),
        o("show-linear-break"),
        o("decorate"),
        n("no-decorate"),
        v("decorate-refs"),
        v("decorate-refs-exclude"),
        n("clear-decorations"),
        n("source"),
        n("use-mailmap"),
        n("no-use-mailmap"),
        n("mailmap"),
        n("no-mailmap"),
        n("log-size"),
        n("follow"),
        n("full-diff"),
        n("count"),
        n("objects"),
        n("objects-edge"),
        n("no-object-names"),
        n("object-names"),
        n("timestamp"),
        n("header"),
        n("disk-usage"),
        n("bisect-all"),
        n("bisect-vars"),
        // Diff output.
        n("patch"),
        n("no-patch"),
        o("unified"),
        v("output-indicator-new"),
        v("output-indicator-old"),
        v("output-indicator-context"),
        n("raw"),
        n("patch-with-raw"),
        n("patch-with-stat"),
        n("indent-heuristic"),
        n("no-indent-heuristic"),
        n("minimal"),
        n("patience"),
        n("histogram"),
        v("anchored"),
        v("diff-algorithm"),
        o("stat"),
        v("stat-width"),
        v("stat-name-width"),
        v("stat-count"),
        v("stat-graph-width"),
        n("compact-summary"),
        n("numstat"),
        n("shortstat"),
        o("dirstat"),
        n("cumulative"),
        o("dirstat-by-file"),
        n("summary"),
        n("name-only"),
        n("name-status"),
        o("submodule"),
        o("color"),
        n("no-color"),
        o("color-moved"),
        n("no-color-moved"),
        v("color-moved-ws"),
        n("no-color-moved-ws"),
        o("word-diff"),
        v("word-diff-regex"),
        o("color-words"),
        n("renames"),
        n("no-renames"),
        n("rename-empty"),
        n("no-rename-empty"),
        n("check"),
        v("ws-error-highlight"),
        n("full-index"),
        n("binary"),
        o("abbrev"),
        n("no-abbrev"),
        o("break-rewrites"),
        o("find-renames"),
        o("find-copies"),
        n("find-copies-harder"),
        n("irreversible-delete"),
        v("diff-filter"),
        v("find-object"),
        n("pickaxe-all"),
        n("pickaxe-regex"),
        v("skip-to"),
        v("rotate-to"),
        o("relative"),
        n("no-relative"),
        n("text"),
        n("ignore-cr-at-eol"),
        n("ignore-space-at-eol"),
        n("ignore-space-change"),
        n("ignore-all-space"),
        n("ignore-blank-lines"),
        v("ignore-matching-lines"),
        v("inter-hunk-context"),
        n("function-context"),
        n("exit-code"),
        n("quiet"),
        n("textconv"),
        n("no-textconv"),
        n("no-ext-diff"),
        o("ignore-submodules"),
        v("src-prefix"),
        v("dst-prefix"),
        n("no-prefix"),
        n("default-prefix"),
        v("line-prefix"),
        n("ita-invisible-in-index"),
        n("ita-visible-in-index"),
        n("cached"),
        n("staged"),
        n("merge-base"),
        n("no-index"),
        n("base"),
        n("ours"),
        n("theirs"),
        n("combined-all-paths"),
        n("cc"),
        n("dd"),
        v("diff-merges"),
        n("no-diff-merges"),
        n("remerge-diff"),
        n("root"),
        n("no-commit-id"),
        n("always"),
        n("pretty-print"),
        n("progress"),
        n("no-progress"),
        // `range-diff`, `shortlog`, `cherry`.
        v("creation-factor"),
        n("no-dual-color"),
        n("numbered"),
        n("email"),
        n("committer-sort"),
        v("group"),
        // Listed so that their abbreviations stay ambiguous; refused below.
        forbidden("output"),
        forbidden("ext-diff"),
        forbidden("output-directory"),
    ],
)
.with_numeric();

/// Options of the log family that are not read-only.
const REVS_REFUSED: &[(&str, Category, &str)] = &[
    ("--output", Category::Write, "writes its output to a file"),
    (
        "--ext-diff",
        Category::Exec,
        "runs the external diff program named in configuration",
    ),
    (
        "--output-directory",
        Category::Write,
        "writes patch files into a directory",
    ),
];

/// `git blame` / `git annotate`.
const BLAME: Options = Options::gnu(
    "L:bltS:psewM::C::fnch",
    &[
        n("root"),
        n("show-stats"),
        n("score-debug"),
        n("show-name"),
        n("show-number"),
        n("show-email"),
        n("porcelain"),
        n("line-porcelain"),
        n("incremental"),
        v("encoding"),
        v("contents"),
        v("date"),
        n("progress"),
        n("no-progress"),
        v("reverse"),
        n("first-parent"),
        v("ignore-rev"),
        v("ignore-revs-file"),
        n("color-lines"),
        n("color-by-age"),
        n("minimal"),
        o("abbrev"),
        n("since"),
        n("textconv"),
        n("no-textconv"),
        n("end-of-options"),
    ],
);

/// `git grep`. `-O`/`--open-files-in-pager` (runs a pager on the files) is
/// refused.
const GREP: Options = Options::gnu(
    "aiIvwclLhHnbozqEGFPe:f:A:B:C:WpmrO::",
    &[
        n("cached"),
        n("no-index"),
        n("untracked"),
        n("no-exclude-standard"),
        n("exclude-standard"),
        n("recurse-submodules"),
        n("text"),
        n("textconv"),
        n("no-textconv"),
        n("ignore-case"),
        v("max-depth"),
        n("recursive"),
        n("no-recursive"),
        n("word-regexp"),
        n("invert-match"),
        n("full-name"),
        n("extended-regexp"),
        n("basic-regexp"),
        n("perl-regexp"),
        n("fixed-strings"),
        n("line-number"),
        n("column"),
        n("files-with-matches"),
        n("name-only"),
        n("files-without-match"),
        n("null"),
        n("only-matching"),
        n("count"),
        o("color"),
        n("no-color"),
        n("break"),
        n("heading"),
        n("show-function"),
        v("context"),
        v("after-context"),
        v("before-context"),
        n("function-context"),
        v("threads"),
        n("and"),
        n("or"),
        n("not"),
        n("all-match"),
        n("quiet"),
        v("max-count"),
        n("end-of-options"),
        forbidden("open-files-in-pager"),
    ],
)
.with_numeric();

const GREP_REFUSED: &[(&str, Category, &str)] = &[
    (
        "-O",
        Category::Exec,
        "opens the matching files in a pager, a program it runs",
    ),
    (
        "--open-files-in-pager",
        Category::Exec,
        "opens the matching files in a pager, a program it runs",
    ),
];

const LS_FILES: Options = Options::gnu(
    "cdmoiksuvtfzx:X:",
    &[
        n("cached"),
        n("deleted"),
        n("modified"),
        n("others"),
        n("ignored"),
        n("stage"),
        n("killed"),
        n("directory"),
        n("no-empty-directory"),
        n("unmerged"),
        n("resolve-undo"),
        n("eol"),
        v("exclude"),
        v("exclude-from"),
        v("exclude-per-directory"),
        n("exclude-standard"),
        n("error-unmatch"),
        v("with-tree"),
        n("full-name"),
        n("recurse-submodules"),
        o("abbrev"),
        n("debug"),
        n("deduplicate"),
        n("sparse"),
        v("format"),
        n("end-of-options"),
    ],
);

const LS_TREE: Options = Options::gnu(
    "dtrlz",
    &[
        n("long"),
        n("name-only"),
        n("name-status"),
        n("object-only"),
        n("full-name"),
        n("full-tree"),
        o("abbrev"),
        v("format"),
        n("end-of-options"),
    ],
);

const REV_PARSE: Options = Options::gnu(
    "q",
    &[
        o("abbrev-ref"),
        n("all"),
        o("branches"),
        o("tags"),
        o("remotes"),
        v("glob"),
        v("exclude"),
        v("exclude-hidden"),
        v("disambiguate"),
        n("git-dir"),
        n("git-common-dir"),
        v("git-path"),
        n("show-toplevel"),
        n("show-cdup"),
        n("show-prefix"),
        n("is-inside-work-tree"),
        n("is-inside-git-dir"),
        n("is-bare-repository"),
        n("is-shallow-repository"),
        n("absolute-git-dir"),
        n("verify"),
        n("quiet"),
        o("short"),
        n("symbolic"),
        n("symbolic-full-name"),
        v("default"),
        v("prefix"),
        n("sq"),
        n("sq-quote"),
        n("not"),
        n("local-env-vars"),
        v("since"),
        v("after"),
        v("until"),
        v("before"),
        n("revs-only"),
        n("no-revs"),
        n("flags"),
        n("no-flags"),
        v("resolve-git-dir"),
        n("shared-index-path"),
        o("show-object-format"),
        n("show-ref-format"),
        n("show-superproject-working-tree"),
        n("parseopt"),
        n("stop-at-non-option"),
        n("keep-dashdash"),
        n("stuck-long"),
        v("path-format"),
        n("end-of-options"),
    ],
);

const DESCRIBE: Options = Options::gnu(
    "",
    &[
        n("all"),
        n("tags"),
        n("contains"),
        o("abbrev"),
        v("candidates"),
        n("exact-match"),
        n("debug"),
        n("long"),
        v("match"),
        v("exclude"),
        n("always"),
        n("first-parent"),
        o("dirty"),
        o("broken"),
        n("end-of-options"),
    ],
);

/// `git cat-file`; `--textconv` and `--filters` run the filter programs
/// named in configuration.
const CAT_FILE: Options = Options::gnu(
    "tsepPZ",
    &[
        o("batch"),
        o("batch-check"),
        o("batch-command"),
        n("batch-all-objects"),
        n("buffer"),
        n("unordered"),
        n("follow-symlinks"),
        n("allow-unknown-type"),
        n("use-mailmap"),
        n("no-use-mailmap"),
        n("mailmap"),
        n("no-mailmap"),
        v("path"),
        v("filter"),
        n("end-of-options"),
        forbidden("textconv"),
        forbidden("filters"),
    ],
);

const CAT_FILE_REFUSED: &[(&str, Category, &str)] = &[
    (
        "--textconv",
        Category::Exec,
        "runs the textconv filter named in configuration",
    ),
    (
        "--filters",
        Category::Exec,
        "runs the filter programs named in configuration",
    ),
];

const NAME_REV: Options = Options::gnu(
    "",
    &[
        n("tags"),
        v("refs"),
        v("exclude"),
        n("all"),
        n("stdin"),
        n("annotate-stdin"),
        n("name-only"),
        n("no-undefined"),
        n("always"),
    ],
);

const MERGE_BASE: Options = Options::gnu(
    "a",
    &[
        n("all"),
        n("octopus"),
        n("independent"),
        n("is-ancestor"),
        n("fork-point"),
    ],
);

const FOR_EACH_REF: Options = Options::gnu(
    "s",
    &[
        v("count"),
        v("sort"),
        v("format"),
        o("color"),
        n("shell"),
        n("perl"),
        n("python"),
        n("tcl"),
        v("points-at"),
        o("merged"),
        o("no-merged"),
        o("contains"),
        o("no-contains"),
        n("ignore-case"),
        n("omit-empty"),
        v("exclude"),
        n("include-root-refs"),
        n("stdin"),
    ],
);

const SHOW_REF: Options = Options::gnu(
    "dsq",
    &[
        n("head"),
        n("dereference"),
        n("verify"),
        o("hash"),
        o("abbrev"),
        n("tags"),
        n("branches"),
        n("heads"),
        n("quiet"),
        o("exclude-existing"),
        n("exists"),
    ],
);

const SHOW_BRANCH: Options = Options::gnu(
    "rag::",
    &[
        n("all"),
        n("remotes"),
        n("current"),
        n("topo-order"),
        n("date-order"),
        n("sparse"),
        o("more"),
        n("list"),
        n("merge-base"),
        n("independent"),
        n("no-name"),
        n("sha1-name"),
        n("topics"),
        o("reflog"),
        o("color"),
        n("no-color"),
    ],
);

const CHECK_IGNORE: Options = Options::gnu(
    "qvzn",
    &[
        n("quiet"),
        n("verbose"),
        n("stdin"),
        n("non-matching"),
        n("no-index"),
    ],
);

const CHECK_ATTR: Options = Options::gnu("az", &[n("all"), n("cached"), n("stdin"), v("source")]);

const CHECK_REF_FORMAT: Options = Options::gnu(
    "",
    &[
        n("normalize"),
        n("allow-onelevel"),
        n("no-allow-onelevel"),
        n("refspec-pattern"),
        n("branch"),
    ],
);

const COUNT_OBJECTS: Options = Options::gnu("vH", &[n("verbose"), n("human-readable")]);

const VAR: Options = Options::gnu("l", &[]);

const VERSION: Options = Options::gnu("", &[n("build-options")]);

/// `git help`; `-w`/`--web` opens a browser and is refused.
const HELP: Options = Options::gnu(
    "agcmiw",
    &[
        n("all"),
        n("guides"),
        n("config"),
        n("man"),
        n("info"),
        n("user-interfaces"),
        n("developer-interfaces"),
        n("config-for-completion"),
        n("config-sections-for-completion"),
        n("no-external-commands"),
        n("no-aliases"),
        n("verbose"),
        forbidden("web"),
    ],
);

const HELP_REFUSED: &[(&str, Category, &str)] = &[
    ("-w", Category::Exec, "opens the manual in a web browser"),
    ("--web", Category::Exec, "opens the manual in a web browser"),
];

/// `git branch` in its list forms. Creating, deleting, renaming, copying
/// and setting upstreams are refused (named in `BRANCH_REFUSED`).
const BRANCH: Options = Options::gnu(
    "arvlqidDmMcCfut:",
    &[
        n("all"),
        n("remotes"),
        n("verbose"),
        n("list"),
        n("show-current"),
        v("sort"),
        v("format"),
        o("column"),
        n("no-column"),
        o("color"),
        n("no-color"),
        o("contains"),
        o("no-contains"),
        o("merged"),
        o("no-merged"),
        v("points-at"),
        n("ignore-case"),
        o("abbrev"),
        n("no-abbrev"),
        n("omit-empty"),
        n("quiet"),
        n("end-of-options"),
        forbidden("delete"),
        forbidden("move"),
        forbidden("copy"),
        forbidden("force"),
        forbidden("set-upstream-to"),
        forbidden("set-upstream"),
        forbidden("unset-upstream"),
        forbidden("edit-description"),
        forbidden("track"),
        forbidden("no-track"),
        forbidden("create-reflog"),
        forbidden("recurse-submodules"),
    ],
);

const BRANCH_REFUSED: &[(&str, Category, &str)] = &[
    ("-d", Category::Delete, "deletes a branch"),
    ("-D", Category::Delete, "deletes a branch"),
    ("--delete", Category::Delete, "deletes a branch"),
    ("-m", Category::Write, "renames a branch"),
    ("-M", Category::Write, "renames a branch"),
    ("--move", Category::Write, "renames a branch"),
    ("-c", Category::Write, "copies a branch"),
    ("-C", Category::Write, "copies a branch"),
    ("--copy", Category::Write, "copies a branch"),
    ("-f", Category::Write, "forces a branch change"),
    ("--force", Category::Write, "forces a branch change"),
    ("-u", Category::Write, "sets a branch's upstream"),
    ("-t", Category::Write, "sets a branch's upstream"),
    (
        "--set-upstream-to",
        Category::Write,
        "sets a branch's upstream",
    ),
    (
        "--set-upstream",
        Category::Write,
        "sets a branch's upstream",
    ),
    (
        "--unset-upstream",
        Category::Write,
        "removes a branch's upstream",
    ),
    ("--track", Category::Write, "sets a branch's upstream"),
    ("--no-track", Category::Write, "creates a branch"),
    ("--create-reflog", Category::Write, "creates a branch"),
    (
        "--recurse-submodules",
        Category::Write,
        "creates branches in submodules",
    ),
    (
        "--edit-description",
        Category::Exec,
        "opens the editor named in configuration",
    ),
];

/// `git tag` in its list and verify forms.
const TAG: Options = Options::gnu(
    "ln::ivasuFmdefc",
    &[
        n("list"),
        o("contains"),
        o("no-contains"),
        o("merged"),
        o("no-merged"),
        v("points-at"),
        v("sort"),
        v("format"),
        o("column"),
        n("no-column"),
        o("color"),
        n("ignore-case"),
        n("omit-empty"),
        n("verify"),
        n("end-of-options"),
        forbidden("annotate"),
        forbidden("sign"),
        forbidden("no-sign"),
        forbidden("local-user"),
        forbidden("message"),
        forbidden("file"),
        forbidden("edit"),
        forbidden("force"),
        forbidden("delete"),
        forbidden("create-reflog"),
        forbidden("cleanup"),
        forbidden("trailer"),
    ],
);

/// `git stash list` takes log options, `git stash show` diff options.
const STASH_SHOW_EXTRA: &[&str] = &["-u", "--include-untracked", "--only-untracked"];

/// `git config` in its reading forms; the options that change the file are
/// named in `CONFIG_REFUSED`.
const CONFIG: Options = Options::gnu(
    "lzf:e",
    &[
        n("get"),
        n("get-all"),
        n("get-regexp"),
        n("get-urlmatch"),
        n("get-color"),
        n("get-colorbool"),
        n("list"),
        n("show-origin"),
        n("show-scope"),
        n("show-names"),
        n("no-show-names"),
        n("name-only"),
        n("null"),
        v("type"),
        n("no-type"),
        n("bool"),
        n("int"),
        n("bool-or-int"),
        n("bool-or-str"),
        n("path"),
        n("expiry-date"),
        n("global"),
        n("system"),
        n("local"),
        n("worktree"),
        v("file"),
        v("blob"),
        n("includes"),
        n("no-includes"),
        v("default"),
        n("fixed-value"),
        v("value"),
        v("url"),
        n("all"),
        n("regexp"),
        n("end-of-options"),
        forbidden("add"),
        forbidden("replace-all"),
        forbidden("unset"),
        forbidden("unset-all"),
        forbidden("rename-section"),
        forbidden("remove-section"),
        forbidden("edit"),
        forbidden("append"),
        forbidden("comment"),
    ],
);

const CONFIG_REFUSED: &[(&str, Category, &str)] = &[
    ("--add", Category::Write, "adds a setting"),
    ("--replace-all", Category::Write, "changes settings"),
    ("--unset", Category::Write, "removes a setting"),
    ("--unset-all", Category::Write, "removes settings"),
    ("--rename-section", Category::Write, "renames a section"),
    ("--remove-section", Category::Write, "removes a section"),
    ("--append", Category::Write, "adds a setting"),
    ("--comment", Category::Write, "writes a setting"),
    (
        "--edit",
        Category::Exec,
        "opens the configuration in the editor named in configuration",
    ),
    (
        "-e",
        Category::Exec,
        "opens the configuration in the editor named in configuration",
    ),
];

/// Modes of `git config` that only read.
const CONFIG_READ_MODES: &[&str] = &[
    "--get",
    "--get-all",
    "--get-regexp",
    "--get-urlmatch",
    "--get-color",
    "--get-colorbool",
    "--list",
    "-l",
];

const ARCHIVE: Options = Options::gnu(
    "lvo:",
    &[
        v("format"),
        n("list"),
        n("verbose"),
        v("prefix"),
        v("add-file"),
        v("add-virtual-file"),
        n("worktree-attributes"),
        v("mtime"),
        forbidden("output"),
        forbidden("remote"),
        forbidden("exec"),
    ],
)
.with_numeric();

const ARCHIVE_REFUSED: &[(&str, Category, &str)] = &[
    ("-o", Category::Write, "writes the archive to a file"),
    ("--output", Category::Write, "writes the archive to a file"),
    (
        "--remote",
        Category::Network,
        "fetches the archive from a remote repository",
    ),
    (
        "--exec",
        Category::Exec,
        "runs a program on the remote side",
    ),
];

const FSCK: Options = Options::gnu(
    "v",
    &[
        n("unreachable"),
        n("dangling"),
        n("no-dangling"),
        n("root"),
        n("tags"),
        n("cache"),
        n("no-reflogs"),
        n("full"),
        n("no-full"),
        n("connectivity-only"),
        n("strict"),
        n("verbose"),
        n("progress"),
        n("no-progress"),
        n("name-objects"),
        n("references"),
        forbidden("lost-found"),
    ],
);

const FSCK_REFUSED: &[(&str, Category, &str)] = &[(
    "--lost-found",
    Category::Write,
    "writes dangling objects into .git/lost-found",
)];

/// `git worktree list`.
const WORKTREE_LIST: Options = Options::gnu("vz", &[n("porcelain"), n("verbose"), v("expire")]);

/// `git notes [--ref R] list|show`.
const NOTES: Options = Options::posix("", &[v("ref")]);

/// `git submodule status` / `summary`.
const SUBMODULE_STATUS: Options = Options::gnu(
    "qn:",
    &[
        n("cached"),
        n("recursive"),
        n("quiet"),
        n("files"),
        v("summary-limit"),
        n("for-status"),
    ],
);

const REMOTE: Options = Options::posix("v", &[n("verbose")]);
const REMOTE_GET_URL: Options = Options::gnu("", &[n("push"), n("all")]);
const REMOTE_SHOW: Options = Options::gnu("n", &[]);

/// `git reflog exists`.
const NO_OPTIONS: Options = Options::NONE;

/// Subcommands that reach the network.
const NETWORK_SUBCOMMANDS: &[(&str, &str)] = &[
    ("push", "sends commits to a remote"),
    ("pull", "fetches from a remote and merges"),
    ("fetch", "fetches from a remote"),
    ("clone", "copies a remote repository"),
    ("ls-remote", "lists a remote repository's refs"),
    ("send-email", "sends patches by mail"),
    ("request-pull", "contacts a remote repository"),
    ("fetch-pack", "fetches from a remote"),
    ("send-pack", "sends commits to a remote"),
    ("svn", "talks to a Subversion server"),
    ("p4", "talks to a Perforce server"),
    ("daemon", "serves repositories on the network"),
    ("http-fetch", "fetches over HTTP"),
    ("imap-send", "sends patches to an IMAP server"),
];

/// Subcommands that change the repository or the working tree.
const WRITE_SUBCOMMANDS: &[(&str, Category, &str)] = &[
    ("commit", Category::Write, "records a commit"),
    ("add", Category::Write, "changes the index"),
    ("rm", Category::Delete, "deletes files"),
    ("mv", Category::Write, "moves files"),
    ("checkout", Category::Write, "changes the working tree"),
    ("switch", Category::Write, "changes the working tree"),
    (
        "restore",
        Category::Write,
        "overwrites files in the working tree",
    ),
    (
        "reset",
        Category::Write,
        "moves HEAD and can discard changes",
    ),
    ("rebase", Category::Write, "rewrites history"),
    ("merge", Category::Write, "merges into the current branch"),
    ("cherry-pick", Category::Write, "applies commits"),
    ("revert", Category::Write, "records reverting commits"),
    ("am", Category::Write, "applies patches"),
    ("apply", Category::Write, "applies a patch to files"),
    ("clean", Category::Delete, "deletes untracked files"),
    ("gc", Category::Delete, "prunes objects"),
    ("prune", Category::Delete, "deletes unreachable objects"),
    ("repack", Category::Write, "rewrites the object store"),
    ("init", Category::Write, "creates a repository"),
    ("update-ref", Category::Write, "changes refs"),
    ("update-index", Category::Write, "changes the index"),
    ("symbolic-ref", Category::Write, "can change refs"),
    (
        "filter-branch",
        Category::Exec,
        "rewrites history with commands it runs",
    ),
    ("replace", Category::Write, "changes object replacements"),
    ("maintenance", Category::Write, "runs maintenance tasks"),
    (
        "sparse-checkout",
        Category::Write,
        "changes the working tree",
    ),
    ("hash-object", Category::Write, "can write objects"),
    (
        "mergetool",
        Category::Exec,
        "runs the merge tool named in configuration",
    ),
    (
        "difftool",
        Category::Exec,
        "runs the diff tool named in configuration",
    ),
    ("instaweb", Category::Exec, "starts a web server"),
    ("gui", Category::Exec, "starts a graphical program"),
    ("citool", Category::Exec, "starts a graphical program"),
    ("gitk", Category::Exec, "starts a graphical program"),
    (
        "credential",
        Category::Exec,
        "runs the credential helper named in configuration",
    ),
    ("lfs", Category::Exec, "runs the git-lfs program"),
];

/// `^git ...`.
fn git(call: &mut Call<'_>) {
    let parsed = match parse(&GLOBAL, call.args) {
        Ok(parsed) => parsed,
        Err(error) => {
            let option = match &error {
                FormError::Unknown(o)
                | FormError::Ambiguous(o)
                | FormError::MissingValue(o)
                | FormError::UnexpectedValue(o) => o.clone(),
            };
            let why = match global_refusal(&option) {
                Some((category, what)) => {
                    return call.not_read_only(category, format!("option `{option}` {what}"));
                }
                None => error.describe(),
            };
            return call.not_read_only(Category::Exec, why);
        }
    };
    for (option, _) in parsed.opts() {
        if let Some((category, what)) = global_refusal(option) {
            return call.not_read_only(category, format!("option `{option}` {what}"));
        }
    }
    let dirs: Vec<Arg> = parsed
        .opts()
        .filter(|(name, _)| *name == "-C")
        .filter_map(|(_, value)| value.cloned())
        .collect();
    repository(call, &dirs);
    let mut operands = parsed.operands();
    let Some(sub) = operands.next() else {
        // `git`, `git --version`, `git --help`: usage and version.
        return call.read(&dirs);
    };
    let rest: Vec<Arg> = operands.cloned().collect();
    let Some(sub) = sub.literal() else {
        return call.not_read_only(Category::Exec, "a subcommand only known when it runs");
    };
    let sub = sub.to_string();
    if subcommand(call, &sub, &rest) {
        call.read(&dirs);
    }
}

/// The directory git runs in (`-C a -C b` is `a/b`; none is `.`), as a
/// [`Access::Repository`] target: the judge asks when its configuration
/// is not the session's own repository's (see `policy::repository`).
fn repository(call: &mut Call<'_>, dirs: &[Arg]) {
    if dirs.iter().any(|d| matches!(d, Arg::Dynamic(_))) {
        call.step.dynamic = true;
        call.step.raise(
            crate::policy::Verdict::Confirm,
            "^git: -C names a directory only known when it runs, whose repository configuration can name programs git runs",
        );
        return;
    }
    let mut dir = String::new();
    for d in dirs {
        let d = d.text();
        if d.starts_with('/') || d.starts_with('~') || dir.is_empty() {
            dir = d.to_string();
        } else {
            dir = format!("{}/{d}", dir.trim_end_matches('/'));
        }
    }
    if dir.is_empty() {
        dir.push('.');
    }
    call.step
        .targets
        .push(crate::policy::Target::new(Access::Repository, dir));
}

/// Judge `git <sub> <rest>`; true when it is a read-only form.
fn subcommand(call: &mut Call<'_>, sub: &str, rest: &[Arg]) -> bool {
    match sub {
        "log" | "show" | "whatchanged" | "diff" | "diff-tree" | "diff-index" | "diff-files"
        | "rev-list" | "shortlog" | "range-diff" | "cherry" => {
            checked(call, sub, &REVS, REVS_REFUSED, rest).is_some()
        }
        "blame" | "annotate" => checked(call, sub, &BLAME, &[], rest).is_some(),
        "grep" => checked(call, sub, &GREP, GREP_REFUSED, rest).is_some(),
        "ls-files" => checked(call, sub, &LS_FILES, &[], rest).is_some(),
        "ls-tree" => checked(call, sub, &LS_TREE, &[], rest).is_some(),
        "rev-parse" => checked(call, sub, &REV_PARSE, &[], rest).is_some(),
        "describe" => checked(call, sub, &DESCRIBE, &[], rest).is_some(),
        "cat-file" => checked(call, sub, &CAT_FILE, CAT_FILE_REFUSED, rest).is_some(),
        "name-rev" => checked(call, sub, &NAME_REV, &[], rest).is_some(),
        "merge-base" => checked(call, sub, &MERGE_BASE, &[], rest).is_some(),
        "for-each-ref" => checked(call, sub, &FOR_EACH_REF, &[], rest).is_some(),
        "show-ref" => checked(call, sub, &SHOW_REF, &[], rest).is_some(),
        "show-branch" => checked(call, sub, &SHOW_BRANCH, &[], rest).is_some(),
        "check-ignore" => checked(call, sub, &CHECK_IGNORE, &[], rest).is_some(),
        "check-attr" => checked(call, sub, &CHECK_ATTR, &[], rest).is_some(),
        "check-ref-format" => checked(call, sub, &CHECK_REF_FORMAT, &[], rest).is_some(),
        "count-objects" => checked(call, sub, &COUNT_OBJECTS, &[], rest).is_some(),
        "var" => checked(call, sub, &VAR, &[], rest).is_some(),
        "version" => checked(call, sub, &VERSION, &[], rest).is_some(),
        "help" => checked(call, sub, &HELP, HELP_REFUSED, rest).is_some(),
        "fsck" => checked(call, sub, &FSCK, FSCK_REFUSED, rest).is_some(),
        "status" => checked(call, sub, &STATUS, &[], rest).is_some(),
        "branch" => branch(call, rest),
        "tag" => tag(call, rest),
        "remote" => remote(call, rest),
        "stash" => stash(call, rest),
        "reflog" => reflog(call, rest),
        "config" => config(call, rest),
        "worktree" => worktree(call, rest),
        "notes" => notes(call, rest),
        "submodule" => submodule(call, rest),
        "format-patch" => format_patch(call, rest),
        "archive" => checked(call, sub, &ARCHIVE, ARCHIVE_REFUSED, rest).is_some(),
        "bisect" => bisect(call, rest),
        _ => {
            if let Some((_, why)) = NETWORK_SUBCOMMANDS.iter().find(|(s, _)| *s == sub) {
                call.not_read_only(Category::Network, format!("`git {sub}` {why}"));
            } else if let Some((_, category, why)) =
                WRITE_SUBCOMMANDS.iter().find(|(s, _, _)| *s == sub)
            {
                call.not_read_only(*category, format!("`git {sub}` {why}"));
            } else {
                call.not_read_only(Category::Exec,
                    format!(
                        "`git {sub}` is not one of its read-only subcommands (it may change the repository, or be an alias from configuration that runs a command)"
                    ),
                );
            }
            false
        }
    }
}

/// `git status`.
const STATUS: Options = Options::gnu(
    "sbvuz",
    &[
        n("short"),
        n("branch"),
        n("show-stash"),
        o("porcelain"),
        n("long"),
        n("verbose"),
        o("untracked-files"),
        o("ignore-submodules"),
        o("ignored"),
        n("null"),
        o("column"),
        n("no-column"),
        n("ahead-behind"),
        n("no-ahead-behind"),
        n("renames"),
        n("no-renames"),
        o("find-renames"),
        n("no-optional-locks"),
        n("end-of-options"),
    ],
);

/// Parse `rest` with `options`; an unlisted option, or one of `refused`,
/// asks with its reason. `--output`-like options name their file.
fn checked(
    call: &mut Call<'_>,
    sub: &str,
    options: &Options,
    refused: &[(&str, Category, &str)],
    rest: &[Arg],
) -> Option<Parsed> {
    let parsed = match parse(options, rest) {
        Ok(parsed) => parsed,
        Err(error) => {
            call.not_read_only(
                Category::Exec,
                format!("{} (`git {sub}`)", error.describe()),
            );
            return None;
        }
    };
    let mut refusal = None;
    for (option, value) in parsed.opts() {
        if let Some((name, category, why)) = refused.iter().find(|(name, _, _)| *name == option) {
            if *category == Category::Write
                && let Some(file) = value
            {
                call.writes(file);
            }
            refusal.get_or_insert((*category, format!("option `{name}` of `git {sub}` {why}")));
        }
    }
    match refusal {
        Some((category, why)) => {
            call.not_read_only(category, why);
            None
        }
        None => Some(parsed),
    }
}

/// `git branch`: list forms only; a name operand outside the list forms
/// creates a branch.
fn branch(call: &mut Call<'_>, rest: &[Arg]) -> bool {
    let Some(parsed) = checked(call, "branch", &BRANCH, BRANCH_REFUSED, rest) else {
        return false;
    };
    let lists = [
        "-l",
        "--list",
        "--contains",
        "--no-contains",
        "--merged",
        "--no-merged",
        "--points-at",
        "-v",
        "--verbose",
    ]
    .iter()
    .any(|o| parsed.has(o));
    if parsed.operands().next().is_some() && !lists {
        call.not_read_only(
            Category::Write,
            "`git branch NAME` creates a branch (list forms take `--list`)",
        );
        return false;
    }
    true
}

/// `git tag`: list and verify forms; a name operand outside them creates
/// a tag.
fn tag(call: &mut Call<'_>, rest: &[Arg]) -> bool {
    const REFUSED: &[(&str, Category, &str)] = &[
        ("-a", Category::Write, "creates an annotated tag"),
        ("--annotate", Category::Write, "creates an annotated tag"),
        ("-s", Category::Write, "creates a signed tag"),
        ("--sign", Category::Write, "creates a signed tag"),
        ("--no-sign", Category::Write, "creates a tag"),
        ("-u", Category::Write, "creates a signed tag"),
        ("--local-user", Category::Write, "creates a signed tag"),
        ("-m", Category::Write, "creates a tag with a message"),
        ("--message", Category::Write, "creates a tag with a message"),
        ("-F", Category::Write, "creates a tag with a message"),
        ("--file", Category::Write, "creates a tag with a message"),
        (
            "-e",
            Category::Exec,
            "opens the editor named in configuration",
        ),
        (
            "--edit",
            Category::Exec,
            "opens the editor named in configuration",
        ),
        ("-f", Category::Write, "replaces a tag"),
        ("--force", Category::Write, "replaces a tag"),
        ("-d", Category::Delete, "deletes a tag"),
        ("--delete", Category::Delete, "deletes a tag"),
        ("--create-reflog", Category::Write, "creates a tag"),
        ("--cleanup", Category::Write, "creates a tag"),
        ("--trailer", Category::Write, "creates a tag"),
        ("-c", Category::Write, "creates a tag"),
    ];
    let Some(parsed) = checked(call, "tag", &TAG, REFUSED, rest) else {
        return false;
    };
    let lists = [
        "-l",
        "--list",
        "-n",
        "--contains",
        "--no-contains",
        "--merged",
        "--no-merged",
        "--points-at",
        "-v",
        "--verify",
    ]
    .iter()
    .any(|o| parsed.has(o));
    if parsed.operands().next().is_some() && !lists {
        call.not_read_only(
            Category::Write,
            "`git tag NAME` creates a tag (list forms take `--list`)",
        );
        return false;
    }
    true
}

/// `git remote`, `git remote -v`, `git remote get-url NAME`,
/// `git remote show -n NAME`.
fn remote(call: &mut Call<'_>, rest: &[Arg]) -> bool {
    let Some(parsed) = checked(call, "remote", &REMOTE, &[], rest) else {
        return false;
    };
    let mut operands = parsed.operands();
    let Some(action) = operands.next() else {
        return true;
    };
    let args: Vec<Arg> = operands.cloned().collect();
    match action.literal() {
        Some("get-url") => checked(call, "remote get-url", &REMOTE_GET_URL, &[], &args).is_some(),
        Some("show") => {
            let Some(show) = checked(call, "remote show", &REMOTE_SHOW, &[], &args) else {
                return false;
            };
            if show.has("-n") {
                return true;
            }
            call.not_read_only(
                Category::Network,
                "`git remote show` contacts the remote (`-n` does not)",
            );
            false
        }
        Some("update" | "prune") => {
            call.not_read_only(
                Category::Network,
                format!("`git remote {}` fetches from remotes", action.text()),
            );
            false
        }
        _ => {
            call.not_read_only(
                Category::Write,
                format!(
                    "`git remote {}` changes the repository's remotes",
                    action.text()
                ),
            );
            false
        }
    }
}

/// `git stash list` and `git stash show`; every other form changes the
/// stash or the working tree.
fn stash(call: &mut Call<'_>, rest: &[Arg]) -> bool {
    match rest.first().and_then(Arg::literal) {
        Some("list") => checked(call, "stash list", &REVS, REVS_REFUSED, &rest[1..]).is_some(),
        Some("show") => {
            let args: Vec<Arg> = rest[1..]
                .iter()
                .filter(|a| !a.literal().is_some_and(|t| STASH_SHOW_EXTRA.contains(&t)))
                .cloned()
                .collect();
            checked(call, "stash show", &REVS, REVS_REFUSED, &args).is_some()
        }
        other => {
            let what = other.unwrap_or("push");
            call.not_read_only(
                Category::Write,
                format!("`git stash {what}` changes the stash or the working tree"),
            );
            false
        }
    }
}

/// `git reflog [show] ...`, `git reflog exists REF`; `expire` and
/// `delete` delete entries.
fn reflog(call: &mut Call<'_>, rest: &[Arg]) -> bool {
    match rest.first().and_then(Arg::literal) {
        Some(action @ ("expire" | "delete" | "drop")) => {
            call.not_read_only(
                Category::Delete,
                format!("`git reflog {action}` deletes reflog entries"),
            );
            false
        }
        Some("exists") => checked(call, "reflog exists", &NO_OPTIONS, &[], &rest[1..]).is_some(),
        Some("show" | "list") => {
            checked(call, "reflog show", &REVS, REVS_REFUSED, &rest[1..]).is_some()
        }
        _ => checked(call, "reflog", &REVS, REVS_REFUSED, rest).is_some(),
    }
}

/// `git config` reading forms: `--get*`, `--list`, `git config get|list`,
/// or a single NAME operand. Setting forms write.
fn config(call: &mut Call<'_>, rest: &[Arg]) -> bool {
    let Some(parsed) = checked(call, "config", &CONFIG, CONFIG_REFUSED, rest) else {
        return false;
    };
    let operands: Vec<&Arg> = parsed.operands().collect();
    let mode = CONFIG_READ_MODES.iter().any(|m| parsed.has(m));
    let read = match operands.first().and_then(|a| a.literal()) {
        Some("list" | "get") if !mode => true,
        Some(action @ ("set" | "unset" | "rename-section" | "remove-section" | "edit")) => {
            let category = if action == "edit" {
                Category::Exec
            } else {
                Category::Write
            };
            call.not_read_only(
                category,
                format!("`git config {action}` changes the configuration"),
            );
            return false;
        }
        _ => mode || operands.len() <= 1,
    };
    if !read {
        call.not_read_only(
            Category::Write,
            "`git config NAME VALUE` sets a configuration value",
        );
        return false;
    }
    if let Some(file) = parsed.value("--file").or(parsed.value("-f")) {
        call.read([file]);
    }
    true
}

fn worktree(call: &mut Call<'_>, rest: &[Arg]) -> bool {
    match rest.first().and_then(Arg::literal) {
        Some("list") => checked(call, "worktree list", &WORKTREE_LIST, &[], &rest[1..]).is_some(),
        other => {
            call.not_read_only(
                Category::Write,
                format!(
                    "`git worktree {}` changes the repository's worktrees",
                    other.unwrap_or("")
                ),
            );
            false
        }
    }
}

fn notes(call: &mut Call<'_>, rest: &[Arg]) -> bool {
    let Some(parsed) = checked(call, "notes", &NOTES, &[], rest) else {
        return false;
    };
    let operands: Vec<Arg> = parsed.operands().cloned().collect();
    match operands.first().and_then(Arg::literal) {
        None | Some("list" | "show") => checked(
            call,
            "notes",
            &NO_OPTIONS,
            &[],
            operands.get(1..).unwrap_or(&[]),
        )
        .is_some(),
        Some(action) => {
            let category = if matches!(action, "edit" | "add" | "append") {
                Category::Exec
            } else {
                Category::Write
            };
            call.not_read_only(category, format!("`git notes {action}` changes notes"));
            false
        }
    }
}

fn submodule(call: &mut Call<'_>, rest: &[Arg]) -> bool {
    // `git submodule [--quiet] [status|summary] ...`.
    let start = rest
        .iter()
        .take_while(|a| matches!(a.literal(), Some("--quiet" | "-q")))
        .count();
    let rest = &rest[start..];
    match rest.first().and_then(Arg::literal) {
        None => true,
        Some(action @ ("status" | "summary")) => checked(
            call,
            &format!("submodule {action}"),
            &SUBMODULE_STATUS,
            &[],
            &rest[1..],
        )
        .is_some(),
        Some("foreach") => {
            call.not_read_only(
                Category::Exec,
                "`git submodule foreach` runs a command in each submodule",
            );
            false
        }
        Some(action @ ("update" | "sync" | "add")) => {
            call.not_read_only(
                Category::Network,
                format!("`git submodule {action}` fetches submodules"),
            );
            false
        }
        Some(action) => {
            call.not_read_only(
                Category::Write,
                format!("`git submodule {action}` changes submodules"),
            );
            false
        }
    }
}

/// `git format-patch --stdout` reads; otherwise it writes patch files.
fn format_patch(call: &mut Call<'_>, rest: &[Arg]) -> bool {
    const FORMAT_PATCH_EXTRA: &[&str] = &[
        "--stdout",
        "--no-stat",
        "--numbered",
        "--no-numbered",
        "--signoff",
        "-s",
        "--cover-letter",
        "--no-cover-letter",
        "--zero-commit",
        "--no-binary",
        "--keep-subject",
        "--ignore-if-in-upstream",
        "--no-signature",
        "--no-thread",
        "--thread",
        "--rfc",
        "--progress",
        "--attach",
        "--inline",
        "--no-attach",
    ];
    let stdout = rest.iter().any(|a| a.literal() == Some("--stdout"));
    if !stdout {
        let dir = rest
            .iter()
            .position(|a| matches!(a.literal(), Some("-o" | "--output-directory")))
            .and_then(|at| rest.get(at + 1));
        if let Some(dir) = dir {
            call.writes(dir);
        }
        call.not_read_only(
            Category::Write,
            "`git format-patch` writes patch files (`--stdout` does not)",
        );
        return false;
    }
    let args: Vec<Arg> = rest
        .iter()
        .filter(|a| !a.literal().is_some_and(|t| FORMAT_PATCH_EXTRA.contains(&t)))
        .cloned()
        .collect();
    checked(call, "format-patch", &REVS, REVS_REFUSED, &args).is_some()
}

fn bisect(call: &mut Call<'_>, rest: &[Arg]) -> bool {
    match rest.first().and_then(Arg::literal) {
        Some("log" | "terms") if rest.len() <= 2 => true,
        Some("run") => {
            call.not_read_only(Category::Exec, "`git bisect run` runs a command");
            false
        }
        Some(action @ ("visualize" | "view")) => {
            call.not_read_only(
                Category::Exec,
                format!("`git bisect {action}` starts gitk or a pager"),
            );
            false
        }
        other => {
            call.not_read_only(
                Category::Write,
                format!(
                    "`git bisect {}` changes the bisect state",
                    other.unwrap_or("")
                ),
            );
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::examples::{check, floor, judge, reasons};
    use crate::policy::{Access, Category, Verdict};

    const MATCH: &[&str] = &[
        "git",
        "git --version",
        "git --help",
        "git status",
        "git status -sb",
        "git status --porcelain=v2 --untracked-files=no",
        "git --no-pager log",
        "git -P log --oneline",
        "git -C src log -3",
        "git -C src -C .. status",
        "git --no-optional-locks status --short",
        "git log --oneline -n 20 --graph --all",
        "git log -5 --stat",
        "git log --pretty=format:'%h %s' --since='2 weeks ago' -- src",
        "git log -p -S foo --author=alice",
        "git log -L 10,20:src/main.rs",
        "git log -L10,20:src/main.rs",
        "git log --follow -- notes.md",
        "git log --format=%H -1 HEAD",
        "git log --decorate --date=short --no-merges main..HEAD",
        "git log --grep=fix -i --all-match",
        "git log --textconv -p",
        "git log --no-ext-diff -p",
        "git whatchanged -3",
        "git shortlog -sn",
        "git shortlog -sne --all",
        "git show HEAD:src/main.rs",
        "git show --stat HEAD~2",
        "git show -s --format=%ci HEAD",
        "git show --name-only",
        "git diff",
        "git diff --stat HEAD~3",
        "git diff --cached",
        "git diff --staged --name-status",
        "git diff --no-index a.txt b.txt",
        "git diff -U0 --word-diff=color",
        "git diff --color-moved=zebra -w",
        "git diff --check",
        "git diff -M50% --find-copies",
        "git diff-tree -r --no-commit-id --name-only HEAD",
        "git diff-index --quiet HEAD --",
        "git diff-files --name-only",
        "git range-diff main~3..main topic~3..topic",
        "git cherry -v main",
        "git rev-list --count HEAD",
        "git rev-list --all --objects",
        "git blame -L 10,20 src/main.rs",
        "git blame -w -C -C src/main.rs",
        "git blame --porcelain notes.md",
        "git annotate notes.md",
        "git grep -n TODO",
        "git grep -e foo --and -e bar -- '*.rs'",
        "git grep -il todo HEAD~1",
        "git grep -C3 -W foo",
        "git grep --count foo",
        "git ls-files",
        "git ls-files -mo --exclude-standard",
        "git ls-files -z -- src",
        "git ls-tree -r --name-only HEAD",
        "git ls-tree HEAD src",
        "git rev-parse HEAD",
        "git rev-parse --abbrev-ref HEAD",
        "git rev-parse --show-toplevel",
        "git rev-parse --git-dir",
        "git rev-parse --short=8 HEAD",
        "git describe --tags --always --dirty",
        "git cat-file -p HEAD",
        "git cat-file -t HEAD:notes.md",
        "git cat-file --batch-check --batch-all-objects",
        "git name-rev --name-only HEAD",
        "git merge-base --is-ancestor main HEAD",
        "git merge-base -a main topic",
        "git for-each-ref --sort=-committerdate --format='%(refname:short)' refs/heads",
        "git show-ref --tags",
        "git show-branch -a",
        "git check-ignore -v target",
        "git check-attr -a notes.md",
        "git check-ref-format --branch main",
        "git count-objects -vH",
        "git var -l",
        "git version",
        "git version --build-options",
        "git help log",
        "git help -a",
        "git branch",
        "git branch -a",
        "git branch -r",
        "git branch -vv",
        "git branch --show-current",
        "git branch --list 'feat*'",
        "git branch -l 'feat*'",
        "git branch --merged main",
        "git branch --contains HEAD",
        "git branch --sort=-committerdate --format='%(refname:short)'",
        "git branch -v main",
        "git tag",
        "git tag -l",
        "git tag --list 'v1.*'",
        "git tag -n5",
        "git tag --contains HEAD",
        "git tag --sort=-v:refname",
        "git tag -v v1.0",
        "git remote",
        "git remote -v",
        "git remote get-url origin",
        "git remote get-url --push origin",
        "git remote show -n origin",
        "git stash list",
        "git stash list --date=relative",
        "git stash show",
        "git stash show -p stash@{1}",
        "git reflog",
        "git reflog -n 10",
        "git reflog show main",
        "git reflog main",
        "git reflog exists main",
        "git config --get user.name",
        "git config user.name",
        "git config --list",
        "git config -l --show-origin",
        "git config --global --get-regexp alias",
        "git config --get-all remote.origin.fetch",
        "git config --file .gitmodules --get-regexp path",
        "git config --bool --get core.bare",
        "git config get user.email",
        "git config list --local",
        "git worktree list",
        "git worktree list --porcelain",
        "git notes list",
        "git notes show HEAD",
        "git notes --ref=review list",
        "git submodule",
        "git submodule status",
        "git submodule status --recursive",
        "git submodule summary",
        "git format-patch --stdout HEAD~3",
        "git archive HEAD",
        "git archive --format=tar --prefix=p/ HEAD src",
        "git bisect log",
        "git fsck",
        "git fsck --unreachable --no-reflogs",
        "git --literal-pathspecs log -- '*'",
    ];

    const NOT_MATCH: &[&str] = &[
        // Global options that point git at other configuration or code.
        "git -c core.pager='touch x' log",
        "git -ccore.pager=x log",
        "git -c alias.x='!touch x' x",
        "git --config-env=core.pager=EVIL log",
        "git --exec-path=/tmp/x status",
        "git --git-dir=/tmp/evil/.git log",
        "git --git-dir /tmp/evil/.git log",
        "git --work-tree=/tmp log",
        "git -p log",
        "git --paginate log",
        "git --namespace=x log",
        "git --bogus log",
        "git -C src -c x=y log",
        "git $sub",
        "git stash show --output=x",
        "git blame --bogus f",
        "git branch --list -D x",
        "git tag -l -d v1",
        "git config -l --unset x",
        "git reflog show --output=x",
        "git grep --open foo",
        // Writing options of reading subcommands.
        "git log --output=../../.bashrc",
        "git log --output ../../.bashrc",
        "git log --outp=x",
        "git diff --output=x.patch",
        "git show --output=x HEAD",
        "git diff --ext-diff",
        "git diff --ext",
        "git log --ext-diff -p",
        "git log --no-such-option",
        "git grep -O'touch x' foo",
        "git grep -Ovim foo",
        "git grep --open-files-in-pager=vim foo",
        "git grep -nO foo",
        "git grep --ext-grep foo",
        "git cat-file --textconv HEAD:x",
        "git cat-file --filters HEAD:x",
        "git help -w log",
        "git help --web log",
        "git fsck --lost-found",
        "git archive -o out.tar HEAD",
        "git archive --output=out.tar HEAD",
        "git archive --remote=ssh://host/repo HEAD",
        "git archive --exec=/tmp/x --remote=x HEAD",
        "git format-patch HEAD~3",
        "git format-patch -o /tmp HEAD~3",
        "git format-patch --stdout -o x HEAD~1",
        // Writing forms of list-ish subcommands.
        "git branch newbranch",
        "git branch -d main",
        "git branch -D main",
        "git branch --delete main",
        "git branch -m old new",
        "git branch -M new",
        "git branch -c a b",
        "git branch -f main HEAD~1",
        "git branch -u origin/main",
        "git branch --set-upstream-to=origin/main",
        "git branch --unset-upstream",
        "git branch --edit-description",
        "git branch -a newbranch",
        "git branch -dr origin/x",
        "git tag v1.0",
        "git tag -a v1.0 -m x",
        "git tag -d v1.0",
        "git tag -s v1",
        "git tag -f v1",
        "git remote add evil https://x.example/r",
        "git remote remove origin",
        "git remote rename origin x",
        "git remote set-url origin x",
        "git remote show origin",
        "git remote update",
        "git remote prune origin",
        "git stash",
        "git stash push",
        "git stash pop",
        "git stash drop",
        "git stash clear",
        "git stash apply",
        "git reflog expire --expire=now --all",
        "git reflog delete HEAD@{1}",
        "git config user.name x",
        "git config --add x.y z",
        "git config --unset user.name",
        "git config --unset-all user.name",
        "git config --replace-all x.y z",
        "git config --rename-section a b",
        "git config --remove-section a",
        "git config -e",
        "git config --edit",
        "git config --global core.pager 'touch x'",
        "git config set user.name x",
        "git config unset user.name",
        "git worktree add ../x",
        "git worktree remove x",
        "git worktree prune",
        "git notes add -m x",
        "git notes remove HEAD",
        "git submodule update --init",
        "git submodule foreach 'touch x'",
        "git submodule add https://x.example/r",
        "git submodule deinit x",
        "git bisect start",
        "git bisect run make",
        "git bisect visualize",
        "git bisect reset",
        // Writers, network and aliases.
        "git commit -m x",
        "git add .",
        "git push",
        "git push --force origin main",
        "git pull",
        "git fetch",
        "git clone https://x.example/r",
        "git ls-remote origin",
        "git checkout main",
        "git switch -c x",
        "git reset --hard",
        "git restore notes.md",
        "git rebase -i HEAD~3",
        "git merge topic",
        "git gc",
        "git prune",
        "git clean -fdx",
        "git am x.patch",
        "git apply x.patch",
        "git send-email x.patch",
        "git request-pull v1 origin",
        "git filter-branch",
        "git mergetool",
        "git difftool",
        "git lg",
        "git st",
        "git update-ref -d HEAD",
    ];

    #[test]
    fn read_only_forms_and_others() {
        check(MATCH, NOT_MATCH);
    }

    fn category(line: &str) -> Category {
        judge(line).steps[0].category
    }

    #[test]
    fn reasons_name_the_form() {
        assert!(reasons("git grep -O'touch x' foo").contains("`-O`"));
        assert!(reasons("git reflog expire --all").contains("`git reflog expire` deletes"));
        assert!(reasons("git -c core.pager=x log").contains("`-c`"));
        assert!(reasons("git branch x").contains("creates a branch"));
        assert!(reasons("git lg").contains("alias"));
        assert!(reasons("git log --bogus").contains("`--bogus`"));
        assert!(reasons("git config x.y z").contains("sets"));
        assert!(reasons("git diff --ext-diff").contains("external diff"));
    }

    #[test]
    fn categories_and_targets() {
        let plan = judge("git log --output=../../.bashrc");
        assert_eq!(plan.steps[0].category, Category::Write);
        assert!(
            plan.steps[0]
                .targets
                .iter()
                .any(|t| t.access == Access::Write && t.value == "../../.bashrc")
        );
        assert_eq!(category("git push"), Category::Network);
        assert_eq!(category("git ls-remote origin"), Category::Network);
        assert_eq!(category("git remote show origin"), Category::Network);
        assert_eq!(category("git clean -fdx"), Category::Delete);
        assert_eq!(category("git reflog expire"), Category::Delete);
        assert_eq!(category("git commit -m x"), Category::Write);
        assert_eq!(category("git branch x"), Category::Write);
        assert_eq!(category("git status"), Category::Read);
        assert_eq!(floor(&judge("git -c x=y log")), Some(Verdict::Confirm));
    }
}
