"""Shape arithmetic shared by op verifiers, builders and the importer.

Shapes are tuples of ints; a dynamic dimension is xDSL's ``DYNAMIC_INDEX``
(printed ``?``). Any arithmetic that touches a dynamic dimension yields a
dynamic dimension, so verifiers stay exact on static shapes and permissive on
dynamic ones.
"""

from collections.abc import Sequence

from xdsl.dialects.builtin import DYNAMIC_INDEX

DYN = DYNAMIC_INDEX
Shape = tuple[int, ...]


class ShapeError(ValueError):
    """A shape rule was violated; verifiers turn this into a VerifyException."""


def is_dyn(d: int) -> bool:
    return d == DYN


def fmt(shape: Sequence[int]) -> str:
    return "x".join("?" if is_dyn(d) else str(d) for d in shape) or "scalar"


def compatible(a: Sequence[int], b: Sequence[int]) -> bool:
    """Same rank, and equal wherever both dimensions are static."""
    return len(a) == len(b) and all(
        x == y or is_dyn(x) or is_dyn(y) for x, y in zip(a, b)
    )


def numel(shape: Sequence[int]) -> int:
    n = 1
    for d in shape:
        if is_dyn(d):
            return DYN
        n *= d
    return n


def broadcast(a: Sequence[int], b: Sequence[int]) -> Shape:
    """NumPy/PyTorch broadcasting of two shapes."""
    rank = max(len(a), len(b))
    a = (1,) * (rank - len(a)) + tuple(a)
    b = (1,) * (rank - len(b)) + tuple(b)
    out = []
    for x, y in zip(a, b):
        if x == 1:
            out.append(y)
        elif y == 1 or x == y:
            out.append(x)
        elif is_dyn(x) or is_dyn(y):
            out.append(x if is_dyn(y) else y)
        else:
            raise ShapeError(f"shapes {fmt(a)} and {fmt(b)} do not broadcast")
    return tuple(out)


def check_window(kernel, stride, padding, dilation) -> None:
    """Window parameters that PyTorch itself would accept."""
    for name, values, low in (("kernel size", kernel, 1), ("stride", stride, 1),
                              ("padding", padding, 0), ("dilation", dilation, 1)):
        for v in values:
            if not is_dyn(v) and v < low:
                raise ShapeError(f"{name} must be >= {low}, got {v}")


