"""fold-batch-norm: fold inference batch norm into the convolution before it.

    batch_norm(conv2d(x, W, b), gamma, beta, mean, var)
      -> conv2d(x, W * s, (b - mean) * s + beta),  s = gamma / sqrt(var + eps)

The new weights are computed in float64 and stored in the conv's element
type, so the folded graph matches the unfolded one to float rounding.
"""

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, ModuleOp
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from ge_dialect.ge import BatchNormOp, ConstOp, Conv2dOp
from ge_dialect.tensors import from_numpy, to_numpy


def const_array(value: SSAValue | None) -> np.ndarray | None:
    """The value's constant data if a ge.const produces it, else None."""
    if value is None or not isinstance(value.owner, ConstOp):
        return None
    return to_numpy(value.owner.value)


def erase_if_dead(rewriter: PatternRewriter, value: SSAValue | None) -> None:
    if value is not None and isinstance(value.owner, ConstOp) and not value.uses:
        rewriter.erase(value.owner)


class FoldBatchNormIntoConv(RewritePattern):
    """batch_norm(conv2d(x, W, b)) -> conv2d(x, W', b') when W, b and the BN stats are constants."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: BatchNormOp, rewriter: PatternRewriter):
        conv = op.input.owner
        if not isinstance(conv, Conv2dOp) or not conv.output.has_one_use():
            return
        weight = const_array(conv.weight)
        stats = [const_array(v) for v in
                 (op.weight, op.bias, op.running_mean, op.running_var)]
        if weight is None or any(s is None for s in stats):
            return
        bias = const_array(conv.bias) if conv.bias is not None else np.zeros(weight.shape[0])
        if bias is None:
            return
        gamma, beta, mean, var = (s.astype(np.float64) for s in stats)
        scale = gamma / np.sqrt(var + op.epsilon.value.data)
        dtype = weight.dtype
        new_weight = (weight.astype(np.float64) * scale[:, None, None, None]).astype(dtype)
        new_bias = ((bias.astype(np.float64) - mean) * scale + beta).astype(dtype)

        w_op, b_op = ConstOp(from_numpy(new_weight)), ConstOp(from_numpy(new_bias))
        folded = Conv2dOp(conv.input, w_op.output, b_op.output,
                          conv.stride.get_values(), conv.padding.get_values(),
                          conv.dilation.get_values(), conv.groups.value.data)
        _name(w_op.output, conv.weight.name_hint, "_folded")
        bias_name = (conv.bias.name_hint if conv.bias is not None
                     else (conv.weight.name_hint or "").replace("weight", "bias"))
        _name(b_op.output, bias_name, "_folded")
        folded.output.name_hint = conv.output.name_hint or op.output.name_hint
        rewriter.insert([w_op, b_op], InsertPoint.before(conv))
        rewriter.replace(op, folded)
        rewriter.erase(conv)
        for value in (conv.weight, conv.bias, *op.operands[1:]):
            erase_if_dead(rewriter, value)


def _name(new: SSAValue, base: str | None, suffix: str) -> None:
    if base:
        new.name_hint = base + suffix


@dataclass(frozen=True)
class FoldBatchNormPass(ModulePass):
    """Fold every inference batch norm whose input is a single-use conv with constant weights.

    A batch norm after a conv with several users, or with non-constant
    statistics, is left alone (negative cases in the FileCheck test).
    """

    name = "fold-batch-norm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            GreedyRewritePatternApplier([FoldBatchNormIntoConv()], dce_enabled=False),
            apply_recursively=False,
        ).rewrite_module(op)
