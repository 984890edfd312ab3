"""ONNX builders for convolutions, pooling, normalization, softmax and matmuls."""

from __future__ import annotations

import numpy as np

from ge_dialect import ge
from lowering.onnx.common import OnnxUnsupported, element_type, numpy_dtype

CONV = {1: ge.Conv1dOp, 3: ge.Conv3dOp}


def _spatial(g, n, x) -> int:
    return len(ge.shape_of(x)) - 2


def _pads(g, n, x, kernel: list[int], strides: list[int], dilations: list[int]):
    """Symmetric (low, high) pads, or (low, high) to apply as ge.pad first."""
    spatial = len(kernel)
    auto = g.attr(n, "auto_pad", "NOTSET")
    if auto in ("SAME_UPPER", "SAME_LOWER"):
        low, high = [], []
        for size, k, s, d in zip(ge.shape_of(x)[2:], kernel, strides, dilations):
            if size < 0:
                raise OnnxUnsupported("auto_pad SAME over a dynamic dim")
            out = -(-size // s)
            total = max(0, (out - 1) * s + (k - 1) * d + 1 - size)
            small, big = total // 2, total - total // 2
            low.append(big if auto == "SAME_LOWER" else small)
            high.append(small if auto == "SAME_LOWER" else big)
        return low, high
    if auto == "VALID":
        return [0] * spatial, [0] * spatial
    pads = list(g.attr(n, "pads", [0] * (2 * spatial)))
    return pads[:spatial], pads[spatial:]


def _symmetric(g, x, low: list[int], high: list[int], value: float = 0.0,
               kernel: list[int] | None = None):
    """(x, pads): x padded explicitly where low != high (or, for a pool, where a
    pad exceeds half the window, which torch's pools refuse), and the rest."""
    if kernel is not None and any(2 * max(a, b) > k for a, b, k in zip(low, high, kernel)):
        x = g.emit(ge.PadOp(x, [0, 0] + low, [0, 0] + high, "constant", value))
        return x, [0] * len(low)
    if low == high:
        return x, low
    common = [min(a, b) for a, b in zip(low, high)]
    extra_low = [a - c for a, c in zip(low, common)]
    extra_high = [b - c for b, c in zip(high, common)]
    x = g.emit(ge.PadOp(x, [0, 0] + extra_low, [0, 0] + extra_high, "constant", value))
    return x, common


def conv(g, n) -> list:
    x, w = g.input(n, 0), g.input(n, 1)
    bias = g.input(n, 2) if g.has_input(n, 2) else None
    spatial = _spatial(g, n, x)
    kernel = list(g.attr(n, "kernel_shape", ge.shape_of(w)[2:]))
    strides = list(g.attr(n, "strides", [1] * spatial))
    dilations = list(g.attr(n, "dilations", [1] * spatial))
    low, high = _pads(g, n, x, kernel, strides, dilations)
    x, pads = _symmetric(g, x, low, high)
    groups = int(g.attr(n, "group", 1))
    if spatial == 2:
        return [g.emit(ge.Conv2dOp(x, w, bias, strides, pads, dilations, groups))]
    if spatial not in CONV:
        raise OnnxUnsupported(f"{spatial}-D convolution")
    return [g.emit(CONV[spatial](x, w, bias, strides, pads, dilations, groups))]


def conv_transpose(g, n) -> list:
    """ConvTranspose: ge.conv_transpose2d with its pads where they are symmetric;
    else (asymmetric pads, auto_pad, output_shape, 1-D) the unpadded result,
    cut (or zero-extended) to ONNX's window, plus the bias."""
    x, w = g.input(n, 0), g.input(n, 1)
    bias = g.input(n, 2) if g.has_input(n, 2) else None
    spatial = _spatial(g, n, x)
    if spatial not in (1, 2):
        raise OnnxUnsupported("ConvTranspose other than 1-D or 2-D")
    strides = list(g.attr(n, "strides", [1] * spatial))
    dilations = list(g.attr(n, "dilations", [1] * spatial))
    extra = list(g.attr(n, "output_padding", [0] * spatial))
    group = int(g.attr(n, "group", 1))
    pads = g.attr(n, "pads")
    auto = g.attr(n, "auto_pad", "NOTSET")
    wanted = g.attr(n, "output_shape")
    if (spatial == 2 and wanted is None and auto not in ("SAME_UPPER", "SAME_LOWER")
            and (pads is None or list(pads[:2]) == list(pads[2:]))):
        pads = list(pads or [0] * 4)
        return [g.emit(ge.ConvTranspose2dOp(x, w, bias, strides, pads[:2], extra, dilations,
                                            group))]
    size = list(ge.shape_of(x)[2:])
    kernel = list(ge.shape_of(w)[2:])
    if any(d < 0 for d in size):
        raise OnnxUnsupported("ConvTranspose of a dynamic shape")
    full = [s * (i - 1) + (k - 1) * d + 1 for s, i, k, d in zip(strides, size, kernel, dilations)]
    if wanted is not None:
        wanted = list(wanted)[-spatial:]
    if pads is None and auto in ("SAME_UPPER", "SAME_LOWER"):
        wanted = wanted or [i * s for i, s in zip(size, strides)]
        total = [f + e - o for f, e, o in zip(full, extra, wanted)]
        begins = [t // 2 if auto == "SAME_UPPER" else t - t // 2 for t in total]
    else:
        pads = list(pads or [0] * 2 * spatial)
        begins = pads[:spatial]
        if wanted is None:
            wanted = [f + e - lo - hi for f, e, lo, hi in
                      zip(full, extra, pads[:spatial], pads[spatial:])]
    if spatial == 1:  # as 2-D with a height of 1
        x = g.emit(ge.ReshapeOp(x, [*ge.shape_of(x)[:2], 1, size[0]]))
        w = g.emit(ge.ReshapeOp(w, [*ge.shape_of(w)[:2], 1, kernel[0]]))
    y = g.emit(ge.ConvTranspose2dOp(x, w, None, [1] * (2 - spatial) + strides, [0, 0],
                                    [0, 0], [1] * (2 - spatial) + dilations, group))
    axis0 = 4 - spatial
    for i, (begin, length, have) in enumerate(zip(begins, wanted, full)):
        axis = axis0 + i
        low, high = max(-begin, 0), max(begin + length - have, 0)
        if low or high:
            zeros = [0] * 4
            lows, highs = list(zeros), list(zeros)
            lows[axis], highs[axis] = low, high
            y = g.emit(ge.PadOp(y, lows, highs, "constant", 0.0))
        start = begin + low
        if start != 0 or length != ge.shape_of(y)[axis]:
            y = g.emit(ge.SliceOp(y, axis, start, start + length))
    if spatial == 1:
        shape = ge.shape_of(y)
        y = g.emit(ge.ReshapeOp(y, [shape[0], shape[1], shape[3]]))
    if bias is not None:
        channels = ge.shape_of(bias)[0]
        y = g.emit(ge.AddOp(y, g.emit(ge.ReshapeOp(bias, [channels] + [1] * spatial))))
    return [y]


def max_pool(g, n) -> list:
    x = g.input(n, 0)
    spatial = _spatial(g, n, x)
    kernel = list(g.attr(n, "kernel_shape"))
    strides = list(g.attr(n, "strides", [1] * spatial))
    dilations = list(g.attr(n, "dilations", [1] * spatial))
    low, high = _pads(g, n, x, kernel, strides, dilations)
    x, pads = _symmetric(g, x, low, high, float("-inf"), kernel)
    ceil = bool(g.attr(n, "ceil_mode", 0))
    if g.attr(n, "storage_order", 0):
        raise OnnxUnsupported("MaxPool with storage_order = 1")
    if spatial == 2:
        if len(n.output) > 1 and n.output[1]:
            op = ge.MaxPool2dWithIndicesOp(x, kernel, strides, pads, dilations, ceil)
            g.emit(op)
            return [op.output, op.indices]
        return [g.emit(ge.MaxPool2dOp(x, kernel, strides, pads, dilations, ceil))]
    if spatial == 3 and not (len(n.output) > 1 and n.output[1]):
        return [g.emit(ge.MaxPool3dOp(x, kernel, strides, pads, dilations, ceil))]
    if spatial == 1 and not (len(n.output) > 1 and n.output[1]):
        rows = g.emit(ge.ReshapeOp(x, (*ge.shape_of(x)[:2], 1, ge.shape_of(x)[2])))
        y = g.emit(ge.MaxPool2dOp(rows, [1] + kernel, [1] + strides, [0] + pads,
                                  [1] + dilations, ceil))
        shape = ge.shape_of(y)
        return [g.emit(ge.ReshapeOp(y, (*shape[:2], shape[3])))]
    raise OnnxUnsupported(f"{spatial}-D MaxPool with indices")


def _window(g, n, x):
    """(spatial rank, kernel, strides, low pads, high pads) of an undilated pool."""
    spatial = _spatial(g, n, x)
    kernel = list(g.attr(n, "kernel_shape"))
    strides = list(g.attr(n, "strides", [1] * spatial))
    return (spatial, kernel, strides) + _pads(g, n, x, kernel, strides, [1] * spatial)


def _dilations(g, n, x) -> list[int] | None:
    """The pool's dilations, or None if there are none."""
    dilations = list(g.attr(n, "dilations", [1] * _spatial(g, n, x)))
    return dilations if any(d != 1 for d in dilations) else None


CONVS = {1: ge.Conv1dOp, 2: ge.Conv2dOp, 3: ge.Conv3dOp}


def _window_sums(g, n, x, mask_pad: float | None = None):
    """Sums over each (dilated) pooling window of x zero-padded, as a depthwise
    convolution with a kernel of ones; with `mask_pad`, also the count of what
    each window holds: the elements, and the pads if mask_pad is 1 (never the
    overhang ceil_mode adds)."""
    spatial = _spatial(g, n, x)
    kernel = list(g.attr(n, "kernel_shape"))
    strides = list(g.attr(n, "strides", [1] * spatial))
    dilations = list(g.attr(n, "dilations", [1] * spatial))
    low, high = _pads(g, n, x, kernel, strides, dilations)
    size = ge.shape_of(x)[2:]
    if any(d < 0 for d in (*size, ge.shape_of(x)[1])):
        raise OnnxUnsupported(f"{n.op_type} of a dynamic shape")
    overhang = []
    for i, k, s, d, lo, hi in zip(size, kernel, strides, dilations, low, high):
        span, reach = i + lo + hi, (k - 1) * d + 1
        out = (span - reach) // s + 1
        if g.attr(n, "ceil_mode", 0):
            out = -(-(span - reach) // s) + 1
            if (out - 1) * s >= i + lo:  # the last window starts past the data
                out -= 1
        overhang.append(max(0, (out - 1) * s + reach - span))
    channels = ge.shape_of(x)[1]
    ones = g.const(np.ones([channels, 1, *kernel], dtype=numpy_dtype(ge.element_type(x.type))))

    def summed(v, value: float):
        v = g.emit(ge.PadOp(v, [0, 0, *low], [0, 0, *high], "constant", value))
        if any(overhang):
            v = g.emit(ge.PadOp(v, [0] * (2 + spatial), [0, 0, *overhang], "constant", 0.0))
        return g.emit(CONVS[spatial](v, ones, None, strides, [0] * spatial, dilations,
                                     channels))

    if mask_pad is None:
        return summed(x, 0.0)
    return summed(x, 0.0), summed(g.emit(ge.FullLikeOp(x, 1.0)), mask_pad)


def average_pool(g, n) -> list:
    """AveragePool: ge.avg_pool where torch's pool computes it; dilated windows,
    or ceil_mode over pads torch's pool cannot take (whose last window ONNX
    counts from the unpadded size), as window sums over window counts."""
    x = g.input(n, 0)
    spatial, kernel, strides, low, high = _window(g, n, x)
    include = bool(g.attr(n, "count_include_pad", 0))
    ceil = bool(g.attr(n, "ceil_mode", 0))
    padded_first = low != high or any(2 * max(a, b) > k for a, b, k in zip(low, high, kernel))
    if _dilations(g, n, x) or (ceil and padded_first):
        sums, counts = _window_sums(g, n, x, float(include))
        return [g.emit(ge.DivOp(sums, counts))]
    if padded_first:
        if include:
            x, pads = _symmetric(g, x, low, high, 0.0, kernel)
        else:  # the mean over real elements only: a sum pool over a count pool
            ones = g.emit(ge.FullLikeOp(x, 1.0))
            sums = _average(g, _symmetric(g, x, low, high, 0.0, kernel)[0], spatial, kernel,
                            strides, [0] * spatial, ceil, True)
            counts = _average(g, _symmetric(g, ones, low, high, 0.0, kernel)[0], spatial,
                              kernel, strides, [0] * spatial, ceil, True)
            return [g.emit(ge.DivOp(sums, counts))]
    else:
        pads = low
    return [_average(g, x, spatial, kernel, strides, pads, ceil, include)]


def _average(g, x, spatial: int, kernel, strides, pads, ceil: bool, include: bool):
    if spatial == 2:
        return g.emit(ge.AvgPool2dOp(x, kernel, strides, pads, ceil, include))
    if spatial == 3:
        return g.emit(ge.AvgPool3dOp(x, kernel, strides, pads, ceil, include))
    if spatial == 1:
        rows = g.emit(ge.ReshapeOp(x, (*ge.shape_of(x)[:2], 1, ge.shape_of(x)[2])))
        y = g.emit(ge.AvgPool2dOp(rows, [1] + kernel, [1] + strides, [0] + pads, ceil,
                                  include))
        shape = ge.shape_of(y)
        return g.emit(ge.ReshapeOp(y, (*shape[:2], shape[3])))
    raise OnnxUnsupported(f"{spatial}-D AveragePool")


def global_pool(op_cls: type[ge.ReductionOp]):
    def build(g, n) -> list:
        x = g.input(n, 0)
        return [g.emit(op_cls(x, list(range(2, len(ge.shape_of(x)))), True))]
    return build


def batch_norm(g, n) -> list:
    if g.attr(n, "training_mode", 0):
        raise OnnxUnsupported("BatchNormalization in training mode")
    ins = [g.input(n, i) for i in range(5)]
    return [g.emit(ge.BatchNormOp(*ins, float(g.attr(n, "epsilon", 1e-5))))]


def instance_norm(g, n) -> list:
    return [g.emit(ge.InstanceNormOp(g.input(n, 0), g.input(n, 1), g.input(n, 2),
                                     float(g.attr(n, "epsilon", 1e-5))))]


def layer_norm(g, n) -> list:
    x = g.input(n, 0)
    rank = len(ge.shape_of(x))
    axis = int(g.attr(n, "axis", -1)) % rank
    weight = g.input(n, 1)
    bias = g.input(n, 2) if g.has_input(n, 2) else None
    shape = list(ge.shape_of(x)[axis:])
    if list(ge.shape_of(weight)) != shape:
        weight = g.emit(ge.ExpandOp(weight, shape))
    if bias is not None and list(ge.shape_of(bias)) != shape:
        bias = g.emit(ge.ExpandOp(bias, shape))
    eps = float(g.attr(n, "epsilon", 1e-5))
    y = g.emit(ge.LayerNormOp(x, shape, weight, bias, eps))
    if not any(n.output[1:]):
        return [y]
    # Mean and InvStdDev, over the normalized dims, kept as size-1 dims
    dims = list(range(axis, rank))
    mean = g.emit(ge.ReduceMeanOp(x, dims, True))
    centered = g.emit(ge.SubOp(x, mean))
    var = g.emit(ge.ReduceMeanOp(g.emit(ge.MulOp(centered, centered)), dims, True))
    return [y, mean, g.emit(ge.RsqrtOp(g.emit(ge.AddOp(var, g.scalar(eps, var)))))]


def lp_normalization(g, n) -> list:
    """x / ||x||_p along axis (p = 1 or 2)."""
    x = g.input(n, 0)
    axis, p = int(g.attr(n, "axis", -1)), int(g.attr(n, "p", 2))
    if p == 1:
        norm = g.emit(ge.ReduceSumOp(g.emit(ge.AbsOp(x)), [axis], True))
    else:
        norm = g.emit(ge.SqrtOp(g.emit(ge.ReduceSumOp(g.emit(ge.MulOp(x, x)), [axis], True))))
    zero = g.emit(ge.CompareOp(norm, g.scalar(0, norm), "eq"))  # an all-zero row stays 0
    return [g.emit(ge.DivOp(x, g.emit(ge.WhereOp(zero, g.scalar(1, norm), norm))))]


def hardmax(g, n) -> list:
    """1 at the first maximum along axis, 0 elsewhere."""
    x = g.input(n, 0)
    axis = int(g.attr(n, "axis", -1)) % len(ge.shape_of(x))
    size = ge.shape_of(x)[axis]
    if size < 0:
        raise OnnxUnsupported("Hardmax along a dynamic dim")
    best = g.emit(ge.ArgMaxOp(x, axis, True))
    shape = [1] * len(ge.shape_of(x))
    shape[axis] = size
    positions = g.const(np.arange(size, dtype=np.int64).reshape(shape))
    hit = g.emit(ge.CompareOp(best, positions, "eq"))
    return [g.emit(ge.CastOp(hit, ge.element_type(x.type)))]


def softmax(op_cls):
    def build(g, n) -> list:
        return [g.emit(op_cls(g.input(n, 0), int(g.attr(n, "axis", -1))))]
    return build


def matmul(g, n) -> list:
    return [g.emit(ge.MatMulOp(g.input(n, 0), g.input(n, 1)))]


def gemm(g, n) -> list:
    """alpha * A' @ B' + beta * C, with A' and B' maybe transposed."""
    a, b = g.input(n, 0), g.input(n, 1)
    if g.attr(n, "transA", 0):
        a = g.emit(ge.TransposeOp(a, [1, 0]))
    w = g.constant(n, 1)
    if g.attr(n, "transB", 0) and w is None:
        b = g.emit(ge.TransposeOp(b, [1, 0]))
    alpha, beta = float(g.attr(n, "alpha", 1.0)), float(g.attr(n, "beta", 1.0))
    if w is not None and g.attr(n, "transB", 0):
        y = g.emit(ge.LinearOp(a, b))  # x @ W^T: nn.Linear's weight as it is stored
    elif w is not None:
        y = g.emit(ge.LinearOp(a, g.const(np.ascontiguousarray(w.T), f"{n.input[1]}_t")))
    else:
        y = g.emit(ge.MatMulOp(a, b))
    if alpha != 1.0:
        y = g.emit(ge.MulOp(y, g.scalar(alpha, y)))
    if g.has_input(n, 2) and beta != 0.0:
        c = g.input(n, 2)
        if beta != 1.0:
            c = g.emit(ge.MulOp(c, g.scalar(beta, c)))
        y = g.emit(ge.AddOp(y, c))
    return [y]


def dropout(g, n) -> list:
    """Inference: the input, and an all-true mask if asked for. In training mode
    Dropout is random unless its ratio is 0, and GE has no random ops."""
    x = g.input(n, 0)
    if g.has_input(n, 2):
        training = g.constant(n, 2)
        if training is None:
            raise OnnxUnsupported("Dropout whose training_mode is set at run time")
        ratio = g.constant(n, 1) if g.has_input(n, 1) else np.array(0.5)
        if bool(training) and (ratio is None or float(ratio) != 0.0):
            raise OnnxUnsupported("Dropout in training mode (random)")
    outs = [x]
    if len(n.output) > 1 and n.output[1]:
        outs.append(g.emit(ge.FullLikeOp(x, 1.0, ge.i1)))
    return outs


def lrn(g, n) -> list:
    """LRN: x / (bias + alpha / size * sum of x^2 over `size` neighbouring channels)^beta,
    the sum as `size` shifted slices of the squares zero-padded along C."""
    x = g.input(n, 0)
    size = int(g.attr(n, "size"))
    alpha, beta = float(g.attr(n, "alpha", 1e-4)), float(g.attr(n, "beta", 0.75))
    bias = float(g.attr(n, "bias", 1.0))
    rank, channels = len(ge.shape_of(x)), ge.shape_of(x)[1]
    if channels < 0:
        raise OnnxUnsupported("LRN over a dynamic channel count")
    low, high = [0] * rank, [0] * rank
    low[1], high[1] = (size - 1) // 2, size - 1 - (size - 1) // 2
    squares = g.emit(ge.PadOp(g.emit(ge.MulOp(x, x)), low, high, "constant", 0.0))
    total = None
    for i in range(size):
        part = g.emit(ge.SliceOp(squares, 1, i, i + channels))
        total = part if total is None else g.emit(ge.AddOp(total, part))
    scaled = g.emit(ge.AddOp(g.emit(ge.MulOp(total, g.scalar(alpha / size, total))),
                             g.scalar(bias, total)))
    return [g.emit(ge.DivOp(x, g.emit(ge.PowOp(scaled, g.scalar(beta, scaled)))))]


def group_norm(g, n) -> list:
    """GroupNormalization: per-channel scale and bias (opset 21), or per group (18)."""
    x, scale, bias = g.input(n, 0), g.input(n, 1), g.input(n, 2)
    groups = int(g.attr(n, "num_groups"))
    channels = ge.shape_of(x)[1]
    if ge.shape_of(scale)[0] != channels:
        raise OnnxUnsupported("GroupNormalization with a scale per group (opset 18)")
    return [g.emit(ge.GroupNormOp(x, groups, scale, bias, float(g.attr(n, "epsilon", 1e-5))))]


def mean_variance_normalization(g, n) -> list:
    """(x - mean) / sqrt(var), over `axes` (default N, H, W)."""
    x = g.input(n, 0)
    axes = list(g.attr(n, "axes", [0, 2, 3]))
    mean = g.emit(ge.ReduceMeanOp(x, axes, True))
    centered = g.emit(ge.SubOp(x, mean))
    var = g.emit(ge.ReduceMeanOp(g.emit(ge.MulOp(centered, centered)), axes, True))
    return [g.emit(ge.DivOp(centered, g.emit(ge.SqrtOp(var))))]


def rms_norm(g, n) -> list:
    """RMSNormalization over the dims from `axis` on, times scale."""
    x, scale = g.input(n, 0), g.input(n, 1)
    rank = len(ge.shape_of(x))
    axis = int(g.attr(n, "axis", -1)) % rank
    shape = list(ge.shape_of(x)[axis:])
    if list(ge.shape_of(scale)) != shape:
        scale = g.emit(ge.ExpandOp(scale, shape))
    return [g.emit(ge.RmsNormOp(x, shape, scale, float(g.attr(n, "epsilon", 1e-5))))]


def grid_sample(g, n) -> list:
    mode = {"linear": "bilinear", "bilinear": "bilinear", "nearest": "nearest",
            "cubic": "bicubic", "bicubic": "bicubic"}[g.attr(n, "mode", "linear")]
    return [g.emit(ge.GridSampleOp(g.input(n, 0), g.input(n, 1), mode,
                                   g.attr(n, "padding_mode", "zeros"),
                                   bool(g.attr(n, "align_corners", 0))))]


def lp_pool(g, n) -> list:
    """(sum over each window of |x|^p)^(1/p), the sums by `_window_sums`."""
    x = g.input(n, 0)
    p = float(g.attr(n, "p", 2))
    total = _window_sums(g, n, g.emit(ge.PowOp(g.emit(ge.AbsOp(x)), g.scalar(p, x))))
    return [g.emit(ge.PowOp(total, g.scalar(1.0 / p, total)))]


def _heads(g, x, heads: int):
    """[B, S, heads * d] -> [B, heads, S, d]."""
    b, s, hidden = ge.shape_of(x)
    x = g.emit(ge.ReshapeOp(x, (b, s, heads, hidden // heads)))
    return g.emit(ge.TransposeOp(x, [0, 2, 1, 3]))


def _repeat_heads(g, x, times: int):
    """Each of x's heads `times` times in a row (grouped-query attention)."""
    b, h, s, d = ge.shape_of(x)
    x = g.emit(ge.ReshapeOp(x, (b, h, 1, s, d)))
    x = g.emit(ge.ExpandOp(x, (b, h, times, s, d)))
    return g.emit(ge.ReshapeOp(x, (b, h * times, s, d)))


def attention(g, n) -> list:
    """Attention (opset 23): softmax(Q K^T * scale [softcapped] + mask) V, with a
    boolean or additive mask, causal masking aligned to the cache's end, a KV
    cache (past_key / past_value in, present_* out) and grouped-query heads."""
    if g.has_input(n, 6) or g.attr(n, "left_window_size", -1) != -1 or g.attr(
            n, "right_window_size", -1) != -1:
        raise OnnxUnsupported("Attention with nonpad_kv_seqlen or a sliding window")
    q, k, v = g.input(n, 0), g.input(n, 1), g.input(n, 2)
    three_d = len(ge.shape_of(q)) == 3
    if three_d:
        q = _heads(g, q, int(g.attr(n, "q_num_heads")))
        k = _heads(g, k, int(g.attr(n, "kv_num_heads")))
        v = _heads(g, v, int(g.attr(n, "kv_num_heads")))
    if any(d < 0 for x in (q, k, v) for d in ge.shape_of(x)):
        raise OnnxUnsupported("Attention with dynamic shapes")
    if g.has_input(n, 4):
        k = g.emit(ge.ConcatOp([g.input(n, 4), k], 2))
        v = g.emit(ge.ConcatOp([g.input(n, 5), v], 2))
    present_k, present_v = k, v
    past = ge.shape_of(g.input(n, 4))[2] if g.has_input(n, 4) else 0
    q_len, kv_len = ge.shape_of(q)[2], ge.shape_of(k)[2]
    dtype = numpy_dtype_of(q)
    neg_inf = g.scalar(float("-inf"), q)
    # the additive bias: the mask (padded to the cache's length), then causality
    bias = None
    if g.has_input(n, 3):
        bias = g.input(n, 3)
        width = kv_len - ge.shape_of(bias)[-1]
        rank = len(ge.shape_of(bias))
        boolean = ge.element_type(bias.type) == ge.i1
        if width > 0:
            bias = g.emit(ge.PadOp(bias, [0] * rank, [0] * (rank - 1) + [width], "constant",
                                   0.0 if boolean else float("-inf")))
        if boolean:
            bias = g.emit(ge.WhereOp(bias, g.scalar(0, q), neg_inf))
    if g.attr(n, "is_causal", 0):
        allowed = np.arange(kv_len)[None, :] <= np.arange(q_len)[:, None] + past
        causal = g.const(np.where(allowed, 0, -np.inf).astype(dtype))
        bias = causal if bias is None else g.emit(ge.AddOp(bias, causal))
    heads, kv_heads = ge.shape_of(q)[1], ge.shape_of(k)[1]
    if heads != kv_heads:
        k, v = _repeat_heads(g, k, heads // kv_heads), _repeat_heads(g, v, heads // kv_heads)
    scale = g.attr(n, "scale")
    scale = float(1 / np.sqrt(ge.shape_of(q)[3])) if scale is None else float(scale)
    root = g.scalar(float(np.sqrt(scale)), q)
    kt = g.emit(ge.TransposeOp(k, [0, 1, 3, 2]))
    scores = g.emit(ge.MatMulOp(g.emit(ge.MulOp(q, root)), g.emit(ge.MulOp(kt, root))))
    softcap = float(g.attr(n, "softcap", 0.0))
    if softcap > 0:
        capped = g.emit(ge.TanhOp(g.emit(ge.DivOp(scores, g.scalar(softcap, scores)))))
        scores = g.emit(ge.MulOp(capped, g.scalar(softcap, scores)))
    biased = scores if bias is None else g.emit(ge.AddOp(scores, bias))
    precision = g.attr(n, "softmax_precision")
    wide = biased
    if precision is not None:
        if element_type(precision) != ge.element_type(q.type):
            wide = g.emit(ge.CastOp(biased, element_type(precision)))
    probs = g.emit(ge.SoftmaxOp(wide, -1, safe=True))  # a row masked throughout gives 0
    if probs.type != biased.type:
        probs = g.emit(ge.CastOp(probs, ge.element_type(q.type)))
    y = g.emit(ge.MatMulOp(probs, v))
    if three_d:
        b, h, s, d = ge.shape_of(y)
        y = g.emit(ge.ReshapeOp(g.emit(ge.TransposeOp(y, [0, 2, 1, 3])), (b, s, h * d)))
    mode = int(g.attr(n, "qk_matmul_output_mode", 0))
    qk_out = {0: scores, 1: scores, 2: biased, 3: probs}.get(mode, scores)
    return [y, present_k, present_v, qk_out][:len(n.output)]


def numpy_dtype_of(value) -> np.dtype:
    return numpy_dtype(ge.element_type(value.type))


def affine_grid(g, n) -> list:
    """The sampling grid of affine transforms theta [N, 2, 3] (or [N, 3, 4]):
    the base grid of normalized coordinates, a constant, times theta^T."""
    theta = g.input(n, 0)
    size = [int(v) for v in np.asarray(g.constant(n, 1)).reshape(-1)] if g.constant(
        n, 1) is not None else None
    if size is None:
        raise OnnxUnsupported("AffineGrid with a size computed at run time")
    corners = bool(g.attr(n, "align_corners", 0))
    spatial = size[2:]

    def axis(length: int) -> np.ndarray:
        if corners:
            return np.linspace(-1, 1, length) if length > 1 else np.zeros(1)
        return (np.arange(length) * 2 + 1) / length - 1

    coords = np.meshgrid(*[axis(d) for d in spatial], indexing="ij")[::-1]  # x first
    base = np.stack([*coords, np.ones(spatial)], axis=-1).reshape(1, -1, len(spatial) + 1)
    dtype = numpy_dtype_of(theta)
    grid = g.emit(ge.MatMulOp(g.const(base.astype(dtype)),
                              g.emit(ge.TransposeOp(theta, [0, 2, 1]))))
    return [g.emit(ge.ReshapeOp(grid, (size[0], *spatial, len(spatial))))]


def rotary_embedding(g, n) -> list:
    """RotaryEmbedding (opset 23): x * cos + rotate(x) * sin on the first
    rotary_embedding_dim features of each head, the caches indexed by position."""
    x, cos, sin = g.input(n, 0), g.input(n, 1), g.input(n, 2)
    shape = _static_shape(x)
    three_d = len(shape) == 3
    if three_d:
        heads = int(g.attr(n, "num_heads", 0))
        if not heads:
            raise OnnxUnsupported("3-D RotaryEmbedding without num_heads")
        b, s, hidden = shape
        x = g.emit(ge.ReshapeOp(x, (b, s, heads, hidden // heads)))
        x = g.emit(ge.TransposeOp(x, [0, 2, 1, 3]))
    b, h, s, d = ge.shape_of(x)
    rot = int(g.attr(n, "rotary_embedding_dim", 0)) or d
    if g.has_input(n, 3):  # caches [max_pos, rot / 2] picked by position_ids [B, S]
        pos = g.input(n, 3)
        cos = g.emit(ge.IndexOp(cos, [pos], [0]))
        sin = g.emit(ge.IndexOp(sin, [pos], [0]))
    half = rot // 2
    cos = g.emit(ge.ReshapeOp(cos, (b, 1, s, half)))  # [B, 1, S, rot / 2]
    sin = g.emit(ge.ReshapeOp(sin, (b, 1, s, half)))
    part = x if rot == d else g.emit(ge.SliceOp(x, 3, 0, rot))
    if g.attr(n, "interleaved", 0):
        pairs = g.emit(ge.ReshapeOp(part, (b, h, s, half, 2)))
        first = g.emit(ge.ReshapeOp(g.emit(ge.SliceOp(pairs, 4, 0, 1)), (b, h, s, half)))
        second = g.emit(ge.ReshapeOp(g.emit(ge.SliceOp(pairs, 4, 1, 2)), (b, h, s, half)))
    else:
        first = g.emit(ge.SliceOp(part, 3, 0, half))
        second = g.emit(ge.SliceOp(part, 3, half, rot))
    out_first = g.emit(ge.SubOp(g.emit(ge.MulOp(first, cos)), g.emit(ge.MulOp(second, sin))))
    out_second = g.emit(ge.AddOp(g.emit(ge.MulOp(second, cos)), g.emit(ge.MulOp(first, sin))))
    if g.attr(n, "interleaved", 0):
        pairs = [g.emit(ge.ReshapeOp(v, (b, h, s, half, 1))) for v in (out_first, out_second)]
        rotated = g.emit(ge.ReshapeOp(g.emit(ge.ConcatOp(pairs, 4)), (b, h, s, rot)))
    else:
        rotated = g.emit(ge.ConcatOp([out_first, out_second], 3))
    if rot != d:
        rotated = g.emit(ge.ConcatOp([rotated, g.emit(ge.SliceOp(x, 3, rot, d))], 3))
    if three_d:
        rotated = g.emit(ge.TransposeOp(rotated, [0, 2, 1, 3]))
        rotated = g.emit(ge.ReshapeOp(rotated, shape))
    return [rotated]


def _static_shape(x) -> tuple[int, ...]:
    shape = ge.shape_of(x)
    if any(d < 0 for d in shape):
        raise OnnxUnsupported("a dynamic shape")
    return shape
