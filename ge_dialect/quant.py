"""Quantization ops: ONNX's QuantizeLinear / DequantizeLinear (the QDQ form
that calibration writes and QDQ ONNX models carry), the linear with an
int8 weight that weight-only quantization writes (GE's weight compression),
and the int8 cube ops that fold-quantized makes of a QDQ conv or linear
(AMCT's quantized Conv2D / MatMul: int8 in, int8 or fp32 out).

Scales are float tensors: one element (per tensor) or one per slice along
`axis` (per channel). Zero points, where given, are integer tensors of the
scale's shape; without one the zero point is 0 (symmetric int8).
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    I64,
    DictionaryAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    Signedness,
    StringAttr,
    TensorType,
    UnitAttr,
    f32,
    i64,
)
from xdsl.ir import Operation, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    ParsePropInAttrDict,
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
    GEOp,
    I64Array,
    element_type,
    i64_array,
    shape_of,
    tensor_type,
)
from ge_dialect.shapes import Shape, ShapeError
from ge_dialect.traits import CubeWork, MixPrecision

QUANTIZED_TYPES = ("i8", "ui8")


def int8(signed: bool = True) -> IntegerType:
    """i8, or ui8 (MLIR's spelling of an unsigned byte)."""
    return IntegerType(8, Signedness.SIGNLESS if signed else Signedness.UNSIGNED)


def _is_float(t) -> bool:
    return str(element_type(t)) in ("f32", "bf16", "f16")


def _check_scale(op: GEOp, data_shape: Shape, axis: int | None) -> None:
    """The scale (and zero point) hold one element, or one per slice along `axis`."""
    scale = shape_of(op.scale)
    if not _is_float(op.scale.type):
        raise VerifyException(f"{op.name}: scale must have float elements, got "
                              f"{element_type(op.scale.type)}")
    if op.zero_point is not None:
        if shape_of(op.zero_point) != scale:
            raise VerifyException(f"{op.name}: zero_point must have the scale's shape "
                                  f"{shapes.fmt(scale)}, got {shapes.fmt(shape_of(op.zero_point))}")
    if shapes.numel(scale) == 1 and len(scale) <= 1:
        return
    if len(scale) != 1 or axis is None:
        raise VerifyException(f"{op.name}: scale must have one element or be 1-D along "
                              f"axis, got {shapes.fmt(scale)}")
    if not -len(data_shape) <= axis < len(data_shape):
        raise VerifyException(f"{op.name}: axis {axis} is out of range for rank "
                              f"{len(data_shape)}")
    dim = data_shape[axis]
    if not shapes.compatible([dim], scale):
        raise VerifyException(f"{op.name}: scale has {shapes.fmt(scale)} elements but axis "
                              f"{axis} has {dim}")


class QDQOp(GEOp):
    """Shared by quantize and dequantize: (input, scale, zero_point?) along `axis`."""

    input = operand_def(AnyTensor)
    scale = operand_def(AnyTensor)
    zero_point = opt_operand_def(AnyTensor)
    output = result_def(AnyTensor)
    axis = prop_def(IntegerAttr[I64])
    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())
    traits = traits_def(Pure())
    assembly_format = (
        "$input `,` $scale (`,` $zero_point^)? attr-dict `:` type($input) `,` type($scale) "
        "(`,` type($zero_point)^)? `->` type($output)")

    def infer_shape(self) -> Shape:
        return shape_of(self.input)

    def quantized(self):
        """The integer side of the op: its result (quantize) or input (dequantize)."""
        raise NotImplementedError

    def per_tensor(self) -> tuple[float, int] | None:
        """(scale, zero point) when the scale is a constant of one f32 element and
        the zero point a constant of one element or absent (0); else None."""
        from ge_dialect.ge import ConstOp  # the dialect's ops, known once it is built
        from ge_dialect.tensors import to_numpy

        def one(value, dtypes):
            if not isinstance(value.owner, ConstOp):
                return None
            array = to_numpy(value.owner.value)
            return array.reshape(()).item() if array.size == 1 and array.dtype in dtypes else None
        scale = one(self.scale, ("float32",))
        zero = 0 if self.zero_point is None else one(self.zero_point, ("int8", "uint8"))
        return None if scale is None or zero is None else (scale, zero)

    def verify_element_types(self) -> None:
        q = self.quantized()
        real = self.input if q is self.output else self.output
        if str(element_type(q.type)) not in QUANTIZED_TYPES:
            raise VerifyException(f"{self.name}: the quantized tensor must have i8 or ui8 "
                                  f"elements, got {element_type(q.type)}")
        if not _is_float(real.type):
            raise VerifyException(f"{self.name}: the real tensor must have float elements, "
                                  f"got {element_type(real.type)}")
        if self.zero_point is not None and element_type(self.zero_point.type) != element_type(q.type):
            raise VerifyException(f"{self.name}: zero_point must have the quantized type "
                                  f"{element_type(q.type)}, got {element_type(self.zero_point.type)}")
        _check_scale(self, shape_of(self.input), self.axis.value.data)


