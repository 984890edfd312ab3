"""Executes lowered Ascend IR on the host and simulates its device timeline.

`load` does all the work that does not depend on inputs: it allocates the
arena (one uint8 tensor of `ascend.arena_size` bytes), binds every buffer as
a typed view into it, decodes weights and compiles task bodies. `run` then
only copies inputs in, calls the prepared tasks in program order, and copies
outputs out. Because buffers really alias the arena, a wrong memory plan
gives wrong numbers.

The simulated timeline is in-order per stream: a task starts when its stream
is free; `ascend.wait_event` holds a stream until the matching
`ascend.record_event` time.

Dynamic shapes: one compiled graph runs at every input size. Buffers with
`?` dims (`ascend.dyn_buffer`) are planned per concrete input shape: the first
run at a new shape runs the tasks with those buffers allocated on the host
heap, records every buffer's size (and every value's shape, for the cost
model), then lays the buffers out back to back at 512-byte alignment in a
second arena for that shape and caches the plan. Later runs at that shape bind
the cached views and run as a static graph does; nothing is recompiled, and
the kernels prepared at load serve every shape. Statically shaped buffers stay
in the static arena at their compiled offsets. A run whose buffer shapes
differ from its plan (a data-dependent shape) is an error, never a silent
broadcast.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import torch
from xdsl.dialects import func
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.ir import SSAValue

from ge_dialect import ascend, ge
from runtime import cost_model, kernels
from runtime.program import BlockProgram, check_inputs
from runtime.reference import find_func


class LoadError(ValueError):
    """The module is not executable Ascend IR; the message says what is wrong."""


class ExecutionError(RuntimeError):
    """A run went wrong in a way the graph's types did not foresee."""


@dataclass
class Task:
    name: str
    unit: str
    stream: int
    ins: list[int]          # indices into the executable's value table
    outs: list[int]
    body: BlockProgram
    device_us: float
    op: ascend.TaskOp


@dataclass
class DynamicPlan:
    """Where the `?`-shaped buffers live for one set of input shapes."""

    arena: torch.Tensor
    views: list[tuple[int, torch.Tensor]]  # (value slot, view into arena)
    timeline: list


@dataclass
class Event:
    event: int
    stream: int
    record: bool


def _view(arena: torch.Tensor, offset: int, t: MemRefType) -> torch.Tensor:
    dtype = kernels.torch_dtype(t.element_type)
    size = ascend.nbytes(t)
    return arena[offset:offset + size].view(dtype).view(t.get_shape())


