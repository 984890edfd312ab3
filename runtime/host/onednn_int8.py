"""int8 cube tasks on the host: `ge.quantized_conv2d` and `ge.quantized_linear`
as oneDNN's int8 convolution and inner product, `ge.quantize` as its reorder.

What oneDNN computes (3.x's quantization model, checked against the
reference below to the bit on this CPU) is the op's definition
(ge_dialect/quant.py QuantizedCubeOp):

    dst = post_ops(src_scale * wei_scale[oc] * sum(src * wei) + bias[oc]) / dst_scale

with s8 (or u8) source, s8 weights reordered once at load into the layout
the kernel wants, the scales as runtime arguments (`set_scales_mask`: one
for the source and destination, one per output channel for the weights),
the residual as a binary-add post-op (an fp32 one as it is, an i8 one
between two linear post-ops that apply its scale, or a sum post-op where
it is the destination's bytes) and the activation as an eltwise post-op
(its Activation trait's, runtime/host/activations.py); an s8 (or u8)
destination is the requantization, saturated and rounded to nearest even, as ONNX's
QuantizeLinear rounds. On AMX the
kernels are `brgconv:avx512_core_amx`; with VNNI, `brgconv:avx512_core_vnni`.
A stride-1 depthwise conv on u8 that runtime/host/depthwise_int8.py's
loop takes (faster there than oneDNN 3.2's int8 kernel) runs on it instead.

The reference (`reference_kernel`, which the kernel table and the generic
path run) is the QDQ graph's own arithmetic: dequantize, the float op,
the residual and ReLU, quantize. A task oneDNN declines (no library, a
layout it has only its reference loop for, a graph input) takes it, and
says so once in a log line.
"""

from __future__ import annotations

import ctypes
import logging
from collections.abc import Callable

import torch
import torch.nn.functional as F

from ge_dialect import ge
from runtime.host import cc, depthwise_int8, int8, quantize_nhwc, quantize_rows
from runtime.host.activations import ACTIVATIONS, RELU
from runtime.host import onednn as dnnl

log = logging.getLogger(__name__)

ATTR_SCALES = 4096  # DNNL_ARG_ATTR_SCALES: a scale argument is ATTR_SCALES | the arg it scales
ATTR_ZERO_POINTS = 8192  # DNNL_ARG_ATTR_ZERO_POINTS, likewise
WEIGHT_MASKS = {False: 1, True: 3}  # per output channel: dim 0, or dims 0-1 of grouped weights


# --- the reference: dequantize, float op, requantize --------------------------


def _epilogue(op) -> Callable:
    """y, residual -> the op's residual add, activation and requantization of y."""
    act = ge.activation_of(op)
    activate = ACTIVATIONS[type(act)].in_place(act) if act is not None else None
    sr = None if op.residual_scale is None else torch.tensor(op.residual_scale.value.data)
    sy = None if op.output_scale is None else torch.tensor(op.output_scale.value.data)
    out_type = torch.uint8 if str(op.output.type.element_type) == "ui8" else torch.int8
    zy = _zero_point(op.zero_points()[1])

    def finish(y: torch.Tensor, residual: torch.Tensor | None) -> torch.Tensor:
        if residual is not None and sr is not None:
            residual = int8.dequantize(residual, sr, None, 0)
        if residual is not None:
            y = y + residual
        if op.relu is not None:
            y = torch.relu(y)
        if activate is not None:
            activate(y)  # y is this call's own tensor
        return y if sy is None else int8.quantize(y, sy, zy, 0, out_type)
    return finish


def _zero_point(value: int) -> torch.Tensor | None:
    return torch.tensor(value) if value else None


def _split(op, rest: tuple) -> tuple[torch.Tensor | None, torch.Tensor | None]:
    """(bias, residual) from the operands after weight_scale (each optional)."""
    rest = list(rest)
    bias = rest.pop(0) if op.bias is not None else None
    residual = rest.pop(0) if op.residual is not None else None
    return bias, residual


