"""Quantize fp32 or bf16 rows into an int8 view, and dequantize int8 rows into
fp32, as C loops.

A transformer's int8 linears each read a `quantize` of a float tensor (a
LayerNorm's result, the attention's): BERT-base has 36 of them, each
[128, 768]. oneDNN 3.2 runs one as a generic reorder, 17-30 us on 2
threads; the loop runs ONNX's QuantizeLinear arithmetic (x / scale in
fp32, rounded half to even, plus the zero point, saturated) over the rows
in a few us. An imported QDQ model (ONNX Runtime's quantize_static) also
dequantizes int8 activations for its float ops (a residual add): the same
loop the other way, (q - zero_point) * scale.

Rounding adds and subtracts 1.5 * 2^23, which leaves a float of magnitude
below 2^22 rounded to an integer, half to even; the value is saturated to
the type's range less the zero point first (the same as saturating after
adding it, the bounds being integers), so it always is.
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable

import torch

from runtime.host import bf16, cc, int8

# Elements from which the rows are split over torch's thread pool.
PARALLEL_ELEMENTS = 1 << 15
# A flat array's row, so that its rows can be split over the threads.
FLAT_ROW = 1024

_SOURCE = bf16.C_CONVERSIONS + r"""
/* lo and hi are the type's range less the zero point, which is added after */
static inline float quantized(float v, float scale, float lo, float hi, float zp) {
    v = v / scale;
    v = v < lo ? lo : (v > hi ? hi : v);
    return ((v + 12582912.0f) - 12582912.0f) + zp;
}
#define QUANTIZE_ROWS(NAME, IN, LOAD, OUT)                                               \
void NAME(const IN *x, int64_t ldx, OUT *y, int64_t ldy, int64_t rows, int64_t n,         \
          float scale, float lo, float hi, float zp) {                                   \
    _Pragma("omp parallel for schedule(static) if (rows * n >= PARALLEL_ELEMENTS)")    \
    for (int64_t m = 0; m < rows; m++) {                                                 \
        const IN *xm = x + m * ldx;                                                      \
        OUT *ym = y + m * ldy;                                                           \
        _Pragma("omp simd")                                                              \
        for (int64_t k = 0; k < n; k++) ym[k] = (OUT)(int32_t)quantized(LOAD(xm[k]), scale, lo, hi, zp); \
    }                                                                                    \
}
#define AS_FLOAT(v) (v)
QUANTIZE_ROWS(quantize_f32_s8, float, AS_FLOAT, int8_t)
QUANTIZE_ROWS(quantize_f32_u8, float, AS_FLOAT, uint8_t)
QUANTIZE_ROWS(quantize_bf16_s8, uint16_t, bf16_load, int8_t)
QUANTIZE_ROWS(quantize_bf16_u8, uint16_t, bf16_load, uint8_t)
/* ONNX's DequantizeLinear: (q - zero_point) * scale in fp32 */
#define DEQUANTIZE_ROWS(NAME, IN)                                                        \
void NAME(const IN *x, int64_t ldx, float *y, int64_t ldy, int64_t rows, int64_t n,       \
          float scale, float zp) {                                                       \
    _Pragma("omp parallel for schedule(static) if (rows * n >= PARALLEL_ELEMENTS)")    \
    for (int64_t m = 0; m < rows; m++) {                                                 \
        const IN *xm = x + m * ldx;                                                      \
        float *ym = y + m * ldy;                                                         \
        _Pragma("omp simd")                                                              \
        for (int64_t k = 0; k < n; k++) ym[k] = ((float)xm[k] - zp) * scale;             \
    }                                                                                    \
}
DEQUANTIZE_ROWS(dequantize_s8_f32, int8_t)
DEQUANTIZE_ROWS(dequantize_u8_f32, uint8_t)
""".replace("PARALLEL_ELEMENTS", str(PARALLEL_ELEMENTS))

_I64, _PTR, _F = ctypes.c_int64, ctypes.c_void_p, ctypes.c_float
_ARGS = [_PTR, _I64, _PTR, _I64, _I64, _I64, _F, _F, _F, _F]
_NAMES = {(torch.float32, torch.int8): "quantize_f32_s8",
          (torch.float32, torch.uint8): "quantize_f32_u8",
          (torch.bfloat16, torch.int8): "quantize_bf16_s8",
          (torch.bfloat16, torch.uint8): "quantize_bf16_u8"}


_DEQUANTIZE_ARGS = [_PTR, _I64, _PTR, _I64, _I64, _I64, _F, _F]
_DEQUANTIZE_NAMES = {(torch.int8, torch.float32): "dequantize_s8_f32",
                     (torch.uint8, torch.float32): "dequantize_u8_f32"}


def library() -> ctypes.CDLL | None:
    return cc.load("quantize_rows", _SOURCE,
                   {**{name: _ARGS for name in _NAMES.values()},
                    **{name: _DEQUANTIZE_ARGS for name in _DEQUANTIZE_NAMES.values()}})


def kernel(x: torch.Tensor, out: torch.Tensor, scale: float,
           zero_point: int = 0) -> Callable[[], None] | None:
    """out = saturate(round_half_even(x / scale) + zero_point) as a call bound
    to these views now: as rows of the last dim, or as one flat array where
    both views have the same strides and fill their bytes (an NHWC view of
    a CNN's activations). None where the loop does not apply (other types,
    shapes that differ, a row not contiguous or rows not evenly spaced,
    views that overlap, a scale that is not a positive finite number, no C
    library)."""
    name = _NAMES.get((x.dtype, out.dtype))
    if name is None or not (0.0 < scale < float("inf")):
        return None
    lo, hi = int8.RANGES[out.dtype]
    return _bound(name, x, out, scale, lo - zero_point, hi - zero_point, zero_point)


def dequantize_kernel(x: torch.Tensor, out: torch.Tensor, scale: float,
                      zero_point: int = 0) -> Callable[[], None] | None:
    """out = (x - zero_point) * scale, int8 or uint8 into fp32, as `kernel`
    binds its call (the same layouts; a finite scale)."""
    name = _DEQUANTIZE_NAMES.get((x.dtype, out.dtype))
    if name is None or not abs(scale) < float("inf"):
        return None
    return _bound(name, x, out, scale, float(zero_point))


def _bound(name: str, x: torch.Tensor, out: torch.Tensor, *scalars) -> Callable[[], None] | None:
    if x.shape != out.shape or x.dim() == 0 or out.numel() == 0 or cc.overlap(x, out):
        return None
    if x.stride() == out.stride() and _dense(x):
        # the same layout (two NHWC views of a CNN's activations): elementwise,
        # the element at offset i of one is the element at offset i of the other
        n = FLAT_ROW if out.numel() % FLAT_ROW == 0 else out.numel()  # rows for the threads
        rows = [(t.data_ptr(), n, t.numel() // n) for t in (x, out)]
    else:
        n = out.shape[-1]
        rows = [cc.as_rows(t, n) for t in (x, out)]
    lib = library() if None not in rows else None
    if lib is None:
        return None
    (xp, ldx, m), (yp, ldy, _) = rows
    call = functools.partial(getattr(lib, name), xp, ldx, yp, ldy, m, n, *scalars)
    call.keep = (x, out)  # the bound pointers stay valid while the call lives
    return call


def _dense(t: torch.Tensor) -> bool:
    """Whether the view is a contiguous tensor with its dims permuted: its
    elements fill numel() consecutive slots from the first one."""
    expected = 1
    for stride, size in sorted((st, d) for d, st in zip(t.shape, t.stride()) if d != 1):
        if stride != expected:
            return False
        expected *= size
    return True
