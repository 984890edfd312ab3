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

`Ranks` starts and watches the other ranks (pipeline parallel uses it too).
Each is a `python -m npu_graph.rank` process given the `.npu` path and the
rendezvous, so the user's script is never imported again on a rank. Rank 0
holds every deadline: a rank must join within `startup_timeout` and answer
each collective within `collective_timeout`; a rank that exits, at start-up
or later, is a `RankError` on rank 0 naming the rank, its exit code and the
last lines of its stderr, and the other ranks are stopped at once.

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

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
import weakref
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path
from typing import NoReturn

import torch
import torch.distributed as dist

BACKEND = "gloo"
HOST = "127.0.0.1"
RANK_MODULE = "npu_graph.rank"       # what a started rank runs, as `python -m`
ROOT = str(Path(__file__).resolve().parents[1])   # put first on a rank's path: our code, not another copy
STARTUP_TIMEOUT_S = 60.0
COLLECTIVE_TIMEOUT_S = 300.0
# A serving rank waits for rank 0's next request however long the user pauses
# between runs: rank 0 holds the deadlines and stops the ranks on a failure,
# and a rank leaves as soon as rank 0's process is gone (npu_graph/rank.py).
SERVE_TIMEOUT = timedelta(days=30)
CLOSE_TIMEOUT_S = 10.0   # the stop handshake: idle ranks answer at once
EXIT_WAIT_S = 3.0        # after a lost connection, how long a rank's exit status may take
POLL_S = 0.05
STDERR_LINES = 12


class RankError(RuntimeError):
    """A rank of a multi-card run failed or did not answer: which one, what it
    was doing, and what to do. The other ranks are stopped by then."""


def joined_key(rank: int) -> str:
    """The store key a started rank sets once its graph is loaded."""
    return f"npu_graph/joined/{rank}"


def _exit_status(code: int) -> str:
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"was killed by {name} (exit code {code})"
    return f"exited with code {code}"


def _tail(path: str) -> str:
    """The last lines of a rank's stderr, indented, or a note that it is empty."""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - 8192))
            text = f.read().decode(errors="replace")
    except OSError:
        text = ""
    lines = [line for line in text.splitlines() if line.strip()][-STDERR_LINES:]
    if not lines:
        return "its stderr is empty"
    return "last lines of its stderr:\n" + "\n".join("    " + line for line in lines)


def _set_timeout(seconds: float) -> None:
    """The default group's deadline for each collective from now on (torch has
    this setter only as a private function; init_process_group sets the first)."""
    dist.distributed_c10d._set_pg_timeout(timedelta(seconds=seconds))


def _kill(procs: dict[int, subprocess.Popen]) -> None:
    """Kill and reap every process still running (no orphans, no zombies)."""
    for p in procs.values():
        if p.poll() is None:
            p.kill()
    for p in procs.values():
        with contextlib.suppress(subprocess.TimeoutExpired):
            p.wait(timeout=5)


def _kernel_modules() -> list[str]:
    """Modules defining registered custom kernels, which every rank imports:
    ranks do not run the user's script, so kernels defined in it are absent."""
    from runtime import custom_ops

    return sorted({k.kernel.__module__ for k in custom_ops.registered()}
                  - {"__main__", "__mp_main__", None})


