"""In-place updates of graph inputs and buffers: a preallocated KV cache.

HF's static cache writes each step's keys and values into fixed buffers:
`k_out.index_copy_(2, cache_position, k)`, `k_out[:, :, cache_position] = k`
(index_put_) or `k_out[:, :, a:b].copy_(k)`. These import as GE's in-place
ops on the graph argument that holds the cache: `ge.scatter_update` (GE's
ScatterUpdate, TorchAir's `scatter_update_`) and `ge.assign` (GE's Assign).
The caller's tensor, or the module's buffer, which the importer turns into a
graph argument, is written in place at run time: no copy of the cache per call.

After an update, later readers of the tensor read the op's result, so the
graph orders them after it. When an op before the update reads the old
contents (HF's `cache_position = arange(n) + cumulative_length`, then
`cumulative_length.add_(n)`), the new contents are computed apart and
assigned to the argument after every other op (`ge.assign` last), as core
ATen's functional form does; `add_` and `mul_` on a graph input always take
this form. An update of an intermediate tensor (a cache the graph creates
with `zeros`) is the functional op (`ge.index_put`, `ge.add`).
"""

from __future__ import annotations

from typing import Any

import torch
from torch.fx import Node

from ge_dialect import ge
from lowering.aten import shape
from lowering.aten.common import (
    Builder,
    NotImported,
    Unsupported,
    Value,
    Weight,
    element_type,
    in_place,
    is_static,
    meta,
)

aten = torch.ops.aten

# Ops that write their first argument in place, and the views through which a
# write still lands in the underlying tensor.
UPDATES = {aten.index_copy_.default, aten.index_put_.default, aten.copy_.default,
           aten.add_.Tensor, aten.mul_.Tensor}
_VIEWS = {aten.slice.Tensor}
# Ops that return their input itself when nothing changes (`x.to(x.device)`).
_ALIASES = {aten.to.dtype, aten.to.dtype_layout, aten.to.device, aten.alias.default,
            aten.contiguous.default, aten.detach.default, aten.type_as.default}


def _alias_of_input(node: Node) -> bool:
    """`node` returns its first argument itself: an alias op that changes nothing."""
    if node.target not in _ALIASES or not isinstance(node.args[0], Node):
        return False
    before, after = meta(node.args[0]), meta(node)
    return (before.dtype == after.dtype and before.device == after.device
            and not node.kwargs.get("copy", False)
            and node.kwargs.get("memory_format") in (None, torch.preserve_format))


def root(node: Any) -> Any:
    """The tensor a chain of slice views and aliases is a view of."""
    while isinstance(node, Node) and (node.target in _VIEWS or _alias_of_input(node)):
        node = node.args[0]
    return node


def _is_input(g, r: Any) -> bool:
    return isinstance(r, Node) and r.op == "placeholder" and g.argument(r) is not None


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
    """(the updated input's node, its graph value) when the update may write the
    argument in place now; None when an earlier op reads its old contents or an
    earlier update was assigned last (the caller computes the new contents apart)."""
    r = root(target)
    if not _is_input(g, r):
        raise Unsupported("an in-place update of a weight, or of a view of an intermediate "
                          "tensor; write it functionally (index_copy, torch.where)")
    value = g.raw(r)
    if not g.is_argument(value) and value not in _results_of_updates(g):
        return None
    node = g.node
    for user in r.users:
        if user is node or user.target in _VIEWS or user.target in UPDATES or _alias_of_input(user):
            continue
        if _before(user, node):
            return None
    return r, g.value(r)


def _results_of_updates(g) -> set:
    return {op.results[0] for op in g.body if ge.in_place_operand(op) is not None}


def _assign_last(g, target: Node, new) -> Value:
    """The input under `target` gets `new` after every other op; ops after this
    one read `new`."""
    r = root(target)
    arg = g.argument(r)
    if ge.element_type(new.type) != ge.element_type(arg.type):
        new = g.emit(ge.CastOp(new, ge.element_type(arg.type)), "cast")
    g.assign_last[arg] = new
    g.env[r] = new
    return new


