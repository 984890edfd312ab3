"""sub-rules: a wrong canonical order for subtraction (ge-fuzz's test case).

    a - c -> c - a  when c is a constant     wrong: subtraction does not commute
"""

from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from ge_dialect import ge

PASS_NAME = "sub-rules"


class ConstantFirstInSub(RewritePattern):
    """a - c -> c - a with c a constant (BUG: should be -(c - a))."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ge.SubOp, rewriter: PatternRewriter):
        if isinstance(op.rhs.owner, ge.ConstOp) and not isinstance(op.lhs.owner, ge.ConstOp):
            rewriter.replace(op, ge.SubOp(op.rhs, op.lhs))


PATTERNS = [ConstantFirstInSub()]
