//! Package managers and build tools: apt, apt-cache, apt-get, aptitude,
//! dpkg, dpkg-query, rpm, pip, npm, npx, yarn, pnpm, cargo, rustc, rustup,
//! go, docker, podman, kubectl, helm, terraform, snap, flatpak, brew, gem,
//! conda, mamba, and the build runners (make, cmake, ninja, ...).
//!
//! Most of them are a subcommand language: a [`Tool`] lists the read-only
//! subcommand paths (`"toolchain list"`), the options they may take, and
//! what every other subcommand does. Programs that run the project's own
//! code (build scripts, package scripts, Makefiles) ask for everything but
//! their version and help; so do forms that reach the configuration that
//! can name a program to run (`cargo --config`, `cargo metadata`).

use super::{
    Arg, Call, Category, Grammar, Options, Parsed, flag as n, optional as o, parse, valued as v,
};

/// The grammar of `name` when it belongs to this family.
pub(super) fn grammar(name: &str) -> Option<Grammar> {
    Some(match name {
        "apt" => apt,
        "apt-cache" => apt_cache,
        "apt-get" | "aptitude" | "apt-mark" | "add-apt-repository" => apt_get,
        "dpkg" => dpkg,
        "dpkg-query" => dpkg_query,
        "rpm" => rpm,
        "pip" | "pip3" => pip,
        "npm" => npm,
        "npx" | "pnpx" => npx,
        "yarn" | "pnpm" => yarn,
        "cargo" => cargo,
        "rustc" => rustc,
        "rustup" => rustup,
        "go" => go,
        "docker" | "podman" => docker,
        "kubectl" => kubectl,
        "helm" => helm,
        "terraform" | "tofu" => terraform,
        "snap" => snap,
        "flatpak" => flatpak,
        "brew" => brew,
        "gem" => gem,
        "conda" | "mamba" | "micromamba" => conda,
        "make" | "gmake" | "cmake" | "ninja" | "meson" | "bazel" | "bazelisk" | "mvn"
        | "gradle" | "gradlew" | "ant" | "pytest" | "tox" | "nox" | "rake" | "just" | "task"
        | "scons" | "sbt" | "ctest" => build_runner,
        _ => return None,
    })
}

/// A subcommand language.
struct Tool {
    /// Read-only subcommand paths (`"list"`, `"env list"`); `""` is the
    /// program with no subcommand (usage, or its default listing).
    reads: &'static [&'static str],
    /// Subcommand paths that only read but reach the network.
    network: &'static [&'static str],
    /// The options any read-only form may take.
    options: Options,
    /// What every other subcommand does.
    other: Category,
    other_why: &'static str,
}

/// Parse `args` with `options`; an unlisted option asks, naming it.
fn parse_or_ask(call: &mut Call<'_>, options: &Options, args: &[Arg]) -> Option<Parsed> {
    match parse(options, args) {
        Ok(parsed) => Some(parsed),
        Err(error) => {
            call.not_read_only(Category::Exec, error.describe());
            None
        }
    }
}

/// The longest path of `paths` that the operands start with.
fn matching<'p>(paths: &[&'p str], operands: &[&str]) -> Option<&'p str> {
    paths
        .iter()
        .filter(|path| {
            let words: Vec<&str> = path.split_whitespace().collect();
            if words.is_empty() {
                return operands.is_empty();
            }
            operands.len() >= words.len() && operands[..words.len()] == words[..]
        })
        .max_by_key(|path| path.len())
        .copied()
}

/// Stands for a dynamic operand when matching subcommand paths.
const DYNAMIC: &str = "\u{0}dynamic";

/// Judge `args` against `tool`; true when it is a read-only form.
fn judge_tool(call: &mut Call<'_>, tool: &Tool, args: &[Arg]) -> bool {
    let Some(parsed) = parse_or_ask(call, &tool.options, args) else {
        return false;
    };
    // A dynamic operand matches no subcommand word: a read-only path must
    // be spelled out, its further operands (package names) may be dynamic.
    let operands: Vec<&str> = parsed
        .operands()
        .map(|a| a.literal().unwrap_or(DYNAMIC))
        .collect();
    if operands.is_empty() && !tool.reads.contains(&"") {
        call.read([]);
        return true;
    }
    if matching(tool.reads, &operands).is_some() {
        call.read([]);
        return true;
    }
    let sub = if operands.first() == Some(&DYNAMIC) {
        "(a subcommand only known when it runs)".to_string()
    } else {
        operands[..operands.len().min(2)].join(" ")
    };
    if let Some(path) = matching(tool.network, &operands) {
        call.not_read_only(
            Category::Network,
            format!("`{} {path}` reaches the network", call.name),
        );
        return false;
    }
    call.not_read_only(
        tool.other,
        format!("`{} {sub}` {}", call.name, tool.other_why),
    );
    false
}

// ---------------------------------------------------------------- apt

/// `apt` and `apt-cache` read forms. `-o` (sets configuration, which can
/// name hooks to run) and `-c` (another configuration file) are absent.
const APT_OPTIONS: Options = Options::gnu(
    "qahvnfi",
    &[
        n("installed"),
        n("upgradable"),
        n("upgradeable"),
        n("all-versions"),
        n("no-all-versions"),
        n("manual-installed"),
        n("full"),
        n("names-only"),
        n("recurse"),
        n("no-recommends"),
        n("no-suggests"),
        n("no-conflicts"),
        n("no-breaks"),
        n("no-replaces"),
        n("no-enhances"),
        n("no-pre-depends"),
        n("important"),
        n("help"),
        n("version"),
        o("quiet"),
        n("verbose"),
    ],
);

const APT: Tool = Tool {
    reads: &[
        "list", "search", "show", "policy", "depends", "rdepends", "showsrc", "help",
    ],
    network: &["changelog", "download", "source"],
    options: APT_OPTIONS,
    other: Category::Privileged,
    other_why: "installs, removes or changes packages",
};

fn apt(call: &mut Call<'_>) {
    let args = call.args;
    judge_tool(call, &APT, args);
}

const APT_CACHE: Tool = Tool {
    reads: &[
        "search",
        "show",
        "policy",
        "depends",
        "rdepends",
        "showpkg",
        "pkgnames",
        "stats",
        "madison",
        "showsrc",
        "dump",
        "dumpavail",
        "unmet",
        "dotty",
        "xvcg",
    ],
    network: &[],
    options: APT_OPTIONS,
    other: Category::Write,
    other_why: "writes the package cache",
};

fn apt_cache(call: &mut Call<'_>) {
    let args = call.args;
    judge_tool(call, &APT_CACHE, args);
}

const APTITUDE: Tool = Tool {
    reads: &["search", "show", "versions", "why", "why-not", "help"],
    network: &["changelog", "download"],
    options: Options::gnu("hvFw:", &[n("help"), n("version")]),
    other: Category::Privileged,
    other_why: "installs, removes or changes packages",
};

