#!/usr/bin/env bash
# What a step costs through `nu-agent mcp` over the same step in the
# persistent sandboxed session (medians of 41 steps each, same run), and
# the server's idle memory. Builds the release nu-agent (the server and the
# worker binary) first; prints a markdown table.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/nu-agent/target}"
cargo build --release -p nu_plugin_agent --bin nu-agent >&2
NU_AGENT_WORKER="$CARGO_TARGET_DIR/release/nu-agent" \
    cargo bench -p agent-e2e --bench mcp 2>/dev/null
