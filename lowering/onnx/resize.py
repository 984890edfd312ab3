"""ONNX Resize: `ge.interpolate` where torch's modes compute it, else separable taps.

Resize is separable: each resized axis maps output position y to a source
coordinate x (the coordinate transformation mode), and the output is a weighted
sum of a few input samples around x (nearest: one; linear: two; cubic: four;
antialias widens the filter when downsampling). With static shapes the sample
indices and weights are known at import, so an axis becomes, in GE ops,

    y = sum_j weight_j * gather(x, index_j, axis)        (nearest: one gather)

with the indices and weights computed here by ONNX's definitions. What torch's
interpolate computes the same way (4-D, nearest asymmetric-floor, linear and
cubic with half_pixel or align_corners) stays one `ge.interpolate`, which the
fusion and cost model know.
"""

from __future__ import annotations

import math

import numpy as np

from ge_dialect import ge
from lowering.onnx.common import OnnxUnsupported, numpy_dtype

COORDINATES = ("half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners",
               "asymmetric", "tf_crop_and_resize")


class _Plan:
    """What one Resize node asks for, with its attributes and constant inputs read."""

    def __init__(self, g, n, x):
        self.mode = g.attr(n, "mode", "nearest")
        self.coords = g.attr(n, "coordinate_transformation_mode", "half_pixel")
        self.nearest_mode = g.attr(n, "nearest_mode", "round_prefer_floor")
        self.cubic_a = float(g.attr(n, "cubic_coeff_a", -0.75))
        self.antialias = bool(g.attr(n, "antialias", 0)) and self.mode != "nearest"
        self.exclude_outside = bool(g.attr(n, "exclude_outside", 0))
        self.extrapolation = float(g.attr(n, "extrapolation_value", 0.0))
        policy = g.attr(n, "keep_aspect_ratio_policy", "stretch")
        self.plain = g.attr(n, "axes") is None and policy == "stretch"
        self.by_sizes = False
        if self.mode not in ("nearest", "linear", "cubic"):
            raise OnnxUnsupported(f"Resize mode {self.mode!r}")
        if self.coords not in COORDINATES:
            raise OnnxUnsupported(f"Resize coordinate mode {self.coords!r}")
        shape = ge.shape_of(x)
        if any(d < 0 for d in shape):
            raise OnnxUnsupported("Resize of a dynamic shape")
        rank = len(shape)
        self.axes = [a % rank for a in g.attr(n, "axes", range(rank))]
        sizes = g.constant(n, 3) if g.has_input(n, 3) else None
        scales = g.constant(n, 2) if g.has_input(n, 2) else None
        self.scale = [1.0] * rank
        self.out = list(shape)
        if sizes is not None and sizes.size:
            wanted = [int(v) for v in sizes.reshape(-1)]
            ratios = [w / shape[a] for w, a in zip(wanted, self.axes)]
            if policy in ("not_larger", "not_smaller"):
                s = min(ratios) if policy == "not_larger" else max(ratios)
                ratios = [s] * len(self.axes)
                wanted = [int(s * shape[a] + 0.5) for a in self.axes]  # round half up
            elif policy != "stretch":
                raise OnnxUnsupported(f"Resize keep_aspect_ratio_policy {policy!r}")
            for a, r, w in zip(self.axes, ratios, wanted):
                self.scale[a], self.out[a] = r, w
            self.by_sizes = True
        elif scales is not None and scales.size:
            for a, s in zip(self.axes, (float(v) for v in scales.reshape(-1))):
                if s <= 0:
                    raise OnnxUnsupported("Resize by a scale <= 0")
                self.scale[a], self.out[a] = s, int(s * shape[a])
        else:
            raise OnnxUnsupported("Resize with scales and sizes computed at run time")
        self.roi = np.array([0.0] * rank + [1.0] * rank, dtype=np.float32)
        if self.coords == "tf_crop_and_resize":
            roi = g.constant(n, 1) if g.has_input(n, 1) else None
            if roi is None:
                raise OnnxUnsupported("tf_crop_and_resize Resize with a run-time roi")
            roi = roi.reshape(-1)  # kept in its own float type, as ONNX computes with it
            self.roi = self.roi.astype(roi.dtype)
            for i, a in enumerate(self.axes):
                self.roi[a], self.roi[rank + a] = roi[i], roi[len(self.axes) + i]
        self.shape = shape

    def resized_axes(self) -> list[int]:
        rank = len(self.shape)
        return [a for a in self.axes if not (
            math.isclose(self.scale[a], 1.0) and self.out[a] == self.shape[a]
            and math.isclose(self.roi[a], 0.0) and math.isclose(self.roi[rank + a], 1.0))]

    def torch_mode(self) -> tuple[str, bool] | None:
        """(ge.interpolate mode, align_corners) if torch's interpolate computes this."""
        if (len(self.shape) != 4 or not self.plain or self.antialias or self.exclude_outside
                or any(a < 2 for a in self.resized_axes())):
            return None
        if self.mode == "nearest":
            ok = self.coords == "asymmetric" and self.nearest_mode == "floor"
            return ("nearest", False) if ok else None
        if self.mode == "cubic" and (self.cubic_a != -0.75 or self.coords == "align_corners"):
            return None
        if self.coords == "pytorch_half_pixel" and 1 in self.out[2:]:
            return None
        if self.coords == "align_corners" and any(
                not float(self.shape[a] * self.scale[a]).is_integer() for a in (2, 3)):
            return None  # ONNX maps corners through the unrounded size, torch the rounded
        if self.coords not in ("half_pixel", "pytorch_half_pixel", "align_corners"):
            return None
        return {"linear": "bilinear", "cubic": "bicubic"}[self.mode], self.coords == (
            "align_corners")