def updating(functional: Builder) -> Builder:
    """`x.op_(y)` (add_, mul_): on an intermediate x the functional op; on a graph
    input (HF's cache counter, `cumulative_length.add_(n)`), the functional op
    with its result assigned to the input last."""
    plain = in_place(functional)

    def build(g, a) -> Value:
        target = g.node.args[0]
        if not _is_input(g, root(target)):
            return plain(g, a)
        if target is not root(target) and not _alias_of_input(target):
            raise Unsupported("an in-place update of a view of a graph input")
        return _assign_last(g, target, functional(g, a))
    return build


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


def _index_put(g, x, index, values, dim: int) -> Value:
    """x with x[..., index, ...] = values along `dim`, functionally (ge.index_put)."""
    return g.emit(ge.IndexPutOp(g.value(x), values, [g.typed(index, torch.int64)],
                                [dim], False))


def _functional_index_copy(g, a) -> Value:
    dim = a["dim"] % max(len(meta(a["self"]).shape), 1)
    return _index_put(g, a["self"], a["index"], g.typed(a["source"], meta(a["self"]).dtype),
                      dim)


def index_copy_(g, a) -> Value:
    """ref.index_copy_(dim, index, source) -> ge.scatter_update."""
    if not _is_input(g, root(a["self"])):
        return in_place(_functional_index_copy)(g, a)
    if a["self"] is not root(a["self"]) and not _alias_of_input(a["self"]):
        raise Unsupported("index_copy_ into a view of a graph input")
    found = _ref(g, a["self"])
    if found is None:
        return _assign_last(g, a["self"], _functional_index_copy(g, a))
    r, ref = found
    updates = g.typed(a["source"], meta(r).dtype)
    op = ge.ScatterUpdateOp(ref, g.typed(a["index"], torch.int64), updates, a["dim"])
    return _done(g, r, g.emit(op))


def index_put_(g, a) -> Value:
    """ref[:, :, idx] = values (one index tensor, no accumulation) -> ge.scatter_update."""
    if not _is_input(g, root(a["self"])):
        return in_place(shape.index_put)(g, a)
    r = root(a["self"])
    indices = list(a["indices"])
    given = [i for i, x in enumerate(indices) if x is not None]
    if a["self"] is not r or a.get("accumulate") or len(given) != 1:
        raise Unsupported("index_put_ into a graph input with other than one index tensor "
                          "(or with accumulate=True)")
    dim, index = given[0], indices[given[0]]
    if len(meta(index).shape) != 1:
        raise Unsupported("index_put_ into a graph input with a multi-dimensional index")
    found = _ref(g, a["self"])
    if found is None:
        return _assign_last(g, r, shape.index_put(g, a))
    r, ref = found
    sizes = list(meta(r).shape)
    sizes[dim] = meta(index).shape[0]
    values = _broadcast(g, g.typed(a["values"], meta(r).dtype), a["values"], sizes)
    op = ge.ScatterUpdateOp(ref, g.typed(index, torch.int64), values, dim)
    return _done(g, r, g.emit(op))


def copy_(g, a) -> Value:
    """ref.copy_(src) -> ge.assign; ref[.., a:b].copy_(src) (a slice with step 1)
    -> ge.scatter_update at indices a..b-1."""
    if not _is_input(g, root(a["self"])):
        raise Unsupported("copy_ into an intermediate tensor or a weight; write it "
                          "functionally")
    target, r = a["self"], root(a["self"])
    if target is r or _alias_of_input(target):
        src = _broadcast(g, g.typed(a["src"], meta(r).dtype), a["src"], meta(r).shape)
        found = _ref(g, target)
        if found is None:
            return _assign_last(g, target, src)
        return _done(g, r, g.emit(ge.AssignOp(found[1], src)))
    found = _ref(g, target)
    if found is None:
        raise Unsupported(f"copy_ into a slice of '{r.name}', which an earlier op reads; "
                          "GE cannot keep the old contents for it (clone it first)")
    ref = found[1]
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

