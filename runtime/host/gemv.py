"""The linear of one row of activations (a decode step's), as one C loop.

At a decode step every linear is a GEMV: each weight is read once, so its
time is the weight's bytes over the memory's bandwidth. Measured on a
Sapphire Rapids class Xeon (2 threads, a Llama's 33 weights of hidden 1024,
8 layers, 485 MB in turn, more than the last-level cache holds):

    oneDNN 3.2 inner product, plain weight (x64:gemm:jit)   19.9 ms  23.8 GB/s
    torch.mm (the BLAS's GEMV)                              18.6 ms  25.4 GB/s
    the loop below (four rows at once, AVX-512)             17.8 ms  26.6 GB/s

and one torch.mv over a single 504 MB matrix, the machine's streaming rate
for two threads, took 18.65 ms (26.4 GB/s): the loop reads at that rate.
Its epilogue adds the bias and a residual (which may be the output's own
bytes: each element is read before it is written), and `gated` reads the
gate and up projections of a gated MLP in one pass, writing silu(gate) *
up. The loop runs on torch's OpenMP pool (runtime/host/cc.py), one
contiguous range of output channels per thread.

bf16 weights and activations (a bf16 checkpoint) take the same loop at
half the bytes. With AVX512_BF16 it multiplies the bf16 pairs as they are
(vdpbf16ps: exact products summed in fp32); widening each weight to fp32
first costs more instructions than the memory saves (AMD EPYC, Zen 4
class, 2 threads: 16.9 GB/s widened, 22-23 GB/s with vdpbf16ps over a
1024x8 Llama's 254 MB of bf16 weights, where fp32 weights stream at 26-28).
Results round as the eager body's bf16 ops do.
"""

from __future__ import annotations

import ctypes
import functools

import torch

from runtime.host import cc
from runtime.host.bf16 import C_CONVERSIONS

