"""layout-transform: run cube ops and their neighbours in Ascend's NC1HWC0 format.

Three rules, applied greedily until nothing changes:

    conv2d(x)                    -> to_nchw(conv2d(to_5hd(x)))           convs go 5-D
    op(to_nchw(a), ...)          -> to_nchw(op(a, ...))                  neighbours follow
    to_5hd(to_nchw(a))           -> a                                    conversions cancel

`op` is a layout-agnostic neighbour: relu, same-shape add/mul, max pooling
and adaptive average pooling. The back conversion thus sinks through every
neighbour until something needs NCHW (flatten, linear, a broadcasting op, the
function's results), and a conv that consumes a 5-D value cancels its input
conversion: a ResNet stays in NC1HWC0 from its first conv to its last pool.
Explicit `ge.trans_data` ops mark every remaining format boundary.
"""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, OpResult, SSAValue
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from ge_dialect import ge
from ge_dialect.canonicalization import CANCEL_TRANS_DATA
from passes.base import GEPass

NCHW, FIVE_D = "NCHW", "NC1HWC0"
UNARY_NEIGHBOURS = (ge.ReluOp, ge.MaxPool2dOp, ge.AdaptiveAvgPool2dOp)
BINARY_NEIGHBOURS = (ge.AddOp, ge.MulOp)


def is_to_nchw(value: SSAValue) -> bool:
    return (isinstance(value, OpResult) and isinstance(value.op, ge.TransDataOp)
            and value.op.dst_format.data == NCHW)


def to_nchw(value: SSAValue, channels: int) -> ge.TransDataOp:
    return ge.TransDataOp(value, FIVE_D, NCHW, channels)


def in_5hd(value: SSAValue) -> tuple[list[Operation], SSAValue]:
    """`value` in NC1HWC0: the source of its back conversion, or a new conversion."""
    if is_to_nchw(value):
        return [], value.op.input
    convert = ge.TransDataOp(value, NCHW, FIVE_D)
    return [convert], convert.output


def rebuild_5d(op: Operation, operands: list[SSAValue]) -> Operation:
    """`op` again, on 5-D operands (result types re-inferred)."""
    if isinstance(op, ge.Conv2dOp):
        bias = operands[2] if len(operands) > 2 else None
        return ge.Conv2dOp(operands[0], operands[1], bias, op.stride.get_values(),
                           op.padding.get_values(), op.dilation.get_values(),
                           op.groups.value.data)
    if isinstance(op, ge.MaxPool2dOp):
        return ge.MaxPool2dOp(operands[0], op.kernel_size.get_values(), op.stride.get_values(),
                              op.padding.get_values(), op.dilation.get_values(),
                              bool(op.ceil_mode.value.data))
    if isinstance(op, ge.AdaptiveAvgPool2dOp):
        return ge.AdaptiveAvgPool2dOp(operands[0], op.output_size.get_values())
    return type(op)(*operands)


def move_to_5hd(op: Operation, rewriter: PatternRewriter, converted: int) -> None:
    """Rewrite `op` to take its first `converted` operands in NC1HWC0 and convert back."""
    new_ops, operands = [], []
    for i, v in enumerate(op.operands):
        if i < converted:
            ops, v = in_5hd(v)
            new_ops += ops
        operands.append(v)
    five_d = rebuild_5d(op, operands)
    back = to_nchw(five_d.results[0], op.results[0].type.get_shape()[1])
    rewriter.replace(op, [*new_ops, five_d, back])


class ConvToNC1HWC0(RewritePattern):
    """conv2d(x : NCHW) -> to_nchw(conv2d(to_5hd(x)))"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ge.Conv2dOp, rewriter: PatternRewriter):
        if len(op.input.type.get_shape()) == 4:
            move_to_5hd(op, rewriter, converted=1)


class SinkBackConversion(RewritePattern):
    """op(to_nchw(a), ...) -> to_nchw(op(a, ...)) for layout-agnostic neighbours."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if isinstance(op, UNARY_NEIGHBOURS):
            if is_to_nchw(op.operands[0]):
                move_to_5hd(op, rewriter, converted=1)
        elif isinstance(op, BINARY_NEIGHBOURS):
            same = op.lhs.type == op.rhs.type == op.output.type
            if same and len(op.lhs.type.get_shape()) == 4 and any(map(is_to_nchw, op.operands)):
                move_to_5hd(op, rewriter, converted=2)


@dataclass(frozen=True)
class LayoutTransformPass(GEPass):
    """Convert convolutions and their neighbours to NC1HWC0, with explicit ge.trans_data.

    Assumes 4-D NCHW activations (the importer's format). Values that leave
    the 5-D region (results, flatten, linear, broadcasting ops) are converted
    back, so outputs are unchanged.
    """

    name = "layout-transform"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(GreedyRewritePatternApplier(
            [ConvToNC1HWC0(), SinkBackConversion(), CANCEL_TRANS_DATA])).rewrite_module(op)
