"""Task-level fast paths: a task body recognised by its op sequence runs as one
prepared call that writes straight into the task's planned output view.

The generic path (runtime/program.py) runs a task body op by op, each op
returning a fresh tensor, and the executor then copies the result into the
task's arena view. Here, at load time, a task whose body is a known sequence
(conv2d [+ add] [+ activation], linear [+ reshape] [+ relu | gelu], max_pool2d,
a single data-movement op, or any body ending in an elementwise op that has
an `out=` form) gets a runner that computes into the output view and applies
its epilogue in place there. Anything else keeps the generic path:
`specialize` returns None.

Why writing into the output is safe: the memory plan never lets a task's
output share bytes with an input, except an elementwise task writing exactly
over an input it reads last (passes/memory_reuse.py `in_place_sources`,
checked by ge_dialect/plan_verifier.py), and a conv adding a residual, which
may be planned over the residual's bytes (`overwritable`) and then
accumulates into them. Linear tasks are never in place; in an elementwise
body only the last op writes into the output, and it reads its operands
index by index, so reading and writing the same bytes is what an in-place
elementwise op does anyway.

Conv algorithms (`CONV_ALGORITHMS`): the library conv (oneDNN), a 1x1
stride-1 conv as one GEMM over the channels_last (NHWC) view, and img2col +
GEMM for small kernels. `choose_conv` picks per shape with the rule measured
by bench/conv_micro.py (see docs/BENCHMARKS.md, "Host runtime"). With
`primitives` and oneDNN's library present, the oneDNN convs, the linears
and global average pooling are instead primitives created here, at load,
for these very views (runtime/host/onednn.py): each runner is then one call.
Those primitives alone also run on buffers held in oneDNN's blocked layout
(runtime/host/blocked.py); `specialize` refuses any other runner there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from xdsl.ir import Block, BlockArgument, Operation

from ge_dialect import ge
from runtime.host import onednn as dnnl
from runtime.program import BlockProgram

Runner = Callable[..., None]  # runner(*task_inputs) writes the task's output view(s)


def _retargetable(runner: Runner, primitive: dnnl.Primitive) -> Runner:
    """Give `runner` a `retarget(tensor)`: from then on it writes into `tensor`
    (laid out like its output view) instead. The executor uses it to write a
    graph result straight into the tensor it returns, instead of copying it
    out of the arena (GPT-2's 25.7 MB logits: about 2 ms a run)."""
    runner.retarget = lambda tensor: primitive.retarget(dnnl.ARG_DST, tensor)
    return runner


def _writes_relu(runner: Runner) -> Runner:
    """Mark `runner` as writing a ReLU's values into its output: none below 0
    and no NaN (oneDNN's ReLU and clip post-ops map NaN to 0), so a max-pool
    of them may be oneDNN's, whose max differs from torch's on NaN and -inf
    only (the executor passes `relu_input`)."""
    runner.writes_relu = True
    return runner


def clamps_at_zero(act) -> bool:
    """An activation (attr, scalars, algorithm) whose result is never below 0."""
    return act is not None and (act[0] == "relu" or act[0] == "hardtanh" and act[1][0] >= 0.0)


def _ints(attr) -> tuple[int, ...]:
    return tuple(attr.get_values())


def is_nhwc(t: torch.Tensor) -> bool:
    """A 4-D tensor whose NHWC permutation is contiguous (a flat [N*H*W, C] matrix)."""
    return t.dim() == 4 and t.permute(0, 2, 3, 1).is_contiguous()


def _as_rows(t: torch.Tensor) -> torch.Tensor:
    """[N*H*W, C] view of a channels_last 4-D tensor (no copy)."""
    return t.permute(0, 2, 3, 1).view(-1, t.shape[1])


# --- conv algorithms -----------------------------------------------------------
# Each prepares, from the weight and bias, either run(x, out) writing
# conv(x) + bias into `out`, or (`fresh`) run(x) returning a new tensor, for
# the library conv, which has no form that writes into a given view.


@dataclass(frozen=True)
class ConvAlgorithm:
    applies: Callable[..., bool]  # (weight shape, stride, padding, dilation, groups)
    prepare: Callable[..., Callable[..., torch.Tensor | None]]
    fresh: bool = False
    fused: bool = False  # prepare(..., input_shape, relu, residual) -> run(x, res) -> tensor


def _has_onednn() -> bool:
    return (torch.backends.mkldnn.is_available()
            and hasattr(torch._C._nn, "mkldnn_reorder_conv2d_weight")
            and hasattr(torch.ops.mkldnn, "_convolution_pointwise"))


def _onednn_packed(w, b, stride, padding, dilation=(1, 1), groups=1, input_shape=None,
                   relu=False, residual=False, unary=None):
    """oneDNN's conv with the weight reordered once, at load, into the blocked
    layout oneDNN computes in, for this input shape (what Inductor's CPU back
    end does). `F.conv2d` reorders the weight on every call: on NHWC inputs
    that reorder dominated the late, weight-heavy layers (2048->512 at 7x7:
    2.1 ms, 0.51 ms packed). ReLU and the residual add are oneDNN post-ops.
    These are torch's internal mkldnn ops; `applies` is false without them.
    `residual`: False, True (add a tensor), "in_place" (the output is the
    residual's bytes: oneDNN accumulates into them, no copy), or "into" (no
    residual: the output view is zeroed and accumulated into, so the result
    is written where it belongs instead of into a fresh tensor and copied).
    `unary` (attr, scalars, algorithm), a oneDNN post-op from `CONV_POST_OPS`,
    overrides `relu`; after an add (all three residual forms) oneDNN fuses
    only ReLU."""
    packed = torch._C._nn.mkldnn_reorder_conv2d_weight(
        w.to_mkldnn(), list(padding), list(stride), list(dilation), groups, list(input_shape))
    geometry = (list(padding), list(stride), list(dilation), groups)
    attr, scalars, algorithm = unary or (("relu", [], "") if relu else ("none", [], ""))
    if residual and attr not in ("none", "relu"):
        raise ValueError(f"oneDNN fuses only relu after a residual add, not {attr}")
    unary = None if attr == "none" else attr
    if residual == "in_place":  # the result accumulates into the residual's bytes
        return lambda x, res: torch.ops.mkldnn._convolution_pointwise_.binary(
            res, x, packed, b, *geometry, "add", 1.0, unary, [], "")
    if residual == "into":  # no residual: accumulate into a zeroed output view
        def into(x, out):
            out.zero_()
            torch.ops.mkldnn._convolution_pointwise_.binary(
                out, x, packed, b, *geometry, "add", 1.0, unary, [], "")
        return into
    if residual:
        return lambda x, res: torch.ops.mkldnn._convolution_pointwise.binary(
            x, res, packed, b, *geometry, "add", None, unary, [], "")
    return lambda x, res=None: torch.ops.mkldnn._convolution_pointwise(
        x, packed, b, *geometry, attr, scalars, algorithm)


def _library(w, b, stride, padding, dilation=(1, 1), groups=1):
    return lambda x: F.conv2d(x, w, b, stride, padding, dilation, groups)


def _library_nhwc(w, b, stride, padding, dilation=(1, 1), groups=1):
    """The library conv on a channels_last copy of the input: oneDNN's NHWC
    kernel is much faster for few input channels (ResNet's 3-channel stem)."""
    return lambda x: F.conv2d(x.contiguous(memory_format=torch.channels_last), w, b, stride,
                              padding, dilation, groups)


def _gemm_1x1(w, b, stride, padding, dilation=(1, 1), groups=1):
    """A 1x1 conv on NCHW: per image, out[Cout, H*W] = W[Cout, Cin] @ x[Cin, H*W] + b.
    A stride is a strided view of the input, gathered by reshape."""
    cout, cin = w.shape[:2]
    w2 = w.reshape(cout, cin)
    bias = (b if b is not None else torch.zeros(cout, dtype=w.dtype)).view(cout, 1)
    sh, sw = stride

    def run(x, out):
        if (sh, sw) != (1, 1):
            x = x[:, :, ::sh, ::sw]
        rows, cols = x.reshape(x.shape[0], cin, -1), out.view(out.shape[0], cout, -1)
        for i in range(x.shape[0]):
            torch.addmm(bias, w2, rows[i], out=cols[i])
    return run


def _gemm_1x1_nhwc(w, b, stride, padding, dilation=(1, 1), groups=1):
    """A 1x1 stride-1 conv on NHWC: out[N*H*W, Cout] = x[N*H*W, Cin] @ W^T + b."""
    cout, cin = w.shape[:2]
    wt = w.reshape(cout, cin).t()  # BLAS reads the transpose in place
    bias = b if b is not None else torch.zeros(cout, dtype=w.dtype)

    def run(x, out):
        torch.addmm(bias, _as_rows(x) if is_nhwc(x) else x.permute(0, 2, 3, 1).reshape(-1, cin),
                    wt, out=_as_rows(out))
    return run


def _img2col(w, b, stride, padding, dilation=(1, 1), groups=1):
    """Gather the k*k shifted (strided) windows of a zero-padded NHWC copy into
    one [N*Ho*Wo, k*k*Cin] matrix, then one GEMM into the output: how the cube
    unit computes a conv. The padded copy and the column matrix are scratch
    kept by the runner (outside the arena), allocated on first use."""
    cout, cin, kh, kw = w.shape
    wk = w.permute(2, 3, 1, 0).reshape(kh * kw * cin, cout).contiguous()
    bias = b if b is not None else torch.zeros(cout, dtype=w.dtype)
    (sh, sw), (ph, pw) = stride, padding
    scratch: dict[tuple, tuple[torch.Tensor, torch.Tensor]] = {}

    def run(x, out):
        n, _, h, wd = x.shape
        ho, wo = out.shape[2:]
        key = tuple(x.shape)
        if key not in scratch:
            padded = torch.zeros(n, h + 2 * ph, wd + 2 * pw, cin, dtype=x.dtype)
            cols = torch.empty(n, ho, wo, kh * kw, cin, dtype=x.dtype)
            scratch[key] = padded, cols
        padded, cols = scratch[key]
        padded[:, ph:ph + h, pw:pw + wd].copy_(x.permute(0, 2, 3, 1))
        for i in range(kh):
            for j in range(kw):
                cols[:, :, :, i * kw + j].copy_(
                    padded[:, i:i + sh * (ho - 1) + 1:sh, j:j + sw * (wo - 1) + 1:sw])
        torch.addmm(bias, cols.view(n * ho * wo, -1), wk, out=_as_rows(out))
    return run


def _plain(wshape, stride, padding, dilation, groups) -> bool:
    return groups == 1 and tuple(dilation) == (1, 1)


def _pointwise(ws, s, p, d, g) -> bool:
    return _plain(ws, s, p, d, g) and tuple(ws[2:]) == (1, 1) and tuple(p) == (0, 0)


# name -> (applies, prepare); `nhwc` algorithms need the output in NHWC layout.
CONV_ALGORITHMS: dict[str, ConvAlgorithm] = {
    "library": ConvAlgorithm(lambda *a: True, _library, fresh=True),
    "library_nhwc": ConvAlgorithm(lambda *a: True, _library_nhwc, fresh=True),
    "gemm_1x1": ConvAlgorithm(_pointwise, _gemm_1x1),
    "gemm_1x1_nhwc": ConvAlgorithm(
        lambda ws, s, p, d, g: _pointwise(ws, s, p, d, g) and tuple(s) == (1, 1),
        _gemm_1x1_nhwc),
    "img2col_nhwc": ConvAlgorithm(
        lambda ws, s, p, d, g: _plain(ws, s, p, d, g) and max(ws[2:]) <= 3, _img2col),
    "onednn_packed": ConvAlgorithm(lambda *a: _has_onednn(), _onednn_packed, fused=True),
}
NHWC_ONLY = {"gemm_1x1_nhwc", "img2col_nhwc"}


def choose_conv(wshape, stride, padding, dilation, groups, out: torch.Tensor) -> str:
    """The algorithm for one conv shape: a rule calibrated with bench/conv_micro.py
    on ResNet-50's shapes (docs/BENCHMARKS.md, "Host runtime"), not a timing at
    load, so that a busy machine cannot make the choice random.

    NCHW arena: 1x1 convs with at most 64 input channels as GEMMs (oneDNN's
    NCHW 1x1 kernel is weakest at small K: 64->256 channels at 56x56 took
    1.05 ms, 0.64 ms as a GEMM); the library conv for everything else, where
    it was as fast as or faster than any GEMM form in the network. NHWC arena:
    oneDNN with prepacked weights (as fast or faster on every ResNet-50 shape
    measured); without it, 1x1 stride-1 convs as one GEMM over the rows."""
    params = (wshape, stride, padding, dilation, groups)
    if is_nhwc(out) and not out.is_contiguous():
        if CONV_ALGORITHMS["onednn_packed"].applies(*params):
            return "onednn_packed"
        return "gemm_1x1_nhwc" if CONV_ALGORITHMS["gemm_1x1_nhwc"].applies(*params) else "library"
    if CONV_ALGORITHMS["gemm_1x1"].applies(*params) and wshape[1] <= 64:
        return "gemm_1x1"
    return "library"


# --- task specializations ------------------------------------------------------

# Elementwise ops with an `out=` form: the last op of a body writes into the view.
OUT_VARIANTS: dict[type, Callable[..., torch.Tensor]] = {
    ge.ReluOp: lambda x, out: torch.clamp_min(x, 0, out=out),  # relu(x) = max(x, 0)
    ge.SigmoidOp: torch.sigmoid,
    ge.TanhOp: torch.tanh,
    ge.ExpOp: torch.exp,
    ge.LogOp: torch.log,
    ge.SqrtOp: torch.sqrt,
    ge.RsqrtOp: torch.rsqrt,
    ge.NegOp: torch.neg,
    ge.AbsOp: torch.abs,
    ge.ErfOp: torch.erf,
    ge.AddOp: torch.add,
    ge.SubOp: torch.sub,
    ge.MulOp: torch.mul,
    ge.DivOp: torch.div,
    ge.MaximumOp: torch.maximum,
    ge.MinimumOp: torch.minimum,
}
# A task body that only moves data: out.copy_(view of the input), or nothing if
# the plan put the output exactly over the input (reshape/flatten in place).
VIEW_OPS = (ge.ReshapeOp, ge.FlattenOp, ge.TransposeOp, ge.SliceOp, ge.ExpandOp)


def _ops(block: Block) -> list:
    return [op for op in block.ops if not isinstance(op, ge.YieldOp)]


def _yielded(block: Block):
    return block.last_op.operands


def _arg(value, block: Block) -> int | None:
    """The task-input position of `value`, if it is a block argument of `block`."""
    if isinstance(value, BlockArgument) and value.block is block:
        return value.index
    return None


def _same_element_types(op) -> bool:
    want = op.results[0].type.element_type
    return all(getattr(v.type, "element_type", None) == want for v in op.operands)


def _constant(i: int | None, ins: list, constants: list[bool]) -> bool:
    return i is not None and constants[i] and ins[i] is not None


def _clamp_bounds(op: ge.ClampOp) -> tuple[float | None, float | None]:
    return tuple(None if a is None else a.value.data for a in (op.min, op.max))


def _clamp_post_op(op: ge.ClampOp):
    low, high = _clamp_bounds(op)
    if low is not None and high is not None:
        return ("hardtanh", [low, high], "")  # ReLU6 and friends
    return ("relu", [], "") if low == 0.0 and high is None else None


# Activations a conv task may end with, as oneDNN post-ops (attr, scalars,
# algorithm); None if this instance has no post-op form.
CONV_POST_OPS: dict[type, Callable] = {
    ge.ReluOp: lambda op: ("relu", [], ""),
    ge.ClampOp: _clamp_post_op,
    ge.SigmoidOp: lambda op: ("sigmoid", [], ""),
    ge.TanhOp: lambda op: ("tanh", [], ""),
    ge.HardswishOp: lambda op: ("hardswish", [], ""),
    ge.HardsigmoidOp: lambda op: ("hardsigmoid", [], ""),
    ge.SiluOp: lambda op: ("swish", [], ""),
    ge.GeluOp: lambda op: ("gelu", [], op.approximate.data),
}
# The same activations applied in place to a result already in its view: after
# a conv accumulated into its view (oneDNN fuses only ReLU after that add) and
# after a linear's addmm.
IN_PLACE_ACTIVATIONS: dict[type, Callable] = {
    ge.ReluOp: lambda op: lambda y: y.clamp_min_(0),
    ge.ClampOp: lambda op: (lambda low, high: lambda y: y.clamp_(low, high))(*_clamp_bounds(op)),
    ge.SigmoidOp: lambda op: torch.Tensor.sigmoid_,
    ge.TanhOp: lambda op: torch.Tensor.tanh_,
    ge.HardswishOp: lambda op: lambda y: F.hardswish(y, inplace=True),
    ge.HardsigmoidOp: lambda op: lambda y: F.hardsigmoid(y, inplace=True),
    ge.SiluOp: lambda op: lambda y: F.silu(y, inplace=True),
    ge.GeluOp: lambda op: (lambda approximate: lambda y: torch.ops.aten.gelu_(
        y, approximate=approximate))(op.approximate.data),
}


@dataclass(frozen=True)
class ConvPattern:
    """A task body conv2d [+ add residual] [+ activation], by task-input position."""

    conv: ge.Conv2dOp
    x: int
    weight: int
    bias: int | None
    residual: int | None
    act: tuple | None  # the activation as (attr, scalars, algorithm): CONV_POST_OPS
    act_op: Operation | None


def conv_pattern(block: Block) -> ConvPattern | None:
    """The body's conv pattern, if it is one on 4-D tensors (NC1HWC0 convs
    keep the generic, re-packing path)."""
    ops = _ops(block)
    conv = ops[0] if ops else None
    if not isinstance(conv, ge.Conv2dOp) or len(conv.input.type.get_shape()) != 4:
        return None
    x, w = _arg(conv.input, block), _arg(conv.weight, block)
    b = _arg(conv.bias, block) if conv.bias is not None else None
    if x is None or w is None or (conv.bias is not None and b is None):
        return None
    residual, act, act_op, prev = None, None, None, conv.output
    for op in ops[1:]:
        if isinstance(op, ge.AddOp) and residual is None and act is None:
            other = op.rhs if op.lhs == prev else op.lhs if op.rhs == prev else None
            residual = _arg(other, block) if other is not None else None
            if residual is None or other.type != op.output.type:
                return None
        elif (type(op) in CONV_POST_OPS and act is None and op.operands[0] == prev
              and CONV_POST_OPS[type(op)](op) is not None):
            act, act_op = CONV_POST_OPS[type(op)](op), op
        else:
            return None
        prev = op.results[0]
    if list(_yielded(block)) != [prev]:
        return None
    return ConvPattern(conv, x, w, b, residual, act, act_op)


def _primitive_conv(conv, x: int, residual: int | None, act, ins: list, weight, bias,
                    params: tuple, out: torch.Tensor) -> Runner | None:
    """The conv as a oneDNN primitive created now for these views (runtime/host/onednn.py):
    the activation as a post-op, a residual as a sum post-op into `out`, which is
    the residual's bytes or gets a copy of it. None if oneDNN declines the shape
    or the residual is laid out unlike `out`."""
    post_ops = [dnnl.eltwise(*act)] if act is not None else []
    copy_residual = False
    if residual is not None:
        res = ins[residual]
        if res is None or not dnnl.same_layout(res, out):
            return None
        post_ops.insert(0, ("sum",))
        copy_residual = res.data_ptr() != out.data_ptr()
    if ins[x] is None and str(conv.input.type.element_type) != "f32":
        return None  # a graph input of another type: the descriptors are fp32
    source = ins[x] if ins[x] is not None else conv.input.type.get_shape()
    try:
        primitive = dnnl.conv2d(source, weight, bias, out, *params, post_ops=post_ops)
    except dnnl.OneDNNError:
        return None
    blocked = isinstance(out, dnnl.Blocked)
    mark = _writes_relu if clamps_at_zero(act) else (lambda r: r)
    if ins[x] is None:  # a graph input: its bytes arrive with each call
        def onednn_primitive_input(*args):
            primitive(dnnl.per_call(args[x], blocked))
        return mark(onednn_primitive_input if residual is not None else _retargetable(
            onednn_primitive_input, primitive))
    if copy_residual:
        source, target = (res.data, out.data) if blocked else (res, out)

        def onednn_primitive_residual(*args):
            target.copy_(source)
            primitive()
        return mark(onednn_primitive_residual)

    def onednn_primitive(*args):
        primitive()
    return mark(onednn_primitive if residual is not None else _retargetable(onednn_primitive,
                                                                            primitive))


def _conv_task(block: Block, ins: list, constants: list[bool], out: torch.Tensor,
               algorithms: bool, primitives: bool = False) -> Runner | None:
    """conv2d [+ add residual] [+ activation], the result written into `out`.
    The weight and bias must be constants: they are reshaped or prepacked at
    load. ReLU goes with every algorithm; other activations (ReLU6, hardswish,
    SiLU, ...) only with oneDNN and without a residual add: in place after
    oneDNN accumulated into the zeroed view, or, if the view is not a dense
    NHWC one, as a post-op on a fresh result that is then copied."""
    pattern = conv_pattern(block)
    if pattern is None:
        return None
    conv, x, w, b, residual, act, act_op = (
        pattern.conv, pattern.x, pattern.weight, pattern.bias, pattern.residual, pattern.act,
        pattern.act_op)
    if not _constant(w, ins, constants) or (b is not None and not _constant(b, ins, constants)):
        return None
    relu = act is not None and act[0] == "relu"
    other_act = act is not None and not relu  # oneDNN post-op only, without a residual
    weight, bias = ins[w], None if b is None else ins[b]
    params = (_ints(conv.stride), _ints(conv.padding), _ints(conv.dilation),
              conv.groups.value.data)
    if isinstance(out, dnnl.Blocked):  # only a primitive can read or write it
        return _primitive_conv(conv, x, residual, act, ins, weight, bias, params, out)
    fast = algorithms and weight.dtype == torch.float32  # the GEMM / oneDNN forms: fp32 only
    algorithm = choose_conv(tuple(weight.shape), *params, out) if fast else "library"
    if algorithm == "onednn_packed" and primitives and dnnl.available():
        runner = _primitive_conv(conv, x, residual, act, ins, weight, bias, params, out)
        if runner is not None:
            return runner
    if other_act:
        if not CONV_ALGORITHMS[algorithm].fused or residual is not None:
            return None  # op-fusion puts only ReLU after a conv's residual add
        if out.is_contiguous(memory_format=torch.channels_last):
            # accumulate into the zeroed view, then the activation in place: no
            # fresh result to allocate and copy (MobileNetV2's 4.8 MB ones)
            fused = CONV_ALGORITHMS[algorithm].prepare(
                weight, bias, *params, input_shape=conv.input.type.get_shape(),
                residual="into")
            activate = IN_PLACE_ACTIVATIONS[type(act_op)](act_op)

            def onednn_in_place_act(*args):
                fused(args[x], out)
                activate(out)
            return onednn_in_place_act
        fused = CONV_ALGORITHMS[algorithm].prepare(
            weight, bias, *params, input_shape=conv.input.type.get_shape(), unary=act)

        def onednn(*args):
            out.copy_(fused(args[x]))
        return onednn
    if CONV_ALGORITHMS[algorithm].fused:
        # the residual is fused only if it is an arena view laid out like the output
        fuse_add = (residual is not None and ins[residual] is not None
                    and ins[residual].stride() == out.stride())
        # planned over the residual (passes/memory_reuse.py `overwritable`): no copy
        in_place = fuse_add and ins[residual].data_ptr() == out.data_ptr()
        if residual is None or fuse_add:
            into = residual is None and out.is_contiguous(memory_format=torch.channels_last)
            fused = CONV_ALGORITHMS[algorithm].prepare(
                weight, bias, *params, input_shape=conv.input.type.get_shape(), relu=relu,
                residual="in_place" if in_place else "into" if into else fuse_add)
            if in_place or into:
                def onednn_in_place(*args):
                    fused(args[x], out)
                return onednn_in_place

            def onednn(*args):
                out.copy_(fused(args[x], args[residual] if fuse_add else None))
            return onednn
        algorithm = "library"
    if residual is not None and ins[residual] is not None and (
            ins[residual].data_ptr() == out.data_ptr()):
        algorithm = "library"  # a GEMM writing `out` would overwrite the residual it adds
    conv_into = CONV_ALGORITHMS[algorithm].prepare(weight, bias, *params)
    if CONV_ALGORITHMS[algorithm].fresh:
        conv = conv_into

        def library(*args):
            r = conv(args[x])
            if residual is not None:
                if relu:
                    r.add_(args[residual])
                else:
                    torch.add(r, args[residual], out=out)
                    return
            if relu:
                torch.clamp_min(r, 0, out=out)
            elif residual is None:
                out.copy_(r)
        return library

    def gemm(*args):
        conv_into(args[x], out)
        if residual is not None:
            out.add_(args[residual])
        if relu:
            out.clamp_min_(0)
    return gemm


# Activations a linear task may end with: applied in place to the output view
# (addmm form, IN_PLACE_ACTIVATIONS), or as a oneDNN post-op (packed form,
# CONV_POST_OPS).
LINEAR_ACTIVATIONS = (ge.ReluOp, ge.GeluOp)


def _has_onednn_linear() -> bool:
    return (torch.backends.mkldnn.is_available()
            and hasattr(torch.ops.mkldnn, "_reorder_linear_weight")
            and hasattr(torch.ops.mkldnn, "_linear_pointwise"))


def _onednn_linear(weight, bias, rows: int, post_op: tuple[str, list, str]):
    """oneDNN's inner product with the weight reordered once, at load, for this
    many rows, and the activation as a post-op. On BERT's shapes it beat
    addmm (MKL) by 15-40% (bench/gemm_micro.py); these are torch's internal
    mkldnn ops, used only when present (`_has_onednn_linear`)."""
    packed = torch.ops.mkldnn._reorder_linear_weight(weight, rows)
    attr, scalars, algorithm = post_op
    return lambda x: torch.ops.mkldnn._linear_pointwise(x, packed, bias, attr, scalars,
                                                        algorithm)


def _primitive_linear(x_view, x: int, k: int, weight, bias, rows: torch.Tensor, act
                      ) -> Runner | None:
    """The linear as a oneDNN inner product created now, writing `rows`; the
    input is bound now if it is a contiguous view (its [rows, k] form is then
    a view too), else taken per call."""
    post_ops = [dnnl.eltwise(*CONV_POST_OPS[type(act)](act))] if act is not None else []
    if rows.dtype != torch.float32 or (x_view is not None and x_view.dtype != torch.float32):
        return None  # the descriptors are fp32; a graph input has the output's type here
    bound = x_view is not None and x_view.is_contiguous()
    source = x_view.reshape(-1, k) if bound else [rows.shape[0], k]
    try:
        primitive = dnnl.linear(source, weight, bias, rows, post_ops)
    except dnnl.OneDNNError:
        return None
    if bound:
        def onednn_primitive_linear(*args):
            primitive()
        return _retargetable(onednn_primitive_linear, primitive)

    def onednn_primitive_linear_input(*args):
        primitive(args[x].reshape(-1, k).contiguous())
    return _retargetable(onednn_primitive_linear_input, primitive)


def _linear_task(block: Block, ins: list, constants: list[bool], out: torch.Tensor,
                 algorithms: bool, primitives: bool = False) -> Runner | None:
    """linear [+ reshape] [+ relu | gelu] into `out`, viewed as the [rows,
    features] matrix the linear computes (a reshape only renames it): with
    `algorithms`, oneDNN with a prepacked weight and the activation as a
    post-op, then one copy into the view; otherwise one addmm into the view
    and the activation in place."""
    ops = _ops(block)
    lin = ops[0]
    x, w = _arg(lin.input, block), _arg(lin.weight, block)
    b = _arg(lin.bias, block) if lin.bias is not None else None
    if x is None or not _constant(w, ins, constants) or ins[w].dim() != 2 or (
            lin.bias is not None and not _constant(b, ins, constants)):
        return None
    rest, prev, act = ops[1:], lin.output, None
    if rest and isinstance(rest[0], ge.ReshapeOp) and rest[0].input == prev and not rest[0].sizes:
        prev, rest = rest[0].output, rest[1:]
    if rest and isinstance(rest[0], LINEAR_ACTIVATIONS) and rest[0].operands[0] == prev:
        act, prev, rest = rest[0], rest[0].results[0], rest[1:]
    if rest or list(_yielded(block)) != [prev] or not out.is_contiguous():
        return None
    weight = ins[w]
    features, k = weight.shape
    rows = out.view(-1, features)
    if algorithms and primitives and weight.dtype == torch.float32 and dnnl.available():
        runner = _primitive_linear(ins[x], x, k, weight, ins[b] if b is not None else None,
                                   rows, act)
        if runner is not None:
            return runner
    if algorithms and weight.dtype == torch.float32 and _has_onednn_linear():
        bias = ins[b] if b is not None else None
        packed = _onednn_linear(weight, bias, rows.shape[0],
                                CONV_POST_OPS[type(act)](act) if act else ("none", [], ""))

        def onednn_linear(*args):
            rows.copy_(packed(args[x].reshape(-1, k)))
        return onednn_linear

    wt = weight.t()
    bias = ins[b] if b is not None else torch.zeros(features, dtype=weight.dtype)
    epilogue = IN_PLACE_ACTIVATIONS[type(act)](act) if act else None

    def linear(*args):
        torch.addmm(bias, args[x].reshape(-1, k), wt, out=rows)
        if epilogue is not None:
            epilogue(rows)
    return linear


def _max_pool_task(block: Block, ins: list, out: torch.Tensor, algorithms: bool,
                   relu_input: bool = False) -> Runner | None:
    """max_pool2d on an NHWC copy of the input: torch's NCHW max-pool kernel took
    3.3 ms on ResNet-50's 64x112x112 stem output, 0.68 ms with the reorder.
    oneDNN's pooling primitive, which writes the view directly (0.05 ms on
    that shape, NHWC), only on a ReLU'd conv primitive's output (`relu_input`;
    Blocked buffers always are): it starts each window at -FLT_MAX, so an all
    -inf window gives -3.4e38, not -inf, and it drops NaN; a ReLU's output
    has neither."""
    (op,) = _ops(block)
    src = _arg(op.input, block)
    if not algorithms or src is None or len(op.input.type.get_shape()) != 4:
        return None
    k, s, p, d = (_ints(op.kernel_size), _ints(op.stride), _ints(op.padding),
                  _ints(op.dilation))
    ceil = bool(op.ceil_mode.value.data)
    if isinstance(out, dnnl.Blocked) or (relu_input and dnnl.available() and all(
            isinstance(t, torch.Tensor) and is_nhwc(t) for t in (ins[src], out))):
        try:
            pool = dnnl.max_pool2d(ins[src], out, k, s, p, d)
        except dnnl.OneDNNError:
            pool = None  # `specialize` refuses blocked buffers; NHWC ones take torch's
        if pool is not None:
            def onednn_max_pool(*args):
                pool()
            return _writes_relu(onednn_max_pool)  # a max of ReLU values is one
        if isinstance(out, dnnl.Blocked):
            return None

    def max_pool_nhwc(*args):
        x = args[src].contiguous(memory_format=torch.channels_last)
        out.copy_(F.max_pool2d(x, k, s, p, d, ceil_mode=ceil))
    return max_pool_nhwc


def _global_avg_pool_task(block: Block, ins: list, out: torch.Tensor, primitives: bool = False
                          ) -> Runner | None:
    """adaptive_avg_pool2d to 1x1 on an NHWC view: a mean over the rows of the
    [N, H*W, C] matrix the view already is, written into the [N, C] output
    (the generic path's pooling kernel took 0.27 ms on ResNet-50's 2048x7x7);
    with `primitives`, oneDNN's average pooling over the whole plane, created
    at load for these views (torch's mean: 0.45 ms at batch 8, ORT 0.09)."""
    (op,) = _ops(block)
    src = _arg(op.input, block)
    x = ins[src] if src is not None else None
    blocked = isinstance(x, dnnl.Blocked)
    if x is None or _ints(op.output_size) != (1, 1) or not out.is_contiguous() or not blocked and (
            not is_nhwc(x) or x.is_contiguous()):
        return None
    n, c = x.shape[:2]
    result = out.view(n, c)
    if primitives and dnnl.available():
        try:
            pool = dnnl.global_avg_pool2d(x, result)
        except dnnl.OneDNNError:
            pool = None
        if pool is not None:
            def onednn_global_avg_pool(*args):
                pool()
            return onednn_global_avg_pool
    if blocked:
        return None  # torch cannot read it: `specialize` refuses the blocked buffers

    def global_avg_pool(*args):  # the permute + reshape of an NHWC view is a view
        torch.mean(args[src].permute(0, 2, 3, 1).reshape(n, -1, c), dim=1, out=result)
    return global_avg_pool


def _view_task(block: Block, ins: list, out: torch.Tensor, kernel) -> Runner | None:
    """A data-movement body: one copy into `out`, none if planned in place."""
    (op,) = _ops(block)
    src = _arg(op.operands[0], block)
    if src is None or len(op.operands) != 1 or list(_yielded(block)) != [op.results[0]]:
        return None
    x = ins[src]
    if (isinstance(op, ge.ReshapeOp | ge.FlattenOp) and x is not None and x.is_contiguous()
            and out.is_contiguous() and x.data_ptr() == out.data_ptr()
            and x.numel() == out.numel()):
        def in_place_view(*args):
            pass  # the bytes are already where they belong
        return in_place_view

    def copy_view(*args):
        out.copy_(kernel(args[src]))
    return copy_view


def _tail_task(block: Block, out: torch.Tensor) -> Runner | None:
    """Any body whose last op is elementwise with an `out=` form: the ops before
    it run as usual, the last one writes into `out`."""
    last = _ops(block)[-1]
    body = BlockProgram(block)  # its own copy: the generic path keeps the original
    variant = OUT_VARIANTS.get(type(last))
    if (variant is None or list(_yielded(block)) != [last.results[0]]
            or not _same_element_types(last) or not body.steps
            or body.steps[-1][2] != body.outputs):
        return None
    _, ins, outs = body.steps[-1]
    body.steps[-1] = (lambda *xs: variant(*xs, out=out), ins, outs)

    def tail(*args):
        body.run(args)
    return tail


# Single-op bodies that run as oneDNN primitives on Blocked buffers, besides convs.
BLOCKED_POOLS = (ge.MaxPool2dOp, ge.AdaptiveAvgPool2dOp)


def specialize(block: Block, body, ins: list, constants: list[bool], outs: list,
               algorithms: bool = True, primitives: bool = True,
               relu_input: bool = False) -> Runner | None:
    """A runner writing the task's result into `outs[0]`, or None for the generic path.

    `body` is the task's BlockProgram, `ins` the task's input tensors where
    known at load time (None for graph inputs), `constants` which of them are
    weights (whose values may be read at load), `outs` its output views,
    `relu_input` whether a runner marked `writes_relu` writes its first input."""
    runner = _specialized(block, body, ins, constants, outs, algorithms, primitives,
                          relu_input)
    if runner is None and any(isinstance(t, dnnl.Blocked) for t in (*ins, *outs)):
        # Only a oneDNN primitive reads a blocked buffer, and none was made: the
        # executor then lays the arena out without them (runtime/host/blocked.py).
        op = next(iter(_ops(block)), block.last_op)
        raise dnnl.OneDNNError(f"'{op.name}' on blocked buffers: no oneDNN primitive for it")
    return runner


def _specialized(block: Block, body, ins: list, constants: list[bool], outs: list,
                 algorithms: bool, primitives: bool, relu_input: bool) -> Runner | None:
    ops = _ops(block)
    if len(outs) != 1 or outs[0] is None or not ops:
        return None
    out = outs[0]
    first = type(ops[0])
    if any(isinstance(t, dnnl.Blocked) for t in (*ins, out)) and not (
            first is ge.Conv2dOp or len(ops) == 1 and first in BLOCKED_POOLS):
        return None  # a torch-op runner cannot read it
    if first is ge.Conv2dOp:
        return _conv_task(block, ins, constants, out, algorithms, primitives and algorithms)
    if first is ge.LinearOp:
        return _linear_task(block, ins, constants, out, algorithms, primitives)
    if len(ops) == 1 and first is ge.MaxPool2dOp:
        return _max_pool_task(block, ins, out, algorithms, relu_input and primitives)
    if len(ops) == 1 and first is ge.AdaptiveAvgPool2dOp and algorithms:
        return _global_avg_pool_task(block, ins, out, primitives)
    if len(ops) == 1 and isinstance(ops[0], VIEW_OPS):
        return _view_task(block, ins, out, body.steps[0][0])
    return _tail_task(block, out)
