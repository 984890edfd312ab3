"""GE elementwise ops: one element of the result from the same element of
each operand (after broadcasting), plus where / cast / full_like.

The simple ones are one table line each, as MLIR's ODS declares ops:
(name, summary, types of the IR example, traits...). `define` makes the op
class from its line, with the summary and the IR example as its docstring,
named as before (`ge.relu` -> `ReluOp`) and kept as a module attribute. An
op with properties, its own verifier or builder is a class below the table's
bases. What the compiler knows about an op (ge_dialect/traits.py) sits in
its line or its class.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import (
    FloatAttr,
    Float64Type,
    IntegerAttr,
    I64,
    StringAttr,
    TensorType,
    f64,
    i1,
    i64,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    ParsePropInAttrDict,
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import OpTrait, Pure
from xdsl.utils.exceptions import VerifyException

from ge_dialect import patterns, shapes
from ge_dialect.op_base import (
    AnyTensor,
    Canonicalized,
    check_element_type,
    element_type,
    GEOp,
    shape_of,
    tensor_type,
)
from ge_dialect.shapes import Shape, ShapeError
from ge_dialect.traits import Activation, Elementwise, MixPrecision, PostOp


# --------------------------------------------------------------------------
# Elementwise


class UnaryElementwiseOp(GEOp):
    """`%y = ge.<op> %x : tensor<...>`: same type in and out."""

    T: ClassVar = VarConstraint("T", AnyTensor)
    input = operand_def(T)
    output = result_def(T)
    traits = traits_def(Pure(), Elementwise(1))
    assembly_format = "$input attr-dict `:` type($input)"

    def __init__(self, input: SSAValue, properties: dict[str, Attribute] | None = None):
        super().__init__(operands=[input], result_types=[input.type], properties=properties)


class BinaryElementwiseOp(GEOp):
    """`%z = ge.<op> %x, %y : tensor<A>, tensor<B> -> tensor<C>` with broadcasting."""

    lhs = operand_def(AnyTensor)
    rhs = operand_def(AnyTensor)
    output = result_def(AnyTensor)
    traits = traits_def(Pure(), Elementwise(2))
    assembly_format = (
        "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($output)")

    def __init__(self, lhs: SSAValue, rhs: SSAValue, element: Attribute | None = None,
                 properties: dict[str, Attribute] | None = None):
        shape = shapes.broadcast(shape_of(lhs), shape_of(rhs))
        result = TensorType(element or element_type(lhs.type), list(shape))
        super().__init__(operands=[lhs, rhs], result_types=[result], properties=properties)

    def infer_shape(self) -> Shape:
        return shapes.broadcast(shape_of(self.lhs), shape_of(self.rhs))


@irdl_op_definition
class LogicalNotOp(UnaryElementwiseOp):
    """Boolean not, on i1 tensors.

        %y = ge.logical_not %m : tensor<4x4xi1>
    """

    name = "ge.logical_not"

    def verify_element_types(self) -> None:
        check_element_type(self, self.input, element_type(self.input.type) == i1, "i1",
                           "input")


class GeluActivation(Activation):
    """GELU's post-op and in-place form follow its `approximate`."""

    def post_op(self, op: GeluOp) -> PostOp:
        approximate = op.approximate.data
        return PostOp("gelu", (), approximate,
                      "gelu_tanh" if approximate == "tanh" else "gelu_erf")

    def call_kwargs(self, op: GeluOp) -> dict:
        return {"approximate": op.approximate.data}


@irdl_op_definition
class GeluOp(UnaryElementwiseOp):
    """Gaussian error linear unit; `approximate` is "none" (erf) or "tanh".

        %y = ge.gelu %x {approximate = "tanh"} : tensor<2x8x64xf32>
    """

    name = "ge.gelu"
    traits = traits_def(GeluActivation("gelu_", (("gelu_erf", 0x31), ("gelu_tanh", 0x2B)), "gelu",
                                       after_linear=True, after_matmul=True))
    approximate = prop_def(StringAttr)
    irdl_options = (ParsePropInAttrDict(),)
    APPROXIMATIONS: ClassVar = ("none", "tanh")

    def __init__(self, input: SSAValue, approximate: str = "none"):
        super().__init__(input, {"approximate": StringAttr(approximate)})

    def infer_shape(self) -> Shape | None:
        if self.approximate.data not in self.APPROXIMATIONS:
            raise ShapeError(f"approximate must be one of {', '.join(self.APPROXIMATIONS)}, "
                             f"got '{self.approximate.data}'")
        return None


