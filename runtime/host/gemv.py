"""The linear of one row of activations (a decode step's), as one C loop.

At a decode step every linear is a GEMV: each weight is read once, so its
time is the weight's bytes over the memory's bandwidth, and what matters
is how the loop reads them. Each output channel's row is read front to
back, four accumulators along it, one contiguous range of rows per thread
(torch's OpenMP pool, runtime/host/cc.py): each thread reads one
sequential stream, which the hardware prefetcher follows best. On an AMD
EPYC (Zen 4 class, 2 threads), over a Llama's linear weights in turn:

    weights                                four rows at once   one row at a time
    512x4 fp32, 63 MB                      2.22 ms             1.69 ms
    1024x8 fp32, 509 MB                   17.36 ms            16.06 ms

and a copy packed for the four-row loop (each 16-element chunk of four
rows contiguous) read no faster than the plain rows one at a time, so no
copy is made. The epilogue adds the bias and a residual (which may be the
output's own bytes: each element is read before it is written), and
`gated` reads a gated MLP's gate and up rows of each channel in turn,
writing silu(gate) * up.

bf16 weights and activations (a bf16 checkpoint) take the same loop at
half the bytes. With AVX512_BF16 it multiplies the bf16 pairs as they are
(vdpbf16ps: exact products summed in fp32): the 1024x8 Llama's 254 MB of
bf16 weights in 8.4 ms. Widening each weight to fp32 first costs more
instructions than the memory saves (measured with a loop over four rows
at once: 16.9 GB/s widened, 22-23 with vdpbf16ps); CPUs without
AVX512_BF16 widen. Results round as the eager body's bf16 ops do.
"""

from __future__ import annotations

import ctypes
import functools

import torch

from runtime.host import cc
from runtime.host.bf16 import C_CONVERSIONS

# NAME(w, x, k): a weight row of T against k fp32 x, read front to back with
# four accumulator chains along it. LOAD16(p) reads sixteen weights as fp32,
# MLOAD16(m, p) those of the mask m (the others zero). NAME_lanes(w, x, k)
# is the same before the sum across lanes. runtime/host/int8.py makes its
# int8 row from it too.
C_DOT_ROW = r"""
#if defined(__x86_64__)
#include <immintrin.h>
#endif
#define DOT_ROW(NAME, T, LOAD16, MLOAD16)                                            \
static inline __m512 NAME##_lanes(const T *w, const float *x, int64_t k) {          \
    __m512 a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps();                      \
    __m512 a2 = _mm512_setzero_ps(), a3 = _mm512_setzero_ps();                      \
    int64_t i = 0;                                                                  \
    for (; i + 64 <= k; i += 64) {                                                  \
        a0 = _mm512_fmadd_ps(LOAD16(w + i), _mm512_loadu_ps(x + i), a0);            \
        a1 = _mm512_fmadd_ps(LOAD16(w + i + 16), _mm512_loadu_ps(x + i + 16), a1);  \
        a2 = _mm512_fmadd_ps(LOAD16(w + i + 32), _mm512_loadu_ps(x + i + 32), a2);  \
        a3 = _mm512_fmadd_ps(LOAD16(w + i + 48), _mm512_loadu_ps(x + i + 48), a3);  \
    }                                                                               \
    for (; i + 16 <= k; i += 16)                                                    \
        a0 = _mm512_fmadd_ps(LOAD16(w + i), _mm512_loadu_ps(x + i), a0);            \
    if (i < k) {                                                                    \
        __mmask16 m = (__mmask16)((1u << (k - i)) - 1);                             \
        a1 = _mm512_fmadd_ps(MLOAD16(m, w + i), _mm512_maskz_loadu_ps(m, x + i), a1); \
    }                                                                               \
    return _mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3));            \
}                                                                                   \
static inline float NAME(const T *w, const float *x, int64_t k) {                   \
    return _mm512_reduce_add_ps(NAME##_lanes(w, x, k));                             \
}
"""