_SOURCE = C_CONVERSIONS + r"""
#include <math.h>
#include <immintrin.h>

/* Sixteen weights as fp32: a bf16 is the top half of an fp32. */
static inline __m512 widen(__m256i h) {
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}
#define LOAD_F32(p) _mm512_loadu_ps(p)
#define MLOAD_F32(m, p) _mm512_maskz_loadu_ps(m, p)
#define LOAD_BF16(p) widen(_mm256_loadu_si256((const __m256i *)(p)))
#define MLOAD_BF16(m, p) widen(_mm256_maskz_loadu_epi16(m, p))

/* The same cache line of the next block's four rows: the hardware's stream
   prefetcher follows each row only once it has seen a few of its lines,
   and a bf16 row has half an fp32 row's lines (measured: 1.5x the rate on
   weights in the last-level cache, 1 thread; no gain for fp32). A
   prefetch past the matrix's end is a hint, never a fault. */
#define PREFETCH_NEXT_BLOCK(r, k, i)                                                 \
    do {                                                                            \
        for (int j_ = 0; j_ < 4; j_++)                                              \
            _mm_prefetch((const char *)(r[j_] + 4 * (k) + (i)), _MM_HINT_T0);       \
    } while (0)

/* w[j] . x for the rows w + j * k of four output channels (rows past the
   matrix's end repeat its last: computed, never stored); x is fp32. */
#define BLOCK4(NAME, T, LOAD, MLOAD)                                                 \
static void NAME(const T *w, int64_t n, int64_t n0, int64_t k, const float *x,      \
                 float acc[4]) {                                                    \
    const T *r[4];                                                                  \
    for (int j = 0; j < 4; j++) r[j] = w + (n0 + j < n ? n0 + j : n - 1) * k;       \
    __m512 a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps();                      \
    __m512 a2 = _mm512_setzero_ps(), a3 = _mm512_setzero_ps();                      \
    int64_t i = 0;                                                                  \
    for (; i + 16 <= k; i += 16) {                                                  \
        __m512 xv = _mm512_loadu_ps(x + i);                                         \
        a0 = _mm512_fmadd_ps(LOAD(r[0] + i), xv, a0);                               \
        a1 = _mm512_fmadd_ps(LOAD(r[1] + i), xv, a1);                               \
        a2 = _mm512_fmadd_ps(LOAD(r[2] + i), xv, a2);                               \
        a3 = _mm512_fmadd_ps(LOAD(r[3] + i), xv, a3);                               \
    }                                                                               \
    if (i < k) {                                                                    \
        __mmask16 m = (__mmask16)((1u << (k - i)) - 1);                             \
        __m512 xv = _mm512_maskz_loadu_ps(m, x + i);                                \
        a0 = _mm512_fmadd_ps(MLOAD(m, r[0] + i), xv, a0);                           \
        a1 = _mm512_fmadd_ps(MLOAD(m, r[1] + i), xv, a1);                           \
        a2 = _mm512_fmadd_ps(MLOAD(m, r[2] + i), xv, a2);                           \
        a3 = _mm512_fmadd_ps(MLOAD(m, r[3] + i), xv, a3);                           \
    }                                                                               \
    acc[0] = _mm512_reduce_add_ps(a0);                                              \
    acc[1] = _mm512_reduce_add_ps(a1);                                              \
    acc[2] = _mm512_reduce_add_ps(a2);                                              \
    acc[3] = _mm512_reduce_add_ps(a3);                                              \
}
BLOCK4(block4, float, LOAD_F32, MLOAD_F32)

#ifdef __AVX512BF16__
/* bf16 rows against a bf16 x, 32 elements a pass: vdpbf16ps multiplies
   pairs exactly and sums them into fp32 (denormals read as zero). */
static void block4_bf16(const uint16_t *w, int64_t n, int64_t n0, int64_t k,
                        const void *xin, float acc[4]) {
    const uint16_t *x = (const uint16_t *)xin;
    const uint16_t *r[4];
    for (int j = 0; j < 4; j++) r[j] = w + (n0 + j < n ? n0 + j : n - 1) * k;
    __m512 a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps();
    __m512 a2 = _mm512_setzero_ps(), a3 = _mm512_setzero_ps();
    int64_t i = 0;
    for (; i + 32 <= k; i += 32) {
        __m512bh xv = (__m512bh)_mm512_loadu_si512(x + i);
        PREFETCH_NEXT_BLOCK(r, k, i);
        a0 = _mm512_dpbf16_ps(a0, (__m512bh)_mm512_loadu_si512(r[0] + i), xv);
        a1 = _mm512_dpbf16_ps(a1, (__m512bh)_mm512_loadu_si512(r[1] + i), xv);
        a2 = _mm512_dpbf16_ps(a2, (__m512bh)_mm512_loadu_si512(r[2] + i), xv);
        a3 = _mm512_dpbf16_ps(a3, (__m512bh)_mm512_loadu_si512(r[3] + i), xv);
    }
    if (i < k) {
        __mmask32 m = (__mmask32)((1u << (k - i)) - 1);
        __m512bh xv = (__m512bh)_mm512_maskz_loadu_epi16(m, x + i);
        a0 = _mm512_dpbf16_ps(a0, (__m512bh)_mm512_maskz_loadu_epi16(m, r[0] + i), xv);
        a1 = _mm512_dpbf16_ps(a1, (__m512bh)_mm512_maskz_loadu_epi16(m, r[1] + i), xv);
        a2 = _mm512_dpbf16_ps(a2, (__m512bh)_mm512_maskz_loadu_epi16(m, r[2] + i), xv);
        a3 = _mm512_dpbf16_ps(a3, (__m512bh)_mm512_maskz_loadu_epi16(m, r[3] + i), xv);
    }
    acc[0] = _mm512_reduce_add_ps(a0);
    acc[1] = _mm512_reduce_add_ps(a1);
    acc[2] = _mm512_reduce_add_ps(a2);
    acc[3] = _mm512_reduce_add_ps(a3);
}

/* What block4_bf16 reads x as: its own bytes. */
static const void *bf16_input(const uint16_t *x, float *xs, int64_t k) {
    (void)xs; (void)k;
    return x;
}
#else
/* Without AVX512_BF16: the rows widened to fp32 in registers, x once into xs. */
BLOCK4(block4_bf16_wide, uint16_t, LOAD_BF16, MLOAD_BF16)

static void block4_bf16(const uint16_t *w, int64_t n, int64_t n0, int64_t k,
                        const void *xin, float acc[4]) {
    block4_bf16_wide(w, n, n0, k, (const float *)xin, acc);
}

static const void *bf16_input(const uint16_t *x, float *xs, int64_t k) {
    for (int64_t i = 0; i < k; i++) xs[i] = bf16_load(x[i]);
    return xs;
}
#endif

/* y[c] = w[c] . x + bias[c] + residual[c]; bias and residual may be NULL,
   residual may be y itself. */
void gemv(const float *w, const float *x, const float *bias, const float *residual,
          float *y, int64_t n, int64_t k) {
    #pragma omp parallel for schedule(static)
    for (int64_t n0 = 0; n0 < n; n0 += 4) {
        float acc[4];
        block4(w, n, n0, k, x, acc);
        for (int64_t j = 0; j < 4 && n0 + j < n; j++) {
            float v = acc[j];
            if (bias) v += bias[n0 + j];
            if (residual) v += residual[n0 + j];
            y[n0 + j] = v;
        }
    }
}

/* y[c] = silu(gate[c] . x + gate_bias[c]) * (up[c] . x + up_bias[c]). */
void gated(const float *gate, const float *up, const float *x, const float *gate_bias,
           const float *up_bias, float *y, int64_t n, int64_t k) {
    #pragma omp parallel for schedule(static)
    for (int64_t n0 = 0; n0 < n; n0 += 4) {
        float g[4], u[4];
        block4(gate, n, n0, k, x, g);
        block4(up, n, n0, k, x, u);
        for (int64_t j = 0; j < 4 && n0 + j < n; j++) {
            float a = g[j] + (gate_bias ? gate_bias[n0 + j] : 0.0f);
            float b = u[j] + (up_bias ? up_bias[n0 + j] : 0.0f);
            y[n0 + j] = a / (1.0f + expf(-a)) * b;
        }
    }
}

/* The bf16 forms, rounding where the body's bf16 ops do: the linear's
   result (bias added in fp32 first), then the residual add; silu, then the
   product. `xs` is k floats of scratch, for x widened once where the CPU
   has no bf16 dot product. */
void gemv_bf16(const uint16_t *w, const uint16_t *x, float *xs, const uint16_t *bias,
               const uint16_t *residual, uint16_t *y, int64_t n, int64_t k) {
    const void *xin = bf16_input(x, xs, k);
    #pragma omp parallel for schedule(static)
    for (int64_t n0 = 0; n0 < n; n0 += 4) {
        float acc[4];
        block4_bf16(w, n, n0, k, xin, acc);
        for (int64_t j = 0; j < 4 && n0 + j < n; j++) {
            float v = bf16_rounded(acc[j] + (bias ? bf16_load(bias[n0 + j]) : 0.0f));
            if (residual) v += bf16_load(residual[n0 + j]);
            y[n0 + j] = bf16_round(v);
        }
    }
}

void gated_bf16(const uint16_t *gate, const uint16_t *up, const uint16_t *x, float *xs,
                const uint16_t *gate_bias, const uint16_t *up_bias, uint16_t *y,
                int64_t n, int64_t k) {
    const void *xin = bf16_input(x, xs, k);
    #pragma omp parallel for schedule(static)
    for (int64_t n0 = 0; n0 < n; n0 += 4) {
        float g[4], u[4];
        block4_bf16(gate, n, n0, k, xin, g);
        block4_bf16(up, n, n0, k, xin, u);
        for (int64_t j = 0; j < 4 && n0 + j < n; j++) {
            float a = bf16_rounded(g[j] + (gate_bias ? bf16_load(gate_bias[n0 + j]) : 0.0f));
            float b = bf16_rounded(u[j] + (up_bias ? bf16_load(up_bias[n0 + j]) : 0.0f));
            y[n0 + j] = bf16_round(bf16_rounded(a / (1.0f + expf(-a))) * b);
        }
    }
}
"""
_P, _N = ctypes.c_void_p, ctypes.c_int64
_SIGNATURES = {"gemv": [_P, _P, _P, _P, _P, _N, _N],
               "gated": [_P, _P, _P, _P, _P, _P, _N, _N],
               "gemv_bf16": [_P, _P, _P, _P, _P, _P, _N, _N],
               "gated_bf16": [_P, _P, _P, _P, _P, _P, _P, _N, _N]}
