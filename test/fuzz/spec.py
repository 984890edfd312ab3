"""The fuzzer's data model: a random graph as plain data.

A `Graph` is a list of `Node`s over numbered values: the inputs first, then
one value per node. Each node names an `OpEntry` of the menu (menu.py); a
`Const` describes a constant operand, drawn from the graph's seed when the
graph is built, so the GE build and the PyTorch build see the same numbers.
A failing example prints as a short list of nodes that can be pasted into a
regression test.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from hypothesis import strategies as st
from xdsl.dialects.builtin import DYNAMIC_INDEX
from xdsl.ir import Operation, SSAValue

Shape = tuple[int, ...]
Draw = Callable[[st.SearchStrategy], Any]


@dataclass(frozen=True)
class Value:
    """A value's shape at the example batch size; `batch` marks dim 0 as dynamic.

    `exact`: every pipeline sees the same bits for this value (a graph input).
    Ops with steps (floor, sign, compare, argmax, ...) take only exact values
    as their main operand: a computed value may differ by one rounding from
    pipeline to pipeline, and a step would turn that into a different integer.
    """

    shape: Shape
    batch: bool = False
    exact: bool = False

    @property
    def rank(self) -> int:
        return len(self.shape)

    def ir_shape(self) -> list[int]:
        return [DYNAMIC_INDEX if self.batch and i == 0 else d for i, d in enumerate(self.shape)]


@dataclass
class Node:
    op: str                  # a MENU entry
    args: tuple[int, ...]    # operand values, by number
    params: dict[str, Any] = field(default_factory=dict)


@dataclass
class Graph:
    inputs: list[Value]
    nodes: list[Node]
    outputs: list[int]
    seed: int = 0

    @property
    def dynamic(self) -> bool:
        return any(v.batch for v in self.inputs)


@dataclass(frozen=True)
class Const:
    """A constant operand: its shape and which of CONST_KINDS draws its numbers.

    Index kinds (int64) draw below `high`; "unique" draws distinct indices
    along `dim` (a scatter without reduction must not write a place twice).
    """

    shape: Shape
    kind: str = "normal"
    high: int = 0
    dim: int = 0


def _unique_along(rng: np.random.Generator, c: Const) -> np.ndarray:
    spread = list(c.shape)
    spread[c.dim] = c.high
    order = np.argsort(rng.random(spread), axis=c.dim)
    return np.take(order, range(c.shape[c.dim]), axis=c.dim)


CONST_KINDS: dict[str, Callable[[np.random.Generator, Const], Any]] = {
    "normal": lambda rng, c: rng.standard_normal(c.shape),
    # scaled by fan-in, so activations stay near 1 through chains of convs
    "weight": lambda rng, c: rng.standard_normal(c.shape) / math.sqrt(
        max(1, math.prod(c.shape[1:]))),
    # batch-norm variances; small ones make epsilon matter
    "positive": lambda rng, c: rng.uniform(0.05, 2.0, c.shape),
    "scale": lambda rng, c: rng.uniform(0.5, 1.5, c.shape),
    # sampling grids, and arguments kept inside (-1, 1)
    "unit": lambda rng, c: rng.uniform(-0.9, 0.9, c.shape),
    # polynomial degrees: small whole numbers, as floats
    "degree": lambda rng, c: rng.integers(0, 5, c.shape).astype(np.float64),
    "index": lambda rng, c: rng.integers(0, c.high, c.shape),
    "unique": _unique_along,
}
INDEX_KINDS = frozenset({"index", "unique"})


def const_data(rng: np.random.Generator, c: Const) -> np.ndarray:
    dtype = np.int64 if c.kind in INDEX_KINDS else np.float32
    return np.asarray(CONST_KINDS[c.kind](rng, c), dtype=dtype)


@dataclass(frozen=True)
class OpEntry:
    """One op of the menu.

    `accepts(v)`: can `v` be the main operand (None: a source op, no operands).
    `draw(draw, x, pool)`: (extra operand numbers, params) for main operand x.
    `consts(operands, params)`: constant operands, appended after the others.
    `ge(operands, params)`: the GE op, or a list of ops whose last one's
        first result is the value (a composite: an op with an integer or
        boolean result ends in a cast, so every value of a graph is f32),
        or an existing SSA value.
    `torch(operands, params)`: the same in PyTorch.
    `weight`: how often the generator picks it, relative to the others.
    """

    name: str
    accepts: Callable[[Value], bool] | None
    draw: Callable[[Draw, Value | None, Sequence[Value]], tuple[tuple[int, ...], dict]]
    consts: Callable[[list[Value], dict], list[Const]]
    ge: Callable[[list[SSAValue], dict], Operation | list[Operation] | SSAValue]
    torch: Callable[[list, dict], torch.Tensor]
    weight: int = 1


def infer(entry: OpEntry, operands: list[Value], params: dict) -> Value:
    """The result's shape, from PyTorch on the meta device (no data)."""
    metas: list = [torch.empty(v.shape, device="meta") for v in operands]
    for c in entry.consts(operands, params):
        dtype = torch.int64 if c.kind in INDEX_KINDS else torch.float32
        metas.append(1.0 if params.get("python_scalar")
                     else torch.empty(c.shape, device="meta", dtype=dtype))
    out = entry.torch(metas, params)
    return Value(tuple(out.shape), batch=any(v.batch for v in operands))

