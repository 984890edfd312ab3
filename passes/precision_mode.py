"""precision-mode{mode=...}: choose each op's compute precision as GE's precision modes do.

GE's `precision_mode` (ATC/ACL option; CANN docs "--precision_mode"):

- `force_fp32`: every op that supports fp32 computes in fp32, and an fp16
  graph's ops are raised to fp32. (Newer CANN spells it
  `cube_fp16in_fp32out` and lets cube ops take fp16 inputs when their kernel
  only supports that; our cube ops all have fp32 kernels, so here they stay
  fp32 in and out.) An fp32 graph is left unchanged.
- `allow_fp32_to_fp16`: cube (matrix) ops compute in fp16; vector ops keep
  the graph's precision.
- `allow_mix_precision`: GE's built-in mixed-precision lists
  (`precision_reduce` in the ops-info files), which each op declares as its
  `MixPrecision` trait (ge_dialect/traits.py): trustlist ops (MIX_ALLOW: cube
  ops and cheap ones) go to fp16, graylist ops (MIX_GRAY: data movement) follow their
  producers (fp16 when every non-constant input comes from fp16, also
  across a ge.fused boundary: the slices splitting a fp16 linear's result
  into attention heads inside the attention group), and every
  other op keeps fp32 (GE's blocklist: softmax, layer_norm, batch_norm,
  reductions, exp/log/sqrt/div, the smooth activations, ...).
- `allow_fp32_to_bf16`, `allow_mix_precision_bf16`: the same two with bf16
  (the Ascend 910B cube's other 16-bit type; CPUs with AMX or AVX512_BF16
  run it natively). bf16 keeps fp32's exponent range, so nothing overflows
  that fits in fp32, but has an 8-bit significand (rounding 2^-8 ≈ 3.9e-3).
- `must_keep_origin_dtype`: every op keeps the graph's types; the pass does
  nothing. It is the default (`PrecisionModePass()`), and GE's name for it.

An op moved to another precision gets a `ge.cast` on each input and one back
to the original type on each result, so its users see the graph's types:

    %x_f16 = ge.cast %x : tensor<1x8xf32> -> tensor<1x8xf16>
    %y_f16 = ge.linear %x_f16, %w_f16, %b_f16 : ... -> tensor<1x4xf16>
    %y = ge.cast %y_f16 : tensor<1x4xf16> -> tensor<1x4xf32>

Choices: a cube op computes fully in fp16 (fp16 operands and result) rather
than fp16-in/fp32-out, so op verifiers keep one element type per op; its
kernel accumulates in fp32 (Ascend's L0C, torch's CPU half kernels: checked
to match fp32 accumulation rounded once to fp16) and rounds the result to
fp16 once. Constant inputs (weights) are converted at compile time, also the
constant inputs of a ge.fused group, which then takes the fp16 constant.
When an input is a cast this pass inserted from the wanted type, the cast's
input is used directly, so a chain of fp16 ops has no cast pair between
them (and force_fp32 on an fp16 graph keeps the intermediates in fp32).

Numeric effect: fp16 has an 11-bit significand (relative rounding 2^-11 ≈
4.9e-4) and a max of 65504. allow_fp32_to_fp16 rounds each cube op's inputs
and output to fp16, so outputs move by a few 1e-3 relative to fp32;
allow_mix_precision also keeps activations between trustlisted ops in fp16,
so errors compound a little more. test/python/test_precision_mode.py pins the
tolerances on zoo models; force_fp32 matches fp32 eager at 1e-4.

The pass works at function level and inside ge.fused bodies (run after
op-fusion, the casts become part of the fused kernel); ge.if/ge.while bodies
and ge.custom ops are left alone. Run canonicalize, cse and dce after it:
they cancel exact cast pairs (ge_dialect/canonicalization.py) and remove
dead constants.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import ml_dtypes
import numpy as np
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType, bf16, f16, f32
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue

from ge_dialect import ge
from ge_dialect.ascend import CUBE_OPS
from ge_dialect.tensors import from_numpy, to_numpy
from ge_dialect.traits import MixPrecision
from passes.base import GEPass
from passes.driver.instrument import may_rewrite

# GE's mixed-precision trustlist: the cube ops and cheap, well-conditioned ops.
MIX_ALLOW = ge.ops_with(MixPrecision, lambda t: t.kind == "allow")
# Graylist: exact in any precision, so they follow their producers.
MIX_GRAY = ge.ops_with(MixPrecision, lambda t: t.kind == "gray")
# Blocklist ops whose host kernel stores a 16-bit result itself (oneDNN's layer
# norm): one read only in the 16-bit type becomes a group yielding it so, and
# its readers (BERT's next linear and residual add) take it without converting.
STORES_DST = (ge.LayerNormOp,)
# Never converted: they state their own types, have regions or user kernels, or read
# only a shape.
UNTOUCHED = (ge.ConstOp, ge.CastOp, ge.FusedOp, ge.IfOp, ge.WhileOp, ge.CustomOp, ge.YieldOp,
             ge.DimOp, ge.QuantizedConv2dOp, ge.QuantizedLinearOp)


def element(value: SSAValue) -> Attribute | None:
    return value.type.element_type if isinstance(value.type, TensorType) else None


@dataclass
class Converter:
    """Moves ops from element type `src` to `dst`, remembering what it inserted."""

    src: Attribute
    dst: Attribute
    inserted: set[Operation] = field(default_factory=set)  # casts back to the graph's type
    cache: dict[tuple[SSAValue, Attribute], SSAValue] = field(default_factory=dict)

    def touches(self, op: Operation) -> bool:
        return op.dialect_name() == "ge" and not isinstance(op, UNTOUCHED) and any(
            element(v) == self.src for v in (*op.operands, *op.results))

    def from_dst(self, value: SSAValue) -> bool:
        """`value`'s producer already computes in `dst`: it is a cast from
        `dst`, a group's result that its body casts back from `dst`, or a
        group body's argument bound to such a value outside."""
        owner = value.owner
        if isinstance(owner, ge.CastOp):
            return element(owner.input) == self.dst
        if isinstance(owner, ge.FusedOp):
            return self.from_dst(owner.body.block.last_op.operands[value.index])
        if isinstance(value, BlockArgument) and isinstance(value.block.parent_op(), ge.FusedOp):
            return self.from_dst(value.block.parent_op().operands[value.index])
        return False

    def convert(self, op: Operation) -> None:
        """Replace `op` by the same op on `dst`, with casts back to `src` on its results."""
        operands = [self.as_dst(v) if element(v) == self.src else v for v in op.operands]
        types = [TensorType(self.dst, r.type.get_shape()) if element(r) == self.src else r.type
                 for r in op.results]
        new = type(op).create(operands=operands, result_types=types,
                              properties=dict(op.properties), attributes=dict(op.attributes))
        block = op.parent_block()
        block.insert_op_before(new, op)
        for old, result in zip(op.results, new.results):
            value = result
            if result.type != old.type:
                result.name_hint = old.name_hint and f"{old.name_hint}_{self.dst}"
                cast = ge.CastOp(result, self.src)
                block.insert_op_before(cast, op)
                self.inserted.add(cast)
                value = cast.output
            value.name_hint = old.name_hint
            old.replace_all_uses_with(value)
        block.erase_op(op)

    def as_dst(self, value: SSAValue) -> SSAValue:
        """`value` in `dst`: the input of a cast we inserted, a converted constant,
        or a (shared) new cast right after its definition."""
        if value.owner in self.inserted:
            return value.owner.input
        key = (value, self.dst)
        if key not in self.cache:
            self.cache[key] = self._constant(value) or self._cast(value)
        return self.cache[key]

    def _constant(self, value: SSAValue) -> SSAValue | None:
        if isinstance(value.owner, ge.ConstOp):
            return self._new_constant(value)
        if isinstance(value, BlockArgument) and isinstance(value.block.parent_op(), ge.FusedOp):
            fused = value.block.parent_op()
            outer = fused.inputs[value.index]
            if isinstance(outer.owner, ge.ConstOp):  # the group takes the converted constant
                outer_dst = self.as_dst(outer)
                fused.operands = (*fused.operands, outer_dst)
                arg = value.block.insert_arg(outer_dst.type, len(value.block.args))
                arg.name_hint = outer_dst.name_hint
                return arg
        return None

    def _new_constant(self, value: SSAValue) -> SSAValue:
        array = to_numpy(value.owner.value).astype(TO_NUMPY[self.dst])
        const = ge.ConstOp(from_numpy(array))
        const.output.name_hint = value.name_hint and f"{value.name_hint}_{self.dst}"
        value.owner.parent_block().insert_op_after(const, value.owner)
        return const.output

    def _cast(self, value: SSAValue) -> SSAValue:
        cast = ge.CastOp(value, self.dst)
        cast.output.name_hint = value.name_hint and f"{value.name_hint}_{self.dst}"
        if isinstance(value, BlockArgument):
            value.block.insert_op_before(cast, value.block.first_op)
        else:
            value.owner.parent_block().insert_op_after(cast, value.owner)
        return cast.output


