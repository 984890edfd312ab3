"""The GE dialect: a PyTorch-level dataflow graph on builtin ranked tensors.

Ops are pure functions of their operands, named after their ATen
counterparts, with static parameters as properties. Each op infers its result
type (the builders use it) and its verifier checks the declared result type
against that inference, so a pass that builds a wrong shape is caught at once.

The ops live in families: elementwise.py, nn.py, indexing.py and
reductions.py beside this file, which holds constants, shape ops, layout,
fusion, control flow and custom ops, and exports every op class so that
`ge.AddOp` names any of them. `GE` lists them all.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

from xdsl.dialect_interfaces.constant_materialization import ConstantMaterializationInterface
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    IntegerAttr,
    I64,
    StringAttr,
    TensorType,
    i1,
    i64,
)
from xdsl.interfaces import HasFolderInterface
from xdsl.ir import Attribute, Dialect, Region, SSAValue
from xdsl.irdl import (
    AnyAttr,
    AttrSizedOperandSegments,
    IRDLOperation,
    ParamAttrConstraint,
    ParsePropInAttrDict,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import ConstantLike, IsolatedFromAbove, IsTerminator, OpTrait, Pure
from xdsl.utils.exceptions import VerifyException

from ge_dialect import elementwise, indexing, nn, quant, reductions, shapes
# Every op class of the families and the shared helpers (ge.shape_of, ...),
# so that `ge.<Name>Op` names any GE op wherever it is declared.
from ge_dialect.elementwise import *  # noqa: F403
from ge_dialect.indexing import *  # noqa: F403
from ge_dialect.nn import *  # noqa: F403
from ge_dialect.op_base import *  # noqa: F403
from ge_dialect.quant import *  # noqa: F403
from ge_dialect.reductions import *  # noqa: F403
from ge_dialect.shapes import Shape, ShapeError
from ge_dialect.traits import Activation, CubeWork, Elementwise, MixPrecision, View


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
# Shape ops: views, matmuls, concatenation and friends


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
    traits = traits_def(Pure(), Canonicalized(), View("reshape"), MixPrecision("gray"))
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
    traits = traits_def(Pure(), Canonicalized(), View("reshape"), MixPrecision("gray"))
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
    traits = traits_def(Pure(), CubeWork(), MixPrecision("allow"))
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
    traits = traits_def(Pure(), CubeWork(), MixPrecision("allow"))
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
    traits = traits_def(Pure(), Canonicalized(), View("transpose"), MixPrecision("gray"))
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
    traits = traits_def(Pure(), View("expand"), MixPrecision("gray"))
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
    traits = traits_def(Pure(), Canonicalized(), View("slice"), MixPrecision("gray"))
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
    traits = traits_def(Pure(), MixPrecision("gray"))
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
    traits = traits_def(Pure(), Canonicalized(), MixPrecision("gray"))
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
        ConstOp, *elementwise.OPS, *nn.OPS,
        FlattenOp, ReshapeOp, MatMulOp, LinearOp, TransposeOp, ExpandOp, SliceOp, DimOp, ArangeOp,
        ConcatOp, ReverseOp, TileOp,
        *indexing.OPS, *reductions.OPS, *quant.OPS,
        TransDataOp, YieldOp, FusedOp, IfOp, WhileOp, CustomOp,
        DynamicSliceOp, ScatterUpdateOp, AssignOp,
    ],
    [],
    [GEConstantMaterialization()],
)


def ops_with(trait: type[OpTrait], where: Callable[[OpTrait], bool] = lambda t: True,
             ) -> tuple[type[IRDLOperation], ...]:
    """The GE ops declaring a `trait` (ge_dialect/traits.py) that passes
    `where`, in dialect order: the tables passes and the runtime consult."""
    return tuple(op for op in GE.operations
                 if (t := op.get_trait(trait)) is not None and where(t))


def views(*kinds: str) -> tuple[type[IRDLOperation], ...]:
    """The view ops of these kinds (all views if none is named)."""
    return ops_with(View, lambda t: not kinds or t.kind in kinds)


# Ops whose result element i depends on operand element i alone, in the same
# numbering: elementwise ops and reshapes. The memory plan lets such an op
# write over an operand it reads last; the plan verifier allows exactly that.
SAME_INDEX_OPS = (*ops_with(Elementwise), *views("reshape"))


# The activation ops by name: what an int8 cube op's `activation` names.
ACTIVATION_OPS = {op.name: op for op in ops_with(Activation)}


def activation_of(op: QuantizedCubeOp) -> IRDLOperation | None:  # noqa: F405
    """The activation an int8 cube op applies, as an op of that kind with its
    properties and no operands: what its Activation trait reads."""
    if op.activation is None:
        return None
    attrs = op.activation_attrs.data if op.activation_attrs is not None else {}
    return ACTIVATION_OPS[op.activation.data].create(properties=dict(attrs))


def reads_by_index(use) -> bool:
    """The operand of `use` is read at flat index i only for result element i:
    any operand of a SAME_INDEX_OPS op, or one an op lists in its
    `by_index_operands()` (an int8 conv's residual, added in its epilogue)."""
    op = use.operation
    return isinstance(op, SAME_INDEX_OPS) or use.index in getattr(
        op, "by_index_operands", lambda: ())()
