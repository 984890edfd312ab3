"""The GE dialect: a PyTorch-level dataflow graph on builtin ranked tensors.

Ops are pure functions of their operands, named after their ATen
counterparts, with static parameters as properties. Each op infers its result
type (the builders use it) and its verifier checks the declared result type
against that inference, so a pass that builds a wrong shape is caught at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialect_interfaces.constant_materialization import (
    ConstantMaterializationInterface,
)
from xdsl.dialects.builtin import (
    AnyFloat,
    BoolAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    FloatAttr,
    Float64Type,
    IntegerAttr,
    IntegerType,
    I64,
    StringAttr,
    TensorType,
    UnitAttr,
    f64,
    i1,
    i32,
    i64,
)
from xdsl.interfaces import HasFolderInterface
from xdsl.ir import Attribute, Block, Dialect, Region, SSAValue
from xdsl.irdl import (
    AnyAttr,
    AttrSizedOperandSegments,
    IRDLOperation,
    ParamAttrConstraint,
    ParsePropInAttrDict,
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import (
    ConstantLike,
    HasCanonicalizationPatternsTrait,
    IsolatedFromAbove,
    IsTerminator,
    Pure,
)
from xdsl.utils.exceptions import VerifyException

from ge_dialect import shapes
from ge_dialect.shapes import Shape, ShapeError

AnyTensor = base(TensorType)
I64Array = DenseArrayBase.constr(i64)
F64Array = DenseArrayBase.constr(f64)


def i64_array(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, list(values))


def tensor_type(like: Attribute, shape: Sequence[int]) -> TensorType:
    """A tensor of `shape` with the element type of the tensor type `like`."""
    assert isinstance(like, TensorType)
    return TensorType(like.element_type, list(shape))


class Canonicalized(HasCanonicalizationPatternsTrait):
    """Gives `canonicalize` the rules of ge_dialect/canonicalization.py rooted at this op."""

    def get_patterns(self, op: type[IRDLOperation]):
        from ge_dialect.canonicalization import rules_for

        return rules_for(op)

    @classmethod
    def get_canonicalization_patterns(cls):
        from ge_dialect.canonicalization import RULES

        return RULES


def shape_of(value: SSAValue) -> Shape:
    assert isinstance(value.type, TensorType)
    return value.type.get_shape()


def element_type(t: Attribute) -> Attribute:
    assert isinstance(t, TensorType)
    return t.element_type


def is_integer(t: Attribute) -> bool:
    """An integer element type that is not a boolean (i1)."""
    return isinstance(t, IntegerType) and t.width.data > 1


def check_element_type(op: IRDLOperation, value: SSAValue, ok: bool, wanted: str,
                       what: str) -> None:
    """Raise the standard diagnostic when `value`'s element type is not `ok`."""
    if not ok:
        raise VerifyException(f"{op.name}: {what} must have {wanted} elements, got "
                              f"{element_type(value.type)}")


def check_size_operand(op: IRDLOperation, value: SSAValue, what: str) -> None:
    """A run-time size or bound: a one-element integer tensor."""
    t = value.type
    if not (is_integer(element_type(t)) and shapes.numel(shape_of(value)) == 1):
        raise VerifyException(f"{op.name}: {what} must be a 0-d integer tensor, got {t}")


class GEOp(IRDLOperation):
    """Base of shape-inferring GE ops.

    Subclasses implement `infer_shape()` from operand shapes and properties.
    The shared verifier checks that every float operand has the result's
    element type and that the declared result shape agrees with the inferred
    one (a dynamic `?` matches anything).
    """

    def infer_shape(self) -> Shape | None:
        return None

    def verify_element_types(self) -> None:
        """By default every operand has the result's element type; ops that mix
        types (compare, where, cast, embedding, ...) override this."""
        result = element_type(self.results[0].type)
        for operand in self.operands:
            if element_type(operand.type) != result:
                raise VerifyException(
                    f"{self.name}: operand element type {element_type(operand.type)} "
                    f"differs from result element type {result}")

    def verify_(self) -> None:
        result = self.results[0].type
        assert isinstance(result, TensorType)
        self.verify_element_types()
        try:
            inferred = self.infer_shape()
        except ShapeError as e:
            raise VerifyException(f"{self.name}: {e}") from e
        if inferred is not None and not shapes.compatible(inferred, result.get_shape()):
            raise VerifyException(
                f"{self.name}: result shape {shapes.fmt(result.get_shape())} does not "
                f"match the inferred shape {shapes.fmt(inferred)}")


class RuntimeSizes:
    """Ops whose result may have `?` dims given at run time by `sizes` operands:
    0-d integer tensors (from ge.dim and arithmetic on it), one per `?` of the
    result in order, or none at all (then each `?` follows from the input)."""

    def verify_element_types(self) -> None:
        if element_type(self.input.type) != element_type(self.output.type):
            raise VerifyException(
                f"{self.name}: operand element type {element_type(self.input.type)} "
                f"differs from result element type {element_type(self.output.type)}")
        dynamic = sum(shapes.is_dyn(d) for d in shape_of(self.output))
        if len(self.sizes) not in (0, dynamic):
            raise VerifyException(f"{self.name}: {len(self.sizes)} sizes given for "
                                  f"{dynamic} dynamic result dims")
        for size in self.sizes:
            check_size_operand(self, size, "each size")


# --------------------------------------------------------------------------
# Constants


@irdl_op_definition
class ConstOp(IRDLOperation, HasFolderInterface):
    """A constant tensor: weights, buffers and literals.

    Weights are stored as raw bytes and print as hex, which parses at
    memory speed (decimal lists are ~100x slower on large tensors).

        %w = ge.const dense<[1.0, 2.0]> : tensor<2xf32>
    """

    name = "ge.const"
    T: ClassVar = VarConstraint("T", AnyTensor)
    value = prop_def(ParamAttrConstraint(DenseIntOrFPElementsAttr, (T, AnyAttr())))
    output = result_def(T)
    traits = traits_def(Pure(), ConstantLike())
    assembly_format = "$value attr-dict"

    def __init__(self, value: DenseIntOrFPElementsAttr):
        super().__init__(properties={"value": value}, result_types=[value.type])

    def fold(self):
        return (self.value,)


# --------------------------------------------------------------------------
# Elementwise


class UnaryElementwiseOp(GEOp):
    """`%y = ge.<op> %x : tensor<...>`: same type in and out."""

    T: ClassVar = VarConstraint("T", AnyTensor)
    input = operand_def(T)
    output = result_def(T)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input)"

    def __init__(self, input: SSAValue, properties: dict[str, Attribute] | None = None):
        super().__init__(operands=[input], result_types=[input.type], properties=properties)


class BinaryElementwiseOp(GEOp):
    """`%z = ge.<op> %x, %y : tensor<A>, tensor<B> -> tensor<C>` with broadcasting."""

    lhs = operand_def(AnyTensor)
    rhs = operand_def(AnyTensor)
    output = result_def(AnyTensor)
    traits = traits_def(Pure())
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
class ReluOp(UnaryElementwiseOp):
    """max(x, 0).

        %y = ge.relu %x : tensor<1x64x56x56xf32>
    """

    name = "ge.relu"


@irdl_op_definition
class AddOp(BinaryElementwiseOp):
    """Broadcasting x + y.

        %z = ge.add %x, %b : tensor<1x64x56x56xf32>, tensor<64x1x1xf32> -> tensor<1x64x56x56xf32>
    """

    name = "ge.add"
    traits = traits_def(Pure(), Canonicalized())


@irdl_op_definition
class MulOp(BinaryElementwiseOp):
    """Broadcasting x * y.

        %z = ge.mul %x, %s : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
    """

    name = "ge.mul"
    traits = traits_def(Pure(), Canonicalized())


@irdl_op_definition
class SigmoidOp(UnaryElementwiseOp):
    """1 / (1 + exp(-x)).

        %y = ge.sigmoid %x : tensor<2x8xf32>
    """

    name = "ge.sigmoid"


@irdl_op_definition
class TanhOp(UnaryElementwiseOp):
    """Hyperbolic tangent.

        %y = ge.tanh %x : tensor<2x8xf32>
    """

    name = "ge.tanh"


@irdl_op_definition
class ExpOp(UnaryElementwiseOp):
    """e ** x.

        %y = ge.exp %x : tensor<2x8xf32>
    """

    name = "ge.exp"


@irdl_op_definition
class LogOp(UnaryElementwiseOp):
    """Natural logarithm.

        %y = ge.log %x : tensor<2x8xf32>
    """

    name = "ge.log"


@irdl_op_definition
class SqrtOp(UnaryElementwiseOp):
    """Square root.

        %y = ge.sqrt %x : tensor<2x8xf32>
    """

    name = "ge.sqrt"


@irdl_op_definition
class RsqrtOp(UnaryElementwiseOp):
    """1 / sqrt(x).

        %y = ge.rsqrt %x : tensor<2x8xf32>
    """

    name = "ge.rsqrt"


@irdl_op_definition
class NegOp(UnaryElementwiseOp):
    """-x.

        %y = ge.neg %x : tensor<2x8xf32>
    """

    name = "ge.neg"


@irdl_op_definition
class AbsOp(UnaryElementwiseOp):
    """|x|.

        %y = ge.abs %x : tensor<2x8xf32>
    """

    name = "ge.abs"


@irdl_op_definition
class ErfOp(UnaryElementwiseOp):
    """The Gauss error function (exact GELU decomposes to it).

        %y = ge.erf %x : tensor<2x8xf32>
    """

    name = "ge.erf"


@irdl_op_definition
class SiluOp(UnaryElementwiseOp):
    """x * sigmoid(x) (a.k.a. swish).

        %y = ge.silu %x : tensor<1x32x8x8xf32>
    """

    name = "ge.silu"


@irdl_op_definition
class HardswishOp(UnaryElementwiseOp):
    """x * relu6(x + 3) / 6 (MobileNetV3).

        %y = ge.hardswish %x : tensor<1x16x8x8xf32>
    """

    name = "ge.hardswish"


@irdl_op_definition
class HardsigmoidOp(UnaryElementwiseOp):
    """relu6(x + 3) / 6 (MobileNetV3 squeeze-excite gates).

        %y = ge.hardsigmoid %x : tensor<1x16x1x1xf32>
    """

    name = "ge.hardsigmoid"


@irdl_op_definition
class LogicalNotOp(UnaryElementwiseOp):
    """Boolean not, on i1 tensors.

        %y = ge.logical_not %m : tensor<4x4xi1>
    """

    name = "ge.logical_not"

    def verify_element_types(self) -> None:
        check_element_type(self, self.input, element_type(self.input.type) == i1, "i1",
                           "input")


@irdl_op_definition
class GeluOp(UnaryElementwiseOp):
    """Gaussian error linear unit; `approximate` is "none" (erf) or "tanh".

        %y = ge.gelu %x {approximate = "tanh"} : tensor<2x8x64xf32>
    """

    name = "ge.gelu"
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


@irdl_op_definition
class ClampOp(UnaryElementwiseOp):
    """min(max(x, min), max); either bound may be absent. relu6 is clamp(0, 6).

        %y = ge.clamp %x {min = 0.0 : f64, max = 6.0 : f64} : tensor<1x32x8x8xf32>
    """

    name = "ge.clamp"
    min = opt_prop_def(FloatAttr[Float64Type])
    max = opt_prop_def(FloatAttr[Float64Type])
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, input: SSAValue, min: float | None = None, max: float | None = None):
        super().__init__(input, {k: FloatAttr(v, f64) for k, v in (("min", min), ("max", max))
                                 if v is not None})

    def infer_shape(self) -> Shape | None:
        if self.min is None and self.max is None:
            raise ShapeError("at least one of min and max must be given")
        if (self.min is not None and self.max is not None
                and self.min.value.data > self.max.value.data):
            raise ShapeError(f"min {self.min.value.data} is greater than max "
                             f"{self.max.value.data}")
        return None


@irdl_op_definition
class SinOp(UnaryElementwiseOp):
    """Sine (rotary embeddings).

        %y = ge.sin %x : tensor<2x8xf32>
    """

    name = "ge.sin"


@irdl_op_definition
class CosOp(UnaryElementwiseOp):
    """Cosine (rotary embeddings).

        %y = ge.cos %x : tensor<2x8xf32>
    """

    name = "ge.cos"


@irdl_op_definition
class TanOp(UnaryElementwiseOp):
    """Tangent.

        %y = ge.tan %x : tensor<2x8xf32>
    """

    name = "ge.tan"


@irdl_op_definition
class AsinOp(UnaryElementwiseOp):
    """Arcsine.

        %y = ge.asin %x : tensor<2x8xf32>
    """

    name = "ge.asin"


@irdl_op_definition
class AcosOp(UnaryElementwiseOp):
    """Arccosine.

        %y = ge.acos %x : tensor<2x8xf32>
    """

    name = "ge.acos"


@irdl_op_definition
class AtanOp(UnaryElementwiseOp):
    """Arctangent.

        %y = ge.atan %x : tensor<2x8xf32>
    """

    name = "ge.atan"


@irdl_op_definition
class SinhOp(UnaryElementwiseOp):
    """Hyperbolic sine.

        %y = ge.sinh %x : tensor<2x8xf32>
    """

    name = "ge.sinh"


@irdl_op_definition
class CoshOp(UnaryElementwiseOp):
    """Hyperbolic cosine.

        %y = ge.cosh %x : tensor<2x8xf32>
    """

    name = "ge.cosh"


@irdl_op_definition
class AsinhOp(UnaryElementwiseOp):
    """Inverse hyperbolic sine.

        %y = ge.asinh %x : tensor<2x8xf32>
    """

    name = "ge.asinh"


@irdl_op_definition
class AcoshOp(UnaryElementwiseOp):
    """Inverse hyperbolic cosine.

        %y = ge.acosh %x : tensor<2x8xf32>
    """

    name = "ge.acosh"


@irdl_op_definition
class AtanhOp(UnaryElementwiseOp):
    """Inverse hyperbolic tangent.

        %y = ge.atanh %x : tensor<2x8xf32>
    """

    name = "ge.atanh"


@irdl_op_definition
class Log1pOp(UnaryElementwiseOp):
    """log(1 + x), exact near 0.

        %y = ge.log1p %x : tensor<2x8xf32>
    """

    name = "ge.log1p"


@irdl_op_definition
class Expm1Op(UnaryElementwiseOp):
    """exp(x) - 1, exact near 0.

        %y = ge.expm1 %x : tensor<2x8xf32>
    """

    name = "ge.expm1"


@irdl_op_definition
class Log2Op(UnaryElementwiseOp):
    """Base-2 logarithm.

        %y = ge.log2 %x : tensor<2x8xf32>
    """

    name = "ge.log2"


@irdl_op_definition
class Log10Op(UnaryElementwiseOp):
    """Base-10 logarithm.

        %y = ge.log10 %x : tensor<2x8xf32>
    """

    name = "ge.log10"


@irdl_op_definition
class Exp2Op(UnaryElementwiseOp):
    """2 ** x.

        %y = ge.exp2 %x : tensor<2x8xf32>
    """

    name = "ge.exp2"


@irdl_op_definition
class ReciprocalOp(UnaryElementwiseOp):
    """1 / x.

        %y = ge.reciprocal %x : tensor<2x8xf32>
    """

    name = "ge.reciprocal"


@irdl_op_definition
class SignOp(UnaryElementwiseOp):
    """-1, 0 or 1 by the sign of x.

        %y = ge.sign %x : tensor<2x8xf32>
    """

    name = "ge.sign"


@irdl_op_definition
class FloorOp(UnaryElementwiseOp):
    """Round toward -inf.

        %y = ge.floor %x : tensor<2x8xf32>
    """

    name = "ge.floor"