def reference_kernel(op: ge.QuantizedConv2dOp | ge.QuantizedLinearOp) -> Callable:
    """The host kernel of the op (runtime/kernels.py's table): what the QDQ
    graph it was folded from computes, op for op."""
    sx = torch.tensor(op.input_scale.value.data)
    zx = _zero_point(op.zero_points()[0])
    finish = _epilogue(op)
    if isinstance(op, ge.QuantizedConv2dOp):
        params = (tuple(op.stride.get_values()), tuple(op.padding.get_values()),
                  tuple(op.dilation.get_values()), op.groups.value.data)

        def quantized_conv2d(x, w, ws, *rest):
            bias, residual = _split(op, rest)
            y = F.conv2d(int8.dequantize(x, sx, zx, 1), int8.dequantize(w, ws, None, 0),
                         bias, *params)
            return finish(y, residual)
        return quantized_conv2d

    def quantized_linear(x, w, ws, *rest):
        bias, residual = _split(op, rest)
        y = F.linear(int8.dequantize(x, sx, zx, 1), int8.dequantize(w, ws, None, 0), bias)
        return finish(y, residual)
    return quantized_linear


# --- oneDNN primitives ----------------------------------------------------------


def _scaled_attr(handles, post_ops, scaled: dict[int, int]):
    """The attributes with `post_ops` and a runtime scale per {arg: mask}."""
    attr, reads = dnnl._attributes(handles, post_ops)
    for arg, mask in scaled.items():
        dnnl._check(dnnl.library().dnnl_primitive_attr_set_scales_mask(attr, arg, mask),
                    "dnnl_primitive_attr_set_scales_mask")
    return attr, reads


def _scale_args(handles, scales: dict[int, torch.Tensor], args: dict, keep: list) -> None:
    for arg, s in scales.items():
        s = s.float().contiguous().reshape(-1)
        keep.append(s)
        args[ATTR_SCALES | arg] = (handles.md(s.shape, s.stride()), s.data_ptr())


def _zero_point_args(handles, attr, zero_points: dict[int, int], args: dict, keep: list
                     ) -> None:
    """A runtime zero point (one s32) for each {arg: value} that is not 0."""
    for arg, value in zero_points.items():
        if not value:
            continue
        dnnl._check(dnnl.library().dnnl_primitive_attr_set_zero_points_mask(attr, arg, 0),
                    "dnnl_primitive_attr_set_zero_points_mask")
        z = torch.tensor([value], dtype=torch.int32)
        keep.append(z)
        args[ATTR_ZERO_POINTS | arg] = (handles.md(z.shape, z.stride(), dtype=torch.int32),
                                        z.data_ptr())


def _inner_product_shifts(weight: torch.Tensor, weight_scale: torch.Tensor,
                          bias: torch.Tensor | None, input_scale: float,
                          output_scale: float | None, zero_points: tuple[int, int],
                          post_ops: list) -> tuple[torch.Tensor | None, list]:
    """oneDNN 3.2's int8 inner product takes no zero points. With no padding
    to mind, the input's moves into the bias (sum((x - z) * w) = sum(x * w) -
    z * sum(w)), and the output's, z * output_scale, is added last, before
    the division by output_scale; in float, so a value within about 1e-5 of
    a rounding tie may take the other step."""
    zx, zy = zero_points
    if zx:
        shift = (input_scale * weight_scale.double() * zx
                 * weight.reshape(weight.shape[0], -1).double().sum(1))
        bias = ((bias.double() if bias is not None else 0.0) - shift).float()
    if zy:
        post_ops = post_ops + [("eltwise", "linear", 1.0, zy * output_scale)]
    return bias, post_ops


def _residual_post_ops(residual: torch.Tensor, scale: float | None,
                       out: torch.Tensor) -> list[tuple]:
    """Add `residual` to the fp32 result: where it is the destination's own
    bytes (memory-reuse wrote the op in place), a sum post-op that reads
    them (times `scale`, for an i8 one); otherwise a binary add, an i8
    residual (times `scale`) between two linear post-ops, y = (y / scale +
    r) * scale, as oneDNN's binary post-op reads its source unscaled."""
    if (residual.data_ptr() == out.data_ptr() and residual.dtype == out.dtype
            and residual.stride() == out.stride()):
        return [("sum", 1.0 if scale is None else scale)]
    if scale is None:
        return [("add", residual)]
    return [("eltwise", "linear", 1.0 / scale, 0.0), ("add", residual),
            ("eltwise", "linear", scale, 0.0)]


