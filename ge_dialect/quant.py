"""Quantization ops: ONNX's QuantizeLinear / DequantizeLinear (the QDQ form
that calibration writes and QDQ ONNX models carry) and the linear with an
int8 weight that weight-only quantization writes (GE's weight compression).

Scales are float tensors: one element (per tensor) or one per slice along
`axis` (per channel). Zero points, where given, are integer tensors of the
scale's shape; without one the zero point is 0 (symmetric int8).
"""

from __future__ import annotations

from xdsl.dialects.builtin import I64, IntegerAttr, IntegerType, Signedness, TensorType, i64
from xdsl.ir import SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from ge_dialect import shapes
from ge_dialect.op_base import AnyTensor, GEOp, element_type, shape_of, tensor_type
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
    """A linear whose [out, in] weight is int8 with one fp scale per output
    channel: x @ (weight * antiquant_scale[:, None])^T + bias. CANN's
    WeightQuantBatchMatmulV2 (torch_npu.npu_weight_quant_batchmatmul) in
    linear's weight layout; decode reads a quarter of fp32's weight bytes.

        %y = ge.weight_quant_linear %x, %w, %s : tensor<1x64xf32>, tensor<32x64xi8>, tensor<32xf32>
             -> tensor<1x32xf32>
    """

    name = "ge.weight_quant_linear"
    input = operand_def(AnyTensor)
    weight = operand_def(AnyTensor)
    antiquant_scale = operand_def(AnyTensor)
    bias = opt_operand_def(AnyTensor)
    output = result_def(AnyTensor)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    # mixed precision moves its activations, scale and bias; the weight stays int8
    traits = traits_def(Pure(), CubeWork(), MixPrecision("allow"))
    assembly_format = (
        "$input `,` $weight `,` $antiquant_scale (`,` $bias^)? attr-dict `:` type($input) `,` "
        "type($weight) `,` type($antiquant_scale) (`,` type($bias)^)? `->` type($output)")

    def __init__(self, input: SSAValue, weight: SSAValue, antiquant_scale: SSAValue,
                 bias: SSAValue | None = None):
        shape = shapes.linear(shape_of(input), shape_of(weight))
        super().__init__(operands=[input, weight, antiquant_scale, [bias] if bias else []],
                         result_types=[tensor_type(input.type, shape)])

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
        for what, value in (("antiquant_scale", self.antiquant_scale), ("bias", self.bias)):
            if value is not None and not shapes.compatible(shape_of(value), weight[:1]):
                raise ShapeError(f"{what} must have shape {shapes.fmt(weight[:1])}, got "
                                 f"{shapes.fmt(shape_of(value))}")
        return shapes.linear(shape_of(self.input), weight)


OPS = [QuantizeOp, DequantizeOp, WeightQuantLinearOp]
