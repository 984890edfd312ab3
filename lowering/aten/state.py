"""In-place updates of graph inputs and buffers: a preallocated KV cache.

HF's static cache writes each step's keys and values into fixed buffers:
`k_out.index_copy_(2, cache_position, k)`, `k_out[:, :, cache_position] = k`
(index_put_) or `k_out[:, :, a:b].copy_(k)`. These import as GE's in-place
ops on the graph argument that holds the cache: `ge.scatter_update` (GE's
ScatterUpdate, TorchAir's `scatter_update_`) and `ge.assign` (GE's Assign).
The caller's tensor, or the module's buffer, which the importer turns into a
graph argument, is written in place at run time: no copy of the cache per call.

After an update, later readers of the tensor read the op's result, so the
graph orders them after it. A reader that comes before the update in the
model would need the old contents while the update may already have run;
that is refused.
"""

from __future__ import annotations

from typing import Any

import torch
from torch.fx import Node

from ge_dialect import ge
from lowering.aten.common import (
    NotImported,
    Unsupported,
    Value,
    Weight,
    element_type,
    is_static,
    meta,
)

aten = torch.ops.aten

# Ops that write their first argument in place, and the views through which a
# write still lands in the underlying tensor.
UPDATES = {aten.index_copy_.default, aten.index_put_.default, aten.copy_.default}
_VIEWS = {aten.slice.Tensor}


def root(node: Any) -> Any:
    """The tensor a (chain of) slice view(s) is a view of."""
    while isinstance(node, Node) and node.target in _VIEWS:
        node = node.args[0]
    return node


def updated_placeholders(graph) -> list[Node]:
    """Placeholders some op writes in place, in graph order."""
    found = {}
    for node in graph.nodes:
        if node.op == "call_function" and node.target in UPDATES:
            r = root(node.args[0])
            if isinstance(r, Node) and r.op == "placeholder":
                found[r] = None
    return list(found)


def _ref(g, target: Node):
    """The graph value of the updated tensor, checked: a graph argument that
    nothing read before this update."""
    r = root(target)
    value = g.raw(r)
    if not (isinstance(r, Node) and r.op == "placeholder" and g.is_argument(value)):
        raise Unsupported("an in-place update of a tensor that is not a graph input or "
                          "buffer; write it functionally (index_copy, torch.where)")
    node = g.node
    for user in r.users:
        if user is node or user.target in _VIEWS or not _before(user, node):
            continue
        raise Unsupported(f"an in-place update of '{r.name}', which node '{user.name}' "
                          "reads earlier; GE cannot keep the old contents for it (read it "
                          "after the update, or clone it first)")
    return r, g.value(r)


def _before(a: Node, b: Node) -> bool:
    node = a.next
    while node.op != "root":
        if node is b:
            return True
        node = node.next
    return False


def _broadcast(g, value, node: Any, shape) -> Any:
    """`value` broadcast to `shape`, the shape the update writes."""
    if [str(d) for d in meta(node).shape] == [str(d) for d in shape]:
        return value
    if not is_static(shape):
        raise Unsupported("an in-place update of a symbolic shape from a tensor that "
                          "broadcasts")
    return g.emit(ge.ExpandOp(value, list(shape)), "expand")


def _done(g, r: Node, updated) -> Value:
    g.env[r] = updated  # later readers read the updated tensor, after the update
    return updated


def index_copy_(g, a) -> Value:
    """ref.index_copy_(dim, index, source) -> ge.scatter_update."""
    r, ref = _ref(g, a["self"])
    if a["self"] is not r:
        raise Unsupported("index_copy_ into a view of a graph input")
    updates = g.typed(a["source"], meta(r).dtype)
    op = ge.ScatterUpdateOp(ref, g.typed(a["index"], torch.int64), updates, a["dim"])
    return _done(g, r, g.emit(op))


def index_put_(g, a) -> Value:
    """ref[:, :, idx] = values (one index tensor, no accumulation) -> ge.scatter_update."""
    r, ref = _ref(g, a["self"])
    indices = list(a["indices"])
    given = [i for i, x in enumerate(indices) if x is not None]
    if a["self"] is not r or a.get("accumulate") or len(given) != 1:
        raise Unsupported("index_put_ into a graph input with other than one index tensor "
                          "(or with accumulate=True)")
    dim, index = given[0], indices[given[0]]
    if len(meta(index).shape) != 1:
        raise Unsupported("index_put_ into a graph input with a multi-dimensional index")
    shape = list(meta(r).shape)
    shape[dim] = meta(index).shape[0]
    values = _broadcast(g, g.typed(a["values"], meta(r).dtype), a["values"], shape)
    op = ge.ScatterUpdateOp(ref, g.typed(index, torch.int64), values, dim)
    return _done(g, r, g.emit(op))


def copy_(g, a) -> Value:
    """ref.copy_(src) -> ge.assign; ref[.., a:b].copy_(src) (a slice with step 1)
    -> ge.scatter_update at indices a..b-1."""
    r, ref = _ref(g, a["self"])
    target = a["self"]
    if target is r:
        src = _broadcast(g, g.typed(a["src"], meta(r).dtype), a["src"], meta(r).shape)
        return _done(g, r, g.emit(ge.AssignOp(ref, src)))
    if root(target.args[0]) is not target.args[0] or target.target is not aten.slice.Tensor:
        raise Unsupported("copy_ into a view of a view of a graph input")
    _, dim, start, end, step = (list(target.args) + [None, 0, None, None, 1])[:5]
    dim = dim % len(meta(r).shape)
    if step != 1 or [str(d) for d in meta(a["src"]).shape] != [str(d) for d in
                                                            meta(target).shape]:
        raise Unsupported("copy_ into a strided slice of a graph input, or from a tensor "
                          "that broadcasts")
    start = g.size(start) if start is not None else 0
    length = meta(target).shape[dim]
    if isinstance(start, int) and isinstance(length, int):
        index = g.value(Weight(torch.arange(start, start + length), f"{g.value_name()}_index"))
    else:
        positions = g.emit(ge.ArangeOp(g.size_value(length), element_type(torch.int64)),
                           "positions")
        index = g.emit(ge.AddOp(positions, g.size_value(start)), "index")
    src = g.typed(a["src"], meta(r).dtype)
    g.env[r] = g.emit(ge.ScatterUpdateOp(ref, index, src, dim))
    return NotImported("the result of copy_ into a slice of a graph input; read the "
                       "input instead")

