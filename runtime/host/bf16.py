"""bf16 cube tasks (precision-mode's allow_fp32_to_bf16 and
allow_mix_precision_bf16): a conv or linear on bf16 weights, maybe with the
casts the pass put around it (cast(x) first: the input converted to bf16; a
cast after the matrix op: the result stored as the task's output type).

Two paths, the first one that builds wins:

- `native`: oneDNN's bf16 primitive. bf16 sources and weights, products
  accumulated in fp32, bias and post-ops applied in fp32, the destination
  written as the output view's type (bf16, or fp32 where the body casts
  back: the cast is the kernel's store, not a task). oneDNN picks
  `brg...:avx512_core_amx` with AMX and `avx512_core_bf16` kernels with
  AVX512_BF16 by itself. On a CPU with neither it has no bf16 conv or inner
  product at all (dnnl_unimplemented), so:
- `emulated`: the same numbers from oneDNN's fp32 kernels. The input is
  rounded to bf16 (as the cast would) and widened, the weights widened once
  at load; a product of two bf16 values is exact in fp32, so this is bf16
  compute with fp32 accumulation, as on the cube, at fp32 speed (no bf16
  speed-up). The result is rounded to bf16 when the output view is bf16.

The runner's `path` says which ran ("onednn-bf16:<impl>" or
"emulated-fp32:<impl>"); `Executable.cube_paths()` counts them, and the
benchmarks print it, so fp32 kernels are never reported as bf16 hardware.
A task neither path takes (no oneDNN library, a layout it refuses) returns
None: the caller runs it op by op. (A bf16 attention group is oneDNN's
bf16 matmuls and softmax where its operands are arena views:
runtime/host/attention.py.) Op by op, the kernel table's 16-bit matrix ops
(an attention's matmuls otherwise, a depthwise conv) take the same choice per op
(`widened`): torch's 16-bit kernel where the CPU has 16-bit matrix
instructions, else the operands widened to fp32 and the result rounded
once, since torch's bf16 kernels without them convert element by element
(a [12, 128, 64] batched matmul ran 28x slower than in fp32 on AVX2). Such
a task's path is "generic:torch-bfloat16" or "generic:emulated-fp32".

A bf16 model's decode step (one row) has two cube tasks more that end in
bf16 elementwise ops: a linear added into its residual's bytes, and the
gated MLP. Each is oneDNN's bf16 inner product on the weights' own bytes
into a small buffer of its own, then one C loop that rounds as the body's
bf16 ops do (`linear_add`, `gated_mlp`).
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable, Sequence

import torch

from runtime.host import cc
from runtime.host import onednn as dnnl

Runner = Callable[..., None]

# bf16 in the host C kernels (runtime/host/cc.py): a value is the top half of
# an fp32's bits; loading widens exactly, storing rounds to nearest even as
# torch does (NaN to its quiet NaN), so a kernel that computes in fp32 and
# rounds where the body's bf16 ops do gives torch's bf16 results.
C_CONVERSIONS = r"""
#include <stdint.h>
#include <string.h>
static inline float bf16_load(uint16_t h) {
    uint32_t u = (uint32_t)h << 16; float f; memcpy(&f, &u, 4); return f;
}
static inline uint16_t bf16_round(float f) {
    uint32_t u; memcpy(&u, &f, 4);
    if (f != f) return 0x7fc0;
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
/* a bf16 op's result read back: computed in fp32, rounded */
static inline float bf16_rounded(float f) { return bf16_load(bf16_round(f)); }
"""


def native(dtype: torch.dtype) -> bool:
    """Whether torch's (oneDNN's) `dtype` matrix kernels run on this CPU's own
    16-bit instructions (torch's own check: AVX512 or AMX for bf16,
    AVX512_FP16 or AMX-FP16 for fp16)."""
    if dtype == torch.bfloat16:
        return torch.ops.mkldnn._is_mkldnn_bf16_supported()
    if dtype == torch.float16:
        return torch.ops.mkldnn._is_mkldnn_fp16_supported()
    return True


def widened(kernel: Callable[..., torch.Tensor], dtype: torch.dtype
            ) -> Callable[..., torch.Tensor]:
    """A 16-bit matrix kernel as fp32 compute where `dtype` is not native: a
    product of two bf16 (or fp16) values is exact in fp32, so the result is
    the cube's (16-bit operands, fp32 accumulation), rounded once to `dtype`."""
    if native(dtype):
        return kernel

    def emulated(*args):
        return kernel(*(a.float() if isinstance(a, torch.Tensor) and a.dtype == dtype else a
                        for a in args)).to(dtype)
    return emulated