def window_out(size: int, kernel: int, stride: int, pad: int, dilation: int,
               ceil_mode: bool = False) -> int:
    """Output length of a convolution or pooling window along one axis."""
    if is_dyn(size) or is_dyn(kernel):
        return DYN
    span = size + 2 * pad - dilation * (kernel - 1) - 1
    if span < 0:
        raise ShapeError(
            f"window of extent {dilation * (kernel - 1) + 1} does not fit "
            f"input of size {size} with padding {pad}")
    out = (-(-span // stride) if ceil_mode else span // stride) + 1
    # PyTorch drops a last window that would start entirely in the padding.
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1
    return out


def c0_for(bitwidth: int) -> int:
    """Ascend's C0: channels per 32-byte block (16 for fp16, 32 for int8, 8 for fp32)."""
    return 32 // max(1, bitwidth // 8)


def ceil_div(a: int, b: int) -> int:
    return DYN if is_dyn(a) else -(-a // b)


def to_nc1hwc0(x: Shape, c0: int) -> Shape:
    n, c, h, w = x
    return (n, ceil_div(c, c0), h, w, c0)


def conv2d(x: Shape, w: Shape, stride, padding, dilation, groups: int) -> Shape:
    """NCHW, or NC1HWC0 when the input is 5-D (then the output is NC1HWC0 too)."""
    if len(x) == 5 and len(w) == 4:
        n, c1, h, wd, c0 = x
        oc, ic, kh, kw = w
        if not is_dyn(c1) and not is_dyn(ic) and c1 != ceil_div(ic * groups, c0):
            raise ShapeError(f"NC1HWC0 input has C1 = {c1}, but weight expects "
                             f"{ic} x {groups} groups = {ic * groups} channels "
                             f"(C1 = {ceil_div(ic * groups, c0)} at C0 = {c0})")
        out = conv2d((n, DYN, h, wd), w, stride, padding, dilation, groups)
        return to_nc1hwc0(out, c0)
    if len(x) != 4 or len(w) != 4:
        raise ShapeError(f"conv2d expects a 4-D (or NC1HWC0) input and a 4-D weight, got "
                         f"{fmt(x)} and {fmt(w)}")
    n, c, h, wd = x
    oc, ic, kh, kw = w
    check_window((kh, kw), stride, padding, dilation)
    if not is_dyn(c) and not is_dyn(ic) and c != ic * groups:
        raise ShapeError(
            f"input has {c} channels but weight expects {ic} x {groups} groups = {ic * groups}")
    if not is_dyn(oc) and oc % groups:
        raise ShapeError(f"{oc} output channels are not divisible by groups = {groups}")
    return (n, oc,
            window_out(h, kh, stride[0], padding[0], dilation[0]),
            window_out(wd, kw, stride[1], padding[1], dilation[1]))


def conv_nd(x: Shape, w: Shape, stride, padding, dilation, groups: int) -> Shape:
    """N-D convolution in NC<spatial> layout: the rank of `w` sets N = rank - 2."""
    spatial = len(w) - 2
    if len(x) != spatial + 2 or spatial < 1:
        raise ShapeError(f"conv{spatial}d expects a {spatial + 2}-D input and weight, got "
                         f"{fmt(x)} and {fmt(w)}")
    for name, values in (("stride", stride), ("padding", padding), ("dilation", dilation)):
        if len(values) != spatial:
            raise ShapeError(f"{name} must have {spatial} entries, got {len(values)}")
    check_window(w[2:], stride, padding, dilation)
    c, oc, ic = x[1], w[0], w[1]
    if groups < 1:
        raise ShapeError(f"groups must be >= 1, got {groups}")
    if not is_dyn(c) and not is_dyn(ic) and c != ic * groups:
        raise ShapeError(
            f"input has {c} channels but weight expects {ic} x {groups} groups = {ic * groups}")
    if not is_dyn(oc) and oc % groups:
        raise ShapeError(f"{oc} output channels are not divisible by groups = {groups}")
    return (x[0], oc) + tuple(window_out(*args) for args in zip(x[2:], w[2:], stride, padding,
                                                                 dilation))


def pool_nd(x: Shape, kernel, stride, padding, dilation, ceil_mode: bool) -> Shape:
    """Pooling over the trailing len(kernel) dims (PyTorch rules)."""
    spatial = len(kernel)
    if len(x) not in (spatial + 1, spatial + 2):
        raise ShapeError(f"{spatial}-D pooling expects a {spatial + 1}-D or {spatial + 2}-D "
                         f"input, got {fmt(x)}")
    for name, values in (("stride", stride), ("padding", padding), ("dilation", dilation)):
        if len(values) != spatial:
            raise ShapeError(f"{name} must have {spatial} entries, got {len(values)}")
    check_window(kernel, stride, padding, dilation)
    for k, p in zip(kernel, padding):
        if p * 2 > k:
            raise ShapeError(f"padding {p} is more than half the kernel size {k}")
    lead = x[:len(x) - spatial]
    return lead + tuple(window_out(*args, ceil_mode) for args in zip(
        x[len(x) - spatial:], kernel, stride, padding, dilation))


def pool2d(x: Shape, kernel, stride, padding, dilation, ceil_mode: bool) -> Shape:
    """NCHW, or NC1HWC0 (pooling over dims 2 and 3 either way)."""
    if len(x) == 5:
        n, c1, h, w, c0 = x
        return pool2d((n, c1, h, w), kernel, stride, padding, dilation, ceil_mode) + (c0,)
    if len(x) != 4:
        raise ShapeError(f"pooling expects a 4-D NCHW or 5-D NC1HWC0 input, got {fmt(x)}")
    check_window(kernel, stride, padding, dilation)
    for k, p in zip(kernel, padding):
        if p * 2 > k:
            raise ShapeError(f"padding {p} is more than half the kernel size {k}")
    return (x[0], x[1],
            window_out(x[2], kernel[0], stride[0], padding[0], dilation[0], ceil_mode),
            window_out(x[3], kernel[1], stride[1], padding[1], dilation[1], ceil_mode))


def flatten(x: Shape, start: int, end: int) -> Shape:
    rank = len(x)
    s, e = start % rank if rank else 0, end % rank if rank else 0
    if s > e:
        raise ShapeError(f"start_dim {start} is after end_dim {end} for rank {rank}")
    return x[:s] + (numel(x[s:e + 1]),) + x[e + 1:]


def matmul(a: Shape, b: Shape) -> Shape:
    """torch.matmul semantics for operands of rank >= 1."""
    if not a or not b:
        raise ShapeError("matmul operands must have rank >= 1")
    a2 = (1,) + tuple(a) if len(a) == 1 else tuple(a)
    b2 = tuple(b) + (1,) if len(b) == 1 else tuple(b)
    k1, k2 = a2[-1], b2[-2]
    if not (k1 == k2 or is_dyn(k1) or is_dyn(k2)):
        raise ShapeError(f"contraction dimensions differ: {fmt(a)} @ {fmt(b)}")
    batch = broadcast(a2[:-2], b2[:-2])
    out = batch + (a2[-2], b2[-1])
    if len(a) == 1:
        out = out[:-2] + out[-1:]
    if len(b) == 1:
        out = out[:-1]
    return out


def linear(x: Shape, w: Shape) -> Shape:
    if len(w) != 2:
        raise ShapeError(f"linear weight must be 2-D [out, in], got {fmt(w)}")
    if not x:
        raise ShapeError("linear input must have rank >= 1")
    if not (x[-1] == w[1] or is_dyn(x[-1]) or is_dyn(w[1])):
        raise ShapeError(f"input features {x[-1]} do not match weight in_features {w[1]}")
    return tuple(x[:-1]) + (w[0],)


def normalize_dim(d: int, rank: int) -> int:
    """A dimension index in [0, rank), from a PyTorch-style one that may be negative."""
    if not -max(rank, 1) <= d < max(rank, 1):
        raise ShapeError(f"dimension {d} is out of range for rank {rank}")
    return d % max(rank, 1)


def permute(x: Shape, perm: Sequence[int]) -> Shape:
    if sorted(perm) != list(range(len(x))):
        raise ShapeError(f"permutation {list(perm)} is not a permutation of the "
                         f"{len(x)} dims of {fmt(x)}")
    return tuple(x[p] for p in perm)


def slice_len(size: int, start: int, end: int, step: int) -> int:
    """Elements of x[start:end:step] along a dim of `size` (Python clamping rules)."""
    if step < 1:
        raise ShapeError(f"slice step must be >= 1, got {step}")
    if is_dyn(size):
        return DYN
    return len(range(*slice(start, end, step).indices(size)))


def concat(xs: Sequence[Shape], dim: int) -> Shape:
    if not xs:
        raise ShapeError("concat needs at least one input")
    rank = len(xs[0])
    d = normalize_dim(dim, rank)
    total = 0
    for x in xs:
        if len(x) != rank:
            raise ShapeError(f"concat inputs must have the same rank, got {fmt(xs[0])} "
                             f"and {fmt(x)}")
        for i, (a, b) in enumerate(zip(xs[0], x)):
            if i != d and not (a == b or is_dyn(a) or is_dyn(b)):
                raise ShapeError(f"concat inputs {fmt(xs[0])} and {fmt(x)} differ "
                                 f"outside dim {dim}")
        total = DYN if is_dyn(total) or is_dyn(x[d]) else total + x[d]
    return xs[0][:d] + (total,) + xs[0][d + 1:]


def reduce(x: Shape, dims: Sequence[int], keepdim: bool) -> Shape:
    """The shape after reducing `dims` (all dims when empty)."""
    reduced = {normalize_dim(d, len(x)) for d in dims} if dims else set(range(len(x)))
    if len(reduced) != (len(dims) if dims else len(x)):
        raise ShapeError(f"dims {list(dims)} name a dimension twice")
    if keepdim:
        return tuple(1 if i in reduced else d for i, d in enumerate(x))
    return tuple(d for i, d in enumerate(x) if i not in reduced)


def expand(x: Shape, out: Shape) -> Shape:
    """torch.expand: size-1 dims stretch, new leading dims are added, others stay."""
    if len(out) < len(x):
        raise ShapeError(f"cannot expand {fmt(x)} to the lower rank {fmt(out)}")
    lead = len(out) - len(x)
    for a, b in zip(x, out[lead:]):
        if a != 1 and not (a == b or is_dyn(a) or is_dyn(b)):
            raise ShapeError(f"cannot expand {fmt(x)} to {fmt(out)}")
    return tuple(out)


def conv_transpose2d(x: Shape, w: Shape, stride, padding, output_padding, dilation,
                     groups: int) -> Shape:
    """Transposed convolution; the weight is [in, out / groups, kh, kw]."""
    if len(x) != 4 or len(w) != 4:
        raise ShapeError(f"conv_transpose2d expects a 4-D input and weight, got {fmt(x)} "
                         f"and {fmt(w)}")
    n, c, h, wd = x
    ic, ocg, kh, kw = w
    check_window((kh, kw), stride, padding, dilation)
    if not is_dyn(c) and not is_dyn(ic) and c != ic:
        raise ShapeError(f"input has {c} channels but the weight expects {ic}")
    if not is_dyn(ic) and ic % groups:
        raise ShapeError(f"{ic} input channels are not divisible by groups = {groups}")
    for op, s, d in zip(output_padding, stride, dilation):
        if not 0 <= op < max(s, d):
            raise ShapeError(f"output_padding {op} must be >= 0 and smaller than stride "
                             f"{s} or dilation {d}")

    def out(size, k, s, p, d, op):
        if is_dyn(size) or is_dyn(k):
            return DYN
        return (size - 1) * s - 2 * p + d * (k - 1) + op + 1

    oc = DYN if is_dyn(ocg) else ocg * groups
    return (n, oc, out(h, kh, stride[0], padding[0], dilation[0], output_padding[0]),
            out(wd, kw, stride[1], padding[1], dilation[1], output_padding[1]))


def interpolate(x: Shape, size: Sequence[int] | None,
                scale: Sequence[float] | None) -> Shape:
    if len(x) != 4:
        raise ShapeError(f"interpolate expects a 4-D NCHW input, got {fmt(x)}")
    if (size is None) == (scale is None):
        raise ShapeError("exactly one of size and scale must be given")
    if size is not None:
        if len(size) != 2 or any(s < 1 for s in size):
            raise ShapeError(f"size must be 2 positive sizes, got {list(size)}")
        return x[:2] + tuple(size)
    if len(scale) != 2 or any(s <= 0 for s in scale):
        raise ShapeError(f"scale must be 2 positive factors, got {list(scale)}")
    return x[:2] + tuple(DYN if is_dyn(d) else int(d * s) for d, s in zip(x[2:], scale))
