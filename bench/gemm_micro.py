"""Microbenchmark: the linear forms of runtime/host/runners.py on BERT-base's GEMMs.

    python -m bench.gemm_micro [--rows 128] [--iterations 30] [--threads 2]

For each linear shape of BERT-base at sequence 128 (rows x in -> out features)
it times, interleaved, the forms a linear task can take: `addmm` into a
preallocated output (torch's BLAS, MKL in the CPU wheel), oneDNN's inner
product on the plain weight, and on the weight prepacked once for this many
rows (`runners._onednn_linear`, plus the copy into the output view that
the runtime pays). Medians and GFLOP/s; the load average is printed, since
figures from a busy machine are not comparable.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import torch

from runtime.host import runners

# (in features, out features, count in BERT-base: 12 layers)
BERT_LINEARS = [(768, 768, 48), (768, 3072, 12), (3072, 768, 12)]


def candidates(rows: int, k: int, n: int) -> dict:
    """name -> zero-argument callable writing x @ W^T + b into one output."""
    x, w, b, out = torch.randn(rows, k), torch.randn(n, k), torch.randn(n), torch.empty(rows, n)
    forms = {"addmm": lambda: torch.addmm(b, x, w.t(), out=out)}
    if runners._has_onednn_linear():
        packed = runners._onednn_linear(w, b, rows, ("none", [], ""))
        forms["onednn_plain"] = lambda: out.copy_(
            torch.ops.mkldnn._linear_pointwise(x, w, b, "none", [], ""))
        forms["onednn_packed"] = lambda: out.copy_(packed(x))
    expected = x @ w.t() + b
    for name, fn in forms.items():
        fn()
        torch.testing.assert_close(out, expected, rtol=1e-4, atol=1e-3, msg=name)
    return forms


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=128, help="batch x sequence")
    ap.add_argument("--iterations", type=int, default=30)
    ap.add_argument("--threads", type=int, default=None)
    args = ap.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    print(f"load average {os.getloadavg()[0]:.2f}, {torch.get_num_threads()} threads, "
          f"rows {args.rows}")
    for k, n, count in BERT_LINEARS:
        forms = candidates(args.rows, k, n)
        times: dict[str, list[float]] = {name: [] for name in forms}
        for _ in range(args.iterations):
            for name, fn in forms.items():
                start = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - start)
        flops = 2 * args.rows * k * n
        cells = [f"{name} {statistics.median(t) * 1e3:.3f} ms "
                 f"({flops / statistics.median(t) / 1e9:.0f} GFLOP/s)"
                 for name, t in times.items()]
        print(f"{k:>5} -> {n:<5} x{count:<3} " + "  ".join(cells))
    print(f"load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
