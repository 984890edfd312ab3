"""Optimization levels `ge-O0` .. `ge-O3`, and the GE article's pass names.

A level is a pass that runs a fixed list of GE-level passes, verifying the IR
after each one. Any pass can be switched off by name, ours or the article's:

    ge-opt model.mlir -p 'ge-O3{disable=op-fusion,ConstantFoldingPass}'

`layout-transform` (NC1HWC0) is not in a level yet: the host runtime's 5-D
kernels unpack to NCHW, so it costs host time until they are native; run it
before op-fusion to get it (see NC1HWC0_PIPELINE).

Levels stop at GE IR; `lower-to-ascend` and the Ascend passes come after.
`fusion-report=FILE` is passed on to op-fusion (see `ge-opt --fusion-report`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline

LEVELS: dict[str, tuple[str, ...]] = {
    "ge-O0": (),
    "ge-O1": ("canonicalize", "cse", "dce"),
    "ge-O2": ("canonicalize", "constant-fold", "fold-batch-norm", "cse", "dce"),
    "ge-O3": ("canonicalize", "constant-fold", "fold-batch-norm", "cse", "op-fusion", "dce",
              "hardware-mapping"),
}

# ge-O3 with the activations in NC1HWC0 from the first conv to the last.
NC1HWC0_PIPELINE = ("ge-O3{disable=op-fusion,hardware-mapping},layout-transform,cse,op-fusion,dce,"
                    "hardware-mapping")

# The names the GE article uses, mapped to ours.
ARTICLE_NAMES: dict[str, str] = {
    "OpFusionPass": "op-fusion",
    "ConstantFoldingPass": "constant-fold",
    "DeadCodeEliminationPass": "dce",
    "MemoryReusePass": "memory-reuse",
    "TaskParallelPass": "task-parallel",
    "HardwareMappingPass": "hardware-mapping",
}


def article_alias(cls: type[ModulePass], alias: str) -> type[ModulePass]:
    """`cls` under the article's name, so `-p OpFusionPass{...}` parses as op-fusion."""
    return dataclass(frozen=True)(
        type(alias, (cls,), {"name": alias, "__doc__": f"Alias of {cls.name}."}))


def canonical_name(name: str) -> str:
    return ARTICLE_NAMES.get(name, name)


def check_pass_names(names, known) -> list[str]:
    """Our names for `names`; an unknown one is an error that lists the valid ones."""
    result = [canonical_name(n) for n in names]
    unknown = [n for n, c in zip(names, result) if c not in known]
    if unknown:
        raise ValueError(f"unknown pass name(s) {', '.join(map(repr, unknown))}; known: "
                         f"{', '.join(sorted(known))} (or the article's "
                         f"{', '.join(ARTICLE_NAMES)})")
    return result


def run_passes(ctx: Context, module: ModuleOp, passes: list[ModulePass]) -> None:
    """Run `passes` in order, verifying the module after each (and instrumenting
    each on its own under an active passes.driver.instrument session)."""
    from passes.driver.instrument import pipeline_callback

    if passes:
        PassPipeline(tuple(passes), callback=pipeline_callback()).apply(ctx, module)


@dataclass(frozen=True)
class OptLevelPass(ModulePass):
    """Base of the ge-O<n> passes: run STAGES minus `disable`."""

    STAGES: ClassVar[tuple[str, ...]] = ()
    disable: tuple[str, ...] = ()
    fusion_report: str | None = None

    def __post_init__(self):
        # Checked when the pipeline is built: a bad name is a user error up front.
        self.stages()

    def stages(self) -> list[str]:
        from passes import get_all_passes

        known = set(get_all_passes()) | set(ARTICLE_NAMES.values())
        off = set(check_pass_names(self.disable, known))
        return [s for s in self.STAGES if s not in off]

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from passes import get_all_passes
        from passes.op_fusion import OpFusionPass

        registry = get_all_passes()
        run_passes(ctx, op, [
            OpFusionPass(report=self.fusion_report) if name == "op-fusion"
            else registry[name]()() for name in self.stages()])


@dataclass(frozen=True)
class GeO0Pass(OptLevelPass):
    """ge-O0: no optimization; the imported graph as is."""

    name = "ge-O0"
    STAGES = LEVELS["ge-O0"]


@dataclass(frozen=True)
class GeO1Pass(OptLevelPass):
    """ge-O1: cleanups only (canonicalize, cse, dce)."""

    name = "ge-O1"
    STAGES = LEVELS["ge-O1"]


@dataclass(frozen=True)
class GeO2Pass(OptLevelPass):
    """ge-O2: ge-O1 plus constant folding and BatchNorm folding."""

    name = "ge-O2"
    STAGES = LEVELS["ge-O2"]


@dataclass(frozen=True)
class GeO3Pass(OptLevelPass):
    """ge-O3: ge-O2 plus operator fusion, then hardware-mapping's unit and cost annotations."""

    name = "ge-O3"
    STAGES = LEVELS["ge-O3"]
