"""relu-idempotent: a correct ReLU rewrite (ge-fuzz's no-finding test case).

    relu(relu(x)) -> relu(x)
"""

from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from ge_dialect import ge

PASS_NAME = "relu-idempotent"


class DropReluOfRelu(RewritePattern):
    """relu(relu(x)) -> relu(x): the inner relu already made its input non-negative."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ge.ReluOp, rewriter: PatternRewriter):
        if isinstance(op.input.owner, ge.ReluOp):
            rewriter.replace(op, [], [op.input])


PATTERNS = [DropReluOfRelu()]