/// `apt-get` and friends change packages; `aptitude` has a few readers.
fn apt_get(call: &mut Call<'_>) {
    if call.name == "aptitude" {
        let args = call.args;
        judge_tool(call, &APTITUDE, args);
        return;
    }
    if version_or_help(call.args) {
        return call.read([]);
    }
    let name = call.name;
    call.not_read_only(
        Category::Privileged,
        format!("`{name}` installs, removes or changes packages"),
    );
}

/// `--version`, `-V`, `-v`, `--help`, `-h` alone.
fn version_or_help(args: &[Arg]) -> bool {
    args.len() == 1
        && matches!(
            args[0].literal(),
            Some("--version" | "-V" | "-v" | "--help" | "-h" | "version" | "help")
        )
}

// ---------------------------------------------------------------- dpkg

/// `dpkg` query actions. Any other action (`-i`, `-r`, `-P`,
/// `--configure`, `--unpack`, `--set-selections`, `-x`, ...) and any
/// writing option (`--log`) is absent.
const DPKG: Options = Options::gnu(
    "lLSspcIfW",
    &[
        n("list"),
        n("listfiles"),
        n("search"),
        n("status"),
        n("print-avail"),
        n("contents"),
        n("info"),
        n("field"),
        n("show"),
        v("showformat"),
        n("get-selections"),
        n("print-architecture"),
        n("print-foreign-architectures"),
        n("compare-versions"),
        v("admindir"),
        n("no-pager"),
        n("version"),
        n("help"),
        n("force-help"),
        n("debug-help"),
    ],
);

fn dpkg(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&DPKG) else {
        return;
    };
    // `-c`/`-I`/`-f` read a .deb file.
    if ["-c", "--contents", "-I", "--info", "-f", "--field"]
        .iter()
        .any(|o| parsed.has(o))
    {
        let files: Vec<Arg> = parsed.operands().take(1).cloned().collect();
        return call.read(&files);
    }
    call.read([]);
}

const DPKG_QUERY: Options = Options::gnu(
    "lWsLSpcf:",
    &[
        n("list"),
        n("show"),
        n("status"),
        n("listfiles"),
        n("search"),
        n("print-avail"),
        n("control-path"),
        n("control-list"),
        n("control-show"),
        v("showformat"),
        v("admindir"),
        v("root"),
        n("load-avail"),
        n("no-pager"),
        n("version"),
        n("help"),
    ],
);

fn dpkg_query(call: &mut Call<'_>) {
    if call.parse(&DPKG_QUERY).is_some() {
        call.read([]);
    }
}

// ---------------------------------------------------------------- rpm

/// `rpm -q ...`, `rpm -V ...`. Install, erase, import and database
/// options are absent; `-i` is "info" only with `-q`.
const RPM: Options = Options::gnu(
    "qailfpRcdsV",
    &[
        n("query"),
        n("all"),
        n("info"),
        n("list"),
        n("file"),
        n("package"),
        n("requires"),
        n("provides"),
        n("whatprovides"),
        n("whatrequires"),
        n("whatrecommends"),
        n("whatsuggests"),
        n("changelog"),
        n("changes"),
        n("scripts"),
        n("triggers"),
        n("configfiles"),
        n("docfiles"),
        n("licensefiles"),
        n("state"),
        n("dump"),
        n("last"),
        v("qf"),
        v("queryformat"),
        n("conflicts"),
        n("obsoletes"),
        n("recommends"),
        n("suggests"),
        n("filesbypkg"),
        n("verify"),
        n("nodeps"),
        n("nofiles"),
        n("nodigest"),
        n("nosignature"),
        n("nomd5"),
        n("version"),
        n("help"),
        n("querytags"),
        n("quiet"),
        n("verbose"),
    ],
);

fn rpm(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&RPM) else {
        return;
    };
    let mode = [
        "-q",
        "--query",
        "-V",
        "--verify",
        "--version",
        "--help",
        "--querytags",
    ]
    .iter()
    .any(|o| parsed.has(o));
    if !mode {
        return call.not_read_only(
            Category::Privileged,
            "without `-q` or `-V`, rpm installs or changes packages (`-i` is install)",
        );
    }
    if parsed.has("-p") || parsed.has("--package") {
        let files: Vec<Arg> = parsed.operands().cloned().collect();
        return call.read(&files);
    }
    call.read([]);
}

// ---------------------------------------------------------------- pip

/// Every option of pip's read-only forms (`list`, `show`, `freeze`,
/// `check`, `inspect`, `config list|get|debug`, `cache dir|info|list`,
/// `help`, `debug`) and its read-only global options. `--log`,
/// `--log-file`, `--exists-action`, `--src`, `--python` are absent.
const PIP: Options = Options::gnu(
    "vqoulefr:V",
    &[
        n("verbose"),
        n("quiet"),
        n("isolated"),
        n("disable-pip-version-check"),
        n("no-color"),
        n("require-virtualenv"),
        n("no-input"),
        n("no-cache-dir"),
        v("cache-dir"),
        v("timeout"),
        n("version"),
        n("help"),
        v("format"),
        n("user"),
        n("not-required"),
        n("editable"),
        n("local"),
        v("path"),
        n("include-editable"),
        n("exclude-editable"),
        v("exclude"),
        n("pre"),
        n("outdated"),
        n("uptodate"),
        n("files"),
        n("all"),
        v("requirement"),
        n("global"),
        n("site"),
        n("pip"),
        v("index-url"),
        v("extra-index-url"),
        n("no-index"),
        n("json"),
    ],
);

const PIP_TOOL: Tool = Tool {
    reads: &[
        "",
        "list",
        "show",
        "freeze",
        "check",
        "inspect",
        "help",
        "debug",
        "config list",
        "config get",
        "config debug",
        "cache dir",
        "cache info",
        "cache list",
        "hash",
    ],
    network: &["index", "search", "download"],
    options: PIP,
    other: Category::Exec,
    other_why: "installs, removes or builds packages (running their build scripts) or changes pip's configuration",
};

fn pip(call: &mut Call<'_>) {
    let Ok(parsed) = parse(&PIP, call.args) else {
        let args = call.args;
        judge_tool(call, &PIP_TOOL, args);
        return;
    };
    let sub = parsed.operands().next().and_then(Arg::literal);
    if sub == Some("list")
        && ["-o", "-u", "--outdated", "--uptodate"]
            .iter()
            .any(|o| parsed.has(o))
    {
        return call.not_read_only(
            Category::Network,
            "`pip list --outdated`/`--uptodate` asks the package index",
        );
    }
    let args = call.args;
    judge_tool(call, &PIP_TOOL, args);
}

// ---------------------------------------------------------------- npm

/// The options of npm's read-only forms (`ls`, `config get|list`, `root`,
/// `prefix`, `explain`, `query`, `help`, `version`).
const NPM: Options = Options::gnu(
    "gpalsvdw:",
    &[
        n("global"),
        n("json"),
        n("long"),
        n("parseable"),
        v("depth"),
        n("all"),
        v("omit"),
        v("include"),
        v("workspace"),
        n("workspaces"),
        n("include-workspace-root"),
        v("loglevel"),
        n("silent"),
        n("quiet"),
        o("color"),
        n("no-color"),
        n("unicode"),
        n("production"),
        n("dev"),
        n("link"),
        n("package-lock-only"),
        v("location"),
        n("version"),
        n("help"),
        n("usage"),
        n("no-description"),
        n("no-progress"),
    ],
);