def source_coordinates(plan: _Plan, axis: int) -> tuple[np.ndarray, np.ndarray]:
    """Each output position's coordinate in the input along `axis` (float64),
    and which positions fall outside the crop (tf_crop_and_resize only)."""
    size, out, scale = plan.shape[axis], plan.out[axis], plan.scale[axis]
    length = scale * size  # the unrounded output length
    y = np.arange(out, dtype=np.float64)
    outside = np.zeros(out, dtype=bool)
    coords = plan.coords
    if coords == "align_corners":
        x = np.zeros(out) if length == 1 else y * (size - 1) / (length - 1)
    elif coords == "asymmetric":
        x = y / scale
    elif coords == "pytorch_half_pixel":
        x = np.full(out, -0.5) if length == 1 else (y + 0.5) / scale - 0.5
    elif coords == "half_pixel":
        x = (y + 0.5) / scale - 0.5
    elif coords == "half_pixel_symmetric":
        offset = size / 2 * (1 - out / length)
        x = offset + (y + 0.5) / scale - 0.5
    else:  # tf_crop_and_resize
        start, end = plan.roi[axis], plan.roi[len(plan.shape) + axis]
        if length == 1:
            x = np.full(out, (end - start) * (size - 1) / 2, dtype=np.float64)
        else:
            x = y * (end - start) * (size - 1) / (length - 1)
        x = x + start * (size - 1)
        outside = (x < 0) | (x > size - 1)
    return x, outside


def _keys(d: np.ndarray, a: float) -> np.ndarray:
    """The cubic convolution kernel (Keys, coefficient a) at distances d."""
    d = np.abs(d)
    near = ((a + 2) * d - (a + 3)) * d * d + 1
    far = ((a * d - 5 * a) * d + 8 * a) * d - 4 * a
    return np.where(d <= 1, near, np.where(d < 2, far, 0.0))


