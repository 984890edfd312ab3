"""Builders for convolutions, normalization, pooling, resizing, embeddings and matmuls."""

from __future__ import annotations

import math

import torch

from ge_dialect import ge
from lowering.aten import shape
from lowering.aten.common import Unsupported, Value, Weight, meta, pair


CONV_ND = {3: ge.Conv1dOp, 5: ge.Conv3dOp}


def convolution(g, a) -> Value:
    """convolution / conv<N>d: ge.conv2d, or ge.conv1d / ge.conv3d as the user wrote them."""
    weight = g.value(a["weight"])
    x = g.typed(a["input"])
    bias = g.value(a["bias"]) if a["bias"] is not None else None
    rank = len(ge.shape_of(weight))
    if rank != 4:
        if a.get("transposed"):
            raise Unsupported(f"{rank - 2}-D transposed convolution; GE has 2-D only")
        if rank not in CONV_ND:
            raise Unsupported(f"{rank - 2}-D convolution; GE has 1-D, 2-D and 3-D")
        if isinstance(a["padding"], str):
            raise Unsupported(f"convolution with padding={a['padding']!r}")
        n = rank - 2
        spread = (lambda v: tuple(v) * n if len(v) == 1 else tuple(v))
        return g.emit(CONV_ND[rank](x, weight, bias, spread(a["stride"]), spread(a["padding"]),
                                    spread(a["dilation"]), a["groups"]))
    if isinstance(a["padding"], str):
        raise Unsupported(f"convolution with padding={a['padding']!r}")
    stride, padding, dilation = pair(a["stride"]), pair(a["padding"]), pair(a["dilation"])
    if a.get("transposed"):
        return g.emit(ge.ConvTranspose2dOp(x, weight, bias, stride, padding,
                                           pair(a["output_padding"]), dilation, a["groups"]))
    return g.emit(ge.Conv2dOp(x, weight, bias, stride, padding, dilation, a["groups"]))


def conv_transpose2d(g, a) -> Value:
    """The training-IR spelling; core ATen has convolution(transposed=True)."""
    return convolution(g, {**a, "transposed": True})


def batch_norm(g, a) -> Value:
    if a.get("training"):
        raise Unsupported("batch norm in training mode; call model.eval() first")
    if a["running_mean"] is None or a["running_var"] is None:
        raise Unsupported("batch norm without running statistics")
    x = g.typed(a["input"])
    channels = ge.shape_of(x)[1]
    weight = a["weight"] if a["weight"] is not None else Weight(
        torch.ones(channels), f"{g.value_name()}_weight")
    bias = a["bias"] if a["bias"] is not None else Weight(
        torch.zeros(channels), f"{g.value_name()}_bias")
    y = g.emit(ge.BatchNormOp(x, g.value(weight), g.value(bias), g.value(a["running_mean"]),
                              g.value(a["running_var"]), float(a["eps"])))
    # The no-training overload also returns (empty) saved mean and invstd.
    return (y, None, None) if len(g.node.target._schema.returns) == 3 else y


def layer_norm(g, a) -> Value:
    weight, bias = a["weight"], a["bias"]
    if bias is not None and weight is None:
        weight = Weight(torch.ones(tuple(a["normalized_shape"])), f"{g.value_name()}_weight")
    y = g.emit(ge.LayerNormOp(g.typed(a["input"]), list(a["normalized_shape"]),
                              g.value(weight) if weight is not None else None,
                              g.value(bias) if bias is not None else None, float(a["eps"])))
    if len(g.node.target._schema.returns) != 3:
        return y
    # native_layer_norm also returns mean and rstd, computed only if read
    if not _reads_statistics(g):
        return y, None, None
    x = g.typed(a["input"])
    rank, norm = len(ge.shape_of(x)), len(a["normalized_shape"])
    return (y, *_statistics(g, x, list(range(rank - norm, rank)), float(a["eps"])))


def softmax(g, a) -> Value:
    if a.get("half_to_float"):
        raise Unsupported("softmax with half_to_float")
    return g.emit(ge.SoftmaxOp(g.typed(a["self"]), a["dim"]))


def safe_softmax(g, a) -> Value:
    return g.emit(ge.SoftmaxOp(g.typed(a["self"]), a["dim"], safe=True))


