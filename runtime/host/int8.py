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
`torch.set_num_threads` applies to it. For many rows (prefill, where the
product is compute-bound) the weight is dequantized a block of output
channels at a time into a scratch block that stays in the caches, each
block's product torch's GEMM (`blocked_linear`); without a compiler and for
non-fp32 types the whole weight is dequantized per call. Both give the
values of the dequantized weight's linear up to summation order.
"""

from __future__ import annotations

import ctypes
import functools
import os
import threading

import torch
import torch.nn.functional as F

from runtime.host import cc
from runtime.host.gemv import C_DOT_ROW

# Rows of activations up to which the C loop runs; above, the product is
# compute-bound and torch's GEMM on the dequantized weight is faster.
MAX_GEMV_ROWS = 16
# Above it (a prefill), the weight is dequantized a block of output channels
# of at most this many fp32 bytes at a time, into scratch that stays in the
# caches for the block's GEMM: the whole fp32 weight, four times the int8
# bytes, is never written out and read back (a 1024x8 Llama's linears over
# 128 rows: 331-424 ms dequantized whole, 201-215 ms in blocks, 223-278 ms
# for torch's linear on the fp32 weights, interleaved runs).
BLOCK_BYTES = 4 << 20

_SOURCE = C_DOT_ROW + r"""
#include <stdint.h>
#if defined(__AVX512BW__)
#define LOAD_I8(p) _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(p))))
#define MLOAD_I8(m, p) _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(m, p)))
DOT_ROW(dot, int8_t, LOAD_I8, MLOAD_I8)
/* A row in groups of `group` inputs, each group's products summed in lanes
   and scaled by its s[g]; the lanes summed last. */
static inline float dot_groups(const int8_t *w, const float *x, const float *s, int64_t k,
                               int64_t group) {
    __m512 acc = _mm512_setzero_ps();
    for (int64_t k0 = 0, g = 0; k0 < k; k0 += group, g++)
        acc = _mm512_fmadd_ps(dot_lanes(w + k0, x + k0, k - k0 < group ? k - k0 : group),
                              _mm512_set1_ps(s[g]), acc);
    return _mm512_reduce_add_ps(acc);
}
#else
static float dot(const int8_t *w, const float *x, int64_t k_in) {
    float acc = 0.0f;
    #pragma omp simd reduction(+:acc)
    for (int64_t k = 0; k < k_in; k++) acc += x[k] * (float)w[k];
    return acc;
}

static float dot_groups(const int8_t *w, const float *x, const float *s, int64_t k,
                        int64_t group) {
    float acc = 0.0f;
    for (int64_t k0 = 0, g = 0; k0 < k; k0 += group, g++)
        acc += dot(w + k0, x + k0, k - k0 < group ? k - k0 : group) * s[g];
    return acc;
}
#endif

/* y[m, n] = sum_k x[m, k] * w[n, k] * scale[n, k / group] (+ bias[n]): an
   int8 weight widened to fp32 in registers, one output channel's row at a
   time (a thread reads its range of rows as one sequential stream; the
   rows of x stay in the cache). group >= k_in: one scale per channel. */
void weight_quant_linear(const float *x, int64_t ldx, const int8_t *w, const float *scale,
                         int64_t group, const float *bias, float *y, int64_t ldy,
                         int64_t rows, int64_t n_out, int64_t k_in) {
    const int64_t groups = (k_in + group - 1) / group;
    #pragma omp parallel for schedule(static)
    for (int64_t n = 0; n < n_out; n++)
        for (int64_t m = 0; m < rows; m++)
            y[m * ldy + n] = (groups == 1
                              ? dot(w + n * k_in, x + m * ldx, k_in) * scale[n]
                              : dot_groups(w + n * k_in, x + m * ldx, scale + n * groups,
                                           k_in, group))
                             + (bias ? bias[n] : 0.0f);
}

/* out[n, k] = w[n, k] * scale[n, k / group] over `rows` rows: a block of the
   weight widened for a GEMM, rounded as torch's w.float() * scale. */
void dequantize_rows(const int8_t *w, const float *scale, int64_t group, float *out,
                     int64_t rows, int64_t k_in) {
    const int64_t groups = (k_in + group - 1) / group;
    #pragma omp parallel for schedule(static)
    for (int64_t n = 0; n < rows; n++)
        for (int64_t k0 = 0, g = 0; k0 < k_in; k0 += group, g++) {
            const float s = scale[n * groups + g];
            const int64_t end = k_in - k0 < group ? k_in : k0 + group;
            #pragma omp simd
            for (int64_t k = k0; k < end; k++) out[n * k_in + k] = (float)w[n * k_in + k] * s;
        }
}
"""
_P, _N = ctypes.c_void_p, ctypes.c_int64
_SIGNATURES = {"weight_quant_linear": [_P, _N, _P, _P, _N, _P, _P, _N, _N, _N, _N],
               "dequantize_rows": [_P, _P, _N, _P, _N, _N]}


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


def expanded_scale(scale: torch.Tensor, group_size: int | None, k: int) -> torch.Tensor:
    """The scale of each weight element, broadcastable to [out, k]: [out, 1]
    per channel, each group's scale repeated over its inputs otherwise."""
    if group_size is None or scale.dim() == 1:
        return scale.reshape(-1, 1)
    return scale.repeat_interleave(group_size, dim=1)[:, :k]


def dequantized_linear(x, weight, scale, bias=None, group_size: int | None = None
                       ) -> torch.Tensor:
    """The reference: widen the weight, then torch's linear."""
    w = weight.to(x.dtype) * expanded_scale(scale.to(x.dtype), group_size, weight.shape[1])
    return F.linear(x, w, bias)


