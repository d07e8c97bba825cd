//! System queries: ps, free, journalctl, systemctl, ip, ss, lsof, date,
//! hostname, man and friends. Each program's read-only forms are its
//! option table (and, for the `systemctl`-like tools, its read-only
//! verbs); the forms that set the clock, the host name, the network or the
//! services, or that write files, ask.

use super::{Arg, Call, Grammar, Long, Options, Parsed, Takes, forbidden};
use crate::policy::Category;

/// The grammar of `name` when it belongs to this family.
pub(super) fn grammar(name: &str) -> Option<Grammar> {
    Some(match name {
        "ps" => ps,
        "free" => free,
        "uptime" => uptime,
        "uname" => uname,
        "whoami" | "arch" | "groups" | "lsmod" => names_only,
        "id" => id,
        "w" => w,
        "who" => who,
        "last" | "lastb" => last,
        "lsblk" => lsblk,
        "lscpu" => lscpu,
        "lsusb" => lsusb,
        "lspci" => lspci,
        "nproc" => nproc,
        "printenv" => printenv,
        "date" => date,
        "hostname" => hostname,
        "journalctl" => journalctl,
        "systemctl" => systemctl,
        "ip" => ip,
        "ss" => ss,
        "netstat" => netstat,
        "lsof" => lsof,
        "dmesg" => dmesg,
        "getent" => getent,
        "locale" => locale,
        "localectl" => localectl,
        "cal" | "ncal" => cal,
        "vmstat" => vmstat,
        "iostat" => iostat,
        "mpstat" => mpstat,
        "pidstat" => pidstat,
        "pgrep" => pgrep,
        "pidof" => pidof,
        "top" => top,
        "htop" => htop,
        "sensors" => sensors,
        "nvidia-smi" => nvidia_smi,
        "lsb_release" => lsb_release,
        "hostnamectl" => hostnamectl,
        "timedatectl" => timedatectl,
        "loginctl" => loginctl,
        "blkid" => blkid,
        "findmnt" => findmnt,
        "mount" => mount,
        "ifconfig" | "iwconfig" => ifconfig,
        "nmcli" => nmcli,
        "tput" => tput,
        "stty" => stty,
        "man" => man,
        "whatis" | "apropos" => whatis,
        "info" => info,
        "tldr" => tldr,
        "lsns" => lsns,
        "lslocks" => lslocks,
        "lsipc" => lsipc,
        _ => return None,
    })
}

/// Parse with `options`: a read-only form whose operands are names (of
/// users, units, fields...), not files.
fn query(call: &mut Call<'_>, options: &Options) -> Option<Parsed> {
    let parsed = call.parse(options)?;
    call.read([]);
    Some(parsed)
}

/// The values of the options `names`, in order.
fn values<'p>(parsed: &'p Parsed, names: &[&str]) -> Vec<&'p Arg> {
    parsed
        .opts()
        .filter(|(n, _)| names.contains(n))
        .filter_map(|(_, v)| v)
        .collect()
}

const HELP_VERSION: &[Long] = &[
    Long("help", Takes::Nothing),
    Long("version", Takes::Nothing),
];

/// `whoami`, `arch`, `groups USER...`, `lsmod`: names only.
const NAMES_ONLY: Options = Options::gnu("", HELP_VERSION);

fn names_only(call: &mut Call<'_>) {
    query(call, &NAMES_ONLY);
}

/// procps ps: UNIX options (`-ef`, `-eo pid,comm`), GNU long options
/// (`--sort=-%mem`) and BSD operands (`aux`, `axjf`): every form lists
/// processes.
const PS: Options = Options::gnu(
    "AacdeFfHhjLlMmNnrSTVvwXxyZkC:G:g:O:o:p:q:s:t:U:u:",
    &[
        Long("sort", Takes::Value),
        Long("format", Takes::Value),
        Long("pid", Takes::Value),
        Long("ppid", Takes::Value),
        Long("quick-pid", Takes::Value),
        Long("sid", Takes::Value),
        Long("tty", Takes::Value),
        Long("user", Takes::Value),
        Long("User", Takes::Value),
        Long("group", Takes::Value),
        Long("Group", Takes::Value),
        Long("cols", Takes::Value),
        Long("columns", Takes::Value),
        Long("width", Takes::Value),
        Long("rows", Takes::Value),
        Long("lines", Takes::Value),
        Long("headers", Takes::Nothing),
        Long("no-headers", Takes::Nothing),
        Long("forest", Takes::Nothing),
        Long("cumulative", Takes::Nothing),
        Long("context", Takes::Nothing),
        Long("deselect", Takes::Nothing),
        Long("signames", Takes::Nothing),
        Long("info", Takes::Nothing),
        Long("help", Takes::Optional),
        Long("version", Takes::Nothing),
    ],
);

fn ps(call: &mut Call<'_>) {
    query(call, &PS);
}

/// procps free.
const FREE: Options = Options::gnu(
    "bkmgthlLs:c:wvV",
    &[
        Long("bytes", Takes::Nothing),
        Long("kilo", Takes::Nothing),
        Long("mega", Takes::Nothing),
        Long("giga", Takes::Nothing),
        Long("tera", Takes::Nothing),
        Long("peta", Takes::Nothing),
        Long("kibi", Takes::Nothing),
        Long("mebi", Takes::Nothing),
        Long("gibi", Takes::Nothing),
        Long("tebi", Takes::Nothing),
        Long("pebi", Takes::Nothing),
        Long("human", Takes::Nothing),
        Long("si", Takes::Nothing),
        Long("lohi", Takes::Nothing),
        Long("line", Takes::Nothing),
        Long("total", Takes::Nothing),
        Long("seconds", Takes::Value),
        Long("count", Takes::Value),
        Long("wide", Takes::Nothing),
        Long("committed", Takes::Nothing),
        Long("help", Takes::Nothing),
        Long("version", Takes::Nothing),
    ],
);

fn free(call: &mut Call<'_>) {
    query(call, &FREE);
}

/// procps uptime.
const UPTIME: Options = Options::gnu(
    "prshV",
    &[
        Long("pretty", Takes::Nothing),
        Long("raw", Takes::Nothing),
        Long("since", Takes::Nothing),
        Long("container", Takes::Nothing),
        Long("help", Takes::Nothing),
        Long("version", Takes::Nothing),
    ],
);

fn uptime(call: &mut Call<'_>) {
    query(call, &UPTIME);
}

/// GNU uname.
const UNAME: Options = Options::gnu(
    "asnrvmpio",
    &[
        Long("all", Takes::Nothing),
        Long("kernel-name", Takes::Nothing),
        Long("nodename", Takes::Nothing),
        Long("kernel-release", Takes::Nothing),
        Long("kernel-version", Takes::Nothing),
        Long("machine", Takes::Nothing),
        Long("processor", Takes::Nothing),
        Long("hardware-platform", Takes::Nothing),
        Long("operating-system", Takes::Nothing),
        Long("help", Takes::Nothing),
        Long("version", Takes::Nothing),
    ],
);

fn uname(call: &mut Call<'_>) {
    query(call, &UNAME);
}

/// GNU id.
const ID: Options = Options::gnu(
    "agGnruzZ",
    &[
        Long("context", Takes::Nothing),
        Long("group", Takes::Nothing),
        Long("groups", Takes::Nothing),
        Long("name", Takes::Nothing),
        Long("real", Takes::Nothing),
        Long("user", Takes::Nothing),
        Long("zero", Takes::Nothing),
        Long("help", Takes::Nothing),
        Long("version", Takes::Nothing),
    ],
);

fn id(call: &mut Call<'_>) {
    query(call, &ID);
}

/// procps w.
const W: Options = Options::gnu(
    "hiusfopnV",
    &[
        Long("no-header", Takes::Nothing),
        Long("ip-addr", Takes::Nothing),
        Long("no-current", Takes::Nothing),
        Long("short", Takes::Nothing),
        Long("from", Takes::Nothing),
        Long("old-style", Takes::Nothing),
        Long("pids", Takes::Nothing),
        Long("container", Takes::Nothing),
        Long("help", Takes::Nothing),
        Long("version", Takes::Nothing),
    ],
);

fn w(call: &mut Call<'_>) {
    query(call, &W);
}

/// GNU who: `who am i`, or a utmp file to read.
const WHO: Options = Options::gnu(
    "abdHlmpqrstTuw",
    &[
        Long("all", Takes::Nothing),
        Long("boot", Takes::Nothing),
        Long("dead", Takes::Nothing),
        Long("heading", Takes::Nothing),
        Long("login", Takes::Nothing),
        Long("lookup", Takes::Nothing),
        Long("mesg", Takes::Nothing),
        Long("message", Takes::Nothing),
        Long("writable", Takes::Nothing),
        Long("process", Takes::Nothing),
        Long("count", Takes::Nothing),
        Long("runlevel", Takes::Nothing),
        Long("short", Takes::Nothing),
        Long("time", Takes::Nothing),
        Long("users", Takes::Nothing),
        Long("help", Takes::Nothing),
        Long("version", Takes::Nothing),
    ],
);

fn who(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&WHO) else {
        return;
    };
    let files: Vec<&Arg> = parsed
        .operands()
        .filter(|a| !matches!(a.text(), "am" | "i" | "I" | "mom" | "likes"))
        .collect();
    call.read(files);
}

/// util-linux last: `-f FILE` reads another wtmp.
const LAST: Options = Options::gnu(
    "adFf:in:Rs:t:p:wxT:",
    &[
        Long("file", Takes::Value),
        Long("limit", Takes::Value),
        Long("present", Takes::Value),
        Long("since", Takes::Value),
        Long("until", Takes::Value),
        Long("fullnames", Takes::Nothing),
        Long("ip", Takes::Nothing),
        Long("nohostname", Takes::Nothing),
        Long("hostlast", Takes::Nothing),
        Long("dns", Takes::Nothing),
        Long("system", Takes::Nothing),
        Long("time-format", Takes::Value),
        Long("fulltimes", Takes::Nothing),
        Long("help", Takes::Nothing),
        Long("version", Takes::Nothing),
    ],
)
.with_numeric();

fn last(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&LAST) else {
        return;
    };
    call.read(values(&parsed, &["-f", "--file"]));
}

