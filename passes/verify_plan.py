"""verify-plan: check every lowered function's device plan, change nothing.

The checks live in ge_dialect/plan_verifier.py (arena bounds and alignment,
event well-formedness, cross-stream uses covered by events, no overlap of
buffers that may be live at once). This pass runs them and fails with one
line naming the first violation, so a broken plan is a user error at the
command line (exit 1). Under `--verify-each`, ge-opt and the Python API also
run the checks after every pass that plans (passes/driver/instrument.py), and a
plan broken by such a pass is reported as that pass's bug.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import PassFailedException

from ge_dialect.plan_verifier import check_module, summary
from passes.base import AscendPass


@dataclass(frozen=True)
class VerifyPlanPass(AscendPass):
    """Check the memory plan, streams and events of every lowered function.

    Fails, naming buffers, offsets, sizes and tasks, if a buffer leaves the
    arena or is not 512-byte aligned, a wait has no earlier record, a task
    uses a value another stream writes without an event path, or two buffers
    that may be live at once share bytes. Functions without
    `ascend.arena_size` (not lowered) are skipped; the IR is left unchanged.
    """

    name = "verify-plan"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        problems = check_module(op)
        if problems:
            raise PassFailedException(f"verify-plan: {summary(problems)}")
