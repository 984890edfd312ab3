"""The plans of a dynamic graph: one per gear, in a bounded LRU cache.

A graph with `?` dims is planned per gear (runtime/gears.py), not per input
shape. A `GearPlan` holds the device schedule of the gear and one arena for
the `?`-shaped buffers, each at a fixed offset with room for its largest
shape in the gear; a run at any shape the gear holds views each buffer at
its actual shape from its offset. So the number of plans, and the memory
they hold, is bounded by the gears in use and the cache's size, whatever
shapes the calls bring.

`PlanCache` keeps at most `size` plans, least recently used out first; an
evicted plan's arena goes with it (nothing else refers to it: the views of
a plan live in the plan). Its counters feed the executable's stats.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field

import torch

from ge_dialect import ascend
from runtime.sim.device import Plan

DEFAULT_PLAN_CACHE_SIZE = 8  # plans a dynamic graph keeps per replica
SHAPES_PER_PLAN = 4  # the exact shapes whose views a plan keeps bound, newest last

Shapes = tuple[tuple[int, ...], ...]
Views = list[tuple[int, torch.Tensor]]  # (value slot, the buffer's view of the arena)


def nbytes(t: torch.Tensor) -> int:
    return t.numel() * t.element_size()


def check_size(size) -> int:
    """A plan cache size, or a ValueError that names the option."""
    if not isinstance(size, int) or isinstance(size, bool) or size < 1:
        raise ValueError(f"plan_cache_size must be an integer >= 1 (the plans a dynamic "
                         f"graph keeps), got {size!r}")
    return size


@dataclass
class GearPlan:
    """One gear's plan: its device schedule and the arena of the `?`-shaped
    buffers, each with `room` bytes at its offset."""

    schedule: Plan
    room: dict[int, int]    # value slot -> bytes reserved
    offsets: dict[int, int] = field(init=False, default_factory=dict)
    arena: torch.Tensor = field(init=False)
    views: OrderedDict[Shapes, Views] = field(init=False, default_factory=OrderedDict)
    typed: dict[torch.dtype, torch.Tensor] = field(init=False, default_factory=dict)

    def __post_init__(self):
        at = 0
        for s, size in self.room.items():  # back to back, 512-byte aligned
            self.offsets[s] = at
            at = ascend.align(at + size)
        self.arena = torch.empty(at, dtype=torch.uint8)

    def _typed(self, dtype: torch.dtype) -> torch.Tensor:
        """The arena as elements of `dtype` (offsets are aligned to every size)."""
        typed = self.typed.get(dtype)
        if typed is None:
            typed = self.typed[dtype] = self.arena.view(dtype)
        return typed

    @property
    def nbytes(self) -> int:
        return self.arena.numel()

    def fits(self, values: list) -> bool:
        """Whether every buffer's result in `values` fits its room."""
        return all(nbytes(values[s]) <= room for s, room in self.room.items())

    def grown(self, values: list) -> GearPlan:
        """The same schedule with room for the results in `values` as well: a new arena."""
        room = {s: max(r, nbytes(values[s])) for s, r in self.room.items()}
        return GearPlan(self.schedule, room)

    def bind(self, shapes: Shapes, values: list) -> None:
        """Move the results `values` holds for the `?`-shaped buffers (a run on the
        heap, each fitting its room) into their views at their shapes, and keep
        those views for later runs at `shapes`."""
        views = []
        for s, at in self.offsets.items():
            result = values[s]
            start = at // result.element_size()
            view = self._typed(result.dtype)[start:start + result.numel()].view(result.shape)
            view.copy_(result)
            values[s] = view
            views.append((s, view))
        self.views[shapes] = views
        if len(self.views) > SHAPES_PER_PLAN:
            self.views.popitem(last=False)

    def views_at(self, shapes: Shapes) -> Views | None:
        views = self.views.get(shapes)
        if views is not None:
            self.views.move_to_end(shapes)
        return views


class PlanCache:
    """At most `size` gear plans, least recently used evicted first."""

    def __init__(self, size: int = DEFAULT_PLAN_CACHE_SIZE):
        self.size = check_size(size)
        self._plans: OrderedDict[Shapes, GearPlan] = OrderedDict()
        self.hits = self.misses = self.evictions = 0
        self.made = 0  # plans made, a grown one included

    def get(self, gear: Shapes) -> GearPlan | None:
        plan = self._plans.get(gear)
        if plan is None:
            self.misses += 1
        else:
            self.hits += 1
            self._plans.move_to_end(gear)
        return plan

    def put(self, gear: Shapes, plan: GearPlan) -> None:
        """Keep `plan` for `gear` (replacing a smaller one), evicting the least recently used."""
        self.made += 1
        self._plans[gear] = plan
        self._plans.move_to_end(gear)
        while len(self._plans) > self.size:
            self._plans.popitem(last=False)
            self.evictions += 1

    def __len__(self) -> int:
        return len(self._plans)

    def __iter__(self) -> Iterator[Shapes]:
        return iter(self._plans)

    def __getitem__(self, gear: Shapes) -> GearPlan:
        return self._plans[gear]

    @property
    def nbytes(self) -> int:
        """The bytes held by the cached plans' arenas."""
        return sum(p.nbytes for p in list(self._plans.values()))  # other threads may put
