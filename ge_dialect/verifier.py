"""Whole-IR verification: xDSL's verifier plus the dominance rule it lacks.

xDSL 0.74 does not check that a value is defined before it is used in the
same block, so `%a = ge.relu %b` followed by `%b = ge.relu %a` (a cycle) or
a use above its definition verifies, and then the evaluator and the
lowering fail with a KeyError. MLIR rejects both ("operand does not dominate
this use"). The check is one linear walk per block; doing it per op in the
op verifiers would cost a walk per operand, quadratic on large graphs.

Every entry point that verifies IR (ge-opt, npu_graph, the tests) calls
`verify` instead of `op.verify()`.
"""

from xdsl.ir import Operation, OpResult
from xdsl.utils.exceptions import VerifyException


def check_dominance(root: Operation) -> None:
    """Every operand defined in the user's own block comes from an earlier op there."""
    for op in root.walk():
        for region in op.regions:
            for block in region.blocks:
                defined = set(block.args)
                for user in block.ops:
                    for i, operand in enumerate(user.operands):
                        if (isinstance(operand, OpResult) and operand.op.parent is block
                                and operand not in defined):
                            what = (f"%{operand.name_hint}" if operand.name_hint
                                    else f"operand #{i}")
                            where = ("it defines itself" if operand.op is user
                                     else f"'{operand.op.name}' defines further down")
                            error = VerifyException(
                                f"'{user.name}' uses {what}, which {where}: values must be "
                                "defined above their uses (no cycles)")
                            # For positioned diagnostics: the use, and a note at the definition.
                            error.op = user
                            error.related = [] if operand.op is user else [
                                (operand.op, f"{what} is defined here")]
                            raise error
                    defined.update(user.results)


def verify(root: Operation) -> None:
    root.verify()
    check_dominance(root)