@irdl_op_definition
class CeilOp(UnaryElementwiseOp):
    """Round toward +inf.

        %y = ge.ceil %x : tensor<2x8xf32>
    """

    name = "ge.ceil"


@irdl_op_definition
class RoundOp(UnaryElementwiseOp):
    """Round half to even (torch.round without decimals).

        %y = ge.round %x : tensor<2x8xf32>
    """

    name = "ge.round"


@irdl_op_definition
class TruncOp(UnaryElementwiseOp):
    """Round toward zero.

        %y = ge.trunc %x : tensor<2x8xf32>
    """

    name = "ge.trunc"


@irdl_op_definition
class ErfcOp(UnaryElementwiseOp):
    """1 - erf(x), exact in the tails.

        %y = ge.erfc %x : tensor<2x8xf32>
    """

    name = "ge.erfc"


@irdl_op_definition
class ErfinvOp(UnaryElementwiseOp):
    """Inverse of the error function.

        %y = ge.erfinv %x : tensor<2x8xf32>
    """

    name = "ge.erfinv"


@irdl_op_definition
class LgammaOp(UnaryElementwiseOp):
    """log |Gamma(x)|.

        %y = ge.lgamma %x : tensor<2x8xf32>
    """

    name = "ge.lgamma"


@irdl_op_definition
class DigammaOp(UnaryElementwiseOp):
    """d/dx log Gamma(x).

        %y = ge.digamma %x : tensor<2x8xf32>
    """

    name = "ge.digamma"


@irdl_op_definition
class MishOp(UnaryElementwiseOp):
    """x * tanh(softplus(x)).

        %y = ge.mish %x : tensor<2x8xf32>
    """

    name = "ge.mish"


@irdl_op_definition
class LogSigmoidOp(UnaryElementwiseOp):
    """log(sigmoid(x)), computed stably.

        %y = ge.log_sigmoid %x : tensor<2x8xf32>
    """

    name = "ge.log_sigmoid"


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


@irdl_op_definition
class IsNanOp(UnaryPredicateOp):
    """True where x is NaN.

        %m = ge.isnan %x : tensor<2x8xf32> -> tensor<2x8xi1>
    """

    name = "ge.isnan"


@irdl_op_definition
class IsInfOp(UnaryPredicateOp):
    """True where x is +inf or -inf.

        %m = ge.isinf %x : tensor<2x8xf32> -> tensor<2x8xi1>
    """

    name = "ge.isinf"


@irdl_op_definition
class SubOp(BinaryElementwiseOp):
    """Broadcasting x - y.

        %z = ge.sub %x, %y : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
    """

    name = "ge.sub"


@irdl_op_definition
class DivOp(BinaryElementwiseOp):
    """Broadcasting true division x / y.

        %z = ge.div %x, %s : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
    """

    name = "ge.div"


@irdl_op_definition
class PowOp(BinaryElementwiseOp):
    """Broadcasting x ** y.

        %z = ge.pow %x, %two : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
    """

    name = "ge.pow"


@irdl_op_definition
class MaximumOp(BinaryElementwiseOp):
    """Broadcasting elementwise max(x, y).

        %z = ge.maximum %x, %y : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
    """

    name = "ge.maximum"


@irdl_op_definition
class MinimumOp(BinaryElementwiseOp):
    """Broadcasting elementwise min(x, y).

        %z = ge.minimum %x, %y : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
    """

    name = "ge.minimum"

@irdl_op_definition
class Atan2Op(BinaryElementwiseOp):
    """Broadcasting atan(x / y) in the right quadrant.

        %z = ge.atan2 %y, %x : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
    """

    name = "ge.atan2"


@irdl_op_definition
class HypotOp(BinaryElementwiseOp):
    """Broadcasting sqrt(x ** 2 + y ** 2) without overflow.

        %z = ge.hypot %x, %y : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
    """

    name = "ge.hypot"


@irdl_op_definition
class CopysignOp(BinaryElementwiseOp):
    """Broadcasting |x| with the sign of y.

        %z = ge.copysign %x, %y : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
    """

    name = "ge.copysign"


@irdl_op_definition
class FloorDivOp(BinaryElementwiseOp):
    """Broadcasting floor(x / y); on integers, integer division rounding to -inf
    (torch.div(rounding_mode="floor"), GE's FloorDiv).

        %z = ge.floor_div %x, %y : tensor<4x8xi64>, tensor<i64> -> tensor<4x8xi64>
    """

    name = "ge.floor_div"


@irdl_op_definition
class TruncDivOp(BinaryElementwiseOp):
    """Broadcasting trunc(x / y); on integers, C-style integer division
    (torch.div(rounding_mode="trunc"), GE's TruncateDiv).

        %z = ge.trunc_div %x, %y : tensor<4x8xi64>, tensor<i64> -> tensor<4x8xi64>
    """

    name = "ge.trunc_div"


@irdl_op_definition
class RemainderOp(BinaryElementwiseOp):
    """Broadcasting x - floor(x / y) * y: the sign of y (Python's %, GE's FloorMod).

        %z = ge.remainder %x, %y : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
    """

    name = "ge.remainder"


@irdl_op_definition
class FmodOp(BinaryElementwiseOp):
    """Broadcasting x - trunc(x / y) * y: the sign of x (C's fmod, GE's Mod).

        %z = ge.fmod %x, %y : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
    """

    name = "ge.fmod"

class LogicalBinaryOp(BinaryElementwiseOp):
    """A broadcasting binary op on i1 tensors."""

    def verify_element_types(self) -> None:
        super().verify_element_types()
        check_element_type(self, self.output, element_type(self.output.type) == i1, "i1",
                           "result")


@irdl_op_definition
class LogicalAndOp(LogicalBinaryOp):
    """Broadcasting boolean and, on i1 tensors.

        %z = ge.logical_and %a, %b : tensor<4x4xi1>, tensor<4x4xi1> -> tensor<4x4xi1>
    """

    name = "ge.logical_and"


@irdl_op_definition
class LogicalOrOp(LogicalBinaryOp):
    """Broadcasting boolean or, on i1 tensors.

        %z = ge.logical_or %a, %b : tensor<4x4xi1>, tensor<4x4xi1> -> tensor<4x4xi1>
    """

    name = "ge.logical_or"

@irdl_op_definition
class LogicalXorOp(LogicalBinaryOp):
    """Broadcasting boolean exclusive or, on i1 tensors.

        %z = ge.logical_xor %a, %b : tensor<4x4xi1>, tensor<4x4xi1> -> tensor<4x4xi1>
    """

    name = "ge.logical_xor"

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
class I0Op(UnaryElementwiseOp):
    """Modified Bessel function of the first kind, order 0.

        %y = ge.i0 %x : tensor<2x8xf32>
    """

    name = "ge.i0"

@irdl_op_definition
class I0eOp(UnaryElementwiseOp):
    """Exponentially scaled I0: exp(-|x|) * i0(x).

        %y = ge.i0e %x : tensor<2x8xf32>
    """

    name = "ge.i0e"

@irdl_op_definition
class I1Op(UnaryElementwiseOp):
    """Modified Bessel function of the first kind, order 1.

        %y = ge.i1 %x : tensor<2x8xf32>
    """

    name = "ge.i1"

@irdl_op_definition
class I1eOp(UnaryElementwiseOp):
    """Exponentially scaled I1: exp(-|x|) * i1(x).

        %y = ge.i1e %x : tensor<2x8xf32>
    """

    name = "ge.i1e"

@irdl_op_definition
class NdtriOp(UnaryElementwiseOp):
    """Inverse of the standard normal CDF.

        %y = ge.ndtri %x : tensor<2x8xf32>
    """

    name = "ge.ndtri"

@irdl_op_definition
class ErfcxOp(UnaryElementwiseOp):
    """Scaled complementary error function exp(x^2) * erfc(x).

        %y = ge.erfcx %x : tensor<2x8xf32>
    """

    name = "ge.erfcx"

@irdl_op_definition
class AiryAiOp(UnaryElementwiseOp):
    """Airy function Ai.

        %y = ge.airy_ai %x : tensor<2x8xf32>
    """

    name = "ge.airy_ai"

@irdl_op_definition
class BesselJ0Op(UnaryElementwiseOp):
    """Bessel function of the first kind, order 0.

        %y = ge.bessel_j0 %x : tensor<2x8xf32>
    """

    name = "ge.bessel_j0"

@irdl_op_definition
class BesselJ1Op(UnaryElementwiseOp):
    """Bessel function of the first kind, order 1.

        %y = ge.bessel_j1 %x : tensor<2x8xf32>
    """

    name = "ge.bessel_j1"

@irdl_op_definition
class BesselY0Op(UnaryElementwiseOp):
    """Bessel function of the second kind, order 0.

        %y = ge.bessel_y0 %x : tensor<2x8xf32>
    """

    name = "ge.bessel_y0"

@irdl_op_definition
class BesselY1Op(UnaryElementwiseOp):
    """Bessel function of the second kind, order 1.

        %y = ge.bessel_y1 %x : tensor<2x8xf32>
    """

    name = "ge.bessel_y1"

@irdl_op_definition
class ModifiedBesselI0Op(UnaryElementwiseOp):
    """Modified Bessel function I0.

        %y = ge.modified_bessel_i0 %x : tensor<2x8xf32>
    """

    name = "ge.modified_bessel_i0"

@irdl_op_definition
class ModifiedBesselI1Op(UnaryElementwiseOp):
    """Modified Bessel function I1.

        %y = ge.modified_bessel_i1 %x : tensor<2x8xf32>
    """

    name = "ge.modified_bessel_i1"

@irdl_op_definition
class ModifiedBesselK0Op(UnaryElementwiseOp):
    """Modified Bessel function K0.

        %y = ge.modified_bessel_k0 %x : tensor<2x8xf32>
    """

    name = "ge.modified_bessel_k0"

@irdl_op_definition
class ModifiedBesselK1Op(UnaryElementwiseOp):
    """Modified Bessel function K1.

        %y = ge.modified_bessel_k1 %x : tensor<2x8xf32>
    """

    name = "ge.modified_bessel_k1"

@irdl_op_definition
class ScaledModifiedBesselK0Op(UnaryElementwiseOp):
    """exp(x) * K0(x).

        %y = ge.scaled_modified_bessel_k0 %x : tensor<2x8xf32>
    """

    name = "ge.scaled_modified_bessel_k0"

@irdl_op_definition
class ScaledModifiedBesselK1Op(UnaryElementwiseOp):
    """exp(x) * K1(x).

        %y = ge.scaled_modified_bessel_k1 %x : tensor<2x8xf32>
    """

    name = "ge.scaled_modified_bessel_k1"

@irdl_op_definition
class SphericalBesselJ0Op(UnaryElementwiseOp):
    """Spherical Bessel function j0.

        %y = ge.spherical_bessel_j0 %x : tensor<2x8xf32>
    """

    name = "ge.spherical_bessel_j0"

@irdl_op_definition
class ZetaOp(BinaryElementwiseOp):
    """Hurwitz zeta function zeta(x, q).

        %z = ge.zeta %x, %n : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
    """

    name = "ge.zeta"

@irdl_op_definition
class IgammaOp(BinaryElementwiseOp):
    """Regularized lower incomplete gamma function P(a, x).

        %z = ge.igamma %x, %n : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
    """

    name = "ge.igamma"

@irdl_op_definition
class IgammacOp(BinaryElementwiseOp):
    """Regularized upper incomplete gamma function Q(a, x).

        %z = ge.igammac %x, %n : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
    """

    name = "ge.igammac"

@irdl_op_definition
class NextafterOp(BinaryElementwiseOp):
    """The next representable value after x toward y.

        %z = ge.nextafter %x, %n : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
    """

    name = "ge.nextafter"

@irdl_op_definition
class ChebyshevPolynomialTOp(BinaryElementwiseOp):
    """Chebyshev polynomial T_n(x).

        %z = ge.chebyshev_polynomial_t %x, %n : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
    """

    name = "ge.chebyshev_polynomial_t"

@irdl_op_definition
class ChebyshevPolynomialUOp(BinaryElementwiseOp):
    """Chebyshev polynomial U_n(x).

        %z = ge.chebyshev_polynomial_u %x, %n : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
    """

    name = "ge.chebyshev_polynomial_u"

@irdl_op_definition
class ChebyshevPolynomialVOp(BinaryElementwiseOp):
    """Chebyshev polynomial V_n(x).

        %z = ge.chebyshev_polynomial_v %x, %n : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
    """

    name = "ge.chebyshev_polynomial_v"

@irdl_op_definition
class ChebyshevPolynomialWOp(BinaryElementwiseOp):
    """Chebyshev polynomial W_n(x).

        %z = ge.chebyshev_polynomial_w %x, %n : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
    """

    name = "ge.chebyshev_polynomial_w"

@irdl_op_definition
class ShiftedChebyshevPolynomialTOp(BinaryElementwiseOp):
    """Shifted Chebyshev polynomial T*_n(x).

        %z = ge.shifted_chebyshev_polynomial_t %x, %n : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
    """

    name = "ge.shifted_chebyshev_polynomial_t"

@irdl_op_definition
class ShiftedChebyshevPolynomialUOp(BinaryElementwiseOp):
    """Shifted Chebyshev polynomial U*_n(x).

        %z = ge.shifted_chebyshev_polynomial_u %x, %n : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
    """

    name = "ge.shifted_chebyshev_polynomial_u"

@irdl_op_definition
class ShiftedChebyshevPolynomialVOp(BinaryElementwiseOp):
    """Shifted Chebyshev polynomial V*_n(x).

        %z = ge.shifted_chebyshev_polynomial_v %x, %n : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
    """

    name = "ge.shifted_chebyshev_polynomial_v"

@irdl_op_definition
class ShiftedChebyshevPolynomialWOp(BinaryElementwiseOp):
    """Shifted Chebyshev polynomial W*_n(x).

        %z = ge.shifted_chebyshev_polynomial_w %x, %n : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
    """

    name = "ge.shifted_chebyshev_polynomial_w"

@irdl_op_definition
class HermitePolynomialHOp(BinaryElementwiseOp):
    """Physicists' Hermite polynomial H_n(x).

        %z = ge.hermite_polynomial_h %x, %n : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
    """

    name = "ge.hermite_polynomial_h"

@irdl_op_definition
class HermitePolynomialHeOp(BinaryElementwiseOp):
    """Probabilists' Hermite polynomial He_n(x).

        %z = ge.hermite_polynomial_he %x, %n : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
    """

    name = "ge.hermite_polynomial_he"

@irdl_op_definition
class LaguerrePolynomialLOp(BinaryElementwiseOp):
    """Laguerre polynomial L_n(x).

        %z = ge.laguerre_polynomial_l %x, %n : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
    """

    name = "ge.laguerre_polynomial_l"

@irdl_op_definition
class LegendrePolynomialPOp(BinaryElementwiseOp):
    """Legendre polynomial P_n(x).

        %z = ge.legendre_polynomial_p %x, %n : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
    """

    name = "ge.legendre_polynomial_p"

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
# Convolution and normalisation


