"""GE-level reference evaluator: runs a GE function with the kernel table.

It is the oracle for passes before lowering: a pass is numerically sound if
`evaluate` gives the same outputs before and after it.
"""

from __future__ import annotations

import torch
from xdsl.dialects.builtin import ModuleOp

from ge_dialect import ascend, find_func
from runtime.program import BlockProgram, check_inputs


def evaluate(module: ModuleOp, *inputs: torch.Tensor, func_name: str = "main"
             ) -> list[torch.Tensor]:
    fn = find_func(module, func_name)
    if ascend.arena_size(fn) is not None:
        raise ValueError(f"@{func_name} is lowered Ascend IR; the reference evaluator runs GE "
                         "IR, run this with runtime.executor.Executable")
    check_inputs(fn.function_type.inputs.data, inputs)
    with torch.no_grad():
        return BlockProgram(fn.body.block)(*inputs)
