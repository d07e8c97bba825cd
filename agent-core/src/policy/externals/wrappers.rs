//! Wrappers that run another command: env, xargs, timeout, nice, nohup,
//! stdbuf, setsid, flock, watch, script, time, command, ionice, chrt,
//! taskset, unbuffer, caffeinate, and the ones that change root or
//! namespace.
//!
//! Each wrapper's own options are parsed with its getopt rules (all of them
//! stop at the first operand, which starts the inner command); the wrapper
//! step itself is read-only when its options are, and the inner command is
//! judged on its own one level deeper. Commands given as text (`watch
//! 'cmd'`, `flock f -c 'cmd'`, `env -S 'cmd'`) are split and judged too.

use super::{Arg, Call, Category, Grammar, Options, flag as n, optional as o, parse, valued as v};
use crate::policy::code_injection_variable;

/// The grammar of `name` when it belongs to this family.
pub(super) fn grammar(name: &str) -> Option<Grammar> {
    Some(match name {
        "env" => env,
        "xargs" => xargs,
        "timeout" => timeout,
        "nice" => nice,
        "nohup" => nohup,
        "stdbuf" => stdbuf,
        "setsid" => setsid,
        "flock" => flock,
        "watch" => watch,
        "script" => script,
        "time" => time,
        "command" | "builtin" => command,
        "exec" | "eval" => exec_eval,
        "ionice" => ionice,
        "chrt" => chrt,
        "taskset" => taskset,
        "strace" | "ltrace" => tracer,
        "unbuffer" => unbuffer,
        "caffeinate" => caffeinate,
        "chroot" | "unshare" | "nsenter" | "firejail" | "proot" | "bwrap" | "systemd-run"
        | "systemd-nspawn" => another_root,
        _ => return None,
    })
}

/// Whether setting the variable `name` points a program at other
/// configuration or code (see [`crate::shell::redirects_configuration`]);
/// for `env NAME=value cmd`, `PATH` counts too.
pub(crate) fn redirects_configuration(name: &str) -> bool {
    name.eq_ignore_ascii_case("PATH") || crate::shell::redirects_configuration(name)
}

/// Judge the inner command `operands[0] operands[1..]`, if any.
fn look_through(call: &mut Call<'_>, operands: &[Arg]) {
    if let Some((program, args)) = operands.split_first() {
        call.run_inner(program, args);
    }
}

/// A wrapper that only runs its inner command: parse `options`, read, and
/// judge what follows.
fn plain(call: &mut Call<'_>, options: &Options) -> Option<Vec<Arg>> {
    let parsed = call.parse(options)?;
    let operands: Vec<Arg> = parsed.operands().cloned().collect();
    call.read([]);
    look_through(call, &operands);
    Some(operands)
}

/// `env [-i0v] [-u NAME] [-C DIR] [-S STRING] [NAME=VALUE]... [COMMAND [ARG]...]`.
const ENV: Options = Options::posix(
    "i0u:C:S:v",
    &[
        n("ignore-environment"),
        n("null"),
        v("unset"),
        v("chdir"),
        v("split-string"),
        n("debug"),
        o("default-signal"),
        o("ignore-signal"),
        o("block-signal"),
        n("list-signal-handling"),
        n("help"),
        n("version"),
    ],
);