@irdl_op_definition
class Conv2dOp(GEOp):
    """2-D convolution, NCHW input, OIHW weight, optional per-channel bias.

        %y = ge.conv2d %x, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>,
               dilation = array<i64: 1, 1>, groups = 1 : i64}
             : tensor<1x3x224x224xf32>, tensor<64x3x3x3xf32>, tensor<64xf32> -> tensor<1x64x224x224xf32>
    """

    name = "ge.conv2d"
    input = operand_def(AnyTensor)
    weight = operand_def(AnyTensor)
    bias = opt_operand_def(AnyTensor)
    output = result_def(AnyTensor)
    stride = prop_def(I64Array)
    padding = prop_def(I64Array)
    dilation = prop_def(I64Array)
    groups = prop_def(IntegerAttr[I64])
    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())
    traits = traits_def(Pure())
    assembly_format = (
        "$input `,` $weight (`,` $bias^)? attr-dict `:` type($input) `,` type($weight) "
        "(`,` type($bias)^)? `->` type($output)")

    def __init__(self, input: SSAValue, weight: SSAValue, bias: SSAValue | None = None,
                 stride=(1, 1), padding=(0, 0), dilation=(1, 1), groups: int = 1):
        props = {"stride": i64_array(stride), "padding": i64_array(padding),
                 "dilation": i64_array(dilation), "groups": IntegerAttr(groups, i64)}
        shape = shapes.conv2d(shape_of(input), shape_of(weight), stride, padding,
                              dilation, groups)
        super().__init__(operands=[input, weight, [bias] if bias else []],
                         result_types=[tensor_type(input.type, shape)], properties=props)

    def infer_shape(self) -> Shape:
        for prop in ("stride", "padding", "dilation"):
            if len(getattr(self, prop)) != 2:
                raise ShapeError(f"{prop} must have 2 entries, got {len(getattr(self, prop))}")
        if self.groups.value.data < 1:
            raise ShapeError(f"groups must be >= 1, got {self.groups.value.data}")
        if self.bias is not None:
            oc = shape_of(self.weight)[0]
            if shape_of(self.bias) not in ((oc,), (shapes.DYN,)):
                raise ShapeError(f"bias must be a {oc}-element vector, got "
                                 f"{shapes.fmt(shape_of(self.bias))}")
        return shapes.conv2d(shape_of(self.input), shape_of(self.weight),
                             self.stride.get_values(), self.padding.get_values(),
                             self.dilation.get_values(), self.groups.value.data)


class ConvNdOp(GEOp):
    """`%y = ge.conv<N>d %x, %w (, %b)?`: N-D convolution, NC<spatial> input,
    OI<spatial> weight, optional bias. ge.conv2d is its own op: the layout
    passes and the host fast path know it."""

    input = operand_def(AnyTensor)
    weight = operand_def(AnyTensor)
    bias = opt_operand_def(AnyTensor)
    output = result_def(AnyTensor)
    stride = prop_def(I64Array)
    padding = prop_def(I64Array)
    dilation = prop_def(I64Array)
    groups = prop_def(IntegerAttr[I64])
    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())
    traits = traits_def(Pure())
    assembly_format = (
        "$input `,` $weight (`,` $bias^)? attr-dict `:` type($input) `,` type($weight) "
        "(`,` type($bias)^)? `->` type($output)")
    SPATIAL: ClassVar[int]

    def __init__(self, input: SSAValue, weight: SSAValue, bias: SSAValue | None,
                 stride: Sequence[int], padding: Sequence[int], dilation: Sequence[int],
                 groups: int = 1):
        props = {"stride": i64_array(stride), "padding": i64_array(padding),
                 "dilation": i64_array(dilation), "groups": IntegerAttr(groups, i64)}
        shape = shapes.conv_nd(shape_of(input), shape_of(weight), stride, padding, dilation,
                               groups)
        super().__init__(operands=[input, weight, [bias] if bias else []],
                         result_types=[tensor_type(input.type, shape)], properties=props)

    def infer_shape(self) -> Shape:
        w = shape_of(self.weight)
        if len(w) != self.SPATIAL + 2:
            raise ShapeError(f"the weight must be {self.SPATIAL + 2}-D, got {shapes.fmt(w)}")
        if self.bias is not None and not shapes.compatible(shape_of(self.bias), w[:1]):
            raise ShapeError(f"bias must be a {w[0]}-element vector, got "
                             f"{shapes.fmt(shape_of(self.bias))}")
        return shapes.conv_nd(shape_of(self.input), w, self.stride.get_values(),
                              self.padding.get_values(), self.dilation.get_values(),
                              self.groups.value.data)


@irdl_op_definition
class Conv1dOp(ConvNdOp):
    """1-D convolution over NCL (audio front ends, wav2vec2's feature encoder).

        %y = ge.conv1d %x, %w {stride = array<i64: 5>, padding = array<i64: 0>,
               dilation = array<i64: 1>, groups = 1 : i64}
             : tensor<1x1x800xf32>, tensor<16x1x10xf32> -> tensor<1x16x159xf32>
    """

    name = "ge.conv1d"
    SPATIAL: ClassVar = 1


@irdl_op_definition
class Conv3dOp(ConvNdOp):
    """3-D convolution over NCDHW (video, volumes).

        %y = ge.conv3d %x, %w {stride = array<i64: 1, 1, 1>, padding = array<i64: 0, 0, 0>,
               dilation = array<i64: 1, 1, 1>, groups = 1 : i64}
             : tensor<1x4x5x5x5xf32>, tensor<6x4x3x3x3xf32> -> tensor<1x6x3x3x3xf32>
    """

    name = "ge.conv3d"
    SPATIAL: ClassVar = 3


class NormOverGroupsOp(GEOp):
    """`%y = ge.<kind>_norm %x, %w, %b`: normalize over groups of channels and the
    spatial dims, then a per-channel affine (weight and bias optional, together)."""

    input = operand_def(AnyTensor)
    weight = opt_operand_def(AnyTensor)
    bias = opt_operand_def(AnyTensor)
    output = result_def(AnyTensor)
    epsilon = prop_def(FloatAttr[Float64Type])
    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())
    traits = traits_def(Pure())
    assembly_format = (
        "$input (`,` $weight^)? (`,` $bias^)? attr-dict `:` type($input) "
        "(`,` type($weight)^)? (`,` type($bias)^)? `->` type($output)")

    def infer_shape(self) -> Shape:
        x = shape_of(self.input)
        if len(x) < 2:
            raise ShapeError(f"input must have a channel dimension, got {shapes.fmt(x)}")
        if (self.weight is None) != (self.bias is None):
            raise ShapeError("weight and bias come together or not at all")
        for operand in (self.weight, self.bias):
            if operand is not None and not shapes.compatible(shape_of(operand), x[1:2]):
                raise ShapeError(f"weight and bias must have shape {shapes.fmt(x[1:2])}, got "
                                 f"{shapes.fmt(shape_of(operand))}")
        return x


@irdl_op_definition
class GroupNormOp(NormOverGroupsOp):
    """Group norm: statistics over each of `num_groups` channel groups and the
    spatial dims, per sample.

        %y = ge.group_norm %x, %w, %b {num_groups = 2 : i64, epsilon = 1.0e-05 : f64}
             : tensor<2x4x5x5xf32>, tensor<4xf32>, tensor<4xf32> -> tensor<2x4x5x5xf32>
    """

    name = "ge.group_norm"
    num_groups = prop_def(IntegerAttr[I64])

    def __init__(self, input: SSAValue, num_groups: int, weight: SSAValue | None = None,
                 bias: SSAValue | None = None, epsilon: float = 1e-5):
        super().__init__(operands=[input, [weight] if weight else [], [bias] if bias else []],
                         result_types=[input.type],
                         properties={"num_groups": IntegerAttr(num_groups, i64),
                                     "epsilon": FloatAttr(epsilon, f64)})

    def infer_shape(self) -> Shape:
        x = super().infer_shape()
        groups = self.num_groups.value.data
        if groups < 1 or (not shapes.is_dyn(x[1]) and x[1] % groups):
            raise ShapeError(f"{x[1]} channels do not split into {groups} groups")
        return x


@irdl_op_definition
class InstanceNormOp(NormOverGroupsOp):
    """Instance norm: statistics over the spatial dims of each channel of each
    sample (group norm with one channel per group, without running statistics).

        %y = ge.instance_norm %x {epsilon = 1.0e-05 : f64}
             : tensor<2x4x5x5xf32> -> tensor<2x4x5x5xf32>
    """

    name = "ge.instance_norm"

    def __init__(self, input: SSAValue, weight: SSAValue | None = None,
                 bias: SSAValue | None = None, epsilon: float = 1e-5):
        super().__init__(operands=[input, [weight] if weight else [], [bias] if bias else []],
                         result_types=[input.type], properties={"epsilon": FloatAttr(epsilon, f64)})


@irdl_op_definition
class RmsNormOp(GEOp):
    """x / sqrt(mean(x ** 2 over the trailing `normalized_shape` dims) + epsilon),
    times an optional weight (T5, Llama, Qwen, Mistral).

        %y = ge.rms_norm %x, %w {normalized_shape = array<i64: 64>, epsilon = 1.0e-06 : f64}
             : tensor<2x8x64xf32>, tensor<64xf32> -> tensor<2x8x64xf32>
    """

    name = "ge.rms_norm"
    input = operand_def(AnyTensor)
    weight = opt_operand_def(AnyTensor)
    output = result_def(AnyTensor)
    normalized_shape = prop_def(I64Array)
    epsilon = prop_def(FloatAttr[Float64Type])
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())
    assembly_format = ("$input (`,` $weight^)? attr-dict `:` type($input) (`,` type($weight)^)? "
                       "`->` type($output)")

    def __init__(self, input: SSAValue, normalized_shape: Sequence[int],
                 weight: SSAValue | None = None, epsilon: float = 1e-6):
        super().__init__(operands=[input, [weight] if weight else []],
                         result_types=[input.type],
                         properties={"normalized_shape": i64_array(normalized_shape),
                                     "epsilon": FloatAttr(epsilon, f64)})

    def infer_shape(self) -> Shape:
        x, norm = shape_of(self.input), self.normalized_shape.get_values()
        if not norm or not shapes.compatible(x[len(x) - len(norm):], norm):
            raise ShapeError(f"normalized_shape {shapes.fmt(norm)} must be the trailing "
                             f"dims of the input {shapes.fmt(x)}")
        if self.weight is not None and not shapes.compatible(shape_of(self.weight), norm):
            raise ShapeError(f"weight must have shape {shapes.fmt(norm)}, got "
                             f"{shapes.fmt(shape_of(self.weight))}")
        return x

@irdl_op_definition
class BatchNormOp(GEOp):
    """Inference batch norm over dim 1: (x - mean) / sqrt(var + epsilon) * weight + bias.

        %y = ge.batch_norm %x, %w, %b, %mean, %var {epsilon = 1.0e-05 : f64}
             : tensor<1x64x56x56xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>,
               tensor<64xf32> -> tensor<1x64x56x56xf32>
    """

    name = "ge.batch_norm"
    input = operand_def(AnyTensor)
    weight = operand_def(AnyTensor)
    bias = operand_def(AnyTensor)
    running_mean = operand_def(AnyTensor)
    running_var = operand_def(AnyTensor)
    output = result_def(AnyTensor)
    epsilon = prop_def(FloatAttr[Float64Type])
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())
    assembly_format = (
        "$input `,` $weight `,` $bias `,` $running_mean `,` $running_var attr-dict `:` "
        "type($input) `,` type($weight) `,` type($bias) `,` type($running_mean) `,` "
        "type($running_var) `->` type($output)")

    def __init__(self, input, weight, bias, running_mean, running_var, epsilon: float):
        super().__init__(operands=[input, weight, bias, running_mean, running_var],
                         result_types=[input.type],
                         properties={"epsilon": FloatAttr(epsilon, f64)})

    def infer_shape(self) -> Shape:
        x = shape_of(self.input)
        if len(x) < 2:
            raise ShapeError(f"input must have a channel dimension, got {shapes.fmt(x)}")
        for operand in (self.weight, self.bias, self.running_mean, self.running_var):
            if not shapes.compatible(shape_of(operand), (x[1],)):
                raise ShapeError(f"per-channel operands must have shape {shapes.fmt(x[1:2])}, "
                                 f"got {shapes.fmt(shape_of(operand))}")
        return x


@irdl_op_definition
class ConvTranspose2dOp(GEOp):
    """2-D transposed convolution, NCHW input, weight [in, out / groups, kh, kw].

        %y = ge.conv_transpose2d %x, %w, %b {stride = array<i64: 2, 2>, padding = array<i64: 0, 0>,
               output_padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64}
             : tensor<1x8x4x4xf32>, tensor<8x4x2x2xf32>, tensor<4xf32> -> tensor<1x4x8x8xf32>
    """

    name = "ge.conv_transpose2d"
    input = operand_def(AnyTensor)
    weight = operand_def(AnyTensor)
    bias = opt_operand_def(AnyTensor)
    output = result_def(AnyTensor)
    stride = prop_def(I64Array)
    padding = prop_def(I64Array)
    output_padding = prop_def(I64Array)
    dilation = prop_def(I64Array)
    groups = prop_def(IntegerAttr[I64])
    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())
    traits = traits_def(Pure())
    assembly_format = (
        "$input `,` $weight (`,` $bias^)? attr-dict `:` type($input) `,` type($weight) "
        "(`,` type($bias)^)? `->` type($output)")

    def __init__(self, input: SSAValue, weight: SSAValue, bias: SSAValue | None = None,
                 stride=(1, 1), padding=(0, 0), output_padding=(0, 0), dilation=(1, 1),
                 groups: int = 1):
        props = {"stride": i64_array(stride), "padding": i64_array(padding),
                 "output_padding": i64_array(output_padding),
                 "dilation": i64_array(dilation), "groups": IntegerAttr(groups, i64)}
        shape = shapes.conv_transpose2d(shape_of(input), shape_of(weight), stride, padding,
                                        output_padding, dilation, groups)
        super().__init__(operands=[input, weight, [bias] if bias else []],
                         result_types=[tensor_type(input.type, shape)], properties=props)

    def infer_shape(self) -> Shape:
        for prop in ("stride", "padding", "output_padding", "dilation"):
            if len(getattr(self, prop)) != 2:
                raise ShapeError(f"{prop} must have 2 entries, got {len(getattr(self, prop))}")
        groups = self.groups.value.data
        if groups < 1:
            raise ShapeError(f"groups must be >= 1, got {groups}")
        out = shapes.conv_transpose2d(
            shape_of(self.input), shape_of(self.weight), self.stride.get_values(),
            self.padding.get_values(), self.output_padding.get_values(),
            self.dilation.get_values(), groups)
        if self.bias is not None and not shapes.compatible(shape_of(self.bias), out[1:2]):
            raise ShapeError(f"bias must have shape {shapes.fmt(out[1:2])}, got "
                             f"{shapes.fmt(shape_of(self.bias))}")
        return out


@irdl_op_definition
class AvgPool2dOp(GEOp):
    """2-D average pooling over NCHW, PyTorch semantics.

        %y = ge.avg_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>,
               padding = array<i64: 0, 0>, ceil_mode = false, count_include_pad = true}
             : tensor<1x64x8x8xf32> -> tensor<1x64x4x4xf32>
    """

    name = "ge.avg_pool2d"
    input = operand_def(AnyTensor)
    output = result_def(AnyTensor)
    kernel_size = prop_def(I64Array)
    stride = prop_def(I64Array)
    padding = prop_def(I64Array)
    ceil_mode = prop_def(BoolAttr)
    count_include_pad = prop_def(BoolAttr)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `->` type($output)"

    def __init__(self, input: SSAValue, kernel_size, stride, padding=(0, 0),
                 ceil_mode: bool = False, count_include_pad: bool = True):
        props = {"kernel_size": i64_array(kernel_size), "stride": i64_array(stride),
                 "padding": i64_array(padding), "ceil_mode": BoolAttr(ceil_mode, i1),
                 "count_include_pad": BoolAttr(count_include_pad, i1)}
        shape = shapes.pool2d(shape_of(input), kernel_size, stride, padding, (1, 1), ceil_mode)
        super().__init__(operands=[input], result_types=[tensor_type(input.type, shape)],
                         properties=props)

    def infer_shape(self) -> Shape:
        for prop in ("kernel_size", "stride", "padding"):
            if len(getattr(self, prop)) != 2:
                raise ShapeError(f"{prop} must have 2 entries, got {len(getattr(self, prop))}")
        return shapes.pool2d(shape_of(self.input), self.kernel_size.get_values(),
                             self.stride.get_values(), self.padding.get_values(), (1, 1),
                             bool(self.ceil_mode.value.data))


