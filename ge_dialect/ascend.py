"""The Ascend dialect: tasks on streams over buffers in one device arena.

After `lower-to-ascend` a graph is a `func.func` whose values are memrefs:
graph inputs are arguments, weights are `ascend.weight`, and every
intermediate is an `ascend.buffer`, a view of the function's single arena
(`ascend.arena_size`, bytes) at an explicit byte offset. Intermediates whose
shape has `?` dims are `ascend.dyn_buffer`s, which the executor places per
concrete input shape (see runtime/running.py). Each `ascend.task`
reads its `ins`, computes its body (plain GE ops on tensors, ended by
`ge.yield`) and writes the yielded tensors into its `outs`. Streams order
tasks; `ascend.record_event` / `ascend.wait_event` order them across streams.

A function cut into pipeline stages (pipeline-partition) becomes one function
per card, `@<name>_stage<k>` with `ascend.stage = k`: it receives what earlier
stages computed with `ascend.recv` before its first task and sends what later
stages need with `ascend.send` after its last one (HCCL-style point-to-point:
a peer rank, a tag, a buffer).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import ClassVar

from xdsl.dialects import func
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    I64,
    MemRefType,
    StringAttr,
    TensorType,
    i64,
)
from xdsl.ir import Attribute, Dialect, Operation, Region, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    operand_def,
    base,
    irdl_op_definition,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import IsolatedFromAbove, MemoryAllocEffect, MemoryWriteEffect, Pure
from xdsl.utils.exceptions import VerifyException

from ge_dialect import ge
from ge_dialect.ge import YieldOp
from ge_dialect.traits import CubeWork

AnyMemRef = base(MemRefType)
ARENA_SIZE = "ascend.arena_size"
MEM_ALIGN = 512  # bytes; GE's MEM_ALIGN_SIZE


def align(n: int, to: int = MEM_ALIGN) -> int:
    return -(-n // to) * to

# Set by memory-reuse beside the arena size: the no-fragmentation lower bound
# and the total without reuse, in bytes.
MEMORY_LOWER_BOUND = "ascend.memory_lower_bound"
MEMORY_NAIVE = "ascend.memory_naive"
# Set when memory-reuse reordered tasks to lower the peak: the arena the
# program order needed, in bytes.
MEMORY_PROGRAM_ORDER = "ascend.memory_program_order"
UNITS = ("cube", "vector", "aicpu")

# Discardable attributes hardware-mapping writes on GE ops and lowering reads
# (prefixed with the dialect's name, as MLIR does for attributes an op does
# not define): the unit a task runs on, its estimated time, and on the
# function the chip those estimates are for.
UNIT_ATTR = "ge.unit"
COST_ATTR = "ge.cost_us"
HARDWARE_ATTR = "ge.hardware"

# Matrix ops: the ones that need the cube (unit choice: target/units.py).
CUBE_OPS = ge.ops_with(CubeWork)


def nbytes(t: Attribute) -> int:
    """Bytes taken by a statically shaped memref or tensor."""
    assert isinstance(t, MemRefType | TensorType)
    # Sub-byte types (i1) take a whole byte, as torch.bool does on the host.
    n = (t.element_type.bitwidth + 7) // 8 if hasattr(t.element_type, "bitwidth") else 4
    for d in t.get_shape():
        n *= d
    return n


def as_tensor(t: MemRefType) -> TensorType:
    return TensorType(t.element_type, t.get_shape())


def as_memref(t: TensorType) -> MemRefType:
    return MemRefType(t.element_type, t.get_shape())


def arena_size(fn: func.FuncOp) -> int | None:
    attr = fn.attributes.get(ARENA_SIZE)
    return attr.value.data if isinstance(attr, IntegerAttr) else None


@irdl_op_definition
class WeightOp(IRDLOperation):
    """A constant in device weight memory (outside the activation arena).

        %w = ascend.weight dense<5.0e-01> : tensor<64x3x3x3xf32> -> memref<64x3x3x3xf32>
    """

    name = "ascend.weight"
    value = prop_def(DenseIntOrFPElementsAttr)
    output = result_def(AnyMemRef)
    traits = traits_def(Pure())
    assembly_format = "$value attr-dict `->` type($output)"

    def __init__(self, value: DenseIntOrFPElementsAttr):
        super().__init__(properties={"value": value}, result_types=[as_memref(value.type)])

    def verify_(self) -> None:
        if as_tensor(self.output.type) != self.value.type:
            raise VerifyException(
                f"ascend.weight: result {self.output.type} does not hold {self.value.type}")


@irdl_op_definition
class BufferOp(IRDLOperation):
    """A view of the arena at a byte offset, sized by its type.

        %b = ascend.buffer {offset = 512 : i64} : memref<1x64x56x56xf32>
    """

    name = "ascend.buffer"
    offset = prop_def(IntegerAttr[I64])
    output = result_def(AnyMemRef)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())
    assembly_format = "attr-dict `:` type($output)"

    def __init__(self, type: MemRefType, offset: int):
        super().__init__(properties={"offset": IntegerAttr(offset, i64)}, result_types=[type])

    @property
    def nbytes(self) -> int:
        return nbytes(self.output.type)

    def verify_(self) -> None:
        if any(d < 0 for d in self.output.type.get_shape()):
            raise VerifyException("ascend.buffer: buffers must have a static shape")
        start = self.offset.value.data
        if start < 0:
            raise VerifyException(f"ascend.buffer: offset {start} is negative")
        fn = self.parent_op()
        size = arena_size(fn) if isinstance(fn, func.FuncOp) else None
        if size is not None and start + self.nbytes > size:
            raise VerifyException(
                f"ascend.buffer: bytes [{start}, {start + self.nbytes}) exceed the arena "
                f"of {size} bytes")


@irdl_op_definition
class DynBufferOp(IRDLOperation):
    """A buffer whose shape has `?` dims, so it has no static offset: the executor
    places it, per concrete input shape, in an arena of its own after the static one.

        %b = ascend.dyn_buffer : memref<?x64x56x56xf32>
    """

    name = "ascend.dyn_buffer"
    output = result_def(AnyMemRef)
    # An allocation, not a pure value: two dyn_buffers of one type are distinct
    # memory, so CSE must never merge them.
    traits = traits_def(MemoryAllocEffect())
    assembly_format = "attr-dict `:` type($output)"

    def __init__(self, type: MemRefType):
        super().__init__(result_types=[type])

    def verify_(self) -> None:
        if all(d >= 0 for d in self.output.type.get_shape()):
            raise VerifyException("ascend.dyn_buffer: the shape is static; use ascend.buffer "
                                  "with an offset in the static arena")


@irdl_op_definition
class TaskOp(IRDLOperation):
    """One kernel launch on a compute unit and stream.

    `unit` is `cube` (AI Core), `vector` (Vector Core) or `aicpu`. The body's
    block arguments are tensor views of `ins`; `ge.yield` gives one tensor
    per entry of `outs`, which the runtime writes into those buffers.

        ascend.task "conv2d_relu_0" {unit = "cube", stream = 0 : i64}
            ins(%x, %w : memref<1x3x8x8xf32>, memref<4x3x3x3xf32>)
            outs(%b0 : memref<1x4x6x6xf32>) {
        ^bb0(%a: tensor<1x3x8x8xf32>, %k: tensor<4x3x3x3xf32>):
          %0 = ge.conv2d %a, %k {...} : ...
          %1 = ge.relu %0 : tensor<1x4x6x6xf32>
          ge.yield %1 : tensor<1x4x6x6xf32>
        }
    """

    name = "ascend.task"
    task_name = prop_def(StringAttr)
    unit = prop_def(StringAttr)
    stream = prop_def(IntegerAttr[I64])
    ins = var_operand_def(AnyMemRef)
    outs = var_operand_def(AnyMemRef)
    body = region_def("single_block")
    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())
    traits = traits_def(IsolatedFromAbove(), MemoryWriteEffect())
    assembly_format = (
        "$task_name attr-dict (`ins` `(` $ins^ `:` type($ins) `)`)? "
        "`outs` `(` $outs `:` type($outs) `)` $body")

    def __init__(self, task_name: str, unit: str, stream: int, ins: Sequence[SSAValue],
                 outs: Sequence[SSAValue], body: Region):
        super().__init__(
            operands=[list(ins), list(outs)], regions=[body],
            properties={"task_name": StringAttr(task_name), "unit": StringAttr(unit),
                        "stream": IntegerAttr(stream, i64)})

    def verify_(self) -> None:
        if self.unit.data not in UNITS:
            raise VerifyException(
                f"ascend.task: unit must be one of {', '.join(UNITS)}, got '{self.unit.data}'")
        if self.stream.value.data < 0:
            raise VerifyException("ascend.task: stream must be >= 0")
        block = self.body.block
        expected = [as_tensor(v.type) for v in self.ins]
        if [a.type for a in block.args] != expected:
            raise VerifyException(
                "ascend.task: body arguments must be tensors matching the ins buffers")
        term = block.last_op
        if not isinstance(term, YieldOp):
            raise VerifyException("ascend.task: body must end with ge.yield")
        if [v.type for v in term.values] != [as_tensor(v.type) for v in self.outs]:
            raise VerifyException(
                "ascend.task: yielded tensors must match the outs buffers in number and type")


class EventOp(IRDLOperation):
    """Shared shape of event record/wait: an event id and the stream it acts on."""

    event = prop_def(IntegerAttr[I64])
    stream = prop_def(IntegerAttr[I64])
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryWriteEffect())
    assembly_format = "attr-dict"

    def __init__(self, event: int, stream: int):
        super().__init__(properties={"event": IntegerAttr(event, i64),
                                     "stream": IntegerAttr(stream, i64)})

    def verify_(self) -> None:
        for field in ("event", "stream"):
            if getattr(self, field).value.data < 0:
                raise VerifyException(f"{self.name}: {field} must be >= 0")


@irdl_op_definition
class RecordEventOp(EventOp):
    """Mark `event` done once all earlier work on `stream` has finished.

        ascend.record_event {event = 0 : i64, stream = 1 : i64}
    """

    name = "ascend.record_event"


@irdl_op_definition
class WaitEventOp(EventOp):
    """Block later work on `stream` until `event` has been recorded.

        ascend.wait_event {event = 0 : i64, stream = 0 : i64}
    """

    name = "ascend.wait_event"


# Set by pipeline-partition on each stage function: its stage (= its rank), and
# how many stages the program has.
STAGE = "ascend.stage"
STAGES = "ascend.stages"


def stage_of(fn: func.FuncOp) -> int | None:
    attr = fn.attributes.get(STAGE)
    return attr.value.data if isinstance(attr, IntegerAttr) else None


class CommOp(IRDLOperation):
    """Shared shape of send/recv: a whole buffer to or from one peer rank, matched by tag."""

    buffer = operand_def(AnyMemRef)
    peer = prop_def(IntegerAttr[I64])
    tag = prop_def(IntegerAttr[I64])
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryWriteEffect())
    assembly_format = "$buffer attr-dict `:` type($buffer)"

    def __init__(self, buffer: SSAValue, peer: int, tag: int):
        super().__init__(operands=[buffer], properties={"peer": IntegerAttr(peer, i64),
                                                        "tag": IntegerAttr(tag, i64)})

    def verify_(self) -> None:
        for field in ("peer", "tag"):
            if getattr(self, field).value.data < 0:
                raise VerifyException(f"{self.name}: {field} must be >= 0")
        if not self.buffer.type.has_static_shape():
            raise VerifyException(f"{self.name}: the buffer must have a static shape")
        fn = self.parent_op()
        if isinstance(fn, func.FuncOp) and stage_of(fn) == self.peer.value.data:
            raise VerifyException(f"{self.name}: peer {self.peer.value.data} is this "
                                  "stage's own rank")
        # Receives come before the first task and sends after the last one, so a
        # stage is a function of what it receives, as of its arguments, and the
        # planners can treat sent buffers like returned ones.
        block = self.parent_block()
        if block is None:
            return
        ops = list(block.ops)
        at = ops.index(self)
        if self.misplaced(ops[:at], ops[at + 1:]):
            raise VerifyException(self.PLACEMENT)

    PLACEMENT: ClassVar[str] = ""

    def misplaced(self, before: list[Operation], after: list[Operation]) -> bool:
        raise NotImplementedError


@irdl_op_definition
class SendOp(CommOp):
    """Send a buffer's contents to stage (rank) `peer`, matched by `tag`.

        ascend.send %relu {peer = 1 : i64, tag = 0 : i64} : memref<1x64x56x56xf32>
    """

    name = "ascend.send"
    PLACEMENT: ClassVar[str] = "ascend.send: must come after the function's last ascend.task"

    def misplaced(self, before, after) -> bool:
        return any(isinstance(o, TaskOp) for o in after)


@irdl_op_definition
class RecvOp(CommOp):
    """Fill a buffer with what stage (rank) `peer` sent under `tag`.

        ascend.recv %relu {peer = 0 : i64, tag = 0 : i64} : memref<1x64x56x56xf32>
    """

    name = "ascend.recv"
    PLACEMENT: ClassVar[str] = "ascend.recv: must come before the function's first ascend.task"

    def misplaced(self, before, after) -> bool:
        return any(isinstance(o, TaskOp) for o in before)


def task_predecessors(ops: Iterable[Operation]) -> list[list[int]]:
    """What each `ascend.task` waits for on the device, in program order.

    Task `i`'s entry lists the indices of the tasks it must follow: the
    previous task on its stream (streams run in order) and, for every
    `ascend.wait_event` on its stream since that task, the last task its
    stream had when the matching `ascend.record_event` was issued. This is
    the device's happens-before relation before transitive closure; the
    executor's scheduler and the Ascend-level passes all read it from here.
    Raises ValueError for a wait that no earlier record can satisfy.
    """
    last: dict[int, int] = {}
    recorded: dict[int, int | None] = {}
    waiting: dict[int, list[int]] = {}
    preds: list[list[int]] = []
    for op in ops:
        if isinstance(op, RecordEventOp):
            recorded[op.event.value.data] = last.get(op.stream.value.data)
        elif isinstance(op, WaitEventOp):
            event, stream = op.event.value.data, op.stream.value.data
            if event not in recorded:
                raise ValueError(f"ascend.wait_event {event} on stream {stream} comes before "
                                 f"any ascend.record_event {event}: the stream would wait forever")
            if recorded[event] is not None:
                waiting.setdefault(stream, []).append(recorded[event])
        elif isinstance(op, TaskOp):
            stream = op.stream.value.data
            before = waiting.pop(stream, [])
            if stream in last:
                before.append(last[stream])
            preds.append(sorted(set(before)))
            last[stream] = len(preds) - 1
    return preds


Ascend = Dialect(
    "ascend",
    [WeightOp, BufferOp, DynBufferOp, TaskOp, RecordEventOp, WaitEventOp, SendOp, RecvOp],
    [],
)