def generic_path(dtype: torch.dtype) -> str:
    """The path an op-by-op cube task of `dtype` runs on (see `widened`)."""
    return "generic:torch-" + str(dtype).removeprefix("torch.") if native(dtype) else (
        "generic:emulated-fp32")


def _with_path(runner: Runner, kind: str, primitive: dnnl.Primitive) -> Runner:
    runner.path = f"{kind}:{primitive.impl}"
    return runner


def conv(x_shape: Sequence[int], x_view: torch.Tensor | None, src_cast: bool,
         weight: torch.Tensor, bias: torch.Tensor | None, out: torch.Tensor,
         residual: torch.Tensor | None, params: tuple, post_ops: list,
         x: int, r: int | None, workspace: dnnl.Workspace | None = None) -> Runner | None:
    """A bf16 conv task writing `out`. `x` and `r` are the task-input positions
    of the input and the residual (added by a sum post-op); `x_view` is the
    input's view if known at load and already bf16 (no `src_cast`). Its
    per-call buffers come from `workspace` (its own if None)."""
    if not dnnl.available() or isinstance(out, dnnl.Blocked):
        return None
    workspace = workspace or dnnl.Workspace()
    return (_native_conv(x_shape, x_view, src_cast, weight, bias, out, residual, params,
                         post_ops, x, workspace)
            or _emulated_conv(x_shape, src_cast, weight, bias, out, residual, params, post_ops,
                              x, r, workspace))


def _native_conv(x_shape, x_view, src_cast, weight, bias, out, residual, params, post_ops,
                 x, workspace) -> Runner | None:
    staged = src_cast or x_view is None
    # The residual: summed into the destination that holds it, else read by a
    # binary post-op in its own type (an fp32 residual into a bf16 destination).
    if residual is None:
        add = []
    elif residual.data_ptr() == out.data_ptr() and residual.dtype == out.dtype:
        add = [("sum",)]
    else:
        add = [("add", residual)]
    try:
        primitive = dnnl.conv2d(list(x_shape) if staged else x_view, weight, bias, out, *params,
                                post_ops=add + post_ops)
    except dnnl.OneDNNError:
        return None
    if not staged:
        return _with_path(primitive.as_runner("onednn_bf16_conv"), "onednn-bf16", primitive)
    staging = dnnl.Staging(workspace, (x_shape, weight.dtype))  # 4-D: NHWC
    # a contiguous NCHW input (a graph input: the image) converted and laid
    # out NHWC by oneDNN's reorder, not torch's copy (a quarter of the time)
    try:
        convert = dnnl.reorder(
            torch.empty(x_shape, dtype=torch.float32 if src_cast else weight.dtype,
                        device="meta"),
            torch.empty(x_shape, dtype=weight.dtype, device="meta",
                        memory_format=torch.channels_last))
    except dnnl.OneDNNError:
        convert = None

    def onednn_bf16_conv(*args):
        (source,) = staging.views()
        if convert is not None and args[x].is_contiguous():
            convert(args[x], source)
        else:
            source.copy_(args[x])
        primitive(source)
    return _with_path(onednn_bf16_conv, "onednn-bf16", primitive)