class Executable:
    """A loaded Ascend function: call `run(*inputs)` as often as you like."""

    def __init__(self, module: ModuleOp, func_name: str = "main",
                 hardware: cost_model.Hardware = cost_model.DEFAULT_HARDWARE):
        fn = find_func(module, func_name)
        size = ascend.arena_size(fn)
        if size is None:
            raise LoadError(f"@{func_name} has no '{ascend.ARENA_SIZE}' attribute: "
                            "run the lower-to-ascend pass first")
        self.arg_types = list(fn.function_type.inputs.data)
        self.hardware = hardware
        self.arena = torch.empty(size, dtype=torch.uint8)
        slot: dict[SSAValue, int] = {a: i for i, a in enumerate(fn.body.block.args)}
        self.values: list[torch.Tensor | None] = [None] * len(slot)
        self.schedule: list[Task | Event] = []
        self.outputs: list[int] = []
        self.dynamic: list[tuple[int, ascend.DynBufferOp]] = []
        for op in fn.body.block.ops:
            if isinstance(op, ascend.WeightOp):
                slot[op.output] = self._add(kernels.tensor_from_attr(op.value))
            elif isinstance(op, ascend.BufferOp):
                slot[op.output] = self._add(_view(self.arena, op.offset.value.data,
                                                  op.output.type))
            elif isinstance(op, ascend.DynBufferOp):
                slot[op.output] = self._add(None)
                self.dynamic.append((slot[op.output], op))
            elif isinstance(op, ascend.TaskOp):
                static = not any(isinstance(v.type, MemRefType) and not v.type.has_static_shape()
                                 for v in (*op.ins, *op.outs))
                self.schedule.append(Task(
                    op.task_name.data, op.unit.data, op.stream.value.data,
                    [slot[v] for v in op.ins], [slot[v] for v in op.outs],
                    BlockProgram(op.body.block),
                    cost_model.task_time_us(op, hardware) if static else 0.0, op))
            elif isinstance(op, ascend.RecordEventOp | ascend.WaitEventOp):
                self.schedule.append(Event(op.event.value.data, op.stream.value.data,
                                           isinstance(op, ascend.RecordEventOp)))
            elif isinstance(op, func.ReturnOp):
                self.outputs = [slot[v] for v in op.operands]
            else:
                raise LoadError(f"'{op.name}' cannot appear at the top level of a lowered "
                                "function; only ascend ops and func.return can")
        self.slots = slot
        self.plans: dict[tuple, DynamicPlan] = {}
        self.plan: DynamicPlan | None = None
        self.timeline = self._simulate({t.name: t.device_us for t in self.tasks})
        self.last_host_ms = 0.0

    @property
    def tasks(self) -> list[Task]:
        return [t for t in self.schedule if isinstance(t, Task)]

    def _add(self, tensor: torch.Tensor) -> int:
        self.values.append(tensor)
        return len(self.values) - 1

    def _simulate(self, device_us: dict[str, float]) -> list[tuple[Task, float, float]]:
        stream_free: dict[int, float] = {}
        recorded: dict[int, float] = {}
        timeline = []
        for item in self.schedule:
            now = stream_free.get(item.stream, 0.0)
            if isinstance(item, Event):
                if item.record:
                    recorded[item.event] = now
                else:
                    stream_free[item.stream] = max(now, recorded.get(item.event, 0.0))
                continue
            end = now + device_us[item.name]
            timeline.append((item, now, end))
            stream_free[item.stream] = end
        return timeline

    def run(self, *inputs: torch.Tensor) -> list[torch.Tensor]:
        check_inputs(self.arg_types, inputs)
        start = time.perf_counter()
        values = self.values
        for i, x in enumerate(inputs):
            values[i] = x
        with torch.no_grad():
            if not self.dynamic:
                self._run_tasks(values)
            else:
                key = tuple(tuple(x.shape) for x in inputs)
                plan = self.plans.get(key)
                if plan is None:
                    plan = self.plans[key] = self._plan_by_running(values)
                else:
                    for s, view in plan.views:
                        values[s] = view
                    self._run_tasks(values, check_shapes=True)
                self.plan, self.timeline = plan, plan.timeline
        outputs = [values[s].clone() for s in self.outputs]
        for i in range(len(inputs)):
            values[i] = None
        self.last_host_ms = (time.perf_counter() - start) * 1e3
        return outputs

    def _run_tasks(self, values: list, check_shapes: bool = False,
                   shapes: dict | None = None) -> None:
        for task in self.schedule:
            if not isinstance(task, Task):
                continue
            results = task.body.run([values[s] for s in task.ins], shapes)
            for s, r in zip(task.outs, results):
                out = values[s]
                if out is None:  # a dynamic buffer not planned yet: keep the result
                    values[s] = r
                    continue
                if check_shapes and out.shape != r.shape:
                    raise ExecutionError(
                        f"task '{task.name}' produced shape {tuple(r.shape)} where the plan "
                        f"for these input shapes has {tuple(out.shape)}: a data-dependent "
                        "shape, which the per-shape memory plan cannot hold")
                out.copy_(r)

    def _plan_by_running(self, values: list) -> DynamicPlan:
        """Run once with dynamic buffers on the heap, then lay them out in an arena."""
        for s, _ in self.dynamic:
            values[s] = None
        shapes: dict[SSAValue, tuple] = {}
        self._run_tasks(values, shapes=shapes)
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
        for value, s in self.slots.items():  # graph inputs and static buffers
            if value not in shapes and values[s] is not None:
                shapes[value] = tuple(values[s].shape)
        device_us = {t.name: t.device_us or cost_model.task_time_us(
            t.op, self.hardware, lambda v: shapes.get(v) or cost_model.static_shape(v))
            for t in self.tasks}
        for s, view in views:  # this run's results move into the arena like later runs'
            view.copy_(values[s])
            values[s] = view
        return DynamicPlan(arena, views, self._simulate(device_us))

    @property
    def stats(self) -> dict:
        """Simulated device time, the arena really allocated, and one entry per task."""
        makespan_us = max((end for _, _, end in self.timeline), default=0.0)
        return {
            "execution_time": makespan_us / 1e3,
            "host_time": self.last_host_ms,
            "memory_usage": (self.arena.numel() + (self.plan.arena.numel() if self.plan else 0))
            / 2**20,
            "num_tasks": len(self.timeline),
            "tasks": [{"name": t.name, "unit": t.unit, "stream": t.stream,
                       "start": start / 1e3, "time": (end - start) / 1e3}
                      for t, start, end in self.timeline],
        }


def load(module: ModuleOp, func_name: str = "main") -> Executable:
    return Executable(module, func_name)