/// util-linux lsblk.
const LSBLK: Options = Options::gnu(
    "abdDe:fhiI:JlmMno:OpPrsStTuvVx:yzE:Q:N",
    &[
        Long("all", Takes::Nothing),
        Long("bytes", Takes::Nothing),
        Long("nodeps", Takes::Nothing),
        Long("discard", Takes::Nothing),
        Long("exclude", Takes::Value),
        Long("fs", Takes::Nothing),
        Long("include", Takes::Value),
        Long("ascii", Takes::Nothing),
        Long("json", Takes::Nothing),
        Long("list", Takes::Nothing),
        Long("merge", Takes::Nothing),
        Long("perms", Takes::Nothing),
        Long("noheadings", Takes::Nothing),
        Long("output", Takes::Value),
        Long("output-all", Takes::Nothing),
        Long("paths", Takes::Nothing),
        Long("pairs", Takes::Nothing),
        Long("raw", Takes::Nothing),
        Long("inverse", Takes::Nothing),
        Long("scsi", Takes::Nothing),
        Long("nvme", Takes::Nothing),
        Long("virtio", Takes::Nothing),
        Long("topology", Takes::Nothing),
        Long("tree", Takes::Optional),
        Long("sort", Takes::Value),
        Long("dedup", Takes::Value),
        Long("width", Takes::Value),
        Long("zoned", Takes::Nothing),
        Long("filter", Takes::Value),
        Long("highlight", Takes::Value),
        Long("list-columns", Takes::Nothing),
        Long("help", Takes::Nothing),
        Long("version", Takes::Nothing),
    ],
);

fn lsblk(call: &mut Call<'_>) {
    query(call, &LSBLK);
}

/// util-linux lscpu.
const LSCPU: Options = Options::gnu(
    "aBbC::ce::hJp::s:xyV",
    &[
        Long("all", Takes::Nothing),
        Long("bytes", Takes::Nothing),
        Long("caches", Takes::Optional),
        Long("online", Takes::Nothing),
        Long("offline", Takes::Nothing),
        Long("extended", Takes::Optional),
        Long("json", Takes::Nothing),
        Long("parse", Takes::Optional),
        Long("sysroot", Takes::Value),
        Long("hex", Takes::Nothing),
        Long("physical", Takes::Nothing),
        Long("output-all", Takes::Nothing),
        Long("raw", Takes::Nothing),
        Long("help", Takes::Nothing),
        Long("version", Takes::Nothing),
    ],
);

fn lscpu(call: &mut Call<'_>) {
    query(call, &LSCPU);
}

/// usbutils lsusb.
const LSUSB: Options = Options::gnu(
    "vs:d:D:tVh",
    &[
        Long("verbose", Takes::Nothing),
        Long("tree", Takes::Nothing),
        Long("version", Takes::Nothing),
        Long("help", Takes::Nothing),
    ],
);

fn lsusb(call: &mut Call<'_>) {
    query(call, &LSUSB);
}

/// pciutils lspci (`-q`/`-Q` query the network: not listed).
const LSPCI: Options = Options::gnu(
    "mtvknxbDPs:d:i:p:A:F:H:MGO:Jh",
    &[
        Long("help", Takes::Nothing),
        Long("version", Takes::Nothing),
    ],
);

fn lspci(call: &mut Call<'_>) {
    query(call, &LSPCI);
}

/// GNU nproc.
const NPROC: Options = Options::gnu(
    "",
    &[
        Long("all", Takes::Nothing),
        Long("ignore", Takes::Value),
        Long("help", Takes::Nothing),
        Long("version", Takes::Nothing),
    ],
);

fn nproc(call: &mut Call<'_>) {
    query(call, &NPROC);
}

/// GNU printenv: operands are variable names.
const PRINTENV: Options = Options::gnu(
    "0",
    &[
        Long("null", Takes::Nothing),
        Long("help", Takes::Nothing),
        Long("version", Takes::Nothing),
    ],
);

fn printenv(call: &mut Call<'_>) {
    query(call, &PRINTENV);
}

/// GNU date: `-s/--set` and an operand that is not `+FORMAT` set the
/// clock; `-f FILE` and `-r FILE` read.
const DATE: Options = Options::gnu(
    "d:f:I::Rr:u",
    &[
        Long("date", Takes::Value),
        Long("file", Takes::Value),
        Long("iso-8601", Takes::Optional),
        Long("rfc-email", Takes::Nothing),
        Long("rfc-822", Takes::Nothing),
        Long("rfc-2822", Takes::Nothing),
        Long("rfc-3339", Takes::Value),
        Long("resolution", Takes::Nothing),
        Long("reference", Takes::Value),
        Long("utc", Takes::Nothing),
        Long("universal", Takes::Nothing),
        Long("debug", Takes::Nothing),
        Long("help", Takes::Nothing),
        Long("version", Takes::Nothing),
    ],
);

fn date(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&DATE) else {
        return;
    };
    if let Some(operand) = parsed
        .operands()
        .find(|a| a.literal().is_some_and(|t| !t.starts_with('+')))
    {
        let why = format!("the operand `{}` sets the clock", operand.text());
        return call.not_read_only(Category::Privileged, why);
    }
    call.read(values(&parsed, &["-f", "--file", "-r", "--reference"]));
}

/// hostname: prints the name; an operand, `-F/--file` or `-b/--boot` set it.
const HOSTNAME: Options = Options::gnu(
    "aAdfiIsyVh",
    &[
        Long("alias", Takes::Nothing),
        Long("all-fqdns", Takes::Nothing),
        Long("domain", Takes::Nothing),
        Long("fqdn", Takes::Nothing),
        Long("long", Takes::Nothing),
        Long("ip-address", Takes::Nothing),
        Long("all-ip-addresses", Takes::Nothing),
        Long("short", Takes::Nothing),
        Long("yp", Takes::Nothing),
        Long("nis", Takes::Nothing),
        Long("help", Takes::Nothing),
        Long("version", Takes::Nothing),
    ],
);

fn hostname(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&HOSTNAME) else {
        return;
    };
    if let Some(operand) = parsed.operands().next() {
        let why = format!("the operand `{}` renames the machine", operand.text());
        return call.not_read_only(Category::Privileged, why);
    }
    call.read([]);
}

/// journalctl's reading forms. The maintenance options (vacuum, rotate,
/// flush, sync, keys, catalog, `--cursor-file` which writes) are listed
/// only to be refused by name.
const JOURNALCTL: Options = Options::gnu(
    "hefo:aqln::b::kD:M:p:g:S:U:u:t:T:F:xrmNc:i:I",
    &[
        Long("lines", Takes::Optional),
        Long("unit", Takes::Value),
        Long("user-unit", Takes::Value),
        Long("boot", Takes::Optional),
        Long("dmesg", Takes::Nothing),
        Long("follow", Takes::Nothing),
        Long("priority", Takes::Value),
        Long("grep", Takes::Value),
        Long("case-sensitive", Takes::Optional),
        Long("since", Takes::Value),
        Long("until", Takes::Value),
        Long("output", Takes::Value),
        Long("output-fields", Takes::Value),
        Long("no-pager", Takes::Nothing),
        Long("reverse", Takes::Nothing),
        Long("catalog", Takes::Nothing),
        Long("pager-end", Takes::Nothing),
        Long("all", Takes::Nothing),
        Long("quiet", Takes::Nothing),
        Long("user", Takes::Nothing),
        Long("system", Takes::Nothing),
        Long("identifier", Takes::Value),
        Long("exclude-identifier", Takes::Value),
        Long("directory", Takes::Value),
        Long("file", Takes::Value),
        Long("root", Takes::Value),
        Long("image", Takes::Value),
        Long("machine", Takes::Value),
        Long("merge", Takes::Nothing),
        Long("namespace", Takes::Value),
        Long("list-boots", Takes::Nothing),
        Long("list-invocations", Takes::Nothing),
        Long("list-namespaces", Takes::Nothing),
        Long("invocation", Takes::Value),
        Long("disk-usage", Takes::Nothing),
        Long("header", Takes::Nothing),
        Long("fields", Takes::Nothing),
        Long("field", Takes::Value),
        Long("facility", Takes::Value),
        Long("cursor", Takes::Value),
        Long("after-cursor", Takes::Value),
        Long("show-cursor", Takes::Nothing),
        Long("utc", Takes::Nothing),
        Long("no-hostname", Takes::Nothing),
        Long("full", Takes::Nothing),
        Long("no-full", Takes::Nothing),
        Long("no-tail", Takes::Nothing),
        Long("truncate-newline", Takes::Nothing),
        Long("list-catalog", Takes::Nothing),
        Long("dump-catalog", Takes::Nothing),
        Long("verify", Takes::Nothing),
        Long("help", Takes::Nothing),
        Long("version", Takes::Nothing),
        forbidden("vacuum-size"),
        forbidden("vacuum-time"),
        forbidden("vacuum-files"),
        forbidden("rotate"),
        forbidden("flush"),
        forbidden("sync"),
        forbidden("relinquish-var"),
        forbidden("smart-relinquish-var"),
        forbidden("setup-keys"),
        forbidden("update-catalog"),
        forbidden("verify-key"),
        forbidden("cursor-file"),
        forbidden("interval"),
        forbidden("force"),
    ],
);

/// journalctl options that change the journal or write files.
const JOURNALCTL_REFUSED: &[&str] = &[
    "--vacuum-size",
    "--vacuum-time",
    "--vacuum-files",
    "--rotate",
    "--flush",
    "--sync",
    "--relinquish-var",
    "--smart-relinquish-var",
    "--setup-keys",
    "--update-catalog",
    "--verify-key",
    "--cursor-file",
    "--interval",
    "--force",
];

/// journalctl's `-n 50` and `-b -1`: its optional values may also be the
/// next argument (when it looks like a number or a boot id).
fn journalctl_args(args: &[Arg]) -> Vec<Arg> {
    let mut out = Vec::with_capacity(args.len());
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        let next = args.get(i + 1).and_then(Arg::literal);
        let joins = |value: &str| {
            let digits = value.strip_prefix('-').unwrap_or(value);
            value == "all"
                || (!digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()))
                || (value.len() == 32 && value.chars().all(|c| c.is_ascii_hexdigit()))
        };
        match (arg.literal(), next) {
            (Some(flag @ ("-n" | "-b")), Some(value)) if joins(value) => {
                out.push(Arg::Literal(format!("{flag}{value}")));
                i += 2;
            }
            (Some(flag @ ("--lines" | "--boot")), Some(value)) if joins(value) => {
                out.push(Arg::Literal(format!("{flag}={value}")));
                i += 2;
            }
            _ => {
                out.push(arg.clone());
                i += 1;
            }
        }
    }
    out
}

fn journalctl(call: &mut Call<'_>) {
    let args = journalctl_args(call.args);
    let parsed = match super::parse(&JOURNALCTL, &args) {
        Ok(parsed) => parsed,
        Err(error) => return call.not_read_only(Category::Exec, error.describe()),
    };
    if let Some(option) = JOURNALCTL_REFUSED.iter().find(|o| parsed.has(o)) {
        let why = format!("`{option}` changes the journal or writes a file");
        return call.not_read_only(Category::Write, why);
    }
    call.read(values(&parsed, &["-D", "--directory", "-i", "--file"]));
}

