"""What every family of ATen builders shares: the builder contract and small helpers.

A builder is `(importer, args) -> value`, where `args` holds the node's
arguments by schema name with defaults filled in, and the importer (`g`)
offers `raw`, `value`, `scalar`, `emit`, `cast_to`, `node` and friends (see
`lowering/torch_to_ge.py`). A builder raises `Unsupported` when its node
cannot be expressed in GE; the importer collects those into one report.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import torch
from xdsl.dialects.builtin import DYNAMIC_INDEX, bf16, f16, f32, f64, i1, i8, i32, i64
from xdsl.ir import Attribute

Value = Any
Builder = Callable[[Any, dict[str, Any]], Value]

# Element types GE graphs carry, by torch dtype.
ELEMENT_TYPES: dict[torch.dtype, Attribute] = {
    torch.float32: f32, torch.float16: f16, torch.bfloat16: bf16, torch.float64: f64, torch.bool: i1,
    torch.int8: i8, torch.int32: i32, torch.int64: i64,
}
INT64_MAX = 2**63 - 1


class GEImportError(Exception):
    """The model cannot be imported into GE; the message says why, for the user."""


class Unsupported(Exception):
    """Raised by a builder when its node cannot be expressed in GE."""


@dataclass(eq=False)
class Weight:
    """A constant tensor; becomes one `ge.const` per region the first time it is used."""

    tensor: torch.Tensor
    name: str
    transpose_of: Weight | None = None  # set when this is a 2-D weight transposed
    splat: bool = False  # a filled tensor (torch.full, ...): store one element


@dataclass(frozen=True)
class NotImported:
    """An output GE does not compute (e.g. max-pool indices); reading it is unsupported."""

    reason: str


class Symbolic:
    """A symbolic integer (sym_size and arithmetic on it); sizes are read from node metadata."""


SYMBOLIC = Symbolic()


def element_type(dtype: torch.dtype) -> Attribute:
    try:
        return ELEMENT_TYPES[dtype]
    except KeyError:
        raise Unsupported(f"dtype {dtype}; GE supports "
                          f"{', '.join(str(d).removeprefix('torch.') for d in ELEMENT_TYPES)}"
                          ) from None


def pair(v: Any) -> tuple[int, int]:
    v = list(v) if isinstance(v, (list, tuple)) else [v]
    return (v[0], v[0]) if len(v) == 1 else (v[0], v[1])


def static_shape(sizes: Sequence[Any]) -> list[int]:
    """A torch (maybe symbolic) size as xDSL dims: SymInts become `?`."""
    return [d if isinstance(d, int) else DYNAMIC_INDEX for d in sizes]


def meta(node: Any) -> Any:
    """What PyTorch inferred for a node (a FakeTensor, a tuple of them, or a SymInt)."""
    return node.meta.get("val") if hasattr(node, "meta") else None


def out_meta(g: Any) -> torch.Tensor:
    val = meta(g.node)
    if isinstance(val, (tuple, list)):
        val = val[0]
    return val


def is_static(sizes: Sequence[Any]) -> bool:
    return all(isinstance(d, int) for d in sizes)


# Ops whose result shares storage with their first argument: an in-place update
# of their result would change that argument too.
VIEW_OPS = {"view", "_unsafe_view", "reshape", "slice", "select", "expand", "transpose",
            "permute", "unsqueeze", "squeeze", "alias", "as_strided", "t", "narrow",
            "diagonal", "unfold", "split", "split_with_sizes", "chunk", "unbind", "detach"}


def in_place(builder: Builder) -> Builder:
    """`x.op_(...)` as the functional op, when no one can see the difference: x is
    an intermediate value (not an input, weight or view of another tensor) and
    nothing reads x after the update except through the op's own result."""
    def build(g, a) -> Value:
        node = g.node
        target = node.args[0]
        if target.op != "call_function":
            raise Unsupported("an in-place update of a graph input or weight")
        name = _name(target)
        if name in VIEW_OPS:
            raise Unsupported(f"an in-place update of a view ({name}); the tensor it views "
                              "would change too")
        others = [u for u in target.users if u is not node]
        views = [u for u in others if _name(u) in VIEW_OPS]
        if views:
            raise Unsupported(f"an in-place update of '{target.name}', which view "
                              f"'{views[0].name}' also reads")
        later = [u for u in others if _after(u, node)]
        if later:
            raise Unsupported(f"an in-place update of '{target.name}', which node "
                              f"'{later[0].name}' reads afterwards")
        return builder(g, a)
    return build


def _name(node) -> str:
    """An FX node's ATen op name without overload: 'slice' for aten.slice.Tensor."""
    return getattr(node.target, "__name__", str(node.target)).split(".")[0]


def _after(a, b) -> bool:
    """True if FX node `a` comes after node `b` in their graph."""
    node = b.next
    while node.op != "root":
        if node is a:
            return True
        node = node.next
    return False
