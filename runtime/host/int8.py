"""Host kernels for int8 weights: the weight-only linear (`ge.weight_quant_linear`).

Decode reads every weight once per token, so its time is the bytes read:
an int8 weight is a quarter of fp32's. That only pays if the kernel reads
the int8 bytes and widens them in registers. Measured on a Xeon with
AVX-512 (2 threads, a 2816x1024 weight, one row of activations):

    fp32 F.linear (oneDNN/MKL GEMV)              0.33 ms
    torch._weight_int8pack_mm (ATen's int8 mm)   0.81 ms
    dequantize to fp32, then F.linear            slower than fp32
    the C loop below (gcc -O3 -march=native)     0.14 ms

Beyond the caches (40 such weights in turn, 2 threads, Sapphire Rapids
class): fp32 F.linear 18 ms, the loop one output channel at a time with
one accumulator chain 15.4 ms, four channels at once (each x vector
loaded once for four weight rows) 9.9 ms. On an AMD EPYC (Zen 4 class,
2 threads, a 1024x8 Llama's 127 MB of int8 linear weights in turn), four
channels at once took 7.6 ms and one channel's row at a time, front to
back with four accumulator chains along it, 6.1 ms: the loop below. A
thread then reads its rows as one sequential stream, which the hardware
prefetcher follows best (as runtime/host/gemv.py's fp32 and bf16 loops).

oneDNN 3.2 (the runtime's primitives) has no fp32-source, int8-weight
matmul; its weight decompression came later. So the GEMV is the C in
`_SOURCE`, compiled once with the system's C compiler into a
cache directory and loaded with ctypes (runtime/host/cc.py). It runs on torch's OpenMP pool
(the library resolves `libgomp.so.1` to the one torch loaded), so
`torch.set_num_threads` applies to it. Without a compiler, for non-fp32
types and for many rows (prefill, where the product is compute-bound) the
weight is dequantized per call and the linear is torch's, with the same
values up to summation order.
"""

from __future__ import annotations

import ctypes
import functools
import os

import torch
import torch.nn.functional as F

from runtime.host import cc
from runtime.host.gemv import C_DOT_ROW

# Rows of activations up to which the C loop runs; above, the product is
# compute-bound and torch's GEMM on the dequantized weight is faster.
MAX_GEMV_ROWS = 16

_SOURCE = C_DOT_ROW + r"""
#include <stdint.h>
#if defined(__AVX512BW__)
#define LOAD_I8(p) _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(p))))
#define MLOAD_I8(m, p) _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(m, p)))
DOT_ROW(dot, int8_t, LOAD_I8, MLOAD_I8)
#else
static float dot(const int8_t *w, const float *x, int64_t k_in) {
    float acc = 0.0f;
    #pragma omp simd reduction(+:acc)
    for (int64_t k = 0; k < k_in; k++) acc += x[k] * (float)w[k];
    return acc;
}
#endif

/* y[m, n] = scale[n] * sum_k x[m, k] * w[n, k] (+ bias[n]): an int8 weight
   widened to fp32 in registers, one output channel's row at a time (a
   thread reads its range of rows as one sequential stream; the rows of x
   stay in the cache). */
void weight_quant_linear(const float *x, int64_t ldx, const int8_t *w, const float *scale,
                         const float *bias, float *y, int64_t ldy,
                         int64_t rows, int64_t n_out, int64_t k_in) {
    #pragma omp parallel for schedule(static)
    for (int64_t n = 0; n < n_out; n++)
        for (int64_t m = 0; m < rows; m++)
            y[m * ldy + n] = dot(w + n * k_in, x + m * ldx, k_in) * scale[n]
                             + (bias ? bias[n] : 0.0f);
}
"""
_SIGNATURES = {"weight_quant_linear": [
    ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
    ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64]}


def library() -> ctypes.CDLL | None:
    """The compiled GEMV, built on first use (runtime/host/cc.py); None
    without a working C compiler (`GE_INT8_KERNEL=none` or
    `GE_HOST_C_KERNELS=none` turns it off)."""
    if os.environ.get("GE_INT8_KERNEL") == "none":
        return None
    return cc.load("weight_quant_linear", _SOURCE, _SIGNATURES)


