"""Builders for views, permutations, broadcasts, slices, concatenation, pads,
gathers and scatters."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from xdsl.dialects.builtin import DYNAMIC_INDEX

from ge_dialect import ge
from lowering.aten.common import (
    INT64_MAX,
    VIEW_OPS,
    Builder,
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
    if not isinstance(g.size(a["start"]) if a["start"] is not None else 0, int):
        # x[s:] or x[s:e] with s symbolic (OPT: position_ids[:, past_seen_tokens:])
        end = g.size(a["end"]) if a["end"] is not None else INT64_MAX
        return g.emit(ge.DynamicSliceOp(x, a["dim"], g.size_value(g.size(a["start"])),
                                        g.size_value(end), a["step"]))
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
    """torch.cat skips legacy empty 1-D tensors (shape [0]) among inputs of higher
    rank: HF's KV cache starts as torch.tensor([])."""
    tensors = [x for x in a["tensors"] if not _legacy_empty(x)] or a["tensors"][:1]
    inputs = [g.typed(x) for x in tensors]
    if len(inputs) == 1:
        return inputs[0]
    return g.emit(ge.ConcatOp(inputs, a["dim"]))


def _legacy_empty(x) -> bool:
    shape = tuple(meta(x).shape) if meta(x) is not None else ()
    return shape == (0,)


def _indices(g, indices) -> tuple[list, list[int]]:
    """aten.index's optional index tensors as values and the dims they index."""
    values, dims = [], []
    for dim, index in enumerate(indices):
        if index is None:
            continue
        if meta(index) is not None and meta(index).dtype == torch.bool:
            raise Unsupported("indexing with a boolean mask (its result size depends on the "
                              "data); use torch.where")
        values.append(g.value(index))
        dims.append(dim)
    if not dims:
        raise Unsupported("indexing with no index tensor")
    return values, dims


def index(g, a) -> Value:
    """x[i, :, j] (aten.index.Tensor): ge.index, or ge.gather for one index on one dim."""
    x = g.typed(a["self"])
    values, dims = _indices(g, a["indices"])
    return g.emit(ge.IndexOp(x, values, dims))


def index_put(g, a) -> Value:
    x = g.typed(a["self"])
    values, dims = _indices(g, a["indices"])
    return g.emit(ge.IndexPutOp(x, g.typed(a["values"]), values, dims, bool(a["accumulate"])))


def index_select(g, a) -> Value:
    x = g.typed(a["self"])
    if not ge.shape_of(x):  # a 0-d input: its one element, picked by a one-element index
        x = g.emit(ge.ReshapeOp(x, (1,)), "flat")
        picked = g.emit(ge.GatherOp(x, g.value(a["index"]), 0), "picked")
        return g.emit(ge.ReshapeOp(picked, ()))
    return g.emit(ge.GatherOp(x, g.value(a["index"]), a["dim"]))


def gather(g, a) -> Value:
    return g.emit(ge.GatherElementsOp(g.typed(a["self"]), g.value(a["index"]), a["dim"]))


def scatter(reduce: str | None = None) -> Builder:
    """scatter.src / scatter.value / scatter_add / scatter_reduce.two -> ge.scatter_elements."""
    def build(g, a) -> Value:
        x, index = g.typed(a["self"]), g.value(a["index"])
        if "src" in a:
            src = g.typed(a["src"])
        else:  # scatter.value: the scalar, broadcast to the index's shape
            src = g.emit(ge.ExpandOp(g.scalar(a["value"], x), ge.shape_of(index)), "src")
        how = reduce or a.get("reduce") or "none"
        if how in ("add", "multiply"):  # scatter's spelling of scatter_reduce's sum / prod
            how = {"add": "sum", "multiply": "prod"}[how]
        return g.emit(ge.ScatterElementsOp(x, index, src, a["dim"], how,
                                           bool(a.get("include_self", True))))
    return build


