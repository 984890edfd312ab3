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


def unary(op_cls: type[ge.UnaryElementwiseOp], operand: str = "self") -> Builder:
    """aten.<f>(x) -> ge.<f>(x), the operand cast to the result dtype if needed."""
    def build(g, a) -> Value:
        return g.emit(op_cls(g.typed(a[operand])))
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


def gelu(g, a) -> Value:
    return g.emit(ge.GeluOp(g.typed(a["self"]), a["approximate"]))


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
        if g.node.target is not torch.ops.aten.full.default:
            raise Unsupported("tensor creation with a symbolic size")
        # full(size, v) = v broadcast to a size known at run time
        fill = g.scalar(a["fill_value"], element_type(val.dtype))
        return g.emit(ge.ExpandOp(fill, static_shape(val.shape),
                                  [g.size_value(d) for d in val.shape if not isinstance(d, int)]))
    args = [g.raw(x) for x in g.node.args]
    tensor = g.node.target(*args, **g.node.kwargs)
    splat = tensor.numel() > 1 and bool((tensor == tensor.reshape(-1)[0]).all())
    return Weight(tensor, g.node.name, splat=splat)


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


