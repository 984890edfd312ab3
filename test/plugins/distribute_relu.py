"""distribute-relu: a wrong distribution of relu over add (ge-fuzz's targeted test case).

    relu(a + b) -> relu(a) + relu(b)     wrong: equal only where a and b have the same sign
"""

from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from ge_dialect import ge

PASS_NAME = "distribute-relu"


class DistributeReluOverAdd(RewritePattern):
    """relu(a + b) -> relu(a) + relu(b) (BUG: relu is not additive)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ge.ReluOp, rewriter: PatternRewriter):
        add = op.input.owner
        if not isinstance(add, ge.AddOp) or add.output.type != op.output.type:
            return
        left, right = ge.ReluOp(add.lhs), ge.ReluOp(add.rhs)
        rewriter.replace(op, [left, right, ge.AddOp(left.output, right.output)])


PATTERNS = [DistributeReluOverAdd()]
