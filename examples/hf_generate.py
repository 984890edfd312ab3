"""Hugging Face generate(), unmodified, through torch.compile(backend="ge").

A causal LM (Llama by default, or Mistral, GPT-2) is built from a tiny config
with random weights (no download). Its `forward` is compiled with the GE
backend and `generate()` runs as usual; the greedy tokens are checked
against eager's. Each graph Dynamo hands over logs one line (compiled whole
with its in-place cache updates and whether it is replayed, split around
ops GE lacks, or eager with the reason), and the count of calls that ran
compiled code is printed.

    python examples/hf_generate.py [--model llama|mistral|gpt2]
                                   [--cache dynamic|static|none] [--dtype float32|bfloat16]
                                   [--tokens 16] [--mode max-autotune|reduce-overhead]

The static cache is updated in place by the decode graph; with
`--mode reduce-overhead` that graph is captured once and replayed per token.

docs/llm.md explains the caches, the two modes and graph breaks.
"""

import argparse
import logging
import sys
import time
from pathlib import Path

import torch
import transformers as hf

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import npu_graph  # noqa: E402

CACHES = {"dynamic": {}, "static": {"cache_implementation": "static"},
          "none": {"use_cache": False}}


_ATTENTION = dict(vocab_size=128, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                  num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128)
MODELS = {
    "llama": lambda: hf.LlamaForCausalLM(hf.LlamaConfig(**_ATTENTION)),
    "mistral": lambda: hf.MistralForCausalLM(hf.MistralConfig(**_ATTENTION)),
    "gpt2": lambda: hf.GPT2LMHeadModel(hf.GPT2Config(vocab_size=128, n_embd=64, n_layer=2,
                                                     n_head=4, n_positions=128)),
}


def tiny_model(name: str, dtype: torch.dtype) -> torch.nn.Module:
    torch.manual_seed(0)
    return MODELS[name]().eval().to(dtype)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", choices=sorted(MODELS), default="llama")
    p.add_argument("--cache", choices=sorted(CACHES), default="dynamic")
    p.add_argument("--dtype", choices=["float32", "bfloat16", "float16"], default="float32")
    p.add_argument("--tokens", type=int, default=16, help="new tokens to generate")
    p.add_argument("--mode", choices=list(npu_graph.backend.MODES), default="max-autotune")
    args = p.parse_args(argv)
    logging.basicConfig(format="%(message)s")
    logging.getLogger("npu_graph.backend").setLevel(logging.INFO)

    model = tiny_model(args.model, getattr(torch, args.dtype))
    prompt = torch.randint(0, 128, (1, 8), generator=torch.Generator().manual_seed(1))
    options = dict(max_new_tokens=args.tokens, do_sample=False, **CACHES[args.cache])
    with torch.no_grad():
        expected = model.generate(prompt, **options)

    config = npu_graph.CompilerConfig(mode=args.mode)
    # reduce-overhead takes static shapes only: one graph per length
    dynamic = False if args.mode == "reduce-overhead" else None
    backend = npu_graph.get_npu_backend(compiler_config=config)
    model.forward = torch.compile(model.forward, dynamic=dynamic, backend=backend)
    start = time.perf_counter()
    with torch.no_grad():
        tokens = model.generate(prompt, **options)
    print(f"generate() through the GE backend: {time.perf_counter() - start:.1f} s "
          "(compiles included)")
    print(f"tokens: {tokens[0, prompt.shape[1]:].tolist()}")
    calls = sum(r.calls for r in backend.reports)
    print(f"{len(backend.reports)} graph(s), {calls} call(s) ran compiled GE code")
    same = torch.equal(tokens, expected)
    print(f"{args.tokens} tokens {'match' if same else 'DIFFER FROM'} eager token for token")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