const NPM_TOOL: Tool = Tool {
    reads: &[
        "",
        "ls",
        "list",
        "ll",
        "la",
        "help",
        "help-search",
        "config get",
        "config list",
        "config ls",
        "c get",
        "c list",
        "c ls",
        "get",
        "root",
        "prefix",
        "bin",
        "explain",
        "why",
        "query",
    ],
    network: &[
        "view", "info", "show", "v", "outdated", "search", "s", "se", "find", "audit", "doctor",
        "ping", "fund", "repo", "docs", "home", "bugs",
    ],
    options: NPM,
    other: Category::Exec,
    other_why: "runs the project's or packages' scripts, or changes packages or npm's configuration",
};

fn npm(call: &mut Call<'_>) {
    let Ok(parsed) = parse(&NPM, call.args) else {
        let args = call.args;
        judge_tool(call, &NPM_TOOL, args);
        return;
    };
    let operands: Vec<&str> = parsed.operands().filter_map(Arg::literal).collect();
    match operands.as_slice() {
        ["version"] => return call.read([]),
        ["version", bump, ..] => {
            return call.not_read_only(
                Category::Write,
                format!("`npm version {bump}` bumps the version in package.json (and may commit)"),
            );
        }
        ["audit", "fix", ..] => {
            return call.not_read_only(
                Category::Exec,
                "`npm audit fix` installs packages (running their scripts)",
            );
        }
        _ => {}
    }
    let args = call.args;
    judge_tool(call, &NPM_TOOL, args);
}

/// `npx` runs a package's program (downloading it if needed).
fn npx(call: &mut Call<'_>) {
    if version_or_help(call.args) {
        return call.read([]);
    }
    let name = call.name;
    call.not_read_only(
        Category::Exec,
        format!("`{name}` runs a package's program, downloading it if needed"),
    );
}

const YARN_TOOL: Tool = Tool {
    reads: &[
        "",
        "list",
        "ls",
        "ll",
        "la",
        "why",
        "licenses list",
        "root",
        "bin",
    ],
    network: &["info", "view", "outdated", "audit", "npm info"],
    options: Options::gnu(
        "vhPDr:",
        &[
            n("version"),
            n("help"),
            n("json"),
            v("depth"),
            n("long"),
            n("parseable"),
            n("global"),
            n("prod"),
            n("dev"),
            n("recursive"),
            v("filter"),
            n("no-color"),
        ],
    ),
    other: Category::Exec,
    other_why: "runs the project's or packages' scripts, or changes packages",
};

/// `yarn` and `pnpm`: bare `yarn` installs.
fn yarn(call: &mut Call<'_>) {
    if call.args.is_empty() {
        let name = call.name;
        return call.not_read_only(
            Category::Exec,
            format!("`{name}` with no subcommand installs packages (running their scripts)"),
        );
    }
    let args = call.args;
    judge_tool(call, &YARN_TOOL, args);
}

// ---------------------------------------------------------------- cargo

/// `cargo [options] <subcommand>`: global options before the subcommand.
/// `--config`, `-Z` and `-C` are absent (they set `build.rustc-wrapper`
/// and friends, or point cargo at another project).
const CARGO_GLOBAL: Options = Options::posix(
    "vqVh",
    &[
        n("version"),
        n("list"),
        v("explain"),
        n("verbose"),
        n("quiet"),
        v("color"),
        n("locked"),
        n("offline"),
        n("frozen"),
        n("help"),
        o("config"),
    ],
);

/// `cargo tree` (routine work: stays read-only where the project has no
/// `.cargo/config.toml`, see `policy::repository::cargo_configuration`).
const CARGO_TREE: Options = Options::gnu(
    "p:i:e:dF:f:qvh",
    &[
        v("package"),
        v("invert"),
        v("edges"),
        n("duplicates"),
        v("depth"),
        v("prefix"),
        v("format"),
        n("no-dedupe"),
        v("target"),
        n("all-targets"),
        n("workspace"),
        v("exclude"),
        v("manifest-path"),
        n("locked"),
        n("offline"),
        n("frozen"),
        v("features"),
        n("all-features"),
        n("no-default-features"),
        v("charset"),
        v("prune"),
        n("quiet"),
        n("verbose"),
        v("color"),
        n("help"),
        v("lockfile-path"),
        o("config"),
    ],
);

/// `cargo locate-project`, `pkgid`, `verify-project`, `read-manifest`,
/// `version`, `help`.
const CARGO_SMALL: Options = Options::gnu(
    "p:qvh",
    &[
        v("package"),
        n("workspace"),
        v("message-format"),
        v("manifest-path"),
        n("locked"),
        n("offline"),
        n("frozen"),
        n("quiet"),
        n("verbose"),
        v("color"),
        n("help"),
        o("config"),
    ],
);

fn cargo(call: &mut Call<'_>) {
    follows_project_configuration(call);
    let args = call.args;
    let Some(parsed) = parse_or_ask_cargo(call, &CARGO_GLOBAL, args) else {
        return;
    };
    let mut operands = parsed.operands();
    let Some(sub) = operands.next() else {
        return call.read([]);
    };
    let rest: Vec<Arg> = operands.cloned().collect();
    let Some(sub) = sub.literal() else {
        return call.not_read_only(Category::Exec, "a subcommand only known when it runs");
    };
    let options = match sub {
        "tree" => &CARGO_TREE,
        "locate-project" | "pkgid" | "verify-project" | "read-manifest" | "version" | "help" => {
            &CARGO_SMALL
        }
        "metadata" => {
            return call.not_read_only(
                Category::Exec,
                "`cargo metadata` runs the rustc-wrapper named in the project's .cargo/config.toml",
            );
        }
        "search" | "info" | "login" | "logout" | "owner" | "yank" => {
            return call.not_read_only(
                Category::Network,
                format!("`cargo {sub}` reaches the registry"),
            );
        }
        "publish" => {
            return call.not_read_only(Category::Network, "`cargo publish` uploads the crate");
        }
        "build" | "b" | "check" | "c" | "test" | "t" | "run" | "r" | "bench" | "clippy" | "doc"
        | "d" | "install" | "fix" | "rustc" | "rustdoc" | "miri" | "llvm-cov" | "nextest" => {
            return call.not_read_only(
                Category::Exec,
                format!("`cargo {sub}` runs the project's build scripts and compiler plugins"),
            );
        }
        "clean" => {
            call.writes(&Arg::Literal("target".into()));
            return call.not_read_only(
                Category::Delete,
                "`cargo clean` deletes the build directory",
            );
        }
        "fmt" | "add" | "remove" | "rm" | "update" | "generate-lockfile" | "new" | "init"
        | "vendor" | "package" | "uninstall" => {
            return call.not_read_only(
                Category::Write,
                format!("`cargo {sub}` changes files of the project"),
            );
        }
        _ => {
            return call.not_read_only(Category::Exec,
                format!(
                    "`cargo {sub}` is not one of its read-only subcommands (it may be an alias or an external cargo-{sub} program)"
                ),
            );
        }
    };
    if parse_or_ask_cargo(call, options, &rest).is_some() {
        call.read([]);
    }
}

