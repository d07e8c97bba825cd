#!/usr/bin/env bash
# The evaluation suite on real models, one run: Qwen2.5-Coder-1.5B and
# 0.5B (the size a user runs locally), SmolLM2-135M and Gemma 3 270M
# through the local backend (compact vs raw observations, with and
# without the tool-call grammar), and llama-cpp-python's OpenAI-compatible
# server on loopback serving SmolLM2 (compact vs raw). Prints markdown
# tables (per configuration, and success per task) and draws a plot of
# success and tokens per task, compact vs raw.
#
#   nu-scripts/eval-models.sh
#
# Settings (environment): EVAL_MODELS (qwen1.5b,qwen0.5b,smollm2,gemma3), EVAL_SERVER (1: also
# the server runs), EVAL_RUNS (which runs, in order; see RUNS below),
# EVAL_RESUME (1: keep the reports of runs already made), EVAL_AGENT (a
# nu-agent binary to use instead of building one), EVAL_MAX_STEPS (6), EVAL_TASKS (tests/eval/tasks),
# EVAL_OUT (where the JSON reports and the plot go; default
# $CARGO_TARGET_DIR/eval), EVAL_PLOT (docs/eval.png; empty: no plot),
# EVAL_TASK_TIMEOUT (3m: a task still running then fails as timed out).
# A local run whose name ends in -nopipeline (e.g. smollm2-compact-nopipeline
# in EVAL_RUNS) has the pipeline grammar off (--no-pipeline-grammar).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/nu-agent/target}"
OUT="${EVAL_OUT:-$CARGO_TARGET_DIR/eval}"
MAX_STEPS="${EVAL_MAX_STEPS:-6}"
TASKS="${EVAL_TASKS:-tests/eval/tasks}"
PLOT="${EVAL_PLOT-docs/eval.png}"
mkdir -p "$OUT"

log() { echo "eval-models: $*" >&2; }

AGENT="${EVAL_AGENT:-}"
if [ -z "$AGENT" ]; then
  log "building (release)"
  cargo build --release --quiet -p nu_plugin_agent --bin nu-agent
  AGENT="$CARGO_TARGET_DIR/release/nu-agent"
fi
SMOLLM2="$(bash nu-scripts/fetch-test-model.sh)"
MODELS="${EVAL_MODELS:-qwen1.5b,qwen0.5b,smollm2,gemma3}"
GEMMA3=""
case "$MODELS" in
*gemma3*) GEMMA3="$(bash nu-scripts/fetch-gemma3-model.sh)" ;;
esac
QWEN15=""
case "$MODELS" in
*qwen1.5b*) QWEN15="$(NU_AGENT_BIN="$AGENT" bash nu-scripts/fetch-qwen-model.sh 1.5b)" ;;
esac
QWEN05=""
case "$MODELS" in
*qwen0.5b*) QWEN05="$(NU_AGENT_BIN="$AGENT" bash nu-scripts/fetch-qwen-model.sh 0.5b)" ;;
esac

# Greedy sampling, a turn capped at 256 tokens (a tool call is far
# shorter), a 4,096-token context: the settings a small model runs best
# with, the same for every configuration.
CONFIG="$OUT/config.nuon"
cat >"$CONFIG" <<NUON
{
  model: { temperature: 0.0, max_tokens: 256, context: 4096 }
  agent: { history: false }
}
NUON

# run NAME ARGS...: one suite run, its JSON report in $OUT/NAME.json.
run() {
  local name="$1"
  shift
  log "$name"
  # A run where tasks fail exits 1: that is a result, not an error.
  "$AGENT" --config "$CONFIG" eval --json --tasks "$TASKS" --max-steps "$MAX_STEPS" \
    --task-timeout "${EVAL_TASK_TIMEOUT:-3m}" "$@" \
    >"$OUT/$name.json" || [ $? -eq 1 ]
}

# The runs, most telling first: NAME = MODEL-OBSERVE[-nogrammar] on the
# local backend, server-smollm2-OBSERVE on llama-cpp-python's server, or
# scripted-OBSERVE (the tasks' own transcripts: what the same steps cost in
# tokens, compact against raw).
RUNS="${EVAL_RUNS:-scripted-compact scripted-raw qwen1.5b-compact qwen0.5b-compact smollm2-compact smollm2-raw gemma3-compact gemma3-raw smollm2-compact-nogrammar gemma3-compact-nogrammar server-smollm2-compact server-smollm2-raw smollm2-raw-nogrammar gemma3-raw-nogrammar}"
SERVER=""
start_server() {
  [ -n "$SERVER" ] && return
  PYTHON="$(bash nu-scripts/install-llama-cpp-python.sh)"
  PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
  log "starting llama-cpp-python's server on port $PORT"
  "$PYTHON" -m llama_cpp.server --model "$SMOLLM2" --host 127.0.0.1 --port "$PORT" \
    --n_ctx 4096 --chat_format chatml --n_threads 1 --n_threads_batch 1 \
    >"$OUT/server.log" 2>&1 &
  SERVER=$!
  trap 'kill $SERVER 2>/dev/null || true' EXIT
  python3 - "$PORT" <<'PY'
import sys, time, urllib.request
for _ in range(240):
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/v1/models", timeout=2)
        break
    except Exception:
        time.sleep(0.5)
PY
}

# EVAL_RESUME=1 keeps the reports already in $OUT (a run cut short goes on).
[ "${EVAL_RESUME:-0}" = 1 ] || : >"$OUT/runs.txt"
touch "$OUT/runs.txt"
for name in $RUNS; do
  if [ "${EVAL_RESUME:-0}" = 1 ] && grep -qx "$name" "$OUT/runs.txt"; then
    log "$name: kept from an earlier run"
    continue
  fi
  observe=compact
  case "$name" in *-raw*) observe=raw ;; esac
  grammar=()
  case "$name" in
  *-nogrammar) grammar=(--no-grammar) ;;
  *-nopipeline) grammar=(--no-pipeline-grammar) ;;
  esac
  case "$name" in
  server-*)
    [ "${EVAL_SERVER:-1}" = 1 ] || continue
    start_server
    NU_AGENT_BACKEND_URL="http://127.0.0.1:$PORT/v1" \
      run "$name" --backend openai --model smollm2 --observe "$observe"
    ;;
  scripted-*) run "$name" --backend scripted --observe "$observe" ;;
  smollm2-*) run "$name" --backend local --model "$SMOLLM2" --observe "$observe" "${grammar[@]}" ;;
  qwen1.5b-*)
    [ -n "$QWEN15" ] || continue
    run "$name" --backend local --model "$QWEN15" --observe "$observe" "${grammar[@]}"
    ;;
  qwen0.5b-*)
    [ -n "$QWEN05" ] || continue
    run "$name" --backend local --model "$QWEN05" --observe "$observe" "${grammar[@]}"
    ;;
  gemma3-*)
    [ -n "$GEMMA3" ] || continue
    run "$name" --backend local --model "$GEMMA3" --observe "$observe" "${grammar[@]}"
    ;;
  *) log "unknown run $name" && exit 2 ;;
  esac
  echo "$name" >>"$OUT/runs.txt"
done

python3 nu-scripts/eval_tables.py "$OUT" "$PLOT"