class ClampActivation(Activation):
    """A clamp is a ReLU6-like clip with both bounds, a ReLU with min 0 only,
    and has no post-op form otherwise."""

    def post_op(self, op: ClampOp) -> PostOp | None:
        low, high = op.bounds()
        if low is not None and high is not None:
            return PostOp("hardtanh", (low, high), "", "clip", low, high)
        return PostOp("relu", (), "", "relu") if low == 0.0 and high is None else None

    def call_kwargs(self, op: ClampOp) -> dict:
        low, high = op.bounds()
        return {"min": low, "max": high}


@irdl_op_definition
class ClampOp(UnaryElementwiseOp):
    """min(max(x, min), max); either bound may be absent. relu6 is clamp(0, 6).

        %y = ge.clamp %x {min = 0.0 : f64, max = 6.0 : f64} : tensor<1x32x8x8xf32>
    """

    name = "ge.clamp"
    traits = traits_def(MixPrecision("allow"),
                        ClampActivation("clamp_", (("clip", 0x2E), ("relu", 0x20))))
    min = opt_prop_def(FloatAttr[Float64Type])
    max = opt_prop_def(FloatAttr[Float64Type])
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, input: SSAValue, min: float | None = None, max: float | None = None):
        super().__init__(input, {k: FloatAttr(v, f64) for k, v in (("min", min), ("max", max))
                                 if v is not None})

    def bounds(self) -> tuple[float | None, float | None]:
        return tuple(None if a is None else a.value.data for a in (self.min, self.max))

    def infer_shape(self) -> Shape | None:
        if self.min is None and self.max is None:
            raise ShapeError("at least one of min and max must be given")
        if (self.min is not None and self.max is not None
                and self.min.value.data > self.max.value.data):
            raise ShapeError(f"min {self.min.value.data} is greater than max "
                             f"{self.max.value.data}")
        return None


@irdl_op_definition
class LeakyReluOp(UnaryElementwiseOp):
    """x if x > 0 else negative_slope * x.

        %y = ge.leaky_relu %x {negative_slope = 0.01 : f64} : tensor<2x8xf32>
    """

    name = "ge.leaky_relu"
    negative_slope = prop_def(FloatAttr[Float64Type])
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, input: SSAValue, negative_slope: float):
        super().__init__(input, {"negative_slope": FloatAttr(negative_slope, f64)})


@irdl_op_definition
class EluOp(UnaryElementwiseOp):
    """scale * (x if x > 0 else alpha * (exp(input_scale * x) - 1)); SELU and CELU
    are ELUs with particular constants.

        %y = ge.elu %x {alpha = 1.0 : f64, scale = 1.0 : f64, input_scale = 1.0 : f64}
             : tensor<2x8xf32>
    """

    name = "ge.elu"
    alpha = prop_def(FloatAttr[Float64Type])
    scale = prop_def(FloatAttr[Float64Type])
    input_scale = prop_def(FloatAttr[Float64Type])
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, input: SSAValue, alpha: float = 1.0, scale: float = 1.0,
                 input_scale: float = 1.0):
        super().__init__(input, {"alpha": FloatAttr(alpha, f64), "scale": FloatAttr(scale, f64),
                                 "input_scale": FloatAttr(input_scale, f64)})


@irdl_op_definition
class SoftplusOp(UnaryElementwiseOp):
    """log(1 + exp(beta * x)) / beta, and x itself where beta * x > threshold.

        %y = ge.softplus %x {beta = 1.0 : f64, threshold = 20.0 : f64} : tensor<2x8xf32>
    """

    name = "ge.softplus"
    beta = prop_def(FloatAttr[Float64Type])
    threshold = prop_def(FloatAttr[Float64Type])
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, input: SSAValue, beta: float = 1.0, threshold: float = 20.0):
        super().__init__(input, {"beta": FloatAttr(beta, f64),
                                 "threshold": FloatAttr(threshold, f64)})


class UnaryPredicateOp(GEOp):
    """`%m = ge.<test> %x : tensor<...> -> tensor<...xi1>`: a per-element test."""

    input = operand_def(AnyTensor)
    output = result_def(AnyTensor)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `->` type($output)"

    def __init__(self, input: SSAValue):
        super().__init__(operands=[input], result_types=[TensorType(i1, list(shape_of(input)))])

    def verify_element_types(self) -> None:
        check_element_type(self, self.output, element_type(self.output.type) == i1, "i1",
                           "result")

    def infer_shape(self) -> Shape:
        return shape_of(self.input)


