"""The fuzzer's op menu: one `OpEntry` per GE op with a kernel.

An entry says which values it takes as its main operand, how it draws its
parameters and extra operands, which constant operands it needs, and how to
build it in GE and in PyTorch. To add an op, add one entry to MENU; a test
(test_fuzz_regressions.py) fails while a GE op with a kernel is neither in
the menu nor listed there with the reason it is left out.

Dynamic graphs mark dim 0 of every input as the batch (`?` in the IR). The
menu keeps that dim at position 0 and never contracts, merges or broadcasts
it against a static size, so every batch size is valid at run time.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import torch
import torch.nn.functional as F
from hypothesis import strategies as st
from xdsl.dialects.builtin import DYNAMIC_INDEX, f16, f32, f64, i1, i32

from ge_dialect import ge
from ge_dialect.tensors import from_numpy
from test.fuzz.spec import Const, Draw, OpEntry, Shape, Value


# --------------------------------------------------------------------------
# Shape helpers for the menu


def broadcastable(a: Value, b: Value) -> bool:
    """Broadcasting valid at every batch size: a batch dim meets only itself or a static 1."""
    rank = max(a.rank, b.rank)
    if (a.batch and a.rank < rank) or (b.batch and b.rank < rank):
        return False  # the batch dim would move away from position 0
    pa = (None,) * (rank - a.rank) + a.shape
    pb = (None,) * (rank - b.rank) + b.shape
    for i, (da, db) in enumerate(zip(pa, pb)):
        ba, bb = a.batch and i == 0, b.batch and i == 0
        if da is None or db is None or (ba and bb):
            continue
        if ba or bb:
            if (db if ba else da) != 1:
                return False
        elif not (da == db or da == 1 or db == 1):
            return False
    return True


@st.composite
def broadcast_shape(draw: Draw, x: Value) -> Shape:
    """A constant shape that broadcasts against x: a suffix of x's dims, some set to 1,
    or (for a static x) all of them under new leading dims."""
    rank = draw(st.integers(0, x.rank))
    dims = [d if draw(st.booleans()) else 1 for d in x.shape[x.rank - rank:]]
    if x.batch and rank == x.rank:
        dims[0] = 1
    if rank == x.rank and not x.batch and draw(st.integers(0, 4)) == 0:
        dims = [draw(st.integers(1, 3)) for _ in range(draw(st.integers(1, 2)))] + dims
    return tuple(dims)


@st.composite
def factorization(draw: Draw, n: int) -> Shape:
    """A shape with n elements: n's prime factors spread over 0 to 4 dims."""
    rank = draw(st.integers(1 if n > 1 else 0, 4))
    dims = [1] * rank
    p, rest = 2, n
    while rest > 1:
        while rest % p == 0:
            dims[draw(st.integers(0, rank - 1))] *= p
            rest //= p
        p += 1
    return tuple(dims)


def fit_window(sizes: Sequence[int], kernel, padding, dilation):
    """Shrink kernel and dilation to 1 on any axis where the window does not fit."""
    kernel, dilation = list(kernel), list(dilation)
    for i, size in enumerate(sizes):
        if size + 2 * padding[i] - dilation[i] * (kernel[i] - 1) - 1 < 0:
            kernel[i], dilation[i] = 1, 1
    return tuple(kernel), tuple(dilation)


def pair(draw: Draw, low: int, high: int) -> tuple[int, int]:
    return draw(st.integers(low, high)), draw(st.integers(low, high))


# --------------------------------------------------------------------------
# The menu, one entry per op


def any_value(v: Value) -> bool:
    return True


def rank4(v: Value) -> bool:
    return v.rank == 4


def no_params(draw, x, pool):
    return (), {}


def no_consts(operands, p):
    return []


def draw_binary(draw: Draw, x: Value, pool: Sequence[Value]):
    """The other operand: a value already in the graph (a join), a constant or a scalar."""
    partners = [i for i, v in enumerate(pool) if broadcastable(x, v)]
    how = draw(st.sampled_from(["const", "scalar", "value"] if partners else ["const", "scalar"]))
    swap = draw(st.booleans())
    if how == "value":
        return (partners[-1 - draw(st.integers(0, len(partners) - 1))],), {"swap": swap}
    if how == "scalar":
        return (), {"swap": swap, "const": (), "python_scalar": draw(st.booleans())}
    return (), {"swap": swap, "const": draw(broadcast_shape(x))}


def binary_consts(operands, p):
    return [Const(p["const"])] if "const" in p else []


def ordered(a: list, p: dict) -> list:
    return a[::-1] if p["swap"] else a


def draw_conv2d(draw: Draw, x: Value, pool):
    _, channels, h, w = x.shape
    groups = draw(st.sampled_from([g for g in range(1, channels + 1) if channels % g == 0]))
    padding = pair(draw, 0, 2)
    kernel, dilation = fit_window((h, w), pair(draw, 1, 3), padding, pair(draw, 1, 2))
    return (), {"out": groups * draw(st.integers(1, 3)), "kernel": kernel,
                "stride": pair(draw, 1, 2), "padding": padding, "dilation": dilation,
                "groups": groups, "bias": draw(st.booleans())}


