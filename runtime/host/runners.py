"""Task runners: a task body recognised by its op sequence runs as one
prepared call that writes straight into the task's planned output view.

The generic path (runtime/program.py) runs a task body op by op, each op
returning a fresh tensor, and the executor then copies the result into the
task's arena view. Here, at load time, a task whose body is a known sequence
gets a runner that computes into the output view and applies its epilogue in
place there. `RUNNERS` maps a body's first op to the builder that knows it:

    conv2d [+ add residual] [+ activation]   conv runners (primitive, packed, library, GEMM)
    linear [+ reshape] [+ activation]        linear runners (primitive, packed, addmm)
      [+ add residual]
    the same in bf16, with precision-mode's  bf16 runners (runtime/host/bf16.py)
      casts around them
    weight_quant_linear                      the int8-weight GEMV (runtime/host/int8.py)
    quantized_conv2d / _linear, quantize     oneDNN int8 primitives (runtime/host/onednn_int8.py)
    softmax(q @ k^T * s, masked) @ v         oneDNN matmul + softmax primitives (fp32 or
      tried first on any body ending in a       bf16), or torch's fused attention
      matmul, transpose or cast                 (runtime/host/attention.py)
    [elementwise ->] layer_norm (last dim)   the elementwise op into the view, oneDNN's
      [-> cast to bf16, alone]                  layer norm in place there (or storing bf16)
    [elementwise ->] rms_norm (last dim)     one C loop (runtime/host/rms_norm.py) over the
                                                input (and a residual added first), or the
                                                elementwise op into the view, the norm in
                                                place there
    cast -> rms_norm -> cast [-> * weight]   a bf16 model's RMSNorm: one C loop on bf16
                                                (runtime/host/rms_norm.py)
    x * cos + rotate_half(x) * sin           one C loop (runtime/host/rotary.py, fp32 or
                                                bf16), or three torch ops into the view
    silu(x @ Wg^T) * (x @ Wu^T)              one linear over both weights, joined at load,
                                                then silu and the product into the view;
                                                at a decode step two inner products, silu
                                                and the product their post-ops (bf16: then
                                                one C loop, runtime/host/bf16.py)
    max_pool2d, global average pooling       pool runners
    embedding                                index_select into the view's rows
    one data-movement op                     one copy, or none if planned in place
    a chain of views (split_heads)           one copy (of views made at load if it can)

and any other body ending in an elementwise op with an `out=` form runs as
usual except that its last op writes into the view (`_tail_task`).
Anything else keeps the generic path: `specialize` returns None.

Why writing into the output is safe: the memory plan never lets a task's
output share bytes with an input, except an elementwise task writing exactly
over an input it reads last (passes/memory_reuse.py `in_place_sources`,
checked by ge_dialect/plan_verifier.py), and a conv or linear adding a
residual, which may be planned over the residual's bytes (`overwritable`)
and then accumulates into them; a linear's own input never is. In an elementwise
body only the last op writes into the output, and it reads its operands
index by index, so reading and writing the same bytes is what an in-place
elementwise op does anyway.

With `primitives` and oneDNN's library present, convs, linears and pools are
primitives created here, at load, for these very views (runtime/host/onednn.py):
each runner is then one call, which the executor's prepared loop makes
directly (`Primitive.as_runner`'s `bare`). Those primitives alone also run on buffers
held in oneDNN's blocked layout (runtime/host/blocked.py); `specialize`
refuses any other runner there. A runner reading a graph input (a KV cache)
cannot be bound at load; it may offer `bind(args)`, the same work with
these arguments fixed for good as a call with none (or None), which a
captured replay (runtime/replay.py) takes at capture.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from xdsl.ir import Block, BlockArgument, Operation, OpResult

from ge_dialect import ge
from ge_dialect.traits import PostOp
from runtime import kernels
from runtime.host import activations, attention, bf16, cc, gemv, int8, onednn_int8, rms_norm
from runtime.host import rotary as rotary_kernel
from runtime.host import onednn as dnnl
from runtime.host.activations import ACTIVATIONS
from runtime.host.conv_algorithms import CONV_ALGORITHMS, as_rows, choose_conv, is_nhwc
from runtime.program import BlockProgram

Runner = Callable[..., None]  # runner(*task_inputs) writes the task's output view(s)

@dataclass(frozen=True)
class Task:
    """What a runner builder sees: the body, its program, and the task's views.

    `ins` are the task's input tensors where known at load time (None for
    graph inputs), `constants` which of them are weights (whose values may be
    read at load), `out` its output view, `relu_input` whether a runner
    marked `writes_relu` writes its first input, `workspace` the scratch
    bytes the executable's primitives share."""

    block: Block
    body: BlockProgram
    ins: list
    constants: list[bool]
    out: torch.Tensor | dnnl.Blocked
    algorithms: bool
    primitives: bool
    relu_input: bool
    workspace: dnnl.Workspace | None = None

    @property
    def ops(self) -> list[Operation]:
        return [op for op in self.block.ops if not isinstance(op, ge.YieldOp)]

    @property
    def yielded(self) -> list:
        return list(self.block.last_op.operands)

    def arg(self, value) -> int | None:
        """The task-input position of `value`, if it is a block argument of the body."""
        if isinstance(value, BlockArgument) and value.block is self.block:
            return value.index
        return None

    def constant(self, i: int | None) -> bool:
        return i is not None and self.constants[i] and self.ins[i] is not None


def _retargetable(runner: Runner, primitive: dnnl.Primitive) -> Runner:
    """Give `runner` a `retarget(tensor)`: from then on it writes into `tensor`
    (laid out like its output view) instead. The executor uses it to write a
    graph result straight into the tensor it returns, instead of copying it
    out of the arena."""
    runner.retarget = lambda tensor: primitive.retarget(dnnl.ARG_DST, tensor)
    return runner


def _writes_relu(runner: Runner) -> Runner:
    """Mark `runner` as writing a ReLU's values into its output: none below 0
    and no NaN (oneDNN's ReLU and clip post-ops map NaN to 0), so a max-pool
    of them may be oneDNN's, whose max differs from torch's on NaN and -inf
    only (the executor passes `relu_input`)."""
    runner.writes_relu = True
    return runner


def _ints(attr) -> tuple[int, ...]:
    return tuple(attr.get_values())


# --- conv2d [+ add residual] [+ activation] --------------------------------------


@dataclass(frozen=True)
class ConvPattern:
    """A task body [cast +] conv2d [+ add residual] [+ activation] [+ cast], by
    task-input position. The casts are what precision-mode puts around a
    bf16 conv (passes/precision_mode.py): `src_cast` converts the input to
    the conv's type; `out_cast` says the epilogue has casts between bf16 and
    fp32 (after the conv: to fp32 for an fp32 epilogue; last: to the output
    type). A kernel computes the epilogue in fp32 and stores the output type."""

    conv: ge.Conv2dOp
    x: int
    weight: int
    bias: int | None
    residual: int | None
    act: PostOp | None
    act_op: Operation | None
    src_cast: bool = False
    out_cast: bool = False


def _float_cast(op: Operation) -> bool:
    return isinstance(op, ge.CastOp) and {str(op.input.type.element_type),
                                           str(op.output.type.element_type)} <= {"f32", "bf16"}


