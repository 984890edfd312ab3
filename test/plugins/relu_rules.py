"""relu-rules: two ReLU rewrites, one of them deliberately wrong (ge-bisect's test case).

    max_pool2d(relu(x)) -> relu(max_pool2d(x))   correct: relu is monotonic
    relu(x) -> x  when x >= 0                    wrong: its x >= 0 test says
                                                 add(a, b) >= 0 if a >= 0 OR b >= 0
"""

from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from ge_dialect import ge

PASS_NAME = "relu-rules"


class SinkReluBelowMaxPool(RewritePattern):
    """max_pool2d(relu(x)) -> relu(max_pool2d(x)), so relu runs on the smaller tensor."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ge.MaxPool2dOp, rewriter: PatternRewriter):
        relu = op.input.owner
        if not isinstance(relu, ge.ReluOp) or not relu.output.has_one_use():
            return
        pool = ge.MaxPool2dOp.create(operands=[relu.input], result_types=[op.output.type],
                                     properties=dict(op.properties))
        rewriter.replace(op, [pool, ge.ReluOp(pool.output)])
        rewriter.erase(relu)


def non_negative(value: SSAValue) -> bool:
    op = value.owner
    if isinstance(op, ge.ReluOp):
        return True
    if isinstance(op, ge.MaxPool2dOp):
        return non_negative(op.input)
    if isinstance(op, ge.AddOp):
        return non_negative(op.lhs) or non_negative(op.rhs)  # BUG: must be `and`
    return False


class RemoveReluOfNonNegative(RewritePattern):
    """relu(x) -> x when x is known to be non-negative."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ge.ReluOp, rewriter: PatternRewriter):
        if non_negative(op.input):
            rewriter.replace(op, [], [op.input])


PATTERNS = [SinkReluBelowMaxPool(), RemoveReluOfNonNegative()]
