#!/usr/bin/env bash
# The per-token path against llama.cpp's own decode: our generation loop
# (greedy, the sampler chain, loop guard, stream splitter, detokenizing)
# with the tool-call grammar off and on, the time per token it spends
# outside llama_decode, and llama-bench's text generation built against the
# same llama.cpp libraries (nu-scripts/build-llama-bench.sh), runs
# alternated. Prints a markdown table.
#
#   nu-scripts/bench-decode.sh [RESULTS.jsonl]
#
# Settings (environment): BENCH_LOCAL_MODELS (smollm2,qwen0.5b,qwen1.5b),
# BENCH_LOCAL_THREADS (1,2), BENCH_LOCAL_RUNS (5).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/nu-agent/target}"
RESULTS="${1:-$(mktemp --suffix=.jsonl)}"

log() { echo "bench-decode: $*" >&2; }

export BENCH_LOCAL_MODELS="${BENCH_LOCAL_MODELS:-smollm2,qwen0.5b,qwen1.5b}"
export BENCH_LOCAL_PARTS=overhead
case "$BENCH_LOCAL_MODELS" in
*smollm2*) export NU_AGENT_TEST_MODEL="${NU_AGENT_TEST_MODEL:-$(bash nu-scripts/fetch-test-model.sh)}" ;;
esac
case "$BENCH_LOCAL_MODELS" in
*qwen0.5b*) bash nu-scripts/fetch-qwen-model.sh 0.5b >/dev/null ;;
esac
case "$BENCH_LOCAL_MODELS" in
*qwen1.5b*) bash nu-scripts/fetch-qwen-model.sh 1.5b >/dev/null ;;
esac

log "building (release)"
cargo bench --quiet -p agent-core --bench local --no-run
BENCH_LOCAL_LLAMA_BENCH="$(bash nu-scripts/build-llama-bench.sh)"
export BENCH_LOCAL_LLAMA_BENCH

load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
started="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
log "running; raw results in $RESULTS"
cargo bench --quiet -p agent-core --bench local | tee "$RESULTS"
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"

cpu="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
python3 - "$RESULTS" "$cpu" "$(nproc)" "$started" "$load_before" "$load_after" <<'PY'
import json, sys

path, cpu, cores, started, load_before, load_after = sys.argv[1:7]
rows = [json.loads(l) for l in open(path) if l.startswith("{")]
rows = [r for r in rows if r.get("part") == "overhead"]

def num(x, digits=1):
    return "–" if x is None else f"{x:.{digits}f}"

print(f"\n## Decode: our generation loop vs llama-bench ({started})\n")
print(f"Machine: {cpu}, {cores} cores; load average (1/5/15 min) {load_before} before, {load_after} after.\n")
if rows:
    r0 = rows[0]
    print(f"Greedy, {r0['tokens']} tokens from a depth of the prompt's tokens, n_ctx {r0['n_ctx']} "
          f"(llama-bench: depth + tokens), n_batch/n_ubatch {r0['n_batch']}, flash attention auto, "
          "CPU only; median of the runs, alternated ours (grammar off), ours (grammar on), llama-bench.\n")
print("| model | threads | depth | llama-bench tg tok/s | ours tok/s, no grammar | ratio | ours tok/s, grammar | ratio "
      "| outside decode ms/token (no grammar / grammar) | % of the step (no grammar / grammar) |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for r in rows:
    print(f"| {r['model']} | {r['threads']} | {r['depth']} | {num(r['llama_bench_tps'])} "
          f"| {num(r['grammar_off_tps'])} | {num(r['grammar_off_ratio'], 2)} "
          f"| {num(r['grammar_on_tps'])} | {num(r['grammar_on_ratio'], 2)} "
          f"| {num(r['grammar_off_outside_ms'], 3)} / {num(r['grammar_on_outside_ms'], 3)} "
          f"| {num(100 * r['grammar_off_outside_share'], 1)} / {num(100 * r['grammar_on_outside_share'], 1)} |")
print()
PY
