"""`GraphExecutor`: load a graph (object or `.npu`/`.mlir` path), run it, read its stats.

    executor = GraphExecutor()
    executor.load_graph("resnet50_optimized.npu")
    output = executor.run(input_data=x)
    stats = executor.get_stats()   # execution_time (ms), memory_usage (MB), ...

`run` takes the inputs positionally, as `input_data=` (one tensor or a
sequence), or as a dict keyed by the graph's input names. This is the
article's face over the runtime's `Executable` (runtime/executor.py), which
does the loading and running.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import torch

from npu_graph.graph import GEGraph, OptimizedGraph
from runtime.program import InputError


class GraphExecutor:
    def __init__(self):
        self.graph: OptimizedGraph | None = None

    def load_graph(self, graph_or_path) -> GraphExecutor:
        """An optimized graph, a parsed graph (run unoptimized: lowered as is,
        one stream, no memory reuse), or the path of a `.npu` or Ascend `.mlir` file."""
        if isinstance(graph_or_path, OptimizedGraph):
            self.graph = graph_or_path
        elif isinstance(graph_or_path, GEGraph):
            from npu_graph.optimizer import GraphOptimizer

            self.graph = GraphOptimizer().optimize(graph_or_path, passes=[])
        elif isinstance(graph_or_path, str | Path):
            self.graph = _load_path(Path(graph_or_path))
        else:
            raise TypeError("load_graph takes an optimized graph, a parsed graph or a path, "
                            f"not {type(graph_or_path).__name__}")
        self.graph.executable  # load now: a bad graph fails here, not at the first run
        return self

    def run(self, *inputs, input_data=None):
        """The graph's output(s) for the given inputs: one tensor, or a tuple."""
        if self.graph is None:
            raise RuntimeError("no graph loaded; call load_graph(graph_or_path) first")
        if input_data is not None:
            if inputs:
                raise InputError("give the inputs either positionally or as input_data=, "
                                 "not both")
            inputs = self._arrange(input_data)
        return self.graph(*inputs)

    def _arrange(self, data) -> tuple[torch.Tensor, ...]:
        if isinstance(data, torch.Tensor):
            return (data,)
        if isinstance(data, Mapping):
            names = self.graph.input_names
            unknown = sorted(set(data) - set(names))
            missing = [n for n in names if n not in data]
            if unknown or missing:
                raise InputError(f"input_data keys must be the graph's inputs "
                                 f"({', '.join(names)}); unknown: {', '.join(unknown) or '-'}, "
                                 f"missing: {', '.join(missing) or '-'}")
            return tuple(data[n] for n in names)
        if isinstance(data, Sequence):
            return tuple(data)
        raise InputError(f"input_data must be a tensor, a sequence of tensors or a dict, "
                         f"not {type(data).__name__}")

    def get_stats(self) -> dict:
        """The runtime's stats of the last run (see runtime/executor.py `stats`)."""
        if self.graph is None:
            raise RuntimeError("no graph loaded; call load_graph(graph_or_path) first")
        return self.graph.stats

    def export_chrome_trace(self, path: str) -> str:
        """The simulated device timeline, for Perfetto / chrome://tracing."""
        self.graph.executable.export_chrome_trace(path)
        return path


def _load_path(path: Path) -> OptimizedGraph:
    from npu_graph.artifact import NpuFileError, load

    if path.suffix == ".mlir":
        from xdsl.parser import Parser

        from ge_dialect import make_context

        if not path.is_file():
            raise NpuFileError(f"{path}: no such file (expected Ascend IR from "
                               "ge-opt -p ...,lower-to-ascend)")
        module = Parser(make_context(), path.read_text(), str(path)).parse_module()
        return OptimizedGraph(module, name=path.stem)
    return load(str(path))