/// The read-only verbs of a systemd control tool, its default verb, and
/// its options; `-H/--host` (another machine over ssh) asks.
struct Verbs {
    options: Options,
    read: &'static [&'static str],
    /// Verbs that print with no argument and set with one
    /// (`hostnamectl hostname NAME`).
    read_without_argument: &'static [&'static str],
}

fn systemd_tool(call: &mut Call<'_>, verbs: &Verbs) -> Option<String> {
    let parsed = call.parse(&verbs.options)?;
    if let Some(host) = values(&parsed, &["-H", "--host"]).first() {
        let why = format!("`-H {}` runs it on another machine", host.text());
        call.not_read_only(Category::Network, why);
        return None;
    }
    let operands: Vec<&Arg> = parsed.operands().collect();
    let Some(verb) = operands.first() else {
        call.read([]);
        return None;
    };
    let Some(verb) = verb.literal() else {
        // Only known when it runs: the runtime guard judges it again.
        call.read([]);
        return None;
    };
    if verbs.read.contains(&verb)
        || (verbs.read_without_argument.contains(&verb) && operands.len() == 1)
    {
        call.read([]);
        return None;
    }
    Some(verb.to_string())
}

const SYSTEMD_COMMON: &[Long] = &[
    Long("user", Takes::Nothing),
    Long("system", Takes::Nothing),
    Long("global", Takes::Nothing),
    Long("no-pager", Takes::Nothing),
    Long("no-legend", Takes::Nothing),
    Long("legend", Takes::Value),
    Long("no-ask-password", Takes::Nothing),
    Long("all", Takes::Nothing),
    Long("full", Takes::Nothing),
    Long("type", Takes::Value),
    Long("state", Takes::Value),
    Long("property", Takes::Value),
    Long("value", Takes::Nothing),
    Long("plain", Takes::Nothing),
    Long("host", Takes::Value),
    Long("machine", Takes::Value),
    Long("lines", Takes::Value),
    Long("output", Takes::Value),
    Long("recursive", Takes::Nothing),
    Long("reverse", Takes::Nothing),
    Long("after", Takes::Nothing),
    Long("before", Takes::Nothing),
    Long("quiet", Takes::Nothing),
    Long("failed", Takes::Nothing),
    Long("with-dependencies", Takes::Nothing),
    Long("show-types", Takes::Nothing),
    Long("timestamp", Takes::Value),
    Long("json", Takes::Value),
    Long("static", Takes::Nothing),
    Long("transient", Takes::Nothing),
    Long("pretty", Takes::Nothing),
    Long("monitor", Takes::Nothing),
    Long("adjust-system-clock", Takes::Nothing),
    Long("help", Takes::Nothing),
    Long("version", Takes::Nothing),
];

/// systemctl's read-only verbs (no verb is `list-units`).
const SYSTEMCTL: Verbs = Verbs {
    options: Options::gnu("ahH:t:p:Palqn:o:M:r", SYSTEMD_COMMON),
    read: &[
        "status",
        "list-units",
        "list-unit-files",
        "list-timers",
        "list-sockets",
        "list-jobs",
        "list-automounts",
        "list-paths",
        "list-machines",
        "list-dependencies",
        "is-active",
        "is-enabled",
        "is-failed",
        "is-system-running",
        "show",
        "show-environment",
        "cat",
        "get-default",
        "help",
    ],
    read_without_argument: &[],
};

/// systemctl verbs that stop or restart the whole machine.
const SYSTEMCTL_POWER: &[&str] = &[
    "poweroff",
    "reboot",
    "halt",
    "kexec",
    "suspend",
    "hibernate",
    "hybrid-sleep",
    "suspend-then-hibernate",
    "soft-reboot",
    "rescue",
    "emergency",
    "isolate",
    "default",
    "exit",
];

fn systemctl(call: &mut Call<'_>) {
    let Some(verb) = systemd_tool(call, &SYSTEMCTL) else {
        return;
    };
    if SYSTEMCTL_POWER.contains(&verb.as_str()) {
        let why = format!("`{verb}` stops, reboots or isolates the machine");
        return call.block(Category::Privileged, why);
    }
    let writes = [
        "enable",
        "disable",
        "reenable",
        "preset",
        "preset-all",
        "mask",
        "unmask",
        "link",
        "edit",
        "set-property",
        "add-wants",
        "add-requires",
        "set-default",
        "revert",
        "set-environment",
        "unset-environment",
        "import-environment",
    ];
    let category = if writes.contains(&verb.as_str()) {
        Category::Write
    } else {
        Category::Process
    };
    let why = format!("`{verb}` changes which services run or how");
    call.not_read_only(category, why);
}

/// hostnamectl: status (the default) and printing a field; `set-*`, or a
/// field with a value, change the machine's identity.
const HOSTNAMECTL: Verbs = Verbs {
    options: Options::gnu("hH:M:", SYSTEMD_COMMON),
    read: &["status", "help"],
    read_without_argument: &["hostname", "icon-name", "chassis", "deployment", "location"],
};

fn hostnamectl(call: &mut Call<'_>) {
    if let Some(verb) = systemd_tool(call, &HOSTNAMECTL) {
        call.not_read_only(
            Category::Privileged,
            format!("`{verb}` changes the machine's names"),
        );
    }
}

/// timedatectl: status (the default), show, list-timezones, timesync-status.
const TIMEDATECTL: Verbs = Verbs {
    options: Options::gnu("ahH:M:p:", SYSTEMD_COMMON),
    read: &[
        "status",
        "show",
        "list-timezones",
        "timesync-status",
        "show-timesync",
        "help",
    ],
    read_without_argument: &[],
};

fn timedatectl(call: &mut Call<'_>) {
    if let Some(verb) = systemd_tool(call, &TIMEDATECTL) {
        call.not_read_only(
            Category::Privileged,
            format!("`{verb}` changes the clock settings"),
        );
    }
}

/// loginctl: list and show verbs (the default lists sessions).
const LOGINCTL: Verbs = Verbs {
    options: Options::gnu("ahH:M:p:Pln:o:", SYSTEMD_COMMON),
    read: &[
        "list-sessions",
        "list-users",
        "list-seats",
        "show-session",
        "show-user",
        "show-seat",
        "session-status",
        "user-status",
        "seat-status",
        "help",
    ],
    read_without_argument: &[],
};

fn loginctl(call: &mut Call<'_>) {
    if let Some(verb) = systemd_tool(call, &LOGINCTL) {
        call.not_read_only(
            Category::Process,
            format!("`{verb}` changes sessions or users"),
        );
    }
}

/// localectl: status (the default) and the `list-*` verbs.
const LOCALECTL: Verbs = Verbs {
    options: Options::gnu("hH:M:", SYSTEMD_COMMON),
    read: &[
        "status",
        "list-locales",
        "list-keymaps",
        "list-x11-keymap-models",
        "list-x11-keymap-layouts",
        "list-x11-keymap-variants",
        "list-x11-keymap-options",
        "help",
    ],
    read_without_argument: &[],
};

fn localectl(call: &mut Call<'_>) {
    if let Some(verb) = systemd_tool(call, &LOCALECTL) {
        call.not_read_only(
            Category::Privileged,
            format!("`{verb}` changes the locale settings"),
        );
    }
}

/// ip's global options (with one leading dash or two); those that take a
/// value are marked. `-b/-batch`, `-force` and anything else ask.
const IP_OPTIONS: &[(&str, bool)] = &[
    ("-4", false),
    ("-6", false),
    ("-0", false),
    ("-M", false),
    ("-B", false),
    ("-s", false),
    ("-stats", false),
    ("-statistics", false),
    ("-d", false),
    ("-details", false),
    ("-h", false),
    ("-human", false),
    ("-human-readable", false),
    ("-iec", false),
    ("-o", false),
    ("-oneline", false),
    ("-t", false),
    ("-timestamp", false),
    ("-ts", false),
    ("-tshort", false),
    ("-j", false),
    ("-json", false),
    ("-p", false),
    ("-pretty", false),
    ("-br", false),
    ("-brief", false),
    ("-c", false),
    ("-color", false),
    ("-N", false),
    ("-Numeric", false),
    ("-a", false),
    ("-all", false),
    ("-r", false),
    ("-resolve", false),
    ("-V", false),
    ("-Version", false),
    ("-help", false),
    ("-f", true),
    ("-family", true),
    ("-n", true),
    ("-netns", true),
    ("-l", true),
    ("-loops", true),
];

/// ip's objects in the order ip matches an abbreviation against them,
/// and whether their show forms are among the read-only ones.
const IP_OBJECTS: &[(&str, bool)] = &[
    ("address", true),
    ("addrlabel", true),
    ("maddress", true),
    ("route", true),
    ("rule", true),
    ("neighbor", true),
    ("neighbour", true),
    ("ntable", true),
    ("ntbl", true),
    ("link", true),
    ("l2tp", true),
    ("fou", false),
    ("ila", false),
    ("macsec", true),
    ("tunnel", true),
    ("tunl", true),
    ("tuntap", true),
    ("tap", true),
    ("token", true),
    ("tcpmetrics", true),
    ("tcp_metrics", true),
    ("monitor", false),
    ("xfrm", false),
    ("mroute", true),
    ("mrule", true),
    ("netns", true),
    ("netconf", true),
    ("vrf", true),
    ("sr", false),
    ("nexthop", true),
    ("mptcp", false),
    ("ioam", false),
    ("stats", true),
    ("help", true),
];

/// ip: `ip [options] OBJECT [show|list|get ...]`.
fn ip(call: &mut Call<'_>) {
    let args = call.args;
    let mut i = 0;
    while let Some(Arg::Literal(arg)) = args.get(i) {
        if !arg.starts_with('-') {
            break;
        }
        let single = if arg.starts_with("--") {
            &arg[1..]
        } else {
            arg.as_str()
        };
        let name = single.split('=').next().unwrap_or(single);
        let Some((_, valued)) = IP_OPTIONS.iter().find(|(o, _)| *o == name) else {
            let why = format!("option `{arg}` is not one of its read-only forms");
            return call.not_read_only(Category::Privileged, why);
        };
        i += if *valued { 2 } else { 1 };
    }
    let Some(object) = args.get(i) else {
        return call.read([]);
    };
    let Some(object) = object.literal() else {
        return call.read([]);
    };
    let Some((object, readable)) = IP_OBJECTS
        .iter()
        .find(|(o, _)| !object.is_empty() && o.starts_with(object))
    else {
        let why = format!("object `{object}` is not one of its read-only forms");
        return call.not_read_only(Category::Privileged, why);
    };
    if !readable {
        let why = format!("`ip {object}` is not one of its read-only forms");
        return call.not_read_only(Category::Privileged, why);
    }
    let command = args.get(i + 1).and_then(Arg::literal);
    let reads = match command {
        None => true,
        Some(c) => {
            matches!(c, "show" | "sh" | "list" | "lst" | "ls" | "help")
                || (c == "get" && matches!(*object, "route" | "neighbor" | "neighbour" | "netconf"))
                || (*object == "netns" && matches!(c, "identify" | "list-id"))
        }
    };
    if reads {
        return call.read([]);
    }
    let command = command.unwrap_or_default();
    let why = format!("`ip {object} {command}` changes the network configuration");
    call.not_read_only(Category::Privileged, why);
}