TO_NUMPY = {bf16: ml_dtypes.bfloat16, f16: np.float16, f32: np.float32}


def _cube(conv: Converter, op: Operation) -> bool:
    return isinstance(op, CUBE_OPS)


def _mixed(conv: Converter, op: Operation) -> bool:
    if isinstance(op, MIX_ALLOW):
        return True
    inputs = [v for v in op.operands if element(v) == conv.src
              and not isinstance(v.owner, ge.ConstOp)]
    return isinstance(op, MIX_GRAY) and bool(inputs) and all(map(conv.from_dst, inputs))


def _none(conv: Converter, op: Operation) -> bool:
    return False


# mode -> (graph element type, compute element type, which ops move)
MODES: dict[str, tuple[Attribute, Attribute, Callable[[Converter, Operation], bool]]] = {
    "must_keep_origin_dtype": (f32, f32, _none),
    "force_fp32": (f16, f32, lambda conv, op: True),
    "allow_fp32_to_fp16": (f32, f16, _cube),
    "allow_mix_precision": (f32, f16, _mixed),
    "allow_fp32_to_bf16": (f32, bf16, _cube),
    "allow_mix_precision_bf16": (f32, bf16, _mixed),
}
DEFAULT_MODE = "must_keep_origin_dtype"


def convert_block(block: Block, conv: Converter, moves) -> None:
    for op in list(block.ops):
        if isinstance(op, ge.FusedOp):
            convert_block(op.body.block, conv, moves)
            drop_unused_inputs(op)
        elif conv.touches(op) and moves(conv, op) and may_rewrite(op, "ConvertPrecision"):
            conv.convert(op)


