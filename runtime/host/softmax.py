"""Softmax over the rows of an fp32 scores buffer as one C loop, in place or
into bf16 probabilities.

An encoder's attention (runtime/host/attention.py's oneDNN form) takes the
softmax of a [B, H, T, S] scores buffer between its two matmuls. oneDNN
3.2's softmax primitive spends 121 us on BERT-base's 12x128x128 scores on
2 threads, and rounding the result to bf16 for p @ v is another reorder
(18 us); this loop does both in 69 us (48 us in place in fp32): a max
pass, an exp pass that also sums, and a scaling pass that stores.

exp is a degree-6 polynomial of 2^f on |f| <= 1/2 times 2^n, within
2e-7 relative of expf on the softmax's arguments (a score minus its row's
max, never above 0; below -87 it is 0, where expf's results are
subnormal and vanish beside the max's 1). A row holding a NaN, or whose
max is not finite (every key masked with -inf), comes out NaN, as the
body's softmax gives; the bf16 probabilities are the fp32 ones rounded
once, to nearest even.
"""

from __future__ import annotations

import ctypes

import torch

from runtime.host import bf16, cc

# Elements from which the rows are split over torch's thread pool.
PARALLEL_ELEMENTS = 1 << 14

_SOURCE = bf16.C_CONVERSIONS + r"""
#include <math.h>
static inline float exp_nonpositive(float x) {
    float t = x * 1.44269504088896341f;
    t = t < -126.0f ? -126.0f : t;
    float n = (t + 12582912.0f) - 12582912.0f;  /* t rounded to an integer */
    float f = t - n;
    float p = 1.5353362e-4f;
    p = p * f + 1.3398874e-3f;
    p = p * f + 9.6181291e-3f;
    p = p * f + 5.5504109e-2f;
    p = p * f + 2.4022650e-1f;
    p = p * f + 6.9314718e-1f;
    p = p * f + 1.0f;
    int32_t bits = ((int32_t)n + 127) << 23;
    float two_n; memcpy(&two_n, &bits, 4);
    return x < -87.0f ? 0.0f : p * two_n;
}
/* x [rows, n] (rows ldx apart) becomes softmax(x) over each row, or with p,
   p [rows, n] (ldp apart) gets it rounded to bf16 and x keeps exp(x - max). */
void softmax_rows(float *x, int64_t ldx, uint16_t *p, int64_t ldp, int64_t rows, int64_t n) {
    #pragma omp parallel for schedule(static) if (rows * n >= PARALLEL_ELEMENTS)
    for (int64_t m = 0; m < rows; m++) {
        float *xm = x + m * ldx;
        uint16_t *pm = p ? p + m * ldp : NULL;
        float mx = -INFINITY;
        int nan = 0;
        #pragma omp simd reduction(max:mx) reduction(|:nan)
        for (int64_t k = 0; k < n; k++) { mx = xm[k] > mx ? xm[k] : mx; nan |= xm[k] != xm[k]; }
        if (nan || !isfinite(mx)) {
            for (int64_t k = 0; k < n; k++) { if (pm) pm[k] = 0x7fc0; else xm[k] = NAN; }
            continue;
        }
        float sum = 0.0f;
        #pragma omp simd reduction(+:sum)
        for (int64_t k = 0; k < n; k++) { float e = exp_nonpositive(xm[k] - mx); xm[k] = e; sum += e; }
        float r = 1.0f / sum;
        if (pm) {
            #pragma omp simd
            for (int64_t k = 0; k < n; k++) pm[k] = bf16_round(xm[k] * r);
        } else {
            #pragma omp simd
            for (int64_t k = 0; k < n; k++) xm[k] *= r;
        }
    }
}
""".replace("PARALLEL_ELEMENTS", str(PARALLEL_ELEMENTS))

_I64, _PTR = ctypes.c_int64, ctypes.c_void_p
_SIGNATURES = {"softmax_rows": [_PTR, _I64, _PTR, _I64, _I64, _I64]}


def library() -> ctypes.CDLL | None:
    return cc.load("softmax", _SOURCE, _SIGNATURES)


def rows(shape: list[int], probabilities: bool):
    """fn(scores, p=None) taking the softmax over the last dim of a dense fp32
    tensor of `shape`: in place, or with `probabilities` into the dense
    bf16 tensor p (scores then keep the unnormalized exps). None without
    the C library."""
    lib = library()
    if lib is None or not shape or shape[-1] == 0:
        return None
    n = shape[-1]
    count = 1
    for d in shape[:-1]:
        count *= d
    fn = lib.softmax_rows

    def softmax(scores: torch.Tensor, p: torch.Tensor | None = None) -> None:
        fn(scores.data_ptr(), n, p.data_ptr() if probabilities else None, n, count, n)
    return softmax