@irdl_op_definition
class InterpolateOp(GEOp):
    """Resize H and W to `size`, or by `scale` (output = floor(input * scale)), with
    mode "nearest", "bilinear" or "bicubic" (A = -0.75), as
    torch.nn.functional.interpolate.

        %y = ge.interpolate %x {mode = "bilinear", align_corners = false, size = array<i64: 16, 16>}
             : tensor<1x8x8x8xf32> -> tensor<1x8x16x16xf32>
        %z = ge.interpolate %x {mode = "nearest", align_corners = false, scale = array<f64: 2.0, 2.0>}
             : tensor<1x8x8x8xf32> -> tensor<1x8x16x16xf32>
    """

    name = "ge.interpolate"
    input = operand_def(AnyTensor)
    output = result_def(AnyTensor)
    mode = prop_def(StringAttr)
    align_corners = prop_def(BoolAttr)
    size = opt_prop_def(I64Array)
    scale = opt_prop_def(F64Array)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `->` type($output)"
    MODES: ClassVar = ("nearest", "bilinear", "bicubic")

    def __init__(self, input: SSAValue, mode: str, size: Sequence[int] | None = None,
                 scale: Sequence[float] | None = None, align_corners: bool = False):
        props = {"mode": StringAttr(mode), "align_corners": BoolAttr(align_corners, i1)}
        if size is not None:
            props["size"] = i64_array(size)
        if scale is not None:
            props["scale"] = DenseArrayBase.from_list(f64, [float(s) for s in scale])
        shape = shapes.interpolate(shape_of(input), size, scale)
        super().__init__(operands=[input], result_types=[tensor_type(input.type, shape)],
                         properties=props)

    def infer_shape(self) -> Shape:
        if self.mode.data not in self.MODES:
            raise ShapeError(f"mode must be one of {', '.join(self.MODES)}, got "
                             f"'{self.mode.data}'")
        if self.align_corners.value.data and self.mode.data == "nearest":
            raise ShapeError("align_corners applies to bilinear and bicubic modes only")
        return shapes.interpolate(
            shape_of(self.input), self.size.get_values() if self.size else None,
            self.scale.get_values() if self.scale else None)


@irdl_op_definition
class GridSampleOp(GEOp):
    """Sample x at the normalized (x, y[, z]) positions of `grid`: spatial
    transformers, optical flow, deformable sampling (GE's GridSampler2D/3D).
    `mode` is bilinear, nearest or bicubic; `padding_mode` zeros, border or
    reflection.

        %y = ge.grid_sample %x, %grid {mode = "bilinear", padding_mode = "zeros",
               align_corners = false}
             : tensor<1x3x8x8xf32>, tensor<1x4x4x2xf32> -> tensor<1x3x4x4xf32>
    """

    name = "ge.grid_sample"
    input = operand_def(AnyTensor)
    grid = operand_def(AnyTensor)
    output = result_def(AnyTensor)
    mode = prop_def(StringAttr)
    padding_mode = prop_def(StringAttr)
    align_corners = prop_def(BoolAttr)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())
    assembly_format = ("$input `,` $grid attr-dict `:` type($input) `,` type($grid) `->` "
                       "type($output)")
    MODES: ClassVar = ("bilinear", "nearest", "bicubic")
    PADDING: ClassVar = ("zeros", "border", "reflection")

    def __init__(self, input: SSAValue, grid: SSAValue, mode: str, padding_mode: str,
                 align_corners: bool):
        x, g = shape_of(input), shape_of(grid)
        super().__init__(operands=[input, grid], result_types=[
            tensor_type(input.type, x[:2] + g[1:-1])], properties={
            "mode": StringAttr(mode), "padding_mode": StringAttr(padding_mode),
            "align_corners": BoolAttr(align_corners, i1)})

    def infer_shape(self) -> Shape:
        x, g = shape_of(self.input), shape_of(self.grid)
        if self.mode.data not in self.MODES or self.padding_mode.data not in self.PADDING:
            raise ShapeError(f"mode must be one of {', '.join(self.MODES)} and padding_mode "
                             f"one of {', '.join(self.PADDING)}")
        if len(x) not in (4, 5) or len(g) != len(x) or g[-1] not in (len(x) - 2, shapes.DYN):
            raise ShapeError(f"a {len(x)}-D input needs a grid [N, ..., {len(x) - 2}], got "
                             f"{shapes.fmt(g)}")
        if self.mode.data == "bicubic" and len(x) == 5:
            raise ShapeError("bicubic sampling is 2-D only")
        return x[:2] + g[1:-1]

@irdl_op_definition
class LayerNormOp(GEOp):
    """Normalize over the trailing `normalized_shape` dims, then scale by weight and
    shift by bias (both optional; a bias needs a weight).

        %y = ge.layer_norm %x, %w, %b {normalized_shape = array<i64: 64>, epsilon = 1.0e-05 : f64}
             : tensor<2x8x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<2x8x64xf32>
    """

    name = "ge.layer_norm"
    input = operand_def(AnyTensor)
    weight = opt_operand_def(AnyTensor)
    bias = opt_operand_def(AnyTensor)
    output = result_def(AnyTensor)
    normalized_shape = prop_def(I64Array)
    epsilon = prop_def(FloatAttr[Float64Type])
    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())
    traits = traits_def(Pure())
    assembly_format = (
        "$input (`,` $weight^)? (`,` $bias^)? attr-dict `:` type($input) "
        "(`,` type($weight)^)? (`,` type($bias)^)? `->` type($output)")

    def __init__(self, input: SSAValue, normalized_shape: Sequence[int],
                 weight: SSAValue | None = None, bias: SSAValue | None = None,
                 epsilon: float = 1e-5):
        super().__init__(operands=[input, [weight] if weight else [], [bias] if bias else []],
                         result_types=[input.type],
                         properties={"normalized_shape": i64_array(normalized_shape),
                                     "epsilon": FloatAttr(epsilon, f64)})

    def infer_shape(self) -> Shape:
        x, norm = shape_of(self.input), self.normalized_shape.get_values()
        if not norm or not shapes.compatible(x[len(x) - len(norm):], norm):
            raise ShapeError(f"normalized_shape {shapes.fmt(norm)} must be the trailing "
                             f"dims of the input {shapes.fmt(x)}")
        if self.bias is not None and self.weight is None:
            raise ShapeError("a bias needs a weight (pass ones)")
        for operand in (self.weight, self.bias):
            if operand is not None and not shapes.compatible(shape_of(operand), norm):
                raise ShapeError(f"weight and bias must have shape {shapes.fmt(norm)}, got "
                                 f"{shapes.fmt(shape_of(operand))}")
        return x


@irdl_op_definition
class SoftmaxOp(GEOp):
    """exp(x) / sum(exp(x)) along `dim`. With `safe`, a slice that is -inf
    throughout (attention with a query that may see no key) gives 0 where
    plain softmax gives NaN: the semantics of torch's scaled_dot_product_attention
    and `aten._safe_softmax`, which a plain `x.softmax(dim)` does not have.

        %y = ge.softmax %x {dim = -1 : i64} : tensor<2x4x8x8xf32>
        %p = ge.softmax %s {dim = -1 : i64, safe} : tensor<2x4x8x8xf32>
    """

    name = "ge.softmax"
    T: ClassVar = VarConstraint("T", AnyTensor)
    input = operand_def(T)
    output = result_def(T)
    dim = prop_def(IntegerAttr[I64])
    safe = opt_prop_def(UnitAttr)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input)"

    def __init__(self, input: SSAValue, dim: int, safe: bool = False):
        properties = {"dim": IntegerAttr(dim, i64)} | ({"safe": UnitAttr()} if safe else {})
        super().__init__(operands=[input], result_types=[input.type], properties=properties)

    def infer_shape(self) -> Shape:
        x = shape_of(self.input)
        shapes.normalize_dim(self.dim.value.data, len(x))
        return x


@irdl_op_definition
class LogSoftmaxOp(GEOp):
    """log(softmax(x)) along `dim`, computed stably (GE's LogSoftmaxV2).

        %y = ge.log_softmax %x {dim = -1 : i64} : tensor<2x10xf32>
    """

    name = "ge.log_softmax"
    T: ClassVar = VarConstraint("T", AnyTensor)
    input = operand_def(T)
    output = result_def(T)
    dim = prop_def(IntegerAttr[I64])
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input)"

    def __init__(self, input: SSAValue, dim: int):
        super().__init__(operands=[input], result_types=[input.type],
                         properties={"dim": IntegerAttr(dim, i64)})

    def infer_shape(self) -> Shape:
        x = shape_of(self.input)
        shapes.normalize_dim(self.dim.value.data, len(x))
        return x

@irdl_op_definition
class EmbeddingOp(GEOp):
    """Rows of a [num, dim] table picked by integer indices (torch.embedding).

        %y = ge.embedding %table, %ids : tensor<100x64xf32>, tensor<2x8xi64> -> tensor<2x8x64xf32>
    """

    name = "ge.embedding"
    weight = operand_def(AnyTensor)
    indices = operand_def(AnyTensor)
    output = result_def(AnyTensor)
    traits = traits_def(Pure())
    assembly_format = (
        "$weight `,` $indices attr-dict `:` type($weight) `,` type($indices) `->` "
        "type($output)")

    def __init__(self, weight: SSAValue, indices: SSAValue):
        shape = shape_of(indices) + shape_of(weight)[1:]
        super().__init__(operands=[weight, indices],
                         result_types=[tensor_type(weight.type, shape)])

    def verify_element_types(self) -> None:
        check_element_type(self, self.indices, is_integer(element_type(self.indices.type)),
                           "integer", "indices")
        if element_type(self.weight.type) != element_type(self.output.type):
            raise VerifyException(f"{self.name}: operand element type "
                                  f"{element_type(self.weight.type)} differs from result "
                                  f"element type {element_type(self.output.type)}")

    def infer_shape(self) -> Shape:
        w = shape_of(self.weight)
        if len(w) != 2:
            raise ShapeError(f"the table must be 2-D [num, dim], got {shapes.fmt(w)}")
        return shape_of(self.indices) + w[1:]


# --------------------------------------------------------------------------
# Pooling and shape ops


@irdl_op_definition
class MaxPool2dOp(GEOp):
    """2-D max pooling over NCHW, PyTorch semantics (padding is -inf).

        %y = ge.max_pool2d %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>,
               padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, ceil_mode = false}
             : tensor<1x64x112x112xf32> -> tensor<1x64x56x56xf32>
    """

    name = "ge.max_pool2d"
    input = operand_def(AnyTensor)
    output = result_def(AnyTensor)
    kernel_size = prop_def(I64Array)
    stride = prop_def(I64Array)
    padding = prop_def(I64Array)
    dilation = prop_def(I64Array)
    ceil_mode = prop_def(BoolAttr)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `->` type($output)"

    def __init__(self, input: SSAValue, kernel_size, stride, padding=(0, 0),
                 dilation=(1, 1), ceil_mode: bool = False):
        props = {"kernel_size": i64_array(kernel_size), "stride": i64_array(stride),
                 "padding": i64_array(padding), "dilation": i64_array(dilation),
                 "ceil_mode": BoolAttr(ceil_mode, i1)}
        shape = shapes.pool2d(shape_of(input), kernel_size, stride, padding, dilation, ceil_mode)
        super().__init__(operands=[input], result_types=[tensor_type(input.type, shape)],
                         properties=props)

    def infer_shape(self) -> Shape:
        for prop in ("kernel_size", "stride", "padding", "dilation"):
            if len(getattr(self, prop)) != 2:
                raise ShapeError(f"{prop} must have 2 entries, got {len(getattr(self, prop))}")
        return shapes.pool2d(shape_of(self.input), self.kernel_size.get_values(),
                             self.stride.get_values(), self.padding.get_values(),
                             self.dilation.get_values(), bool(self.ceil_mode.value.data))


@irdl_op_definition
class MaxPool2dWithIndicesOp(GEOp):
    """2-D max pooling that also gives, per output, the i64 index of its maximum in
    the flattened H x W plane (torch's return_indices, max_unpool's input).
    Imported only when the indices are read; else ge.max_pool2d.

        %y, %i = ge.max_pool2d_with_indices %x {kernel_size = array<i64: 2, 2>,
                   stride = array<i64: 2, 2>, padding = array<i64: 0, 0>,
                   dilation = array<i64: 1, 1>, ceil_mode = false}
                 : tensor<1x4x8x8xf32> -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xi64>)
    """

    name = "ge.max_pool2d_with_indices"
    input = operand_def(AnyTensor)
    output = result_def(AnyTensor)
    indices = result_def(AnyTensor)
    kernel_size = prop_def(I64Array)
    stride = prop_def(I64Array)
    padding = prop_def(I64Array)
    dilation = prop_def(I64Array)
    ceil_mode = prop_def(BoolAttr)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())
    assembly_format = ("$input attr-dict `:` type($input) `->` `(` type($output) `,` "
                       "type($indices) `)`")

    def __init__(self, input: SSAValue, kernel_size, stride, padding=(0, 0),
                 dilation=(1, 1), ceil_mode: bool = False):
        props = {"kernel_size": i64_array(kernel_size), "stride": i64_array(stride),
                 "padding": i64_array(padding), "dilation": i64_array(dilation),
                 "ceil_mode": BoolAttr(ceil_mode, i1)}
        shape = list(shapes.pool_nd(shape_of(input), kernel_size, stride, padding, dilation,
                                    ceil_mode))
        super().__init__(operands=[input], properties=props, result_types=[
            tensor_type(input.type, shape), TensorType(i64, shape)])

    def verify_element_types(self) -> None:
        if element_type(self.output.type) != element_type(self.input.type):
            raise VerifyException(f"{self.name}: values must have the input's element type")
        check_element_type(self, self.indices, element_type(self.indices.type) == i64, "i64",
                           "indices")
        if shape_of(self.indices) != shape_of(self.output):
            raise VerifyException(f"{self.name}: values and indices differ in shape")

    def infer_shape(self) -> Shape:
        if len(self.kernel_size) != 2:
            raise ShapeError(f"kernel_size must have 2 entries, got {len(self.kernel_size)}")
        return shapes.pool_nd(shape_of(self.input), self.kernel_size.get_values(),
                              self.stride.get_values(), self.padding.get_values(),
                              self.dilation.get_values(), bool(self.ceil_mode.value.data))

@irdl_op_definition
class MaxPool3dOp(GEOp):
    """3-D max pooling over NCDHW, PyTorch semantics (padding is -inf).

        %y = ge.max_pool3d %x {kernel_size = array<i64: 2, 2, 2>, stride = array<i64: 2, 2, 2>,
               padding = array<i64: 0, 0, 0>, dilation = array<i64: 1, 1, 1>, ceil_mode = false}
             : tensor<1x4x4x4x4xf32> -> tensor<1x4x2x2x2xf32>
    """

    name = "ge.max_pool3d"
    input = operand_def(AnyTensor)
    output = result_def(AnyTensor)
    kernel_size = prop_def(I64Array)
    stride = prop_def(I64Array)
    padding = prop_def(I64Array)
    dilation = prop_def(I64Array)
    ceil_mode = prop_def(BoolAttr)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `->` type($output)"

    def __init__(self, input: SSAValue, kernel_size, stride, padding, dilation,
                 ceil_mode: bool = False):
        props = {"kernel_size": i64_array(kernel_size), "stride": i64_array(stride),
                 "padding": i64_array(padding), "dilation": i64_array(dilation),
                 "ceil_mode": BoolAttr(ceil_mode, i1)}
        shape = shapes.pool_nd(shape_of(input), kernel_size, stride, padding, dilation,
                               ceil_mode)
        super().__init__(operands=[input], result_types=[tensor_type(input.type, shape)],
                         properties=props)

    def infer_shape(self) -> Shape:
        if len(self.kernel_size) != 3:
            raise ShapeError(f"kernel_size must have 3 entries, got {len(self.kernel_size)}")
        return shapes.pool_nd(shape_of(self.input), self.kernel_size.get_values(),
                              self.stride.get_values(), self.padding.get_values(),
                              self.dilation.get_values(), bool(self.ceil_mode.value.data))