def quantize_weight(weight: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """[out, in] float weight -> (int8 weight, fp32 scale per output channel):
    symmetric, the channel's largest magnitude maps to 127 (an all-zero
    channel gets scale 1)."""
    w = weight.detach().float()
    amax = w.abs().amax(dim=1)
    scale = torch.where(amax > 0, amax / 127.0, torch.ones_like(amax))
    q = torch.round(w / scale[:, None]).clamp_(-127, 127).to(torch.int8)
    return q, scale


def dequantized_linear(x, weight, scale, bias=None) -> torch.Tensor:
    """The reference: widen the weight, then torch's linear."""
    w = weight.to(x.dtype) * scale.to(x.dtype)[:, None]
    return F.linear(x, w, bias)


def _gemv_ok(x: torch.Tensor, weight: torch.Tensor, scale: torch.Tensor,
             bias: torch.Tensor | None, out: torch.Tensor | None) -> bool:
    rows = x.numel() // max(x.shape[-1], 1)
    return (x.dtype == scale.dtype == torch.float32 and weight.dtype == torch.int8
            and (bias is None or bias.dtype == torch.float32)
            and rows <= MAX_GEMV_ROWS and x.shape[-1] > 0 and weight.is_contiguous() and (out is None or out.is_contiguous())
            and library() is not None)


def weight_quant_linear(x: torch.Tensor, weight: torch.Tensor, scale: torch.Tensor,
                        bias: torch.Tensor | None = None, out: torch.Tensor | None = None
                        ) -> torch.Tensor:
    """x @ (weight * scale[:, None])^T + bias, into `out` if given (contiguous,
    x's leading shape by weight's rows)."""
    if not _gemv_ok(x, weight, scale, bias, out):
        y = dequantized_linear(x, weight, scale, bias)
        return y if out is None else out.copy_(y)
    k = x.shape[-1]
    x2 = x.reshape(-1, k)
    if x2.stride(-1) != 1:
        x2 = x2.contiguous()
    n = weight.shape[0]
    if out is None:
        out = torch.empty(*x.shape[:-1], n, dtype=x.dtype)
    scale = scale.contiguous()
    bias = bias.contiguous() if bias is not None else None
    library().weight_quant_linear(
        x2.data_ptr(), x2.stride(0), weight.data_ptr(), scale.data_ptr(),
        bias.data_ptr() if bias is not None else None, out.data_ptr(), n,
        x2.shape[0], n, k)
    return out


def task_runner(t):
    """A runner for a task whose body is one `ge.weight_quant_linear` with
    its weight and scale (and bias) as constants: the GEMV straight into
    the task's output view (`t` is runtime/host/runners.py's Task). None
    if the body is anything else or the view is not contiguous."""
    ops = t.ops
    if len(ops) != 1 or t.yielded != [ops[0].output]:
        return None
    op = ops[0]
    x, w, s = t.arg(op.input), t.arg(op.weight), t.arg(op.antiquant_scale)
    b = t.arg(op.bias) if op.bias is not None else None
    if x is None or not t.constant(w) or not t.constant(s) or (
            op.bias is not None and not t.constant(b)):
        return None
    out = t.out
    if not isinstance(out, torch.Tensor) or not out.is_contiguous():
        return None
    weight, scale = t.ins[w].contiguous(), t.ins[s].contiguous()
    bias = t.ins[b].contiguous() if b is not None else None
    bound = t.ins[x]
    if isinstance(bound, torch.Tensor) and bound.is_contiguous() and _gemv_ok(
            bound, weight, scale, bias, out):  # the C call itself, bound now
        k, n = bound.shape[-1], weight.shape[0]
        rows = bound.numel() // k
        call = functools.partial(
            library().weight_quant_linear, bound.data_ptr(), k, weight.data_ptr(),
            scale.data_ptr(), bias.data_ptr() if bias is not None else None, out.data_ptr(),
            n, rows, n, k)
        run = cc.as_runner(call, "int8_weight_gemv")
        run.keep = (bound, weight, scale, bias, out)
        return run

    def int8_weight_gemv(*args):
        weight_quant_linear(args[x], weight, scale, bias, out)
    return int8_weight_gemv


def _along(t: torch.Tensor, axis: int, rank: int) -> torch.Tensor:
    """A scale or zero point shaped to broadcast along `axis` (per tensor if one element)."""
    if t.numel() == 1:
        return t.reshape(())
    shape = [1] * rank
    shape[axis % rank] = -1
    return t.reshape(shape)


# The integer range of each quantized type.
RANGES = {torch.int8: (-128, 127), torch.uint8: (0, 255)}


def quantize(x: torch.Tensor, scale: torch.Tensor, zero_point: torch.Tensor | None,
             axis: int, dtype: torch.dtype) -> torch.Tensor:
    """ONNX QuantizeLinear: saturate(round_half_even(x / scale) + zero_point),
    computed in fp32 as ONNX specifies."""
    s = _along(scale.float(), axis, x.dim())
    y = torch.round(x.float() / s)
    if zero_point is not None:
        y = y + _along(zero_point.float(), axis, x.dim())
    low, high = RANGES[dtype]
    return y.clamp_(low, high).to(dtype)


def dequantize(q: torch.Tensor, scale: torch.Tensor, zero_point: torch.Tensor | None,
               axis: int) -> torch.Tensor:
    """ONNX DequantizeLinear: (q - zero_point) * scale, in the scale's type."""
    y = q.float()
    if zero_point is not None:
        y = y - _along(zero_point.float(), axis, q.dim())
    return (y * _along(scale.float(), axis, q.dim())).to(scale.dtype)