class LogicalBinaryOp(BinaryElementwiseOp):
    """A broadcasting binary op on i1 tensors."""

    def verify_element_types(self) -> None:
        super().verify_element_types()
        check_element_type(self, self.output, element_type(self.output.type) == i1, "i1",
                           "result")


@irdl_op_definition
class CompareOp(BinaryElementwiseOp):
    """Broadcasting comparison giving an i1 tensor; `predicate` is one of
    eq, ne, lt, le, gt, ge (the ATen names).

        %m = ge.compare %x, %zero {predicate = "gt"} : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xi1>
    """

    name = "ge.compare"
    predicate = prop_def(StringAttr)
    irdl_options = (ParsePropInAttrDict(),)
    PREDICATES: ClassVar = ("eq", "ne", "lt", "le", "gt", "ge")

    def __init__(self, lhs: SSAValue, rhs: SSAValue, predicate: str):
        super().__init__(lhs, rhs, i1, {"predicate": StringAttr(predicate)})

    def verify_element_types(self) -> None:
        if element_type(self.lhs.type) != element_type(self.rhs.type):
            raise VerifyException(f"{self.name}: operands have different element types "
                                  f"{element_type(self.lhs.type)} and "
                                  f"{element_type(self.rhs.type)}")
        check_element_type(self, self.output, element_type(self.output.type) == i1, "i1",
                           "result")
        if self.predicate.data not in self.PREDICATES:
            raise VerifyException(f"{self.name}: predicate must be one of "
                                  f"{', '.join(self.PREDICATES)}, got '{self.predicate.data}'")


@irdl_op_definition
class WhereOp(GEOp):
    """Broadcasting select: cond ? x : y, with an i1 condition.

        %z = ge.where %m, %x, %ninf : tensor<1x1x4x4xi1>, tensor<2x4x4x4xf32>, tensor<f32>
             -> tensor<2x4x4x4xf32>
    """

    name = "ge.where"
    condition = operand_def(AnyTensor)
    lhs = operand_def(AnyTensor)
    rhs = operand_def(AnyTensor)
    output = result_def(AnyTensor)
    traits = traits_def(Pure())
    assembly_format = (
        "$condition `,` $lhs `,` $rhs attr-dict `:` type($condition) `,` type($lhs) `,` "
        "type($rhs) `->` type($output)")

    def __init__(self, condition: SSAValue, lhs: SSAValue, rhs: SSAValue):
        shape = shapes.broadcast(shapes.broadcast(shape_of(condition), shape_of(lhs)),
                                 shape_of(rhs))
        super().__init__(operands=[condition, lhs, rhs],
                         result_types=[tensor_type(lhs.type, shape)])

    def verify_element_types(self) -> None:
        check_element_type(self, self.condition, element_type(self.condition.type) == i1,
                           "i1", "condition")
        result = element_type(self.output.type)
        for v in (self.lhs, self.rhs):
            if element_type(v.type) != result:
                raise VerifyException(f"{self.name}: operand element type "
                                      f"{element_type(v.type)} differs from result element "
                                      f"type {result}")

    def infer_shape(self) -> Shape:
        return shapes.broadcast(shapes.broadcast(shape_of(self.condition),
                                                 shape_of(self.lhs)), shape_of(self.rhs))


@irdl_op_definition
class CastOp(GEOp):
    """Convert elements to the result's element type (torch `.to(dtype)`).

        %y = ge.cast %ids : tensor<2x8xi64> -> tensor<2x8xf32>
    """

    name = "ge.cast"
    input = operand_def(AnyTensor)
    output = result_def(AnyTensor)
    traits = traits_def(Pure(), Canonicalized())
    assembly_format = "$input attr-dict `:` type($input) `->` type($output)"

    def __init__(self, input: SSAValue, element: Attribute):
        super().__init__(operands=[input],
                         result_types=[TensorType(element, list(shape_of(input)))])

    def verify_element_types(self) -> None:
        return None  # any element type converts to any other

    def infer_shape(self) -> Shape:
        return shape_of(self.input)