def conv_pattern(block: Block) -> ConvPattern | None:
    """The body's conv pattern, if it is one on 4-D tensors (NC1HWC0 convs
    keep the generic, re-packing path)."""
    t = Task(block, None, [], [], None, False, False, False)
    ops = t.ops
    src_cast = bool(ops) and _float_cast(ops[0])
    if src_cast:
        ops = ops[1:]
    conv = ops[0] if ops else None
    if not isinstance(conv, ge.Conv2dOp) or len(conv.input.type.get_shape()) != 4:
        return None
    if src_cast and conv.input is not t.ops[0].output:
        return None
    x = t.arg(t.ops[0].input if src_cast else conv.input)
    w = t.arg(conv.weight)
    b = t.arg(conv.bias) if conv.bias is not None else None
    if x is None or w is None or (conv.bias is not None and b is None):
        return None
    residual, act, act_op, prev, out_cast = None, None, None, conv.output, False
    for op in ops[1:]:
        if _float_cast(op) and op.input == prev:
            out_cast = True
        elif isinstance(op, ge.AddOp) and residual is None and act is None:
            other = op.rhs if op.lhs == prev else op.lhs if op.rhs == prev else None
            residual = t.arg(other) if other is not None else None
            if residual is None or other.type != op.output.type:
                return None
        elif act is None and activations.post_op(op) is not None and op.operands[0] == prev:
            act, act_op = activations.post_op(op), op
        else:
            return None
        prev = op.results[0]
    if t.yielded != [prev]:
        return None
    return ConvPattern(conv, x, w, b, residual, act, act_op, src_cast, out_cast)


@dataclass(frozen=True)
class ConvTask:
    """A recognised conv task with its prepared parameters."""

    task: Task
    pattern: ConvPattern
    weight: torch.Tensor
    bias: torch.Tensor | None
    params: tuple  # stride, padding, dilation, groups

    @property
    def out(self):
        return self.task.out

    def residual_view(self) -> torch.Tensor | None:
        r = self.pattern.residual
        return None if r is None else self.task.ins[r]

    def prepare(self, algorithm: str, **options):
        """A fused algorithm (torch's packed oneDNN conv) with its post-op options."""
        return CONV_ALGORITHMS[algorithm].prepare(
            self.weight, self.bias, *self.params,
            input_shape=self.pattern.conv.input.type.get_shape(), **options)

    def prepare_plain(self, algorithm: str):
        return CONV_ALGORITHMS[algorithm].prepare(self.weight, self.bias, *self.params)


def _conv_primitive(c: ConvTask) -> Runner | None:
    """The conv as a oneDNN primitive created now for these views: the
    activation as a post-op, a residual as a sum post-op into `out` where
    `out` is the residual's bytes, else as a binary add post-op reading it.
    None if oneDNN declines the shape or the residual is laid out unlike `out`."""
    p, t, out = c.pattern, c.task, c.out
    post_ops = [p.act.dnnl_post_op()] if p.act is not None else []
    res = c.residual_view()
    if p.residual is not None:
        if res is None or not dnnl.same_layout(res, out):
            return None
        post_ops.insert(0, ("sum",) if res.data_ptr() == out.data_ptr() else ("add", res))
    x = t.ins[p.x]
    if x is None and str(p.conv.input.type.element_type) != "f32":
        return None  # a graph input of another type: the descriptors are fp32
    mark = _writes_relu if p.act is not None and p.act.clamps_at_zero() else (lambda r: r)
    if (isinstance(x, dnnl.Blocked) and p.residual is None and t.workspace is not None
            and dnnl.prefers_nhwc(c.weight.shape, c.params[3])):
        try:
            run = dnnl.conv2d_via_nhwc(x, c.weight, c.bias, out, *c.params, post_ops,
                                       t.workspace)
        except dnnl.OneDNNError:
            return None

        def onednn_primitive_via_nhwc(*args):
            run()
        return mark(onednn_primitive_via_nhwc)
    try:
        primitive = dnnl.conv2d(x if x is not None else p.conv.input.type.get_shape(),
                                c.weight, c.bias, out, *c.params, post_ops=post_ops)
    except dnnl.OneDNNError:
        return None
    retarget = (lambda r: r) if p.residual is not None else (
        lambda r: _retargetable(r, primitive))
    if x is None:  # a graph input: its bytes arrive with each call
        blocked = isinstance(out, dnnl.Blocked)
        to_nhwc = None if blocked else _nhwc_staging(p.conv.input.type.get_shape(), t.workspace)

        def onednn_primitive_input(*args):
            x = args[p.x]
            if to_nhwc is not None and x.is_contiguous():
                primitive(to_nhwc(x))
            else:
                primitive(dnnl.per_call(x, blocked))
        return mark(retarget(onednn_primitive_input))
    return mark(retarget(primitive.as_runner("onednn_primitive")))


def _nhwc_staging(shape, workspace: dnnl.Workspace | None) -> Callable | None:
    """x -> its NHWC copy in a buffer of `workspace`, for a graph input that
    arrives as contiguous NCHW: oneDNN's reorder (24 us for a 3x224x224
    image, against torch's copy into a fresh tensor: 50). None where it
    has none."""
    if workspace is None or len(shape) != 4:
        return None
    staging = dnnl.Staging(workspace, (shape, torch.float32))  # 4-D: NHWC views
    try:
        reorder = dnnl.reorder(list(shape), torch.empty(
            shape, device="meta", memory_format=torch.channels_last))
    except dnnl.OneDNNError:
        return None

    def to_nhwc(x):
        (nhwc,) = staging.views()
        reorder(x, nhwc)
        return nhwc
    return to_nhwc


def _conv_packed_activation(c: ConvTask, algorithm: str) -> Runner | None:
    """A non-ReLU activation (ReLU6, SiLU, ...) with torch's packed
    oneDNN conv, without a residual add: accumulate into the zeroed NHWC view
    and run the activation in place there, or else apply it as a post-op on a
    fresh result that is then copied."""
    p, out = c.pattern, c.out
    if not CONV_ALGORITHMS[algorithm].fused or p.residual is not None:
        return None  # op-fusion puts only ReLU after a conv's residual add
    if out.is_contiguous(memory_format=torch.channels_last):
        fused, activate = c.prepare(algorithm, residual="into"), activations.in_place(p.act_op)

        def onednn_in_place_act(*args):
            fused(args[p.x], out)
            activate(out)
        return onednn_in_place_act
    fused = c.prepare(algorithm, unary=p.act.torch_post_op())

    def onednn(*args):
        out.copy_(fused(args[p.x]))
    return onednn


def _conv_packed(c: ConvTask, algorithm: str, relu: bool) -> Runner | None:
    """torch's packed oneDNN conv with ReLU and the residual as post-ops,
    accumulating into the residual's bytes (planned over them: passes/
    memory_reuse.py `overwritable`) or into the zeroed view; None if the
    residual is not an arena view laid out like the output."""
    p, out, res = c.pattern, c.out, c.residual_view()
    fuse_add = res is not None and res.stride() == out.stride()
    if p.residual is not None and not fuse_add:
        return None
    in_place = fuse_add and res.data_ptr() == out.data_ptr()
    into = p.residual is None and out.is_contiguous(memory_format=torch.channels_last)
    fused = c.prepare(algorithm, relu=relu,
                      residual="in_place" if in_place else "into" if into else fuse_add)
    if in_place or into:
        def onednn_in_place(*args):
            fused(args[p.x], out)
        return onednn_in_place

    def onednn(*args):
        out.copy_(fused(args[p.x], args[p.residual] if fuse_add else None))
    return onednn


def _conv_library(c: ConvTask, relu: bool) -> Runner:
    """The library conv's fresh result, then the residual and ReLU into the view."""
    p, out, conv = c.pattern, c.out, c.prepare_plain("library")

    def library(*args):
        r = conv(args[p.x])
        if p.residual is not None:
            if relu:
                r.add_(args[p.residual])
            else:
                torch.add(r, args[p.residual], out=out)
                return
        if relu:
            torch.clamp_min(r, 0, out=out)
        elif p.residual is None:
            out.copy_(r)
    return library


