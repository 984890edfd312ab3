"""Executes lowered Ascend IR on the host and simulates its device timeline.

`Executable` puts three rooms together:

- loading (runtime/loading.py): the value table, the tasks, the arena and
  every buffer's typed view of it, decoded weights;
- running (runtime/running.py): the task runners and the run loop of one
  replica, the per-shape plans of a dynamic graph, the transport of a
  pipeline stage;
- simulating (runtime/sim/device.py): every task estimated with the cost
  model and scheduled over streams, events and AI Core / Vector Core groups;
  the stats, the pipelined timeline and the Chrome trace read that plan.

`load` (the constructor) does all the work that does not depend on inputs;
`run` then only copies inputs in, calls the prepared tasks and copies
outputs out.

Concurrent runs: `run` may be called from several threads at once. Each
call in flight gets a replica of its own (arena, buffer views, task runners,
oneDNN primitives, per-shape plans), from a pool that grows on demand up to
`max_inflight` replicas; further calls wait for one to be free. The
executable itself is replica 0. Weights are tensors over the constants'
bytes (no copy: runtime/weight_pool.py) shared read-only by every replica
(prepacked copies that oneDNN primitives make are per replica; linears of
one or two rows make none). Memory grows with the replicas actually used, at most
`max_inflight` arenas; a graph with dynamic dims adds at most
`plan_cache_size` gear plans per replica (runtime/plan_cache.py), each with
an arena of its own.

Pipeline stages send and receive through the executable's `transport`: a
torch.distributed one between ranks (npu_graph/pipeline_parallel.py), or a
queue in one process.
"""

from __future__ import annotations

import json
import threading
import weakref

import torch
from xdsl.dialects.builtin import ModuleOp

from ge_dialect.ascend import CUBE_OPS
from runtime.loading import GENERIC, LoadError, Options, Task
from runtime.program import check_inputs
from runtime.running import ExecutionError, Replica
from runtime.sim import pipelining
from runtime.sim.device import PIPELINED_BATCHES, SimulatedDevice
from target.hardware import DEFAULT_HARDWARE, Hardware

__all__ = ["DEFAULT_MAX_INFLIGHT", "GENERIC", "Executable", "ExecutionError", "LoadError",
           "Options", "Task", "load"]

MB = 2**20
DEFAULT_MAX_INFLIGHT = 4  # replicas a graph may run on at once (each its own arena)


