"""Executes lowered Ascend IR on the host and simulates its device timeline.

`load` does all the work that does not depend on inputs: it allocates the
arena (one uint8 tensor of `ascend.arena_size` bytes), binds every buffer as
a typed view into it, decodes weights, compiles task bodies, estimates every
task with the cost model and simulates the device timeline (streams, events,
AI Core / Vector Core groups; see runtime/scheduler.py). `run` then only
copies inputs in, calls the prepared tasks and copies outputs out. Because
buffers really alias the arena, a wrong memory plan gives wrong numbers.

Dynamic shapes: one compiled graph runs at every input size. Buffers with
`?` dims (`ascend.dyn_buffer`) are planned per concrete input shape: the first
run at a new shape runs the tasks with those buffers on the host heap, records
every value's shape, then lays the buffers out back to back at 512-byte
alignment in a second arena for that shape, estimates and simulates the tasks
at those shapes, and caches the plan. Later runs at that shape bind the cached
views and run as a static graph does; nothing is recompiled. A run whose
buffer shapes differ from its plan (a data-dependent shape) is an error.

Concurrent runs: `run` may be called from several threads at once. Each
call in flight gets a replica of its own (arena, buffer views, task runners,
oneDNN primitives, per-shape plans), from a pool that grows on demand up to
`max_inflight` replicas; further calls wait for one to be free. Weights are
decoded once and shared read-only by every replica (prepacked copies that
oneDNN primitives make are per replica). Memory grows with the replicas
actually used, at most `max_inflight` arenas.

Pipeline stages: a function cut by pipeline-partition receives buffers
(`ascend.recv`) before its first task and sends buffers (`ascend.send`)
after its last one. The executable does both through its `transport`, an
object with `recv(tensor, peer, tag)` (fill `tensor`) and `send(tensor,
peer, tag)` (done with `tensor` when it returns, or copies it): a
torch.distributed one between ranks (npu_graph/pipeline_parallel.py), or a
queue in one process. Received and sent buffers keep the plain row-major
layout (no NHWC or blocked arena views), so they go over the wire as they are.

Host order: tasks run in program order by default. Any order that respects
streams and events is legal on the device, and the memory plan must hold
for all of them; `set_host_order` runs the simulated timeline's order or
any other legal order, so tests can check that.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import torch
from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp
from xdsl.ir import SSAValue

from ge_dialect import ascend, find_func
from ge_dialect.ascend import CUBE_OPS
from runtime import cost_model, kernels, pipelining, scheduler, trace
from runtime.host import bf16
from runtime.host import blocked as blocked_layout
from runtime.host import channels_last as arena_layout
from runtime.host import runners
from runtime.host import onednn as dnnl
from runtime.program import BlockProgram, check_inputs

MB = 2**20
DEFAULT_MAX_INFLIGHT = 4  # replicas a graph may run on at once (each its own arena)
PIPELINED_BATCHES = 8     # batches in the simulated pipelined timeline of the stats


class LoadError(ValueError):
    """The module is not executable Ascend IR; the message says what is wrong."""


class ExecutionError(RuntimeError):
    """A run went wrong in a way the graph's types did not foresee."""


@dataclass(frozen=True)
class Options:
    """The host runtime's fast paths, each switchable so that it can be
    measured alone (bench/runtime_levers.py) and tested against the generic
    path (all off). They apply to static-shape graphs; a graph with dynamic
    buffers always runs the generic path."""

    zero_copy: bool = True      # task runners write into their arena views (runtime/host/runners.py)
    prepared_loop: bool = True  # argument lists bound at load time, one call per task
    channels_last: bool = True  # 4-D activations viewed NHWC (runtime/host/channels_last.py)
    algorithms: bool = True     # conv / pool algorithm chosen per shape (else the library's)
    primitives: bool = True     # with algorithms: oneDNN convs / pools created at load
    blocked: bool = True        # with primitives: oneDNN-only buffers blocked (runtime/host/blocked.py)


GENERIC = Options(False, False, False, False, False, False)


@dataclass
class Task:
    name: str
    unit: str
    stream: int
    ins: list[int]          # indices into the executable's value table
    outs: list[int]
    body: BlockProgram
    estimate: cost_model.Estimate | None  # None until the shapes of a run are known
    op: ascend.TaskOp

    @property
    def device_us(self) -> float:
        return self.estimate.time_us