_DTYPES = (torch.float32, torch.bfloat16)


def library() -> ctypes.CDLL | None:
    """The compiled loops (runtime/host/cc.py); None without AVX-512 (with
    BW, for the bf16 loads) or a C compiler (or with `GE_HOST_C_KERNELS=none`):
    oneDNN's inner product then."""
    if not (cc.cpu_has("avx512f") and cc.cpu_has("avx512bw")):
        return None
    return cc.load("gemv", _SOURCE, _SIGNATURES)


def _row(t: torch.Tensor | None, n: int, dtype: torch.dtype) -> bool:
    """A bound tensor of `dtype` and `n` contiguous elements (one row)."""
    return (isinstance(t, torch.Tensor) and t.dtype == dtype and t.numel() == n
            and t.is_contiguous())


def _pointer(t: torch.Tensor | None) -> int | None:
    return t.data_ptr() if t is not None else None


def _scratch(dtype: torch.dtype, k: int) -> tuple:
    """The bf16 loops' k floats for the widened input (none for fp32)."""
    return (torch.empty(k, dtype=torch.float32),) if dtype == torch.bfloat16 else ()


def linear(x, weight: torch.Tensor, bias: torch.Tensor | None, out: torch.Tensor,
           residual: torch.Tensor | None = None):
    """A bare runner writing x @ weight^T + bias (+ residual) into `out`, all
    bound at load: one row `x` [.., K] and a contiguous weight [N, K], all
    fp32 or all bf16; None if the loop does not take them (the caller keeps
    oneDNN's)."""
    n, k = weight.shape
    dtype = weight.dtype
    if not (dtype in _DTYPES and _row(x, k, dtype) and _row(out, n, dtype)
            and weight.is_contiguous() and (bias is None or _row(bias, n, dtype))
            and (residual is None or _row(residual, n, dtype)) and not cc.overlap(x, out)
            and (residual is None or cc.apart_or_same(residual.view(-1), out.view(-1)))):
        return None
    lib = library()
    if lib is None:
        return None
    scratch = _scratch(dtype, k)
    kernel = lib.gemv if dtype == torch.float32 else lib.gemv_bf16
    call = functools.partial(kernel, weight.data_ptr(), x.data_ptr(),
                             *(s.data_ptr() for s in scratch), _pointer(bias),
                             _pointer(residual), out.data_ptr(), n, k)
    run = cc.as_runner(call, "gemv")
    run.keep = (x, weight, bias, residual, out, scratch)  # the bytes the call points at
    return run


