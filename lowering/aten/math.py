"""Builders for elementwise math, comparisons, casts, reductions and tensor creation."""

from __future__ import annotations

import torch

from ge_dialect import ge
from lowering.aten.common import (
    Builder,
    Unsupported,
    Value,
    Weight,
    element_type,
    is_static,
    out_meta,
    static_shape,
)


def unary(op_cls: type[ge.UnaryElementwiseOp], operand: str = "self", **props: str) -> Builder:
    """aten.<f>(x) -> ge.<f>(x), the operand cast to the result dtype if needed;
    `props` names the aten argument each keyword of the op's builder takes."""
    def build(g, a) -> Value:
        return g.emit(op_cls(g.typed(a[operand]), **{k: a[v] for k, v in props.items()}))
    return build


def binary(op_cls: type[ge.BinaryElementwiseOp], lhs: str = "self",
           rhs: str = "other") -> Builder:
    """aten.<f>(x, y) -> ge.<f>(x, y) with both operands in the result dtype."""
    def build(g, a) -> Value:
        return g.emit(op_cls(g.typed(a[lhs]), g.typed(a[rhs])))
    return build


def add(g, a, sign: float = 1.0) -> Value:
    """self + alpha * other (sign = -1 gives sub)."""
    alpha = sign * a.get("alpha", 1)
    other = a["other"]
    if isinstance(g.raw(other), (int, float)):  # fold alpha into the scalar
        other, alpha = alpha * g.raw(other), 1
    other = g.typed(other)
    if alpha != 1:
        other = g.emit(ge.MulOp(other, g.scalar(alpha, other)), "alpha")
    return g.emit(ge.AddOp(g.typed(a["self"]), other))


def sub(g, a) -> Value:
    return add(g, a, sign=-1.0)


def rsub(g, a) -> Value:
    """other - alpha * self (the training IR's `1.0 - mask`)."""
    return add(g, {"self": a["other"], "other": a["self"], "alpha": a.get("alpha", 1)},
               sign=-1.0)


def compare(predicate: str) -> Builder:
    """aten.<predicate>(x, y) -> ge.compare, operands promoted as torch does."""
    def build(g, a) -> Value:
        lhs, rhs = a["self"], a["other"]
        dtype = torch.result_type(g.example(lhs), g.example(rhs))
        return g.emit(ge.CompareOp(g.typed(lhs, dtype), g.typed(rhs, dtype), predicate))
    return build


def logical_not(g, a) -> Value:
    """logical_not of anything, and bitwise_not of booleans."""
    x = g.value(a["self"])
    if out_meta(g).dtype != torch.bool:
        raise Unsupported("bitwise not of integers")
    if ge.element_type(x.type) != element_type(torch.bool):
        x = g.emit(ge.CompareOp(x, g.scalar(0, x), "ne"), "bool")
    return g.emit(ge.LogicalNotOp(x))


def logical(op_cls: type[ge.LogicalBinaryOp]) -> Builder:
    def build(g, a) -> Value:
        if out_meta(g).dtype != torch.bool:
            raise Unsupported("bitwise ops on integers")
        return g.emit(op_cls(g.typed(a["self"], torch.bool), g.typed(a["other"], torch.bool)))
    return build


def where(g, a) -> Value:
    return g.emit(ge.WhereOp(g.typed(a["condition"], torch.bool), g.typed(a["self"]),
                             g.typed(a["other"])))


def masked_fill(g, a) -> Value:
    return g.emit(ge.WhereOp(g.typed(a["mask"], torch.bool), g.typed(a["value"]),
                             g.typed(a["self"])))


def clamp(g, a, lo: str = "min", hi: str = "max") -> Value:
    bounds = [a.get(lo), a.get(hi)]
    if any(b is not None and not isinstance(b, (int, float)) for b in bounds):
        raise Unsupported("clamp with tensor bounds")
    return g.emit(ge.ClampOp(g.typed(a["self"]), *[None if b is None else float(b)
                                                     for b in bounds]))


def hardtanh(g, a) -> Value:
    return clamp(g, a, "min_val", "max_val")


def relu6(g, a) -> Value:
    return g.emit(ge.ClampOp(g.typed(a["self"]), 0.0, 6.0))


def to_copy(g, a) -> Value:
    """_to_copy / to(dtype): a ge.cast when the element type changes, else nothing."""
    x = g.value(a["self"])
    want = element_type(out_meta(g).dtype)
    if ge.element_type(x.type) == want:
        return x
    return g.emit(ge.CastOp(x, want))


