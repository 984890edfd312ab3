"""dce: dead code elimination over GE and Ascend IR."""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.transforms.dead_code_elimination import region_dce

from passes.base import GEPass


@dataclass(frozen=True)
class DeadCodeEliminationPass(GEPass):
    """Remove side-effect-free ops whose results are unused, weights included.

    GE ops are Pure, so any op not reaching a func.return goes, and so do the
    ge.const weights only it used. Ascend tasks and events write memory and
    are never removed. Liveness-based (xDSL's region_dce), so dead cycles
    through regions go too.
    """

    name = "dce"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        region_dce(op.body)
