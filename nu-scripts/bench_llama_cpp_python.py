#!/usr/bin/env python3
"""The llama-cpp-python side of the local backend benchmark.

`cargo bench -p agent-core --bench local` starts this script once with the
venv's python (see nu-scripts/install-llama-cpp-python.sh) and drives it
over stdin/stdout, one JSON object per line each way, so its runs interleave
with the backend's own in one benchmark run:

  {"cmd": "load", "model": PATH, "threads": N, "n_ctx": 2048, "n_batch": 512,
   "flash_attn": true}
  {"cmd": "tokenize", "text": TEXT, "add_bos": true} -> {"tokens": [...]}
  {"cmd": "prefill", "tokens": [...]}        -> {"seconds": S, ...}
  {"cmd": "decode", "tokens": [...], "n": 128} -> {"seconds": S, ...}
  {"cmd": "quit"}

Both measurements do the same work as the backend's turns: prefill is the
whole prompt from an empty KV cache plus one greedy token (sampled and
decoded); decode is the last prompt token again, then `n` greedy tokens with
every end-of-generation token banned by a logit bias, each sampled, turned
into text and decoded. The sampler is llama.cpp's own chain (logit bias,
greedy) called through llama-cpp-python's bindings, and evaluation goes
through `Llama.eval`, the path `Llama.generate` uses.
"""

import ctypes
import json
import sys
import time

import llama_cpp


class Peer:
    """One loaded model and the end-of-generation bias of its vocabulary."""

    def __init__(self, request):
        self.llm = llama_cpp.Llama(
            model_path=request["model"],
            n_ctx=request.get("n_ctx", 2048),
            n_batch=request.get("n_batch", 512),
            n_ubatch=request.get("n_batch", 512),
            n_threads=request["threads"],
            n_threads_batch=request["threads"],
            flash_attn=request.get("flash_attn", False),
            n_gpu_layers=0,
            verbose=False,
        )
        vocab = llama_cpp.llama_model_get_vocab(self.llm._model.model)
        self.n_vocab = llama_cpp.llama_vocab_n_tokens(vocab)
        eog = [t for t in range(self.n_vocab) if llama_cpp.llama_vocab_is_eog(vocab, t)]
        self.bias = (llama_cpp.llama_logit_bias * len(eog))()
        for i, token in enumerate(eog):
            self.bias[i].token = token
            self.bias[i].bias = float("-inf")
        self.n_eog = len(eog)

    def sampler(self, ban_eog):
        chain = llama_cpp.llama_sampler_chain_init(llama_cpp.llama_sampler_chain_default_params())
        if ban_eog:
            llama_cpp.llama_sampler_chain_add(
                chain,
                llama_cpp.llama_sampler_init_logit_bias(
                    self.n_vocab, self.n_eog, ctypes.cast(self.bias, ctypes.POINTER(llama_cpp.llama_logit_bias))
                ),
            )
        llama_cpp.llama_sampler_chain_add(chain, llama_cpp.llama_sampler_init_greedy())
        return chain

    def sample(self, chain):
        return llama_cpp.llama_sampler_sample(chain, self.llm._ctx.ctx, -1)

    def prefill(self, tokens):
        llm = self.llm
        started = time.perf_counter()
        llm.reset()
        llm.eval(tokens)
        chain = self.sampler(False)
        token = self.sample(chain)
        llm.detokenize([token])
        llm.eval([token])
        seconds = time.perf_counter() - started
        llama_cpp.llama_sampler_free(chain)
        return {"seconds": seconds, "prompt_tokens": len(tokens)}

    def decode(self, tokens, n):
        llm = self.llm
        # The cache holds the prompt (and more) from the prefill before:
        # keep all but the last prompt token, as the backend does.
        keep = len(tokens) - 1
        if llm.n_tokens < keep or list(llm.input_ids[:keep]) != list(tokens[:keep]):
            llm.reset()
            llm.eval(tokens[:-1])
        llm.n_tokens = keep
        started = time.perf_counter()
        chain = self.sampler(True)
        llm.eval(tokens[-1:])
        pieces = []
        for _ in range(n):
            token = self.sample(chain)
            pieces.append(llm.detokenize([token]))
            llm.eval([token])
        seconds = time.perf_counter() - started
        llama_cpp.llama_sampler_free(chain)
        text = b"".join(pieces).decode("utf-8", errors="replace")
        return {"seconds": seconds, "generated": n, "text": text}


def main():
    peer = None
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        command = request["cmd"]
        try:
            if command == "load":
                peer = None
                peer = Peer(request)
                reply = {"ok": True, "version": llama_cpp.__version__, "n_vocab": peer.n_vocab}
            elif command == "tokenize":
                tokens = peer.llm.tokenize(
                    request["text"].encode(), add_bos=request.get("add_bos", True), special=True
                )
                reply = {"tokens": tokens}
            elif command == "prefill":
                reply = peer.prefill(request["tokens"])
            elif command == "decode":
                reply = peer.decode(request["tokens"], request["n"])
            elif command == "quit":
                return
            else:
                reply = {"error": f"unknown command {command!r}"}
        except Exception as error:  # reported to the benchmark, which stops
            reply = {"error": f"{type(error).__name__}: {error}"}
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