/// Parse cargo options; `--config` and `-Z` ask with their reason.
fn parse_or_ask_cargo(call: &mut Call<'_>, options: &Options, args: &[Arg]) -> Option<Parsed> {
    let parsed = match parse(options, args) {
        Ok(parsed) => parsed,
        Err(error) => {
            let why = match &error {
                super::FormError::Unknown(o) if o == "-Z" => {
                    "option `-Z` enables unstable features (and can point cargo at other code)"
                        .to_string()
                }
                super::FormError::Unknown(o) if o == "-C" => {
                    "option `-C` runs cargo in another directory".to_string()
                }
                _ => error.describe(),
            };
            call.not_read_only(Category::Exec, why);
            return None;
        }
    };
    if parsed.has("--config") {
        call.not_read_only(Category::Exec,
            "option `--config` sets configuration, which can name a program to run (build.rustc-wrapper)",
        );
        return None;
    }
    Some(parsed)
}

const RUSTC: Options = Options::gnu(
    "Vvh",
    &[
        n("version"),
        v("print"),
        n("help"),
        v("explain"),
        n("verbose"),
    ],
);

/// `rustc --version`, `--print X`, `--explain E`; compiling writes the
/// output and runs proc macros.
fn rustc(call: &mut Call<'_>) {
    follows_project_configuration(call);
    let Some(parsed) = call.parse(&RUSTC) else {
        return;
    };
    if parsed.operands().next().is_some() {
        return call.not_read_only(
            Category::Write,
            "compiling writes the output file (and runs proc macros)",
        );
    }
    call.read([]);
}

const RUSTUP: Tool = Tool {
    reads: &[
        "",
        "show",
        "show active-toolchain",
        "show home",
        "show profile",
        "toolchain list",
        "target list",
        "component list",
        "which",
        "help",
        "--version",
    ],
    network: &["check"],
    options: Options::gnu(
        "vqVh",
        &[
            n("verbose"),
            n("quiet"),
            n("version"),
            n("help"),
            n("installed"),
            v("toolchain"),
        ],
    ),
    other: Category::Write,
    other_why: "installs, removes or changes toolchains (or runs a program)",
};

/// A rustup proxy runs the toolchain the nearest `rust-toolchain.toml`
/// names, and cargo loads the project's `.cargo/config.toml` (which can
/// name a rustc-wrapper): the directory it starts in is judged (see
/// `policy::repository`).
fn follows_project_configuration(call: &mut Call<'_>) {
    call.step.targets.push(crate::policy::Target::new(
        crate::policy::Access::Repository,
        ".",
    ));
}

fn rustup(call: &mut Call<'_>) {
    follows_project_configuration(call);
    let args = call.args;
    judge_tool(call, &RUSTUP, args);
}

// ---------------------------------------------------------------- go

/// `go version [-m] [-v] [FILE...]`, `go env [-json] [-changed] [VAR...]`,
/// `go doc ...`, `go help ...`. Go flags take one or two dashes and
/// `-flag=value`; they are checked by name.
fn go(call: &mut Call<'_>) {
    let words: Vec<&str> = call.args.iter().map(Arg::text).collect();
    let Some((sub, rest)) = words.split_first() else {
        return call.read([]);
    };
    let flags: Vec<&str> = rest
        .iter()
        .filter(|w| w.starts_with('-'))
        .map(|w| w.trim_start_matches('-').split('=').next().unwrap_or(""))
        .collect();
    let allowed: &[&str] = match *sub {
        "version" => &["m", "v", "json"],
        "env" => &["json", "changed"],
        "doc" => &["all", "c", "cmd", "short", "src", "u"],
        "help" => &[],
        "--version" | "-version" if rest.is_empty() => return call.read([]),
        "list" | "get" | "mod" | "work" | "download" => {
            return call.not_read_only(
                Category::Network,
                format!("`go {sub}` can download modules (and `-toolexec` runs a program)"),
            );
        }
        "fmt" | "fix" => {
            return call
                .not_read_only(Category::Write, format!("`go {sub}` rewrites source files"));
        }
        "clean" => return call.not_read_only(Category::Delete, "`go clean` deletes build outputs"),
        _ => {
            return call.not_read_only(
                Category::Exec,
                format!("`go {sub}` builds or runs the project's code"),
            );
        }
    };
    if let Some(flag) = flags.iter().find(|f| !allowed.contains(f)) {
        let category = if *sub == "env" && matches!(*flag, "w" | "u") {
            Category::Write
        } else {
            Category::Exec
        };
        return call.not_read_only(
            category,
            format!("option `-{flag}` is not one of `go {sub}`'s read-only forms"),
        );
    }
    call.read([]);
}

// ---------------------------------------------------------------- docker

/// `docker [global options] <subcommand>`. `-H`/`--host`, `-c`/`--context`
/// (another daemon) and `--config` (another client configuration) are
/// absent.
const DOCKER_GLOBAL: Options = Options::posix(
    "l:Dvh",
    &[
        v("log-level"),
        n("debug"),
        n("version"),
        n("help"),
        o("host"),
        o("context"),
        o("config"),
    ],
);

/// The options of docker's read-only subcommands (`ps`, `images`, `inspect`,
/// `logs`, `stats`, `top`, `port`, `history`, `network|volume ls|inspect`,
/// `system df|info`, `context ls|show`, `compose ps|ls|config`, ...).
const DOCKER_READ: Options = Options::gnu(
    "af:n:lqstHvp:",
    &[
        n("all"),
        v("filter"),
        v("format"),
        v("last"),
        n("latest"),
        n("no-trunc"),
        n("quiet"),
        n("size"),
        n("digests"),
        n("tree"),
        v("type"),
        n("details"),
        n("follow"),
        v("since"),
        v("tail"),
        n("timestamps"),
        v("until"),
        o("human"),
        v("platform"),
        n("no-stream"),
        n("verbose"),
        n("cluster"),
        n("services"),
        v("status"),
        n("orphans"),
        n("volumes"),
        n("profiles"),
        n("images"),
        v("hash"),
        n("no-interpolate"),
        n("no-normalize"),
        n("no-consistency"),
        n("no-path-resolution"),
        v("file"),
        v("project-name"),
        v("project-directory"),
        v("profile"),
        v("env-file"),
        v("ansi"),
        v("progress"),
        n("help"),
        o("output"),
    ],
);

