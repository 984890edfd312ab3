"""fold-batch-norm: fold inference batch norm into the conv or linear layer before it.

    batch_norm(conv2d(x, W, b), gamma, beta, mean, var)
      -> conv2d(x, W * s, (b - mean) * s + beta),  s = gamma / sqrt(var + eps)
    batch_norm(linear(x, W, b))  -> linear(x, W * s[:, None], (b - mean) * s + beta)
    batch_norm(matmul(x, K))     -> linear(x, (K * s[None, :])^T, beta - mean * s)

The new weights are computed in float64 and stored in the layer's element
type, so the folded graph matches the unfolded one to float rounding. A
missing bias counts as zeros. BN normalizes dim 1, so for linear/matmul the
output must be 2-D (N, C): there dim 1 is the output feature.
"""

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from ge_dialect.ge import BatchNormOp, ConstOp, Conv2dOp, LinearOp, MatMulOp
from ge_dialect.tensors import from_numpy, to_numpy
from passes.base import GEPass


def const_array(value: SSAValue | None) -> np.ndarray | None:
    """The value's constant data if a ge.const produces it, else None."""
    if value is None or not isinstance(value.owner, ConstOp):
        return None
    return to_numpy(value.owner.value)


def erase_if_dead(rewriter: PatternRewriter, value: SSAValue | None) -> None:
    if value is not None and isinstance(value.owner, ConstOp) and not value.uses:
        rewriter.erase(value.owner)


def bn_scale_shift(bn: BatchNormOp) -> tuple[np.ndarray, np.ndarray] | None:
    """(s, t) with bn(y) = y * s + t per channel, in float64; None if not constant."""
    stats = [const_array(v) for v in (bn.weight, bn.bias, bn.running_mean, bn.running_var)]
    if any(s is None for s in stats):
        return None
    gamma, beta, mean, var = (s.astype(np.float64) for s in stats)
    scale = gamma / np.sqrt(var + bn.epsilon.value.data)
    return scale, beta - mean * scale


@dataclass
class Layer:
    """A conv/linear/matmul in the form y = x (*) W + b, with W's output axis known."""

    op: Operation
    weight: np.ndarray      # as the folded op will take it
    bias: np.ndarray
    out_axis: int           # axis of `weight` indexed by the output channel
    name: str | None        # name hint of the weight, for the folded constants

    def build(self, weight: SSAValue, bias: SSAValue) -> Operation:
        op = self.op
        if isinstance(op, Conv2dOp):
            return Conv2dOp(op.input, weight, bias, op.stride.get_values(),
                            op.padding.get_values(), op.dilation.get_values(),
                            op.groups.value.data)
        return LinearOp(op.operands[0], weight, bias)


def as_layer(op: Operation) -> Layer | None:
    """`op` as a foldable layer, or None when its weights are not constants or BN's
    channel axis (dim 1) is not the layer's output feature."""
    rank = len(op.results[0].type.get_shape()) if op.results else 0
    if isinstance(op, Conv2dOp) or (isinstance(op, LinearOp) and rank == 2):
        w = const_array(op.weight)
        bias = const_array(op.bias) if op.bias is not None else None
        if w is None or (op.bias is not None and bias is None):
            return None
        return Layer(op, w, np.zeros(w.shape[0]) if bias is None else bias, 0,
                     op.weight.name_hint)
    if isinstance(op, MatMulOp) and rank == 2 and len(op.lhs.type.get_shape()) == 2:
        k = const_array(op.rhs)
        if k is None or k.ndim != 2:
            return None
        return Layer(op, np.ascontiguousarray(k.T), np.zeros(k.shape[1]), 0, op.rhs.name_hint)
    return None


class FoldBatchNormIntoLayer(RewritePattern):
    """batch_norm(layer(x, W, b)) -> layer(x, W * s, (b - mean) * s + beta) for conv2d/linear/matmul."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: BatchNormOp, rewriter: PatternRewriter):
        producer = op.input.owner
        if not isinstance(producer, Operation) or not op.input.has_one_use():
            return
        layer = as_layer(producer)
        folded = bn_scale_shift(op)
        if layer is None or folded is None:
            return
        scale, shift = folded
        dtype = layer.weight.dtype
        shape = [1] * layer.weight.ndim
        shape[layer.out_axis] = -1
        new_weight = (layer.weight.astype(np.float64) * scale.reshape(shape)).astype(dtype)
        new_bias = (layer.bias.astype(np.float64) * scale + shift).astype(dtype)

        w_op, b_op = ConstOp(from_numpy(new_weight)), ConstOp(from_numpy(new_bias))
        base = layer.name or "weight"
        w_op.output.name_hint = base + "_folded"
        b_op.output.name_hint = base.replace("weight", "bias") + "_folded"
        if b_op.output.name_hint == w_op.output.name_hint:
            b_op.output.name_hint = base + "_bias_folded"
        new = layer.build(w_op.output, b_op.output)
        new.results[0].name_hint = producer.results[0].name_hint or op.output.name_hint
        rewriter.insert([w_op, b_op], InsertPoint.before(producer))
        rewriter.replace(op, new)
        rewriter.erase(producer)
        for value in (*producer.operands[1:], *op.operands[1:]):
            erase_if_dead(rewriter, value)


@dataclass(frozen=True)
class FoldBatchNormPass(GEPass):
    """Fold every inference batch norm into the single-use conv2d/linear/matmul before it.

    Needs constant weights and statistics. A batch norm after a layer with
    several users, with non-constant statistics, or after a linear whose
    output is not 2-D is left alone (negative cases in the FileCheck test).
    """

    name = "fold-batch-norm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            GreedyRewritePatternApplier([FoldBatchNormIntoLayer()], dce_enabled=False),
            apply_recursively=False,
        ).rewrite_module(op)
