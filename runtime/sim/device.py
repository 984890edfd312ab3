"""The simulated device timeline of one loaded function: plan, stats and trace.

Every task is estimated with the target's cost model (target/cost_model.py)
and the tasks are scheduled by its discrete-event model (target/scheduler.py)
over streams, events and the chip's core groups. A static graph is planned
once at load; a dynamic graph once per gear, at the gear's shapes
(runtime/plan_cache.py). The same plan gives the stats' device time and
utilization, the pipelined timeline of successive batches (pipelining.py)
and the Chrome trace (trace.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import MemRefType

from ge_dialect import ascend
from runtime.sim import pipelining, trace
from target import cost_model, scheduler
from target.cost_model import Estimate, ShapeOf
from target.hardware import Hardware

PIPELINED_BATCHES = 8     # batches in the simulated pipelined timeline of the stats


@dataclass
class Plan:
    """The device schedule at one set of shapes."""

    estimates: list[Estimate]
    jobs: list[scheduler.Job]
    slots: list[scheduler.Slot]


def _known_size(memref) -> bool:
    """Static, or empty whatever its `?` dims (a size carried as a dim of an
    empty tensor, npu_graph/backend.py): either way its bytes are known at load."""
    return memref.has_static_shape() or 0 in memref.get_shape()


class SimulatedDevice:
    """The timeline of a function's tasks (anything with `name`, `stream`,
    `unit`, `op` and `estimate`, in program order) on one chip."""

    def __init__(self, tasks: Sequence, preds: list[list[int]], hardware: Hardware,
                 arg_types: list, result_types: list, batch_size: int):
        self.tasks, self.preds, self.hardware = tasks, preds, hardware
        self.arg_types, self.result_types, self.batch_size = arg_types, result_types, batch_size
        self.pools = hardware.pools()
        for t in tasks:  # statically shaped tasks are estimated once, at load
            static = all(_known_size(v.type) for v in (*t.op.ins, *t.op.outs))
            t.estimate = cost_model.estimate(t.op, hardware) if static else None
        self._pipelined = None   # (plan and batches, the simulated batches): cached

    def schedule(self, estimates: list[Estimate]) -> Plan:
        jobs = [scheduler.Job(t.name, e.pool, e.block_dim, e.time_us, t.stream, tuple(p))
                for t, e, p in zip(self.tasks, estimates, self.preds)]
        return Plan(estimates, jobs, scheduler.simulate(jobs, self.pools, self.hardware.event_us))

    def static_plan(self) -> Plan:
        return self.schedule([t.estimate for t in self.tasks])

    def estimates_at(self, shape_of: ShapeOf) -> list[Estimate]:
        """Every task's estimate at the concrete shapes of a run."""
        return [t.estimate or cost_model.estimate(t.op, self.hardware, shape_of)
                for t in self.tasks]

    def stats(self, plan: Plan, last_shapes: tuple | None) -> dict:
        """The device's part of the executable's stats (times in ms)."""
        makespan_ms = scheduler.makespan(plan.slots) / 1e3
        return {
            "execution_time": makespan_ms,
            "throughput": self.batch_size / (makespan_ms / 1e3) if makespan_ms else 0.0,
            "num_tasks": len(self.tasks),
            "num_streams": len({t.stream for t in self.tasks}),
            "utilization": scheduler.utilization(plan.jobs, plan.slots, self.pools),
            # Successive batches with their PCIe copies: latency of one alone beside
            # the throughput when copies overlap compute (runtime/sim/pipelining.py).
            "pipelined": pipelining.stats(self.pipelined(plan, last_shapes), self.batch_size),
            "tasks": [{"name": t.name, "unit": t.unit, "stream": t.stream,
                       "core_group": e.pool, "block_dim": e.block_dim,
                       "cube_flops": e.cube_flops, "vector_ops": e.vector_ops,
                       "bytes": e.bytes_moved,
                       "start": s.start / 1e3, "end": s.end / 1e3,
                       "time": (s.end - s.start) / 1e3}
                      for t, e, s in zip(self.tasks, plan.estimates, plan.slots)],
        }

    def pipelined(self, plan: Plan, last_shapes: tuple | None,
                  batches: int = PIPELINED_BATCHES) -> pipelining.Batches:
        """`batches` successive batches, copies over PCIe overlapping compute.
        Copy sizes: the graph's static shapes, or a dynamic graph's last run's."""
        key = (id(plan), batches)
        if self._pipelined is None or self._pipelined[0] != key:
            static = [[tuple(max(d, 1) for d in t.get_shape()) for t in types]
                      for types in (self.arg_types, self.result_types)]
            ins, outs = last_shapes or static

            def nbytes(types, dims):
                return sum(ascend.nbytes(MemRefType(t.element_type, d))
                           for t, d in zip(types, dims))
            self._pipelined = (key, pipelining.simulate(
                plan.jobs, self.pools, nbytes(self.arg_types, ins),
                nbytes(self.result_types, outs), self.hardware, batches))
        return self._pipelined[1]

    def chrome_trace(self, plan: Plan, last_shapes: tuple | None,
                     batches: int | None = None) -> dict:
        """One run's timeline, or `batches` pipelined runs' (copy streams and
        copy engines included)."""
        other = {"hardware": self.hardware.name}
        units = [t.unit for t in self.tasks]
        if batches is None:
            return trace.chrome_trace(plan.jobs, plan.slots, self.pools, plan.estimates,
                                      units, other)
        b = self.pipelined(plan, last_shapes, batches)
        per_job = [None if j.pool in (pipelining.H2D, pipelining.D2H) else "task" for j in b.jobs]
        k = 0
        estimates, job_units = [], []
        for kind, job in zip(per_job, b.jobs):
            if kind is None:
                estimates.append(None)
                job_units.append("copy")
            else:
                estimates.append(plan.estimates[k % len(self.tasks)])
                job_units.append(units[k % len(self.tasks)])
                k += 1
        other.update(pipelining.stats(b, self.batch_size))
        return trace.chrome_trace(b.jobs, b.slots, b.pools, estimates, job_units, other,
                                  b.stream_names)
