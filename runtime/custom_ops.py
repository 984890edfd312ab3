"""The process-wide registry of user kernels for ops the compiler does not know.

The escape hatch of the GE article: when a model uses an op with no GE
mapping (a `torch.library` custom op, or an ATen op we do not support), the
user registers a host kernel for it,

    @npu_graph.custom_op("aten.logcumsumexp", shape_fn=lambda x, dim: x)
    def logcumsumexp(x, dim):
        return torch.logcumsumexp(x, dim)

and the importer turns every node of that op into `ge.custom {name =
"aten.logcumsumexp"}`, which the runtime runs with this kernel. Names are the
op's qualified name, `namespace::op` or `namespace.op` (the same thing),
optionally with an overload (`aten.logcumsumexp.default`) to register one overload
only. The registry is consulted for ops the importer has no mapping for; an
op it already maps keeps its GE mapping. The kernel gets the tensor arguments positionally, in schema order, and
every other argument as a keyword named as in the op's schema; it returns a
tensor or a tuple of tensors.

`shape_fn`, if given, gets the input shapes (tuples, `None` for a dynamic
dim) and the same keywords, and returns the output shape (or a list of them).
The importer checks it against PyTorch's own shape inference, so a wrong
kernel contract shows up at import time rather than as wrong numbers.

The registry lives here, in the runtime, because both the importer and the
runtime kernel table read it; `npu_graph.custom_op` re-exports it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import torch
from xdsl.dialects.builtin import (
    ArrayAttr,
    BoolAttr,
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    StringAttr,
    f64,
    i1,
    i64,
)
from xdsl.ir import Attribute

from ge_dialect import ge, shapes


class CustomOpError(RuntimeError):
    """A custom op is missing, misregistered or broke its contract."""


@dataclass(frozen=True)
class CustomKernel:
    name: str
    kernel: Callable[..., Any]
    shape_fn: Callable[..., Any] | None = None


_REGISTRY: dict[str, CustomKernel] = {}


def canonical_name(name: str) -> str:
    """`mylib::op` and `mylib.op` name the same op; we store the dotted form."""
    name = name.strip().replace("::", ".")
    if not name or "." not in name or any(not part for part in name.split(".")):
        raise CustomOpError(f"custom op name '{name}' must be qualified, like "
                            "'aten.logcumsumexp' or 'mylib::my_op'")
    return name


def register(name: str, kernel: Callable[..., Any],
             shape_fn: Callable[..., Any] | None = None) -> CustomKernel:
    """Register (or replace) the kernel for `name`."""
    if not callable(kernel):
        raise CustomOpError(f"the kernel for custom op '{name}' must be callable")
    if shape_fn is not None and not callable(shape_fn):
        raise CustomOpError(f"shape_fn for custom op '{name}' must be callable")
    entry = CustomKernel(canonical_name(name), kernel, shape_fn)
    _REGISTRY[entry.name] = entry
    return entry


def unregister(name: str) -> None:
    _REGISTRY.pop(canonical_name(name), None)


def registered() -> list[CustomKernel]:
    """Every registered kernel (multi-card ranks import the modules defining them)."""
    return list(_REGISTRY.values())


def lookup(name: str) -> CustomKernel | None:
    return _REGISTRY.get(canonical_name(name))


def lookup_target(target: Any) -> CustomKernel | None:
    """The kernel registered for a torch op overload: exact overload first, then the op."""
    if not isinstance(target, torch._ops.OpOverload):
        return None
    op = str(target).rsplit(".", 1)[0] if target._overloadname else str(target)
    return _REGISTRY.get(str(target)) or _REGISTRY.get(op)


def custom_op(name: str, *, shape_fn: Callable[..., Any] | None = None):
    """Decorator: register the decorated function as the kernel of op `name`."""
    canonical_name(name)  # fail at the decorator line, not at import time

    def decorate(kernel: Callable[..., Any]) -> Callable[..., Any]:
        register(name, kernel, shape_fn)
        return kernel

    return decorate


# --------------------------------------------------------------------------
# Non-tensor arguments <-> attributes of ge.custom's `params`


def to_attr(value: Any) -> Attribute:
    """A Python argument value as an attribute; raises ValueError if it has none."""
    if isinstance(value, bool):
        return BoolAttr(value, i1)
    if isinstance(value, int):
        return IntegerAttr(value, i64)
    if isinstance(value, float):
        return FloatAttr(value, f64)
    if isinstance(value, str):
        return StringAttr(value)
    if isinstance(value, (list, tuple)):
        if all(isinstance(v, int) and not isinstance(v, bool) for v in value):
            return DenseArrayBase.from_list(i64, list(value))
        if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
            return DenseArrayBase.from_list(f64, [float(v) for v in value])
    raise ValueError(f"{type(value).__name__} {value!r}")


def from_attr(attr: Attribute) -> Any:
    if isinstance(attr, IntegerAttr):
        return bool(attr.value.data) if attr.type == i1 else attr.value.data
    if isinstance(attr, FloatAttr):
        return attr.value.data
    if isinstance(attr, StringAttr):
        return attr.data
    if isinstance(attr, DenseArrayBase):
        return list(attr.get_values())
    if isinstance(attr, ArrayAttr):
        return [from_attr(a) for a in attr.data]
    raise CustomOpError(f"custom op parameter {attr} has no Python value")


def output_shapes(result: Any) -> list[tuple[int, ...]]:
    """A shape function's result as a list of shapes (it may return one shape)."""
    if isinstance(result, (torch.Size, tuple, list)) and all(
            isinstance(d, int) or d is None for d in result):
        return [tuple(result)]
    return [tuple(s) for s in result]


# --------------------------------------------------------------------------
# The runtime side: ge.custom's entry in the kernel table


def prepare(op: ge.CustomOp) -> Callable[..., Any]:
    name = op.op_name.data
    entry = lookup(name)
    if entry is None:
        raise CustomOpError(
            f"ge.custom '{name}' has no kernel in this process: register one with "
            f"npu_graph.custom_op('{name}') before compiling or running the graph")
    params = {k: from_attr(v) for k, v in op.params.data.items()}
    expected = [r.type.get_shape() for r in op.outputs]
    kernel = entry.kernel

    def run(*tensors: torch.Tensor):
        out = kernel(*tensors, **params)
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        _check_outputs(name, outs, expected)
        return outs if len(expected) > 1 else outs[0]

    return run


def _check_outputs(name: str, outs: Sequence[Any], expected: Sequence[tuple]) -> None:
    if len(outs) != len(expected):
        raise CustomOpError(f"custom op '{name}' returned {len(outs)} value(s), the graph "
                            f"expects {len(expected)}")
    for i, (t, want) in enumerate(zip(outs, expected)):
        if not isinstance(t, torch.Tensor):
            raise CustomOpError(f"custom op '{name}' output {i} is a {type(t).__name__}, "
                                "not a torch.Tensor")
        if not shapes.compatible(want, tuple(t.shape)):
            raise CustomOpError(f"custom op '{name}' output {i} has shape "
                                f"{shapes.fmt(tuple(t.shape))}, the graph expects "
                                f"{shapes.fmt(want)}")
