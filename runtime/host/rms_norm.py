"""RMSNorm over the last dim in one C loop: out = (x [+ r]) * rsqrt(mean((x [+ r])^2) + eps) * w.

Llama's RMSNorm at a decode step normalizes one row of a few hundred
floats. As torch ops (x * x, mean, add eps, rsqrt, two products) it costs
the dispatch of each op, ~40 us; the loop below is two passes over the row
(the sum of squares, then the scaled product), a few us. Rows are split
over torch's OpenMP pool only when there are many (prefill), one row is
not worth waking the pool for. The residual add before the norm (CANN's
AddRmsNorm), if any, is done in the same passes (fp32).

fp32, or bf16 rows (a bf16 model's RMSNorm: its casts to fp32 and back
around the norm, then the bf16 weight): normalized in fp32 and rounded
where the model rounds, the norm and then its product with the weight.

`kernel(...)` binds the call to the given tensors' pointers once (a runner
over arena views made at load); it returns None when the C library is not
available (no compiler: runtime/host/cc.py) or a tensor is not fp32 (or
bf16) rows laid out evenly, and the caller keeps its torch ops.
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable

import torch

from runtime.host import bf16, cc

# Rows from which the loop runs on torch's thread pool.
PARALLEL_ROWS = 16

_SOURCE = bf16.C_CONVERSIONS + r"""
#include <math.h>
#include <stddef.h>
/* out[m, :] = s * rsqrt(mean(s * s) + eps) * w with s = x[m, :] (+ r[m, :]).
   out may be x or r (same elements): each element is read before it is written. */
void rms_norm(const float *x, int64_t ldx, const float *r, int64_t ldr, const float *w,
              float *out, int64_t ldo, int64_t rows, int64_t n, float eps) {
    #pragma omp parallel for schedule(static) if (rows >= PARALLEL_ROWS)
    for (int64_t m = 0; m < rows; m++) {
        const float *xm = x + m * ldx;
        const float *rm = r ? r + m * ldr : NULL;
        float *om = out + m * ldo;
        float ss = 0.0f;
        if (rm) {
            #pragma omp simd reduction(+:ss)
            for (int64_t k = 0; k < n; k++) { float s = xm[k] + rm[k]; ss += s * s; }
        } else {
            #pragma omp simd reduction(+:ss)
            for (int64_t k = 0; k < n; k++) ss += xm[k] * xm[k];
        }
        float scale = 1.0f / sqrtf(ss / (float)n + eps);
        if (rm && w) {
            #pragma omp simd
            for (int64_t k = 0; k < n; k++) om[k] = (xm[k] + rm[k]) * scale * w[k];
        } else if (rm) {
            #pragma omp simd
            for (int64_t k = 0; k < n; k++) om[k] = (xm[k] + rm[k]) * scale;
        } else if (w) {
            #pragma omp simd
            for (int64_t k = 0; k < n; k++) om[k] = xm[k] * scale * w[k];
        } else {
            #pragma omp simd
            for (int64_t k = 0; k < n; k++) om[k] = xm[k] * scale;
        }
    }
}
/* A bf16 model's RMSNorm (Hugging Face's on bf16): x widened, normalized in
   fp32 and rounded to bf16, then times the bf16 weight, rounded again. */