class Executable(Replica):
    """A loaded Ascend function: call `run(*inputs)` as often as you like."""

    def __init__(self, module: ModuleOp, func_name: str = "main",
                 hardware: Hardware = DEFAULT_HARDWARE,
                 options: Options = Options(), max_inflight: int = DEFAULT_MAX_INFLIGHT):
        if not isinstance(max_inflight, int) or max_inflight < 1:
            raise ValueError(f"max_inflight must be an integer >= 1, got {max_inflight!r}")
        super().__init__(module, func_name, options)
        self.hardware = hardware
        self.simulate_on(SimulatedDevice(self.tasks, self.preds, hardware, self.arg_types,
                                         self.result_types, self.batch_size))
        # The replica pool (see the module docstring): this object is replica 0.
        self._replicate = (module, func_name, options)
        self.max_inflight = max_inflight
        self._idle: list[Replica] = [self]
        self._replicas = 1
        self._made: weakref.WeakSet[Replica] = weakref.WeakSet([self])  # for the stats
        self._pool_lock = threading.Condition()

    @property
    def pools(self) -> dict[str, int]:
        return self.device.pools

    @property
    def jobs(self) -> list:
        """The scheduled jobs of the last run's plan (program order)."""
        return self.plan.jobs

    @property
    def timeline(self) -> list[tuple[Task, float, float]]:
        return [(t, s.start, s.end) for t, s in zip(self.tasks, self.slots)]

    def set_host_order(self, order: str | list[int]) -> None:
        super().set_host_order(order)
        if hasattr(self, "_pool_lock"):  # idle replicas made for the old order go
            with self._pool_lock:
                dropped = [r for r in self._idle if r is not self]
                self._idle = [r for r in self._idle if r is self]
                self._replicas -= len(dropped)
                self._pool_lock.notify_all()

    def run(self, *inputs: torch.Tensor) -> list[torch.Tensor]:
        """The graph's outputs for `inputs`; safe to call from several threads at once."""
        check_inputs(self.arg_types, inputs)
        replica = self._acquire()
        try:
            outputs = replica._run(inputs)
        finally:
            self._release(replica)
        return outputs

    def _acquire(self) -> Replica:
        """An idle replica, a new one if the pool may grow, else wait for one."""
        with self._pool_lock:
            while not self._idle and self._replicas >= self.max_inflight:
                self._pool_lock.wait()
            if self._idle:
                return self._idle.pop()
            self._replicas += 1
        try:
            return self._new_replica()
        except BaseException:
            with self._pool_lock:
                self._replicas -= 1
                self._pool_lock.notify()
            raise

    def _release(self, replica: Replica) -> None:
        with self._pool_lock:
            if replica is not self and replica.plan is not None:  # stats: the last run's
                self.plan, self.gear_plan = replica.plan, replica.gear_plan
                self.last_host_ms, self.last_kernel_ms = replica.last_host_ms, replica.last_kernel_ms
                self.last_shapes = replica.last_shapes
            self._idle.append(replica)
            self._pool_lock.notify()

    def _new_replica(self) -> Replica:
        module, func_name, options = self._replicate
        weights = [self.values[s] for s in sorted(self.weight_slots)]
        replica = Replica(module, func_name, options, weights)
        replica.simulate_on(self.device)
        replica.set_host_order(self.host_order)
        replica.transport = self.transport
        with self._pool_lock:
            self._made.add(replica)
        return replica

    @property
    def stats(self) -> dict:
        """Simulated device time and utilization, host time, memory, one entry per task.

        Times in ms, memory in MB. `memory_lower_bound` is None when the
        memory-reuse pass has not planned the function; `memory_program_order`
        is the arena program order needed when memory planning reordered tasks
        to lower the peak, else None. `host_overhead_ms` is
        host time minus the time inside task calls (each task's kernels,
        epilogues and any copy into its view); `threads` is torch's intra-op
        thread count the run used (set it with torch.set_num_threads).
        `host_workspace` is the host runtime's scratch beside the arena, shared
        by the task runners of one replica (bf16 staging, NHWC detours).
        `memory_usage` counts the static arena and, for a graph with dynamic
        dims, the arena of the last run's gear plan; `plan_cache` counts the
        gear plans of every replica (`plan_cache_stats`).
        """
        self.slots  # a dynamic graph has no timeline before its first run
        device = self.device.stats(self.plan, self.last_shapes)
        dynamic_mb = self.gear_plan.nbytes / MB if self.gear_plan is not None else 0.0
        lower = self.memory_lower_bound
        return {
            "execution_time": device.pop("execution_time"),
            "host_time": self.last_host_ms,
            "host_overhead_ms": self.last_host_ms - self.last_kernel_ms,
            "threads": torch.get_num_threads(),
            "memory_usage": self.arena.numel() / MB + dynamic_mb,
            "memory_lower_bound": None if lower is None else lower / MB,
            "memory_naive": self.memory_naive / MB,
            "host_workspace": self.workspace.nbytes / MB,
            "memory_program_order": (None if self.memory_program_order is None
                                     else self.memory_program_order / MB),
            "plan_cache": self.plan_cache_stats(),
            **device,
        }

    def plan_cache_stats(self) -> dict:
        """The gear plans of a graph with dynamic dims, over all replicas:
        `size` (plans kept per replica), `plans` (kept now), `memory` (MB held by
        their arenas), `hits`, `misses`, `evictions` and `made` (plans made; a
        plan grown for a larger buffer counts again)."""
        with self._pool_lock:
            caches = [r.plans for r in self._made]
        return {"size": self.plans.size, "replicas": len(caches),
                "plans": sum(len(c) for c in caches),
                "memory": sum(c.nbytes for c in caches) / MB,
                **{k: sum(getattr(c, k) for c in caches)
                   for k in ("hits", "misses", "evictions", "made")}}

    def cube_paths(self) -> dict[str, int]:
        """How many cube tasks run on each host path: a 16-bit task's runner
        names its path ("onednn-bf16:<impl>", "emulated-fp32:<impl>":
        runtime/host/bf16.py), others count by runner ("generic" for op by
        op), each with the element type of its matrix op's weight. The
        benchmarks print it, so no report calls fp32 kernels bf16 hardware."""
        counts: dict[str, int] = {}
        for task, runner in zip(self.tasks, self.runners):
            if task.unit != "cube":
                continue
            element = next((str(op.operands[1].type.element_type) for op in task.op.body.walk()
                            if isinstance(op, CUBE_OPS)), "?")
            path = getattr(runner, "path", getattr(runner, "__name__", "generic"))
            key = f"{element} {path}"
            counts[key] = counts.get(key, 0) + 1
        return counts

    def pipelined(self, batches: int = PIPELINED_BATCHES) -> pipelining.Batches:
        """The simulated timeline of `batches` successive batches, copies over PCIe
        overlapping compute (runtime/sim/pipelining.py). Copy sizes: the graph's
        static shapes, or a dynamic graph's last run's."""
        self.slots  # a dynamic graph has no timeline before its first run
        return self.device.pipelined(self.plan, self.last_shapes, batches)

    def chrome_trace(self, batches: int | None = None) -> dict:
        """The simulated timeline of one run, or of `batches` pipelined runs
        (copy streams and copy engines included)."""
        self.slots  # a dynamic graph has no timeline before its first run
        return self.device.chrome_trace(self.plan, self.last_shapes, batches)

    def export_chrome_trace(self, path: str, batches: int | None = None) -> None:
        """Write the simulated timeline for Perfetto / chrome://tracing; with
        `batches`, that many successive batches pipelined."""
        with open(path, "w") as f:
            json.dump(self.chrome_trace(batches), f)


def load(module: ModuleOp, func_name: str = "main") -> Executable:
    return Executable(module, func_name)
