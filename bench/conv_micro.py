"""Microbenchmark: conv algorithms on ResNet-50's conv shapes.

    python -m bench.conv_micro [--batch 1] [--iterations 20] [--threads 2] [--layout nhwc]
    python -m bench.conv_micro --layout blocked --batch 8   # oneDNN on nChw<B>c buffers

For every distinct conv shape of ResNet-50 it times (median ms, one process,
the algorithms interleaved, best of --iterations calls) each algorithm of
runtime/host/conv_algorithms.py that applies, and two forms the runtime does
not use (they lost on every shape: kept here to show it), with input and
output in the given layout (the arena's): the library conv (oneDNN), the
library conv on a channels_last copy of the input, 1x1 convs as GEMMs,
img2col + GEMM. Each figure includes
writing the result into a preallocated output, as the runtime does.
With `--layout blocked` (oneDNN's nChw<B>c, runtime/host/blocked.py) it
times oneDNN's blocked kernel against its NHWC one between two reorders
(`onednn.conv2d_via_nhwc`), and the NHWC kernel alone; `via_nhwc` marks
the shapes where the runtime takes the detour (`onednn.prefers_nhwc`).
The load average is printed: figures from a busy machine are not comparable.
"""

from __future__ import annotations

import argparse
import os
import statistics

import torch
import torch.nn.functional as F

from bench.benchmark import min_ms
from runtime.host import conv_algorithms
from runtime.host.conv_algorithms import ConvAlgorithm, as_rows

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


# Forms the runtime does not use, measured here beside the ones it does.
def _library_nhwc(w, b, stride, padding, dilation=(1, 1), groups=1):
    """The library conv on a channels_last copy of the input: oneDNN's NHWC
    kernel is much faster for few input channels (ResNet's 3-channel stem)."""
    return lambda x: F.conv2d(x.contiguous(memory_format=torch.channels_last), w, b, stride,
                              padding, dilation, groups)


def _img2col(w, b, stride, padding, dilation=(1, 1), groups=1):
    """Gather the k*k shifted (strided) windows of a zero-padded NHWC copy into
    one [N*Ho*Wo, k*k*Cin] matrix, then one GEMM into the output: how the cube
    unit computes a conv. The padded copy and the column matrix are scratch
    kept by the runner (outside the arena), allocated on first use."""
    cout, cin, kh, kw = w.shape
    wk = w.permute(2, 3, 1, 0).reshape(kh * kw * cin, cout).contiguous()
    bias = b if b is not None else torch.zeros(cout, dtype=w.dtype)
    (sh, sw), (ph, pw) = stride, padding
    scratch: dict[tuple, tuple[torch.Tensor, torch.Tensor]] = {}

    def run(x, out):
        n, _, h, wd = x.shape
        ho, wo = out.shape[2:]
        key = tuple(x.shape)
        if key not in scratch:
            padded = torch.zeros(n, h + 2 * ph, wd + 2 * pw, cin, dtype=x.dtype)
            cols = torch.empty(n, ho, wo, kh * kw, cin, dtype=x.dtype)
            scratch[key] = padded, cols
        padded, cols = scratch[key]
        padded[:, ph:ph + h, pw:pw + wd].copy_(x.permute(0, 2, 3, 1))
        for i in range(kh):
            for j in range(kw):
                cols[:, :, :, i * kw + j].copy_(
                    padded[:, i:i + sh * (ho - 1) + 1:sh, j:j + sw * (wo - 1) + 1:sw])
        torch.addmm(bias, cols.view(n * ho * wo, -1), wk, out=as_rows(out))
    return run


ALGORITHMS = {
    **conv_algorithms.CONV_ALGORITHMS,
    "library_nhwc": ConvAlgorithm(lambda *a: True, _library_nhwc, fresh=True),
    "img2col_nhwc": ConvAlgorithm(
        lambda ws, s, p, d, g: conv_algorithms._plain(ws, s, p, d, g) and max(ws[2:]) <= 3,
        _img2col),
}
NHWC_ONLY = conv_algorithms.NHWC_ONLY | {"img2col_nhwc"}


def candidates(n, cin, cout, size, k, stride, layout="nchw"):
    """name -> zero-argument callable writing the conv of one shape into an output
    of `layout` (the arena's layout), from an input of that layout."""
    pad = k // 2
    st, pd = (stride, stride), (pad, pad)
    fmt = torch.channels_last if layout == "nhwc" else torch.contiguous_format
    x = torch.randn(n, cin, size, size).contiguous(memory_format=fmt)
    w, b = torch.randn(cout, cin, k, k), torch.randn(cout)
    ref = F.conv2d(x, w, b, st, pd)
    out = torch.empty_like(ref).contiguous(memory_format=fmt)
    runs = {}
    for name, algo in ALGORITHMS.items():
        if ((name in NHWC_ONLY) == (layout == "nhwc") or name.startswith("library")
                or algo.fused):
            if algo.applies(w.shape, st, pd, (1, 1), 1):
                run = (algo.prepare(w, b, st, pd, input_shape=x.shape) if algo.fused
                       else algo.prepare(w, b, st, pd))
                runs[name] = ((lambda run=run: out.copy_(run(x))) if algo.fresh
                              else (lambda run=run: run(x, out)))
    return runs, ref, out


