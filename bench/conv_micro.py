"""Microbenchmark: conv algorithms on ResNet-50's conv shapes (lever 3 of issue #8).

    python -m bench.conv_micro [--batch 1] [--iterations 20] [--threads 2]

For every distinct conv shape of ResNet-50 it times (median ms, one process,
the algorithms interleaved): the library conv (oneDNN) on NCHW and on
channels_last inputs, and the GEMM forms runtime/fast_kernels.py can use:
a 1x1 stride-1 conv as one addmm over a channels_last view, and a 3x3
stride-1 conv as 9 shifted GEMMs over a zero-padded NHWC copy. Each figure
includes writing the result into a preallocated output, as the runtime does.
The load average is printed: figures from a busy machine are not comparable.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import torch
import torch.nn.functional as F

from runtime import fast_kernels

# (in channels, out channels, input size, kernel, stride, count in ResNet-50)
RESNET50_CONVS = [
    (3, 64, 224, 7, 2, 1),
    (64, 64, 56, 1, 1, 3), (64, 64, 56, 3, 1, 3), (64, 256, 56, 1, 1, 4),
    (256, 64, 56, 1, 1, 2),
    (256, 128, 56, 1, 1, 1), (128, 128, 56, 3, 2, 1), (128, 512, 28, 1, 1, 4),
    (256, 512, 56, 1, 2, 1), (512, 128, 28, 1, 1, 3), (128, 128, 28, 3, 1, 3),
    (512, 256, 28, 1, 1, 1), (256, 256, 28, 3, 2, 1), (256, 1024, 14, 1, 1, 6),
    (512, 1024, 28, 1, 2, 1), (1024, 256, 14, 1, 1, 5), (256, 256, 14, 3, 1, 5),
    (1024, 512, 14, 1, 1, 1), (512, 512, 14, 3, 2, 1), (512, 2048, 7, 1, 1, 3),
    (1024, 2048, 14, 1, 2, 1), (2048, 512, 7, 1, 1, 2), (512, 512, 7, 3, 1, 2),
]


def _median_ms(fn, iterations: int) -> float:
    fn()
    times = []
    for _ in range(iterations):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def candidates(n, cin, cout, size, k, stride):
    """name -> zero-argument callable writing the conv of one shape into `out`."""
    pad = k // 2
    st, pd = (stride, stride), (pad, pad)
    x = torch.randn(n, cin, size, size)
    w, b = torch.randn(cout, cin, k, k), torch.randn(cout)
    x_cl = x.contiguous(memory_format=torch.channels_last)
    ref = F.conv2d(x, w, b, stride, pad)
    out = torch.empty_like(ref)
    out_cl = torch.empty_like(ref, memory_format=torch.channels_last)
    runs = {
        "lib_nchw": lambda: out.copy_(F.conv2d(x, w, b, stride, pad)),
        "lib_cl": lambda: out_cl.copy_(F.conv2d(x_cl, w, b, stride, pad)),
    }
    for name, algo in fast_kernels.CONV_ALGORITHMS.items():
        if name != "library" and algo.applies(w.shape, st, pd, (1, 1), 1):
            run = algo.prepare(w, b, st, pd)
            runs[name] = lambda run=run: run(x_cl, out_cl)
    return runs, ref, out, out_cl


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="bench.conv_micro", description=__doc__.split("\n")[0])
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--iterations", type=int, default=20)
    p.add_argument("--threads", type=int, default=0)
    args = p.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    print(f"load average {os.getloadavg()[0]:.2f}, {torch.get_num_threads()} threads, "
          f"torch {torch.__version__}, batch {args.batch}")
    totals: dict[str, float] = {}
    with torch.no_grad():
        for cin, cout, size, k, stride, count in RESNET50_CONVS:
            runs, _, _, _ = candidates(args.batch, cin, cout, size, k, stride)
            times: dict[str, list[float]] = {name: [] for name in runs}
            for _ in range(3):  # interleave the algorithms
                for name, run in runs.items():
                    times[name].append(_median_ms(run, max(1, args.iterations // 3)))
            med = {name: statistics.median(ts) for name, ts in times.items()}
            out = size // stride
            gflop = 2 * args.batch * cout * out * out * cin * k * k / 1e9
            best = min(med, key=med.get)
            print(f"{cin:>5}->{cout:<5} {size:>3}px k{k} s{stride} x{count}: "
                  + "  ".join(f"{n} {t:.3f}ms ({gflop / t * 1e3:.0f} GF/s)"
                              for n, t in med.items()) + f"  best {best}")
            for name in ("lib_nchw", "lib_cl"):
                totals[name] = totals.get(name, 0.0) + count * med[name]
            totals["best"] = totals.get("best", 0.0) + count * med[best]
    print("whole network, ms: " + ", ".join(f"{n} {t:.1f}" for n, t in totals.items()))
    print(f"load average at end {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
