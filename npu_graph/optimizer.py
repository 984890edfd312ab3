"""`GraphOptimizer`: the article's flags and pass lists, turned into one ge-opt pipeline.

Whatever the caller gives (`enable_*` keywords, a `passes=[...]` list with the
article's names or ours, or both), the result is a single pipeline string,
kept on the optimized graph as `pipeline`, so

    ge-opt model.mlir -p '<optimized.pipeline>'

reproduces it. GE-level passes run first, then `lower-to-ascend`, then the
Ascend-level passes (streams and the memory plan).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.utils.exceptions import PassFailedException

from npu_graph import compiler
from npu_graph.graph import GEGraph, OptimizedGraph
from passes import get_all_passes
from passes.pipelines import LEVELS, check_pass_names

# Passes that work on lowered (Ascend) IR; the others run before lowering.
ASCEND_PASSES = ("task-parallel", "memory-reuse", "verify-plan")
DEFAULT_MAX_STREAMS = 4


@dataclass
class Flags:
    """The keywords of the article's `optimize(...)`; each `enable_*` switches one pass."""

    enable_op_fusion: bool = True
    enable_memory_reuse: bool = True
    enable_task_parallel: bool = True
    enable_hardware_mapping: bool = True
    enable_constant_folding: bool = True
    enable_dead_code_elimination: bool = True
    enable_memory_planning: bool = False
    memory_limit_mb: float | None = None
    precision_mode: str | None = None
    max_streams: int = DEFAULT_MAX_STREAMS

    def switched_off(self) -> set[str]:
        off = {"op-fusion": self.enable_op_fusion, "memory-reuse": self.enable_memory_reuse,
               "task-parallel": self.enable_task_parallel,
               "hardware-mapping": self.enable_hardware_mapping,
               "constant-fold": self.enable_constant_folding,
               "dce": self.enable_dead_code_elimination}
        return {name for name, on in off.items() if not on}


def default_passes() -> list[str]:
    """ge-O3 (its last stage is hardware-mapping), then streams before the memory
    plan, as GE does."""
    return [*LEVELS["ge-O3"], "task-parallel", "memory-reuse"]


def with_precision(ge_level: list[str], mode: str) -> list[str]:
    """`precision-mode` after fusion (a cast between conv and BN or ReLU would hide
    both), the cleanups that cancel its casts, then hardware-mapping again so the
    annotations describe the fp16 ops."""
    mapped = "hardware-mapping" in ge_level
    rest = [n for n in ge_level if n != "hardware-mapping"]
    return [*rest, f"precision-mode{{mode={mode}}}", "canonicalize", "cse", "dce",
            *(["hardware-mapping"] if mapped else [])]


def build_pipeline(passes: list[str] | None = None, **keywords) -> str:
    """The ge-opt pipeline for an article-style call; a bad name or flag is a ValueError."""
    try:
        flags = Flags(**keywords)
    except TypeError:
        known = ", ".join(Flags.__dataclass_fields__)
        bad = ", ".join(sorted(set(keywords) - set(Flags.__dataclass_fields__)))
        raise ValueError(f"unknown optimize() keyword(s) {bad}; known: {known}") from None
    names = default_passes() if passes is None else check_pass_names(list(passes),
                                                                     set(get_all_passes()))
    off = flags.switched_off()
    # A level in a pass list (`passes=["ge-O3", ...]`) gets the switches too.
    names = [f"{n}{{disable={','.join(sorted(off))}}}" if n in LEVELS and off else n
             for n in names if n not in off]
    planning = flags.enable_memory_planning or flags.memory_limit_mb is not None
    if planning:
        if flags.memory_limit_mb is None:
            raise ValueError("enable_memory_planning needs memory_limit_mb (the budget in MB)")
        if "memory-reuse" not in names:
            raise ValueError("memory planning is a mode of the memory-reuse pass "
                             "(MemoryReusePass); enable it to plan within memory_limit_mb")
        if passes is None:  # plan memory first, so tasks can still be reordered to fit
            names.remove("memory-reuse")
            names.insert(names.index("task-parallel") if "task-parallel" in names else len(names),
                         "memory-reuse")
    ge_level = [n for n in names if n not in ASCEND_PASSES]
    if flags.precision_mode is not None:
        ge_level = with_precision(ge_level, flags.precision_mode)
    device = []
    for name in (n for n in names if n in ASCEND_PASSES):
        if name == "task-parallel":
            name += f"{{max-streams={flags.max_streams}}}"
        elif name == "memory-reuse" and planning:
            name += f"{{memory-limit-mb={flags.memory_limit_mb:g}}}"
        device.append(name)
    return ",".join([*ge_level, "lower-to-ascend", *device])


class CompileError(ValueError):
    """A pass refused the graph (for example, it does not fit `memory_limit_mb`)."""


class GraphOptimizer:
    """`GraphOptimizer().optimize(graph, passes=[...], enable_*=...)`."""

    def optimize(self, graph: GEGraph, passes: list[str] | None = None,
                 **keywords) -> OptimizedGraph:
        pipeline = build_pipeline(passes, **keywords)
        try:
            module = compiler.run_pipeline(graph.module.clone(), pipeline)
        except PassFailedException as e:  # e.g. over the memory budget: the user's to fix
            raise CompileError(str(e)) from None
        return OptimizedGraph(module, pipeline, graph.name)
