#!/usr/bin/env bash
# Install llama-cpp-python with its OpenAI-compatible server into a venv in
# the cache and print the venv's python. The tests of the OpenAI backend run
# `python -m llama_cpp.server` on the small test model.
#
# No wheel of llama-cpp-python is published for plain Linux, so the sdist is
# built once (a CPU build: about 14 minutes on two busy cores); the wheel is
# kept beside the venv, so a rerun takes a second and a venv made anew half a
# minute.
# Progress goes to stderr; stdout is the python path alone.
set -euo pipefail

VERSION="0.3.16"
CACHE="${NU_AGENT_CACHE:-$HOME/.cache/nu-agent}"
VENV="$CACHE/llama-cpp-python-$VERSION"
PYTHON="$VENV/bin/python"
WHEELS="$VENV/wheel"
HOST_PYTHON="${PYTHON3:-python3}"
# The server's dependencies, at the versions this release was tested with
# (a newer FastAPI or Starlette may change what the server sends).
SERVER_PINS=(
  annotated-doc==0.0.7 annotated-types==0.8.0 anyio==4.16.0 click==8.5.1
  diskcache==5.6.3 fastapi==0.165.0 h11==0.16.0 idna==3.20 Jinja2==3.1.6
  MarkupSafe==3.0.4 numpy==2.4.6 opentelemetry-api==1.45.2 pydantic==2.14.3
  pydantic-settings==2.16.3 pydantic_core==2.50.4 python-dotenv==1.2.4
  PyYAML==6.0.3 sse-starlette==3.7.0 starlette==1.10.0 starlette-context==0.3.6
  typing-inspection==0.4.5 typing_extensions==4.16.0 uvicorn==0.54.0
)

log() { echo "install-llama-cpp-python: $*" >&2; }

installed() {
  [ -x "$PYTHON" ] &&
    "$PYTHON" -c "import llama_cpp, llama_cpp.server.app, sys; sys.exit(llama_cpp.__version__ != '$VERSION')" \
      >/dev/null 2>&1
}

if installed; then
  echo "$PYTHON"
  exit 0
fi

if ! command -v "$HOST_PYTHON" >/dev/null 2>&1; then
  log "$HOST_PYTHON not found: install python3 and python3-pip"
  exit 1
fi
source "$(dirname "${BASH_SOURCE[0]}")/venv.sh"
venv_with_pip || exit 1
PIP+=(--quiet --disable-pip-version-check)

# The wheel, built once from the sdist.
mkdir -p "$WHEELS"
wheel="$(find "$WHEELS" -maxdepth 1 -name "llama_cpp_python-$VERSION-*.whl" | head -n 1)"
if [ -z "$wheel" ]; then
  cmake_args="-DLLAVA_BUILD=OFF -DGGML_BLAS=OFF -DGGML_CUDA=OFF -DGGML_VULKAN=OFF -DGGML_METAL=OFF"
  if [ "$(uname -m)" = "x86_64" ]; then
    # The x86-64-v3 baseline rather than this CPU's own instructions, so the
    # cached wheel runs on any machine of the last decade.
    cmake_args="$cmake_args -DGGML_NATIVE=OFF -DGGML_SSE42=ON -DGGML_AVX=ON -DGGML_AVX2=ON"
    cmake_args="$cmake_args -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON"
  fi
  log "building llama-cpp-python $VERSION from source (CPU only; 10 to 15 minutes)"
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  if ! CMAKE_ARGS="$cmake_args" CMAKE_BUILD_PARALLEL_LEVEL=2 nice -n 19 "${PIP[@]}" wheel \
    --no-deps --no-binary llama-cpp-python --wheel-dir "$work" "llama-cpp-python==$VERSION" \
    >"$work/build.log" 2>&1; then
    tail -n 40 "$work/build.log" >&2
    log "the build of llama-cpp-python $VERSION failed (its log's end is above)"
    exit 1
  fi
  built="$(find "$work" -maxdepth 1 -name "llama_cpp_python-$VERSION-*.whl" | head -n 1)"
  if [ -z "$built" ]; then
    log "the build finished without a wheel in $work"
    exit 1
  fi
  wheel="$WHEELS/$(basename "$built")"
  cp "$built" "$wheel.part"
  mv "$wheel.part" "$wheel"
fi

log "installing $(basename "$wheel") and the server's dependencies"
"${PIP[@]}" install "$wheel[server]" "${SERVER_PINS[@]}" >&2
if ! installed; then
  log "llama-cpp-python $VERSION installed but 'import llama_cpp.server.app' fails in $PYTHON"
  exit 1
fi
echo "$PYTHON"
