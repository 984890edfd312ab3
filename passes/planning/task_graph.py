"""A lowered Ascend function as plain data, and the orderings on its tasks.

Both Ascend-level passes (memory-reuse, task-parallel) read a function
through `read_function` and reason on indices: tasks are numbered in
program order, buffers in definition order. Two orders matter:

- happens-before on the device: stream order plus events
  (`ascend.task_predecessors`), closed transitively by `ancestors`;
- data dependences between tasks: by buffer identity (`logical`, what the
  program means) or by overlapping bytes (`physical`, what a given memory
  plan adds: a buffer that reuses another's bytes must wait for its readers).
  `ascend.dyn_buffer`s have no bytes in the plan, only identity: they are
  not `buffers` (nothing to plan) but their uses are dependences all the same.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue
from xdsl.utils.exceptions import PassFailedException

from ge_dialect import ascend
from lowering.ge_to_ascend import align


@dataclass
class Buffer:
    op: ascend.BufferOp
    name: str
    nbytes: int
    size: int                # nbytes rounded up to MEM_ALIGN
    offset: int
    writers: list[int] = field(default_factory=list)
    readers: list[int] = field(default_factory=list)
    output: bool = False     # returned: the caller reads it after the last task


@dataclass
class Task:
    op: ascend.TaskOp
    name: str
    stream: int
    reads: list[int]         # buffer indices (arguments and weights are not buffers)
    writes: list[int]
    dyn_reads: list[int] = field(default_factory=list)   # dyn_buffer and argument indices
    dyn_writes: list[int] = field(default_factory=list)


@dataclass
class FunctionGraph:
    fn: func.FuncOp
    tasks: list[Task]
    buffers: list[Buffer]
    preds: list[list[int]]   # per task: the tasks it waits for (stream order + events)
    has_events: bool

    @property
    def streams(self) -> set[int]:
        return {t.stream for t in self.tasks}


def lowered_graphs(module: ModuleOp, pass_name: str) -> Iterator[FunctionGraph]:
    """Every lowered function of `module` (those with `ascend.arena_size`; GE-level
    functions are skipped), read as a graph. Unsatisfiable events fail the pass."""
    for fn in list(module.walk()):
        if isinstance(fn, func.FuncOp) and ascend.arena_size(fn) is not None:
            try:
                yield read_function(fn)
            except ValueError as e:
                raise PassFailedException(f"{pass_name}: {e}") from None


def read_function(fn: func.FuncOp) -> FunctionGraph:
    """Raises ValueError if the events cannot be satisfied."""
    index: dict[SSAValue, int] = {}
    dyn_index: dict[SSAValue, int] = {}
    buffers: list[Buffer] = []
    tasks: list[Task] = []
    has_events = False
    # Graph inputs are not planned, but a task may update one in place
    # (ge.scatter_update): its uses order tasks by identity, as a dyn_buffer's do.
    for arg in fn.body.block.args:
        dyn_index[arg] = len(dyn_index)
    for op in fn.body.block.ops:
        if isinstance(op, ascend.BufferOp):
            index[op.output] = len(buffers)
            buffers.append(Buffer(op, op.output.name_hint or f"buffer{len(buffers)}",
                                  op.nbytes, align(op.nbytes), op.offset.value.data))
        elif isinstance(op, ascend.DynBufferOp):
            dyn_index[op.output] = len(dyn_index)
        elif isinstance(op, ascend.TaskOp):
            t = len(tasks)
            reads = [index[v] for v in op.ins if v in index]
            writes = [index[v] for v in op.outs if v in index]
            for b in dict.fromkeys(reads):
                buffers[b].readers.append(t)
            for b in dict.fromkeys(writes):
                buffers[b].writers.append(t)
            tasks.append(Task(op, op.task_name.data, op.stream.value.data, reads, writes,
                              [dyn_index[v] for v in op.ins if v in dyn_index],
                              [dyn_index[v] for v in op.outs if v in dyn_index]))
        elif isinstance(op, ascend.RecordEventOp | ascend.WaitEventOp):
            has_events = True
        elif isinstance(op, func.ReturnOp | ascend.SendOp):
            # A sent buffer is read after the last task, as a returned one is.
            for v in op.operands:
                if v in index:
                    buffers[index[v]].output = True
    preds = ascend.task_predecessors(fn.body.block.ops)
    return FunctionGraph(fn, tasks, buffers, preds, has_events)


@dataclass
class Clocks:
    """Happens-before on the device as vector clocks: O(tasks x streams) memory.

    Tasks before a given task on one stream form a prefix of that stream (a
    stream runs in order), so the set of all tasks before `t` is one number
    per stream: `seen[t][s]`, the position on stream `s` of the last task that
    happens before `t` (-1 for none). Index `len(tasks)` is the caller, which
    reads the outputs after every task, on a stream of its own.
    """

    stream: list[int]        # per task (and the caller): its stream, numbered 0..S-1
    pos: list[int]           # per task: its position on its stream
    seen: list[tuple[int, ...]]

    @property
    def caller(self) -> int:
        return len(self.pos) - 1

    def before(self, u: int, t: int) -> bool:
        """u happens before t."""
        return self.pos[u] <= self.seen[t][self.stream[u]]


def clocks(streams: list[int], preds: list[list[int]]) -> Clocks:
    """Vector clocks of tasks on `streams` waiting for `preds` (program order;
    each task's list holds the previous task of its stream, as
    ascend.task_predecessors gives)."""
    ids = {s: k for k, s in enumerate(dict.fromkeys(streams))}
    width = len(ids) + 1  # the caller's own stream last
    stream = [ids[s] for s in streams] + [width - 1]
    pos: list[int] = []
    count = [0] * width
    seen: list[tuple[int, ...]] = []
    for t, ps in enumerate(preds):
        pos.append(count[stream[t]])
        count[stream[t]] += 1
        clock = [-1] * width
        for p in ps:
            for s, k in enumerate(seen[p]):
                if k > clock[s]:
                    clock[s] = k
            if pos[p] > clock[stream[p]]:
                clock[stream[p]] = pos[p]
        seen.append(tuple(clock))
    pos.append(0)
    seen.append(tuple(c - 1 for c in count[:-1]) + (-1,))
    return Clocks(stream, pos, seen)


def ancestors(preds: list[list[int]]) -> list[int]:
    """Bitset per task of every task that happens before it (preds in program order)."""
    anc: list[int] = []
    for ps in preds:
        bits = 0
        for p in ps:
            bits |= anc[p] | (1 << p)
        anc.append(bits)
    return anc


def aliases(buffers: list[Buffer]) -> list[list[int]]:
    """For each buffer, the buffers whose bytes overlap it (itself included)."""
    order = sorted(range(len(buffers)), key=lambda b: buffers[b].offset)
    result: list[list[int]] = [[b] for b in range(len(buffers))]
    for i, a in enumerate(order):
        end = buffers[a].offset + buffers[a].nbytes
        for b in order[i + 1:]:
            if buffers[b].offset >= end:
                break
            if buffers[a].nbytes and buffers[b].nbytes:
                result[a].append(b)
                result[b].append(a)
    return result


def dependences(graph: FunctionGraph, physical: bool) -> list[set[int]]:
    """For each task, the earlier tasks it must follow (read/write, write/read,
    write/write on the same buffer, or on overlapping bytes if `physical`)."""
    alias = aliases(graph.buffers) if physical else [[b] for b in range(len(graph.buffers))]
    seen: list[list[tuple[int, bool]]] = [[] for _ in graph.buffers]  # (task, wrote)
    dyn_seen: dict[int, list[tuple[int, bool]]] = {}
    deps: list[set[int]] = []
    for t, task in enumerate(graph.tasks):
        mine = set()
        for b, writes in [(b, False) for b in task.reads] + [(b, True) for b in task.writes]:
            for c in alias[b]:
                mine.update(u for u, wrote in seen[c] if wrote or writes)
        dyn = [(d, False) for d in task.dyn_reads] + [(d, True) for d in task.dyn_writes]
        for d, writes in dyn:
            mine.update(u for u, wrote in dyn_seen.get(d, ()) if wrote or writes)
        for b in task.reads:
            seen[b].append((t, False))
        for b in task.writes:
            seen[b].append((t, True))
        for d in task.dyn_reads:
            dyn_seen.setdefault(d, []).append((t, False))
        for d in task.dyn_writes:
            dyn_seen.setdefault(d, []).append((t, True))
        mine.discard(t)
        deps.append(mine)
    return deps
