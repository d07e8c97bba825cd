#!/usr/bin/env bash
# The portable build on this machine's CPU, with no GPU: `--features gpu-dl`
# (llama.cpp's GGML_BACKEND_DL, every x86 CPU variant a module, the one for
# this CPU picked and checked in a child process at start-up; the same build
# as `cuda-portable` without the CUDA module). Laid out as a release ships
# it (binary, llama.cpp's libraries and the modules in one folder, found
# through the binary's $ORIGIN rpath), it must:
#   - name the CPU variant in use in `nu-agent model info`, with none passed
#     over (every variant this CPU reports the features for passes its
#     check: an AMX CPU runs the sapphirerapids variant, no SIGILL);
#   - answer on the variant in use, and write the same first greedy turn as
#     the CPU-only build when it runs that build's kernels (haswell).
#
#   nu-scripts/portable-cpu-check.sh [model.gguf]
#   PORTABLE_DIR=<folder> PLAIN_NU_AGENT=<binary> nu-scripts/portable-cpu-check.sh
#     (a portable layout and a CPU-only nu-agent built elsewhere)
#
# Run by nu-scripts/test.sh before the Rust tests (portable-layout.sh
# leaves the CPU-only `nu-agent` in the target folder, as it found it).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/nu-agent/target}"
log() { echo "portable-cpu-check: $*" >&2; }

MODEL="${1:-${NU_AGENT_TEST_MODEL:-$(bash nu-scripts/fetch-test-model.sh)}}"

dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
if [ -n "${PORTABLE_DIR:-}" ]; then
  # A layout built elsewhere, and the CPU-only binary to compare with.
  cp -a "$PORTABLE_DIR"/. "$dir/"
  plain="${PLAIN_NU_AGENT:?PLAIN_NU_AGENT names the CPU-only nu-agent to compare with}"
else
  bash nu-scripts/portable-layout.sh "$dir"
  plain="$CARGO_TARGET_DIR/debug/nu-agent"
fi

failed=0
fail() { log "FAILED: $*"; failed=1; }

info="$(NU_AGENT_GGML_BACKENDS="$dir" "$dir/nu-agent" model info --json "$MODEL")" || fail "model info exited with $?"
variant="$(jq -r '.cpu_backend.variant // empty' <<<"$info")"
skipped="$(jq -c '.cpu_backend.skipped // []' <<<"$info")"
log "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'); flags:$(grep -m1 -o 'avx512f\|amx_tile' /proc/cpuinfo | sort -u | tr '\n' ' ')"
log "variant in use: ${variant:-none}; passed over: $skipped"
case "$variant" in
"" | none | "built in") fail "model info names no CPU variant (cpu_backend: $(jq -c .cpu_backend <<<"$info"))" ;;
esac
[ "$skipped" = "[]" ] || fail "variants this CPU reports the features for failed their check: $skipped"

config="$dir/config.nuon"
# The same work split in both runs: one thread (by default the count follows
# how busy the machine is at that moment) and no saved prompt state (a run
# that loads the KV state the other saved evaluates the rest of the prompt in
# another batch split). Either moves the logits by rounding, enough to flip a
# tiny model's near tie.
echo '{ model: { temperature: 0.0, max_tokens: 48, context: 2048, threads: 1, prefix_cache: false } }' >"$config"
# What the model wrote in a two-turn episode (its tool calls and text, read
# from the saved conversation); empty when it did not run. Greedy, so the
# same wherever the same kernels run on the same weights.
model_turns() { # name binary [modules dir]
  local state="$dir/state-$1"
  NU_AGENT_GGML_BACKENDS="${3:-$dir}" NU_AGENT_STATE_DIR="$state" NU_AGENT_MODEL="$MODEL" \
    "$2" ask --config "$config" --quiet --max-steps 2 "Name the colours of the rainbow." \
    >/dev/null 2>"$dir/$1.stderr" || true # a small model may end without an answer
  cat "$state"/history/*.jsonl 2>/dev/null |
    jq -c 'select(.kind == "message" and .message.role == "assistant") | .message' ||
    tail -3 "$dir/$1.stderr" >&2
}
plain_turns="$(model_turns cpu-only "$plain")"
portable_turns="$(model_turns portable "$dir/nu-agent")"
log "CPU-only build wrote: $plain_turns"
log "portable build ($variant) wrote: $portable_turns"
[ -n "$plain_turns" ] || fail "the CPU-only build's ask failed"
[ -n "$portable_turns" ] || fail "the portable build's ask failed on the $variant variant"
# The CPU-only build's kernels are the haswell variant's (x86-64 with AVX2,
# FMA, F16C, BMI2): on them the portable build must write exactly the same.
# Another variant (AVX-512, AMX) rounds differently and may part from it
# after some tokens (seen on an AMX host: 15 tokens alike, then another
# wording), so its own turns are shown above, not compared.
# Only the first turn is compared: the later ones read the step's result,
# which can move between the two runs on a busy machine (the system prompt
# no longer does: it holds no free memory or disk figures, and it did flip
# SmolLM2's near tie between `red` and `nu-check` between two runs seconds
# apart). Of it, the call as the loop compares calls:
# the tool and its arguments but the free-text `why` (seen: the same
# `nu-check` call, its `why` cut one token apart, `nu-cg` and `nu-c`).
first() { head -1 <<<"$1" | jq -c '{content, calls: [.tool_calls[]? | {name, arguments: (.arguments | del(.why))}]}'; }
if [ "$variant" = haswell ]; then
  same_turns="$portable_turns"
elif [ -f "$dir/libggml-cpu-haswell.so" ] && grep -q avx2 /proc/cpuinfo; then
  mkdir -p "$dir/haswell" && cp "$dir/libggml-cpu-haswell.so" "$dir/haswell/"
  same_turns="$(model_turns portable-haswell "$dir/nu-agent" "$dir/haswell")"
  log "portable build (haswell, the CPU-only build's kernels) wrote: $same_turns"
  [ "$(first "$portable_turns")" = "$(first "$plain_turns")" ] || log "note: the $variant variant's first greedy turn parts from the CPU-only build's"
else
  same_turns="$plain_turns"
  log "note: this CPU has no AVX2: the CPU-only build's kernels cannot run in the portable build here"
fi
[ -n "$same_turns" ] && [ "$(first "$same_turns")" = "$(first "$plain_turns")" ] ||
  fail "on the CPU-only build's kernels the portable build's first greedy turn differs from the CPU-only build's"

[ "$failed" -eq 0 ] && log "ok: the portable build runs on the $variant variant, passes its check, and on the CPU-only build's kernels writes the first call that build writes (its why aside)"
exit "$failed"
