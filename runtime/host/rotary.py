"""Rotary position embedding in one C loop: out = x * cos + rotate_half(x) * sin.

rotate_half(x) = cat(-x[..., h:], x[..., :h]) with h half the last dim, so
for k < h: out[k] = x[k] cos[k] - x[k + h] sin[k] and out[k + h] =
x[k + h] cos[k + h] + x[k] sin[k + h]. At a Llama decode step q and k are a
few heads of 64 floats: as torch ops (a product and two addcmul_ into the
view) the time is the dispatch of each op; the loop below reads each
element once. fp32, or bf16 rounded as the body's bf16 ops round (each
product, then the sum); x, cos, sin and out are up to 4-D, each element
of the last dim next to the one before (stride 1), cos and sin broadcast
to x's shape along leading dims (stride 0, as `expand` gives). Rows are
split over torch's OpenMP pool only when there are many (prefill).

`kernel(...)` binds the call to the given tensors once (a runner over
arena views made at load); None when the C library is not available
(runtime/host/cc.py) or a tensor is laid out otherwise, and the caller
keeps its torch ops.
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable

import torch

from runtime.host import bf16, cc

PARALLEL_ROWS = 64  # rows (product of the leading dims) from which the pool is used
LEADING = 3  # leading dims the loop walks: x is at most 4-D

_SOURCE = bf16.C_CONVERSIONS + r"""
/* Over the leading dims n[0..2] (strides per tensor, in elements), the rotary
   embedding of each row of d = 2h contiguous floats. out shares no byte with x. */
void rotary(const float *x, const int64_t *xs, const float *c, const int64_t *cs,
            const float *s, const int64_t *ss, float *o, const int64_t *os,
            const int64_t *n, int64_t d) {
    const int64_t h = d / 2;
    #pragma omp parallel for collapse(3) schedule(static) if (n[0] * n[1] * n[2] >= PARALLEL_ROWS)
    for (int64_t i = 0; i < n[0]; i++)
    for (int64_t j = 0; j < n[1]; j++)
    for (int64_t l = 0; l < n[2]; l++) {
        const float *xr = x + i * xs[0] + j * xs[1] + l * xs[2];
        const float *cr = c + i * cs[0] + j * cs[1] + l * cs[2];
        const float *sr = s + i * ss[0] + j * ss[1] + l * ss[2];
        float *orow = o + i * os[0] + j * os[1] + l * os[2];
        #pragma omp simd
        for (int64_t k = 0; k < h; k++) {
            orow[k] = xr[k] * cr[k] - xr[k + h] * sr[k];
            orow[k + h] = xr[k + h] * cr[k + h] + xr[k] * sr[k + h];
        }
    }
}
/* The same on bf16, each product and the sum rounded to bf16 as the body's
   bf16 ops are (neg is exact). */
void rotary_bf16(const uint16_t *x, const int64_t *xs, const uint16_t *c, const int64_t *cs,
                 const uint16_t *s, const int64_t *ss, uint16_t *o, const int64_t *os,
                 const int64_t *n, int64_t d) {
    const int64_t h = d / 2;
    #pragma omp parallel for collapse(3) schedule(static) if (n[0] * n[1] * n[2] >= PARALLEL_ROWS)
    for (int64_t i = 0; i < n[0]; i++)
    for (int64_t j = 0; j < n[1]; j++)
    for (int64_t l = 0; l < n[2]; l++) {
        const uint16_t *xr = x + i * xs[0] + j * xs[1] + l * xs[2];
        const uint16_t *cr = c + i * cs[0] + j * cs[1] + l * cs[2];
        const uint16_t *sr = s + i * ss[0] + j * ss[1] + l * ss[2];
        uint16_t *orow = o + i * os[0] + j * os[1] + l * os[2];
        #pragma omp simd
        for (int64_t k = 0; k < h; k++) {
            const float lo = bf16_load(xr[k]), hi = bf16_load(xr[k + h]);
            orow[k] = bf16_round(bf16_rounded(lo * bf16_load(cr[k]))
                                 - bf16_rounded(hi * bf16_load(sr[k])));
            orow[k + h] = bf16_round(bf16_rounded(hi * bf16_load(cr[k + h]))
                                     + bf16_rounded(lo * bf16_load(sr[k + h])));
        }
    }
}
""".replace("PARALLEL_ROWS", str(PARALLEL_ROWS))

_I64, _PTR = ctypes.c_int64, ctypes.c_void_p
_SIGNATURES = {name: [_PTR, _PTR, _PTR, _PTR, _PTR, _PTR, _PTR, _PTR, _PTR, _I64]
               for name in ("rotary", "rotary_bf16")}
FUNCTIONS = {torch.float32: "rotary", torch.bfloat16: "rotary_bf16"}  # by element type
_Dims = ctypes.c_int64 * LEADING


def library() -> ctypes.CDLL | None:
    return cc.load("rotary", _SOURCE, _SIGNATURES)


def _leading(t: torch.Tensor, rank: int) -> list[int]:
    """The strides of `t`'s leading dims, padded in front to LEADING."""
    return [0] * (LEADING + 1 - rank) + list(t.stride()[:-1])


def kernel(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor,
           out: torch.Tensor) -> Callable[[], None] | None:
    """out = x * cos + rotate_half(x) * sin, as a call bound to these tensors
    now; None if the C kernel cannot run it (not all fp32 or all bf16, more
    than 4-D, an odd or empty last dim, a last dim not contiguous, cos or
    sin not broadcasting to x's shape, out overlapping an input, no C
    library)."""
    shape, rank = tuple(x.shape), x.dim()
    if (not 1 <= rank <= LEADING + 1 or tuple(out.shape) != shape or shape[-1] % 2
            or shape[-1] == 0 or x.numel() == 0
            or x.dtype not in FUNCTIONS or any(t.dtype != x.dtype for t in (cos, sin, out))
            or any(cc.overlap(out, t) for t in (x, cos, sin))):
        return None
    try:
        cos, sin = cos.expand(shape), sin.expand(shape)
    except RuntimeError:
        return None
    if any(t.stride(-1) != 1 for t in (x, cos, sin, out)) or library() is None:
        return None
    dims = _Dims(*([1] * (LEADING + 1 - rank) + list(shape[:-1])))
    strides = [_Dims(*_leading(t, rank)) for t in (x, cos, sin, out)]
    call = functools.partial(getattr(library(), FUNCTIONS[x.dtype]), x.data_ptr(), strides[0], cos.data_ptr(),
                             strides[1], sin.data_ptr(), strides[2], out.data_ptr(),
                             strides[3], dims, shape[-1])
    call.keep = (x, cos, sin, out, dims, strides)  # alive while the call lives
    return call


def reference(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """The same in torch ops (HF's apply_rotary_pos_emb for one tensor)."""
    h = x.shape[-1] // 2
    return x * cos + torch.cat((-x[..., h:], x[..., :h]), dim=-1) * sin
