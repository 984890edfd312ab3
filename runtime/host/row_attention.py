"""Attention of a few queries in one C loop: softmax(q @ k^T * scale, masked) @ v.

At a decode step each head has one query row over the cached keys: a few
hundred dot products of 64 floats. torch's fused kernel does that in
microseconds, but the call around it (the mask built as a float tensor,
the grouped heads reshaped, the result copied into the view) is a dozen
ops of dispatch. The loop below reads q, k, v and the mask where they lie
(any strides, grouped-query heads served from their KV head, a
broadcast mask by stride 0) and writes the output view: per query row the
scores, their softmax, and the weighted sum of v's rows.

The arithmetic is the body's, op for op: the score is (q . k) * scale;
a where-mask gives the fill exactly where the body's where does (the
condition equal to `keep` keeps the score), an additive mask is added; the
softmax subtracts the row's max. Shortcuts for masked keys: a masked key's
q . k is not computed (the fill replaces it), and when another score is
the max neither is its exp (a fill of -1e30 or below is further from any
other float than exp's range, so the body's exp gives 0 there), nor its
row of v read (its weight is exactly 0): at a decode step over a static
cache, the keys past the position cost only their mask byte, whatever the
cache's length. That last one differs from the body only where a masked
row of v holds inf or NaN (0 times it is NaN in the body's matmul): rows
a cache has not written yet, whose values no answer depends on. A row
whose scores are all -inf is NaN, as the body's softmax makes it, or 0 with
`safe` (aten._safe_softmax, which torch's SDPA decomposes to; a NaN score
keeps the row NaN). At most MAX_QUERIES query rows, where the work per
head is small (prefill keeps torch's blocked kernel).

fp32 or bf16 (a bf16 model's attention, as Ascend's fused attention kernel
and torch's CPU flash attention run it): bf16 q, k, v (and an additive
mask) are widened as they are read, the scores, the softmax and the
weighted sum of v are fp32, and the result is rounded to bf16 once, where
the body op by op rounds the scores and the probabilities too.

Tensors are passed as descriptors, int64[5]: the address, then the strides
(in elements) of the four dims [B, H, T, S|D|E]. A descriptor of a view
bound at load is filled once; one of a graph input (the KV cache) is
refilled per call (`Bound.fill`).
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable

import torch

from runtime.host import bf16, cc

MAX_QUERIES = 16  # query rows per head up to which the loop runs
MAX_KEYS = 1 << 14  # keys per row: the scores live on the stack (64 KB)
# Multiply-adds from which heads go to torch's thread pool. A decode step's
# cache comes from memory (the linears between two layers' attentions pass
# more bytes through the caches than they hold), so two threads read it
# faster: 8 heads over 168 keys of 64 take 41 us on one core, 24-29 on two;
# below a few heads over a few dozen keys, a fork and join costs more.
PARALLEL_WORK = 1 << 16

# the mask's kinds, as the C loop takes them
NO_MASK, KEEP_TRUE, KEEP_FALSE, ADDITIVE = 0, 1, 2, 3

# The loop over elements of type T, loaded as fp32 by LD and stored by ST:
# compiled once per type (VARIANTS).
_LOOP = r"""
void NAME(const int64_t *qd, const int64_t *kd, const int64_t *vd, const int64_t *md,
          int64_t mode, float fill, const int64_t *od, const int64_t *n, float scale,
          int64_t safe) {
    const int64_t B = n[0], H = n[1], KVH = n[2], T = n[3], S = n[4], D = n[5], E = n[6];
    const int64_t groups = H / KVH;
    const T_ *q = AT(qd, T_), *k = AT(kd, T_), *v = AT(vd, T_);
    const uint8_t *cond = (const uint8_t *)(intptr_t)md[0];
    const T_ *add = AT(md, T_);
    T_ *o = (T_ *)(intptr_t)od[0];
    #pragma omp parallel for collapse(2) schedule(static) \
        if (B * H * T * S * (D + E) >= PARALLEL_WORK)
    for (int64_t b = 0; b < B; b++)
    for (int64_t h = 0; h < H; h++) {
        float sc[S], qf[D], acc[E];
        int32_t idx[S];  /* the keys scored: sc[j] is key idx[j]'s */
        const int64_t g = h / groups;
        const T_ *kh = k + b * kd[1] + g * kd[2];
        const T_ *vh = v + b * vd[1] + g * vd[2];
        const int where = mode == 1 || mode == 2;
        for (int64_t t = 0; t < T; t++) {
            const T_ *qr = q + b * qd[1] + h * qd[2] + t * qd[3];
            for (int64_t i = 0; i < D; i++) qf[i] = LD(qr[i]);
            const int64_t mrow = b * md[1] + h * md[2] + t * md[3];
            int64_t n = 0, j = 0;
            /* a masked key's score is the fill whatever q . k is: not computed */
            for (int64_t s = 0; s < S; s++)
                if (!where || (cond[mrow + s * md[4]] != 0) == (mode == 1)) idx[n++] = (int32_t)s;
            for (; j + 4 <= n; j += 4) {  /* four keys at once: independent sums */
                const T_ *k0 = kh + idx[j] * kd[3], *k1 = kh + idx[j + 1] * kd[3],
                         *k2 = kh + idx[j + 2] * kd[3], *k3 = kh + idx[j + 3] * kd[3];
                float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
                #pragma omp simd reduction(+:a0, a1, a2, a3)
                for (int64_t i = 0; i < D; i++) {
                    a0 += qf[i] * LD(k0[i]); a1 += qf[i] * LD(k1[i]);
                    a2 += qf[i] * LD(k2[i]); a3 += qf[i] * LD(k3[i]);
                }
                sc[j] = a0 * scale; sc[j + 1] = a1 * scale;
                sc[j + 2] = a2 * scale; sc[j + 3] = a3 * scale;
            }
            for (; j < n; j++) {
                const T_ *kr = kh + idx[j] * kd[3];
                float a = 0.0f;
                #pragma omp simd reduction(+:a)
                for (int64_t i = 0; i < D; i++) a += qf[i] * LD(kr[i]);
                sc[j] = a * scale;
            }
            if (mode == 3)
                for (j = 0; j < n; j++) sc[j] += LD(add[mrow + idx[j] * md[4]]);
            float mx = -INFINITY;
            int nan = 0;
            for (j = 0; j < n; j++) {
                if (sc[j] > mx) mx = sc[j];
                nan |= sc[j] != sc[j];
            }
            if (n < S && !(n > 0 && mx > fill)) {
                /* the fill is the row's max: every key counts, each masked one
                   with score fill. Spread the scores over all S keys. */
                for (int64_t s = S - 1, i = n - 1; s >= 0; s--)
                    sc[s] = (i >= 0 && idx[i] == s) ? sc[i--] : fill;
                for (int64_t s = 0; s < S; s++) idx[s] = (int32_t)s;
                n = S;
                if (fill > mx) mx = fill;
            }
            /* else a masked key's exp(fill - mx) is 0 (floats that far down
               are further apart than exp's range): neither it nor its row of
               v is read */
            float sum = 0.0f;
            for (j = 0; j < n; j++) {
                sc[j] = expf(sc[j] - mx);
                sum += sc[j];
            }
            T_ *orow = o + b * od[1] + h * od[2] + t * od[3];
            #pragma omp simd
            for (int64_t e = 0; e < E; e++) acc[e] = 0.0f;
            if (!(safe && mx == -INFINITY && !nan)) {  /* no key: a safe softmax's 0 */
                for (j = 0; j < n; j++) sc[j] /= sum;
                for (j = 0; j + 4 <= n; j += 4) {  /* four rows of v at once: fewer stores */
                    const T_ *v0 = vh + idx[j] * vd[3], *v1 = vh + idx[j + 1] * vd[3],
                             *v2 = vh + idx[j + 2] * vd[3], *v3 = vh + idx[j + 3] * vd[3];
                    const float p0 = sc[j], p1 = sc[j + 1], p2 = sc[j + 2], p3 = sc[j + 3];
                    #pragma omp simd
                    for (int64_t e = 0; e < E; e++)
                        acc[e] += p0 * LD(v0[e]) + p1 * LD(v1[e]) + p2 * LD(v2[e])
                                  + p3 * LD(v3[e]);
                }
                for (; j < n; j++) {
                    const float p = sc[j];
                    const T_ *vr = vh + idx[j] * vd[3];
                    #pragma omp simd
                    for (int64_t e = 0; e < E; e++) acc[e] += p * LD(vr[e]);
                }
            }
            #pragma omp simd
            for (int64_t e = 0; e < E; e++) orow[e] = ST(acc[e]);
        }
    }
}
""".replace("PARALLEL_WORK", str(PARALLEL_WORK))
# dtype -> (function, C element type, load, store)
VARIANTS = {
    torch.float32: ("row_attention", "float", "(x)", "(x)"),
    torch.bfloat16: ("row_attention_bf16", "uint16_t", "bf16_load(x)", "bf16_round(x)"),
}
_SOURCE = bf16.C_CONVERSIONS + "#include <math.h>\n#define AT(d, T) ((const T *)(intptr_t)(d)[0])\n" \
    + "".join(f"#define NAME {name}\n#define T_ {ctype}\n#define LD(x) {load}\n"
              f"#define ST(x) {store}\n{_LOOP}#undef NAME\n#undef T_\n#undef LD\n#undef ST\n"
              for name, ctype, load, store in VARIANTS.values())

_I64, _PTR = ctypes.c_int64, ctypes.c_void_p
_SIGNATURES = {name: [_PTR, _PTR, _PTR, _PTR, _I64, ctypes.c_float, _PTR, _PTR,
                      ctypes.c_float, _I64] for name, *_ in VARIANTS.values()}
_Desc = ctypes.c_int64 * 5


def library() -> ctypes.CDLL | None:
    return cc.load("row_attention", _SOURCE, _SIGNATURES)


class Operand:
    """How one tensor of the call is read: its expected shape, and the
    strides of the loop's four dims taken from it (k given transposed has
    its last two swapped; a mask is broadcast to [B, H, T, S])."""

    def __init__(self, shape: tuple, dtype: torch.dtype, dense_last: bool,
                 transposed: bool = False, broadcast: tuple | None = None):
        self.shape, self.dtype, self.dense_last = tuple(shape), dtype, dense_last
        self.transposed, self.broadcast = transposed, broadcast
        self.desc = _Desc()

    def at(self, keys: int) -> Operand:
        """This operand with its `?` dim (the number of keys) set to `keys`."""
        fixed = Operand(tuple(keys if n < 0 else n for n in self.shape), self.dtype,
                        self.dense_last, self.transposed,
                        self.broadcast and tuple(keys if n < 0 else n for n in self.broadcast))
        fixed.desc = self.desc
        return fixed

    def fill(self, x) -> bool:
        """Point the descriptor at `x`; False if `x` is not what the loop reads."""
        if not isinstance(x, torch.Tensor) or x.shape != self.shape or x.dtype != self.dtype:
            return False
        if self.broadcast is not None:
            x = x.expand(self.broadcast)
        strides = list(x.stride())
        if self.transposed:
            strides[2], strides[3] = strides[3], strides[2]
        if self.dense_last and strides[3] != 1 and x.shape[-2 if self.transposed else -1] > 1:
            return False
        self.desc[0] = x.data_ptr()
        self.desc[1:5] = strides
        return True


def runner(q, k, v, mask, mask_kind: int, fill: float, scale: float, target: torch.Tensor,
           groups: int, k_transposed: bool, safe: bool = False
           ) -> Callable[[list], bool] | None:
    """A call computing the attention into `target` [B, H, T, E] from the
    task inputs at the given positions: `call(args) -> bool`, False (and
    nothing written) when a tensor given per call is not as at load. Each
    of q, k, v, mask is (position, tensor bound at load or None, shape).
    q, k, v, an additive mask and `target` are all of `target`'s type.
    None if the loop cannot run it: not fp32 or bf16, too many queries or
    keys, the output's last dim not contiguous, or no C library."""
    (qi, qt, qshape), (ki, kt, kshape), (vi, vt, vshape) = q, k, v
    if len(qshape) != 4 or target.dim() != 4 or target.dtype not in VARIANTS:
        return None
    dtype = target.dtype
    b, h, t, d = qshape
    key_dim = 2 if not k_transposed else 3
    s = kshape[key_dim]
    kvh, e = vshape[1], vshape[3]
    if s < 0:  # a dynamic cache's length: read from k at each call
        return _any_length(q, k, v, mask, mask_kind, fill, scale, target, groups,
                           k_transposed, safe)
    if (t > MAX_QUERIES or s > MAX_KEYS or s < 1 or h != kvh * groups
            or tuple(target.shape) != (b, h, t, e) or (target.stride(-1) != 1 and e > 1)
            or library() is None):
        return None
    operands = [(qi, qt, Operand(qshape, dtype, True)),
                (ki, kt, Operand(kshape, dtype, True, transposed=k_transposed)),
                (vi, vt, Operand(vshape, dtype, True))]
    none = Operand((), dtype, False)  # no mask: a descriptor never read
    if mask is not None:
        mi, mt, mshape = mask
        kind = torch.bool if mask_kind in (KEEP_TRUE, KEEP_FALSE) else dtype
        try:
            torch.empty(mshape, device="meta").expand(b, h, t, s)
        except RuntimeError:
            return None
        operands.append((mi, mt, Operand(mshape, kind, False, broadcast=(b, h, t, s))))
    per_call = []
    for i, bound, operand in operands:
        if bound is None:
            per_call.append((i, operand))
        elif not operand.fill(bound):
            return None
    out = Operand(tuple(target.shape), dtype, True)
    out.fill(target)
    dims = (ctypes.c_int64 * 7)(b, h, kvh, t, s, d, e)
    descs = [op.desc for _, _, op in operands] + [none.desc] * (mask is None)
    call = functools.partial(getattr(library(), VARIANTS[dtype][0]), *descs, mask_kind, fill, out.desc, dims,
                             scale, int(safe))
    keep = (operands, out, dims, target)

    def attention(args) -> bool:
        for i, operand in per_call:
            if not operand.fill(args[i]):
                return False
        call()
        return True

    def bind(args) -> Callable[[], None] | None:
        """The C call itself with `args` fixed for good (a captured replay's),
        or None if the loop does not take them."""
        return call if all(operand.fill(args[i]) for i, operand in per_call) else None
    attention.keep = call.keep = keep  # bound tensors and descriptors live as long as the call
    attention.bind = bind
    attention.call, attention.per_call, attention.dims = call, per_call, dims
    return attention


