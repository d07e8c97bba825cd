#!/usr/bin/env bash
# Regenerate the tables of docs/benchmarks.md (the README shows the latest
# row of each, by hand). Each table
# sits between `<!-- report:NAME -->` and `<!-- /report:NAME -->`; a part
# runs its command (release builds), takes the markdown table(s) it prints
# and puts them between the markers under one line:
#
#   Made with `COMMAND` on YYYY-MM-DD (this machine: N cores).
#
#   nu-scripts/report.sh [--dry-run] [--from DIR] [--save DIR] [NAME...]
#
# With no NAME every part. A NAME is a part, or `shell` (latency and
# tokens) or `local` (every local-* part). `--list` shows the parts and their
# commands. Parts that one command makes together run it once (the shell
# bench makes latency and tokens; bench-local.sh makes every local-* part
# asked for, with BENCH_LOCAL_PARTS set to those).
#
#   --dry-run   print the change docs/benchmarks.md would get (a unified diff); write nothing
#   --from DIR  take each part from DIR/NAME.txt instead of running its command.
#               A file that starts with a "Made with" line is used as it is
#               (so outputs made on another machine keep their command, date
#               and cores); otherwise that line is made here, with the file's
#               date.
#   --save DIR  where each part's block content goes as NAME.txt, and each
#               command's raw output as JOB.out (default:
#               $CARGO_TARGET_DIR/report); ready for --from.
#
# docs/benchmarks.md is replaced (a temporary file moved over it) only when every
# part asked for succeeded; when one fails nothing is written, the script
# names the failed parts, and exits 1. The parts that succeeded are in the
# save directory: `--from DIR NAME...` applies them.
#
# Settings (environment) that change a result are passed on and written in
# the "Made with" line: RUNS (bench-launcher.sh), BENCH_LOCAL_* (bench-local.sh,
# except BENCH_LOCAL_PARTS, which the local-* names set), EVAL_MODELS,
# EVAL_SERVER, EVAL_MAX_STEPS, EVAL_TASKS (eval-models.sh).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/nu-agent/target}"
DOC="$ROOT/docs/benchmarks.md"
DOC_NAME="docs/benchmarks.md"

log() { echo "report: $*" >&2; }
die() { log "$*"; exit 2; }

# Every part, in the document's order.
ALL_PARTS=(latency tokens policy layers session launcher mcp
  local-speed local-episode local-validity local-busy local-bandwidth local-prefix
  eval)
LOCAL_ORDER=(speed episode validity ttft busy bandwidth)

# The command (job) that makes a part.
job_of() {
  case "$1" in
  latency | tokens) echo shell ;;
  local-*) echo local ;;
  *) echo "$1" ;;
  esac
}

# A local-* part's name in BENCH_LOCAL_PARTS.
local_part() {
  case "$1" in
  local-prefix) echo ttft ;;
  *) echo "${1#local-}" ;;
  esac
}

# `NAME=value ` for each of the named variables that is set.
env_prefix() {
  local name out=""
  for name in "$@"; do
    if [ -n "${!name+x}" ]; then
      out+="$name=$(printf '%q' "${!name}") "
    fi
  done
  printf '%s' "$out"
}

# Whole `nu-agent run 'ls | length'` calls with each policy layer on, in a
# directory of 200 files; `nu-agent` is the release build (first on PATH).
LAYERS_CMD="hyperfine -N --warmup 3 --runs 25 \
\"nu-agent run --disable-layer static --disable-layer guards --sandbox off 'ls | length'\" \
\"nu-agent run --sandbox off 'ls | length'\" \
\"nu-agent run 'ls | length'\""
LAYERS_LABELS=(
  "none (\`--disable-layer static --disable-layer guards --sandbox off\`)"
  "static check + guards (\`--sandbox off\`)"
  "static check + guards + Landlock/seccomp worker (default)"
)

