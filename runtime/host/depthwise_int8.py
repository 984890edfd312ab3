"""The int8 depthwise conv of a quantized cube task, as one C loop on VNNI.

oneDNN 3.2's int8 depthwise kernel (`brdgmm_dw` on a u8 source) takes
longer than its bf16 one on MobileNetV2's stride-1 depthwise convs
(1.1-1.2x: 18 us against 15 for 384 channels at 14x14). A depthwise conv
has no sum over channels for VNNI's 4-way `vpdpbusd`, so the loop sums
four columns of one kernel row instead: the u8 bytes of input columns
ow-1 .. ow+2 are interleaved per channel (two unpack steps, which work
within 128-bit lanes and so leave a 64-channel block's channels permuted;
the weights are packed once in the same order, and packing the results
to 8 bits puts them back), and that one interleave serves two output pixels,
ow with the weights (w0, w1, w2, 0) and ow+1 with (0, w0, w1, w2).

    acc[c] = sum over taps of x[tap][c] * w[c][tap]                 (int32)
    q[c]   = rne(clamp(acc[c] * m[c] + a[c], lo, hi))                (u8 / s8)

with m = input_scale * weight_scale[c] / output_scale, a = bias[c] /
output_scale, and [lo, hi] the activation's range over output_scale
within the output type's (ReLU: [0, +inf), ReLU6: [0, 6]); rounding is
to nearest even, as ONNX's QuantizeLinear. Scaling by the one product
`m` rather than by each scale in turn can move a value within float
rounding of a tie to the other side: one step, as between oneDNN and the
reference. Taps outside the input read a row of zeros.

It takes a conv with stride 1, three kernel columns, no dilation, one
filter per channel and more than 32 channels (with fewer, half of a
64-channel block's lanes idle, oneDNN's kernel is the faster: 77 against
91 us for 32 channels at 112x112), a u8 NHWC input, no residual and an
int8 output; others keep oneDNN's primitive. Rows of output pixels and 64-channel
blocks are shared out over torch's OpenMP threads.
"""

from __future__ import annotations

import ctypes
import functools

import numpy as np
import torch

from runtime.host import cc, int8