const DOCKER: Tool = Tool {
    reads: &[
        "",
        "ps",
        "images",
        "image ls",
        "image list",
        "image inspect",
        "image history",
        "container ls",
        "container list",
        "container ps",
        "container inspect",
        "container logs",
        "container top",
        "container port",
        "container stats",
        "container diff",
        "inspect",
        "logs",
        "version",
        "info",
        "stats",
        "top",
        "port",
        "history",
        "diff",
        "network ls",
        "network list",
        "network inspect",
        "volume ls",
        "volume list",
        "volume inspect",
        "system df",
        "system info",
        "context ls",
        "context list",
        "context show",
        "context inspect",
        "compose ps",
        "compose ls",
        "compose config",
        "compose images",
        "compose version",
        "compose top",
        "compose logs",
        "buildx ls",
        "buildx version",
        "plugin ls",
        "secret ls",
        "node ls",
        "service ls",
        "stack ls",
        "help",
    ],
    network: &["search", "pull", "push", "login", "logout", "manifest"],
    options: DOCKER_READ,
    other: Category::Exec,
    other_why: "runs, changes or removes containers, images or other daemon state",
};

fn docker(call: &mut Call<'_>) {
    let parsed = match parse(&DOCKER_GLOBAL, call.args) {
        Ok(parsed) => parsed,
        Err(error) => return call.not_read_only(Category::Exec, error.describe()),
    };
    for (option, _) in parsed.opts() {
        let why = match option {
            "--host" | "--context" => "talks to another container daemon",
            "--config" => "reads another client configuration (which can name credential helpers)",
            _ => continue,
        };
        return call.not_read_only(Category::Exec, format!("option `{option}` {why}"));
    }
    let rest: Vec<Arg> = parsed.operands().cloned().collect();
    if let Ok(sub) = parse(&DOCKER_READ, &rest)
        && let Some(file) = sub.value("--output")
    {
        call.writes(file);
        return call.not_read_only(
            Category::Write,
            format!("option `--output` writes to {}", file.text()),
        );
    }
    judge_tool(call, &DOCKER, &rest);
}

// ---------------------------------------------------------------- kubectl

/// The options of kubectl's read-only forms. `--kubeconfig` (another
/// configuration, which can name a credential program) is absent.
const KUBECTL_READ: Options = Options::gnu(
    "n:Ao:l:wL:c:pf:hv:s:",
    &[
        v("namespace"),
        n("all-namespaces"),
        v("output"),
        v("selector"),
        v("field-selector"),
        n("watch"),
        n("watch-only"),
        v("label-columns"),
        n("show-labels"),
        n("show-kind"),
        v("sort-by"),
        n("no-headers"),
        v("context"),
        v("cluster"),
        v("user"),
        v("container"),
        n("previous"),
        n("follow"),
        v("tail"),
        v("since"),
        v("since-time"),
        n("timestamps"),
        n("all-containers"),
        n("prefix"),
        v("max-log-requests"),
        n("ignore-errors"),
        v("limit-bytes"),
        v("filename"),
        n("recursive"),
        v("api-version"),
        n("containers"),
        n("use-protocol-buffers"),
        v("chunk-size"),
        n("ignore-not-found"),
        v("raw"),
        n("client"),
        n("minify"),
        n("flatten"),
        n("namespaced"),
        v("api-group"),
        n("cached"),
        n("help"),
        v("request-timeout"),
        v("server"),
        v("v"),
        n("show-managed-fields"),
        v("subresource"),
        v("template"),
        n("allow-missing-template-keys"),
    ],
);

const KUBECTL: Tool = Tool {
    // What only reads local configuration; asking the cluster anything
    // needs the network, which a read's sandbox does not have.
    reads: &[
        "config view",
        "config get-contexts",
        "config current-context",
        "config get-clusters",
        "config get-users",
        "help",
        "completion",
        "plugin list",
    ],
    network: &[
        "get",
        "describe",
        "logs",
        "top",
        "version",
        "explain",
        "api-resources",
        "api-versions",
        "cluster-info",
        "auth can-i",
        "auth whoami",
        "events",
    ],
    options: KUBECTL_READ,
    other: Category::Exec,
    other_why: "changes the cluster or its configuration, runs commands in it, or runs a plugin",
};

fn kubectl(call: &mut Call<'_>) {
    let words: Vec<&str> = call.args.iter().filter_map(Arg::literal).collect();
    if words
        .iter()
        .any(|w| *w == "--kubeconfig" || w.starts_with("--kubeconfig="))
    {
        return call.not_read_only(Category::Exec,
            "option `--kubeconfig` reads another configuration (which can name a credential program)",
        );
    }
    if words.windows(2).any(|w| w == ["cluster-info", "dump"]) {
        return call.not_read_only(
            Category::Write,
            "`kubectl cluster-info dump` can write a directory of dumps",
        );
    }
    let args = call.args;
    judge_tool(call, &KUBECTL, args);
}

const HELM: Tool = Tool {
    reads: &[
        "show",
        "inspect",
        "version",
        "env",
        "search repo",
        "repo list",
        "repo ls",
        "plugin list",
        "help",
        "lint",
    ],
    // Questions to the cluster or a repository need the network.
    network: &[
        "list",
        "ls",
        "status",
        "get",
        "history",
        "hist",
        "search hub",
        "repo update",
        "pull",
        "push",
        "dependency update",
    ],
    options: Options::gnu(
        "n:Aao:qm:drh",
        &[
            v("namespace"),
            n("all-namespaces"),
            n("all"),
            v("output"),
            n("short"),
            v("max"),
            v("revision"),
            n("date"),
            n("reverse"),
            v("filter"),
            v("kube-context"),
            v("version"),
            n("devel"),
            v("regexp"),
            n("deployed"),
            n("failed"),
            n("pending"),
            n("superseded"),
            n("uninstalled"),
            n("uninstalling"),
            n("help"),
            v("template"),
            n("show-resources"),
            n("show-desc"),
        ],
    ),
    other: Category::Exec,
    other_why: "installs, upgrades or removes releases or changes helm's configuration",
};

fn helm(call: &mut Call<'_>) {
    if call
        .args
        .iter()
        .filter_map(Arg::literal)
        .any(|w| w == "--kubeconfig" || w.starts_with("--kubeconfig="))
    {
        return call.not_read_only(Category::Exec,
            "option `--kubeconfig` reads another configuration (which can name a credential program)",
        );
    }
    let args = call.args;
    judge_tool(call, &HELM, args);
}

// ---------------------------------------------------------------- terraform