@irdl_op_definition
class AvgPool3dOp(GEOp):
    """3-D average pooling over NCDHW, PyTorch semantics.

        %y = ge.avg_pool3d %x {kernel_size = array<i64: 2, 2, 2>, stride = array<i64: 2, 2, 2>,
               padding = array<i64: 0, 0, 0>, ceil_mode = false, count_include_pad = true}
             : tensor<1x4x4x4x4xf32> -> tensor<1x4x2x2x2xf32>
    """

    name = "ge.avg_pool3d"
    input = operand_def(AnyTensor)
    output = result_def(AnyTensor)
    kernel_size = prop_def(I64Array)
    stride = prop_def(I64Array)
    padding = prop_def(I64Array)
    ceil_mode = prop_def(BoolAttr)
    count_include_pad = prop_def(BoolAttr)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `->` type($output)"

    def __init__(self, input: SSAValue, kernel_size, stride, padding,
                 ceil_mode: bool = False, count_include_pad: bool = True):
        props = {"kernel_size": i64_array(kernel_size), "stride": i64_array(stride),
                 "padding": i64_array(padding), "ceil_mode": BoolAttr(ceil_mode, i1),
                 "count_include_pad": BoolAttr(count_include_pad, i1)}
        shape = shapes.pool_nd(shape_of(input), kernel_size, stride, padding, (1, 1, 1),
                               ceil_mode)
        super().__init__(operands=[input], result_types=[tensor_type(input.type, shape)],
                         properties=props)

    def infer_shape(self) -> Shape:
        if len(self.kernel_size) != 3:
            raise ShapeError(f"kernel_size must have 3 entries, got {len(self.kernel_size)}")
        return shapes.pool_nd(shape_of(self.input), self.kernel_size.get_values(),
                              self.stride.get_values(), self.padding.get_values(), (1, 1, 1),
                              bool(self.ceil_mode.value.data))

class AdaptivePool2dOp(GEOp):
    """`%y = ge.adaptive_<kind>_pool2d %x {output_size}`: pool to a fixed HxW of any size."""

    input = operand_def(AnyTensor)
    output = result_def(AnyTensor)
    output_size = prop_def(I64Array)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `->` type($output)"

    def __init__(self, input: SSAValue, output_size=(1, 1)):
        x = shape_of(input)
        shape = (x[:2] + tuple(output_size) + x[4:] if len(x) == 5
                 else x[:-2] + tuple(output_size))
        super().__init__(operands=[input], result_types=[tensor_type(input.type, shape)],
                         properties={"output_size": i64_array(output_size)})

    def infer_shape(self) -> Shape:
        x = shape_of(self.input)
        size = self.output_size.get_values()
        if len(x) not in (3, 4, 5) or len(size) != 2:
            raise ShapeError(f"expects a 3-D, 4-D or NC1HWC0 input and 2 output sizes, got "
                             f"{shapes.fmt(x)} and {len(size)} sizes")
        if any(s < 1 for s in size):
            raise ShapeError(f"output_size must be >= 1, got {shapes.fmt(size)}")
        if len(x) == 5:
            return x[:2] + tuple(size) + x[4:]
        return x[:-2] + tuple(size)


@irdl_op_definition
class AdaptiveAvgPool2dOp(AdaptivePool2dOp):
    """Adaptive average pooling to a fixed HxW; output_size 1x1 is global pooling.

        %y = ge.adaptive_avg_pool2d %x {output_size = array<i64: 1, 1>}
             : tensor<1x512x7x7xf32> -> tensor<1x512x1x1xf32>
    """

    name = "ge.adaptive_avg_pool2d"


@irdl_op_definition
class AdaptiveMaxPool2dOp(AdaptivePool2dOp):
    """Adaptive max pooling to a fixed HxW (the values; indices are not produced).

        %y = ge.adaptive_max_pool2d %x {output_size = array<i64: 3, 5>}
             : tensor<1x16x8x8xf32> -> tensor<1x16x3x5xf32>
    """

    name = "ge.adaptive_max_pool2d"


@irdl_op_definition
class FlattenOp(GEOp):
    """Merge dims start_dim..end_dim into one (torch.flatten).

        %y = ge.flatten %x {start_dim = 1 : i64, end_dim = -1 : i64}
             : tensor<1x512x1x1xf32> -> tensor<1x512xf32>
    """

    name = "ge.flatten"
    input = operand_def(AnyTensor)
    output = result_def(AnyTensor)
    start_dim = prop_def(IntegerAttr[I64])
    end_dim = prop_def(IntegerAttr[I64])
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure(), Canonicalized())
    assembly_format = "$input attr-dict `:` type($input) `->` type($output)"

    def __init__(self, input: SSAValue, start_dim: int = 1, end_dim: int = -1):
        shape = shapes.flatten(shape_of(input), start_dim, end_dim)
        super().__init__(operands=[input], result_types=[tensor_type(input.type, shape)],
                         properties={"start_dim": IntegerAttr(start_dim, i64),
                                     "end_dim": IntegerAttr(end_dim, i64)})

    def infer_shape(self) -> Shape:
        x = shape_of(self.input)
        for d in (self.start_dim.value.data, self.end_dim.value.data):
            if not -max(len(x), 1) <= d < max(len(x), 1):
                raise ShapeError(f"dimension {d} is out of range for rank {len(x)}")
        return shapes.flatten(x, self.start_dim.value.data, self.end_dim.value.data)


@irdl_op_definition
class ReshapeOp(RuntimeSizes, GEOp):
    """View the data under a new shape with the same element count (torch.reshape).
    A `?` result dim is given by a `sizes` operand, or, without them, inferred
    from the element count (at most one `?` then).

        %y = ge.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
        %z = ge.reshape %h sizes(%b, %t : tensor<i64>, tensor<i64>)
             : tensor<?x32xf32> -> tensor<?x?x4x8xf32>
    """

    name = "ge.reshape"
    input = operand_def(AnyTensor)
    sizes = var_operand_def(AnyTensor)
    output = result_def(AnyTensor)
    traits = traits_def(Pure(), Canonicalized())
    assembly_format = ("$input (`sizes` `(` $sizes^ `:` type($sizes) `)`)? attr-dict `:` "
                       "type($input) `->` type($output)")

    def __init__(self, input: SSAValue, shape: Sequence[int],
                 sizes: Sequence[SSAValue] = ()):
        super().__init__(operands=[input, list(sizes)],
                         result_types=[tensor_type(input.type, shape)])

    def infer_shape(self) -> Shape | None:
        a, b = shapes.numel(shape_of(self.input)), shapes.numel(shape_of(self.output))
        if a != b and not shapes.is_dyn(a) and not shapes.is_dyn(b):
            raise ShapeError(f"cannot reshape {a} elements into {b}")
        return None


@irdl_op_definition
class MatMulOp(GEOp):
    """Matrix product with torch.matmul semantics (batched, broadcasting).

        %y = ge.matmul %a, %b : tensor<8x16x32xf32>, tensor<32x64xf32> -> tensor<8x16x64xf32>
    """

    name = "ge.matmul"
    lhs = operand_def(AnyTensor)
    rhs = operand_def(AnyTensor)
    output = result_def(AnyTensor)
    traits = traits_def(Pure())
    assembly_format = (
        "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($output)")

    def __init__(self, lhs: SSAValue, rhs: SSAValue):
        shape = shapes.matmul(shape_of(lhs), shape_of(rhs))
        super().__init__(operands=[lhs, rhs], result_types=[tensor_type(lhs.type, shape)])

    def infer_shape(self) -> Shape:
        return shapes.matmul(shape_of(self.lhs), shape_of(self.rhs))


@irdl_op_definition
class LinearOp(GEOp):
    """Fully connected layer: x @ weight^T + bias, weight is [out, in] (torch.nn.Linear).

        %y = ge.linear %x, %w, %b : tensor<1x512xf32>, tensor<10x512xf32>, tensor<10xf32>
             -> tensor<1x10xf32>
    """

    name = "ge.linear"
    input = operand_def(AnyTensor)
    weight = operand_def(AnyTensor)
    bias = opt_operand_def(AnyTensor)
    output = result_def(AnyTensor)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(Pure())
    assembly_format = (
        "$input `,` $weight (`,` $bias^)? attr-dict `:` type($input) `,` type($weight) "
        "(`,` type($bias)^)? `->` type($output)")

    def __init__(self, input: SSAValue, weight: SSAValue, bias: SSAValue | None = None):
        shape = shapes.linear(shape_of(input), shape_of(weight))
        super().__init__(operands=[input, weight, [bias] if bias else []],
                         result_types=[tensor_type(input.type, shape)])

    def infer_shape(self) -> Shape:
        if self.bias is not None and not shapes.compatible(
                shape_of(self.bias), shape_of(self.weight)[:1]):
            raise ShapeError(f"bias must have shape {shapes.fmt(shape_of(self.weight)[:1])}, "
                             f"got {shapes.fmt(shape_of(self.bias))}")
        return shapes.linear(shape_of(self.input), shape_of(self.weight))


@irdl_op_definition
class TransposeOp(GEOp):
    """Permute dimensions: result dim i is input dim permutation[i] (torch.permute).

        %y = ge.transpose %x {permutation = array<i64: 0, 2, 1, 3>}
             : tensor<2x8x4x16xf32> -> tensor<2x4x8x16xf32>
    """

    name = "ge.transpose"
    input = operand_def(AnyTensor)
    output = result_def(AnyTensor)
    permutation = prop_def(I64Array)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure(), Canonicalized())
    assembly_format = "$input attr-dict `:` type($input) `->` type($output)"

    def __init__(self, input: SSAValue, permutation: Sequence[int]):
        shape = shapes.permute(shape_of(input), permutation)
        super().__init__(operands=[input], result_types=[tensor_type(input.type, shape)],
                         properties={"permutation": i64_array(permutation)})

    def infer_shape(self) -> Shape:
        return shapes.permute(shape_of(self.input), self.permutation.get_values())


@irdl_op_definition
class ExpandOp(RuntimeSizes, GEOp):
    """Broadcast to the result shape (torch.expand): size-1 dims stretch and new
    leading dims appear. A `?` result dim is given by a `sizes` operand, or,
    without them, keeps the input's size.

        %y = ge.expand %x : tensor<1x1x4x4xf32> -> tensor<2x8x4x4xf32>
        %z = ge.expand %m sizes(%t : tensor<i64>) : tensor<1x1xi1> -> tensor<4x?xi1>
    """

    name = "ge.expand"
    input = operand_def(AnyTensor)
    sizes = var_operand_def(AnyTensor)
    output = result_def(AnyTensor)
    traits = traits_def(Pure())
    assembly_format = ("$input (`sizes` `(` $sizes^ `:` type($sizes) `)`)? attr-dict `:` "
                       "type($input) `->` type($output)")

    def __init__(self, input: SSAValue, shape: Sequence[int],
                 sizes: Sequence[SSAValue] = ()):
        super().__init__(operands=[input, list(sizes)],
                         result_types=[tensor_type(input.type, shape)])

    def infer_shape(self) -> Shape:
        return shapes.expand(shape_of(self.input), shape_of(self.output))


@irdl_op_definition
class SliceOp(GEOp):
    """x[start:end:step] along `dim`, with Python's rules: negative indices count
    from the end and out-of-range bounds are clamped. An optional `end_value`
    operand (a 0-d integer tensor) bounds the end at run time too.

        %y = ge.slice %x {dim = 1 : i64, start = 0 : i64, end = 3 : i64, step = 1 : i64}
             : tensor<2x8xf32> -> tensor<2x3xf32>
        %p = ge.slice %pos end(%t : tensor<i64>) {dim = 0 : i64, start = 0 : i64,
               end = 9223372036854775807 : i64, step = 1 : i64} : tensor<32x8xf32> -> tensor<?x8xf32>
    """

    name = "ge.slice"
    input = operand_def(AnyTensor)
    end_value = opt_operand_def(AnyTensor)
    output = result_def(AnyTensor)
    dim = prop_def(IntegerAttr[I64])
    start = prop_def(IntegerAttr[I64])
    end = prop_def(IntegerAttr[I64])
    step = prop_def(IntegerAttr[I64])
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure(), Canonicalized())
    assembly_format = ("$input (`end` `(` $end_value^ `:` type($end_value) `)`)? attr-dict "
                       "`:` type($input) `->` type($output)")

    def __init__(self, input: SSAValue, dim: int, start: int, end: int, step: int = 1,
                 end_value: SSAValue | None = None):
        x = shape_of(input)
        d = shapes.normalize_dim(dim, len(x))
        size = shapes.DYN if end_value else shapes.slice_len(x[d], start, end, step)
        shape = x[:d] + (size,) + x[d + 1:]
        super().__init__(operands=[input, [end_value] if end_value else []],
                         result_types=[tensor_type(input.type, shape)],
                         properties={k: IntegerAttr(v, i64) for k, v in
                                     (("dim", dim), ("start", start), ("end", end),
                                      ("step", step))})

    def verify_element_types(self) -> None:
        if element_type(self.input.type) != element_type(self.output.type):
            raise VerifyException(
                f"{self.name}: operand element type {element_type(self.input.type)} "
                f"differs from result element type {element_type(self.output.type)}")
        if self.end_value is not None:
            check_size_operand(self, self.end_value, "end")

    def infer_shape(self) -> Shape:
        x = shape_of(self.input)
        d = shapes.normalize_dim(self.dim.value.data, len(x))
        size = shapes.slice_len(x[d], self.start.value.data, self.end.value.data,
                                self.step.value.data)
        return x[:d] + (shapes.DYN if self.end_value is not None else size,) + x[d + 1:]


@irdl_op_definition
class DimOp(GEOp):
    """The size of dimension `dim` as a 0-d i64 tensor, for sizes known only at run time.

        %t = ge.dim %ids {dim = 1 : i64} : tensor<?x?xi64> -> tensor<i64>
    """

    name = "ge.dim"
    input = operand_def(AnyTensor)
    output = result_def(AnyTensor)
    dim = prop_def(IntegerAttr[I64])
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `->` type($output)"

    def __init__(self, input: SSAValue, dim: int):
        super().__init__(operands=[input], result_types=[TensorType(i64, [])],
                         properties={"dim": IntegerAttr(dim, i64)})

    def verify_element_types(self) -> None:
        check_element_type(self, self.output, element_type(self.output.type) == i64, "i64",
                           "result")

    def infer_shape(self) -> Shape:
        shapes.normalize_dim(self.dim.value.data, len(shape_of(self.input)))
        return ()


