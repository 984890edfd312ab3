"""The one table of activations the host fast path knows, and their forms.

A task runner that ends in an activation runs it in one of four ways:
- as a post-op of torch's mkldnn conv / linear ops, named as torch names it
  (`attr`, `scalars`, `algorithm`): `torch_post_op`;
- as a post-op of a oneDNN primitive created through the C API, named as
  oneDNN names it (`kind`, `alpha`, `beta`): `dnnl_post_op`;
- in place on a result already in its view (after a conv accumulated into
  it, or after a linear's addmm): `in_place`;
- as the last op of an elementwise body, writing into the view: `out`.

One row per GE op. A row's `post_op` is None for an instance with no
post-op form (a clamp that is neither ReLU nor a two-sided clip).
oneDNN's hardswish and hardsigmoid are s * clip(alpha * s + beta, 0, 1) and
clip(alpha * s + beta, 0, 1), its swish s * sigmoid(alpha * s).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from xdsl.ir import Operation

from ge_dialect import ge


@dataclass(frozen=True)
class PostOp:
    """An activation as a conv / linear epilogue, in torch's and oneDNN's terms."""

    attr: str                  # torch's mkldnn post-op name
    scalars: tuple[float, ...]
    algorithm: str
    kind: str                  # oneDNN's eltwise kind (onednn.ELTWISE)
    alpha: float = 0.0
    beta: float = 0.0

    def torch_post_op(self) -> tuple[str, list, str]:
        return self.attr, list(self.scalars), self.algorithm

    def dnnl_post_op(self) -> tuple:
        return ("eltwise", self.kind, self.alpha, self.beta)

    def clamps_at_zero(self) -> bool:
        """Never below 0 (nor NaN: oneDNN's ReLU and clip map NaN to 0)."""
        return self.attr == "relu" or self.attr == "hardtanh" and self.scalars[0] >= 0.0


@dataclass(frozen=True)
class Activation:
    in_place: Callable[[Operation], Callable[[torch.Tensor], object]]
    post_op: Callable[[Operation], PostOp | None]
    out: Callable[..., torch.Tensor] | None = None  # fn(x, out=view)
    after_linear: bool = False  # a linear task may end with it


def _clamp_bounds(op: ge.ClampOp) -> tuple[float | None, float | None]:
    return tuple(None if a is None else a.value.data for a in (op.min, op.max))


def _clamp_post_op(op: ge.ClampOp) -> PostOp | None:
    low, high = _clamp_bounds(op)
    if low is not None and high is not None:  # ReLU6 and friends
        return PostOp("hardtanh", (low, high), "", "clip", low, high)
    return RELU if low == 0.0 and high is None else None


def _clamp_in_place(op: ge.ClampOp):
    low, high = _clamp_bounds(op)
    return lambda y: y.clamp_(low, high)


def _gelu_post_op(op: ge.GeluOp) -> PostOp:
    approximate = op.approximate.data
    return PostOp("gelu", (), approximate, "gelu_tanh" if approximate == "tanh" else "gelu_erf")


def _gelu_in_place(op: ge.GeluOp):
    approximate = op.approximate.data
    return lambda y: torch.ops.aten.gelu_(y, approximate=approximate)


def _fixed(post_op: PostOp) -> Callable[[Operation], PostOp]:
    return lambda op: post_op


RELU = PostOp("relu", (), "", "relu")

ACTIVATIONS: dict[type[Operation], Activation] = {
    ge.ReluOp: Activation(lambda op: lambda y: y.clamp_min_(0), _fixed(RELU),
                          out=lambda x, out: torch.clamp_min(x, 0, out=out), after_linear=True),
    ge.ClampOp: Activation(_clamp_in_place, _clamp_post_op),
    ge.SigmoidOp: Activation(lambda op: torch.Tensor.sigmoid_,
                             _fixed(PostOp("sigmoid", (), "", "logistic")), out=torch.sigmoid),
    ge.TanhOp: Activation(lambda op: torch.Tensor.tanh_, _fixed(PostOp("tanh", (), "", "tanh")),
                          out=torch.tanh),
    ge.HardswishOp: Activation(lambda op: lambda y: F.hardswish(y, inplace=True),
                               _fixed(PostOp("hardswish", (), "", "hardswish", 1 / 6, 0.5))),
    ge.HardsigmoidOp: Activation(lambda op: lambda y: F.hardsigmoid(y, inplace=True),
                                 _fixed(PostOp("hardsigmoid", (), "", "hardsigmoid", 1 / 6, 0.5))),
    ge.SiluOp: Activation(lambda op: lambda y: F.silu(y, inplace=True),
                          _fixed(PostOp("swish", (), "", "swish", 1.0))),
    ge.GeluOp: Activation(_gelu_in_place, _gelu_post_op, after_linear=True),
}


def post_op(op: Operation) -> PostOp | None:
    """`op` as a post-op, if it is an activation with one."""
    row = ACTIVATIONS.get(type(op))
    return row.post_op(op) if row is not None else None


def in_place(op: Operation) -> Callable[[torch.Tensor], object]:
    return ACTIVATIONS[type(op)].in_place(op)
