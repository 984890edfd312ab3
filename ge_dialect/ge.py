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


class GEOp(IRDLOperation):
    """Base of shape-inferring GE ops.

    Subclasses implement `infer_shape()` from operand shapes and properties.
    The shared verifier checks that every float operand has the result's
    element type and that the declared result shape agrees with the inferred
    one (a dynamic `?` matches anything).
    """

    def infer_shape(self) -> Shape | None:
        return None

    def verify_(self) -> None:
        result = self.results[0].type
        assert isinstance(result, TensorType)
        for operand in self.operands:
            assert isinstance(operand.type, TensorType)
            if operand.type.element_type != result.element_type:
                raise VerifyException(
                    f"{self.name}: operand element type {operand.type.element_type} "
                    f"differs from result element type {result.element_type}")
        try:
            inferred = self.infer_shape()
        except ShapeError as e:
            raise VerifyException(f"{self.name}: {e}") from e
        if inferred is not None and not shapes.compatible(inferred, result.get_shape()):
            raise VerifyException(
                f"{self.name}: result shape {shapes.fmt(result.get_shape())} does not "
                f"match the inferred shape {shapes.fmt(inferred)}")


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

    def __init__(self, input: SSAValue):
        super().__init__(operands=[input], result_types=[input.type])


class BinaryElementwiseOp(GEOp):
    """`%z = ge.<op> %x, %y : tensor<A>, tensor<B> -> tensor<C>` with broadcasting."""

    lhs = operand_def(AnyTensor)
    rhs = operand_def(AnyTensor)
    output = result_def(AnyTensor)
    traits = traits_def(Pure())
    assembly_format = (
        "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($output)")

    def __init__(self, lhs: SSAValue, rhs: SSAValue):
        shape = shapes.broadcast(shape_of(lhs), shape_of(rhs))
        super().__init__(operands=[lhs, rhs], result_types=[tensor_type(lhs.type, shape)])

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
class AdaptiveAvgPool2dOp(GEOp):
    """Adaptive average pooling to a fixed HxW; output_size 1x1 is global pooling.

        %y = ge.adaptive_avg_pool2d %x {output_size = array<i64: 1, 1>}
             : tensor<1x512x7x7xf32> -> tensor<1x512x1x1xf32>
    """

    name = "ge.adaptive_avg_pool2d"
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
class ReshapeOp(GEOp):
    """View the data under a new shape with the same element count (torch.reshape).

        %y = ge.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
    """

    name = "ge.reshape"
    input = operand_def(AnyTensor)
    output = result_def(AnyTensor)
    traits = traits_def(Pure(), Canonicalized())
    assembly_format = "$input attr-dict `:` type($input) `->` type($output)"

    def __init__(self, input: SSAValue, shape: Sequence[int]):
        super().__init__(operands=[input], result_types=[tensor_type(input.type, shape)])

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
    """Terminator of a region that produces tensors (ge.fused, ascend.task).

        ge.yield %y : tensor<1x64x56x56xf32>
    """

    name = "ge.yield"
    values = var_operand_def(AnyTensor)
    traits = traits_def(IsTerminator(), Pure())
    assembly_format = "$values attr-dict `:` type($values)"
    PARENTS: ClassVar = ("ge.fused", "ascend.task")

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


class GEConstantMaterialization(ConstantMaterializationInterface):
    """Lets the canonicalizer's folder turn folded attributes into ge.const."""

    def materialize_constant(self, value: Attribute, type: Attribute):
        if isinstance(value, DenseIntOrFPElementsAttr):
            return ConstOp(value)
        return None


GE = Dialect(
    "ge",
    [
        ConstOp,
        ReluOp,
        AddOp,
        MulOp,
        Conv2dOp,
        BatchNormOp,
        MaxPool2dOp,
        AdaptiveAvgPool2dOp,
        FlattenOp,
        ReshapeOp,
        MatMulOp,
        LinearOp,
        TransDataOp,
        FusedOp,
        YieldOp,
    ],
    [],
    [GEConstantMaterialization()],
)