/// iproute2 ss. `-K/--kill` closes sockets and `-D/--diag` writes a
/// dump: not listed.
const SS: Options = Options::gnu(
    "hVHnraloOmpiesZzbEtuwxSMT046f:A:F:N:",
    &[
        Long("help", Takes::Nothing),
        Long("version", Takes::Nothing),
        Long("no-header", Takes::Nothing),
        Long("numeric", Takes::Nothing),
        Long("resolve", Takes::Nothing),
        Long("all", Takes::Nothing),
        Long("listening", Takes::Nothing),
        Long("oneline", Takes::Nothing),
        Long("options", Takes::Nothing),
        Long("memory", Takes::Nothing),
        Long("processes", Takes::Nothing),
        Long("threads", Takes::Nothing),
        Long("info", Takes::Nothing),
        Long("tos", Takes::Nothing),
        Long("cgroup", Takes::Nothing),
        Long("extended", Takes::Nothing),
        Long("summary", Takes::Nothing),
        Long("events", Takes::Nothing),
        Long("context", Takes::Nothing),
        Long("contexts", Takes::Nothing),
        Long("bpf", Takes::Nothing),
        Long("bpf-maps", Takes::Nothing),
        Long("inet-sockopt", Takes::Nothing),
        Long("ipv4", Takes::Nothing),
        Long("ipv6", Takes::Nothing),
        Long("packet", Takes::Nothing),
        Long("tcp", Takes::Nothing),
        Long("udp", Takes::Nothing),
        Long("dccp", Takes::Nothing),
        Long("raw", Takes::Nothing),
        Long("unix", Takes::Nothing),
        Long("sctp", Takes::Nothing),
        Long("vsock", Takes::Nothing),
        Long("tipc", Takes::Nothing),
        Long("xdp", Takes::Nothing),
        Long("mptcp", Takes::Nothing),
        Long("family", Takes::Value),
        Long("query", Takes::Value),
        Long("socket", Takes::Value),
        Long("filter", Takes::Value),
        Long("net", Takes::Value),
        forbidden("kill"),
        forbidden("diag"),
    ],
);

fn ss(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&SS) else {
        return;
    };
    if parsed.has("--kill") || parsed.has("--diag") {
        return call.not_read_only(
            Category::Process,
            "`--kill`/`--diag` closes sockets or writes a dump",
        );
    }
    call.read(values(&parsed, &["-F", "--filter"]));
}

/// The forms of `ss` and `lsof` that name the process behind each socket:
/// they read other processes' `/proc/PID/fd`, which no process inside a
/// Landlock domain may (Landlock's ptrace rule), so they are launched
/// outside it (see `sandbox::process_view`). An exact grammar, narrower
/// than the read forms: `ss` listing sockets with `-p`, `lsof -i`.
pub(super) fn names_socket_processes(name: &str, args: &[String]) -> bool {
    match name {
        "ss" => ss_with_processes(args),
        "lsof" => lsof_internet(args),
        _ => false,
    }
}

/// `ss` listing sockets with their processes: no summary, events, dump,
/// kill, filter file or other network namespace.
const SS_PROCESSES: Options = Options::gnu(
    "HnraloOmpieZztuwxSMT046A:f:",
    &[
        Long("no-header", Takes::Nothing),
        Long("numeric", Takes::Nothing),
        Long("resolve", Takes::Nothing),
        Long("all", Takes::Nothing),
        Long("listening", Takes::Nothing),
        Long("oneline", Takes::Nothing),
        Long("options", Takes::Nothing),
        Long("memory", Takes::Nothing),
        Long("processes", Takes::Nothing),
        Long("threads", Takes::Nothing),
        Long("info", Takes::Nothing),
        Long("tos", Takes::Nothing),
        Long("cgroup", Takes::Nothing),
        Long("extended", Takes::Nothing),
        Long("context", Takes::Nothing),
        Long("contexts", Takes::Nothing),
        Long("inet-sockopt", Takes::Nothing),
        Long("ipv4", Takes::Nothing),
        Long("ipv6", Takes::Nothing),
        Long("packet", Takes::Nothing),
        Long("tcp", Takes::Nothing),
        Long("udp", Takes::Nothing),
        Long("dccp", Takes::Nothing),
        Long("raw", Takes::Nothing),
        Long("unix", Takes::Nothing),
        Long("sctp", Takes::Nothing),
        Long("vsock", Takes::Nothing),
        Long("tipc", Takes::Nothing),
        Long("xdp", Takes::Nothing),
        Long("mptcp", Takes::Nothing),
        Long("family", Takes::Value),
        Long("query", Takes::Value),
        Long("socket", Takes::Value),
    ],
);

fn ss_with_processes(args: &[String]) -> bool {
    let args: Vec<Arg> = args.iter().cloned().map(Arg::Literal).collect();
    let Ok(parsed) = super::parse(&SS_PROCESSES, &args) else {
        return false;
    };
    parsed.has("-p") || parsed.has("--processes")
}

/// `lsof -i[ADDR]` with only listing options: `-n -P -l -t -w -a -R -U
/// -V` (combined or not), `-s[PROTO:STATE]`, `-c/-p/-u/-g VALUE`,
/// `-F[FIELDS]`.
fn lsof_internet(args: &[String]) -> bool {
    const FLAGS: &str = "nPltwaRUV";
    let looks_like_address = |text: &str| {
        !text.is_empty() && !text.starts_with(['-', '+']) && !text.contains(char::is_whitespace)
    };
    let mut internet = false;
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        i += 1;
        let Some(letters) = arg.strip_prefix('-') else {
            return false;
        };
        let rest = letters.trim_start_matches(|c| FLAGS.contains(c));
        let mut chars = rest.chars();
        match chars.next() {
            None if !letters.is_empty() => {}
            Some('i') => {
                internet = true;
                let address = chars.as_str();
                if address.is_empty() {
                    if args.get(i).is_some_and(|next| looks_like_address(next)) {
                        i += 1;
                    }
                } else if !looks_like_address(address) {
                    return false;
                }
            }
            Some('s') if letters.len() == rest.len() => {
                let state = chars.as_str();
                if state.is_empty() {
                    if args
                        .get(i)
                        .is_some_and(|next| next.contains(':') && looks_like_address(next))
                    {
                        i += 1;
                    }
                } else if !state.contains(':') || !looks_like_address(state) {
                    return false;
                }
            }
            Some('c' | 'p' | 'u' | 'g') if letters.len() == rest.len() => {
                if chars.as_str().is_empty() {
                    if !args.get(i).is_some_and(|next| looks_like_address(next)) {
                        return false;
                    }
                    i += 1;
                }
            }
            Some('F') if letters.len() == rest.len() => {
                if !chars.as_str().chars().all(|c| c.is_ascii_alphanumeric()) {
                    return false;
                }
            }
            _ => return false,
        }
    }
    internet
}

/// net-tools netstat.
const NETSTAT: Options = Options::gnu(
    "rivnNgMalxetuwA:pcCeFoWZsTU",
    &[
        Long("route", Takes::Nothing),
        Long("interfaces", Takes::Nothing),
        Long("groups", Takes::Nothing),
        Long("masquerade", Takes::Nothing),
        Long("statistics", Takes::Nothing),
        Long("verbose", Takes::Nothing),
        Long("wide", Takes::Nothing),
        Long("numeric", Takes::Nothing),
        Long("numeric-hosts", Takes::Nothing),
        Long("numeric-ports", Takes::Nothing),
        Long("numeric-users", Takes::Nothing),
        Long("symbolic", Takes::Nothing),
        Long("extend", Takes::Nothing),
        Long("programs", Takes::Nothing),
        Long("timers", Takes::Nothing),
        Long("continuous", Takes::Nothing),
        Long("listening", Takes::Nothing),
        Long("all", Takes::Nothing),
        Long("fib", Takes::Nothing),
        Long("cache", Takes::Nothing),
        Long("tcp", Takes::Nothing),
        Long("udp", Takes::Nothing),
        Long("udplite", Takes::Nothing),
        Long("raw", Takes::Nothing),
        Long("unix", Takes::Nothing),
        Long("sctp", Takes::Nothing),
        Long("inet", Takes::Nothing),
        Long("inet6", Takes::Nothing),
        Long("protocol", Takes::Value),
        Long("help", Takes::Nothing),
        Long("version", Takes::Nothing),
    ],
);

fn netstat(call: &mut Call<'_>) {
    query(call, &NETSTAT);
}

/// lsof: its own `-x`/`+x` option syntax. Every selection and output
/// option only lists (`+D DIR` searches a directory); `-D` (manages a
/// device cache file), `-k`, `-m` (other kernel files) and `+m` (writes a
/// mount supplement file) are refused.
fn lsof(call: &mut Call<'_>) {
    let args = call.args;
    for arg in args {
        let Some(text) = arg.literal() else { continue };
        let first = text.chars().nth(1);
        let refused = match text.chars().next() {
            Some('-') => matches!(first, Some('D' | 'k' | 'm')),
            Some('+') => first == Some('m'),
            _ => false,
        };
        if refused {
            let why = format!("option `{text}` is not one of its read-only forms");
            return call.not_read_only(Category::Exec, why);
        }
    }
    call.read([]);
}

/// util-linux dmesg: reads the kernel ring buffer. Clearing it
/// (`-c -C`), switching console logging (`-D -E -n`) are not listed.
const DMESG: Options = Options::gnu(
    "F:f:hkl:L::PrSs:TtuVwxdHJe",
    &[
        Long("buffer-size", Takes::Value),
        Long("color", Takes::Optional),
        Long("decode", Takes::Nothing),
        Long("facility", Takes::Value),
        Long("file", Takes::Value),
        Long("human", Takes::Nothing),
        Long("json", Takes::Nothing),
        Long("kernel", Takes::Nothing),
        Long("level", Takes::Value),
        Long("nopager", Takes::Nothing),
        Long("noescape", Takes::Nothing),
        Long("notime", Takes::Nothing),
        Long("show-delta", Takes::Nothing),
        Long("since", Takes::Value),
        Long("until", Takes::Value),
        Long("syslog", Takes::Nothing),
        Long("time-format", Takes::Value),
        Long("userspace", Takes::Nothing),
        Long("follow", Takes::Nothing),
        Long("follow-new", Takes::Nothing),
        Long("raw", Takes::Nothing),
        Long("ctime", Takes::Nothing),
        Long("reltime", Takes::Nothing),
        Long("force-prefix", Takes::Nothing),
        Long("help", Takes::Nothing),
        Long("version", Takes::Nothing),
    ],
);