@irdl_op_definition
class FullLikeOp(GEOp):
    """A tensor of the input's shape filled with `value`, in the result's element type.

    Static shapes import as a splat ge.const instead; this op is for dynamic ones.

        %z = ge.full_like %x {value = 0.0 : f64} : tensor<?x8xf32> -> tensor<?x8xf32>
    """

    name = "ge.full_like"
    input = operand_def(AnyTensor)
    output = result_def(AnyTensor)
    value = prop_def(FloatAttr[Float64Type])
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `->` type($output)"

    def __init__(self, input: SSAValue, value: float, element: Attribute | None = None):
        element = element or element_type(input.type)
        super().__init__(operands=[input], properties={"value": FloatAttr(value, f64)},
                         result_types=[TensorType(element, list(shape_of(input)))])

    def verify_element_types(self) -> None:
        return None  # only the input's shape is read

    def infer_shape(self) -> Shape:
        return shape_of(self.input)


# --------------------------------------------------------------------------
# Special functions: elementwise, computed by torch's kernels on the host


@irdl_op_definition
class PolygammaOp(UnaryElementwiseOp):
    """The n-th derivative of the digamma function.

        %y = ge.polygamma %x {n = 1 : i64} : tensor<2x8xf32>
    """

    name = "ge.polygamma"
    n = prop_def(IntegerAttr[I64])
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, input: SSAValue, n: int):
        super().__init__(input, {"n": IntegerAttr(n, i64)})

    def infer_shape(self) -> Shape | None:
        if self.n.value.data < 0:
            raise ShapeError(f"n must be >= 0, got {self.n.value.data}")
        return None


# --------------------------------------------------------------------------
# Simple elementwise ops, one line each: (name, summary, types of the IR
# example, traits...). A broadcasting binary op's summary says "Broadcasting".

X = "tensor<2x8xf32>"
XY = "tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>"
XY48 = "tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>"
XB = "tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>"  # broadcast
XS = "tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>"  # by a scalar
IS = "tensor<4x8xi64>, tensor<i64> -> tensor<4x8xi64>"