@irdl_op_definition
class QuantizeOp(QDQOp):
    """x -> saturate(round_half_even(x / scale) + zero_point) (ONNX QuantizeLinear).

        %q = ge.quantize %x, %s {axis = 1 : i64} : tensor<1x8xf32>, tensor<f32> -> tensor<1x8xi8>
    """

    name = "ge.quantize"

    def __init__(self, input: SSAValue, scale: SSAValue, zero_point: SSAValue | None = None,
                 axis: int = 1, signed: bool = True):
        q = element_type(zero_point.type) if zero_point is not None else int8(signed)
        super().__init__(operands=[input, scale, [zero_point] if zero_point else []],
                         result_types=[TensorType(q, shape_of(input))],
                         properties={"axis": IntegerAttr(axis, i64)})

    def quantized(self):
        return self.output


@irdl_op_definition
class DequantizeOp(QDQOp):
    """q -> (q - zero_point) * scale, in the scale's float type (ONNX DequantizeLinear).

        %x = ge.dequantize %q, %s {axis = 0 : i64} : tensor<4x8xi8>, tensor<4xf32> -> tensor<4x8xf32>
    """

    name = "ge.dequantize"

    def __init__(self, input: SSAValue, scale: SSAValue, zero_point: SSAValue | None = None,
                 axis: int = 1):
        super().__init__(operands=[input, scale, [zero_point] if zero_point else []],
                         result_types=[tensor_type(scale.type, shape_of(input))],
                         properties={"axis": IntegerAttr(axis, i64)})

    def quantized(self):
        return self.input


