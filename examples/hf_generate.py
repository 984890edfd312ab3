"""Hugging Face generate(), unmodified, through torch.compile(backend="ge").

A Llama-style causal LM is built from a tiny config with random weights (no
download). Its `forward` is compiled with the GE backend and `generate()`
runs as usual; the greedy tokens are checked against eager's. Each graph
Dynamo hands over logs one line (compiled whole, split around ops GE lacks,
or eager with the reason).

    python examples/hf_generate.py [--cache dynamic|static|none] [--dtype float32|bfloat16]
                                   [--tokens 16] [--mode max-autotune|reduce-overhead]

docs/llm.md explains the caches, the two modes and graph breaks.
"""

import argparse
import logging
import sys
import time
from pathlib import Path

import torch
from transformers import LlamaConfig, LlamaForCausalLM

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import npu_graph  # noqa: E402

CACHES = {"dynamic": {}, "static": {"cache_implementation": "static"},
          "none": {"use_cache": False}}


def tiny_llama(dtype: torch.dtype) -> LlamaForCausalLM:
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=128, hidden_size=64, intermediate_size=128,
                         num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                         max_position_embeddings=128)
    return LlamaForCausalLM(config).eval().to(dtype)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cache", choices=sorted(CACHES), default="dynamic")
    p.add_argument("--dtype", choices=["float32", "bfloat16", "float16"], default="float32")
    p.add_argument("--tokens", type=int, default=16, help="new tokens to generate")
    p.add_argument("--mode", choices=list(npu_graph.backend.MODES), default="max-autotune")
    args = p.parse_args(argv)
    logging.basicConfig(format="%(message)s")
    logging.getLogger("npu_graph.backend").setLevel(logging.INFO)

    model = tiny_llama(getattr(torch, args.dtype))
    prompt = torch.randint(0, 128, (1, 8), generator=torch.Generator().manual_seed(1))
    options = dict(max_new_tokens=args.tokens, do_sample=False, **CACHES[args.cache])
    with torch.no_grad():
        expected = model.generate(prompt, **options)

    config = npu_graph.CompilerConfig(mode=args.mode)
    # reduce-overhead takes static shapes only: one graph per length
    dynamic = False if args.mode == "reduce-overhead" else None
    model.forward = torch.compile(model.forward, dynamic=dynamic,
                                  backend=npu_graph.get_npu_backend(compiler_config=config))
    start = time.perf_counter()
    with torch.no_grad():
        tokens = model.generate(prompt, **options)
    print(f"generate() through the GE backend: {time.perf_counter() - start:.1f} s "
          "(compiles included)")
    print(f"tokens: {tokens[0, prompt.shape[1]:].tolist()}")
    same = torch.equal(tokens, expected)
    print(f"{args.tokens} tokens {'match' if same else 'DIFFER FROM'} eager token for token")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