UNARY = [
    ("relu", "max(x, 0).", "tensor<1x64x56x56xf32>",
     MixPrecision("allow"), Activation("clamp_min_", (("relu", 0x20),), "relu", out="clamp_min",
                                       kwargs=(("min", 0),), after_linear=True)),
    ("sigmoid", "1 / (1 + exp(-x)).", X,
     Activation("sigmoid_", (("logistic", 0x29),), "sigmoid", out="sigmoid")),
    ("tanh", "Hyperbolic tangent.", X,
     Activation("tanh_", (("tanh", 0x21),), "tanh", out="tanh")),
    ("exp", "e ** x.", X),
    ("log", "Natural logarithm.", X),
    ("sqrt", "Square root.", X),
    ("rsqrt", "1 / sqrt(x).", X),
    ("neg", "-x.", X, MixPrecision("allow")),
    ("abs", "|x|.", X),
    ("erf", "The Gauss error function (exact GELU decomposes to it).", X),
    ("silu", "x * sigmoid(x) (a.k.a. swish).", "tensor<1x32x8x8xf32>",
     # core ATen writes it x * sigmoid(x)
     Activation("silu_", (("swish", 0x2C),), "swish", 1.0, decomposed=lambda x: patterns.Op(
         MulOp, x, patterns.Op(SigmoidOp, x), commutative=True))),
    ("hardswish", "x * relu6(x + 3) / 6 (MobileNetV3).", "tensor<1x16x8x8xf32>",
     # oneDNN's is s * clip(alpha * s + beta, 0, 1); core ATen writes it
     # x * clamp(x + 3, 0, 6) / 6 (clamp_min then clamp_max)
     Activation("hardswish_", (("hardswish", 0x34),), "hardswish", 1 / 6, 0.5,
                decomposed=lambda x: patterns.Op(DivOp, patterns.Op(MulOp, x, patterns.Op(
                    ClampOp, patterns.Maybe(patterns.Op(ClampOp, patterns.Op(
                        AddOp, x, patterns.Const())))), commutative=True), patterns.Const()))),
    ("hardsigmoid", "relu6(x + 3) / 6 (MobileNetV3 squeeze-excite gates).",
     "tensor<1x16x1x1xf32>",
     # oneDNN's is clip(alpha * s + beta, 0, 1)
     Activation("hardsigmoid_", (("hardsigmoid", 0x28),), "hardsigmoid", 1 / 6, 0.5)),
    ("sin", "Sine (rotary embeddings).", X),
    ("cos", "Cosine (rotary embeddings).", X),
    ("tan", "Tangent.", X),
    ("asin", "Arcsine.", X),
    ("acos", "Arccosine.", X),
    ("atan", "Arctangent.", X),
    ("sinh", "Hyperbolic sine.", X),
    ("cosh", "Hyperbolic cosine.", X),
    ("asinh", "Inverse hyperbolic sine.", X),
    ("acosh", "Inverse hyperbolic cosine.", X),
    ("atanh", "Inverse hyperbolic tangent.", X),
    ("log1p", "log(1 + x), exact near 0.", X),
    ("expm1", "exp(x) - 1, exact near 0.", X),
    ("log2", "Base-2 logarithm.", X),
    ("log10", "Base-10 logarithm.", X),
    ("exp2", "2 ** x.", X),
    ("reciprocal", "1 / x.", X),
    ("sign", "-1, 0 or 1 by the sign of x.", X),
    ("floor", "Round toward -inf.", X),
    ("ceil", "Round toward +inf.", X),
    ("round", "Round half to even (torch.round without decimals).", X),
    ("trunc", "Round toward zero.", X),
    ("erfc", "1 - erf(x), exact in the tails.", X),
    ("erfinv", "Inverse of the error function.", X),
    ("lgamma", "log |Gamma(x)|.", X),
    ("digamma", "d/dx log Gamma(x).", X),
    ("mish", "x * tanh(softplus(x)).", X),
    ("log_sigmoid", "log(sigmoid(x)), computed stably.", X),
    # special functions, computed by torch's kernels on the host
    ("i0", "Modified Bessel function of the first kind, order 0.", X),
    ("i0e", "Exponentially scaled I0: exp(-|x|) * i0(x).", X),
    ("i1", "Modified Bessel function of the first kind, order 1.", X),
    ("i1e", "Exponentially scaled I1: exp(-|x|) * i1(x).", X),
    ("ndtri", "Inverse of the standard normal CDF.", X),
    ("erfcx", "Scaled complementary error function exp(x^2) * erfc(x).", X),
    ("airy_ai", "Airy function Ai.", X),
    ("bessel_j0", "Bessel function of the first kind, order 0.", X),
    ("bessel_j1", "Bessel function of the first kind, order 1.", X),
    ("bessel_y0", "Bessel function of the second kind, order 0.", X),
    ("bessel_y1", "Bessel function of the second kind, order 1.", X),
    ("modified_bessel_i0", "Modified Bessel function I0.", X),
    ("modified_bessel_i1", "Modified Bessel function I1.", X),
    ("modified_bessel_k0", "Modified Bessel function K0.", X),
    ("modified_bessel_k1", "Modified Bessel function K1.", X),
    ("scaled_modified_bessel_k0", "exp(x) * K0(x).", X),
    ("scaled_modified_bessel_k1", "exp(x) * K1(x).", X),
    ("spherical_bessel_j0", "Spherical Bessel function j0.", X),
]

