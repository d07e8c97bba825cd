#!/usr/bin/env bash
# The portable CUDA release, built in its two parts and checked on this
# machine: the Rust side (`nu-agent --features gpu-dl`, llama.cpp's
# libraries and CPU modules, laid out by nu-scripts/portable-layout.sh),
# which needs no CUDA toolkit, and llama.cpp's CUDA module
# (`libggml-cuda.so`, nu-scripts/build-cuda-module.sh), which needs nvcc.
# The module goes beside the binary; the binary loads it at start, uses a
# GPU where there is one and says once that it found none where there is
# not. Then `nu-agent model info`, a short `nu-agent ask` and a step in the
# sandbox worker, with the module in place:
#   - no GPU here: `cuda` among the backends, the no-GPU notice, an answer
#     on the CPU;
#   - a GPU here: `cuda`, the GPU listed, no hint (that the layers then
#     reach it is offload_check's to show: see docs/models.md).
#
#   nu-scripts/gpu-cuda-check.sh [model.gguf]
#
# Env:
#   CUDA_MODULE  where the CUDA module comes from: `build` (the default:
#                built here for CUDAARCHS, with the CUDA toolkit on PATH or,
#                without one, CUDA 13 laid out from NVIDIA's registry
#                wheels), the path of a libggml-cuda.so built elsewhere from
#                the same llama.cpp, or `none` (the Rust side alone, as a
#                release is built on a machine without nvcc; checked to run
#                on the CPU).
#   CUDAARCHS    GPU generations the module is built for (default
#                80;86;89;90; only when CUDA_MODULE=build).
#   PROFILE      release (the default) or debug, for the Rust side.
#   PORTABLE_OUT the folder to lay the release out in (default: a
#                temporary one, removed at the end).
#   NU_AGENT_CACHE.
#
# The CUDA toolchain from the wheels: NVIDIA's CUDA 13 wheels
# (nvidia-cuda-nvcc, -crt, -nvvm, -runtime, -cublas, -cccl) install into
# one `nvidia/cu13` prefix, laid out here as a CUDA root in a versioned
# cache. (The CUDA 12 `*-cu12` nvcc wheels carry ptxas and libnvvm but no
# `nvcc` driver, so they cannot compile llama.cpp's kernels.) The module is
# linked against the CUDA runtime, not the driver (GGML_CUDA_NO_VMM), so the
# same folder starts where there is no GPU.
set -euo pipefail
cd "$(dirname "$0")/.."

CACHE="${NU_AGENT_CACHE:-$HOME/.cache/nu-agent}"
CUDA_VERSION=13.0
CUDA_ROOT="$CACHE/cuda-$CUDA_VERSION"
CUDA_MODULE="${CUDA_MODULE:-build}"
export CUDAARCHS="${CUDAARCHS:-80;86;89;90}"
WHEELS=(
  "nvidia-cuda-nvcc==13.0.88"
  "nvidia-cuda-crt==13.0.88"
  "nvidia-nvvm==13.0.88"
  "nvidia-cuda-runtime==13.0.96"
  "nvidia-cublas==13.0.2.14"
  "nvidia-cuda-cccl==13.0.85"
)
log() { echo "gpu-cuda-check: $*" >&2; }

