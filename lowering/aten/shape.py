"""Builders for views, permutations, broadcasts, slices and concatenation."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xdsl.dialects.builtin import DYNAMIC_INDEX

from ge_dialect import ge
from lowering.aten.common import (
    INT64_MAX,
    Unsupported,
    Value,
    Weight,
    meta,
    out_meta,
    static_shape,
)


def identity(g, a) -> Value:
    return g.raw(a["self"])


def flatten(g, a) -> Value:
    return g.emit(ge.FlattenOp(g.value(a["self"]), a["start_dim"], a["end_dim"]))


def reshape_to(g, x, src: Sequence[Any], dst: Sequence[Any]) -> Value:
    """x viewed as `dst`: nothing when equal, ge.flatten when it merges adjacent
    dims (this also drops a size-1 dim), else ge.reshape."""
    if [str(d) for d in src] == [str(d) for d in dst]:
        return x
    if dims := merged_dims(src, dst):
        return g.emit(ge.FlattenOp(x, *dims))
    shape = static_shape(dst)
    # One `?` follows from the element count; more need their run-time sizes.
    sizes = [g.size_value(d) for d in dst if not isinstance(d, int)] if shape.count(
        DYNAMIC_INDEX) > 1 else []
    return g.emit(ge.ReshapeOp(x, shape, sizes))


def reshape(g, a) -> Value:
    """view/reshape/squeeze/unsqueeze."""
    return reshape_to(g, g.value(a["self"]), meta(a["self"]).shape, out_meta(g).shape)


def merged_dims(src: Sequence[Any], dst: Sequence[Any]) -> tuple[int, int] | None:
    """(start, end) if `dst` is `src` with dims start..end merged into one, else None."""
    src_s, dst_s = [str(d) for d in src], [str(d) for d in dst]
    n = len(src_s) - len(dst_s) + 1
    if n < 2:
        return None
    for s in range(len(dst_s)):
        if src_s[:s] == dst_s[:s] and src_s[s + n:] == dst_s[s + 1:]:
            end = s + n - 1
            return s, (-1 if end == len(src_s) - 1 else end)
    return None


def permuted(g, x: Any, dims: Sequence[int]) -> Value:
    """A permute of a constant folds into a new constant (a 2-D transpose remembers
    its source, so x @ w.T can become ge.linear on w); of a computed tensor it is
    a ge.transpose."""
    w = g.raw(x)
    rank = w.tensor.dim() if isinstance(w, Weight) else len(ge.shape_of(g.value(x)))
    dims = [d % rank for d in dims] if rank else []
    if dims == list(range(rank)):
        return w
    if not isinstance(w, Weight):
        return g.emit(ge.TransposeOp(g.value(x), dims))
    is_t = rank == 2
    return Weight(w.tensor.permute(dims).contiguous(), f"{w.name}_t" if is_t else g.node.name,
                  transpose_of=w if is_t else None)


def rank_of(g, x: Any) -> int:
    return len(meta(x).shape)


def permute(g, a) -> Value:
    return permuted(g, a["self"], a["dims"])


def t(g, a) -> Value:
    return permuted(g, a["self"], list(reversed(range(rank_of(g, a["self"])))))


def transpose(g, a) -> Value:
    dims = list(range(rank_of(g, a["self"])))
    d0, d1 = a["dim0"] % len(dims), a["dim1"] % len(dims)
    dims[d0], dims[d1] = dims[d1], dims[d0]
    return permuted(g, a["self"], dims)


def expand(g, a) -> Value:
    x = g.value(a["self"])
    dst = list(out_meta(g).shape)
    src = [None] * (len(dst) - len(meta(a["self"]).shape)) + list(meta(a["self"]).shape)
    shape = static_shape(dst)
    if [str(d) for d in src] == [str(d) for d in dst]:
        return x
    # A `?` the input already has keeps its size; a new or stretched one needs its value.
    kept = all(str(s) == str(d) for s, d in zip(src, dst) if not isinstance(d, int))
    sizes = [] if kept else [g.size_value(d) for d in dst if not isinstance(d, int)]
    return g.emit(ge.ExpandOp(x, shape, sizes))


def _bound(v: Any, default: int) -> int:
    if v is None:
        return default
    if not isinstance(v, int):
        raise Unsupported("slice with a symbolic bound")
    return v


def slice_(g, a) -> Value:
    x = g.value(a["self"])
    start, step, dim = _bound(g.size(a["start"]), 0), a["step"], a["dim"]
    end = g.size(a["end"])
    if end is not None and not isinstance(end, int):  # x[:T] with T symbolic
        return g.emit(ge.SliceOp(x, dim, start, INT64_MAX, step, g.size_value(end)))
    end = _bound(end, INT64_MAX)
    size = ge.shape_of(x)[dim]
    if start == 0 and step == 1 and (end == INT64_MAX or (size >= 0 and end >= size)):
        return x  # a full slice, as export writes for `x[:, i]`
    return g.emit(ge.SliceOp(x, dim, start, end, step))


def select(g, a) -> Value:
    """x.select(dim, i) = x[..., i:i+1, ...] without that dim."""
    x = g.value(a["self"])
    index, dim = _bound(a["index"], 0), a["dim"]
    piece = g.emit(ge.SliceOp(x, dim, index, index + 1 if index != -1 else INT64_MAX, 1),
                   "slice")
    src = list(meta(a["self"]).shape)
    src[dim] = 1
    return reshape_to(g, piece, src, out_meta(g).shape)


def split_with_sizes(g, a) -> Value:
    x = g.value(a["self"])
    dim, start, pieces = a["dim"], 0, []
    for i, size in enumerate(a["split_sizes"]):
        if not isinstance(size, int):
            raise Unsupported("split with symbolic sizes")
        pieces.append(g.emit(ge.SliceOp(x, dim, start, start + size, 1), str(i)))
        start += size
    return tuple(pieces)


def split(g, a) -> Value:
    """split(x, n, dim): the pieces' sizes come from PyTorch's own result."""
    sizes = [t.shape[a["dim"]] for t in meta(g.node)]
    return split_with_sizes(g, {"self": a["self"], "split_sizes": sizes, "dim": a["dim"]})


def chunk(g, a) -> Value:
    return split(g, {"self": a["self"], "dim": a["dim"]})


def cat(g, a) -> Value:
    inputs = [g.typed(x) for x in a["tensors"]]
    return g.emit(ge.ConcatOp(inputs, a["dim"]))