def cube_primitive(x: torch.Tensor, weight: torch.Tensor, weight_scale: torch.Tensor,
                   bias: torch.Tensor | None, residual: torch.Tensor | None,
                   out: torch.Tensor, input_scale: float, output_scale: float | None,
                   relu: bool, conv: tuple | None, residual_scale: float | None = None,
                   activation: tuple | None = None,
                   zero_points: tuple[int, int] = (0, 0)) -> dnnl.Primitive:
    """The int8 conv (`conv` = stride, padding, dilation, groups) or inner
    product (`conv` None: x [rows, in], weight [out, in]) between bound views,
    with the source's and the destination's `zero_points` (0: none)."""
    lib = dnnl.library()
    if lib is None:
        raise dnnl.OneDNNError("no oneDNN library")
    groups = conv[3] if conv is not None else 1
    grouped = weight if groups == 1 else weight.reshape(groups, -1, *weight.shape[1:])
    post_ops = (_residual_post_ops(residual, residual_scale, out) if residual is not None else []
                ) + ([RELU.dnnl_post_op()] if relu else []) + ([activation] if activation else [])
    if conv is None and zero_points != (0, 0):
        bias, post_ops = _inner_product_shifts(weight, weight_scale, bias, input_scale,
                                               output_scale, zero_points, post_ops)
        zero_points = (0, 0)
    handles = dnnl._Handles()
    try:
        src, dst = handles.of(x), handles.of(out)
        wany = handles.md(grouped.shape, None, dtype=torch.int8)
        b = None if bias is None else bias.float().contiguous()
        bmd = None if b is None else handles.md(b.shape, b.stride())
        scales = {dnnl.ARG_SRC: torch.tensor([input_scale]), dnnl.ARG_WEIGHTS: weight_scale}
        if output_scale is not None:
            scales[dnnl.ARG_DST] = torch.tensor([output_scale])
        masks = {arg: 0 for arg in scales} | {dnnl.ARG_WEIGHTS: WEIGHT_MASKS[groups > 1]}
        attr, reads = _scaled_attr(handles, post_ops, masks)
        keep = [x, out]
        shifts = {}
        _zero_point_args(handles, attr, dict(zip((dnnl.ARG_SRC, dnnl.ARG_DST), zero_points)),
                         shifts, keep)
        pd = handles.own("primitive_desc", ctypes.c_void_p())
        engine = dnnl._engine_and_stream()[0]
        if conv is None:
            dnnl._check(lib.dnnl_inner_product_forward_primitive_desc_create(
                ctypes.byref(pd), engine, dnnl.FORWARD_INFERENCE, src, wany, bmd, dst, attr),
                "dnnl_inner_product_forward_primitive_desc_create")
        else:
            stride, padding, dilation, _ = conv
            dnnl._check(lib.dnnl_convolution_forward_primitive_desc_create(
                ctypes.byref(pd), engine, dnnl.FORWARD_INFERENCE, dnnl.CONVOLUTION_DIRECT, src,
                wany, bmd, dst, dnnl._Dims(*stride), dnnl._Dims(*(d - 1 for d in dilation)),
                dnnl._Dims(*padding), dnnl._Dims(*padding), attr),
                "dnnl_convolution_forward_primitive_desc_create")
        wmd = dnnl._query_md(pd, dnnl.QUERY_WEIGHTS_MD)
        packed = dnnl._reordered(handles, grouped, wmd)
        keep.append(packed)
        args = {dnnl.ARG_SRC: (src, x.data_ptr()), dnnl.ARG_WEIGHTS: (wmd, packed.data_ptr()),
                dnnl.ARG_DST: (dst, out.data_ptr()), **shifts}
        if b is not None:
            keep.append(b)
            args[dnnl.ARG_BIAS] = (bmd, b.data_ptr())
        for arg, (md, view) in reads.items():
            keep.append(view)
            args[arg] = (md, view.data_ptr())
        _scale_args(handles, scales, args, keep)
        dnnl._with_scratchpad(handles, pd, args, keep)
        return dnnl.Primitive(handles, pd, args, [], keep)
    except BaseException:
        handles.destroy()
        raise


