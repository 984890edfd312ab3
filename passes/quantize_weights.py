"""quantize-weights{dtype=int8 group-size=128}: weight-only int8 for linears with constant weights.

    linear(x, W, b)  -> weight_quant_linear(x, q, s, b) {antiquant_group_size = G}
    matmul(x, K)     -> weight_quant_linear(x, q, s)     with W = K^T

where W is [out, in] and q = round(W / s) in [-127, 127] with symmetric
scales per output channel, one for each `group-size` inputs along it:
s[n, g] = max |W[n, gG:(g+1)G]| / 127 (GE's weight compression, CANN's
WeightQuantBatchMatmulV2 with antiquant_group_size). `group-size=0`, or
rows no longer than one group, give one scale per channel, s[n] =
max |W[n, :]| / 127 (HF's and torchao's "int8 weight-only"), and no
group attribute. Activations keep their float type, so the only error is
the weight's rounding, at most s / 2 per element: a relative 2^-8 of the
group's largest weight.

Groups of 128 are the default. A random-weight 1024x8 Llama, its weights
fake-quantized in eager, 8 prompts of 32 greedy tokens: per channel the
tokens left fp32's after 1-9 tokens on seven prompts (median 8); with
groups of 128 after 3-32 (median 12, three prompts past 16). The scales
add 1/32 to the int8 bytes.

It is for decoders, whose per-token time is the weight bytes read:
`runtime/host/int8.py` runs the result reading the int8 bytes. Only a
weight that is a `ge.const` is quantized (a weight computed in the graph,
or a block argument of a fused body, stays float), so run it after
constant-fold and before op-fusion, which groups only float linears.
"""

from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
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
from ge_dialect.tensors import from_numpy, to_numpy
from passes.base import GEPass

DTYPES = ("int8",)
DEFAULT_GROUP_SIZE = 128
FLOAT_TYPES = ("f32", "bf16", "f16")


def symmetric_per_channel(weight: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """[out, in] float weight -> (int8 weight, float32 scale per output row):
    the row's largest magnitude maps to 127; an all-zero row gets scale 1.
    Rounding is half to even, as ONNX's QuantizeLinear and torch.round."""
    w = weight.astype(np.float64)
    amax = np.abs(w).max(axis=1) if w.shape[1] else np.zeros(w.shape[0])
    scale = np.where(amax > 0, amax / 127.0, 1.0).astype(np.float32)
    q = np.clip(np.round(w / scale.astype(np.float64)[:, None]), -127, 127).astype(np.int8)
    return q, scale


def symmetric_per_group(weight: np.ndarray, group_size: int
                        ) -> tuple[np.ndarray, np.ndarray]:
    """[out, in] float weight -> (int8 weight, float32 scales [out, ceil(in /
    group_size)]): each group of a row quantized as `symmetric_per_channel`
    quantizes a row (the last group may be shorter)."""
    out, k = weight.shape
    groups = -(-k // group_size)
    padded = np.zeros((out, groups * group_size), weight.dtype)
    padded[:, :k] = weight
    q, scale = symmetric_per_channel(padded.reshape(out * groups, group_size))
    return np.ascontiguousarray(q.reshape(out, -1)[:, :k]), scale.reshape(out, groups)


def _const(value: SSAValue | None) -> np.ndarray | None:
    if value is None or not isinstance(value.owner, ge.ConstOp):
        return None
    return to_numpy(value.owner.value)


def _float(value: SSAValue) -> bool:
    return str(value.type.element_type) in FLOAT_TYPES


def _quantize(op: Operation, x: SSAValue, weight: np.ndarray, bias: SSAValue | None,
              name: str | None, group_size: int, rewriter: PatternRewriter) -> None:
    """Replace `op` by the weight-only linear on `weight` ([out, in])."""
    grouped = 0 < group_size < weight.shape[1]
    q, scale = (symmetric_per_group(weight, group_size) if grouped
                else symmetric_per_channel(weight))
    q_op = ge.ConstOp(from_numpy(q))
    element = str(x.type.element_type)  # the scale has the activations' type
    s_op = ge.ConstOp(from_numpy(scale if element == "f32" else _as(scale, element)))
    base = name or "weight"
    q_op.output.name_hint = base + "_int8"
    s_op.output.name_hint = base + "_scale"
    new = ge.WeightQuantLinearOp(x, q_op.output, s_op.output, bias,
                                 group_size if grouped else None)
    new.output.name_hint = op.results[0].name_hint
    float_weight = op.operands[1]
    rewriter.insert([q_op, s_op], InsertPoint.before(op))
    rewriter.replace(op, new)
    if not float_weight.uses:  # no reader left: the float bytes go at once
        rewriter.erase(float_weight.owner)


def _as(values: np.ndarray, element: str) -> np.ndarray:
    return values.astype({"bf16": ml_dtypes.bfloat16, "f16": np.float16}[element])


@dataclass
class QuantizeLinearWeight(RewritePattern):
    """linear(x, W, b) -> weight_quant_linear(x, q(W), s(W), b), W a float ge.const."""

    group_size: int

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ge.LinearOp, rewriter: PatternRewriter):
        w = _const(op.weight)
        if w is None or w.ndim != 2 or not _float(op.weight) or not _float(op.input):
            return
        _quantize(op, op.input, w, op.bias, op.weight.name_hint, self.group_size, rewriter)


@dataclass
class QuantizeMatMulWeight(RewritePattern):
    """matmul(x, K) -> weight_quant_linear(x, q(K^T), s(K^T)), K a 2-D float ge.const."""

    group_size: int

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ge.MatMulOp, rewriter: PatternRewriter):
        k = _const(op.rhs)
        if k is None or k.ndim != 2 or not _float(op.rhs) or not _float(op.lhs):
            return
        _quantize(op, op.lhs, np.ascontiguousarray(k.T), None, op.rhs.name_hint,
                  self.group_size, rewriter)


@dataclass(frozen=True)
class QuantizeWeightsPass(GEPass):
    """Store the constant weights of linears and matmuls in int8 with
    per-output-channel scales, one per `group-size` inputs (0: one per
    channel), as weight-only quantization. A float constant that nothing
    else reads (a tied embedding does) is erased."""

    name = "quantize-weights"
    dtype: str = "int8"
    group_size: int = DEFAULT_GROUP_SIZE

    def __post_init__(self):
        if self.dtype not in DTYPES:
            raise ValueError(f"quantize-weights: dtype={self.dtype!r} is not supported; "
                             f"allowed: {', '.join(DTYPES)}")
        if isinstance(self.group_size, bool) or not isinstance(self.group_size, int) or (
                self.group_size < 0):
            raise ValueError(f"quantize-weights: group-size={self.group_size!r} must be an "
                             f"integer >= 0 (0: one scale per output channel)")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        patterns = [QuantizeLinearWeight(self.group_size), QuantizeMatMulWeight(self.group_size)]
        PatternRewriteWalker(
            GreedyRewritePatternApplier(patterns, dce_enabled=False),
            apply_recursively=False,
        ).rewrite_module(op)
