#!/usr/bin/env bash
# Benchmark the local llama.cpp backend and print markdown tables with
# ratios: prefill/decode speed against llama-cpp-python on the same GGUF,
# KV reuse over a six-step episode, tool-call validity with and without the
# grammar, time to first token with and without the on-disk prefix cache,
# decode with cores kept busy by other work (default threads vs every core),
# decode against the memory-bandwidth limit, and `nu` calls with and without
# the pipeline grammar (decode speed, pipelines naming only real commands).
# Everything runs in one go (about an hour on two cores).
#
#   nu-scripts/bench-local.sh [RESULTS.jsonl]
#
# Settings (environment): BENCH_LOCAL_MODELS (smollm2,gemma3),
# BENCH_LOCAL_THREADS (1,2), BENCH_LOCAL_RUNS (5), BENCH_LOCAL_PARTS
# (speed,episode,validity,ttft,busy,bandwidth,pipeline; pipeline alone:
# BENCH_LOCAL_PARTS=pipeline), BENCH_LOCAL_PEER_FLASH_ATTN (1: the peer
# with flash attention, as llama.cpp's default "auto" gives ours on a CPU).
# The raw JSON lines go to RESULTS.jsonl (default: a temporary file).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/nu-agent/target}"
RESULTS="${1:-$(mktemp --suffix=.jsonl)}"

log() { echo "bench-local: $*" >&2; }

PYTHON="$(bash nu-scripts/install-llama-cpp-python.sh)"
export BENCH_LOCAL_PYTHON="$PYTHON"
export NU_AGENT_TEST_MODEL="${NU_AGENT_TEST_MODEL:-$(bash nu-scripts/fetch-test-model.sh)}"
case "${BENCH_LOCAL_MODELS:-smollm2,gemma3}" in
*gemma3*) export NU_AGENT_GEMMA_MODEL="${NU_AGENT_GEMMA_MODEL:-$(bash nu-scripts/fetch-gemma3-model.sh)}" ;;
esac

log "building (release)"
cargo build --release --quiet -p agent-core --example ttft
export BENCH_LOCAL_TTFT="$CARGO_TARGET_DIR/release/examples/ttft"
cargo bench --quiet -p agent-core --bench local --no-run

load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
started="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
log "running; raw results in $RESULTS"
cargo bench --quiet -p agent-core --bench local | tee "$RESULTS"
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"

cpu="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
python3 - "$RESULTS" "$PYTHON" "$cpu" "$(nproc)" "$started" "$load_before" "$load_after" <<'PY'
import json, statistics, subprocess, sys

path, python, cpu, cores, started, load_before, load_after = sys.argv[1:8]
rows = [json.loads(l) for l in open(path) if l.startswith("{")]
version = subprocess.run([python, "-c", "import llama_cpp; print(llama_cpp.__version__)"],
                         capture_output=True, text=True).stdout.strip()

def part(name):
    return [r for r in rows if r.get("part") == name]

def num(x, digits=1):
    return "–" if x is None else f"{x:.{digits}f}"

print(f"\n## Local backend benchmark ({started})\n")
print(f"Machine: {cpu}, {cores} cores; load average (1/5/15 min) {load_before} before, {load_after} after. "
      f"Peer: llama-cpp-python {version}.\n")

speed = part("speed")
if speed:
    fa = "on" if speed[0].get("peer_flash_attn") else "off"
    print("### 1. Speed: ours vs llama-cpp-python (median tokens/s, runs interleaved)\n")
    print(f"n_ctx {speed[0]['n_ctx']}, n_batch/n_ubatch {speed[0]['n_batch']}, greedy, CPU only; "
          f"peer flash attention {fa}.\n")
    print("| model | threads | phase | tokens | ours tok/s | llama-cpp-python tok/s | ratio | same token ids |")
    print("|---|---:|---|---:|---:|---:|---:|---|")
    for r in speed:
        ratio = r["ours_tps"] / r["peer_tps"] if r["ours_tps"] and r["peer_tps"] else None
        print(f"| {r['model']} | {r['threads']} | {r['phase']} | {r['tokens']} | {num(r['ours_tps'])} "
              f"| {num(r['peer_tps'])} | {num(ratio, 2)} | {r['same_tokens']} |")
    print()

