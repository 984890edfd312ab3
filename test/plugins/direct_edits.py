"""Passes that edit IR directly, without the rewrite driver, each with a planted bug
(ge-bisect's tests).

    drop-mul-by-one       x * c -> x when c is one: its test says "within 0.5 of one"
                          (wrong), and it asks the rewrite counter before each
                          rewrite, so ge-bisect can name the single bad one.
    round-weights-f16     an Ascend-level pass that rounds every weight through f16
                          (wrong for f32 weights), counting nothing: ge-bisect names
                          the pass.
"""

from dataclasses import dataclass

import numpy as np
from xdsl.passes import ModulePass

from ge_dialect import ascend, ge
from ge_dialect.tensors import from_numpy, to_numpy
from passes.driver import instrument


def near_one(value) -> bool:
    const = value.owner
    if not isinstance(const, ge.ConstOp):
        return False
    return bool(np.all(np.abs(to_numpy(const.value) - 1.0) < 0.5))  # BUG: must be == 1


@dataclass(frozen=True)
class DropMulByOnePass(ModulePass):
    """x * 1 -> x, rewriting in place and asking the rewrite counter first."""

    name = "drop-mul-by-one"

    def apply(self, ctx, op):
        for mul in [o for o in op.walk() if isinstance(o, ge.MulOp)]:
            if (near_one(mul.rhs) and mul.lhs.type == mul.output.type
                    and instrument.may_rewrite(mul, "DropMulByOne")):
                mul.output.replace_all_uses_with(mul.lhs)
                mul.detach()
                mul.erase()


@dataclass(frozen=True)
class RoundWeightsThroughF16Pass(ModulePass):
    """Rounds every ascend.weight through f16: loses f32 precision, counts nothing."""

    name = "round-weights-f16"
    level = "ascend"

    def apply(self, ctx, op):
        for weight in [o for o in op.walk() if isinstance(o, ascend.WeightOp)]:
            value = to_numpy(weight.value)
            weight.properties["value"] = from_numpy(value.astype(np.float16).astype(value.dtype))