@irdl_op_definition
class ArangeOp(GEOp):
    """start, start + step, ... below `end` (a 0-d integer tensor), in the result's
    element type. Static ranges import as constants; this is for run-time ends.

        %pos = ge.arange %t {start = 0 : i64, step = 1 : i64} : tensor<i64> -> tensor<?xi64>
    """

    name = "ge.arange"
    end = operand_def(AnyTensor)
    output = result_def(AnyTensor)
    start = prop_def(IntegerAttr[I64])
    step = prop_def(IntegerAttr[I64])
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())
    assembly_format = "$end attr-dict `:` type($end) `->` type($output)"

    def __init__(self, end: SSAValue, element: Attribute, start: int = 0, step: int = 1):
        super().__init__(operands=[end], result_types=[TensorType(element, [shapes.DYN])],
                         properties={"start": IntegerAttr(start, i64),
                                     "step": IntegerAttr(step, i64)})

    def verify_element_types(self) -> None:
        check_size_operand(self, self.end, "end")

    def infer_shape(self) -> Shape:
        if self.step.value.data < 1:
            raise ShapeError(f"step must be >= 1, got {self.step.value.data}")
        if len(shape_of(self.output)) != 1:
            raise ShapeError("the result must be 1-D")
        return shape_of(self.output)


@irdl_op_definition
class ConcatOp(GEOp):
    """Join tensors along `dim` (torch.cat).

        %y = ge.concat %a, %b {dim = 1 : i64} : (tensor<1x4x8x8xf32>, tensor<1x2x8x8xf32>)
             -> tensor<1x6x8x8xf32>
    """

    name = "ge.concat"
    inputs = var_operand_def(AnyTensor)
    output = result_def(AnyTensor)
    dim = prop_def(IntegerAttr[I64])
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())
    assembly_format = "$inputs attr-dict `:` functional-type($inputs, $output)"

    def __init__(self, inputs: Sequence[SSAValue], dim: int):
        shape = shapes.concat([shape_of(v) for v in inputs], dim)
        super().__init__(operands=[list(inputs)],
                         result_types=[tensor_type(inputs[0].type, shape)],
                         properties={"dim": IntegerAttr(dim, i64)})

    def infer_shape(self) -> Shape:
        return shapes.concat([shape_of(v) for v in self.inputs], self.dim.value.data)


@irdl_op_definition
class ReverseOp(GEOp):
    """x with the order of elements along each of `dims` reversed (torch.flip,
    GE's ReverseV2).

        %y = ge.reverse %x {dims = array<i64: 0, -1>} : tensor<4x8xf32>
    """

    name = "ge.reverse"
    T: ClassVar = VarConstraint("T", AnyTensor)
    input = operand_def(T)
    output = result_def(T)
    dims = prop_def(I64Array)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input)"

    def __init__(self, input: SSAValue, dims: Sequence[int]):
        super().__init__(operands=[input], result_types=[input.type],
                         properties={"dims": i64_array(dims)})

    def infer_shape(self) -> Shape:
        x = shape_of(self.input)
        shapes.reduce(x, self.dims.get_values(), True)  # each dim in range, once
        return x


@irdl_op_definition
class TileOp(GEOp):
    """x repeated `multiples[i]` times along dim i; extra leading multiples add
    dims (torch's Tensor.repeat, GE's Tile).

        %y = ge.tile %x {multiples = array<i64: 2, 1, 3>} : tensor<4x8xf32> -> tensor<2x4x24xf32>
    """

    name = "ge.tile"
    input = operand_def(AnyTensor)
    output = result_def(AnyTensor)
    multiples = prop_def(I64Array)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `->` type($output)"

    def __init__(self, input: SSAValue, multiples: Sequence[int]):
        super().__init__(operands=[input], properties={"multiples": i64_array(multiples)},
                         result_types=[tensor_type(input.type, self._shape(shape_of(input),
                                                                           multiples))])

    @staticmethod
    def _shape(x: Shape, multiples: Sequence[int]) -> Shape:
        if len(multiples) < len(x):
            raise ShapeError(f"{len(multiples)} multiples for a rank-{len(x)} input")
        if any(m < 0 for m in multiples):
            raise ShapeError(f"multiples must be >= 0, got {list(multiples)}")
        padded = (1,) * (len(multiples) - len(x)) + tuple(x)
        return tuple(shapes.DYN if shapes.is_dyn(d) else d * m
                     for d, m in zip(padded, multiples))

    def infer_shape(self) -> Shape:
        return self._shape(shape_of(self.input), self.multiples.get_values())

# --------------------------------------------------------------------------
# Indexing: gathers and scatters


def check_index_type(op: IRDLOperation, value: SSAValue, what: str) -> None:
    check_element_type(op, value, element_type(value.type) in (i32, i64), "i32 or i64", what)


def advanced_index_shape(x: Shape, dims: Sequence[int], indices: Sequence[Shape]) -> Shape:
    """torch's (and NumPy's) advanced indexing: the broadcast index shape takes
    the place of the indexed dims when they are adjacent, else it goes first."""
    if len(dims) != len(indices) or not dims:
        raise ShapeError(f"{len(indices)} index tensors for indexed dims {list(dims)}")
    dims = [shapes.normalize_dim(d, len(x)) for d in dims]
    if dims != sorted(set(dims)):
        raise ShapeError(f"indexed dims {list(dims)} must be increasing and distinct")
    index = indices[0]
    for shape in indices[1:]:
        index = shapes.broadcast(index, shape)
    rest = [d for i, d in enumerate(x) if i not in dims]
    if dims == list(range(dims[0], dims[-1] + 1)):
        return x[:dims[0]] + index + x[dims[-1] + 1:]
    return index + tuple(rest)


@irdl_op_definition
class GatherElementsOp(GEOp):
    """out[i][j] = x[index[i][j]][j] for dim 0 (torch.gather, ONNX GatherElements).

        %y = ge.gather_elements %x, %idx {dim = 1 : i64}
             : tensor<2x8xf32>, tensor<2x3xi64> -> tensor<2x3xf32>
    """

    name = "ge.gather_elements"
    input = operand_def(AnyTensor)
    index = operand_def(AnyTensor)
    output = result_def(AnyTensor)
    dim = prop_def(IntegerAttr[I64])
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())
    assembly_format = ("$input `,` $index attr-dict `:` type($input) `,` type($index) `->` "
                       "type($output)")

    def __init__(self, input: SSAValue, index: SSAValue, dim: int):
        super().__init__(operands=[input, index], properties={"dim": IntegerAttr(dim, i64)},
                         result_types=[tensor_type(input.type, shape_of(index))])

    def verify_element_types(self) -> None:
        if element_type(self.input.type) != element_type(self.output.type):
            raise VerifyException(f"{self.name}: result must have the input's element type")
        check_index_type(self, self.index, "index")

    def infer_shape(self) -> Shape:
        x, index = shape_of(self.input), shape_of(self.index)
        if len(x) != len(index) and x and index:
            raise ShapeError(f"index {shapes.fmt(index)} must have the rank of the input "
                             f"{shapes.fmt(x)}")
        shapes.normalize_dim(self.dim.value.data, len(x))
        return index


@irdl_op_definition
class GatherOp(GEOp):
    """Whole slices of x along `axis` picked by an index tensor of any shape, which
    replaces that axis (GE's GatherV2; torch.index_select for a 1-D index).

        %y = ge.gather %table, %ids {axis = 0 : i64}
             : tensor<100x32xf32>, tensor<2x8xi64> -> tensor<2x8x32xf32>
    """

    name = "ge.gather"
    input = operand_def(AnyTensor)
    index = operand_def(AnyTensor)
    output = result_def(AnyTensor)
    axis = prop_def(IntegerAttr[I64])
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())
    assembly_format = ("$input `,` $index attr-dict `:` type($input) `,` type($index) `->` "
                       "type($output)")

    def __init__(self, input: SSAValue, index: SSAValue, axis: int):
        shape = advanced_index_shape(shape_of(input), [axis], [shape_of(index)])
        super().__init__(operands=[input, index], properties={"axis": IntegerAttr(axis, i64)},
                         result_types=[tensor_type(input.type, shape)])

    def verify_element_types(self) -> None:
        if element_type(self.input.type) != element_type(self.output.type):
            raise VerifyException(f"{self.name}: result must have the input's element type")
        check_index_type(self, self.index, "index")

    def infer_shape(self) -> Shape:
        return advanced_index_shape(shape_of(self.input), [self.axis.value.data],
                                    [shape_of(self.index)])


@irdl_op_definition
class IndexOp(GEOp):
    """Advanced indexing x[..., i, ..., j] (aten.index.Tensor): one integer index
    tensor per dim in `dims`, broadcast together; negative indices count from the end.

        %y = ge.index %table, %rel {dims = array<i64: 0>}
             : (tensor<49x4xf32>, tensor<16x16xi64>) -> tensor<16x16x4xf32>
    """

    name = "ge.index"
    input = operand_def(AnyTensor)
    indices = var_operand_def(AnyTensor)
    output = result_def(AnyTensor)
    dims = prop_def(I64Array)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())
    assembly_format = "$input `,` $indices attr-dict `:` functional-type(operands, $output)"

    def __init__(self, input: SSAValue, indices: Sequence[SSAValue], dims: Sequence[int]):
        shape = advanced_index_shape(shape_of(input), dims, [shape_of(v) for v in indices])
        super().__init__(operands=[input, list(indices)], properties={"dims": i64_array(dims)},
                         result_types=[tensor_type(input.type, shape)])

    def verify_element_types(self) -> None:
        if element_type(self.input.type) != element_type(self.output.type):
            raise VerifyException(f"{self.name}: result must have the input's element type")
        for v in self.indices:
            check_index_type(self, v, "each index")

    def infer_shape(self) -> Shape:
        return advanced_index_shape(shape_of(self.input), self.dims.get_values(),
                                    [shape_of(v) for v in self.indices])


@irdl_op_definition
class IndexPutOp(GEOp):
    """x with x[indices] = values (or += values when `accumulate`), the indices as
    in ge.index; values broadcast to the indexed shape (aten.index_put, ONNX ScatterND).

        %y = ge.index_put %cache, %new, %pos {dims = array<i64: 2>, accumulate = false}
             : (tensor<1x4x64x8xf32>, tensor<1x4x1x8xf32>, tensor<1xi64>) -> tensor<1x4x64x8xf32>
    """

    name = "ge.index_put"
    input = operand_def(AnyTensor)
    values = operand_def(AnyTensor)
    indices = var_operand_def(AnyTensor)
    output = result_def(AnyTensor)
    dims = prop_def(I64Array)
    accumulate = prop_def(BoolAttr)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())
    assembly_format = ("$input `,` $values `,` $indices attr-dict `:` "
                       "functional-type(operands, $output)")

    def __init__(self, input: SSAValue, values: SSAValue, indices: Sequence[SSAValue],
                 dims: Sequence[int], accumulate: bool):
        super().__init__(operands=[input, values, list(indices)], result_types=[input.type],
                         properties={"dims": i64_array(dims),
                                     "accumulate": BoolAttr(accumulate, i1)})

    def verify_element_types(self) -> None:
        for v in (self.values, self.output):
            if element_type(v.type) != element_type(self.input.type):
                raise VerifyException(f"{self.name}: values and result must have the "
                                      "input's element type")
        for v in self.indices:
            check_index_type(self, v, "each index")

    def infer_shape(self) -> Shape:
        x = shape_of(self.input)
        target = advanced_index_shape(x, self.dims.get_values(),
                                      [shape_of(v) for v in self.indices])
        if shapes.broadcast(target, shape_of(self.values)) != target:
            raise ShapeError(f"values {shapes.fmt(shape_of(self.values))} do not broadcast "
                             f"to the indexed shape {shapes.fmt(target)}")
        return x


@irdl_op_definition
class ScatterElementsOp(GEOp):
    """x with x[index[i][j]][j] = src[i][j] for dim 0, or combined with it by
    `reduce` (none, sum, prod, mean, amax, amin); `include_self` = false leaves
    the old value out of the reduction (torch.scatter / scatter_reduce, ONNX
    ScatterElements).

        %y = ge.scatter_elements %x, %idx, %src {dim = 0 : i64, reduce = "sum", include_self = true}
             : (tensor<4x8xf32>, tensor<2x8xi64>, tensor<2x8xf32>) -> tensor<4x8xf32>
    """

    name = "ge.scatter_elements"
    input = operand_def(AnyTensor)
    index = operand_def(AnyTensor)
    src = operand_def(AnyTensor)
    output = result_def(AnyTensor)
    dim = prop_def(IntegerAttr[I64])
    reduce = prop_def(StringAttr)
    include_self = prop_def(BoolAttr)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())
    assembly_format = "$input `,` $index `,` $src attr-dict `:` functional-type(operands, $output)"
    REDUCTIONS: ClassVar = ("none", "sum", "prod", "mean", "amax", "amin")

    def __init__(self, input: SSAValue, index: SSAValue, src: SSAValue, dim: int,
                 reduce: str = "none", include_self: bool = True):
        super().__init__(operands=[input, index, src], result_types=[input.type],
                         properties={"dim": IntegerAttr(dim, i64), "reduce": StringAttr(reduce),
                                     "include_self": BoolAttr(include_self, i1)})

    def verify_element_types(self) -> None:
        for v in (self.src, self.output):
            if element_type(v.type) != element_type(self.input.type):
                raise VerifyException(f"{self.name}: src and result must have the input's "
                                      "element type")
        check_index_type(self, self.index, "index")

    def infer_shape(self) -> Shape:
        if self.reduce.data not in self.REDUCTIONS:
            raise ShapeError(f"reduce must be one of {', '.join(self.REDUCTIONS)}, got "
                             f"'{self.reduce.data}'")
        x, index, src = shape_of(self.input), shape_of(self.index), shape_of(self.src)
        if index and not len(x) == len(index) == len(src):
            raise ShapeError(f"input {shapes.fmt(x)}, index {shapes.fmt(index)} and src "
                             f"{shapes.fmt(src)} must have the same rank")
        shapes.normalize_dim(self.dim.value.data, len(x))
        return x


@irdl_op_definition
class PadOp(GEOp):
    """Pad each dim by `low` elements before and `high` after; `mode` is constant
    (with `value`), reflect, replicate or circular. Negative pads crop (constant
    and replicate; replicate then repeats the nearest element the input has).

        %y = ge.pad %x {low = array<i64: 0, 0, 1, 1>, high = array<i64: 0, 0, 1, 1>,
               mode = "reflect", value = 0.0 : f64} : tensor<1x3x8x8xf32> -> tensor<1x3x10x10xf32>
    """

    name = "ge.pad"
    input = operand_def(AnyTensor)
    output = result_def(AnyTensor)
    low = prop_def(I64Array)
    high = prop_def(I64Array)
    mode = prop_def(StringAttr)
    value = prop_def(FloatAttr[Float64Type])
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `->` type($output)"
    MODES: ClassVar = ("constant", "reflect", "replicate", "circular")

    def __init__(self, input: SSAValue, low: Sequence[int], high: Sequence[int],
                 mode: str = "constant", value: float = 0.0):
        shape = self._shape(shape_of(input), low, high)
        super().__init__(operands=[input], result_types=[tensor_type(input.type, shape)],
                         properties={"low": i64_array(low), "high": i64_array(high),
                                     "mode": StringAttr(mode), "value": FloatAttr(value, f64)})

    @staticmethod
    def _shape(x: Shape, low: Sequence[int], high: Sequence[int]) -> Shape:
        if not len(low) == len(high) == len(x):
            raise ShapeError(f"low and high need one entry per dim of {shapes.fmt(x)}")
        out = tuple(d if shapes.is_dyn(d) else d + lo + hi for d, lo, hi in zip(x, low, high))
        if any(d < 0 and not shapes.is_dyn(d) for d in out):
            raise ShapeError(f"pads {list(low)}, {list(high)} crop {shapes.fmt(x)} below 0")
        return out

    def infer_shape(self) -> Shape:
        if self.mode.data not in self.MODES:
            raise ShapeError(f"mode must be one of {', '.join(self.MODES)}, got "
                             f"'{self.mode.data}'")
        low, high = self.low.get_values(), self.high.get_values()
        if self.mode.data in ("reflect", "circular") and min((*low, *high), default=0) < 0:
            raise ShapeError(f"negative pads crop; modes 'constant' and 'replicate' take them")
        return self._shape(shape_of(self.input), low, high)