fn dmesg(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&DMESG) else {
        return;
    };
    call.read(values(&parsed, &["-F", "--file"]));
}

/// getent DATABASE [KEY...].
const GETENT: Options = Options::gnu(
    "s:iA",
    &[
        Long("service", Takes::Value),
        Long("no-idn", Takes::Nothing),
        Long("no-addrconfig", Takes::Nothing),
        Long("help", Takes::Nothing),
        Long("usage", Takes::Nothing),
        Long("version", Takes::Nothing),
    ],
);

/// The databases getent answers by resolving names: through DNS (or a
/// resolver daemon) a look-up of `<data>.example.com` sends data out.
const GETENT_RESOLVERS: &[&str] = &["hosts", "ahosts", "ahostsv4", "ahostsv6", "networks"];

fn getent(call: &mut Call<'_>) {
    let Some(parsed) = query(call, &GETENT) else {
        return;
    };
    let mut operands = parsed.operands();
    let database = operands.next().map(|a| a.text().to_string());
    if database
        .as_deref()
        .is_some_and(|db| GETENT_RESOLVERS.contains(&db))
    {
        let keys: Vec<String> = operands.map(|a| a.text().to_string()).collect();
        call.not_read_only(
            Category::Network,
            "`getent hosts` resolves names through DNS, which can carry data out",
        );
        for key in keys {
            call.step
                .targets
                .push(crate::policy::Target::new(crate::policy::Access::Host, key));
        }
    }
}

/// locale: names of categories and keywords.
const LOCALE: Options = Options::gnu(
    "amckv",
    &[
        Long("all-locales", Takes::Nothing),
        Long("charmaps", Takes::Nothing),
        Long("category-name", Takes::Nothing),
        Long("keyword-name", Takes::Nothing),
        Long("verbose", Takes::Nothing),
        Long("help", Takes::Nothing),
        Long("version", Takes::Nothing),
    ],
);

fn locale(call: &mut Call<'_>) {
    query(call, &LOCALE);
}

/// cal/ncal: months and years.
const CAL: Options = Options::gnu(
    "13sSmjyYwvhVA:B:n:d:H:MNCbeopc:",
    &[
        Long("one", Takes::Nothing),
        Long("three", Takes::Nothing),
        Long("sunday", Takes::Nothing),
        Long("monday", Takes::Nothing),
        Long("julian", Takes::Nothing),
        Long("year", Takes::Nothing),
        Long("twelve", Takes::Nothing),
        Long("months", Takes::Value),
        Long("span", Takes::Nothing),
        Long("week", Takes::Optional),
        Long("color", Takes::Optional),
        Long("vertical", Takes::Nothing),
        Long("reform", Takes::Value),
        Long("iso", Takes::Nothing),
        Long("columns", Takes::Value),
        Long("help", Takes::Nothing),
        Long("version", Takes::Nothing),
    ],
);

fn cal(call: &mut Call<'_>) {
    query(call, &CAL);
}

/// procps vmstat: `vmstat [options] [delay [count]]`.
const VMSTAT: Options = Options::gnu(
    "afmnsdDp:S:twVhyC",
    &[
        Long("active", Takes::Nothing),
        Long("forks", Takes::Nothing),
        Long("slabs", Takes::Nothing),
        Long("one-header", Takes::Nothing),
        Long("stats", Takes::Nothing),
        Long("disk", Takes::Nothing),
        Long("disk-sum", Takes::Nothing),
        Long("partition", Takes::Value),
        Long("unit", Takes::Value),
        Long("timestamp", Takes::Nothing),
        Long("wide", Takes::Nothing),
        Long("no-first", Takes::Nothing),
        Long("help", Takes::Nothing),
        Long("version", Takes::Nothing),
    ],
);

fn vmstat(call: &mut Call<'_>) {
    query(call, &VMSTAT);
}

/// sysstat iostat.
const IOSTAT: Options = Options::gnu(
    "cdhkmNtTxyVzsHj:g:p::o:f:",
    &[
        Long("dec", Takes::Value),
        Long("human", Takes::Nothing),
        Long("pretty", Takes::Nothing),
        Long("compact", Takes::Nothing),
        Long("short", Takes::Nothing),
        Long("help", Takes::Nothing),
    ],
);

fn iostat(call: &mut Call<'_>) {
    query(call, &IOSTAT);
}

/// sysstat mpstat.
const MPSTAT: Options = Options::gnu(
    "ANnuTVHI:P:o:",
    &[Long("dec", Takes::Value), Long("help", Takes::Nothing)],
);

fn mpstat(call: &mut Call<'_>) {
    query(call, &MPSTAT);
}

/// sysstat pidstat; `-e PROGRAM` runs a program: not listed.
const PIDSTAT: Options = Options::gnu(
    "dhHIlrRsStuU::vwVG:p:T:",
    &[
        Long("dec", Takes::Value),
        Long("human", Takes::Nothing),
        Long("help", Takes::Nothing),
    ],
);

fn pidstat(call: &mut Call<'_>) {
    query(call, &PIDSTAT);
}

/// procps pgrep (pkill, which signals, is not this program).
const PGREP: Options = Options::gnu(
    "lnoavwxicfAd:F:g:G:P:s:t:u:U:r:",
    &[
        Long("delimiter", Takes::Value),
        Long("list-name", Takes::Nothing),
        Long("list-full", Takes::Nothing),
        Long("inverse", Takes::Nothing),
        Long("lightweight", Takes::Nothing),
        Long("count", Takes::Nothing),
        Long("full", Takes::Nothing),
        Long("pgroup", Takes::Value),
        Long("group", Takes::Value),
        Long("ignore-ancestors", Takes::Nothing),
        Long("ignore-case", Takes::Nothing),
        Long("newest", Takes::Nothing),
        Long("oldest", Takes::Nothing),
        Long("older", Takes::Value),
        Long("parent", Takes::Value),
        Long("session", Takes::Value),
        Long("terminal", Takes::Value),
        Long("euid", Takes::Value),
        Long("uid", Takes::Value),
        Long("exact", Takes::Nothing),
        Long("pidfile", Takes::Value),
        Long("logpidfile", Takes::Nothing),
        Long("ns", Takes::Value),
        Long("nslist", Takes::Value),
        Long("runstates", Takes::Value),
        Long("cgroup", Takes::Value),
        Long("env", Takes::Value),
        Long("help", Takes::Nothing),
        Long("version", Takes::Nothing),
    ],
);

fn pgrep(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&PGREP) else {
        return;
    };
    call.read(values(&parsed, &["-F", "--pidfile"]));
}

/// pidof: program names.
const PIDOF: Options = Options::gnu("sxcnqzo:S:dtwhV", HELP_VERSION);

fn pidof(call: &mut Call<'_>) {
    query(call, &PIDOF);
}

/// procps top: only its batch form (`-b -n N`) reads and ends; the
/// interactive screen takes keystrokes that kill, renice or write its
/// configuration.
const TOP: Options = Options::gnu(
    "bcd:EeHhin:Oo:p:sSu:U:w::1V",
    &[
        Long("help", Takes::Nothing),
        Long("version", Takes::Nothing),
    ],
);

fn top(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&TOP) else {
        return;
    };
    let info = ["-h", "-V", "--help", "--version"];
    if (parsed.has("-b") && parsed.has("-n")) || info.iter().any(|o| parsed.has(o)) {
        return call.read([]);
    }
    call.not_read_only(
        Category::Process,
        "only its batch form (`-b -n N`) is read-only; the interactive screen can kill processes",
    );
}

/// htop is interactive (it can kill and renice): only `--version`/`--help`.
fn htop(call: &mut Call<'_>) {
    let info = call
        .args
        .iter()
        .all(|a| matches!(a.literal(), Some("--version" | "-V" | "--help" | "-h")));
    if info && !call.args.is_empty() {
        return call.read([]);
    }
    call.not_read_only(
        Category::Process,
        "it is interactive and can kill or renice processes",
    );
}

/// lm-sensors sensors; `-s/--set` writes limits to the chips: not listed.
const SENSORS: Options = Options::gnu(
    "c:uAjfhvB",
    &[
        Long("config-file", Takes::Value),
        Long("fahrenheit", Takes::Nothing),
        Long("no-adapter", Takes::Nothing),
        Long("bus-list", Takes::Nothing),
        Long("help", Takes::Nothing),
        Long("version", Takes::Nothing),
    ],
);

fn sensors(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&SENSORS) else {
        return;
    };
    call.read(values(&parsed, &["-c", "--config-file"]));
}

/// nvidia-smi's query options: flags, and options with a value (next
/// argument or `=value`). Anything else (resets, power limits, clocks,
/// modes, `-f` log files) asks.
const NVIDIA_SMI_FLAGS: &[&str] = &[
    "-L",
    "--list-gpus",
    "-q",
    "--query",
    "-x",
    "--xml-format",
    "-u",
    "--unit",
    "-h",
    "--help",
    "--version",
    "--help-query-gpu",
    "--help-query-compute-apps",
    "--help-query-accounted-apps",
    "--help-query-retired-pages",
    "--help-query-remapped-rows",
    "--help-query-supported-clocks",
    "-m",
    "-p2p",
];
const NVIDIA_SMI_VALUED: &[&str] = &[
    "-i",
    "--id",
    "-d",
    "--display",
    "-l",
    "--loop",
    "-lms",
    "--loop-ms",
    "--format",
    "-s",
    "-c",
    "-o",
];
/// nvidia-smi subcommands that only print.
const NVIDIA_SMI_SUBCOMMANDS: &[&str] = &["topo", "dmon", "pmon"];

fn nvidia_smi(call: &mut Call<'_>) {
    let args = call.args;
    let mut i = 0;
    let mut subcommand: Option<&str> = None;
    while i < args.len() {
        let Some(arg) = args[i].literal() else {
            i += 1;
            continue;
        };
        i += 1;
        let name = arg.split('=').next().unwrap_or(arg);
        if subcommand.is_none() && i == 1 && NVIDIA_SMI_SUBCOMMANDS.contains(&arg) {
            subcommand = Some(arg);
            continue;
        }
        if arg.starts_with("--query-") && arg.contains('=') {
            continue;
        }
        // `-c` and `-o` take values only in dmon/pmon, `-m`/`-p2p` are topo's.
        let in_subcommand = subcommand.is_some();
        if NVIDIA_SMI_FLAGS.contains(&name) && (in_subcommand || !matches!(name, "-m" | "-p2p")) {
            continue;
        }
        if NVIDIA_SMI_VALUED.contains(&name)
            && (in_subcommand || !matches!(name, "-s" | "-c" | "-o"))
        {
            if !arg.contains('=') {
                i += 1;
            }
            continue;
        }
        let why = format!("option `{arg}` is not one of its query forms");
        return call.not_read_only(Category::Privileged, why);
    }
    call.read([]);
}

