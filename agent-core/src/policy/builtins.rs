//! The category of every builtin command of the embedded engine.

use super::Category;

/// Which of a builtin's positional arguments are its targets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Targets {
    /// No targets worth showing (pure computation, system queries).
    None,
    /// Every positional path / glob argument (`rm a b`, `open f`, `mkdir d`).
    Paths,
    /// Sources are read, the last argument is written (`cp a b dir`, `mv`).
    CopyLike,
    /// The first positional argument is a URL; the target is its host.
    Url,
}

/// How the policy treats one builtin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BuiltinClass {
    /// What the builtin does to the machine.
    pub category: Category,
    /// Which positional arguments name what it acts on.
    pub targets: Targets,
    /// Never available to the agent, with the reason (`exec` would replace
    /// the plugin process, `input` reads a terminal the agent does not own).
    pub forbidden: Option<&'static str>,
}

impl BuiltinClass {
    /// An available builtin of `category` acting on `targets`.
    pub const fn new(category: Category, targets: Targets) -> BuiltinClass {
        BuiltinClass {
            category,
            targets,
            forbidden: None,
        }
    }

    /// A builtin that never runs for the agent, whatever the policy says.
    pub const fn forbidden(
        category: Category,
        targets: Targets,
        reason: &'static str,
    ) -> BuiltinClass {
        BuiltinClass {
            category,
            targets,
            forbidden: Some(reason),
        }
    }

    /// Pure computation, language keywords and system queries.
    pub const fn read() -> BuiltinClass {
        BuiltinClass::new(Category::Read, Targets::None)
    }

    /// Reads the files or directories named by its positional arguments.
    pub const fn read_paths() -> BuiltinClass {
        BuiltinClass::new(Category::Read, Targets::Paths)
    }

    /// Creates or changes the files named by its positional arguments.
    pub const fn write_paths() -> BuiltinClass {
        BuiltinClass::new(Category::Write, Targets::Paths)
    }
}

const PLUGIN_REASON: &str = "`plugin` commands load native code into the shell";