# job_command JOB [LOCAL_PARTS]: the command line written in "Made with".
job_command() {
  case "$1" in
  shell) echo "cargo bench -p agent-core --bench shell" ;;
  policy) echo "cargo bench -p agent-core --bench policy" ;;
  layers) echo "$LAYERS_CMD" ;;
  session) echo "bash nu-scripts/bench-session.sh" ;;
  mcp) echo "bash nu-scripts/bench-mcp.sh" ;;
  launcher) echo "$(env_prefix RUNS)bash nu-scripts/bench-launcher.sh" ;;
  local)
    echo "$(env_prefix BENCH_LOCAL_MODELS BENCH_LOCAL_THREADS BENCH_LOCAL_RUNS \
      BENCH_LOCAL_PEER_FLASH_ATTN BENCH_LOCAL_GUARD BENCH_LOCAL_SETS)BENCH_LOCAL_PARTS=$2 bash nu-scripts/bench-local.sh"
    ;;
  eval) echo "$(env_prefix EVAL_MODELS EVAL_SERVER EVAL_MAX_STEPS EVAL_TASKS)bash nu-scripts/eval-models.sh" ;;
  *) die "no command for $1" ;;
  esac
}

# The splitting, the block content and the document's rewrite.
HELPER="$(
  cat <<'PY'
import os, re, sys

BEGIN = "<!-- report:{} -->"
END = "<!-- /report:{} -->"
MARKER = re.compile(r"^<!-- (/?)report:([A-Za-z0-9_-]+) -->$")

def fail(msg):
    print(f"report: {msg}", file=sys.stderr)
    sys.exit(1)

DOC = "docs/benchmarks.md"

def section(lines):
    """[start, end) of the lines the blocks may be in: the whole document."""
    return 0, len(lines)

def blocks(lines):
    """{name: (open line, close line)} for the markers in the document."""
    a, b = section(lines)
    found, open_ = {}, None
    for i in range(a, b):
        m = MARKER.match(lines[i].strip())
        if not m:
            if "report:" in lines[i] and "<!--" in lines[i]:
                fail(f"{DOC}:{i + 1}: a marker not alone on its line: {lines[i]!r}")
            continue
        closing, name = m.group(1) == "/", m.group(2)
        if not closing:
            if open_ is not None:
                fail(f"{DOC}:{i + 1}: report:{name} opens inside report:{open_[0]}")
            if name in found:
                fail(f"{DOC}:{i + 1}: a second report:{name} block")
            open_ = (name, i)
        else:
            if open_ is None or open_[0] != name:
                fail(f"{DOC}:{i + 1}: /report:{name} closes no open report:{name}")
            found[name] = (open_[1], i)
            open_ = None
    if open_ is not None:
        fail(f"{DOC}:{open_[1] + 1}: report:{open_[0]} is never closed")
    return found

def normalize(text):
    """Block content: no leading/trailing blank lines, one blank line at most
    in a row, trailing spaces cut, headings made bold lines (a block never
    adds a heading to the document)."""
    out = []
    for line in text.replace("\r\n", "\n").split("\n"):
        line = line.rstrip()
        if MARKER.match(line.strip()) or "<!-- report:" in line or "<!-- /report:" in line:
            raise ValueError("it contains a report marker")
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*$", line)
        if m:
            line = f"**{m.group(1)}**"
        if line == "" and (not out or out[-1] == ""):
            continue
        out.append(line)
    while out and out[-1] == "":
        out.pop()
    if not any(l.startswith("|") for l in out):
        raise ValueError("no markdown table in it")
    return out

def made_line(command, date, cores):
    return f"Made with `{command}` on {date} (this machine: {cores} cores)."

def write_part(path, made, content):
    with open(path, "w") as f:
        f.write("\n".join([made, ""] + content) + "\n")

def split_job(job, text, parts):
    """{part: text} from one command's stdout."""
    lines = text.split("\n")
    if job == "shell":
        heads = {"latency": r"^#+\s*Latency\b", "tokens": r"^#+\s*Tokens\b"}
    elif job == "local":
        # bench-local.sh: "### 1. Speed ...", "### 2. KV reuse ..." and so on.
        heads = {"local-speed": r"^#+\s*1\.", "local-episode": r"^#+\s*2\.",
                 "local-validity": r"^#+\s*3\.", "local-prefix": r"^#+\s*4\.",
                 "local-busy": r"^#+\s*5\.", "local-bandwidth": r"^#+\s*6\."}
    else:
        return {p: text for p in parts}
    starts = []
    for i, l in enumerate(lines):
        for name, pat in heads.items():
            if re.match(pat, l):
                starts.append((i, name))
    starts.append((len(lines), None))
    out = {}
    for (i, name), (j, _) in zip(starts, starts[1:]):
        if name in parts:
            out[name] = "\n".join(lines[i + 1:j])
    return out

