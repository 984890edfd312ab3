"""ONNX builders for elementwise math, comparisons, casts, reductions and scans."""

from __future__ import annotations

import numpy as np

from ge_dialect import ge
from lowering.onnx.common import (Builder, ELEMENT_TYPES, OnnxUnsupported, axes_of, element_type,
                                   ints, numpy_dtype)


def unary(op_cls: type[ge.UnaryElementwiseOp], **props: tuple[str, object]) -> Builder:
    """`props` gives the ONNX attribute and its default for each keyword of the
    op's builder."""
    return lambda g, n: [g.emit(op_cls(g.input(n, 0), **{
        k: g.attr(n, name, default) for k, (name, default) in props.items()}))]


def binary(op_cls: type[ge.BinaryElementwiseOp]) -> Builder:
    return lambda g, n: [g.emit(op_cls(g.input(n, 0), g.input(n, 1)))]


def div(g, n) -> list:
    """Div truncates on integers (C semantics), like GE's TruncateDiv."""
    x = g.input(n, 0)
    op = ge.TruncDivOp if ge.is_integer(ge.element_type(x.type)) else ge.DivOp
    return [g.emit(op(x, g.input(n, 1)))]


def mod(g, n) -> list:
    """Mod: the sign of the divisor (Python %), or of the dividend with fmod = 1."""
    op = ge.FmodOp if g.attr(n, "fmod", 0) else ge.RemainderOp
    return [g.emit(op(g.input(n, 0), g.input(n, 1)))]


def power(g, n) -> list:
    """Pow: the exponent may have another type; it is cast to the base's."""
    x, y = g.input(n, 0), g.input(n, 1)
    if ge.element_type(y.type) != ge.element_type(x.type):
        y = g.emit(ge.CastOp(y, ge.element_type(x.type)))
    return [g.emit(ge.PowOp(x, y))]


def compare(predicate: str) -> Builder:
    return lambda g, n: [g.emit(ge.CompareOp(g.input(n, 0), g.input(n, 1), predicate))]


def variadic(op_cls: type[ge.BinaryElementwiseOp], mean: bool = False) -> Builder:
    """Max / Min / Sum / Mean of any number of inputs."""
    def build(g, n) -> list:
        values = [g.input(n, i) for i in range(len(n.input)) if n.input[i]]
        y = values[0]
        for v in values[1:]:
            y = g.emit(op_cls(y, v))
        if mean and len(values) > 1:
            y = g.emit(ge.DivOp(y, g.scalar(len(values), y)))
        return [y]
    return build


def clip(g, n) -> list:
    x = g.input(n, 0)
    bounds = []
    for i in (1, 2):
        c = g.constant(n, i)
        if g.has_input(n, i) and c is None:
            op = ge.MaximumOp if i == 1 else ge.MinimumOp
            x = g.emit(op(x, g.input(n, i)))
            bounds.append(None)
        else:
            bounds.append(None if c is None else float(np.asarray(c).reshape(-1)[0]))
    if bounds == [None, None]:
        return [x]
    return [g.emit(ge.ClampOp(x, *bounds))]


def cast(g, n) -> list:
    x = g.input(n, 0)
    to = element_type(g.attr(n, "to"))
    return [x if ge.element_type(x.type) == to else g.emit(ge.CastOp(x, to))]


def cast_like(g, n) -> list:
    like = g.input(n, 1)
    to = ge.element_type(like.type)
    constant = g.constant(n, 0)
    if constant is not None:  # stays a constant (a pad value, an epsilon, ...)
        return [constant.astype(numpy_dtype(to))]
    x = g.input(n, 0)
    return [x if ge.element_type(x.type) == to else g.emit(ge.CastOp(x, to))]


def identity(g, n) -> list:
    return [g.input(n, 0)] + [None] * (len(n.output) - 1)


def leaky_relu(g, n) -> list:
    return [g.emit(ge.LeakyReluOp(g.input(n, 0), float(g.attr(n, "alpha", 0.01))))]


def elu(g, n) -> list:
    return [g.emit(ge.EluOp(g.input(n, 0), float(g.attr(n, "alpha", 1.0))))]


def selu(g, n) -> list:
    alpha = float(g.attr(n, "alpha", 1.67326319217681884765625))
    gamma = float(g.attr(n, "gamma", 1.05070102214813232421875))
    return [g.emit(ge.EluOp(g.input(n, 0), alpha, gamma))]


def celu(g, n) -> list:
    alpha = float(g.attr(n, "alpha", 1.0))
    return [g.emit(ge.EluOp(g.input(n, 0), alpha, 1.0, 1.0 / alpha))]