def drop_unused_inputs(fused: ge.FusedOp) -> None:
    """Remove group inputs the body no longer reads (weights now taken converted)."""
    block = fused.body.block
    for arg in reversed(block.args):
        if not arg.uses:
            operands = list(fused.operands)
            del operands[arg.index]
            block.erase_arg(arg)
            fused.operands = operands


def _cast_to(value: SSAValue, element_type: Attribute) -> bool:
    return isinstance(value.owner, ge.CastOp) and element(value.owner.output) == element_type


def _read_as(value: SSAValue, element_type: Attribute) -> bool:
    """Every use of `value` is a ge.cast to `element_type`."""
    return bool(value.uses) and all(
        isinstance(u.operation, ge.CastOp) and element(u.operation.output) == element_type
        for u in value.uses)


def _read_as_dst(value: SSAValue, dst: Attribute) -> bool:
    """Every user of `value` wants it in `dst`: a cast to `dst`, or a group whose
    body only casts that input to `dst`."""
    def wants(use) -> bool:
        op = use.operation
        if isinstance(op, ge.CastOp):
            return element(op.output) == dst
        return isinstance(op, ge.FusedOp) and _read_as(op.body.block.args[use.index], dst)
    return bool(value.uses) and all(map(wants, value.uses))


def _take_dst_inputs(fused: ge.FusedOp, dst: Attribute) -> None:
    """group(cast(x : dst -> f32)) whose body casts that input back to dst only:
    the group takes x itself (one bf16 buffer, no cast task between groups)."""
    block = fused.body.block
    operands = list(fused.operands)
    for i, arg in enumerate(list(block.args)):
        outer = operands[i]
        if not (isinstance(outer.owner, ge.CastOp) and element(outer.owner.input) == dst
                and _read_as(arg, dst)):
            continue
        operands[i] = outer.owner.input
        new = block.insert_arg(operands[i].type, i)
        new.name_hint = arg.name_hint
        for use in list(arg.uses):
            cast = use.operation
            cast.output.replace_all_uses_with(new)
            block.erase_op(cast)
        block.erase_arg(arg)
    fused.operands = operands


