"""Static memory planning over plain data: lifetimes, conflicts, offset assignment,
the no-fragmentation lower bound, and memory-aware task orders.

An allocation (a buffer, or a group of buffers that share bytes because an
elementwise task writes in place) is a size and the set of tasks that touch
it, as their sorted indices; index `n` (one past the last task) stands for
the caller reading the function's outputs. Happens-before comes as vector
clocks (one number per stream per task), never as sets of task pairs, so
planning costs about the number of buffers times those open at once.

Two allocations may share bytes only if one is entirely over before the
other starts: every task touching the first happens before every task
touching the second. With one stream, happens-before is program order and
this is plain interval overlap; with several streams it is the order given
by streams and events, so buffers of concurrent branches never share bytes.

The lower bound is the heaviest set of allocations that pairwise conflict
(no plan can overlap them): the peak of live bytes over program order for
one stream, the heaviest antichain of the "over before" order for several
(a max-flow over all ordered pairs, so for large graphs the pass falls back
to the program-order peak, which is still a valid, possibly lower, bound).

Assigners (both keep to this conflict relation; `auto` keeps the smaller arena):
- greedy by size, best fit (TFLite's GreedyBySize, XLA's heap simulator):
  largest first, each at the lowest-waste gap among its placed conflicts;
- size classes (GE's block assigner): in order of first use, each takes a
  free block of its power-of-two size class or opens a new one; blocks are
  then laid out back to back.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

Plan = list[int]  # offset per allocation


@dataclass(frozen=True)
class Allocation:
    size: int
    tasks: tuple[int, ...]  # sorted indices of the tasks touching it; n = the caller

    @property
    def first(self) -> int:
        return self.tasks[0]

    @property
    def last(self) -> int:
        return self.tasks[-1]


class Order(Protocol):
    """Happens-before as vector clocks (passes/planning/task_graph.py: Clocks)."""

    stream: list[int]
    pos: list[int]
    seen: list[tuple[int, ...]]


def _summaries(allocs: Sequence[Allocation], order: Order
               ) -> tuple[list[list[int]], list[list[int]]]:
    """Per allocation and stream: the last position it touches (`last`, -1 if none)
    and the stream prefix that happens before all of its tasks (`need`). Then
    `a` is over before `b` exactly when last[a] <= need[b] on every stream."""
    width = len(order.seen[0]) if order.seen else 0
    lasts, needs = [], []
    for a in allocs:
        last = [-1] * width
        need = list(order.seen[a.tasks[0]])
        for t in a.tasks:
            s = order.stream[t]
            if order.pos[t] > last[s]:
                last[s] = order.pos[t]
            for k, v in enumerate(order.seen[t]):
                if v < need[k]:
                    need[k] = v
        lasts.append(last)
        needs.append(need)
    return lasts, needs


def _le(a: Sequence[int], b: Sequence[int]) -> bool:
    return all(x <= y for x, y in zip(a, b))


def precedence(allocs: Sequence[Allocation], order: Order) -> list[set[int]]:
    """For each allocation, those it is over before: every task touching it happens
    before every task touching them. Quadratic: for the exact bound on small graphs."""
    lasts, needs = _summaries(allocs, order)
    return [{j for j in range(len(allocs)) if j != i and _le(lasts[i], needs[j])}
            for i in range(len(allocs))]


def conflicts(allocs: Sequence[Allocation], order: Order) -> list[set[int]]:
    """Pairs that may be live at the same time: neither is over before the other.

    A sweep in order of first use keeps the allocations that some later one
    may still overlap; one leaves for good once the tasks that happen before
    every task from here on cover it (`floor`). On one stream that is interval
    overlap; the cost is the number of allocations open at once, not all pairs.
    """
    lasts, needs = _summaries(allocs, order)
    n = len(order.seen)
    width = len(order.seen[0]) if n else 0
    floor: list[tuple[int, ...]] = [()] * (n + 1)
    low = tuple([n] * width)
    floor[n] = low
    for t in reversed(range(n)):
        low = tuple(min(x, y) for x, y in zip(low, order.seen[t]))
        floor[t] = low
    result: list[set[int]] = [set() for _ in allocs]
    open_: list[int] = []
    for b in sorted(range(len(allocs)), key=lambda i: (allocs[i].first, i)):
        done = floor[allocs[b].first]
        open_ = [a for a in open_ if not _le(lasts[a], done)]
        for a in open_:
            if not _le(lasts[a], needs[b]):
                result[a].add(b)
                result[b].add(a)
        open_.append(b)
    return result


def live_peak(allocs: Sequence[Allocation]) -> tuple[int, int, list[int]]:
    """(peak live bytes over program order, the task index where it is reached,
    the allocations live there). A lower bound for any plan: allocations live
    at one task index conflict pairwise. Exact for one stream (interval order)."""
    if not allocs:
        return 0, 0, []
    n = max(a.last for a in allocs) + 2
    delta = [0] * n
    for a in allocs:
        delta[a.first] += a.size
        delta[a.last + 1] -= a.size
    peak = at = live = 0
    for t in range(n):
        live += delta[t]
        if live > peak:
            peak, at = live, t
    return peak, at, [i for i, a in enumerate(allocs) if a.first <= at <= a.last]


def max_weight_antichain(sizes: Sequence[int], before: Sequence[set[int]]
                         ) -> tuple[int, list[int]]:
    """The heaviest set of allocations that are pairwise unordered (`before[i]`:
    the allocations i is over before, transitively closed): the exact
    no-fragmentation bound when streams let lifetimes overlap in ways no single
    task order shows.

    Weighted Dilworth: it weighs as much as the fewest chains covering each
    allocation `size` times, which is total size minus the most links in a
    bipartite flow s -> left_i (size_i) -> right_j (i before j) -> t (size_j).
    The antichain is read off the minimum cut."""
    n = len(sizes)
    s, t = 2 * n, 2 * n + 1
    graph: list[list[int]] = [[] for _ in range(2 * n + 2)]
    head: list[int] = []
    cap: list[int] = []

    def edge(u: int, v: int, c: int) -> None:
        graph[u].append(len(head))
        head.append(v)
        cap.append(c)
        graph[v].append(len(head))
        head.append(u)
        cap.append(0)

    for i, size in enumerate(sizes):
        edge(s, i, size)
        edge(n + i, t, size)
        for j in before[i]:
            edge(i, n + j, sum(sizes) + 1)
    flow = _max_flow(graph, head, cap, s, t)
    level = _levels(graph, head, cap, s)
    members = [i for i in range(n) if level[i] >= 0 and level[n + i] < 0]
    assert sum(sizes[i] for i in members) == sum(sizes) - flow
    return sum(sizes) - flow, members


def _levels(graph, head, cap, s) -> list[int]:
    level = [-1] * len(graph)
    level[s] = 0
    queue = [s]
    for u in queue:
        for e in graph[u]:
            if cap[e] > 0 and level[head[e]] < 0:
                level[head[e]] = level[u] + 1
                queue.append(head[e])
    return level


def _max_flow(graph, head, cap, s, t) -> int:
    """Dinic's algorithm; edges come in pairs e, e ^ 1 (forward, residual)."""
    flow = 0
    while True:
        level = _levels(graph, head, cap, s)
        if level[t] < 0:
            return flow
        step = [0] * len(graph)
        while True:
            path: list[int] = []
            u = s
            while u != t:
                adj = graph[u]
                while step[u] < len(adj) and not (
                        cap[adj[step[u]]] > 0 and level[head[adj[step[u]]]] == level[u] + 1):
                    step[u] += 1
                if step[u] < len(adj):
                    path.append(adj[step[u]])
                    u = head[path[-1]]
                elif path:
                    level[u] = -1  # dead end: never enter it again this phase
                    u = head[path.pop() ^ 1]
                else:
                    break
            if u != t:
                break
            push = min(cap[e] for e in path)
            for e in path:
                cap[e] -= push
                cap[e ^ 1] += push
            flow += push