# --------------------------------------------------------------------------
# Reductions


class ReductionOp(GEOp):
    """`%y = ge.reduce_<kind> %x {dims, keepdim}`: reduce `dims` (all when empty)."""

    input = operand_def(AnyTensor)
    output = result_def(AnyTensor)
    dims = prop_def(I64Array)
    keepdim = prop_def(BoolAttr)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `->` type($output)"

    def __init__(self, input: SSAValue, dims: Sequence[int], keepdim: bool = False):
        shape = shapes.reduce(shape_of(input), dims, keepdim)
        super().__init__(operands=[input], result_types=[tensor_type(input.type, shape)],
                         properties={"dims": i64_array(dims),
                                     "keepdim": BoolAttr(keepdim, i1)})

    def infer_shape(self) -> Shape:
        return shapes.reduce(shape_of(self.input), self.dims.get_values(),
                             bool(self.keepdim.value.data))


@irdl_op_definition
class ReduceSumOp(ReductionOp):
    """Sum over `dims`.

        %y = ge.reduce_sum %x {dims = array<i64: -1>, keepdim = true} : tensor<2x8xf32> -> tensor<2x1xf32>
    """

    name = "ge.reduce_sum"


@irdl_op_definition
class ReduceMeanOp(ReductionOp):
    """Mean over `dims`.

        %y = ge.reduce_mean %x {dims = array<i64: 1>, keepdim = false} : tensor<2x8xf32> -> tensor<2xf32>
    """

    name = "ge.reduce_mean"


@irdl_op_definition
class ReduceMaxOp(ReductionOp):
    """Maximum over `dims` (torch.amax).

        %y = ge.reduce_max %x {dims = array<i64: -1>, keepdim = true} : tensor<2x8xf32> -> tensor<2x1xf32>
    """

    name = "ge.reduce_max"


@irdl_op_definition
class ReduceMinOp(ReductionOp):
    """Minimum over `dims` (torch.amin).

        %y = ge.reduce_min %x {dims = array<i64: -1>, keepdim = true} : tensor<2x8xf32> -> tensor<2x1xf32>
    """

    name = "ge.reduce_min"


@irdl_op_definition
class ReduceProdOp(ReductionOp):
    """Product over `dims`.

        %y = ge.reduce_prod %x {dims = array<i64: 1>, keepdim = false} : tensor<2x8xf32> -> tensor<2xf32>
    """

    name = "ge.reduce_prod"

@irdl_op_definition
class ReduceAnyOp(ReductionOp):
    """Logical or over `dims`, on i1 tensors (torch.any).

        %y = ge.reduce_any %m {dims = array<i64: -1>, keepdim = true} : tensor<4x4xi1> -> tensor<4x1xi1>
    """

    name = "ge.reduce_any"

    def verify_element_types(self) -> None:
        super().verify_element_types()
        check_element_type(self, self.input, element_type(self.input.type) == i1, "i1",
                           "input")

class CumulativeOp(GEOp):
    """`%y = ge.<kind> %x {dim}`: a running reduction along `dim`, same type out."""

    T: ClassVar = VarConstraint("T", AnyTensor)
    input = operand_def(T)
    output = result_def(T)
    dim = prop_def(IntegerAttr[I64])
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input)"

    def __init__(self, input: SSAValue, dim: int):
        super().__init__(operands=[input], result_types=[input.type],
                         properties={"dim": IntegerAttr(dim, i64)})

    def infer_shape(self) -> Shape:
        shapes.normalize_dim(self.dim.value.data, len(shape_of(self.input)))
        return shape_of(self.input)


@irdl_op_definition
class CumsumOp(CumulativeOp):
    """Running sum along `dim` (position ids from a padding mask).

        %y = ge.cumsum %x {dim = 1 : i64} : tensor<2x8xi64>
    """

    name = "ge.cumsum"


@irdl_op_definition
class CumprodOp(CumulativeOp):
    """Running product along `dim`.

        %y = ge.cumprod %x {dim = 1 : i64} : tensor<2x8xf32>
    """

    name = "ge.cumprod"


class ArgReductionOp(GEOp):
    """`%i = ge.arg<kind> %x {dim, keepdim}`: the i64 index of the extreme along
    `dim`, or into the flattened input when `dim` is absent."""

    input = operand_def(AnyTensor)
    output = result_def(AnyTensor)
    dim = opt_prop_def(IntegerAttr[I64])
    keepdim = prop_def(BoolAttr)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `->` type($output)"

    def __init__(self, input: SSAValue, dim: int | None, keepdim: bool = False):
        props = {"keepdim": BoolAttr(keepdim, i1)}
        if dim is not None:
            props["dim"] = IntegerAttr(dim, i64)
        super().__init__(operands=[input], properties=props, result_types=[
            TensorType(i64, list(self._shape(shape_of(input), dim, keepdim)))])

    @staticmethod
    def _shape(x: Shape, dim: int | None, keepdim: bool) -> Shape:
        if dim is None:
            return (1,) * len(x) if keepdim else ()
        return shapes.reduce(x, [dim], keepdim) if x else ()

    def verify_element_types(self) -> None:
        check_element_type(self, self.output, element_type(self.output.type) == i64, "i64",
                           "result")

    def infer_shape(self) -> Shape:
        dim = self.dim.value.data if self.dim is not None else None
        return self._shape(shape_of(self.input), dim, bool(self.keepdim.value.data))


@irdl_op_definition
class ArgMaxOp(ArgReductionOp):
    """Index of the maximum along `dim` (the first one on ties, as torch).

        %i = ge.argmax %x {dim = -1 : i64, keepdim = false} : tensor<2x8xf32> -> tensor<2xi64>
    """

    name = "ge.argmax"


@irdl_op_definition
class ArgMinOp(ArgReductionOp):
    """Index of the minimum along `dim` (the first one on ties, as torch).

        %i = ge.argmin %x {dim = -1 : i64, keepdim = false} : tensor<2x8xf32> -> tensor<2xi64>
    """

    name = "ge.argmin"


@irdl_op_definition
class TopKOp(GEOp):
    """The `k` largest (or smallest) elements along `dim` and their i64 indices.

        %v, %i = ge.topk %x {k = 3 : i64, dim = -1 : i64, largest = true, sorted = true}
                 : tensor<2x8xf32> -> (tensor<2x3xf32>, tensor<2x3xi64>)
    """

    name = "ge.topk"
    input = operand_def(AnyTensor)
    values = result_def(AnyTensor)
    indices = result_def(AnyTensor)
    k = prop_def(IntegerAttr[I64])
    dim = prop_def(IntegerAttr[I64])
    largest = prop_def(BoolAttr)
    sorted = prop_def(BoolAttr)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())
    assembly_format = ("$input attr-dict `:` type($input) `->` `(` type($values) `,` "
                       "type($indices) `)`")

    def __init__(self, input: SSAValue, k: int, dim: int, largest: bool, sorted: bool):
        shape = list(self._shape(shape_of(input), k, dim))
        super().__init__(operands=[input], result_types=[
            TensorType(element_type(input.type), shape), TensorType(i64, shape)],
            properties={"k": IntegerAttr(k, i64), "dim": IntegerAttr(dim, i64),
                        "largest": BoolAttr(largest, i1), "sorted": BoolAttr(sorted, i1)})

    @staticmethod
    def _shape(x: Shape, k: int, dim: int) -> Shape:
        if not x:
            if k > 1:
                raise ShapeError(f"k = {k} is larger than the 1 element of a 0-d input")
            return ()
        d = shapes.normalize_dim(dim, len(x))
        if not shapes.is_dyn(x[d]) and not 0 <= k <= x[d]:
            raise ShapeError(f"k = {k} is out of range for dim {dim} of size {x[d]}")
        return x[:d] + (k,) + x[d + 1:]

    def verify_element_types(self) -> None:
        if element_type(self.values.type) != element_type(self.input.type):
            raise VerifyException(f"{self.name}: values must have the input's element type")
        check_element_type(self, self.indices, element_type(self.indices.type) == i64, "i64",
                           "indices")
        if shape_of(self.values) != shape_of(self.indices):
            raise VerifyException(f"{self.name}: values and indices differ in shape")

    def infer_shape(self) -> Shape:
        return self._shape(shape_of(self.input), self.k.value.data, self.dim.value.data)


@irdl_op_definition
class SortOp(GEOp):
    """Sort along `dim`; also the i64 indices of the sorted elements in the input.

        %v, %i = ge.sort %x {dim = -1 : i64, descending = false, stable = true}
                 : tensor<2x8xf32> -> (tensor<2x8xf32>, tensor<2x8xi64>)
    """

    name = "ge.sort"
    input = operand_def(AnyTensor)
    values = result_def(AnyTensor)
    indices = result_def(AnyTensor)
    dim = prop_def(IntegerAttr[I64])
    descending = prop_def(BoolAttr)
    stable = prop_def(BoolAttr)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())
    assembly_format = ("$input attr-dict `:` type($input) `->` `(` type($values) `,` "
                       "type($indices) `)`")

    def __init__(self, input: SSAValue, dim: int, descending: bool, stable: bool):
        shape = list(shape_of(input))
        super().__init__(operands=[input], result_types=[input.type, TensorType(i64, shape)],
                         properties={"dim": IntegerAttr(dim, i64),
                                     "descending": BoolAttr(descending, i1),
                                     "stable": BoolAttr(stable, i1)})

    def verify_element_types(self) -> None:
        if self.values.type != self.input.type:
            raise VerifyException(f"{self.name}: values must have the input's type")
        check_element_type(self, self.indices, element_type(self.indices.type) == i64, "i64",
                           "indices")

    def infer_shape(self) -> Shape:
        x = shape_of(self.input)
        if x:
            shapes.normalize_dim(self.dim.value.data, len(x))
        return x

# --------------------------------------------------------------------------
# Layout

FORMATS = ("NCHW", "NC1HWC0")


@irdl_op_definition
class TransDataOp(GEOp):
    """Convert between Ascend data formats: NCHW <-> NC1HWC0 (5HD).

    NC1HWC0 splits channels into C1 blocks of C0 = 32 bytes / element size
    (16 for fp16, 32 for int8, 8 for fp32), zero-padding the last block; the
    cube unit consumes activations in this format. Padding channels are zero,
    an invariant every op on NC1HWC0 keeps. Converting back keeps the
    first C channels, where C comes from the result type.

        %y = ge.trans_data %x {src_format = "NCHW", dst_format = "NC1HWC0"}
             : tensor<1x3x8x8xf32> -> tensor<1x1x8x8x8xf32>
    """

    name = "ge.trans_data"
    input = operand_def(AnyTensor)
    output = result_def(AnyTensor)
    src_format = prop_def(StringAttr)
    dst_format = prop_def(StringAttr)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure(), Canonicalized())
    assembly_format = "$input attr-dict `:` type($input) `->` type($output)"

    def __init__(self, input: SSAValue, src: str, dst: str, channels: int | None = None):
        x = shape_of(input)
        if (src, dst) == ("NCHW", "NC1HWC0"):
            shape = shapes.to_nc1hwc0(x, shapes.c0_for(input.type.element_type.bitwidth))
        elif channels is not None:
            shape = (x[0], channels, x[2], x[3])
        else:
            raise ValueError("NC1HWC0 -> NCHW needs the channel count")
        super().__init__(operands=[input], result_types=[tensor_type(input.type, shape)],
                         properties={"src_format": StringAttr(src), "dst_format": StringAttr(dst)})

    def infer_shape(self) -> Shape | None:
        src, dst = self.src_format.data, self.dst_format.data
        if src not in FORMATS or dst not in FORMATS or src == dst:
            raise ShapeError(f"formats must be two different ones of {', '.join(FORMATS)}, "
                             f"got {src} -> {dst}")
        nchw, five = ((shape_of(self.input), shape_of(self.output)) if src == "NCHW"
                      else (shape_of(self.output), shape_of(self.input)))
        if len(nchw) != 4 or len(five) != 5:
            raise ShapeError(f"NCHW must be 4-D and NC1HWC0 5-D, got {shapes.fmt(nchw)} "
                             f"and {shapes.fmt(five)}")
        c0 = shapes.c0_for(self.input.type.element_type.bitwidth)
        if not shapes.compatible(five, shapes.to_nc1hwc0(nchw, c0)):
            raise ShapeError(f"{shapes.fmt(nchw)} in NC1HWC0 with C0 = {c0} is "
                             f"{shapes.fmt(shapes.to_nc1hwc0(nchw, c0))}, not {shapes.fmt(five)}")
        return None


# --------------------------------------------------------------------------
# Fusion


@irdl_op_definition
class YieldOp(IRDLOperation):
    """Terminator of a region that produces tensors (ge.fused, ge.if, ge.while, ascend.task).

        ge.yield %y : tensor<1x64x56x56xf32>
    """

    name = "ge.yield"
    values = var_operand_def(AnyTensor)
    traits = traits_def(IsTerminator(), Pure())
    assembly_format = "$values attr-dict `:` type($values)"
    PARENTS: ClassVar = ("ge.fused", "ge.if", "ge.while", "ascend.task")

    def __init__(self, *values: SSAValue):
        super().__init__(operands=[list(values)])

    def verify_(self) -> None:
        parent = self.parent_op()
        if parent is None or parent.name not in self.PARENTS:
            raise VerifyException(
                f"ge.yield must be the terminator of {' or '.join(self.PARENTS)}, "
                f"not of {parent.name if parent else 'nothing'}")


@irdl_op_definition
class FusedOp(IRDLOperation):
    """A group of GE ops that run as one kernel, kept visible in a region.

    Like an XLA fusion computation: the body is isolated from above, its block
    arguments are the group's inputs in order, and `ge.yield` gives its
    results. `kind` names the fusion rule that formed it.

        %y = ge.fused "conv2d_relu" (%x, %w, %b) : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>,
                tensor<4xf32>) -> tensor<1x4x6x6xf32> {
        ^bb0(%a: tensor<1x3x8x8xf32>, %k: tensor<4x3x3x3xf32>, %c: tensor<4xf32>):
          %0 = ge.conv2d %a, %k, %c {...} : ...
          %1 = ge.relu %0 : tensor<1x4x6x6xf32>
          ge.yield %1 : tensor<1x4x6x6xf32>
        }
    """

    name = "ge.fused"
    kind = prop_def(StringAttr)
    inputs = var_operand_def(AnyTensor)
    outputs = var_result_def(AnyTensor)
    body = region_def("single_block")
    traits = traits_def(Pure(), IsolatedFromAbove())
    assembly_format = (
        "$kind `(` $inputs `)` attr-dict `:` functional-type($inputs, $outputs) $body")

    def __init__(self, kind: str, inputs: Sequence[SSAValue], result_types, body: Region):
        super().__init__(operands=[list(inputs)], result_types=[list(result_types)],
                         properties={"kind": StringAttr(kind)}, regions=[body])

    @property
    def members(self) -> list[IRDLOperation]:
        return [op for op in self.body.block.ops if not isinstance(op, YieldOp)]

    def verify_(self) -> None:
        block = self.body.block
        if [a.type for a in block.args] != [v.type for v in self.inputs]:
            raise VerifyException("ge.fused: block argument types must match the input types")
        term = block.last_op
        if not isinstance(term, YieldOp):
            raise VerifyException("ge.fused: body must end with ge.yield")
        if [v.type for v in term.values] != [r.type for r in self.outputs]:
            raise VerifyException("ge.fused: yielded types must match the result types")


# --------------------------------------------------------------------------
# Control flow. Regions are isolated from above like ge.fused bodies: their
# block arguments are the op's inputs, so each region runs (and lowers) alone.


