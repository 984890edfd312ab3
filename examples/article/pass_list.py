"""Article snippet: GraphOptimizer with an explicit pass list, one pass commented out.

    python examples/article/pass_list.py
"""

import torch
from article_model import make

from npu_graph import GraphOptimizer, GraphParser

model, x = make()
ge_graph = GraphParser().parse_pytorch_model(model, input_spec=(x,))

optimizer = GraphOptimizer()
optimized = optimizer.optimize(ge_graph, passes=[
    "ConstantFoldingPass",
    "OpFusionPass",
    "DeadCodeEliminationPass",
    "MemoryReusePass",
    # "TaskParallelPass",     # switched off: everything on one stream
    "HardwareMappingPass",
])
print(f"pipeline: {optimized.pipeline}")
optimized.print()
with torch.no_grad():
    error = (optimized(x) - model(x)).abs().max().item()
print(f"max |npu_graph - eager| = {error:.2e}")
assert error < 1e-4
assert optimized.stats["num_streams"] == 1
