#!/usr/bin/env bash
# Proves the GPU offload path end to end on a machine without a GPU: builds
# agent-core with llama.cpp's Vulkan backend and runs
# agent-core/examples/offload_check.rs on Mesa's software Vulkan device
# (lavapipe, named "llvmpipe"). Debian/Ubuntu; needs root or sudo for apt.
#
#   nu-scripts/gpu-vulkan-check.sh [model.gguf]
#
# Env: CARGO_TARGET_DIR_VULKAN (default ~/.cache/nu-agent/target-vulkan),
# GGML_VK_VISIBLE_DEVICES (default: the index of the lavapipe device),
# VULKAN_SDK (default: system headers when new enough, else a private copy).
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(build-essential cmake libclang-dev libvulkan-dev glslc spirv-headers mesa-vulkan-drivers vulkan-tools)
TARGET_DIR="${CARGO_TARGET_DIR_VULKAN:-$HOME/.cache/nu-agent/target-vulkan}"

missing=()
for pkg in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  echo "installing: ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi

# ggml-vulkan needs Vulkan headers newer than bookworm's 1.3.239 (it uses
# VK_EXT_layer_settings). Without them, unpack (not install) trixie's
# arch-independent header packages into a private SDK folder for the build;
# the loader at run time stays the system's libvulkan1.
if [ -z "${VULKAN_SDK:-}" ] && ! grep -q VK_EXT_layer_settings /usr/include/vulkan/vulkan_core.h; then
  VULKAN_SDK="${NU_AGENT_CACHE:-$HOME/.cache/nu-agent}/vulkan-sdk"
  if ! grep -qs VK_EXT_layer_settings "$VULKAN_SDK/include/vulkan/vulkan_core.h"; then
    apt_dir="$(mktemp -d)"
    mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/root"
    echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main" >"$apt_dir/sources.list"
    apt_opts=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o Dir::Etc::SourceParts=/nonexistent
      -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache" -o APT::Sandbox::User=root)
    echo "unpacking Vulkan headers from trixie into $VULKAN_SDK" >&2
    apt-get "${apt_opts[@]}" update -qq
    (cd "$apt_dir" && apt-get "${apt_opts[@]}" -qq download libvulkan-dev spirv-headers >&2)
    for deb in "$apt_dir"/*.deb; do dpkg-deb -x "$deb" "$apt_dir/root"; done
    rm -rf "$VULKAN_SDK"
    mkdir -p "$(dirname "$VULKAN_SDK")"
    mv "$apt_dir/root/usr" "$VULKAN_SDK"
    rm -rf "$apt_dir"
  fi
  ln -sf "/usr/lib/$(gcc -print-multiarch)/libvulkan.so.1" "$VULKAN_SDK/lib/libvulkan.so"
  export VULKAN_SDK
fi
# CMake caches the headers it found: drop a build configured with others.
vk_include="${VULKAN_SDK:+$VULKAN_SDK/include}"
for cache in "$TARGET_DIR"/debug/build/llama-cpp-sys-2-*/out/build/CMakeCache.txt; do
  if [ -f "$cache" ] && ! grep -qx "Vulkan_INCLUDE_DIR:PATH=${vk_include:-/usr/include}" "$cache"; then
    rm -rf "$(dirname "$cache")"
  fi
done

# ggml-vulkan skips CPU-type Vulkan devices unless they are named, so find
# lavapipe's index in the loader's order.
if [ -z "${GGML_VK_VISIBLE_DEVICES:-}" ]; then
  GGML_VK_VISIBLE_DEVICES="$(vulkaninfo --summary 2>/dev/null | awk '
    /^GPU[0-9]+:/ { gpu = substr($1, 4, length($1) - 4) }
    /driverName *= *llvmpipe/ { print gpu; exit }')"
  if [ -z "$GGML_VK_VISIBLE_DEVICES" ]; then
    echo "FAIL: vulkaninfo --summary lists no llvmpipe (lavapipe) device; is mesa-vulkan-drivers installed?" >&2
    exit 1
  fi
fi
export GGML_VK_VISIBLE_DEVICES
echo "Vulkan device index used: $GGML_VK_VISIBLE_DEVICES" >&2

start=$SECONDS
CARGO_TARGET_DIR="$TARGET_DIR" nice -n 19 cargo build -q -p agent-core --features vulkan --example offload_check
echo "build: $((SECONDS - start))s" >&2

model="${1:-$(nu-scripts/fetch-test-model.sh)}"
bin="$TARGET_DIR/debug/examples/offload_check"

# Cold: an empty Mesa shader cache; warm: the same cache, second run.
shader_cache="$(mktemp -d)"
trap 'rm -rf "$shader_cache"' EXIT
for run in cold warm; do
  start_ns=$(date +%s%N)
  if ! out="$(MESA_SHADER_CACHE_DIR="$shader_cache" nice -n 19 "$bin" "$model" 2>&1)"; then
    echo "$out" >&2
    echo "FAIL: offload_check exited with an error on the $run run" >&2
    exit 1
  fi
  echo "$run run: $(( ($(date +%s%N) - start_ns) / 1000000 )) ms" >&2
done
echo "$out"

grep -Eq '^  #[0-9]+ Vulkan[0-9]+ \[Vulkan\]' <<<"$out" \
  || { echo "FAIL: ggml lists no Vulkan device" >&2; exit 1; }
grep -Eq 'Vulkan[0-9]+ model buffer size' <<<"$out" \
  || { echo "FAIL: no model weights were placed on the Vulkan device" >&2; exit 1; }
grep -Eq '^OK: offloaded [1-9][0-9]*/[0-9]+ layers to GPU' <<<"$out" \
  || { echo "FAIL: no layer was offloaded" >&2; exit 1; }
echo "PASS: layers offloaded to the Vulkan device (lavapipe)"