def _conv_gemm(c: ConvTask, algorithm: str, relu: bool) -> Runner:
    """A GEMM form writing the view, then the residual and ReLU in place."""
    p, out, conv_into = c.pattern, c.out, c.prepare_plain(algorithm)

    def gemm(*args):
        conv_into(args[p.x], out)
        if p.residual is not None:
            out.add_(args[p.residual])
        if relu:
            out.clamp_min_(0)
    return gemm


def _conv_task(t: Task) -> Runner | None:
    """conv2d [+ add residual] [+ activation], the result written into the view.
    The weight and bias must be constants: they are reshaped or prepacked at
    load. ReLU goes with every algorithm; other activations only with oneDNN
    and without a residual add."""
    p = conv_pattern(t.block)
    if p is None or not t.constant(p.weight) or (p.bias is not None and not t.constant(p.bias)):
        return None
    weight, bias = t.ins[p.weight], None if p.bias is None else t.ins[p.bias]
    params = (_ints(p.conv.stride), _ints(p.conv.padding), _ints(p.conv.dilation),
              p.conv.groups.value.data)
    c = ConvTask(t, p, weight, bias, params)
    if isinstance(t.out, dnnl.Blocked):  # only a primitive can read or write it
        return _conv_primitive(c)
    if weight.dtype == torch.bfloat16:
        return _conv_16bit(c, t)
    if p.src_cast or p.out_cast:
        return None  # casts around an fp32 conv (force_fp32): the generic path
    fast = t.algorithms and weight.dtype == torch.float32  # the GEMM / oneDNN forms: fp32 only
    algorithm = choose_conv(tuple(weight.shape), *params, t.out) if fast else "library"
    if algorithm == "onednn_packed" and t.primitives and t.algorithms and dnnl.available():
        runner = _conv_primitive(c)
        if runner is not None:
            return runner
    relu = p.act is not None and p.act.attr == "relu"
    if p.act is not None and not relu:
        return _conv_packed_activation(c, algorithm)
    if CONV_ALGORITHMS[algorithm].fused:
        runner = _conv_packed(c, algorithm, relu)
        if runner is not None:
            return runner
        algorithm = "library"
    res = c.residual_view()
    if res is not None and res.data_ptr() == t.out.data_ptr():
        algorithm = "library"  # a GEMM writing `out` would overwrite the residual it adds
    if CONV_ALGORITHMS[algorithm].fresh:
        return _conv_library(c, relu)
    return _conv_gemm(c, algorithm, relu)


def _conv_16bit(c: ConvTask, t: Task) -> Runner | None:
    """A bf16 conv (precision-mode's): oneDNN's bf16 primitive, or the same
    numbers from its fp32 kernels (runtime/host/bf16.py); without oneDNN, a
    body without casts runs torch's bf16 conv into the view, one with casts
    the generic path, op by op with torch's kernels."""
    p = c.pattern
    if p.residual is not None and c.residual_view() is None:
        return None  # a graph input as the residual: the generic path adds it
    if t.primitives:
        x_view = t.ins[p.x] if not p.src_cast else None
        runner = bf16.conv(p.conv.input.type.get_shape(), x_view, p.src_cast, c.weight, c.bias,
                           t.out, c.residual_view() if p.residual is not None else None,
                           c.params, [p.act.dnnl_post_op()] if p.act is not None else [],
                           p.x, p.residual, t.workspace)
        if runner is not None:
            # its ReLU rounded to bf16 is still one (no NaN, nothing below 0)
            clamps = p.act is not None and p.act.clamps_at_zero()
            return _writes_relu(runner) if clamps else runner
    if p.src_cast or p.out_cast or c.weight.dtype != t.out.dtype:
        return None
    relu = p.act is not None and p.act.attr == "relu"
    if p.act is not None and not relu:
        return None
    return _conv_library(c, relu)


# --- linear [+ reshape] [+ activation] -------------------------------------------


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


def _skip_cast(rest: list, prev, seen: bool) -> tuple[list, object, bool]:
    """Step over a cast of `prev` between bf16 and fp32: precision-mode's,
    which a kernel computing its epilogue in fp32 does as its store."""
    if rest and _float_cast(rest[0]) and rest[0].input == prev:
        return rest[1:], rest[0].output, True
    return rest, prev, seen


def _linear_primitive(x_view, x: int, k: int, weight, bias, rows: torch.Tensor,
                      post_ops: list) -> Runner | None:
    """The linear as a oneDNN inner product created now, writing `rows`; the
    input is bound now if it is a contiguous view (its [rows, k] form is then
    a view too), else taken per call."""
    if rows.dtype != torch.float32 or (x_view is not None and x_view.dtype != torch.float32):
        return None  # the descriptors are fp32; a graph input has the output's type here
    bound = x_view is not None and x_view.is_contiguous()
    source = x_view.reshape(-1, k) if bound else [rows.shape[0], k]
    try:
        primitive = dnnl.linear(source, weight, bias, rows, post_ops)
    except dnnl.OneDNNError:
        return None
    # accumulating into the residual's bytes ("sum"), it must write those very bytes
    retarget = (lambda r: r) if ("sum",) in post_ops else (
        lambda r: _retargetable(r, primitive))
    if bound:
        return retarget(primitive.as_runner("onednn_primitive_linear"))

    def onednn_primitive_linear_input(*args):
        primitive(args[x].reshape(-1, k).contiguous())
    return retarget(onednn_primitive_linear_input)


