"""memory-reuse: plan the activation arena statically, reusing dead buffers' bytes.

The planner itself is plain data (passes/planning/memory.py); this module reads
the lowered function, decides which elementwise tasks may write in place,
optionally reorders tasks to meet a memory budget, and writes the plan back:
every `ascend.buffer` gets its offset and the function its `ascend.arena_size`,
plus `ascend.memory_lower_bound` and `ascend.memory_naive` so the figures
travel with the IR (`ge-opt --memory-report` prints them, the runtime's stats
report them).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i64
from xdsl.ir import SSAValue
from xdsl.utils.exceptions import PassFailedException

from ge_dialect import ascend, ge
from passes.base import AscendPass
from passes.planning import memory as memory_plan
from passes.planning.task_graph import (Clocks, FunctionGraph, clocks, dependences, lowered_graphs,
                                 read_function)

MB = 2**20
# Above this many allocations on several streams, the exact lower bound (a
# max-flow over every ordered pair) gives way to the program-order peak.
EXACT_BOUND_LIMIT = 500
STRATEGIES = ("auto", *memory_plan.STRATEGIES)


def _numel(t) -> int:
    n = 1
    for d in t.get_shape():
        n *= d
    return n


def overwritable(task: ascend.TaskOp, buffer: SSAValue) -> bool:
    """The task's output may take the bytes of its input `buffer`: every use of
    it in the body maps flat index i to flat index i of an output-sized result.
    Then no kernel reads element j of the input after element j of the output
    is written: a by-index op reads i as it writes i, and any other op reads
    only values computed before the body's result. This covers elementwise
    bodies and a conv or linear whose residual add is the epilogue (oneDNN
    accumulates into the residual's bytes, runtime/host/runners.py and
    onednn_int8.py), but never a conv's or linear's own input."""
    if len(task.outs) != 1:
        return False
    numel = _numel(task.outs[0].type)
    uses = [use for v, arg in zip(task.ins, task.body.block.args) if v == buffer
            for use in arg.uses]
    return all(ge.reads_by_index(use) and all(_numel(r.type) == numel
                                              for r in use.operation.results) for use in uses)


def in_place_sources(graph: FunctionGraph, order: Clocks) -> dict[int, int]:
    """output buffer -> input buffer whose bytes it may take.

    Legal when the task has one output, the input is `overwritable` by it, has
    the output's bytes and element type, is not a function result, and every
    other task touching the input happens before this one (it is the last
    reader)."""
    sources: dict[int, int] = {}
    taken: set[int] = set()
    for t, task in enumerate(graph.tasks):
        if len(task.op.outs) != 1 or len(task.writes) != 1:
            continue
        out = graph.buffers[task.writes[0]]
        if out.writers != [t]:
            continue
        for i in dict.fromkeys(task.reads):
            src = graph.buffers[i]
            if (i in taken or src.output or not src.writers or i == task.writes[0]
                    or src.nbytes != out.nbytes
                    or src.op.output.type.element_type != out.op.output.type.element_type
                    or not overwritable(task.op, src.op.output)):
                continue
            if all(order.before(u, t) for u in src.writers + src.readers if u != t):
                sources[task.writes[0]] = i
                taken.add(i)
                break
    return sources


@dataclass
class MemoryPlan:
    groups: list[list[int]]           # buffers sharing one allocation
    allocs: list[memory_plan.Allocation]
    offsets: list[int]
    arena: int
    lower_bound: int
    peak_at: int | None               # task index where live bytes peak (one stream)
    live_at_peak: list[int]           # allocation indices
    naive: int


def graph_clocks(graph: FunctionGraph) -> Clocks:
    return clocks([t.stream for t in graph.tasks], graph.preds)


def plan_graph(graph: FunctionGraph, strategy: str, in_place: bool) -> MemoryPlan:
    n = len(graph.tasks)
    order = graph_clocks(graph)
    sources = in_place_sources(graph, order) if in_place else {}
    by_root: dict[int, list[int]] = {}
    for b in range(len(graph.buffers)):
        root = b
        while root in sources:  # chains of in-place tasks share the first one's bytes
            root = sources[root]
        by_root.setdefault(root, []).append(b)
    groups = list(by_root.values())
    # Contents that come from nowhere we see are kept for the whole run: the
    # first and last task of every stream, and the caller.
    firsts, lasts = {}, {}
    for t, task in enumerate(graph.tasks):
        firsts.setdefault(task.stream, t)
        lasts[task.stream] = t
    whole_run = {*firsts.values(), *lasts.values(), n}
    allocs = []
    for members in groups:
        tasks: set[int] = set()
        for b in members:
            buf = graph.buffers[b]
            if not buf.writers:
                tasks |= whole_run
            tasks.update(buf.writers)
            tasks.update(buf.readers)
            if buf.output:
                tasks.add(n)
        allocs.append(memory_plan.Allocation(max(graph.buffers[b].size for b in members),
                                             tuple(sorted(tasks))))
    conflict = memory_plan.conflicts(allocs, order)
    offsets, _ = memory_plan.plan(allocs, conflict, strategy)
    lower, at, live = memory_plan.live_peak(allocs)
    if len(graph.streams) > 1:  # program order no longer shows every overlap
        at = None
        if len(allocs) <= EXACT_BOUND_LIMIT:
            lower, live = memory_plan.max_weight_antichain(
                [a.size for a in allocs], memory_plan.precedence(allocs, order))
    return MemoryPlan(groups, allocs, offsets,
                      memory_plan.arena_size([a.size for a in allocs], offsets), lower, at,
                      live, sum(b.size for b in graph.buffers))


def check_races(graph: FunctionGraph) -> None:
    """Every data dependence must be ordered on the device, or no plan is safe."""
    order = graph_clocks(graph)
    for t, deps in enumerate(dependences(graph, physical=False)):
        for u in sorted(deps):
            if not order.before(u, t):
                a, b = graph.tasks[u], graph.tasks[t]
                raise PassFailedException(
                    f"memory-reuse: task '{b.name}' (stream {b.stream}) uses a buffer that "
                    f"'{a.name}' (stream {a.stream}) touches, with no stream order or event "
                    "between them; add events (task-parallel does) before planning memory")


def reorder_tasks(graph: FunctionGraph, order: list[int]) -> None:
    """Move tasks into `order`, each buffer just before its first use."""
    block = graph.fn.body.block
    # Tasks stay between the receives and the sends (ascend.recv / ascend.send);
    # a received buffer stays where it is, before its receive.
    sends = [op for op in block.ops if isinstance(op, ascend.SendOp)]
    end = sends[0] if sends else block.last_op
    received = {op.buffer for op in block.ops if isinstance(op, ascend.RecvOp)}
    placed = {b for b, buf in enumerate(graph.buffers) if buf.op.output in received}
    for t in order:
        task = graph.tasks[t]
        for b in task.reads + task.writes:
            if b not in placed:
                placed.add(b)
                op = graph.buffers[b].op
                op.detach()
                block.insert_op_before(op, end)
        task.op.detach()
        block.insert_op_before(task.op, end)


def _mb(n: int) -> str:
    return f"{n / MB:.2f} MiB" if n >= MB else f"{n / 1024:.1f} KiB"


def over_budget(graph: FunctionGraph, plan: MemoryPlan, limit: int, note: str) -> str:
    live = sorted(plan.live_at_peak, key=lambda k: -plan.allocs[k].size)
    shown = []
    for k in live[:10]:
        buf = graph.buffers[plan.groups[k][0]]
        maker = graph.tasks[buf.writers[0]].name if buf.writers else "a function argument"
        shown.append(f"%{buf.name} {_mb(plan.allocs[k].size)} from '{maker}'")
    more = f", and {len(live) - 10} more" if len(live) > 10 else ""
    if plan.peak_at is None:
        where = f" across {len(graph.streams)} streams"
    else:
        where = f" at task '{graph.tasks[min(plan.peak_at, len(graph.tasks) - 1)].name}'"
    return (f"memory-reuse: @{graph.fn.sym_name.data} does not fit the memory budget of "
            f"{_mb(limit)} (memory-limit-mb): the planned arena is {_mb(plan.arena)} and "
            f"the peak of live tensors is {_mb(plan.lower_bound)}{where}{note}. "
            f"Live at the peak, largest first: {', '.join(shown)}{more}")


def _plan_within(graph: FunctionGraph, strategy: str, in_place: bool, limit: int | None,
                 reorder: bool) -> tuple[FunctionGraph, MemoryPlan, int | None]:
    """The plan, and the program order's arena if tasks were reordered to lower
    the peak (to fit `limit`, or always with `reorder`)."""
    plan = plan_graph(graph, strategy, in_place)
    fits = limit is None or plan.arena <= limit
    if fits and not reorder:
        return graph, plan, None
    if len(graph.streams) > 1 or graph.has_events:
        if fits:  # reordering would break the streams' order; the plan stands
            return graph, plan, None
        note = ("; tasks were not reordered because streams and events already fix their "
                "order: run memory-reuse before task-parallel to let it reorder")
        raise PassFailedException(over_budget(graph, plan, limit, note))
    uses = [memory_plan.TaskUse(tuple(t.reads), tuple(t.writes)) for t in graph.tasks]
    sizes = [b.size for b in graph.buffers]
    outputs = {b for b, buf in enumerate(graph.buffers) if buf.output}
    deps = dependences(graph, physical=False)
    program_peak = memory_plan.order_peak(range(len(uses)), uses, sizes, outputs)
    order, peak = memory_plan.low_memory_order(deps, uses, sizes, outputs)
    note, before = " (no task order we tried has a lower peak)", None
    if peak < program_peak:
        before = plan.arena
        reorder_tasks(graph, order)
        graph = read_function(graph.fn)
        plan = plan_graph(graph, strategy, in_place)
        note = f" after reordering tasks (the peak was {_mb(program_peak)} in program order)"
    if limit is not None and plan.arena > limit:
        raise PassFailedException(over_budget(graph, plan, limit, note))
    return graph, plan, before


def write_plan(graph: FunctionGraph, plan: MemoryPlan, program_order: int | None = None) -> None:
    for members, offset in zip(plan.groups, plan.offsets):
        for b in members:
            graph.buffers[b].op.properties["offset"] = IntegerAttr(offset, i64)
    attrs = graph.fn.attributes
    attrs[ascend.ARENA_SIZE] = IntegerAttr(plan.arena, i64)
    attrs[ascend.MEMORY_LOWER_BOUND] = IntegerAttr(plan.lower_bound, i64)
    attrs[ascend.MEMORY_NAIVE] = IntegerAttr(plan.naive, i64)
    if program_order is not None:
        attrs[ascend.MEMORY_PROGRAM_ORDER] = IntegerAttr(program_order, i64)


def memory_report(module: ModuleOp) -> str:
    """One line per planned function: arena, lower bound, naive total."""
    lines = []
    for fn in module.walk():
        if not isinstance(fn, func.FuncOp) or ascend.MEMORY_LOWER_BOUND not in fn.attributes:
            continue
        arena = ascend.arena_size(fn) or 0
        lower = fn.attributes[ascend.MEMORY_LOWER_BOUND].value.data
        naive = fn.attributes[ascend.MEMORY_NAIVE].value.data
        ratio = f"{arena / lower:.3f}x" if lower else "-"
        before = fn.attributes.get(ascend.MEMORY_PROGRAM_ORDER)
        reordered = (f", tasks reordered: {before.value.data} bytes ({_mb(before.value.data)}) "
                     "in program order" if before is not None else "")
        lines.append(f"memory-reuse @{fn.sym_name.data}: arena {arena} bytes ({_mb(arena)}), "
                     f"lower bound {lower} bytes ({_mb(lower)}), naive {naive} bytes "
                     f"({_mb(naive)}), arena/lower bound {ratio}{reordered}")
    return "\n".join(lines)


@dataclass(frozen=True)
class MemoryReusePass(AscendPass):
    """Plan every lowered function's arena: reuse dead buffers, write in place.

    Lifetimes follow the device's happens-before order (streams and events),
    so the pass is safe before or after task-parallel. GE's order (streams
    first, then memory: task-parallel,memory-reuse) keeps all parallelism;
    the other order makes task-parallel respect the reuse (a buffer's new
    tenant waits for the old one's readers). `strategy` is auto, best-fit or
    size-class; `in-place` lets elementwise tasks overwrite their last-read
    input; `memory-limit-mb` (MB of 2**20 bytes, as the runtime's stats) fails
    with the live tensors at the peak if the arena does not fit, after trying
    memory-friendly task orders (single stream only). `reorder` tries those
    orders without a budget and keeps one whose peak is lower than program
    order's (GE's memory planning: the smallest peak), recording the program
    order's arena as `ascend.memory_program_order`; on several streams it
    changes nothing. Functions without `ascend.arena_size` are not lowered
    and are left alone.
    """

    name = "memory-reuse"
    plans = True
    strategy: str = "auto"
    in_place: bool = True
    memory_limit_mb: int | float | None = None
    reorder: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.strategy not in STRATEGIES:
            raise ValueError(f"memory-reuse: strategy must be one of {', '.join(STRATEGIES)}, "
                             f"got '{self.strategy}'")
        if self.memory_limit_mb is not None and self.memory_limit_mb <= 0:
            raise ValueError(f"memory-reuse: memory-limit-mb must be > 0, "
                             f"got {self.memory_limit_mb}")
        limit = None if self.memory_limit_mb is None else int(self.memory_limit_mb * MB)
        for graph in lowered_graphs(op, self.name):
            check_races(graph)
            graph, plan, before = _plan_within(graph, self.strategy, self.in_place, limit,
                                               self.reorder)
            write_plan(graph, plan, before)