/// lsb_release.
const LSB_RELEASE: Options = Options::gnu(
    "vidrcash",
    &[
        Long("version", Takes::Nothing),
        Long("id", Takes::Nothing),
        Long("description", Takes::Nothing),
        Long("release", Takes::Nothing),
        Long("codename", Takes::Nothing),
        Long("all", Takes::Nothing),
        Long("short", Takes::Nothing),
        Long("help", Takes::Nothing),
    ],
);

fn lsb_release(call: &mut Call<'_>) {
    query(call, &LSB_RELEASE);
}

/// util-linux blkid (`-g`, which garbage-collects the cache, is not listed).
const BLKID: Options = Options::gnu(
    "c:dH:ilL:n:kMo:O:pS:s:t:u:U:Vh",
    &[
        Long("cache-file", Takes::Value),
        Long("no-encoding", Takes::Nothing),
        Long("hint", Takes::Value),
        Long("info", Takes::Nothing),
        Long("list-one", Takes::Nothing),
        Long("label", Takes::Value),
        Long("match-types", Takes::Value),
        Long("list-filesystems", Takes::Nothing),
        Long("output", Takes::Value),
        Long("offset", Takes::Value),
        Long("probe", Takes::Nothing),
        Long("size", Takes::Value),
        Long("match-tag", Takes::Value),
        Long("usages", Takes::Value),
        Long("uuid", Takes::Value),
        Long("version", Takes::Nothing),
        Long("help", Takes::Nothing),
    ],
);

fn blkid(call: &mut Call<'_>) {
    query(call, &BLKID);
}

/// util-linux findmnt.
const FINDMNT: Options = Options::gnu(
    "AabcDd:eF:fiJklmM:nN:O:o:Pp::RrS:sT:t:uvw:xyzQ:H:I:h",
    &[
        Long("all", Takes::Nothing),
        Long("ascii", Takes::Nothing),
        Long("bytes", Takes::Nothing),
        Long("canonicalize", Takes::Nothing),
        Long("df", Takes::Nothing),
        Long("direction", Takes::Value),
        Long("evaluate", Takes::Nothing),
        Long("tab-file", Takes::Value),
        Long("first-only", Takes::Nothing),
        Long("invert", Takes::Nothing),
        Long("json", Takes::Nothing),
        Long("list", Takes::Nothing),
        Long("kernel", Takes::Optional),
        Long("mountpoint", Takes::Value),
        Long("mtab", Takes::Nothing),
        Long("noheadings", Takes::Nothing),
        Long("notruncate", Takes::Nothing),
        Long("options", Takes::Value),
        Long("output", Takes::Value),
        Long("output-all", Takes::Nothing),
        Long("pairs", Takes::Nothing),
        Long("poll", Takes::Optional),
        Long("pseudo", Takes::Nothing),
        Long("raw", Takes::Nothing),
        Long("real", Takes::Nothing),
        Long("shadowed", Takes::Nothing),
        Long("submounts", Takes::Nothing),
        Long("source", Takes::Value),
        Long("target", Takes::Value),
        Long("types", Takes::Value),
        Long("nofsroot", Takes::Nothing),
        Long("uniq", Takes::Nothing),
        Long("verbose", Takes::Nothing),
        Long("verify", Takes::Nothing),
        Long("shell", Takes::Nothing),
        Long("timeout", Takes::Value),
        Long("filter", Takes::Value),
        Long("list-columns", Takes::Nothing),
        Long("help", Takes::Nothing),
        Long("version", Takes::Nothing),
    ],
);

fn findmnt(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&FINDMNT) else {
        return;
    };
    call.read(values(&parsed, &["-F", "--tab-file"]));
}

/// mount's listing forms: no operand, with `-l`/`--show-labels` and
/// `-t TYPES`. Anything else mounts.
const MOUNT_LIST: Options = Options::gnu(
    "lt:hV",
    &[
        Long("show-labels", Takes::Nothing),
        Long("types", Takes::Value),
        Long("help", Takes::Nothing),
        Long("version", Takes::Nothing),
    ],
);

fn mount(call: &mut Call<'_>) {
    match super::parse(&MOUNT_LIST, call.args) {
        Ok(parsed) if parsed.operands().next().is_none() => call.read([]),
        Ok(_) => call.not_read_only(Category::Privileged, "an operand mounts a file system"),
        Err(error) => call.not_read_only(
            Category::Privileged,
            format!("{} (only listing is)", error.describe()),
        ),
    }
}

/// ifconfig/iwconfig: no operand, `-a`/`-s`/`-v`, or one interface name
/// print; more arguments configure the interface.
fn ifconfig(call: &mut Call<'_>) {
    let mut names = 0;
    for arg in call.args {
        match arg.literal() {
            Some("-a" | "-s" | "-v" | "--help" | "--version") => {}
            Some(flag) if flag.starts_with('-') => {
                let why = format!("option `{flag}` is not one of its read-only forms");
                return call.not_read_only(Category::Privileged, why);
            }
            _ => names += 1,
        }
    }
    if names > 1 {
        return call.not_read_only(
            Category::Privileged,
            "arguments after the interface name configure it",
        );
    }
    call.read([]);
}

/// nmcli's objects in its matching order, for abbreviations (`nmcli d`).
const NMCLI_OBJECTS: &[&str] = &[
    "general",
    "networking",
    "radio",
    "connection",
    "device",
    "agent",
    "monitor",
    "help",
];

/// nmcli's global options (`-a/--ask` and `-s/--show-secrets` ask).
const NMCLI: Options = Options::posix(
    "tpm:c:f:g:e:w:vh",
    &[
        Long("terse", Takes::Nothing),
        Long("pretty", Takes::Nothing),
        Long("mode", Takes::Value),
        Long("colors", Takes::Value),
        Long("fields", Takes::Value),
        Long("get-values", Takes::Value),
        Long("escape", Takes::Value),
        Long("wait", Takes::Value),
        Long("version", Takes::Nothing),
        Long("help", Takes::Nothing),
    ],
);

fn nmcli(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&NMCLI) else {
        return;
    };
    let words: Vec<&str> = parsed.operands().map(Arg::text).collect();
    let Some(first) = words.first() else {
        return call.read([]);
    };
    let object = NMCLI_OBJECTS
        .iter()
        .find(|o| o.starts_with(first))
        .copied()
        .unwrap_or("");
    let command = words.get(1).copied();
    let prefix_of =
        |full: &str, min: usize| command.is_some_and(|c| c.len() >= min && full.starts_with(c));
    let reads = match object {
        "help" => true,
        "general" => {
            command.is_none()
                || prefix_of("status", 1)
                || prefix_of("permissions", 1)
                || ((prefix_of("hostname", 1) || prefix_of("logging", 1)) && words.len() == 2)
        }
        "networking" => command.is_none() || (prefix_of("connectivity", 1) && words.len() == 2),
        "radio" => {
            command.is_none()
                || ((prefix_of("all", 1) || prefix_of("wifi", 1) || prefix_of("wwan", 2))
                    && words.len() == 2)
        }
        "connection" => command.is_none() || prefix_of("show", 1),
        "device" => {
            command.is_none()
                || prefix_of("status", 1)
                || prefix_of("show", 2)
                || (prefix_of("wifi", 1)
                    && words
                        .get(2)
                        .is_none_or(|w| "list".starts_with(w) && !w.is_empty()))
                || (prefix_of("lldp", 2)
                    && words
                        .get(2)
                        .is_none_or(|w| "list".starts_with(w) && !w.is_empty()))
        }
        _ => false,
    };
    if reads {
        return call.read([]);
    }
    let why = format!(
        "`{}` is not one of its read-only forms (show, status, list)",
        words.join(" ")
    );
    call.not_read_only(Category::Privileged, why);
}

/// tput: prints terminal capabilities.
const TPUT: Options = Options::posix("T:SVx", &[]);

fn tput(call: &mut Call<'_>) {
    query(call, &TPUT);
}

/// stty: printing forms only (`-a`, `-g`, `size`, `speed`); any setting asks.
const STTY: Options = Options::gnu(
    "agF:",
    &[
        Long("all", Takes::Nothing),
        Long("save", Takes::Nothing),
        Long("file", Takes::Value),
        Long("help", Takes::Nothing),
        Long("version", Takes::Nothing),
    ],
);

fn stty(call: &mut Call<'_>) {
    let parsed = match super::parse(&STTY, call.args) {
        Ok(parsed) => parsed,
        Err(error) => {
            let why = format!("{} (settings change the terminal)", error.describe());
            return call.not_read_only(Category::Process, why);
        }
    };
    if let Some(setting) = parsed
        .operands()
        .find(|a| !matches!(a.literal(), Some("size" | "speed")))
    {
        let why = format!("`{}` changes the terminal's settings", setting.text());
        return call.not_read_only(Category::Process, why);
    }
    call.read([]);
}

/// man-db man: looking pages up and printing them. `-P/--pager`,
/// `-H/--html`, `-X/--gxditview`, `-T/--troff-device`, `-t/--troff`,
/// `-Z/--ditroff`, `-p/--preprocessor`, `-c/--catman` and `-u/--update`
/// run other programs or write caches: they are listed only to be
/// refused by name.
const MAN: Options = Options::gnu(
    "C:dDwWfkKlLm:M:S:s:e:iIraE:R:7hVPHXTtZpcu",
    &[
        Long("config-file", Takes::Value),
        Long("debug", Takes::Nothing),
        Long("default", Takes::Nothing),
        Long("where", Takes::Nothing),
        Long("path", Takes::Nothing),
        Long("location", Takes::Nothing),
        Long("where-cat", Takes::Nothing),
        Long("location-cat", Takes::Nothing),
        Long("whatis", Takes::Nothing),
        Long("apropos", Takes::Nothing),
        Long("global-apropos", Takes::Nothing),
        Long("local-file", Takes::Nothing),
        Long("locale", Takes::Value),
        Long("systems", Takes::Value),
        Long("manpath", Takes::Value),
        Long("sections", Takes::Value),
        Long("extension", Takes::Value),
        Long("ignore-case", Takes::Nothing),
        Long("match-case", Takes::Nothing),
        Long("regex", Takes::Nothing),
        Long("wildcard", Takes::Nothing),
        Long("names-only", Takes::Nothing),
        Long("all", Takes::Nothing),
        Long("no-subpages", Takes::Nothing),
        Long("prompt", Takes::Value),
        Long("ascii", Takes::Nothing),
        Long("encoding", Takes::Value),
        Long("no-hyphenation", Takes::Nothing),
        Long("nh", Takes::Nothing),
        Long("no-justification", Takes::Nothing),
        Long("nj", Takes::Nothing),
        Long("warnings", Takes::Optional),
        Long("recode", Takes::Value),
        Long("help", Takes::Nothing),
        Long("usage", Takes::Nothing),
        Long("version", Takes::Nothing),
        forbidden("pager"),
        forbidden("html"),
        forbidden("gxditview"),
        forbidden("troff-device"),
        forbidden("troff"),
        forbidden("ditroff"),
        forbidden("preprocessor"),
        forbidden("catman"),
        forbidden("update"),
    ],
);

