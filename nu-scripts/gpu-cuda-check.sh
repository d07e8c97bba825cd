#!/usr/bin/env bash
# Builds nu-agent with llama.cpp's CUDA backend on a machine without a GPU
# (or a driver), then runs `nu-agent model info` and a short `nu-agent ask`
# with it: the build must start, say that no GPU was found, and answer on
# the CPU.
#
#   nu-scripts/gpu-cuda-check.sh [model.gguf]
#
# The CUDA toolchain comes from registry packages: NVIDIA's CUDA 13 wheels
# (nvidia-cuda-nvcc, -crt, -nvvm, -runtime, -cublas, -cccl) install into
# one `nvidia/cu13` prefix, laid out here as a CUDA root in a versioned
# cache. (The CUDA 12 `*-cu12` nvcc wheels carry ptxas and libnvvm but no
# `nvcc` driver, so they cannot compile llama.cpp's kernels.)
#
# The build is `--features cuda-portable`: the CUDA backend is a module
# llama.cpp loads at run time (GGML_BACKEND_DL), linked against the CUDA
# runtime, not the driver (GGML_CUDA_NO_VMM), so the same binary starts
# where there is no GPU and uses one where there is.
#
# Env: CUDAARCHS (default 80;86;89;90: the kernels are compiled for these
# GPU generations), CARGO_TARGET_DIR_CUDA (default
# ~/.cache/nu-agent/target-cuda), NU_AGENT_CACHE.
set -euo pipefail
cd "$(dirname "$0")/.."

CACHE="${NU_AGENT_CACHE:-$HOME/.cache/nu-agent}"
CUDA_VERSION=13.0
CUDA_ROOT="$CACHE/cuda-$CUDA_VERSION"
TARGET_DIR="${CARGO_TARGET_DIR_CUDA:-$CACHE/target-cuda}"
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

if [ ! -x "$CUDA_ROOT/bin/nvcc" ]; then
  log "laying out the CUDA $CUDA_VERSION toolchain from its wheels in $CUDA_ROOT"
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  python3 -m pip download --quiet --disable-pip-version-check --no-deps --dest "$work/wheels" "${WHEELS[@]}"
  for wheel in "$work"/wheels/*.whl; do
    python3 -m zipfile -e "$wheel" "$work/unpacked"
  done
  prefix="$work/unpacked/nvidia/cu13"
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
fi
"$CUDA_ROOT/bin/nvcc" --version | tail -2 >&2

export CUDA_PATH="$CUDA_ROOT" CUDAToolkit_ROOT="$CUDA_ROOT" CUDACXX="$CUDA_ROOT/bin/nvcc"
export PATH="$CUDA_ROOT/bin:$PATH"

log "building nu-agent --features cuda-portable (CUDA architectures $CUDAARCHS) into $TARGET_DIR"
started=$(date +%s)
CARGO_TARGET_DIR="$TARGET_DIR" cargo build --release -p nu_plugin_agent --bin nu-agent --features cuda-portable
log "built in $(( $(date +%s) - started )) s"
BIN="$TARGET_DIR/release/nu-agent"
# The binary links llama.cpp's shared libraries: put them (by the versioned
# names it asks for) beside it and let it look there ($ORIGIN). It must not
# depend on LD_LIBRARY_PATH: the sandbox never passes LD_* variables on, and
# the binary starts itself again as the sandbox worker and the launcher.
LIB_DIR="$(dirname "$(ls -t "$TARGET_DIR"/release/build/llama-cpp-sys-2-*/out/lib/libllama.so.0 | head -1)")"
cp -a "$LIB_DIR"/lib*.so.* "$TARGET_DIR/release/"
command -v patchelf >/dev/null || {
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get install -y -qq patchelf >&2
}
patchelf --set-rpath '$ORIGIN' "$BIN"
# The CUDA runtime and cuBLAS that the CUDA module needs come from the
# toolkit root (on a machine with a GPU: the installed CUDA).
export LD_LIBRARY_PATH="$CUDA_ROOT/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

MODEL="${1:-$(bash nu-scripts/fetch-test-model.sh)}"
log "nu-agent model info (expect compiled_backends: cuda and the no-GPU notice)"
"$BIN" model info --json "$MODEL" | tee "$TARGET_DIR/model-info.json"
grep -q '"cuda"' "$TARGET_DIR/model-info.json"
grep -q 'no GPU was found' "$TARGET_DIR/model-info.json"

log "nu-agent ask on the CPU (expect the notice, then an answer)"
NU_AGENT_MODEL="$MODEL" "$BIN" ask --max-steps 2 "say hello" 2>"$TARGET_DIR/ask.stderr" || true
cat "$TARGET_DIR/ask.stderr" >&2
grep -q 'no GPU was found' "$TARGET_DIR/ask.stderr"
if grep -qi 'panicked\|segmentation\|worker died' "$TARGET_DIR/ask.stderr"; then
  log "FAILED: the cuda build crashed, or its sandbox worker could not start"
  exit 1
fi
log "a step in the sandbox worker, run by the cuda build"
"$BIN" run --json '[1 2 3] | math sum' | tee "$TARGET_DIR/run.json"
[ "$(cat "$TARGET_DIR/run.json")" = "6" ]
log "ok: the cuda build starts without a GPU, says so, and runs on the CPU"
