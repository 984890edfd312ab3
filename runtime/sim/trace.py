"""Chrome-trace JSON of a simulated device timeline (Perfetto, chrome://tracing).

Process 1 "Streams" has one thread track per stream, each task a complete
("X") event on its stream. Process 2 "Core groups" has one counter track per
core group (AI Core, Vector Core, AI CPU) giving the cores busy over time,
so a glance shows where the chip idles. Times are in microseconds, as the
format requires.
"""

from __future__ import annotations

from target.cost_model import Estimate
from target.scheduler import Job, Slot

STREAMS_PID, CORES_PID = 1, 2
POOL_NAMES = {"ai_core": "AI Core", "vector_core": "Vector Core", "ai_cpu": "AI CPU",
              "h2d": "H2D copy engine", "d2h": "D2H copy engine"}


def _meta(kind: str, pid: int, name: str, tid: int = 0) -> dict:
    return {"ph": "M", "name": kind, "pid": pid, "tid": tid, "args": {"name": name}}


def chrome_trace(jobs: list[Job], slots: list[Slot], pools: dict[str, int],
                 estimates: list[Estimate | None], units: list[str], other: dict | None = None,
                 stream_names: dict[int, str] | None = None) -> dict:
    """`estimates` may hold None for jobs that are not tasks (copies);
    `stream_names` names stream tracks (default `stream <n>`)."""
    names = stream_names or {}
    events = [_meta("process_name", STREAMS_PID, "Streams"),
              _meta("process_name", CORES_PID, "Core groups")]
    for stream in sorted({j.stream for j in jobs}):
        events.append(_meta("thread_name", STREAMS_PID, names.get(stream, f"stream {stream}"),
                            stream))
    for job, slot, estimate, unit in zip(jobs, slots, estimates, units):
        args = {"unit": unit, "core_group": POOL_NAMES[job.pool], "block_dim": job.cores}
        if estimate is not None:
            args.update(cube_flops=estimate.cube_flops, vector_ops=estimate.vector_ops,
                        bytes=estimate.bytes_moved)
        events.append({"ph": "X", "name": job.name, "cat": unit, "pid": STREAMS_PID,
                       "tid": job.stream, "ts": slot.start, "dur": slot.end - slot.start,
                       "args": args})
    for pool in pools:
        changes: dict[float, int] = {}
        for job, slot in zip(jobs, slots):
            if job.pool == pool:
                changes[slot.start] = changes.get(slot.start, 0) + job.cores
                changes[slot.end] = changes.get(slot.end, 0) - job.cores
        busy = 0
        name = f"{POOL_NAMES[pool]} busy cores (of {pools[pool]})"
        for ts in sorted(changes):
            busy += changes[ts]
            events.append({"ph": "C", "name": name, "pid": CORES_PID, "ts": ts,
                           "args": {"cores": busy}})
    return {"traceEvents": events, "displayTimeUnit": "ns", "otherData": other or {}}