def _sees_a_key(mask) -> bool:
    """Whether a mask is a constant that lets every query see some key, so
    plain softmax gives what SDPA's gives (it never meets an all -inf row)."""
    if not isinstance(mask, Weight) or mask.tensor.dim() == 0:
        return False
    t = mask.tensor
    kept = t if t.dtype == torch.bool else t > float("-inf")
    return bool(kept.any(-1).all())


def embedding(g, a) -> Value:
    return g.emit(ge.EmbeddingOp(g.value(a["weight"]), g.value(a["indices"])))


def max_pool2d(g, a) -> Value:
    """ge.max_pool2d, or ge.max_pool2d_with_indices when something reads the indices."""
    kernel = pair(a["kernel_size"])
    stride = pair(a["stride"]) if a["stride"] else kernel
    args = (g.typed(a["self"]), kernel, stride, pair(a["padding"]), pair(a["dilation"]),
            bool(a["ceil_mode"]))
    if len(g.node.target._schema.returns) != 2:
        return g.emit(ge.MaxPool2dOp(*args))
    if any(user.args[1] == 1 for user in g.node.users):
        op = ge.MaxPool2dWithIndicesOp(*args)
        g.emit(op)
        return op.output, op.indices
    return g.emit(ge.MaxPool2dOp(*args)), None


def avg_pool2d(g, a) -> Value:
    if a.get("divisor_override") is not None:
        raise Unsupported("avg_pool2d with divisor_override")
    kernel = pair(a["kernel_size"])
    stride = pair(a["stride"]) if a["stride"] else kernel
    return g.emit(ge.AvgPool2dOp(g.typed(a["self"]), kernel, stride, pair(a["padding"]),
                                 bool(a["ceil_mode"]), bool(a["count_include_pad"])))


def adaptive_avg_pool2d(g, a) -> Value:
    return g.emit(ge.AdaptiveAvgPool2dOp(g.typed(a["self"]), pair(a["output_size"])))


def adaptive_max_pool2d(g, a) -> Value:
    y = g.emit(ge.AdaptiveMaxPool2dOp(g.typed(a["self"]), pair(a["output_size"])))
    return (y, None)  # values and indices; GE imports the values only


def upsample(mode: str):
    """upsample_<mode>2d.vec(x, output_size, [align_corners,] scale_factors)."""
    def build(g, a) -> Value:
        size, scale = a["output_size"], a["scale_factors"]
        if size is not None and not all(isinstance(s, int) for s in size):
            raise Unsupported("resize to a symbolic size")
        return g.emit(ge.InterpolateOp(
            g.typed(a["input"]), mode, list(size) if size is not None else None,
            list(scale) if scale is not None and size is None else None,
            bool(a.get("align_corners") or False)))
    return build


def dropout(g, a) -> Value:
    if a["train"]:
        raise Unsupported("dropout in training mode; call model.eval() first")
    x = g.raw(a["input"])
    return (x, None) if isinstance(meta(g.node), (tuple, list)) else x


def scaled_dot_product_attention(g, a) -> Value:
    """softmax(q @ k^T * scale + mask) @ v, decomposed as core ATen does; the
    training IR keeps it as one op."""
    if a["dropout_p"]:
        raise Unsupported("attention with dropout")
    q, k, v = g.typed(a["query"]), g.typed(a["key"]), g.typed(a["value"])
    if a.get("enable_gqa"):
        heads = meta(a["query"]).shape[-3]
        k, v = (_repeat_heads(g, x, meta(a[name]).shape, heads)
                for x, name in ((k, "key"), (v, "value")))
    rank = len(ge.shape_of(k))
    kt = g.emit(ge.TransposeOp(k, list(range(rank - 2)) + [rank - 1, rank - 2]), "kt")
    att = g.emit(ge.MatMulOp(q, kt), "qk")
    scale = a["scale"] if a["scale"] is not None else 1 / math.sqrt(meta(a["query"]).shape[-1])
    att = g.emit(ge.MulOp(att, g.scalar(scale, att)), "scaled")
    masks = [a["attn_mask"]] if a["attn_mask"] is not None else []
    if a["is_causal"]:
        length, source = meta(a["query"]).shape[-2], meta(a["key"]).shape[-2]
        if not (isinstance(length, int) and isinstance(source, int)):
            raise Unsupported("causal attention over a dynamic sequence length")
        masks.append(Weight(torch.ones(length, source, dtype=torch.bool).tril(),
                            f"{g.value_name()}_causal"))
    for mask in masks:
        m = g.value(mask)
        if ge.element_type(m.type) == ge.i1:
            att = g.emit(ge.WhereOp(m, att, g.scalar(float("-inf"), att)), "masked")
        else:
            att = g.emit(ge.AddOp(att, g.typed(mask)), "masked")
    # SDPA gives 0 for a query that sees no key; plain softmax would give NaN.
    # Only the masks given as constants (the causal one) are known to spare it.
    safe = bool(masks) and not all(_sees_a_key(g.raw(m)) for m in masks)
    probs = g.emit(ge.SoftmaxOp(att, -1, safe=safe), "softmax")
    return g.emit(ge.MatMulOp(probs, v))