/// man options that run a program or write files.
const MAN_REFUSED: &[(&str, &str)] = &[
    (
        "-C",
        "reads a man-db configuration, which names the programs man runs",
    ),
    (
        "--config-file",
        "reads a man-db configuration, which names the programs man runs",
    ),
    ("-P", "runs the given pager"),
    ("--pager", "runs the given pager"),
    ("-H", "runs a browser"),
    ("--html", "runs a browser"),
    ("-X", "runs gxditview"),
    ("--gxditview", "runs gxditview"),
    ("-T", "formats with another troff device"),
    ("--troff-device", "formats with another troff device"),
    ("-t", "formats with troff"),
    ("--troff", "formats with troff"),
    ("-Z", "formats with troff"),
    ("--ditroff", "formats with troff"),
    ("-p", "runs the given preprocessors"),
    ("--preprocessor", "runs the given preprocessors"),
    ("-c", "writes cat pages"),
    ("--catman", "writes cat pages"),
    ("-u", "rebuilds its caches"),
    ("--update", "rebuilds its caches"),
];

fn man(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&MAN) else {
        return;
    };
    if let Some((option, why)) = MAN_REFUSED.iter().find(|(o, _)| parsed.has(o)) {
        return call.not_read_only(Category::Exec, format!("`{option}` {why}"));
    }
    let mut read = Vec::new();
    if parsed.has("-l") || parsed.has("--local-file") {
        read.extend(parsed.operands());
    }
    call.read(read);
}

/// whatis/apropos: search page descriptions.
const WHATIS: Options = Options::gnu(
    "dvrwealC:Lm:M:s:hV",
    &[
        Long("debug", Takes::Nothing),
        Long("verbose", Takes::Nothing),
        Long("regex", Takes::Nothing),
        Long("wildcard", Takes::Nothing),
        Long("exact", Takes::Nothing),
        Long("and", Takes::Nothing),
        Long("long", Takes::Nothing),
        Long("config-file", Takes::Value),
        Long("locale", Takes::Value),
        Long("systems", Takes::Value),
        Long("manpath", Takes::Value),
        Long("sections", Takes::Value),
        Long("section", Takes::Value),
        Long("help", Takes::Nothing),
        Long("usage", Takes::Nothing),
        Long("version", Takes::Nothing),
    ],
);

fn whatis(call: &mut Call<'_>) {
    let Some(parsed) = query(call, &WHATIS) else {
        return;
    };
    if parsed.has("-C") || parsed.has("--config-file") {
        call.not_read_only(
            Category::Exec,
            "`-C` reads a man-db configuration the workspace may have written",
        );
    }
}

/// GNU info: `-o/--output` writes the nodes to a file, `--dribble` records
/// keystrokes to a file, `--restore` replays them: not listed.
const INFO: Options = Options::gnu(
    "ad:f:hk:n:ORv:wx:",
    &[
        Long("all", Takes::Nothing),
        Long("apropos", Takes::Value),
        Long("directory", Takes::Value),
        Long("file", Takes::Value),
        Long("help", Takes::Nothing),
        Long("index-search", Takes::Value),
        Long("node", Takes::Value),
        Long("show-options", Takes::Nothing),
        Long("usage", Takes::Nothing),
        Long("raw-escapes", Takes::Nothing),
        Long("no-raw-escapes", Takes::Nothing),
        Long("subnodes", Takes::Nothing),
        Long("variable", Takes::Value),
        Long("version", Takes::Nothing),
        Long("vi-keys", Takes::Nothing),
        Long("where", Takes::Nothing),
        Long("location", Takes::Nothing),
        Long("debug", Takes::Value),
        forbidden("output"),
        forbidden("dribble"),
        forbidden("restore"),
        forbidden("init-file"),
    ],
);

fn info(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&INFO) else {
        return;
    };
    for option in ["--output", "--dribble", "--restore", "--init-file"] {
        if parsed.has(option) {
            let why = format!("`{option}` is not one of its read-only forms");
            return call.not_read_only(Category::Write, why);
        }
    }
    call.read(values(&parsed, &["-f", "--file"]));
}

/// tldr clients: show a page; `-u/--update` and `--clear-cache` write the
/// cache or use the network: not listed.
const TLDR: Options = Options::gnu(
    "p:L:lvhr:m",
    &[
        Long("platform", Takes::Value),
        Long("language", Takes::Value),
        Long("list", Takes::Nothing),
        Long("list-all", Takes::Nothing),
        Long("render", Takes::Value),
        Long("markdown", Takes::Nothing),
        Long("raw", Takes::Nothing),
        Long("color", Takes::Optional),
        Long("version", Takes::Nothing),
        Long("help", Takes::Nothing),
        Long("info", Takes::Nothing),
    ],
);

fn tldr(call: &mut Call<'_>) {
    let Some(parsed) = call.parse(&TLDR) else {
        return;
    };
    call.read(values(&parsed, &["-r", "--render"]));
}

/// util-linux lsns.
const LSNS: Options = Options::gnu(
    "Jlno:p:rt:uTWhVQ:",
    &[
        Long("json", Takes::Nothing),
        Long("list", Takes::Nothing),
        Long("noheadings", Takes::Nothing),
        Long("output", Takes::Value),
        Long("output-all", Takes::Nothing),
        Long("persistent", Takes::Nothing),
        Long("task", Takes::Value),
        Long("raw", Takes::Nothing),
        Long("notruncate", Takes::Nothing),
        Long("nsfs", Takes::Value),
        Long("type", Takes::Value),
        Long("tree", Takes::Optional),
        Long("filter", Takes::Value),
        Long("list-columns", Takes::Nothing),
        Long("help", Takes::Nothing),
        Long("version", Takes::Nothing),
    ],
);

fn lsns(call: &mut Call<'_>) {
    query(call, &LSNS);
}

/// util-linux lslocks.
const LSLOCKS: Options = Options::gnu(
    "bJino:p:ruHhV",
    &[
        Long("bytes", Takes::Nothing),
        Long("json", Takes::Nothing),
        Long("noinaccessible", Takes::Nothing),
        Long("noheadings", Takes::Nothing),
        Long("output", Takes::Value),
        Long("output-all", Takes::Nothing),
        Long("pid", Takes::Value),
        Long("raw", Takes::Nothing),
        Long("notruncate", Takes::Nothing),
        Long("list-columns", Takes::Nothing),
        Long("help", Takes::Nothing),
        Long("version", Takes::Nothing),
    ],
);

fn lslocks(call: &mut Call<'_>) {
    query(call, &LSLOCKS);
}

/// util-linux lsipc.
const LSIPC: Options = Options::gnu(
    "qmsi:gbceJlno:PrtuyhV",
    &[
        Long("queues", Takes::Nothing),
        Long("shmems", Takes::Nothing),
        Long("semaphores", Takes::Nothing),
        Long("id", Takes::Value),
        Long("global", Takes::Nothing),
        Long("bytes", Takes::Nothing),
        Long("creator", Takes::Nothing),
        Long("export", Takes::Nothing),
        Long("json", Takes::Nothing),
        Long("list", Takes::Nothing),
        Long("newline", Takes::Nothing),
        Long("noheadings", Takes::Nothing),
        Long("notruncate", Takes::Nothing),
        Long("output", Takes::Value),
        Long("numeric-perms", Takes::Nothing),
        Long("raw", Takes::Nothing),
        Long("time", Takes::Nothing),
        Long("time-format", Takes::Value),
        Long("shell", Takes::Nothing),
        Long("help", Takes::Nothing),
        Long("version", Takes::Nothing),
    ],
);

fn lsipc(call: &mut Call<'_>) {
    query(call, &LSIPC);
}

#[cfg(test)]
mod tests {
    use super::super::examples::{check, floor, judge};
    use crate::policy::Verdict;

    #[test]
    fn only_the_listing_forms_name_socket_processes() {
        let form = |line: &str| {
            let mut words = line.split_whitespace();
            let name = words.next().unwrap_or_default();
            let args: Vec<String> = words.map(String::from).collect();
            super::names_socket_processes(name, &args)
        };
        for yes in [
            "ss -tlnp",
            "ss -p",
            "ss -ltnp sport = :8080",
            "ss --tcp --listening --processes",
            "ss -tunap -H",
            "ss -lptn -f inet",
            "lsof -i",
            "lsof -i :8080",
            "lsof -i:8080",
            "lsof -nP -i :8080",
            "lsof -nPi :8080",
            "lsof -nPiTCP:8080 -sTCP:LISTEN",
            "lsof -iTCP -s TCP:LISTEN -t",
            "lsof -i 4TCP@127.0.0.1:22 -a -c python3",
            "lsof -i :80 -Fpcn",
        ] {
            assert!(form(yes), "{yes}");
        }
        for no in [
            "ss -tln",
            "ss -s -p",
            "ss -tlnp -N other",
            "ss -p -F filter.txt",
            "ss -K -p dport = :22",
            "ss -E -p",
            "ss -tlnp --net=x",
            "lsof",
            "lsof :8080",
            "lsof -p 1",
            "lsof /etc/passwd",
            "lsof -i :8080 /etc/passwd",
            "lsof -i :8080 +D /home",
            "lsof -i :8080 -D x",
            "lsof -i :8080 -k /tmp/k",
            "lsof -i :8080 +m",
            "lsof -i -r 1",
            "lsof -ni -c",
            "nsenter -i ss -p",
            "netstat -tlnp",
        ] {
            assert!(!form(no), "{no}");
        }
    }

