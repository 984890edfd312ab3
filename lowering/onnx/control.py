"""ONNX builders for control flow: If -> ge.if, Loop -> ge.while, Scan unrolled."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import BytesAttr, DenseIntOrFPElementsAttr, TensorType, i1, i64
from xdsl.ir import Block, Region

from ge_dialect import ge
from lowering.onnx.common import OnnxUnsupported


def _scalar(g, value):
    """A one-element tensor as a 0-d one."""
    return value if not ge.shape_of(value) else g.emit(ge.ReshapeOp(value, ()))


def if_(g, n) -> list:
    then_graph, else_graph = g.attr(n, "then_branch"), g.attr(n, "else_branch")
    known = g.constant(n, 0)
    if known is not None:  # the branch is known at import: its nodes, inline
        return g.inline(then_graph if bool(np.asarray(known).reshape(-1)[0]) else else_graph)
    captured = g.captures(then_graph, else_graph)
    then_block, then_out = g.subgraph(then_graph, [], captured)
    else_block, else_out = g.subgraph(else_graph, [], captured)
    types = [v.type for v in then_out]
    if types != [v.type for v in else_out]:
        raise OnnxUnsupported("If branches of different output types")
    then_block.add_op(ge.YieldOp(*then_out))
    else_block.add_op(ge.YieldOp(*else_out))
    op = ge.IfOp(_scalar(g, g.input(n, 0)), [g.value(name) for name in captured], types,
                 Region(then_block), Region(else_block))
    g.emit(op)
    return list(op.outputs)


def loop(g, n) -> list:
    """Loop(M, cond, v...) with a body (i, cond, v...) -> (cond, v...): a ge.while
    carrying (i, cond, M, v..., the outer values the body reads)."""
    body = g.attr(n, "body")
    if len(body.output) - 1 != len(n.input) - 2:
        return _unrolled_loop(g, n, body)
    initial = [g.input(n, i) for i in range(2, len(n.input))]
    trips = _scalar(g, g.input(n, 0)) if g.has_input(n, 0) else g.const(
        np.array(2**63 - 1, dtype=np.int64))
    cond = _scalar(g, g.input(n, 1)) if g.has_input(n, 1) else g.const(np.array(True))
    captured = g.captures(body)
    carried = [g.const(np.array(0, dtype=np.int64)), cond, trips, *initial,
               *[g.value(name) for name in captured]]
    types = [v.type for v in carried]
    # the condition: i < M and cond
    check = Block(arg_types=types)
    below = ge.CompareOp(check.args[0], check.args[2], "lt")
    both = ge.LogicalAndOp(below.output, check.args[1])
    check.add_ops([below, both, ge.YieldOp(both.output)])
    # the body: ONNX's on (i, cond, v...), then i + 1, M and the outer values passed on
    names = [v.name for v in body.input]
    leading = [(names[0], TensorType(i64, [])), (names[1], TensorType(i1, [])),
               ("__trip_count", types[2]), *zip(names[2:], types[3:3 + len(initial)])]
    step, outputs = g.subgraph(body, leading, captured)
    one = ge.ConstOp(DenseIntOrFPElementsAttr(TensorType(i64, []), BytesAttr(
        np.array(1, dtype=np.int64).tobytes())))
    following = ge.AddOp(step.args[0], one.output)
    keep = outputs[0]
    extra = []
    if ge.shape_of(keep):
        extra.append(ge.ReshapeOp(keep, ()))
        keep = extra[-1].output
    yielded = [following.output, keep, step.args[2], *outputs[1:],
               *step.args[len(leading):]]
    if [v.type for v in yielded] != types:
        raise OnnxUnsupported("a Loop whose carried values change type or shape")
    step.add_ops([one, following, *extra, ge.YieldOp(*yielded)])
    op = ge.WhileOp(carried, Region(check), Region(step))
    g.emit(op)
    return list(op.outputs)[3:3 + len(initial)]


MAX_SCAN_STEPS = 256  # a longer Scan (or unrolled Loop) would make too large a graph


def _known(value, what: str):
    if not isinstance(value, np.ndarray):
        raise OnnxUnsupported(f"Loop with scan outputs whose {what} is known only at run time")
    return value


def _unrolled_loop(g, n, body) -> list:
    """Loop with scan outputs: unrolled, which needs its trip count and its
    condition known at import (constants, or computed from constants in the
    body); each trip imports the body, the scan outputs are stacked on axis 0."""
    trips = _known(g.constant(n, 0), "trip count") if g.has_input(n, 0) else None
    cond = _known(g.constant(n, 1), "condition") if g.has_input(n, 1) else np.array(True)
    if trips is None:
        raise OnnxUnsupported("Loop with scan outputs and no trip count")
    trips = int(np.asarray(trips).reshape(-1)[0])
    if trips > MAX_SCAN_STEPS:
        raise OnnxUnsupported(f"Loop of {trips} trips; GE unrolls up to {MAX_SCAN_STEPS}")
    states = [g.constant(n, i) if g.constant(n, i) is not None else g.input(n, i)
              for i in range(2, len(n.input))]
    names = [v.name for v in body.input]
    defined = set(names) | {out for node in body.node for out in node.output}
    collected = [[] for _ in range(len(body.output) - 1 - len(states))]
    for i in range(trips):
        if not bool(np.asarray(cond).reshape(-1)[0]):
            break
        g.forget(defined)
        for name, value in zip(names, [np.array(i, dtype=np.int64),
                                       np.asarray(cond).astype(np.bool_), *states]):
            g.bind(name, value)
        outputs = g.inline(body)
        cond = _known(outputs[0], "condition")
        states = outputs[1:1 + len(states)]
        for pieces, y in zip(collected, outputs[1 + len(states):]):
            pieces.append(g.as_value(y))
    g.forget(defined)
    if collected and not collected[0]:
        raise OnnxUnsupported("Loop with scan outputs that runs no trip")
    stacked = []
    for pieces in collected:
        shape = [1, *ge.shape_of(pieces[0])]
        pieces = [g.emit(ge.ReshapeOp(y, shape)) for y in pieces]
        stacked.append(pieces[0] if len(pieces) == 1 else g.emit(ge.ConcatOp(pieces, 0)))
    return [*states, *stacked]


def scan(g, n) -> list:
    """Scan (opset 9+) over a static length, unrolled: step t slices each scan
    input at t (from the end for direction 1), imports the body with the state
    values bound to its inputs, and the scan outputs are stacked at the end."""
    body = g.attr(n, "body")
    m = int(g.attr(n, "num_scan_inputs"))
    num_state = len(n.input) - m
    k = len(body.output) - num_state
    states = [g.constant(n, i) if g.constant(n, i) is not None else g.input(n, i)
              for i in range(num_state)]
    scans = [g.input(n, num_state + j) for j in range(m)]
    in_axes = [a % len(ge.shape_of(x)) for a, x in
               zip(g.attr(n, "scan_input_axes", [0] * m), scans)]
    in_dirs = list(g.attr(n, "scan_input_directions", [0] * m))
    out_axes = list(g.attr(n, "scan_output_axes", [0] * k))
    out_dirs = list(g.attr(n, "scan_output_directions", [0] * k))
    lengths = {ge.shape_of(x)[a] for x, a in zip(scans, in_axes)}
    if len(lengths) != 1 or min(lengths) <= 0:
        raise OnnxUnsupported("Scan whose inputs have no common static, non-zero length")
    (steps,) = lengths
    if steps > MAX_SCAN_STEPS:
        raise OnnxUnsupported(f"Scan of {steps} steps; GE unrolls up to {MAX_SCAN_STEPS}")
    names = [v.name for v in body.input]
    defined = set(names) | {out for node in body.node for out in node.output}
    collected = [[] for _ in range(k)]
    for t in range(steps):
        g.forget(defined)
        for name, state in zip(names, states):
            g.bind(name, state)
        for name, x, axis, reverse in zip(names[num_state:], scans, in_axes, in_dirs):
            at = steps - 1 - t if reverse else t
            piece = g.emit(ge.SliceOp(x, axis, at, at + 1))
            shape = [d for i, d in enumerate(ge.shape_of(piece)) if i != axis]
            g.bind(name, g.emit(ge.ReshapeOp(piece, shape)))
        outputs = g.inline(body)
        states = outputs[:num_state]
        for i, y in enumerate(outputs[num_state:]):
            collected[i].append(y)
    g.forget(defined)
    stacked = []
    for pieces, axis, reverse in zip(collected, out_axes, out_dirs):
        pieces = [g.as_value(y) for y in (reversed(pieces) if reverse else pieces)]
        rank = len(ge.shape_of(pieces[0])) + 1
        axis %= rank
        shape = list(ge.shape_of(pieces[0]))
        shape.insert(axis, 1)
        pieces = [g.emit(ge.ReshapeOp(y, shape)) for y in pieces]
        stacked.append(pieces[0] if len(pieces) == 1 else g.emit(ge.ConcatOp(pieces, axis)))
    return [*states, *stacked]
