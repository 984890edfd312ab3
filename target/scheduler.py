"""Discrete-event simulation of a task graph on the device's core groups.

Plain data in, plain data out, so the executor and the task-parallel pass
share it. A job becomes ready when its predecessors (stream order and
events) have finished, plus the event latency for a predecessor on another
stream. A ready job starts as soon as `cores` cores of its pool are free;
jobs that fit start in order of readiness (then program order), so a small
job may pass a big one that is waiting for cores. It holds its cores until
it ends.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

DONE, READY = 0, 1  # at equal times, free cores before starting new work


@dataclass(frozen=True)
class Job:
    name: str
    pool: str
    cores: int
    duration_us: float
    stream: int
    preds: tuple[int, ...]


@dataclass(frozen=True)
class Slot:
    start: float
    end: float


def simulate(jobs: list[Job], pools: dict[str, int], event_us: float = 0.0) -> list[Slot]:
    """Start and end time (us) of every job."""
    succs: list[list[int]] = [[] for _ in jobs]
    missing = [len(j.preds) for j in jobs]
    arrive = [0.0] * len(jobs)
    for i, job in enumerate(jobs):
        for p in job.preds:
            succs[p].append(i)
    heap = [(0.0, READY, i) for i, n in enumerate(missing) if n == 0]
    heapq.heapify(heap)
    free = dict(pools)
    queue: list[tuple[float, int]] = []
    slots: list[Slot | None] = [None] * len(jobs)
    while heap:
        now = heap[0][0]
        while heap and heap[0][0] == now:
            _, kind, i = heapq.heappop(heap)
            if kind == READY:
                queue.append((now, i))
                continue
            free[jobs[i].pool] += jobs[i].cores
            for s in succs[i]:
                delay = event_us if jobs[s].stream != jobs[i].stream else 0.0
                arrive[s] = max(arrive[s], now + delay)
                missing[s] -= 1
                if missing[s] == 0:
                    heapq.heappush(heap, (arrive[s], READY, s))
        queue.sort()
        waiting = []
        for ready_at, i in queue:
            job = jobs[i]
            if free[job.pool] >= job.cores:
                free[job.pool] -= job.cores
                slots[i] = Slot(now, now + job.duration_us)
                heapq.heappush(heap, (now + job.duration_us, DONE, i))
            else:
                waiting.append((ready_at, i))
        queue = waiting
    stuck = [jobs[i].name for i, s in enumerate(slots) if s is None]
    if stuck:
        raise ValueError(f"the task graph deadlocks: {', '.join(stuck[:5])} never run")
    return slots  # type: ignore[return-value]


def makespan(slots: list[Slot]) -> float:
    return max((s.end for s in slots), default=0.0)


def utilization(jobs: list[Job], slots: list[Slot], pools: dict[str, int]) -> dict[str, float]:
    """Busy core-time over available core-time, per core group."""
    span = makespan(slots)
    busy = dict.fromkeys(pools, 0.0)
    for job, slot in zip(jobs, slots):
        busy[job.pool] += job.cores * (slot.end - slot.start)
    return {p: (busy[p] / (n * span) if span else 0.0) for p, n in pools.items()}