def hard_sigmoid(g, n) -> list:
    """max(0, min(1, alpha * x + beta))."""
    x = g.input(n, 0)
    alpha, beta = float(g.attr(n, "alpha", 0.2)), float(g.attr(n, "beta", 0.5))
    y = g.emit(ge.AddOp(g.emit(ge.MulOp(x, g.scalar(alpha, x))), g.scalar(beta, x)))
    return [g.emit(ge.ClampOp(y, 0.0, 1.0))]


def softsign(g, n) -> list:
    x = g.input(n, 0)
    return [g.emit(ge.DivOp(x, g.emit(ge.AddOp(g.emit(ge.AbsOp(x)), g.scalar(1, x)))))]


def softplus(g, n) -> list:
    """log(exp(x) + 1): torch's softplus, its threshold far past float precision."""
    return [g.emit(ge.SoftplusOp(g.input(n, 0), 1.0, 20.0))]


def prelu(g, n) -> list:
    x, slope = g.input(n, 0), g.input(n, 1)
    negative = g.emit(ge.CompareOp(x, g.scalar(0, x), "lt"))
    return [g.emit(ge.WhereOp(negative, g.emit(ge.MulOp(x, slope)), x))]


def thresholded_relu(g, n) -> list:
    x = g.input(n, 0)
    keep = g.emit(ge.CompareOp(x, g.scalar(float(g.attr(n, "alpha", 1.0)), x), "gt"))
    return [g.emit(ge.WhereOp(keep, x, g.scalar(0, x)))]


def is_inf(g, n) -> list:
    x = g.input(n, 0)
    inf = g.emit(ge.IsInfOp(x))
    positive, negative = g.attr(n, "detect_positive", 1), g.attr(n, "detect_negative", 1)
    if positive and negative:
        return [inf]
    side = g.emit(ge.CompareOp(x, g.scalar(0, x), "gt" if positive else "lt"))
    return [g.emit(ge.LogicalAndOp(inf, side))]


def logical_not(g, n) -> list:
    return [g.emit(ge.LogicalNotOp(g.input(n, 0)))]


def where(g, n) -> list:
    return [g.emit(ge.WhereOp(g.input(n, 0), g.input(n, 1), g.input(n, 2)))]


def reduce(g, n, x, op_cls: type[ge.ReductionOp]):
    """Reduce<Op>(data, axes, keepdims, noop_with_empty_axes) of x; axes moved from
    an attribute to an input at opset 18 (13 for ReduceSum)."""
    axes = axes_of(g, n)
    keepdims = bool(g.attr(n, "keepdims", 1))
    if not axes:
        if g.attr(n, "noop_with_empty_axes", 0) or not ge.shape_of(x):
            return x
        axes = list(range(len(ge.shape_of(x))))
    return g.emit(op_cls(x, axes, keepdims))


def reduction(op_cls: type[ge.ReductionOp]) -> Builder:
    return lambda g, n: [reduce(g, n, g.input(n, 0), op_cls)]


def reduce_composite(kind: str) -> Builder:
    """ReduceL1 / L2 / SumSquare / LogSum / LogSumExp from a sum."""
    def build(g, n) -> list:
        x = g.input(n, 0)
        if kind == "l1":
            x = g.emit(ge.AbsOp(x))
        elif kind in ("l2", "sum_square"):
            x = g.emit(ge.MulOp(x, x))
        elif kind == "log_sum_exp":
            x = g.emit(ge.ExpOp(x))
        y = reduce(g, n, x, ge.ReduceSumOp)
        if kind == "l2":
            y = g.emit(ge.SqrtOp(y))
        elif kind in ("log_sum", "log_sum_exp"):
            y = g.emit(ge.LogOp(y))
        return [y]
    return build


def arg_reduction(op_cls: type[ge.ArgReductionOp]) -> Builder:
    """ArgMax / ArgMin; select_last_index = 1 as the first index of the reversed axis."""
    def build(g, n) -> list:
        x = g.input(n, 0)
        axis, keepdims = int(g.attr(n, "axis", 0)), bool(g.attr(n, "keepdims", 1))
        if not g.attr(n, "select_last_index", 0):
            return [g.emit(op_cls(x, axis, keepdims))]
        size = ge.shape_of(x)[axis]
        if size < 0:
            raise OnnxUnsupported("select_last_index along a dynamic dim")
        first = g.emit(op_cls(g.emit(ge.ReverseOp(x, [axis])), axis, keepdims))
        return [g.emit(ge.SubOp(g.scalar(size - 1, first), first))]
    return build


