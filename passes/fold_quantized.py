"""fold-quantized: a QDQ conv / linear / matmul with its epilogue becomes one int8 cube op.

    q?(relu?(add?(conv2d(dq(xq, sx), dq(Wq, sw), b), r)))
      -> quantized_conv2d(xq, Wq, sw, b, r) {input_scale = sx, output_scale = sy?, relu?}
    relu? may be any activation op with a post-op form (ReLU6's clamp, a
    transformer FFN's activation): {activation = its name, activation_attrs}
    q?(relu?(add?(linear(dq(xq, sx), dq(Wq, sw), b), r)))   -> quantized_linear(...)
    q?(relu?(add?(matmul(dq(xq, sx), dq(Kq, sk, axis 1)), r))) -> quantized_linear(xq, Kq^T, sk, r)
    matmul(dq(xq, sx), transpose(dq(Wq, sw))) (an ONNX Gemm's transB) folds as a linear
    q(max_pool2d(x), s[, zp]) -> max_pool2d(q(x, s[, zp]))  (first: exact; x's producer folds q)

The form quantize-static writes (and a QDQ ONNX model carries): the float
op between dequantizes of its int8 input and weight, and a quantize of its
result where the next matrix op reads it. Folded, the product is an integer
one (AMCT's quantized Conv2D / MatMul, a cube task at the int8 rate), and
the quantize after it is the op's own requantization, so two folded ops in
a row pass int8 bytes: the quantize -> dequantize pair between them is gone.

What folds, and what stays:
- the input: a `dequantize` with one scale, of i8 or ui8, with one zero
  point or none (an asymmetric QDQ model's: `input_zero_point`);
- the weight: a `dequantize` of an i8 `ge.const`, a zero point of 0 or
  none, one scale or one per output channel (conv / linear axis 0, matmul
  axis 1, or axis 0 under a transpose); a weight computed in the graph
  stays float;
- the bias: a `ge.const` (f32) or none; for a linear or matmul without one,
  an `add` of an f32 constant of one value per output channel right after
  it (an ONNX Gemm's or MatMul + Add's bias);
- an `add` of the result and another f32 tensor of the same shape (no
  broadcasting) is the residual, added in fp32 after the scales; if that
  tensor is a `dequantize` of i8 or ui8 (one scale, no zero point), the
  residual is that tensor with its scale as `residual_scale` (int8 bytes
  read);
- a `relu` of that, or another activation op with a post-op form (its
  Activation trait's `post_op`: a `clamp` with both bounds, ReLU6; the
  activation after a transformer FFN's first linear, whose int8 result
  then feeds the second), as `activation` and `activation_attrs`;
- the output is int8 (i8 or ui8) with `output_scale` (and
  `output_zero_point`) when every reader of the result is a `quantize` to
  that type with the same single scale and zero point (or none);
  otherwise (another reader, a graph result, per-channel or differing
  scales) it is fp32 and those quantizes stay as they are.
The arithmetic is the QDQ graph's: integer products are exact, so the two
differ only in the order of float rounding (and the rounding of ties).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from ge_dialect import ge
from ge_dialect.quant import QUANTIZED_TYPES
from ge_dialect.tensors import from_numpy, to_numpy
from ge_dialect.traits import Activation
from passes.base import GEPass


def _element(value: SSAValue) -> str:
    return str(getattr(value.type, "element_type", ""))


def _const(value: SSAValue | None) -> np.ndarray | None:
    if value is None or not isinstance(value.owner, ge.ConstOp):
        return None
    return to_numpy(value.owner.value)


def dequantized_input(value: SSAValue) -> tuple[SSAValue, np.float32, int] | None:
    """(xq, sx, zero point) if `value` is dequantize(xq, sx[, zp]): one scale,
    and one zero point or none (0)."""
    dq = value.owner
    if not isinstance(dq, ge.DequantizeOp):
        return None
    params = dq.per_tensor()
    if params is None or _element(dq.input) not in QUANTIZED_TYPES or _element(value) != "f32":
        return None
    return dq.input, np.float32(params[0]), params[1]


def _quantize_kind(op: Operation) -> tuple[np.float32, str, int] | None:
    """(scale, type, zero point) of a quantize with one scale and at most one
    zero point; None for anything else."""
    params = op.per_tensor() if isinstance(op, ge.QuantizeOp) else None
    return None if params is None else (np.float32(params[0]), _element(op.output), params[1])


def dequantized_weight(value: SSAValue, axis: int
                       ) -> tuple[SSAValue, SSAValue | None, np.ndarray] | None:
    """(Wq, its per-channel scale constant if it has one, the scale per
    output channel) if `value` is dequantize of an i8 constant with one
    scale, or one per slice along `axis`, and a zero point of 0 or none."""
    dq = value.owner
    if not isinstance(dq, ge.DequantizeOp) or (
            dq.zero_point is not None and (_const(dq.zero_point) is None
                                           or _const(dq.zero_point).any())):
        return None
    weight, scale = _const(dq.input), _const(dq.scale)
    if weight is None or scale is None or weight.dtype != np.int8 or scale.dtype != np.float32:
        return None
    channels = weight.shape[axis]
    if scale.size == 1:
        return dq.input, None, np.full(channels, scale.reshape(()), np.float32)
    if scale.ndim != 1 or scale.size != channels or dq.axis.value.data % weight.ndim != axis:
        return None
    return dq.input, dq.scale, np.ascontiguousarray(scale)


def _transposed(value: SSAValue) -> bool:
    """Whether `value` is a 2-D transpose (an ONNX Gemm's transB of a weight)."""
    t = value.owner
    return (isinstance(t, ge.TransposeOp) and list(t.permutation.get_values()) == [1, 0]
            and value.has_one_use())


def _sole_user(value: SSAValue) -> Operation | None:
    return next(iter(value.uses)).operation if value.has_one_use() else None


@dataclass
class Epilogue:
    """What follows the matrix op: a residual add, a ReLU, the requantizes."""

    ops: list[Operation]              # the float ops replaced: the matrix op, add, relu
    bias: SSAValue | None = None      # an add of a per-channel constant, for an op without bias
    residual: SSAValue | None = None
    residual_scale: np.float32 | None = None
    relu: bool = False
    activation: Operation | None = None  # another activation op, with a post-op form
    quantizes: tuple[Operation, ...] = ()
    output_scale: np.float32 | None = None
    signed_output: bool = True        # i8 (else ui8) with output_scale
    output_zero_point: int = 0

    @property
    def result(self) -> SSAValue:
        return self.ops[-1].results[0]


def _channel_bias(value: SSAValue, channels: int) -> bool:
    """Whether `value` is an f32 constant of one value per output channel,
    [channels] (a linear's bias that an ONNX Gemm or MatMul + Add carries
    as an add after the product)."""
    array = _const(value)
    return array is not None and array.dtype == np.float32 and array.shape == (channels,)


def epilogue(op: Operation, bias_free: bool = False) -> Epilogue:
    """The longest [bias add] -> add -> activation -> quantize tail of `op`
    that folds (see the module doc); `bias_free`: `op` is a linear or matmul
    without a bias, which a first add of a per-channel constant becomes."""
    tail = Epilogue([op])
    add = _sole_user(tail.result)
    channels = tail.result.type.get_shape()[-1]
    if isinstance(add, ge.AddOp) and bias_free and add.output.type == tail.result.type:
        other = add.operands[1] if add.operands[0] is tail.result else add.operands[0]
        if _channel_bias(other, channels):
            tail.ops.append(add)
            tail.bias = other
            add = _sole_user(tail.result)
    if isinstance(add, ge.AddOp):
        other = add.operands[1] if add.operands[0] is tail.result else add.operands[0]
        if other is not tail.result and other.type == tail.result.type == add.output.type:
            tail.ops.append(add)
            tail.residual = other
            int8_residual = dequantized_input(other)
            if int8_residual is not None and int8_residual[2] == 0:
                tail.residual, tail.residual_scale, _ = int8_residual
    act = _sole_user(tail.result)
    trait = act.get_trait(Activation) if act is not None else None
    if trait is not None and act.results[0].type == tail.result.type:
        if isinstance(act, ge.ReluOp):
            tail.ops.append(act)
            tail.relu = True
        elif trait.post_op(act) is not None:
            tail.ops.append(act)
            tail.activation = act
    users = [use.operation for use in tail.result.uses]
    kinds = {_quantize_kind(q) for q in users}
    if users and len(kinds) == 1 and None not in kinds:
        tail.quantizes = tuple(users)
        ((tail.output_scale, output_type, tail.output_zero_point),) = kinds
        tail.signed_output = output_type == "i8"
    return tail


def _new_const(rewriter: PatternRewriter, before: Operation, array: np.ndarray,
               name: str | None) -> SSAValue:
    const = ge.ConstOp(from_numpy(array))
    const.output.name_hint = name
    rewriter.insert(const, InsertPoint.before(before))
    return const.output


class QuantizeBeforeMaxPool(RewritePattern):
    """q(max_pool2d(x), s) -> max_pool2d(q(x, s)): quantizing is monotonic, so
    the largest quantized value is the quantized largest value (exact, -inf
    included). x's producer can then write int8."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, q: ge.QuantizeOp, rewriter: PatternRewriter):
        pool = q.input.owner
        if (not isinstance(pool, ge.MaxPool2dOp) or not q.input.has_one_use()
                or not pool.input.has_one_use() or _quantize_kind(q) is None):
            return
        early = ge.QuantizeOp(pool.input, q.scale, q.zero_point, q.axis.value.data,
                              _element(q.output) == "i8")
        early.output.name_hint = f"{pool.input.name_hint}_q" if pool.input.name_hint else None
        int8_pool = ge.MaxPool2dOp.create(
            operands=[early.output], properties=dict(pool.properties),
            result_types=[TensorType(early.output.type.element_type, pool.output.type.shape)])
        int8_pool.output.name_hint = q.output.name_hint
        rewriter.insert([early, int8_pool], InsertPoint.before(q))
        rewriter.replace_all_uses_with(q.output, int8_pool.output)
        rewriter.erase(q)
        rewriter.erase(pool)


class FoldQuantizedCube(RewritePattern):
    """q?(relu?(add?(op(dq(xq), dq(Wq), b), r))) -> quantized_op(xq, Wq, sw, b, r) for
    op in conv2d, linear, matmul."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if isinstance(op, ge.Conv2dOp):
            ok = len(op.input.type.get_shape()) == 4
            axis, bias = 0, op.bias
        elif isinstance(op, ge.LinearOp):
            ok, axis, bias = True, 0, op.bias
        elif isinstance(op, ge.MatMulOp):
            ok = len(op.rhs.type.get_shape()) == 2 and len(op.lhs.type.get_shape()) >= 2
            axis, bias = 1, None
        else:
            return
        weight = op.operands[1]
        if isinstance(op, ge.MatMulOp) and _transposed(weight):
            weight, axis = weight.owner.input, 0  # x @ W^T: a linear's [out, in] weight
        x = dequantized_input(op.operands[0]) if ok else None
        w = dequantized_weight(weight, axis) if x is not None else None
        if w is None or _element(op.results[0]) != "f32" or (
                bias is not None and (_const(bias) is None or _element(bias) != "f32")):
            return
        (xq, sx, input_zero_point), (wq, scales, sw) = x, w
        tail = epilogue(op, bias_free=bias is None and not isinstance(op, ge.Conv2dOp))
        bias = bias if tail.bias is None else tail.bias
        last = tail.ops[-1]
        name = wq.name_hint
        if scales is None:
            scales = _new_const(rewriter, last, sw, f"{name}_scales" if name else None)
        if isinstance(op, ge.MatMulOp) and axis == 1:
            wq = _new_const(rewriter, last, np.ascontiguousarray(_const(wq).T), name)
        out = None if tail.output_scale is None else float(tail.output_scale)
        zero_points = (input_zero_point, tail.output_zero_point)
        sr = None if tail.residual_scale is None else float(tail.residual_scale)
        if isinstance(op, ge.Conv2dOp):
            new = ge.QuantizedConv2dOp(xq, wq, scales, bias, tail.residual,
                                       op.stride.get_values(), op.padding.get_values(),
                                       op.dilation.get_values(), op.groups.value.data,
                                       float(sx), out, tail.relu, sr, tail.activation,
                                       tail.signed_output, zero_points)
        else:
            new = ge.QuantizedLinearOp(xq, wq, scales, bias, tail.residual, float(sx), out,
                                       tail.relu, sr, tail.activation, tail.signed_output,
                                       zero_points)
        named = tail.quantizes[0].output if len(tail.quantizes) == 1 else tail.result
        new.output.name_hint = named.name_hint or tail.result.name_hint
        rewriter.insert(new, InsertPoint.before(last))
        if tail.quantizes:
            for q in tail.quantizes:
                rewriter.replace_all_uses_with(q.output, new.output)
                rewriter.erase(q)
        else:
            rewriter.replace_all_uses_with(tail.result, new.output)
        for dead in reversed(tail.ops):
            rewriter.erase(dead)


@dataclass(frozen=True)
class FoldQuantizedPass(GEPass):
    """Fold each QDQ conv2d / linear / matmul (with a constant int8 weight)
    and its add, relu and quantize into one `ge.quantized_conv2d` or
    `ge.quantized_linear` (int8 in, int8 or fp32 out). Runs after
    quantize-static and cse (one quantize per tensor and scale); dce then
    drops the dequantizes left without readers."""

    name = "fold-quantized"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # max-pools first, so the convs before them see the quantize
        for pattern in (QuantizeBeforeMaxPool(), FoldQuantizedCube()):
            PatternRewriteWalker(GreedyRewritePatternApplier([pattern], dce_enabled=False),
                                 apply_recursively=False).rewrite_module(op)