def quantize_primitive(x: torch.Tensor | list[int], out: torch.Tensor,
                       scale: float) -> dnnl.Primitive:
    """out = saturate(round_half_even(x / scale)) as a reorder into the view
    `out`, from the view `x` or, given its shape, from a contiguous fp32
    tensor passed with each call (a graph input)."""
    lib = dnnl.library()
    if lib is None:
        raise dnnl.OneDNNError("no oneDNN library")
    handles = dnnl._Handles()
    try:
        src, dst = dnnl._dense(handles, x), handles.of(out)
        attr, _ = _scaled_attr(handles, (), {dnnl.ARG_DST: 0})
        pd = handles.own("primitive_desc", ctypes.c_void_p())
        engine = dnnl._engine_and_stream()[0]
        dnnl._check(lib.dnnl_reorder_primitive_desc_create(ctypes.byref(pd), src, engine, dst,
                                                           engine, attr),
                    "dnnl_reorder_primitive_desc_create")
        bound = isinstance(x, torch.Tensor)
        keep = [x, out] if bound else [out]
        args = {dnnl.ARG_SRC: (src, x.data_ptr() if bound else 0),
                dnnl.ARG_DST: (dst, out.data_ptr())}
        _scale_args(handles, {dnnl.ARG_DST: torch.tensor([scale])}, args, keep)
        dnnl._with_scratchpad(handles, pd, args, keep)
        return dnnl.Primitive(handles, pd, args, [] if bound else [dnnl.ARG_SRC], keep)
    except BaseException:
        handles.destroy()
        raise


# --- task runners (runtime/host/runners.py's RUNNERS) ----------------------------

_said: set[str] = set()


def _fallback(op, why: str) -> None:
    """Say once per op kind and reason that a task runs the torch reference."""
    key = f"{op.name}: {why}"
    if key not in _said:
        _said.add(key)
        log.info("%s runs the torch reference (dequantize, float op, requantize): %s",
                 op.name, why)


def cube_runner(t):
    """A runner for a task whose body is one quantized conv2d / linear with
    constant weights, its input and output bound views (`t` is
    runtime/host/runners.py's Task); None (the generic path runs the
    reference) when oneDNN cannot build it."""
    ops = t.ops
    if len(ops) != 1 or t.yielded != [ops[0].output]:
        return None
    op = ops[0]
    if not t.primitives:
        return None
    idx = {name: t.arg(getattr(op, name)) for name in ("input", "weight", "weight_scale")}
    idx.update({name: t.arg(getattr(op, name)) for name in ("bias", "residual")
                if getattr(op, name) is not None})
    consts = ("weight", "weight_scale", "bias")
    if any(not t.constant(idx[n]) for n in consts if n in idx):
        _fallback(op, "its weight, scales or bias are not constants")
        return None
    x, out = t.ins[idx["input"]], t.out
    residual = t.ins[idx["residual"]] if "residual" in idx else None
    if not isinstance(x, torch.Tensor) or not isinstance(out, torch.Tensor) or (
            "residual" in idx and not isinstance(residual, torch.Tensor)):
        _fallback(op, "its input, residual or output arrives per call")
        return None
    weight = t.ins[idx["weight"]].contiguous()
    bias = t.ins[idx["bias"]] if "bias" in idx else None
    conv = None
    if isinstance(op, ge.QuantizedConv2dOp):
        conv = (tuple(op.stride.get_values()), tuple(op.padding.get_values()),
                tuple(op.dilation.get_values()), op.groups.value.data)
    else:
        k = x.shape[-1]
        if not (x.is_contiguous() and out.is_contiguous()
                and (residual is None or residual.is_contiguous())):
            _fallback(op, "a linear's input, residual or output view is not contiguous")
            return None
        x, out = x.reshape(-1, k), out.reshape(-1, out.shape[-1])
        residual = residual.reshape(out.shape) if residual is not None else None
    output_scale = op.output_scale.value.data if op.output_scale is not None else None
    residual_scale = op.residual_scale.value.data if op.residual_scale is not None else None
    act = ge.activation_of(op)
    post_op = ACTIVATIONS[type(act)].post_op(act) if act is not None else None
    zero_points = op.zero_points()
    if conv is not None and output_scale is not None and residual is None and zero_points == (0, 0):
        run = depthwise_int8.depthwise_runner(
            x, weight, t.ins[idx["weight_scale"]], bias, out, conv, op.input_scale.value.data,
            output_scale, op.relu is not None, post_op)
        if run is not None:
            return run
    try:
        primitive = cube_primitive(x, weight, t.ins[idx["weight_scale"]], bias, residual, out,
                                   op.input_scale.value.data, output_scale, op.relu is not None,
                                   conv, residual_scale,
                                   post_op.dnnl_post_op() if post_op else None, zero_points)
    except dnnl.OneDNNError as e:
        _fallback(op, str(e))
        return None
    runner = primitive.as_runner(f"onednn_int8_{op.name.removeprefix('ge.')}")
    runner.impl = primitive.impl
    if (op.relu is not None or post_op is not None and post_op.clamps_at_zero()) and (
            output_scale is None):
        runner.writes_relu = True  # none below 0, no NaN: a oneDNN max-pool may read it
    return runner


