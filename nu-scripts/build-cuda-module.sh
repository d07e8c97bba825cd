#!/usr/bin/env bash
# Builds llama.cpp's CUDA backend alone, as the module a portable build
# loads at start (`libggml-cuda.so`), on a machine with the CUDA toolkit
# (nvcc, cmake). The rest of a release — `nu-agent --features gpu-dl`,
# llama.cpp's libraries and the CPU modules — builds anywhere without
# nvcc (nu-scripts/portable-layout.sh); this module is added to that folder
# and the same binary then offloads to an NVIDIA GPU. Both sides must come
# from the same llama.cpp source (the llama-cpp-sys-2 crate Cargo.lock
# pins): the module links the release's libggml-base by its soname.
#
#   nu-scripts/build-cuda-module.sh <out folder>
#
# Env: CUDAARCHS (default 80;86;89;90: the GPU generations the kernels are
# compiled for; fewer build faster), LLAMA_CPP_DIR (the llama.cpp source;
# default: the pinned crate's copy in the cargo registry), JOBS (default:
# every core), CUDA_MODULE_BUILD_DIR (default: a temporary folder).
set -euo pipefail
cd "$(dirname "$0")/.."
log() { echo "build-cuda-module: $*" >&2; }

OUT="${1:?usage: build-cuda-module.sh <out folder>}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
if [ -z "${LLAMA_CPP_DIR:-}" ]; then
  version="$(awk '/^name = "llama-cpp-sys-2"$/ { getline; gsub(/"/, "", $3); print $3 }' Cargo.lock)"
  LLAMA_CPP_DIR="$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/llama-cpp-sys-2-"$version"/llama.cpp 2>/dev/null | head -1)"
  [ -n "$LLAMA_CPP_DIR" ] || {
    log "llama-cpp-sys-2 $version is not in the cargo registry: run \`cargo fetch\`, or set LLAMA_CPP_DIR"
    exit 1
  }
fi
command -v nvcc >/dev/null || [ -n "${CUDACXX:-}" ] || {
  log "no nvcc on PATH (and CUDACXX unset): this builds on a machine with the CUDA toolkit"
  exit 1
}
export CUDAARCHS="${CUDAARCHS:-80;86;89;90}"
build="${CUDA_MODULE_BUILD_DIR:-$(mktemp -d)}"
mkdir -p "$build"
log "llama.cpp from $LLAMA_CPP_DIR, CUDA architectures $CUDAARCHS, in $build"
started=$(date +%s)
# The settings llama-cpp-sys-2 gives the CUDA backend of a portable build
# (features cuda + dynamic-backends + cuda-no-vmm): a module against the
# CUDA runtime (not the driver API), no NCCL; configured from llama.cpp's
# root as the crate does, with no CPU code (the release has its CPU
# modules) and none of llama.cpp's programs.
cmake -S "$LLAMA_CPP_DIR" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DBUILD_SHARED_LIBS=ON -DGGML_BACKEND_DL=ON -DGGML_CPU=OFF -DGGML_NATIVE=OFF -DGGML_CCACHE=OFF \
  -DGGML_CUDA=ON -DGGML_CUDA_NCCL=OFF -DGGML_CUDA_NO_VMM=ON -DCMAKE_CUDA_ARCHITECTURES="$CUDAARCHS" \
  -DLLAMA_BUILD_COMMON=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF \
  -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_APP=OFF -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF \
  >"$build/configure.log" 2>&1 || { tail -30 "$build/configure.log" >&2; exit 1; }
cmake --build "$build" --target ggml-cuda -j "${JOBS:-$(nproc)}" >"$build/build.log" 2>&1 ||
  { tail -30 "$build/build.log" >&2; exit 1; }
module="$(find "$build" -name libggml-cuda.so -type f | head -1)"
[ -n "$module" ] || { log "the build made no libggml-cuda.so"; exit 1; }
cp "$module" "$OUT/"
log "built $OUT/libggml-cuda.so ($(du -h "$OUT/libggml-cuda.so" | cut -f1)) in $(( $(date +%s) - started )) s"
