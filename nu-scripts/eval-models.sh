#!/usr/bin/env bash
# The evaluation suite on real models, one run: SmolLM2-135M and Gemma 3
# 270M through the local backend (compact vs raw observations, with and
# without the tool-call grammar), and llama-cpp-python's OpenAI-compatible
# server on loopback serving SmolLM2 (compact vs raw). Prints markdown
# tables (per configuration, and success per task) and draws a plot of
# success and tokens per task, compact vs raw.
#
#   nu-scripts/eval-models.sh
#
# Settings (environment): EVAL_MODELS (smollm2,gemma3), EVAL_SERVER (1: also
# the server runs), EVAL_MAX_STEPS (6), EVAL_TASKS (tests/eval/tasks),
# EVAL_OUT (where the JSON reports and the plot go; default
# $CARGO_TARGET_DIR/eval), EVAL_PLOT (docs/eval.png; empty: no plot),
# EVAL_TASK_TIMEOUT (3m: a task still running then fails as timed out).
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

log "building (release)"
cargo build --release --quiet -p nu_plugin_agent --bin nu-agent
AGENT="$CARGO_TARGET_DIR/release/nu-agent"
SMOLLM2="$(bash nu-scripts/fetch-test-model.sh)"
GEMMA3=""
case "${EVAL_MODELS:-smollm2,gemma3}" in
*gemma3*) GEMMA3="$(bash nu-scripts/fetch-gemma3-model.sh)" ;;
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

: >"$OUT/runs.txt"
local_runs() {
  local model="$1" path="$2"
  for observe in compact raw; do
    run "$model-$observe" --backend local --model "$path" --observe "$observe"
    echo "$model-$observe" >>"$OUT/runs.txt"
  done
  run "$model-compact-nogrammar" --backend local --model "$path" --no-grammar
  echo "$model-compact-nogrammar" >>"$OUT/runs.txt"
  run "$model-raw-nogrammar" --backend local --model "$path" --observe raw --no-grammar
  echo "$model-raw-nogrammar" >>"$OUT/runs.txt"
}

case "${EVAL_MODELS:-smollm2,gemma3}" in *smollm2*) local_runs smollm2 "$SMOLLM2" ;; esac
[ -n "$GEMMA3" ] && local_runs gemma3 "$GEMMA3"

if [ "${EVAL_SERVER:-1}" = 1 ]; then
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
  for observe in compact raw; do
    NU_AGENT_BACKEND_URL="http://127.0.0.1:$PORT/v1" \
      run "server-smollm2-$observe" --backend openai --model smollm2 --observe "$observe"
    echo "server-smollm2-$observe" >>"$OUT/runs.txt"
  done
fi

python3 nu-scripts/eval_tables.py "$OUT" "$PLOT"