def _emulated_conv(x_shape, src_cast, weight, bias, out, residual, params, post_ops, x, r,
                   workspace) -> Runner | None:
    into_out = out.dtype == torch.float32
    try:
        primitive = dnnl.conv2d(list(x_shape), weight.float(),
                                None if bias is None else bias.float(),
                                out if into_out else list(out.shape), *params,
                                post_ops=[("sum",)] * (residual is not None) + post_ops)
    except dnnl.OneDNNError:
        return None
    copy_residual = residual is not None and not (into_out and
                                                  residual.data_ptr() == out.data_ptr())
    staging = dnnl.Staging(workspace, (x_shape, torch.float32),
                       *[(out.shape, torch.float32)] * (not into_out),
                       *[(x_shape, torch.bfloat16)] * src_cast)

    def emulated_bf16_conv(*args):
        x32, *rest = staging.views()
        y32 = out if into_out else rest.pop(0)
        if src_cast:
            x16 = rest[0]
            x16.copy_(args[x])  # rounds the fp32 input as the cast does
            x32.copy_(x16)
        else:
            x32.copy_(args[x])  # bf16 -> fp32 is exact
        if copy_residual:
            y32.copy_(args[r])
        if into_out:
            primitive(x32)
        else:
            primitive(x32, y32)
            out.copy_(y32)
    return _with_path(emulated_bf16_conv, "emulated-fp32", primitive)


def linear(x: int, k: int, x_view: torch.Tensor | None, weight: torch.Tensor,
           bias: torch.Tensor | None, rows: torch.Tensor, post_ops: list,
           workspace: dnnl.Workspace | None = None) -> Runner | None:
    """A bf16 linear writing the [rows, features] view `rows` (bf16 or fp32);
    `x_view` is its input if known at load and bf16, else it is converted
    per call (a cast(x) first in the body, or a graph input) into a buffer
    of `workspace` (its own if None)."""
    if not dnnl.available():
        return None
    workspace = workspace or dnnl.Workspace()
    shape = [rows.shape[0], k]
    bound = x_view is not None and x_view.dtype == weight.dtype and x_view.is_contiguous()
    try:
        primitive = dnnl.linear(x_view.reshape(shape) if bound else shape, weight, bias, rows,
                                post_ops)
    except dnnl.OneDNNError:
        primitive = None
    if primitive is not None:
        if bound:
            return _with_path(primitive.as_runner("onednn_bf16_linear"), "onednn-bf16",
                              primitive)
        staging = dnnl.Staging(workspace, (shape, weight.dtype))

        def onednn_bf16_linear(*args):
            (source,) = staging.views()
            source.copy_(args[x].reshape(shape))
            primitive(source)
        return _with_path(onednn_bf16_linear, "onednn-bf16", primitive)
    into_rows = rows.dtype == torch.float32
    try:
        primitive = dnnl.linear(shape, weight.float(), None if bias is None else bias.float(),
                                rows if into_rows else list(rows.shape), post_ops)
    except dnnl.OneDNNError:
        return None
    staging = dnnl.Staging(workspace, (shape, torch.float32), (shape, torch.bfloat16),
                       *[(rows.shape, torch.float32)] * (not into_rows))

    def emulated_bf16_linear(*args):
        x32, x16, *y32 = staging.views()
        source = args[x].reshape(shape)
        if source.dtype == torch.bfloat16:
            x32.copy_(source)  # exact
        else:
            x16.copy_(source)  # rounds the fp32 input as the cast does
            x32.copy_(x16)
        if into_rows:
            primitive(x32)
        else:
            primitive(x32, y32[0])
            rows.copy_(y32[0])
    return _with_path(emulated_bf16_linear, "emulated-fp32", primitive)


# --- decode-step elementwise tails in C (one row: torch's dispatch is the cost)

_SOURCE = C_CONVERSIONS + r"""
#include <math.h>
/* out = y + r: the bf16 add after a linear whose output is the residual's bytes */
void add_bf16(const uint16_t *y, const uint16_t *r, uint16_t *out, int64_t n) {
    #pragma omp simd
    for (int64_t i = 0; i < n; i++) out[i] = bf16_round(bf16_load(y[i]) + bf16_load(r[i]));
}
/* out = silu(g) * u, each op rounded to bf16 as torch's silu and mul are */
void silu_mul_bf16(const uint16_t *g, const uint16_t *u, uint16_t *out, int64_t n) {
    #pragma omp simd
    for (int64_t i = 0; i < n; i++) {
        const float x = bf16_load(g[i]);
        out[i] = bf16_round(bf16_rounded(x / (1.0f + expf(-x))) * bf16_load(u[i]));
    }
}
"""
_I64, _PTR = ctypes.c_int64, ctypes.c_void_p
_SIGNATURES = {"add_bf16": [_PTR, _PTR, _PTR, _I64], "silu_mul_bf16": [_PTR, _PTR, _PTR, _I64]}


