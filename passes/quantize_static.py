"""quantize-static: QDQ around the matrix ops whose activation ranges were calibrated.

    conv2d(x, W, b)  -> conv2d(dq(q(x, sx)), dq(Wq, sw, axis 0), b)
    linear(x, W, b)  -> linear(dq(q(x, sx)), dq(Wq, sw, axis 0), b)
    matmul(x, K)     -> matmul(dq(q(x, sx)), dq(Kq, sk, axis 1))

The QDQ form of ONNX Runtime's `quantize_static` and of AMCT's output:
activations per tensor, symmetric, from the range [lo, hi] that
calibration observed (`npu_graph.quantize` writes it on the op as
`ge.calibration_range = array<f64: lo, hi>`): int8 with sx = max(|lo|, |hi|)
/ 127, or, where calibration saw no negative value (lo >= 0: after a ReLU
or ReLU6), uint8 with sx = hi / 255, as NNCF and ONNX Runtime quantize
such activations. The unsigned step is half the signed one, and VNNI's
multiply-add takes an unsigned source natively: oneDNN picks its faster
depthwise kernels for it. A held-out value outside [lo, hi] saturates
either way, a negative one to 0 in uint8. Weights are per output
channel, symmetric int8 (passes/quantize_weights.py). The bias stays float.

A second range, `ge.calibration_output_range`, quantizes an op's result:

    y = conv2d(..)  ->  y' = dq(q(y, sy)), every reader of y reading y'

Calibration writes it on the shortcut of a residual add whose two operands
are both single-use results of quantizable convs (a strided ResNet block's
1x1 downsample beside its last conv): the later of the two in the block.
ONNX Runtime and NNCF quantize both inputs of such an Add; here it lets
that conv write int8 and the other add it as an int8 residual, in place
(fold-quantized, memory-reuse), instead of an fp32 tensor of the block's
output size written and read again. Each element moves by at most sy / 2.

Which ops: the cube ops (GE's mixed-precision allow list holds them too)
with a constant float weight and a calibration range. Everything else
stays float (softmax, norms, pooling, elementwise), as GE's precision
lists keep such ops in fp32; an op without a range is left float too, so
a caller keeps an op in float by not calibrating it. The attribute is
removed from each op the pass quantizes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, f32
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.rewriter import InsertPoint

from ge_dialect import ge
from ge_dialect.tensors import from_numpy, to_numpy
from passes.base import GEPass
from passes.quantize_weights import symmetric_per_channel

RANGE_ATTR = "ge.calibration_range"
OUTPUT_RANGE_ATTR = "ge.calibration_output_range"
QMAX = {True: 127, False: 255}  # signed, unsigned


def activation_quantization(lo: float, hi: float) -> tuple[np.float32, bool]:
    """(scale, signed) over [lo, hi]: uint8 when lo >= 0, else int8; the
    larger magnitude maps to the type's largest value (a range of zeros
    gets scale 1)."""
    signed = lo < 0
    amax = max(abs(lo), abs(hi))
    return np.float32(amax / QMAX[signed] if amax > 0 else 1.0), signed


def _weight(op: Operation) -> tuple[SSAValue, int] | None:
    """The op's weight operand and its output-channel axis, if quantizable."""
    if isinstance(op, ge.Conv2dOp | ge.LinearOp):
        return op.weight, 0
    if isinstance(op, ge.MatMulOp) and len(op.rhs.type.get_shape()) == 2:
        return op.rhs, 1
    return None


def quantizable(op: Operation) -> bool:
    """A matrix op with a constant fp32 weight and fp32 input: calibration
    observes its input and this pass quantizes it."""
    found = _weight(op)
    return (found is not None and isinstance(found[0].owner, ge.ConstOp)
            and found[0].type.element_type == f32 and op.operands[0].type.element_type == f32)


def residual_shortcut(op: Operation) -> bool:
    """`op` is a quantizable conv whose one reader is an add of same-shape
    f32 tensors whose other operand is the single-use result of a
    quantizable conv earlier in the block (its output is calibrated)."""
    if not isinstance(op, ge.Conv2dOp) or not quantizable(op) or not op.output.has_one_use():
        return False
    add = next(iter(op.output.uses)).operation
    if not isinstance(add, ge.AddOp) or add.lhs.type != add.rhs.type:
        return False
    other = (add.rhs if add.lhs is op.output else add.lhs).owner
    if not (isinstance(other, ge.Conv2dOp) and quantizable(other) and other is not op
            and other.output.has_one_use() and other.parent_block() is op.parent_block()):
        return False
    block = op.parent_block()
    return block.get_operation_index(other) < block.get_operation_index(op)


