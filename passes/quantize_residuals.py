"""quantize-residuals: a residual that is quantized anyway is added as its int8 value.

    add(conv(dq(..)), x)  with q(x, s) in the graph  ->  add(conv(dq(..)), dq(q(x, s)))

In a ResNet the block's input x is read twice: quantized (q(x, s)) by the
block's first conv, and in float by the residual add after its last conv.
Reading the residual as dq(q(x, s)), the value that conv already sees,
makes the quantize x's only reader, so fold-quantized can give the
producer of x an int8 output and the add an int8 residual: the residual
stream between blocks is int8, with no fp32 tensor and no quantize task
between them. ONNX Runtime's and AMCT's QDQ graphs quantize an Add's inputs
the same way. Each residual element moves by at most s / 2 (the scale
calibration chose for x).

Which adds: same-shape f32 operands (no broadcasting), one of them the
single-use result of a conv2d / linear / matmul on a dequantized input (an
add fold-quantized will fold as that op's residual), the other read by a
quantize to i8 or ui8 with one scale and no zero point that comes before
the add.
After a linear or matmul, only where the add's result is quantized itself
(the stream goes on in int8): a transformer's residual stream feeds a
LayerNorm in float, where an int8 residual would save no task and double
the error (a 2-layer BERT: relative error 1.2% -> 2.5% L2, 2.1% -> 6.0%
max). Other adds stay as they are.
"""

from __future__ import annotations

from dataclasses import dataclass

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

from ge_dialect import ge
from ge_dialect.quant import QUANTIZED_TYPES
from passes.base import GEPass
from passes.fold_quantized import dequantized_input

MATRIX_OPS = (ge.Conv2dOp, ge.LinearOp, ge.MatMulOp)


def _quantized_matrix_result(value: SSAValue) -> bool:
    """A single-use result of a matrix op on a dequantized input."""
    op = value.owner
    return (isinstance(op, MATRIX_OPS) and value.has_one_use()
            and dequantized_input(op.operands[0]) is not None)


def _int8_stream(y: SSAValue, add: ge.AddOp) -> bool:
    """A conv's residual add, or one whose result is quantized (module doc)."""
    return isinstance(y.owner, ge.Conv2dOp) or any(
        isinstance(use.operation, ge.QuantizeOp) for use in add.output.uses)


def _quantize_of(value: SSAValue) -> Operation | None:
    """A reader of `value` quantizing it to i8 or ui8 with one scale and no zero point."""
    return next((use.operation for use in value.uses
                 if isinstance(use.operation, ge.QuantizeOp)
                 and use.operation.zero_point is None
                 and str(use.operation.output.type.element_type) in QUANTIZED_TYPES
                 and use.operation.per_tensor() is not None), None)


class QuantizeResidual(RewritePattern):
    """add(op(dq(..)), x) -> add(op(dq(..)), dq(q(x, s))) where q(x, s) exists."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, add: ge.AddOp, rewriter: PatternRewriter):
        a, b = add.operands
        if not (a.type == b.type == add.output.type) or str(a.type.element_type) != "f32":
            return
        for y, x in ((a, b), (b, a)):
            quantize = (_quantize_of(x) if _quantized_matrix_result(y) and _int8_stream(y, add)
                        else None)
            if (quantize is not None and quantize.parent_block() is add.parent_block()
                    and _before(quantize, add)):
                break
        else:
            return
        dq = ge.DequantizeOp(quantize.output, quantize.scale, None, quantize.axis.value.data)
        dq.output.name_hint = f"{x.name_hint}_residual" if x.name_hint else None
        rewriter.insert(dq, InsertPoint.before(add))
        add.operands = [dq.output if v is x else v for v in add.operands]
        rewriter.handle_operation_modification(add)


def _before(a: Operation, b: Operation) -> bool:
    """`a` precedes `b` in their block."""
    op = a.next_op
    while op is not None:
        if op is b:
            return True
        op = op.next_op
    return False


@dataclass(frozen=True)
class QuantizeResidualsPass(GEPass):
    """Read the float residual of each add after a quantized matrix op as
    dq(q(x, s)) when x is quantized anyway (see the module doc). Runs after
    quantize-static and before fold-quantized."""

    name = "quantize-residuals"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(GreedyRewritePatternApplier([QuantizeResidual()],
                                                         dce_enabled=False),
                             apply_recursively=False).rewrite_module(op)
