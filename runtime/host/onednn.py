"""oneDNN convs, inner products and pooling through the
library's C API, created once at load time for a task's planned views; a
call is then one `dnnl_primitive_execute`.

Why not torch's mkldnn ops, which run the same kernels: every call of
`torch.ops.mkldnn._convolution_pointwise` builds the primitive descriptor,
the attributes and the memory objects again and mallocs a scratchpad, and
its only form that writes into a given tensor accumulates into it, so the
view had to be zeroed first. On ResNet-50 (batch 1) that was 6-8 ms of a
45-50 ms run outside the kernels (0.06-0.4 ms per conv, more at batch 8,
where zeroing a 25 MB output is memory traffic); here the per-call cost is
a ctypes call.

The library is oneDNN's own release built with GNU OpenMP (the
`onednn-cpu-gomp` wheel): it resolves `libgomp.so.1` to the one torch
loaded, so both share one thread pool and `torch.set_num_threads` applies
to both. It is optional: without it (or with a build for another threading
runtime) `available()` is False and the runtime keeps torch's ops.
`GE_ONEDNN_LIBRARY` names another `libdnnl.so.3` to use, or, set to "none",
turns the primitives off (say, for a torch built with Intel's OpenMP, where
the wheel's GNU OpenMP would be a second thread pool).

The constants below are oneDNN 3.x's C ABI (`dnnl_types.h`), the same from
3.2, the wheel's version, to 3.12.
"""

from __future__ import annotations

import contextlib
import contextvars
import ctypes
import ctypes.util
import functools
import math
import os
import site
import sys
import warnings
import weakref
from collections.abc import Callable, Sequence

import torch

from ge_dialect import ge
from ge_dialect.traits import Activation

F32 = 3                    # dnnl_f32
# dnnl_data_type_t by torch dtype. With bf16 sources and weights oneDNN's convs
# and inner products accumulate in fp32 and apply bias and post-ops in fp32;
# the destination may be bf16 or fp32 (the conversion is the kernel's store).
# The int8 types are for the quantized primitives (runtime/host/onednn_int8.py):
# s8 or u8 sources, s8 weights, s32 accumulation, s8 or fp32 destinations.
DATA_TYPES = {torch.float32: F32, torch.bfloat16: 2, torch.float16: 1,
              torch.int32: 4, torch.int8: 5, torch.uint8: 6}
FORMAT_ANY = 1             # dnnl_format_tag_any: the primitive picks the weights' layout
FORWARD_INFERENCE = 96     # dnnl_forward_inference
CONVOLUTION_DIRECT = 0x1   # dnnl_convolution_direct
POOLING_AVG = 0x3FF        # dnnl_pooling_avg_exclude_padding
POOLING_MAX = 0x1FF        # dnnl_pooling_max
TAG_NCHW = 5               # dnnl_abcd
# oneDNN's blocked layouts by channels per block: dnnl_aBcd16b (nChw16c) and
# dnnl_aBcd8b (nChw8c). Its direct convs on them are native code with AVX-512
# and with AVX2 respectively; `block()` says which this CPU runs.
BLOCKED_TAGS = {16: 78, 8: 102}
SCRATCHPAD_USER = 1        # dnnl_scratchpad_mode_user
QUERY_IMPL_INFO = 8        # dnnl_query_impl_info_str
QUERY_WEIGHTS_MD = 131     # dnnl_query_weights_md
QUERY_SCRATCHPAD_MD = 136  # dnnl_query_scratchpad_md
RUNTIME_OMP = 2            # DNNL_RUNTIME_OMP
ARG_SRC, ARG_DST, ARG_WEIGHTS, ARG_BIAS, ARG_SCRATCHPAD = 1, 17, 33, 41, 80
ARG_SRC_1 = 2              # the second source of a binary post-op
ARG_SCALE, ARG_SHIFT = 51, 52  # a normalization's weight and bias
USE_SCALE, USE_SHIFT = 0x2, 0x4  # dnnl_use_scale, dnnl_use_shift
ARG_ATTR_MULTIPLE_POST_OP_BASE = 32768  # post-op i's arguments: base * (i + 1) | ARG_SRC_1
BINARY_ADD = 0x1FFF0       # dnnl_binary_add
BINARY_MUL = 0x1FFF1       # dnnl_binary_mul
SOFTMAX_ACCURATE = 0x30000  # dnnl_softmax_accurate: exp(x - max) / sum

# dnnl_alg_kind_t of the eltwise post-ops the runtime uses: those the GE
# activation ops declare (ge_dialect/traits.py `Activation`), and the linear
# scale (alpha * x + beta) of attention's scores.
ELTWISE = {**{kind: code for op in ge.ops_with(Activation)
              for kind, code in op.get_trait(Activation).eltwise},
           "linear": 0x26}

_Dims = ctypes.c_int64 * 12  # dnnl_dims_t

# Tests set this to build primitives even where oneDNN has only its reference
# loop (bf16 on a CPU without bf16 instructions), to check their numbers.
ALLOW_REFERENCE = False


class _Arg(ctypes.Structure):  # dnnl_exec_arg_t
    _fields_ = [("arg", ctypes.c_int), ("memory", ctypes.c_void_p)]


class _Version(ctypes.Structure):  # dnnl_version_t
    _fields_ = [("major", ctypes.c_int), ("minor", ctypes.c_int), ("patch", ctypes.c_int),
                ("hash", ctypes.c_char_p), ("cpu_runtime", ctypes.c_uint),
                ("gpu_runtime", ctypes.c_uint)]


class OneDNNError(RuntimeError):
    """A oneDNN call failed; the message names the call and the status."""


