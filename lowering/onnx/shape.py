"""ONNX builders for shapes, data movement, gathers, scatters, pads and sorting."""

from __future__ import annotations

import numpy as np

from ge_dialect import ge
from lowering.onnx.common import OnnxUnsupported, axes_of, ints


def _static(x, what: str) -> tuple[int, ...]:
    shape = ge.shape_of(x)
    if any(d < 0 for d in shape):
        raise OnnxUnsupported(f"{what} of a dynamic shape")
    return shape


def reshape(g, n) -> list:
    x = g.input(n, 0)
    target = ints(g, n, 1, "the target shape")
    shape = _static(x, "Reshape")
    if not g.attr(n, "allowzero", 0):
        target = [shape[i] if d == 0 else d for i, d in enumerate(target)]
    if -1 in target:
        known = int(np.prod([d for d in target if d != -1]))
        target[target.index(-1)] = int(np.prod(shape)) // max(known, 1)
    return [g.emit(ge.ReshapeOp(x, target))]


def flatten(g, n) -> list:
    x = g.input(n, 0)
    shape = _static(x, "Flatten")
    axis = int(g.attr(n, "axis", 1))
    axis = axis + len(shape) if axis < 0 else axis
    return [g.emit(ge.ReshapeOp(x, (int(np.prod(shape[:axis])), int(np.prod(shape[axis:])))))]


def transpose(g, n) -> list:
    x = g.input(n, 0)
    rank = len(ge.shape_of(x))
    perm = list(g.attr(n, "perm", list(reversed(range(rank)))))
    return [g.emit(ge.TransposeOp(x, perm))]


def squeeze(g, n) -> list:
    x = g.input(n, 0)
    shape = ge.shape_of(x)
    axes = axes_of(g, n)
    axes = [a % len(shape) for a in axes] if axes is not None else [
        i for i, d in enumerate(shape) if d == 1]
    return [g.emit(ge.ReshapeOp(x, [d for i, d in enumerate(shape) if i not in axes]))]


def unsqueeze(g, n) -> list:
    x = g.input(n, 0)
    shape = list(ge.shape_of(x))
    axes = axes_of(g, n)
    rank = len(shape) + len(axes)
    for a in sorted(a % rank for a in axes):
        shape.insert(a, 1)
    return [g.emit(ge.ReshapeOp(x, shape))]


def concat(g, n) -> list:
    values = [g.input(n, i) for i in range(len(n.input)) if n.input[i]]
    values = [v for v in values if 0 not in ge.shape_of(v) or len(values) == 1]
    if len(values) == 1:
        return values
    return [g.emit(ge.ConcatOp(values, int(g.attr(n, "axis"))))]


