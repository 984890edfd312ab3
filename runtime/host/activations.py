"""The activations the host fast path fuses, taken from the GE ops' declarations.

Each activation op declares its forms as an `Activation` trait
(ge_dialect/traits.py); this module turns them into callables. A task
runner that ends in an activation runs it in one of four ways:
- as a post-op of torch's mkldnn conv / linear ops, named as torch names it
  (`attr`, `scalars`, `algorithm`): `PostOp.torch_post_op`;
- as a post-op of a oneDNN primitive created through the C API, named as
  oneDNN names it (`kind`, `alpha`, `beta`): `PostOp.dnnl_post_op`;
- in place on a result already in its view (after a conv accumulated into
  it, or after a linear's addmm): `in_place`;
- as the last op of an elementwise body, writing into the view: `out`.

An instance with no post-op form (a clamp that is neither ReLU nor a
two-sided clip) has `post_op` None.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
from xdsl.ir import Operation

from ge_dialect import ge
from ge_dialect.traits import Activation as ActivationTrait
from ge_dialect.traits import PostOp


@dataclass(frozen=True)
class Activation:
    """An activation op's declared forms as callables."""

    trait: ActivationTrait

    def in_place(self, op: Operation) -> Callable[[torch.Tensor], object]:
        fn = getattr(torch.ops.aten, self.trait.in_place).default
        kwargs = self.trait.call_kwargs(op)
        return lambda y: fn(y, **kwargs)

    @property
    def out(self) -> Callable[..., torch.Tensor] | None:
        """fn(x, out=view), for ops whose forms do not depend on the instance."""
        if self.trait.out is None:
            return None
        fn, kwargs = getattr(torch.ops.aten, self.trait.out).out, dict(self.trait.kwargs)
        return lambda x, out: fn(x, **kwargs, out=out)

    def post_op(self, op: Operation) -> PostOp | None:
        return self.trait.post_op(op)

    @property
    def after_linear(self) -> bool:
        return self.trait.after_linear


ACTIVATIONS: dict[type[Operation], Activation] = {
    op: Activation(op.get_trait(ActivationTrait)) for op in ge.ops_with(ActivationTrait)}
RELU = ACTIVATIONS[ge.ReluOp].trait.post_op(None)


def post_op(op: Operation) -> PostOp | None:
    """`op` as a post-op, if it is an activation with one."""
    row = ACTIVATIONS.get(type(op))
    return row.post_op(op) if row is not None else None


def in_place(op: Operation) -> Callable[[torch.Tensor], object]:
    return ACTIVATIONS[type(op)].in_place(op)