/// `^env`: assignments are checked (code-injection variables block,
/// configuration-redirecting ones ask), `-S` is split and judged as env's
/// arguments, `-C` with a command asks (the command's paths would be
/// relative to another directory, which its own judgement cannot see).
fn env(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&ENV) else {
        return;
    };
    let operands: Vec<Arg> = parsed.operands().cloned().collect();
    let assignments = operands
        .iter()
        .take_while(|a| a.literal().is_some_and(|t| t.contains('=')))
        .count();
    call.read([]);
    for assignment in &operands[..assignments] {
        let name = assignment.text().split('=').next().unwrap_or("");
        if code_injection_variable(name) {
            call.block(
                Category::Exec,
                format!("sets {name}, which makes programs load or run other code"),
            );
        } else if redirects_configuration(name) {
            call.not_read_only(
                Category::Exec,
                format!("sets {name}, which points the program at other configuration or code"),
            );
        }
    }
    let command = &operands[assignments..];
    let split = parsed.value("-S").or(parsed.value("--split-string"));
    if let Some(dir) = parsed.value("-C").or(parsed.value("--chdir"))
        && (split.is_some() || !command.is_empty())
    {
        return call.not_read_only(Category::Exec,
            format!(
                "`-C {}` runs the command in another directory, where its relative paths cannot be judged",
                dir.text()
            ),
        );
    }
    if let Some(split) = split {
        let Some(text) = split.literal() else {
            return call.not_read_only(
                Category::Exec,
                "`-S` splits a string only known when it runs",
            );
        };
        let words = crate::policy::shell_words::split(text);
        if words.opaque
            || words.commands.len() != 1
            || words.commands.iter().any(|c| !c.writes.is_empty())
            || text.contains("${")
        {
            return call.not_read_only(Category::Exec,
                "`-S` string is not one plain command (it has variables, substitutions, redirections or several commands)",
            );
        }
        let mut args: Vec<Arg> = words
            .commands
            .iter()
            .flat_map(|c| c.words.iter())
            .map(|w| Arg::Literal(w.clone()))
            .collect();
        args.extend(command.iter().cloned());
        // The split words are env's own arguments again (options,
        // assignments, then the command).
        call.run_inner(&Arg::Literal("env".into()), &args);
        return;
    }
    if command.is_empty() {
        // Prints the environment.
        return;
    }
    look_through(call, command);
}

/// `xargs`: `-p` and `-o` prompt on the terminal; the inner command gets
/// the input as extra arguments (one dynamic operand).
const XARGS: Options = Options::posix(
    "0a:d:E:e::I:i::L:l::n:P:rs:txpo",
    &[
        n("null"),
        v("arg-file"),
        v("delimiter"),
        o("eof"),
        o("replace"),
        o("max-lines"),
        v("max-args"),
        v("max-procs"),
        v("max-chars"),
        n("no-run-if-empty"),
        n("verbose"),
        n("exit"),
        v("process-slot-var"),
        n("show-limits"),
        n("help"),
        n("version"),
        o("interactive"),
        o("open-tty"),
    ],
);

fn xargs(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&XARGS) else {
        return;
    };
    for (option, _) in parsed.opts() {
        if matches!(option, "-p" | "--interactive" | "-o" | "--open-tty") {
            return call.not_read_only(
                Category::Exec,
                format!("option `{option}` gives the command the terminal"),
            );
        }
    }
    let files: Vec<Arg> = parsed
        .opts()
        .filter(|(name, _)| matches!(*name, "-a" | "--arg-file"))
        .filter_map(|(_, value)| value.cloned())
        .collect();
    call.read(&files);
    // `-I R` / `-i[R]` / `--replace[=R]`: each argument holding R is
    // input, only known when it runs (`xargs -I{} git -C {} log`).
    let replace: Vec<String> = parsed
        .opts()
        .filter(|(name, _)| matches!(*name, "-I" | "-i" | "--replace"))
        .map(|(_, value)| {
            value
                .map(|v| v.text().to_string())
                .filter(|v| !v.is_empty())
                .unwrap_or_else(|| "{}".into())
        })
        .collect();
    let mut operands: Vec<Arg> = parsed
        .operands()
        .enumerate()
        .map(|(i, arg)| match arg {
            // An assignment (`NAME=R`) keeps its name, which is judged.
            Arg::Literal(text)
                if i > 0
                    && replace.iter().any(|r| {
                        text.find(r.as_str())
                            .is_some_and(|at| !text[..at].contains('='))
                    }) =>
            {
                Arg::Dynamic(format!("<xargs input in {text}>"))
            }
            other => other.clone(),
        })
        .collect();
    if operands.is_empty() {
        operands.push(Arg::Literal("echo".into()));
    }
    operands.push(Arg::Dynamic("<xargs input>".into()));
    look_through(call, &operands);
}

