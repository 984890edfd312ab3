"""What every GE op family shares: the result-type-checking base `GEOp`,
run-time sizes, the canonicalization hook and small type helpers (MLIR's
OpBase). The op families (ge.py, elementwise.py, nn.py, indexing.py,
reductions.py) build on it.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import DenseArrayBase, IntegerType, TensorType, f64, i64
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import IRDLOperation, base
from xdsl.traits import HasCanonicalizationPatternsTrait
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