/// The class of the builtin named `name` (as `decl.name()` spells it,
/// e.g. `"http post"`), or `None` for a name this table does not know.
pub fn classify_builtin(name: &str) -> Option<BuiltinClass> {
    use Category::{Delete, Exec, Network, Process, Read, Unknown, Write};

    let class = match name {
        // ---- Read: the language itself (keywords, definitions, modules,
        // overlays, control flow, attributes, errors). `use` and `overlay
        // use` read modules at parse time; the parsed code is planned too.
        "alias"
        | "attr"
        | "attr category"
        | "attr complete"
        | "attr complete external"
        | "attr deprecated"
        | "attr example"
        | "attr search-terms"
        | "break"
        | "const"
        | "continue"
        | "def"
        | "do"
        | "export"
        | "export alias"
        | "export const"
        | "export def"
        | "export extern"
        | "export module"
        | "export use"
        | "extern"
        | "for"
        | "hide"
        | "if"
        | "let"
        | "loop"
        | "match"
        | "module"
        | "mut"
        | "overlay"
        | "overlay hide"
        | "overlay list"
        | "overlay new"
        | "overlay use"
        | "return"
        | "try"
        | "unlet"
        | "use"
        | "while"
        | "error"
        | "error make"
        | "ignore"
        | "echo"
        | "collect"
        | "describe"
        | "exit" => BuiltinClass::read(),

        // ---- Read: removed commands that only return an error.
        "date format" | "let-env" => BuiltinClass::read(),

        // ---- Read: environment of the session (a runtime guard strips
        // dangerous variables).
        "with-env" | "load-env" | "hide-env" | "export-env" => BuiltinClass::read(),

        // ---- Read: filters, table operations and output (our `print`
        // writes to the session, not to a terminal).
        "all" | "any" | "append" | "chunk-by" | "chunks" | "columns" | "combinations"
        | "compact" | "default" | "difference" | "drop" | "drop column" | "drop nth" | "each"
        | "enumerate" | "every" | "filter" | "find" | "first" | "flatten" | "get" | "group-by"
        | "headers" | "insert" | "interleave" | "intersect" | "is-empty" | "is-not-empty"
        | "items" | "join" | "last" | "length" | "lines" | "merge" | "merge deep" | "move"
        | "par-each" | "peek" | "permutations" | "prepend" | "reduce" | "reject" | "rename"
        | "reverse" | "select" | "shuffle" | "skip" | "skip until" | "skip while" | "slice"
        | "sort" | "sort-by" | "split list" | "take" | "take until" | "take while" | "tee"
        | "transpose" | "union" | "uniq" | "uniq-by" | "update" | "upsert" | "values" | "where"
        | "window" | "wrap" | "zip" | "semver" | "semver bump" | "histogram" | "grid" | "table"
        | "print" => BuiltinClass::read(),

        // ---- Read: matrices.
        "matrix" | "matrix add" | "matrix get-col" | "matrix get-row" | "matrix identity"
        | "matrix map" | "matrix max" | "matrix mean" | "matrix multiply" | "matrix reduce"
        | "matrix reshape" | "matrix scale" | "matrix set-col" | "matrix set-row"
        | "matrix subtract" | "matrix sum" | "matrix transpose" | "matrix zeros"
        | "matrix into-nu" => BuiltinClass::read(),

        // ---- Read: strings, text parsing and formatting.
        "char" | "detect" | "detect columns" | "detect type" | "format" | "format date"
        | "format duration" | "format filesize" | "parse" | "split" | "split cell-path"
        | "split chars" | "split column" | "split row" | "split words" | "str"
        | "str capitalize" | "str contains" | "str distance" | "str downcase" | "str ends-with"
        | "str escape-regex" | "str expand" | "str index-of" | "str join" | "str length"
        | "str lowercase" | "str replace" | "str reverse" | "str starts-with" | "str stats"
        | "str substring" | "str trim" | "str upcase" | "str uppercase" | "fill" | "ansi"
        | "ansi link" | "ansi strip" => BuiltinClass::read(),

        // ---- Read: conversions and data formats (`into sqlite` writes a
        // file and is below).
        "into" | "into binary" | "into bool" | "into cell-path" | "into datetime"
        | "into duration" | "into filesize" | "into float" | "into glob" | "into int"
        | "into matrix" | "into record" | "into semver" | "into semver-range" | "into string"
        | "into value" | "from" | "from csv" | "from json" | "from kdl" | "from md"
        | "from msgpack" | "from msgpackz" | "from nuon" | "from ods" | "from ssv"
        | "from toml" | "from tsv" | "from xlsx" | "from xml" | "from yaml" | "from yml" | "to"
        | "to csv" | "to json" | "to kdl" | "to md" | "to msgpack" | "to msgpackz" | "to nuon"
        | "to text" | "to toml" | "to tsv" | "to txt" | "to xml" | "to yaml" | "to yml"
        | "decode" | "decode base32" | "decode base32hex" | "decode base64" | "decode hex"
        | "encode" | "encode base32" | "encode base32hex" | "encode base64" | "encode hex" => {
            BuiltinClass::read()
        }

        // ---- Read: bytes, math, hashes, random values, dates, generators.
        "bytes" | "bytes add" | "bytes at" | "bytes build" | "bytes collect"
        | "bytes ends-with" | "bytes index-of" | "bytes length" | "bytes remove"
        | "bytes replace" | "bytes reverse" | "bytes split" | "bytes starts-with" | "math"
        | "math abs" | "math avg" | "math cbrt" | "math ceil" | "math floor" | "math log"
        | "math max" | "math median" | "math min" | "math mode" | "math product" | "math round"
        | "math sqrt" | "math stddev" | "math sum" | "math variance" | "hash" | "hash md5"
        | "hash sha256" | "random" | "random binary" | "random bool" | "random chars"
        | "random float" | "random int" | "random pass" | "random uuid" | "date"
        | "date from-human" | "date humanize" | "date list-timezone" | "date now"
        | "date to-timezone" | "cal" | "generate" | "seq" | "seq char" | "seq date" => {
            BuiltinClass::read()
        }

        // ---- Read: paths and URLs as values (`path exists` / `path type`
        // only look at metadata of their input).
        "path" | "path basename" | "path dirname" | "path exists" | "path expand" | "path join"
        | "path parse" | "path relative-to" | "path self" | "path split" | "path type" | "url"
        | "url build-query" | "url decode" | "url encode" | "url join" | "url parse"
        | "url split-query" => BuiltinClass::read(),

        // ---- Read: system and terminal queries, waiting. `port` only binds
        // a free local port for a moment to report its number.
        "ps" | "sys" | "sys cpu" | "sys disks" | "sys host" | "sys mem" | "sys net"
        | "sys temp" | "sys users" | "uname" | "whoami" | "is-admin" | "which" | "version"
        | "is-terminal" | "is-redirected" | "term" | "term size" | "sleep" | "port"
        | "complete" => BuiltinClass::read(),
        // Windows only: reads the registry.
        "registry" | "registry query" => BuiltinClass::read(),

        // ---- Read: help, engine introspection, debugging, configuration
        // as a value. `inspect` writes a table to stderr.
        "help"
        | "help aliases"
        | "help commands"
        | "help escapes"
        | "help externs"
        | "help modules"
        | "help operators"
        | "help pipe-and-redirect"
        | "tutor"
        | "scope"
        | "scope aliases"
        | "scope commands"
        | "scope engine-stats"
        | "scope externs"
        | "scope modules"
        | "scope variables"
        | "ast"
        | "debug"
        | "debug env"
        | "debug experimental-options"
        | "debug info"
        | "debug profile"
        | "explain"
        | "inspect"
        | "metadata"
        | "metadata access"
        | "metadata set"
        | "timeit"
        | "view"
        | "view blocks"
        | "view files"
        | "view ir"
        | "view source"
        | "view span"
        | "config"
        | "config flatten"
        | "config use-colors" => BuiltinClass::read(),

        // ---- Read: the in-memory database of `stor`, and database schemas.
        // `stor import` reads the file named by `--file-name` (a flag, not
        // a positional target).
        "stor" | "stor create" | "stor delete" | "stor import" | "stor insert" | "stor open"
        | "stor reset" | "stor update" | "query" | "schema" => BuiltinClass::read(),

        // ---- Read: background jobs of this engine, and the messages
        // between them.
        "job" | "job describe" | "job flush" | "job id" | "job list" | "job recv" | "job send" => {
            BuiltinClass::read()
        }

        // ---- Read: the in-memory file index (`idx init` scans a directory
        // in the background; the others query that index).
        "idx" | "idx dirs" | "idx drop" | "idx files" | "idx find" | "idx search"
        | "idx status" | "idx watch" => BuiltinClass::read(),

        // ---- Read the files or directories named by positional arguments.
        // `source` / `source-env` read a script at parse time.
        "ls" | "open" | "glob" | "du" | "cd" | "nu-check" | "source" | "source-env"
        | "idx init" => BuiltinClass::read_paths(),

        // ---- Write: create or change files.
        "save" | "mkdir" | "touch" | "mktemp" | "into sqlite" => BuiltinClass::write_paths(),
        "cp" | "mv" => BuiltinClass::new(Write, Targets::CopyLike),
        // The file is named by `--file-name`, not by a positional argument.
        "stor export" => BuiltinClass::new(Write, Targets::None),
        // Arbitrary SQL on the database of its input: `UPDATE`/`DELETE` on
        // an opened file, `VACUUM INTO` / `ATTACH` create files anywhere.
        "query db" => BuiltinClass::new(Write, Targets::None),

        // ---- Delete.
        "rm" => BuiltinClass::new(Delete, Targets::Paths),

        // ---- Network.
        "http" | "http get" | "http post" | "http put" | "http patch" | "http delete"
        | "http head" | "http options" => BuiltinClass::new(Network, Targets::Url),
        // Reconfigures the shared HTTP client (TLS checks, redirects, a
        // unix socket).
        "http pool" => BuiltinClass::new(Network, Targets::None),
        // Asks GitHub for the latest Nushell release.
        "version check" => BuiltinClass::new(Network, Targets::None),

        // ---- Exec: external programs.
        "run-external" => BuiltinClass::new(Exec, Targets::None),

        // ---- Unknown: which builtin runs, or which script, is decided at
        // run time (`%$name`, `run --full-reparse`).
        "run-internal" => BuiltinClass::new(Unknown, Targets::None),
        "run" => BuiltinClass::new(Unknown, Targets::Paths),

        // ---- Process: signal other processes.
        "kill" | "job kill" => BuiltinClass::new(Process, Targets::None),

        // ---- Forbidden: would take over or outlive the plugin process.
        "exec" => BuiltinClass::forbidden(
            Exec,
            Targets::None,
            "`exec` would replace the plugin process",
        ),
        "ulimit" => BuiltinClass::forbidden(
            Process,
            Targets::None,
            "`ulimit` can change the resource limits of the plugin process",
        ),
        "umask" => BuiltinClass::forbidden(
            Process,
            Targets::None,
            "`umask` can change the file-creation mask of the plugin process",
        ),
        "panic" => BuiltinClass::forbidden(
            Process,
            Targets::None,
            "`panic` would crash the evaluation; use `error make` to fail",
        ),
        "job spawn" => BuiltinClass::forbidden(
            Unknown,
            Targets::None,
            "`job spawn` starts work that outlives the agent's turn",
        ),
        "job unfreeze" => BuiltinClass::forbidden(
            Process,
            Targets::None,
            "`job unfreeze` would take over the terminal",
        ),
        "watch" => BuiltinClass::forbidden(
            Read,
            Targets::Paths,
            "`watch` runs until interrupted and outlives the agent's turn",
        ),

        // ---- Forbidden: a terminal the agent does not own, or the desktop.
        "input" | "input list" | "input listen" => BuiltinClass::forbidden(
            Read,
            Targets::None,
            "`input` reads a terminal the agent does not own",
        ),
        "term query" => BuiltinClass::forbidden(
            Read,
            Targets::None,
            "`term query` reads a terminal the agent does not own",
        ),
        "clear" => BuiltinClass::forbidden(
            Write,
            Targets::None,
            "`clear` writes to a terminal the agent does not own",
        ),
        "start" => BuiltinClass::forbidden(
            Exec,
            Targets::Paths,
            "`start` hands the path to the desktop's opener",
        ),

        // ---- Forbidden: the user's configuration.
        "config nu" | "config env" => BuiltinClass::forbidden(
            Exec,
            Targets::None,
            "`config nu` and `config env` open an editor on the user's configuration",
        ),
        "config reset" => BuiltinClass::forbidden(
            Write,
            Targets::None,
            "`config reset` would rewrite the user's configuration",
        ),

        // ---- Not in the embedded engine today (they live in nu-cli,
        // nu-explore and nu-cmd-plugin); classified so that adding those
        // crates cannot make them silently available.
        "plugin" | "plugin list" => BuiltinClass::forbidden(Read, Targets::None, PLUGIN_REASON),
        "plugin add" | "plugin rm" => BuiltinClass::forbidden(Write, Targets::Paths, PLUGIN_REASON),
        "plugin use" => BuiltinClass::forbidden(Exec, Targets::None, PLUGIN_REASON),
        "plugin stop" => BuiltinClass::forbidden(Process, Targets::None, PLUGIN_REASON),
        "explore" | "explore config" | "explore regex" => BuiltinClass::forbidden(
            Read,
            Targets::None,
            "`explore` is an interactive viewer on a terminal the agent does not own",
        ),
        "keybindings listen" => BuiltinClass::forbidden(
            Read,
            Targets::None,
            "`keybindings listen` reads a terminal the agent does not own",
        ),
        "keybindings" | "keybindings default" | "keybindings list" => BuiltinClass::read(),
        "history" | "history session" => BuiltinClass::read(),
        "history import" => BuiltinClass::forbidden(
            Write,
            Targets::None,
            "`history import` would rewrite the user's history",
        ),

        _ => return None,
    };
    Some(class)
}

