"""GE indexing ops: gathers, scatters and padding.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    BoolAttr,
    FloatAttr,
    Float64Type,
    IntegerAttr,
    I64,
    StringAttr,
    f64,
    i1,
    i32,
    i64,
)
from xdsl.ir import SSAValue
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
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


OPS = [
    GatherElementsOp,
    GatherOp,
    IndexOp,
    IndexPutOp,
    ScatterElementsOp,
    PadOp,
]
