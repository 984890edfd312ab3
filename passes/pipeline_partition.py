"""pipeline-partition: cut a lowered function into pipeline stages, one per card.

Model parallelism by pipeline stages (GPipe): the tasks, in program order,
are cut into `stages` contiguous groups; card k runs group k on every
micro-batch and hands what later groups need to them. At each cut the pass
writes the communication into the IR, HCCL-style point-to-point ops:

    func.func @main_stage0(%x: memref<...>) attributes {ascend.stage = 0 : i64, ...} {
      ... tasks of stage 0 ...
      ascend.send %relu {peer = 1 : i64, tag = 0 : i64} : memref<1x64x56x56xf32>
      func.return
    }
    func.func @main_stage1() -> memref<1x1000xf32> attributes {ascend.stage = 1 : i64, ...} {
      %relu = ascend.buffer {offset = 0 : i64} : memref<1x64x56x56xf32>
      ascend.recv %relu {peer = 0 : i64, tag = 0 : i64} : memref<1x64x56x56xf32>
      ... tasks of stage 1 ...
      func.return %fc : memref<1x1000xf32>
    }

Stage 0 takes the function's arguments; the last stage returns its results
(a value computed on an earlier stage is sent there). A value goes straight
from the stage that computes it to each later stage that reads it, once
(tag = its transfer's number). Weights are copied into the stages that read them.

Where to cut: each stage's time is its tasks' cost-model estimates plus the
time to receive and send the bytes live across its two cuts over the
card-to-card link (target/hardware.py: HCCS bandwidth and latency). A
first dynamic program finds the smallest possible bottleneck (the slowest
stage, which sets a pipeline's throughput); a second one picks, among the
cuts whose every stage is within `tolerance` of that bottleneck, those with
the fewest bytes crossing. Both are O(stages x tasks^2).

Each stage is a lowered function of its own: buffers laid out back to back
(every card plans its own arena), one stream, no events. So the pass runs
first among the Ascend-level passes, and task-parallel and memory-reuse then
plan each stage (passes/pipelines.py `pipeline_parallel_passes`); on a
function that was planned already, it drops that plan's streams, events and
offsets and starts again from the program order. Functions with dynamic
shapes are refused: a stage's buffers must have static sizes to be sent.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i64
from xdsl.ir import Block, BlockArgument, SSAValue
from xdsl.utils.exceptions import PassFailedException

from ge_dialect import OUTPUT_TREE, ascend
from passes.base import AscendPass
from target import cost_model
from target.hardware import DEFAULT_CHIP, HARDWARE, Hardware

PLAN_ATTRS = (ascend.MEMORY_LOWER_BOUND, ascend.MEMORY_NAIVE, ascend.MEMORY_PROGRAM_ORDER)


@dataclass(frozen=True)
class Cut:
    """Where stages begin (task indices, first is 0) and what that costs."""

    starts: list[int]
    stage_us: list[float]      # per stage: compute + its link time
    cut_bytes: list[int]       # per cut (stages - 1 entries)


def live_bytes(producer: list[int], last_use: list[int], sizes: list[int], n: int) -> list[int]:
    """Bytes live across position p (between task p-1 and task p), p = 0..n:
    values produced before p and read at p or later."""
    delta = [0] * (n + 2)
    for d, u, size in zip(producer, last_use, sizes):
        if u > d:  # crosses every position in (d, u]
            delta[d + 1] += size
            delta[u + 1] -= size
    live, total = [], 0
    for p in range(n + 1):
        total += delta[p]
        live.append(total)
    live[0] = live[n] = 0  # inputs and results move host <-> card, not card <-> card
    return live


def choose_cuts(costs: list[float], live: list[int], stages: int,
                hw: Hardware, tolerance: float) -> Cut:
    """Contiguous stages: the smallest bottleneck, then the fewest bytes crossing."""
    n = len(costs)
    prefix = [0.0]
    for c in costs:
        prefix.append(prefix[-1] + c)

    def link(p: int) -> float:
        return cost_model.transfer_us(live[p], hw.link_gb_s, hw.link_latency_us) if live[p] else 0.0

    def stage(a: int, b: int) -> float:
        return prefix[b] - prefix[a] + link(a) + link(b)

    inf = float("inf")
    # best[k][p]: the smallest bottleneck of tasks [0, p) in k stages.
    best = [[inf] * (n + 1) for _ in range(stages + 1)]
    best[0][0] = 0.0
    for k in range(1, stages + 1):
        for p in range(k, n - (stages - k) + 1):
            best[k][p] = min((max(best[k - 1][q], stage(q, p)) for q in range(k - 1, p)),
                             default=inf)
    bound = best[stages][n] * (1 + tolerance) + 1e-9
    # fewest[k][p]: (bytes over the cuts, bottleneck) of tasks [0, p) in k stages
    # whose every stage is within the bound; back[k][p] the start of the last one.
    fewest: list[list[tuple[float, float]]] = [[(inf, inf)] * (n + 1) for _ in range(stages + 1)]
    back = [[0] * (n + 1) for _ in range(stages + 1)]
    fewest[0][0] = (0, 0.0)
    for k in range(1, stages + 1):
        for p in range(k, n - (stages - k) + 1):
            for q in range(k - 1, p):
                prev = fewest[k - 1][q]
                time = stage(q, p)
                if prev[0] == inf or time > bound:
                    continue
                cand = (prev[0] + (live[q] if q else 0), max(prev[1], time))
                if cand < fewest[k][p]:
                    fewest[k][p], back[k][p] = cand, q
    starts, p = [], n
    for k in range(stages, 0, -1):
        p = back[k][p]
        starts.append(p)
    starts.reverse()
    ends = starts[1:] + [n]
    return Cut(starts, [stage(a, b) for a, b in zip(starts, ends)],
               [live[p] for p in starts[1:]])


@dataclass
class _Transfer:
    value: SSAValue
    src: int
    dst: int
    tag: int


def _stage_of(cut: Cut, n: int) -> list[int]:
    ends = cut.starts[1:] + [n]
    return [k for k, (a, b) in enumerate(zip(cut.starts, ends)) for _ in range(a, b)]


def partition(fn: func.FuncOp, stages: int, hw: Hardware,
              tolerance: float) -> list[func.FuncOp]:
    name = fn.sym_name.data
    ops = list(fn.body.block.ops)
    if any(isinstance(o, ascend.DynBufferOp) for o in ops):
        raise PassFailedException(f"pipeline-partition: @{name} has buffers with dynamic "
                                  "shapes; stages send whole buffers, so shapes must be static")
    if any(isinstance(o, ascend.SendOp | ascend.RecvOp) for o in ops):
        raise PassFailedException(f"pipeline-partition: @{name} is a pipeline stage already")
    tasks = [o for o in ops if isinstance(o, ascend.TaskOp)]
    if stages > len(tasks):
        raise PassFailedException(f"pipeline-partition: @{name} has {len(tasks)} task(s), "
                                  f"too few for {stages} stages (one task at least per stage)")
    ret = ops[-1]
    assert isinstance(ret, func.ReturnOp)
    n = len(tasks)
    # Every memref a task touches or the function returns, except weights.
    producer: dict[SSAValue, int] = {a: -1 for a in fn.body.block.args}
    last_use: dict[SSAValue, int] = {a: -1 for a in fn.body.block.args}
    for t, task in enumerate(tasks):
        for v in task.outs:
            producer.setdefault(v, t)
        for v in (*task.ins, *task.outs):
            if not isinstance(v.owner, ascend.WeightOp):
                last_use[v] = max(last_use.get(v, -1), t)
    for v in ret.operands:
        last_use[v] = n
    values = [v for v in last_use if v in producer]
    live = live_bytes([producer[v] for v in values], [last_use[v] for v in values],
                      [ascend.nbytes(v.type) for v in values], n)
    costs = [cost_model.estimate(t, hw).time_us for t in tasks]
    cut = choose_cuts(costs, live, stages, hw, tolerance)
    stage_of_task = _stage_of(cut, n)

    def home(v: SSAValue) -> int:
        return 0 if isinstance(v, BlockArgument) else stage_of_task[producer[v]]

    # Each value goes once from its home stage to every later stage that reads it.
    readers: dict[SSAValue, list[int]] = {}
    for t, task in enumerate(tasks):
        for v in task.ins:
            if v in producer:
                readers.setdefault(v, []).append(stage_of_task[t])
    for v in ret.operands:
        if not isinstance(v.owner, ascend.WeightOp):  # each stage has its own weights
            readers.setdefault(v, []).append(stages - 1)
    transfers: list[_Transfer] = []
    for v, where in readers.items():
        for dst in sorted(set(where)):
            if dst != home(v):
                transfers.append(_Transfer(v, home(v), dst, len(transfers)))
    weights = [o for o in ops if isinstance(o, ascend.WeightOp)]
    return [_stage_function(fn, k, stages, tasks, stage_of_task, weights, transfers, ret)
            for k in range(stages)]


def _stage_function(fn: func.FuncOp, k: int, stages: int, tasks: list[ascend.TaskOp],
                    stage_of_task: list[int], weights: list[ascend.WeightOp],
                    transfers: list[_Transfer], ret: func.ReturnOp) -> func.FuncOp:
    first, last = k == 0, k == stages - 1
    inputs = list(fn.function_type.inputs.data) if first else []
    outputs = list(fn.function_type.outputs.data) if last else []
    new = func.FuncOp(f"{fn.sym_name.data}_stage{k}", (inputs, outputs))
    block: Block = new.body.block
    env: dict[SSAValue, SSAValue] = {}
    if first:
        for old, arg in zip(fn.body.block.args, block.args):
            env[old] = arg
            arg.name_hint = old.name_hint
    mine = [t for t, s in zip(tasks, stage_of_task) if s == k]
    used = {v for t in mine for v in t.ins} | (set(ret.operands) if last else set())
    for w in weights:
        if w.output in used:
            clone = w.clone()
            clone.output.name_hint = w.output.name_hint
            block.add_op(clone)
            env[w.output] = clone.output
    offset = 0

    def buffer_for(v: SSAValue) -> SSAValue:
        nonlocal offset
        buf = ascend.BufferOp(ascend.as_memref(ascend.as_tensor(v.type)), offset)
        offset = ascend.align(offset + buf.nbytes)
        buf.output.name_hint = v.name_hint
        block.add_op(buf)
        env[v] = buf.output
        return buf.output

    for tr in transfers:
        if tr.dst == k:
            block.add_op(ascend.RecvOp(buffer_for(tr.value), tr.src, tr.tag))
    for task in mine:
        for v in task.outs:
            if v not in env:
                buffer_for(v)
        clone = task.clone(value_mapper=dict(env))
        clone.properties["stream"] = IntegerAttr(0, i64)
        block.add_op(clone)
    for tr in transfers:
        if tr.src == k:
            block.add_op(ascend.SendOp(env[tr.value], tr.dst, tr.tag))
    block.add_op(func.ReturnOp(*[env[v] for v in ret.operands]) if last else func.ReturnOp())
    new.attributes[ascend.ARENA_SIZE] = IntegerAttr(offset, i64)
    new.attributes[ascend.STAGE] = IntegerAttr(k, i64)
    new.attributes[ascend.STAGES] = IntegerAttr(stages, i64)
    if last and OUTPUT_TREE in fn.attributes:
        new.attributes[OUTPUT_TREE] = fn.attributes[OUTPUT_TREE]
    return new


@dataclass(frozen=True)
class PipelinePartitionPass(AscendPass):
    """Cut every lowered function into `stages` pipeline stages with send/recv between them.

    Stages are balanced by the cost model for `hardware` (compute plus link
    time), then chosen for the fewest bytes crossing the cuts among those
    within `tolerance` (a fraction) of the best balance. `stages=1` leaves
    functions as they are. Stage functions are named `@<name>_stage<k>`;
    functions that are not lowered, or are stages already, are refused or
    left alone as the module docstring says.
    """

    name = "pipeline-partition"
    plans = True
    stages: int = 2
    hardware: str = DEFAULT_CHIP
    tolerance: float = 0.05

    def __post_init__(self):
        # Checked when the pipeline is built: a bad option is a user error up front.
        if not isinstance(self.stages, int) or self.stages < 1:
            raise ValueError(f"pipeline-partition: stages must be an integer >= 1, "
                             f"got {self.stages}")
        if self.hardware not in HARDWARE:
            raise ValueError(f"pipeline-partition: hardware must be one of "
                             f"{', '.join(HARDWARE)}, got '{self.hardware}'")
        if not self.tolerance >= 0:
            raise ValueError(f"pipeline-partition: tolerance must be >= 0, got {self.tolerance}")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.stages == 1:
            return
        hw = HARDWARE[self.hardware]
        for fn in list(op.ops):
            if not isinstance(fn, func.FuncOp) or ascend.arena_size(fn) is None:
                continue
            if ascend.stage_of(fn) is not None:
                raise PassFailedException(f"pipeline-partition: @{fn.sym_name.data} is a "
                                          "pipeline stage already")
            for new in partition(fn, self.stages, hw, self.tolerance):
                op.body.block.insert_op_before(new, fn)
            op.body.block.erase_op(fn)
