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


@dataclass
class Task:
    name: str
    unit: str
    stream: int
    ins: list[int]          # indices into the executable's value table
    outs: list[torch.Tensor]
    body: BlockProgram
    device_us: float


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
        try:
            self.arena = torch.empty(size, dtype=torch.uint8)
        except RuntimeError as e:  # torch's allocator error is a paragraph
            raise LoadError(f"cannot allocate the arena of @{func_name} ({size} bytes) on "
                            "the host") from e
        slot: dict[SSAValue, int] = {a: i for i, a in enumerate(fn.body.block.args)}
        self.values: list[torch.Tensor | None] = [None] * len(slot)
        self.schedule: list[Task | Event] = []
        self.outputs: list[int] = []
        for op in fn.body.block.ops:
            if isinstance(op, ascend.WeightOp):
                slot[op.output] = self._add(kernels.tensor_from_attr(op.value))
            elif isinstance(op, ascend.BufferOp):
                slot[op.output] = self._add(_view(self.arena, op.offset.value.data,
                                                  op.output.type))
            elif isinstance(op, ascend.TaskOp):
                self.schedule.append(Task(
                    op.task_name.data, op.unit.data, op.stream.value.data,
                    [slot[v] for v in op.ins], [self.values[slot[v]] for v in op.outs],
                    BlockProgram(op.body.block), cost_model.task_time_us(op, hardware)))
            elif isinstance(op, ascend.RecordEventOp | ascend.WaitEventOp):
                self.schedule.append(Event(op.event.value.data, op.stream.value.data,
                                           isinstance(op, ascend.RecordEventOp)))
            elif isinstance(op, func.ReturnOp):
                self.outputs = [slot[v] for v in op.operands]
            else:
                raise LoadError(f"'{op.name}' cannot appear at the top level of a lowered "
                                "function; only ascend ops and func.return can")
        self.timeline = self._simulate()
        self.last_host_ms = 0.0

    def _add(self, tensor: torch.Tensor) -> int:
        self.values.append(tensor)
        return len(self.values) - 1

    def _simulate(self) -> list[tuple[Task, float, float]]:
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
            timeline.append((item, now, now + item.device_us))
            stream_free[item.stream] = now + item.device_us
        return timeline

    def run(self, *inputs: torch.Tensor) -> list[torch.Tensor]:
        check_inputs(self.arg_types, inputs)
        start = time.perf_counter()
        values = self.values
        for i, x in enumerate(inputs):
            values[i] = x
        with torch.no_grad():
            for task in self.schedule:
                if isinstance(task, Task):
                    results = task.body(*[values[s] for s in task.ins])
                    for out, r in zip(task.outs, results):
                        out.copy_(r)
        outputs = [values[s].clone() for s in self.outputs]
        for i in range(len(inputs)):
            values[i] = None
        self.last_host_ms = (time.perf_counter() - start) * 1e3
        return outputs

    @property
    def stats(self) -> dict:
        """Simulated device time, the arena really allocated, and one entry per task."""
        makespan_us = max((end for _, _, end in self.timeline), default=0.0)
        return {
            "execution_time": makespan_us / 1e3,
            "host_time": self.last_host_ms,
            "memory_usage": self.arena.numel() / 2**20,
            "num_tasks": len(self.timeline),
            "tasks": [{"name": t.name, "unit": t.unit, "stream": t.stream,
                       "start": start / 1e3, "time": (end - start) / 1e3}
                      for t, start, end in self.timeline],
        }


def load(module: ModuleOp, func_name: str = "main") -> Executable:
    return Executable(module, func_name)