/// `terraform version|show|output|providers|state list|state show`,
/// `terraform fmt -check` (or `-write=false`). Terraform flags take one
/// dash and `-flag=value`; they are checked by name. `-chdir` is absent.
fn terraform(call: &mut Call<'_>) {
    const FLAGS: &[&str] = &[
        "json",
        "no-color",
        "state",
        "raw",
        "check",
        "diff",
        "list",
        "recursive",
        "write",
        "id",
        "help",
        "version",
        "v",
    ];
    let words: Vec<&str> = call.args.iter().map(Arg::text).collect();
    let path: Vec<&str> = words
        .iter()
        .copied()
        .filter(|w| !w.starts_with('-'))
        .collect();
    let flags: Vec<&str> = words
        .iter()
        .copied()
        .filter(|w| w.starts_with('-'))
        .collect();
    if let Some(flag) = flags.iter().find(|f| {
        let name = f.trim_start_matches('-').split('=').next().unwrap_or("");
        !FLAGS.contains(&name)
    }) {
        return call.not_read_only(
            Category::Exec,
            format!("option `{flag}` is not one of its read-only forms"),
        );
    }
    let sub = path.first().copied().unwrap_or("");
    let read = match sub {
        "" | "version" | "show" | "output" | "providers" => true,
        "state" => matches!(path.get(1), Some(&"list" | &"show")),
        "fmt" => {
            let no_write = flags
                .iter()
                .any(|f| matches!(*f, "-check" | "--check" | "-write=false" | "--write=false"));
            if !no_write {
                return call.not_read_only(
                    Category::Write,
                    "`terraform fmt` rewrites files unless `-check` or `-write=false`",
                );
            }
            true
        }
        _ => false,
    };
    if read {
        return call.read([]);
    }
    call.not_read_only(
        Category::Exec,
        format!("`terraform {sub}` runs providers, reaches the network or changes state"),
    );
}

// ---------------------------------------------------------------- others

const SNAP: Tool = Tool {
    reads: &[
        "list",
        "info",
        "version",
        "services",
        "connections",
        "changes",
        "help",
        "aliases",
        "interfaces",
        "get",
    ],
    network: &["find", "search", "refresh --list", "download"],
    options: Options::gnu(
        "h",
        &[
            n("all"),
            n("help"),
            n("abs-time"),
            n("verbose"),
            n("unicode"),
        ],
    ),
    other: Category::Privileged,
    other_why: "installs, removes or changes snaps",
};

fn snap(call: &mut Call<'_>) {
    let args = call.args;
    judge_tool(call, &SNAP, args);
}

const FLATPAK: Tool = Tool {
    reads: &["list", "info", "remotes", "history", "ps", "help"],
    network: &["search", "remote-ls"],
    options: Options::gnu(
        "dh",
        &[
            n("version"),
            n("help"),
            n("app"),
            n("runtime"),
            n("user"),
            n("system"),
            v("columns"),
            n("all"),
            n("show-details"),
            n("verbose"),
        ],
    ),
    other: Category::Exec,
    other_why: "installs, runs or changes applications",
};

fn flatpak(call: &mut Call<'_>) {
    let args = call.args;
    judge_tool(call, &FLATPAK, args);
}

const BREW: Tool = Tool {
    reads: &[
        "list",
        "ls",
        "info",
        "config",
        "deps",
        "leaves",
        "uses",
        "desc",
        "--prefix",
        "--cellar",
        "--repository",
        "--cache",
        "help",
        "commands",
        "home",
    ],
    network: &["outdated", "search", "update", "doctor"],
    options: Options::gnu(
        "1lrtvh",
        &[
            n("version"),
            n("help"),
            n("versions"),
            n("formula"),
            n("formulae"),
            n("cask"),
            n("casks"),
            n("installed"),
            n("json"),
            n("tree"),
            n("pinned"),
            n("full-name"),
            n("multiple"),
            n("verbose"),
            n("quiet"),
            n("prefix"),
            n("cellar"),
            n("repository"),
            n("cache"),
        ],
    ),
    other: Category::Exec,
    other_why: "installs, removes or changes packages (running their scripts)",
};

fn brew(call: &mut Call<'_>) {
    let args = call.args;
    judge_tool(call, &BREW, args);
}

const GEM: Tool = Tool {
    reads: &[
        "list",
        "env",
        "environment",
        "contents",
        "specification",
        "spec",
        "which",
        "help",
        "dependency",
        "query",
    ],
    network: &["search", "outdated", "info --remote", "fetch"],
    options: Options::gnu(
        "dlaiVvh",
        &[
            n("version"),
            n("help"),
            n("local"),
            n("details"),
            n("all"),
            n("installed"),
            n("versions"),
            n("verbose"),
            n("quiet"),
        ],
    ),
    other: Category::Exec,
    other_why: "installs, removes or builds gems (running their scripts)",
};

fn gem(call: &mut Call<'_>) {
    let args = call.args;
    judge_tool(call, &GEM, args);
}

const CONDA: Tool = Tool {
    reads: &[
        "list",
        "info",
        "env list",
        "env export",
        "config --show",
        "help",
    ],
    network: &["search"],
    options: Options::gnu(
        "n:p:eVh",
        &[
            v("name"),
            v("prefix"),
            n("envs"),
            n("json"),
            n("explicit"),
            n("revisions"),
            n("export"),
            n("version"),
            n("help"),
            n("all"),
            n("verbose"),
            n("show"),
            n("no-builds"),
            n("from-history"),
        ],
    ),
    other: Category::Exec,
    other_why: "installs, removes or runs packages or changes environments",
};

fn conda(call: &mut Call<'_>) {
    let args = call.args;
    judge_tool(call, &CONDA, args);
}

/// Build runners run the project's own build scripts (a Makefile's
/// recipes, `$(shell ...)` even with `-n`, build.gradle, conftest.py...);
/// only their version and help are read-only.
fn build_runner(call: &mut Call<'_>) {
    let version_only = call.args.len() == 1
        && matches!(
            call.args[0].literal(),
            Some("--version" | "-v" | "--help" | "-h" | "-version")
        );
    let flag_version = call.args.len() == 1
        && matches!(call.args[0].literal(), Some("-V"))
        && matches!(
            call.name,
            "make" | "gmake" | "mvn" | "gradle" | "gradlew" | "tox"
        );
    if version_only || flag_version {
        return call.read([]);
    }
    let name = call.name;
    call.not_read_only(
        Category::Exec,
        format!("`{name}` runs the project's own build scripts"),
    );
}

#[cfg(test)]
mod tests {
    use super::super::examples::{check, judge, reasons};
    use crate::policy::Category;

