#!/usr/bin/env bash
# Builds the portable nu-agent (`--features gpu-dl`: llama.cpp's backends
# as modules loaded at start, every x86 CPU variant among them) and lays it
# out as a release ships it: the binary, llama.cpp's libraries and the CPU
# modules in one folder, found through the binary's $ORIGIN rpath. No CUDA
# toolkit is needed: a CUDA module built on a machine with nvcc
# (nu-scripts/build-cuda-module.sh) is added to the folder, and the binary
# loads it where there is a GPU.
#
#   nu-scripts/portable-layout.sh <folder>
#
# Env: PROFILE (debug, the default, or release), CARGO_TARGET_DIR. The
# target folder's own nu-agent stays the CPU-only build.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/nu-agent/target}"
log() { echo "portable-layout: $*" >&2; }
dir="${1:?usage: portable-layout.sh <folder>}"
profile="${PROFILE:-debug}"
command -v patchelf >/dev/null || {
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get install -y -qq patchelf >&2
}
# llama-cpp-sys-2's build script links llama.cpp's libraries into the
# target folder and panics on a dangling link left by an earlier build of
# them (another feature set): clear those first.
for sub in "" /examples /deps; do
  find "$CARGO_TARGET_DIR/$profile$sub" -maxdepth 1 -xtype l \
    \( -name 'libllama*.so*' -o -name 'libggml*.so*' -o -name 'libmtmd*.so*' \) -delete 2>/dev/null || true
done
log "building nu-agent --features gpu-dl ($profile)"
flag=""; [ "$profile" = release ] && flag=--release
cargo build -q $flag -p nu_plugin_agent --bin nu-agent --features gpu-dl
mkdir -p "$dir"
cp "$CARGO_TARGET_DIR/$profile/nu-agent" "$dir/"
# The llama.cpp build of this feature set is the one with CPU modules.
out="$(dirname "$(ls -td "$CARGO_TARGET_DIR/$profile"/build/llama-cpp-sys-2-*/out/backends | head -1)")"
cp -a "$out"/lib/lib*.so.* "$dir/"
cp "$out"/backends/libggml-cpu-*.so "$dir/"
patchelf --set-rpath '$ORIGIN' "$dir/nu-agent"
# The CPU-only binary back in the target folder, where the tests and the
# plugin registration look (cargo keeps both builds: this is a copy).
cargo build -q $flag -p nu_plugin_agent --bin nu-agent
log "laid out in $dir: $(ls "$dir" | wc -l) files"