def library() -> ctypes.CDLL | None:
    return cc.load("bf16_tails", _SOURCE, _SIGNATURES)


def linear_add(x_view: torch.Tensor | None, weight: torch.Tensor, bias: torch.Tensor | None,
               rows: torch.Tensor, post_ops: list) -> Runner | None:
    """A bf16 linear at a decode step (at most dnnl.PLAIN_WEIGHT_ROWS rows)
    added to the bf16 residual whose bytes `rows` are (the memory plan's
    in-place residual): the inner product of the input view `x_view` into
    a bf16 buffer of its own (a few KB), rounded there as the body's linear
    is, then one C loop adds it into `rows`, rounding once more as the
    body's add does (oneDNN's sum post-op would round once where the body
    rounds twice). None elsewhere (the caller runs the body op by op)."""
    lib = library()
    if (lib is None or not dnnl.available() or not _decode_rows(rows)
            or not _bf16_view(x_view) or weight.dtype != torch.bfloat16):
        return None
    y = torch.empty_like(rows)
    try:
        primitive = dnnl.linear(x_view.reshape(rows.shape[0], -1), weight, bias, y, post_ops)
    except dnnl.OneDNNError:
        return None
    add = functools.partial(lib.add_bf16, y.data_ptr(), rows.data_ptr(), rows.data_ptr(),
                            rows.numel())

    def both():
        primitive.execute()
        add()

    def onednn_bf16_linear_add(*args):
        both()
    onednn_bf16_linear_add.bare = both  # holds the primitive as long as the runner
    onednn_bf16_linear_add.keep = (y, rows)
    return _with_path(onednn_bf16_linear_add, "onednn-bf16", primitive)


def gated_mlp(x_view: torch.Tensor | None, weights: Sequence[torch.Tensor],
              biases: Sequence[torch.Tensor | None], rows: torch.Tensor) -> Runner | None:
    """silu(x @ Wg^T) * (x @ Wu^T) in bf16 into the [rows, inner] view
    `rows` at a decode step (at most dnnl.PLAIN_WEIGHT_ROWS rows), from the
    input view `x_view`: two oneDNN bf16 inner products on the weights' own
    bytes into bf16 buffers of its own, rounded as the body's linears are,
    then one C loop for silu and the product (`silu_mul_bf16`). None
    elsewhere (the caller runs the body op by op)."""
    lib = library()
    if (lib is None or not dnnl.available() or not _decode_rows(rows)
            or not _bf16_view(x_view) or any(w.dtype != torch.bfloat16 for w in weights)):
        return None
    halves = torch.empty(2, *rows.shape, dtype=torch.bfloat16)
    source = x_view.reshape(rows.shape[0], -1)
    try:
        gate, up = (dnnl.linear(source, w, b, half, plain_weight=True)
                    for w, b, half in zip(weights, biases, halves))
    except dnnl.OneDNNError:
        return None
    product = functools.partial(lib.silu_mul_bf16, halves[0].data_ptr(), halves[1].data_ptr(),
                                rows.data_ptr(), rows.numel())

    def calls():
        gate.execute()
        up.execute()
        product()

    def onednn_bf16_gated_mlp(*args):
        calls()
    onednn_bf16_gated_mlp.bare = calls  # holds the primitives as long as the runner
    onednn_bf16_gated_mlp.keep = (halves, rows)
    return _with_path(onednn_bf16_gated_mlp, "onednn-bf16", gate)


def _decode_rows(rows: torch.Tensor) -> bool:
    """bf16 output rows few enough for a decode step's buffers of their own."""
    return (rows.dtype == torch.bfloat16 and rows.is_contiguous()
            and rows.shape[0] <= dnnl.PLAIN_WEIGHT_ROWS)


def _bf16_view(x: torch.Tensor | None) -> bool:
    """An input view bound at load that a bf16 primitive reads as it is."""
    return isinstance(x, torch.Tensor) and x.dtype == torch.bfloat16 and x.is_contiguous()