@dataclass
class Plan:
    """The device schedule, and for dynamic graphs where `?`-shaped buffers live."""

    estimates: list[cost_model.Estimate]
    slots: list[scheduler.Slot]
    arena: torch.Tensor | None = None
    views: list[tuple[int, torch.Tensor]] = field(default_factory=list)


def _view(arena: torch.Tensor, offset: int, t: MemRefType, nhwc: bool = False) -> torch.Tensor:
    """The buffer's typed view of the arena; NCHW-logical, NHWC in memory if `nhwc`."""
    dtype = kernels.torch_dtype(t.element_type)
    size = ascend.nbytes(t)
    flat = arena[offset:offset + size].view(dtype)
    if nhwc:
        n, c, h, w = t.get_shape()
        return flat.view(n, h, w, c).permute(0, 3, 1, 2)
    return flat.view(t.get_shape())


def _int_attr(fn: func.FuncOp, name: str) -> int | None:
    attr = fn.attributes.get(name)
    return attr.value.data if isinstance(attr, IntegerAttr) else None


class Executable:
    """A loaded Ascend function: call `run(*inputs)` as often as you like."""

    def __init__(self, module: ModuleOp, func_name: str = "main",
                 hardware: cost_model.Hardware = cost_model.DEFAULT_HARDWARE,
                 options: Options = Options(), max_inflight: int = DEFAULT_MAX_INFLIGHT,
                 _weights: list[torch.Tensor] | None = None):
        if not isinstance(max_inflight, int) or max_inflight < 1:
            raise ValueError(f"max_inflight must be an integer >= 1, got {max_inflight!r}")
        fn = find_func(module, func_name)
        size = ascend.arena_size(fn)
        if size is None:
            raise LoadError(f"@{func_name} has no '{ascend.ARENA_SIZE}' attribute: "
                            "run the lower-to-ascend pass first")
        self.hardware = hardware
        self.arg_types = list(fn.function_type.inputs.data)
        self.result_types = list(fn.function_type.outputs.data)
        try:
            self.arena = torch.empty(size, dtype=torch.uint8)
        except RuntimeError as e:  # torch's allocator error is a paragraph
            raise LoadError(f"cannot allocate the arena of @{func_name} ({size} bytes) on "
                            "the host") from e
        self.memory_lower_bound = _int_attr(fn, ascend.MEMORY_LOWER_BOUND)
        self.memory_naive = _int_attr(fn, ascend.MEMORY_NAIVE) or size
        self.memory_program_order = _int_attr(fn, ascend.MEMORY_PROGRAM_ORDER)
        slot: dict[SSAValue, int] = {a: i for i, a in enumerate(fn.body.block.args)}
        self.values: list[torch.Tensor | None] = [None] * len(slot)
        self.tasks: list[Task] = []
        self.outputs: list[int] = []
        self.dynamic: list[tuple[int, ascend.DynBufferOp]] = []
        self.recvs: list[tuple[int, int, int]] = []   # (value slot, peer, tag)
        self.sends: list[tuple[int, int, int]] = []
        self.transport = None
        self.stage = ascend.stage_of(fn)
        ops = list(fn.body.block.ops)
        dynamic = any(isinstance(op, ascend.DynBufferOp) for op in ops)
        self.options = GENERIC if dynamic else options
        wire = {op.buffer.owner for op in ops if isinstance(op, ascend.RecvOp | ascend.SendOp)}
        nhwc = arena_layout.channels_last_buffers(ops, wire) if self.options.channels_last else set()
        self.weight_slots: set[int] = set()
        self._buffers: list[tuple[int, ascend.BufferOp]] = []
        shared = iter(_weights) if _weights is not None else None
        for op in ops:
            if isinstance(op, ascend.WeightOp):
                weight = next(shared) if shared is not None else kernels.tensor_from_attr(op.value)
                slot[op.output] = self._add(weight)
                self.weight_slots.add(slot[op.output])
            elif isinstance(op, ascend.BufferOp):
                slot[op.output] = self._add(None)
                self._buffers.append((slot[op.output], op))
            elif isinstance(op, ascend.DynBufferOp):
                slot[op.output] = self._add(None)
                self.dynamic.append((slot[op.output], op))
            elif isinstance(op, ascend.TaskOp):
                static = all(v.type.has_static_shape() for v in (*op.ins, *op.outs))
                self.tasks.append(Task(
                    op.task_name.data, op.unit.data, op.stream.value.data,
                    [slot[v] for v in op.ins], [slot[v] for v in op.outs],
                    BlockProgram(op.body.block),
                    cost_model.estimate(op, hardware) if static else None, op))
            elif isinstance(op, func.ReturnOp):
                self.outputs = [slot[v] for v in op.operands]
            elif isinstance(op, ascend.RecvOp | ascend.SendOp):
                comm = self.recvs if isinstance(op, ascend.RecvOp) else self.sends
                comm.append((slot[op.buffer], op.peer.value.data, op.tag.value.data))
            elif not isinstance(op, ascend.RecordEventOp | ascend.WaitEventOp):
                raise LoadError(f"'{op.name}' cannot appear at the top level of a lowered "
                                "function; only ascend ops and func.return can")
        try:
            self.preds = ascend.task_predecessors(ops)
        except ValueError as e:
            raise LoadError(str(e)) from None
        self.value_slots = slot
        o = self.options
        blocked = (blocked_layout.blocked_buffers(ops, nhwc) - wire
                   if o.blocked and o.primitives and o.algorithms and o.zero_copy
                   and dnnl.available() else set())
        self._view_buffers(nhwc, blocked)
        self.workspace = dnnl.Workspace()  # scratch the task runners share
        try:
            self.runners = self._runners()
        except dnnl.OneDNNError:
            if not blocked:
                raise
            # oneDNN declined a primitive on a blocked buffer: lay them all out NHWC
            self._view_buffers(nhwc, set())
            self.runners = self._runners()
        self.blocked = {s for s, _ in self._buffers if isinstance(self.values[s], dnnl.Blocked)}
        self.direct_outputs = self._direct_outputs()
        self.pools = hardware.pools()
        self.plans: dict[tuple, Plan] = {}
        self.plan = None if self.dynamic else self._schedule([t.estimate for t in self.tasks])
        self.set_host_order("program")
        self.last_host_ms = self.last_kernel_ms = 0.0
        self.last_shapes: tuple[list, list] | None = None  # a dynamic graph's last run's
        self._pipelined = None   # (plan and batches, the simulated batches): cached
        # The replica pool (see the module docstring): this object is replica 0.
        self._replicate = (module, func_name, hardware, options)
        self.max_inflight = max_inflight
        self._idle: list[Executable] = [self]
        self._replicas = 1
        self._pool_lock = threading.Condition()

    def _direct_outputs(self) -> dict[int, Callable]:
        """Results a task can write straight into the tensor `run` returns
        (output index -> the task runner's `retarget`), instead of `run`
        copying them out of the arena: a contiguous buffer written by one
        task with a `retarget` (runtime/host/runners.py) and read by none, returned once,
        with the prepared loop (the others restore nothing)."""
        if not self.options.prepared_loop or self.dynamic:
            return {}
        readers = {s for t in self.tasks for s in t.ins}
        writers: dict[int, list] = {}
        for t, runner in zip(self.tasks, self.runners):
            for s in t.outs:
                writers.setdefault(s, []).append(runner)
        static = {s for s, _ in self._buffers}
        direct = {}
        for i, s in enumerate(self.outputs):
            runners = writers.get(s, [])
            if (s in static and s not in readers and self.outputs.count(s) == 1
                    and len(runners) == 1 and hasattr(runners[0], "retarget")
                    and self.values[s].is_contiguous()):
                direct[i] = runners[0].retarget
        return direct

    def _view_buffers(self, nhwc: set, blocked: set) -> None:
        """Each static buffer's view of the arena in its layout."""
        for s, op in self._buffers:
            view = _view(self.arena, op.offset.value.data, op.output.type, op in nhwc)
            self.values[s] = dnnl.Blocked(view.permute(0, 2, 3, 1).reshape(-1), view.shape) \
                if op in blocked else view

    def _schedule(self, estimates: list[cost_model.Estimate]) -> Plan:
        self.jobs = [scheduler.Job(t.name, e.pool, e.block_dim, e.time_us, t.stream, tuple(p))
                     for t, e, p in zip(self.tasks, estimates, self.preds)]
        return Plan(estimates, scheduler.simulate(self.jobs, self.pools, self.hardware.event_us))

    @property
    def slots(self) -> list[scheduler.Slot]:
        if self.plan is None:
            raise ExecutionError("this graph has dynamic shapes: its device schedule exists "
                                 "once it has run at some input shape")
        return self.plan.slots

    def _runners(self) -> list[runners.Runner]:
        """One runner per task, in program order, so that a task knows whether
        the runner writing its input holds a ReLU's values (`writes_relu`)."""
        relu: set[int] = set()
        runners = []
        for task in self.tasks:
            runner = self._runner(task, bool(task.ins) and task.ins[0] in relu)
            if getattr(runner, "writes_relu", False):
                relu.update(task.outs)
            runners.append(runner)
        return runners

    def _runner(self, task: Task, relu_input: bool = False) -> runners.Runner:
        """The task as one call over its inputs, writing its output view(s)."""
        if any(s < len(self.arg_types) for s in task.outs):
            # an in-place update of a graph input (ge.scatter_update, ge.assign):
            # its kernel writes the caller's tensor it is given; nothing to copy
            def update(*args, body=task.body):
                body(*args)
            return update
        outs = [self.values[s] for s in task.outs]
        if self.options.zero_copy:
            fast = runners.specialize(task.op.body.block, task.body,
                                           [self.values[s] for s in task.ins],
                                           [s in self.weight_slots for s in task.ins], outs,
                                           self.options.algorithms, self.options.primitives,
                                           relu_input, self.workspace)
            if fast is not None:
                return fast
        body = task.body

        def generic(*args):
            for out, r in zip(outs, body(*args)):
                out.copy_(r)
        sixteen = {str(op.results[0].type.element_type) for op in task.op.body.walk()
                   if isinstance(op, CUBE_OPS)} & {"bf16", "f16"}
        if sixteen:  # which kernels its 16-bit matrix ops run on (runtime/host/bf16.py)
            generic.path = bf16.generic_path(kernels.torch_dtype(sixteen.pop()))
        return generic

    def _add(self, tensor: torch.Tensor) -> int:
        self.values.append(tensor)
        return len(self.values) - 1

    @property
    def timeline(self) -> list[tuple[Task, float, float]]:
        return [(t, s.start, s.end) for t, s in zip(self.tasks, self.slots)]

    def set_host_order(self, order: str | list[int]) -> None:
        """Run tasks on the host in `order`: "program", "timeline" (by simulated
        start time) or a list of task indices that respects streams and events."""
        if order == "program":
            order = list(range(len(self.tasks)))
        elif order == "timeline":
            order = sorted(range(len(self.tasks)), key=lambda i: (self.slots[i].start, i))
        position = {t: i for i, t in enumerate(order)}
        if sorted(position) != list(range(len(self.tasks))):
            raise ValueError("a host order must list every task index exactly once")
        for t, preds in enumerate(self.preds):
            late = [p for p in preds if position[p] > position[t]]
            if late:
                raise ValueError(f"host order runs '{self.tasks[t].name}' before "
                                 f"'{self.tasks[late[0]].name}', which it waits for")
        self.host_order = list(order)
        self._steps = [(self.tasks[i].body, self.tasks[i].ins, self.tasks[i].outs)
                       for i in order]
        # The prepared loop: each task's argument list built once; graph inputs
        # are patched into it at the start of every run. A runner with a
        # `bare` call (a oneDNN primitive bound at load) is that call, no arguments.
        self._prepared = [(self.runners[i].bare, []) if hasattr(self.runners[i], "bare")
                          else (self.runners[i], [self.values[s] for s in self.tasks[i].ins])
                          for i in order]
        self._input_uses = [(args, k, s) for (_, args), i in zip(self._prepared, order)
                            if args
                            for k, s in enumerate(self.tasks[i].ins) if s < len(self.arg_types)]
        if hasattr(self, "_pool_lock"):  # idle replicas made for the old order go
            with self._pool_lock:
                dropped = [r for r in self._idle if r is not self]
                self._idle = [r for r in self._idle if r is self]
                self._replicas -= len(dropped)
                self._pool_lock.notify_all()

    def run(self, *inputs: torch.Tensor) -> list[torch.Tensor]:
        """The graph's outputs for `inputs`; safe to call from several threads at once."""
        check_inputs(self.arg_types, inputs)
        replica = self._acquire()
        try:
            outputs = replica._run(inputs)
        finally:
            self._release(replica)
        return outputs

    def _acquire(self) -> Executable:
        """An idle replica, a new one if the pool may grow, else wait for one."""
        with self._pool_lock:
            while not self._idle and self._replicas >= self.max_inflight:
                self._pool_lock.wait()
            if self._idle:
                return self._idle.pop()
            self._replicas += 1
        try:
            return self._new_replica()
        except BaseException:
            with self._pool_lock:
                self._replicas -= 1
                self._pool_lock.notify()
            raise

    def _release(self, replica: Executable) -> None:
        with self._pool_lock:
            if replica is not self and replica.plan is not None:  # stats: the last run's
                self.plan, self.jobs = replica.plan, replica.jobs
                self.last_host_ms, self.last_kernel_ms = replica.last_host_ms, replica.last_kernel_ms
                self.last_shapes = replica.last_shapes
            self._idle.append(replica)
            self._pool_lock.notify()

    def _new_replica(self) -> Executable:
        module, func_name, hardware, options = self._replicate
        weights = [self.values[s] for s in sorted(self.weight_slots)]
        replica = Executable(module, func_name, hardware, options, max_inflight=1,
                             _weights=weights)
        replica.set_host_order(self.host_order)
        replica.transport = self.transport
        return replica

    def _run(self, inputs: tuple) -> list[torch.Tensor]:
        """One run on this replica's arena; its caller holds the replica."""
        clock = time.perf_counter
        start = clock()
        values = self.values
        for i, x in enumerate(inputs):
            values[i] = x
        # Results written straight into the tensors returned (`_direct_outputs`):
        # new ones each run, and the arena view again afterwards, so that no
        # runner is left pointing at a tensor the caller may free.
        direct = {i: torch.empty_like(values[self.outputs[i]]) for i in self.direct_outputs}
        for i, tensor in direct.items():
            self.direct_outputs[i](tensor)
        if self.recvs or self.sends:
            self._check_transport()
        for s, peer, tag in self.recvs:
            self._receive(values[s], peer, tag)
        with torch.no_grad():
            if self.options.prepared_loop and not self.dynamic:
                try:
                    in_kernels = self._run_prepared(inputs)
                finally:
                    for i in direct:
                        self.direct_outputs[i](values[self.outputs[i]])
            elif not self.dynamic:
                in_kernels = self._run_listed(values)
            else:
                key = tuple(tuple(x.shape) for x in inputs)
                plan = self.plans.get(key)
                if plan is None:
                    plan, in_kernels = self._plan_by_running(values)
                    self.plans[key] = plan
                else:
                    for s, view in plan.views:
                        values[s] = view
                    in_kernels = self._run_tasks(values, check_shapes=True)
                self.plan = plan
        for s, peer, tag in self.sends:
            self.transport.send(values[s].contiguous(), peer, tag)
        # Results leave in the caller's (contiguous) layout, whatever the arena's.
        outputs = [direct[i] if i in direct else values[s].clone(memory_format=torch.contiguous_format)
                   for i, s in enumerate(self.outputs)]
        for i in range(len(inputs)):
            values[i] = None
        if self.dynamic:
            self.last_shapes = ([tuple(x.shape) for x in inputs], [tuple(o.shape) for o in outputs])
        self.last_host_ms = (clock() - start) * 1e3
        self.last_kernel_ms = in_kernels * 1e3
        return outputs

    def _check_transport(self) -> None:
        if self.transport is None:
            raise ExecutionError(
                f"this function is pipeline stage {self.stage}: it receives or sends "
                "buffers, so it runs with its transport set (npu_graph.pipeline_parallel "
                "runs every stage)")

    def _receive(self, view: torch.Tensor, peer: int, tag: int) -> None:
        if view.is_contiguous():
            self.transport.recv(view, peer, tag)
            return
        staging = torch.empty(view.shape, dtype=view.dtype)
        self.transport.recv(staging, peer, tag)
        view.copy_(staging)

    def _run_prepared(self, inputs) -> float:
        """Run the prepared task calls in host order; return the seconds in kernels."""
        for args, k, i in self._input_uses:
            args[k] = inputs[i]
        clock, in_kernels = time.perf_counter, 0.0
        for run, args in self._prepared:
            t0 = clock()
            run(*args)
            in_kernels += clock() - t0
        for args, k, _ in self._input_uses:  # do not keep the caller's tensors alive
            args[k] = None
        return in_kernels

    def _run_listed(self, values: list) -> float:
        """The same calls, with each task's argument list built at run time."""
        clock, in_kernels = time.perf_counter, 0.0
        for i in self.host_order:
            args = [values[s] for s in self.tasks[i].ins]
            t0 = clock()
            self.runners[i](*args)
            in_kernels += clock() - t0
        return in_kernels

    def _run_tasks(self, values: list, check_shapes: bool = False,
                   shapes: dict | None = None) -> float:
        """Run the task bodies in host order, copying results into their views
        (the dynamic-shape path); return the seconds spent in kernels."""
        clock, in_kernels = time.perf_counter, 0.0
        for body, ins, outs in self._steps:
            args = [values[s] for s in ins]
            t0 = clock()
            # Results are computed before any copy, so a task may write in place.
            results = body.run(args, shapes) if shapes is not None else body(*args)
            for s, r in zip(outs, results):
                out = values[s]
                if out is None:  # a dynamic buffer not planned yet: keep the result
                    values[s] = r
                    continue
                if check_shapes and out.shape != r.shape:
                    raise ExecutionError(
                        f"a task produced shape {tuple(r.shape)} where the plan for these "
                        f"input shapes has {tuple(out.shape)}: a data-dependent shape, which "
                        "the per-shape memory plan cannot hold")
                out.copy_(r)
            in_kernels += clock() - t0
        return in_kernels

    def _plan_by_running(self, values: list) -> tuple[Plan, float]:
        """Run once with dynamic buffers on the heap, then lay them out in an arena."""
        for s, _ in self.dynamic:
            values[s] = None
        shapes: dict[SSAValue, tuple] = {}
        in_kernels = self._run_tasks(values, shapes=shapes)
        offset, placed = 0, []
        for s, op in self.dynamic:
            tensor = values[s]
            placed.append((s, offset, tensor))
            shapes[op.output] = tuple(tensor.shape)
            offset = ascend.align(offset + tensor.numel() * tensor.element_size())
        arena = torch.empty(offset, dtype=torch.uint8)
        views = []
        for s, at, tensor in placed:
            nbytes = tensor.numel() * tensor.element_size()
            views.append((s, arena[at:at + nbytes].view(tensor.dtype).view(tensor.shape)))
        for value, s in self.value_slots.items():  # graph inputs and static buffers
            if value not in shapes and values[s] is not None:
                shapes[value] = tuple(values[s].shape)

        def shape_of(v):
            return shapes.get(v) or cost_model.static_shape(v)

        estimates = [t.estimate or cost_model.estimate(t.op, self.hardware, shape_of)
                     for t in self.tasks]
        for s, view in views:  # this run's results move into the arena like later runs'
            view.copy_(values[s])
            values[s] = view
        plan = self._schedule(estimates)
        plan.arena, plan.views = arena, views
        return plan, in_kernels

    @property
    def batch_size(self) -> int:
        shape = self.arg_types[0].get_shape() if self.arg_types else ()
        return shape[0] if shape else 1

    @property
    def stats(self) -> dict:
        """Simulated device time and utilization, host time, memory, one entry per task.

        Times in ms, memory in MB. `memory_lower_bound` is None when the
        memory-reuse pass has not planned the function; `memory_program_order`
        is the arena program order needed when memory planning reordered tasks
        to lower the peak, else None. `host_overhead_ms` is
        host time minus the time inside task calls (each task's kernels,
        epilogues and any copy into its view); `threads` is torch's intra-op
        thread count the run used (set it with torch.set_num_threads).
        `host_workspace` is the host runtime's scratch beside the arena, shared
        by the task runners of one replica (bf16 staging, NHWC detours).
        """
        slots = self.slots
        estimates = self.plan.estimates
        dynamic_mb = self.plan.arena.numel() / MB if self.plan.arena is not None else 0.0
        makespan_ms = scheduler.makespan(slots) / 1e3
        lower = self.memory_lower_bound
        return {
            "execution_time": makespan_ms,
            "host_time": self.last_host_ms,
            "host_overhead_ms": self.last_host_ms - self.last_kernel_ms,
            "threads": torch.get_num_threads(),
            "memory_usage": self.arena.numel() / MB + dynamic_mb,
            "memory_lower_bound": None if lower is None else lower / MB,
            "memory_naive": self.memory_naive / MB,
            "host_workspace": self.workspace.nbytes / MB,
            "memory_program_order": (None if self.memory_program_order is None
                                     else self.memory_program_order / MB),
            "throughput": self.batch_size / (makespan_ms / 1e3) if makespan_ms else 0.0,
            "num_tasks": len(self.tasks),
            "num_streams": len({t.stream for t in self.tasks}),
            "utilization": scheduler.utilization(self.jobs, slots, self.pools),
            # Successive batches with their PCIe copies: latency of one alone beside
            # the throughput when copies overlap compute (runtime/pipelining.py).
            "pipelined": pipelining.stats(self.pipelined(), self.batch_size),
            "tasks": [{"name": t.name, "unit": t.unit, "stream": t.stream,
                       "core_group": e.pool, "block_dim": e.block_dim,
                       "cube_flops": e.cube_flops, "vector_ops": e.vector_ops,
                       "bytes": e.bytes_moved,
                       "start": s.start / 1e3, "end": s.end / 1e3,
                       "time": (s.end - s.start) / 1e3}
                      for t, e, s in zip(self.tasks, estimates, slots)],
        }

    def cube_paths(self) -> dict[str, int]:
        """How many cube tasks run on each host path: a 16-bit task's runner
        names its path ("onednn-bf16:<impl>", "emulated-fp32:<impl>":
        runtime/host/bf16.py), others count by runner ("generic" for op by
        op), each with the element type of its matrix op's weight. The
        benchmarks print it, so no report calls fp32 kernels bf16 hardware."""
        counts: dict[str, int] = {}
        for task, runner in zip(self.tasks, self.runners):
            if task.unit != "cube":
                continue
            element = next((str(op.operands[1].type.element_type) for op in task.op.body.walk()
                            if isinstance(op, CUBE_OPS)), "?")
            path = getattr(runner, "path", getattr(runner, "__name__", "generic"))
            key = f"{element} {path}"
            counts[key] = counts.get(key, 0) + 1
        return counts

    def pipelined(self, batches: int = PIPELINED_BATCHES) -> pipelining.Batches:
        """The simulated timeline of `batches` successive batches, copies over PCIe
        overlapping compute (runtime/pipelining.py). Copy sizes: the graph's
        static shapes, or a dynamic graph's last run's."""
        self.slots  # a dynamic graph has no timeline before its first run
        key = (id(self.plan), batches)
        if self._pipelined is None or self._pipelined[0] != key:
            static = [[tuple(max(d, 1) for d in t.get_shape()) for t in types]
                      for types in (self.arg_types, self.result_types)]
            ins, outs = self.last_shapes or static

            def nbytes(types, dims):
                return sum(ascend.nbytes(MemRefType(t.element_type, d))
                           for t, d in zip(types, dims))
            self._pipelined = (key, pipelining.simulate(
                self.jobs, self.pools, nbytes(self.arg_types, ins),
                nbytes(self.result_types, outs), self.hardware, batches))
        return self._pipelined[1]

    def chrome_trace(self, batches: int | None = None) -> dict:
        """The simulated timeline of one run, or of `batches` pipelined runs
        (copy streams and copy engines included)."""
        other = {"hardware": self.hardware.name}
        if batches is None:
            return trace.chrome_trace(self.jobs, self.slots, self.pools, self.plan.estimates,
                                      [t.unit for t in self.tasks], other)
        b = self.pipelined(batches)
        units = [t.unit for t in self.tasks]
        per_job = [None if j.pool in (pipelining.H2D, pipelining.D2H) else "task" for j in b.jobs]
        k = 0
        estimates, job_units = [], []
        for kind, job in zip(per_job, b.jobs):
            if kind is None:
                estimates.append(None)
                job_units.append("copy")
            else:
                estimates.append(self.plan.estimates[k % len(self.tasks)])
                job_units.append(units[k % len(self.tasks)])
                k += 1
        other.update(pipelining.stats(b, self.batch_size))
        return trace.chrome_trace(b.jobs, b.slots, b.pools, estimates, job_units, other,
                                  b.stream_names)

    def export_chrome_trace(self, path: str, batches: int | None = None) -> None:
        """Write the simulated timeline for Perfetto / chrome://tracing; with
        `batches`, that many successive batches pipelined."""
        with open(path, "w") as f:
            json.dump(self.chrome_trace(batches), f)


def load(module: ModuleOp, func_name: str = "main") -> Executable:
    return Executable(module, func_name)