def pad(mode: str | None = None) -> Builder:
    """constant_pad_nd, pad, reflection_pad<N>d and replication_pad<N>d -> ge.pad.

    torch lists (before, after) pairs from the last dim backwards."""
    def build(g, a) -> Value:
        x = g.typed(a["self"] if "self" in a else a["input"])
        pads = list(a["pad"] if "pad" in a else a["padding"])
        how = mode or a.get("mode") or "constant"
        rank = len(ge.shape_of(x))
        if len(pads) % 2 or len(pads) // 2 > rank:
            raise Unsupported(f"{len(pads)} pad sizes for a rank-{rank} input")
        low, high = [0] * rank, [0] * rank
        for i in range(len(pads) // 2):
            low[rank - 1 - i], high[rank - 1 - i] = pads[2 * i], pads[2 * i + 1]
        if how in ("reflect", "circular"):  # a negative pad crops, then the rest pads
            x = _crop(g, x, low, high)
            low, high = [max(p, 0) for p in low], [max(p, 0) for p in high]
        value = a.get("value")
        return g.emit(ge.PadOp(x, low, high, how, float(value or 0.0)))
    return build


def _crop(g, x, low: list[int], high: list[int]) -> Value:
    """x without the elements that negative pads remove."""
    for dim, (lo, hi) in enumerate(zip(low, high)):
        if lo < 0 or hi < 0:
            size = ge.shape_of(x)[dim]
            if size == DYNAMIC_INDEX:
                raise Unsupported("a negative pad on a dynamic dim")
            x = g.emit(ge.SliceOp(x, dim, max(-lo, 0), size - max(-hi, 0)), "crop")
    return x


def flip(g, a) -> Value:
    return g.emit(ge.ReverseOp(g.typed(a["self"]), list(a["dims"])))


def repeat(g, a) -> Value:
    return g.emit(ge.TileOp(g.typed(a["self"]), list(a["repeats"])))


def narrow(g, a) -> Value:
    """narrow_copy(x, dim, start, length) = x[..., start:start + length, ...]."""
    x = g.value(a["self"])
    start, length = g.size(a["start"]), g.size(a["length"])
    if not (isinstance(start, int) and isinstance(length, int)):
        return g.emit(ge.DynamicSliceOp(x, a["dim"], g.size_value(start),
                                        g.size_value(start + length)))
    start = start % ge.shape_of(x)[a["dim"]] if start < 0 else start
    return g.emit(ge.SliceOp(x, a["dim"], start, start + length))


def unbind(g, a) -> Value:
    """unbind / unbind_copy: every index along dim, that dim dropped."""
    x = g.value(a["self"])
    dim = a.get("dim", 0) % len(ge.shape_of(x))
    size = ge.shape_of(x)[dim]
    if size < 0:
        raise Unsupported("unbind along a dynamic dim")
    rest = [d for i, d in enumerate(ge.shape_of(x)) if i != dim]
    return tuple(g.emit(ge.ReshapeOp(g.emit(ge.SliceOp(x, dim, i, i + 1), f"part{i}"), rest),
                        f"item{i}") for i in range(size))


def _index_constant(g, values, name: str) -> Value:
    return g.value(Weight(torch.as_tensor(values, dtype=torch.int64), f"{g.value_name()}_{name}"))


def slice_scatter(g, a) -> Value:
    """x with x[..., start:end:step, ...] = src: an index_put with those indices."""
    x = g.typed(a["self"])
    dim = a["dim"] % len(ge.shape_of(x))
    size = ge.shape_of(x)[dim]
    if size < 0:
        raise Unsupported("slice_scatter along a dynamic dim")
    positions = range(*slice(a.get("start"), a.get("end"), a.get("step") or 1).indices(size))
    index = _index_constant(g, list(positions), "positions")
    return g.emit(ge.IndexPutOp(x, g.typed(a["src"]), [index], [dim], False))


def index_reduce(g, a) -> Value:
    """index_reduce(x, dim, index, source, reduce): source's slice i reduced into
    x's slice index[i], a scatter_elements with the index spread over source."""
    x, source = g.typed(a["self"]), g.typed(a["source"])
    dim = a["dim"] % max(len(ge.shape_of(x)), 1)
    shape = list(ge.shape_of(source))
    if any(d < 0 for d in shape):
        raise Unsupported("index_reduce of a dynamic shape")
    spread = [1] * len(shape)
    if shape:
        spread[dim] = shape[dim]
    index = g.emit(ge.ReshapeOp(g.value(a["index"]), spread), "index")
    index = g.emit(ge.ExpandOp(index, shape), "index_spread")
    return g.emit(ge.ScatterElementsOp(x, index, source, dim, a["reduce"],
                                       bool(a.get("include_self", True))))


def _gather_flat(g, x, positions: torch.Tensor) -> Value:
    """x's elements at these row-major positions, in the positions' shape."""
    n = 1
    for d in ge.shape_of(x):
        n *= d
    flat = g.emit(ge.ReshapeOp(x, (n,)), "flat")
    return g.emit(ge.GatherOp(flat, _index_constant(g, positions, "positions"), 0))


def _strided_positions(size: Sequence[int], stride: Sequence[int], offset: int) -> torch.Tensor:
    """The storage position of every element of a strided view, in its shape."""
    positions = torch.full(tuple(size), offset, dtype=torch.int64)
    for dim, (n, step) in enumerate(zip(size, stride)):
        shape = [1] * len(size)
        shape[dim] = n
        positions = positions + (torch.arange(n) * step).reshape(shape)
    return positions


def _view_name(node: Any) -> str:
    return getattr(node.target, "__name__", str(node.target)).partition(".")[0]


def _storage_input(g, node: Any) -> int | None:
    """The graph input whose storage `node` views (through view ops), if any."""
    while getattr(node, "op", None) == "call_function" and _view_name(node) in VIEW_OPS:
        node = node.args[0]
    return next((i for i, n in enumerate(g.user_inputs) if n is node), None)


def as_strided(g, a) -> Value:
    """as_strided reads the storage beneath its input, as eager does: the
    elements it addresses are looked up among the input's own elements through
    the input's layout as traced (storage offset and strides), then gathered.
    An element outside the input's view is refused: eager reads the base tensor
    there, and the graph has only the view. When that storage is a graph
    input's, its layout is recorded (ge_dialect.STORAGE_LAYOUTS) and a call with
    another layout is refused, since eager would then read other elements."""
    x = g.typed(a["self"])
    example = meta(a["self"])
    if not (is_static_shape(ge.shape_of(x)) and all(isinstance(d, int) for d in example.stride())
            and isinstance(example.storage_offset(), int)):
        raise Unsupported("as_strided of a tensor whose shape or layout is not static")
    offset = a.get("storage_offset")
    offset = example.storage_offset() if offset is None else offset
    wanted = _strided_positions(a["size"], a["stride"], offset)
    have = _strided_positions(example.shape, example.stride(), example.storage_offset()).flatten()
    index = torch.zeros(wanted.shape, dtype=torch.int64)
    if wanted.numel():
        if not have.numel():
            raise Unsupported("as_strided of an empty tensor reads no element it has")
        sorted_have, order = have.sort()
        at = torch.searchsorted(sorted_have, wanted.flatten()).clamp(max=have.numel() - 1)
        outside = sorted_have[at] != wanted.flatten()
        if outside.any():
            where = int(wanted.flatten()[outside][0])
            raise Unsupported(
                f"as_strided reads storage element {where}, outside its input's view "
                f"(size {list(example.shape)}, strides {list(example.stride())}, storage offset "
                f"{example.storage_offset()}): eager reads the tensor beneath the view there, "
                "and the graph receives only the view's elements. Pass the base tensor as "
                "the input, or x.contiguous() if only the view's elements were meant")
        index = order[at].reshape(wanted.shape)
    root = _storage_input(g, a["self"])
    if root is not None:   # without a storage_offset, only the strides place what it reads
        base = meta(g.user_inputs[root])
        absolute = a.get("storage_offset") is not None or root in g.storage_layouts and (
            g.storage_layouts[root][0] is not None)
        g.storage_layouts[root] = (base.storage_offset() if absolute else None,
                                   tuple(base.stride()))
    return _gather_flat(g, x, index)


def unfold(g, a) -> Value:
    """x.unfold(dim, size, step): windows along dim, their elements as a new last dim."""
    x = g.typed(a["self"])
    shape = ge.shape_of(x)
    if not shape:
        return g.emit(ge.ReshapeOp(x, (1,)))
    dim = a["dimension"] % len(shape)
    if shape[dim] < 0:
        raise Unsupported("unfold along a dynamic dim")
    starts = torch.arange(0, shape[dim] - a["size"] + 1, a["step"])
    windows = _index_constant(g, starts[:, None] + torch.arange(a["size"]), "windows")
    picked = g.emit(ge.GatherOp(x, windows, dim), "windows")  # [..., n, size, ...]
    order = [i for i in range(len(shape) + 1) if i != dim + 1] + [dim + 1]
    return g.emit(ge.TransposeOp(picked, order))


def _diagonal_indices(g, x, offset: int, dim1: int, dim2: int):
    """Index tensors and dims for ge.index picking diagonal `offset` of (dim1, dim2)."""
    shape = ge.shape_of(x)
    rank = len(shape)
    dim1, dim2 = dim1 % rank, dim2 % rank
    if shape[dim1] < 0 or shape[dim2] < 0:
        raise Unsupported("a diagonal of dynamic dims")
    n = max(0, min(shape[dim1] + min(offset, 0), shape[dim2] - max(offset, 0)))
    rows, cols = torch.arange(n) - min(offset, 0), torch.arange(n) + max(offset, 0)
    pairs = sorted([(dim1, rows), (dim2, cols)], key=lambda p: p[0])
    indices = [_index_constant(g, idx, f"diag{d}") for d, idx in pairs]
    dims = [d for d, _ in pairs]
    # where ge.index puts the diagonal: in place of adjacent dims, else first
    at = dims[0] if dims[1] == dims[0] + 1 else 0
    return indices, dims, at


def diagonal(g, a) -> Value:
    """x.diagonal(offset, dim1, dim2): the diagonal as the last dim."""
    x = g.typed(a["self"])
    indices, dims, at = _diagonal_indices(g, x, a["offset"], a["dim1"], a["dim2"])
    picked = g.emit(ge.IndexOp(x, indices, dims), "diagonal")
    rank = len(ge.shape_of(picked))
    order = [i for i in range(rank) if i != at] + [at]
    return g.emit(ge.TransposeOp(picked, order)) if order != list(range(rank)) else picked


def diagonal_scatter(g, a) -> Value:
    """x with its diagonal (offset, dim1, dim2) replaced by src (the diagonal last)."""
    x, src = g.typed(a["self"]), g.typed(a["src"])
    indices, dims, at = _diagonal_indices(g, x, a["offset"], a["dim1"], a["dim2"])
    rank = len(ge.shape_of(src))
    order = list(range(rank - 1))
    order.insert(at, rank - 1)
    if order != list(range(rank)):
        src = g.emit(ge.TransposeOp(src, order), "src")
    return g.emit(ge.IndexPutOp(x, src, indices, dims, False))


def is_static_shape(shape) -> bool:
    return all(d >= 0 for d in shape)
