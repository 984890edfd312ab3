"""The Python API of the GE article.

    from npu_graph import NpuGraph, GraphParser, GraphOptimizer, GraphExecutor, custom_op

On the CPU there is no `.npu()` or `device='npu'`: inputs are plain CPU
tensors, the runtime computes on the host and simulates the Ascend timeline.
The stage functions (import_model, optimize, lower, ...) are in
`npu_graph.compiler`.
"""

from npu_graph.artifact import NpuFileError
from npu_graph.custom_op import custom_op
from npu_graph.graph_executor import GraphExecutor
from npu_graph.graph import GEGraph, GraphParser, NpuGraph, OptimizedGraph
from npu_graph.optimizer import CompileError, GraphOptimizer

load = NpuGraph.load

__all__ = ["CompileError", "GEGraph", "GraphExecutor", "GraphOptimizer", "GraphParser", "NpuFileError",
           "NpuGraph", "OptimizedGraph", "custom_op", "load"]
