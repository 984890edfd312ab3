"""GE neural-network ops: convolutions, normalisations, pooling, resampling,
softmax and embedding.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    BoolAttr,
    DenseArrayBase,
    FloatAttr,
    Float64Type,
    IntegerAttr,
    I64,
    StringAttr,
    TensorType,
    UnitAttr,
    f64,
    i1,
    i64,
)
from xdsl.ir import SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    ParsePropInAttrDict,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
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
    F64Array,
    GEOp,
    i64_array,
    I64Array,
    is_integer,
    shape_of,
    tensor_type,
)
from ge_dialect.shapes import Shape, ShapeError
from ge_dialect.traits import CubeWork, MixPrecision


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
    traits = traits_def(Pure(), CubeWork(), MixPrecision("allow"))
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
    traits = traits_def(Pure(), CubeWork(), MixPrecision("allow"))
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
    traits = traits_def(Pure(), CubeWork(), MixPrecision("allow"))
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
# Pooling


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
    traits = traits_def(Pure(), MixPrecision("allow"))
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


OPS = [
    Conv2dOp,
    Conv1dOp,
    Conv3dOp,
    GroupNormOp,
    InstanceNormOp,
    RmsNormOp,
    BatchNormOp,
    ConvTranspose2dOp,
    AvgPool2dOp,
    InterpolateOp,
    GridSampleOp,
    LayerNormOp,
    SoftmaxOp,
    LogSoftmaxOp,
    EmbeddingOp,
    MaxPool2dOp,
    MaxPool2dWithIndicesOp,
    MaxPool3dOp,
    AvgPool3dOp,
    AdaptiveAvgPool2dOp,
    AdaptiveMaxPool2dOp,
]
