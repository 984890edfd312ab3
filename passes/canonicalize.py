"""canonicalize: xDSL's canonicalize, with the GE rule table for every op.

The table (ge_dialect/canonicalization.py, plus rules plugins register)
applies to any op by its kind, so a new canonicalization is one table line
whatever the op's traits; folding and dead-op removal are xDSL's.
"""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker
from xdsl.transforms.canonicalize import CanonicalizePass
from xdsl.transforms.dead_code_elimination import region_dce

from ge_dialect.canonicalization import TableCanonicalization
from passes.base import GEPass


@dataclass(frozen=True)
class GeCanonicalizePass(GEPass, CanonicalizePass):
    """Apply every canonicalization (the GE rule table, op traits, folders) to a fixpoint."""

    name = "canonicalize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        pattern = GreedyRewritePatternApplier([TableCanonicalization()], ctx=ctx,
                                              folding_enabled=True)
        PatternRewriteWalker(pattern, post_walk_func=region_dce).rewrite_module(op)