@irdl_op_definition
class WeightQuantLinearOp(GEOp):
    """A linear whose [out, in] weight is int8 with fp scales per output
    channel: x @ (weight * antiquant_scale[:, None])^T + bias. CANN's
    WeightQuantBatchMatmulV2 (torch_npu.npu_weight_quant_batchmatmul) in
    linear's weight layout; decode reads a quarter of fp32's weight bytes.

        %y = ge.weight_quant_linear %x, %w, %s : tensor<1x64xf32>, tensor<32x64xi8>, tensor<32xf32>
             -> tensor<1x32xf32>

    With `antiquant_group_size = G` (CANN's antiquant_group_size) each
    channel has a scale per G inputs: antiquant_scale is [out, ceil(in / G)]
    and input k of channel n is scaled by antiquant_scale[n, k // G].
    """

    name = "ge.weight_quant_linear"
    input = operand_def(AnyTensor)
    weight = operand_def(AnyTensor)
    antiquant_scale = operand_def(AnyTensor)
    bias = opt_operand_def(AnyTensor)
    output = result_def(AnyTensor)
    antiquant_group_size = opt_prop_def(IntegerAttr[I64])
    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())
    # mixed precision moves its activations, scale and bias; the weight stays int8
    traits = traits_def(Pure(), CubeWork(), MixPrecision("allow"))
    assembly_format = (
        "$input `,` $weight `,` $antiquant_scale (`,` $bias^)? attr-dict `:` type($input) `,` "
        "type($weight) `,` type($antiquant_scale) (`,` type($bias)^)? `->` type($output)")

    def __init__(self, input: SSAValue, weight: SSAValue, antiquant_scale: SSAValue,
                 bias: SSAValue | None = None, group_size: int | None = None):
        shape = shapes.linear(shape_of(input), shape_of(weight))
        props = {} if group_size is None else {
            "antiquant_group_size": IntegerAttr(group_size, i64)}
        super().__init__(operands=[input, weight, antiquant_scale, [bias] if bias else []],
                         result_types=[tensor_type(input.type, shape)], properties=props)

    def group_size(self) -> int | None:
        """Inputs per scale along a channel; None: one scale for the whole channel."""
        g = self.antiquant_group_size
        return None if g is None else g.value.data

    def verify_element_types(self) -> None:
        result = element_type(self.output.type)
        if str(element_type(self.weight.type)) != "i8":
            raise VerifyException(f"{self.name}: weight must have i8 elements, got "
                                  f"{element_type(self.weight.type)}")
        for what, value in (("input", self.input), ("antiquant_scale", self.antiquant_scale),
                            ("bias", self.bias)):
            if value is not None and element_type(value.type) != result:
                raise VerifyException(f"{self.name}: {what} element type "
                                      f"{element_type(value.type)} differs from result "
                                      f"element type {result}")

    def infer_shape(self) -> Shape:
        weight = shape_of(self.weight)
        if len(weight) != 2:
            raise ShapeError(f"weight must be 2-D [out, in], got {shapes.fmt(weight)}")
        g = self.group_size()
        if g is not None and g < 1:
            raise ShapeError(f"antiquant_group_size must be >= 1, got {g}")
        groups = shapes.DYN if g is None or shapes.is_dyn(weight[1]) else -(-weight[1] // g)
        scale = weight[:1] if g is None else [weight[0], groups]
        for what, value, want in (("antiquant_scale", self.antiquant_scale, scale),
                                  ("bias", self.bias, weight[:1])):
            if value is not None and not shapes.compatible(shape_of(value), want):
                raise ShapeError(f"{what} must have shape {shapes.fmt(want)}, got "
                                 f"{shapes.fmt(shape_of(value))}")
        return shapes.linear(shape_of(self.input), weight)


class QuantizedCubeOp(GEOp):
    """Shared by the int8 cube ops: an int8 (or uint8) input with one scale,
    an int8 weight with one scale per output channel, then in fp32 the bias,
    a residual and an activation, and last, with `output_scale`, a
    requantization:

        acc = sum((input - input_zero_point) * weight) (int32)
        y   = acc * input_scale * weight_scale[c] + bias[c] (+ residual)
              (an i8 residual counts residual * residual_scale)
        y   = relu(y)                                  (with `relu`)
        y   = act(y)       (with `activation`: an activation op's name, e.g.
                            "ge.clamp" for ReLU6, and its `activation_attrs`)
        out = saturate(round_half_even(y / output_scale) + output_zero_point)
                           (with output_scale: i8 or ui8)

    which is what dequantize -> conv / linear -> [add] -> [relu or act] ->
    quantize computes, with the float products replaced by integer ones.
    Zero points are 0 where absent: symmetric int8 (ui8 holds [0, 255] *
    scale, the range of a ReLU's result at twice i8's resolution), as
    npu_graph.quantize writes; an asymmetric QDQ model (ONNX Runtime's
    quantize_static by default) carries them. A conv's padding is the input
    zero point's value (0.0 dequantized), as in the QDQ graph. Without
    `output_scale` the result is y in fp32."""

    input = operand_def(AnyTensor)
    weight = operand_def(AnyTensor)
    weight_scale = operand_def(AnyTensor)
    bias = opt_operand_def(AnyTensor)
    residual = opt_operand_def(AnyTensor)
    output = result_def(AnyTensor)
    input_scale = prop_def(FloatAttr)
    output_scale = opt_prop_def(FloatAttr)
    residual_scale = opt_prop_def(FloatAttr)
    relu = opt_prop_def(UnitAttr)
    activation = opt_prop_def(StringAttr)
    activation_attrs = opt_prop_def(DictionaryAttr)
    input_zero_point = opt_prop_def(IntegerAttr[I64])
    output_zero_point = opt_prop_def(IntegerAttr[I64])
    traits = traits_def(Pure(), CubeWork())

    def zero_points(self) -> tuple[int, int]:
        """(input's, output's); 0 where absent."""
        return tuple(0 if a is None else a.value.data
                     for a in (self.input_zero_point, self.output_zero_point))

    def quantized_output(self) -> bool:
        return self.output_scale is not None

    def by_index_operands(self) -> tuple[int, ...]:
        """The residual (the last operand, when there is one) is read at index
        i for output element i only: the output may take its bytes."""
        return (len(self.operands) - 1,) if self.residual is not None else ()

    def verify_element_types(self) -> None:
        def check(ok: bool, what: str, wanted: str, value) -> None:
            if not ok:
                raise VerifyException(f"{self.name}: {what} must have {wanted} elements, got "
                                      f"{element_type(value.type)}")
        kind = lambda v: str(element_type(v.type))
        check(kind(self.input) in QUANTIZED_TYPES, "input", "i8 or ui8", self.input)
        check(kind(self.weight) == "i8", "weight", "i8", self.weight)
        check(kind(self.weight_scale) == "f32", "weight_scale", "f32", self.weight_scale)
        if self.bias is not None:
            check(kind(self.bias) == "f32", "bias", "f32", self.bias)
        if self.residual is not None and self.residual_scale is not None:
            check(kind(self.residual) in QUANTIZED_TYPES, "residual (with residual_scale)",
                  "i8 or ui8", self.residual)
        elif self.residual is not None:
            check(kind(self.residual) == "f32", "residual (without residual_scale)", "f32",
                  self.residual)
        elif self.residual_scale is not None:
            raise VerifyException(f"{self.name}: residual_scale without a residual")
        if self.quantized_output():
            check(kind(self.output) in QUANTIZED_TYPES, "the output (with output_scale)",
                  "i8 or ui8", self.output)
        else:
            check(kind(self.output) == "f32", "the output (without output_scale)", "f32",
                  self.output)
        if self.activation is not None:
            from ge_dialect.ge import ACTIVATION_OPS  # the dialect's ops, known once it is built
            if self.relu is not None or self.activation.data not in ACTIVATION_OPS:
                raise VerifyException(f"{self.name}: activation must name an activation op "
                                      f"({', '.join(ACTIVATION_OPS)}), without relu; got "
                                      f"{self.activation.data}")
        for what, value in (("input_zero_point", self.input),
                            ("output_zero_point", self.output if self.quantized_output() else None)):
            attr = getattr(self, what)
            if attr is None:
                continue
            low, high = (-128, 127) if kind(value) == "i8" else (0, 255)
            if value is None or not low <= attr.value.data <= high:
                raise VerifyException(f"{self.name}: {what} must lie in the range of "
                                      f"{kind(value) if value is not None else 'an int8 output'}"
                                      f", got {attr.value.data}")
        for what in ("input_scale", "output_scale", "residual_scale"):
            attr = getattr(self, what)
            if attr is not None and (attr.type != f32 or not attr.value.data > 0):
                raise VerifyException(f"{self.name}: {what} must be a positive f32, got {attr}")

    def check_channels(self, channels: int) -> None:
        """weight_scale and bias hold one value per output channel; a residual
        has the output's shape."""
        for what, value in (("weight_scale", self.weight_scale), ("bias", self.bias)):
            if value is not None and not shapes.compatible(shape_of(value), [channels]):
                raise ShapeError(f"{what} must have shape [{channels}], got "
                                 f"{shapes.fmt(shape_of(value))}")
        if self.residual is not None and not shapes.compatible(shape_of(self.residual),
                                                               shape_of(self.output)):
            raise ShapeError(f"residual must have the output's shape "
                             f"{shapes.fmt(shape_of(self.output))}, got "
                             f"{shapes.fmt(shape_of(self.residual))}")


def _quantized_props(input_scale: float, output_scale: float | None, relu: bool,
                     residual_scale: float | None, activation: Operation | None,
                     zero_points: tuple[int, int] = (0, 0)) -> dict:
    props = {"input_scale": FloatAttr(input_scale, f32)}
    for name, zp in zip(("input_zero_point", "output_zero_point"), zero_points):
        if zp:
            props[name] = IntegerAttr(zp, i64)
    if output_scale is not None:
        props["output_scale"] = FloatAttr(output_scale, f32)
    if residual_scale is not None:
        props["residual_scale"] = FloatAttr(residual_scale, f32)
    if relu:
        props["relu"] = UnitAttr()
    if activation is not None:
        props["activation"] = StringAttr(activation.name)
        if activation.properties:
            props["activation_attrs"] = DictionaryAttr(dict(activation.properties))
    return props


_QUANTIZED_TAIL = ("(`bias` $bias^ `:` type($bias))? (`residual` $residual^ `:` type($residual))? "
                   "attr-dict `:` type($input) `,` type($weight) `,` type($weight_scale) `->` "
                   "type($output)")


@irdl_op_definition
class QuantizedConv2dOp(QuantizedCubeOp):
    """An int8 conv2d (NCHW input, OIHW weight) with its requantization (see
    QuantizedCubeOp): one cube task, int8 in and int8 (or fp32) out.

        %y = ge.quantized_conv2d %xq, %wq, %ws bias %b : tensor<4xf32>
               {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>,
                dilation = array<i64: 1, 1>, groups = 1 : i64,
                input_scale = 0.02 : f32, output_scale = 0.05 : f32, relu}
             : tensor<1x3x8x8xi8>, tensor<4x3x3x3xi8>, tensor<4xf32> -> tensor<1x4x8x8xi8>
    """

    name = "ge.quantized_conv2d"
    stride = prop_def(I64Array)
    padding = prop_def(I64Array)
    dilation = prop_def(I64Array)
    groups = prop_def(IntegerAttr[I64])
    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())
    assembly_format = "$input `,` $weight `,` $weight_scale " + _QUANTIZED_TAIL

    def __init__(self, input: SSAValue, weight: SSAValue, weight_scale: SSAValue,
                 bias: SSAValue | None, residual: SSAValue | None, stride, padding, dilation,
                 groups: int, input_scale: float, output_scale: float | None = None,
                 relu: bool = False, residual_scale: float | None = None,
                 activation: Operation | None = None, signed_output: bool = True,
                 zero_points: tuple[int, int] = (0, 0)):
        props = {"stride": i64_array(stride), "padding": i64_array(padding),
                 "dilation": i64_array(dilation), "groups": IntegerAttr(groups, i64),
                 **_quantized_props(input_scale, output_scale, relu, residual_scale, activation,
                                    zero_points)}
        shape = shapes.conv2d(shape_of(input), shape_of(weight), stride, padding, dilation,
                              groups)
        out = int8(signed_output) if output_scale is not None else f32
        super().__init__(operands=[input, weight, weight_scale, [bias] if bias else [],
                                   [residual] if residual else []],
                         result_types=[TensorType(out, shape)], properties=props)

    def infer_shape(self) -> Shape:
        for prop in ("stride", "padding", "dilation"):
            if len(getattr(self, prop)) != 2:
                raise ShapeError(f"{prop} must have 2 entries, got {len(getattr(self, prop))}")
        if len(shape_of(self.input)) != 4 or len(shape_of(self.weight)) != 4:
            raise ShapeError(f"input and weight must be 4-D, got "
                             f"{shapes.fmt(shape_of(self.input))} and "
                             f"{shapes.fmt(shape_of(self.weight))}")
        if self.groups.value.data < 1:
            raise ShapeError(f"groups must be >= 1, got {self.groups.value.data}")
        self.check_channels(shape_of(self.weight)[0])
        return shapes.conv2d(shape_of(self.input), shape_of(self.weight),
                             self.stride.get_values(), self.padding.get_values(),
                             self.dilation.get_values(), self.groups.value.data)