def split(g, n) -> list:
    x = g.input(n, 0)
    axis = int(g.attr(n, "axis", 0)) % len(ge.shape_of(x))
    size = _static(x, "Split")[axis]
    if g.has_input(n, 1):
        sizes = ints(g, n, 1, "split sizes")
    elif g.attr(n, "split") is not None:
        sizes = list(g.attr(n, "split"))
    else:
        parts = int(g.attr(n, "num_outputs", len(n.output)))
        chunk = -(-size // parts)
        sizes = [min(chunk, size - i * chunk) for i in range(parts)]
    outs, start = [], 0
    for length in sizes:
        outs.append(g.emit(ge.SliceOp(x, axis, start, start + length)))
        start += length
    return outs


def slice_(g, n) -> list:
    x = g.input(n, 0)
    starts, ends = ints(g, n, 1, "starts"), ints(g, n, 2, "ends")
    rank = len(ge.shape_of(x))
    axes = ints(g, n, 3, "axes") if g.has_input(n, 3) else list(range(len(starts)))
    steps = ints(g, n, 4, "steps") if g.has_input(n, 4) else [1] * len(starts)
    for start, end, axis, step in zip(starts, ends, axes, steps):
        axis %= rank
        size = ge.shape_of(x)[axis]
        if step < 0:
            if size < 0:
                raise OnnxUnsupported("a negative-step Slice of a dynamic dim")
            picked = list(range(*slice(start, end, step).indices(size)))
            index = g.const(np.array(picked, dtype=np.int64))
            x = g.emit(ge.IndexOp(x, [index], [axis]))
            continue
        if size >= 0:
            start, end, _ = slice(start, end, step).indices(size)
            end = max(end, start)
        x = g.emit(ge.SliceOp(x, axis, max(start, 0), min(end, 2**63 - 1), step))
    return [x]


def expand(g, n) -> list:
    x = g.input(n, 0)
    target = ints(g, n, 1, "the target shape")
    shape = list(ge.shape_of(x))
    rank = max(len(shape), len(target))
    shape = [1] * (rank - len(shape)) + shape
    target = [1] * (rank - len(target)) + target
    out = [s if t == 1 else t for s, t in zip(shape, target)]
    if len(ge.shape_of(x)) < rank:
        x = g.emit(ge.ReshapeOp(x, shape))
    return [g.emit(ge.ExpandOp(x, out))]


def tile(g, n) -> list:
    return [g.emit(ge.TileOp(g.input(n, 0), ints(g, n, 1, "repeats")))]


def shape(g, n) -> list:
    x = g.input(n, 0)
    dims = np.array(_static(x, "Shape"), dtype=np.int64)
    start, end = g.attr(n, "start", 0), g.attr(n, "end", None)
    return [dims[start:end]]


def size(g, n) -> list:
    return [np.array(int(np.prod(_static(g.input(n, 0), "Size"))), dtype=np.int64)]


def constant_of_shape(g, n) -> list:
    from onnx import numpy_helper
    target = ints(g, n, 0, "the shape")
    value = g.attr(n, "value")
    fill = numpy_helper.to_array(value) if value is not None else np.zeros(1, np.float32)
    return [np.full(target, fill.reshape(-1)[0], dtype=fill.dtype)]


def range_(g, n) -> list:
    """Range(start, limit, delta): its length depends on the values, so GE needs
    them at compile time; element i is start + i * delta, as ONNX defines it."""
    bounds = [g.constant(n, i) for i in range(3)]
    if any(b is None for b in bounds):
        raise OnnxUnsupported("Range of run-time bounds; GE needs them constant")
    start, limit, delta = (np.asarray(b).reshape(()) for b in bounds)
    if delta == 0:
        raise OnnxUnsupported("Range with delta 0")
    if np.issubdtype(start.dtype, np.integer):
        count = -(-(int(limit) - int(start)) // int(delta))
    else:
        count = int(np.ceil((float(limit) - float(start)) / float(delta)))
    steps = np.arange(max(count, 0)).astype(start.dtype)
    return [(start + steps * delta).astype(start.dtype)]


def _normalized(g, index, size: int):
    """Negative indices count from the end, as ONNX allows and torch.gather does not."""
    if size < 0:
        raise OnnxUnsupported("negative indices along a dynamic dim")
    negative = g.emit(ge.CompareOp(index, g.scalar(0, index), "lt"))
    return g.emit(ge.WhereOp(negative, g.emit(ge.AddOp(index, g.scalar(size, index))), index))


def gather(g, n) -> list:
    x = g.input(n, 0)
    axis = int(g.attr(n, "axis", 0)) % len(ge.shape_of(x))
    return [g.emit(ge.IndexOp(x, [g.input(n, 1)], [axis]))]  # negative indices allowed


def gather_elements(g, n) -> list:
    x = g.input(n, 0)
    axis = int(g.attr(n, "axis", 0)) % len(ge.shape_of(x))
    index = _normalized(g, g.input(n, 1), ge.shape_of(x)[axis])
    return [g.emit(ge.GatherElementsOp(x, index, axis))]


REDUCTIONS = {"none": "none", "add": "sum", "mul": "prod", "max": "amax", "min": "amin"}


def scatter_elements(g, n) -> list:
    x = g.input(n, 0)
    axis = int(g.attr(n, "axis", 0)) % len(ge.shape_of(x))
    index = _normalized(g, g.input(n, 1), ge.shape_of(x)[axis])
    reduce = REDUCTIONS[g.attr(n, "reduction", "none")]
    return [g.emit(ge.ScatterElementsOp(x, index, g.input(n, 2), axis, reduce))]


def _nd_indices(g, index, x):
    """ScatterND / GatherND indices [..., k] as k index tensors for dims 0..k-1."""
    k = ge.shape_of(index)[-1]
    if k < 0:
        raise OnnxUnsupported("an index depth that is dynamic")
    rest = list(ge.shape_of(index)[:-1])
    parts = []
    for j in range(k):
        part = g.emit(ge.SliceOp(index, -1, j, j + 1))
        parts.append(_normalized(g, g.emit(ge.ReshapeOp(part, rest)), ge.shape_of(x)[j]))
    return parts, list(range(k))


def scatter_nd(g, n) -> list:
    """ScatterND: an index_put (accumulating for add); mul / max / min as a
    scatter_elements over x seen as [rows addressed by the index, the rest]."""
    reduction = g.attr(n, "reduction", "none")
    x = g.input(n, 0)
    indices, dims = _nd_indices(g, g.input(n, 1), x)
    if reduction in ("none", "add"):
        return [g.emit(ge.IndexPutOp(x, g.input(n, 2), indices, dims, reduction == "add"))]
    if reduction not in REDUCTIONS:
        raise OnnxUnsupported(f"ScatterND with reduction '{reduction}'")
    shape = _static(x, "ScatterND")
    k = len(indices)
    rows, row = int(np.prod(shape[:k])), int(np.prod(shape[k:]))
    linear = None
    for j, part in enumerate(indices):  # row = sum_j index_j * prod(shape[j + 1:k])
        stride = int(np.prod(shape[j + 1:k]))
        term = part if stride == 1 else g.emit(ge.MulOp(part, g.scalar(stride, part)))
        linear = term if linear is None else g.emit(ge.AddOp(linear, term))
    count = int(np.prod(ge.shape_of(linear)))
    linear = g.emit(ge.ExpandOp(g.emit(ge.ReshapeOp(linear, [count, 1])), [count, row]))
    if ge.element_type(linear.type) != ge.i64:
        linear = g.emit(ge.CastOp(linear, ge.i64))
    updates = g.emit(ge.ReshapeOp(g.input(n, 2), [count, row]))
    flat = g.emit(ge.ReshapeOp(x, [rows, row]))
    y = g.emit(ge.ScatterElementsOp(flat, linear, updates, 0, REDUCTIONS[reduction]))
    return [g.emit(ge.ReshapeOp(y, shape))]


def gather_nd(g, n) -> list:
    if g.attr(n, "batch_dims", 0):
        raise OnnxUnsupported("GatherND with batch_dims")
    x = g.input(n, 0)
    indices, dims = _nd_indices(g, g.input(n, 1), x)
    return [g.emit(ge.IndexOp(x, indices, dims))]


def pad(g, n) -> list:
    x = g.input(n, 0)
    rank = len(ge.shape_of(x))
    pads = ints(g, n, 1, "pads")
    axes = ints(g, n, 3, "axes") if g.has_input(n, 3) else list(range(rank))
    value = g.constant(n, 2)
    value = 0.0 if value is None or not value.size else float(value.reshape(-1)[0])
    if g.has_input(n, 2) and g.constant(n, 2) is None:
        raise OnnxUnsupported("a pad value computed at run time")
    low, high = [0] * rank, [0] * rank
    for i, axis in enumerate(axes):
        low[axis % rank], high[axis % rank] = pads[i], pads[i + len(axes)]
    mode = {"edge": "replicate", "wrap": "circular"}.get(g.attr(n, "mode", "constant"),
                                                         g.attr(n, "mode", "constant"))
    return [g.emit(ge.PadOp(x, low, high, mode, value))]


def topk(g, n) -> list:
    """TopK: ONNX orders equal elements by index, lowest first, which torch.topk
    does not promise; a stable sort does, so TopK is the head of one."""
    x = g.input(n, 0)
    (k,) = ints(g, n, 1, "K")
    axis = int(g.attr(n, "axis", -1)) % len(ge.shape_of(x))
    if ge.shape_of(x)[axis] < 0:
        raise OnnxUnsupported("TopK along a dynamic dim")
    order = ge.SortOp(x, axis, bool(g.attr(n, "largest", 1)), True)
    g.emit(order)
    return [g.emit(ge.SliceOp(order.values, axis, 0, k)),
            g.emit(ge.SliceOp(order.indices, axis, 0, k))]


def depth_to_space(g, n) -> list:
    x = g.input(n, 0)
    b, c, h, w = _static(x, "DepthToSpace")
    s = int(g.attr(n, "blocksize"))
    if g.attr(n, "mode", "DCR") == "DCR":
        y = g.emit(ge.ReshapeOp(x, (b, s, s, c // (s * s), h, w)))
        y = g.emit(ge.TransposeOp(y, [0, 3, 4, 1, 5, 2]))
    else:
        y = g.emit(ge.ReshapeOp(x, (b, c // (s * s), s, s, h, w)))
        y = g.emit(ge.TransposeOp(y, [0, 1, 4, 2, 5, 3]))
    return [g.emit(ge.ReshapeOp(y, (b, c // (s * s), h * s, w * s)))]


def space_to_depth(g, n) -> list:
    x = g.input(n, 0)
    b, c, h, w = _static(x, "SpaceToDepth")
    s = int(g.attr(n, "blocksize"))
    y = g.emit(ge.ReshapeOp(x, (b, c, h // s, s, w // s, s)))
    crd = g.attr(n, "mode", "DCR") == "CRD"
    y = g.emit(ge.TransposeOp(y, [0, 1, 3, 5, 2, 4] if crd else [0, 3, 5, 1, 2, 4]))
    return [g.emit(ge.ReshapeOp(y, (b, c * s * s, h // s, w // s)))]


def center_crop_pad(g, n) -> list:
    """Crop or zero-pad each of `axes` to the target size, centered (an odd
    difference leaves the extra element at the end)."""
    x = g.input(n, 0)
    target = ints(g, n, 1, "the target shape")
    rank = len(ge.shape_of(x))
    axes = [a % rank for a in g.attr(n, "axes", list(range(rank)))]
    low, high = [0] * rank, [0] * rank
    for axis, size in zip(axes, target):
        dim = _static(x, "CenterCropPad")[axis]
        if size < dim:
            start = (dim - size) // 2
            x = g.emit(ge.SliceOp(x, axis, start, start + size))
        elif size > dim:
            low[axis] = (size - dim) // 2
            high[axis] = size - dim - low[axis]
    if any(low) or any(high):
        x = g.emit(ge.PadOp(x, low, high, "constant", 0.0))
    return [x]