def cmd_split(job, raw, outdir, command, date, cores, *parts):
    """Write OUTDIR/PART.txt for each part found; print the parts written."""
    text = open(raw, encoding="utf-8", errors="replace").read()
    got = split_job(job, text, set(parts))
    for p in parts:
        if p not in got:
            print(f"report: {p}: not in the output of `{command}`", file=sys.stderr)
            continue
        try:
            content = normalize(got[p])
        except ValueError as e:
            print(f"report: {p}: output of `{command}` unusable: {e}", file=sys.stderr)
            continue
        write_part(os.path.join(outdir, p + ".txt"), made_line(command, date, cores), content)
        print(p)

def cmd_from(name, src, dst, command, date, cores):
    """A --from file as block content: its own Made with line, or one made here."""
    text = open(src, encoding="utf-8").read()
    body = text.lstrip("\n").split("\n")
    if body and body[0].startswith("Made with "):
        made, rest = body[0].rstrip(), "\n".join(body[1:])
    else:
        made, rest = made_line(command, date, cores), text
    try:
        content = normalize(rest)
    except ValueError as e:
        fail(f"{name}: {src} unusable: {e}")
    write_part(dst, made, content)

def cmd_check(readme, *names):
    lines = open(readme, encoding="utf-8").read().split("\n")
    found = blocks(lines)
    missing = [n for n in names if n not in found]
    if missing:
        fail(f"{DOC} has no block for " + ", ".join(missing)
             + " (add <!-- report:NAME --> ... <!-- /report:NAME --> to it)")

def cmd_apply(readme, out, *pairs):
    """The document with the named blocks' content replaced, into OUT."""
    text = open(readme, encoding="utf-8").read()
    lines = text.split("\n")
    found = blocks(lines)
    new = {}
    for pair in pairs:
        name, path = pair.split("=", 1)
        if name not in found:
            fail(f"{DOC} has no block for {name}")
        content = open(path, encoding="utf-8").read().rstrip("\n").split("\n")
        new[name] = content
    # Bottom up, so that earlier line numbers stay right.
    for name, (a, b) in sorted(found.items(), key=lambda kv: -kv[1][0]):
        if name in new:
            # A blank line before the closing marker ends the table for every
            # markdown reader.
            lines[a + 1:b] = new[name] + [""]
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    # Nothing outside the blocks changed.
    old_out = [l for i, l in enumerate(text.split("\n"))
               if not any(a < i < b for a, b in found.values())]
    new_lines = open(out, encoding="utf-8").read().split("\n")
    new_found = blocks(new_lines)
    new_out = [l for i, l in enumerate(new_lines)
               if not any(a < i < b for a, b in new_found.values())]
    if old_out != new_out or sorted(new_found) != sorted(found):
        fail(f"internal error: the rewrite would change {DOC} outside the blocks")

globals()["cmd_" + sys.argv[1]](*sys.argv[2:])
PY
)"
helper() { python3 -c "$HELPER" "$@"; }

usage() { sed -n '2,36p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

# --- arguments -------------------------------------------------------------
DRY_RUN=0
FROM=""
SAVE=""
NAMES=()
while [ $# -gt 0 ]; do
  case "$1" in
  --dry-run) DRY_RUN=1 ;;
  --from)
    [ $# -ge 2 ] || die "--from takes a directory"
    FROM="$2"
    shift
    ;;
  --from=*) FROM="${1#--from=}" ;;
  --save)
    [ $# -ge 2 ] || die "--save takes a directory"
    SAVE="$2"
    shift
    ;;
  --save=*) SAVE="${1#--save=}" ;;
  --list)
    for p in "${ALL_PARTS[@]}"; do
      j="$(job_of "$p")"
      if [ "$j" = local ]; then c="$(job_command local "$(local_part "$p")")"; else c="$(job_command "$j")"; fi
      printf '%-16s %s\n' "$p" "$c"
    done
    exit 0
    ;;
  -h | --help)
    usage
    exit 0
    ;;
  -*) die "unknown option $1 (see --help)" ;;
  *) NAMES+=("$1") ;;
  esac
  shift