    const MATCH: &[&str] = &[
        // apt
        "apt list --installed",
        "apt list --upgradable",
        "apt list -a bash",
        "apt search ripgrep",
        "apt show bash",
        "apt policy bash",
        "apt depends bash",
        "apt rdepends --installed bash",
        "apt --version",
        "apt-cache search ripgrep",
        "apt-cache show bash",
        "apt-cache policy",
        "apt-cache madison bash",
        "apt-cache depends --recurse bash",
        "apt-cache pkgnames",
        "apt-cache stats",
        "apt-get --version",
        "aptitude search bash",
        // dpkg
        "dpkg -l",
        "dpkg -l 'lib*'",
        "dpkg --list bash",
        "dpkg -L bash",
        "dpkg -S /bin/ls",
        "dpkg -s bash",
        "dpkg --status bash",
        "dpkg -p bash",
        "dpkg -c x.deb",
        "dpkg -I x.deb",
        "dpkg --get-selections",
        "dpkg --print-architecture",
        "dpkg --compare-versions 1.0 lt 2.0",
        "dpkg --version",
        "dpkg-query -W -f='${Package}\\n'",
        "dpkg-query -l",
        "dpkg-query --show bash",
        "dpkg-query -L bash",
        // rpm
        "rpm -qa",
        "rpm -qi bash",
        "rpm -ql bash",
        "rpm -qf /bin/ls",
        "rpm -q --requires bash",
        "rpm -qa --qf '%{NAME}\\n'",
        "rpm -qpl x.rpm",
        "rpm -V bash",
        "rpm --version",
        // pip
        "pip list",
        "pip3 list --format=json",
        "pip list --not-required --user",
        "pip show requests",
        "pip show -f requests",
        "pip freeze",
        "pip freeze --all",
        "pip check",
        "pip --version",
        "pip help install",
        "pip config list",
        "pip config get global.index-url",
        "pip cache dir",
        "pip cache list",
        "pip -q --disable-pip-version-check list",
        "pip inspect",
        // npm
        "npm ls",
        "npm ls --all --depth=2",
        "npm list --json --long",
        "npm ls -g --depth 0",
        "npm ll",
        "npm help install",
        "npm config get registry",
        "npm config list",
        "npm root -g",
        "npm prefix",
        "npm explain lodash",
        "npm why lodash",
        "npm query .dependencies",
        "npm version",
        "npm --version",
        "npm -v",
        "yarn --version",
        "yarn list",
        "yarn why lodash",
        "pnpm list",
        "pnpm why lodash",
        "pnpm --version",
        // cargo
        "cargo tree",
        "cargo tree -p serde -i tokio",
        "cargo tree -e normal --depth 1 --prefix none",
        "cargo tree --workspace --all-features -q",
        "cargo tree -d --format '{p} {f}'",
        "cargo tree --locked --offline --target all",
        "cargo --version",
        "cargo -V",
        "cargo version",
        "cargo help build",
        "cargo locate-project --workspace",
        "cargo pkgid",
        "cargo verify-project",
        "cargo --list",
        "cargo -q tree",
        "rustc --version",
        "rustc -vV",
        "rustc --print sysroot",
        "rustc --print=cfg",
        "rustc --explain E0308",
        "rustup show",
        "rustup --version",
        "rustup toolchain list",
        "rustup target list --installed",
        "rustup component list --installed",
        "rustup which cargo",
        // go
        "go version",
        "go version -m ./bin",
        "go env",
        "go env GOPATH GOROOT",
        "go env -json",
        "go doc fmt.Println",
        "go help build",
        // docker
        "docker ps",
        "docker ps -a",
        "docker ps -a --format '{{.Names}}'",
        "docker ps -aq --filter status=exited",
        "docker images",
        "docker image ls",
        "docker image inspect alpine",
        "docker container ls -a",
        "docker inspect web",
        "docker inspect -f '{{.State.Status}}' web",
        "docker logs web",
        "docker logs --tail 50 -t web",
        "docker logs -f web",
        "docker stats --no-stream",
        "docker top web",
        "docker port web",
        "docker history alpine",
        "docker network ls",
        "docker volume ls",
        "docker volume inspect data",
        "docker system df",
        "docker system info",
        "docker info",
        "docker version",
        "docker --version",
        "docker context ls",
        "docker compose ps",
        "docker compose ls",
        "docker compose config",
        "docker -l debug ps",
        "podman ps -a",
        "podman images",
        // kubectl
        "kubectl config view --minify",
        "kubectl config get-contexts",
        "kubectl config current-context",
        "helm show values ./chart",
        "helm version",
        "helm env",
        // terraform
        "terraform version",
        "terraform show",
        "terraform show -json",
        "terraform output",
        "terraform output -raw ip",
        "terraform providers",
        "terraform state list",
        "terraform state show aws_instance.web",
        "terraform fmt -check",
        "terraform fmt -check -diff -recursive",
        "terraform fmt -write=false",
        // others
        "snap list",
        "snap info core",
        "snap version",
        "flatpak list",
        "flatpak info org.x.App",
        "brew list",
        "brew info wget",
        "brew --version",
        "brew config",
        "brew deps wget",
        "brew leaves",
        "gem list",
        "gem --version",
        "gem env",
        "gem contents rake",
        "conda list",
        "conda info",
        "conda env list",
        "mamba list",
        "make --version",
        "cmake --version",
        "ninja --version",
        "pytest --version",
        "mvn -v",
    ];

