"""QuantizeLinear and DequantizeLinear: the QDQ nodes of a quantized ONNX
model (ONNX Runtime's quantize_static, AMCT's ONNX output) as ge.quantize
and ge.dequantize, the form npu_graph.quantize writes.

Scales and zero points are taken as they are: one element (per tensor) or
1-D along `axis` (per channel). A QuantizeLinear without a zero point
yields uint8, as ONNX says. Blocked quantization (`block_size`) and the
16-bit, 4-bit and float8 types have no GE form yet.

The one int32 DequantizeLinear there is, a quantized bias (ONNX Runtime's
quantize_static writes conv and Gemm biases as int32 with the scale
input_scale * weight_scale and no zero point), is a constant: it is
imported as the float constant it dequantizes to, (q - zero_point) * scale
in fp32, the bias fold-quantized then takes.
"""

from __future__ import annotations

import numpy as np

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
    q, scale = g.constant(n, 0), g.constant(n, 1)
    if q is not None and q.dtype == np.int32:
        if scale is None or (g.has_input(n, 2) and g.constant(n, 2) is None):
            raise OnnxUnsupported("an int32 DequantizeLinear (a quantized bias) whose scale or "
                                  "zero point is computed in the graph; GE folds constant ones")
        return [g.const(_dequantized(q, scale, g.constant(n, 2), axis),
                        n.output[0] or "bias")]
    x = g.input(n, 0)
    _quantized_type(x, "input")
    return [g.emit(ge.DequantizeOp(x, g.input(n, 1), _zero_point(g, n), axis))]


def _dequantized(q: np.ndarray, scale: np.ndarray, zero_point: np.ndarray | None,
                 axis: int) -> np.ndarray:
    """(q - zero_point) * scale in fp32, the scale (and zero point) per tensor
    or along `axis`."""
    shape = [1] * q.ndim
    if scale.size != 1:
        shape[axis % q.ndim] = scale.size
    zp = np.zeros((), np.int64) if zero_point is None else zero_point.astype(np.int64)
    centred = (q.astype(np.int64) - zp.reshape(shape if zp.size != 1 else ())).astype(np.float32)
    return (centred * scale.astype(np.float32).reshape(shape if scale.size != 1 else ())
            ).astype(np.float32)