def arena_size(sizes: Sequence[int], plan: Plan) -> int:
    return max((o + s for o, s in zip(plan, sizes)), default=0)


def best_fit(sizes: Sequence[int], conflict: list[set[int]], firsts: Sequence[int]) -> Plan:
    """Greedy by size: each allocation at the smallest gap that holds it."""
    order = sorted(range(len(sizes)), key=lambda i: (-sizes[i], firsts[i], i))
    plan: list[int | None] = [None] * len(sizes)
    for i in order:
        taken = sorted((plan[j], plan[j] + sizes[j]) for j in conflict[i] if plan[j] is not None)
        best = waste = None
        top = 0
        for lo, hi in taken:
            gap = lo - top
            if gap >= sizes[i] and (waste is None or gap - sizes[i] < waste):
                best, waste = top, gap - sizes[i]
            top = max(top, hi)
        plan[i] = top if best is None else best
    return plan  # type: ignore[return-value]


def size_class(sizes: Sequence[int], conflict: list[set[int]], firsts: Sequence[int]) -> Plan:
    """GE-style: reuse a free block of the same power-of-two class, else open one."""
    by_class: dict[int, list[int]] = {}  # size class -> its blocks
    block_size: list[int] = []
    home: list[int | None] = [None] * len(sizes)
    for i in sorted(range(len(sizes)), key=lambda i: (firsts[i], -sizes[i], i)):
        cls = (sizes[i] - 1).bit_length()
        busy = {home[j] for j in conflict[i]}  # blocks holding a conflicting tenant
        free = [k for k in by_class.get(cls, ()) if k not in busy]
        if free:
            k = min(free, key=lambda k: (abs(block_size[k] - sizes[i]), k))
        else:
            k = len(block_size)
            by_class.setdefault(cls, []).append(k)
            block_size.append(0)
        block_size[k] = max(block_size[k], sizes[i])
        home[i] = k
    starts, top = [], 0
    for size in block_size:
        starts.append(top)
        top += size
    return [starts[home[i]] for i in range(len(sizes))]