def create(g, a) -> Value:
    """full, zeros, ones, arange, scalar_tensor, ...: run the op now, keep a constant.

    Filled tensors are stored as one-element splats, so a large mask or a
    zero buffer costs nothing in the IR.
    """
    val = out_meta(g)
    if not is_static(val.shape):
        return filled(g, a.get("fill_value", FILL_VALUES.get(g.node.target)))
    args = [g.raw(x) for x in g.node.args]
    tensor = g.node.target(*args, **g.node.kwargs)
    splat = tensor.numel() > 1 and bool((tensor == tensor.reshape(-1)[0]).all())
    return Weight(tensor, g.node.name, splat=splat)


aten = torch.ops.aten
# The value a creation op fills with, for those that do not take one.
FILL_VALUES = {aten.zeros.default: 0, aten.ones.default: 1, aten.new_zeros.default: 0,
               aten.new_ones.default: 1, aten.empty.memory_format: 0,
               aten.new_empty.default: 0}


def filled(g, value: float | None) -> Value:
    """full(size, v) with a symbolic size: v broadcast to sizes known at run time."""
    val = out_meta(g)
    if value is None:
        raise Unsupported("tensor creation with a symbolic size and no fill value")
    fill = g.scalar(value, element_type(val.dtype))
    return g.emit(ge.ExpandOp(fill, static_shape(val.shape),
                              [g.size_value(d) for d in val.shape if not isinstance(d, int)]))


def new_filled(g, a) -> Value:
    """x.new_ones(size) / new_zeros / new_full / new_empty: a tensor of `size`,
    x's dtype unless one is given; only x's dtype is read."""
    val = out_meta(g)
    if is_static(val.shape):
        value = a.get("fill_value", FILL_VALUES.get(g.node.target))
        return Weight(torch.full(tuple(val.shape), value, dtype=val.dtype), g.node.name,
                      splat=val.numel() > 1)
    return filled(g, a.get("fill_value", FILL_VALUES.get(g.node.target)))


def arange(g, a) -> Value:
    """arange(start, end, step): a constant, or ge.arange when `end` is symbolic."""
    start, end, step = (g.size(a.get("start", 0)), g.size(a["end"]),
                        g.size(a.get("step", 1)))
    if all(isinstance(v, (int, float)) for v in (start, end, step)):
        return create(g, a)
    if not (isinstance(start, int) and isinstance(step, int)):
        raise Unsupported("arange with a symbolic start or step")
    return g.emit(ge.ArangeOp(g.size_value(end), element_type(out_meta(g).dtype), start,
                              step))


def fold(g, a) -> Value:
    """An op on constants only (tril of a mask, ...): computed now, kept as a constant."""
    args = [g.raw(x) for x in g.node.args]
    if any(g.is_computed(x) for x in args):
        raise Unsupported("only supported on constants, and an input is computed")
    tensor = g.node.target(*[x.tensor if isinstance(x, Weight) else x for x in args],
                           **g.node.kwargs)
    return Weight(tensor, g.node.name)


def full_like(g, a) -> Value:
    """A splat constant when the shape is static; ge.full_like when it is not."""
    val = out_meta(g)
    if is_static(val.shape):
        return Weight(torch.full(tuple(val.shape), a["fill_value"], dtype=val.dtype),
                      g.node.name, splat=val.numel() > 1)
    return g.emit(ge.FullLikeOp(g.value(a["self"]), float(a["fill_value"]),
                                element_type(val.dtype)))


def filled_like(value: float) -> Builder:
    """zeros_like / ones_like."""
    return lambda g, a: full_like(g, {**a, "fill_value": value})


def reduction(op_cls: type[ge.ReductionOp]) -> Builder:
    """aten.<f>(x, dim, keepdim) -> ge.reduce_<f>; no dim (or []) reduces all dims."""
    def build(g, a) -> Value:
        dims = a.get("dim")
        dims = [] if dims is None else ([dims] if isinstance(dims, int) else list(dims))
        return g.emit(op_cls(g.typed(a["self"]), dims, bool(a.get("keepdim", False))))
    return build


def mean(g, a) -> Value:
    """Mean over H and W of an NCHW tensor is global average pooling (what
    AdaptiveAvgPool2d(1) decomposes to); other means are ge.reduce_mean."""
    x = g.typed(a["self"])
    rank = len(ge.shape_of(x))
    dims = a.get("dim") or []
    if rank == 4 and sorted(d % rank for d in dims) == [2, 3]:
        y = g.emit(ge.AdaptiveAvgPool2dOp(x, (1, 1)))
        return y if a["keepdim"] else g.emit(ge.FlattenOp(y, 1, -1), "flat")
    return g.emit(ge.ReduceMeanOp(x, list(dims), bool(a.get("keepdim", False))))




