#!/usr/bin/env bash
# Install the nu host the plugin speaks to (0.115.1) into a versioned cache,
# and print its path. Uses the official release binary from the npm registry
# when npm is available, else builds it with cargo.
set -euo pipefail

NU_VERSION="${NU_VERSION:-0.115.1}"
CACHE="${NU_AGENT_CACHE:-$HOME/.cache/nu-agent}"
DEST="$CACHE/nu-$NU_VERSION"
NU="$DEST/nu"

if [ -x "$NU" ] && "$NU" --version 2>/dev/null | grep -qx "$NU_VERSION"; then
  echo "$NU"
  exit 0
fi
mkdir -p "$DEST"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

arch="$(uname -m)"
case "$arch" in
  x86_64) npm_pkg="@nushell/linux-x64" ;;
  aarch64) npm_pkg="@nushell/linux-arm64" ;;
  *) npm_pkg="" ;;
esac

if [ -n "$npm_pkg" ] && command -v npm >/dev/null 2>&1 \
   && (cd "$work" && npm pack --silent "$npm_pkg@$NU_VERSION" >/dev/null 2>&1); then
  tar -xzf "$work"/*.tgz -C "$work"
  install -m 0755 "$work/package/bin/nu" "$NU"
else
  echo "building nu $NU_VERSION with cargo (about 15 minutes on 2 cores)..." >&2
  cargo install nu --version "$NU_VERSION" --locked --root "$work/root" >&2
  install -m 0755 "$work/root/bin/nu" "$NU"
fi
"$NU" --version | grep -qx "$NU_VERSION"
echo "$NU"
