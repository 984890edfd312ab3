"""Article snippet: memory planning for the "OOM after optimization" pitfall.

With a budget, the memory-reuse pass first reorders tasks to lower the peak;
if the graph still does not fit, compilation fails with the peak, the budget
and the tensors live at the peak.

    python examples/article/memory_planning.py
"""

from article_model import make

from npu_graph import CompileError, NpuGraph

model, x = make()
graph = NpuGraph(model, input_spec=(x,))

fits = graph.optimize(enable_memory_planning=True, memory_limit_mb=64)
fits(x)
print(f"within 64 MB: arena {fits.stats['memory_usage']:.2f} MB")

try:
    graph.optimize(enable_memory_planning=True, memory_limit_mb=8)
    raise SystemExit("a budget of 8 MB should not fit a 12 MB activation")
except CompileError as e:
    print(f"8 MB budget: {e}")
