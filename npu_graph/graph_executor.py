"""`GraphExecutor`: load a graph (object or `.npu`/`.mlir` path), run it, read its stats.

    executor = GraphExecutor()
    executor.load_graph("resnet50_optimized.npu")
    output = executor.run(input_data=x)
    future = executor.run_async(input_data=x)    # a concurrent.futures.Future
    for y in executor.run_pipelined(batches): ... # in order, the next batch prepared meanwhile
    stats = executor.get_stats()   # execution_time (ms), memory_usage (MB), ...

`run` takes the inputs positionally, as `input_data=` (one tensor or a
sequence), or as a dict keyed by the graph's input names. This is the
article's face over the runtime's `Executable` (runtime/executor.py), which
does the loading and running.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import torch

from npu_graph.distributed import COLLECTIVE_TIMEOUT_S, STARTUP_TIMEOUT_S
from npu_graph.graph import GEGraph, OptimizedGraph
from runtime.program import InputError, check_inputs

PARALLEL = ("data", "pipeline")   # how GraphExecutor(devices=N) uses the cards
_END = object()


class GraphExecutor:
    """`max_inflight` caps the runs in flight at once (`run` from several threads,
    `run_async`): each has an arena of its own (runtime/executor.py).
    `devices` > 1 runs each batch on that many cards, each a torch.distributed
    rank: `parallel="data"` splits the batch across them (npu_graph/distributed.py;
    the graph is compiled for one card's share), `parallel="pipeline"` cuts the
    graph into one stage per card and streams `micro_batches` micro-batches
    through them (npu_graph/pipeline_parallel.py; the graph is compiled for one
    micro-batch).

    On several cards this process is rank 0 and holds the deadlines: the other
    ranks must join within `startup_timeout` seconds and answer each collective
    within `collective_timeout`. A rank that exits or misses a deadline is a
    `RankError` naming the rank, its exit code and the end of its stderr; the
    other ranks are stopped then, and the executor cannot run again."""

    def __init__(self, max_inflight: int | None = None, devices: int = 1,
                 parallel: str = "data", micro_batches: int | None = None,
                 startup_timeout: float = STARTUP_TIMEOUT_S,
                 collective_timeout: float = COLLECTIVE_TIMEOUT_S):
        if not isinstance(devices, int) or devices < 1:
            raise ValueError(f"devices must be an integer >= 1, got {devices!r}")
        if parallel not in PARALLEL:
            raise ValueError(f"parallel must be one of {', '.join(map(repr, PARALLEL))}, "
                             f"got {parallel!r}")
        if micro_batches is not None and parallel != "pipeline":
            raise ValueError("micro_batches applies to parallel='pipeline' only")
        for name, value in (("startup_timeout", startup_timeout),
                            ("collective_timeout", collective_timeout)):
            if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
                raise ValueError(f"{name} must be a number of seconds > 0, got {value!r}")
        self.timeouts = {"startup_timeout": float(startup_timeout),
                         "collective_timeout": float(collective_timeout)}
        self.parallel, self.micro_batches = parallel, micro_batches
        self.graph: OptimizedGraph | None = None
        self.max_inflight = max_inflight
        self.devices = devices
        self._parallel = None
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()
        self._collective = threading.Lock()

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
        if self.max_inflight is not None:
            self.graph.max_inflight = self.max_inflight
        self.graph.executable  # load now: a bad graph fails here, not at the first run
        if self.devices > 1:
            if self._parallel is not None:
                self._parallel.close()
                self._parallel = None
            if self.parallel == "pipeline":
                from npu_graph.pipeline_parallel import PipelineParallel

                self._parallel = PipelineParallel(self.graph, self.devices, self.micro_batches,
                                                  **self.timeouts)
            else:
                from npu_graph.distributed import DataParallel

                self._parallel = DataParallel(self.graph, self.devices, **self.timeouts)
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
        if self._parallel is not None:
            self.graph.check_layouts(inputs)
            with self._collective:  # one collective at a time across the ranks
                return self.graph.structured(self._parallel.run(inputs))
        return self.graph(*inputs)

    def run_async(self, *inputs, input_data=None) -> Future:
        """`run` on a worker thread: a Future whose `result()` is the output(s),
        or raises the run's error. Several may be in flight; each result goes to
        its own Future."""
        if self.graph is None:
            raise RuntimeError("no graph loaded; call load_graph(graph_or_path) first")
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.graph.executable.max_inflight,
                                                thread_name_prefix="npu_graph")
        return self._pool.submit(self.run, *inputs, input_data=input_data)

    def close(self) -> None:
        """Wait for the runs in flight, stop the worker threads and the other ranks.
        Raises a RankError only for a rank failure no run has reported yet."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
        if self._parallel is not None:
            parallel, self._parallel = self._parallel, None
            parallel.close()

    def __enter__(self) -> GraphExecutor:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        """close(); an error already on its way out stays the one raised (what
        close found is added to it as a note)."""
        try:
            self.close()
        except Exception as e:  # noqa: BLE001 - never a second traceback over the first
            if exc is None:
                raise
            exc.add_note(f"while closing the executor: {e}")

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
        """The runtime's stats of the last run (see runtime/executor.py `stats`): one
        card's. On several cards, `multi_card` adds the simulated multi-card
        timeline's (runtime/sim/multicard.py): time, throughput, and per card its
        compute, communication and bubble time and arena size."""
        if self.graph is None:
            raise RuntimeError("no graph loaded; call load_graph(graph_or_path) first")
        stats = self.graph.stats
        if self._parallel is not None:
            stats = {**stats, "multi_card": self._parallel.simulated().stats()}
        return stats

    def export_chrome_trace(self, path: str, batches: int | None = None) -> str:
        """The simulated device timeline, for Perfetto / chrome://tracing: one
        run's, `batches` pipelined runs' (copies over PCIe overlapping compute),
        or on several cards one process row per card with a communication track."""
        import json

        if self._parallel is not None:
            with open(path, "w") as f:
                json.dump(self._parallel.simulated().chrome_trace(), f)
        else:
            self.graph.executable.export_chrome_trace(path, batches)
        return path

    def run_pipelined(self, batches: Iterable):
        """Yield the output(s) of each batch of `batches` (any iterable of what
        `run` takes as `input_data`), in order. While a batch runs, a helper
        thread takes the next one from the iterable and prepares it (arranged,
        made contiguous, checked against the graph), so a data loader's work and
        the copy-in overlap the run. A bad batch raises when its turn comes. The
        gain depends on free cores: on 2 cores busy with kernels it can be
        nothing, or a loss for tiny runs (bench/parallel.py measures it)."""
        if self.graph is None:
            raise RuntimeError("no graph loaded; call load_graph(graph_or_path) first")
        with ThreadPoolExecutor(1, thread_name_prefix="npu_graph_prepare") as prep:
            source = iter(batches)
            prepared = prep.submit(self._prepare_next, source)
            while True:
                inputs = prepared.result()
                if inputs is _END:
                    return
                prepared = prep.submit(self._prepare_next, source)
                yield self.run(*inputs)

    def _prepare_next(self, source):
        """The next batch's inputs, contiguous and checked against the graph (a
        bad batch raises here, in order, when its turn comes)."""
        data = next(source, _END)
        if data is _END:
            return _END
        self.graph.check_layouts(self._arrange(data))   # before contiguous() hides the layout
        inputs = tuple(x.contiguous() if isinstance(x, torch.Tensor) else x
                       for x in self._arrange(data))
        if self._parallel is None:
            check_inputs(self.graph.executable.arg_types, inputs)
        return inputs


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
