"""Successive batches on one simulated card: copy-in, compute and copy-out overlap.

A batch costs three things on the device: its inputs' copy host -> card over
PCIe (H2D), its tasks, and its outputs' copy card -> host (D2H). Run one at a
time they add up (the single-batch latency). Pipelined, each goes on its own
stream and batches overlap: while batch n computes, the H2D engine copies
batch n+1 in and the D2H engine copies batch n-1 out; events order each
batch's copy-in before its first tasks and its last tasks before its copy-out.

Assumptions (ours): inputs and outputs are double-buffered outside the
activation arena (two slots each), so the copy-in of n+1 needs only the
compute of n-1 to be done with its slot, and the compute of n only the
copy-out of n-2. Batches share the one arena, so the tasks of batch n start
after every task of batch n-1. The copy engines are one per direction (PCIe
is full duplex); copy time is `cost_model.transfer_us` at the chip's PCIe
bandwidth (hardware table). The discrete-event scheduler (target/scheduler.py)
runs the whole thing, event latency between streams included.
"""

from __future__ import annotations

from dataclasses import dataclass

from target import cost_model, scheduler
from target.hardware import Hardware

H2D, D2H = "h2d", "d2h"  # the copy engines, as core groups of one each


@dataclass(frozen=True)
class Batches:
    jobs: list[scheduler.Job]
    slots: list[scheduler.Slot]
    pools: dict[str, int]
    batches: int
    copy_in_us: float
    copy_out_us: float
    compute_us: float          # one batch's tasks alone
    latency_us: float          # one batch alone: copy in, compute, copy out, events between
    stream_names: dict[int, str]

    @property
    def makespan_us(self) -> float:
        return scheduler.makespan(self.slots)


def simulate(jobs: list[scheduler.Job], pools: dict[str, int], in_bytes: int, out_bytes: int,
             hw: Hardware, batches: int = 8) -> Batches:
    """`batches` runs of the task graph `jobs` (one batch's), copies included."""
    if batches < 1:
        raise ValueError(f"batches must be >= 1, got {batches}")
    copy_in = cost_model.transfer_us(in_bytes, hw.pcie_gb_s)
    copy_out = cost_model.transfer_us(out_bytes, hw.pcie_gb_s)
    streams = sorted({j.stream for j in jobs})
    s_in, s_out = (streams[-1] + 1 if streams else 0), (streams[-1] + 2 if streams else 1)
    lasts = {}
    firsts = {}
    for i, j in enumerate(jobs):
        firsts.setdefault(j.stream, i)
        lasts[j.stream] = i
    out: list[scheduler.Job] = []
    h2d, d2h, last_tasks = [], [], []   # per batch: job index / indices
    for n in range(batches):
        preds = [h2d[n - 1]] if n else []
        if n >= 2:
            preds += last_tasks[n - 2]       # input slot n % 2 is free again
        h2d.append(len(out))
        out.append(scheduler.Job(f"H2D batch {n}", H2D, 1, copy_in, s_in, tuple(preds)))
        base = len(out)
        for i, j in enumerate(jobs):
            extra = []
            if i in firsts.values():
                extra = [h2d[n]] + (last_tasks[n - 1] if n else []) + ([d2h[n - 2]] if n >= 2 else [])
            out.append(scheduler.Job(f"{j.name} #{n}", j.pool, j.cores, j.duration_us, j.stream,
                                     tuple(base + p for p in j.preds) + tuple(extra)))
        last_tasks.append([base + i for i in lasts.values()])
        preds = last_tasks[n] + ([d2h[n - 1]] if n else [])
        d2h.append(len(out))
        out.append(scheduler.Job(f"D2H batch {n}", D2H, 1, copy_out, s_out, tuple(preds)))
    all_pools = {**pools, H2D: 1, D2H: 1}
    slots = scheduler.simulate(out, all_pools, hw.event_us)
    compute = scheduler.makespan(scheduler.simulate(jobs, pools, hw.event_us)) if jobs else 0.0
    per_batch = len(jobs) + 2
    latency = (scheduler.makespan(slots[:per_batch]) if batches == 1
               else simulate(jobs, pools, in_bytes, out_bytes, hw, 1).latency_us)
    names = {s: f"compute stream {s}" for s in streams}
    names[s_in], names[s_out] = "H2D copy (PCIe)", "D2H copy (PCIe)"
    return Batches(out, slots, all_pools, batches, copy_in, copy_out, compute, latency, names)


def stats(b: Batches, batch_size: int) -> dict:
    """Single-batch latency beside pipelined throughput (times in ms)."""
    span = b.makespan_us
    return {
        "batches": b.batches,
        "copy_in_ms": b.copy_in_us / 1e3,
        "copy_out_ms": b.copy_out_us / 1e3,
        "latency_ms": b.latency_us / 1e3,
        "unpipelined_throughput": batch_size / (b.latency_us / 1e6) if b.latency_us else 0.0,
        "pipelined_ms": span / 1e3,
        "pipelined_throughput": b.batches * batch_size / (span / 1e6) if span else 0.0,
    }
