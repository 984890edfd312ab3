"""Multi-card data parallel on torch.distributed: each card is a rank.

    executor = GraphExecutor(devices=2)        # starts rank 1 itself; this process is rank 0
    executor.load_graph(optimized)             # saved once as .npu, loaded by every rank
    y = executor.run(input_data=x)             # x's batch is split across the ranks

The graph is compiled once, for one card's share of the batch, and written
to a `.npu` file that every other rank loads (nothing is recompiled). A run
splits dim 0 of every input into `devices` equal shards, sends rank r its
shard, runs every shard on its own rank, and gathers the outputs on rank 0,
concatenated along dim 0 again. The transport is torch.distributed's (gloo on
127.0.0.1 here; the same calls run over HCCL or NCCL where such a backend and
devices exist), never a home-made one.

Rank 0 is the calling process, so it joins the default process group; one
`DataParallel` may live in a process at a time. `close()` stops the ranks.

Under torchrun (`torchrun --nproc-per-node N script.py`, several nodes with
`--nnodes` and a rendezvous endpoint) the launcher starts the ranks and every
rank runs the same script:

    dist.init_process_group("gloo")                 # from torchrun's environment
    if dist.get_rank() == 0:
        dp = DataParallel.joined(npu_path)          # runs batches, as above
        ...; dp.close()
    else:
        serve(npu_path)                             # until rank 0 closes
"""

from __future__ import annotations

import os
import socket
import tempfile
from collections.abc import Sequence

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

BACKEND = "gloo"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _init(rank: int, world: int, port: int) -> None:
    dist.init_process_group(BACKEND, init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                            world_size=world)


def start_ranks(target, world: int, paths: Sequence[str]) -> list:
    """Spawn ranks 1..world-1, each running `target(rank, world, port, paths[rank])`,
    and join their group as rank 0. Data and pipeline parallel start theirs so."""
    port = _free_port()
    spawn = mp.get_context("spawn").Process
    procs = [spawn(target=target, args=(r, world, port, paths[r]), daemon=True)
             for r in range(1, world)]
    for p in procs:
        p.start()
    _init(0, world, port)
    return procs


def stop_ranks(procs: list, directory: tempfile.TemporaryDirectory | None) -> None:
    """Rank 0's close: broadcast None (every serving rank's stop), leave the
    group, reap the ranks it started and remove their files."""
    if not dist.is_initialized():
        return
    dist.broadcast_object_list([None], src=0)
    dist.barrier()  # see serve: no rank tears down while a peer is still leaving
    dist.destroy_process_group()
    for p in procs:
        p.join(timeout=30)
    if directory is not None:
        directory.cleanup()


def _serve(rank: int, world: int, port: int, path: str) -> None:
    """A rank started by DataParallel: join the group, then `serve`."""
    torch.set_num_threads(1)
    _init(rank, world, port)
    serve(path)


def serve(path: str) -> None:
    """A rank other than 0 of an initialized group: load the graph from its
    `.npu` file, then run shards until rank 0 closes."""
    from npu_graph.artifact import load

    rank = dist.get_rank()
    graph = load(path)
    try:
        while True:
            box = [None]
            dist.broadcast_object_list(box, src=0)
            if box[0] is None:
                break
            inputs = [torch.empty(shape, dtype=dtype) for shape, dtype in box[0][rank]]
            for t in inputs:
                dist.recv(t, src=0)
            outputs = graph.executable.run(*inputs)
            dist.gather_object([(o.shape, o.dtype) for o in outputs], None, dst=0)
            for o in outputs:
                dist.send(o.contiguous(), dst=0)
        # Every rank reaches this barrier before any destroys its group: a rank
        # that tears down its gloo connections while a peer still uses them
        # makes that peer abort at exit ("terminate called ...").
        dist.barrier()
    finally:
        dist.destroy_process_group()


class DataParallel:
    """`devices` ranks running one compiled graph on shares of each batch."""

    @classmethod
    def joined(cls, path: str) -> DataParallel:
        """Rank 0 of a group someone else started (torchrun): every rank has the `.npu`."""
        from npu_graph.artifact import load

        self = cls.__new__(cls)
        self.graph, self.devices, self.path = load(path), dist.get_world_size(), path
        self._dir, self._procs = None, []
        return self

    def __init__(self, graph, devices: int):
        if not isinstance(devices, int) or devices < 1:
            raise ValueError(f"devices must be an integer >= 1, got {devices!r}")
        if dist.is_initialized():
            raise RuntimeError("torch.distributed is initialized already in this process; "
                               "data parallel starts its own process group")
        self.graph, self.devices = graph, devices
        self._dir = tempfile.TemporaryDirectory(prefix="npu_graph_dp_")
        self.path = os.path.join(self._dir.name, "graph.npu")
        graph.save(self.path)
        self._procs = start_ranks(_serve, devices, [self.path] * devices)

    def run(self, inputs: Sequence[torch.Tensor]) -> list[torch.Tensor]:
        shards = [torch.chunk(x, self.devices, dim=0) for x in inputs]
        if any(len(s) != self.devices for s in shards) or any(
                x.shape[0] % self.devices for x in inputs):
            raise ValueError(f"the inputs' batch (dim 0) must split into {self.devices} equal "
                             f"shares, one per card; got {[tuple(x.shape) for x in inputs]}")
        per_rank = [[(tuple(s[r].shape), s[r].dtype) for s in shards]
                    for r in range(self.devices)]
        dist.broadcast_object_list([per_rank], src=0)
        for r in range(1, self.devices):
            for s in shards:
                dist.send(s[r].contiguous(), dst=r)
        mine = self.graph.executable.run(*[s[0] for s in shards])
        metas: list = [None] * self.devices
        dist.gather_object([(o.shape, o.dtype) for o in mine], metas, dst=0)
        gathered = [mine]
        for r in range(1, self.devices):
            outs = [torch.empty(shape, dtype=dtype) for shape, dtype in metas[r]]
            for o in outs:
                dist.recv(o, src=r)
            gathered.append(outs)
        batch = shards[0][0].shape[0] if shards else 0
        for i, o in enumerate(mine):
            if o.dim() == 0 or o.shape[0] != batch:
                raise ValueError(f"output {i} has shape {tuple(o.shape)}, whose dim 0 is not "
                                 f"the batch ({batch} per card): data parallel cannot gather "
                                 "it; run this graph on one card")
        return [torch.cat(parts, dim=0) for parts in zip(*gathered)]

    def simulated(self, hardware=None):
        """The simulated multi-card timeline of one run (runtime/sim/multicard.py): every
        card computes its share at once, then the results gather on card 0."""
        from ge_dialect import ascend, find_func
        from runtime.sim import multicard
        from target.hardware import DEFAULT_HARDWARE

        hw = hardware or DEFAULT_HARDWARE
        fn = find_func(self.graph.module)
        stage = multicard.stage_of_function(fn, hw)
        out_bytes = sum(ascend.nbytes(t) for t in fn.function_type.outputs.data
                        if t.has_static_shape())
        share = self.graph.executable.batch_size
        return multicard.simulate_data_parallel(stage, self.devices, share, out_bytes, hw)

    def close(self) -> None:
        stop_ranks(self._procs, self._dir)
