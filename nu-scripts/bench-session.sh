#!/usr/bin/env bash
# Per-step latency of the policy shell: in-process, the conversation's
# persistent sandbox worker, and a fresh worker per step (medians of 41
# steps each, same run). Builds the release nu-agent (the worker binary)
# first; prints a markdown table.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/nu-agent/target}"
cargo build --release -p nu_plugin_agent --bin nu-agent >&2
NU_AGENT_WORKER="$CARGO_TARGET_DIR/release/nu-agent" \
    cargo bench -p agent-e2e --bench session 2>/dev/null
