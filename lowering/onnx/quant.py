"""QuantizeLinear and DequantizeLinear: the QDQ nodes of a quantized ONNX
model (ONNX Runtime's quantize_static, AMCT's ONNX output) as ge.quantize
and ge.dequantize, the form npu_graph.quantize writes.

Scales and zero points are taken as they are: one element (per tensor) or
1-D along `axis` (per channel). A QuantizeLinear without a zero point
yields uint8, as ONNX says. Blocked quantization (`block_size`) and the
16-bit, 4-bit and float8 types have no GE form yet.
"""

from __future__ import annotations

from ge_dialect import ge
from lowering.onnx.common import OnnxUnsupported


def _zero_point(g, n):
    return g.input(n, 2) if g.has_input(n, 2) else None


def _check(g, n) -> int:
    if g.attr(n, "block_size", 0):
        raise OnnxUnsupported("blocked quantization (block_size); GE takes per-tensor or "
                              "per-axis scales")
    return int(g.attr(n, "axis", 1))


def _quantized_type(value, what: str) -> None:
    if value is not None and str(value.type.element_type) not in ("i8", "ui8"):
        raise OnnxUnsupported(f"{what} of type {value.type.element_type}; GE quantizes to "
                              "int8 and uint8")


def quantize_linear(g, n) -> list:
    axis = _check(g, n)
    zero_point = _zero_point(g, n)
    _quantized_type(zero_point, "zero point")
    if g.attr(n, "output_dtype", 0) not in (0, 2, 3):
        raise OnnxUnsupported("output_dtype other than INT8 or UINT8")
    signed = g.attr(n, "output_dtype", 0) == 3
    return [g.emit(ge.QuantizeOp(g.input(n, 0), g.input(n, 1), zero_point, axis, signed))]


def dequantize_linear(g, n) -> list:
    axis = _check(g, n)
    x = g.input(n, 0)
    _quantized_type(x, "input")
    return [g.emit(ge.DequantizeOp(x, g.input(n, 1), _zero_point(g, n), axis))]
