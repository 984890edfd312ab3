"""The FLOP rate this machine's best kernels reach, measured in the same run
as the suite, so that a model's rate (its conv and matmul FLOPs over its
latency) can be read against what the cores do at best.

    python -m bench.peak --threads 2

Why: a target such as "half of eager's latency" fixes a FLOP rate; if it is
above what the best single kernel reaches on shapes that fit the caches, no
schedule of those same FLOPs can meet it (only fewer FLOPs could, such as
Winograd, which oneDNN 3.x no longer has for fp32 on x86). Kernels: oneDNN
3x3 convs created once (runtime/host/onednn.py; the shape with the best rate in
ResNet-50) and torch's sgemm on 2048^3, each at its fastest call: an
upper bound, which only makes "out of reach" a safer conclusion.
"""

from __future__ import annotations

import argparse
import sys

import torch

from bench.benchmark import min_ms
from runtime.host import onednn


def _rate(run, flops: float, iterations: int) -> float:
    # noise only slows a kernel: its fastest call is its rate
    return flops / min_ms(run, iterations) / 1e6


def attainable_gflops(iterations: int = 10) -> dict[str, float]:
    """GFLOP/s of each kernel, the best first."""
    torch.manual_seed(0)
    rates = {}
    n = 2048
    a, b, c = torch.randn(n, n), torch.randn(n, n), torch.empty(n, n)
    rates["sgemm 2048^3 (torch)"] = _rate(lambda: torch.mm(a, b, out=c), 2 * n**3, iterations)
    if onednn.available():
        for batch, channels, size in ((1, 256, 28), (8, 64, 56)):
            x = torch.randn(batch, channels, size, size).contiguous(
                memory_format=torch.channels_last)
            w = torch.randn(channels, channels, 3, 3) * 0.05
            out = torch.empty_like(x)
            conv = onednn.conv2d(x, w, None, out, (1, 1), (1, 1), (1, 1), 1)
            flops = 2 * batch * channels * channels * 9 * size * size
            rates[f"conv3x3 {batch}x{channels}x{size}x{size} (oneDNN {conv.impl})"] = _rate(
                conv, flops, iterations)
    return dict(sorted(rates.items(), key=lambda kv: -kv[1]))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="bench.peak", description=__doc__.split("\n")[0])
    p.add_argument("--threads", type=int, default=0)
    p.add_argument("--iterations", type=int, default=10)
    args = p.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    for kernel, rate in attainable_gflops(args.iterations).items():
        print(f"{rate:7.1f} GFLOP/s  {kernel}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