SOURCE = r"""
#include <immintrin.h>
#include <stdint.h>

/* The u8 bytes of four columns interleaved per channel: r[j], lane k,
   dword i holds channel 16k + 4j + i of the block, its four columns'
   bytes in order. */
static inline void interleave(const uint8_t *const p[4], __mmask64 live, __m512i r[4]) {
    const __m512i v0 = _mm512_maskz_loadu_epi8(live, p[0]);
    const __m512i v1 = _mm512_maskz_loadu_epi8(live, p[1]);
    const __m512i v2 = _mm512_maskz_loadu_epi8(live, p[2]);
    const __m512i v3 = _mm512_maskz_loadu_epi8(live, p[3]);
    const __m512i ab_lo = _mm512_unpacklo_epi8(v0, v1), ab_hi = _mm512_unpackhi_epi8(v0, v1);
    const __m512i cd_lo = _mm512_unpacklo_epi8(v2, v3), cd_hi = _mm512_unpackhi_epi8(v2, v3);
    r[0] = _mm512_unpacklo_epi16(ab_lo, cd_lo);
    r[1] = _mm512_unpackhi_epi16(ab_lo, cd_lo);
    r[2] = _mm512_unpacklo_epi16(ab_hi, cd_hi);
    r[3] = _mm512_unpackhi_epi16(ab_hi, cd_hi);
}

/* Requantize a pixel's four accumulators and store its channels in order:
   packing acc[0], acc[1] to 16 bits puts a lane's channels 16k .. 16k+7 in
   order (and acc[2], acc[3] its 16k+8 .. 16k+15), packing those to 8 bits
   the lane's 16 channels: the interleave's permutation undone for free. */
static inline void store(const __m512i acc[4], const float *m, const float *a, __m512 lo,
                         __m512 hi, int out_signed, uint8_t *dst, __mmask64 live) {
    __m512i q[4];
    for (int j = 0; j < 4; j++) {
        __m512 f = _mm512_fmadd_ps(_mm512_cvtepi32_ps(acc[j]), _mm512_loadu_ps(m + 16 * j),
                                   _mm512_loadu_ps(a + 16 * j));
        f = _mm512_min_ps(_mm512_max_ps(f, lo), hi);
        q[j] = _mm512_cvt_roundps_epi32(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    }
    const __m512i low = _mm512_packs_epi32(q[0], q[1]), high = _mm512_packs_epi32(q[2], q[3]);
    _mm512_mask_storeu_epi8(dst, live, out_signed ? _mm512_packs_epi16(low, high)
                                                  : _mm512_packus_epi16(low, high));
}

/* x [N, H, W, C] u8 at strides (sn, sh, sw) bytes, channels dense; y
   [N, OH, OW, C] likewise. w: per 64-channel block, per kernel row, the
   vectors for (w0, w1, w2, 0) then for (0, w0, w1, w2), 4 x 64 bytes each;
   m, a: per block, 64 floats in the permuted order. */
void dw3_int8(const uint8_t *x, long sn, long sh, long sw, uint8_t *y, long yn, long yh,
              long yw, const int8_t *w, const float *m, const float *a, const uint8_t *zeros,
              int N, int H, int W, int C, int KH, int pad_h, int pad_w, float lo, float hi,
              int out_signed)
{
    const int blocks = (C + 63) / 64, OH = H + 2 * pad_h - KH + 1, OW = W + 2 * pad_w - 2;
    const long work = (long)N * OH * OW * C * KH * 3;
    #pragma omp parallel for collapse(2) schedule(static) if (work > (1L << 18))
    for (long row = 0; row < (long)N * OH; row++) {
        for (int b = 0; b < blocks; b++) {
            const int n = (int)(row / OH), oh = (int)(row % OH), c0 = b * 64;
            const __mmask64 live = C - c0 >= 64 ? ~0ULL : (1ULL << (C - c0)) - 1;
            const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
            const int8_t *wb = w + (long)b * KH * 512;
            const float *mb = m + c0, *ab = a + c0;
            const uint8_t *xb = x + n * sn + c0;
            uint8_t *yr = y + n * yn + oh * yh + c0;
            for (int ow = 0; ow < OW; ow += 2) {
                __m512i left[4], right[4];
                for (int j = 0; j < 4; j++)
                    left[j] = right[j] = _mm512_setzero_si512();
                for (int kh = 0; kh < KH; kh++) {
                    const int ih = oh - pad_h + kh;
                    const uint8_t *p[4];
                    for (int t = 0; t < 4; t++) {
                        const int iw = ow - pad_w + t;
                        p[t] = ih >= 0 && ih < H && iw >= 0 && iw < W ? xb + ih * sh + iw * sw
                                                                      : zeros;
                    }
                    __m512i r[4];
                    interleave(p, live, r);
                    const int8_t *wk = wb + kh * 512;
                    for (int j = 0; j < 4; j++) {
                        left[j] = _mm512_dpbusd_epi32(left[j], r[j],
                                                      _mm512_loadu_si512(wk + 64 * j));
                        right[j] = _mm512_dpbusd_epi32(right[j], r[j],
                                                       _mm512_loadu_si512(wk + 256 + 64 * j));
                    }
                }
                store(left, mb, ab, vlo, vhi, out_signed, yr + ow * yw, live);
                if (ow + 1 < OW)
                    store(right, mb, ab, vlo, vhi, out_signed, yr + (ow + 1) * yw, live);
            }
        }
    }
}
"""

_P, _L, _I, _F = ctypes.c_void_p, ctypes.c_long, ctypes.c_int, ctypes.c_float
SIGNATURES = {"dw3_int8": [_P, _L, _L, _L, _P, _L, _L, _L, _P, _P, _P, _P,
                           _I, _I, _I, _I, _I, _I, _I, _F, _F, _I]}


def library() -> ctypes.CDLL | None:
    """The compiled loop; None without a C compiler or off AVX512-VNNI."""
    if not (cc.cpu_has("avx512_vnni") and cc.cpu_has("avx512bw")):
        return None
    return cc.load("depthwise_int8", SOURCE, SIGNATURES)


