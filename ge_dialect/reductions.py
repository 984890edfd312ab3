"""GE reductions, scans, arg-reductions, top-k and sort.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import BoolAttr, IntegerAttr, I64, TensorType, i1, i64
from xdsl.ir import SSAValue
from xdsl.irdl import (
    ParsePropInAttrDict,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from ge_dialect import shapes
from ge_dialect.op_base import (
    AnyTensor,
    check_element_type,
    element_type,
    GEOp,
    i64_array,
    I64Array,
    shape_of,
    tensor_type,
)
from ge_dialect.shapes import Shape, ShapeError


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


OPS = [
    ReduceSumOp,
    ReduceMeanOp,
    ReduceMaxOp,
    ReduceMinOp,
    ReduceProdOp,
    ReduceAnyOp,
    CumsumOp,
    CumprodOp,
    ArgMaxOp,
    ArgMinOp,
    TopKOp,
    SortOp,
]