_SOURCE = C_CONVERSIONS + C_DOT_ROW + r"""
#include <math.h>

DOT_ROW(dot_f32, float, _mm512_loadu_ps, _mm512_maskz_loadu_ps)

#ifdef __AVX512BF16__
/* w . x over k bf16 elements: vdpbf16ps multiplies pairs exactly and sums
   them into fp32 (denormals read as zero). x is read as its own bytes. */
static inline float dot_bf16(const uint16_t *w, const void *xin, int64_t k) {
    const uint16_t *x = (const uint16_t *)xin;
    __m512 a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps();
    __m512 a2 = _mm512_setzero_ps(), a3 = _mm512_setzero_ps();
#define BH(p) ((__m512bh)_mm512_loadu_si512(p))
    int64_t i = 0;
    for (; i + 128 <= k; i += 128) {
        a0 = _mm512_dpbf16_ps(a0, BH(w + i), BH(x + i));
        a1 = _mm512_dpbf16_ps(a1, BH(w + i + 32), BH(x + i + 32));
        a2 = _mm512_dpbf16_ps(a2, BH(w + i + 64), BH(x + i + 64));
        a3 = _mm512_dpbf16_ps(a3, BH(w + i + 96), BH(x + i + 96));
    }
    for (; i + 32 <= k; i += 32)
        a0 = _mm512_dpbf16_ps(a0, BH(w + i), BH(x + i));
#undef BH
    if (i < k) {
        __mmask32 m = (__mmask32)((1u << (k - i)) - 1);
        a1 = _mm512_dpbf16_ps(a1, (__m512bh)_mm512_maskz_loadu_epi16(m, w + i),
                              (__m512bh)_mm512_maskz_loadu_epi16(m, x + i));
    }
    return _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)));
}

static const void *bf16_input(const uint16_t *x, float *xs, int64_t k) {
    (void)xs; (void)k;
    return x;
}
#else
/* Without AVX512_BF16: the row widened to fp32 in registers (a bf16 is the
   top half of an fp32), against x widened once into xs. */
static inline __m512 widen(__m256i h) {
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}
#define LOAD_BF16(p) widen(_mm256_loadu_si256((const __m256i *)(p)))
#define MLOAD_BF16(m, p) widen(_mm256_maskz_loadu_epi16(m, p))
DOT_ROW(dot_bf16_wide, uint16_t, LOAD_BF16, MLOAD_BF16)

static inline float dot_bf16(const uint16_t *w, const void *xin, int64_t k) {
    return dot_bf16_wide(w, (const float *)xin, k);
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
    for (int64_t c = 0; c < n; c++) {
        float v = dot_f32(w + c * k, x, k);
        if (bias) v += bias[c];
        if (residual) v += residual[c];
        y[c] = v;
    }
}

/* y[c] = silu(gate[c] . x + gate_bias[c]) * (up[c] . x + up_bias[c]). */
void gated(const float *gate, const float *up, const float *x, const float *gate_bias,
           const float *up_bias, float *y, int64_t n, int64_t k) {
    #pragma omp parallel for schedule(static)
    for (int64_t c = 0; c < n; c++) {
        float a = dot_f32(gate + c * k, x, k) + (gate_bias ? gate_bias[c] : 0.0f);
        float b = dot_f32(up + c * k, x, k) + (up_bias ? up_bias[c] : 0.0f);
        y[c] = a / (1.0f + expf(-a)) * b;
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
    for (int64_t c = 0; c < n; c++) {
        float v = bf16_rounded(dot_bf16(w + c * k, xin, k) + (bias ? bf16_load(bias[c]) : 0.0f));
        if (residual) v += bf16_load(residual[c]);
        y[c] = bf16_round(v);
    }
}

void gated_bf16(const uint16_t *gate, const uint16_t *up, const uint16_t *x, float *xs,
                const uint16_t *gate_bias, const uint16_t *up_bias, uint16_t *y,
                int64_t n, int64_t k) {
    const void *xin = bf16_input(x, xs, k);
    #pragma omp parallel for schedule(static)
    for (int64_t c = 0; c < n; c++) {
        float a = bf16_rounded(dot_bf16(gate + c * k, xin, k)
                               + (gate_bias ? bf16_load(gate_bias[c]) : 0.0f));
        float b = bf16_rounded(dot_bf16(up + c * k, xin, k)
                               + (up_bias ? bf16_load(up_bias[c]) : 0.0f));
        y[c] = bf16_round(bf16_rounded(a / (1.0f + expf(-a))) * b);
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