done
if [ -n "$FROM" ]; then
  [ -d "$FROM" ] || die "--from $FROM: no such directory"
  FROM="$(cd "$FROM" && pwd)"
fi

# The parts asked for, each once, in the document's order.
declare -A WANT=()
[ ${#NAMES[@]} -gt 0 ] || NAMES=("${ALL_PARTS[@]}")
for n in "${NAMES[@]}"; do
  case "$n" in
  shell) WANT[latency]=1 WANT[tokens]=1 ;;
  local) for p in "${ALL_PARTS[@]}"; do [[ $p == local-* ]] && WANT[$p]=1; done ;;
  *)
    ok=0
    for p in "${ALL_PARTS[@]}"; do [ "$p" = "$n" ] && ok=1; done
    [ "$ok" = 1 ] || die "unknown part $n (parts: ${ALL_PARTS[*]}, shell, local)"
    WANT[$n]=1
    ;;
  esac
done
PARTS=()
for p in "${ALL_PARTS[@]}"; do [ -n "${WANT[$p]:-}" ] && PARTS+=("$p"); done

# Every block must be there before anything runs (a bench can take an hour).
helper check "$DOC" "${PARTS[@]}" || exit 2

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/parts"
DATE="$(date +%F)"
CORES="$(nproc)"
FAILED=()

# --- the jobs ----------------------------------------------------------------
# The shell bench needs the nu host and the test model (as test.sh installs).
# (Every step is checked: errexit is off inside `if ! run_job ...`.)
prepare_shell() {
  if [ -z "${NU_AGENT_TEST_NU:-}" ]; then
    NU_AGENT_TEST_NU="$(bash nu-scripts/install-nu.sh)" || return 1
  fi
  if [ -z "${NU_AGENT_TEST_MODEL:-}" ]; then
    NU_AGENT_TEST_MODEL="$(bash nu-scripts/fetch-test-model.sh)" || return 1
  fi
  export NU_AGENT_TEST_NU NU_AGENT_TEST_MODEL
}

# The layers table: hyperfine over `nu-agent run` with each layer on.
run_layers() {
  if ! command -v hyperfine >/dev/null 2>&1; then
    log "installing hyperfine"
    local sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    $sudo apt-get install -y hyperfine >&2 ||
      { $sudo apt-get update >&2 && $sudo apt-get install -y hyperfine >&2; } || return 1
  fi
  cargo build --release -p nu_plugin_agent --bin nu-agent >&2 || return 1
  local dir="$WORK/layers"
  mkdir -p "$dir/files" "$dir/state" || return 1
  # 200 files, as in the policy bench.
  python3 - "$dir/files" <<'PY' || return 1
import os, sys
for i in range(200):
    with open(os.path.join(sys.argv[1], f"f{i}.txt"), "wb") as f:
        f.write(b"x" * (i * 10))
PY
  echo '{}' >"$dir/config.nuon" || return 1
  (
    set -e
    cd "$dir/files"
    # `nu-agent` in the command is the release build; no user config or state.
    export PATH="$CARGO_TARGET_DIR/release:$PATH" NU_AGENT_CONFIG="$dir/config.nuon" \
      NU_AGENT_STATE_DIR="$dir/state"
    eval "$LAYERS_CMD --export-json $(printf '%q' "$dir/hyperfine.json")" >&2
  ) || return 1
  python3 - "$dir/hyperfine.json" "${LAYERS_LABELS[@]}" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))["results"]
labels = sys.argv[2:]
assert len(results) == len(labels), (len(results), len(labels))
base = results[0]["mean"]
print("| layers | mean | relative |")
print("|---|---|---|")
for label, r in zip(labels, results):
    print(f"| {label} | {r['mean'] * 1000:.1f} ms | {r['mean'] / base:.2f} |")
PY
}

# run_job JOB COMMAND: the command's stdout into $OUTDIR/JOB.out.
run_job() {
  local job="$1" command="$2"
  log "$job: $command"
  case "$job" in
  layers) run_layers ;;
  shell) prepare_shell && bash -c "$command" ;;
  *) bash -c "$command" ;;
  esac >"$OUTDIR/$job.out"
}