class Ranks:
    """The other ranks of a multi-card run, seen from rank 0 (this process).

    `start` launches ranks 1..N-1 and watches them until all have joined;
    `check` before a run and `fail` after a failed collective turn a rank's
    death into one `RankError`; `stop` ends them without ever waiting on a
    dead one. Under torchrun (`joined`) the launcher owns the ranks, so there
    is nothing to watch: a failure says so and points to torchrun's log."""

    def __init__(self, procs: dict[int, subprocess.Popen], logs: dict[int, str],
                 directory: tempfile.TemporaryDirectory | None, timeout_s: float | None):
        self.procs, self.logs, self._dir = procs, logs, directory
        self.timeout_s = timeout_s
        self.failure: str | None = None      # the first failure; every later call repeats it
        self._finalizer = weakref.finalize(self, _kill, procs)   # at exit too, if never stopped

    @classmethod
    def start(cls, mode: str, paths: Sequence[str], startup_timeout: float,
              collective_timeout: float) -> Ranks:
        """Ranks 1..len(paths)-1 running `python -m npu_graph.rank mode paths[r]`, and
        this process as rank 0 of their group, within `startup_timeout` seconds."""
        world = len(paths)
        deadline = time.monotonic() + startup_timeout
        store = dist.TCPStore(HOST, 0, world, is_master=True, wait_for_workers=False,
                              timeout=timedelta(seconds=startup_timeout))
        directory = tempfile.TemporaryDirectory(prefix="npu_graph_ranks_")
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            [ROOT, *filter(None, [os.environ.get("PYTHONPATH")])]))
        imports = [arg for m in _kernel_modules() for arg in ("--import", m)]
        procs: dict[int, subprocess.Popen] = {}
        logs = {r: os.path.join(directory.name, f"rank{r}.stderr") for r in range(1, world)}
        self = cls(procs, logs, directory, collective_timeout)
        self._store = store   # rank 0 serves the rendezvous for as long as the group lives
        try:
            for r in range(1, world):
                argv = [sys.executable, "-m", RANK_MODULE, mode, paths[r], "--rank", str(r),
                        "--world", str(world), "--master", f"{HOST}:{store.port}",
                        "--startup-timeout", str(startup_timeout), *imports]
                with open(logs[r], "wb") as err:
                    procs[r] = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stderr=err,
                                                env=env)
            self._await_joined(store, deadline, startup_timeout)
            dist.init_process_group(BACKEND, store=store, rank=0, world_size=world,
                                    timeout=timedelta(seconds=max(deadline - time.monotonic(), 5)))
            _set_timeout(collective_timeout)
        except RankError:
            raise
        except BaseException as e:
            self.fail(e, "starting (joining the group)")
        return self

    @classmethod
    def joined(cls, collective_timeout: float | None = None) -> Ranks:
        """Rank 0 of a group someone else started (torchrun)."""
        if collective_timeout is not None:
            _set_timeout(collective_timeout)
        return cls({}, {}, None, collective_timeout)

    def _await_joined(self, store, deadline: float, startup_timeout: float) -> None:
        pending = set(self.procs)
        while pending:
            if self._exited():
                self.fail(None, "starting (before it joined the group)")
            pending = {r for r in pending if not store.check([joined_key(r)])}
            if pending and time.monotonic() > deadline:
                late = sorted(pending)
                report = "\n".join(f"rank {r} (pid {self.procs[r].pid}), still running; "
                                   f"{_tail(self.logs[r])}" for r in late)
                failure = (f"rank(s) {', '.join(map(str, late))} did not join within "
                           f"startup_timeout={startup_timeout:g} s:\n{report}\n"
                           "The ranks are stopped. On a loaded machine ranks start slowly: "
                           "pass a larger GraphExecutor(startup_timeout=...).")
                self._abort(failure)
                raise RankError(failure)
            time.sleep(POLL_S)

    def _exited(self) -> list[int]:
        return [r for r, p in sorted(self.procs.items()) if p.poll() is not None]

    def check(self, doing: str) -> None:
        """Before a collective: raise if the ranks failed before or one has exited since."""
        if self.failure is not None:
            raise RankError("this executor's ranks were stopped after an earlier failure; "
                            f"create a new GraphExecutor. The failure was: {self.failure}")
        if self._exited():
            self.fail(None, doing)

    def fail(self, error: BaseException | None, doing: str) -> NoReturn:
        """After `error` in a collective (or None: a rank was seen exiting): stop
        every rank and raise one RankError that says which rank died and how.
        An error of rank 0's own (not a lost rank) is raised as it is, with a note."""
        if self.failure is not None:
            self.check(doing)
        end = time.monotonic() + (EXIT_WAIT_S if self.procs else 0)
        while not self._exited() and time.monotonic() < end:
            time.sleep(POLL_S)   # a lost connection comes before the rank's exit status
        dead = self._exited()
        # gloo reports a lost peer or a missed deadline as a plain RuntimeError
        # naming its own source file; anything else is rank 0's own failure.
        lost = dead or error is None or isinstance(error, dist.DistError) or (
            "gloo" in str(error))
        if not lost and error is not None:
            self._abort("rank 0 failed while " + doing + f": {error}")
            error.add_note("The other ranks were stopped; create a new GraphExecutor to run "
                           "on several cards again.")
            raise error
        if dead:
            what = "\n".join(f"rank {r} (pid {self.procs[r].pid}) "
                             f"{_exit_status(self.procs[r].returncode)} while {doing}; "
                             f"{_tail(self.logs[r])}" for r in dead)
        elif self.procs:
            what = (f"rank 0 lost the other ranks while {doing}: no rank has exited, so one "
                    f"did not answer within collective_timeout={self.timeout_s:g} s or the "
                    f"connection broke ({_first_line(error)})")
        else:
            what = (f"rank 0 lost a peer while {doing} ({_first_line(error)}); torchrun "
                    "started the ranks: its log names the rank that failed and its exit code")
        if any(self.procs[r].returncode == -signal.SIGKILL for r in dead):
            hint = (" A rank killed by SIGKILL is often the out-of-memory killer's work: use "
                    "fewer devices or a smaller batch.")
        elif dead:
            hint = " The end of its stderr above says why it exited."
        else:
            hint = " A rank that is only slow needs a larger collective_timeout."
        self._abort(what)
        raise RankError(f"{what}\nThe other ranks are stopped; create a new GraphExecutor to "
                        f"run on several cards again.{hint}") from error

    def _abort(self, failure: str) -> None:
        """Record the failure, kill the ranks, leave the group without talking to them."""
        self.failure = self.failure or failure
        self._finalizer()   # kills and reaps the ranks we started
        if self.procs and dist.is_initialized():
            with contextlib.suppress(Exception):
                dist.destroy_process_group()
        self._cleanup()

    def _cleanup(self) -> None:
        if self._dir is not None:
            self._dir.cleanup()
            self._dir = None

    def stop(self) -> None:
        """Rank 0's close: broadcast None (every serving rank's stop), leave the
        group together, reap the ranks. After a failure, or with a rank gone, it
        only kills what is left; it never waits on a dead rank."""
        if self.failure is not None or not dist.is_initialized():
            self._abort(self.failure or "closed")
            return
        self.check("closing (a rank exited after the last run)")
        try:
            _set_timeout(CLOSE_TIMEOUT_S)
            dist.broadcast_object_list([None], src=0)
            dist.barrier()   # see serve: no rank tears down while a peer is still leaving
            dist.destroy_process_group()
        except Exception as e:  # noqa: BLE001 - any failure here is a rank's
            self.fail(e, "stopping (the close handshake)")
        end = time.monotonic() + CLOSE_TIMEOUT_S
        for p in self.procs.values():
            with contextlib.suppress(subprocess.TimeoutExpired):
                p.wait(timeout=max(end - time.monotonic(), 0.1))
        self._finalizer()
        self._cleanup()