def _const(ops: list[Operation], array: np.ndarray, name: str) -> SSAValue:
    const = ge.ConstOp(from_numpy(array))
    const.output.name_hint = name
    ops.append(const)
    return const.output


class InsertQDQ(RewritePattern):
    """op(x, W) -> op(dq(q(x)), dq(Wq)) for a calibrated cube op with a constant
    float weight; with an output range, its readers read dq(q(op(..)))."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        attr = op.attributes.get(RANGE_ATTR)
        if attr is None or not quantizable(op):
            return
        weight, axis = _weight(op)
        x = op.operands[0]
        w = to_numpy(weight.owner.value)
        rows = np.moveaxis(w, axis, 0).reshape(w.shape[axis], -1)
        q, scales = symmetric_per_channel(rows)
        q = np.moveaxis(q.reshape(np.moveaxis(w, axis, 0).shape), 0, axis)
        name = weight.name_hint or "weight"
        lo, hi = attr.get_values()
        new: list[Operation] = []
        scale, signed = activation_quantization(lo, hi)
        sx = _const(new, np.array(scale), f"{x.name_hint or 'x'}_scale")
        quant = ge.QuantizeOp(x, sx, None, 1 if len(x.type.get_shape()) > 1 else 0, signed)
        quant.output.name_hint = f"{x.name_hint or 'x'}_q"
        dq_x = ge.DequantizeOp(quant.output, sx, None, quant.axis.value.data)
        dq_x.output.name_hint = f"{x.name_hint or 'x'}_dq"
        wq = _const(new, np.ascontiguousarray(q), f"{name}_int8")
        sw = _const(new, scales, f"{name}_scale")
        dq_w = ge.DequantizeOp(wq, sw, None, axis)
        dq_w.output.name_hint = f"{name}_dq"
        new += [quant, dq_x, dq_w]
        rewriter.insert(new, InsertPoint.before(op))
        operands = list(op.operands)
        operands[0], operands[1] = dq_x.output, dq_w.output  # the weight is operand 1
        del op.attributes[RANGE_ATTR]
        op.operands = operands
        rewriter.handle_operation_modification(op)
        if not weight.uses:
            rewriter.erase(weight.owner)
        out_range = op.attributes.pop(OUTPUT_RANGE_ATTR, None)
        if out_range is not None:
            _quantize_result(op.results[0], *out_range.get_values(), rewriter)


def _quantize_result(y: SSAValue, lo: float, hi: float, rewriter: PatternRewriter) -> None:
    """Every reader of y reads dq(q(y, s)), s from [lo, hi]."""
    name = y.name_hint or "y"
    readers = [use for use in y.uses]
    new: list[Operation] = []
    scale, signed = activation_quantization(lo, hi)
    sy = _const(new, np.array(scale), f"{name}_scale")
    axis = 1 if len(y.type.get_shape()) > 1 else 0
    quant = ge.QuantizeOp(y, sy, None, axis, signed)
    quant.output.name_hint = f"{name}_q"
    dq = ge.DequantizeOp(quant.output, sy, None, axis)
    dq.output.name_hint = f"{name}_dq"
    rewriter.insert([*new, quant, dq], InsertPoint.after(y.owner))
    for use in readers:
        use.operation.operands = [dq.output if i == use.index else v
                                  for i, v in enumerate(use.operation.operands)]
        rewriter.handle_operation_modification(use.operation)


@dataclass(frozen=True)
class QuantizeStaticPass(GEPass):
    """Insert QDQ pairs (int8 or uint8, symmetric) around each calibrated matrix op:
    per-tensor activations from their `ge.calibration_range`, per-channel
    weights from their values."""

    name = "quantize-static"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(GreedyRewritePatternApplier([InsertQDQ()], dce_enabled=False),
                             apply_recursively=False).rewrite_module(op)

