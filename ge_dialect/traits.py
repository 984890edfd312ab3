"""What the compiler knows about a GE op, declared on the op as xDSL traits.

Like MLIR's `Elementwise`, `ViewLikeOpInterface` and `Pure`, each fact is a
trait in the op's `traits_def(...)`; passes and the runtime read it back with
`op.get_trait(...)` or take a table derived from the dialect (`ge.ops_with`).
A table kept by hand beside the ops would drift from them; these cannot.

- `Elementwise(arity)`: result element i reads element i of each operand
  (after broadcasting), so a result may reuse an operand's buffer.
- `View(kind)`: re-addresses its operand's elements without computing.
- `CubeWork()`: a matrix product for the AI Core's cube unit.
- `MixPrecision(kind)`: the op's list in GE's mixed precision.
- `Activation(...)`: an activation the host fast path fuses: its oneDNN
  eltwise kinds, its torch post-op, its in-place and `out=` forms.

This module knows no op; the ops name their traits.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from xdsl.ir import Operation
from xdsl.traits import OpTrait


@dataclass(frozen=True)
class Elementwise(OpTrait):
    """Result element i reads element i of each of `arity` operands (after
    broadcasting): the memory plan may let the result take an operand's buffer."""

    arity: int


@dataclass(frozen=True)
class View(OpTrait):
    """Re-addresses its operand's elements without computing (MLIR's
    ViewLikeOpInterface): the host runs it as a strided view. `kind` is
    "reshape" (the same elements in the same order), "slice", "transpose" or
    "expand"."""

    kind: str
    KINDS: ClassVar = ("reshape", "slice", "transpose", "expand")

    def __post_init__(self):
        assert self.kind in self.KINDS, f"view kind {self.kind!r} is not one of {self.KINDS}"


@dataclass(frozen=True)
class CubeWork(OpTrait):
    """A matrix product: the cube unit of the AI Core computes it, and the cost
    model counts its (M, N, K) (target/cost_model.py's CUBE_WORK). On the
    allow list of mixed precision, except the int8 cube ops, whose types
    are fixed."""


@dataclass(frozen=True)
class MixPrecision(OpTrait):
    """The op's list in GE's mixed precision (passes/precision_mode.py):
    "allow" computes in fp16/bf16 (cheap, well-conditioned), "gray" is exact in
    any precision and follows its producers. An op without this trait is on
    the block list and keeps the graph's type."""

    kind: str
    KINDS: ClassVar = ("allow", "gray")

    def __post_init__(self):
        assert self.kind in self.KINDS, f"precision list {self.kind!r} is not one of {self.KINDS}"


@dataclass(frozen=True)
class PostOp:
    """An activation as a conv / linear epilogue, in torch's and oneDNN's terms."""

    attr: str                  # torch's mkldnn post-op name
    scalars: tuple[float, ...]
    algorithm: str
    kind: str                  # oneDNN's eltwise kind (a key of Activation.eltwise)
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
class Activation(OpTrait):
    """An activation the host fast path runs fused, in four forms
    (runtime/host/activations.py):
    - a post-op of a conv / linear (`post_op`): torch's mkldnn post-op `attr`
      and oneDNN's eltwise kind with its alpha and beta;
    - in place on a result already in its view: `aten.<in_place>(y, **kwargs)`;
    - writing into a view as the last op of an elementwise body:
      `aten.<out>.out(x, **kwargs, out=view)`, if `out` is given.
    `eltwise` maps every oneDNN eltwise kind the op's post-ops use to its
    dnnl_alg_kind_t value (runtime/host/onednn.py's ELTWISE is their union).
    `after_linear`: the host's linear task may end with it; `after_matmul`:
    op-fusion groups a matmul (and its bias) with it. `decomposed`, given
    the pattern of the op's input, is core ATen's decomposition of it
    (ge_dialect/patterns.py), which op-fusion also fuses after a conv.
    An op whose forms depend on its properties subclasses this trait and
    overrides `post_op` and `call_kwargs`."""

    in_place: str
    eltwise: tuple[tuple[str, int], ...]
    attr: str = ""
    alpha: float = 0.0
    beta: float = 0.0
    out: str | None = None
    kwargs: tuple[tuple[str, Any], ...] = ()
    after_linear: bool = False
    after_matmul: bool = False
    decomposed: Callable[[Any], Any] | None = None

    def post_op(self, op: Operation) -> PostOp | None:
        """`op` as a conv / linear epilogue; None if this instance has none."""
        ((kind, _),) = self.eltwise
        return PostOp(self.attr, (), "", kind, self.alpha, self.beta)

    def call_kwargs(self, op: Operation) -> dict[str, Any]:
        """The arguments after the tensor of the in-place and `out=` forms."""
        return dict(self.kwargs)