def quantize_runner(t):
    """A runner for a task whose body is one `ge.quantize` of fp32 (or bf16) to
    i8 or ui8 with one constant scale, into a bound view:
    runtime/host/quantize_rows.py's loop from a bound view of rows like
    the output's (with a constant zero point too); else, without a zero
    point, a reorder, from a bound view or from an fp32 graph
    input (a contiguous one; any other is quantized by the reference); an
    NCHW image into an NHWC view takes runtime/host/quantize_nhwc.py's
    loop instead."""
    ops = t.ops
    if len(ops) != 1 or not t.primitives:
        return None
    op = ops[0]
    x, params = t.arg(op.input), _per_tensor(t, op)
    if (str(op.output.type.element_type) not in ("i8", "ui8")
            or str(op.input.type.element_type) not in ("f32", "bf16") or params is None
            or x is None or not isinstance(t.out, torch.Tensor)):
        return None
    source = t.ins[x]
    scale, zero_point = params
    loop = quantize_rows.kernel(source, t.out, scale, zero_point) if source is not None else None
    if loop is not None:
        return cc.as_runner(loop, "int8_quantize_rows")
    if source is None and (not op.input.type.has_static_shape()
                           or str(op.input.type.element_type) != "f32"):
        return None
    if source is None:
        image = _image_runner(x, list(op.input.type.get_shape()), t.out, scale, zero_point)
        if image is not None:
            return image
    if zero_point:
        return None  # the reference: oneDNN's reorder here takes no zero point
    try:
        primitive = quantize_primitive(
            source if source is not None else list(op.input.type.get_shape()), t.out, scale)
    except dnnl.OneDNNError as e:
        _fallback(op, str(e))
        return None
    if source is not None:
        return primitive.as_runner("onednn_int8_quantize")
    out, s_tensor = t.out, torch.tensor(scale)

    def onednn_int8_quantize_input(*args):
        v = args[x]
        if v.is_contiguous():
            primitive(v)
        else:
            out.copy_(int8.quantize(v, s_tensor, None, 0, out.dtype))
    return onednn_int8_quantize_input


def dequantize_runner(t):
    """A runner for a task whose body is one `ge.dequantize` of int8 or uint8 to
    fp32 with one constant scale and at most one constant zero point,
    between bound views: runtime/host/quantize_rows.py's loop; None (the
    reference) for anything else."""
    ops = t.ops
    if len(ops) != 1 or not isinstance(ops[0], ge.DequantizeOp) or not t.primitives:
        return None
    op = ops[0]
    x, params = t.arg(op.input), _per_tensor(t, op)
    if (x is None or params is None or not isinstance(t.ins[x], torch.Tensor)
            or not isinstance(t.out, torch.Tensor)):
        return None
    loop = quantize_rows.dequantize_kernel(t.ins[x], t.out, *params)
    return cc.as_runner(loop, "int8_dequantize_rows") if loop is not None else None


def _per_tensor(t, op) -> tuple[float, int] | None:
    """(scale, zero point) of a quantize or dequantize task whose scale, and
    zero point if it has one, are constants of one element."""
    s = t.arg(op.scale)
    z = t.arg(op.zero_point) if op.zero_point is not None else None
    if (s is None or not t.constant(s) or t.ins[s].numel() != 1
            or (z is not None and (not t.constant(z) or t.ins[z].numel() != 1))):
        return None
    return float(t.ins[s].reshape(())), int(t.ins[z].reshape(())) if z is not None else 0


def _image_runner(x: int, shape: list[int], out: torch.Tensor, scale: float,
                  zero_point: int = 0):
    """The quantize of an fp32 NCHW graph input (argument `x`) of at most four
    channels into an NHWC view, by runtime/host/quantize_nhwc.py's loop (a
    third of oneDNN's reorder's time on an image); None where it does not apply.
    An input of another layout is quantized by the reference."""
    loop = quantize_nhwc.runner(shape, out, scale, zero_point)
    if loop is None:
        return None
    expected, s_tensor = torch.Size(shape), torch.tensor(scale)
    z_tensor = torch.tensor(zero_point) if zero_point else None

    def int8_quantize_image(*args):
        v = args[x]
        if v.dtype == torch.float32 and v.shape == expected and v.is_contiguous():
            loop(v)
        else:
            out.copy_(int8.quantize(v, s_tensor, z_tensor, 0, out.dtype))
    return int8_quantize_image