def reference(q, k, v, mask=None, mask_kind: int = NO_MASK, fill: float = float("-inf"),
              scale: float = 1.0, groups: int = 1, safe: bool = False) -> torch.Tensor:
    """The same in torch ops, as the task body computes it (k [B, KVH, S, D])."""
    k, v = (x.repeat_interleave(groups, dim=1) for x in (k, v))
    scores = (q @ k.transpose(-1, -2)) * scale
    if mask_kind == ADDITIVE:
        scores = scores + mask
    elif mask_kind in (KEEP_TRUE, KEEP_FALSE):
        keep = mask if mask_kind == KEEP_TRUE else ~mask
        scores = torch.where(keep, scores, torch.tensor(fill))
    p = torch.softmax(scores, -1)
    if safe:
        p = p.masked_fill(scores.amax(-1, keepdim=True) == float("-inf"), 0.0)
    return p @ v


def _any_length(q, k, v, mask, mask_kind: int, fill: float, scale: float,
                target: torch.Tensor, groups: int, k_transposed: bool, safe: bool
                ) -> Callable[[list], bool] | None:
    """`runner` where the number of keys is `?` in k's, v's and the mask's
    shapes (every other dim static, and those inputs given per call): each
    call reads it from k, sets the loop's dims and checks the rest as at
    load. No `bind`: a replay has static shapes."""
    (qi, qt, qshape), (ki, _, kshape), (vi, _, vshape) = q, k, v
    key_dim = 3 if k_transposed else 2
    shapes = [qshape, kshape, vshape] + ([mask[2]] if mask is not None else [])
    unknown = [[i for i, n in enumerate(x) if n < 0] for x in shapes]
    if (min(qshape) < 0 or unknown[1] != [key_dim] or unknown[2] != [2]
            or (mask is not None and unknown[3] != [3]
                and not (unknown[3] == [] and mask[2][3] == 1))  # a mask over the keys
            or any(x[1] is not None for x in (k, v) + ((mask,) if mask else ()))):
        return None
    # the loop at the most keys it takes, to check everything but the length once
    widest = runner(q, (ki, None, _keyed(kshape, MAX_KEYS)), (vi, None, _keyed(vshape, MAX_KEYS)),
                    mask and (mask[0], None, _keyed(mask[2], MAX_KEYS)), mask_kind, fill,
                    scale, target, groups, k_transposed, safe)
    if widest is None:
        return None
    call, per_call, dims = widest.call, widest.per_call, widest.dims
    unsized = {ki: kshape, vi: vshape, **({mask[0]: mask[2]} if mask is not None else {})}
    for i, operand in per_call:  # back to `?` where the length goes
        operand.shape = unsized[i]
        if operand.broadcast is not None:
            operand.broadcast = operand.broadcast[:3] + (-1,)

    def attention(args) -> bool:
        keys = args[ki].shape[key_dim] if isinstance(args[ki], torch.Tensor) else 0
        if not 1 <= keys <= MAX_KEYS:
            return False
        if not all(operand.at(keys).fill(args[i]) for i, operand in per_call):
            return False
        dims[4] = keys
        call()
        return True
    attention.keep = widest.keep
    attention.any_length = True
    return attention


def _keyed(shape: tuple, keys: int) -> tuple:
    return tuple(keys if n < 0 else n for n in shape)
