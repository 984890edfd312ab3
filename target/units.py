"""The chip's compute units and which one runs a task.

An Ascend task runs on one of three units (`ascend.UNITS`): the cube (matrix
products on the AI Core), the vector unit (everything elementwise and
reduction-like; on the AI Core of 910, on Vector Cores of 910B) or the AI CPU
(host code on the card's CPU cores, for what the AI Core has no kernel for).
`choose_unit` is the one rule: hardware-mapping annotates GE ops with it,
lower-to-ascend falls back to it and checks annotations against it, so the
two cannot disagree. Which core group a unit occupies on a given chip is the
hardware table's `Hardware.pool_of`.
"""

from __future__ import annotations

from collections.abc import Iterable

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation

from ge_dialect import ge
from ge_dialect.ascend import CUBE_OPS

# What the AI Core cannot run: these ops have no AI Core kernel (they run as
# host code on the AI CPU), and it has no f64 arithmetic.
AICPU_OPS: dict[type[Operation], str] = {
    ge.IfOp: "control flow runs on the AI CPU",
    ge.WhileOp: "control flow runs on the AI CPU",
    ge.CustomOp: "a custom op has a host kernel only (npu_graph.custom_op), no AI Core kernel",
}
NO_AICORE_ELEMENTS = ("f64",)  # the cube takes fp16/int8, the vector unit fp16/fp32/ints


def _on_f64(op: Operation) -> bool:
    return any(isinstance(v.type, TensorType) and str(v.type.element_type) in NO_AICORE_ELEMENTS
               for v in (*op.operands, *op.results))


def choose_unit(ops: Iterable[Operation]) -> str:
    """The unit a task computing `ops` runs on: the AI CPU for what the AI Core
    cannot run (AICPU_OPS, f64), the cube for a group with a matrix op, else the
    vector unit."""
    ops = list(ops)
    if any(type(o) in AICPU_OPS or _on_f64(o) for o in ops):
        return "aicpu"
    return "cube" if any(isinstance(o, CUBE_OPS) for o in ops) else "vector"
