"""Builders for control flow (torch.cond, while_loop), custom ops and FX plumbing."""

from __future__ import annotations

from typing import Any

import torch
from torch.fx import Node
from xdsl.dialects.builtin import TensorType

from ge_dialect import ge, shapes
from lowering.aten.common import (
    SYMBOLIC,
    GEImportError,
    NotImported,
    Unsupported,
    Value,
    Weight,
    element_type,
    meta,
    static_shape,
)
from runtime import custom_ops


def no_result(g, a) -> Value:
    return None


def symbolic(g, a) -> Value:
    return SYMBOLIC


def getitem(g, a) -> Value:
    parent, index = a[0], a[1]
    out = g.raw(parent)[index]
    if out is None:  # fine unless something reads it (training IR keeps dead getitems)
        return NotImported(f"output {index} of {g.op_name(parent.target)} is used; "
                           "GE imports only its output 0")
    return out


def _predicate(g, pred: Any):
    if not isinstance(pred, Node):
        raise Unsupported("a predicate that is a Python value (export specializes it)")
    p = g.value(pred)
    if ge.element_type(p.type) != element_type(torch.bool):
        raise Unsupported("a predicate that is not a boolean tensor")
    return p


def _split_operands(g, operands) -> tuple[list, list]:
    """Region bindings for a subgraph's placeholders (weights stay weights, so each
    region keeps its own constants) and the SSA values passed in as op inputs."""
    bindings, inputs = [], []
    for x in operands:
        raw = g.raw(x)
        if isinstance(raw, Weight):
            bindings.append(raw)
        else:
            v = g.value(x)
            bindings.append(len(inputs))
            inputs.append(v)
    return bindings, inputs


def cond(g, a) -> Value:
    """torch.cond(pred, true_fn, false_fn, operands) -> ge.if."""
    pred, true_gm, false_gm, operands = a[0], a[1], a[2], a[3]
    p = _predicate(g, pred)
    bindings, inputs = _split_operands(g, operands)
    types = [v.type for v in inputs]
    (then_region, outs), (else_region, else_outs) = g.import_subgraphs(
        (g.submodule(true_gm), bindings, types), (g.submodule(false_gm), bindings, types))
    if [v.type for v in outs] != [v.type for v in else_outs]:
        raise Unsupported("branches of different result types")
    op = ge.IfOp(p, inputs, [v.type for v in outs], then_region, else_region)
    g.emit(op)
    return tuple(op.outputs)


def while_loop(g, a) -> Value:
    """while_loop(cond_fn, body_fn, carried, additional) -> ge.while.

    Additional inputs that are weights become constants inside the regions;
    the others are carried through unchanged after the carried values.
    """
    cond_gm, body_gm, carried, additional = a[0], a[1], list(a[2]), list(a[3])
    inputs = [g.value(x) for x in carried]
    extra_bindings, extra = _split_operands(g, additional)
    n = len(inputs)
    bindings = list(range(n)) + [b if isinstance(b, Weight) else n + b
                                 for b in extra_bindings]
    inputs += extra
    types = [v.type for v in inputs]
    passthrough = list(range(n, len(inputs)))
    (cond_region, cond_outs), (body_region, body_outs) = g.import_subgraphs(
        (g.submodule(cond_gm), bindings, types),
        (g.submodule(body_gm), bindings, types, passthrough))
    if len(cond_outs) != 1:
        raise Unsupported("a loop condition that returns several values")
    if [v.type for v in body_outs] != types:
        raise Unsupported("a loop body whose results change type or shape")
    op = ge.WhileOp(inputs, cond_region, body_region)
    g.emit(op)
    return tuple(op.outputs[:n])


def custom(g, a) -> Value:
    """An op with a kernel in the custom-op registry -> ge.custom."""
    entry = custom_ops.lookup_target(g.node.target)
    inputs, params = [], {}
    for name, value in a.items():
        if isinstance(value, Node):
            inputs.append(g.value(value))
        elif isinstance(value, (list, tuple)) and any(isinstance(v, Node) for v in value):
            raise Unsupported(f"custom op argument '{name}' is a list of tensors")
        elif value is not None:
            try:
                params[name] = custom_ops.to_attr(value)
            except ValueError as e:
                raise Unsupported(f"custom op argument '{name}' ({e}) has no attribute "
                                  "form") from None
    val = meta(g.node)
    results = list(val) if isinstance(val, (tuple, list)) else [val]
    types = [TensorType(element_type(t.dtype), static_shape(t.shape)) for t in results]
    if entry.shape_fn is not None:
        check_shape_fn(g, entry, inputs, a, [tuple(t.get_shape()) for t in types])
    op = ge.CustomOp(entry.name, inputs, types, params)
    g.emit(op)
    return tuple(op.outputs) if isinstance(val, (tuple, list)) else op.outputs[0]


def check_shape_fn(g, entry, inputs, args: dict, expected: list[tuple]) -> None:
    """A custom op's shape function must agree with PyTorch's shape inference."""
    in_shapes = [tuple(None if shapes.is_dyn(d) else d for d in ge.shape_of(v))
                 for v in inputs]
    params = {k: v for k, v in args.items() if not isinstance(v, Node) and v is not None}
    where = f"custom op '{entry.name}' at node '{g.node.name}' ({g.location()})"
    try:
        got = custom_ops.output_shapes(entry.shape_fn(*in_shapes, **params))
    except Exception as e:  # user code: report it, do not crash the import
        raise GEImportError(f"shape_fn of {where} failed: {type(e).__name__}: {e}") from e
    got = [tuple(shapes.DYN if d is None else d for d in s) for s in got]
    if len(got) != len(expected) or not all(shapes.compatible(a, b)
                                            for a, b in zip(got, expected)):
        raise GEImportError(
            f"shape_fn of {where} returned {', '.join(shapes.fmt(s) for s in got)}, but "
            f"PyTorch infers {', '.join(shapes.fmt(s) for s in expected)}")
