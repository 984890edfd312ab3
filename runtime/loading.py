"""Loading a lowered Ascend function: its value table, its tasks and its arena.

`LoadedFunction` reads the function once: graph inputs, weights (tensors over
the constants' own bytes, no copy: runtime/weight_pool.py, or shared with
another replica), buffers and tasks each get a slot in one value
table, and every static buffer becomes a typed view of one arena (a uint8
tensor of `ascend.arena_size` bytes) at its planned offset. Because buffers
really alias the arena, a wrong memory plan gives wrong numbers.

A view's layout is the host's choice: NCHW-logical but NHWC in memory where
the host runtime runs the buffer's producers and consumers channels-last
(runtime/host/channels_last.py), and oneDNN-blocked where only oneDNN
primitives touch it (runtime/host/blocked.py). Buffers sent or received
between pipeline stages keep the plain row-major layout, so they go over the
wire as they are.

A graph with `?` dims (in its inputs or its buffers) runs the generic path;
its `?`-shaped buffers are laid out per gear (runtime/plan_cache.py).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import torch
from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp
from xdsl.ir import SSAValue

from ge_dialect import ascend, find_func
from runtime import kernels
from runtime.host import blocked as blocked_layout
from runtime.host import channels_last as arena_layout
from runtime.host import heap
from runtime.host import onednn as dnnl
from runtime.gears import NO_GEARS, Gears
from runtime.plan_cache import DEFAULT_PLAN_CACHE_SIZE, check_size
from runtime.program import BlockProgram
from runtime.weight_pool import weight_tensor
from target.cost_model import Estimate


class LoadError(ValueError):
    """The module is not executable Ascend IR; the message says what is wrong."""


@dataclass(frozen=True)
class Options:
    """The host runtime's fast paths, each switchable so that it can be
    measured alone (bench/runtime_levers.py) and tested against the generic
    path (all off). They apply to static-shape graphs; in a graph with
    dynamic dims, only the tasks whose every buffer has a static shape run
    their fast runners (runtime/running.py), the others the generic path.

    A graph with dynamic dims keeps at most `plan_cache_size` plans per replica
    (runtime/plan_cache.py), one per gear; `gears` lists the gears of its
    dynamic dims (runtime/gears.py), else each runs in the next power of two."""

    zero_copy: bool = True      # task runners write into their arena views (runtime/host/runners.py)
    prepared_loop: bool = True  # argument lists bound at load time, one call per task
    channels_last: bool = True  # 4-D activations viewed NHWC (runtime/host/channels_last.py)
    algorithms: bool = True     # conv / pool algorithm chosen per shape (else the library's)
    primitives: bool = True     # with algorithms: oneDNN convs / pools created at load
    blocked: bool = True        # with primitives: oneDNN-only buffers blocked (runtime/host/blocked.py)
    # with primitives: linears of more than a few rows read a prepacked copy of
    # their weight (runtime/host/onednn.py PLAIN_WEIGHT_ROWS); off, no copy
    prepack: bool = True
    plan_cache_size: int = DEFAULT_PLAN_CACHE_SIZE
    gears: Gears = NO_GEARS

    def __post_init__(self):
        check_size(self.plan_cache_size)
        if not isinstance(self.gears, Gears):
            raise ValueError(f"Options.gears must be a runtime.gears.Gears (Gears.of("
                             f"{{input: {{dim: [sizes]}}}})), got {type(self.gears).__name__}")

    def generic(self) -> Options:
        """These options with every fast path off (a graph with dynamic dims)."""
        return replace(GENERIC, plan_cache_size=self.plan_cache_size, gears=self.gears)


GENERIC = Options(False, False, False, False, False, False)


@dataclass
class Task:
    name: str
    unit: str
    stream: int
    ins: list[int]          # indices into the executable's value table
    outs: list[int]
    body: BlockProgram
    estimate: Estimate | None  # the simulated device's; None until a run's shapes are known
    op: ascend.TaskOp

    @property
    def device_us(self) -> float:
        return self.estimate.time_us


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


class LoadedFunction:
    """One function's value table, tasks and arena with its buffer views."""

    def __init__(self, module: ModuleOp, func_name: str, options: Options,
                 weights: list[torch.Tensor] | None = None):
        fn = find_func(module, func_name)
        size = ascend.arena_size(fn)
        if size is None:
            raise LoadError(f"@{func_name} has no '{ascend.ARENA_SIZE}' attribute: "
                            "run the lower-to-ascend pass first")
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
        self.stage = ascend.stage_of(fn)
        ops = list(fn.body.block.ops)
        self.is_dynamic = (any(isinstance(op, ascend.DynBufferOp) for op in ops)
                           or not all(t.has_static_shape() for t in self.arg_types))
        self.options = options.generic() if self.is_dynamic else options
        self.requested = options  # a dynamic graph's static tasks run its fast runners
        self.options.gears.check([t.get_shape() for t in self.arg_types])
        self.weight_slots: set[int] = set()
        self._buffers: list[tuple[int, ascend.BufferOp]] = []
        shared = iter(weights) if weights is not None else None
        for op in ops:
            if isinstance(op, ascend.WeightOp):
                if shared is not None:
                    weight = next(shared)
                else:
                    weight = weight_tensor(op.value)
                    heap.huge_pages(weight)  # read whole per call: 2 MB pages
                slot[op.output] = self._add(weight)
                self.weight_slots.add(slot[op.output])
            elif isinstance(op, ascend.BufferOp):
                slot[op.output] = self._add(None)
                self._buffers.append((slot[op.output], op))
            elif isinstance(op, ascend.DynBufferOp):
                slot[op.output] = self._add(None)
                self.dynamic.append((slot[op.output], op))
            elif isinstance(op, ascend.TaskOp):
                self.tasks.append(Task(
                    op.task_name.data, op.unit.data, op.stream.value.data,
                    [slot[v] for v in op.ins], [slot[v] for v in op.outs],
                    BlockProgram(op.body.block), None, op))
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
        wire = {op.buffer.owner for op in ops if isinstance(op, ascend.RecvOp | ascend.SendOp)}
        self._nhwc = arena_layout.channels_last_buffers(ops, wire) if o.channels_last else set()
        self._blocked = (blocked_layout.blocked_buffers(ops, self._nhwc) - wire
                         if o.blocked and o.primitives and o.algorithms and o.zero_copy
                         and dnnl.available() else set())
        self.view_buffers(blocked=True)

    def view_buffers(self, blocked: bool) -> None:
        """Each static buffer's view of the arena in its layout; with `blocked`
        False, the buffers blocked at load are laid out NHWC instead."""
        chosen = self._blocked if blocked else set()
        for s, op in self._buffers:
            view = _view(self.arena, op.offset.value.data, op.output.type, op in self._nhwc)
            self.values[s] = dnnl.Blocked(view.permute(0, 2, 3, 1).reshape(-1), view.shape) \
                if op in chosen else view

    @property
    def blocked(self) -> set[int]:
        """The value slots whose arena view is oneDNN-blocked."""
        return {s for s, _ in self._buffers if isinstance(self.values[s], dnnl.Blocked)}

    @property
    def batch_size(self) -> int:
        shape = self.arg_types[0].get_shape() if self.arg_types else ()
        return shape[0] if shape else 1

    def _add(self, tensor: torch.Tensor | None) -> int:
        self.values.append(tensor)
        return len(self.values) - 1
