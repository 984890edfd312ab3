"""Canonicalization rules of GE ops: one table entry per rewrite.

`canonicalize` (passes/canonicalize.py) picks up every rule whose root op kind
matches, for any op (the `Canonicalized` trait in ge.py also gives xDSL's own
canonicalize the rules of the ops that carry it). Add a rule by adding one line
here and one CHECK block to test/filecheck/passes/canonicalize.mlir; a plugin
adds one with passes.driver.plugins.register_canonicalization.

There is no rule for dropout: GE has no dropout op. In eval mode torch.export's
core ATen has no dropout left (and `aten.dropout` with train=False, from the
training IR, imports as its input), while training-mode dropout is refused at
import (lowering/aten/nn.py), so an eval-mode dropout never reaches GE IR.
"""

import numpy as np
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.traits import HasCanonicalizationPatternsTrait
from xdsl.transforms.canonicalize import CanonicalizationRewritePattern

from ge_dialect import ge
from ge_dialect.shapes import DYN
from ge_dialect.patterns import Const, Op, RewriteRule, Var
from ge_dialect.tensors import to_numpy

RESHAPES = ge.views("reshape")
INT64_MAX = 2**63 - 1  # a slice's "to the end"


def is_splat(value: SSAValue, number: float) -> bool:
    """True if a ge.const produces `value` and every element equals `number`."""
    attr: DenseIntOrFPElementsAttr = value.owner.value
    return bool(np.all(np.frombuffer(attr.data.data, to_numpy(attr).dtype) == number))


def keeps_type(m) -> bool:
    """The result has exactly x's type, so returning x changes nothing downstream."""
    return m.x.type == m.root.results[0].type


def perm(op: ge.TransposeOp) -> tuple[int, ...]:
    return op.permutation.get_values()


def composed(m) -> tuple[int, ...]:
    """transpose(transpose(x, p), q) reads x's dim p[q[i]] as its dim i."""
    return tuple(perm(m.first)[i] for i in perm(m.root))


def is_identity(p) -> bool:
    return tuple(p) == tuple(range(len(p)))


def covers_input(m) -> bool:
    """The slice keeps every element of its dim: from 0, step 1, to the end or past it."""
    s: ge.SliceOp = m.root
    size = m.x.type.get_shape()[s.dim.value.data]
    end = s.end.value.data
    return (s.end_value is None and s.start.value.data == 0 and s.step.value.data == 1
            and (end == INT64_MAX or (size != DYN and end >= size)) and keeps_type(m))


CANCEL_TRANS_DATA = RewriteRule(
    "trans_data(trans_data(x, A -> B), B -> A) -> x",
    Op(ge.TransDataOp, Op(ge.TransDataOp, Var("x"), name="first")),
    lambda m: m.x,
    lambda m: m.root.dst_format == m.first.src_format and keeps_type(m))

# A -> B keeps every value of A exactly, so a later cast of the B value to C
# gives what casting x to C directly gives. f32 -> f16 -> f32 rounds: not here (nor f16 <-> bf16: each
# has values the other lacks).
EXACT_CASTS = {("f16", "f32"), ("f16", "f64"), ("f32", "f64"), ("bf16", "f32"), ("bf16", "f64"),
               ("i8", "i32"), ("i8", "i64"), ("i32", "i64")}


def exact_inner_cast(m) -> bool:
    return (str(m.x.type.element_type), str(m.inner.output.type.element_type)) in EXACT_CASTS


CANCEL_CAST_PAIR = RewriteRule(
    "cast(cast(x : A) : B) : C -> cast(x) : C, or x if C == A, when A -> B is exact",
    Op(ge.CastOp, Op(ge.CastOp, Var("x"), name="inner")),
    lambda m: m.x if m.x.type == m.root.output.type
    else ge.CastOp(m.x, m.root.output.type.element_type),
    exact_inner_cast)

def widened_to_f32(m) -> bool:
    """The cast only widens (bf16 or f16 to f32) and the quantize has no zero point."""
    return (str(m.inner.output.type.element_type) == "f32" and exact_inner_cast(m)
            and m.root.zero_point is None)


QUANTIZE_WIDENED = RewriteRule(
    "quantize(cast(x : bf16) : f32, s) -> quantize(x, s): quantizing computes in f32",
    Op(ge.QuantizeOp, Op(ge.CastOp, Var("x"), name="inner"), Var("s")),
    lambda m: ge.QuantizeOp(m.x, m.s, None, m.root.axis.value.data,
                            str(m.root.output.type.element_type) == "i8"),
    widened_to_f32)


def scalar_of(value: SSAValue) -> float | None:
    """The number a one-element ge.const holds, else None."""
    values = to_numpy(value.owner.value).reshape(-1)
    return float(values[0]) if values.size == 1 else None


def over_last_dim(m) -> bool:
    """mean(x ** 2) over the last dim, kept, plus a scalar epsilon: RMS of x's rows."""
    mean: ge.ReduceMeanOp = m.mean
    rank = len(m.x.type.get_shape())
    return (tuple(d % rank for d in mean.dims.get_values()) == (rank - 1,)
            and mean.keepdim.value.data and scalar_of(m.eps) is not None
            and ("two" not in m.values or scalar_of(m.two) == 2.0) and keeps_type(m))


def rms_norm(m) -> ge.RmsNormOp:
    return ge.RmsNormOp(m.x, m.x.type.get_shape()[-1:], epsilon=scalar_of(m.eps))


def rms(square: Op) -> Op:
    """rsqrt(mean(square, -1) + eps), the denominator of an RMS norm."""
    return Op(ge.RsqrtOp, Op(ge.AddOp, Op(ge.ReduceMeanOp, square, name="mean"), Const("eps"),
                             commutative=True))