    const NOT_MATCH: &[&str] = &[
        // apt
        "apt install ripgrep",
        "apt remove bash",
        "apt update",
        "apt upgrade",
        "apt full-upgrade",
        "apt autoremove",
        "apt edit-sources",
        "apt changelog bash",
        "apt -o APT::Update::Pre-Invoke::=touch list",
        "apt -c evil.conf list",
        "apt-cache gencaches",
        "apt-cache -p x.bin show bash",
        "apt-get install x",
        "apt-get update",
        "apt-get source bash",
        "aptitude install x",
        // dpkg
        "dpkg -i x.deb",
        "dpkg -i x.deb --log=-l",
        "dpkg --log=-l -l",
        "dpkg -r bash",
        "dpkg -P bash",
        "dpkg --purge bash",
        "dpkg --configure -a",
        "dpkg --unpack x.deb",
        "dpkg --set-selections",
        "dpkg --clear-avail",
        "dpkg -x x.deb out",
        "dpkg -li x.deb",
        "dpkg --install x.deb",
        "dpkg-query --load-avail --bogus",
        // rpm
        "rpm -i x.rpm",
        "rpm -ivh x.rpm",
        "rpm -U x.rpm",
        "rpm -F x.rpm",
        "rpm -e bash",
        "rpm --install x.rpm",
        "rpm --erase bash",
        "rpm --import key.asc",
        "rpm --rebuilddb",
        "rpm --setperms bash",
        "rpm --eval '%{lua: os.execute(\"x\")}'",
        "rpm -qa --dbpath /tmp",
        // pip
        "pip install requests",
        "pip install -e .",
        "pip uninstall -y requests",
        "pip download requests",
        "pip wheel .",
        "pip list --outdated",
        "pip list -o",
        "pip list -u",
        "pip list --log F",
        "pip list --log-file=F",
        "pip --log F list",
        "pip config set global.index-url x",
        "pip config unset x",
        "pip config edit",
        "pip cache purge",
        "pip cache remove x",
        "pip index versions requests",
        "pip search x",
        "pip --exists-action=w list",
        "pip --python /tmp/x list",
        // npm
        "npm install",
        "npm i lodash",
        "npm ci",
        "npm run build",
        "npm run-script test",
        "npm start",
        "npm test",
        "npm t",
        "npm exec eslint",
        "npm x eslint",
        "npm update",
        "npm uninstall lodash",
        "npm publish",
        "npm link",
        "npm pack",
        "npm init",
        "npm rebuild",
        "npm prune",
        "npm dedupe",
        "npm config set registry x",
        "npm config delete x",
        "npm config edit",
        "npm version patch",
        "npm version 2.0.0",
        "npm view lodash",
        "npm info lodash",
        "npm outdated",
        "npm search x",
        "npm audit",
        "npm audit fix",
        "npm doctor",
        "npm ping",
        "npm ls --logs-dir=/tmp/x",
        "npm lint",
        "npx eslint .",
        "npx -y cowsay",
        "yarn",
        "yarn install",
        "yarn run build",
        "yarn add lodash",
        "yarn exec x",
        "pnpm install",
        "pnpm exec x",
        "pnpm dlx x",
        // cargo
        "cargo metadata",
        "cargo metadata --format-version 1",
        "cargo build",
        "cargo check",
        "cargo test",
        "cargo run",
        "cargo bench",
        "cargo clippy",
        "cargo doc",
        "cargo install ripgrep",
        "cargo fix",
        "cargo rustc",
        "cargo fmt",
        "cargo add serde",
        "cargo remove serde",
        "cargo update",
        "cargo generate-lockfile",
        "cargo new x",
        "cargo init",
        "cargo clean",
        "cargo vendor",
        "cargo package",
        "cargo publish",
        "cargo search serde",
        "cargo info serde",
        "cargo --config build.rustc-wrapper=/tmp/x tree",
        "cargo tree --config build.rustc-wrapper=/tmp/x",
        "cargo tree --config=x",
        "cargo -Z unstable-options tree",
        "cargo tree -Zx",
        "cargo -C /tmp tree",
        "cargo tree --bogus",
        "cargo b",
        "cargo xtask",
        "cargo foo",
        "rustc main.rs",
        "rustc -o x main.rs",
        "rustc --print sysroot -C link-arg=x main.rs",
        "rustup update",
        "rustup default nightly",
        "rustup install stable",
        "rustup target add wasm32-unknown-unknown",
        "rustup run stable cargo build",
        "rustup self uninstall",
        "rustup doc",
        // go
        "go build",
        "go run .",
        "go test ./...",
        "go vet ./...",
        "go generate",
        "go install x@latest",
        "go get x",
        "go mod tidy",
        "go mod download",
        "go list ./...",
        "go list -m all",
        "go env -w GOFLAGS=-x",
        "go env -u GOFLAGS",
        "go version -toolexec=x",
        "go fmt ./...",
        "go clean -cache",
        "go tool pprof",
        // docker
        "docker run alpine",
        "docker run --rm -v /:/host alpine",
        "docker exec web sh",
        "docker rm web",
        "docker rmi alpine",
        "docker stop web",
        "docker kill web",
        "docker build .",
        "docker pull alpine",
        "docker push x",
        "docker cp web:/etc/passwd .",
        "docker create alpine",
        "docker start web",
        "docker restart web",
        "docker compose up -d",
        "docker compose down",
        "docker compose config -o out.yml",
        "docker compose config --output=out.yml",
        "docker system prune -a",
        "docker image prune",
        "docker volume rm data",
        "docker network create x",
        "docker -H tcp://x.example:2375 ps",
        "docker --host=ssh://x ps",
        "docker --context prod ps",
        "docker --config /tmp/x ps",
        "docker ps --bogus",
        "docker login",
        "docker save -o x.tar alpine",
        "docker image save alpine",
        "podman run alpine",
        // kubectl
        "kubectl exec -it web -- sh",
        "kubectl get pods",
        "kubectl get pods -A -o wide",
        "kubectl get deploy -n kube-system -o yaml",
        "kubectl get pods -l app=web --sort-by=.metadata.name",
        "kubectl describe pod web",
        "kubectl logs web",
        "kubectl logs -f web -c app --tail=100",
        "kubectl top pods",
        "kubectl explain pods.spec",
        "kubectl api-resources",
        "kubectl api-versions",
        "kubectl cluster-info",
        "helm list -A",
        "helm status web",
        "helm get values web",
        "helm history web",
        "kubectl apply -f x.yaml",
        "kubectl delete pod web",
        "kubectl edit deploy web",
        "kubectl create ns x",
        "kubectl patch deploy web -p x",
        "kubectl replace -f x",
        "kubectl scale deploy web --replicas=0",
        "kubectl rollout restart deploy web",
        "kubectl cp web:/x .",
        "kubectl port-forward web 8080",
        "kubectl proxy",
        "kubectl drain node1",
        "kubectl cordon node1",
        "kubectl label pod web x=y",
        "kubectl annotate pod web x=y",
        "kubectl config use-context prod",
        "kubectl config set-context x",
        "kubectl cluster-info dump",
        "kubectl --kubeconfig /tmp/k get pods",
        "kubectl get pods --kubeconfig=/tmp/k",
        "kubectl foo",
        "kubectl run x --image=alpine",
        "helm install x ./chart",
        "helm upgrade x ./chart",
        "helm uninstall x",
        "helm repo add x https://x.example",
        "helm repo update",
        "helm rollback x 1",
        // terraform
        "terraform plan",
        "terraform apply",
        "terraform init",
        "terraform destroy",
        "terraform import x y",
        "terraform validate",
        "terraform fmt",
        "terraform fmt -recursive",
        "terraform state rm x",
        "terraform -chdir=/tmp show",
        "terraform console",
        // others
        "snap install x",
        "snap remove x",
        "snap find x",
        "flatpak install x",
        "flatpak run x",
        "brew install wget",
        "brew upgrade",
        "brew outdated",
        "gem install rake",
        "gem uninstall rake",
        "conda install x",
        "conda create -n x",
        "conda run -n x python",
        "make",
        "make -n",
        "make --dry-run",
        "make build",
        "make -C src",
        "gmake all",
        "cmake ..",
        "cmake --build .",
        "ninja",
        "meson setup build",
        "bazel build //...",
        "mvn package",
        "gradle build",
        "gradlew test",
        "ant",
        "pytest",
        "pytest -q tests",
        "tox",
        "nox",
        "rake",
        "just",
        "task build",
    ];

    #[test]
    fn read_only_forms_and_others() {
        check(MATCH, NOT_MATCH);
    }

    #[test]
    fn reasons_name_the_form() {
        assert!(reasons("dpkg -i x.deb --log=-l").contains("`-i`"));
        assert!(reasons("cargo metadata").contains("rustc-wrapper"));
        assert!(reasons("cargo tree --config x=y").contains("`--config`"));
        assert!(reasons("pip list --log F").contains("`--log`"));
        assert!(reasons("npm run build").contains("`npm run"));
        assert!(reasons("make -n").contains("build scripts"));
        assert!(reasons("docker -H tcp://x ps").contains("`-H`"));
        assert!(reasons("terraform fmt").contains("rewrites"));
    }

    #[test]
    fn categories() {
        let category = |line: &str| judge(line).steps[0].category;
        assert_eq!(category("npm view lodash"), Category::Network);
        assert_eq!(category("pip list --outdated"), Category::Network);
        assert_eq!(category("cargo search serde"), Category::Network);
        assert_eq!(category("cargo clean"), Category::Delete);
        assert_eq!(category("cargo build"), Category::Exec);
        assert_eq!(category("apt install x"), Category::Privileged);
        assert_eq!(category("npm version patch"), Category::Write);
        assert_eq!(category("go env -w X=1"), Category::Write);
        assert_eq!(category("docker ps"), Category::Read);
    }
}