def _repeat_heads(g, x, sizes, heads) -> Value:
    """Grouped-query attention's keys or values, each head repeated for its
    group of query heads: (..., Hkv, S, D) -> (..., Hkv, G, S, D) -> (..., H, S, D),
    as core ATen's repeat_interleave."""
    sizes = list(sizes)
    kv = sizes[-3]
    if not (isinstance(kv, int) and isinstance(heads, int)) or heads % kv:
        raise Unsupported("grouped-query attention with symbolic or uneven head counts")
    if heads == kv:
        return x
    wide = sizes[:-2] + [1] + sizes[-2:]
    x = shape.reshape_to(g, x, sizes, wide)
    grouped = sizes[:-2] + [heads // kv] + sizes[-2:]
    x = g.emit(ge.ExpandOp(x, shape.static_shape(grouped), []), "heads")
    return shape.reshape_to(g, x, grouped, sizes[:-3] + [heads] + sizes[-2:])


# ---- matrix products


def linear(g, a) -> Value:
    bias = g.value(a["bias"]) if a["bias"] is not None else None
    return g.emit(ge.LinearOp(g.typed(a["input"]), g.value(a["weight"]), bias))


def mm(g, a) -> Value:
    """x @ w: ge.linear when w is a transposed constant weight, else ge.matmul."""
    rhs = g.raw(a["mat2"])
    if isinstance(rhs, Weight) and rhs.transpose_of is not None:
        return g.emit(ge.LinearOp(g.typed(a["self"]), g.value(rhs.transpose_of)))
    return g.emit(ge.MatMulOp(g.typed(a["self"]), g.typed(a["mat2"])))


def addmm(g, a) -> Value:
    """beta * bias + alpha * (x @ w); nn.Linear's form becomes one ge.linear."""
    rhs, alpha, beta = g.raw(a["mat2"]), a["alpha"], a["beta"]
    bias = g.typed(a["self"])
    if (isinstance(rhs, Weight) and rhs.transpose_of is not None and alpha == beta == 1
            and len(ge.shape_of(bias)) == 1):
        return g.emit(ge.LinearOp(g.typed(a["mat1"]), g.value(rhs.transpose_of), bias))
    prod = g.emit(ge.MatMulOp(g.typed(a["mat1"]), g.typed(a["mat2"])), "mm")
    if alpha != 1:
        prod = g.emit(ge.MulOp(prod, g.scalar(alpha, prod)), "alpha")
    if beta != 1:
        bias = g.emit(ge.MulOp(bias, g.scalar(beta, bias)), "beta")
    return g.emit(ge.AddOp(prod, bias))


def matmul(lhs: str = "self", rhs: str = "other"):
    def build(g, a) -> Value:
        return g.emit(ge.MatMulOp(g.typed(a[lhs]), g.typed(a[rhs])))
    return build


def group_norm(g, a) -> Value:
    """native_group_norm (core ATen) and group_norm (training IR): output 0 only."""
    x = g.typed(a["input"])
    weight, bias = _affine(g, a, ge.shape_of(x)[1])
    groups = a["group"] if "group" in a else a["num_groups"]
    y = g.emit(ge.GroupNormOp(x, groups, weight, bias, float(a["eps"])))
    if len(g.node.target._schema.returns) != 3:
        return y
    if not _reads_statistics(g):
        return y, None, None
    shape = ge.shape_of(x)
    if any(d < 0 for d in shape):
        raise Unsupported("group norm statistics of a dynamic shape")
    rows = g.emit(ge.ReshapeOp(x, (shape[0], groups, math.prod(shape[1:]) // groups)), "rows")
    mean, rstd = _statistics(g, rows, [2], float(a["eps"]))
    return (y, g.emit(ge.ReshapeOp(mean, (shape[0], groups)), "mean"),
            g.emit(ge.ReshapeOp(rstd, (shape[0], groups)), "rstd"))


def _reads_statistics(g) -> bool:
    """Whether a node's outputs 1 and 2 (a norm's mean and rstd) are read."""
    return any(user.args[1] in (1, 2) for user in g.node.users)


def _statistics(g, x, dims: list[int], eps: float):
    """(mean, 1 / sqrt(var + eps)) of x over `dims`, kept as size-1 dims."""
    mean = g.emit(ge.ReduceMeanOp(x, dims, True), "mean")
    centered = g.emit(ge.SubOp(x, mean), "centered")
    var = g.emit(ge.ReduceMeanOp(g.emit(ge.MulOp(centered, centered), "squares"), dims, True),
                 "var")
    return mean, g.emit(ge.RsqrtOp(g.emit(ge.AddOp(var, g.scalar(eps, x)), "var_eps")), "rstd")


def instance_norm(g, a) -> Value:
    if not a["use_input_stats"]:
        return batch_norm(g, a)
    x = g.typed(a["input"])
    weight, bias = _affine(g, a, ge.shape_of(x)[1])
    return g.emit(ge.InstanceNormOp(x, weight, bias, float(a["eps"])))


def _affine(g, a, channels: int):
    """Weight and bias as values, both or neither (a missing one is ones or zeros)."""
    weight, bias = a["weight"], a["bias"]
    if weight is None and bias is None:
        return None, None
    if weight is None:
        weight = Weight(torch.ones(channels), f"{g.value_name()}_weight")
    if bias is None:
        bias = Weight(torch.zeros(channels), f"{g.value_name()}_bias")
    return g.typed(weight), g.typed(bias)


def rms_norm(g, a) -> Value:
    x = g.typed(a["input"])
    eps = a.get("eps")
    if eps is None:  # torch's default: the dtype's machine epsilon
        eps = torch.finfo(meta(a["input"]).dtype).eps
    weight = g.typed(a["weight"]) if a.get("weight") is not None else None
    return g.emit(ge.RmsNormOp(x, list(a["normalized_shape"]), weight, float(eps)))


def _triple(v) -> tuple[int, ...]:
    v = list(v) if isinstance(v, (list, tuple)) else [v]
    return tuple(v * 3) if len(v) == 1 else tuple(v)


def max_pool3d(g, a) -> Value:
    kernel = _triple(a["kernel_size"])
    stride = _triple(a["stride"]) if a["stride"] else kernel
    y = g.emit(ge.MaxPool3dOp(g.typed(a["self"]), kernel, stride, _triple(a["padding"]),
                              _triple(a["dilation"]), bool(a["ceil_mode"])))
    return (y, None) if len(g.node.target._schema.returns) == 2 else y


def avg_pool3d(g, a) -> Value:
    if a.get("divisor_override") is not None:
        raise Unsupported("avg_pool3d with divisor_override")
    kernel = _triple(a["kernel_size"])
    stride = _triple(a["stride"]) if a["stride"] else kernel
    return g.emit(ge.AvgPool3dOp(g.typed(a["self"]), kernel, stride, _triple(a["padding"]),
                                 bool(a["ceil_mode"]), bool(a["count_include_pad"])))


def adaptive_avg_pool1d(g, a) -> Value:
    """Over the last dim of [N, C, L] (or [C, L]): a 2-D pool of height 1."""
    x = g.typed(a["self"])
    shape = ge.shape_of(x)
    (size,) = a["output_size"]
    rows = g.emit(ge.ReshapeOp(x, (*shape[:-1], 1, shape[-1])), "rows")
    pooled = g.emit(ge.AdaptiveAvgPool2dOp(rows, (1, size)), "pooled")
    return g.emit(ge.ReshapeOp(pooled, (*shape[:-1], size)))


GRID_MODES = ("bilinear", "nearest", "bicubic")
GRID_PADDING = ("zeros", "border", "reflection")


def grid_sampler(g, a) -> Value:
    """grid_sampler_2d / 3d: torch's integer modes named."""
    return g.emit(ge.GridSampleOp(g.typed(a["input"]), g.typed(a["grid"]),
                                  GRID_MODES[a["interpolation_mode"]],
                                  GRID_PADDING[a["padding_mode"]], bool(a["align_corners"])))
