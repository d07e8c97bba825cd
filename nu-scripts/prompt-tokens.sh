#!/usr/bin/env bash
# Size of what the model reads before a request: the `ask` system prompt with
# this machine's context and the tools, rendered as Qwen3's chat template does,
# counted with Qwen's BPE vocabulary (the default model's; it ships as
# `qwen.tiktoken` inside the `dashscope` PyPI wheel). Cached under
# ~/.cache/nu-agent/qwen-tokenizer. The SmolLM2 count is asserted by
# `cargo test -p agent-core --test agent_local_model`.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/nu-agent/target}"
CACHE="${NU_AGENT_CACHE:-$HOME/.cache/nu-agent}/qwen-tokenizer"
mkdir -p "$CACHE"
if [ ! -f "$CACHE/qwen.tiktoken" ]; then
  work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
  python3 -m pip download --quiet --disable-pip-version-check --no-deps --dest "$work" "dashscope==2.0.2" >&2
  python3 -c "import glob,sys,zipfile; z=zipfile.ZipFile(glob.glob(sys.argv[1]+'/dashscope-*.whl')[0]); open(sys.argv[2],'wb').write(z.read('dashscope/resources/qwen.tiktoken'))" "$work" "$CACHE/qwen.tiktoken"
fi
if [ ! -x "$CACHE/venv/bin/python" ]; then
  python3 -m venv "$CACHE/venv"
  "$CACHE/venv/bin/pip" install --quiet --disable-pip-version-check "tiktoken==0.12.0" >&2 || "$CACHE/venv/bin/pip" install --quiet tiktoken >&2
fi
prompt="$(mktemp)"
cargo run -q -p agent-core --example system_prompt "${1:-task}" > "$prompt"
"$CACHE/venv/bin/python" - "$CACHE/qwen.tiktoken" "$prompt" <<'PY'
import base64, sys, tiktoken
ranks = {}
for line in open(sys.argv[1], "rb"):
    if line.strip():
        token, rank = line.split()
        ranks[base64.b64decode(token)] = int(rank)
pattern = r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
specials = ["<|im_start|>", "<|im_end|>"]
enc = tiktoken.Encoding("qwen", pat_str=pattern, mergeable_ranks=ranks,
                        special_tokens={s: len(ranks) + i for i, s in enumerate(specials)})
system, tools = open(sys.argv[2]).read().rsplit("\n\n{", 1)
tools = "{" + tools.strip()
rendered = ("<|im_start|>system\n" + system + "\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
    "You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n" + tools + "\n</tools>\n\n"
    "For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n"
    "<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call><|im_end|>\n")
count = lambda text: len(enc.encode(text, allowed_special=set(specials)))
print(f"system prompt: {count(system)} tokens; with the tools as Qwen3 renders them: {count(rendered)} tokens (budget 1,200)")
PY
rm -f "$prompt"
