"""The kernel table: one host kernel per GE op, shared by every executor.

A table entry is a *preparer*: it reads the op's static parameters once and
returns a plain callable over torch tensors. Executors prepare at load time
and only call kernels at run time, so attribute decoding never sits in the
hot loop.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import ml_dtypes
import numpy as np
import torch
import torch.nn.functional as F
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr
from xdsl.ir import Attribute, Operation

from ge_dialect import ge
from ge_dialect.ascend import CUBE_OPS
from ge_dialect.tensors import to_numpy
from runtime import custom_ops
from runtime.host import bf16, int8, onednn_int8
from runtime.host import nc1hwc0 as layout

Kernel = Callable[..., torch.Tensor]

_TORCH_DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32, "f64": torch.float64,
                 "i1": torch.bool, "i8": torch.int8, "ui8": torch.uint8, "i32": torch.int32, "i64": torch.int64}


class KernelError(RuntimeError):
    """An op has no host kernel; the message names the op and where it is."""


@functools.cache  # each run checks its inputs' types; str() of an xDSL type is slow
def torch_dtype(element_type: Attribute) -> torch.dtype:
    try:
        return _TORCH_DTYPES[str(element_type)]
    except KeyError:
        raise KernelError(f"element type {element_type} has no host dtype") from None


def tensor_from_attr(attr: DenseIntOrFPElementsAttr) -> torch.Tensor:
    """A fresh, writable host copy of a dense constant. torch cannot take
    ml_dtypes' bfloat16 arrays, so bf16 goes through its raw 16-bit words."""
    array = np.array(to_numpy(attr))
    if str(attr.get_element_type()) == "bf16":
        return torch.from_numpy(array.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(array)


def numpy_of(t: torch.Tensor) -> np.ndarray:
    """The values of a host tensor as a NumPy array (bf16 as ml_dtypes' bfloat16,
    which `Tensor.numpy()` refuses)."""
    t = t.detach().contiguous()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    return t.numpy()


def _ints(attr) -> tuple[int, ...]:
    return tuple(attr.get_values())


def _const(op: ge.ConstOp) -> Kernel:
    value = tensor_from_attr(op.value)
    return lambda: value


def _quantize(op: ge.QuantizeOp) -> Kernel:
    axis, dtype = op.axis.value.data, torch_dtype(op.output.type.element_type)
    return lambda x, scale, zero_point=None: int8.quantize(x, scale, zero_point, axis, dtype)


def _dequantize(op: ge.DequantizeOp) -> Kernel:
    axis = op.axis.value.data
    return lambda q, scale, zero_point=None: int8.dequantize(q, scale, zero_point, axis)


def _in_5d(op, kernel: Kernel, channels: int | None = None) -> Kernel:
    """The kernel itself for NCHW; wrapped to unpack and re-pack for NC1HWC0."""
    return layout.on_nchw(kernel, channels) if len(op.input.type.get_shape()) == 5 else kernel


def _conv2d(op: ge.Conv2dOp) -> Kernel:
    stride, padding = _ints(op.stride), _ints(op.padding)
    dilation, groups = _ints(op.dilation), op.groups.value.data
    in_channels = op.weight.type.get_shape()[1] * groups
    return _in_5d(op, lambda x, w, b=None: F.conv2d(x, w, b, stride, padding, dilation, groups),
                  in_channels)


def _batch_norm(op: ge.BatchNormOp) -> Kernel:
    eps = op.epsilon.value.data
    return lambda x, w, b, mean, var: F.batch_norm(x, mean, var, w, b, False, 0.0, eps)


def _max_pool2d(op: ge.MaxPool2dOp) -> Kernel:
    k, s, p, d = (_ints(op.kernel_size), _ints(op.stride), _ints(op.padding),
                  _ints(op.dilation))
    ceil = bool(op.ceil_mode.value.data)
    # torch's int8 max-pool fails on channels_last tensors: it gets a dense copy
    return _in_5d(op, lambda x: F.max_pool2d(x if x.is_floating_point() else x.contiguous(),
                                             k, s, p, d, ceil_mode=ceil))


def _adaptive_pool2d(pool) -> Callable[[ge.AdaptivePool2dOp], Kernel]:
    def prepare(op: ge.AdaptivePool2dOp) -> Kernel:
        size = _ints(op.output_size)
        return _in_5d(op, lambda x: pool(x, size))
    return prepare


def _avg_pool2d(op: ge.AvgPool2dOp) -> Kernel:
    k, s, p = _ints(op.kernel_size), _ints(op.stride), _ints(op.padding)
    ceil, include = bool(op.ceil_mode.value.data), bool(op.count_include_pad.value.data)
    return lambda x: F.avg_pool2d(x, k, s, p, ceil, include)


def _conv_transpose2d(op: ge.ConvTranspose2dOp) -> Kernel:
    stride, padding, out_pad = _ints(op.stride), _ints(op.padding), _ints(op.output_padding)
    dilation, groups = _ints(op.dilation), op.groups.value.data
    return lambda x, w, b=None: F.conv_transpose2d(x, w, b, stride, padding, out_pad, groups,
                                                   dilation)


def _interpolate(op: ge.InterpolateOp) -> Kernel:
    # The ATen ops themselves, so scale-based resizes index exactly as eager does.
    size = list(_ints(op.size)) if op.size is not None else None
    scale = list(op.scale.get_values()) if op.scale is not None else None
    if op.mode.data == "nearest":
        return lambda x: torch.ops.aten.upsample_nearest2d.vec(x, size, scale)
    corners = bool(op.align_corners.value.data)
    resize = (torch.ops.aten.upsample_bicubic2d.vec if op.mode.data == "bicubic"
              else torch.ops.aten.upsample_bilinear2d.vec)
    return lambda x: resize(x, size, corners, scale)


def _grid_sample(op: ge.GridSampleOp) -> Kernel:
    mode, padding = op.mode.data, op.padding_mode.data
    corners = bool(op.align_corners.value.data)
    return lambda x, grid: F.grid_sample(x, grid, mode, padding, corners)


def _layer_norm(op: ge.LayerNormOp) -> Kernel:
    shape, eps = _ints(op.normalized_shape), op.epsilon.value.data
    return lambda x, w=None, b=None: F.layer_norm(x, shape, w, b, eps)


def _softmax(op: ge.SoftmaxOp) -> Kernel:
    dim = op.dim.value.data
    if op.safe is None:
        return lambda x: torch.softmax(x, dim)

    def safe(x):
        # aten._safe_softmax's result at a quarter of its cost: a slice is zeroed
        # only where its max is -inf (all -inf); a NaN max stays NaN, as there.
        y = torch.softmax(x, dim)
        dead = x.amax(dim, keepdim=True) == float("-inf")
        return y.masked_fill_(dead, 0.0) if dead.any() else y
    return safe


def _gelu(op: ge.GeluOp) -> Kernel:
    approximate = op.approximate.data
    return lambda x: F.gelu(x, approximate=approximate)


def _clamp(op: ge.ClampOp) -> Kernel:
    lo = op.min.value.data if op.min is not None else None
    hi = op.max.value.data if op.max is not None else None
    if ge.is_integer(op.output.type.element_type):
        # float bounds would promote an integer tensor to float; integer bounds
        # that clamp the same integers do not (x >= 0.5 is x >= 1, x <= 4.5 is x <= 4)
        lo = None if lo is None else math.ceil(lo)
        hi = None if hi is None else math.floor(hi)
    return lambda x: torch.clamp(x, lo, hi)


_COMPARE = {"eq": torch.eq, "ne": torch.ne, "lt": torch.lt, "le": torch.le,
            "gt": torch.gt, "ge": torch.ge}


def _leaky_relu(op: ge.LeakyReluOp) -> Kernel:
    slope = op.negative_slope.value.data
    return lambda x: F.leaky_relu(x, slope)


def _elu(op: ge.EluOp) -> Kernel:
    alpha, scale, input_scale = (op.alpha.value.data, op.scale.value.data,
                                 op.input_scale.value.data)
    return lambda x: torch.ops.aten.elu(x, alpha, scale, input_scale)


def _softplus(op: ge.SoftplusOp) -> Kernel:
    beta, threshold = op.beta.value.data, op.threshold.value.data
    return lambda x: F.softplus(x, beta, threshold)


def _polygamma(op: ge.PolygammaOp) -> Kernel:
    n = op.n.value.data
    return lambda x: torch.polygamma(n, x)


def _compare(op: ge.CompareOp) -> Kernel:
    return _COMPARE[op.predicate.data]


def _cast(op: ge.CastOp) -> Kernel:
    dtype = torch_dtype(op.output.type.element_type)
    return lambda x: x.to(dtype)


def _full_like(op: ge.FullLikeOp) -> Kernel:
    value, dtype = op.value.value.data, torch_dtype(op.output.type.element_type)
    return lambda x: torch.full_like(x, value, dtype=dtype)


def _trans_data(op: ge.TransDataOp) -> Kernel:
    if op.dst_format.data == "NC1HWC0":
        c0 = op.output.type.get_shape()[-1]
        return lambda x: layout.to_nc1hwc0(x, c0)
    channels = op.output.type.get_shape()[1]
    return lambda x: layout.to_nchw(x, channels).contiguous()


def _flatten(op: ge.FlattenOp) -> Kernel:
    start, end = op.start_dim.value.data, op.end_dim.value.data
    return lambda x: torch.flatten(x, start, end)


def _sized(op: ge.RuntimeSizes, method) -> Kernel:
    """reshape/expand to the result type, its `?` dims from the `sizes` operands;
    without them a `?` is -1, which both torch methods resolve from the input."""
    shape = list(op.output.type.get_shape())
    dynamic = [i for i, d in enumerate(shape) if d < 0]
    if not op.sizes:
        static = tuple(-1 if d < 0 else d for d in shape)
        return lambda x: method(x, static)

    def run(x, *sizes):
        out = list(shape)
        for i, size in zip(dynamic, sizes):
            out[i] = int(size)
        return method(x, tuple(out))
    return run


def _reshape(op: ge.ReshapeOp) -> Kernel:
    return _sized(op, torch.Tensor.reshape)


def _transpose(op: ge.TransposeOp) -> Kernel:
    perm = _ints(op.permutation)
    return lambda x: x.permute(perm)


def _expand(op: ge.ExpandOp) -> Kernel:
    return _sized(op, torch.Tensor.expand)


def _slice(op: ge.SliceOp) -> Kernel:
    dim, step = op.dim.value.data, op.step.value.data
    start, end = op.start.value.data, op.end.value.data
    if op.end_value is None:
        return lambda x: torch.ops.aten.slice.Tensor(x, dim, start, end, step)
    return lambda x, bound: torch.ops.aten.slice.Tensor(x, dim, start, min(end, int(bound)),
                                                        step)


def _dynamic_slice(op: ge.DynamicSliceOp) -> Kernel:
    dim, step = op.dim.value.data, op.step.value.data
    return lambda x, start, end: torch.ops.aten.slice.Tensor(x, dim, int(start), int(end), step)


def _scatter_update(op: ge.ScatterUpdateOp) -> Kernel:
    """Writes into the ref it is given (the caller's tensor) and returns it."""
    dim = op.dim.value.data
    return lambda ref, indices, updates: ref.index_copy_(dim, indices, updates)


def _dim(op: ge.DimOp) -> Kernel:
    dim = op.dim.value.data
    return lambda x: torch.tensor(x.shape[dim], dtype=torch.int64)


def _arange(op: ge.ArangeOp) -> Kernel:
    start, step = op.start.value.data, op.step.value.data
    dtype = torch_dtype(op.output.type.element_type)
    return lambda end: torch.arange(start, int(end), step, dtype=dtype)


def _concat(op: ge.ConcatOp) -> Kernel:
    dim = op.dim.value.data
    return lambda *xs: torch.cat(xs, dim)


def _reduction(reduce) -> Callable[[ge.ReductionOp], Kernel]:
    def prepare(op: ge.ReductionOp) -> Kernel:
        rank = len(op.input.type.get_shape())
        keepdim = bool(op.keepdim.value.data)
        # all dims spelled out when none are given: torch reads [] differently per op
        dims = sorted({d % rank for d in _ints(op.dims)} if op.dims.get_values() and rank
                      else range(rank))
        dtype = torch_dtype(op.output.type.element_type)
        extreme = reduce in (torch.amax, torch.amin)

        def run(x):
            if extreme and x.numel() == 0:  # the max of nothing is the identity, -inf
                kept = [1 if i in dims else d for i, d in enumerate(x.shape)]
                y = torch.full(kept, _identity(reduce, dtype), dtype=dtype)
                return y if keepdim else y.reshape(
                    [d for i, d in enumerate(x.shape) if i not in dims])
            return reduce(x, dims, keepdim).to(dtype)  # torch sums ints as int64
        return run
    return prepare


def _identity(reduce, dtype: torch.dtype):
    """What amax / amin of no elements gives: the lowest / highest value of dtype."""
    low = reduce is torch.amax
    if dtype == torch.bool:
        return not low
    if dtype.is_floating_point:
        return float("-inf") if low else float("inf")
    info = torch.iinfo(dtype)
    return info.min if low else info.max


def _cumulative(reduce) -> Callable[[ge.CumulativeOp], Kernel]:
    def prepare(op: ge.CumulativeOp) -> Kernel:
        dim = op.dim.value.data
        return lambda x: reduce(x, dim, dtype=x.dtype)  # torch would widen ints to int64
    return prepare


def _arg_reduction(reduce) -> Callable[[ge.ArgReductionOp], Kernel]:
    def prepare(op: ge.ArgReductionOp) -> Kernel:
        dim = op.dim.value.data if op.dim is not None else None
        keepdim = bool(op.keepdim.value.data)
        return lambda x: reduce(x, dim, keepdim)
    return prepare


def _topk(op: ge.TopKOp) -> Kernel:
    k, dim = op.k.value.data, op.dim.value.data
    largest, ordered = bool(op.largest.value.data), bool(op.sorted.value.data)
    return lambda x: tuple(torch.topk(x, k, dim, largest, ordered))


def _sort(op: ge.SortOp) -> Kernel:
    dim, descending, stable = (op.dim.value.data, bool(op.descending.value.data),
                               bool(op.stable.value.data))
    return lambda x: tuple(torch.sort(x, stable=stable, dim=dim, descending=descending))


def _index_list(op, indices) -> list:
    """aten.index's operand: an index tensor at each indexed dim, None elsewhere."""
    dims = [d % len(op.input.type.get_shape()) for d in _ints(op.dims)]
    out = [None] * (max(dims) + 1)
    for d, index in zip(dims, indices):
        out[d] = index
    return out


def _index(op: ge.IndexOp) -> Kernel:
    return lambda x, *indices: torch.ops.aten.index.Tensor(x, _index_list(op, indices))


def _index_put(op: ge.IndexPutOp) -> Kernel:
    accumulate = bool(op.accumulate.value.data)
    return lambda x, values, *indices: torch.ops.aten.index_put(
        x, _index_list(op, indices), values, accumulate)


def _gather(op: ge.GatherOp) -> Kernel:
    axis = op.axis.value.data % len(op.input.type.get_shape())

    def run(x, index):
        picked = torch.index_select(x, axis, index.reshape(-1))
        return picked.reshape(x.shape[:axis] + index.shape + x.shape[axis + 1:])
    return run


def _gather_elements(op: ge.GatherElementsOp) -> Kernel:
    dim = op.dim.value.data
    return lambda x, index: torch.gather(x, dim, index)


def _scatter_elements(op: ge.ScatterElementsOp) -> Kernel:
    dim, reduce = op.dim.value.data, op.reduce.data
    include_self = bool(op.include_self.value.data)
    if reduce == "none":
        return lambda x, index, src: torch.scatter(x, dim, index, src)
    return lambda x, index, src: torch.scatter_reduce(x, dim, index, src, reduce,
                                                      include_self=include_self)


def _pad(op: ge.PadOp) -> Kernel:
    low, high = _ints(op.low), _ints(op.high)
    mode, value = op.mode.data, op.value.value.data
    # torch lists (before, after) pairs from the last dim back to the first padded
    # one; its reflect / replicate / circular pad exactly the dims after N and C.
    first = min((i for i, (a, b) in enumerate(zip(low, high)) if a or b), default=len(low))
    if mode != "constant":
        first = min(first, 2) if len(low) > 2 else first
    pads = [p for d in range(len(low) - 1, first - 1, -1) for p in (low[d], high[d])]
    if not pads:
        return lambda x: x.clone()
    if mode == "constant":
        return lambda x: F.pad(x, pads, "constant", value)

    return lambda x: F.pad(x, pads, mode)


def _conv_nd(conv) -> Callable[[ge.ConvNdOp], Kernel]:
    def prepare(op: ge.ConvNdOp) -> Kernel:
        stride, padding, dilation = _ints(op.stride), _ints(op.padding), _ints(op.dilation)
        groups = op.groups.value.data
        return lambda x, w, b=None: conv(x, w, b, stride, padding, dilation, groups)
    return prepare


def _group_norm(op: ge.GroupNormOp) -> Kernel:
    groups, eps = op.num_groups.value.data, op.epsilon.value.data
    return lambda x, w=None, b=None: F.group_norm(x, groups, w, b, eps)


def _instance_norm(op: ge.InstanceNormOp) -> Kernel:
    eps = op.epsilon.value.data
    return lambda x, w=None, b=None: F.instance_norm(x, weight=w, bias=b, eps=eps)


def _rms_norm(op: ge.RmsNormOp) -> Kernel:
    shape, eps = list(_ints(op.normalized_shape)), op.epsilon.value.data
    return lambda x, w=None: F.rms_norm(x, shape, w, eps)


def _max_pool2d_with_indices(op: ge.MaxPool2dWithIndicesOp) -> Kernel:
    k, s, p, d = (_ints(op.kernel_size), _ints(op.stride), _ints(op.padding),
                  _ints(op.dilation))
    ceil = bool(op.ceil_mode.value.data)
    return lambda x: tuple(F.max_pool2d(x, k, s, p, d, ceil_mode=ceil, return_indices=True))


def _max_pool3d(op: ge.MaxPool3dOp) -> Kernel:
    k, s, p, d = (_ints(op.kernel_size), _ints(op.stride), _ints(op.padding),
                  _ints(op.dilation))
    ceil = bool(op.ceil_mode.value.data)
    return lambda x: F.max_pool3d(x, k, s, p, d, ceil_mode=ceil)


def _avg_pool3d(op: ge.AvgPool3dOp) -> Kernel:
    k, s, p = _ints(op.kernel_size), _ints(op.stride), _ints(op.padding)
    ceil, include = bool(op.ceil_mode.value.data), bool(op.count_include_pad.value.data)
    return lambda x: F.avg_pool3d(x, k, s, p, ceil, include)


def _log_softmax(op: ge.LogSoftmaxOp) -> Kernel:
    dim = op.dim.value.data
    return lambda x: torch.log_softmax(x, dim)


def _reverse(op: ge.ReverseOp) -> Kernel:
    dims = list(_ints(op.dims))
    return lambda x: torch.flip(x, dims)


def _tile(op: ge.TileOp) -> Kernel:
    multiples = list(_ints(op.multiples))
    return lambda x: x.repeat(multiples)


def _prod(op: ge.ReduceProdOp) -> Kernel:
    """torch.prod takes one dim at a time."""
    dims, keepdim = list(_ints(op.dims)), bool(op.keepdim.value.data)
    rank = len(op.input.type.get_shape())
    if rank == 0:  # a 0-d tensor is its own product; dim 0 / -1 name it
        return lambda x: x.clone()
    dims = sorted((d % rank for d in dims) if dims else range(rank), reverse=True)

    def run(x):
        for d in dims:
            x = torch.prod(x, d, keepdim=keepdim)
        return x
    return run


def _embedding(op: ge.EmbeddingOp) -> Kernel:
    return embedding


def embedding(weight: torch.Tensor, indices: torch.Tensor,
              rows: torch.Tensor | None = None) -> torch.Tensor:
    """weight's rows at `indices` (gathered into `rows`, the result's [N, dim]
    view, if given). An index outside the table is the caller's mistake,
    said as such rather than as torch's 'index out of range in self'."""
    try:
        if rows is None:
            return F.embedding(indices, weight)
        return torch.index_select(weight, 0, indices.reshape(-1), out=rows)
    except IndexError:
        n = weight.shape[0]
        raise IndexError(f"ge.embedding: indices run from {int(indices.min())} to "
                         f"{int(indices.max())}, outside the table's {n} rows; pass ids "
                         f"in [0, {n})") from None


KERNELS: dict[type[Operation], Callable[[Operation], Kernel]] = {
    ge.ConstOp: _const,
    # elementwise
    ge.ReluOp: lambda op: torch.relu,
    ge.SigmoidOp: lambda op: torch.sigmoid,
    ge.TanhOp: lambda op: torch.tanh,
    ge.ExpOp: lambda op: torch.exp,
    ge.LogOp: lambda op: torch.log,
    ge.SqrtOp: lambda op: torch.sqrt,
    ge.RsqrtOp: lambda op: torch.rsqrt,
    ge.NegOp: lambda op: torch.neg,
    ge.AbsOp: lambda op: torch.abs,
    ge.ErfOp: lambda op: torch.erf,
    ge.SiluOp: lambda op: F.silu,
    ge.HardswishOp: lambda op: F.hardswish,
    ge.HardsigmoidOp: lambda op: F.hardsigmoid,
    ge.LogicalNotOp: lambda op: torch.logical_not,
    ge.SinOp: lambda op: torch.sin,
    ge.CosOp: lambda op: torch.cos,
    ge.TanOp: lambda op: torch.tan,
    ge.AsinOp: lambda op: torch.asin,
    ge.AcosOp: lambda op: torch.acos,
    ge.AtanOp: lambda op: torch.atan,
    ge.SinhOp: lambda op: torch.sinh,
    ge.CoshOp: lambda op: torch.cosh,
    ge.AsinhOp: lambda op: torch.asinh,
    ge.AcoshOp: lambda op: torch.acosh,
    ge.AtanhOp: lambda op: torch.atanh,
    ge.Log1pOp: lambda op: torch.log1p,
    ge.Expm1Op: lambda op: torch.expm1,
    ge.Log2Op: lambda op: torch.log2,
    ge.Log10Op: lambda op: torch.log10,
    ge.Exp2Op: lambda op: torch.exp2,
    ge.ReciprocalOp: lambda op: torch.reciprocal,
    ge.SignOp: lambda op: torch.sign,
    ge.FloorOp: lambda op: torch.floor,
    ge.CeilOp: lambda op: torch.ceil,
    ge.RoundOp: lambda op: torch.round,
    ge.TruncOp: lambda op: torch.trunc,
    ge.ErfcOp: lambda op: torch.erfc,
    ge.ErfinvOp: lambda op: torch.erfinv,
    ge.LgammaOp: lambda op: torch.lgamma,
    ge.DigammaOp: lambda op: torch.digamma,
    ge.MishOp: lambda op: F.mish,
    ge.LogSigmoidOp: lambda op: F.logsigmoid,
    ge.LeakyReluOp: _leaky_relu,
    ge.EluOp: _elu,
    ge.SoftplusOp: _softplus,
    ge.IsNanOp: lambda op: torch.isnan,
    ge.IsInfOp: lambda op: torch.isinf,
    # special functions
    ge.I0Op: lambda op: torch.i0,
    ge.I0eOp: lambda op: torch.special.i0e,
    ge.I1Op: lambda op: torch.special.i1,
    ge.I1eOp: lambda op: torch.special.i1e,
    ge.NdtriOp: lambda op: torch.special.ndtri,
    ge.ErfcxOp: lambda op: torch.special.erfcx,
    ge.AiryAiOp: lambda op: torch.special.airy_ai,
    ge.BesselJ0Op: lambda op: torch.special.bessel_j0,
    ge.BesselJ1Op: lambda op: torch.special.bessel_j1,
    ge.BesselY0Op: lambda op: torch.special.bessel_y0,
    ge.BesselY1Op: lambda op: torch.special.bessel_y1,
    ge.ModifiedBesselI0Op: lambda op: torch.special.modified_bessel_i0,
    ge.ModifiedBesselI1Op: lambda op: torch.special.modified_bessel_i1,
    ge.ModifiedBesselK0Op: lambda op: torch.special.modified_bessel_k0,
    ge.ModifiedBesselK1Op: lambda op: torch.special.modified_bessel_k1,
    ge.ScaledModifiedBesselK0Op: lambda op: torch.special.scaled_modified_bessel_k0,
    ge.ScaledModifiedBesselK1Op: lambda op: torch.special.scaled_modified_bessel_k1,
    ge.SphericalBesselJ0Op: lambda op: torch.special.spherical_bessel_j0,
    ge.ZetaOp: lambda op: torch.special.zeta,
    ge.IgammaOp: lambda op: torch.igamma,
    ge.IgammacOp: lambda op: torch.igammac,
    ge.NextafterOp: lambda op: torch.nextafter,
    ge.ChebyshevPolynomialTOp: lambda op: torch.special.chebyshev_polynomial_t,
    ge.ChebyshevPolynomialUOp: lambda op: torch.special.chebyshev_polynomial_u,
    ge.ChebyshevPolynomialVOp: lambda op: torch.special.chebyshev_polynomial_v,
    ge.ChebyshevPolynomialWOp: lambda op: torch.special.chebyshev_polynomial_w,
    ge.ShiftedChebyshevPolynomialTOp: lambda op: torch.special.shifted_chebyshev_polynomial_t,
    ge.ShiftedChebyshevPolynomialUOp: lambda op: torch.special.shifted_chebyshev_polynomial_u,
    ge.ShiftedChebyshevPolynomialVOp: lambda op: torch.special.shifted_chebyshev_polynomial_v,
    ge.ShiftedChebyshevPolynomialWOp: lambda op: torch.special.shifted_chebyshev_polynomial_w,
    ge.HermitePolynomialHOp: lambda op: torch.special.hermite_polynomial_h,
    ge.HermitePolynomialHeOp: lambda op: torch.special.hermite_polynomial_he,
    ge.LaguerrePolynomialLOp: lambda op: torch.special.laguerre_polynomial_l,
    ge.LegendrePolynomialPOp: lambda op: torch.special.legendre_polynomial_p,
    ge.PolygammaOp: _polygamma,
    ge.GeluOp: _gelu,
    ge.ClampOp: _clamp,
    ge.AddOp: lambda op: torch.add,
    ge.SubOp: lambda op: torch.sub,
    ge.MulOp: lambda op: torch.mul,
    ge.DivOp: lambda op: torch.div,
    ge.PowOp: lambda op: torch.pow,
    ge.MaximumOp: lambda op: torch.maximum,
    ge.MinimumOp: lambda op: torch.minimum,
    ge.Atan2Op: lambda op: torch.atan2,
    ge.HypotOp: lambda op: torch.hypot,
    ge.CopysignOp: lambda op: torch.copysign,
    ge.FloorDivOp: lambda op: lambda x, y: torch.div(x, y, rounding_mode="floor"),
    ge.TruncDivOp: lambda op: lambda x, y: torch.div(x, y, rounding_mode="trunc"),
    ge.RemainderOp: lambda op: torch.remainder,
    ge.FmodOp: lambda op: torch.fmod,
    ge.LogicalXorOp: lambda op: torch.logical_xor,
    ge.LogicalAndOp: lambda op: torch.logical_and,
    ge.LogicalOrOp: lambda op: torch.logical_or,
    ge.CompareOp: _compare,
    ge.WhereOp: lambda op: torch.where,
    ge.CastOp: _cast,
    ge.FullLikeOp: _full_like,
    # neural network
    ge.Conv2dOp: _conv2d,
    ge.ConvTranspose2dOp: _conv_transpose2d,
    ge.BatchNormOp: _batch_norm,
    ge.LayerNormOp: _layer_norm,
    ge.SoftmaxOp: _softmax,
    ge.EmbeddingOp: _embedding,
    ge.LogSoftmaxOp: _log_softmax,
    ge.MaxPool2dOp: _max_pool2d,
    ge.AvgPool2dOp: _avg_pool2d,
    ge.AdaptiveAvgPool2dOp: _adaptive_pool2d(F.adaptive_avg_pool2d),
    ge.AdaptiveMaxPool2dOp: _adaptive_pool2d(F.adaptive_max_pool2d),
    ge.InterpolateOp: _interpolate,
    ge.GridSampleOp: _grid_sample,
    ge.Conv1dOp: _conv_nd(F.conv1d),
    ge.Conv3dOp: _conv_nd(F.conv3d),
    ge.GroupNormOp: _group_norm,
    ge.InstanceNormOp: _instance_norm,
    ge.RmsNormOp: _rms_norm,
    ge.MaxPool3dOp: _max_pool3d,
    ge.MaxPool2dWithIndicesOp: _max_pool2d_with_indices,
    ge.AvgPool3dOp: _avg_pool3d,
    ge.MatMulOp: lambda op: torch.matmul,
    ge.LinearOp: lambda op: F.linear,
    ge.WeightQuantLinearOp: lambda op: functools.partial(int8.weight_quant_linear,
                                                          group_size=op.group_size()),
    ge.QuantizeOp: _quantize,
    ge.DequantizeOp: _dequantize,
    ge.QuantizedConv2dOp: onednn_int8.reference_kernel,
    ge.QuantizedLinearOp: onednn_int8.reference_kernel,
    # shapes, layout and data movement
    ge.TransDataOp: _trans_data,
    ge.FlattenOp: _flatten,
    ge.ReshapeOp: _reshape,
    ge.TransposeOp: _transpose,
    ge.ExpandOp: _expand,
    ge.SliceOp: _slice,
    ge.ConcatOp: _concat,
    ge.DimOp: _dim,
    ge.DynamicSliceOp: _dynamic_slice,
    ge.ScatterUpdateOp: _scatter_update,
    ge.AssignOp: lambda op: torch.Tensor.copy_,            # writes the ref it is given
    ge.ArangeOp: _arange,
    ge.PadOp: _pad,
    ge.ReverseOp: _reverse,
    ge.TileOp: _tile,
    # gathers and scatters
    ge.GatherOp: _gather,
    ge.GatherElementsOp: _gather_elements,
    ge.IndexOp: _index,
    ge.IndexPutOp: _index_put,
    ge.ScatterElementsOp: _scatter_elements,
    # reductions
    ge.ReduceSumOp: _reduction(torch.sum),
    ge.ReduceMeanOp: _reduction(torch.mean),
    ge.ReduceMaxOp: _reduction(torch.amax),
    ge.ReduceMinOp: _reduction(torch.amin),
    ge.ReduceAnyOp: _reduction(torch.any),
    ge.ReduceProdOp: _prod,
    ge.CumsumOp: _cumulative(torch.cumsum),
    ge.CumprodOp: _cumulative(torch.cumprod),
    ge.ArgMaxOp: _arg_reduction(torch.argmax),
    ge.ArgMinOp: _arg_reduction(torch.argmin),
    ge.TopKOp: _topk,
    ge.SortOp: _sort,
    # ops run by user kernels (npu_graph.custom_op)
    ge.CustomOp: custom_ops.prepare,
}


def prepare(op: Operation) -> Kernel:
    """The host kernel for `op`, with its parameters already decoded."""
    preparer = KERNELS.get(type(op))
    if preparer is None:
        raise KernelError(f"no host kernel for '{op.name}'; add one to runtime/kernels.py "
                          "KERNELS or register it with npu_graph.custom_op")
    kernel = preparer(op)
    if isinstance(op, CUBE_OPS) and str(op.results[0].type.element_type) in {"bf16", "f16"}:
        return bf16.widened(kernel, torch_dtype(op.results[0].type.element_type))
    return kernel