# --- the parts ---------------------------------------------------------------
if [ -n "$FROM" ]; then
  for p in "${PARTS[@]}"; do
    src="$FROM/$p.txt"
    if [ ! -f "$src" ]; then
      log "$p: no $src"
      FAILED+=("$p")
      continue
    fi
    j="$(job_of "$p")"
    if [ "$j" = local ]; then c="$(job_command local "$(local_part "$p")")"; else c="$(job_command "$j")"; fi
    helper from "$p" "$src" "$WORK/parts/$p.txt" "$c" "$(date -r "$src" +%F)" "$CORES" || FAILED+=("$p")
  done
else
  OUTDIR="${SAVE:-$CARGO_TARGET_DIR/report}"
  mkdir -p "$OUTDIR"
  OUTDIR="$(cd "$OUTDIR" && pwd)"
  # Jobs in the order of their first part; each job runs once.
  JOBS=()
  for p in "${PARTS[@]}"; do
    j="$(job_of "$p")"
    [[ " ${JOBS[*]} " == *" $j "* ]] || JOBS+=("$j")
  done
  for j in "${JOBS[@]}"; do
    jparts=()
    for p in "${PARTS[@]}"; do [ "$(job_of "$p")" = "$j" ] && jparts+=("$p"); done
    if [ "$j" = local ]; then
      lp=""
      for name in "${LOCAL_ORDER[@]}"; do
        for p in "${jparts[@]}"; do
          [ "$(local_part "$p")" = "$name" ] && lp+="${lp:+,}$name"
        done
      done
      command="$(job_command local "$lp")"
    else
      command="$(job_command "$j")"
    fi
    for p in "${jparts[@]}"; do rm -f "$OUTDIR/$p.txt"; done
    if ! run_job "$j" "$command"; then
      log "$j: \`$command\` failed"
      FAILED+=("${jparts[@]}")
      continue
    fi
    made="$(helper split "$j" "$OUTDIR/$j.out" "$OUTDIR" "$command" "$DATE" "$CORES" "${jparts[@]}")" || true
    for p in "${jparts[@]}"; do
      if grep -qx -- "$p" <<<"$made"; then
        cp "$OUTDIR/$p.txt" "$WORK/parts/$p.txt"
      else
        FAILED+=("$p")
      fi
    done
  done
fi

# --- the document ------------------------------------------------------------
pairs=()
for p in "${PARTS[@]}"; do
  [ -f "$WORK/parts/$p.txt" ] && pairs+=("$p=$WORK/parts/$p.txt")
done
NEW="$(mktemp "$ROOT/docs/.benchmarks.md.XXXXXX")"
trap 'rm -rf "$WORK"; rm -f "$NEW"' EXIT
helper apply "$DOC" "$NEW" "${pairs[@]}" || exit 2

if [ "$DRY_RUN" = 1 ]; then
  if diff -q "$DOC" "$NEW" >/dev/null; then
    log "dry run: $DOC_NAME would not change (${PARTS[*]})"
  else
    diff -u --label "$DOC_NAME" --label "$DOC_NAME" "$DOC" "$NEW" || true
  fi
fi

if [ ${#FAILED[@]} -gt 0 ]; then
  log "failed: ${FAILED[*]}; $DOC_NAME not changed"
  ok=()
  for p in "${PARTS[@]}"; do [ -f "$WORK/parts/$p.txt" ] && [[ " ${FAILED[*]} " != *" $p "* ]] && ok+=("$p"); done
  if [ -z "$FROM" ] && [ ${#ok[@]} -gt 0 ]; then
    log "the parts that succeeded: bash nu-scripts/report.sh --from $OUTDIR ${ok[*]}"
  fi
  exit 1
fi

if [ "$DRY_RUN" = 1 ]; then
  exit 0
fi
if diff -q "$DOC" "$NEW" >/dev/null; then
  log "$DOC_NAME unchanged (${PARTS[*]})"
  exit 0
fi
chmod --reference="$DOC" "$NEW"
mv "$NEW" "$DOC"
log "$DOC_NAME: ${PARTS[*]}"
