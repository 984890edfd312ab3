"""The Python API of the GE article, and TorchAir's torch.compile door.

    from npu_graph import NpuGraph, GraphParser, GraphOptimizer, GraphExecutor, custom_op
    torch.compile(model, backend="ge")   # or backend=npu_graph.get_npu_backend(...)

On the CPU there is no `.npu()` or `device='npu'`: inputs are plain CPU
tensors, the runtime computes on the host and simulates the Ascend timeline.
The stage functions (import_model, optimize, lower, ...) are in
`npu_graph.compiler`.
"""

from npu_graph.artifact import NpuFileError
from npu_graph.backend import CompilerConfig, explain, get_npu_backend, register_backend
from npu_graph.custom_op import custom_op
from npu_graph.graph_executor import GraphExecutor
from npu_graph.graph import GEGraph, GraphParser, NpuGraph, OptimizedGraph
from npu_graph.optimizer import CompileError, GraphOptimizer
from npu_graph.quantize import QuantizeError, quantize

load = NpuGraph.load
register_backend()

__all__ = ["CompileError", "CompilerConfig", "GEGraph", "GraphExecutor", "GraphOptimizer",
           "GraphParser", "NpuFileError", "NpuGraph", "OptimizedGraph", "custom_op", "explain",
           "get_npu_backend", "load", "quantize", "QuantizeError"]
