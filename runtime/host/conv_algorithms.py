"""Conv algorithms of the host fast path, and the rule that picks one per shape.

Each prepares, from the weight and bias, either run(x, out) writing
conv(x) + bias into `out`, or (`fresh`) run(x) returning a new tensor, for
the library conv, which has no form that writes into a given view:

- `library`: torch's conv (oneDNN inside torch);
- `gemm_1x1`: a 1x1 conv on NCHW as one GEMM per image;
- `gemm_1x1_nhwc`: a 1x1 stride-1 conv on NHWC as one GEMM over the rows;
- `onednn_packed`: torch's mkldnn conv with the weight prepacked at load and
  ReLU / the residual add as post-ops (`fused`).

`choose_conv` is the rule, measured with bench/conv_micro.py, not a timing
at load, so that a busy machine cannot make the choice random. The oneDNN
primitives of runtime/host/onednn.py take over from `onednn_packed` when the
library is present (runtime/host/runners.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.nn.functional as F


def is_nhwc(t: torch.Tensor) -> bool:
    """A 4-D tensor whose NHWC permutation is contiguous (a flat [N*H*W, C] matrix)."""
    return t.dim() == 4 and t.permute(0, 2, 3, 1).is_contiguous()


def as_rows(t: torch.Tensor) -> torch.Tensor:
    """[N*H*W, C] view of a channels_last 4-D tensor (no copy)."""
    return t.permute(0, 2, 3, 1).view(-1, t.shape[1])




@dataclass(frozen=True)
class ConvAlgorithm:
    applies: Callable[..., bool]  # (weight shape, stride, padding, dilation, groups)
    prepare: Callable[..., Callable[..., torch.Tensor | None]]
    fresh: bool = False
    fused: bool = False  # prepare(..., input_shape, relu, residual) -> run(x, res) -> tensor


def _has_onednn() -> bool:
    return (torch.backends.mkldnn.is_available()
            and hasattr(torch._C._nn, "mkldnn_reorder_conv2d_weight")
            and hasattr(torch.ops.mkldnn, "_convolution_pointwise"))


def _onednn_packed(w, b, stride, padding, dilation=(1, 1), groups=1, input_shape=None,
                   relu=False, residual=False, unary=None):
    """oneDNN's conv with the weight reordered once, at load, into the blocked
    layout oneDNN computes in, for this input shape (what Inductor's CPU back
    end does). `F.conv2d` reorders the weight on every call: on NHWC inputs
    that reorder dominated the late, weight-heavy layers (2048->512 at 7x7:
    2.1 ms, 0.51 ms packed). ReLU and the residual add are oneDNN post-ops.
    These are torch's internal mkldnn ops; `applies` is false without them.
    `residual`: False, True (add a tensor), "in_place" (the output is the
    residual's bytes: oneDNN accumulates into them, no copy), or "into" (no
    residual: the output view is zeroed and accumulated into, so the result
    is written where it belongs instead of into a fresh tensor and copied).
    `unary` (attr, scalars, algorithm), a post-op in torch's terms
    (runtime/host/activations.py `PostOp.torch_post_op`),
    overrides `relu`; after an add (all three residual forms) oneDNN fuses
    only ReLU."""
    packed = torch._C._nn.mkldnn_reorder_conv2d_weight(
        w.to_mkldnn(), list(padding), list(stride), list(dilation), groups, list(input_shape))
    geometry = (list(padding), list(stride), list(dilation), groups)
    attr, scalars, algorithm = unary or (("relu", [], "") if relu else ("none", [], ""))
    if residual and attr not in ("none", "relu"):
        raise ValueError(f"oneDNN fuses only relu after a residual add, not {attr}")
    unary = None if attr == "none" else attr
    if residual == "in_place":  # the result accumulates into the residual's bytes
        return lambda x, res: torch.ops.mkldnn._convolution_pointwise_.binary(
            res, x, packed, b, *geometry, "add", 1.0, unary, [], "")
    if residual == "into":  # no residual: accumulate into a zeroed output view
        def into(x, out):
            out.zero_()
            torch.ops.mkldnn._convolution_pointwise_.binary(
                out, x, packed, b, *geometry, "add", 1.0, unary, [], "")
        return into
    if residual:
        return lambda x, res: torch.ops.mkldnn._convolution_pointwise.binary(
            x, res, packed, b, *geometry, "add", None, unary, [], "")
    return lambda x, res=None: torch.ops.mkldnn._convolution_pointwise(
        x, packed, b, *geometry, attr, scalars, algorithm)


def _library(w, b, stride, padding, dilation=(1, 1), groups=1):
    return lambda x: F.conv2d(x, w, b, stride, padding, dilation, groups)


def _gemm_1x1(w, b, stride, padding, dilation=(1, 1), groups=1):
    """A 1x1 conv on NCHW: per image, out[Cout, H*W] = W[Cout, Cin] @ x[Cin, H*W] + b.
    A stride is a strided view of the input, gathered by reshape."""
    cout, cin = w.shape[:2]
    w2 = w.reshape(cout, cin)
    bias = (b if b is not None else torch.zeros(cout, dtype=w.dtype)).view(cout, 1)
    sh, sw = stride

    def run(x, out):
        if (sh, sw) != (1, 1):
            x = x[:, :, ::sh, ::sw]
        rows, cols = x.reshape(x.shape[0], cin, -1), out.view(out.shape[0], cout, -1)
        for i in range(x.shape[0]):
            torch.addmm(bias, w2, rows[i], out=cols[i])
    return run


def _gemm_1x1_nhwc(w, b, stride, padding, dilation=(1, 1), groups=1):
    """A 1x1 stride-1 conv on NHWC: out[N*H*W, Cout] = x[N*H*W, Cin] @ W^T + b."""
    cout, cin = w.shape[:2]
    wt = w.reshape(cout, cin).t()  # BLAS reads the transpose in place
    bias = b if b is not None else torch.zeros(cout, dtype=w.dtype)

    def run(x, out):
        torch.addmm(bias, as_rows(x) if is_nhwc(x) else x.permute(0, 2, 3, 1).reshape(-1, cin),
                    wt, out=as_rows(out))
    return run


def _plain(wshape, stride, padding, dilation, groups) -> bool:
    return groups == 1 and tuple(dilation) == (1, 1)


def _pointwise(ws, s, p, d, g) -> bool:
    return _plain(ws, s, p, d, g) and tuple(ws[2:]) == (1, 1) and tuple(p) == (0, 0)


# name -> (applies, prepare); `nhwc` algorithms need the output in NHWC layout.
CONV_ALGORITHMS: dict[str, ConvAlgorithm] = {
    "library": ConvAlgorithm(lambda *a: True, _library, fresh=True),
    "gemm_1x1": ConvAlgorithm(_pointwise, _gemm_1x1),
    "gemm_1x1_nhwc": ConvAlgorithm(
        lambda ws, s, p, d, g: _pointwise(ws, s, p, d, g) and tuple(s) == (1, 1),
        _gemm_1x1_nhwc),
    "onednn_packed": ConvAlgorithm(lambda *a: _has_onednn(), _onednn_packed, fused=True),
}
NHWC_ONLY = {"gemm_1x1_nhwc"}


def choose_conv(wshape, stride, padding, dilation, groups, out: torch.Tensor) -> str:
    """The algorithm for one conv shape: a rule calibrated with bench/conv_micro.py
    on ResNet-50's shapes (docs/BENCHMARKS.md, "The host runtime's levers"), not a timing at
    load, so that a busy machine cannot make the choice random.

    NCHW arena: 1x1 convs with at most 64 input channels as GEMMs (oneDNN's
    NCHW 1x1 kernel is weakest at small K: 64->256 channels at 56x56 took
    1.05 ms, 0.64 ms as a GEMM); the library conv for everything else, where
    it was as fast as or faster than any GEMM form in the network. NHWC arena:
    oneDNN with prepacked weights (as fast or faster on every ResNet-50 shape
    measured); without it, 1x1 stride-1 convs as one GEMM over the rows."""
    params = (wshape, stride, padding, dilation, groups)
    if is_nhwc(out) and not out.is_contiguous():
        if CONV_ALGORITHMS["onednn_packed"].applies(*params):
            return "onednn_packed"
        return "gemm_1x1_nhwc" if CONV_ALGORITHMS["gemm_1x1_nhwc"].applies(*params) else "library"
    if CONV_ALGORITHMS["gemm_1x1"].applies(*params) and wshape[1] <= 64:
        return "gemm_1x1"
    return "library"
