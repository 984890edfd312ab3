"""`GraphOptimizer`: the article's `optimize(graph, passes=[...], enable_*=...)`.

The same call as `GEGraph.optimize` (npu_graph/graph.py): the pipeline
builder's stages (passes/pipelines.py `build_pipeline`) run as one, their
ge-opt spelling kept on the optimized graph as `pipeline`, so

    ge-opt model.mlir -p '<optimized.pipeline>'

reproduces it.
"""

from __future__ import annotations

from npu_graph.graph import CompileError, GEGraph, OptimizedGraph

__all__ = ["CompileError", "GraphOptimizer"]


class GraphOptimizer:
    """`GraphOptimizer().optimize(graph, passes=[...], enable_*=...)`."""

    def optimize(self, graph: GEGraph, passes: list[str] | None = None,
                 **keywords) -> OptimizedGraph:
        return graph.optimize(passes, **keywords)