def taps(plan: _Plan, axis: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(indices, weights) of shape (taps, out) and the outside-the-crop mask.

    The window starts left of x: base = ceil(x) - 1, so an integer x takes the
    sample on its right (ratio 1), as ONNX defines it. Samples past the edges
    repeat the edge (or, with exclude_outside, get weight 0 and the rest are
    renormalized)."""
    x, outside = source_coordinates(plan, axis)
    base = np.ceil(x) - 1
    ratio = x - base  # in (0, 1]
    scale = min(plan.scale[axis], 1.0) if plan.antialias else 1.0
    if plan.mode == "nearest":
        offsets = np.array([0, 1])
        right = {"round_prefer_floor": ratio > 0.5, "round_prefer_ceil": ratio >= 0.5,
                 "floor": ratio >= 1, "ceil": np.ones_like(ratio, dtype=bool)}.get(
            plan.nearest_mode)
        if right is None:
            raise OnnxUnsupported(f"Resize nearest_mode {plan.nearest_mode!r}")
        right = right | (ratio >= 1)
        weights = np.stack([~right, right]).astype(np.float64)
    else:
        reach = 1 if plan.mode == "linear" else 2
        first = int(np.floor(-reach / scale) + 1)
        offsets = np.arange(first, 2 - first)
        distance = (offsets[:, None] - ratio[None, :]) * scale
        if plan.mode == "linear":
            weights = np.clip(1 - np.abs(distance), 0, 1)
        else:
            weights = _keys(distance, plan.cubic_a)
        if plan.antialias:
            weights = weights / weights.sum(axis=0, keepdims=True)
    index = base[None, :].astype(np.int64) + offsets[:, None]
    size = plan.shape[axis]
    if plan.exclude_outside:
        weights = np.where((index < 0) | (index >= size), 0.0, weights)
        total = weights.sum(axis=0, keepdims=True)
        weights = weights / np.where(total == 0, 1.0, total)
    return np.clip(index, 0, size - 1), weights, outside


def _along(g, values: np.ndarray, axis: int, rank: int, dtype) -> object:
    """A constant that broadcasts `values` (one per position) along `axis`."""
    shape = [1] * rank
    shape[axis] = values.size
    return g.const(values.astype(dtype).reshape(shape))


def separable(g, plan: _Plan, x):
    """Resize one axis at a time with gathered taps (see the module docstring)."""
    element = ge.element_type(x.type)
    is_float = not ge.is_integer(element) and str(element) != "i1"
    if plan.mode != "nearest" and not is_float:
        raise OnnxUnsupported(f"{plan.mode} Resize of integers")
    work = x
    if str(element) == "f16" and plan.mode != "nearest":
        work = g.emit(ge.CastOp(x, ge.f32))  # sums of taps in fp32, then back
    dtype = numpy_dtype(ge.element_type(work.type))
    rank = len(plan.shape)
    for axis in plan.resized_axes():
        index, weights, outside = taps(plan, axis)
        if plan.mode == "nearest":
            pick = weights.argmax(axis=0)
            chosen = index[pick, np.arange(index.shape[1])]
            work = g.emit(ge.IndexOp(work, [g.const(chosen)], [axis]))
            dropped = weights.sum(axis=0) == 0  # exclude_outside took the only sample
            if dropped.any():
                work = g.emit(ge.WhereOp(_along(g, dropped, axis, rank, np.bool_),
                                         g.scalar(0, work), work))
        else:
            total = None
            for i, w in zip(index, weights):
                if not w.any():
                    continue
                term = g.emit(ge.MulOp(g.emit(ge.IndexOp(work, [g.const(i)], [axis])),
                                       _along(g, w, axis, rank, dtype)))
                total = term if total is None else g.emit(ge.AddOp(total, term))
            work = total if total is not None else g.emit(ge.MulOp(
                g.emit(ge.IndexOp(work, [g.const(index[0])], [axis])),
                g.scalar(0, work)))
        if outside.any():
            fill = g.const(np.array(plan.extrapolation,
                                    dtype=numpy_dtype(ge.element_type(work.type))))
            work = g.emit(ge.WhereOp(_along(g, outside, axis, rank, np.bool_), fill, work))
    if work.type != x.type and ge.element_type(work.type) != element:
        work = g.emit(ge.CastOp(work, element))
    return work


def resize(g, n) -> list:
    """Resize (opset 13+; Upsample arrives upgraded to it)."""
    x = g.input(n, 0)
    plan = _Plan(g, n, x)
    if not plan.resized_axes():
        return [x]
    torch_mode = plan.torch_mode()
    if torch_mode is None:
        return [separable(g, plan, x)]
    mode, corners = torch_mode
    return [g.emit(ge.InterpolateOp(x, mode, plan.out[2:], None, corners) if plan.by_sizes
                   else ge.InterpolateOp(x, mode, None, plan.scale[2:], corners))]
