"""ONNX builders for control flow: If -> ge.if, Loop -> ge.while."""

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
    initial = [g.input(n, i) for i in range(2, len(n.input))]
    if len(body.output) - 1 != len(initial):
        raise OnnxUnsupported("Loop with scan outputs")
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