def leaky_relu(g, a) -> Value:
    return g.emit(ge.LeakyReluOp(g.typed(a["self"]), float(a["negative_slope"])))


def elu(g, a) -> Value:
    """elu(x, alpha, scale, input_scale); SELU and CELU decompose to it."""
    return g.emit(ge.EluOp(g.typed(a["self"]), float(a["alpha"]), float(a["scale"]),
                           float(a["input_scale"])))


def softplus(g, a) -> Value:
    return g.emit(ge.SoftplusOp(g.typed(a["self"]), float(a["beta"]), float(a["threshold"])))


def predicate(op_cls: type[ge.UnaryPredicateOp]) -> Builder:
    """isnan / isinf: i1 out; integers are never NaN or infinite."""
    def build(g, a) -> Value:
        x = g.value(a["self"])
        if ge.is_integer(ge.element_type(x.type)):
            return g.emit(ge.CompareOp(x, x, "ne"))  # all false, of the right shape
        return g.emit(op_cls(x))
    return build


def round_(g, a) -> Value:
    """round(x) or round(x, decimals) = round(x * 10**d) / 10**d, as torch computes it."""
    x = g.typed(a["self"])
    decimals = a.get("decimals", 0)
    if decimals == 0:
        return g.emit(ge.RoundOp(x))
    scale = g.scalar(10.0 ** abs(decimals), x)
    scaled = g.emit((ge.MulOp if decimals > 0 else ge.DivOp)(x, scale), "scaled")
    rounded = g.emit(ge.RoundOp(scaled), "rounded")
    return g.emit((ge.DivOp if decimals > 0 else ge.MulOp)(rounded, scale))


def div_mode(g, a) -> Value:
    """div(x, y, rounding_mode): true division, or floor / trunc division."""
    ops = {None: ge.DivOp, "floor": ge.FloorDivOp, "trunc": ge.TruncDivOp}
    return g.emit(ops[a["rounding_mode"]](g.typed(a["self"]), g.typed(a["other"])))


def clamp_tensor(g, a) -> Value:
    """clamp with tensor (or scalar) bounds: maximum then minimum, as torch orders them."""
    y = g.typed(a["self"])
    for key, op_cls in (("min", ge.MaximumOp), ("max", ge.MinimumOp)):
        if a.get(key) is not None:
            y = g.emit(op_cls(y, g.typed(a[key])), key)
    return y


def clamp_min(g, a) -> Value:
    return clamp_tensor(g, {"self": a["self"], "min": a["min"]})


def clamp_max(g, a) -> Value:
    return clamp_tensor(g, {"self": a["self"], "max": a["max"]})


def cumulative(op_cls: type[ge.CumulativeOp]) -> Builder:
    """cumsum / cumprod(x, dim, dtype): x cast to the result dtype first, as torch."""
    def build(g, a) -> Value:
        return g.emit(op_cls(g.typed(a["self"]), a["dim"]))
    return build


def arg_reduction(op_cls: type[ge.ArgReductionOp]) -> Builder:
    def build(g, a) -> Value:
        return g.emit(op_cls(g.value(a["self"]), a.get("dim"), bool(a.get("keepdim", False))))
    return build


def max_min_dim(values_cls: type[ge.ReductionOp], index_cls: type[ge.ArgReductionOp]
                ) -> Builder:
    """max.dim / min.dim: (values, indices) as a reduction and an arg-reduction."""
    def build(g, a) -> Value:
        x, dim, keepdim = g.value(a["self"]), a["dim"], bool(a.get("keepdim", False))
        if not ge.shape_of(x):  # a 0-d input is its own max, at index 0
            return x, g.emit(index_cls(x, None, keepdim), "indices")
        return (g.emit(values_cls(x, [dim], keepdim), "values"),
                g.emit(index_cls(x, dim, keepdim), "indices"))
    return build


def topk(g, a) -> Value:
    op = ge.TopKOp(g.value(a["self"]), g.size(a["k"]), a["dim"], bool(a["largest"]),
                   bool(a["sorted"]))
    g.emit(op)
    return op.values, op.indices