def _group(scale: torch.Tensor, group_size: int | None, k: int) -> int:
    """The C loops' group: k (one scale per channel) for a per-channel scale."""
    return k if group_size is None or scale.dim() == 1 else group_size


def block_rows(k: int, m: int) -> int:
    """Output channels `blocked_linear` dequantizes at once, against m rows
    of activations of k: a block of weight and its block of results each
    at most BLOCK_BYTES, but never fewer than MAX_GEMV_ROWS channels."""
    return max(MAX_GEMV_ROWS, BLOCK_BYTES // (4 * max(k, m, 1)))


_LOCAL = threading.local()


def _scratch(elements: int) -> torch.Tensor:
    """This thread's fp32 scratch of `elements`, kept for its next call: a
    fresh one per call would map and fault in new pages each time. It is
    the largest call's two blocks (2 x BLOCK_BYTES unless rows of more than
    BLOCK_BYTES / 64 elements floor a block at MAX_GEMV_ROWS channels)."""
    buf = getattr(_LOCAL, "buf", None)
    if buf is None or buf.numel() < elements:
        buf = _LOCAL.buf = torch.empty(elements)
    return buf[:elements]


def blocked_linear(x: torch.Tensor, weight: torch.Tensor, scale: torch.Tensor,
                   bias: torch.Tensor | None, out: torch.Tensor | None = None,
                   group_size: int | None = None) -> torch.Tensor:
    """fp32 x @ (weight * scale)^T + bias (scale per channel or per group), `block_rows` output
    channels at a time: each block of the weight dequantized into scratch,
    then multiplied as w @ x^T (a block of output channels by all rows, the
    layout torch's GEMM runs fastest here), its results copied into their
    columns of `out` (contiguous) if given."""
    n, k = weight.shape
    x2 = x.reshape(-1, k)
    m = x2.shape[0]
    rows = min(n, block_rows(k, m))
    space = _scratch(rows * (k + m))
    w_block, y_block = space[:rows * k].view(rows, k), space[rows * k:].view(rows, m)
    y = torch.empty(*x.shape[:-1], n) if out is None else out
    y2 = y.view(-1, n)
    lib = library() if weight.is_contiguous() and scale.is_contiguous() else None
    for low in range(0, n, rows):
        high = min(low + rows, n)
        w, r = w_block[:high - low], y_block[:high - low]
        if lib is not None:
            lib.dequantize_rows(weight[low].data_ptr(), scale[low].data_ptr(),
                                _group(scale, group_size, k), w.data_ptr(), high - low, k)
        else:
            torch.mul(weight[low:high], expanded_scale(scale[low:high], group_size, k), out=w)
        torch.mm(w, x2.t(), out=r)
        if bias is not None:
            r += bias[low:high, None]
        y2[:, low:high].copy_(r.t())
    return y


def _blocks_ok(x: torch.Tensor, weight: torch.Tensor, scale: torch.Tensor,
               bias: torch.Tensor | None, out: torch.Tensor | None) -> bool:
    return (x.dtype == scale.dtype == torch.float32 and weight.dtype == torch.int8
            and weight.dim() == 2 and x.shape[-1] == weight.shape[1] > 0
            and (bias is None or bias.dtype == torch.float32)
            and (out is None or (out.is_contiguous() and out.dtype == torch.float32)))


def _gemv_ok(x: torch.Tensor, weight: torch.Tensor, scale: torch.Tensor,
             bias: torch.Tensor | None, out: torch.Tensor | None) -> bool:
    rows = x.numel() // max(x.shape[-1], 1)
    return (x.dtype == scale.dtype == torch.float32 and weight.dtype == torch.int8
            and (bias is None or bias.dtype == torch.float32)
            and rows <= MAX_GEMV_ROWS and x.shape[-1] > 0 and weight.is_contiguous() and (out is None or out.is_contiguous())
            and library() is not None)


def weight_quant_linear(x: torch.Tensor, weight: torch.Tensor, scale: torch.Tensor,
                        bias: torch.Tensor | None = None, out: torch.Tensor | None = None,
                        group_size: int | None = None) -> torch.Tensor:
    """x @ (weight * scale)^T + bias, into `out` if given (contiguous, x's
    leading shape by weight's rows); scale is [out], or [out, groups] with
    `group_size` inputs per group."""
    if not _gemv_ok(x, weight, scale, bias, out):
        if _blocks_ok(x, weight, scale, bias, out):
            return blocked_linear(x, weight, scale, bias, out, group_size)
        y = dequantized_linear(x, weight, scale, bias, group_size)
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
        _group(scale, group_size, k), bias.data_ptr() if bias is not None else None,
        out.data_ptr(), n, x2.shape[0], n, k)
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
    group = op.group_size()
    bound = t.ins[x]
    if isinstance(bound, torch.Tensor) and bound.is_contiguous() and _gemv_ok(
            bound, weight, scale, bias, out):  # the C call itself, bound now
        k, n = bound.shape[-1], weight.shape[0]
        rows = bound.numel() // k
        call = functools.partial(
            library().weight_quant_linear, bound.data_ptr(), k, weight.data_ptr(),
            scale.data_ptr(), _group(scale, group, k),
            bias.data_ptr() if bias is not None else None, out.data_ptr(), n, rows, n, k)
        run = cc.as_runner(call, "int8_weight_gemv")
        run.keep = (bound, weight, scale, bias, out)
        return run

    def int8_weight_gemv(*args):
        weight_quant_linear(args[x], weight, scale, bias, out, group)
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