#[cfg(test)]
mod tests {
    use nu_protocol::{DeclId, engine::CommandType};

    use super::*;
    use crate::shell::Engine;

    #[test]
    fn every_builtin_is_classified() {
        let state = Engine::standard().state();
        let mut unclassified: Vec<String> = (0..state.num_decls())
            .map(|index| state.get_decl(DeclId::new(index)))
            .filter(|decl| {
                !matches!(
                    decl.command_type(),
                    CommandType::Alias | CommandType::Custom | CommandType::External
                )
            })
            .filter(|decl| classify_builtin(decl.name()).is_none())
            .map(|decl| decl.name().to_string())
            .collect();
        unclassified.sort();
        unclassified.dedup();
        assert!(
            unclassified.is_empty(),
            "{} builtins have no class in policy/builtins.rs: {}",
            unclassified.len(),
            unclassified.join(", ")
        );
    }

    #[test]
    fn the_standard_engine_has_side_effecting_builtins_to_classify() {
        // Guards the test above against an empty engine.
        let state = Engine::standard().state();
        let names: Vec<&str> = (0..state.num_decls())
            .map(|index| state.get_decl(DeclId::new(index)).name())
            .collect();
        for name in [
            "rm",
            "cp",
            "http post",
            "exec",
            "run-external",
            "ls",
            "where",
        ] {
            assert!(names.contains(&name), "{name} missing from the engine");
        }
    }