def sort(g, a) -> Value:
    op = ge.SortOp(g.value(a["self"]), a["dim"], bool(a["descending"]),
                   bool(a.get("stable") or False))
    g.emit(op)
    return op.values, op.indices


def log_sigmoid(g, a) -> Value:
    """log_sigmoid_forward returns (output, buffer); the buffer is a CPU scratch."""
    return g.emit(ge.LogSigmoidOp(g.typed(a["self"]))), None


def vector_norm(g, a) -> Value:
    """linalg_vector_norm(x, ord, dim, keepdim) from reductions: sum |x|^p then
    the p-th root; max / min |x| for +-inf, the count of non-zeros for 0."""
    x = g.typed(a["self"])  # in the result dtype, which `dtype` sets
    p, keepdim = float(a["ord"]), bool(a["keepdim"])
    dims = a.get("dim")
    dims = [] if dims is None else ([dims] if isinstance(dims, int) else list(dims))
    if p == 0:
        nonzero = g.emit(ge.CastOp(g.emit(ge.CompareOp(x, g.scalar(0, x), "ne"), "nonzero"),
                                   ge.element_type(x.type)), "count")
        return g.emit(ge.ReduceSumOp(nonzero, dims, keepdim))
    magnitude = g.emit(ge.AbsOp(x), "abs")
    if p in (float("inf"), float("-inf")):
        return g.emit((ge.ReduceMaxOp if p > 0 else ge.ReduceMinOp)(magnitude, dims, keepdim))
    if p == 2:
        total = g.emit(ge.ReduceSumOp(g.emit(ge.MulOp(x, x), "square"), dims, keepdim), "sum")
        return g.emit(ge.SqrtOp(total))
    powered = magnitude if p == 1 else g.emit(ge.PowOp(magnitude, g.scalar(p, x)), "pow")
    total = g.emit(ge.ReduceSumOp(powered, dims, keepdim), "sum")
    return total if p == 1 else g.emit(ge.PowOp(total, g.scalar(1.0 / p, x)))


def var(g, a, std: bool = False) -> Value:
    """var.correction / std.correction: sum((x - mean)^2) / (N - correction)."""
    x = g.typed(a["self"])
    shape = ge.shape_of(x)
    dims = a.get("dim")
    dims = list(range(len(shape))) if dims is None else (
        [dims] if isinstance(dims, int) else list(dims)) or list(range(len(shape)))
    keepdim = bool(a.get("keepdim", False))
    count = 1
    for d in dims:
        count *= shape[d] if shape else 1
    if count < 0:
        raise Unsupported("variance over a dynamic dim")
    correction = a.get("correction")
    if "unbiased" in a:  # var.dim / std.dim
        correction = 1 if a["unbiased"] else 0
    correction = 1 if correction is None else correction
    mean = g.emit(ge.ReduceMeanOp(x, dims, True), "mean")
    centered = g.emit(ge.SubOp(x, mean), "centered")
    squares = g.emit(ge.MulOp(centered, centered), "squares")
    total = g.emit(ge.ReduceSumOp(squares, dims, keepdim), "sum")
    y = g.emit(ge.DivOp(total, g.scalar(float(max(count - correction, 0)), x)),
               "var" if std else "")
    return g.emit(ge.SqrtOp(y)) if std else y


def std(g, a) -> Value:
    return var(g, a, std=True)


def log_softmax(g, a) -> Value:
    if a.get("half_to_float"):
        raise Unsupported("log_softmax with half_to_float")
    return g.emit(ge.LogSoftmaxOp(g.typed(a["self"]), a["dim"]))


def polygamma(g, a) -> Value:
    return g.emit(ge.PolygammaOp(g.typed(a["self"]), a["n"]))


def empty(g, a) -> Value:
    """empty / empty_permuted: any contents are valid, so zeros (a splat constant)."""
    val = out_meta(g)
    if not is_static(val.shape):
        return filled(g, 0)
    return Weight(torch.zeros(tuple(val.shape), dtype=val.dtype), g.node.name,
                  splat=val.numel() > 1)


def copy(g, a) -> Value:
    """copy(self, src): src in self's dtype, broadcast to self's shape."""
    src = g.typed(a["src"])
    shape = static_shape(out_meta(g).shape)
    if list(ge.shape_of(src)) != shape:
        src = g.emit(ge.ExpandOp(src, shape), "expanded")
    return src