# CUDA 13 from its wheels, as a toolkit root in the cache.
cuda_from_wheels() {
  if [ ! -x "$CUDA_ROOT/bin/nvcc" ]; then
    log "laying out the CUDA $CUDA_VERSION toolchain from its wheels in $CUDA_ROOT"
    local work
    work="$(mktemp -d)"
    python3 -m pip download --quiet --disable-pip-version-check --no-deps --dest "$work/wheels" "${WHEELS[@]}"
    for wheel in "$work"/wheels/*.whl; do
      python3 -m zipfile -e "$wheel" "$work/unpacked"
    done
    local prefix="$work/unpacked/nvidia/cu13"
    chmod +x "$prefix"/bin/* "$prefix"/nvvm/bin/* 2>/dev/null || true
    # The toolkit's usual shape: lib64 beside lib, unversioned library links
    # for the linker.
    ln -sfn lib "$prefix/lib64"
    for lib in "$prefix"/lib/lib*.so.*; do
      base="${lib%%.so.*}.so"
      [ -e "$base" ] || ln -s "$(basename "$lib")" "$base"
    done
    rm -rf "$CUDA_ROOT"
    mkdir -p "$(dirname "$CUDA_ROOT")"
    mv "$prefix" "$CUDA_ROOT"
    rm -rf "$work"
  fi
  export CUDA_PATH="$CUDA_ROOT" CUDAToolkit_ROOT="$CUDA_ROOT" CUDACXX="$CUDA_ROOT/bin/nvcc"
  export PATH="$CUDA_ROOT/bin:$PATH"
  # The CUDA runtime and cuBLAS that the module needs at run time (on a
  # machine with a GPU: the installed CUDA's).
  export LD_LIBRARY_PATH="$CUDA_ROOT/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
}

dir="${PORTABLE_OUT:-}"
if [ -z "$dir" ]; then
  dir="$(mktemp -d)"
  trap 'rm -rf "$dir"' EXIT
fi
PROFILE="${PROFILE:-release}" bash nu-scripts/portable-layout.sh "$dir"
case "$CUDA_MODULE" in
none) log "no CUDA module: the Rust side alone" ;;
build)
  command -v nvcc >/dev/null || cuda_from_wheels
  nvcc --version | tail -1 >&2
  bash nu-scripts/build-cuda-module.sh "$dir"
  ;;
*)
  [ -f "$CUDA_MODULE" ] || { log "CUDA_MODULE=$CUDA_MODULE: no such file"; exit 1; }
  cp "$CUDA_MODULE" "$dir/libggml-cuda.so"
  ;;
esac
BIN="$dir/nu-agent"
has_gpu=0; [ -e /proc/driver/nvidia/gpus ] && ls /proc/driver/nvidia/gpus/* >/dev/null 2>&1 && has_gpu=1
has_module=0; [ -f "$dir/libggml-cuda.so" ] && has_module=1

MODEL="${1:-$(bash nu-scripts/fetch-test-model.sh)}"
log "nu-agent model info (module: $has_module, NVIDIA GPU: $has_gpu)"
"$BIN" model info --json "$MODEL" | tee "$dir/model-info.json"
backends="$(jq -c .compiled_backends "$dir/model-info.json")"
if [ "$has_module" = 1 ]; then
  [ "$backends" = '["cuda"]' ] || { log "FAILED: the CUDA module beside the binary is not among its backends ($backends)"; exit 1; }
  if [ "$has_gpu" = 0 ]; then
    grep -q 'no GPU was found' "$dir/model-info.json" || { log "FAILED: no notice that no GPU was found"; exit 1; }
  else
    [ "$(jq -r .hint "$dir/model-info.json")" = null ] || { log "FAILED: a hint with the module and a GPU"; exit 1; }
  fi
else
  [ "$backends" = '[]' ] || { log "FAILED: backends $backends without a module"; exit 1; }
fi

log "nu-agent ask (expect an answer; with the module and no GPU, the notice first)"
NU_AGENT_MODEL="$MODEL" "$BIN" ask --max-steps 2 "say hello" 2>"$dir/ask.stderr" || true
cat "$dir/ask.stderr" >&2
if [ "$has_module" = 1 ] && [ "$has_gpu" = 0 ]; then
  grep -q 'no GPU was found' "$dir/ask.stderr" || { log "FAILED: the ask gave no notice that no GPU was found"; exit 1; }
fi
if grep -qi 'panicked\|segmentation\|worker died' "$dir/ask.stderr"; then
  log "FAILED: the portable build crashed, or its sandbox worker could not start"
  exit 1
fi
log "a step in the sandbox worker, run by the portable build"
"$BIN" run --json '[1 2 3] | math sum' | tee "$dir/run.json"
[ "$(cat "$dir/run.json")" = "6" ]
log "ok: the portable build (CUDA module: $has_module) starts here, says what it found, and runs"
