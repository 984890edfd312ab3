"""hardware-mapping: annotate each op or fused group with its compute unit and its cost.

    %y = ge.fused "conv2d_relu"(%x, %w, %b) {ge.unit = "cube", ge.cost_us = 3.41 : f64} ...

Each function-level op (a `ge.fused` group counts as one) becomes one task
when lowered, so that is what gets annotated. Two discardable attributes,
prefixed with the dialect's name as MLIR does for attributes an op does not
define:

- `ge.unit`: where the task runs. `"cube"` (the AI Core's matrix unit) for a
  group with a conv2d, conv_transpose2d, matmul or linear; `"vector"` for
  the other ops; `"aicpu"` for what the AI Core cannot run (ON_AICPU below,
  and any op on f64, which the AI Core has no arithmetic for).
- `ge.cost_us`: the roofline estimate of that task in microseconds on the
  `hardware` option's chip (runtime/cost_model.py, the same estimate the
  scheduler gives the lowered task).

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
from xdsl.dialects.builtin import FloatAttr, ModuleOp, StringAttr, TensorType, f64
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from ge_dialect import ge
from lowering.ge_to_ascend import unit_of
from runtime import cost_model

UNIT = "ge.unit"
COST = "ge.cost_us"
HARDWARE = "ge.hardware"  # on the function: the chip the costs are for

# Ops the AI Core cannot run, with the reason; they go to the AI CPU.
ON_AICPU: dict[type[Operation], str] = {
    ge.IfOp: "control flow runs on the AI CPU",
    ge.WhileOp: "control flow runs on the AI CPU",
    ge.CustomOp: "a custom op has a host kernel only (npu_graph.custom_op), no AI Core kernel",
}
NO_AICORE_ELEMENTS = ("f64",)  # the cube takes fp16/int8, the vector unit fp16/fp32/ints


def members(op: Operation) -> list[Operation]:
    """The ops a task for `op` computes, nested regions included."""
    return [o for o in op.walk() if not isinstance(o, ge.YieldOp)]


def on_f64(op: Operation) -> bool:
    values = (*op.operands, *op.results)
    return any(isinstance(v.type, TensorType)
               and str(v.type.element_type) in NO_AICORE_ELEMENTS for v in values)


def map_unit(op: Operation) -> str:
    """The unit for `op`: the AI CPU if any member needs it, else lowering's choice."""
    ops = members(op)
    if any(type(o) in ON_AICPU or on_f64(o) for o in ops):
        return "aicpu"
    return unit_of(ops)


@dataclass(frozen=True)
class HardwareMappingPass(ModulePass):
    """Annotate every function-level GE op and fused group with `ge.unit` and `ge.cost_us`.

    `hardware` names the chip of the cost model's table (`ascend910`,
    `ascend910b`), as task-parallel's option does.
    """

    name = "hardware-mapping"
    hardware: str = "ascend910"

    def __post_init__(self):
        if self.hardware not in cost_model.HARDWARE:
            raise ValueError(f"hardware-mapping: hardware must be one of "
                             f"{', '.join(cost_model.HARDWARE)}, got '{self.hardware}'")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        hw = cost_model.HARDWARE[self.hardware]
        for fn in op.ops:
            if not isinstance(fn, func.FuncOp) or fn.is_declaration:
                continue
            fn.attributes[HARDWARE] = StringAttr(self.hardware)
            for block in fn.body.blocks:
                for o in block.ops:
                    if isinstance(o, ge.ConstOp | func.ReturnOp) or o.dialect_name() != "ge":
                        continue
                    unit = map_unit(o)
                    cost = cost_model.estimate_graph_op(o, unit, hw).time_us
                    o.attributes[UNIT] = StringAttr(unit)
                    o.attributes[COST] = FloatAttr(round(cost, 3), f64)