def blocked_candidates(n, cin, cout, size, k, stride):
    """The `candidates` of a conv between Blocked buffers (with ReLU, as in ResNet)."""
    from runtime.host import activations, onednn

    pad, relu = k // 2, [activations.RELU.dnnl_post_op()]
    params = ((stride, stride), (pad, pad), (1, 1), 1)
    x, w, b = torch.randn(n, cin, size, size), torch.randn(cout, cin, k, k), torch.randn(cout)
    ref = F.relu(F.conv2d(x, w, b, *params))
    src = onednn.Blocked(onednn.Blocked.of(x), x.shape)
    out = onednn.Blocked(torch.empty(ref.numel()), ref.shape)
    x_nhwc = x.contiguous(memory_format=torch.channels_last)
    out_nhwc = torch.empty_like(ref).contiguous(memory_format=torch.channels_last)
    return {"blocked": onednn.conv2d(src, w, b, out, *params, relu),
            "via_nhwc": onednn.conv2d_via_nhwc(src, w, b, out, *params, relu,
                                               onednn.Workspace()),
            "nhwc_alone": onednn.conv2d(x_nhwc, w, b, out_nhwc, *params, relu)}, ref, out


def main_blocked(args) -> int:
    from runtime.host import onednn

    if onednn.block() is None:
        print("no native blocked kernel on this CPU")
        return 1
    print(f"load average {os.getloadavg()[0]:.2f}, {torch.get_num_threads()} threads, "
          f"batch {args.batch}, nChw{onednn.block()}c")
    for cin, cout, size, k, stride, count in RESNET50_CONVS:
        if cin % onednn.block() or cout % onednn.block():
            continue
        runs, ref, out = blocked_candidates(args.batch, cin, cout, size, k, stride)
        runs["via_nhwc"]()
        torch.testing.assert_close(out.logical(), ref, rtol=1e-3, atol=1e-3)
        times: dict[str, list[float]] = {name: [] for name in runs}
        for _ in range(3):
            for name, run in runs.items():
                times[name].append(min_ms(run, max(1, args.iterations // 3)))
        chosen = "via_nhwc" if onednn.prefers_nhwc((cout, cin, k, k), 1) else "blocked"
        print(f"{cin:>5}->{cout:<5} {size:>3}px k{k} s{stride} x{count}: "
              + "  ".join(f"{n} {min(t):.3f}ms" for n, t in times.items())
              + f"  runtime takes {chosen}")
    print(f"load average at end {os.getloadavg()[0]:.2f}")
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="bench.conv_micro", description=__doc__.split("\n")[0])
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--iterations", type=int, default=20)
    p.add_argument("--threads", type=int, default=0)
    p.add_argument("--layout", choices=["nchw", "nhwc", "blocked"], default="nchw",
                   help="the activations' layout (input and output)")
    args = p.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    if args.layout == "blocked":
        return main_blocked(args)
    print(f"load average {os.getloadavg()[0]:.2f}, {torch.get_num_threads()} threads, "
          f"torch {torch.__version__}, batch {args.batch}, {args.layout}")
    totals: dict[str, float] = {}
    with torch.no_grad():
        for cin, cout, size, k, stride, count in RESNET50_CONVS:
            runs, _, _ = candidates(args.batch, cin, cout, size, k, stride, args.layout)
            times: dict[str, list[float]] = {name: [] for name in runs}
            for _ in range(3):  # interleave the algorithms
                for name, run in runs.items():
                    times[name].append(min_ms(run, max(1, args.iterations // 3)))
            med = {name: min(ts) for name, ts in times.items()}
            out = size // stride
            gflop = 2 * args.batch * cout * out * out * cin * k * k / 1e9
            best = min(med, key=med.get)
            print(f"{cin:>5}->{cout:<5} {size:>3}px k{k} s{stride} x{count}: "
                  + "  ".join(f"{n} {t:.3f}ms ({gflop / t * 1e3:.0f} GF/s)"
                              for n, t in med.items()) + f"  best {best}")
            for name in ("library", "library_nhwc"):
                totals[name] = totals.get(name, 0.0) + count * med[name]
            totals["best"] = totals.get("best", 0.0) + count * med[best]
    print("whole network, ms: " + ", ".join(f"{n} {t:.1f}" for n, t in totals.items()))
    print(f"load average at end {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