def _linear_task(t: Task) -> Runner | None:
    """linear [+ reshape] [+ activation] [+ residual] into the view, seen as
    the [rows, features] matrix the linear computes (a reshape only renames
    it): with `algorithms`, oneDNN with a prepacked weight and the
    activation and the residual add as post-ops; otherwise one addmm into
    the view, then the activation and the add in place."""
    ops = t.ops
    casts = {}  # precision-mode's casts of the input and of a residual, before the linear
    while ops and _float_cast(ops[0]):
        casts[ops[0].output] = ops[0].input
        ops = ops[1:]
    lin = ops[0] if ops else None
    if not isinstance(lin, ge.LinearOp) or len(casts) > 2:
        return None
    src_cast = lin.input in casts
    x, w = t.arg(casts.get(lin.input, lin.input)), t.arg(lin.weight)
    b = t.arg(lin.bias) if lin.bias is not None else None
    if x is None or not t.constant(w) or t.ins[w].dim() != 2 or (
            lin.bias is not None and not t.constant(b)):
        return None
    rest, prev, act_op = ops[1:], lin.output, None
    rest, prev, cast = _skip_cast(rest, prev, False)
    if rest and isinstance(rest[0], ge.ReshapeOp) and rest[0].input == prev and not rest[0].sizes:
        prev, rest = rest[0].output, rest[1:]
    rest, prev, cast = _skip_cast(rest, prev, cast)
    row = ACTIVATIONS.get(type(rest[0])) if rest else None
    if row is not None and row.after_linear and rest[0].operands[0] == prev:
        act_op, prev, rest = rest[0], rest[0].results[0], rest[1:]
    rest, prev, cast = _skip_cast(rest, prev, cast)
    r, residual_cast = None, False  # the task input a residual add reads (matmul_add)
    if rest and isinstance(rest[0], ge.AddOp) and prev in rest[0].operands:
        add = rest[0]
        other = add.rhs if add.lhs is prev else add.lhs
        # an fp32 residual cast to bf16 is added in fp32, as the kernel's epilogue
        residual_cast = other in casts and other is not lin.input
        r = t.arg(casts.get(other, other) if residual_cast else other)
        if r is None or other is prev or other.type != add.output.type:
            return None
        cast = cast or residual_cast
        prev, rest = add.output, rest[1:]
        rest, prev, cast = _skip_cast(rest, prev, cast)
    if len(casts) > src_cast + (r is not None and residual_cast):
        return None  # a cast of something else
    if rest or t.yielded != [prev] or not t.out.is_contiguous():
        return None
    weight = t.ins[w]
    bias = t.ins[b] if b is not None else None
    act = activations.post_op(act_op) if act_op is not None else None
    features, k = weight.shape
    rows = t.out.view(-1, features)
    residual = _residual_post_op(t.ins[r], rows) if r is not None else None
    if (r is not None and residual is None and isinstance(t.ins[r], torch.Tensor)
            and _overlap(t.ins[r], rows)):
        return None  # shares some of the output's bytes: no kernel may write first
    acts = [act.dnnl_post_op()] if act is not None else []

    def then_add(runner: Runner | None, added: bool) -> Runner | None:
        """`runner`, then the residual added per call unless its post-ops
        added it (a graph input's, or one no post-op reads here)."""
        if runner is None or r is None or added:
            return runner

        def linear_then_add(*args):
            runner(*args)
            rows.add_(args[r].reshape(rows.shape))
        linear_then_add.path = getattr(runner, "path", runner.__name__)
        return linear_then_add
    added = t.ins[r] if r is not None else None
    if (t.algorithms and rows.shape[0] == 1 and act is None and not (src_cast or cast)
            and weight.dtype == rows.dtype  # fp32 or bf16: a decode step's GEMV (gemv.py)
            and (r is None or isinstance(added, torch.Tensor))):  # a residual bound at load
        runner = gemv.linear(t.ins[x], weight, bias, rows,
                             added.reshape(rows.shape) if added is not None else None)
        if runner is not None:
            return runner
    if weight.dtype == torch.bfloat16 and t.primitives:  # precision-mode's (runtime/host/bf16.py)
        # Every bf16 form writes fp32 rows itself, so the residual is a post-op
        # there; a bf16 result may be staged, so the residual is added after
        # (not where the output has the residual's own bytes: op by op then).
        # A bf16 residual read by an fp32 kernel's post-op needs AVX-512 in
        # oneDNN 3.2: the emulated path on AVX2 adds it after instead.
        fp32_rows = rows.dtype == torch.float32
        if fp32_rows or residual != ("sum",):
            post = [residual] if fp32_rows and residual else []
            x_view = None if src_cast else t.ins[x]
            runner = bf16.linear(x, k, x_view, weight, bias, rows, acts + post, t.workspace)
            if runner is None and post and residual[0] == "add":
                post = []
                runner = bf16.linear(x, k, x_view, weight, bias, rows, acts, t.workspace)
            if runner is not None:
                return then_add(runner, bool(post))
        elif not (src_cast or cast):  # bf16 rows over the bf16 residual: rounded, then added
            runner = bf16.linear_add(t.ins[x], weight, bias, rows, acts)
            if runner is not None:
                return runner
    if src_cast or cast or weight.dtype != rows.dtype:
        return None  # the generic path: op by op with torch's kernels
    fp32 = t.algorithms and weight.dtype == torch.float32
    if fp32 and t.primitives and dnnl.available():
        runner = then_add(_linear_primitive(t.ins[x], x, k, weight, bias, rows,
                                            acts + ([residual] if residual else [])),
                          residual is not None)
        if runner is not None:
            return runner
    into = rows if r is None else None  # with a residual (maybe rows' own bytes): added after

    def add_residual(args, y):
        if r is not None:
            torch.add(args[r].reshape(rows.shape), y, out=rows)
    if fp32 and _has_onednn_linear():
        packed = _onednn_linear(weight, bias, rows.shape[0],
                                act.torch_post_op() if act else ("none", [], ""))

        def onednn_linear(*args):
            y = packed(args[x].reshape(-1, k))
            if r is None:
                rows.copy_(y)
            add_residual(args, y)
        return onednn_linear

    wt = weight.t()
    bias = bias if bias is not None else torch.zeros(features, dtype=weight.dtype)
    epilogue = activations.in_place(act_op) if act_op is not None else None

    def linear(*args):
        y = torch.addmm(bias, args[x].reshape(-1, k), wt, out=into)
        if epilogue is not None:
            epilogue(y)
        add_residual(args, y)
    return linear


