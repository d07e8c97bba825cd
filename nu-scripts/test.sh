#!/usr/bin/env bash
# The whole test suite: installs what the tests need (the nu 0.115.1 host,
# the test model, llama-cpp-python's OpenAI-compatible server, the MCP
# Python SDK) into
# ~/.cache/nu-agent, then runs every test (and nu-scripts/portable-cpu-check.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/nu-agent/target}"
NU_AGENT_TEST_NU="$(bash nu-scripts/install-nu.sh)"
NU_AGENT_TEST_MODEL="$(bash nu-scripts/fetch-test-model.sh)"
NU_AGENT_LLAMA_CPP_PYTHON="$(bash nu-scripts/install-llama-cpp-python.sh)"
NU_AGENT_MCP_PYTHON="$(bash nu-scripts/install-mcp-client.sh)"
export NU_AGENT_TEST_NU NU_AGENT_TEST_MODEL NU_AGENT_LLAMA_CPP_PYTHON NU_AGENT_MCP_PYTHON

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
status=0
# The portable build (CPU variants as modules) first: it builds its own
# nu-agent, then puts the CPU-only one back for the tests below.
portable=0
bash nu-scripts/portable-cpu-check.sh "$NU_AGENT_TEST_MODEL" || portable=$?
cargo test --workspace --all-targets --no-fail-fast "$@" 2>&1 | tee "$log" || status=$?
[ "$portable" -eq 0 ] || status=1
# One closing line for the whole suite, pass or fail (the portable check
# counts as one test).
awk -v portable="$portable" '/^test result:/ { p += $4; f += $6 }
  END { if (portable == 0) p++; else f++; printf "tests: %d passed, %d failed\n", p, f }' "$log"
# The failures by name, last, where a log's tail shows them.
[ "$portable" -eq 0 ] || echo "failed: nu-scripts/portable-cpu-check.sh (exit $portable)"
grep -E '^test .+ \.\.\. FAILED$|^error: (test failed|[0-9]+ targets failed)|^    `-p ' "$log" | sed 's/^/failed: /' || true
exit "$status"
