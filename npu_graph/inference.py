"""TorchAir's `torchair.inference.set_dim_gears`: the gears a dynamic dim runs in.

    x = torch.randn(4, 3, 8, 8)
    npu_graph.inference.set_dim_gears(x, dim_gears={0: [1, 4, 8, 16]})
    graph = NpuGraph(model, input_spec=(x,)).optimize()   # or torch.compile(model, backend="ge")

Marking a tensor marks its dims dynamic (for Dynamo, as TorchAir does; for
`NpuGraph`, as torch.export `Dim`s when no `dynamic_shapes` are given) and
records the gears on it. The compiled graph then runs each call in the
smallest gear that holds it (runtime/gears.py); how the gears of several
dims combine is `CompilerConfig.dynamic_gears_merge_policy` ("zip", the
default, or "product"), the `optimize(...)` keyword of the same name.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from runtime.gears import GearError, Gears

__all__ = ["get_dim_gears", "set_dim_gears"]

ATTRIBUTE = "dim_gears"  # the tensor attribute TorchAir sets


def set_dim_gears(t: torch.Tensor, dim_gears: dict[int, Sequence[int]]) -> None:
    """Run dims of `t` in gears: `dim_gears` maps a dim to its gear sizes."""
    if not isinstance(t, torch.Tensor):
        raise GearError(f"set_dim_gears takes a tensor, got {type(t).__name__}")
    Gears.of({0: dim_gears})  # the sizes' checks
    for d in dim_gears:
        if d >= t.dim():
            raise GearError(f"set_dim_gears: dim {d} is out of range for a tensor of rank "
                            f"{t.dim()}")
    old = get_dim_gears(t)
    if old is not None and old != dim_gears:
        raise GearError(f"this tensor's gears are already set to {old}; set them once")
    for d in dim_gears:
        torch._dynamo.mark_dynamic(t, d)
    setattr(t, ATTRIBUTE, {d: list(g) for d, g in dim_gears.items()})


def get_dim_gears(t) -> dict[int, list[int]] | None:
    return getattr(t, ATTRIBUTE, None) if isinstance(t, torch.Tensor) else None


def marked(inputs: Sequence) -> dict[int, dict[int, list[int]]]:
    """Input index -> its gears, for the inputs `set_dim_gears` marked."""
    return {i: g for i, g in ((i, get_dim_gears(x)) for i, x in enumerate(inputs)) if g}