const TIMEOUT: Options = Options::posix(
    "s:k:v",
    &[
        v("signal"),
        v("kill-after"),
        n("preserve-status"),
        n("foreground"),
        n("verbose"),
        n("help"),
        n("version"),
    ],
);

/// `timeout [options] DURATION COMMAND...`.
fn timeout(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&TIMEOUT) else {
        return;
    };
    let operands: Vec<Arg> = parsed.operands().skip(1).cloned().collect();
    call.read([]);
    look_through(call, &operands);
}

const NICE: Options =
    Options::posix("n:", &[v("adjustment"), n("help"), n("version")]).with_numeric();

/// `nice [-n N] [COMMAND...]`; no command prints the niceness.
fn nice(call: &mut Call<'_>) {
    plain(call, &NICE);
}

const NOHUP: Options = Options::posix("", &[n("help"), n("version")]);

/// `nohup COMMAND...`: writes `nohup.out` only when its output is a
/// terminal, which it never is here.
fn nohup(call: &mut Call<'_>) {
    plain(call, &NOHUP);
}

const STDBUF: Options = Options::posix(
    "i:o:e:",
    &[v("input"), v("output"), v("error"), n("help"), n("version")],
);

fn stdbuf(call: &mut Call<'_>) {
    plain(call, &STDBUF);
}

const SETSID: Options = Options::posix(
    "cfw",
    &[n("ctty"), n("fork"), n("wait"), n("help"), n("version")],
);

fn setsid(call: &mut Call<'_>) {
    plain(call, &SETSID);
}

const FLOCK: Options = Options::posix(
    "sxenuw:E:oFc:",
    &[
        n("shared"),
        n("exclusive"),
        n("nonblock"),
        n("nb"),
        n("unlock"),
        v("timeout"),
        v("wait"),
        v("conflict-exit-code"),
        n("close"),
        n("no-fork"),
        v("command"),
        n("verbose"),
        n("help"),
        n("version"),
    ],
);

/// `flock [options] FILE COMMAND...`, `flock [options] FILE -c SCRIPT`:
/// creates its lock file; the command or script is judged too. As in
/// flock itself, a `-c`/`--command` right after the file is the script.
fn flock(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&FLOCK) else {
        return;
    };
    let operands: Vec<Arg> = parsed.operands().cloned().collect();
    let Some((file, command)) = operands.split_first() else {
        return call.read([]);
    };
    let descriptor = file
        .literal()
        .is_some_and(|t| t.chars().all(|c| c.is_ascii_digit()));
    call.read([]);
    if !descriptor {
        call.writes(file);
        call.not_read_only(
            Category::Write,
            format!("creates and locks the file {}", file.text()),
        );
    }
    let script = match command.first().and_then(Arg::literal) {
        Some("-c" | "--command") => Some(
            command
                .get(1)
                .cloned()
                .unwrap_or(Arg::Literal(String::new())),
        ),
        _ => parsed.value("-c").or(parsed.value("--command")).cloned(),
    };
    match script {
        Some(script) => call.run_shell_script(&script),
        None => look_through(call, command),
    }
}

const WATCH: Options = Options::posix(
    "bcCd::egn:ptwxq:rs",
    &[
        n("beep"),
        n("color"),
        n("no-color"),
        o("differences"),
        n("errexit"),
        n("chgexit"),
        v("interval"),
        n("precise"),
        n("no-title"),
        n("no-wrap"),
        n("exec"),
        v("equexit"),
        n("no-rerun"),
        n("shotsdir"),
        n("help"),
        n("version"),
    ],
);