class Blocked:
    """An fp32 NCHW-logical buffer held in oneDNN's blocked layout nChw<B>c
    (ORT's NCHWc; NC1HWC0 with C0 = B), B = `block()`: `data` is its bytes as
    the dense [N, C/B, H, W, B] tensor. oneDNN's direct convs on it (`jit_1x1`)
    beat its NHWC ones on ResNet-50's large 1x1 convs at batch 8. Torch ops
    cannot read it, so it is a distinct type, not a tensor: only the
    primitives here take it (runtime/host/blocked.py decides which buffers
    are held so)."""

    def __init__(self, data: torch.Tensor, shape: Sequence[int], block_size: int | None = None):
        n, c, h, w = shape
        b = block_size or block()
        if b is None:
            raise OneDNNError("oneDNN has no native blocked layout on this CPU")
        if data.dtype != torch.float32 or c % b or data.numel() != n * c * h * w:
            raise OneDNNError(f"a blocked buffer needs fp32 and channels a multiple of "
                              f"{b}, got {data.dtype} {list(shape)}")
        self.block = b
        self.data = data.view(n, c // b, h, w, b)
        self.shape = torch.Size(shape)
        self.dtype = data.dtype

    @property
    def tag(self) -> int:
        return BLOCKED_TAGS[self.block]

    def data_ptr(self) -> int:
        return self.data.data_ptr()

    @staticmethod
    def of(t: torch.Tensor, block_size: int | None = None) -> torch.Tensor:
        """The dense [N, C/B, H, W, B] form of an NCHW-logical tensor (a copy)."""
        b = block_size or block()
        n, c, h, w = t.shape
        return t.reshape(n, c // b, b, h, w).permute(0, 1, 3, 4, 2).contiguous()

    def logical(self) -> torch.Tensor:
        """The NCHW-logical values (a copy), for tests and debugging."""
        n, c, h, w = self.shape
        return self.data.permute(0, 1, 4, 2, 3).reshape(n, c, h, w)


def same_layout(a: torch.Tensor | Blocked, b: torch.Tensor | Blocked) -> bool:
    if isinstance(a, Blocked) or isinstance(b, Blocked):
        return isinstance(a, Blocked) and isinstance(b, Blocked)
    return a.stride() == b.stride()


def _candidates() -> list[str]:
    named = os.environ.get("GE_ONEDNN_LIBRARY")
    if named is not None:
        return [] if named.lower() in ("", "none") else [named]
    found = ctypes.util.find_library("dnnl")
    wheel = [os.path.join(base, "lib", "libdnnl.so.3") for base in (sys.prefix, site.USER_BASE)
             if base]  # the wheel's data files: the environment's lib/ (or --user's)
    return wheel + ([found] if found else [])


@functools.cache
def library() -> ctypes.CDLL | None:
    """The loaded library, or None if there is none usable: not found, not
    oneDNN 3, or not built for OpenMP (a second thread pool would fight
    torch's for the cores)."""
    for path in _candidates():
        try:
            lib = ctypes.CDLL(path)
            lib.dnnl_version.restype = ctypes.POINTER(_Version)
        except (OSError, AttributeError) as e:  # no such file, or not oneDNN
            _unusable(path, f"cannot load it as oneDNN ({e})")
            continue
        version = lib.dnnl_version().contents
        if version.major != 3 or version.cpu_runtime != RUNTIME_OMP:
            _unusable(path, f"oneDNN {version.major}.{version.minor} with CPU runtime "
                            f"{version.cpu_runtime}, where oneDNN 3 built with OpenMP "
                            f"({RUNTIME_OMP}) is needed")
            continue
        lib.dnnl_primitive_desc_query_md.restype = ctypes.c_void_p
        lib.dnnl_memory_desc_get_size.restype = ctypes.c_size_t
        lib.dnnl_post_ops_append_eltwise.argtypes = [ctypes.c_void_p, ctypes.c_int,
                                                     ctypes.c_float, ctypes.c_float]
        lib.dnnl_post_ops_append_sum.argtypes = [ctypes.c_void_p, ctypes.c_float,
                                                 ctypes.c_int32, ctypes.c_int]
        lib.dnnl_primitive_execute.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int,
                                               ctypes.c_void_p]
        lib.dnnl_primitive_execute.errcheck = _executed
        return lib
    return None


def _executed(status: int, function, arguments) -> int:
    """ctypes' check of every dnnl_primitive_execute call."""
    _check(status, "dnnl_primitive_execute")
    return status


def _unusable(path: str, reason: str) -> None:
    """A library the user named and we cannot use is said, not skipped
    silently: the runtime then takes torch's (slower) ops."""
    if os.environ.get("GE_ONEDNN_LIBRARY"):
        warnings.warn(f"GE_ONEDNN_LIBRARY={path}: {reason}; the runtime uses torch's "
                      "ops instead (unset it to use the onednn-cpu-gomp wheel's library)",
                      RuntimeWarning, stacklevel=3)


def available() -> bool:
    return library() is not None


def version() -> str | None:
    lib = library()
    if lib is None:
        return None
    v = lib.dnnl_version().contents
    return f"{v.major}.{v.minor}.{v.patch}"


@functools.cache
def block() -> int | None:
    """Channels per block of the blocked layout oneDNN runs natively on this
    CPU (16 with AVX-512, 8 with AVX2), or None when there is none (no
    library, or reference loops only): then no buffer is held blocked.
    Probed once with a small 3x3 conv on blocked views; `Primitive` refuses
    a reference implementation, so a probe that builds is native code."""
    if not available():
        return None
    for b in sorted(BLOCKED_TAGS, reverse=True):
        x = torch.zeros(1 * 32 * 8 * 8)
        try:
            conv2d(Blocked(x, (1, 32, 8, 8), b), torch.zeros(32, 32, 3, 3), None,
                   Blocked(torch.zeros_like(x), (1, 32, 8, 8), b), (1, 1), (1, 1), (1, 1), 1)
        except OneDNNError:
            continue
        return b
    return None


# dnnl_status_t: the ones a caller can act on, by name
STATUS = {1: "out_of_memory", 2: "invalid_arguments", 3: "unimplemented (no kernel for these "
          "types on this CPU)"}


def _check(status: int, call: str) -> None:
    if status != 0:
        raise OneDNNError(f"oneDNN {call} failed with status {status} (dnnl_status_t"
                          f"{': ' + STATUS[status] if status in STATUS else ''})")


@functools.cache
def _engine_and_stream() -> tuple[ctypes.c_void_p, ctypes.c_void_p]:
    lib = library()
    engine, stream = ctypes.c_void_p(), ctypes.c_void_p()
    _check(lib.dnnl_engine_create(ctypes.byref(engine), 1, 0), "dnnl_engine_create")  # cpu
    _check(lib.dnnl_stream_create(ctypes.byref(stream), engine, 1), "dnnl_stream_create")
    return engine, stream


class _Handles:
    """The C objects one primitive owns, destroyed with it."""

    def __init__(self):
        self.mds: list[ctypes.c_void_p] = []
        self.memories: list[ctypes.c_void_p] = []
        self.others: list[tuple[str, ctypes.c_void_p]] = []

    def md(self, shape: Sequence[int], strides: Sequence[int] | None,
           tag: int = FORMAT_ANY, dtype: torch.dtype = torch.float32) -> ctypes.c_void_p:
        """A descriptor by `strides`, or by format `tag` if `strides` is None."""
        lib, md, kind = library(), ctypes.c_void_p(), DATA_TYPES[dtype]
        if strides is None:
            _check(lib.dnnl_memory_desc_create_with_tag(
                ctypes.byref(md), len(shape), _Dims(*shape), kind, tag),
                "dnnl_memory_desc_create_with_tag")
        else:
            _check(lib.dnnl_memory_desc_create_with_strides(
                ctypes.byref(md), len(shape), _Dims(*shape), kind, _Dims(*strides)),
                "dnnl_memory_desc_create_with_strides")
        self.mds.append(md)
        return md

    def of(self, t: torch.Tensor | Blocked) -> ctypes.c_void_p:
        """The descriptor of a bound view."""
        if isinstance(t, Blocked):
            return self.md(t.shape, None, t.tag)
        return self.md(t.shape, t.stride(), dtype=t.dtype)

    def memory(self, md, pointer: int) -> ctypes.c_void_p:
        memory = ctypes.c_void_p()
        _check(library().dnnl_memory_create(ctypes.byref(memory), md, _engine_and_stream()[0],
                                            ctypes.c_void_p(pointer)), "dnnl_memory_create")
        self.memories.append(memory)
        return memory

    def own(self, kind: str, handle: ctypes.c_void_p) -> ctypes.c_void_p:
        self.others.append((kind, handle))
        return handle

    def destroy(self) -> None:
        lib = library()
        for kind, handle in reversed(self.others):
            getattr(lib, f"dnnl_{kind}_destroy")(handle)
        for memory in self.memories:
            lib.dnnl_memory_destroy(memory)
        for md in self.mds:
            lib.dnnl_memory_desc_destroy(md)


def _query_md(pd, what: int) -> ctypes.c_void_p:
    return ctypes.c_void_p(library().dnnl_primitive_desc_query_md(pd, what, 0))


def _size(md) -> int:
    return library().dnnl_memory_desc_get_size(md) if md.value else 0


def _buffer(nbytes: int) -> torch.Tensor:
    """Bytes for a primitive's packed weights or scratchpad, 64-byte aligned
    (oneDNN's kernels assume it for blocked layouts)."""
    raw = torch.empty(nbytes + 64, dtype=torch.uint8)
    skip = -raw.data_ptr() % 64
    return raw[skip:skip + nbytes]


class Primitive:
    """One created primitive with its arguments bound. Calling it with the
    current tensors of its `rebind` arguments (those not fixed at load, such
    as a graph input) points their memory objects at them if they moved.
    It owns `handles` once built; if building fails, the caller destroys them."""

    def __init__(self, handles: _Handles, pd, args: dict[int, tuple], rebind: Sequence[int],
                 keep: list):
        lib = library()
        self.impl = _impl(pd)
        if self.impl.startswith("ref") and not ALLOW_REFERENCE:
            # a reference loop, orders of magnitude slow
            raise OneDNNError(f"oneDNN has only its reference implementation here ({self.impl})")
        self._handles = handles
        self._primitive = handles.own("primitive", ctypes.c_void_p())
        _check(lib.dnnl_primitive_create(ctypes.byref(self._primitive), pd),
               "dnnl_primitive_create")
        self._keep = keep  # tensors whose bytes the memory objects point at
        self._memories = {arg: handles.memory(md, pointer) for arg, (md, pointer) in args.items()}
        self._args = (_Arg * len(args))(*(_Arg(a, m) for a, m in self._memories.items()))
        self._rebind = [self._memories[a] for a in rebind]
        self._pointers = [args[a][1] for a in rebind]
        # the library call itself (its status checked by `_executed`)
        self.execute = functools.partial(lib.dnnl_primitive_execute, self._primitive,
                                         _engine_and_stream()[1], len(args), self._args)
        weakref.finalize(self, handles.destroy)

    def __call__(self, *tensors: torch.Tensor) -> None:
        for i, t in enumerate(tensors):
            pointer = t.data_ptr()
            if pointer != self._pointers[i]:
                library().dnnl_memory_set_data_handle(self._rebind[i], ctypes.c_void_p(pointer))
                self._pointers[i] = pointer
        self.execute()

    def as_runner(self, name: str) -> Callable[..., None]:
        """A task runner that calls this primitive, every argument bound at
        load. The executor's prepared loop calls its `bare` (the library call)
        with no Python frame between: on MobileNetV2's 55 small tasks those
        frames were 1% of a run. The runner holds the primitive (its C objects
        die with it): whoever calls `bare` keeps the runner too."""
        if self._rebind:
            raise OneDNNError("a primitive with arguments passed per call is no bare runner")

        def run(*args):
            self.execute()
        run.__name__ = run.__qualname__ = name
        run.bare = self.execute
        return run


    def retarget(self, arg: int, tensor: torch.Tensor) -> None:
        """Point `arg` (say ARG_DST) at `tensor`'s bytes, laid out like the
        view it was bound to, from the next call on; the caller keeps it alive."""
        library().dnnl_memory_set_data_handle(self._memories[arg],
                                              ctypes.c_void_p(tensor.data_ptr()))


def _impl(pd) -> str:
    name = ctypes.c_char_p()
    library().dnnl_primitive_desc_query(pd, QUERY_IMPL_INFO, 0, ctypes.byref(name))
    return (name.value or b"?").decode()


def _attributes(handles: _Handles, post_ops: Sequence[tuple]) -> tuple[ctypes.c_void_p, dict]:
    """User-managed scratchpad and the post-ops: ("sum",) accumulates into the
    destination (("sum", scale): scale times its stored values), ("add",
    view) adds a tensor of the destination's shape read in its own type and
    layout (a binary post-op: an fp32 residual into a
    bf16 destination, or a residual that is not the destination's bytes),
    ("mul", view) multiplies by one the same way (the gate of a gated MLP),
    ("eltwise", name, alpha, beta) applies an ELTWISE kind. Also the
    arguments the binary post-ops read, {arg: (md, view)}."""
    lib = library()
    attr = handles.own("primitive_attr", ctypes.c_void_p())
    _check(lib.dnnl_primitive_attr_create(ctypes.byref(attr)), "dnnl_primitive_attr_create")
    _check(lib.dnnl_primitive_attr_set_scratchpad_mode(attr, SCRATCHPAD_USER),
           "dnnl_primitive_attr_set_scratchpad_mode")
    reads = {}
    if post_ops:
        ops = handles.own("post_ops", ctypes.c_void_p())
        _check(lib.dnnl_post_ops_create(ctypes.byref(ops)), "dnnl_post_ops_create")
        for i, op in enumerate(post_ops):
            if op[0] == "sum":
                scale = op[1] if len(op) > 1 else 1.0
                _check(lib.dnnl_post_ops_append_sum(ops, scale, 0, 0), "dnnl_post_ops_append_sum")
            elif op[0] in ("add", "mul"):
                md = handles.of(op[1])
                kind = BINARY_ADD if op[0] == "add" else BINARY_MUL
                _check(lib.dnnl_post_ops_append_binary(ops, kind, md),
                       "dnnl_post_ops_append_binary")
                reads[ARG_ATTR_MULTIPLE_POST_OP_BASE * (i + 1) | ARG_SRC_1] = (md, op[1])
            else:
                _, name, alpha, beta = op
                _check(lib.dnnl_post_ops_append_eltwise(ops, ELTWISE[name], alpha, beta),
                       "dnnl_post_ops_append_eltwise")
        _check(lib.dnnl_primitive_attr_set_post_ops(attr, ops), "dnnl_primitive_attr_set_post_ops")
    return attr, reads


def _reordered(handles: _Handles, weight: torch.Tensor, md) -> torch.Tensor:
    """The weight in the layout `md` the primitive chose, reordered once."""
    lib, (engine, stream) = library(), _engine_and_stream()
    plain = weight.contiguous()
    packed = _buffer(_size(md))
    local = _Handles()
    try:
        source = local.md(plain.shape, plain.stride(), dtype=plain.dtype)
        pd = local.own("primitive_desc", ctypes.c_void_p())
        _check(lib.dnnl_reorder_primitive_desc_create(ctypes.byref(pd), source, engine, md,
                                                      engine, None),
               "dnnl_reorder_primitive_desc_create")
        reorder = local.own("primitive", ctypes.c_void_p())
        _check(lib.dnnl_primitive_create(ctypes.byref(reorder), pd), "dnnl_primitive_create")
        args = (_Arg * 2)(_Arg(ARG_SRC, local.memory(source, plain.data_ptr())),
                          _Arg(ARG_DST, local.memory(md, packed.data_ptr())))
        _check(lib.dnnl_primitive_execute(reorder, stream, 2, args), "dnnl_primitive_execute")
        _check(lib.dnnl_stream_wait(stream), "dnnl_stream_wait")
    finally:
        local.destroy()
    return packed


def _source(handles: _Handles, x: torch.Tensor | Blocked | Sequence[int],
            blocked_out: bool = False, dtype: torch.dtype = torch.float32) -> tuple:
    """(md, pointer) of a source: a view bound at load, or just a shape, for
    an input that arrives per call (`per_call`), in channels_last layout for
    an NHWC destination, and for a blocked one blocked too or, with fewer
    than a block of channels, contiguous NCHW: oneDNN's kernels want those pairs
    (with an NCHW source and an NHWC destination it fell back to its
    reference conv: 3.5 s for ResNet-50's stem; NCHW into nChw16c is its
    "first conv" kernel, which spares the stem the NHWC copy)."""
    if not isinstance(x, Sequence):
        return handles.of(x), x.data_ptr()
    shape = list(x)
    if blocked_out and len(shape) == 4 and shape[1] >= block():
        return handles.md(shape, None, BLOCKED_TAGS[block()], dtype), 0
    if len(shape) == 4 and not blocked_out:
        n, c, h, w = shape
        strides = [h * w * c, 1, w * c, c]
    else:
        strides = _contiguous_strides(shape)
    return handles.md(shape, strides, dtype=dtype), 0


def per_call(t: torch.Tensor, blocked_out: bool = False) -> torch.Tensor:
    """A graph input as a primitive built from its shape alone expects it (`_source`)."""
    if t.dim() == 4 and not blocked_out:
        return t.contiguous(memory_format=torch.channels_last)
    if t.dim() == 4 and t.shape[1] >= block():
        return Blocked.of(t)
    return t.contiguous()


def has_blocked_conv(in_channels: int, out_channels: int, groups: int) -> bool:
    """Whether oneDNN has a kernel for this conv on Blocked buffers: ungrouped,
    depthwise, or groups of whole blocks (others take its reference loop)."""
    per_in, per_out = in_channels // groups, out_channels // groups
    return (groups == 1 or per_in == per_out == 1
            or per_in % block() == 0 and per_out % block() == 0)


def reads_into_blocked(channels: int, groups: int) -> bool:
    """Whether a conv on a graph input of this many channels can write a
    blocked output (`_source`): oneDNN's first-conv kernel takes fewer than
    a block of channels ungrouped; otherwise the input is reordered into blocks."""
    return channels % block() == 0 or channels < block() and groups == 1


def _with_scratchpad(handles: _Handles, pd, args: dict, keep: list) -> None:
    md = _query_md(pd, QUERY_SCRATCHPAD_MD)
    if _size(md):
        scratch = _buffer(_size(md))
        keep.append(scratch)
        args[ARG_SCRATCHPAD] = (md, scratch.data_ptr())


def _with_weights(x: torch.Tensor | Sequence[int], weight: torch.Tensor,
                  bias: torch.Tensor | None, out: torch.Tensor, post_ops: Sequence[tuple],
                  create: Callable, plain_weight: bool = False) -> Primitive:
    """What conv2d and linear share: descriptors for the source, `out` and the
    bias, the weight reordered once into the layout wanted by the primitive
    descriptor that `create(pd_pointer, src, weights, bias, dst, attr)` makes,
    and every argument bound. The source has the weight's type (fp32 or
    bf16: oneDNN accumulates bf16 products in fp32); the bias and `out` may
    be fp32 or that type."""
    tensors = [t for t in (x, weight, bias, out) if isinstance(t, torch.Tensor | Blocked)]
    wanted = (torch.float32, weight.dtype)
    if (weight.dtype not in (torch.float32, torch.bfloat16)
            or (isinstance(x, torch.Tensor | Blocked) and x.dtype != weight.dtype)
            or any(t.dtype not in wanted for t in tensors)):
        raise OneDNNError("the oneDNN primitives here take fp32, or bf16 sources and weights "
                          "with a bf16 or fp32 bias and output, got "
                          + ", ".join(str(t.dtype) for t in tensors))
    handles = _Handles()
    try:
        return _bound(handles, x, weight, bias, out, post_ops, create, plain_weight)
    except BaseException:
        handles.destroy()
        raise


def _bound(handles: _Handles, x, weight, bias, out, post_ops, create,
           plain_weight: bool = False) -> Primitive:
    """_with_weights' work, its C objects collected in `handles`. An `out`
    given by its shape is NHWC bytes passed with each call, after the source.
    With `plain_weight` the primitive reads the weight's own bytes (row-major),
    with no reordered copy."""
    src, src_pointer = _source(handles, x, isinstance(out, Blocked), weight.dtype)
    if plain_weight:
        weight = weight.contiguous()
    wany = (handles.of(weight) if plain_weight
            else handles.md(weight.shape, None, dtype=weight.dtype))
    dst_per_call = isinstance(out, Sequence)
    dst = _source(handles, out)[0] if dst_per_call else handles.of(out)
    b = None if bias is None else bias.contiguous()
    bmd = handles.md(b.shape, b.stride(), dtype=b.dtype) if b is not None else None
    attr, reads = _attributes(handles, post_ops)
    pd = handles.own("primitive_desc", ctypes.c_void_p())
    create(ctypes.byref(pd), src, wany, bmd, dst, attr)
    wmd = _query_md(pd, QUERY_WEIGHTS_MD)
    packed = weight if plain_weight else _reordered(handles, weight, wmd)
    bound = not isinstance(x, Sequence)
    keep = ([packed] + ([] if dst_per_call else [out]) + ([b] if b is not None else [])
            + ([x] if bound else []))
    args = {ARG_SRC: (src, src_pointer), ARG_WEIGHTS: (wmd, packed.data_ptr()),
            ARG_DST: (dst, 0 if dst_per_call else out.data_ptr())}
    if b is not None:
        args[ARG_BIAS] = (bmd, b.data_ptr())
    for arg, (md, view) in reads.items():
        args[arg] = (md, view.data_ptr())
        keep.append(view)
    _with_scratchpad(handles, pd, args, keep)
    rebind = ([] if bound else [ARG_SRC]) + ([ARG_DST] if dst_per_call else [])
    return Primitive(handles, pd, args, rebind, keep)


def conv2d(x: torch.Tensor | Blocked | Sequence[int], weight: torch.Tensor,
           bias: torch.Tensor | None, out: torch.Tensor | Blocked, stride: Sequence[int],
           padding: Sequence[int], dilation: Sequence[int], groups: int,
           post_ops: Sequence[tuple] = ()) -> Primitive:
    """A conv writing `out` (any strides, such as the arena's NHWC view, or
    Blocked), the weight reordered once into the layout the kernel wants. `x`
    is the input view, laid out like `out` (oneDNN has only its reference
    loop for mixed NHWC and blocked layouts), or its shape if it is a graph
    input (then call the primitive with `per_call` of it). With ("sum",)
    first in `post_ops` the result is added to what `out` holds."""
    def create(pd, src, weights, bias_md, dst, attr):
        _check(library().dnnl_convolution_forward_primitive_desc_create(
            pd, _engine_and_stream()[0], FORWARD_INFERENCE, CONVOLUTION_DIRECT, src, weights,
            bias_md, dst, _Dims(*stride), _Dims(*(d - 1 for d in dilation)), _Dims(*padding),
            _Dims(*padding), attr), "dnnl_convolution_forward_primitive_desc_create")
    grouped = weight if groups == 1 else weight.reshape(groups, -1, *weight.shape[1:])
    return _with_weights(x, grouped, bias, out, post_ops, create)


class Workspace:
    """Scratch bytes shared by the primitives of one executable (a replica),
    which run one at a time: each reserves what it needs at load; the bytes
    are allocated once, at the first call, for the largest reservation."""

    def __init__(self):
        self.nbytes = 0
        self._data: torch.Tensor | None = None

    def reserve(self, nbytes: int) -> None:
        self.nbytes = max(self.nbytes, nbytes)

    def data(self) -> torch.Tensor:
        if self._data is None or self._data.numel() < self.nbytes:
            self._data = _buffer(self.nbytes)
        return self._data


class Staging:
    """A task's per-call buffers (a bf16 task's converted input or fp32
    result, attention's scores), carved out of the executable's shared
    workspace, since a replica runs its tasks one at a time: ResNet-50 at
    batch 8 held 0.8 GB of bf16 staging when each task had its own. 4-D
    buffers are NHWC, as the primitives that read them per call expect
    (`_source`); the views are found per call, since the workspace is
    allocated at the first."""

    def __init__(self, workspace: Workspace, *specs: tuple[Sequence[int], torch.dtype]):
        self.workspace, self.specs, self.offsets, end = workspace, specs, [], 0
        for shape, dtype in specs:
            self.offsets.append(end)
            end += -(-math.prod(shape) * dtype.itemsize // 64) * 64
        workspace.reserve(end)
        self._views: list[torch.Tensor] = []
        self._base = None

    def views(self) -> list[torch.Tensor]:
        data = self.workspace.data()
        if data.data_ptr() != self._base:
            self._base, self._views = data.data_ptr(), [
                _typed(data[o:], shape, dtype) for o, (shape, dtype) in zip(self.offsets,
                                                                             self.specs)]
        return self._views


def _typed(data: torch.Tensor, shape: Sequence[int], dtype: torch.dtype) -> torch.Tensor:
    flat = data[:math.prod(shape) * dtype.itemsize].view(dtype)
    if len(shape) != 4:
        return flat.view(list(shape))
    n, c, h, w = shape
    return flat.view(n, h, w, c).permute(0, 3, 1, 2)


def _aligned(nbytes: int) -> int:
    return -(-nbytes // 64) * 64


def prefers_nhwc(weight_shape: Sequence[int], groups: int) -> bool:
    """Whether a conv between Blocked buffers runs faster as oneDNN's NHWC
    kernel between two reorders (`conv2d_via_nhwc`) than as its blocked one.

    Measured with AVX2 (nChw8c), ResNet-50's convs at batch 8 (bench/conv_micro.py
    --layout blocked): oneDNN's blocked 3x3 kernel (`jit:avx2`) trails its NHWC
    one (`brgconv:avx2`) from 128 channels up, more on smaller maps (512
    channels on 7x7: 13-15 ms against 10.8 ms with both reorders), while its
    blocked 1x1 kernel is the faster one; so the buffers stay blocked and
    these convs alone take the detour. With 64 channels the reorders cost more
    than the kernel saves. The whole of ResNet-50 at batch 8 ran 4-5% faster.
    Not measured with AVX-512 (nChw16c), where the blocked layout was chosen:
    there every conv stays blocked."""
    out_channels, per_group, kh, kw = weight_shape
    return (block() == 8 and groups == 1 and (kh, kw) != (1, 1) and per_group >= 128
            and out_channels >= 128)


def conv2d_via_nhwc(x: Blocked, weight: torch.Tensor, bias: torch.Tensor | None, out: Blocked,
                    stride: Sequence[int], padding: Sequence[int], dilation: Sequence[int],
                    groups: int, post_ops: Sequence[tuple], workspace: Workspace
                    ) -> Callable[[], None]:
    """conv2d from and into Blocked buffers through NHWC copies in `workspace`:
    reorder the input, oneDNN's NHWC conv (with `post_ops`, not a sum), reorder
    the result (`prefers_nhwc` says when it pays)."""
    if any(op[0] == "sum" for op in post_ops):
        raise OneDNNError("conv2d_via_nhwc does not accumulate into its output")
    conv = conv2d(list(x.shape), weight, bias, list(out.shape), stride, padding, dilation,
                  groups, post_ops)
    to_nhwc = reorder(x, torch.empty(x.shape, device="meta", memory_format=torch.channels_last))
    back = reorder(torch.empty(out.shape, device="meta", memory_format=torch.channels_last), out)
    src_bytes = _aligned(x.data.numel() * 4)
    workspace.reserve(src_bytes + out.data.numel() * 4)

    def run():
        data = workspace.data()
        a, b = data[:src_bytes], data[src_bytes:]
        to_nhwc(a)
        conv(a, b)
        back(b)
    return run


# At most this many rows, an inner product reads the weight in its own row-major
# layout, with no prepacked copy beside it: as fast as the packed layout at 1 and
# 2 rows, 2-3x slower from 4 rows (fp32, 1024x1024 to 1024x2816, one thread,
# oneDNN 3 gemm:jit against brgemm:avx512_core on Sapphire Rapids; torch's
# addmm is as slow as the plain layout there). A decode step's linears so
# keep no copy of a model's weights. More rows without prepacking (a
# prefill over a model's own weights) run as a matmul over the weight seen
# transposed (`_linear_as_matmul`), whose brgemm kernels come close to the
# packed layout's.
PLAIN_WEIGHT_ROWS = 2
_prepacking = contextvars.ContextVar("prepacking", default=True)


@contextlib.contextmanager
def prepacking(allowed: bool):
    """Within it, linears made with `allowed` False read every weight where
    it is (runtime Options.prepack: a graph whose weights are a model's
    parameters then holds no copy of them)."""
    token = _prepacking.set(allowed)
    try:
        yield
    finally:
        _prepacking.reset(token)


def reads_plain_weight(rows: int) -> bool:
    """Whether a linear of `rows` rows made now reads its weight unpacked."""
    return rows <= PLAIN_WEIGHT_ROWS or not _prepacking.get()


def linear(x: torch.Tensor | Sequence[int], weight: torch.Tensor, bias: torch.Tensor | None,
           out: torch.Tensor, post_ops: Sequence[tuple] = (), plain_weight: bool | None = None
           ) -> Primitive:
    """x [rows, in] @ weight[out, in]^T + bias into the [rows, out] view `out`,
    as oneDNN's inner product with the weight reordered once, or read where it
    is with `plain_weight` (by default: `reads_plain_weight`). `x` as in conv2d."""
    def create(pd, src, weights, bias_md, dst, attr):
        _check(library().dnnl_inner_product_forward_primitive_desc_create(
            pd, _engine_and_stream()[0], FORWARD_INFERENCE, src, weights, bias_md, dst, attr),
            "dnnl_inner_product_forward_primitive_desc_create")
    rows = out.shape[0] if isinstance(out, torch.Tensor) else out[0]
    if plain_weight or (plain_weight is None and reads_plain_weight(rows)):
        if rows > PLAIN_WEIGHT_ROWS and isinstance(out, torch.Tensor):
            try:
                return _linear_as_matmul(x, weight, bias, out, post_ops)
            except OneDNNError:
                pass  # no brgemm kernel for these types or views: the inner product's
        try:
            return _with_weights(x, weight, bias, out, post_ops, create, plain_weight=True)
        except OneDNNError:
            if plain_weight:
                raise  # asked for; by default, no kernel on the plain layout: pack
    return _with_weights(x, weight, bias, out, post_ops, create)


def _linear_as_matmul(x: torch.Tensor | Sequence[int], weight: torch.Tensor,
                      bias: torch.Tensor | None, out: torch.Tensor,
                      post_ops: Sequence[tuple]) -> Primitive:
    """A linear of many rows over the weight's own bytes, as oneDNN's matmul
    with the weight seen transposed ([in, out], strides (1, in)): its brgemm
    kernels copy blocks of the weight per call, where the inner product on
    the plain layout has only a gemm:jit kernel. 128 rows through a 1024x8
    Llama's linears, 2 threads, AMD EPYC (Zen 4 class): 171 ms as a matmul,
    303 ms as the plain inner product, 238 ms in torch.mm, 153 ms on a
    prepacked copy."""
    if weight.dtype not in (torch.float32, torch.bfloat16) or any(
            isinstance(t, torch.Tensor) and t.dtype != weight.dtype for t in (x, out)):
        raise OneDNNError("the matmul linear takes one type throughout")
    handles = _Handles()
    try:
        src = _source(handles, x, False, weight.dtype)[0]
        wt = weight.t()
        b = None if bias is None else bias.contiguous().view(1, -1)
        mds = [src, handles.of(wt), handles.of(b) if b is not None else None, handles.of(out)]
        attr, reads = _attributes(handles, post_ops)
        pd = handles.own("primitive_desc", ctypes.c_void_p())
        _check(library().dnnl_matmul_primitive_desc_create(
            ctypes.byref(pd), _engine_and_stream()[0], *mds, attr),
            "dnnl_matmul_primitive_desc_create")
        if not _impl(pd).startswith("brg"):
            raise OneDNNError(f"the matmul linear wants a brgemm kernel, got {_impl(pd)}")
        tensors = {ARG_SRC: x, ARG_WEIGHTS: wt, ARG_BIAS: b, ARG_DST: out}
        used = [(arg, md) for (arg, t), md in zip(tensors.items(), mds) if t is not None]
        return _activations(handles, pd, {arg: tensors[arg] for arg, _ in used},
                            [md for _, md in used], reads)
    except BaseException:
        handles.destroy()
        raise


def layer_norm(x: torch.Tensor, weight: torch.Tensor | None, bias: torch.Tensor | None,
               out: torch.Tensor, epsilon: float) -> Primitive:
    """Layer normalization over the last dim of the view `x` into `out`, which
    may be `x` itself (oneDNN normalizes in place), scaled by `weight` and
    shifted by `bias` where given ([C] each). torch's kernel took 40 us on
    BERT's 128 x 768 rows at 2 threads, this one 24 us."""
    tensors = [t for t in (x, weight, bias) if t is not None]
    if any(t.dtype != torch.float32 for t in tensors) or out.dtype not in (torch.float32,
                                                                            torch.bfloat16):
        raise OneDNNError("the oneDNN layer norm here takes fp32 tensors into fp32 or bf16, "
                          "got " + ", ".join(str(t.dtype) for t in (*tensors, out)))
    if bias is not None and weight is None:
        raise OneDNNError("a layer norm bias needs a weight")
    handles = _Handles()
    try:
        src, dst = handles.of(x), handles.of(out)
        attr, _ = _attributes(handles, ())
        flags = (USE_SCALE if weight is not None else 0) | (USE_SHIFT if bias is not None else 0)
        pd = handles.own("primitive_desc", ctypes.c_void_p())
        _check(library().dnnl_layer_normalization_forward_primitive_desc_create(
            ctypes.byref(pd), _engine_and_stream()[0], FORWARD_INFERENCE, src, dst, None,
            ctypes.c_float(epsilon), ctypes.c_uint(flags), attr),
            "dnnl_layer_normalization_forward_primitive_desc_create")
        keep = [x, out]
        args = {ARG_SRC: (src, x.data_ptr()), ARG_DST: (dst, out.data_ptr())}
        for arg, t in ((ARG_SCALE, weight), (ARG_SHIFT, bias)):
            if t is not None:
                t = t.contiguous()
                keep.append(t)
                args[arg] = (handles.md(t.shape, t.stride()), t.data_ptr())
        _with_scratchpad(handles, pd, args, keep)
        return Primitive(handles, pd, args, [], keep)
    except BaseException:
        handles.destroy()
        raise


def matmul(src: torch.Tensor | Sequence[int], weights: torch.Tensor | Sequence[int],
           dst: torch.Tensor | Sequence[int], post_ops: Sequence[tuple] = ()) -> Primitive:
    """dst = src @ weights over the last two dims (batch dims broadcast) as
    oneDNN's matmul, between views of any strides: both operands are
    activations (attention's q @ k^T and p @ v), so nothing is reordered.
    An operand given by its shape (fp32) or as a meta tensor (its type and
    strides) is a buffer passed with each call, in the order src, weights,
    dst. src and weights are fp32, or both bf16 (products accumulated in
    fp32, the destination fp32 or bf16)."""
    kinds = [t.dtype if isinstance(t, torch.Tensor) else torch.float32
             for t in (src, weights, dst)]
    if kinds[0] != kinds[1] or kinds[0] not in (torch.float32, torch.bfloat16) or (
            kinds[2] not in (torch.float32, kinds[0])):
        raise OneDNNError("the oneDNN matmul here takes fp32, or bf16 operands with an fp32 or "
                          f"bf16 destination; got {', '.join(map(str, kinds))}")
    handles = _Handles()
    try:
        mds = [_dense(handles, t) for t in (src, weights, dst)]
        attr, reads = _attributes(handles, post_ops)
        pd = handles.own("primitive_desc", ctypes.c_void_p())
        _check(library().dnnl_matmul_primitive_desc_create(
            ctypes.byref(pd), _engine_and_stream()[0], *mds[:2], None, mds[2], attr),
            "dnnl_matmul_primitive_desc_create")
        return _activations(handles, pd, {ARG_SRC: src, ARG_WEIGHTS: weights, ARG_DST: dst},
                            mds, reads)
    except BaseException:
        handles.destroy()
        raise


def softmax(x: torch.Tensor | Sequence[int], out: torch.Tensor | Sequence[int] | None = None
            ) -> Primitive:
    """Softmax over the last dim of `x` into `out` (in place if None), as
    in matmul a view, a shape or a meta tensor (then the buffer is passed
    per call). `out` may be bf16, but oneDNN 3.2 then rounds twice (a
    quarter of BERT's probabilities 1 ulp off fp32's rounded once): round
    an fp32 softmax with `reorder` instead."""
    handles = _Handles()
    try:
        md = _dense(handles, x)
        md_out = md if out is None else _dense(handles, out)
        attr, _ = _attributes(handles, ())
        pd = handles.own("primitive_desc", ctypes.c_void_p())
        _check(library().dnnl_softmax_forward_primitive_desc_create(
            ctypes.byref(pd), _engine_and_stream()[0], FORWARD_INFERENCE, SOFTMAX_ACCURATE,
            md, md_out, len(x if isinstance(x, Sequence) else x.shape) - 1, attr),
            "dnnl_softmax_forward_primitive_desc_create")
        return _activations(handles, pd, {ARG_SRC: x, ARG_DST: x if out is None else out},
                            [md, md_out], {})
    except BaseException:
        handles.destroy()
        raise


def reorder(src: torch.Tensor | Blocked | Sequence[int],
            dst: torch.Tensor | Blocked | Sequence[int]) -> Primitive:
    """src's values into dst, of any strides, types or blocked layout (as in
    matmul, a shape or meta tensor is passed per call): a graph input into
    NHWC, attention's head-split q, k and v into dense bf16 buffers, a
    blocked buffer to NHWC and back. A primitive's call is cheaper than a
    torch copy's in a run (a 3x224x224 image: 24 against 50 us)."""
    handles = _Handles()
    try:
        mds = [_dense(handles, t) for t in (src, dst)]
        pd = handles.own("primitive_desc", ctypes.c_void_p())
        engine = _engine_and_stream()[0]
        _check(library().dnnl_reorder_primitive_desc_create(ctypes.byref(pd), mds[0], engine,
                                                            mds[1], engine, None),
               "dnnl_reorder_primitive_desc_create")
        return _activations(handles, pd, {ARG_SRC: src, ARG_DST: dst}, mds, {})
    except BaseException:
        handles.destroy()
        raise


def _dense(handles: _Handles, t: torch.Tensor | Blocked | Sequence[int]) -> ctypes.c_void_p:
    """The descriptor of a view (or meta tensor, or Blocked buffer), or of a
    contiguous fp32 buffer of the shape `t`."""
    if isinstance(t, torch.Tensor | Blocked):
        return handles.of(t)
    return handles.md(t, _contiguous_strides(t))


def _contiguous_strides(shape: Sequence[int]) -> list[int]:
    strides, step = [], 1
    for d in reversed(shape):
        strides.append(step)
        step *= d
    return strides[::-1]


def _activations(handles: _Handles, pd, tensors: dict, mds: list, reads: dict) -> Primitive:
    """The primitive of `pd` with its arguments `tensors` ({arg: view, shape
    or meta tensor}, described by `mds` in order), the views bound now and
    the shapes and meta tensors left to each call in the order of `tensors`."""
    args, keep, rebind = {}, [], []
    for (arg, t), md in zip(tensors.items(), mds):
        if isinstance(t, Sequence) or isinstance(t, torch.Tensor) and t.is_meta:
            args[arg] = (md, 0)
            rebind.append(arg)
        else:
            args[arg] = (md, t.data_ptr())
            keep.append(t)
    for arg, (md, view) in reads.items():
        args[arg] = (md, view.data_ptr())
        keep.append(view)
    _with_scratchpad(handles, pd, args, keep)
    return Primitive(handles, pd, args, rebind, keep)


def global_avg_pool2d(x: torch.Tensor | Blocked, out: torch.Tensor) -> Primitive:
    """The mean over H and W of the view `x` (NHWC or Blocked) into `out` ([N, C], contiguous):
    average pooling whose window is the whole plane. `out` is described as an
    [N, C, 1, 1] tensor, whose strides are ambiguous: oneDNN took its
    reference loop for (C, 1, 1, 1) with a 7x7 NHWC source and for (C, 1, C, C)
    with a 1x1 one, so both are tried."""
    if x.dtype != torch.float32 or out.dtype != torch.float32:
        raise OneDNNError(f"the oneDNN primitives here take fp32 tensors only, got {x.dtype}")
    n, c = out.shape
    refused = None
    # From a blocked source only a blocked destination has a kernel; with
    # H = W = 1 its bytes are those of the plain [N, C] matrix.
    layouts = [x.tag] if isinstance(x, Blocked) else [[c, 1, c, c], [c, 1, 1, 1]]
    for layout in layouts:
        handles = _Handles()
        try:
            return _average(handles, x, out, layout)
        except BaseException as e:
            handles.destroy()
            if not isinstance(e, OneDNNError):
                raise
            refused = e  # a reference loop, say: try the other strides
    raise refused


def _average(handles: _Handles, x: torch.Tensor | Blocked, out: torch.Tensor,
             layout: list[int] | int) -> Primitive:
    """global_avg_pool2d with `out` described by strides or a format tag."""
    n, c = out.shape
    dst = (handles.md([n, c, 1, 1], None, layout) if isinstance(layout, int)
           else handles.md([n, c, 1, 1], layout))
    return _pooling(handles, POOLING_AVG, x, out, dst, (1, 1), x.shape[2:], (1, 1), (0, 0),
                    (0, 0))


def max_pool2d(x: torch.Tensor | Blocked, out: torch.Tensor | Blocked, kernel: Sequence[int],
               stride: Sequence[int], padding: Sequence[int], dilation: Sequence[int]
               ) -> Primitive:
    """Max pooling of the view `x` into `out`, both Blocked or both NHWC (a
    mix has only the reference loop, which `Primitive` refuses); the right and
    bottom padding follow from the shapes, so a ceil_mode output works too.
    oneDNN's max differs from torch's on two inputs: it starts each window at
    -FLT_MAX, so an all -inf window gives -3.4e38, and it drops NaN. Use it
    only where neither can occur: on what a ReLU'd conv primitive wrote, or on s8 / u8."""
    if x.dtype != out.dtype or x.dtype not in (torch.float32, torch.bfloat16, torch.int8,
                                               torch.uint8):
        raise OneDNNError(f"max_pool2d here takes fp32, bf16, s8 or u8 (both alike), got {x.dtype} "
                          f"into {out.dtype}")
    if isinstance(x, Blocked) != isinstance(out, Blocked):
        raise OneDNNError("max_pool2d wants its source and destination laid out alike")
    high = [(o - 1) * s + (k - 1) * d + 1 - i - p for i, o, k, s, p, d in
            zip(x.shape[2:], out.shape[2:], kernel, stride, padding, dilation)]
    handles = _Handles()
    try:
        return _pooling(handles, POOLING_MAX, x, out, handles.of(out), stride, kernel,
                        dilation, padding, high)
    except BaseException:
        handles.destroy()
        raise


def _pooling(handles: _Handles, algorithm: int, x, out, dst, stride: Sequence[int],
             kernel: Sequence[int], dilation: Sequence[int], low: Sequence[int],
             high: Sequence[int]) -> Primitive:
    """A pooling primitive from the view `x` into `out`, described by `dst`;
    its C objects collected in `handles`."""
    src = handles.of(x)
    attr, _ = _attributes(handles, ())
    pd = handles.own("primitive_desc", ctypes.c_void_p())
    _check(library().dnnl_pooling_forward_primitive_desc_create(
        ctypes.byref(pd), _engine_and_stream()[0], FORWARD_INFERENCE, algorithm, src, dst,
        _Dims(*stride), _Dims(*kernel), _Dims(*(d - 1 for d in dilation)), _Dims(*low),
        _Dims(*high), attr), "dnnl_pooling_forward_primitive_desc_create")
    keep = [x, out]
    args = {ARG_SRC: (src, x.data_ptr()), ARG_DST: (dst, out.data_ptr())}
    _with_scratchpad(handles, pd, args, keep)
    return Primitive(handles, pd, args, [], keep)


def conv_impl(dtype: torch.dtype = torch.float32) -> str | None:
    """The implementation oneDNN picks on this CPU for a ResNet-style 3x3 conv
    (64 channels, 56x56, NHWC) with `dtype` sources and weights, as its
    primitive descriptor names it ("brg_conv_fwd:avx512_core_amx" where AMX
    runs bf16, "ref:any" where only the reference loop does), or None
    without the library. Benchmarks print it, so a report says which path ran."""
    if not available():
        return None
    handles = _Handles()
    try:
        n, c, h, w = 1, 64, 56, 56
        nhwc = [h * w * c, 1, w * c, c]
        src = handles.md([n, c, h, w], nhwc, dtype=dtype)
        dst = handles.md([n, c, h, w], nhwc, dtype=dtype)
        weights = handles.md([c, c, 3, 3], None, dtype=dtype)
        attr, _ = _attributes(handles, ())
        pd = handles.own("primitive_desc", ctypes.c_void_p())
        _check(library().dnnl_convolution_forward_primitive_desc_create(
            ctypes.byref(pd), _engine_and_stream()[0], FORWARD_INFERENCE, CONVOLUTION_DIRECT,
            src, weights, None, dst, _Dims(1, 1), _Dims(0, 0), _Dims(1, 1), _Dims(1, 1), attr),
            "dnnl_convolution_forward_primitive_desc_create")
        return _impl(pd)
    except OneDNNError as e:
        return "none: " + str(e).split("(dnnl_status_t: ")[-1].removesuffix(")")
    finally:
        handles.destroy()