def _permuted(channels: int) -> np.ndarray:
    """The channel at each position of the blocks' permuted vectors: position
    16 j + 4 k + i of a block is its channel 16 k + 4 j + i."""
    blocks = (channels + 63) // 64
    j, k, i = np.meshgrid(np.arange(4), np.arange(4), np.arange(4), indexing="ij")
    within = (16 * k + 4 * j + i).reshape(-1)
    return (np.arange(blocks)[:, None] * 64 + within[None, :]).reshape(-1)


def pack(weight: np.ndarray, scale: np.ndarray, bias: np.ndarray | None,
         input_scale: float, output_scale: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(packed weights, m, a) in the loop's order, from a [C, 1, KH, 3] i8
    weight, its per-channel scales and the f32 bias."""
    c, _, kh, _ = weight.shape
    order = _permuted(c)
    taps = np.zeros((order.size, kh, 3), np.int8)
    taps[:c] = weight[:, 0]
    rows = np.zeros((order.size, kh, 2, 4), np.int8)   # channel, kernel row, left / right
    rows[:, :, 0, :3] = taps                           # (w0, w1, w2, 0): pixel ow
    rows[:, :, 1, 1:] = taps                           # (0, w0, w1, w2): pixel ow + 1
    blocks = rows[order].reshape(-1, 4, 16, kh, 2, 4)  # block, j, 4 k + i, row, side, column
    packed = np.ascontiguousarray(blocks.transpose(0, 3, 4, 1, 2, 5)).reshape(-1)
    m = np.zeros(order.size, np.float32)
    m[:c] = np.float32(input_scale) * scale.astype(np.float32) / np.float32(output_scale)
    a = np.zeros(order.size, np.float32)
    if bias is not None:
        a[:c] = bias.astype(np.float32) / np.float32(output_scale)
    return packed, m[order], a[order]


def _bounds(relu: bool, post_op, output_scale: float, dtype: torch.dtype
            ) -> tuple[float, float] | None:
    """[lo, hi] of the activation over output_scale within the type's range;
    None for an activation that is not a clamp."""
    lo, hi = int8.RANGES[dtype]
    low, high = (0.0 if relu else None), None
    if post_op is not None:
        if post_op.kind == "relu" and post_op.alpha == 0.0:
            low = 0.0
        elif post_op.kind == "clip":
            low, high = post_op.alpha, post_op.beta
        else:
            return None
    if low is not None:
        lo = max(lo, low / output_scale)
    if high is not None:
        hi = min(hi, high / output_scale)
    return float(lo), float(hi)


def depthwise_runner(x: torch.Tensor, weight: torch.Tensor, weight_scale: torch.Tensor,
                     bias: torch.Tensor | None, out: torch.Tensor, conv: tuple,
                     input_scale: float, output_scale: float, relu: bool, post_op):
    """A runner of the conv on the bound NHWC views `x` -> `out` (`conv` =
    stride, padding, dilation, groups), or None where the loop does not
    apply (module doc)."""
    stride, padding, dilation, groups = conv
    n, c, h, w = x.shape
    if not (groups == c == weight.shape[0] == out.shape[1] and weight.shape[1] == 1 and c > 32
            and weight.shape[3] == 3 and tuple(stride) == (1, 1) and tuple(dilation) == (1, 1)
            and x.dtype == torch.uint8 and out.dtype in int8.RANGES
            and x.stride(1) == 1 and out.stride(1) == 1):
        return None
    bounds = _bounds(relu, post_op, output_scale, out.dtype)
    lib = library() if bounds is not None else None
    if lib is None:
        return None
    packed, m, a = (torch.from_numpy(v) for v in pack(
        weight.numpy(), weight_scale.float().numpy(),
        None if bias is None else bias.float().numpy(), input_scale, output_scale))
    zeros = torch.zeros(64, dtype=torch.uint8)
    call = functools.partial(
        lib.dw3_int8, x.data_ptr(), x.stride(0), x.stride(2), x.stride(3),
        out.data_ptr(), out.stride(0), out.stride(2), out.stride(3),
        packed.data_ptr(), m.data_ptr(), a.data_ptr(), zeros.data_ptr(),
        n, h, w, c, weight.shape[2], *padding, *bounds, int(out.dtype == torch.int8))
    run = cc.as_runner(call, "int8_depthwise_conv2d")
    run.keep = (x, out, packed, m, a, zeros)
    run.impl = "int8_depthwise_conv2d:c_avx512_vnni"
    return run
