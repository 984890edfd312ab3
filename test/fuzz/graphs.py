"""Random graphs as plain data, built as GE IR or as a PyTorch module.

A `Graph` is a list of `Node`s over numbered values: the inputs first, then
one value per node. The strategy `graphs()` draws one from the op menu
`MENU`. `to_module` builds it as GE IR with the op constructors (which infer
the result types); `GraphModule` runs it in PyTorch eager, which is the
oracle and also what `torch_to_ge.import_module` imports. Constants and
inputs come from the graph's seed, so both builds see the same numbers, and
a failing example prints as a short list of nodes that can be pasted into
a regression test.

Dynamic graphs mark dim 0 of every input as the batch (`?` in the IR). The
menu keeps that dim at position 0 and never contracts, merges or broadcasts
it against a static size, so every batch size is valid at run time.

To add an op, add one `OpEntry` to MENU. An entry says which values it takes
as its main operand, how it draws its parameters and extra operands, which
constant operands it needs, and how to build it in GE and in PyTorch.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from hypothesis import strategies as st
from torch import nn
from xdsl.dialects import func
from xdsl.dialects.builtin import DYNAMIC_INDEX, FunctionType, ModuleOp, TensorType, f32
from xdsl.ir import Block, Operation, Region, SSAValue

from ge_dialect import ge
from ge_dialect.tensors import from_numpy

Shape = tuple[int, ...]
Draw = Callable[[st.SearchStrategy], Any]


# --------------------------------------------------------------------------
# The spec


@dataclass(frozen=True)
class Value:
    """A value's shape at the example batch size; `batch` marks dim 0 as dynamic."""

    shape: Shape
    batch: bool = False

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

    @cached_property
    def values(self) -> list[Value]:
        """Every value's shape: the inputs, then each node's result."""
        values = list(self.inputs)
        for node in self.nodes:
            values.append(infer(ENTRIES[node.op], [values[a] for a in node.args], node.params))
        return values

    @property
    def dynamic(self) -> bool:
        return any(v.batch for v in self.inputs)


@dataclass(frozen=True)
class Const:
    """A constant operand: its shape and which of CONST_KINDS draws its numbers."""

    shape: Shape
    kind: str = "normal"


CONST_KINDS: dict[str, Callable[[np.random.Generator, Shape], Any]] = {
    "normal": lambda rng, s: rng.standard_normal(s),
    # scaled by fan-in, so activations stay near 1 through chains of convs
    "weight": lambda rng, s: rng.standard_normal(s) / math.sqrt(max(1, math.prod(s[1:]))),
    # batch-norm variances; small ones make epsilon matter
    "positive": lambda rng, s: rng.uniform(0.05, 2.0, s),
    "scale": lambda rng, s: rng.uniform(0.5, 1.5, s),
}


def const_data(rng: np.random.Generator, c: Const) -> np.ndarray:
    return np.asarray(CONST_KINDS[c.kind](rng, c.shape), dtype=np.float32)


@dataclass(frozen=True)
class OpEntry:
    """One op of the menu.

    `accepts(v)`: can `v` be the main operand (None: a source op, no operands).
    `draw(draw, x, pool)`: (extra operand numbers, params) for main operand x.
    `consts(operands, params)`: constant operands, appended after the others.
    `ge(operands, params)`: the GE op (or an existing SSA value).
    `torch(operands, params)`: the same in PyTorch.
    `weight`: how often the generator picks it, relative to the others.
    """

    name: str
    accepts: Callable[[Value], bool] | None
    draw: Callable[[Draw, Value | None, Sequence[Value]], tuple[tuple[int, ...], dict]]
    consts: Callable[[list[Value], dict], list[Const]]
    ge: Callable[[list[SSAValue], dict], Operation | SSAValue]
    torch: Callable[[list, dict], torch.Tensor]
    weight: int = 1


def infer(entry: OpEntry, operands: list[Value], params: dict) -> Value:
    """The result's shape, from PyTorch on the meta device (no data)."""
    metas: list = [torch.empty(v.shape, device="meta") for v in operands]
    for c in entry.consts(operands, params):
        metas.append(1.0 if params.get("python_scalar") else torch.empty(c.shape, device="meta"))
    out = entry.torch(metas, params)
    return Value(tuple(out.shape), batch=any(v.batch for v in operands))


