"""`GraphOptimizer`: the article's `optimize(graph, passes=[...], enable_*=...)`.

The call becomes one ge-opt pipeline string (passes/pipelines.py
`build_pipeline`), kept on the optimized graph as `pipeline`, so

    ge-opt model.mlir -p '<optimized.pipeline>'

reproduces it.
"""

from __future__ import annotations

from xdsl.utils.exceptions import PassFailedException

from npu_graph import compiler
from npu_graph.graph import GEGraph, OptimizedGraph
from passes.pipelines import build_pipeline


class CompileError(ValueError):
    """A pass refused the graph (for example, it does not fit `memory_limit_mb`)."""


class GraphOptimizer:
    """`GraphOptimizer().optimize(graph, passes=[...], enable_*=...)`."""

    def optimize(self, graph: GEGraph, passes: list[str] | None = None,
                 **keywords) -> OptimizedGraph:
        pipeline = build_pipeline(passes, **keywords)
        try:
            module = compiler.run_pipeline(graph.module.clone(), pipeline)
        except PassFailedException as e:  # e.g. over the memory budget: the user's to fix
            raise CompileError(str(e)) from None
        return OptimizedGraph(module, pipeline, graph.name)