/// `watch [options] COMMAND...`: the arguments are joined and run by
/// `sh -c`, so they are judged as a shell script; `-x` runs them directly.
fn watch(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&WATCH) else {
        return;
    };
    if parsed.has("--shotsdir") {
        return call.not_read_only(Category::Write, "option `--shotsdir` writes screenshots");
    }
    let operands: Vec<Arg> = parsed.operands().cloned().collect();
    call.read([]);
    if operands.is_empty() {
        return;
    }
    if parsed.has("-x") || parsed.has("--exec") {
        return look_through(call, &operands);
    }
    let script = if operands.iter().all(|a| a.literal().is_some()) {
        Arg::Literal(operands.iter().map(Arg::text).collect::<Vec<_>>().join(" "))
    } else {
        Arg::Dynamic("<watch command>".into())
    };
    call.run_shell_script(&script);
}

const SCRIPT: Options = Options::gnu(
    "ac:eE:fqt::T:I:O:B:m:",
    &[
        n("append"),
        v("command"),
        n("return"),
        v("echo"),
        n("flush"),
        n("force"),
        n("quiet"),
        o("timing"),
        v("log-timing"),
        v("log-in"),
        v("log-out"),
        v("log-io"),
        v("logging-format"),
        v("output-limit"),
        n("help"),
        n("version"),
    ],
);

/// `script [FILE] [-c CMD]`: always writes the typescript file.
fn script(call: &mut Call<'_>) {
    let parsed = parse(&SCRIPT, call.args).ok();
    let file = parsed
        .as_ref()
        .and_then(|p| p.operands().next().cloned())
        .unwrap_or(Arg::Literal("typescript".into()));
    call.writes(&file);
    call.not_read_only(
        Category::Write,
        format!("writes everything the session shows to {}", file.text()),
    );
    match parsed {
        Some(parsed) => {
            if let Some(command) = parsed.value("-c").or(parsed.value("--command")) {
                call.run_shell_script(command);
            }
        }
        None => call.not_read_only(Category::Exec, "its options could not be read"),
    }
}

const TIME: Options = Options::posix(
    "o:af:pvqV",
    &[
        v("output"),
        n("append"),
        v("format"),
        n("portability"),
        n("verbose"),
        n("quiet"),
        n("help"),
        n("version"),
    ],
);

/// GNU `time [options] COMMAND...`; `-o FILE` writes the timings to FILE.
fn time(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&TIME) else {
        return;
    };
    call.read([]);
    if let Some(file) = parsed.value("-o").or(parsed.value("--output")) {
        call.writes(file);
        call.not_read_only(
            Category::Write,
            format!("`-o {}` writes the timings to a file", file.text()),
        );
    }
    let operands: Vec<Arg> = parsed.operands().cloned().collect();
    look_through(call, &operands);
}

const COMMAND: Options = Options::posix("pvV", &[]);

/// `command -v NAME` / `-V` describe; `command [-p] PROGRAM ARGS` runs it.
fn command(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&COMMAND) else {
        return;
    };
    call.read([]);
    if parsed.has("-v") || parsed.has("-V") {
        return;
    }
    let operands: Vec<Arg> = parsed.operands().cloned().collect();
    look_through(call, &operands);
}

/// `exec` and `eval` run code given as text: they ask, and what they run
/// is judged too so that a blocked command inside still blocks.
fn exec_eval(call: &mut Call<'_>) {
    call.not_read_only(
        Category::Exec,
        format!("`{}` runs code given as text", call.name),
    );
    if call.name == "eval" {
        let script = if call.args.iter().all(|a| a.literal().is_some()) {
            Arg::Literal(
                call.args
                    .iter()
                    .map(Arg::text)
                    .collect::<Vec<_>>()
                    .join(" "),
            )
        } else {
            Arg::Dynamic("<eval text>".into())
        };
        call.run_shell_script(&script);
    } else {
        let args = call.args.to_vec();
        look_through(call, &args);
    }
}

const IONICE: Options = Options::posix(
    "c:n:p:P:u:tVh",
    &[
        v("class"),
        v("classdata"),
        v("pid"),
        v("pgid"),
        v("uid"),
        n("ignore"),
        n("help"),
        n("version"),
    ],
);

