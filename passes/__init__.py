"""Pass registry: the table of CLI names to passes.

Each entry names the module and class of a pass, imported on first use, so
`ge-opt` pays only for the passes it runs. `ge-opt`, the pipeline builder and
the `npu_graph` API read this table; a test checks that every key equals its
pass's `name` and has `test/filecheck/passes/<name>.mlir`. The passes of
loaded plugin files join through the table that passes/driver/plugins.py
adds with `add_plugin_table`. The registry imports none of our modules, so
any of them may import it.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from importlib import import_module

from xdsl.passes import ModulePass

PassFactory = Callable[[], type[ModulePass]]

# name -> "module:Class"
PASSES: dict[str, str] = {
    "ge-O0": "passes.pipelines:GeO0Pass",
    "ge-O1": "passes.pipelines:GeO1Pass",
    "ge-O2": "passes.pipelines:GeO2Pass",
    "ge-O3": "passes.pipelines:GeO3Pass",
    "canonicalize": "passes.canonicalize:GeCanonicalizePass",
    "constant-fold": "passes.constant_fold:ConstantFoldPass",
    "cse": "passes.cse:CommonSubexpressionEliminationPass",
    "fold-batch-norm": "passes.fold_batch_norm:FoldBatchNormPass",
    "merge-parallel-linears": "passes.merge_parallel_linears:MergeParallelLinearsPass",
    "op-fusion": "passes.op_fusion:OpFusionPass",
    "dce": "passes.dce:DeadCodeEliminationPass",
    "layout-transform": "passes.layout_transform:LayoutTransformPass",
    "hardware-mapping": "passes.hardware_mapping:HardwareMappingPass",
    "precision-mode": "passes.precision_mode:PrecisionModePass",
    "quantize-static": "passes.quantize_static:QuantizeStaticPass",
    "quantize-residuals": "passes.quantize_residuals:QuantizeResidualsPass",
    "fold-quantized": "passes.fold_quantized:FoldQuantizedPass",
    "quantize-weights": "passes.quantize_weights:QuantizeWeightsPass",
    "lower-to-ascend": "lowering.ge_to_ascend:LowerToAscendPass",
    "memory-reuse": "passes.memory_reuse:MemoryReusePass",
    "task-parallel": "passes.task_parallel:TaskParallelPass",
    "pipeline-partition": "passes.pipeline_partition:PipelinePartitionPass",
    "verify-plan": "passes.verify_plan:VerifyPlanPass",
}

# The names the GE article uses, mapped to ours.
ARTICLE_NAMES: dict[str, str] = {
    "OpFusionPass": "op-fusion",
    "ConstantFoldingPass": "constant-fold",
    "DeadCodeEliminationPass": "dce",
    "MemoryReusePass": "memory-reuse",
    "TaskParallelPass": "task-parallel",
    "HardwareMappingPass": "hardware-mapping",
}

# Tables of plugin passes, each read at every lookup (plugins load at any time).
_PLUGIN_TABLES: list[Callable[[], dict[str, PassFactory]]] = []


def load_pass(path: str) -> type[ModulePass]:
    """The class a PASSES entry ("module:Class") names."""
    module, _, cls = path.partition(":")
    return getattr(import_module(module), cls)


def builtin_passes() -> dict[str, PassFactory]:
    return {name: partial(load_pass, path) for name, path in PASSES.items()}


def get_all_passes() -> dict[str, PassFactory]:
    """Built-in passes plus those of loaded plugins, name -> factory (as xDSL's)."""
    passes = builtin_passes()
    for table in _PLUGIN_TABLES:
        passes.update(table())
    return passes


def add_plugin_table(table: Callable[[], dict[str, PassFactory]]) -> None:
    """Let `get_all_passes` include what `table()` returns (the loaded plugins' passes)."""
    if table not in _PLUGIN_TABLES:
        _PLUGIN_TABLES.append(table)


def canonical_name(name: str) -> str:
    """Our name for a pass the article names (`OpFusionPass` -> `op-fusion`)."""
    return ARTICLE_NAMES.get(name, name)