def gated(x, gate: torch.Tensor, up: torch.Tensor, gate_bias: torch.Tensor | None,
          up_bias: torch.Tensor | None, out: torch.Tensor):
    """A bare runner writing silu(x @ gate^T + gate_bias) * (x @ up^T +
    up_bias) into `out`, as `linear` takes its tensors; or None."""
    n, k = gate.shape
    dtype = gate.dtype
    if not (dtype in _DTYPES and _row(x, k, dtype) and _row(out, n, dtype)
            and up.shape == gate.shape
            and all(w.is_contiguous() and w.dtype == dtype for w in (gate, up))
            and all(b is None or _row(b, n, dtype) for b in (gate_bias, up_bias))
            and not cc.overlap(x, out)):
        return None
    lib = library()
    if lib is None:
        return None
    scratch = _scratch(dtype, k)
    kernel = lib.gated if dtype == torch.float32 else lib.gated_bf16
    call = functools.partial(kernel, gate.data_ptr(), up.data_ptr(), x.data_ptr(),
                             *(s.data_ptr() for s in scratch), _pointer(gate_bias),
                             _pointer(up_bias), out.data_ptr(), n, k)
    run = cc.as_runner(call, "gated_mlp")
    run.keep = (x, gate, up, gate_bias, up_bias, out, scratch)
    return run
