"""Weight-only int8 against fp32: decode per token on a Llama-style decoder.

The decoder of test/models/llama.py at hidden size 1024, 8 layers (16
heads, 4 key/value heads, MLP 2816, vocabulary 8192: 111 M parameters,
445 MB in fp32), random weights, compiled twice, fp32 and with
`weight_quant="int8"`. Both generate greedily from the same prompt; the
per-token time is the median over the decode steps, in interleaved rounds
so that load on the machine hits both alike. Prints the tokens, whether
they agree, the ratio, the load (`uptime`) and the CPU's ISA.

    python bench/weight_quant.py [--tokens 16] [--rounds 3] [--layers 8] [--threads N]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from examples.generate import generate  # noqa: E402
from npu_graph import NpuGraph  # noqa: E402
from test.models.llama import (  # noqa: E402
    Config,
    Decode,
    Decoder,
    Prefill,
    decode_example,
    prefill_example,
)


def compile_phases(decoder, **flags):
    inputs, dynamic = prefill_example(decoder)
    prefill = NpuGraph(Prefill(decoder), input_spec=inputs, dynamic_shapes=dynamic).optimize(**flags)
    inputs, dynamic = decode_example(decoder)
    decode = NpuGraph(Decode(decoder), input_spec=inputs, dynamic_shapes=dynamic).optimize(**flags)
    return prefill, decode


def isa() -> str:
    flags = next((line for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("flags")), "")
    wanted = ("avx2", "avx512f", "avx512_vnni", "avx512_bf16", "amx_int8", "amx_bf16")
    return " ".join(f for f in wanted if f" {f}" in flags)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--tokens", type=int, default=16)
    p.add_argument("--prompt", type=int, default=8)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--layers", type=int, default=8)
    p.add_argument("--dim", type=int, default=1024)
    p.add_argument("--threads", type=int, help="torch.set_num_threads (default: torch's)")
    p.add_argument("--json", help="write the figures here")
    args = p.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)

    torch.manual_seed(0)
    config = Config(vocab=8192, dim=args.dim, layers=args.layers, heads=16, kv_heads=4,
                    hidden=2816 * args.dim // 1024, max_positions=args.prompt + args.tokens + 8)
    decoder = Decoder(config).eval()
    prompt = torch.randint(0, config.vocab, (1, args.prompt))
    compiled = {"fp32": compile_phases(decoder), "int8": compile_phases(decoder, weight_quant="int8")}
    per_token = {name: [] for name in compiled}
    tokens = {}
    for _ in range(args.rounds):
        for name, (prefill, decode) in compiled.items():
            tokens[name], times, _ = generate(prefill, decode, prompt, args.tokens)
            per_token[name].append(statistics.median(times[1:]))
    ms = {name: 1e3 * min(v) for name, v in per_token.items()}
    same = tokens["fp32"] == tokens["int8"]
    load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    print(f"decoder: dim {config.dim}, {config.layers} layers, MLP {config.hidden}, "
          f"vocab {config.vocab}; {torch.get_num_threads()} threads")
    print(f"fp32 tokens: {tokens['fp32']}")
    print(f"int8 tokens: {tokens['int8']} ({'equal' if same else 'DIFFERENT'})")
    print(f"decode per token: fp32 {ms['fp32']:.2f} ms, int8 weights {ms['int8']:.2f} ms, "
          f"ratio {ms['int8'] / ms['fp32']:.2f}")
    print(f"load: {load}")
    print(f"ISA: {isa()}")
    if args.json:
        Path(args.json).write_text(json.dumps({
            "config": config.__dict__, "threads": torch.get_num_threads(),
            "per_token_ms": ms, "rounds_ms": per_token, "tokens_equal": same,
            "uptime": load, "isa": isa(), "cpus": os.cpu_count()}, indent=1) + "\n")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