def _yield_dst(fused: ge.FusedOp, dst: Attribute, inserted: set[Operation]) -> ge.FusedOp:
    """A group whose result is read only as dst outside yields it in dst: the
    value its body had before casting it back, or its cast to dst. Readers
    that cast it to dst read that value instead; for groups reading it, a
    cast back is left, which `_take_dst_inputs` then sees through."""
    term = fused.body.block.last_op
    values = list(term.operands)
    moved = [j for j, (v, r) in enumerate(zip(values, fused.outputs))
             if element(v) != dst and _read_as_dst(r, dst)]
    if not moved:
        return fused
    for j in moved:
        v = values[j]
        if isinstance(v.owner, ge.CastOp) and element(v.owner.input) == dst:
            values[j] = v.owner.input
        else:  # the group's kernel writes its result in dst
            cast = ge.CastOp(v, dst)
            cast.output.name_hint = v.name_hint and f"{v.name_hint}_{dst}"
            fused.body.block.insert_op_before(cast, term)
            values[j] = cast.output
    term.operands = values
    block = fused.parent_block()
    new = ge.FusedOp(fused.kind.data, fused.inputs, [v.type for v in values],
                     fused.detach_region(fused.body))
    new.attributes.update(fused.attributes)
    block.insert_op_before(new, fused)
    for j, (old, result) in enumerate(zip(fused.outputs, new.outputs)):
        result.name_hint = old.name_hint
        if j in moved:
            for use in list(old.uses):  # a reader's cast to dst: read the group's value
                reader = use.operation
                if isinstance(reader, ge.CastOp) and element(reader.output) == dst:
                    reader.output.replace_all_uses_with(result)
                    reader.parent_block().erase_op(reader)
            if old.uses:  # groups reading it: `_take_dst_inputs` finds the cast back
                back = ge.CastOp(result, old.type.element_type)
                block.insert_op_after(back, new)
                inserted.add(back)
                result = back.output
                result.name_hint = old.name_hint
        old.replace_all_uses_with(result)
    block.erase_op(fused)
    return new


def join_groups(block: Block, conv: Converter) -> None:
    """Keep `dst` values in `dst` across ge.fused boundaries: a group reading a
    value only to cast it to `dst` takes the `dst` value, and a group whose
    result is read only in `dst` yields it so. Between two bf16 groups there
    is then no cast task; the cast back to fp32 where an fp32 op reads the
    result stays inside the producing group, where the runtime makes it the
    destination type of its kernel."""
    for op in list(block.ops):
        if (isinstance(op, STORES_DST) and element(op.results[0]) == conv.src
                and _read_as_dst(op.results[0], conv.dst)):
            op = _group(block, op, [], [None])  # then it yields dst, as a group does
        if isinstance(op, ge.FusedOp):
            _take_dst_inputs(op, conv.dst)
            _yield_dst(op, conv.dst, conv.inserted)


