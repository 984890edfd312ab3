"""The planners as plain functions: valid plans, bounds, orders, event reduction."""

import random

import pytest

from passes.planning import memory as mp
from passes.planning import streams as sp
from passes.planning.task_graph import ancestors, clocks


def chain(n: int):
    """Happens-before of one stream of n tasks, plus the caller at index n."""
    return clocks([0] * n, [[t - 1] if t else [] for t in range(n)])


def random_allocs(rng: random.Random, n_tasks: int, count: int) -> list[mp.Allocation]:
    allocs = []
    for _ in range(count):
        first = rng.randrange(n_tasks)
        last = min(n_tasks, first + rng.randrange(1, 6))
        allocs.append(mp.Allocation(512 * rng.randrange(1, 40), (first, last)))
    return allocs


def brute_force_conflicts(allocs, anc):
    """The definition, on bitsets: a and b conflict unless every task of one
    happens before every task of the other."""
    def over_before(a, b):
        return all(anc[y] >> x & 1 for x in a.tasks for y in b.tasks)

    return [{j for j, b in enumerate(allocs) if j != i and not over_before(a, b)
             and not over_before(b, a)} for i, a in enumerate(allocs)]


@pytest.mark.parametrize("seed", range(20))
def test_every_strategy_gives_a_valid_plan_above_the_bound(seed):
    rng = random.Random(seed)
    allocs = random_allocs(rng, 30, 60)
    before = mp.precedence(allocs, chain(30))
    conflict = mp.conflicts(allocs, chain(30))
    lower, _, live = mp.live_peak(allocs)
    # On one stream the order is an interval order: the heaviest antichain is the peak.
    assert mp.max_weight_antichain([a.size for a in allocs], before)[0] == lower
    sizes = [a.size for a in allocs]
    arenas = {}
    for name in mp.STRATEGIES:
        offsets, used = mp.plan(allocs, conflict, name)
        assert used == name
        assert mp.violations(allocs, conflict, offsets) == []
        arenas[name] = mp.arena_size(sizes, offsets)
        assert lower <= arenas[name] <= sum(sizes)
    offsets, used = mp.plan(allocs, conflict, "auto")
    assert mp.arena_size(sizes, offsets) == min(arenas.values()) == arenas[used]
    # Allocations live at the peak conflict pairwise (the bound is a clique).
    assert all(j in conflict[i] for i in live for j in live if i != j)


def test_interval_conflicts_on_one_stream():
    allocs = [mp.Allocation(512, (0, 1)), mp.Allocation(512, (1, 2)), mp.Allocation(512, (2, 3))]
    before = mp.precedence(allocs, chain(4))
    assert before == [{2}, set(), set()]
    assert mp.conflicts(allocs, chain(4)) == [{1}, {0, 2}, {1}]  # 0 and 2 never live together


def test_concurrent_streams_conflict_even_when_program_order_says_disjoint():
    # Tasks 0 and 1 on two streams with no event: unordered on the device.
    order = clocks([0, 1], [[], []])
    allocs = [mp.Allocation(512, (0,)), mp.Allocation(512, (1,))]
    assert mp.conflicts(allocs, order) == [{1}, {0}]
    assert mp.live_peak(allocs)[0] == 512  # program order misses the overlap...
    assert mp.max_weight_antichain([512, 512], mp.precedence(allocs, order))[0] == 1024  # not this
    # With an event 0 -> 1 the first is over before the second starts.
    assert mp.conflicts(allocs, clocks([0, 1], [[], [0]])) == [set(), set()]


@pytest.mark.parametrize("seed", range(20))
def test_conflicts_on_streams_match_the_definition(seed):
    """The sweep over vector clocks finds exactly the pairs the bitset definition does."""
    rng = random.Random(seed)
    n, width = 40, rng.randrange(1, 5)
    streams = [rng.randrange(width) for _ in range(n)]
    preds, last = [], {}
    for t, s in enumerate(streams):  # stream order plus random events from earlier tasks
        ps = {last[s]} if s in last else set()
        ps |= {u for u in range(t) if rng.random() < 0.05}
        preds.append(sorted(ps))
        last[s] = t
    anc = ancestors(preds) + [(1 << n) - 1]
    order = clocks(streams, preds)
    assert all(order.before(u, t) == bool(anc[t] >> u & 1)
               for t in range(n + 1) for u in range(n))
    allocs = []
    for _ in range(60):
        first = rng.randrange(n)
        tasks = {first, min(n, first + rng.randrange(0, 8))}
        tasks |= {rng.randrange(first, n + 1) for _ in range(rng.randrange(3))}
        allocs.append(mp.Allocation(512, tuple(sorted(tasks))))
    assert mp.conflicts(allocs, order) == brute_force_conflicts(allocs, anc)