def check_region(op: IRDLOperation, region: Region, what: str, arg_types,
                 yield_types) -> None:
    block = region.block
    if [a.type for a in block.args] != list(arg_types):
        raise VerifyException(f"{op.name}: {what} block arguments must match the input "
                              "types")
    term = block.last_op
    if not isinstance(term, YieldOp):
        raise VerifyException(f"{op.name}: {what} must end with ge.yield")
    if [v.type for v in term.values] != list(yield_types):
        raise VerifyException(f"{op.name}: {what} must yield "
                              f"{', '.join(str(t) for t in yield_types) or 'nothing'}")


def check_predicate(op: IRDLOperation, t: Attribute, what: str) -> None:
    """torch.cond and while_loop take a one-element boolean tensor."""
    assert isinstance(t, TensorType)
    if t.element_type != i1 or shapes.numel(t.get_shape()) not in (1, shapes.DYN):
        raise VerifyException(f"{op.name}: {what} must be a one-element i1 tensor, got {t}")


@irdl_op_definition
class IfOp(IRDLOperation):
    """Run one of two regions on the inputs, chosen by a one-element i1 tensor (torch.cond).

        %y = ge.if %p(%x) : tensor<i1>, (tensor<4xf32>) -> tensor<4xf32> {
        ^bb0(%a: tensor<4xf32>):
          %r = ge.relu %a : tensor<4xf32>
          ge.yield %r : tensor<4xf32>
        } else {
        ^bb0(%a: tensor<4xf32>):
          %n = ge.neg %a : tensor<4xf32>
          ge.yield %n : tensor<4xf32>
        }
    """

    name = "ge.if"
    condition = operand_def(AnyTensor)
    inputs = var_operand_def(AnyTensor)
    outputs = var_result_def(AnyTensor)
    then_region = region_def("single_block")
    else_region = region_def("single_block")
    traits = traits_def(Pure(), IsolatedFromAbove())
    assembly_format = (
        "$condition `(` $inputs `)` attr-dict `:` type($condition) `,` "
        "functional-type($inputs, $outputs) $then_region `else` $else_region")

    def __init__(self, condition: SSAValue, inputs: Sequence[SSAValue], result_types,
                 then_region: Region, else_region: Region):
        super().__init__(operands=[condition, list(inputs)],
                         result_types=[list(result_types)],
                         regions=[then_region, else_region])

    def verify_(self) -> None:
        check_predicate(self, self.condition.type, "condition")
        ins, outs = [v.type for v in self.inputs], [r.type for r in self.outputs]
        check_region(self, self.then_region, "then region", ins, outs)
        check_region(self, self.else_region, "else region", ins, outs)


@irdl_op_definition
class WhileOp(IRDLOperation):
    """Loop while the `cond` region yields true, replacing the carried values by what
    the `do` region yields (torch while_loop). Loop-invariant inputs are carried
    unchanged; the results are the final carried values.

        %n, %y = ge.while (%i, %x) : (tensor<i64>, tensor<4xf32>) -> (tensor<i64>, tensor<4xf32>) cond {
        ^bb0(%c: tensor<i64>, %a: tensor<4xf32>):
          %p = ge.compare %c, %five {predicate = "lt"} : tensor<i64>, tensor<i64> -> tensor<i1>
          ge.yield %p : tensor<i1>
        } do {
        ^bb0(%c: tensor<i64>, %a: tensor<4xf32>):
          ...
          ge.yield %c1, %a1 : tensor<i64>, tensor<4xf32>
        }
    """

    name = "ge.while"
    inputs = var_operand_def(AnyTensor)
    outputs = var_result_def(AnyTensor)
    cond_region = region_def("single_block")
    body_region = region_def("single_block")
    traits = traits_def(Pure(), IsolatedFromAbove())
    assembly_format = (
        "`(` $inputs `)` attr-dict `:` functional-type($inputs, $outputs) "
        "`cond` $cond_region `do` $body_region")

    def __init__(self, inputs: Sequence[SSAValue], cond_region: Region, body_region: Region):
        super().__init__(operands=[list(inputs)], result_types=[[v.type for v in inputs]],
                         regions=[cond_region, body_region])

    def verify_(self) -> None:
        ins, outs = [v.type for v in self.inputs], [r.type for r in self.outputs]
        if ins != outs:
            raise VerifyException(f"{self.name}: result types must equal the input types")
        term = self.cond_region.block.last_op
        if isinstance(term, YieldOp) and len(term.values) == 1:
            check_predicate(self, term.values[0].type, "the cond region's yield")
            check_region(self, self.cond_region, "cond region", ins,
                         [term.values[0].type])
        else:
            raise VerifyException(f"{self.name}: cond region must end with ge.yield of one "
                                  "i1 tensor")
        check_region(self, self.body_region, "do region", ins, outs)


# --------------------------------------------------------------------------
# Symbolic sizes: shape ops whose bounds are graph values (0-d integer tensors
# from ge.dim and arithmetic on it), as HF decoders need for a cache of any length


@irdl_op_definition
class DynamicSliceOp(GEOp):
    """x[start:end:step] along `dim`, with `start` and `end` given at run time as
    0-d integer tensors (Python's rules: negative bounds count from the end,
    out-of-range bounds are clamped). For a symbolic start, as in OPT's
    `position_ids[:, past_seen_tokens:]`; a static start with a run-time end is
    ge.slice with its `end` operand.

        %p = ge.dynamic_slice %pos[%past, %end] {dim = 1 : i64, step = 1 : i64}
             : tensor<1x?xi64>, tensor<i64>, tensor<i64> -> tensor<1x?xi64>
    """

    name = "ge.dynamic_slice"
    input = operand_def(AnyTensor)
    start = operand_def(AnyTensor)
    end = operand_def(AnyTensor)
    output = result_def(AnyTensor)
    dim = prop_def(IntegerAttr[I64])
    step = prop_def(IntegerAttr[I64])
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())
    assembly_format = ("$input `[` $start `,` $end `]` attr-dict `:` type($input) `,` "
                       "type($start) `,` type($end) `->` type($output)")

    def __init__(self, input: SSAValue, dim: int, start: SSAValue, end: SSAValue,
                 step: int = 1):
        x = shape_of(input)
        d = shapes.normalize_dim(dim, len(x))
        shape = x[:d] + (shapes.DYN,) + x[d + 1:]
        super().__init__(operands=[input, start, end],
                         result_types=[tensor_type(input.type, shape)],
                         properties={"dim": IntegerAttr(dim, i64),
                                     "step": IntegerAttr(step, i64)})

    def verify_element_types(self) -> None:
        if element_type(self.input.type) != element_type(self.output.type):
            raise VerifyException(
                f"{self.name}: operand element type {element_type(self.input.type)} "
                f"differs from result element type {element_type(self.output.type)}")
        check_size_operand(self, self.start, "start")
        check_size_operand(self, self.end, "end")

    def infer_shape(self) -> Shape:
        if self.step.value.data < 1:
            raise ShapeError(f"step must be >= 1, got {self.step.value.data}")
        x = shape_of(self.input)
        d = shapes.normalize_dim(self.dim.value.data, len(x))
        return x[:d] + (shapes.DYN,) + x[d + 1:]


# --------------------------------------------------------------------------
# In-place updates of graph inputs and buffers (a KV cache): GE's ScatterUpdate
# and Assign. Result 0 *is* operand `IN_PLACE_OPERAND`, written in place: not
# Pure (dce keeps them, cse never merges them), and lower-to-ascend gives the
# result no buffer of its own, so the caller's tensor is updated with no copy
# and the memory planner never places a temporary in it.


def in_place_operand(op) -> int | None:
    """The operand an op writes in place and returns as result 0, if any."""
    return getattr(op, "IN_PLACE_OPERAND", None)


@irdl_op_definition
class ScatterUpdateOp(GEOp):
    """ref[..., indices[i], ...] = updates[..., i, ...] along `dim`, in place; the
    result is `ref` updated (GE ScatterUpdate, TorchAir's scatter_update_;
    torch's index_copy_ and index_put_ with one index tensor). Indices are 1-D.

        %k1 = ge.scatter_update %k[%pos], %new {dim = 2 : i64}
              : tensor<1x2x16x8xf32>, tensor<1xi64>, tensor<1x2x1x8xf32> -> tensor<1x2x16x8xf32>
    """

    name = "ge.scatter_update"
    IN_PLACE_OPERAND: ClassVar[int] = 0
    ref = operand_def(AnyTensor)
    indices = operand_def(AnyTensor)
    updates = operand_def(AnyTensor)
    output = result_def(AnyTensor)
    dim = prop_def(IntegerAttr[I64])
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = ("$ref `[` $indices `]` `,` $updates attr-dict `:` type($ref) `,` "
                       "type($indices) `,` type($updates) `->` type($output)")

    def __init__(self, ref: SSAValue, indices: SSAValue, updates: SSAValue, dim: int):
        super().__init__(operands=[ref, indices, updates], result_types=[ref.type],
                         properties={"dim": IntegerAttr(dim, i64)})

    def verify_element_types(self) -> None:
        for v in (self.updates, self.output):
            if element_type(v.type) != element_type(self.ref.type):
                raise VerifyException(f"{self.name}: updates and result must have the "
                                      "ref's element type")
        check_index_type(self, self.indices, "indices")

    def infer_shape(self) -> Shape:
        ref, idx, upd = shape_of(self.ref), shape_of(self.indices), shape_of(self.updates)
        d = shapes.normalize_dim(self.dim.value.data, len(ref))
        if len(idx) != 1:
            raise ShapeError(f"indices must be 1-D, got {shapes.fmt(idx)}")
        want = ref[:d] + idx + ref[d + 1:]
        if not shapes.compatible(upd, want):
            raise ShapeError(f"updates must have shape {shapes.fmt(want)} (the ref's with dim "
                             f"{d} the number of indices), got {shapes.fmt(upd)}")
        return ref


@irdl_op_definition
class AssignOp(GEOp):
    """ref = value, in place; the result is `ref` updated (GE Assign; torch's
    copy_ into a graph input or buffer). Same type on both sides: the importer
    broadcasts and casts first.

        %v1 = ge.assign %v, %x : tensor<1x2x16x8xf32>
    """

    name = "ge.assign"
    IN_PLACE_OPERAND: ClassVar[int] = 0
    T: ClassVar = VarConstraint("T", AnyTensor)
    ref = operand_def(T)
    value = operand_def(T)
    output = result_def(T)
    assembly_format = "$ref `,` $value attr-dict `:` type($ref)"

    def __init__(self, ref: SSAValue, value: SSAValue):
        super().__init__(operands=[ref, value], result_types=[ref.type])

    def infer_shape(self) -> Shape:
        return shape_of(self.ref)


# --------------------------------------------------------------------------
# Custom ops


@irdl_op_definition
class CustomOp(IRDLOperation):
    """An op the compiler does not know, run by a kernel registered with
    `npu_graph.custom_op(name)`. Tensor arguments are operands; the others are
    kept by their schema names in `params`.

        %y = ge.custom(%x) {name = "aten.cumsum", params = {dim = 1 : i64}}
             : (tensor<3x4xf32>) -> tensor<3x4xf32>
    """

    name = "ge.custom"
    op_name = prop_def(StringAttr, prop_name="name")
    params = prop_def(DictionaryAttr)
    inputs = var_operand_def(AnyTensor)
    outputs = var_result_def(AnyTensor)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())
    assembly_format = "`(` $inputs `)` attr-dict `:` functional-type($inputs, $outputs)"

    def __init__(self, op_name: str, inputs: Sequence[SSAValue], result_types,
                 params: dict[str, Attribute] | None = None):
        super().__init__(operands=[list(inputs)], result_types=[list(result_types)],
                         properties={"name": StringAttr(op_name),
                                     "params": DictionaryAttr(params or {})})

    def verify_(self) -> None:
        if not self.op_name.data:
            raise VerifyException(f"{self.name}: name must not be empty")


class GEConstantMaterialization(ConstantMaterializationInterface):
    """Lets the canonicalizer's folder turn folded attributes into ge.const."""

    def materialize_constant(self, value: Attribute, type: Attribute):
        if isinstance(value, DenseIntOrFPElementsAttr):
            return ConstOp(value)
        return None


GE = Dialect(
    "ge",
    [
        ConstOp, ReluOp, SigmoidOp, TanhOp, ExpOp, LogOp, SqrtOp, RsqrtOp, NegOp, AbsOp,
        ErfOp, SiluOp, HardswishOp, HardsigmoidOp, LogicalNotOp, GeluOp, ClampOp,
        SinOp, CosOp, TanOp, AsinOp, AcosOp, AtanOp, SinhOp, CoshOp, AsinhOp, AcoshOp,
        AtanhOp, Log1pOp, Expm1Op, Log2Op, Log10Op, Exp2Op, ReciprocalOp, SignOp, FloorOp,
        CeilOp, RoundOp, TruncOp, ErfcOp, ErfinvOp, LgammaOp, DigammaOp, MishOp,
        LogSigmoidOp, LeakyReluOp, EluOp, SoftplusOp, IsNanOp, IsInfOp,
        Atan2Op, HypotOp, CopysignOp, FloorDivOp, TruncDivOp, RemainderOp, FmodOp,
        LogicalXorOp,
        GatherElementsOp, GatherOp, IndexOp, IndexPutOp, ScatterElementsOp, PadOp,
        CumsumOp, CumprodOp, ArgMaxOp, ArgMinOp, TopKOp, SortOp,
        AddOp, SubOp, MulOp, DivOp, PowOp, MaximumOp, MinimumOp, LogicalAndOp,
        LogicalOrOp, CompareOp, WhereOp, CastOp, FullLikeOp,
        Conv2dOp, ConvTranspose2dOp, BatchNormOp, LayerNormOp, SoftmaxOp, EmbeddingOp,
        Conv1dOp, Conv3dOp, GroupNormOp, InstanceNormOp, RmsNormOp, MaxPool3dOp, AvgPool3dOp,
        MaxPool2dWithIndicesOp, LogSoftmaxOp, ReverseOp, TileOp, ReduceProdOp, GridSampleOp,
        I0Op, I0eOp, I1Op, I1eOp, NdtriOp, ErfcxOp, AiryAiOp, BesselJ0Op, BesselJ1Op,
        BesselY0Op, BesselY1Op, ModifiedBesselI0Op, ModifiedBesselI1Op, ModifiedBesselK0Op,
        ModifiedBesselK1Op, ScaledModifiedBesselK0Op, ScaledModifiedBesselK1Op,
        SphericalBesselJ0Op, ZetaOp, IgammaOp, IgammacOp, NextafterOp,
        ChebyshevPolynomialTOp, ChebyshevPolynomialUOp, ChebyshevPolynomialVOp,
        ChebyshevPolynomialWOp, ShiftedChebyshevPolynomialTOp,
        ShiftedChebyshevPolynomialUOp, ShiftedChebyshevPolynomialVOp,
        ShiftedChebyshevPolynomialWOp, HermitePolynomialHOp, HermitePolynomialHeOp,
        LaguerrePolynomialLOp, LegendrePolynomialPOp, PolygammaOp,
        MaxPool2dOp, AvgPool2dOp, AdaptiveAvgPool2dOp, AdaptiveMaxPool2dOp,
        InterpolateOp,
        FlattenOp, ReshapeOp, TransposeOp, ExpandOp, SliceOp, ConcatOp, DimOp, ArangeOp,
        ReduceSumOp, ReduceMeanOp, ReduceMaxOp, ReduceMinOp, ReduceAnyOp,
        MatMulOp, LinearOp, TransDataOp, FusedOp, IfOp, WhileOp, CustomOp, YieldOp,
        DynamicSliceOp, ScatterUpdateOp, AssignOp,
    ],
    [],
    [GEConstantMaterialization()],
)