def cumulative(op_cls: type[ge.CumulativeOp], identity: float) -> Builder:
    """CumSum / CumProd(x, axis, exclusive, reverse); exclusive shifts the input
    by one along the axis, filling with the identity."""
    def build(g, n) -> list:
        x = g.input(n, 0)
        (axis,) = ints(g, n, 1, "the axis")
        rank = len(ge.shape_of(x))
        axis %= rank
        if g.attr(n, "reverse", 0):
            x = g.emit(ge.ReverseOp(x, [axis]))
        if g.attr(n, "exclusive", 0):
            size = ge.shape_of(x)[axis]
            if size < 0:
                raise OnnxUnsupported("an exclusive scan along a dynamic dim")
            low = [1 if d == axis else 0 for d in range(rank)]
            padded = g.emit(ge.PadOp(x, low, [0] * rank, "constant", identity))
            x = g.emit(ge.SliceOp(padded, axis, 0, size))
        y = g.emit(op_cls(x, axis))
        if g.attr(n, "reverse", 0):
            y = g.emit(ge.ReverseOp(y, [axis]))
        return [y]
    return build


def one_hot(g, n) -> list:
    """OneHot(indices, depth, [off, on]): on where the index matches, off elsewhere."""
    indices = g.input(n, 0)
    (depth,) = ints(g, n, 1, "depth")
    values = g.input(n, 2)
    rank = len(ge.shape_of(indices)) + 1
    axis = int(g.attr(n, "axis", -1)) % rank
    shape = [1] * rank
    shape[axis] = depth
    positions = g.const(np.arange(depth, dtype=np.int64).reshape(shape))
    index_shape = list(ge.shape_of(indices))
    index_shape.insert(axis, 1)
    idx = g.emit(ge.ReshapeOp(g.emit(ge.CastOp(indices, ge.i64)), index_shape))
    idx = g.emit(ge.WhereOp(g.emit(ge.CompareOp(idx, g.scalar(0, idx), "lt")),
                            g.emit(ge.AddOp(idx, g.scalar(depth, idx))), idx))
    hit = g.emit(ge.CompareOp(idx, positions, "eq"))
    off = g.emit(ge.SliceOp(values, 0, 0, 1))
    on = g.emit(ge.SliceOp(values, 0, 1, 2))
    return [g.emit(ge.WhereOp(hit, on, off))]


def trilu(g, n) -> list:
    """Upper (upper = 1) or lower triangle of the last two dims, k diagonals off."""
    x = g.input(n, 0)
    rows, cols = ge.shape_of(x)[-2:]
    if rows < 0 or cols < 0:
        raise OnnxUnsupported("Trilu of dynamic dims")
    k = ints(g, n, 1, "k")[0] if g.has_input(n, 1) else 0
    keep = np.ones((rows, cols), dtype=bool)
    keep = np.triu(keep, k) if g.attr(n, "upper", 1) else np.tril(keep, k)
    return [g.emit(ge.WhereOp(g.const(keep), x, g.scalar(0, x)))]


def swish(g, n) -> list:
    """x * sigmoid(alpha * x)."""
    x = g.input(n, 0)
    alpha = float(g.attr(n, "alpha", 1.0))
    scaled = x if alpha == 1.0 else g.emit(ge.MulOp(x, g.scalar(alpha, x)))
    return [g.emit(ge.MulOp(x, g.emit(ge.SigmoidOp(scaled))))]


def shrink(g, n) -> list:
    """x + bias where x < -lambd, x - bias where x > lambd, else 0."""
    x = g.input(n, 0)
    lambd, bias = float(g.attr(n, "lambd", 0.5)), float(g.attr(n, "bias", 0.0))
    low = g.emit(ge.CompareOp(x, g.scalar(-lambd, x), "lt"))
    high = g.emit(ge.CompareOp(x, g.scalar(lambd, x), "gt"))
    shifted_up = g.emit(ge.AddOp(x, g.scalar(bias, x)))
    shifted_down = g.emit(ge.SubOp(x, g.scalar(bias, x)))
    rest = g.emit(ge.WhereOp(high, shifted_down, g.scalar(0, x)))
    return [g.emit(ge.WhereOp(low, shifted_up, rest))]


def eye_like(g, n) -> list:
    """Ones on diagonal k of a 2-D tensor of the input's shape."""
    x = g.input(n, 0)
    rows, cols = ge.shape_of(x)
    if rows < 0 or cols < 0:
        raise OnnxUnsupported("EyeLike of a dynamic shape")
    dtype = g.attr(n, "dtype")
    numpy = (ELEMENT_TYPES[dtype][1] if dtype is not None
             else next(d for e, d in ELEMENT_TYPES.values() if e == ge.element_type(x.type)))
    return [np.eye(rows, cols, int(g.attr(n, "k", 0)), dtype=numpy)]