@pytest.mark.parametrize("seed", range(15))
def test_max_weight_antichain_matches_brute_force(seed):
    rng = random.Random(seed)
    n = 9
    # A random poset: i before j for some i < j, transitively closed.
    before = [set() for _ in range(n)]
    for j in range(n):
        for i in range(j):
            if rng.random() < 0.3:
                before[i].add(j)
    for k in reversed(range(n)):
        for j in list(before[k]):
            before[k] |= before[j]
    sizes = [rng.randrange(1, 20) for _ in range(n)]
    best = 0
    for mask in range(1 << n):
        members = [i for i in range(n) if mask >> i & 1]
        if all(j not in before[i] for i in members for j in members):
            best = max(best, sum(sizes[i] for i in members))
    weight, members = mp.max_weight_antichain(sizes, before)
    assert weight == best == sum(sizes[i] for i in members)
    assert all(j not in before[i] for i in members for j in members)


def towers():
    """a1, b1 wide; a2, b2 narrow; y = a2 + b2. Tasks in program order a1 b1 a2 b2 y."""
    uses = [mp.TaskUse((), (0,)), mp.TaskUse((), (1,)), mp.TaskUse((0,), (2,)),
            mp.TaskUse((1,), (3,)), mp.TaskUse((2, 3), (4,))]
    deps = [set(), set(), {0}, {1}, {2, 3}]
    sizes = [16384, 16384, 1024, 1024, 1024]
    return deps, uses, sizes, {4}


def test_low_memory_order_finishes_one_tower_first():
    deps, uses, sizes, outputs = towers()
    assert mp.order_peak(range(5), uses, sizes, outputs) == 16384 * 2 + 1024
    order, peak = mp.low_memory_order(deps, uses, sizes, outputs)
    assert peak == 16384 + 2 * 1024
    position = {t: i for i, t in enumerate(order)}
    assert all(position[d] < position[t] for t, ds in enumerate(deps) for d in ds)


@pytest.mark.parametrize("latest_first", [True, False])
def test_depth_first_order_is_topological(latest_first):
    rng = random.Random(1)
    deps = [{d for d in range(t) if rng.random() < 0.2} for t in range(40)]
    order = mp.depth_first_order(deps, latest_first)
    assert sorted(order) == list(range(40))
    position = {t: i for i, t in enumerate(order)}
    assert all(position[d] < position[t] for t, ds in enumerate(deps) for d in ds)


def test_independent_tasks_spread_over_streams_up_to_the_cap():
    deps = [set(), set(), set(), set(), {0, 1, 2, 3}]
    assert sp.assign_streams(deps, [10.0] * 5, 4, 1.0) == [0, 1, 2, 3, 0]
    assert sp.assign_streams(deps, [10.0] * 5, 2, 1.0) == [0, 1, 0, 1, 0]
    assert sp.assign_streams(deps, [10.0] * 5, 1, 1.0) == [0] * 5


def test_a_chain_stays_on_one_stream():
    deps = [set()] + [{t - 1} for t in range(1, 6)]
    assert sp.assign_streams(deps, [5.0] * 6, 4, 1.0) == [0] * 6


def test_events_are_a_transitive_reduction():
    # 0 on stream 0; 1 and 2 on stream 1; 2 depends on 0 and 1, 1 depends on 0.
    # The edge 0 -> 2 is implied by 0 -> 1 and stream order 1 -> 2.
    deps = [set(), {0}, {0, 1}]
    assert sp.event_edges(deps, [0, 1, 1]) == [(0, 1)]
    # 3 on stream 2 depends on 0 and 2: 0 -> 3 is implied through 2 (0 -> 1 -> 2).
    deps.append({0, 2})
    assert sp.event_edges(deps, [0, 1, 1, 2]) == [(0, 1), (2, 3)]
    # Same-stream dependences never need an event.
    assert sp.event_edges([set(), {0}], [0, 0]) == []


@pytest.mark.parametrize("seed", range(10))
def test_event_reduction_keeps_every_dependence(seed):
    rng = random.Random(seed)
    deps = [{d for d in range(t) if rng.random() < 0.3} for t in range(30)]
    streams = [rng.randrange(3) for _ in deps]
    edges = sp.event_edges(deps, streams)
    anc = ancestors(sp.stream_preds(streams, edges))
    assert all(anc[t] >> d & 1 for t, ds in enumerate(deps) for d in ds)
    # Minimal: dropping any event loses some dependence.
    for k in range(len(edges)):
        fewer = ancestors(sp.stream_preds(streams, edges[:k] + edges[k + 1:]))
        assert any(not fewer[t] >> d & 1 for t, ds in enumerate(deps) for d in ds)
