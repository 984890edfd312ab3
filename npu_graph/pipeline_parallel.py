"""Model parallel by pipeline stages on torch.distributed ranks, GPipe-style.

    executor = GraphExecutor(devices=2, parallel="pipeline", micro_batches=4)
    executor.load_graph(optimized)       # compiled for one micro-batch
    y = executor.run(input_data=x)       # x: 4 micro-batches; y equals one card's

Rank 0 cuts the graph once (`pipeline-partition{stages=N}` then each
stage's streams and arena: passes/pipelines.py `pipeline_parallel_passes`)
and saves each stage as a `.npu` file of its own, whose `@main` is that
stage; rank k loads stage k (nothing is recompiled). A run splits dim 0 of
the inputs into micro-batches of the compiled size; rank 0 feeds them through
stage 0 one after the other, each rank runs its stage on each micro-batch as
soon as its inputs arrive (the `ascend.recv`s), hands its results on
(`ascend.send`, as torch.distributed isend / recv with the IR's tags), and
the last rank sends the results back to rank 0, which concatenates them.
Sends are asynchronous, so stage k works on micro-batch m while stage k+1
works on m-1: that is the pipeline (forward only; there is no backward pass).

Under torchrun every rank runs the same script: rank 0 calls `partition`;
`scatter_stages` gives every rank its stage's file (sent over
torch.distributed, so nodes need no shared file system); then rank 0 calls
`PipelineParallel.joined` and rank k `serve_stage(path)`
(examples/parallel_resnet50.py --torchrun). `run_local` runs the same stages in one process through a queue, in stage
order: the partitioned program's numbers without any rank, for tests and
for checking a partition. `simulated()` gives the multi-card timeline of
runtime/sim/multicard.py for the stages and micro-batches of the last run.
"""

from __future__ import annotations

import os
import tempfile
from collections import deque
from collections.abc import Sequence

import torch
import torch.distributed as dist
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr

from ge_dialect import ascend, find_func
from npu_graph import compiler
from npu_graph.distributed import COLLECTIVE_TIMEOUT_S, STARTUP_TIMEOUT_S, Ranks
from npu_graph.graph import OptimizedGraph
from passes.pipelines import DEFAULT_MAX_STREAMS, pipeline_parallel_passes
from runtime import kernels
from runtime.sim import multicard
from runtime.executor import ExecutionError
from target.hardware import DEFAULT_HARDWARE, Hardware


def partition(graph: OptimizedGraph, stages: int,
              max_streams: int = DEFAULT_MAX_STREAMS) -> list[OptimizedGraph]:
    """`graph` cut into `stages` planned stages, each an optimized graph whose @main
    is one stage (stage 0 takes the inputs, the last one returns the outputs)."""
    module = graph.module.clone()
    pipeline = pipeline_parallel_passes(stages, max_streams)
    compiler.run_pipeline(module, pipeline)
    result = split_stages(module, f"{graph.pipeline},{pipeline}", graph.name)
    if len(result) != stages:
        raise ValueError(f"pipeline-partition gave {len(result)} stage(s), expected {stages}")
    return result


def split_stages(module: ModuleOp, pipeline: str = "", name: str = "graph"
                 ) -> list[OptimizedGraph]:
    """The stage functions of a partitioned module (`ascend.stage`), in stage order,
    each as an optimized graph of its own whose @main is that stage."""
    fns = sorted((f for f in module.ops if isinstance(f, func.FuncOp)
                  and ascend.stage_of(f) is not None), key=ascend.stage_of)
    result = []
    for k, fn in enumerate(fns):
        main = fn.clone()
        main.sym_name = StringAttr("main")
        result.append(OptimizedGraph(ModuleOp([main]), pipeline, f"{name}_stage{k}"))
    return result


def save_stages(stages: list[OptimizedGraph], directory: str) -> list[str]:
    """Each stage as `<directory>/stage<k>.npu`, the file rank k loads; the paths."""
    paths = [os.path.join(directory, f"stage{k}.npu") for k in range(len(stages))]
    for g, path in zip(stages, paths):
        g.save(path)
    return paths


def scatter_stages(stages: list[OptimizedGraph] | None, directory: str) -> str:
    """Every rank of an initialized group gets its stage's `.npu` file in its own
    `directory` (no shared file system needed: rank 0, which passes `stages`,
    sends rank k the bytes of stage k over torch.distributed). The path of
    this rank's file."""
    rank = dist.get_rank()
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, f"stage{rank}.npu")
    if rank == 0:
        if stages is None or len(stages) != dist.get_world_size():
            raise ValueError("rank 0 passes one stage per rank")
        for k, g in enumerate(stages):
            g.save(path if k == 0 else os.path.join(directory, f"send{k}.npu"))
            if k:
                sent = os.path.join(directory, f"send{k}.npu")
                with open(sent, "rb") as f:
                    data = torch.frombuffer(bytearray(f.read()), dtype=torch.uint8)
                os.remove(sent)
                dist.send(torch.tensor([data.numel()]), dst=k)
                dist.send(data, dst=k)
        return path
    size = torch.zeros(1, dtype=torch.int64)
    dist.recv(size, src=0)
    data = torch.empty(int(size), dtype=torch.uint8)
    dist.recv(data, src=0)
    with open(path, "wb") as f:
        f.write(data.numpy().tobytes())
    return path


