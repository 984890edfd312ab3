"""Article snippet: GraphExecutor, run, and the execution statistics.

    python examples/article/executor_stats.py
"""

from article_model import make

from npu_graph import GraphExecutor, NpuGraph

model, x = make()
optimized_graph = NpuGraph(model, input_spec=(x,)).optimize()

executor = GraphExecutor()
executor.load_graph(optimized_graph)
output = executor.run(input_data=x)

stats = executor.get_stats()
print(f"execution time: {stats['execution_time']:.3f} ms (simulated Ascend 910)")
print(f"memory usage:   {stats['memory_usage']:.2f} MB "
      f"(lower bound {stats['memory_lower_bound']:.2f} MB, no reuse {stats['memory_naive']:.2f} MB)")
print(f"host time:      {stats['host_time']:.2f} ms on this CPU")
for task in stats["tasks"]:
    print(f"  {task['name']:<20} {task['unit']:<6} stream {task['stream']}  {task['time']:.4f} ms")