BINARY = [
    ("add", "Broadcasting x + y.",
     "tensor<1x64x56x56xf32>, tensor<64x1x1xf32> -> tensor<1x64x56x56xf32>",
     Canonicalized(), MixPrecision("allow")),
    ("mul", "Broadcasting x * y.", XB, Canonicalized(), MixPrecision("allow")),
    ("sub", "Broadcasting x - y.", XB, MixPrecision("allow")),
    ("div", "Broadcasting true division x / y.", XS),
    ("pow", "Broadcasting x ** y.", XS),
    ("maximum", "Broadcasting elementwise max(x, y).", XB, MixPrecision("allow")),
    ("minimum", "Broadcasting elementwise min(x, y).", XB, MixPrecision("allow")),
    ("atan2", "Broadcasting atan(x / y) in the right quadrant.", XY48),
    ("hypot", "Broadcasting sqrt(x ** 2 + y ** 2) without overflow.", XY48),
    ("copysign", "Broadcasting |x| with the sign of y.", XB),
    ("floor_div", "Broadcasting floor(x / y); on integers, integer division rounding to "
     "-inf (torch.div(rounding_mode=\"floor\"), GE's FloorDiv).", IS),
    ("trunc_div", "Broadcasting trunc(x / y); on integers, C-style integer division "
     "(torch.div(rounding_mode=\"trunc\"), GE's TruncateDiv).", IS),
    ("remainder", "Broadcasting x - floor(x / y) * y: the sign of y (Python's %, GE's FloorMod).",
     XS),
    ("fmod", "Broadcasting x - trunc(x / y) * y: the sign of x (C's fmod, GE's Mod).", XS),
    # special functions, computed by torch's kernels on the host
    ("zeta", "Hurwitz zeta function zeta(x, q).", XY),
    ("igamma", "Regularized lower incomplete gamma function P(a, x).", XY),
    ("igammac", "Regularized upper incomplete gamma function Q(a, x).", XY),
    ("nextafter", "The next representable value after x toward y.", XY),
    ("chebyshev_polynomial_t", "Chebyshev polynomial T_n(x).", XY),
    ("chebyshev_polynomial_u", "Chebyshev polynomial U_n(x).", XY),
    ("chebyshev_polynomial_v", "Chebyshev polynomial V_n(x).", XY),
    ("chebyshev_polynomial_w", "Chebyshev polynomial W_n(x).", XY),
    ("shifted_chebyshev_polynomial_t", "Shifted Chebyshev polynomial T*_n(x).", XY),
    ("shifted_chebyshev_polynomial_u", "Shifted Chebyshev polynomial U*_n(x).", XY),
    ("shifted_chebyshev_polynomial_v", "Shifted Chebyshev polynomial V*_n(x).", XY),
    ("shifted_chebyshev_polynomial_w", "Shifted Chebyshev polynomial W*_n(x).", XY),
    ("hermite_polynomial_h", "Physicists' Hermite polynomial H_n(x).", XY),
    ("hermite_polynomial_he", "Probabilists' Hermite polynomial He_n(x).", XY),
    ("laguerre_polynomial_l", "Laguerre polynomial L_n(x).", XY),
    ("legendre_polynomial_p", "Legendre polynomial P_n(x).", XY),
]

PREDICATES = [
    ("isnan", "True where x is NaN.", "tensor<2x8xf32> -> tensor<2x8xi1>"),
    ("isinf", "True where x is +inf or -inf.", "tensor<2x8xf32> -> tensor<2x8xi1>"),
]

LOGICAL = [
    ("logical_and", "Broadcasting boolean and, on i1 tensors.",
     "tensor<4x4xi1>, tensor<4x4xi1> -> tensor<4x4xi1>"),
    ("logical_or", "Broadcasting boolean or, on i1 tensors.",
     "tensor<4x4xi1>, tensor<4x4xi1> -> tensor<4x4xi1>"),
    ("logical_xor", "Broadcasting boolean exclusive or, on i1 tensors.",
     "tensor<4x4xi1>, tensor<4x4xi1> -> tensor<4x4xi1>"),
]

# torch spells these two without an underscore
CLASS_NAMES = {"isnan": "IsNanOp", "isinf": "IsInfOp"}
# The IR example of a line, by the op's base: name and types filled in.
EXAMPLES = {UnaryElementwiseOp: "%y = ge.{} %x : {}",
            UnaryPredicateOp: "%m = ge.{} %x : {}",
            BinaryElementwiseOp: "%z = ge.{} %x, %y : {}",
            LogicalBinaryOp: "%z = ge.{} %x, %y : {}"}


def define(base: type[GEOp], name: str, summary: str, types: str, *traits: OpTrait,
           ) -> type[GEOp]:
    """The op class of one table line (xDSL's irdl_op_definition on a class
    made with `type`), set as an attribute of this module."""
    class_name = CLASS_NAMES.get(name) or "".join(
        part[:1].upper() + part[1:] for part in name.split("_")) + "Op"
    doc = f"{summary}\n\n    {EXAMPLES[base].format(name, types)}\n"
    fields = {"name": f"ge.{name}", "__doc__": doc, "__module__": __name__,
              "__qualname__": class_name}
    if traits:
        fields["traits"] = traits_def(*traits)
    op = irdl_op_definition(type(class_name, (base,), fields))
    globals()[class_name] = op
    return op


OPS = [
    *(define(base, *row) for base, table in ((UnaryElementwiseOp, UNARY),
                                             (BinaryElementwiseOp, BINARY),
                                             (LogicalBinaryOp, LOGICAL),
                                             (UnaryPredicateOp, PREDICATES)) for row in table),
    LogicalNotOp, GeluOp, ClampOp, LeakyReluOp, EluOp, SoftplusOp, PolygammaOp, CompareOp,
    WhereOp, CastOp, FullLikeOp,
]
