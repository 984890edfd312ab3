"""lower-to-ascend: GE graph (tensors) -> Ascend tasks (buffers in one arena).

Each GE op or `ge.fused` group becomes one `ascend.task` whose body is that
op (or the group's members) on tensors. Constants become `ascend.weight`;
every task result gets its own `ascend.buffer`, laid out back to back at
512-byte alignment (GE's MEM_ALIGN_SIZE), and the function states the arena
size. Streams: everything on stream 0 for now. A later memory-reuse pass
overlaps buffers; a later task-parallel pass spreads tasks over streams.

Units: a task runs on the unit that hardware-mapping's `ge.unit` annotation
names, if the op has one (an annotation the unit cannot honor is an error),
else on `target.units.choose_unit`'s choice.

Control flow: a whole `ge.if` or `ge.while` becomes one task on the AI CPU
(unit "aicpu"), whose body holds the control-flow op with its regions; the
runtime runs the regions on the host, as GE runs control flow on the AI CPU.

In-place updates (`ge.scatter_update`, `ge.assign`): the task writes the
memory of the operand it updates (a graph input, or a buffer) and its result
is that memory, not a new buffer.

Dynamic shapes: results whose type has `?` dims cannot get an offset at
compile time. They become `ascend.dyn_buffer`s, and the executor plans them
once per concrete input shape (runtime/running.py). Statically shaped
results keep their static offsets and `ascend.arena_size` counts only them,
so a static graph lowers exactly as before.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr, TensorType, i64
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.utils.exceptions import PassFailedException

from ge_dialect import OUTPUT_TREE, STATE_BUFFERS, STORAGE_LAYOUTS, ascend, ge
from passes.base import AscendPass
from target.units import choose_unit

MEM_ALIGN, align = ascend.MEM_ALIGN, ascend.align
ANNOTATIONS = (ascend.UNIT_ATTR, ascend.COST_ATTR)


def annotated_unit(op: Operation, members: list[Operation], where: str) -> str:
    """The unit hardware-mapping chose for `op`, checked against what each unit
    can run; the target's choice (target.units.choose_unit) when there is no annotation."""
    default = choose_unit(members)
    attr = op.attributes.get(ascend.UNIT_ATTR)
    if attr is None:
        return default
    unit = attr.data if isinstance(attr, StringAttr) else str(attr)
    # The AI CPU runs anything (host kernels); the cube needs a matrix op, the
    # vector unit cannot do one, and control flow runs only on the AI CPU.
    allowed = {"aicpu": ("aicpu",), "cube": ("cube", "aicpu"),
               "vector": ("vector", "aicpu")}[default]
    if unit not in allowed:
        raise PassFailedException(
            f"lower-to-ascend: {where} is annotated {ascend.UNIT_ATTR} = \"{unit}\", which cannot "
            f"run it; use {' or '.join(repr(u) for u in allowed)}, or drop the annotation")
    return unit


def task_kind(op: Operation) -> str:
    if isinstance(op, ge.FusedOp):
        return op.kind.data
    return op.name.removeprefix("ge.")


def task_body(op: Operation) -> tuple[Region, list[Operation]]:
    """A region computing `op` from tensor block arguments, and its member ops."""
    if isinstance(op, ge.FusedOp):
        body = op.body.clone()
        return body, [m for m in body.block.ops if not isinstance(m, ge.YieldOp)]
    block = Block(arg_types=[v.type for v in op.operands])
    for arg, v in zip(block.args, op.operands):
        arg.name_hint = v.name_hint
    inner = op.clone(value_mapper=dict(zip(op.operands, block.args)))
    for name in ANNOTATIONS:  # they describe the task, not its body
        inner.attributes.pop(name, None)
    block.add_ops([inner, ge.YieldOp(*inner.results)])
    return Region(block), [inner]


