#!/usr/bin/env bash
# Quick start on Debian/Ubuntu with Rust: install build dependencies, the nu
# 0.115.1 host, build the plugin, register it, and run it in nu.
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
echo "== agent run in nu $("$NU" --version), in $(pwd)"
"$NU" --no-config-file -c \
  "plugin use --plugin-config '$REGISTRY' agent; agent run 'ls | where type == file | sort-by size | last 5 | select name size'"
cat <<MSG

The plugin is registered in $REGISTRY. To use it in your own nu 0.115:
  plugin add $PLUGIN
  plugin use agent
  agent run "sys host"
MSG
