"""A block compiled once into a flat list of kernel calls over numbered slots.

Both the GE reference evaluator and the Ascend executor (for task bodies)
run blocks this way: kernels are prepared at compile time, and each slot is
dropped right after its last use so intermediates do not pile up.
"""

from __future__ import annotations

import torch
from xdsl.dialects import func
from xdsl.dialects.builtin import MemRefType, TensorType
from xdsl.ir import Block, Operation, SSAValue

from ge_dialect import ge, shapes
from runtime import kernels


class InputError(ValueError):
    """The caller passed inputs that do not match the graph's signature."""


def _results(op: Operation, values: list[torch.Tensor]):
    """A region's yielded values in the calling convention of kernels."""
    return values if len(op.results) != 1 else values[0]


def _fused(op: ge.FusedOp) -> kernels.Kernel:
    body = BlockProgram(op.body.block)
    return body if len(op.outputs) > 1 else (lambda *args: body(*args)[0])


def _if(op: ge.IfOp) -> kernels.Kernel:
    branches = (BlockProgram(op.else_region.block), BlockProgram(op.then_region.block))
    return lambda cond, *args: _results(op, branches[bool(cond)](*args))


def _while(op: ge.WhileOp) -> kernels.Kernel:
    cond, body = BlockProgram(op.cond_region.block), BlockProgram(op.body_region.block)

    def run(*args: torch.Tensor):
        while bool(cond(*args)[0]):
            args = body(*args)
        return _results(op, list(args))

    return run


# Ops with regions compile their regions into BlockPrograms; the rest use KERNELS.
REGION_KERNELS = {ge.FusedOp: _fused, ge.IfOp: _if, ge.WhileOp: _while}


def compile_op(op: Operation) -> kernels.Kernel:
    preparer = REGION_KERNELS.get(type(op))
    return preparer(op) if preparer else kernels.prepare(op)


class BlockProgram:
    """Callable: block arguments in, terminator operands out."""

    def __init__(self, block: Block):
        slot: dict[SSAValue, int] = {arg: i for i, arg in enumerate(block.args)}
        self.steps: list[tuple[kernels.Kernel, list[int], list[int]]] = []
        self.outputs: list[int] = []
        for op in block.ops:
            if isinstance(op, ge.YieldOp | func.ReturnOp):
                self.outputs = [slot[v] for v in op.operands]
                break
            ins = [slot[v] for v in op.operands]
            outs = []
            for result in op.results:
                slot[result] = len(slot)
                outs.append(slot[result])
            self.steps.append((compile_op(op), ins, outs))
        self.num_slots = len(slot)
        self.slot_values: list[SSAValue] = list(slot)  # slots are numbered in insertion order
        self.frees = self._last_uses()

    def _last_uses(self) -> list[list[int]]:
        """Slots to drop after each step (never the outputs)."""
        last: dict[int, int] = {}
        for i, (_, ins, _) in enumerate(self.steps):
            for s in ins:
                last[s] = i
        frees: list[list[int]] = [[] for _ in self.steps]
        keep = set(self.outputs)
        for s, i in last.items():
            if s not in keep:
                frees[i].append(s)
        return frees

    def __call__(self, *args: torch.Tensor) -> list[torch.Tensor]:
        return self.run(args)

    def run(self, args, shapes: dict[SSAValue, tuple] | None = None) -> list[torch.Tensor]:
        """Run the block; if `shapes` is given, record every value's concrete shape."""
        env: list = list(args) + [None] * (self.num_slots - len(args))
        if shapes is not None:
            shapes.update((self.slot_values[i], tuple(a.shape)) for i, a in enumerate(args))
        for (kernel, ins, outs), frees in zip(self.steps, self.frees):
            result = kernel(*[env[s] for s in ins])
            if len(outs) == 1:
                env[outs[0]] = result
            else:
                for s, value in zip(outs, result):
                    env[s] = value
            if shapes is not None:
                shapes.update((self.slot_values[s], tuple(env[s].shape)) for s in outs)
            for s in frees:
                env[s] = None
        return [env[s] for s in self.outputs]


# arg_types lists seen -> their shapes and dtypes, read from the IR once (an
# xDSL type hashes by its parameters, slower than reading it, so lists are
# keyed by identity); a decode step checks a dozen inputs per call.
_EXPECTED: dict[int, tuple[list, list]] = {}
_EXPECTED_MAX = 64


def _expected(arg_types) -> list[tuple[tuple[int, ...], torch.dtype]]:
    entry = _EXPECTED.get(id(arg_types))
    if entry is not None and entry[0] is arg_types:
        return entry[1]
    for t in arg_types:
        assert isinstance(t, TensorType | MemRefType)
    expected = [(tuple(t.get_shape()), kernels.torch_dtype(t.element_type)) for t in arg_types]
    if len(_EXPECTED) >= _EXPECTED_MAX:
        _EXPECTED.pop(next(iter(_EXPECTED)))
    _EXPECTED[id(arg_types)] = (arg_types, expected)  # holds the list: its id stays its own
    return expected


def check_inputs(arg_types, inputs) -> None:
    """Reject inputs of the wrong count, rank, shape or dtype with a clear message."""
    if len(inputs) != len(arg_types):
        raise InputError(f"the graph takes {len(arg_types)} input(s), got {len(inputs)}")
    for i, ((want, dtype), x) in enumerate(zip(_expected(arg_types), inputs)):
        if not isinstance(x, torch.Tensor):
            raise InputError(f"input {i} must be a torch.Tensor, got {type(x).__name__}")
        shape = tuple(x.shape)
        if shape != want and not shapes.compatible(want, shape):
            raise InputError(f"input {i} has shape {shapes.fmt(shape) or '()'}, "
                             f"the graph expects {shapes.fmt(want)}")
        if x.dtype != dtype:
            raise InputError(f"input {i} has dtype {x.dtype}, the graph expects {dtype}")