def _tags(stages: list[OptimizedGraph]) -> tuple[int, int]:
    """(first tag of the results the last stage sends rank 0, tags per micro-batch)."""
    tags = [op.tag.value.data for g in stages for op in g.module.walk()
            if isinstance(op, ascend.SendOp)]
    first = max(tags, default=-1) + 1
    outputs = len(find_func(stages[-1].module).function_type.outputs.data)
    return first, first + outputs


def _micro_batches(inputs: Sequence[torch.Tensor], size: int, micro_batches: int | None):
    if not inputs:
        raise ValueError("pipeline parallel needs at least one input to split into micro-batches")
    batch = inputs[0].shape[0] if inputs[0].dim() else 0
    count = micro_batches or (batch // size if size else 0)
    if any(x.dim() == 0 or x.shape[0] != count * size for x in inputs) or count < 1:
        raise ValueError(f"the inputs' batch (dim 0) must be {micro_batches or 'a multiple of'} "
                         f"{'x ' if micro_batches else ''}{size} (micro-batches x the "
                         f"compiled batch); got {[tuple(x.shape) for x in inputs]}")
    return count, [torch.split(x, size, dim=0) for x in inputs]


class LocalTransport:
    """send/recv between stages run in one process: a queue per (from, to, tag)."""

    def __init__(self, rank: int, mailbox: dict):
        self.rank, self.mailbox = rank, mailbox

    def send(self, tensor: torch.Tensor, peer: int, tag: int) -> None:
        self.mailbox.setdefault((self.rank, peer, tag), deque()).append(tensor.clone())

    def recv(self, tensor: torch.Tensor, peer: int, tag: int) -> None:
        queue = self.mailbox.get((peer, self.rank, tag))
        if not queue:
            raise ExecutionError(f"stage {self.rank} waits for tag {tag} from stage {peer}, "
                                 "which sent nothing under it")
        tensor.copy_(queue.popleft())


def run_local(stages: list[OptimizedGraph], inputs: Sequence[torch.Tensor],
              micro_batches: int | None = None) -> list[torch.Tensor]:
    """The partitioned program in one process: every stage on every micro-batch
    (`micro_batches=1`: the inputs as they are, one run of each stage)."""
    if micro_batches == 1:
        count, chunks = 1, [(x,) for x in inputs]
    else:
        size = find_func(stages[0].module).function_type.inputs.data[0].get_shape()[0]
        count, chunks = _micro_batches(inputs, size, micro_batches)
    mailbox: dict = {}
    for k, g in enumerate(stages):
        g.executable.transport = LocalTransport(k, mailbox)
    results = []
    for m in range(count):
        for k, g in enumerate(stages):
            outs = g.executable.run(*[c[m] for c in chunks]) if k == 0 else g.executable.run()
        results.append(outs)
    if count == 1:  # as they are: a 0-d output has no batch dim to join along
        return list(results[0])
    return [torch.cat(parts, dim=0) for parts in zip(*results)]


class DistTransport:
    """send/recv over torch.distributed: sends are asynchronous (a copy goes out,
    so the arena may be reused at once); `flush` waits for them. Tags are the
    IR's, offset by the micro-batch (`step`) so micro-batches never mix."""

    def __init__(self, stride: int = 0):
        self.step, self.stride, self.pending = 0, stride, []

    def _tag(self, tag: int) -> int:
        return self.step * self.stride + tag

    def send(self, tensor: torch.Tensor, peer: int, tag: int) -> None:
        copy = tensor.detach().clone()
        self.pending.append((dist.isend(copy, dst=peer, tag=self._tag(tag)), copy))

    def recv(self, tensor: torch.Tensor, peer: int, tag: int) -> None:
        dist.recv(tensor, src=peer, tag=self._tag(tag))

    def flush(self) -> None:
        for work, _ in self.pending:
            work.wait()
        self.pending.clear()


def serve_stage(stage) -> None:
    """Rank k > 0 of an initialized group: run stage k (an optimized graph, or the
    path of its `.npu` file) on every micro-batch rank 0 announces, until rank 0 closes."""
    from npu_graph.artifact import load

    executable = (load(str(stage)) if isinstance(stage, str | os.PathLike) else stage).executable
    transport = DistTransport()
    executable.transport = transport
    last = dist.get_rank() == dist.get_world_size() - 1
    try:
        while True:
            box = [None]
            dist.broadcast_object_list(box, src=0)
            if box[0] is None:
                break
            count, transport.stride, first_out = box[0]
            for m in range(count):
                transport.step = m
                outputs = executable.run()
                if last:
                    for i, o in enumerate(outputs):
                        transport.send(o, 0, first_out + i)
            transport.flush()
        dist.barrier()  # as in distributed.serve: leave together
    finally:
        dist.destroy_process_group()


class PipelineParallel:
    """`devices` ranks, one pipeline stage each, running micro-batches GPipe-style."""

    def __init__(self, graph: OptimizedGraph, devices: int, micro_batches: int | None = None,
                 max_streams: int = DEFAULT_MAX_STREAMS,
                 startup_timeout: float = STARTUP_TIMEOUT_S,
                 collective_timeout: float = COLLECTIVE_TIMEOUT_S):
        if not isinstance(devices, int) or devices < 2:
            raise ValueError(f"pipeline parallel needs devices >= 2 (one stage each), "
                             f"got {devices!r}")
        if micro_batches is not None and (not isinstance(micro_batches, int)
                                          or micro_batches < 1):
            raise ValueError(f"micro_batches must be an integer >= 1, got {micro_batches!r}")
        if dist.is_initialized():
            raise RuntimeError("torch.distributed is initialized already in this process; "
                               "pipeline parallel starts its own process group")
        self._setup(partition(graph, devices, max_streams), micro_batches)
        self._dir = tempfile.TemporaryDirectory(prefix="npu_graph_pp_")
        paths = save_stages(self.stages, self._dir.name)
        try:
            self.ranks = Ranks.start("pipeline", paths, startup_timeout, collective_timeout)
        except BaseException:
            self._dir.cleanup()
            raise

    @classmethod
    def joined(cls, stages: list[OptimizedGraph], micro_batches: int | None = None,
               collective_timeout: float | None = None) -> PipelineParallel:
        """Rank 0 of a group someone else started (torchrun): `stages` from
        `partition`, saved with `save_stages` where rank k runs `serve_stage`."""
        if dist.get_world_size() != len(stages):
            raise ValueError(f"{len(stages)} stages need {len(stages)} ranks, the group has "
                             f"{dist.get_world_size()}")
        self = cls.__new__(cls)
        self._setup(stages, micro_batches)
        self._dir, self.ranks = None, Ranks.joined(collective_timeout)
        return self

    def _setup(self, stages: list[OptimizedGraph], micro_batches: int | None) -> None:
        self.stages, self.devices, self.micro_batches = stages, len(stages), micro_batches
        self.first_out, self.stride = _tags(stages)
        self.result_types = list(find_func(stages[-1].module).function_type.outputs.data)
        self.size = find_func(stages[0].module).function_type.inputs.data[0].get_shape()[0]
        self.last_micro_batches = micro_batches or 1
        self.runs = 0
        self.transport = DistTransport(self.stride)
        stages[0].executable.transport = self.transport

    def run(self, inputs: Sequence[torch.Tensor]) -> list[torch.Tensor]:
        from runtime.program import check_inputs

        count, chunks = _micro_batches(inputs, self.size, self.micro_batches)
        # Checked before any rank hears of the run (see DataParallel.run).
        check_inputs(self.stages[0].executable.arg_types, [c[0] for c in chunks])
        self.runs += 1
        self.ranks.check(f"waiting for batch {self.runs} (it exited after the previous run)")
        try:
            results = self._run(count, chunks)
        except Exception as e:  # noqa: BLE001 - any failure half-way leaves the ranks out of step
            self.transport.pending.clear()
            self.ranks.fail(e, f"running batch {self.runs} (pipeline parallel: {count} "
                               "micro-batches through the stages)")
        self.last_micro_batches = count
        return [torch.cat(parts, dim=0) for parts in zip(*results)]

    def _run(self, count: int, chunks) -> list[list[torch.Tensor]]:
        dist.broadcast_object_list([(count, self.stride, self.first_out)], src=0)
        stage0 = self.stages[0].executable
        for m in range(count):
            self.transport.step = m
            stage0.run(*[c[m] for c in chunks])
        results = []
        last = self.devices - 1
        for m in range(count):
            self.transport.step = m
            outs = [torch.empty(t.get_shape(), dtype=kernels.torch_dtype(t.element_type))
                    for t in self.result_types]
            for i, o in enumerate(outs):
                self.transport.recv(o, last, self.first_out + i)
            results.append(outs)
        self.transport.flush()
        return results

    def simulated(self, hardware: Hardware = DEFAULT_HARDWARE
                  ) -> multicard.Timeline:
        """The simulated multi-card timeline of the last run's micro-batches."""
        stages = [multicard.stage_of_function(find_func(g.module), hardware) for g in self.stages]
        return multicard.simulate_pipeline(stages, self.last_micro_batches, self.size, hardware)

    def close(self) -> None:
        try:
            self.ranks.stop()
        finally:
            if self._dir is not None:
                self._dir.cleanup()
                self._dir = None
