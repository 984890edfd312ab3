"""ge-opt plus test-only passes that misbehave on purpose, for the crash-guard tests.

    python -m test.ge_opt_with_test_passes <ge-opt arguments>

It is ge-opt's own driver, extended the way a plugin would extend it (a
subclass that registers more passes), so production code needs no hooks.
"""

import sys
from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from ge_dialect import ge
from tools.ge_opt import GeOptMain, main

ERRORS = {"RuntimeError": RuntimeError, "ValueError": ValueError, "KeyError": KeyError}


def first_relu(op: Operation) -> ge.ReluOp | None:
    return next((o for o in op.walk() if isinstance(o, ge.ReluOp)), None)


@dataclass(frozen=True)
class CrashOnReluPass(ModulePass):
    """Raises `error` when the module has a ge.relu: a bug in a pass."""

    name = "test-crash-on-relu"
    error: str = "RuntimeError"

    def apply(self, ctx, op):
        if first_relu(op) is not None:
            raise ERRORS[self.error]("test-crash-on-relu met a ge.relu")


@dataclass(frozen=True)
class BreakIRPass(ModulePass):
    """Adds a ge.reshape to a wrong element count after the first ge.relu: a pass
    whose output does not verify."""

    name = "test-break-ir"

    def apply(self, ctx, op):
        relu = first_relu(op)
        if relu is not None and isinstance(relu.parent_op(), func.FuncOp):
            relu.parent.insert_op_after(ge.ReshapeOp(relu.output, [999]), relu)


class GeOptWithTestPasses(GeOptMain):
    def register_all_passes(self):
        super().register_all_passes()
        for cls in (CrashOnReluPass, BreakIRPass):
            self.register_pass(cls.name, lambda cls=cls: cls)


if __name__ == "__main__":
    sys.exit(main(tool_class=GeOptWithTestPasses))