episode = part("episode")
if episode:
    print("### 2. KV reuse over a six-step tool episode (tool choice Required, 1 thread)\n")
    print("| model | step | prompt tokens | new tokens | evaluated, reuse on | evaluated, reuse off | evaluated / new |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r in episode:
        print(f"| {r['model']} | {r['step']} | {r['prompt_tokens']} | {r['new_tokens']} | {r['evaluated_reuse']} "
              f"| {r['evaluated_no_reuse']} | {num(r['ratio'], 2)} |")
    for model in dict.fromkeys(r["model"] for r in episode):
        rs = [r for r in episode if r["model"] == model]
        on, off = sum(r["evaluated_reuse"] for r in rs), sum(r["evaluated_no_reuse"] for r in rs)
        t_on, t_off = sum(r["seconds_reuse"] for r in rs), sum(r["seconds_no_reuse"] for r in rs)
        print(f"\n{model}: {on} prompt tokens evaluated with reuse vs {off} without ({num(off / on, 1)}×), "
              f"episode {num(t_on)} s vs {num(t_off)} s; same replies both ways: {rs[0]['same_output']}; "
              f"worst evaluated/new after step 1: {num(max([r['ratio'] for r in rs[1:]] or [0]), 2)}.")
    print()

validity = part("validity")
if validity:
    print("### 3. Tool-call validity (one call, an offered tool, its required arguments, no repair)\n")
    print("| model | grammar | Required | Auto |")
    print("|---|---|---:|---:|")
    for model in dict.fromkeys(r["model"] for r in validity):
        for grammar in (True, False):
            cells = []
            for choice in ("Required", "Auto"):
                r = next((r for r in validity if r["model"] == model and r["grammar"] == grammar
                          and r["choice"] == choice), None)
                if r is None:
                    cells.append("–")
                else:
                    pct = 100 * r["valid"] / r["requests"]
                    cells.append(f"{r['valid']}/{r['requests']} ({pct:.0f}%; prose {r['prose']}, broken {r['broken']})")
            print(f"| {model} | {'on' if grammar else 'off'} | {cells[0]} | {cells[1]} |")
    print()

ttft = part("ttft")
if ttft:
    print("### 4. Time to first token of a fresh process (median, 1 thread)\n")
    print("| model | prompt tokens | prefix from disk | cold ms | warm ms | ratio | process wall cold / warm ms | state file |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in ttft:
        size = f"{r['state_bytes'] / 1e6:.1f} MB" if r.get("state_bytes") else "–"
        print(f"| {r['model']} | {r['prompt_tokens']} | {r['prefix_tokens']} | {num(r['cold_ms'], 0)} "
              f"| {num(r['warm_ms'], 0)} | {num(r['ratio'], 1)}× | {num(r['cold_wall_ms'], 0)} / "
              f"{num(r['warm_wall_ms'], 0)} | {size} |")
    print()

busy = part("busy")
if busy:
    print("### 5. Decode on a busy CPU (median tokens/s of 5; other processes spinning on some cores)\n")
    print("| model | busy cores | default threads tok/s | threads = all cores tok/s | default / all | default / idle default |")
    print("|---|---:|---:|---:|---:|---:|")
    for model in dict.fromkeys(r["model"] for r in busy):
        rs = [r for r in busy if r["model"] == model]
        idle = next((r["decode_tps"] for r in rs if r["busy_cores"] == 0 and r["setting"] == "default"), None)
        for n in sorted(dict.fromkeys(r["busy_cores"] for r in rs)):
            d = next((r["decode_tps"] for r in rs if r["busy_cores"] == n and r["setting"] == "default"), None)
            a = next((r["decode_tps"] for r in rs if r["busy_cores"] == n and r["setting"] == "all cores"), None)
            print(f"| {model} | {n} of {rs[0]['cores']} | {num(d)} | {num(a)} | {num(d / a if d and a else None, 2)} "
                  f"| {num(d / idle if d and idle else None, 2)} |")
    print()

bandwidth = part("bandwidth")
if bandwidth:
    print("### 6. Decode against the memory-bandwidth limit\n")
    print("| model | weights | read bandwidth | limit tok/s (bandwidth / weights) | decode tok/s (default threads) | share of the limit |")
    print("|---|---:|---:|---:|---:|---:|")
    for r in bandwidth:
        print(f"| {r['model']} | {r['weight_bytes'] / 1e6:.0f} MB | {num(r['read_gbps'])} GB/s | {num(r['limit_tps'])} "
              f"| {num(r['decode_tps'])} | {100 * r['share']:.0f}% |")
    print()

pipeline = part("pipeline")
if pipeline:
    print("### 7. The pipeline grammar: `nu` calls at step 4 of an episode (agent prompt, call required, greedy, 1 thread)\n")
    print(f"Heads: {pipeline[0]['heads']} (the standard engine's commands and this machine's PATH).\n")
    print("| model | pipeline grammar | requests | decode tok/s | ratio to off | `nu` calls | pipelines that parse, every program found |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for r in pipeline:
        print(f"| {r['model']} | {'on' if r['pipeline_grammar'] else 'off'} | {r['requests']} | {num(r['decode_tps'])} "
              f"| {num(r['ratio_to_off'], 2)} | {r['nu_calls']} | {r['known_pipelines']} |")
    print()
PY
