"""Pass registry: CLI name -> factory returning the pass class.

Factories import lazily, so `ge-opt` pays only for the passes it runs. Both
`ge-opt` and the `npu_graph` Python API read this table; a test checks that
every key equals its pass's `name` and has `test/filecheck/passes/<name>.mlir`.
Passes loaded from plugin files (passes/driver/plugins.py) are merged in.
"""

from collections.abc import Callable

from xdsl.passes import ModulePass


def _fold_batch_norm():
    from passes.fold_batch_norm import FoldBatchNormPass

    return FoldBatchNormPass


def _op_fusion():
    from passes.op_fusion import OpFusionPass

    return OpFusionPass


def _canonicalize():
    from passes.canonicalize import GeCanonicalizePass

    return GeCanonicalizePass


def _cse():
    from xdsl.transforms.common_subexpression_elimination import (
        CommonSubexpressionElimination,
    )

    return CommonSubexpressionElimination


def _constant_fold():
    from passes.constant_fold import ConstantFoldPass

    return ConstantFoldPass


def _dce():
    from passes.dce import DeadCodeEliminationPass

    return DeadCodeEliminationPass


def _layout_transform():
    from passes.layout_transform import LayoutTransformPass

    return LayoutTransformPass


def _hardware_mapping():
    from passes.hardware_mapping import HardwareMappingPass

    return HardwareMappingPass


def _precision_mode():
    from passes.precision_mode import PrecisionModePass

    return PrecisionModePass


def _lower_to_ascend():
    from lowering.ge_to_ascend import LowerToAscendPass

    return LowerToAscendPass


def _level(name: str):
    def factory():
        from passes import pipelines

        return {cls.name: cls for cls in (pipelines.GeO0Pass, pipelines.GeO1Pass,
                                          pipelines.GeO2Pass, pipelines.GeO3Pass)}[name]

    return factory


def _memory_reuse():
    from passes.memory_reuse import MemoryReusePass

    return MemoryReusePass


def _task_parallel():
    from passes.task_parallel import TaskParallelPass

    return TaskParallelPass


def _pipeline_partition():
    from passes.pipeline_partition import PipelinePartitionPass

    return PipelinePartitionPass


def _verify_plan():
    from passes.verify_plan import VerifyPlanPass

    return VerifyPlanPass


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Built-in passes plus those of loaded plugins."""
    from passes.driver.plugins import registered_passes

    return {**builtin_passes(), **registered_passes()}


def builtin_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    return {
        "ge-O0": _level("ge-O0"),
        "ge-O1": _level("ge-O1"),
        "ge-O2": _level("ge-O2"),
        "ge-O3": _level("ge-O3"),
        "canonicalize": _canonicalize,
        "constant-fold": _constant_fold,
        "cse": _cse,
        "fold-batch-norm": _fold_batch_norm,
        "op-fusion": _op_fusion,
        "dce": _dce,
        "layout-transform": _layout_transform,
        "hardware-mapping": _hardware_mapping,
        "precision-mode": _precision_mode,
        "lower-to-ascend": _lower_to_ascend,
        "memory-reuse": _memory_reuse,
        "task-parallel": _task_parallel,
        "pipeline-partition": _pipeline_partition,
        "verify-plan": _verify_plan,
    }
