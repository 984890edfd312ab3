"""Stream assignment and event placement over plain data.

Tasks are indices in program order (a topological order); `deps[t]` holds
the earlier tasks `t` must follow. Both functions keep program order within
each stream, so the IR's op order stays a legal serial schedule.
"""

from __future__ import annotations

from collections.abc import Sequence


def assign_streams(deps: Sequence[set[int]], durations: Sequence[float], max_streams: int,
                   event_us: float) -> list[int]:
    """List scheduling on estimated durations: each task goes to the stream where
    it can start earliest. Ties keep a task on the stream of a predecessor (no
    event needed), then on an open stream, before opening a new one."""
    stream_of: list[int] = []
    finish: list[float] = []
    free: list[float] = []      # per open stream: when its last task ends
    last: list[int] = []        # per open stream: its last task
    for t, ds in enumerate(deps):
        def ready_on(s: int) -> float:
            return max((finish[d] + (0.0 if stream_of[d] == s else event_us) for d in ds),
                       default=0.0)

        options = [(max(ready_on(s), free[s]), 0 if last[s] in ds else 1, s)
                   for s in range(len(free))]
        if len(free) < max_streams:
            options.append((ready_on(len(free)), 2, len(free)))
        start, _, s = min(options)
        if s == len(free):
            free.append(0.0)
            last.append(-1)
        stream_of.append(s)
        finish.append(start + durations[t])
        free[s], last[s] = finish[t], t
    return stream_of


def event_edges(deps: Sequence[set[int]], stream_of: Sequence[int]) -> list[tuple[int, int]]:
    """The cross-stream dependences that need an event: the transitive reduction of
    `deps` given stream order. A dependence on an earlier task of the same stream
    is implied by stream order; one already implied by a later-kept event is dropped.
    Visiting a task's dependences latest first makes this exact: a path from u to
    t through another dependence w needs w after u in program order.

    What happens before a task is a prefix of every stream, so it is kept as one
    position per stream (a vector clock), not as a set of tasks."""
    ids = {s: k for k, s in enumerate(dict.fromkeys(stream_of))}
    stream = [ids[s] for s in stream_of]
    pos: list[int] = []
    count = [0] * len(ids)
    seen: list[list[int]] = []  # per task: last position per stream that happens before it
    last_on: dict[int, int] = {}
    edges = []
    for t, ds in enumerate(deps):
        s = stream[t]
        pos.append(count[s])
        count[s] += 1
        prev = last_on.get(s)
        clock = [-1] * len(ids)
        if prev is not None:
            clock = _joined(clock, seen[prev], s, pos[prev])
        for u in sorted(ds, reverse=True):
            if stream[u] != s and pos[u] > clock[stream[u]]:
                edges.append((u, t))
                clock = _joined(clock, seen[u], stream[u], pos[u])
        seen.append(clock)
        last_on[s] = t
    return sorted(edges)


def _joined(clock: list[int], other: list[int], s: int, at: int) -> list[int]:
    """`clock` joined with `other` and with position `at` of stream `s`."""
    out = [max(a, b) for a, b in zip(clock, other)]
    out[s] = max(out[s], at)
    return out


def stream_preds(stream_of: Sequence[int], edges: Sequence[tuple[int, int]]) -> list[list[int]]:
    """What each task waits for: its stream predecessor and its event sources."""
    preds: list[list[int]] = [[] for _ in stream_of]
    last_on: dict[int, int] = {}
    for t, s in enumerate(stream_of):
        if s in last_on:
            preds[t].append(last_on[s])
        last_on[s] = t
    for u, t in edges:
        preds[t].append(u)
    return preds
