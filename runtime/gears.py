"""Gears: the sizes a dynamic dim runs in, as TorchAir's `set_dim_gears` lists them.

A graph with `?` dims does not get a plan per input shape: each dynamic dim
is rounded up to its gear, and the gear picks the plan (runtime/plan_cache.py),
whose arena is sized for the gear, so one plan serves every shape up to it.
Without listed gears a dim runs in the next power of two (the default ladder).

Listed gears follow TorchAir (`torchair.inference.set_dim_gears(t, dim_gears=
{0: [2, 4]})` and `inference_config.dynamic_gears_merge_policy`): gears of
several dims combine position by position ("zip", the default: the lists
must be equally long) or as every combination ("product"). TorchAir runs only
shapes equal to a gear; here a shape runs in the smallest gear that holds it
(fewest elements, then the order listed), and a shape no gear holds is
refused, as TorchAir refuses it.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

MERGE_POLICIES = ("zip", "product")

Shapes = tuple[tuple[int, ...], ...]


class GearError(ValueError):
    """Gears that do not fit the graph, or an input shape that fits no gear."""


def next_power_of_two(n: int) -> int:
    """The default ladder: 1, 2, 4, 8, ...; a dim of 0 stays 0."""
    return 1 << (n - 1).bit_length() if n > 1 else n


@dataclass(frozen=True)
class Gears:
    """Listed gears per graph input and dim, and how lists of several dims combine.

    `dims` holds (input index, dim, gear sizes) triples in input, then dim order.
    Make one with `Gears.of({input: {dim: [sizes]}}, merge_policy)`.
    """

    dims: tuple[tuple[int, int, tuple[int, ...]], ...] = ()
    merge_policy: str = "zip"

    @classmethod
    def of(cls, dim_gears: Mapping[int, Mapping[int, Sequence[int]]],
           merge_policy: str = "zip") -> Gears:
        """Checked gears: `dim_gears` maps an input index to `{dim: [sizes]}`."""
        if merge_policy not in MERGE_POLICIES:
            raise GearError(f"dynamic_gears_merge_policy is {merge_policy!r}; allowed: "
                            f"{', '.join(MERGE_POLICIES)}")
        dims = []
        for i, per_dim in sorted(dim_gears.items()):
            if not isinstance(per_dim, Mapping):
                raise GearError(f"the gears of input {i} must be a dict {{dim: [sizes]}}, "
                                f"got {type(per_dim).__name__}")
            for d, sizes in sorted(per_dim.items()):
                _check_sizes(i, d, sizes)
                dims.append((i, d, tuple(sizes)))
        if merge_policy == "zip" and len({len(s) for _, _, s in dims}) > 1:
            raise GearError("with dynamic_gears_merge_policy 'zip' the gear lists pair up "
                            "position by position, so they must be equally long; got "
                            + ", ".join(f"input {i} dim {d}: {len(s)}" for i, d, s in dims)
                            + " (or use 'product': every combination)")
        return cls(tuple(dims), merge_policy)

    def check(self, arg_shapes: Sequence[Sequence[int]]) -> None:
        """Refuse gears on an input or dim the graph does not have, or on a static
        dim (`arg_shapes`: the graph's input shapes, -1 for `?`)."""
        for i, d, _ in self.dims:
            if not 0 <= i < len(arg_shapes):
                raise GearError(f"gears are set for input {i}, but the graph takes "
                                f"{len(arg_shapes)} input(s)")
            shape = arg_shapes[i]
            if not 0 <= d < len(shape):
                raise GearError(f"gears are set for dim {d} of input {i}, which has rank "
                                f"{len(shape)}")
            if shape[d] >= 0:
                raise GearError(f"gears are set for dim {d} of input {i}, which is static "
                                f"({shape[d]}); gears apply to dynamic (?) dims: mark it "
                                "dynamic when tracing (torch.export Dim)")

    def combos(self) -> list[tuple[int, ...]]:
        """The gears of the listed dims together, in the order listed."""
        lists = [s for _, _, s in self.dims]
        merged = zip(*lists) if self.merge_policy == "zip" else itertools.product(*lists)
        return list(dict.fromkeys(merged))

    def gear(self, shapes: Shapes, arg_shapes: Sequence[Sequence[int]]) -> Shapes:
        """The gear `shapes` (the inputs' shapes) runs in: listed dims at the smallest
        listed gear that holds them, other dynamic dims at the next power of two."""
        geared = [[next_power_of_two(n) if want < 0 else n for n, want in zip(shape, spec)]
                  for shape, spec in zip(shapes, arg_shapes)]
        if self.dims:
            actual = [shapes[i][d] for i, d, _ in self.dims]
            fits = [c for c in self.combos() if all(g >= n for g, n in zip(c, actual))]
            if not fits:
                raise GearError(self._no_gear(shapes, actual))
            best = min(fits, key=math.prod)  # min keeps the first listed of equals
            for (i, d, _), g in zip(self.dims, best):
                geared[i][d] = g
        return tuple(tuple(s) for s in geared)

    def _no_gear(self, shapes: Shapes, actual: list[int]) -> str:
        where = ", ".join(f"input {i} dim {d} = {n} (gears {list(s)})"
                          for (i, d, s), n in zip(self.dims, actual))
        return (f"the input shapes {[tuple(s) for s in shapes]} fit no gear: {where}, "
                f"merged by {self.merge_policy!r}. List a gear that holds them "
                "(set_dim_gears), or leave the dim to the default ladder")


def _check_sizes(i: int, d: int, sizes) -> None:
    if not isinstance(d, int) or d < 0:
        raise GearError(f"a dim index in the gears of input {i} must be an integer >= 0, "
                        f"got {d!r}")
    if not isinstance(sizes, Sequence) or isinstance(sizes, str) or not sizes:
        raise GearError(f"the gears of input {i} dim {d} must be a non-empty list of sizes, "
                        f"got {sizes!r}")
    bad = [g for g in sizes if not isinstance(g, int) or isinstance(g, bool) or g < 1]
    if bad:
        raise GearError(f"the gears of input {i} dim {d} must be integers >= 1, got {bad[0]!r}")


NO_GEARS = Gears()
