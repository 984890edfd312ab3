"""table-rules: a plugin that only adds to the built-in tables (no pass of its own).

    neg(neg(x)) -> x                   canonicalize (ge.neg has no Canonicalized trait)
    tanh(x) then neg -> one group      op-fusion, rule "tanh_neg"
"""

from ge_dialect import ge
from ge_dialect.patterns import Op, RewriteRule, Var
from passes.driver.plugins import register_canonicalization, register_fusion_rule
from passes.op_fusion import FusionRule

register_canonicalization(RewriteRule(
    "neg(neg(x)) -> x", Op(ge.NegOp, Op(ge.NegOp, Var("x"))), lambda m: m.x))
register_fusion_rule(FusionRule("tanh_neg", Op(ge.NegOp, Op(ge.TanhOp))), first=True)
