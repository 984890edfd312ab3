"""The fp32 linear of one row of activations (a decode step's), as one C loop.

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
"""

from __future__ import annotations

import ctypes
import functools

import torch

from runtime.host import cc

_SOURCE = r"""
#include <math.h>
#include <stdint.h>
#include <immintrin.h>

/* w[j] . x for the rows w + j * k of four output channels (rows past the
   matrix's end repeat its last: computed, never stored). */
static void dot4(const float *w0, const float *w1, const float *w2, const float *w3,
                 const float *x, int64_t k, float acc[4]) {
    __m512 a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps();
    __m512 a2 = _mm512_setzero_ps(), a3 = _mm512_setzero_ps();
    int64_t i = 0;
    for (; i + 16 <= k; i += 16) {
        __m512 xv = _mm512_loadu_ps(x + i);
        a0 = _mm512_fmadd_ps(_mm512_loadu_ps(w0 + i), xv, a0);
        a1 = _mm512_fmadd_ps(_mm512_loadu_ps(w1 + i), xv, a1);
        a2 = _mm512_fmadd_ps(_mm512_loadu_ps(w2 + i), xv, a2);
        a3 = _mm512_fmadd_ps(_mm512_loadu_ps(w3 + i), xv, a3);
    }
    if (i < k) {
        __mmask16 m = (__mmask16)((1u << (k - i)) - 1);
        __m512 xv = _mm512_maskz_loadu_ps(m, x + i);
        a0 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, w0 + i), xv, a0);
        a1 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, w1 + i), xv, a1);
        a2 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, w2 + i), xv, a2);
        a3 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, w3 + i), xv, a3);
    }
    acc[0] = _mm512_reduce_add_ps(a0);
    acc[1] = _mm512_reduce_add_ps(a1);
    acc[2] = _mm512_reduce_add_ps(a2);
    acc[3] = _mm512_reduce_add_ps(a3);
}

static void block4(const float *w, int64_t n, int64_t n0, int64_t k, const float *x,
                   float acc[4]) {
    const float *r[4];
    for (int j = 0; j < 4; j++)
        r[j] = w + (n0 + j < n ? n0 + j : n - 1) * k;
    dot4(r[0], r[1], r[2], r[3], x, k, acc);
}

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
"""
_P, _N = ctypes.c_void_p, ctypes.c_int64
_SIGNATURES = {"gemv": [_P, _P, _P, _P, _P, _N, _N],
               "gated": [_P, _P, _P, _P, _P, _P, _N, _N]}


def library() -> ctypes.CDLL | None:
    """The compiled loops (runtime/host/cc.py); None without AVX-512 or a
    C compiler (or with `GE_HOST_C_KERNELS=none`): oneDNN's inner product then."""
    if not cc.cpu_has("avx512f"):
        return None
    return cc.load("gemv", _SOURCE, _SIGNATURES)


def _row(t: torch.Tensor | None, n: int) -> bool:
    """A bound fp32 tensor of `n` contiguous elements (one row)."""
    return (isinstance(t, torch.Tensor) and t.dtype == torch.float32 and t.numel() == n
            and t.is_contiguous())


def _pointer(t: torch.Tensor | None) -> int | None:
    return t.data_ptr() if t is not None else None


def linear(x, weight: torch.Tensor, bias: torch.Tensor | None, out: torch.Tensor,
           residual: torch.Tensor | None = None):
    """A bare runner writing x @ weight^T + bias (+ residual) into `out`, all
    bound at load: one row `x` [.., K], a contiguous fp32 weight [N, K];
    None if the loop does not take them (the caller keeps oneDNN's)."""
    n, k = weight.shape
    if not (_row(x, k) and _row(out, n) and weight.is_contiguous()
            and weight.dtype == torch.float32 and (bias is None or _row(bias, n))
            and (residual is None or _row(residual, n)) and not cc.overlap(x, out)
            and (residual is None or cc.apart_or_same(residual.view(-1), out.view(-1)))):
        return None
    lib = library()
    if lib is None:
        return None
    call = functools.partial(lib.gemv, weight.data_ptr(), x.data_ptr(), _pointer(bias),
                             _pointer(residual), out.data_ptr(), n, k)
    run = cc.as_runner(call, "gemv")
    run.keep = (x, weight, bias, residual, out)  # the bytes the call points at
    return run


def gated(x, gate: torch.Tensor, up: torch.Tensor, gate_bias: torch.Tensor | None,
          up_bias: torch.Tensor | None, out: torch.Tensor):
    """A bare runner writing silu(x @ gate^T + gate_bias) * (x @ up^T +
    up_bias) into `out`, as `linear` takes its tensors; or None."""
    n, k = gate.shape
    if not (_row(x, k) and _row(out, n) and up.shape == gate.shape
            and all(w.is_contiguous() and w.dtype == torch.float32 for w in (gate, up))
            and all(b is None or _row(b, n) for b in (gate_bias, up_bias))
            and not cc.overlap(x, out)):
        return None
    lib = library()
    if lib is None:
        return None
    call = functools.partial(lib.gated, gate.data_ptr(), up.data_ptr(), x.data_ptr(),
                             _pointer(gate_bias), _pointer(up_bias), out.data_ptr(), n, k)
    run = cc.as_runner(call, "gated_mlp")
    run.keep = (x, gate, up, gate_bias, up_bias, out)
    return run