@irdl_op_definition
class QuantizedLinearOp(QuantizedCubeOp):
    """An int8 linear, x [..., in] @ weight[out, in]^T, with its
    requantization (see QuantizedCubeOp): one cube task.

        %y = ge.quantized_linear %xq, %wq, %ws {input_scale = 0.02 : f32}
             : tensor<1x64xi8>, tensor<10x64xi8>, tensor<10xf32> -> tensor<1x10xf32>
    """

    name = "ge.quantized_linear"
    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())
    assembly_format = "$input `,` $weight `,` $weight_scale " + _QUANTIZED_TAIL

    def __init__(self, input: SSAValue, weight: SSAValue, weight_scale: SSAValue,
                 bias: SSAValue | None, residual: SSAValue | None, input_scale: float,
                 output_scale: float | None = None, relu: bool = False,
                 residual_scale: float | None = None, activation: Operation | None = None,
                 signed_output: bool = True, zero_points: tuple[int, int] = (0, 0)):
        shape = shapes.linear(shape_of(input), shape_of(weight))
        out = int8(signed_output) if output_scale is not None else f32
        super().__init__(operands=[input, weight, weight_scale, [bias] if bias else [],
                                   [residual] if residual else []],
                         result_types=[TensorType(out, shape)],
                         properties=_quantized_props(input_scale, output_scale, relu,
                                                     residual_scale, activation, zero_points))

    def infer_shape(self) -> Shape:
        weight = shape_of(self.weight)
        if len(weight) != 2:
            raise ShapeError(f"weight must be 2-D [out, in], got {shapes.fmt(weight)}")
        self.check_channels(weight[0])
        return shapes.linear(shape_of(self.input), weight)


OPS = [QuantizeOp, DequantizeOp, WeightQuantLinearOp, QuantizedConv2dOp, QuantizedLinearOp]
