"""ONNX builders for convolutions, pooling, normalization, softmax and matmuls."""

from __future__ import annotations

import numpy as np

from ge_dialect import ge
from lowering.onnx.common import OnnxUnsupported

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
    x, w = g.input(n, 0), g.input(n, 1)
    bias = g.input(n, 2) if g.has_input(n, 2) else None
    if _spatial(g, n, x) != 2:
        raise OnnxUnsupported("ConvTranspose other than 2-D")
    if g.attr(n, "output_shape") is not None or g.attr(n, "auto_pad", "NOTSET") != "NOTSET":
        raise OnnxUnsupported("ConvTranspose with output_shape or auto_pad")
    strides = list(g.attr(n, "strides", [1, 1]))
    pads = list(g.attr(n, "pads", [0, 0, 0, 0]))
    if pads[:2] != pads[2:]:
        raise OnnxUnsupported("ConvTranspose with asymmetric pads")
    return [g.emit(ge.ConvTranspose2dOp(
        x, w, bias, strides, pads[:2], list(g.attr(n, "output_padding", [0, 0])),
        list(g.attr(n, "dilations", [1, 1])), int(g.attr(n, "group", 1))))]


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


def average_pool(g, n) -> list:
    x = g.input(n, 0)
    spatial = _spatial(g, n, x)
    kernel = list(g.attr(n, "kernel_shape"))
    strides = list(g.attr(n, "strides", [1] * spatial))
    if any(d != 1 for d in g.attr(n, "dilations", [1] * spatial)):
        raise OnnxUnsupported("AveragePool with dilations")
    low, high = _pads(g, n, x, kernel, strides, [1] * spatial)
    include = bool(g.attr(n, "count_include_pad", 0))
    ceil = bool(g.attr(n, "ceil_mode", 0))
    if low != high or any(2 * max(a, b) > k for a, b, k in zip(low, high, kernel)):
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
    """Inference: the input, and an all-true mask if asked for."""
    x = g.input(n, 0)
    if g.has_input(n, 2) and g.constant(n, 2) is not None and bool(g.constant(n, 2)):
        raise OnnxUnsupported("Dropout in training mode")
    outs = [x]
    if len(n.output) > 1 and n.output[1]:
        outs.append(g.emit(ge.FullLikeOp(x, 1.0, ge.i1)))
    return outs


def resize(g, n) -> list:
    """Resize of the last two dims of a 4-D tensor, the modes torch's interpolate
    computes: nearest (asymmetric, floor), linear and cubic (half_pixel or
    align_corners; cubic with A = -0.75)."""
    x = g.input(n, 0)
    if len(ge.shape_of(x)) != 4:
        raise OnnxUnsupported("Resize other than of a 4-D tensor")
    mode = g.attr(n, "mode", "nearest")
    coords = g.attr(n, "coordinate_transformation_mode", "half_pixel")
    if g.attr(n, "antialias", 0) or g.attr(n, "exclude_outside", 0):
        raise OnnxUnsupported("Resize with antialias or exclude_outside")
    if g.attr(n, "axes") is not None or g.attr(n, "keep_aspect_ratio_policy", "stretch") != (
            "stretch"):
        raise OnnxUnsupported("Resize with axes or a keep_aspect_ratio_policy")
    if mode == "nearest":
        if coords != "asymmetric" or g.attr(n, "nearest_mode", "round_prefer_floor") != "floor":
            raise OnnxUnsupported(f"nearest Resize with {coords} coordinates and "
                                  f"{g.attr(n, 'nearest_mode', 'round_prefer_floor')} rounding")
        ge_mode, corners = "nearest", False
    else:
        if coords not in ("half_pixel", "pytorch_half_pixel", "align_corners"):
            raise OnnxUnsupported(f"{mode} Resize with {coords} coordinates")
        if mode == "cubic" and float(g.attr(n, "cubic_coeff_a", -0.75)) != -0.75:
            raise OnnxUnsupported("cubic Resize with cubic_coeff_a other than -0.75")
        if mode == "cubic" and coords == "align_corners":
            raise OnnxUnsupported("cubic Resize with align_corners coordinates")
        ge_mode, corners = {"linear": "bilinear", "cubic": "bicubic"}[mode], (
            coords == "align_corners")
    sizes = g.constant(n, 3) if g.has_input(n, 3) else None
    scales = g.constant(n, 2) if g.has_input(n, 2) else None
    if sizes is not None and sizes.size:
        size, scale = [int(v) for v in sizes.reshape(-1)], None
        if size[:2] != list(ge.shape_of(x)[:2]):
            raise OnnxUnsupported("Resize of the batch or channel dim")
        op = ge.InterpolateOp(x, ge_mode, size[2:], None, corners)
    elif scales is not None and scales.size:
        scale = [float(v) for v in scales.reshape(-1)]
        if scale[:2] != [1.0, 1.0]:
            raise OnnxUnsupported("Resize of the batch or channel dim")
        op = ge.InterpolateOp(x, ge_mode, None, scale[2:], corners)
    else:
        raise OnnxUnsupported("Resize with scales and sizes computed at run time")
    if coords == "pytorch_half_pixel" and 1 in ge.shape_of(op.output)[2:]:
        raise OnnxUnsupported("pytorch_half_pixel Resize to a size of 1")
    return [g.emit(op)]


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
    """(sum over each window of |x|^p)^(1/p): an average pool counting the
    padding, times the window size."""
    x = g.input(n, 0)
    spatial = _spatial(g, n, x)
    kernel = list(g.attr(n, "kernel_shape"))
    strides = list(g.attr(n, "strides", [1] * spatial))
    if any(d != 1 for d in g.attr(n, "dilations", [1] * spatial)):
        raise OnnxUnsupported("LpPool with dilations")
    low, high = _pads(g, n, x, kernel, strides, [1] * spatial)
    p = float(g.attr(n, "p", 2))
    powered = g.emit(ge.PowOp(g.emit(ge.AbsOp(x)), g.scalar(p, x)))
    powered, pads = _symmetric(g, powered, low, high, 0.0, kernel)
    mean = _average(g, powered, spatial, kernel, strides, pads,
                    bool(g.attr(n, "ceil_mode", 0)), True)
    total = g.emit(ge.MulOp(mean, g.scalar(float(np.prod(kernel)), mean)))
    return [g.emit(ge.PowOp(total, g.scalar(1.0 / p, total)))]
