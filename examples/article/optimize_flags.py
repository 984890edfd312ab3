"""Article snippet: NpuGraph, optimize with flags, call the optimized graph.

    python examples/article/optimize_flags.py
"""

import torch
from article_model import make

from npu_graph import NpuGraph

model, x = make()

graph = NpuGraph(model, input_spec=(x,))
optimized_graph = graph.optimize(
    enable_op_fusion=True,
    enable_memory_reuse=True,
    enable_task_parallel=True,
    enable_hardware_mapping=True,
)
output = optimized_graph(x)

with torch.no_grad():
    error = (output - model(x)).abs().max().item()
print(f"pipeline: {optimized_graph.pipeline}")
optimized_graph.print()
print(f"output {tuple(output.shape)}, max |npu_graph - eager| = {error:.2e}")
assert error < 1e-4
