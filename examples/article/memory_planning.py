"""Article snippet: memory planning for the "OOM after optimization" pitfall.

As the article writes it, memory planning without a budget plans for the
smallest peak: the memory-reuse pass reorders tasks when an order has a lower
peak than program order, and the stats say what it planned. With a budget it
does the same, and if the graph still does not fit, compilation fails with
the peak, the budget and the tensors live at the peak.

    python examples/article/memory_planning.py
"""

from article_model import make

from npu_graph import CompileError, GraphOptimizer, NpuGraph

model, x = make()
graph = NpuGraph(model, input_spec=(x,))

optimizer = GraphOptimizer()
planned = optimizer.optimize(graph, enable_memory_reuse=True, enable_memory_planning=True)
planned(x)
stats = planned.stats
before = stats["memory_program_order"]
print(f"smallest peak: arena {stats['memory_usage']:.2f} MB, lower bound "
      f"{stats['memory_lower_bound']:.2f} MB, without reuse {stats['memory_naive']:.2f} MB, "
      + (f"program order {before:.2f} MB" if before is not None
         else "program order already has the lowest peak found"))

fits = graph.optimize(enable_memory_planning=True, memory_limit_mb=64)
fits(x)
print(f"within 64 MB: arena {fits.stats['memory_usage']:.2f} MB")

try:
    graph.optimize(enable_memory_planning=True, memory_limit_mb=8)
    raise SystemExit("a budget of 8 MB should not fit a 12 MB activation")
except CompileError as e:
    print(f"8 MB budget: {e}")