def scales_rows(m) -> bool:
    """A weight of the normalized dim's size on an RMS norm that has none yet."""
    norm: ge.RmsNormOp = m.norm
    return (norm.weight is None and m.w.type.get_shape() == norm.normalized_shape.get_values()
            and m.w.type.element_type == norm.output.type.element_type
            and m.root.output.type == norm.output.type)


def same_quantization(m) -> bool:
    """dequantize and quantize with one and the same scale and zero point
    (0 or none alike), of a normal size, back to x's type: (q - z) * s / s
    rounds back to q - z, an integer below 2^8 away from the fp32 results,
    so the pair is the identity on every int8 value."""
    params = m.dq.per_tensor()
    return (params is not None and 1e-30 < params[0] < 1e30 and m.root.per_tensor() == params
            and str(m.dq.output.type.element_type) == "f32" and keeps_type(m))


RULES: tuple[RewriteRule, ...] = (
    CANCEL_CAST_PAIR,
    QUANTIZE_WIDENED,
    RewriteRule("quantize(dequantize(x, s, z), s, z) -> x",
                Op(ge.QuantizeOp, Op(ge.DequantizeOp, Var("x"), name="dq")),
                lambda m: m.x, same_quantization),
    CANCEL_TRANS_DATA,
    RewriteRule("x + 0 -> x", Op(ge.AddOp, Var("x"), Const("c"), commutative=True),
                lambda m: m.x, lambda m: keeps_type(m) and is_splat(m.c, 0.0)),
    RewriteRule("x * 1 -> x", Op(ge.MulOp, Var("x"), Const("c"), commutative=True),
                lambda m: m.x, lambda m: keeps_type(m) and is_splat(m.c, 1.0)),
    RewriteRule("reshape(x : T) : T -> x", Op(RESHAPES, Var("x")),
                # with two `?` dims the same type can still mean a different shape
                lambda m: m.x, lambda m: keeps_type(m) and m.x.type.get_shape().count(DYN) <= 1),
    RewriteRule("reshape(reshape(x)) -> reshape(x)", Op(RESHAPES, Op(RESHAPES, Var("x"))),
                lambda m: ge.ReshapeOp(m.x, m.root.output.type.get_shape()),
                # a `?` in the result needs the intermediate shape to resolve
                lambda m: m.root.output.type.has_static_shape()),
    RewriteRule("transpose(x, identity) -> x", Op(ge.TransposeOp, Var("x")),
                lambda m: m.x, lambda m: is_identity(perm(m.root))),
    RewriteRule("transpose(transpose(x, p), q) -> transpose(x, p o q), or x if p o q = id",
                Op(ge.TransposeOp, Op(ge.TransposeOp, Var("x"), name="first")),
                lambda m: m.x if is_identity(composed(m)) else ge.TransposeOp(m.x, composed(m))),
    RewriteRule("cast(x : T) : T -> x", Op(ge.CastOp, Var("x")), lambda m: m.x, keeps_type),
    RewriteRule("x[0:end of dim] -> x", Op(ge.SliceOp, Var("x")), lambda m: m.x, covers_input),
    # RMSNorm as Llama, T5 and Qwen write it by hand: recomposed into one op
    RewriteRule("x * rsqrt(mean(x ** 2, -1) + eps) -> rms_norm(x, eps)",
                Op(ge.MulOp, Var("x"), rms(Op(ge.PowOp, Var("x"), Const("two"))),
                   commutative=True), rms_norm, over_last_dim),
    RewriteRule("x * rsqrt(mean(x * x, -1) + eps) -> rms_norm(x, eps)",
                Op(ge.MulOp, Var("x"), rms(Op(ge.MulOp, Var("x"), Var("x"))), commutative=True),
                rms_norm, over_last_dim),
    RewriteRule("rms_norm(x) * w -> rms_norm(x, w)",
                Op(ge.MulOp, Op(ge.RmsNormOp, Var("x"), name="norm"), Const("w"),
                   commutative=True),
                lambda m: ge.RmsNormOp(m.x, m.norm.normalized_shape.get_values(), m.w,
                                       m.norm.epsilon.value.data), scales_rows),
)


# Rules added at run time by plugins (passes.driver.plugins.register_canonicalization),
# tried after the built-in ones.
EXTRA_RULES: list[RewriteRule] = []


def rules_for(op_type: type[Operation]) -> tuple[RewriteRule, ...]:
    def roots(rule: RewriteRule):
        kind = rule.pattern.kind
        return kind if isinstance(kind, tuple) else (kind,)

    return tuple(rule for rule in (*RULES, *EXTRA_RULES) if op_type in roots(rule))


def patterns_for(op: Operation) -> tuple[RewritePattern, ...]:
    """What `canonicalize` applies to `op`: its traits' patterns, and for an op
    without the Canonicalized trait the table's rules rooted at its kind, so
    any op (a GE op, or another dialect's) is canonicalized by a table line."""
    from ge_dialect.ge import Canonicalized

    traits = op.get_traits_of_type(HasCanonicalizationPatternsTrait)
    patterns = tuple(p for trait in traits for p in trait.get_patterns(type(op)))
    if not any(isinstance(trait, Canonicalized) for trait in traits):
        patterns += rules_for(type(op))
    return patterns


class TableCanonicalization(CanonicalizationRewritePattern):
    """xDSL's canonicalization dispatcher, over `patterns_for` (the rule table too)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        for pattern in patterns_for(op):
            pattern.match_and_rewrite(op, rewriter)
            if rewriter.has_done_action:
                return