void rms_norm_bf16(const uint16_t *x, int64_t ldx, const uint16_t *w, uint16_t *out,
                   int64_t ldo, int64_t rows, int64_t n, float eps) {
    #pragma omp parallel for schedule(static) if (rows >= PARALLEL_ROWS)
    for (int64_t m = 0; m < rows; m++) {
        const uint16_t *xm = x + m * ldx;
        uint16_t *om = out + m * ldo;
        float ss = 0.0f;
        #pragma omp simd reduction(+:ss)
        for (int64_t k = 0; k < n; k++) { float v = bf16_load(xm[k]); ss += v * v; }
        float scale = 1.0f / sqrtf(ss / (float)n + eps);
        if (w) {
            #pragma omp simd
            for (int64_t k = 0; k < n; k++)
                om[k] = bf16_round(bf16_load(w[k]) * bf16_rounded(bf16_load(xm[k]) * scale));
        } else {
            #pragma omp simd
            for (int64_t k = 0; k < n; k++) om[k] = bf16_round(bf16_load(xm[k]) * scale);
        }
    }
}
""".replace("PARALLEL_ROWS", str(PARALLEL_ROWS))

_I64, _PTR = ctypes.c_int64, ctypes.c_void_p
_SIGNATURES = {"rms_norm": [_PTR, _I64, _PTR, _I64, _PTR, _PTR, _I64, _I64, _I64, ctypes.c_float],
               "rms_norm_bf16": [_PTR, _I64, _PTR, _PTR, _I64, _I64, _I64, ctypes.c_float]}


def library() -> ctypes.CDLL | None:
    return cc.load("rms_norm", _SOURCE, _SIGNATURES)


def kernel(x: torch.Tensor, weight: torch.Tensor | None, out: torch.Tensor, eps: float,
           residual: torch.Tensor | None = None) -> Callable[[], None] | None:
    """out = rms_norm(x [+ residual]) * weight over the last dim, as a call
    bound to these tensors now; on bf16 (`bf16_kernel`) without a residual.
    None if the C kernel cannot run it (not fp32 or bf16, a row not
    contiguous, rows not evenly spaced, shapes that differ, out partly
    overlapping an input, or no C library)."""
    n = out.shape[-1] if out.dim() else 0
    tensors = [x, out] + [t for t in (residual, weight) if t is not None]
    if x.dtype == torch.bfloat16 and residual is None:
        return bf16_kernel(x, weight, out, eps)
    if (n == 0 or any(t.dtype != torch.float32 for t in tensors)
            or x.shape != out.shape or (residual is not None and residual.shape != out.shape)
            or (weight is not None and (weight.shape != (n,) or not weight.is_contiguous()))
            or not all(cc.apart_or_same(out, t) for t in (x, residual) if t is not None)):
        return None
    rows = [cc.as_rows(t, n) for t in (x, residual, out) if t is not None]
    lib = library() if None not in rows else None
    if lib is None:
        return None
    (xp, ldx, m), *_, (op, ldo, _) = rows
    rp, ldr = rows[1][:2] if residual is not None else (None, 0)
    call = functools.partial(lib.rms_norm, xp, ldx, rp, ldr,
                             weight.data_ptr() if weight is not None else None,
                             op, ldo, m, n, eps)
    call.keep = tensors  # the bound pointers stay valid while the call lives
    return call


def bf16_kernel(x: torch.Tensor, weight: torch.Tensor | None, out: torch.Tensor,
                eps: float) -> Callable[[], None] | None:
    """`kernel` on bf16 rows and weight: the norm rounded to bf16 before the
    weight multiplies it, as a bf16 model's RMSNorm computes (`reference`)."""
    n = out.shape[-1] if out.dim() else 0
    tensors = [x, out] + ([weight] if weight is not None else [])
    if (n == 0 or any(t.dtype != torch.bfloat16 for t in tensors) or x.shape != out.shape
            or (weight is not None and (weight.shape != (n,) or not weight.is_contiguous()))
            or not cc.apart_or_same(out, x)):
        return None
    rows = [cc.as_rows(t, n) for t in (x, out)]
    lib = library() if None not in rows else None
    if lib is None:
        return None
    (xp, ldx, m), (op, ldo, _) = rows
    call = functools.partial(lib.rms_norm_bf16, xp, ldx,
                             weight.data_ptr() if weight is not None else None, op, ldo, m, n,
                             eps)
    call.keep = tensors
    return call


def reference(x: torch.Tensor, weight: torch.Tensor | None, eps: float,
              residual: torch.Tensor | None = None) -> torch.Tensor:
    """The same in torch ops (HF's LlamaRMSNorm: in fp32, and on bf16 x
    normalized in fp32, rounded, then times the weight)."""
    s = x + residual if residual is not None else x
    s32 = s.float()
    y = (s32 * torch.rsqrt(s32.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype)
    return y * weight if weight is not None else y