def _first_line(error: BaseException | None) -> str:
    text = str(error).strip() if error is not None else ""
    return text.splitlines()[0] if text else type(error).__name__


def serve(graph) -> None:
    """A rank other than 0 of an initialized group: run shards of `graph` (an
    optimized graph, or the path of its `.npu` file) until rank 0 closes."""
    from npu_graph.artifact import load

    if isinstance(graph, str | os.PathLike):
        graph = load(str(graph))
    rank = dist.get_rank()
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
    def joined(cls, path: str, collective_timeout: float | None = None) -> DataParallel:
        """Rank 0 of a group someone else started (torchrun): every rank has the `.npu`."""
        from npu_graph.artifact import load

        self = cls.__new__(cls)
        self.graph, self.devices, self.path = load(path), dist.get_world_size(), path
        self._dir, self.runs = None, 0
        self.ranks = Ranks.joined(collective_timeout)
        return self

    def __init__(self, graph, devices: int, startup_timeout: float = STARTUP_TIMEOUT_S,
                 collective_timeout: float = COLLECTIVE_TIMEOUT_S):
        if not isinstance(devices, int) or devices < 1:
            raise ValueError(f"devices must be an integer >= 1, got {devices!r}")
        if dist.is_initialized():
            raise RuntimeError("torch.distributed is initialized already in this process; "
                               "data parallel starts its own process group")
        self.graph, self.devices, self.runs = graph, devices, 0
        self._dir = tempfile.TemporaryDirectory(prefix="npu_graph_dp_")
        self.path = os.path.join(self._dir.name, "graph.npu")
        graph.save(self.path)
        try:
            self.ranks = Ranks.start("data", [self.path] * devices, startup_timeout,
                                     collective_timeout)
        except BaseException:
            self._dir.cleanup()
            raise

    def run(self, inputs: Sequence[torch.Tensor]) -> list[torch.Tensor]:
        from runtime.program import check_inputs

        shards = [torch.chunk(x, self.devices, dim=0) for x in inputs]
        if any(len(s) != self.devices for s in shards) or any(
                x.shape[0] % self.devices for x in inputs):
            raise ValueError(f"the inputs' batch (dim 0) must split into {self.devices} equal "
                             f"shares, one per card; got {[tuple(x.shape) for x in inputs]}")
        # Checked before any rank hears of the run, so a bad input leaves them waiting
        # for the next one, not half-way through this one.
        check_inputs(self.graph.executable.arg_types, [s[0] for s in shards])
        self.runs += 1
        doing = f"running batch {self.runs} (data parallel: each rank computes its share)"
        self.ranks.check(f"waiting for batch {self.runs} (it exited after the previous run)")
        try:
            outputs, mine = self._run(shards)
        except Exception as e:  # noqa: BLE001 - any failure half-way leaves the ranks out of step
            self.ranks.fail(e, doing)
        batch = shards[0][0].shape[0] if shards else 0
        for i, o in enumerate(mine):
            if o.dim() == 0 or o.shape[0] != batch:
                raise ValueError(f"output {i} has shape {tuple(o.shape)}, whose dim 0 is not "
                                 f"the batch ({batch} per card): data parallel cannot gather "
                                 "it; run this graph on one card")
        return outputs

    def _run(self, shards) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
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
        if any(o.dim() == 0 for o in mine):
            return [], mine
        return [torch.cat(parts, dim=0) for parts in zip(*gathered)], mine

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
        try:
            self.ranks.stop()
        finally:
            if self._dir is not None:
                self._dir.cleanup()
                self._dir = None
