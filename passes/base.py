"""The two kinds of pass: on GE graphs (`GEPass`) and on Ascend task IR (`AscendPass`).

Every pass derives from one of them, so what the pipeline builder
(passes/pipelines.py) and the pass driver need to know about a pass is
declared once, on the class:

- `level`: the IR it works on, which orders it (GE-level passes, then the
  lowering, then Ascend-level passes): "ge", "ascend", or "lowering" for the
  pass that turns one into the other;
- `plans`: True if it writes the device plan (streams, events, the arena), so
  the guard rails check the plan after it (passes/driver/instrument.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.passes import ModulePass

LEVELS = ("ge", "lowering", "ascend")


@dataclass(frozen=True)
class GEPass(ModulePass):
    """A pass over GE IR (tensors); it leaves Ascend-level functions alone."""

    level: ClassVar[str] = "ge"
    plans: ClassVar[bool] = False


@dataclass(frozen=True)
class AscendPass(ModulePass):
    """A pass over lowered Ascend IR (tasks on buffers in one arena)."""

    level: ClassVar[str] = "ascend"
    plans: ClassVar[bool] = False