/// `ionice [-c CLASS] [-n LEVEL] COMMAND...`; `-p`, `-P`, `-u` change
/// other processes.
fn ionice(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&IONICE) else {
        return;
    };
    if let Some((option, _)) = parsed
        .opts()
        .find(|(name, _)| matches!(*name, "-p" | "-P" | "-u" | "--pid" | "--pgid" | "--uid"))
    {
        return call.not_read_only(
            Category::Process,
            format!("option `{option}` changes the I/O priority of other processes"),
        );
    }
    let operands: Vec<Arg> = parsed.operands().cloned().collect();
    call.read([]);
    look_through(call, &operands);
}

const CHRT: Options = Options::posix(
    "abdefiorRmpvT:P:D:hV",
    &[
        n("all-tasks"),
        n("batch"),
        n("deadline"),
        n("ext"),
        n("fifo"),
        n("idle"),
        n("other"),
        n("rr"),
        n("reset-on-fork"),
        n("max"),
        n("pid"),
        n("verbose"),
        v("sched-runtime"),
        v("sched-period"),
        v("sched-deadline"),
        n("help"),
        n("version"),
    ],
);

/// `chrt [policy] PRIORITY COMMAND...`, `chrt -m`; `-p` changes another
/// process.
fn chrt(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&CHRT) else {
        return;
    };
    if parsed.has("-p") || parsed.has("--pid") {
        return call.not_read_only(
            Category::Process,
            "option `-p` changes the scheduling of another process",
        );
    }
    let operands: Vec<Arg> = parsed.operands().skip(1).cloned().collect();
    call.read([]);
    look_through(call, &operands);
}

const TASKSET: Options = Options::posix(
    "apcVh",
    &[
        n("all-tasks"),
        n("pid"),
        n("cpu-list"),
        n("help"),
        n("version"),
    ],
);

/// `taskset [-c] MASK COMMAND...`; `-p`/`-a` change another process.
fn taskset(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&TASKSET) else {
        return;
    };
    if let Some((option, _)) = parsed
        .opts()
        .find(|(name, _)| matches!(*name, "-p" | "-a" | "--pid" | "--all-tasks"))
    {
        return call.not_read_only(
            Category::Process,
            format!("option `{option}` changes the CPU affinity of another process"),
        );
    }
    let operands: Vec<Arg> = parsed.operands().skip(1).cloned().collect();
    call.read([]);
    look_through(call, &operands);
}

/// `strace` and `ltrace` trace a program (and `-o` writes the trace).
fn tracer(call: &mut Call<'_>) {
    call.not_read_only(
        Category::Exec,
        format!(
            "`{}` traces a program (and `-o` writes its trace to a file)",
            call.name
        ),
    );
}

const UNBUFFER: Options = Options::posix("p", &[]);

fn unbuffer(call: &mut Call<'_>) {
    plain(call, &UNBUFFER);
}

const CAFFEINATE: Options = Options::posix("disumt:", &[]);

/// `caffeinate [-disum] [-t SECONDS] COMMAND...`; `-w PID` waits for
/// another process and is not listed.
fn caffeinate(call: &mut Call<'_>) {
    plain(call, &CAFFEINATE);
}

/// `chroot`, `unshare`, `nsenter`, `firejail`, `proot`, `bwrap`,
/// `systemd-run`.
fn another_root(call: &mut Call<'_>) {
    call.not_read_only(
        Category::Exec,
        format!(
            "`{}` runs a command in another root or namespace",
            call.name
        ),
    );
}

#[cfg(test)]
mod tests {
    use super::super::examples::{check, floor, judge, reasons};
    use super::redirects_configuration;
    use crate::policy::{Access, Category, Verdict};

