"""cse: xDSL's common subexpression elimination, as a GE-level pass."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.transforms.common_subexpression_elimination import CommonSubexpressionElimination

from passes.base import GEPass


@dataclass(frozen=True)
class CommonSubexpressionEliminationPass(GEPass, CommonSubexpressionElimination):
    """Merge ops that compute the same value from the same operands (xDSL's cse)."""

    name = "cse"
