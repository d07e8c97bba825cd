#!/usr/bin/env bash
# The cost of starting each external through the sandbox launcher: a direct
# spawn of /bin/true against `nu-agent --sandbox-exec <read-only> -- /bin/true`,
# and a whole `nu-agent run '^true'` (worker sandbox off, to isolate the
# launcher) with policy.external_sandbox on and off.
# Medians of 25 runs each, the two commands alternated; prints a table.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/nu-agent/target}"
cargo build --release -p nu_plugin_agent --bin nu-agent >&2
BIN="$CARGO_TARGET_DIR/release/nu-agent"
RUNS="${RUNS:-25}" BIN="$BIN" python3 - <<'PY'
import json, os, statistics, subprocess, tempfile, time

runs = int(os.environ["RUNS"])
bin_ = os.environ["BIN"]
read_only = json.dumps({"writable": [], "network": False})
work = tempfile.mkdtemp(prefix="bench-launcher-")
on = os.path.join(work, "on.nuon")
off = os.path.join(work, "off.nuon")
with open(on, "w") as f:
    f.write("{ policy: { sandbox: off } }\n")
with open(off, "w") as f:
    f.write("{ policy: { sandbox: off, external_sandbox: false } }\n")
env = dict(os.environ, NU_AGENT_STATE_DIR=os.path.join(work, "state"))

def timed(argv):
    start = time.perf_counter()
    subprocess.run(argv, cwd=work, env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start

def pair(name, a, b):
    ta, tb = [], []
    timed(a); timed(b)
    for _ in range(runs):
        ta.append(timed(a))
        tb.append(timed(b))
    ma, mb = statistics.median(ta), statistics.median(tb)
    ratios = statistics.median([x / y for x, y in zip(ta, tb)])
    print(f"| {name} | {ma * 1000:.2f} ms | {mb * 1000:.2f} ms | {(ma - mb) * 1000:+.2f} ms | {ratios:.2}× |")

print(f"| what (median of {runs}) | with the launcher | without | cost | ratio |")
print("|---|---|---|---|---|")
pair("spawn `/bin/true`", [bin_, "--sandbox-exec", read_only, "--", "/bin/true"], ["/bin/true"])
pair("`nu-agent run '^true'` (sandbox off)",
     [bin_, "--config", on, "run", "^true"],
     [bin_, "--config", off, "run", "^true"])
PY