    const MATCH: &[&str] = &[
        "ps",
        "ps aux",
        "ps -ef",
        "ps -eo pid,comm --sort=-%mem",
        "ps axjf",
        "ps -p 1 -o comm=",
        "ps -u root",
        "free -m",
        "free -h --si",
        "uptime",
        "uptime -p",
        "uname -a",
        "uname -r",
        "whoami",
        "id",
        "id -un",
        "groups",
        "groups root",
        "w",
        "who",
        "who am i",
        "last -n 5",
        "last -10 reboot",
        "lsblk",
        "lsblk -f -o NAME,SIZE",
        "lscpu",
        "lscpu -e",
        "lsusb -t",
        "lspci -nnk",
        "lsmod",
        "nproc",
        "nproc --all",
        "printenv PATH",
        "printenv",
        "arch",
        "date",
        "date +%s",
        "date -u +%Y-%m-%dT%H:%M:%SZ",
        "date -d yesterday",
        "date -d @0 -R",
        "date -I",
        "date -r Cargo.toml",
        "hostname",
        "hostname -f",
        "hostname -I",
        "journalctl -n 50",
        "journalctl -u nginx -n 100 --no-pager",
        "journalctl -b -1 -p err",
        "journalctl -k -b",
        "journalctl -f",
        "journalctl --since '1 hour ago' -o json",
        "journalctl -xe",
        "journalctl --user -u foo",
        "journalctl --list-boots",
        "journalctl --disk-usage",
        "journalctl -g error -r -q",
        "journalctl -t sshd --until today",
        "journalctl _PID=1",
        "systemctl",
        "systemctl status nginx",
        "systemctl status",
        "systemctl list-units --type=service --state=running",
        "systemctl list-unit-files",
        "systemctl --user list-timers",
        "systemctl is-active nginx",
        "systemctl is-enabled nginx",
        "systemctl is-failed nginx",
        "systemctl show nginx -p MainPID",
        "systemctl cat nginx",
        "systemctl list-dependencies",
        "systemctl get-default",
        "systemctl --no-pager -l status x",
        "systemctl --failed",
        "ip addr",
        "ip a",
        "ip -br a",
        "ip -br -c addr show",
        "ip -4 addr show dev eth0",
        "ip link",
        "ip -s link show",
        "ip l",
        "ip route",
        "ip r",
        "ip route show table all",
        "ip r get 1.1.1.1",
        "ip neigh",
        "ip -j -p route",
        "ip rule list",
        "ip netns list",
        "ip netconf",
        "ip maddr",
        "ip tunnel show",
        "ip --brief address",
        "ss -tlnp",
        "ss -tunap",
        "ss -s",
        "ss state established",
        "netstat -tulpn",
        "netstat -rn",
        "lsof -i",
        "lsof -i :8080",
        "lsof -p 1",
        "lsof +D src",
        "lsof -nP -iTCP -sTCP:LISTEN",
        "dmesg",
        "dmesg -T",
        "dmesg --level=err,warn -H",
        "dmesg -w",
        "getent passwd root",
        "locale",
        "locale -a",
        "localectl",
        "localectl status",
        "localectl list-locales",
        "cal",
        "cal -3",
        "ncal 2024",
        "vmstat 1 5",
        "vmstat -s",
        "iostat -x 1 3",
        "mpstat -P ALL 1 1",
        "pidstat 1 3",
        "pgrep -a nginx",
        "pgrep -f 'python app.py'",
        "pgrep -u root -l sshd",
        "pidof sshd",
        "top -b -n 1",
        "top -bn1 -o %MEM",
        "htop --version",
        "sensors",
        "sensors -j",
        "nvidia-smi",
        "nvidia-smi -L",
        "nvidia-smi -q",
        "nvidia-smi -q -d MEMORY",
        "nvidia-smi --query-gpu=name,memory.used --format=csv",
        "nvidia-smi -i 0 --query-gpu=utilization.gpu --format=csv,noheader",
        "nvidia-smi topo -m",
        "nvidia-smi dmon -c 1",
        "lsb_release -a",
        "hostnamectl",
        "hostnamectl status",
        "hostnamectl hostname",
        "timedatectl",
        "timedatectl status",
        "timedatectl list-timezones",
        "timedatectl show",
        "loginctl",
        "loginctl list-sessions",
        "loginctl show-session 2",
        "loginctl user-status",
        "blkid",
        "blkid -o value -s UUID /dev/sda1",
        "findmnt",
        "findmnt -t ext4",
        "findmnt --target src",
        "mount",
        "mount -l",
        "mount -t ext4",
        "mount -l -t tmpfs",
        "ifconfig",
        "ifconfig -a",
        "ifconfig eth0",
        "iwconfig",
        "iwconfig wlan0",
        "nmcli",
        "nmcli general status",
        "nmcli g",
        "nmcli device status",
        "nmcli d",
        "nmcli dev show",
        "nmcli connection show",
        "nmcli c",
        "nmcli -t -f NAME,UUID con show",
        "nmcli device wifi list",
        "nmcli d wifi",
        "nmcli radio wifi",
        "nmcli networking",
        "nmcli general hostname",
        "tput cols",
        "tput lines",
        "stty",
        "stty -a",
        "stty size",
        "stty -g",
        "man ls",
        "man 5 passwd",
        "man -k network",
        "man -f ls",
        "man -w ls",
        "man -a printf",
        "man -K foo",
        "man -l notes.md",
        "whatis ls",
        "apropos -s 1 copy",
        "info coreutils",
        "info -f notes.md",
        "info --apropos=grep",
        "tldr tar",
        "tldr -p linux tar",
        "lsns",
        "lslocks",
        "lsipc",
    ];

    const NOT_MATCH: &[&str] = &[
        "ps --bogus",
        "free --bogus",
        "date -s '2024-01-01'",
        "date --set='2024-01-01'",
        "date 010112002024",
        "date -u 0101",
        "hostname newname",
        "hostname -F /etc/hostname",
        "hostname -b name",
        "hostname --file x",
        "journalctl --vacuum-size=1M",
        "journalctl --vacuum-time=1s",
        "journalctl --vacuum-files=1",
        "journalctl --vac=1M",
        "journalctl --rotate",
        "journalctl --flush",
        "journalctl --sync",
        "journalctl --relinquish-var",
        "journalctl --smart-relinquish-var",
        "journalctl --setup-keys",
        "journalctl --update-catalog",
        "journalctl --verify-key=x",
        "journalctl --cursor-file=c",
        "systemctl start nginx",
        "systemctl stop nginx",
        "systemctl restart nginx",
        "systemctl enable nginx",
        "systemctl disable nginx",
        "systemctl mask nginx",
        "systemctl edit nginx",
        "systemctl set-property nginx CPUQuota=1%",
        "systemctl daemon-reload",
        "systemctl kill nginx",
        "systemctl --user start foo",
        "systemctl -H host status",
        "systemctl --host=host status",
        "systemctl poweroff",
        "systemctl reboot",
        "systemctl isolate rescue.target",
        "systemctl link ./evil.service",
        "ip addr add 10.0.0.1/24 dev eth0",
        "ip link set eth0 down",
        "ip route del default",
        "ip route flush table main",
        "ip a del 1.2.3.4/32 dev lo",
        "ip r replace default via 1.1.1.1",
        "ip neigh flush all",
        "ip netns exec foo sh",
        "ip netns add foo",
        "ip -batch cmds.txt",
        "ip -b cmds.txt",
        "ip -force -batch cmds.txt",
        "ip monitor",
        "ip xfrm state",
        "ip route save",
        "ip link change eth0 mtu 1",
        "ss -K dst 1.2.3.4",
        "ss --kill",
        "ss -D dump.bin",
        "lsof -D b",
        "lsof +m",
        "dmesg -c",
        "dmesg -C",
        "dmesg --clear",
        "dmesg --read-clear",
        "dmesg -D",
        "dmesg -E",
        "dmesg -n 1",
        "dmesg --console-off",
        "localectl set-locale LANG=C",
        "localectl set-keymap us",
        "pidstat -e ./evil",
        "top",
        "top -b",
        "top -n 1",
        "htop",
        "sensors -s",
        "sensors --set",
        "nvidia-smi -r",
        "nvidia-smi --gpu-reset",
        "nvidia-smi -pm 1",
        "nvidia-smi -pl 100",
        "nvidia-smi --power-limit=100",
        "nvidia-smi -ac 1,1",
        "nvidia-smi -rac",
        "nvidia-smi -e 0",
        "nvidia-smi -c 3",
        "nvidia-smi -mig 1",
        "nvidia-smi -q -f out.txt",
        "nvidia-smi dmon -f out.txt",
        "nvidia-smi --auto-boost-default=0",
        "hostnamectl set-hostname x",
        "hostnamectl hostname x",
        "timedatectl set-time 12:00",
        "timedatectl set-ntp false",
        "loginctl terminate-session 2",
        "loginctl kill-user root",
        "loginctl lock-sessions",
        "loginctl enable-linger",
        "blkid -g",
        "mount /dev/sda1 /mnt",
        "mount -a",
        "mount -o remount,rw /",
        "mount --bind a b",
        "mount -t tmpfs none /mnt",
        "ifconfig eth0 down",
        "ifconfig eth0 10.0.0.1",
        "iwconfig wlan0 essid x",
        "nmcli connection up foo",
        "nmcli c down foo",
        "nmcli connection modify foo ipv4.dns 1.1.1.1",
        "nmcli connection add type ethernet",
        "nmcli connection delete foo",
        "nmcli device wifi connect ssid",
        "nmcli device set eth0 managed no",
        "nmcli device disconnect eth0",
        "nmcli networking off",
        "nmcli radio wifi off",
        "nmcli general hostname x",
        "nmcli -a c up foo",
        "nmcli -s c show foo",
        "stty raw",
        "stty -echo",
        "stty sane",
        "stty cols 80",
        "man -P 'touch x' ls",
        "getent hosts localhost",
        "getent ahosts data.example.com",
        "getent -s dns hosts x.example",
        "man -C man.conf ls",
        "man -Cman.conf -l x.1",
        "man --config-file=man.conf ls",
        "man --config man.conf ls",
        "man -aC man.conf ls",
        "apropos -C man.conf ls",
        "whatis --config-file man.conf ls",
        "man --pager='touch x' ls",
        "man --pag=cat ls",
        "man -H ls",
        "man --html=firefox ls",
        "man -X ls",
        "man -T pdf ls",
        "man -t ls",
        "man -p 'tbl' ls",
        "man -u",
        "man -c ls",
        "info -o out.txt coreutils",
        "info --output=out.txt coreutils",
        "info --out=out.txt coreutils",
        "info --dribble=keys coreutils",
        "info --restore=keys coreutils",
        "tldr -u",
        "tldr --update",
        "tldr --clear-cache",
    ];

    #[test]
    fn examples() {
        check(MATCH, NOT_MATCH);
    }

    #[test]
    fn power_verbs_are_blocked_and_reasons_name_the_form() {
        assert_eq!(floor(&judge("systemctl poweroff")), Some(Verdict::Block));
        assert_eq!(floor(&judge("systemctl restart x")), Some(Verdict::Confirm));
        let reason = |line: &str| {
            judge(line).steps[0]
                .floor
                .as_ref()
                .map(|f| f.reason.clone())
                .unwrap_or_default()
        };
        assert!(reason("journalctl --vacuum-size=1M").contains("--vacuum-size"));
        assert!(reason("man -P 'touch x' ls").contains("`-P`"));
        assert!(reason("date -s now").contains("`-s`"));
        assert!(reason("ip link set eth0 down").contains("ip link set"));
        assert!(reason("systemctl start x").contains("`start`"));
    }
}