def var_mean(g, a) -> Value:
    """(var, mean) over the same dims."""
    variance = var(g, a)
    dims = a.get("dim")
    dims = [] if dims is None else ([dims] if isinstance(dims, int) else list(dims))
    mean = g.emit(ge.ReduceMeanOp(g.typed(a["self"]), dims, bool(a.get("keepdim", False))),
                  "mean")
    return variance, mean


def add_matmul(g, a, lhs: str, rhs: str, batch_sum: bool = False) -> Value:
    """addmv / addbmm: beta * self + alpha * (lhs @ rhs), the products summed
    over the batch for addbmm."""
    product = g.emit(ge.MatMulOp(g.typed(a[lhs]), g.typed(a[rhs])), "product")
    if batch_sum:
        product = g.emit(ge.ReduceSumOp(product, [0], False), "batch_sum")
    if a.get("alpha", 1) != 1:
        product = g.emit(ge.MulOp(product, g.scalar(a["alpha"], product)), "alpha")
    if a.get("beta", 1) == 0:  # torch ignores self then, NaNs included
        return product
    base = g.typed(a["self"])
    if a.get("beta", 1) != 1:
        base = g.emit(ge.MulOp(base, g.scalar(a["beta"], base)), "beta")
    return g.emit(ge.AddOp(base, product))


def nan_ignoring(op_cls: type[ge.BinaryElementwiseOp]) -> Builder:
    """fmax / fmin: maximum / minimum where a NaN loses to a number."""
    def build(g, a) -> Value:
        x, y = g.typed(a["self"]), g.typed(a["other"])
        both = g.emit(op_cls(x, y), "both")
        if ge.is_integer(ge.element_type(x.type)):
            return both
        y_or_both = g.emit(ge.WhereOp(g.emit(ge.IsNanOp(y), "y_nan"), x, both), "y_nan_x")
        return g.emit(ge.WhereOp(g.emit(ge.IsNanOp(x), "x_nan"), y, y_or_both))
    return build


def ldexp(g, a) -> Value:
    """x * 2 ** other."""
    x = g.typed(a["self"])
    power = g.emit(ge.PowOp(g.scalar(2.0, x), g.typed(a["other"])), "power")
    return g.emit(ge.MulOp(x, power))


def signbit(g, a) -> Value:
    """True for negative numbers, -0.0 included: copysign(1, x) < 0."""
    x = g.value(a["self"])
    if ge.is_integer(ge.element_type(x.type)):
        return g.emit(ge.CompareOp(x, g.scalar(0, x), "lt"))
    sign = g.emit(ge.CopysignOp(g.scalar(1.0, x), x), "sign")
    return g.emit(ge.CompareOp(sign, g.scalar(0.0, x), "lt"))


def dist(g, a) -> Value:
    """||x - y||_p."""
    diff = g.emit(ge.SubOp(g.typed(a["self"]), g.typed(a["other"])), "diff")
    return vector_norm(g, {"self": diff, "ord": a["p"], "dim": None, "keepdim": False})


def kth_value(g, a, k=None) -> Value:
    """kthvalue / median.dim: the k-th smallest along dim and its index, by sort."""
    x = g.value(a["self"])
    dim, keepdim = a.get("dim", -1), bool(a.get("keepdim", False))
    if not ge.shape_of(x):
        return x, g.emit(ge.ArgMinOp(x, None, keepdim), "index")
    size = ge.shape_of(x)[dim]
    if size < 0:
        raise Unsupported("the k-th value along a dynamic dim")
    k = a["k"] if k is None else k(size)
    order = ge.SortOp(x, dim, False, True)
    g.emit(order)
    picked = []
    for value, what in ((order.values, "values"), (order.indices, "indices")):
        one = g.emit(ge.SliceOp(value, dim, k - 1, k), what)
        if not keepdim:
            shape = list(ge.shape_of(one))
            del shape[dim % len(shape)]
            one = g.emit(ge.ReshapeOp(one, shape), f"{what}_squeezed")
        picked.append(one)
    return tuple(picked)


def median(g, a) -> Value:
    """median.dim (values, indices), or median of all elements (the lower middle)."""
    if "dim" in a:
        return kth_value(g, a, k=lambda n: (n - 1) // 2 + 1)
    x = g.value(a["self"])
    n = 1
    for d in ge.shape_of(x):
        n *= d
    if n < 0:
        raise Unsupported("the median of a dynamic number of elements")
    flat = g.emit(ge.ReshapeOp(x, (n,)), "flat")
    values, _ = kth_value(g, {"self": flat, "dim": 0, "keepdim": False},
                         k=lambda size: (size - 1) // 2 + 1)
    return values
