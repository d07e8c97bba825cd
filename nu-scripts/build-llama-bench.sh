#!/usr/bin/env bash
# Build llama.cpp's llama-bench against the very libraries our release build
# links (the static libllama / libggml* / libllama-common that the
# llama-cpp-sys-2 build script made under $CARGO_TARGET_DIR), so that the
# decode benchmark compares our generation loop with llama.cpp's own on the
# same code. Prints the binary's path on stdout (progress on stderr).
#
#   nu-scripts/build-llama-bench.sh
#
# The llama-cpp-sys-2 crate does not ship llama-bench's sources, so they are
# taken from the sdist of llama-cpp-python (PyPI), whose vendored llama.cpp is
# the nearest release to the one llama-cpp-sys-2 vendors (its llama.h differs
# only in the state-file version numbers). Only tools/llama-bench/*.cpp come
# from there: the headers are the crate's and the libraries ours. The binary
# is cached per llama-cpp-sys-2 version and build directory.
#
# Settings (environment): CARGO_TARGET_DIR (default
# ~/.cache/nu-agent/target), LLAMA_BENCH_PY_VERSION (0.3.36).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/nu-agent/target}"
CACHE="${NU_AGENT_CACHE:-$HOME/.cache/nu-agent}"
PY_VERSION="${LLAMA_BENCH_PY_VERSION:-0.3.36}"

log() { echo "build-llama-bench: $*" >&2; }

SYS_VERSION="$(sed -n 's/^llama-cpp-sys-2 = { *version = "=\([^"]*\)".*/\1/p; s/^llama-cpp-sys-2 = "=\([^"]*\)".*/\1/p' \
  agent-core/Cargo.toml Cargo.toml 2>/dev/null | head -1)"
if [ -z "$SYS_VERSION" ]; then
  SYS_VERSION="$(grep -A1 '^name = "llama-cpp-sys-2"' Cargo.lock | sed -n 's/^version = "\(.*\)"/\1/p' | head -1)"
fi
[ -n "$SYS_VERSION" ] || { log "no llama-cpp-sys-2 version found"; exit 1; }
REGISTRY="${CARGO_HOME:-$HOME/.cargo}/registry/src"
SRC="$(ls -d "$REGISTRY"/*/llama-cpp-sys-2-"$SYS_VERSION"/llama.cpp 2>/dev/null | head -1)"
[ -d "$SRC" ] || { log "llama-cpp-sys-2 $SYS_VERSION not in $REGISTRY (cargo fetch first)"; exit 1; }

# The out dir of the release build's llama-cpp-sys-2 (the newest, when the
# build script ran more than once).
OUT=""
for dir in $(ls -dt "$CARGO_TARGET_DIR"/release/build/llama-cpp-sys-2-*/out 2>/dev/null); do
  if [ -f "$dir/build/src/libllama.a" ]; then
    OUT="$dir"
    break
  fi
done
if [ -z "$OUT" ]; then
  log "no release build of llama-cpp-sys-2 under $CARGO_TARGET_DIR: building"
  cargo build --release --quiet -p agent-core
  OUT="$(ls -dt "$CARGO_TARGET_DIR"/release/build/llama-cpp-sys-2-*/out | head -1)"
fi
BUILD="$OUT/build"

BIN_DIR="$CACHE/llama-bench/sys-$SYS_VERSION-$(basename "$(dirname "$OUT")")"
BIN="$BIN_DIR/llama-bench"
LIBS=(
  "$BUILD/common/libllama-common.a" "$BUILD/common/libllama-common-base.a"
  "$BUILD/src/libllama.a" "$BUILD/ggml/src/libggml.a" "$BUILD/ggml/src/libggml-cpu.a"
  "$BUILD/ggml/src/libggml-base.a"
)
for extra in "$BUILD/vendor/cpp-httplib/libcpp-httplib.a" "$BUILD/vendor/hash/libvendor-hash.a"; do
  [ -f "$extra" ] && LIBS+=("$extra")
done
if [ -x "$BIN" ] && [ -z "$(find "${LIBS[@]}" -newer "$BIN" 2>/dev/null)" ]; then
  echo "$BIN"
  exit 0
fi

SDIST_DIR="$CACHE/llama-bench-src"
SDIST="$SDIST_DIR/llama_cpp_python-$PY_VERSION.tar.gz"
if [ ! -f "$SDIST" ]; then
  log "downloading the llama-cpp-python $PY_VERSION sdist (llama-bench's sources)"
  mkdir -p "$SDIST_DIR"
  python3 -m pip download --quiet --no-deps --no-binary :all: \
    "llama-cpp-python==$PY_VERSION" -d "$SDIST_DIR" >&2
fi
BENCH_SRC="$SDIST_DIR/llama_cpp_python-$PY_VERSION/vendor/llama.cpp/tools/llama-bench"
if [ ! -f "$BENCH_SRC/llama-bench.cpp" ]; then
  tar -xzf "$SDIST" -C "$SDIST_DIR" "llama_cpp_python-$PY_VERSION/vendor/llama.cpp/tools/llama-bench"
fi

log "compiling llama-bench against $OUT"
mkdir -p "$BIN_DIR"
# OpenSSL and OpenMP only when the libraries were built with them.
SYSLIBS=(-lpthread -ldl -lm)
grep -q '^GGML_OPENMP:BOOL=ON' "$BUILD/CMakeCache.txt" && SYSLIBS+=(-fopenmp)
if grep -q '^LLAMA_OPENSSL:BOOL=ON' "$BUILD/CMakeCache.txt" &&
  grep -q 'OPENSSL_SSL_LIBRARY:FILEPATH=/' "$BUILD/CMakeCache.txt"; then
  SYSLIBS+=(-lssl -lcrypto)
fi
g++ -std=c++17 -O2 -DNDEBUG \
  -I"$SRC/include" -I"$SRC/ggml/include" -I"$SRC/common" -I"$SRC/vendor" \
  "$BENCH_SRC/llama-bench.cpp" "$BENCH_SRC/main.cpp" \
  -Wl,--start-group "${LIBS[@]}" -Wl,--end-group "${SYSLIBS[@]}" \
  -o "$BIN.tmp"
mv "$BIN.tmp" "$BIN"
echo "$BIN"
