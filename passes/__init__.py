"""Pass registry: CLI name -> factory returning the pass class.

Factories import lazily, so `ge-opt` pays only for the passes it runs. Both
`ge-opt` and the `npu_graph` Python API read this table; a test checks that
every key equals its pass's `name` and has `test/filecheck/passes/<name>.mlir`.
"""

from collections.abc import Callable

from xdsl.passes import ModulePass


def _fold_batch_norm():
    from passes.fold_batch_norm import FoldBatchNormPass

    return FoldBatchNormPass


def _op_fusion():
    from passes.op_fusion import OpFusionPass

    return OpFusionPass


def _dce():
    from passes.dce import DeadCodeEliminationPass

    return DeadCodeEliminationPass


def _lower_to_ascend():
    from lowering.ge_to_ascend import LowerToAscendPass

    return LowerToAscendPass


def _memory_reuse():
    from passes.memory_reuse import MemoryReusePass

    return MemoryReusePass


def _task_parallel():
    from passes.task_parallel import TaskParallelPass

    return TaskParallelPass


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    return {
        "fold-batch-norm": _fold_batch_norm,
        "op-fusion": _op_fusion,
        "dce": _dce,
        "lower-to-ascend": _lower_to_ascend,
        "memory-reuse": _memory_reuse,
        "task-parallel": _task_parallel,
    }