# --------------------------------------------------------------------------
# Shape helpers for the menu


def broadcastable(a: Value, b: Value) -> bool:
    """Broadcasting valid at every batch size: a batch dim meets only itself or a static 1."""
    rank = max(a.rank, b.rank)
    if (a.batch and a.rank < rank) or (b.batch and b.rank < rank):
        return False  # the batch dim would move away from position 0
    pa = (None,) * (rank - a.rank) + a.shape
    pb = (None,) * (rank - b.rank) + b.shape
    for i, (da, db) in enumerate(zip(pa, pb)):
        ba, bb = a.batch and i == 0, b.batch and i == 0
        if da is None or db is None or (ba and bb):
            continue
        if ba or bb:
            if (db if ba else da) != 1:
                return False
        elif not (da == db or da == 1 or db == 1):
            return False
    return True


@st.composite
def broadcast_shape(draw: Draw, x: Value) -> Shape:
    """A constant shape that broadcasts against x: a suffix of x's dims, some set to 1,
    or (for a static x) all of them under new leading dims."""
    rank = draw(st.integers(0, x.rank))
    dims = [d if draw(st.booleans()) else 1 for d in x.shape[x.rank - rank:]]
    if x.batch and rank == x.rank:
        dims[0] = 1
    if rank == x.rank and not x.batch and draw(st.integers(0, 4)) == 0:
        dims = [draw(st.integers(1, 3)) for _ in range(draw(st.integers(1, 2)))] + dims
    return tuple(dims)


@st.composite
def factorization(draw: Draw, n: int) -> Shape:
    """A shape with n elements: n's prime factors spread over 0 to 4 dims."""
    rank = draw(st.integers(1 if n > 1 else 0, 4))
    dims = [1] * rank
    p, rest = 2, n
    while rest > 1:
        while rest % p == 0:
            dims[draw(st.integers(0, rank - 1))] *= p
            rest //= p
        p += 1
    return tuple(dims)


def fit_window(sizes: Sequence[int], kernel, padding, dilation):
    """Shrink kernel and dilation to 1 on any axis where the window does not fit."""
    kernel, dilation = list(kernel), list(dilation)
    for i, size in enumerate(sizes):
        if size + 2 * padding[i] - dilation[i] * (kernel[i] - 1) - 1 < 0:
            kernel[i], dilation[i] = 1, 1
    return tuple(kernel), tuple(dilation)


def pair(draw: Draw, low: int, high: int) -> tuple[int, int]:
    return draw(st.integers(low, high)), draw(st.integers(low, high))


# --------------------------------------------------------------------------
# The menu, one entry per op


def any_value(v: Value) -> bool:
    return True


def rank4(v: Value) -> bool:
    return v.rank == 4


def no_params(draw, x, pool):
    return (), {}


def no_consts(operands, p):
    return []


def draw_binary(draw: Draw, x: Value, pool: Sequence[Value]):
    """The other operand: a value already in the graph (a join), a constant or a scalar."""
    partners = [i for i, v in enumerate(pool) if broadcastable(x, v)]
    how = draw(st.sampled_from(["const", "scalar", "value"] if partners else ["const", "scalar"]))
    swap = draw(st.booleans())
    if how == "value":
        return (partners[-1 - draw(st.integers(0, len(partners) - 1))],), {"swap": swap}
    if how == "scalar":
        return (), {"swap": swap, "const": (), "python_scalar": draw(st.booleans())}
    return (), {"swap": swap, "const": draw(broadcast_shape(x))}


def binary_consts(operands, p):
    return [Const(p["const"])] if "const" in p else []


def ordered(a: list, p: dict) -> list:
    return a[::-1] if p["swap"] else a


def draw_conv2d(draw: Draw, x: Value, pool):
    _, channels, h, w = x.shape
    groups = draw(st.sampled_from([g for g in range(1, channels + 1) if channels % g == 0]))
    padding = pair(draw, 0, 2)
    kernel, dilation = fit_window((h, w), pair(draw, 1, 3), padding, pair(draw, 1, 2))
    return (), {"out": groups * draw(st.integers(1, 3)), "kernel": kernel,
                "stride": pair(draw, 1, 2), "padding": padding, "dilation": dilation,
                "groups": groups, "bias": draw(st.booleans())}


