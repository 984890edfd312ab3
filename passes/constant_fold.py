"""constant-fold: evaluate ops whose inputs are all constants, with real kernels.

    op(const a, const b) -> const (op(a, b))

The value comes from the runtime's kernel table, the same code that runs the
op on the device path, so folding cannot disagree with execution. A size cap
keeps the IR from growing: a fold that would create a constant of more than
`max-elements` elements is skipped (e.g. broadcasting a bias to a feature map).
"""

from dataclasses import dataclass

import torch
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)

from ge_dialect import ge, shapes
from ge_dialect.tensors import from_numpy
from passes.base import GEPass
from runtime import kernels
from runtime.program import compile_op

NOT_FOLDED = (ge.ConstOp, ge.YieldOp)


class FoldConstantOperands(RewritePattern):
    """op(const...) -> const, for any GE op with a host kernel and a small enough result."""

    def __init__(self, max_elements: int):
        self.max_elements = max_elements

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if (isinstance(op, NOT_FOLDED) or not op.name.startswith("ge.")
                or not isinstance(op.parent_op(), func.FuncOp)
                or not all(isinstance(v.owner, ge.ConstOp) for v in op.operands)):
            return
        if any(shapes.numel(r.type.get_shape()) > self.max_elements
               or not r.type.has_static_shape() for r in op.results):
            return
        try:
            kernel = compile_op(op)
        except kernels.KernelError:
            return  # no host kernel: nothing to fold with
        inputs = [kernels.tensor_from_attr(v.owner.value) for v in op.operands]
        with torch.no_grad():
            results = kernel(*inputs)
        if isinstance(results, torch.Tensor):
            results = [results]
        new_ops = [ge.ConstOp(from_numpy(kernels.numpy_of(r))) for r in results]
        for new, old in zip(new_ops, op.results):
            new.output.name_hint = old.name_hint
        rewriter.replace(op, new_ops, [c.output for c in new_ops])


@dataclass(frozen=True)
class ConstantFoldPass(GEPass):
    """Replace every GE op whose operands are all ge.const by the constant it computes.

    Folds transitively (a folded result feeds the next fold). Constants left
    without users are removed. `max-elements` caps the size of a folded result.
    """

    name = "constant-fold"
    max_elements: int = 1 << 16

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.max_elements < 0:
            raise ValueError(f"constant-fold: max-elements must be >= 0, got {self.max_elements}")
        PatternRewriteWalker(
            GreedyRewritePatternApplier([FoldConstantOperands(self.max_elements)]),
        ).rewrite_module(op)