def conv2d_consts(operands, p):
    weight = Const((p["out"], operands[0].shape[1] // p["groups"], *p["kernel"]), "weight")
    return [weight, Const((p["out"],))] if p["bias"] else [weight]


def draw_batch_norm(draw: Draw, x: Value, pool):
    return (), {"eps": draw(st.sampled_from([1e-5, 1e-3, 0.1, 0.5]))}


def batch_norm_consts(operands, p):
    c = (operands[0].shape[1],)
    return [Const(c, "scale"), Const(c), Const(c), Const(c, "positive")]


def draw_max_pool2d(draw: Draw, x: Value, pool):
    kernel = pair(draw, 1, 3)
    padding = tuple(draw(st.integers(0, k // 2)) for k in kernel)
    fitted, dilation = fit_window(x.shape[2:], kernel, padding, pair(draw, 1, 2))
    padding = tuple(p if k == f else 0 for p, k, f in zip(padding, kernel, fitted))
    return (), {"kernel": fitted, "stride": pair(draw, 1, 3), "padding": padding,
                "dilation": dilation, "ceil_mode": draw(st.booleans())}


def draw_adaptive_avg_pool2d(draw: Draw, x: Value, pool):
    size = (draw(st.integers(1, x.shape[-2] + 1)), draw(st.integers(1, x.shape[-1] + 1)))
    as_mean = size == (1, 1) and x.rank == 4 and draw(st.booleans())
    return (), {"size": size, "as_mean": as_mean}


def draw_flatten(draw: Draw, x: Value, pool):
    rank = max(x.rank, 1)
    start = draw(st.integers(0, rank - 1))
    end = draw(st.integers(start, rank - 1))
    if x.batch and start == 0 and end > 0:
        start = 1  # never merge the batch dim into another
    if draw(st.booleans()):
        start, end = start - rank, end - rank  # negative dims are valid too
    return (), {"start": start, "end": end}


def draw_reshape(draw: Draw, x: Value, pool):
    rest = x.shape[1:] if x.batch else x.shape
    return (), {"shape": draw(factorization(math.prod(rest))), "keep_batch": x.batch,
                "view": draw(st.booleans())}


def ge_reshape(a, p):
    return ge.ReshapeOp(a[0], ([DYNAMIC_INDEX] if p["keep_batch"] else []) + list(p["shape"]))


def torch_reshape(a, p):
    x = a[0]
    shape = ((x.shape[0],) if p["keep_batch"] else ()) + tuple(p["shape"])
    # a view of a value with permuted strides (transpose, then relu) is an
    # error in eager; the graph means a reshape there
    return x.view(shape) if p["view"] and x.is_contiguous() else x.reshape(shape)


def takes_matrix_operand(v: Value) -> bool:
    """Contracting dim -1 is fine unless it is the batch dim."""
    return v.rank >= (2 if v.batch else 1)


def draw_matmul(draw: Draw, x: Value, pool: Sequence[Value]):
    k = x.shape[-1]
    partners = [i for i, v in enumerate(pool) if not v.batch and v.rank == 2 and v.shape[0] == k]
    forms = ["matrix", "vector"]
    forms += ["batched"] if x.rank >= 3 else []
    forms += ["lhs"] if x.rank >= 2 and not x.batch else []
    forms += ["value"] if partners else []
    form = draw(st.sampled_from(forms))
    if form == "value":
        return (partners[-1 - draw(st.integers(0, len(partners) - 1))],), {"form": form}
    n = draw(st.integers(1, 5))
    shape = {"matrix": (k, n), "vector": (k,), "lhs": (n, x.shape[-2]) if x.rank >= 2 else ()}
    if form == "batched":
        lead = 1 if x.batch and x.rank == 3 else draw(st.sampled_from([1, x.shape[-3]]))
        shape["batched"] = (lead, k, n)
    return (), {"form": form, "const": shape[form]}


def ge_matmul(a, p):
    return ge.MatMulOp(a[1], a[0]) if p["form"] == "lhs" else ge.MatMulOp(a[0], a[1])


def torch_matmul(a, p):
    return torch.matmul(a[1], a[0]) if p["form"] == "lhs" else torch.matmul(a[0], a[1])


def draw_linear(draw: Draw, x: Value, pool):
    return (), {"out": draw(st.integers(1, 5)), "bias": draw(st.booleans()),
                "as_matmul": draw(st.booleans())}


def linear_consts(operands, p):
    weight = Const((p["out"], operands[0].shape[-1]), "weight")
    return [weight, Const((p["out"],))] if p["bias"] else [weight]


def torch_linear(a, p):
    bias = a[2] if p["bias"] else None
    if p["as_matmul"]:  # x @ w.T + b: the importer must see through the transpose
        y = a[0] @ a[1].t()
        return y + bias if bias is not None else y
    return F.linear(a[0], a[1], bias)


# Unary ops defined on every real number, with no parameters.
UNARY = (
    ("sigmoid", ge.SigmoidOp, torch.sigmoid),
    ("tanh", ge.TanhOp, torch.tanh),
    ("neg", ge.NegOp, torch.neg),
    ("abs", ge.AbsOp, torch.abs),
    ("erf", ge.ErfOp, torch.erf),
    ("silu", ge.SiluOp, F.silu),
    ("hardswish", ge.HardswishOp, F.hardswish),
    ("hardsigmoid", ge.HardsigmoidOp, F.hardsigmoid),
    ("exp", ge.ExpOp, torch.exp),
    ("sin", ge.SinOp, torch.sin),
    ("cos", ge.CosOp, torch.cos),
    ("atan", ge.AtanOp, torch.atan),
    ("asinh", ge.AsinhOp, torch.asinh),
    ("erfc", ge.ErfcOp, torch.erfc),
    ("mish", ge.MishOp, F.mish),
    ("log_sigmoid", ge.LogSigmoidOp, F.logsigmoid),
)

# Reductions over some dims (never the batch dim), with or without keepdim.
REDUCTIONS = (
    ("reduce_sum", ge.ReduceSumOp, torch.sum),
    ("reduce_mean", ge.ReduceMeanOp, torch.mean),
    ("reduce_max", ge.ReduceMaxOp, torch.amax),
    ("reduce_min", ge.ReduceMinOp, torch.amin),
)


def reducible(v: Value) -> bool:
    return v.rank >= (2 if v.batch else 1)


def draw_reduction(draw: Draw, x: Value, pool):
    dims = [d for d in range(x.rank) if not (x.batch and d == 0)]
    chosen = draw(st.lists(st.sampled_from(dims), min_size=1, max_size=len(dims), unique=True))
    return (), {"dims": tuple(sorted(chosen)), "keepdim": draw(st.booleans())}


def draw_transpose(draw: Draw, x: Value, pool):
    rest = draw(st.permutations(range(1 if x.batch else 0, x.rank)))
    return (), {"perm": ((0,) if x.batch else ()) + tuple(rest)}


def draw_divisor(draw: Draw, x: Value, pool):
    """A constant divisor away from zero (a value of the graph could be near it)."""
    return (), {"swap": False, "const": draw(broadcast_shape(x))}


def draw_tensor_binary(draw: Draw, x: Value, pool: Sequence[Value]):
    """draw_binary, with the scalar as a 0-d tensor (torch.maximum takes no float)."""
    extra, params = draw_binary(draw, x, pool)
    params.pop("python_scalar", None)
    return extra, params


def draw_clamp(draw: Draw, x: Value, pool):
    low = draw(st.sampled_from([None, -1.0, 0.0, 0.5]))
    high = draw(st.sampled_from([None, 1.0, 6.0] if low is not None else [1.0, 6.0]))
    return (), {"min": low, "max": high}


def draw_softmax(draw: Draw, x: Value, pool):
    dims = [d for d in range(x.rank) if not (x.batch and d == 0)]
    dim = draw(st.sampled_from(dims))
    return (), {"dim": dim - x.rank if draw(st.booleans()) else dim}


def draw_const(draw: Draw, x, pool):
    return (), {"shape": tuple(draw(st.lists(st.integers(1, 4), max_size=3)))}


CORE: tuple[OpEntry, ...] = (
    OpEntry("relu", any_value, no_params, no_consts,
            lambda a, p: ge.ReluOp(a[0]), lambda a, p: torch.relu(a[0])),
    OpEntry("add", any_value, draw_binary, binary_consts,
            lambda a, p: ge.AddOp(*ordered(a, p)),
            lambda a, p: ordered(a, p)[0] + ordered(a, p)[1]),
    OpEntry("mul", any_value, draw_binary, binary_consts,
            lambda a, p: ge.MulOp(*ordered(a, p)),
            lambda a, p: ordered(a, p)[0] * ordered(a, p)[1]),
    OpEntry("conv2d", rank4, draw_conv2d, conv2d_consts,
            lambda a, p: ge.Conv2dOp(a[0], a[1], a[2] if p["bias"] else None, p["stride"],
                                     p["padding"], p["dilation"], p["groups"]),
            lambda a, p: F.conv2d(a[0], a[1], a[2] if p["bias"] else None, p["stride"],
                                  p["padding"], p["dilation"], p["groups"]), weight=3),
    OpEntry("batch_norm", lambda v: v.rank >= 2, draw_batch_norm, batch_norm_consts,
            lambda a, p: ge.BatchNormOp(*a, p["eps"]),
            lambda a, p: F.batch_norm(a[0], a[3], a[4], a[1], a[2], False, 0.0, p["eps"]),
            weight=2),
    OpEntry("max_pool2d", rank4, draw_max_pool2d, no_consts,
            lambda a, p: ge.MaxPool2dOp(a[0], p["kernel"], p["stride"], p["padding"],
                                        p["dilation"], p["ceil_mode"]),
            lambda a, p: F.max_pool2d(a[0], p["kernel"], p["stride"], p["padding"],
                                      p["dilation"], ceil_mode=p["ceil_mode"])),
    OpEntry("adaptive_avg_pool2d", lambda v: v.rank in (3, 4), draw_adaptive_avg_pool2d,
            no_consts, lambda a, p: ge.AdaptiveAvgPool2dOp(a[0], p["size"]),
            lambda a, p: (a[0].mean((2, 3), keepdim=True) if p["as_mean"]
                          else F.adaptive_avg_pool2d(a[0], p["size"]))),
    OpEntry("flatten", any_value, draw_flatten, no_consts,
            lambda a, p: ge.FlattenOp(a[0], p["start"], p["end"]),
            lambda a, p: torch.flatten(a[0], p["start"], p["end"])),
    OpEntry("reshape", any_value, draw_reshape, no_consts, ge_reshape, torch_reshape),
    OpEntry("matmul", takes_matrix_operand, draw_matmul,
            lambda operands, p: [Const(p["const"], "weight")] if "const" in p else [],
            ge_matmul, torch_matmul),
    OpEntry("linear", takes_matrix_operand, draw_linear, linear_consts,
            lambda a, p: ge.LinearOp(a[0], a[1], a[2] if p["bias"] else None), torch_linear),
    OpEntry("const", None, draw_const, lambda operands, p: [Const(p["shape"])],
            lambda a, p: a[0], lambda a, p: a[0]),
    OpEntry("sub", any_value, draw_binary, binary_consts,
            lambda a, p: ge.SubOp(*ordered(a, p)),
            lambda a, p: ordered(a, p)[0] - ordered(a, p)[1]),
    OpEntry("maximum", any_value, draw_tensor_binary, binary_consts,
            lambda a, p: ge.MaximumOp(*ordered(a, p)),
            lambda a, p: torch.maximum(*ordered(a, p))),
    OpEntry("minimum", any_value, draw_tensor_binary, binary_consts,
            lambda a, p: ge.MinimumOp(*ordered(a, p)),
            lambda a, p: torch.minimum(*ordered(a, p))),
    OpEntry("clamp", any_value, draw_clamp, no_consts,
            lambda a, p: ge.ClampOp(a[0], p["min"], p["max"]),
            lambda a, p: torch.clamp(a[0], p["min"], p["max"])),
    OpEntry("gelu", any_value, lambda draw, x, pool: ((), {"approximate": draw(
                st.sampled_from(["none", "tanh"]))}), no_consts,
            lambda a, p: ge.GeluOp(a[0], p["approximate"]),
            lambda a, p: F.gelu(a[0], approximate=p["approximate"])),
    OpEntry("softmax", lambda v: v.rank >= 1 and not (v.batch and v.rank == 1), draw_softmax,
            no_consts, lambda a, p: ge.SoftmaxOp(a[0], p["dim"]),
            lambda a, p: torch.softmax(a[0], p["dim"])),
    OpEntry("log_softmax", lambda v: v.rank >= 1 and not (v.batch and v.rank == 1),
            draw_softmax, no_consts, lambda a, p: ge.LogSoftmaxOp(a[0], p["dim"]),
            lambda a, p: torch.log_softmax(a[0], p["dim"])),
    *(OpEntry(name, any_value, no_params, no_consts,
              (lambda cls: lambda a, p: cls(a[0]))(cls), (lambda fn: lambda a, p: fn(a[0]))(fn))
      for name, cls, fn in UNARY),
    OpEntry("div", any_value, draw_divisor, lambda operands, p: [Const(p["const"], "scale")],
            lambda a, p: ge.DivOp(a[0], a[1]), lambda a, p: a[0] / a[1]),
    OpEntry("transpose", lambda v: v.rank >= 2, draw_transpose, no_consts,
            lambda a, p: ge.TransposeOp(a[0], p["perm"]),
            lambda a, p: a[0].permute(p["perm"])),
    *(OpEntry(name, reducible, draw_reduction, no_consts,
              (lambda cls: lambda a, p: cls(a[0], p["dims"], p["keepdim"]))(cls),
              (lambda fn: lambda a, p: fn(a[0], p["dims"], keepdim=p["keepdim"]))(fn))
      for name, cls, fn in REDUCTIONS),
)


# --------------------------------------------------------------------------
# The long tail: every other GE op with a kernel


def exact(v: Value) -> bool:
    return v.exact


def _scalar(value: float) -> ge.ConstOp:
    return ge.ConstOp(from_numpy(np.asarray(value, dtype=np.float32)))


def _cast(op, element=f32):
    return ge.CastOp(op.results[0], element)


# Where an op is defined or well conditioned: the same map in both builds,
# ahead of the op. ("above", k) is |x| + k, ("unit", k) is k * tanh(x).
def ge_domain(x, domain) -> list:
    kind, k = domain
    if kind == "real":
        return []
    if kind == "probability":
        return [ge.SigmoidOp(x)]
    inner = ge.AbsOp(x) if kind == "above" else ge.TanhOp(x)
    c = _scalar(k)
    join = ge.AddOp if kind == "above" else ge.MulOp
    return [inner, c, join(inner.results[0], c.output)]


def torch_domain(x, domain):
    kind, k = domain
    if kind == "real":
        return x
    if kind == "probability":
        return torch.sigmoid(x)
    return x.abs() + k if kind == "above" else torch.tanh(x) * k


def on_domain(cls, domain, **params):
    def build(a, p):
        ops = ge_domain(a[0], domain)
        arg = ops[-1].results[0] if ops else a[0]
        return ops + [cls(arg, *a[1:], **{k: p[k] for k in params})]
    return build


REAL, POSITIVE, UNIT = ("real", 0.0), ("above", 0.5), ("unit", 0.9)
SPECIAL = torch.special

# name, GE op, PyTorch, domain
UNARY_ON_DOMAIN = (
    ("sinh", ge.SinhOp, torch.sinh, REAL), ("cosh", ge.CoshOp, torch.cosh, REAL),
    ("exp2", ge.Exp2Op, torch.exp2, REAL), ("expm1", ge.Expm1Op, torch.expm1, REAL),
    ("i0", ge.I0Op, torch.i0, REAL), ("i0e", ge.I0eOp, SPECIAL.i0e, REAL),
    ("i1", ge.I1Op, SPECIAL.i1, REAL), ("i1e", ge.I1eOp, SPECIAL.i1e, REAL),
    ("erfcx", ge.ErfcxOp, SPECIAL.erfcx, REAL), ("airy_ai", ge.AiryAiOp, SPECIAL.airy_ai, REAL),
    ("bessel_j0", ge.BesselJ0Op, SPECIAL.bessel_j0, REAL),
    ("bessel_j1", ge.BesselJ1Op, SPECIAL.bessel_j1, REAL),
    ("spherical_bessel_j0", ge.SphericalBesselJ0Op, SPECIAL.spherical_bessel_j0, REAL),
    ("modified_bessel_i0", ge.ModifiedBesselI0Op, SPECIAL.modified_bessel_i0, REAL),
    ("modified_bessel_i1", ge.ModifiedBesselI1Op, SPECIAL.modified_bessel_i1, REAL),
    ("log", ge.LogOp, torch.log, POSITIVE), ("log2", ge.Log2Op, torch.log2, POSITIVE),
    ("log10", ge.Log10Op, torch.log10, POSITIVE), ("sqrt", ge.SqrtOp, torch.sqrt, POSITIVE),
    ("rsqrt", ge.RsqrtOp, torch.rsqrt, POSITIVE),
    ("reciprocal", ge.ReciprocalOp, torch.reciprocal, POSITIVE),
    ("lgamma", ge.LgammaOp, torch.lgamma, POSITIVE),
    ("digamma", ge.DigammaOp, torch.digamma, POSITIVE),
    ("bessel_y0", ge.BesselY0Op, SPECIAL.bessel_y0, POSITIVE),
    ("bessel_y1", ge.BesselY1Op, SPECIAL.bessel_y1, POSITIVE),
    ("modified_bessel_k0", ge.ModifiedBesselK0Op, SPECIAL.modified_bessel_k0, POSITIVE),
    ("modified_bessel_k1", ge.ModifiedBesselK1Op, SPECIAL.modified_bessel_k1, POSITIVE),
    ("scaled_modified_bessel_k0", ge.ScaledModifiedBesselK0Op,
     SPECIAL.scaled_modified_bessel_k0, POSITIVE),
    ("scaled_modified_bessel_k1", ge.ScaledModifiedBesselK1Op,
     SPECIAL.scaled_modified_bessel_k1, POSITIVE),
    ("acosh", ge.AcoshOp, torch.acosh, ("above", 1.0)),
    ("log1p", ge.Log1pOp, torch.log1p, ("above", -0.5)),
    ("asin", ge.AsinOp, torch.asin, UNIT), ("acos", ge.AcosOp, torch.acos, UNIT),
    ("atanh", ge.AtanhOp, torch.atanh, UNIT), ("erfinv", ge.ErfinvOp, torch.erfinv, UNIT),
    ("tan", ge.TanOp, torch.tan, UNIT),
    ("ndtri", ge.NdtriOp, SPECIAL.ndtri, ("probability", 0.0)),
)

# Steps: exact operands only (see Value.exact).
UNARY_STEPS = (
    ("floor", ge.FloorOp, torch.floor), ("ceil", ge.CeilOp, torch.ceil),
    ("round", ge.RoundOp, torch.round), ("trunc", ge.TruncOp, torch.trunc),
    ("sign", ge.SignOp, torch.sign),
)

# name, GE op, PyTorch, domain of x, kind of the constant second operand
BINARY_SPECIAL = (
    ("chebyshev_polynomial_t", ge.ChebyshevPolynomialTOp, SPECIAL.chebyshev_polynomial_t,
     UNIT, "degree"),
    ("chebyshev_polynomial_u", ge.ChebyshevPolynomialUOp, SPECIAL.chebyshev_polynomial_u,
     UNIT, "degree"),
    ("chebyshev_polynomial_v", ge.ChebyshevPolynomialVOp, SPECIAL.chebyshev_polynomial_v,
     UNIT, "degree"),
    ("chebyshev_polynomial_w", ge.ChebyshevPolynomialWOp, SPECIAL.chebyshev_polynomial_w,
     UNIT, "degree"),
    ("shifted_chebyshev_polynomial_t", ge.ShiftedChebyshevPolynomialTOp,
     SPECIAL.shifted_chebyshev_polynomial_t, ("probability", 0.0), "degree"),
    ("shifted_chebyshev_polynomial_u", ge.ShiftedChebyshevPolynomialUOp,
     SPECIAL.shifted_chebyshev_polynomial_u, ("probability", 0.0), "degree"),
    ("shifted_chebyshev_polynomial_v", ge.ShiftedChebyshevPolynomialVOp,
     SPECIAL.shifted_chebyshev_polynomial_v, ("probability", 0.0), "degree"),
    ("shifted_chebyshev_polynomial_w", ge.ShiftedChebyshevPolynomialWOp,
     SPECIAL.shifted_chebyshev_polynomial_w, ("probability", 0.0), "degree"),
    ("hermite_polynomial_h", ge.HermitePolynomialHOp, SPECIAL.hermite_polynomial_h,
     REAL, "degree"),
    ("hermite_polynomial_he", ge.HermitePolynomialHeOp, SPECIAL.hermite_polynomial_he,
     REAL, "degree"),
    ("laguerre_polynomial_l", ge.LaguerrePolynomialLOp, SPECIAL.laguerre_polynomial_l,
     REAL, "degree"),
    ("legendre_polynomial_p", ge.LegendrePolynomialPOp, SPECIAL.legendre_polynomial_p,
     UNIT, "degree"),
    ("zeta", ge.ZetaOp, SPECIAL.zeta, ("above", 1.5), "positive"),
    ("igamma", ge.IgammaOp, SPECIAL.gammainc, POSITIVE, "positive"),
    ("igammac", ge.IgammacOp, SPECIAL.gammaincc, POSITIVE, "positive"),
    ("pow", ge.PowOp, torch.pow, POSITIVE, "normal"),
    ("hypot", ge.HypotOp, torch.hypot, REAL, "normal"),
)

# Binary ops with steps in either operand: both exact (the other a constant).
BINARY_STEPS = (
    ("atan2", ge.Atan2Op, torch.atan2, "normal"),
    ("copysign", ge.CopysignOp, torch.copysign, "normal"),
    ("nextafter", ge.NextafterOp, torch.nextafter, "normal"),
    ("floor_div", ge.FloorDivOp, torch.floor_divide, "scale"),
    ("trunc_div", ge.TruncDivOp, lambda a, b: torch.div(a, b, rounding_mode="trunc"), "scale"),
    ("remainder", ge.RemainderOp, torch.remainder, "scale"),
    ("fmod", ge.FmodOp, torch.fmod, "scale"),
)


def draw_const_operand(draw: Draw, x: Value, pool):
    return (), {"const": draw(broadcast_shape(x))}


def const_operand(kind: str):
    return lambda operands, p: [Const(p["const"], kind)]


def ge_binary_on_domain(cls, domain):
    def build(a, p):
        ops = ge_domain(a[0], domain)
        arg = ops[-1].results[0] if ops else a[0]
        return ops + [cls(arg, a[1])]
    return build


# Ops with an integer or boolean result, each ending in a cast to f32.
LOGICAL = (("logical_and", ge.LogicalAndOp, torch.logical_and),
           ("logical_or", ge.LogicalOrOp, torch.logical_or),
           ("logical_xor", ge.LogicalXorOp, torch.logical_xor))


def ge_logical(cls):
    def build(a, p):
        zero = _scalar(0.0)
        lhs = ge.CompareOp(a[0], zero.output, "gt")
        rhs = ge.CompareOp(a[1], zero.output, "lt")
        op = cls(lhs.output, rhs.output)
        return [zero, lhs, rhs, op, _cast(op)]
    return build


def draw_compare(draw: Draw, x: Value, pool):
    return (), {"predicate": draw(st.sampled_from(ge.CompareOp.PREDICATES)),
                "const": draw(broadcast_shape(x))}


def ge_compare(a, p):
    op = ge.CompareOp(a[0], a[1], p["predicate"])
    return [op, _cast(op)]


def ge_where(a, p):
    """where(x > 0, x, c * x): continuous, so any operand will do."""
    zero = _scalar(0.0)
    cond = ge.CompareOp(a[0], zero.output, "gt")
    other = ge.MulOp(a[0], a[1])
    return [zero, cond, other, ge.WhereOp(cond.output, a[0], other.output)]


CAST_TYPES = {"f16": (f16, torch.float16), "f64": (f64, torch.float64),
              "i32": (i32, torch.int32), "i1": (i1, torch.bool)}


def ge_cast(a, p):
    there = ge.CastOp(a[0], CAST_TYPES[p["to"]][0])
    return [there, _cast(there)]


def non_batch_dims(x: Value) -> list[int]:
    return [d for d in range(x.rank) if not (x.batch and d == 0)]


def has_static_dim(v: Value) -> bool:
    return bool(non_batch_dims(v))


def draw_dim(draw: Draw, x: Value, pool, negative: bool = True) -> int:
    dim = draw(st.sampled_from(non_batch_dims(x)))
    return dim - x.rank if negative and draw(st.booleans()) else dim


def draw_arg_reduce(draw: Draw, x: Value, pool):
    whole = x.rank > 0 and not x.batch and draw(st.integers(0, 3)) == 0
    return (), {"dim": None if whole else draw_dim(draw, x, pool),
                "keepdim": draw(st.booleans())}


def torch_arg_reduce(fn):
    def run(a, p):
        return fn(a[0], p["dim"], keepdim=p["keepdim"]).float()
    return run


def ge_reduce_any(a, p):
    zero = _scalar(0.0)
    cond = ge.CompareOp(a[0], zero.output, "gt")
    op = ge.ReduceAnyOp(cond.output, p["dims"], p["keepdim"])
    return [zero, cond, op, _cast(op)]


def torch_reduce_any(a, p):
    out = a[0] > 0
    for d in sorted(p["dims"], reverse=True):
        out = out.any(d, keepdim=p["keepdim"])
    return out.float()


def torch_reduce_prod(a, p):
    out = a[0]
    for d in sorted(p["dims"], reverse=True):
        out = out.prod(d, keepdim=p["keepdim"])
    return out


def ge_positions(a, p):
    """x + arange(size of x's last dim): a run-time size through ge.dim and ge.arange."""
    from xdsl.dialects.builtin import i64

    size = ge.DimOp(a[0], p["dim"])
    positions = ge.ArangeOp(size.output, i64)
    floats = _cast(positions)
    static = ge.ReshapeOp(floats.output, [p["size"]])
    return [size, positions, floats, static, ge.AddOp(a[0], static.output)]


def draw_positions(draw: Draw, x: Value, pool):
    return (), {"dim": x.rank - 1, "size": x.shape[-1]}


def draw_full_like(draw: Draw, x: Value, pool):
    return (), {"value": draw(st.sampled_from([0.0, 1.0, -2.5]))}


def draw_expand(draw: Draw, x: Value, pool):
    shape = [draw(st.integers(1, 3)) if d == 1 else d for d in x.shape]
    lead = [draw(st.integers(1, 2)) for _ in range(draw(st.integers(0, 1)))]
    return (), {"shape": tuple(lead + shape)}


def draw_slice(draw: Draw, x: Value, pool):
    dim = draw(st.sampled_from(non_batch_dims(x)))
    size = x.shape[dim]
    start = draw(st.integers(0, size - 1))
    end = draw(st.integers(start + 1, size))
    return (), {"dim": dim, "start": start, "end": end, "step": draw(st.integers(1, 2))}


def torch_slice(a, p):
    index = (slice(None),) * p["dim"] + (slice(p["start"], p["end"], p["step"]),)
    return a[0][index]


def draw_concat(draw: Draw, x: Value, pool: Sequence[Value]):
    dim = draw(st.sampled_from(non_batch_dims(x)))
    def joins(v: Value) -> bool:
        return (v.rank == x.rank and v.batch == x.batch and
                all(a == b for i, (a, b) in enumerate(zip(v.shape, x.shape)) if i != dim))
    partners = [i for i, v in enumerate(pool) if joins(v)]
    others = draw(st.lists(st.sampled_from(partners), min_size=1, max_size=2))
    return tuple(others), {"dim": dim}


def draw_index_dim(draw: Draw, x: Value, pool):
    dim = draw(st.sampled_from(non_batch_dims(x)))
    return dim, x.shape[dim]


def draw_gather(draw: Draw, x: Value, pool):
    dim, size = draw_index_dim(draw, x, pool)
    index = tuple(draw(st.lists(st.integers(1, 3), min_size=1, max_size=2)))
    return (), {"dim": dim, "index": index, "high": size}


def torch_take(a, p, dims: int = 1):
    return a[0][(slice(None),) * p["dim"] + tuple(a[1:1 + dims])]


def draw_index(draw: Draw, x: Value, pool):
    dims = non_batch_dims(x)
    start = draw(st.sampled_from(dims))
    count = 2 if start + 1 in dims and draw(st.booleans()) else 1
    return (), {"dim": start, "count": count, "length": draw(st.integers(1, 3)),
                "highs": x.shape[start:start + count]}


def index_consts(operands, p):
    return [Const((p["length"],), "index", high) for high in p["highs"]]


def draw_index_put(draw: Draw, x: Value, pool):
    dim, size = draw_index_dim(draw, x, pool)
    accumulate = draw(st.booleans())
    length = draw(st.integers(1, size if not accumulate else 3))
    return (), {"dim": dim, "length": length, "high": size, "accumulate": accumulate}


def index_put_consts(operands, p):
    x = operands[0]
    kind = "index" if p["accumulate"] else "unique"
    return [Const((p["length"],), kind, p["high"]), Const((p["length"],) + x.shape[p["dim"] + 1:])]


def draw_scatter(draw: Draw, x: Value, pool):
    dim, size = draw_index_dim(draw, x, pool)
    reduce = draw(st.sampled_from(ge.ScatterElementsOp.REDUCTIONS))
    shape = tuple(1 if x.batch and i == 0 else draw(st.integers(1, d))
                  for i, d in enumerate(x.shape))
    return (), {"dim": dim, "reduce": reduce, "include_self": draw(st.booleans()),
                "index": shape, "high": size}


def scatter_consts(operands, p):
    kind = "unique" if p["reduce"] == "none" else "index"
    return [Const(p["index"], kind, p["high"], p["dim"]), Const(p["index"])]


def torch_scatter(a, p):
    x, index, src = a[0], a[1], a[2]
    if p["reduce"] == "none":
        return x.scatter(p["dim"], index, src)
    return x.scatter_reduce(p["dim"], index, src, p["reduce"], include_self=p["include_self"])


def draw_gather_elements(draw: Draw, x: Value, pool):
    dim, size = draw_index_dim(draw, x, pool)
    shape = tuple(draw(st.integers(1, d)) for d in x.shape)
    return (), {"dim": dim, "index": shape, "high": size}


def draw_embedding(draw: Draw, x: Value, pool):
    shape = tuple(draw(st.lists(st.integers(1, 3), min_size=1, max_size=2)))
    return (), {"index": shape, "high": x.shape[0]}


def draw_topk(draw: Draw, x: Value, pool):
    dim = draw_dim(draw, x, pool)
    return (), {"dim": dim, "k": draw(st.integers(1, x.shape[dim])),
                "largest": draw(st.booleans())}


def draw_sort(draw: Draw, x: Value, pool):
    return (), {"dim": draw_dim(draw, x, pool), "descending": draw(st.booleans()),
                "stable": draw(st.booleans())}


def draw_scan(draw: Draw, x: Value, pool):
    return (), {"dim": draw_dim(draw, x, pool)}


def draw_window(draw: Draw, sizes: Sequence[int], max_kernel: int = 3):
    """kernel, stride, padding (at most half the kernel), dilation, for a window that fits."""
    n = len(sizes)
    kernel = tuple(draw(st.integers(1, max_kernel)) for _ in range(n))
    padding = tuple(draw(st.integers(0, k // 2)) for k in kernel)
    dilation = tuple(draw(st.integers(1, 2)) for _ in range(n))
    fitted, dilation = fit_window(sizes, kernel, padding, dilation)
    padding = tuple(p if k == f else 0 for p, k, f in zip(padding, kernel, fitted))
    stride = tuple(draw(st.integers(1, 2)) for _ in range(n))
    return fitted, stride, padding, dilation


def draw_conv1d(draw: Draw, x: Value, pool):
    channels = x.shape[1]
    groups = draw(st.sampled_from([g for g in range(1, channels + 1) if channels % g == 0]))
    kernel, stride, padding, dilation = draw_window(draw, x.shape[2:])
    return (), {"out": groups * draw(st.integers(1, 2)), "kernel": kernel, "stride": stride,
                "padding": padding, "dilation": dilation, "groups": groups,
                "bias": draw(st.booleans())}


def draw_conv_transpose2d(draw: Draw, x: Value, pool):
    channels = x.shape[1]
    groups = draw(st.sampled_from([g for g in range(1, channels + 1) if channels % g == 0]))
    kernel = pair(draw, 1, 3)
    stride, dilation = pair(draw, 1, 2), pair(draw, 1, 2)
    padding = tuple(draw(st.integers(0, d * (k - 1))) for k, d in zip(kernel, dilation))
    output_padding = tuple(draw(st.integers(0, max(s, d) - 1)) for s, d in zip(stride, dilation))
    return (), {"out": groups * draw(st.integers(1, 2)), "kernel": kernel, "stride": stride,
                "padding": padding, "output_padding": output_padding, "dilation": dilation,
                "groups": groups, "bias": draw(st.booleans())}


def conv_transpose2d_consts(operands, p):
    weight = Const((operands[0].shape[1], p["out"] // p["groups"], *p["kernel"]), "weight")
    return [weight, Const((p["out"],))] if p["bias"] else [weight]


# 3-D ops read an NCHW value as (N, 1, C, H, W): the channels are the depth.
def as_volume(x) -> ge.ReshapeOp:
    n, c, h, w = ge.shape_of(x)
    return ge.ReshapeOp(x, [n, 1, c, h, w])


def from_volume(op):
    n, c, d, h, w = ge.shape_of(op.results[0])
    return ge.ReshapeOp(op.results[0], [n, c * d, h, w])


def torch_volume(fn):
    def run(a, p):
        y = fn(a[0].unsqueeze(1), a[1:], p)
        return y.flatten(1, 2)
    return run


def draw_conv3d(draw: Draw, x: Value, pool):
    kernel, stride, padding, dilation = draw_window(draw, x.shape[1:], max_kernel=2)
    return (), {"out": draw(st.integers(1, 2)), "kernel": kernel, "stride": stride,
                "padding": padding, "dilation": dilation, "bias": draw(st.booleans())}


def conv3d_consts(operands, p):
    weight = Const((p["out"], 1, *p["kernel"]), "weight")
    return [weight, Const((p["out"],))] if p["bias"] else [weight]


def ge_conv3d(a, p):
    volume = as_volume(a[0])
    conv = ge.Conv3dOp(volume.output, a[1], a[2] if p["bias"] else None, p["stride"],
                       p["padding"], p["dilation"])
    return [volume, conv, from_volume(conv)]


def draw_pool3d(draw: Draw, x: Value, pool):
    kernel, stride, padding, dilation = draw_window(draw, x.shape[1:], max_kernel=2)
    # PyTorch's 3-D pools also want the kernel within the unpadded input
    kernel = tuple(min(k, s) for k, s in zip(kernel, x.shape[1:]))
    padding = tuple(min(p, k // 2) for p, k in zip(padding, kernel))
    return (), {"kernel": kernel, "stride": stride, "padding": padding, "dilation": dilation,
                "ceil_mode": draw(st.booleans()), "count_include_pad": draw(st.booleans())}


def ge_max_pool3d(a, p):
    volume = as_volume(a[0])
    op = ge.MaxPool3dOp(volume.output, p["kernel"], p["stride"], p["padding"], p["dilation"],
                        p["ceil_mode"])
    return [volume, op, from_volume(op)]


def ge_avg_pool3d(a, p):
    volume = as_volume(a[0])
    op = ge.AvgPool3dOp(volume.output, p["kernel"], p["stride"], p["padding"], p["ceil_mode"],
                        p["count_include_pad"])
    return [volume, op, from_volume(op)]


def draw_avg_pool2d(draw: Draw, x: Value, pool):
    kernel = pair(draw, 1, 3)
    padding = tuple(draw(st.integers(0, k // 2)) for k in kernel)
    kernel, _ = fit_window(x.shape[2:], kernel, padding, (1, 1))
    padding = tuple(min(p, k // 2) for p, k in zip(padding, kernel))
    return (), {"kernel": kernel, "stride": pair(draw, 1, 2), "padding": padding,
                "ceil_mode": draw(st.booleans()), "count_include_pad": draw(st.booleans())}


def draw_interpolate(draw: Draw, x: Value, pool):
    mode = draw(st.sampled_from(ge.InterpolateOp.MODES))
    size = (draw(st.integers(1, 2 * x.shape[2])), draw(st.integers(1, 2 * x.shape[3])))
    return (), {"mode": mode, "size": size,
                "align_corners": mode != "nearest" and draw(st.booleans())}


def draw_grid_sample(draw: Draw, x: Value, pool):
    return (), {"mode": draw(st.sampled_from(ge.GridSampleOp.MODES)),
                "padding_mode": draw(st.sampled_from(("zeros", "border", "reflection"))),
                "align_corners": draw(st.booleans()), "out": pair(draw, 1, 4)}


def draw_norm_shape(draw: Draw, x: Value, pool):
    dims = non_batch_dims(x)
    count = draw(st.integers(1, min(len(dims), 2)))
    return (), {"shape": x.shape[x.rank - count:], "affine": draw(st.booleans()),
                "eps": draw(st.sampled_from([1e-5, 1e-3, 0.1]))}


def norm_consts(operands, p, bias: bool = True):
    if not p["affine"]:
        return []
    return [Const(p["shape"], "scale")] + ([Const(p["shape"])] if bias else [])


def draw_group_norm(draw: Draw, x: Value, pool):
    channels, rest = x.shape[1], x.shape[0] * math.prod(x.shape[2:])
    # PyTorch refuses groups of a single element
    groups = draw(st.sampled_from([g for g in range(1, channels + 1)
                                   if channels % g == 0 and channels // g * rest > 1]))
    return (), {"groups": groups, "affine": draw(st.booleans()),
                "eps": draw(st.sampled_from([1e-5, 1e-3, 0.1])), "shape": (channels,)}


def draw_instance_norm(draw: Draw, x: Value, pool):
    return (), {"affine": draw(st.booleans()), "eps": draw(st.sampled_from([1e-5, 1e-3, 0.1])),
                "shape": (x.shape[1],)}


def draw_reverse(draw: Draw, x: Value, pool):
    dims = draw(st.lists(st.sampled_from(range(x.rank)), min_size=1, unique=True))
    return (), {"dims": tuple(sorted(dims))}


def draw_tile(draw: Draw, x: Value, pool):
    return (), {"multiples": tuple(1 if x.batch and i == 0 else draw(st.integers(1, 2))
                                   for i in range(x.rank))}


def draw_pad(draw: Draw, x: Value, pool):
    modes = ["constant"] + (["reflect", "replicate", "circular"] if x.rank in (3, 4) else [])
    mode = draw(st.sampled_from(modes))
    if mode == "constant":
        padded = non_batch_dims(x)
    else:  # PyTorch pads the last rank - 2 dims of a 3-D or 4-D input in these modes
        padded = list(range(2, x.rank))
    low, high = [0] * x.rank, [0] * x.rank
    for d in padded:
        most = x.shape[d] - 1 if mode == "reflect" else (x.shape[d] if mode == "circular" else 2)
        low[d], high[d] = draw(st.integers(0, min(2, most))), draw(st.integers(0, min(2, most)))
    return (), {"mode": mode, "low": tuple(low), "high": tuple(high),
                "value": draw(st.sampled_from([0.0, -1.5])), "padded": tuple(padded)}


def torch_pad(a, p):
    x = a[0]
    flat = []
    for d in reversed(range(min(p["padded"]), x.dim())):
        flat += [p["low"][d], p["high"][d]]
    if p["mode"] == "constant":
        return F.pad(x, flat, value=p["value"])
    return F.pad(x, flat, p["mode"])


def draw_polygamma(draw: Draw, x: Value, pool):
    return (), {"n": draw(st.integers(0, 3))}


def draw_elu(draw: Draw, x: Value, pool):
    return (), {"alpha": draw(st.sampled_from([1.0, 0.5])),
                "scale": draw(st.sampled_from([1.0, 1.0507])),
                "input_scale": draw(st.sampled_from([1.0, 2.0]))}


def static_rank4(v: Value) -> bool:
    return v.rank == 4 and not v.batch


TAIL: tuple[OpEntry, ...] = (
    *(OpEntry(name, any_value, no_params, no_consts, on_domain(cls, domain),
              (lambda fn, domain: lambda a, p: fn(torch_domain(a[0], domain)))(fn, domain))
      for name, cls, fn, domain in UNARY_ON_DOMAIN),
    *(OpEntry(name, exact, no_params, no_consts,
              (lambda cls: lambda a, p: cls(a[0]))(cls), (lambda fn: lambda a, p: fn(a[0]))(fn))
      for name, cls, fn in UNARY_STEPS),
    *(OpEntry(name, any_value, draw_const_operand, const_operand(kind),
              ge_binary_on_domain(cls, domain),
              (lambda fn, domain: lambda a, p: fn(torch_domain(a[0], domain), a[1]))(fn, domain))
      for name, cls, fn, domain, kind in BINARY_SPECIAL),
    *(OpEntry(name, exact, draw_const_operand, const_operand(kind),
              (lambda cls: lambda a, p: cls(a[0], a[1]))(cls),
              (lambda fn: lambda a, p: fn(a[0], a[1]))(fn))
      for name, cls, fn, kind in BINARY_STEPS),
    OpEntry("polygamma", any_value, draw_polygamma, no_consts, on_domain(ge.PolygammaOp, POSITIVE, n=0),
            lambda a, p: torch.polygamma(p["n"], torch_domain(a[0], POSITIVE))),
    OpEntry("leaky_relu", any_value,
            lambda draw, x, pool: ((), {"negative_slope": draw(st.sampled_from([0.01, 0.2, -0.5]))}),
            no_consts, lambda a, p: ge.LeakyReluOp(a[0], p["negative_slope"]),
            lambda a, p: F.leaky_relu(a[0], p["negative_slope"])),
    OpEntry("elu", any_value, draw_elu, no_consts,
            lambda a, p: ge.EluOp(a[0], p["alpha"], p["scale"], p["input_scale"]),
            lambda a, p: torch.ops.aten.elu(a[0], p["alpha"], p["scale"], p["input_scale"])),
    OpEntry("softplus", any_value,
            lambda draw, x, pool: ((), {"beta": draw(st.sampled_from([1.0, 2.0])),
                                        "threshold": draw(st.sampled_from([20.0, 1.0]))}),
            no_consts, lambda a, p: ge.SoftplusOp(a[0], p["beta"], p["threshold"]),
            lambda a, p: F.softplus(a[0], p["beta"], p["threshold"])),
    *(OpEntry(name, exact, draw_const_operand, const_operand("normal"), ge_logical(cls),
              (lambda fn: lambda a, p: fn(a[0] > 0, a[1] < 0).float())(fn))
      for name, cls, fn in LOGICAL),
    OpEntry("logical_not", exact, no_params, no_consts,
            lambda a, p: [z := _scalar(0.0), c := ge.CompareOp(a[0], z.output, "gt"),
                          n := ge.LogicalNotOp(c.output), _cast(n)],
            lambda a, p: torch.logical_not(a[0] > 0).float()),
    OpEntry("compare", exact, draw_compare, const_operand("normal"), ge_compare,
            lambda a, p: getattr(torch, p["predicate"])(a[0], a[1]).float()),
    OpEntry("isnan", exact, no_params, no_consts,
            lambda a, p: [log := ge.LogOp(a[0]), nan := ge.IsNanOp(log.output), _cast(nan)],
            lambda a, p: torch.isnan(torch.log(a[0])).float()),
    OpEntry("isinf", exact, no_params, no_consts,
            lambda a, p: [f := ge.FloorOp(a[0]), r := ge.ReciprocalOp(f.output),
                          inf := ge.IsInfOp(r.output), _cast(inf)],
            lambda a, p: torch.isinf(torch.reciprocal(torch.floor(a[0]))).float()),
    OpEntry("where", any_value, draw_const_operand, const_operand("scale"), ge_where,
            lambda a, p: torch.where(a[0] > 0, a[0], a[0] * a[1])),
    OpEntry("cast", exact, lambda draw, x, pool: ((), {"to": draw(st.sampled_from(
                sorted(CAST_TYPES)))}), no_consts, ge_cast,
            lambda a, p: a[0].to(CAST_TYPES[p["to"]][1]).float()),
    OpEntry("reduce_any", lambda v: exact(v) and reducible(v), draw_reduction, no_consts,
            ge_reduce_any, torch_reduce_any),
    OpEntry("reduce_prod", reducible, draw_reduction, no_consts,
            lambda a, p: ge.ReduceProdOp(a[0], p["dims"], p["keepdim"]), torch_reduce_prod),
    OpEntry("argmax", lambda v: exact(v) and has_static_dim(v), draw_arg_reduce, no_consts,
            lambda a, p: [op := ge.ArgMaxOp(a[0], p["dim"], p["keepdim"]), _cast(op)],
            torch_arg_reduce(torch.argmax)),
    OpEntry("argmin", lambda v: exact(v) and has_static_dim(v), draw_arg_reduce, no_consts,
            lambda a, p: [op := ge.ArgMinOp(a[0], p["dim"], p["keepdim"]), _cast(op)],
            torch_arg_reduce(torch.argmin)),
    OpEntry("max_pool2d_with_indices", lambda v: exact(v) and rank4(v), draw_max_pool2d,
            no_consts,
            lambda a, p: [op := ge.MaxPool2dWithIndicesOp(
                a[0], p["kernel"], p["stride"], p["padding"], p["dilation"], p["ceil_mode"]),
                ge.CastOp(op.indices, f32)],
            lambda a, p: F.max_pool2d(a[0], p["kernel"], p["stride"], p["padding"],
                                      p["dilation"], ceil_mode=p["ceil_mode"],
                                      return_indices=True)[1].float()),
    # ge.dim and ge.arange; their names for the kernel-table check below
    OpEntry("dim", lambda v: v.rank >= 1 and not (v.batch and v.rank == 1), draw_positions,
            no_consts, ge_positions,
            lambda a, p: a[0] + torch.arange(p["size"], dtype=torch.float32, device=a[0].device)),
    OpEntry("full_like", any_value, draw_full_like, no_consts,
            lambda a, p: ge.FullLikeOp(a[0], p["value"]),
            lambda a, p: torch.full_like(a[0], p["value"])),
    OpEntry("expand", lambda v: not v.batch, draw_expand, no_consts,
            lambda a, p: ge.ExpandOp(a[0], p["shape"]), lambda a, p: a[0].expand(p["shape"])),
    OpEntry("slice", has_static_dim, draw_slice, no_consts,
            lambda a, p: ge.SliceOp(a[0], p["dim"], p["start"], p["end"], p["step"]),
            torch_slice),
    OpEntry("concat", has_static_dim, draw_concat, no_consts,
            lambda a, p: ge.ConcatOp(a, p["dim"]), lambda a, p: torch.cat(a, p["dim"])),
    OpEntry("trans_data", rank4, no_params, no_consts,
            lambda a, p: [there := ge.TransDataOp(a[0], "NCHW", "NC1HWC0"),
                          ge.TransDataOp(there.output, "NC1HWC0", "NCHW",
                                         ge.shape_of(a[0])[1])],
            lambda a, p: a[0]),
    OpEntry("gather", has_static_dim, draw_gather,
            lambda operands, p: [Const(p["index"], "index", p["high"])],
            lambda a, p: ge.GatherOp(a[0], a[1], p["dim"]), torch_take),
    OpEntry("index", has_static_dim, draw_index, index_consts,
            lambda a, p: ge.IndexOp(a[0], a[1:], tuple(range(p["dim"], p["dim"] + p["count"]))),
            lambda a, p: torch_take(a, p, p["count"])),
    OpEntry("index_put", has_static_dim, draw_index_put, index_put_consts,
            lambda a, p: ge.IndexPutOp(a[0], a[2], [a[1]], [p["dim"]], p["accumulate"]),
            lambda a, p: torch.ops.aten.index_put(a[0], [None] * p["dim"] + [a[1]], a[2],
                                                  p["accumulate"])),
    OpEntry("scatter_elements", has_static_dim, draw_scatter, scatter_consts,
            lambda a, p: ge.ScatterElementsOp(a[0], a[1], a[2], p["dim"], p["reduce"],
                                              p["include_self"]), torch_scatter),
    OpEntry("gather_elements", lambda v: v.rank >= 1 and not v.batch, draw_gather_elements,
            lambda operands, p: [Const(p["index"], "index", p["high"])],
            lambda a, p: ge.GatherElementsOp(a[0], a[1], p["dim"]),
            lambda a, p: torch.gather(a[0], p["dim"], a[1])),
    OpEntry("embedding", lambda v: v.rank == 2 and not v.batch, draw_embedding,
            lambda operands, p: [Const(p["index"], "index", p["high"])],
            lambda a, p: ge.EmbeddingOp(a[0], a[1]), lambda a, p: F.embedding(a[1], a[0])),
    OpEntry("cumsum", has_static_dim, draw_scan, no_consts,
            lambda a, p: ge.CumsumOp(a[0], p["dim"]), lambda a, p: torch.cumsum(a[0], p["dim"])),
    OpEntry("cumprod", has_static_dim, draw_scan, no_consts,
            lambda a, p: ge.CumprodOp(a[0], p["dim"]),
            lambda a, p: torch.cumprod(a[0], p["dim"])),
    OpEntry("topk", has_static_dim, draw_topk, no_consts,
            lambda a, p: ge.TopKOp(a[0], p["k"], p["dim"], p["largest"], True),
            lambda a, p: torch.topk(a[0], p["k"], p["dim"], p["largest"], True).values),
    OpEntry("sort", has_static_dim, draw_sort, no_consts,
            lambda a, p: ge.SortOp(a[0], p["dim"], p["descending"], p["stable"]),
            lambda a, p: torch.sort(a[0], dim=p["dim"], descending=p["descending"],
                                    stable=p["stable"]).values),
    OpEntry("conv1d", lambda v: v.rank == 3 and v.shape[1] <= 6, draw_conv1d,
            lambda operands, p: conv2d_consts(operands, p),
            lambda a, p: ge.Conv1dOp(a[0], a[1], a[2] if p["bias"] else None, p["stride"],
                                     p["padding"], p["dilation"], p["groups"]),
            lambda a, p: F.conv1d(a[0], a[1], a[2] if p["bias"] else None, p["stride"],
                                  p["padding"], p["dilation"], p["groups"])),
    OpEntry("conv_transpose2d", rank4, draw_conv_transpose2d, conv_transpose2d_consts,
            lambda a, p: ge.ConvTranspose2dOp(a[0], a[1], a[2] if p["bias"] else None,
                                              p["stride"], p["padding"], p["output_padding"],
                                              p["dilation"], p["groups"]),
            lambda a, p: F.conv_transpose2d(a[0], a[1], a[2] if p["bias"] else None,
                                            p["stride"], p["padding"], p["output_padding"],
                                            p["groups"], p["dilation"])),
    OpEntry("conv3d", rank4, draw_conv3d, conv3d_consts, ge_conv3d,
            torch_volume(lambda x, w, p: F.conv3d(x, w[0], w[1] if p["bias"] else None,
                                                  p["stride"], p["padding"], p["dilation"]))),
    OpEntry("max_pool3d", rank4, draw_pool3d, no_consts, ge_max_pool3d,
            torch_volume(lambda x, w, p: F.max_pool3d(x, p["kernel"], p["stride"], p["padding"],
                                                      p["dilation"], ceil_mode=p["ceil_mode"]))),
    OpEntry("avg_pool3d", rank4, draw_pool3d, no_consts, ge_avg_pool3d,
            torch_volume(lambda x, w, p: F.avg_pool3d(
                x, p["kernel"], p["stride"], p["padding"], p["ceil_mode"],
                p["count_include_pad"]))),
    OpEntry("avg_pool2d", rank4, draw_avg_pool2d, no_consts,
            lambda a, p: ge.AvgPool2dOp(a[0], p["kernel"], p["stride"], p["padding"],
                                        p["ceil_mode"], p["count_include_pad"]),
            lambda a, p: F.avg_pool2d(a[0], p["kernel"], p["stride"], p["padding"],
                                      p["ceil_mode"], p["count_include_pad"])),
    OpEntry("adaptive_max_pool2d", lambda v: v.rank in (3, 4), draw_adaptive_avg_pool2d,
            no_consts, lambda a, p: ge.AdaptiveMaxPool2dOp(a[0], p["size"]),
            lambda a, p: F.adaptive_max_pool2d(a[0], p["size"])),
    OpEntry("interpolate", rank4, draw_interpolate, no_consts,
            lambda a, p: ge.InterpolateOp(a[0], p["mode"], p["size"],
                                          align_corners=p["align_corners"]),
            lambda a, p: F.interpolate(a[0], p["size"], mode=p["mode"],
                                       align_corners=p["align_corners"] if p["mode"] != "nearest"
                                       else None)),
    OpEntry("grid_sample", static_rank4, draw_grid_sample,
            lambda operands, p: [Const((operands[0].shape[0], *p["out"], 2), "unit")],
            lambda a, p: ge.GridSampleOp(a[0], a[1], p["mode"], p["padding_mode"],
                                         p["align_corners"]),
            lambda a, p: F.grid_sample(a[0], a[1], p["mode"], p["padding_mode"],
                                       p["align_corners"])),
    OpEntry("layer_norm", has_static_dim, draw_norm_shape, norm_consts,
            lambda a, p: ge.LayerNormOp(a[0], p["shape"], *(a[1:3] if p["affine"] else ()),
                                        epsilon=p["eps"]),
            lambda a, p: F.layer_norm(a[0], p["shape"], *(a[1:3] if p["affine"] else ()),
                                      eps=p["eps"])),
    OpEntry("rms_norm", has_static_dim, draw_norm_shape,
            lambda operands, p: norm_consts(operands, p, bias=False),
            lambda a, p: ge.RmsNormOp(a[0], p["shape"], a[1] if p["affine"] else None,
                                      epsilon=p["eps"]),
            lambda a, p: F.rms_norm(a[0], p["shape"], a[1] if p["affine"] else None,
                                    eps=p["eps"])),
    OpEntry("group_norm", lambda v: v.rank >= 2 and math.prod(v.shape) > 1, draw_group_norm, norm_consts,
            lambda a, p: ge.GroupNormOp(a[0], p["groups"], *(a[1:3] if p["affine"] else ()),
                                        epsilon=p["eps"]),
            lambda a, p: F.group_norm(a[0], p["groups"], *(a[1:3] if p["affine"] else ()),
                                      eps=p["eps"])),
    # PyTorch refuses to normalize a single element per channel
    OpEntry("instance_norm", lambda v: v.rank in (3, 4) and math.prod(v.shape[2:]) > 1,
            draw_instance_norm, norm_consts,
            lambda a, p: ge.InstanceNormOp(a[0], *(a[1:3] if p["affine"] else ()),
                                           epsilon=p["eps"]),
            lambda a, p: F.instance_norm(a[0], weight=a[1] if p["affine"] else None,
                                         bias=a[2] if p["affine"] else None, eps=p["eps"])),
    OpEntry("reverse", lambda v: v.rank >= 1, draw_reverse, no_consts,
            lambda a, p: ge.ReverseOp(a[0], p["dims"]), lambda a, p: torch.flip(a[0], p["dims"])),
    OpEntry("tile", lambda v: v.rank >= 1, draw_tile, no_consts,
            lambda a, p: ge.TileOp(a[0], p["multiples"]),
            lambda a, p: torch.tile(a[0], p["multiples"])),
    OpEntry("pad", has_static_dim, draw_pad, no_consts,
            lambda a, p: ge.PadOp(a[0], p["low"], p["high"], p["mode"], p["value"]), torch_pad),
)

# The core menu (and the motifs of graphs.py) is drawn four times as often as
# the long tail: the chains that real models are made of stay the bulk of
# every graph.
CORE_WEIGHT = 4
MENU: tuple[OpEntry, ...] = (
    tuple(OpEntry(e.name, e.accepts, e.draw, e.consts, e.ge, e.torch, CORE_WEIGHT * e.weight)
          for e in CORE) + TAIL)
ENTRIES = {entry.name: entry for entry in MENU}

# Kernel-table ops the menu leaves out, and why.
NOT_IN_MENU = {
    "custom": "runs a user's kernel, registered at run time (test_custom_ops.py)",
    "arange": "drawn inside the `dim` entry (x + arange(size of x's last dim))",
    "dynamic_slice": "not drawn yet: its bounds are run-time sizes; checked against eager "
                     "by OPT's decode step (test_hf_dynamic_cache.py)",
    "scatter_update": "writes a graph input in place, and fuzzed graphs are pure functions "
                      "(test_static_cache.py)",
    "assign": "writes a graph input in place, and fuzzed graphs are pure functions "
              "(test_static_cache.py)",
    "quantize": "int8 results; checked against torch's fake-quant ops (test_quantize.py)",
    "dequantize": "int8 operands; checked against torch's fake-quant ops (test_quantize.py)",
    "weight_quant_linear": "needs an int8 weight and its scales (test_weight_quant.py)",
    "quantized_conv2d": "int8 operands and scales, made by fold-quantized from QDQ "
                        "(test_int8_cube.py, fold-quantized.mlir)",
    "quantized_linear": "int8 operands and scales, made by fold-quantized from QDQ "
                        "(test_int8_cube.py, fold-quantized.mlir)",
}
