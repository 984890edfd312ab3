"""Plan verifier: does a lowered function's device plan keep its meaning?

A lowered function is correct on the device only if its memory plan and its
streams agree. This module checks that, on the IR alone, without the
planners' code (passes/memory_reuse.py, passes/planning/task_graph.py,
`ascend.task_predecessors`), so a planner bug cannot hide itself:

- every `ascend.buffer` lies inside `ascend.arena_size` at a 512-byte
  aligned offset (GE's MEM_ALIGN_SIZE);
- events are well formed: every `ascend.wait_event` follows an
  `ascend.record_event` of its id, and events sit at the function's top level;
- every use of a value written by another task is ordered after that write
  (and every write after the earlier uses) by stream order and events: two
  tasks on different streams with no event path between them may run at once;
- no two buffers whose bytes overlap may be live at once. A buffer is live
  from its first writer to its last reader (to the end for a returned one);
  sharing bytes is legal only if every task touching one happens before every
  task touching the other, or in place: a single-output task computing by
  flat index (elementwise, reshape) writes exactly over an input of the same
  bytes and element type that it is the last to touch.

Happens-before is computed here with one bitset per stream, as a vector
clock: a task knows every task its stream has finished or waited for; a
record snapshots its stream's set, a wait merges the snapshot in. That is
O(ops x tasks / word size), fine for thousands of tasks.

These are the dialect-level checks; the `verify-plan` pass
(passes/verify_plan.py) runs them from a pipeline, and the guard rails run
them after every pass that plans (passes/driver/instrument.py).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import BlockArgument, Operation, SSAValue

from ge_dialect import ascend, ge


@dataclass
class _Task:
    op: ascend.TaskOp
    name: str
    stream: int
    before: int = 0  # bitset of the tasks that happen before this one

    def __str__(self) -> str:
        return f"'{self.name}' (stream {self.stream})"


@dataclass
class _Value:
    """Any memref a task touches: a buffer, dyn_buffer, weight or argument."""

    value: SSAValue
    label: str
    offset: int | None = None  # static buffers only
    nbytes: int = 0
    readers: int = 0     # bitsets of task indices
    writers: int = 0
    returned: bool = False


@dataclass
class _Function:
    fn: func.FuncOp
    tasks: list[_Task] = field(default_factory=list)
    values: dict[SSAValue, _Value] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def _label(value: SSAValue, kind: str, i: int) -> str:
    """`%name`, or for a value without a name `ascend.buffer #3` (the fourth one)."""
    return f"%{value.name_hint}" if value.name_hint else f"{kind} #{i}"


def _bits(mask: int):
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def _touched(f: _Function, v: SSAValue) -> _Value:
    if v not in f.values:  # an argument or a weight
        label = (_label(v, "argument", v.index) if isinstance(v, BlockArgument)
                 else _label(v, f"{v.owner.name} result", v.index))
        f.values[v] = _Value(v, label)
    return f.values[v]


def _first(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


def _read(fn: func.FuncOp) -> _Function:
    """Tasks in program order with their happens-before sets, and the values they touch."""
    f = _Function(fn)
    done: dict[int, int] = {}               # stream -> tasks finished before its next op
    recorded: dict[int, int] = {}           # event -> its stream's set at the record
    count: dict[str, int] = {}
    for op in fn.body.block.ops:
        if isinstance(op, ascend.BufferOp | ascend.DynBufferOp):
            count[op.name] = count.get(op.name, -1) + 1
            v = _Value(op.output, _label(op.output, op.name, count[op.name]))
            if isinstance(op, ascend.BufferOp):
                v.offset, v.nbytes = op.offset.value.data, op.nbytes
            f.values[op.output] = v
        elif isinstance(op, ascend.RecordEventOp):
            recorded[op.event.value.data] = done.get(op.stream.value.data, 0)
        elif isinstance(op, ascend.WaitEventOp):
            event, stream = op.event.value.data, op.stream.value.data
            if event not in recorded:
                f.problems.append(f"ascend.wait_event {event} on stream {stream} has no "
                                  f"earlier ascend.record_event {event}: the stream would "
                                  "wait forever")
                continue
            done[stream] = done.get(stream, 0) | recorded[event]
        elif isinstance(op, ascend.TaskOp):
            t = len(f.tasks)
            stream = op.stream.value.data
            task = _Task(op, op.task_name.data, stream, done.get(stream, 0))
            f.tasks.append(task)
            done[task.stream] = task.before | 1 << t
            for v in op.ins:
                _touched(f, v).readers |= 1 << t
            for v in op.outs:
                _touched(f, v).writers |= 1 << t
            for nested in op.body.walk():
                if isinstance(nested, ascend.RecordEventOp | ascend.WaitEventOp):
                    f.problems.append(f"{nested.name} inside task {task}: events belong at "
                                      "the top level of the function")
        elif isinstance(op, func.ReturnOp | ascend.SendOp):
            # ascend.send comes after the last task: its buffer is read at the end.
            for v in op.operands:
                if v in f.values:
                    f.values[v].returned = True
    return f


def _check_arena(f: _Function) -> None:
    """Inside the arena, padding included (GE pads every block to MEM_ALIGN), and aligned."""
    arena = ascend.arena_size(f.fn)
    for v in f.values.values():
        if v.offset is None:
            continue
        end, padded = v.offset + v.nbytes, v.offset + ascend.align(v.nbytes)
        if v.offset < 0 or padded > arena:
            pad = f" (padded to {padded})" if end <= arena < padded else ""
            f.problems.append(f"{v.label} at bytes [{v.offset}, {end}){pad} lies outside the "
                              f"arena of {arena} bytes")
        elif v.offset % ascend.MEM_ALIGN:
            f.problems.append(f"{v.label} at offset {v.offset} is not aligned to "
                              f"{ascend.MEM_ALIGN} bytes")


def _check_races(f: _Function) -> None:
    """A task must follow every earlier writer of what it reads, and every earlier
    reader or writer of what it writes (one report per value)."""
    for v in f.values.values():
        wrote = touched = 0
        for t in _bits(v.readers | v.writers):
            task = f.tasks[t]
            reads, writes = v.readers >> t & 1, v.writers >> t & 1
            missing = ((wrote if reads else 0) | (touched if writes else 0)) & ~task.before
            if missing:
                u = _first(missing)
                f.problems.append(
                    f"task {task} {'writes' if writes else 'reads'} {v.label}, which task "
                    f"{f.tasks[u]} {'writes' if v.writers >> u & 1 else 'reads'} earlier, "
                    "with no stream order or event path between them (a cross-stream use "
                    "needs a record_event/wait_event pair)")
                break
            wrote |= v.writers & 1 << t
            touched |= 1 << t


def _by_index(task: ascend.TaskOp, value: SSAValue) -> bool:
    """One output, and every use of input `value` in the body maps flat index i
    to flat index i of an output-sized result (so it is read at i no later
    than i is written: elementwise bodies, a conv's residual add)."""
    if len(task.outs) != 1:
        return False
    numel = _numel(task.outs[0].type)
    args = [arg for v, arg in zip(task.ins, task.body.block.args) if v == value]
    return all(ge.reads_by_index(use)
               and all(_numel(r.type) == numel for r in use.operation.results)
               for arg in args for use in arg.uses)


def _numel(t) -> int:
    n = 1
    for d in t.get_shape():
        n *= d
    return n


class _Lifetimes:
    """Which tasks touch each buffer (bit n: the caller reading results), and the
    tasks that happen before all of them."""

    def __init__(self, f: _Function):
        n = len(f.tasks)
        self.f, self.end = f, n
        self.before = [t.before for t in f.tasks] + [(1 << n) - 1]
        self.access: dict[SSAValue, int] = {}
        self.common: dict[SSAValue, int] = {}
        for v in f.values.values():
            bits = v.readers | v.writers | (v.returned << n)
            if not v.writers and bits:  # contents from nowhere: live for the whole run
                bits = (1 << (n + 1)) - 1
            common = -1
            for t in _bits(bits):
                common &= self.before[t]
            self.access[v.value], self.common[v.value] = bits, common

    def over_before(self, a: _Value, b: _Value) -> bool:
        """Every task touching `a` happens before every task touching `b`."""
        return self.access[a.value] & ~self.common[b.value] == 0

    def in_place(self, a: _Value, b: _Value) -> bool:
        """`b` is written in place over `a` by a task that is the last to touch `a`."""
        if (a.offset, a.nbytes) != (b.offset, b.nbytes) or (
                a.value.type.element_type != b.value.type.element_type):
            return False
        for t in _bits(a.readers & b.writers):
            op = self.f.tasks[t].op
            if not _by_index(op, a.value):
                continue
            rest_a = self.access[a.value] & ~(1 << t)
            rest_b = self.access[b.value] & ~(1 << t)
            if rest_a & ~self.before[t] == 0 and all(
                    self.before[u] >> t & 1 for u in _bits(rest_b)):
                return True
        return False

    def use(self, t: int, v: _Value) -> str:
        """`task 'relu_0' (stream 0) reads %a`."""
        if t == self.end:
            return f"the caller reads {v.label} (a function result)"
        verb = "writes" if v.writers >> t & 1 else "reads"
        return f"task {self.f.tasks[t]} {verb} {v.label}"

    def describe(self, a: _Value, b: _Value) -> str:
        """Why `a` and `b` may be live at once: a use of the later one that is not
        ordered after a use of the earlier one."""
        first, second = sorted((a, b), key=lambda v: _first(self.access[v.value]))
        for v in _bits(self.access[second.value]):
            missing = self.access[first.value] & ~self.before[v]
            if not missing:
                continue
            u = missing.bit_length() - 1  # the latest use of `first` not before v
            if u == v:
                return (f"task {self.f.tasks[v]} uses both, and is not an elementwise task "
                        f"writing in place over an input it reads last")
            if self.before[u] >> v & 1:
                return f"{self.use(v, second)} before {self.use(u, first)}"
            return (f"{self.use(v, second)} and {self.use(u, first)} with no stream order or "
                    "event path between them")
        return ""


def _check_overlaps(f: _Function) -> None:
    """Buffers covering any one byte must follow each other: each over before the
    next, or written in place over it. "Follows" is transitive and implies
    program order of first uses, so it is enough to check neighbours in that
    order, as a sweep over offsets keeps them (O(n log n) checks, not n^2)."""
    life = _Lifetimes(f)
    placed = [v for v in f.values.values()
              if v.offset is not None and v.nbytes and life.access[v.value]]
    key = {id(v): (_first(life.access[v.value]), v.offset, i) for i, v in enumerate(placed)}
    sweep = sorted([(v.offset, 1, key[id(v)], v) for v in placed]
                   + [(v.offset + v.nbytes, 0, key[id(v)], v) for v in placed],
                   key=lambda e: e[:3])  # at one offset, ends before starts
    active: list[tuple] = []   # (key, value) of the buffers covering the offset
    reported: set[tuple[int, int]] = set()

    def check(a: _Value, b: _Value) -> None:
        if life.over_before(a, b) or life.in_place(a, b) or (id(a), id(b)) in reported:
            return
        reported.add((id(a), id(b)))
        f.problems.append(
            f"{a.label} (bytes [{a.offset}, {a.offset + a.nbytes})) and {b.label} (bytes "
            f"[{b.offset}, {b.offset + b.nbytes})) overlap but may be live at once: "
            f"{life.describe(a, b)}")

    for _, starts, k, v in sweep:
        i = bisect.bisect_left(active, (k,), key=lambda e: (e[0],))
        if starts:
            active.insert(i, (k, v))
            if i:
                check(active[i - 1][1], v)
            if i + 1 < len(active):
                check(v, active[i + 1][1])
        else:
            del active[i]
            if 0 < i < len(active):
                check(active[i - 1][1], active[i][1])


def check_function(fn: func.FuncOp) -> list[str]:
    """Every problem of `fn`'s plan, one line each; empty for a correct plan."""
    if len(fn.body.blocks) != 1:
        return [f"has {len(fn.body.blocks)} blocks; a lowered function has one"]
    f = _read(fn)
    _check_arena(f)
    _check_races(f)
    _check_overlaps(f)
    return f.problems


def planned_functions(root: Operation) -> list[func.FuncOp]:
    """The lowered functions under `root`: those with `ascend.arena_size`."""
    ops = [root] if isinstance(root, func.FuncOp) else list(root.walk())
    return [op for op in ops if isinstance(op, func.FuncOp) and ascend.arena_size(op) is not None]


def check_module(module: ModuleOp | func.FuncOp) -> list[str]:
    """Problems of every lowered function, each prefixed with `@name: `."""
    return [f"@{fn.sym_name.data}: {p}" for fn in planned_functions(module)
            for p in check_function(fn)]


def summary(problems: list[str]) -> str:
    """One line: the first problem, and how many more there are."""
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return problems[0] + more
