"""Passes that each break one guard rail of passes/driver/instrument.py (tests only)."""

from dataclasses import dataclass

from xdsl.dialects.builtin import TensorType, f32
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from ge_dialect import ge


class TouchRelu(RewritePattern):
    """Reports a rewrite of every relu and changes nothing (loops forever unguarded)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ge.ReluOp, rewriter: PatternRewriter):
        rewriter.notify_op_modified(op)


class SwapAddOperands(RewritePattern):
    """add(a, b) -> add(b, a): always applies again to its own result."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ge.AddOp, rewriter: PatternRewriter):
        rewriter.replace(op, ge.AddOp(op.rhs, op.lhs))


class CloneRelu(RewritePattern):
    """Replaces relu by an identical copy of itself: a change every time, never a fixpoint."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ge.ReluOp, rewriter: PatternRewriter):
        rewriter.replace(op, op.clone())


class WidenRelu(RewritePattern):
    """Gives relu a result type its operand does not have: IR that does not verify."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ge.ReluOp, rewriter: PatternRewriter):
        if op.output.type != TensorType(f32, [99]):
            rewriter.replace(op, ge.ReluOp.create(operands=[op.input],
                                                  result_types=[TensorType(f32, [99])]))


def _walk(module, *patterns):
    PatternRewriteWalker(GreedyRewritePatternApplier(list(patterns))).rewrite_module(module)


@dataclass(frozen=True)
class TouchReluPass(ModulePass):
    name = "touch-relu"

    def apply(self, ctx, op):
        _walk(op, TouchRelu())


@dataclass(frozen=True)
class PingPongPass(ModulePass):
    name = "ping-pong"

    def apply(self, ctx, op):
        _walk(op, SwapAddOperands())


@dataclass(frozen=True)
class CloneReluPass(ModulePass):
    name = "clone-relu"

    def apply(self, ctx, op):
        _walk(op, CloneRelu())


@dataclass(frozen=True)
class WidenReluPass(ModulePass):
    name = "widen-relu"

    def apply(self, ctx, op):
        _walk(op, WidenRelu())