    const MATCH: &[&str] = &[
        "env",
        "env -0",
        "env -u PATH",
        "env -i",
        "env LANG=C sort notes.md",
        "env TZ=UTC date",
        "env -i LC_ALL=C ls -la",
        "env -u HOME ls",
        "env -- ls",
        "env --ignore-environment TERM=dumb ls",
        "env -S 'ls -la'",
        "env -S'LC_ALL=C ls'",
        "env -S 'ls -la' src",
        "env -v -u LANG ls",
        "timeout 5",
        "env -C src",
        "xargs",
        "xargs wc -l",
        "xargs -0 ls -la",
        "xargs -n1 -P4 wc -c",
        "xargs -I X cat X",
        "xargs -r -d '\\n' grep -l TODO",
        "xargs -a files.txt wc -l",
        "xargs -- ls",
        "timeout 5 cat notes.md",
        "timeout -s KILL 10s ls",
        "timeout --signal=TERM -k 5 30 ls -la",
        "timeout --preserve-status 1m ps aux",
        "nice ls",
        "nice -n 10 ls",
        "nice -5 ls",
        "nice --adjustment=3 ls",
        "nice",
        "nohup ls",
        "stdbuf -oL ls",
        "stdbuf -o0 -eL cat notes.md",
        "setsid ls",
        "setsid -w ls",
        "watch ls",
        "watch -n 5 'ps aux | grep x'",
        "watch -d -n1 df -h",
        "watch -x ls -la",
        "time ls",
        "time -p ls",
        "time -v ls -la",
        "time -f '%e' ls",
        "command -v git",
        "command -V ls",
        "command ls",
        "builtin ls",
        "ionice -c3 ls",
        "ionice -c 2 -n 7 ls",
        "ionice",
        "chrt -m",
        "chrt -b 0 ls",
        "taskset 0x3 ls",
        "taskset -c 0,1 ls",
        "unbuffer ls",
        "caffeinate -i ls",
        "timeout 5 env LANG=C ls",
        "nice timeout 5 nohup ls",
    ];

    const NOT_MATCH: &[&str] = &[
        // env: commands given as text, assignments that redirect programs.
        "env -S 'touch pwned'",
        "env -S'rm -rf src'",
        "env --split-string='touch x'",
        "env -S 'ls ; touch x'",
        "env -S 'ls ${HOME}'",
        "env -S '-i HOME=/tmp ls'",
        "env rm -rf src",
        "env touch x",
        "env HOME=/tmp git log",
        "env XDG_CONFIG_HOME=/tmp ls",
        "env GIT_TRACE=/tmp/x git status",
        "env PIP_LOG=/tmp/x pip list",
        "env PAGER='touch x' git log",
        "env MANPAGER=x man ls",
        "env npm_config_userconfig=x npm ls",
        "env CARGO_HOME=/tmp cargo tree",
        "env RUSTC_WRAPPER=/tmp/x cargo tree",
        "env PYTHONPATH=. ls",
        "env LD_PRELOAD=/tmp/x.so ls",
        "env BASH_ENV=x ls",
        "env PATH=/tmp/evil ls",
        "env TAR_OPTIONS=--to-command=x tar -tf a.tar",
        "env EDITOR=x ls",
        "env -C /etc cat passwd",
        "env -C /etc -S 'cat passwd'",
        "env -S",
        "env -S 'cat notes.md > out.txt'",
        "env -i -- LD_PRELOAD=x ls",
        "xargs -a files.txt rm",
        "nice -n5 -- rm x",
        "env --chdir=/ ls",
        "env --bogus ls",
        "env -x ls",
        // xargs.
        "xargs rm",
        "xargs -0 rm -f",
        "xargs -p ls",
        "xargs --interactive ls",
        "xargs -o vi",
        "xargs -I X sh -c 'rm X'",
        "xargs sed -i s/a/b/",
        "xargs --bogus ls",
        // timeout, nice, nohup, stdbuf, setsid.
        "timeout 5 rm -rf src",
        "timeout --bogus 5 ls",
        "nice -n 5 rm -rf src",
        "nohup rm x",
        "stdbuf -o0 rm -rf src",
        "setsid rm x",
        // flock.
        "flock lk ls",
        "flock lk -c 'touch pwned'",
        "flock -c 'ls' lk",
        "flock /tmp/lk rm x",
        // watch.
        "watch 'touch x'",
        "watch -n1 rm -rf src",
        "watch ls ';' touch x",
        "watch -x rm x",
        "watch --shotsdir",
        // script.
        "script",
        "script -c ls out.log",
        "script -q /dev/null",
        // time.
        "time -o out.txt ls",
        "time --output=out.txt ls",
        "time --out=F ls",
        "time -ao F ls",
        "time rm x",
        // command, exec, eval.
        "command rm x",
        "exec ls",
        "eval ls",
        "eval 'rm -rf src'",
        // ionice, chrt, taskset.
        "ionice -p 1 -c3",
        "ionice -c3 -p1",
        "ionice -u 1000",
        "chrt -p 5 1234",
        "taskset -p 0x1 1234",
        "taskset -a -p 0x1 1234",
        "taskset 0x3 rm x",
        // tracers and other roots.
        "strace -o F ls",
        "strace ls",
        "ltrace ls",
        "chroot / ls",
        "unshare -r ls",
        "nsenter -t 1 ls",
        "firejail ls",
        "proot ls",
        "bwrap --ro-bind / / ls",
        "systemd-run ls",
    ];