def check_lowerable(fn: func.FuncOp) -> None:
    """Refuse, with a diagnostic, what the lowering cannot take: control flow,
    non-tensor signatures (IR that is lowered already) and ops outside GE."""
    name = fn.sym_name.data
    if len(fn.body.blocks) != 1:
        raise PassFailedException(
            f"lower-to-ascend: @{name} has {len(fn.body.blocks)} blocks; only "
            "single-block functions (no control flow) can be lowered")
    for t in (*fn.function_type.inputs.data, *fn.function_type.outputs.data):
        if not isinstance(t, TensorType):
            raise PassFailedException(
                f"lower-to-ascend: @{name} has a {t} in its signature; only functions on "
                "tensors can be lowered (is it lowered already?)")
    for op in fn.body.block.ops:
        if not isinstance(op, func.ReturnOp) and op.dialect_name() != "ge":
            raise PassFailedException(
                f"lower-to-ascend: cannot lower '{op.name}' in @{name}; only GE ops "
                "become Ascend tasks")


def _value_name(op: Operation) -> str:
    hint = op.results[0].name_hint if op.results else None
    return f"%{hint} " if hint else ""


def lower_function(fn: func.FuncOp) -> func.FuncOp:
    check_lowerable(fn)
    arg_types = [ascend.as_memref(t) for t in fn.function_type.inputs.data]
    new_fn = func.FuncOp(fn.sym_name.data,
                         (arg_types, [ascend.as_memref(t) for t in fn.function_type.outputs.data]))
    block = new_fn.body.block
    env: dict[SSAValue, SSAValue] = {}
    for old, new in zip(fn.body.block.args, block.args):
        env[old] = new
        new.name_hint = old.name_hint
    offset, counts = 0, {}
    for op in fn.body.block.ops:
        if isinstance(op, func.ReturnOp):
            block.add_op(func.ReturnOp(*[env[v] for v in op.operands]))
            continue
        if isinstance(op, ge.ConstOp):
            weight = ascend.WeightOp(op.value)
            weight.location = op.location
            weight.output.name_hint = op.output.name_hint
            block.add_op(weight)
            env[op.output] = weight.output
            continue
        outs = []
        aliased = ge.in_place_operand(op)
        for result in op.results:
            if aliased is not None and result.index == 0:
                # written in place: the result is its operand's memory, a graph
                # input's or a buffer's, so no buffer and no copy of its own
                env[result] = env[op.operands[aliased]]
                outs.append(env[result])
                continue
            memref = ascend.as_memref(result.type)
            if memref.has_static_shape():
                buf = ascend.BufferOp(memref, offset)
                offset = align(offset + buf.nbytes)
            else:
                buf = ascend.DynBufferOp(memref)
            buf.output.name_hint = result.name_hint
            block.add_op(buf)
            env[result] = buf.output
            outs.append(buf.output)
        body, members = task_body(op)
        kind = task_kind(op)
        index = counts[kind] = counts.get(kind, -1) + 1
        where = f"'{op.name}' {_value_name(op)}in @{fn.sym_name.data}"
        task = ascend.TaskOp(f"{kind}_{index}", annotated_unit(op, members, where), 0,
                             [env[v] for v in op.operands], outs, body)
        task.location = op.location  # the source line (or fused lines) it runs
        block.add_op(task)
    new_fn.attributes[ascend.ARENA_SIZE] = IntegerAttr(offset, i64)
    for kept in (OUTPUT_TREE, STORAGE_LAYOUTS, STATE_BUFFERS):
        if kept in fn.attributes:
            new_fn.attributes[kept] = fn.attributes[kept]
    return new_fn


@dataclass(frozen=True)
class LowerToAscendPass(AscendPass):
    """Rewrite every GE function into Ascend tasks, one task per op or fused group.

    Assumes a single block per function; ge.if and ge.while become single
    AI CPU tasks, and results with `?` dims become ascend.dyn_buffer.
    """

    name = "lower-to-ascend"
    level = "lowering"  # GE IR in, Ascend IR out (passes/base.py)
    plans = True

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in list(op.ops):
            if isinstance(fn, func.FuncOp) and not fn.is_declaration:
                lowered = lower_function(fn)
                op.body.block.insert_op_before(lowered, fn)
                op.body.block.erase_op(fn)