STRATEGIES: dict[str, Callable[[Sequence[int], list[set[int]], Sequence[int]], Plan]] = {
    "best-fit": best_fit,
    "size-class": size_class,
}


def plan(allocs: Sequence[Allocation], conflict: list[set[int]], strategy: str
         ) -> tuple[Plan, str]:
    """(offsets, strategy used). `auto` runs every assigner and keeps the smallest arena."""
    sizes = [a.size for a in allocs]
    firsts = [a.first for a in allocs]
    names = list(STRATEGIES) if strategy == "auto" else [strategy]
    plans = [(arena_size(sizes, p), k, p, name)
             for k, name in enumerate(names)
             for p in [STRATEGIES[name](sizes, conflict, firsts)]]
    _, _, best, name = min(plans)
    return best, name


def violations(allocs: Sequence[Allocation], conflict: list[set[int]], offsets: Plan
               ) -> list[tuple[int, int]]:
    """Conflicting pairs whose bytes overlap: empty for a correct plan."""
    return [(i, j) for i in range(len(allocs)) for j in conflict[i] if i < j
            and offsets[i] < offsets[j] + allocs[j].size
            and offsets[j] < offsets[i] + allocs[i].size]


# --------------------------------------------------------------------------
# Memory-aware task orders (for a memory budget on a single stream)


@dataclass(frozen=True)
class TaskUse:
    reads: tuple[int, ...]
    writes: tuple[int, ...]


def order_peak(order: Sequence[int], uses: Sequence[TaskUse], sizes: Sequence[int],
               outputs: set[int]) -> int:
    """Peak live bytes if tasks run in `order` (no in-place sharing)."""
    position = {t: i for i, t in enumerate(order)}
    span: dict[int, list[int]] = {}
    for t, use in enumerate(uses):
        for b in (*use.reads, *use.writes):
            lo_hi = span.setdefault(b, [position[t], position[t]])
            lo_hi[0] = min(lo_hi[0], position[t])
            lo_hi[1] = max(lo_hi[1], position[t])
    end = len(order)
    allocs = [Allocation(sizes[b], (lo, end if b in outputs else hi))
              for b, (lo, hi) in span.items()]
    return live_peak(allocs)[0]


def greedy_order(deps: Sequence[set[int]], uses: Sequence[TaskUse], sizes: Sequence[int],
                 outputs: set[int]) -> list[int]:
    """List scheduling: among ready tasks, run the one that adds the fewest live bytes."""
    succs: list[list[int]] = [[] for _ in deps]
    for t, ds in enumerate(deps):
        for d in ds:
            succs[d].append(t)
    waiting = [len(ds) for ds in deps]
    readers_left: dict[int, int] = {}
    for use in uses:
        for b in set(use.reads):
            readers_left[b] = readers_left.get(b, 0) + 1
    ready = [t for t, w in enumerate(waiting) if w == 0]
    order: list[int] = []

    def growth(t: int) -> tuple[int, int]:
        freed = sum(sizes[b] for b in set(uses[t].reads)
                    if readers_left[b] == 1 and b not in outputs)
        return sum(sizes[b] for b in set(uses[t].writes)) - freed, t

    while ready:
        t = min(ready, key=growth)
        ready.remove(t)
        order.append(t)
        for b in set(uses[t].reads):
            readers_left[b] -= 1
        for s in succs[t]:
            waiting[s] -= 1
            if waiting[s] == 0:
                ready.append(s)
    return order


def depth_first_order(deps: Sequence[set[int]], latest_first: bool) -> list[int]:
    """Post-order from the sinks: finish one branch before starting the next."""
    has_succ = {d for ds in deps for d in ds}
    done: set[int] = set()
    order: list[int] = []
    for sink in (t for t in range(len(deps)) if t not in has_succ):
        stack = [(sink, False)]
        while stack:
            t, expanded = stack.pop()
            if t in done:
                continue
            if expanded:
                done.add(t)
                order.append(t)
                continue
            stack.append((t, True))
            # The stack pops last-pushed first: push so the preferred pred comes out first.
            for d in sorted(deps[t], reverse=not latest_first):
                if d not in done:
                    stack.append((d, False))
    return order


def low_memory_order(deps: Sequence[set[int]], uses: Sequence[TaskUse], sizes: Sequence[int],
                     outputs: set[int]) -> tuple[list[int], int]:
    """The candidate order (program, greedy, depth-first) with the lowest peak."""
    candidates = [list(range(len(deps))), greedy_order(deps, uses, sizes, outputs),
                  depth_first_order(deps, True), depth_first_order(deps, False)]
    scored = [(order_peak(o, uses, sizes, outputs), k, o) for k, o in enumerate(candidates)]
    peak, _, order = min(scored)
    return order, peak