    #[test]
    fn read_only_forms_and_others() {
        check(MATCH, NOT_MATCH);
    }

    #[test]
    fn blocked_inner_commands_and_variables_still_block() {
        for line in [
            "env LD_PRELOAD=/x.so ls",
            "env BASH_ENV=/x ls",
            "env GIT_SSH_COMMAND=x git status",
            "flock lk -c 'reboot'",
            "watch 'mkfs.ext4 /dev/sdb1'",
            "timeout 5 mkfs.ext4 /dev/sdb1",
            "env -S 'env LD_PRELOAD=/x.so ls'",
            "eval 'mkfs.ext4 /dev/sda'",
            "xargs -I X env LD_PRELOAD=X ls",
        ] {
            assert_eq!(floor(&judge(line)), Some(Verdict::Block), "{line}");
        }
    }

    #[test]
    fn reasons_and_targets() {
        assert!(reasons("env HOME=/tmp git log").contains("sets HOME"));
        assert!(reasons("env -C /etc cat passwd").contains("`-C /etc`"));
        assert!(reasons("flock lk ls").contains("lk"));
        assert!(reasons("xargs -p ls").contains("`-p`"));
        let plan = judge("time -o out.txt ls");
        assert_eq!(plan.steps[0].category, Category::Write);
        assert!(
            plan.steps[0]
                .targets
                .iter()
                .any(|t| t.access == Access::Write && t.value == "out.txt")
        );
        let plan = judge("xargs rm");
        assert!(plan.steps.iter().any(|s| s.category == Category::Delete));
        let plan = judge("ionice -p 1 -c3");
        assert_eq!(plan.steps[0].category, Category::Process);
    }

    #[test]
    fn configuration_variables() {
        for name in [
            "HOME",
            "XDG_CONFIG_HOME",
            "GIT_TRACE",
            "PIP_LOG",
            "npm_config_userconfig",
            "CARGO_HOME",
            "PAGER",
            "GIT_PAGER",
            "SYSTEMD_PAGER",
            "PYTHONUSERBASE",
            "LD_PRELOAD",
            // Nobody listed these: the allowlist still catches them.
            "MANROFFOPT",
            "GROFF_BIN_PATH",
            "MAN_DISABLE_SECCOMP",
            "LESSKEYIN",
            "RIPGREP_CONFIG_PATH",
            "SOME_FUTURE_TOOL_CONFIG",
            "lang",
        ] {
            assert!(redirects_configuration(name), "{name}");
        }
        for name in [
            "LANG", "LC_ALL", "LC_TIME", "TZ", "TERM", "COLUMNS", "NO_COLOR", "PWD",
        ] {
            assert!(!redirects_configuration(name), "{name}");
        }
    }
}
