"""Greedy generation with a Llama-style decoder and an explicit KV cache.

The decoder (`test/models/llama.py`: rotary embeddings, grouped-query
attention, RMSNorm, gated SiLU MLP) is compiled twice, once per phase, each
with a dynamic sequence length:

- prefill: the prompt (any length) in, logits and the cache out;
- decode: one token and the cache (any length) in, logits and the cache one
  step longer out.

The generated tokens are checked against eager PyTorch token for token, and
the latencies are printed beside eager's, with the simulated device time.

    python examples/generate.py [--tokens 32] [--prompt 8]
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from npu_graph import NpuGraph  # noqa: E402
from test.models.llama import (  # noqa: E402
    Decode,
    Prefill,
    decode_example,
    generate_eager,
    make_decoder,
    prefill_example,
)


def compile_phases(decoder):
    """The prefill and decode graphs, each optimized with the default pipeline."""
    inputs, dynamic = prefill_example(decoder)
    prefill = NpuGraph(Prefill(decoder), input_spec=inputs, dynamic_shapes=dynamic).optimize()
    inputs, dynamic = decode_example(decoder)
    decode = NpuGraph(Decode(decoder), input_spec=inputs, dynamic_shapes=dynamic).optimize()
    return prefill, decode


def generate(prefill, decode, prompt: torch.Tensor, steps: int):
    """Greedy tokens, with the host time of each call and the simulated device time."""
    n = prompt.shape[1]
    start = time.perf_counter()
    logits, *cache = prefill(prompt, torch.arange(n)[None])
    times = [time.perf_counter() - start]
    device = [prefill.stats["execution_time"]]
    tokens = [int(logits[0, -1].argmax())]
    for step in range(steps - 1):
        start = time.perf_counter()
        logits, *cache = decode(torch.tensor([[tokens[-1]]]), torch.tensor([[n + step]]), *cache)
        times.append(time.perf_counter() - start)
        device.append(decode.stats["execution_time"])
        tokens.append(int(logits[0, -1].argmax()))
    return tokens, times, device


def eager_times(decoder, prompt: torch.Tensor, steps: int) -> list[float]:
    """Eager's prefill and per-token host times, same loop as `generate`."""
    times = []
    with torch.no_grad():
        start = time.perf_counter()
        logits, *cache = decoder.run(prompt, torch.arange(prompt.shape[1])[None])
        times.append(time.perf_counter() - start)
        token = int(logits[0, -1].argmax())
        for step in range(steps - 1):
            start = time.perf_counter()
            pos = torch.tensor([[prompt.shape[1] + step]])
            logits, *cache = decoder.run(torch.tensor([[token]]), pos, cache)
            times.append(time.perf_counter() - start)
            token = int(logits[0, -1].argmax())
    return times


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--tokens", type=int, default=32, help="tokens to generate")
    p.add_argument("--prompt", type=int, default=8, help="prompt length")
    args = p.parse_args(argv)

    decoder = make_decoder()
    start = time.perf_counter()
    prefill, decode = compile_phases(decoder)
    print(f"compiled prefill and decode in {time.perf_counter() - start:.1f} s")

    torch.manual_seed(1)
    prompt = torch.randint(0, decoder.c.vocab, (1, args.prompt))
    expected = generate_eager(decoder, prompt, args.tokens)
    tokens, times, device = generate(prefill, decode, prompt, args.tokens)
    print(f"tokens: {tokens}")
    same = tokens == expected
    print(f"{len(tokens)} tokens {'match' if same else 'DIFFER FROM'} eager token for token")

    eager_times(decoder, prompt, args.tokens)  # warm up torch's first calls
    reference = eager_times(decoder, prompt, args.tokens)
    ms = 1e3
    print(f"prefill ({args.prompt} tokens): ours {times[0] * ms:.2f} ms, eager "
          f"{reference[0] * ms:.2f} ms, simulated device {device[0]:.3f} ms")
    if len(times) > 1:
        print(f"per token (median of {len(times) - 1}): ours "
              f"{statistics.median(times[1:]) * ms:.2f} ms, eager "
              f"{statistics.median(reference[1:]) * ms:.2f} ms, simulated device "
              f"{statistics.median(device[1:]):.3f} ms")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
