"""hardware-mapping: annotate each op or fused group with its compute unit and its cost.

    %y = ge.fused "conv2d_relu"(%x, %w, %b) {ge.unit = "cube", ge.cost_us = 3.41 : f64} ...

Each function-level op (a `ge.fused` group counts as one) becomes one task
when lowered, so that is what gets annotated. Two discardable attributes,
prefixed with the dialect's name as MLIR does for attributes an op does not
define:

- `ge.unit`: where the task runs. `"cube"` (the AI Core's matrix unit) for a
  group with a conv2d, conv_transpose2d, matmul or linear; `"vector"` for
  the other ops; `"aicpu"` for what the AI Core cannot run (control flow, user
  kernels, f64). The choice is `target.units.choose_unit`, which lowering
  also falls back to.
- `ge.cost_us`: the roofline estimate of that task in microseconds on the
  `hardware` option's chip (target/cost_model.py, the same estimate the
  simulated device gives the lowered task).

`lower-to-ascend` puts each task on the unit its annotation names, and
refuses an annotation it cannot honor (a matrix op on "vector", control flow
off the AI CPU). Constants are not annotated: they become weights, not tasks.
The function records the chip as `ge.hardware`. Running the pass again
recomputes every annotation (npu_graph.compiler.optimize does, after a
precision mode changed the ops).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import FloatAttr, ModuleOp, StringAttr, f64
from xdsl.ir import Operation

from ge_dialect import ge
from ge_dialect.ascend import COST_ATTR, HARDWARE_ATTR, UNIT_ATTR
from passes.base import GEPass
from target import cost_model
from target.hardware import DEFAULT_CHIP, HARDWARE
from target.units import choose_unit


def members(op: Operation) -> list[Operation]:
    """The ops a task for `op` computes, nested regions included."""
    return [o for o in op.walk() if not isinstance(o, ge.YieldOp)]


@dataclass(frozen=True)
class HardwareMappingPass(GEPass):
    """Annotate every function-level GE op and fused group with `ge.unit` and `ge.cost_us`.

    `hardware` names the chip of the cost model's table (`ascend910`,
    `ascend910b`), as task-parallel's option does.
    """

    name = "hardware-mapping"
    hardware: str = DEFAULT_CHIP

    def __post_init__(self):
        if self.hardware not in HARDWARE:
            raise ValueError(f"hardware-mapping: hardware must be one of "
                             f"{', '.join(HARDWARE)}, got '{self.hardware}'")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        hw = HARDWARE[self.hardware]
        for fn in op.ops:
            if not isinstance(fn, func.FuncOp) or fn.is_declaration:
                continue
            fn.attributes[HARDWARE_ATTR] = StringAttr(self.hardware)
            for block in fn.body.blocks:
                for o in block.ops:
                    if isinstance(o, ge.ConstOp | func.ReturnOp) or o.dialect_name() != "ge":
                        continue
                    unit = choose_unit(members(o))
                    cost = cost_model.estimate_graph_op(o, unit, hw).time_us
                    o.attributes[UNIT_ATTR] = StringAttr(unit)
                    o.attributes[COST_ATTR] = FloatAttr(round(cost, 3), f64)
