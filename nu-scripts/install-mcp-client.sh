#!/usr/bin/env bash
# Install the official MCP Python SDK (package `mcp`, pinned with its
# dependencies) into a venv in the cache and print the venv's python. The
# tests of `nu-agent mcp` drive the server with it, as an agent's MCP
# client would.
# Progress goes to stderr; stdout is the python path alone.
set -euo pipefail

VERSION="2.3.0"
CACHE="${NU_AGENT_CACHE:-$HOME/.cache/nu-agent}"
VENV="$CACHE/mcp-$VERSION"
PYTHON="$VENV/bin/python"
HOST_PYTHON="${PYTHON3:-python3}"
# The SDK's dependencies at the versions the tests were written against.
PINS=(
  "mcp==$VERSION" "mcp-types==$VERSION" annotated-types==0.8.0 anyio==4.16.0 attrs==26.1.0
  cffi==2.1.1 click==8.5.1 cryptography==50.0.2 h11==0.16.0 httpcore2==2.16.2 httpx2==2.16.2
  idna==3.20 jsonschema==4.26.0 jsonschema-specifications==2025.9.1
  opentelemetry-api==1.45.2 pycparser==3.12 pydantic==2.14.4 pydantic_core==2.50.5
  PyJWT==2.15.1 python-multipart==0.0.34 referencing==0.37.0 rpds-py==2026.9.1
  sse-starlette==3.7.0 starlette==1.10.0 truststore==0.10.5 typing-inspection==0.4.5
  typing_extensions==4.16.0 uvicorn==0.54.0
)

log() { echo "install-mcp-client: $*" >&2; }

installed() {
  [ -x "$PYTHON" ] &&
    "$PYTHON" -c "import importlib.metadata as m, mcp.client.stdio, sys; sys.exit(m.version('mcp') != '$VERSION')" \
      >/dev/null 2>&1
}

if installed; then
  echo "$PYTHON"
  exit 0
fi

if ! command -v "$HOST_PYTHON" >/dev/null 2>&1; then
  log "$HOST_PYTHON not found: install python3 (3.10 or later) and python3-pip"
  exit 1
fi
source "$(dirname "${BASH_SOURCE[0]}")/venv.sh"
venv_with_pip || exit 1

log "installing mcp $VERSION"
"${PIP[@]}" install --quiet --disable-pip-version-check "${PINS[@]}" >&2
if ! installed; then
  log "mcp $VERSION installed but 'import mcp.client.stdio' fails in $PYTHON"
  exit 1
fi
echo "$PYTHON"