    fn class(name: &str) -> BuiltinClass {
        match classify_builtin(name) {
            Some(class) => class,
            None => panic!("{name} is not classified"),
        }
    }

    #[test]
    fn file_commands_target_their_paths() {
        assert_eq!(
            class("rm"),
            BuiltinClass::new(Category::Delete, Targets::Paths)
        );
        assert_eq!(
            class("cp"),
            BuiltinClass::new(Category::Write, Targets::CopyLike)
        );
        assert_eq!(
            class("mv"),
            BuiltinClass::new(Category::Write, Targets::CopyLike)
        );
        assert_eq!(
            class("save"),
            BuiltinClass::new(Category::Write, Targets::Paths)
        );
        assert_eq!(
            class("ls"),
            BuiltinClass::new(Category::Read, Targets::Paths)
        );
        assert_eq!(
            class("open"),
            BuiltinClass::new(Category::Read, Targets::Paths)
        );
    }

    #[test]
    fn network_exec_and_dynamic_commands() {
        assert_eq!(
            class("http post"),
            BuiltinClass::new(Category::Network, Targets::Url)
        );
        assert_eq!(
            class("http"),
            BuiltinClass::new(Category::Network, Targets::Url)
        );
        assert_eq!(class("url parse"), BuiltinClass::read());
        assert_eq!(
            class("run-external"),
            BuiltinClass::new(Category::Exec, Targets::None)
        );
        assert_eq!(class("run-internal").category, Category::Unknown);
        assert_eq!(class("query db").category, Category::Write);
        assert_eq!(class("kill").category, Category::Process);
    }

    #[test]
    fn pure_commands_are_read_without_targets() {
        for name in [
            "where",
            "each",
            "str trim",
            "to json",
            "let",
            "print",
            "stor insert",
        ] {
            assert_eq!(class(name), BuiltinClass::read(), "{name}");
        }
    }

    #[test]
    fn forbidden_commands_carry_a_reason() {
        for name in [
            "exec",
            "input",
            "input list",
            "term query",
            "config nu",
            "config reset",
            "start",
            "watch",
            "job spawn",
            "job unfreeze",
            "ulimit",
            "umask",
            "plugin add",
        ] {
            let reason = class(name).forbidden;
            assert!(
                reason.is_some_and(|reason| !reason.is_empty()),
                "{name} should be forbidden"
            );
        }
        assert_eq!(class("exec").category, Category::Exec);
        assert!(class("rm").forbidden.is_none());
    }

    #[test]
    fn unknown_names_have_no_class() {
        assert_eq!(classify_builtin("no such command"), None);
        assert_eq!(classify_builtin(""), None);
        assert_eq!(classify_builtin("RM"), None);
    }
}
