"""Which arena buffers the runtime lays out channels-last (NHWC physical strides).

The IR's memrefs stay NCHW-logical; only the host view's strides change, so a
4-D activation is read by oneDNN convs without a reorder and a 1x1 conv is a
plain GEMM over its [N*H*W, C] rows (runtime/host/runners.py). Torch ops
compute on logical indices, so any layout gives the same numbers, with one
exception: two buffers that share bytes *while both live*, which the memory
plan allows only for an elementwise task writing in place over an input
(passes/memory_reuse.py). Such a pair must map index to byte alike, so every
buffer of an in-place group gets NHWC only if all of them are 4-D of one shape.
Only buffers a conv or pooling task reads or writes are worth it (and the
elementwise quantize / dequantize tasks between int8 convs, `_through_qdq`): an
attention score tensor [B, heads, T, T] in NHWC would make its softmax over
the last dim a strided one (BERT ran 6% slower). Buffers touched by a user
kernel (ge.custom) keep NCHW: user code may assume it; so do the buffers a
pipeline stage sends or receives (they go over the wire as they are).
Graph inputs and outputs are the caller's tensors and stay in the caller's layout.
"""

from __future__ import annotations

from xdsl.ir import Operation

from ge_dialect import ascend, ge
from ge_dialect.traits import Elementwise


SPATIAL_OPS = (ge.Conv2dOp, ge.QuantizedConv2dOp, ge.MaxPool2dOp, ge.AvgPool2dOp, ge.AdaptiveAvgPool2dOp,
               ge.AdaptiveMaxPool2dOp)


def _contains(task: ascend.TaskOp, kinds) -> bool:
    return any(isinstance(op, kinds) for op in task.body.block.walk())


def channels_last_buffers(ops: list[Operation],
                          keep: frozenset | set = frozenset()) -> set[ascend.BufferOp]:
    """The `ascend.buffer` ops of a lowered function to view as NHWC; those in
    `keep` (and their in-place groups) stay NCHW."""
    parent: dict[ascend.BufferOp, ascend.BufferOp] = {}

    def find(b):  # with path halving: a chain of in-place tasks is one long group
        while parent.setdefault(b, b) is not b:
            parent[b] = parent[parent[b]]
            b = parent[b]
        return b

    excluded: set[ascend.BufferOp] = set(keep)
    spatial: set[ascend.BufferOp] = set()
    for op in ops:
        if not isinstance(op, ascend.TaskOp):
            continue
        bufs = lambda vs: [v.owner for v in vs if isinstance(v.owner, ascend.BufferOp)]
        ins, outs = bufs(op.ins), bufs(op.outs)
        if _contains(op, ge.CustomOp):
            excluded.update(ins + outs)
        if _contains(op, SPATIAL_OPS):
            spatial.update(ins + outs)
        for o in outs:
            for i in ins:
                if (i.offset.value.data == o.offset.value.data
                        and ascend.nbytes(i.output.type) == ascend.nbytes(o.output.type)):
                    parent[find(i)] = find(o)  # an in-place pair: one layout for both
    _through_qdq(ops, spatial)
    groups: dict[ascend.BufferOp, list[ascend.BufferOp]] = {}
    for op in ops:
        if isinstance(op, ascend.BufferOp):
            groups.setdefault(find(op), []).append(op)
    chosen: set[ascend.BufferOp] = set()
    for members in groups.values():
        shape_set = {tuple(b.output.type.get_shape()) for b in members}
        (shape, *rest) = shape_set
        if (not rest and len(shape) == 4 and shape[1] > 1 and shape[2] * shape[3] > 1
                and not excluded.intersection(members) and spatial.intersection(members)):
            chosen.update(members)
    return chosen


QDQ_OPS = (ge.QuantizeOp, ge.DequantizeOp)


def _elementwise(task: ascend.TaskOp) -> bool:
    return all(isinstance(op, QDQ_OPS) or op.has_trait(Elementwise)
               for op in task.body.block.ops if not isinstance(op, ge.YieldOp))


def _through_qdq(ops: list[Operation], spatial: set[ascend.BufferOp]) -> None:
    """Add to `spatial` the buffers of the elementwise tasks between int8 convs
    of an imported QDQ model: a dequantize of a conv's NHWC result, the float
    add of two of them (a residual), the quantize for the next conv. In one
    layout each is a flat loop over bytes (runtime/host/quantize_rows.py);
    across layouts, a strided copy. A task qualifies if it quantizes or
    dequantizes, or all of its inputs come from one that does; its buffers
    join when one of them is NHWC already."""
    tasks = [op for op in ops if isinstance(op, ascend.TaskOp) and _elementwise(op)]
    bufs = lambda vs: [v.owner for v in vs if isinstance(v.owner, ascend.BufferOp)]
    qdq_outputs = {b for t in tasks if _contains(t, QDQ_OPS) for b in bufs(t.outs)}
    chosen = [t for t in tasks if _contains(t, QDQ_OPS)
              or (bufs(t.ins) and all(b in qdq_outputs for b in bufs(t.ins)))]
    changed = True
    while changed:  # at most one pass per task in a chain
        changed = False
        for t in chosen:
            members = bufs(t.ins) + bufs(t.outs)
            if spatial.intersection(members) and not spatial.issuperset(members):
                spatial.update(members)
                changed = True
