"""Canonicalization patterns of GE ops, one rewrite per class.

Each op lists its patterns through a trait (see `canonicalized_by` in ge.py),
so `canonicalize` picks them up with no registration. They live here, after
the ops, because `op_type_rewrite_pattern` resolves its annotation when the
class is defined.
"""

import numpy as np
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from ge_dialect import ge
from ge_dialect.tensors import to_numpy


def is_splat_of(value: SSAValue, number: float) -> bool:
    """True if a ge.const produces `value` and every element equals `number`."""
    owner = value.owner
    if not isinstance(owner, ge.ConstOp):
        return False
    attr: DenseIntOrFPElementsAttr = owner.value
    data = np.frombuffer(attr.data.data, to_numpy(attr).dtype)
    return bool(np.all(data == number))


def _identity_operand(op, neutral: float) -> SSAValue | None:
    """The operand that op(x, neutral) returns unchanged, if the other one is neutral."""
    for x, other in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
        if x.type == op.output.type and is_splat_of(other, neutral):
            return x
    return None


class RemoveAddZero(RewritePattern):
    """add(x, 0) -> x, when the zero does not broadcast x to a bigger shape."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ge.AddOp, rewriter: PatternRewriter):
        if (x := _identity_operand(op, 0.0)) is not None:
            rewriter.replace(op, [], [x])


class RemoveMulOne(RewritePattern):
    """mul(x, 1) -> x, when the one does not broadcast x to a bigger shape."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ge.MulOp, rewriter: PatternRewriter):
        if (x := _identity_operand(op, 1.0)) is not None:
            rewriter.replace(op, [], [x])


class RemoveIdentityReshape(RewritePattern):
    """reshape(x : T) : T -> x; also for flatten."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ge.ReshapeOp | ge.FlattenOp, rewriter: PatternRewriter):
        if op.input.type == op.output.type:
            rewriter.replace(op, [], [op.input])


class MergeReshapeChain(RewritePattern):
    """reshape(reshape(x)) -> reshape(x); flatten and reshape alike (static shapes)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ge.ReshapeOp | ge.FlattenOp, rewriter: PatternRewriter):
        inner = op.input.owner
        if not isinstance(inner, ge.ReshapeOp | ge.FlattenOp):
            return
        if not op.output.type.has_static_shape():
            return  # a `?` needs the source shape to resolve; keep the chain
        rewriter.replace(op, ge.ReshapeOp(inner.input, op.output.type.get_shape()))