def _own_cast(value: SSAValue, user: Operation) -> bool:
    """`value` is a ge.cast read by `user` alone (moving it into a group moves
    no work from any other reader)."""
    return isinstance(value.owner, ge.CastOp) and value.has_one_use() and (
        value.owner.parent_block() is user.parent_block())


def wrap_casts(block: Block, conv: Converter) -> None:
    """A function-level cube op in `dst` with the casts only it reads or only
    it feeds becomes one group: cast(x) + matmul + cast back run as one task,
    whose kernel converts its input and stores its output type, instead of
    three tasks (a top-level cast is a task of its own)."""
    for op in list(block.ops):
        if not (isinstance(op, CUBE_OPS) and any(element(r) == conv.dst for r in op.results)):
            continue
        ins = [v.owner for v in op.operands if _own_cast(v, op)]
        outs = [r.get_user_of_unique_use() if r.has_one_use() else None for r in op.results]
        outs = [u if isinstance(u, ge.CastOp) and u.parent_block() is block else None
                for u in outs]
        if not ins and not any(outs):
            continue
        _group(block, op, ins, outs)


def _group(block: Block, op: Operation, ins: list[ge.CastOp], outs: list) -> ge.FusedOp:
    members = [*ins, op, *(o for o in outs if o is not None)]
    inside = set(members)
    inputs: list[SSAValue] = []
    for m in members:
        for v in m.operands:
            if v.owner not in inside and v not in inputs:
                inputs.append(v)
    body = Block(arg_types=[v.type for v in inputs])
    mapping: dict[SSAValue, SSAValue] = {}
    for v, arg in zip(inputs, body.args):
        arg.name_hint = v.name_hint
        mapping[v] = arg
    for m in members:
        clone = m.clone(value_mapper=mapping)
        body.add_op(clone)
    results = [o.output if o is not None else r for o, r in zip(outs, op.results)]
    body.add_op(ge.YieldOp(*[mapping[r] for r in results]))
    fused = ge.FusedOp(op.name.removeprefix("ge."), inputs, [r.type for r in results],
                       Region(body))
    block.insert_op_before(fused, op)
    for old, new in zip(results, fused.outputs):
        new.name_hint = old.name_hint
        old.replace_all_uses_with(new)
    for m in reversed(members):
        block.erase_op(m)
    return fused


def erase_dead_constants(block: Block) -> None:
    for op in list(block.ops):
        if isinstance(op, ge.ConstOp) and not op.output.uses:
            block.erase_op(op)


@dataclass(frozen=True)
class PrecisionModePass(GEPass):
    """Move ops to fp16, bf16 or fp32 by GE's precision mode, with casts at the boundaries.

    `mode` is one of MODES: must_keep_origin_dtype (the default: nothing
    changes), force_fp32, allow_fp32_to_fp16, allow_mix_precision,
    allow_fp32_to_bf16, allow_mix_precision_bf16.
    """

    name = "precision-mode"
    mode: str = DEFAULT_MODE

    def __post_init__(self):
        if self.mode not in MODES:
            raise ValueError(f"precision-mode: mode must be one of {', '.join(MODES)}, "
                             f"got '{self.mode}'")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        src, dst, moves = MODES[self.mode]
        if moves is _none:
            return
        for fn in op.ops:
            if isinstance(fn, func.FuncOp) and not fn.is_declaration:
                conv = Converter(src, dst)
                for block in fn.body.blocks:
                    convert_block(block, conv, moves)
                    join_groups(block, conv)
                for cast in conv.inserted:  # casts back that no user kept
                    if not cast.output.uses:
                        cast.parent_block().erase_op(cast)
                for block in fn.body.blocks:
                    erase_dead_constants(block)
                    wrap_casts(block, conv)