def conv2d_consts(operands, p):
    weight = Const((p["out"], operands[0].shape[1] // p["groups"], *p["kernel"]), "weight")
    return [weight, Const((p["out"],))] if p["bias"] else [weight]


def draw_batch_norm(draw: Draw, x: Value, pool):
    return (), {"eps": draw(st.sampled_from([1e-5, 1e-3, 0.1, 0.5]))}


def batch_norm_consts(operands, p):
    c = (operands[0].shape[1],)
    return [Const(c, "scale"), Const(c), Const(c), Const(c, "positive")]


def draw_max_pool2d(draw: Draw, x: Value, pool):
    kernel = pair(draw, 1, 3)
    padding = tuple(draw(st.integers(0, k // 2)) for k in kernel)
    fitted, dilation = fit_window(x.shape[2:], kernel, padding, pair(draw, 1, 2))
    padding = tuple(p if k == f else 0 for p, k, f in zip(padding, kernel, fitted))
    return (), {"kernel": fitted, "stride": pair(draw, 1, 3), "padding": padding,
                "dilation": dilation, "ceil_mode": draw(st.booleans())}


def draw_adaptive_avg_pool2d(draw: Draw, x: Value, pool):
    size = (draw(st.integers(1, x.shape[-2] + 1)), draw(st.integers(1, x.shape[-1] + 1)))
    as_mean = size == (1, 1) and x.rank == 4 and draw(st.booleans())
    return (), {"size": size, "as_mean": as_mean}


def draw_flatten(draw: Draw, x: Value, pool):
    rank = max(x.rank, 1)
    start = draw(st.integers(0, rank - 1))
    end = draw(st.integers(start, rank - 1))
    if x.batch and start == 0 and end > 0:
        start = 1  # never merge the batch dim into another
    if draw(st.booleans()):
        start, end = start - rank, end - rank  # negative dims are valid too
    return (), {"start": start, "end": end}


def draw_reshape(draw: Draw, x: Value, pool):
    rest = x.shape[1:] if x.batch else x.shape
    return (), {"shape": draw(factorization(math.prod(rest))), "keep_batch": x.batch,
                "view": draw(st.booleans())}


def ge_reshape(a, p):
    return ge.ReshapeOp(a[0], ([DYNAMIC_INDEX] if p["keep_batch"] else []) + list(p["shape"]))


def torch_reshape(a, p):
    x = a[0]
    shape = ((x.shape[0],) if p["keep_batch"] else ()) + tuple(p["shape"])
    return x.view(shape) if p["view"] else x.reshape(shape)


def takes_matrix_operand(v: Value) -> bool:
    """Contracting dim -1 is fine unless it is the batch dim."""
    return v.rank >= (2 if v.batch else 1)


def draw_matmul(draw: Draw, x: Value, pool: Sequence[Value]):
    k = x.shape[-1]
    partners = [i for i, v in enumerate(pool) if not v.batch and v.rank == 2 and v.shape[0] == k]
    forms = ["matrix", "vector"]
    forms += ["batched"] if x.rank >= 3 else []
    forms += ["lhs"] if x.rank >= 2 and not x.batch else []
    forms += ["value"] if partners else []
    form = draw(st.sampled_from(forms))
    if form == "value":
        return (partners[-1 - draw(st.integers(0, len(partners) - 1))],), {"form": form}
    n = draw(st.integers(1, 5))
    shape = {"matrix": (k, n), "vector": (k,), "lhs": (n, x.shape[-2]) if x.rank >= 2 else ()}
    if form == "batched":
        lead = 1 if x.batch and x.rank == 3 else draw(st.sampled_from([1, x.shape[-3]]))
        shape["batched"] = (lead, k, n)
    return (), {"form": form, "const": shape[form]}


def ge_matmul(a, p):
    return ge.MatMulOp(a[1], a[0]) if p["form"] == "lhs" else ge.MatMulOp(a[0], a[1])


def torch_matmul(a, p):
    return torch.matmul(a[1], a[0]) if p["form"] == "lhs" else torch.matmul(a[0], a[1])


def draw_linear(draw: Draw, x: Value, pool):
    return (), {"out": draw(st.integers(1, 5)), "bias": draw(st.booleans()),
                "as_matmul": draw(st.booleans())}


def linear_consts(operands, p):
    weight = Const((p["out"], operands[0].shape[-1]), "weight")
    return [weight, Const((p["out"],))] if p["bias"] else [weight]


def torch_linear(a, p):
    bias = a[2] if p["bias"] else None
    if p["as_matmul"]:  # x @ w.T + b: the importer must see through the transpose
        y = a[0] @ a[1].t()
        return y + bias if bias is not None else y
    return F.linear(a[0], a[1], bias)


# Unary ops defined on every real number, with no parameters.
UNARY = (
    ("sigmoid", ge.SigmoidOp, torch.sigmoid),
    ("tanh", ge.TanhOp, torch.tanh),
    ("neg", ge.NegOp, torch.neg),
    ("abs", ge.AbsOp, torch.abs),
    ("erf", ge.ErfOp, torch.erf),
    ("silu", ge.SiluOp, F.silu),
    ("hardswish", ge.HardswishOp, F.hardswish),
    ("hardsigmoid", ge.HardsigmoidOp, F.hardsigmoid),
    ("exp", ge.ExpOp, torch.exp),
    ("sin", ge.SinOp, torch.sin),
    ("cos", ge.CosOp, torch.cos),
    ("atan", ge.AtanOp, torch.atan),
    ("asinh", ge.AsinhOp, torch.asinh),
    ("erfc", ge.ErfcOp, torch.erfc),
    ("mish", ge.MishOp, F.mish),
    ("log_sigmoid", ge.LogSigmoidOp, F.logsigmoid),
)

# Reductions over some dims (never the batch dim), with or without keepdim.
REDUCTIONS = (
    ("reduce_sum", ge.ReduceSumOp, torch.sum),
    ("reduce_mean", ge.ReduceMeanOp, torch.mean),
    ("reduce_max", ge.ReduceMaxOp, torch.amax),
    ("reduce_min", ge.ReduceMinOp, torch.amin),
)


def reducible(v: Value) -> bool:
    return v.rank >= (2 if v.batch else 1)


def draw_reduction(draw: Draw, x: Value, pool):
    dims = [d for d in range(x.rank) if not (x.batch and d == 0)]
    chosen = draw(st.lists(st.sampled_from(dims), min_size=1, max_size=len(dims), unique=True))
    return (), {"dims": tuple(sorted(chosen)), "keepdim": draw(st.booleans())}


def draw_transpose(draw: Draw, x: Value, pool):
    rest = draw(st.permutations(range(1 if x.batch else 0, x.rank)))
    return (), {"perm": ((0,) if x.batch else ()) + tuple(rest)}


def draw_divisor(draw: Draw, x: Value, pool):
    """A constant divisor away from zero (a value of the graph could be near it)."""
    return (), {"swap": False, "const": draw(broadcast_shape(x))}


def draw_tensor_binary(draw: Draw, x: Value, pool: Sequence[Value]):
    """draw_binary, with the scalar as a 0-d tensor (torch.maximum takes no float)."""
    extra, params = draw_binary(draw, x, pool)
    params.pop("python_scalar", None)
    return extra, params


def draw_clamp(draw: Draw, x: Value, pool):
    low = draw(st.sampled_from([None, -1.0, 0.0, 0.5]))
    high = draw(st.sampled_from([None, 1.0, 6.0] if low is not None else [1.0, 6.0]))
    return (), {"min": low, "max": high}


def draw_softmax(draw: Draw, x: Value, pool):
    dims = [d for d in range(x.rank) if not (x.batch and d == 0)]
    dim = draw(st.sampled_from(dims))
    return (), {"dim": dim - x.rank if draw(st.booleans()) else dim}


def draw_const(draw: Draw, x, pool):
    return (), {"shape": tuple(draw(st.lists(st.integers(1, 4), max_size=3)))}


MENU: tuple[OpEntry, ...] = (
    OpEntry("relu", any_value, no_params, no_consts,
            lambda a, p: ge.ReluOp(a[0]), lambda a, p: torch.relu(a[0])),
    OpEntry("add", any_value, draw_binary, binary_consts,
            lambda a, p: ge.AddOp(*ordered(a, p)),
            lambda a, p: ordered(a, p)[0] + ordered(a, p)[1]),
    OpEntry("mul", any_value, draw_binary, binary_consts,
            lambda a, p: ge.MulOp(*ordered(a, p)),
            lambda a, p: ordered(a, p)[0] * ordered(a, p)[1]),
    OpEntry("conv2d", rank4, draw_conv2d, conv2d_consts,
            lambda a, p: ge.Conv2dOp(a[0], a[1], a[2] if p["bias"] else None, p["stride"],
                                     p["padding"], p["dilation"], p["groups"]),
            lambda a, p: F.conv2d(a[0], a[1], a[2] if p["bias"] else None, p["stride"],
                                  p["padding"], p["dilation"], p["groups"]), weight=3),
    OpEntry("batch_norm", lambda v: v.rank >= 2, draw_batch_norm, batch_norm_consts,
            lambda a, p: ge.BatchNormOp(*a, p["eps"]),
            lambda a, p: F.batch_norm(a[0], a[3], a[4], a[1], a[2], False, 0.0, p["eps"]),
            weight=2),
    OpEntry("max_pool2d", rank4, draw_max_pool2d, no_consts,
            lambda a, p: ge.MaxPool2dOp(a[0], p["kernel"], p["stride"], p["padding"],
                                        p["dilation"], p["ceil_mode"]),
            lambda a, p: F.max_pool2d(a[0], p["kernel"], p["stride"], p["padding"],
                                      p["dilation"], ceil_mode=p["ceil_mode"])),
    OpEntry("adaptive_avg_pool2d", lambda v: v.rank in (3, 4), draw_adaptive_avg_pool2d,
            no_consts, lambda a, p: ge.AdaptiveAvgPool2dOp(a[0], p["size"]),
            lambda a, p: (a[0].mean((2, 3), keepdim=True) if p["as_mean"]
                          else F.adaptive_avg_pool2d(a[0], p["size"]))),
    OpEntry("flatten", any_value, draw_flatten, no_consts,
            lambda a, p: ge.FlattenOp(a[0], p["start"], p["end"]),
            lambda a, p: torch.flatten(a[0], p["start"], p["end"])),
    OpEntry("reshape", any_value, draw_reshape, no_consts, ge_reshape, torch_reshape),
    OpEntry("matmul", takes_matrix_operand, draw_matmul,
            lambda operands, p: [Const(p["const"], "weight")] if "const" in p else [],
            ge_matmul, torch_matmul),
    OpEntry("linear", takes_matrix_operand, draw_linear, linear_consts,
            lambda a, p: ge.LinearOp(a[0], a[1], a[2] if p["bias"] else None), torch_linear),
    OpEntry("const", None, draw_const, lambda operands, p: [Const(p["shape"])],
            lambda a, p: a[0], lambda a, p: a[0]),
    OpEntry("sub", any_value, draw_binary, binary_consts,
            lambda a, p: ge.SubOp(*ordered(a, p)),
            lambda a, p: ordered(a, p)[0] - ordered(a, p)[1]),
    OpEntry("maximum", any_value, draw_tensor_binary, binary_consts,
            lambda a, p: ge.MaximumOp(*ordered(a, p)),
            lambda a, p: torch.maximum(*ordered(a, p))),
    OpEntry("minimum", any_value, draw_tensor_binary, binary_consts,
            lambda a, p: ge.MinimumOp(*ordered(a, p)),
            lambda a, p: torch.minimum(*ordered(a, p))),
    OpEntry("clamp", any_value, draw_clamp, no_consts,
            lambda a, p: ge.ClampOp(a[0], p["min"], p["max"]),
            lambda a, p: torch.clamp(a[0], p["min"], p["max"])),
    OpEntry("gelu", any_value, lambda draw, x, pool: ((), {"approximate": draw(
                st.sampled_from(["none", "tanh"]))}), no_consts,
            lambda a, p: ge.GeluOp(a[0], p["approximate"]),
            lambda a, p: F.gelu(a[0], approximate=p["approximate"])),
    OpEntry("softmax", lambda v: v.rank >= 1 and not (v.batch and v.rank == 1), draw_softmax,
            no_consts, lambda a, p: ge.SoftmaxOp(a[0], p["dim"]),
            lambda a, p: torch.softmax(a[0], p["dim"])),
    OpEntry("log_softmax", lambda v: v.rank >= 1 and not (v.batch and v.rank == 1),
            draw_softmax, no_consts, lambda a, p: ge.LogSoftmaxOp(a[0], p["dim"]),
            lambda a, p: torch.log_softmax(a[0], p["dim"])),
    *(OpEntry(name, any_value, no_params, no_consts,
              (lambda cls: lambda a, p: cls(a[0]))(cls), (lambda fn: lambda a, p: fn(a[0]))(fn))
      for name, cls, fn in UNARY),
    OpEntry("div", any_value, draw_divisor, lambda operands, p: [Const(p["const"], "scale")],
            lambda a, p: ge.DivOp(a[0], a[1]), lambda a, p: a[0] / a[1]),
    OpEntry("transpose", lambda v: v.rank >= 2, draw_transpose, no_consts,
            lambda a, p: ge.TransposeOp(a[0], p["perm"]),
            lambda a, p: a[0].permute(p["perm"])),
    *(OpEntry(name, reducible, draw_reduction, no_consts,
              (lambda cls: lambda a, p: cls(a[0], p["dims"], p["keepdim"]))(cls),
              (lambda fn: lambda a, p: fn(a[0], p["dims"], keepdim=p["keepdim"]))(fn))
      for name, cls, fn in REDUCTIONS),
)
ENTRIES = {entry.name: entry for entry in MENU}


# --------------------------------------------------------------------------
# The strategy


@st.composite
def input_value(draw: Draw, batch: int, dynamic: bool) -> Value:
    # Mostly NCHW images: most of the menu (conv, pooling, batch norm) wants them.
    rank = draw(st.sampled_from([4, 4, 4, 2, 3, 1] + ([] if dynamic else [0])))
    high = 7 if rank == 4 else 6
    dims = [draw(st.integers(1, 4 if i == 1 and rank == 4 else high)) for i in range(rank)]
    if rank == 4 or dynamic:
        dims[0] = batch
    return Value(tuple(dims), batch=dynamic)


# Chains that real models are made of and that passes look for (fold-batch-norm,
# the fusion rules). A step of the generator is one menu op or one motif; each
# op of a motif takes the previous one's result as its main operand.
MOTIFS: tuple[tuple[str, ...], ...] = (
    ("conv2d", "batch_norm", "relu"),
    ("conv2d", "batch_norm", "add", "relu"),
    ("conv2d", "relu"),
    ("add", "relu"),
    ("linear", "relu"),
)


@st.composite
def graphs(draw: Draw, menu: Sequence[OpEntry] = MENU, max_nodes: int = 8,
           dynamic: bool | None = None) -> Graph:
    """A random valid graph: 1-2 inputs, 1..max_nodes ops, the last value plus 0-2 more
    (maybe inputs, maybe repeated) as outputs. Operands are drawn from every earlier
    value, most recent first, which gives chains, branches, joins and reuse."""
    if dynamic is None:
        dynamic = draw(st.integers(0, 4)) == 0
    batch = 2 if dynamic else draw(st.integers(1, 2))
    inputs = [draw(input_value(batch, dynamic)) for _ in range(draw(st.integers(1, 2)))]
    entries = {e.name: e for e in menu}
    steps = [(e.name,) for e in menu for _ in range(e.weight)]
    steps += [m for m in MOTIFS if all(name in entries for name in m)]
    values, nodes = list(inputs), []
    budget = draw(st.integers(1, max_nodes))
    while len(nodes) < budget:
        usable = [s for s in steps if entries[s[0]].accepts is None
                  or any(map(entries[s[0]].accepts, values))]
        head: int | None = None
        for name in draw(st.sampled_from(usable))[:budget - len(nodes)]:
            entry = entries[name]
            if entry.accepts is None:
                head = None  # a source: no operand
            elif head is None:
                candidates = [i for i, v in enumerate(values) if entry.accepts(v)]
                head = candidates[-1 - draw(st.integers(0, len(candidates) - 1))]
            elif not entry.accepts(values[head]):
                break
            extra, params = entry.draw(draw, values[head] if head is not None else None, values)
            args = ((head,) if head is not None else ()) + tuple(extra)
            values.append(infer(entry, [values[a] for a in args], params))
            nodes.append(Node(entry.name, args, params))
            head = len(values) - 1
    outputs = [len(values) - 1] + draw(st.lists(st.integers(0, len(values) - 1), max_size=2))
    graph = Graph(inputs, nodes, outputs, draw(st.integers(0, 2**32 - 1)))
    graph.__dict__["values"] = values  # already inferred while drawing
    return graph


# --------------------------------------------------------------------------
# Builders


def constants(graph: Graph) -> list[list[np.ndarray]]:
    """Each node's constant operands, from the graph's seed."""
    rng = np.random.default_rng([graph.seed, 0])
    values = graph.values
    return [[const_data(rng, c) for c in ENTRIES[node.op].consts(
                [values[a] for a in node.args], node.params)]
            for node in graph.nodes]


def example_inputs(graph: Graph, batch: int | None = None) -> tuple[torch.Tensor, ...]:
    """Random inputs; `batch` replaces the example batch size of dynamic inputs."""
    rng = np.random.default_rng([graph.seed, 1])
    shapes = [((batch,) + v.shape[1:]) if v.batch and batch else v.shape for v in graph.inputs]
    return tuple(torch.from_numpy(np.asarray(rng.standard_normal(s), dtype=np.float32))
                 for s in shapes)


def to_module(graph: Graph) -> ModuleOp:
    """The graph as GE IR: `func.func @main`, built with the op constructors."""
    block = Block(arg_types=[TensorType(f32, v.ir_shape()) for v in graph.inputs])
    values: list[SSAValue] = list(block.args)
    for i, (node, arrays) in enumerate(zip(graph.nodes, constants(graph))):
        consts = []
        for array in arrays:
            const = ge.ConstOp(from_numpy(array))
            block.add_op(const)
            consts.append(const.output)
        built = ENTRIES[node.op].ge([values[a] for a in node.args] + consts, node.params)
        if isinstance(built, Operation):
            block.add_op(built)
            built = built.results[0]
        want = graph.values[len(graph.inputs) + i].ir_shape()
        if list(ge.shape_of(built)) != want:
            raise AssertionError(f"node {i} ({node.op}): GE infers shape "
                                 f"{list(ge.shape_of(built))}, PyTorch gives {want}")
        values.append(built)
    results = [values[o] for o in graph.outputs]
    block.add_op(func.ReturnOp(*results))
    ftype = FunctionType.from_lists(block.arg_types, [r.type for r in results])
    return ModuleOp([func.FuncOp("main", ftype, Region(block))])


class GraphModule(nn.Module):
    """The graph in PyTorch: constants are buffers, ops are torch functions."""

    def __init__(self, graph: Graph):
        super().__init__()
        self.graph = graph
        self.consts: list[list[str | float]] = []
        for i, (node, arrays) in enumerate(zip(graph.nodes, constants(graph))):
            names: list[str | float] = []
            for j, array in enumerate(arrays):
                if node.params.get("python_scalar"):
                    names.append(float(array))
                else:
                    self.register_buffer(f"c{i}_{j}", torch.from_numpy(array.copy()))
                    names.append(f"c{i}_{j}")
            self.consts.append(names)

    def forward(self, *inputs: torch.Tensor):
        values = list(inputs)
        for node, names in zip(self.graph.nodes, self.consts):
            consts = [getattr(self, n) if isinstance(n, str) else n for n in names]
            values.append(ENTRIES[node.op].torch([values[a] for a in node.args] + consts,
                                                 node.params))
        outputs = tuple(values[o] for o in self.graph.outputs)
        return outputs if len(outputs) > 1 else outputs[0]


def eager(model: nn.Module, inputs: Sequence[torch.Tensor]) -> list[torch.Tensor]:
    with torch.no_grad():
        out = model(*inputs)
    return list(out) if isinstance(out, tuple) else [out]