def _gated_mlp_task(t: Task) -> Runner | None:
    """op-fusion's gated_mlp, silu(x @ W_gate^T) * (x @ W_up^T) (Llama's
    SwiGLU), fp32: the two weights joined at load into one [2I, K] matrix,
    so one linear (a oneDNN inner product, else addmm) writes gate and up
    side by side in a buffer of the runner's own; silu in place on the
    gate half, then the product into the view. At a decode step (one row)
    the C GEMV reads both weights in one pass (runtime/host/gemv.py), or
    two inner products with silu and the product as post-ops: no joined
    copy of a model's weights there."""
    out = t.out
    if (not isinstance(out, torch.Tensor) or out.dtype != torch.float32
            or not out.is_contiguous()):
        return None
    parts = _gated_mlp_parts(t)
    if parts is None:
        return None
    x, weights, biases = parts
    if any(w.dtype != torch.float32 or w.dim() != 2 for w in weights) \
            or weights[0].shape != weights[1].shape:
        return None
    inner, k = weights[0].shape
    if out.shape[-1] != inner:
        return None
    if t.algorithms and out.numel() == inner:  # one row: both weights in one pass (gemv.py)
        fast = gemv.gated(t.ins[x], *weights, *(t.ins[b] if b is not None else None
                                                 for b in biases), out.view(-1, inner))
        if fast is not None:
            return fast
    if dnnl.reads_plain_weight(out.numel() // inner):  # a joined copy would double them
        apart = _gated_mlp_apart(t, x, weights, biases, out.view(-1, inner))
        if apart is not None:
            return apart
    weight = torch.cat(weights).contiguous()
    bias = None
    if any(b is not None for b in biases):
        bias = torch.cat([t.ins[b] if b is not None else torch.zeros(inner) for b in biases])
    rows = out.view(-1, inner)
    both = torch.empty(rows.shape[0], 2 * inner)
    g, u = both[:, :inner], both[:, inner:]
    x_view = t.ins[x]
    bound = isinstance(x_view, torch.Tensor) and x_view.is_contiguous() \
        and x_view.dtype == torch.float32
    project = None
    if t.algorithms and t.primitives and dnnl.available():
        try:
            primitive = dnnl.linear(x_view.reshape(-1, k) if bound else [rows.shape[0], k],
                                    weight, bias, both)
            project = (lambda *_: primitive()) if bound else (
                lambda *args: primitive(args[x].reshape(-1, k).contiguous()))
        except dnnl.OneDNNError:
            project = None
    if project is None:
        wt, b = weight.t(), bias if bias is not None else torch.zeros(2 * inner)

        def project(*args):
            torch.addmm(b, args[x].reshape(-1, k), wt, out=both)

    def gated_mlp(*args):
        project(*args)
        F.silu(g, inplace=True)
        torch.mul(g, u, out=rows)
    return gated_mlp


def _gated_mlp_apart(t: Task, x: int, weights: list, biases: list, rows: torch.Tensor
                     ) -> Runner | None:
    """The gated MLP at a decode step: two inner products on the weights'
    own bytes (no joined or prepacked copy of a model's weights). With the
    input bound at load, the gate's has silu as an eltwise post-op (swish,
    alpha 1) and the up projection's multiplies by the gate as a binary
    post-op, writing the view: two library calls and no torch op, a `bare`
    runner. Else silu in place and the product follow the calls."""
    if not (t.algorithms and t.primitives and dnnl.available()):
        return None
    x_view, k = t.ins[x], weights[0].shape[1]
    bound = isinstance(x_view, torch.Tensor) and x_view.is_contiguous() \
        and x_view.dtype == torch.float32
    source = x_view.reshape(-1, k) if bound else [rows.shape[0], k]
    bias = [t.ins[b] if b is not None else None for b in biases]
    gated = torch.empty(rows.shape)
    if bound:
        try:
            gate = dnnl.linear(source, weights[0], bias[0], gated, plain_weight=True,
                               post_ops=[("eltwise", "swish", 1.0, 0.0)])
            up = dnnl.linear(source, weights[1], bias[1], rows, plain_weight=True,
                             post_ops=[("mul", gated)])
        except dnnl.OneDNNError:
            pass
        else:
            def both():
                gate.execute()
                up.execute()

            def gated_mlp(*args):
                both()
            gated_mlp.bare = both  # holds the primitives as long as the runner
            return gated_mlp
    halves = torch.empty(2, *rows.shape)
    try:
        gate, up = (dnnl.linear(source, w, b, half, plain_weight=True)
                    for w, b, half in zip(weights, bias, halves))
    except dnnl.OneDNNError:
        return None

    def gated_mlp(*args):  # the same runner kind as the joined one
        if bound:
            gate(), up()
        else:
            src = args[x].reshape(-1, k).contiguous()
            gate(src), up(src)
        F.silu(halves[0], inplace=True)
        torch.mul(halves[0], halves[1], out=rows)
    return gated_mlp


def _gated_mlp_16bit_task(t: Task) -> Runner | None:
    """op-fusion's gated_mlp on a bf16 model at a decode step: at one row the
    C GEMV reading both weights in one pass (runtime/host/gemv.py), else two
    bf16 inner products on the weights' own bytes, then silu and the
    product in one C loop (runtime/host/bf16.py); both round as the body's
    ops do."""
    out = t.out
    if not t.primitives or not isinstance(out, torch.Tensor) or out.dtype != torch.bfloat16:
        return None
    parts = _gated_mlp_parts(t)
    if parts is None:
        return None
    x, weights, biases = parts
    if any(w.dim() != 2 or w.shape != weights[0].shape for w in weights) \
            or out.shape[-1] != weights[0].shape[0]:
        return None
    bias_views = [t.ins[b] if b is not None else None for b in biases]
    rows = out.view(-1, out.shape[-1])
    if t.algorithms and rows.shape[0] == 1:  # one row: both weights in one pass (gemv.py)
        fast = gemv.gated(t.ins[x], *weights, *bias_views, rows)
        if fast is not None:
            return fast
    return bf16.gated_mlp(t.ins[x], weights, bias_views, rows)


def _gated_mlp_parts(t: Task) -> tuple[int, list, list] | None:
    """(input position, [gate, up] weights, their bias positions or None) of
    a body silu(x @ Wg^T [+ bg]) * (x @ Wu^T [+ bu]) with constant weights
    and biases; None for any other body."""
    ops = t.ops
    mul = ops[-1] if ops else None
    silu = next((op for op in ops if isinstance(op, ge.SiluOp)), None)
    if (len(ops) != 4 or not isinstance(mul, ge.MulOp) or silu is None
            or t.yielded != [mul.output] or silu.output not in mul.operands):
        return None
    up_value = mul.rhs if mul.lhs == silu.output else mul.lhs
    gate, up = (v.op if isinstance(v, OpResult) and isinstance(v.op, ge.LinearOp) else None
                for v in (silu.input, up_value))
    if gate is None or up is None or gate is up or gate.input != up.input:
        return None
    x, ws = t.arg(gate.input), [t.arg(op.weight) for op in (gate, up)]
    biases = [t.arg(op.bias) if op.bias is not None else None for op in (gate, up)]
    if (x is None or not all(t.constant(w) for w in ws)
            or any(op.bias is not None and not t.constant(b)
                   for op, b in zip((gate, up), biases))):
        return None
    return x, [t.ins[w] for w in ws], biases


def _residual_post_op(view, rows: torch.Tensor) -> tuple | None:
    """The post-op adding a residual view bound at load to the [rows,
    features] output: ("sum",) where the memory plan put the output over the
    residual's bytes (passes/memory_reuse.py `overwritable`), ("add", view)
    where it has bytes of its own (read in its own type: a bf16 residual of
    an fp32 result under the mix lists); else None."""
    if (not isinstance(view, torch.Tensor) or view.numel() != rows.numel()
            or not view.is_contiguous() or view.dtype not in (torch.float32, torch.bfloat16)):
        return None
    matrix = view.view(rows.shape)
    if matrix.data_ptr() == rows.data_ptr() and view.dtype == rows.dtype:
        return ("sum",)
    return None if _overlap(matrix, rows) else ("add", matrix)


# --- pools -----------------------------------------------------------------------


def _max_pool_task(t: Task) -> Runner | None:
    """max_pool2d on an NHWC copy of the input: torch's NCHW max-pool kernel took
    3.3 ms on ResNet-50's 64x112x112 stem output, 0.68 ms with the reorder.
    oneDNN's pooling primitive, which writes the view directly (0.05 ms on
    that shape, NHWC), only on a ReLU'd conv primitive's output (`relu_input`;
    Blocked buffers always are): it starts each window at -FLT_MAX, so an all
    -inf window gives -3.4e38, not -inf, and it drops NaN; a ReLU's output
    has neither."""
    (op,), out = t.ops, t.out
    src = t.arg(op.input)
    if not t.algorithms or src is None or len(op.input.type.get_shape()) != 4:
        return None
    k, s, p, d = (_ints(op.kernel_size), _ints(op.stride), _ints(op.padding),
                  _ints(op.dilation))
    ceil = bool(op.ceil_mode.value.data)
    # int8 holds no NaN nor -inf: oneDNN's max is torch's on it
    int8_input = str(op.input.type.element_type) in ("i8", "ui8")
    relu_input = t.primitives and (t.relu_input or int8_input)
    if isinstance(out, dnnl.Blocked) or (relu_input and dnnl.available() and all(
            isinstance(v, torch.Tensor) and is_nhwc(v) for v in (t.ins[src], out))):
        try:
            pool = dnnl.max_pool2d(t.ins[src], out, k, s, p, d)
        except dnnl.OneDNNError:
            pool = None  # `specialize` refuses blocked buffers; NHWC ones take torch's
        if pool is not None:  # a max of ReLU values is one
            return _writes_relu(pool.as_runner("onednn_max_pool"))
        if isinstance(out, dnnl.Blocked):
            return None

    # torch's int8 max-pool fails on channels_last tensors: int8 pools NCHW
    layout = torch.contiguous_format if int8_input else torch.channels_last

    def max_pool_nhwc(*args):
        x = args[src].contiguous(memory_format=layout)
        out.copy_(F.max_pool2d(x, k, s, p, d, ceil_mode=ceil))
    return max_pool_nhwc


def _global_avg_pool_task(t: Task) -> Runner | None:
    """adaptive_avg_pool2d to 1x1 on an NHWC view: a mean over the rows of the
    [N, H*W, C] matrix the view already is, written into the [N, C] output;
    with `primitives`, oneDNN's average pooling over the whole plane, created
    at load for these views."""
    (op,), out = t.ops, t.out
    src = t.arg(op.input)
    x = t.ins[src] if src is not None else None
    blocked = isinstance(x, dnnl.Blocked)
    if not t.algorithms or x is None or _ints(op.output_size) != (1, 1) or (
            not out.is_contiguous()) or not blocked and (not is_nhwc(x) or x.is_contiguous()):
        return None
    n, c = x.shape[:2]
    result = out.view(n, c)
    if t.primitives and dnnl.available():
        try:
            pool = dnnl.global_avg_pool2d(x, result)
        except dnnl.OneDNNError:
            pool = None
        if pool is not None:
            return pool.as_runner("onednn_global_avg_pool")
    if blocked:
        return None  # torch cannot read it: `specialize` refuses the blocked buffers

    def global_avg_pool(*args):  # the permute + reshape of an NHWC view is a view
        torch.mean(args[src].permute(0, 2, 3, 1).reshape(n, -1, c), dim=1, out=result)
    return global_avg_pool


# --- data movement and elementwise tails -----------------------------------------


def _view_task(t: Task) -> Runner | None:
    """A data-movement body: one copy into the view, none if planned in place."""
    (op,), out = t.ops, t.out
    src = t.arg(op.operands[0])
    if src is None or len(op.operands) != 1 or t.yielded != [op.results[0]]:
        return None
    x = t.ins[src]
    if (isinstance(op, ge.ReshapeOp | ge.FlattenOp) and x is not None and x.is_contiguous()
            and out.is_contiguous() and x.data_ptr() == out.data_ptr()
            and x.numel() == out.numel()):
        def in_place_view(*args):
            pass  # the bytes are already where they belong
        return in_place_view
    kernel = t.body.steps[0][0]

    def copy_view(*args):
        out.copy_(kernel(args[src]))

    def bind(args):
        """The copy from a fixed source, through its view made once; None where
        the op makes new bytes rather than a view."""
        source = args[src]
        if not isinstance(source, torch.Tensor):
            return None
        try:
            view = kernel(source)
        except RuntimeError:
            return None
        if (view.shape != out.shape or _overlap(view, out)
                or view.untyped_storage().data_ptr() != source.untyped_storage().data_ptr()):
            return None
        return functools.partial(out.copy_, view)
    copy_view.bind = bind
    bare = bind(t.ins)  # a source bound at load: no Python frame per call
    if bare is not None:
        copy_view.bare = bare
    return copy_view


# Elementwise ops with an `out=` form: the last op of a body writes into the view.
OUT_VARIANTS: dict[type, Callable[..., torch.Tensor]] = {
    **{op: row.out for op, row in ACTIVATIONS.items() if row.out is not None},
    ge.ExpOp: torch.exp,
    ge.LogOp: torch.log,
    ge.SqrtOp: torch.sqrt,
    ge.RsqrtOp: torch.rsqrt,
    ge.NegOp: torch.neg,
    ge.AbsOp: torch.abs,
    ge.ErfOp: torch.erf,
    ge.SinOp: torch.sin,
    ge.CosOp: torch.cos,
    ge.AddOp: torch.add,
    ge.SubOp: torch.sub,
    ge.MulOp: torch.mul,
    ge.DivOp: torch.div,
    ge.MaximumOp: torch.maximum,
    ge.MinimumOp: torch.minimum,
}


def _same_element_types(op) -> bool:
    want = op.results[0].type.element_type
    return all(getattr(v.type, "element_type", None) == want for v in op.operands)


def _aliases_unlike(t: Task, value) -> bool:
    """`value` is a task input whose bytes the plan shares with the output but
    which is read with other shape or strides (a broadcast operand): torch
    refuses an out= write over it, so the generic path (compute, then copy)
    runs it."""
    i = t.arg(value)
    view = t.ins[i] if i is not None else None
    if not isinstance(view, torch.Tensor):
        return False
    return _overlap(view, t.out) and (view.shape != t.out.shape
                                      or view.stride() != t.out.stride())


def _overlap(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Whether the byte ranges of two (non-empty) views intersect."""
    if a.numel() == 0 or b.numel() == 0:
        return False
    a_lo, b_lo = a.data_ptr(), b.data_ptr()
    return (a_lo < b_lo + b.numel() * b.element_size()
            and b_lo < a_lo + a.numel() * a.element_size())


def _tail_task(t: Task) -> Runner | None:
    """Any body whose last op is elementwise with an `out=` form: the ops before
    it run as usual, the last one writes into the view."""
    last, out = t.ops[-1], t.out
    variant = OUT_VARIANTS.get(type(last))
    if (variant is None or t.yielded != [last.results[0]] or not _same_element_types(last)
            or any(_aliases_unlike(t, v) for v in last.operands)):
        return None
    body = BlockProgram(t.block)  # its own copy: the generic path keeps the original
    if not body.steps or body.steps[-1][2] != body.outputs:
        return None
    _, ins, outs = body.steps[-1]
    body.steps[-1] = (lambda *xs: variant(*xs, out=out), ins, outs)

    def tail(*args):
        body.run(args)

    def bind(args):
        """A body of that one op on fixed arguments: its out= call itself."""
        if (len(body.steps) != 1 or any(i >= len(args) for i in ins)
                or not all(isinstance(args[i], torch.Tensor) for i in ins)):
            return None
        return functools.partial(variant, *[args[i] for i in ins], out=out)
    tail.bind = bind
    bare = bind(t.ins)  # operands bound at load: no Python frame per call
    if bare is not None:
        tail.bare = bare
    return tail


def _layer_norm_task(t: Task) -> Runner | None:
    """[elementwise prologue ->] layer_norm over the last dim, fp32 (BERT's
    "Add & Norm", CANN's AddLayerNorm): the op feeding the norm writes into
    the view (`out=`), then oneDNN normalizes the view in place; a norm
    alone reads its input view, and may store bf16 (precision-mode's cast
    after it: oneDNN rounds its fp32 result once). Op by op the add and the
    norm each made a tensor and the result was copied over."""
    ops, out = t.ops, t.out
    stored = ops[-1] if isinstance(ops[0], ge.LayerNormOp) and len(ops) == 2 else None
    ln = ops[0] if stored is not None else ops[-1]
    if (not t.primitives or not dnnl.available() or not isinstance(out, torch.Tensor)
            or (stored is not None and stored.input != ln.output)
            or t.yielded != [(stored or ln).results[0]]
            or out.dtype != (torch.bfloat16 if stored is not None else torch.float32)
            or list(ln.normalized_shape.get_values()) != list(out.shape[-1:])):
        return None
    affine = []
    for value in (ln.weight, ln.bias):
        i = t.arg(value) if value is not None else None
        if value is not None and not t.constant(i):
            return None
        affine.append(t.ins[i] if i is not None else None)
    source = t.arg(ln.input)
    if ops[0] is ln and source is not None and isinstance(t.ins[source], torch.Tensor):
        try:  # the norm alone, of a view bound at load
            norm = dnnl.layer_norm(t.ins[source], *affine, out, ln.epsilon.value.data)
        except dnnl.OneDNNError:
            return None
        return norm.as_runner("layer_norm")
    feed = ln.input.op if isinstance(ln.input, OpResult) else None
    variant = OUT_VARIANTS.get(type(feed))
    if (len(t.ops) < 2 or feed is not t.ops[-2] or variant is None
            or {use.operation for use in feed.results[0].uses} != {ln}
            or not _same_element_types(feed)
            or any(_aliases_unlike(t, v) for v in feed.operands)):
        return None
    try:
        norm = dnnl.layer_norm(out, *affine, out, ln.epsilon.value.data)
    except dnnl.OneDNNError:
        return None
    body = BlockProgram(t.block)  # its own copy: the generic path keeps the original
    _, ins, outs = body.steps[-2]
    body.steps[-2] = (lambda *xs: variant(*xs, out=out), ins, outs)
    body.steps[-1] = (lambda *_: norm(), *body.steps[-1][1:])

    def add_layer_norm(*args):
        body.run(args)
    return add_layer_norm


def _rms_norm_task(t: Task) -> Runner | None:
    """[elementwise prologue ->] rms_norm over the last dim, fp32 (Llama's
    RMSNorm, with its residual add as add_rms_norm). Over views bound at
    load it is one C call (runtime/host/rms_norm.py): the norm of the input,
    or of the sum of a prologue add's two inputs; another prologue's last op
    writes into the view, then the C loop normalizes the view in place.
    Without the C kernel (or an input given per call) x * rsqrt(mean(x * x)
    + eps) * w is computed with out= and in-place torch ops. Op by op the
    norm made a tensor the executor then copied over: 60 against 20 us (torch
    ops) against 3 us (C) a norm at a Llama decode step (hidden 512)."""
    ops, out = t.ops, t.out
    norm = ops[-1]
    if (not isinstance(out, torch.Tensor) or out.dtype != torch.float32
            or t.yielded != [norm.output] or str(norm.input.type.element_type) != "f32"
            or list(norm.normalized_shape.get_values()) != list(out.shape[-1:])):
        return None
    w = t.arg(norm.weight) if norm.weight is not None else None
    if norm.weight is not None and not t.constant(w):
        return None
    weight, eps = (t.ins[w] if w is not None else None), norm.epsilon.value.data

    def normalize(x):
        scale = torch.mean(x * x, -1, keepdim=True).add_(eps).rsqrt_()
        torch.mul(x, scale, out=out)
        if weight is not None:
            out.mul_(weight)
    source = t.arg(norm.input)
    if len(ops) == 1:
        if source is None:
            return None
        x = t.ins[source]
        fast = rms_norm.kernel(x, weight, out, eps) if isinstance(x, torch.Tensor) else None
        if fast is not None:
            return cc.as_runner(fast, "rms_norm")

        def rms_norm_ops(*args):
            normalize(args[source])
        rms_norm_ops.__name__ = "rms_norm"
        return rms_norm_ops
    feed = norm.input.op if isinstance(norm.input, OpResult) else None
    variant = OUT_VARIANTS.get(type(feed))
    if (feed is not ops[-2] or variant is None
            or {use.operation for use in feed.results[0].uses} != {norm}
            or not _same_element_types(feed)
            or any(_aliases_unlike(t, v) for v in feed.operands)):
        return None
    if len(ops) == 2 and isinstance(feed, ge.AddOp):
        a, b = t.arg(feed.lhs), t.arg(feed.rhs)
        if a is not None and b is not None and all(isinstance(t.ins[i], torch.Tensor)
                                                   for i in (a, b)):
            fast = rms_norm.kernel(t.ins[a], weight, out, eps, residual=t.ins[b])
            if fast is not None:
                return cc.as_runner(fast, "add_rms_norm")
    in_place = rms_norm.kernel(out, weight, out, eps)
    body = BlockProgram(t.block)  # its own copy: the generic path keeps the original
    _, ins, outs = body.steps[-2]
    body.steps[-2] = (lambda *xs: variant(*xs, out=out), ins, outs)
    body.steps[-1] = (((lambda *_: in_place()) if in_place is not None
                       else (lambda *_: normalize(out))), *body.steps[-1][1:])

    def add_rms_norm(*args):
        body.run(args)
    return add_rms_norm


def _rms_norm_16bit_task(t: Task) -> Runner | None:
    """op-fusion's rms_norm_16bit, cast(x) to fp32 -> rms_norm -> cast back
    [-> times the bf16 weight] (a bf16 model's RMSNorm), as one C call over
    views bound at load (runtime/host/rms_norm.py), rounding where the body
    rounds. Op by op it was three or four tasks, each a torch op and a copy."""
    ops, out = t.ops, t.out
    if len(ops) not in (3, 4) or not isinstance(out, torch.Tensor):
        return None
    widen, norm, narrow, *scale = ops
    if (not isinstance(norm, ge.RmsNormOp) or norm.weight is not None
            or norm.input != widen.output or not _float_cast(narrow)
            or narrow.input != norm.output or t.yielded != [ops[-1].results[0]]):
        return None
    weight = None
    if scale:
        (mul,) = scale
        w = t.arg(mul.rhs if mul.lhs == narrow.output else mul.lhs) \
            if isinstance(mul, ge.MulOp) and narrow.output in mul.operands else None
        if not t.constant(w):
            return None
        weight = t.ins[w]
    x = t.arg(widen.input)
    if x is None or not isinstance(t.ins[x], torch.Tensor):
        return None
    fast = rms_norm.bf16_kernel(t.ins[x], weight, out, norm.epsilon.value.data)
    return cc.as_runner(fast, "rms_norm") if fast is not None else None


def _last_dim_slice(op, x, start: int, size: int) -> bool:
    """`op` is x[..., start:start + size] (a ge.slice of x along its last dim)."""
    if not isinstance(op, ge.SliceOp) or op.input != x or op.end_value is not None:
        return False
    rank, d = len(ge.shape_of(x)), ge.shape_of(x)[-1]
    begin = op.start.value.data
    begin = begin + d if begin < 0 else begin
    return (op.dim.value.data in (-1, rank - 1) and op.step.value.data == 1
            and begin == start and ge.shape_of(op.output)[-1] == size)


def _broadcasts_to(shape: list[int], target: list[int]) -> bool:
    """A `shape` operand broadcasts to `target` without changing its last dim."""
    return (0 < len(shape) <= len(target) and shape[-1] == target[-1]
            and all(a in (1, b) for a, b in zip(shape[::-1], target[::-1])))


def _rotary_task(t: Task) -> Runner | None:
    """op-fusion's rotary_embedding, x * cos + rotate_half(x) * sin with
    rotate_half(x) = cat(-x[..., h:], x[..., :h]), as three ops into the
    view: one C loop over views bound at load (runtime/host/rotary.py), else
    out = x * cos, then out[..., :h] -= x[..., h:] * sin[..., :h] and
    out[..., h:] += x[..., :h] * sin[..., h:] (addcmul_). Op by op the body
    made six tensors (two slices, a negation, a concat, two products)."""
    ops, out = t.ops, t.out
    add = ops[-1]
    element = {torch.float32: "f32", torch.bfloat16: "bf16"}.get(getattr(out, "dtype", None))
    if (not isinstance(add, ge.AddOp) or t.yielded != [add.output] or len(ops) != 7
            or element is None or any(str(op.results[0].type.element_type) != element
                                      for op in ops)):
        return None
    products = [v.op for v in add.operands if isinstance(v, OpResult)]
    if len(products) != 2 or not all(isinstance(p, ge.MulOp) for p in products):
        return None
    for rotated, plain in (products, products[::-1]):
        cat = next((v.op for v in rotated.operands
                    if isinstance(v, OpResult) and isinstance(v.op, ge.ConcatOp)), None)
        if cat is not None:
            break
    else:
        return None
    sin = rotated.rhs if rotated.lhs == cat.output else rotated.lhs
    if len(cat.inputs) != 2 or not isinstance(cat.inputs[0], OpResult) \
            or not isinstance(cat.inputs[0].op, ge.NegOp):
        return None
    neg, first = cat.inputs[0].op, cat.inputs[1]
    second = neg.input
    x = second.op.input if isinstance(second, OpResult) and isinstance(second.op, ge.SliceOp) \
        else None
    if x is None or x not in plain.operands:
        return None
    cos = plain.rhs if plain.lhs == x else plain.lhs
    shape = list(ge.shape_of(x))
    d = shape[-1] if shape else -1
    h = d // 2
    if (d < 2 or d % 2 or list(ge.shape_of(add.output)) != shape or list(out.shape) != shape
            or cat.dim.value.data not in (-1, len(shape) - 1)
            or not _last_dim_slice(second.op, x, h, h)
            or not isinstance(first, OpResult) or not _last_dim_slice(first.op, x, 0, h)
            or not all(_broadcasts_to(list(ge.shape_of(v)), shape) for v in (cos, sin))):
        return None
    xi, ci, si = t.arg(x), t.arg(cos), t.arg(sin)
    if None in (xi, ci, si) or any(isinstance(t.ins[i], torch.Tensor) and _overlap(t.ins[i], out)
                                   for i in (xi, ci, si)):
        return None
    bound = [t.ins[i] for i in (xi, ci, si)]
    if all(isinstance(v, torch.Tensor) for v in bound):
        fast = rotary_kernel.kernel(*bound, out)
        if fast is not None:
            return cc.as_runner(fast, "rotary")
    if element != "f32":
        return None  # addcmul_ rounds once where the body's bf16 ops round twice
    low, high = out[..., :h], out[..., h:]

    def rotary(*args):
        x, cos, sin = args[xi], args[ci], args[si]
        torch.mul(x, cos, out=out)
        low.addcmul_(x[..., h:], sin[..., :h], value=-1.0)
        high.addcmul_(x[..., :h], sin[..., h:])
    return rotary


def _view_chain_task(t: Task) -> Runner | None:
    """A body of views only (op-fusion's split_heads: slice, reshape,
    transpose): one copy into the view. Where the input is a buffer bound
    at load and the chain only re-addresses it, the chain's result is
    that view, made once now; else the chain runs per call."""
    x = 0 if len(t.ins) == 1 else None
    if x is None or len(t.yielded) != 1 or not isinstance(t.out, torch.Tensor):
        return None
    body = BlockProgram(t.block)
    bound = t.ins[x]
    if isinstance(bound, torch.Tensor):
        try:
            (view,) = body.run([bound])
        except RuntimeError:
            view = None
        if (view is not None and view.shape == t.out.shape
                and view.untyped_storage().data_ptr() == bound.untyped_storage().data_ptr()
                and not _overlap(view, t.out)):
            def copy_views(*args):
                t.out.copy_(view)
            copy_views.bare = functools.partial(t.out.copy_, view)  # no Python frame per call
            return copy_views
    out = t.out

    def views_then_copy(*args):
        out.copy_(body.run(args)[0])
    return views_then_copy


def _embedding_task(t: Task) -> Runner | None:
    """embedding as index_select into the view's rows: op by op the gathered
    rows were a fresh tensor copied over (BERT-base's three lookups: 176
    against 129 us a run, most of it the token table's rows from memory)."""
    (op,), out = t.ops, t.out
    table, ids = t.arg(op.weight), t.arg(op.indices)
    if table is None or ids is None or not out.is_contiguous():
        return None
    rows = out.view(-1, out.shape[-1])

    def embedding(*args):
        kernels.embedding(args[table], args[ids], rows)
    return embedding


# --- dispatch --------------------------------------------------------------------


def _single(builder: Callable[[Task], Runner | None]) -> Callable[[Task], Runner | None]:
    """`builder` for a single-op body; a longer body gets `_tail_task`."""
    return lambda t: builder(t) if len(t.ops) == 1 else _tail_task(t)


# Data-movement ops: out.copy_(view of the input), or nothing if planned in place.
VIEW_OPS = ge.views()

def _cast_first(t: Task) -> Runner | None:
    """A body opening with casts: precision-mode's conversion of a conv's
    or linear's input (the runner converts it into a staging buffer) or of
    a residual, or one cast alone (one converting copy)."""
    second = next((type(op) for op in t.ops if not _float_cast(op)), None)
    if second is ge.Conv2dOp:
        return _conv_task(t)
    if second is ge.LinearOp:
        return _linear_task(t)
    if second is ge.RmsNormOp:
        return _rms_norm_16bit_task(t)
    return _single(_view_task)(t)


# The builder for a body, by its first op; each returns a Runner or None.
RUNNERS: dict[type[Operation], Callable[[Task], Runner | None]] = {
    ge.CastOp: _cast_first,
    ge.Conv2dOp: _conv_task,
    ge.LinearOp: _linear_task,
    ge.WeightQuantLinearOp: int8.task_runner,
    ge.QuantizedConv2dOp: onednn_int8.cube_runner,
    ge.QuantizedLinearOp: onednn_int8.cube_runner,
    ge.QuantizeOp: lambda t: onednn_int8.quantize_runner(t) or _tail_task(t),
    ge.DequantizeOp: onednn_int8.dequantize_runner,
    ge.MaxPool2dOp: _single(_max_pool_task),
    ge.EmbeddingOp: _single(_embedding_task),
    ge.AdaptiveAvgPool2dOp: _single(_global_avg_pool_task),
    **{op: _single(_view_task) for op in VIEW_OPS},
}
# The builders that take buffers in oneDNN's blocked layout (primitives only).
BLOCKED_RUNNERS = (ge.Conv2dOp, ge.MaxPool2dOp, ge.AdaptiveAvgPool2dOp)


def specialize(block: Block, body, ins: list, constants: list[bool], outs: list,
               algorithms: bool = True, primitives: bool = True,
               relu_input: bool = False, workspace: dnnl.Workspace | None = None
               ) -> Runner | None:
    """A runner writing the task's result into `outs[0]`, or None for the generic path.

    `body` is the task's BlockProgram; see `Task` for the rest."""
    runner = None
    if len(outs) == 1 and outs[0] is not None:
        t = Task(block, body, ins, constants, outs[0], algorithms, primitives and algorithms,
                 relu_input, workspace)
        runner = _specialized(t) if t.ops else None
    if runner is None and any(isinstance(v, dnnl.Blocked) for v in (*ins, *outs)):
        # Only a oneDNN primitive reads a blocked buffer, and none was made: the
        # executor then lays the arena out without them (runtime/host/blocked.py).
        op = next(iter(op for op in block.ops if not isinstance(op, ge.YieldOp)), block.last_op)
        raise dnnl.OneDNNError(f"'{op.name}' on blocked buffers: no oneDNN primitive for it")
    return runner


def _specialized(t: Task) -> Runner | None:
    first = type(t.ops[0])
    if any(isinstance(v, dnnl.Blocked) for v in (*t.ins, t.out)) and first not in BLOCKED_RUNNERS:
        return None  # a torch-op runner cannot read it
    if isinstance(t.ops[-1], ge.MatMulOp | ge.TransposeOp | ge.CastOp) and t.algorithms:
        runner = attention.runner(t.block, t.ins, t.constants, t.out, t.primitives,
                                  t.workspace)
        if runner is not None:
            return runner
    if isinstance(t.ops[-1], ge.LayerNormOp) or (
            len(t.ops) == 2 and isinstance(t.ops[0], ge.LayerNormOp) and _float_cast(t.ops[1])):
        return _layer_norm_task(t)
    if isinstance(t.ops[-1], ge.RmsNormOp):
        return _rms_norm_task(t)
    if len(t.ops) > 1 and all(isinstance(op, VIEW_OPS) for op in t.ops):
        return _view_chain_task(t)
    if isinstance(t.ops[-1], ge.MulOp) and len(t.ops) == 4:
        gated = _gated_mlp_task(t) or _gated_mlp_16bit_task(t)
        if gated is not None:
            return gated
    if isinstance(t.ops[-1], ge.AddOp) and len(t.ops) == 7:
        rotary = _rotary_task(t)
        if rotary is not None:
            return rotary
    builder = RUNNERS.get(first)
    if builder is not None:
        return builder(t)
    return _tail_task(t)
