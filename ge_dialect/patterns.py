"""Declarative rewrite rules: an op pattern with captures, a constraint, a builder.

A rule is one table entry, in the spirit of MLIR's DRR and tinygrad's
PatternMatcher:

    RewriteRule("add(x, 0) -> x",
                Op(ge.AddOp, Var("x"), Const("zero"), commutative=True),
                build=lambda m: m.x,
                constraint=lambda m: is_splat(m.zero, 0.0) and m.x.type == m.root.output.type)

`Op(kind, *operands)` matches an op of `kind` (a class or a tuple of classes)
whose leading operands match the sub-patterns (with `commutative=True`, any of
its operands, in any order); `Var("x")` captures any value (the
same name twice must be the same value); `Const("c")` captures a value made
by a `ge.const`. `Maybe(Op(...))` is an optional op: the op, or none at all,
in which case the value must match the first `Op` inside it (a view or a
scale that one graph has and another lacks). Every matched op is captured
once, in program order, in `m.ops`, the root as `m.root`, and
`Op(..., name="n")` also as `m.n`. `build` returns the replacement: an
existing value, a new op, or a list of new ops (the last one's results
replace the root's).

The same matcher drives the canonicalizations (ge_dialect/canonicalization.py)
and the fusion rules of op-fusion (passes/op_fusion.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import permutations

from xdsl.ir import Operation, OpResult, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

OpKind = type[Operation] | tuple[type[Operation], ...]


class Pattern:
    """A node of a rule's pattern tree."""


@dataclass(frozen=True)
class Var(Pattern):
    name: str | None = None


@dataclass(frozen=True)
class Const(Pattern):
    name: str | None = None


@dataclass(frozen=True, init=False)
class Op(Pattern):
    kind: OpKind
    operands: tuple[Pattern, ...]
    name: str | None
    commutative: bool

    def __init__(self, kind: OpKind, *operands: Pattern, name: str | None = None,
                 commutative: bool = False):
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "operands", operands)
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "commutative", commutative)


@dataclass(frozen=True)
class Maybe(Pattern):
    """`op`, or no op: then the value matches `op`'s first Op (or Maybe) operand pattern."""

    op: Op

    def __post_init__(self):
        if not any(isinstance(p, Op | Maybe) for p in self.op.operands):
            raise ValueError("Maybe(op) needs an Op operand pattern to match when op is absent")

    @property
    def without(self) -> Pattern:
        return next(p for p in self.op.operands if isinstance(p, Op | Maybe))


ANY = Var()


@dataclass
class Match:
    """Captured values and ops; names are readable as attributes (`m.x`)."""

    root: Operation
    values: dict[str, SSAValue | Operation] = field(default_factory=dict)
    ops: list[Operation] = field(default_factory=list)

    def __getattr__(self, name: str):
        try:
            return self.values[name]
        except KeyError:
            raise AttributeError(f"the pattern captures no '{name}'") from None


def _bind(m: Match, name: str | None, value) -> Match | None:
    """`m` plus name=value (a copy), or None if name is bound to something else."""
    if name is None:
        return m
    if name in m.values:
        return m if m.values[name] is value else None
    return Match(m.root, {**m.values, name: value}, m.ops)


def _match_value(pattern: Pattern, value: SSAValue, m: Match, block) -> Iterator[Match]:
    if isinstance(pattern, Maybe):  # the longer match first
        yield from _match_value(pattern.op, value, m, block)
        yield from _match_value(pattern.without, value, m, block)
        return
    if isinstance(pattern, Op):
        if isinstance(value, OpResult) and value.op.parent is block:
            yield from _match_op(pattern, value.op, m)
        return
    if isinstance(pattern, Const) and not (
            isinstance(value, OpResult) and value.op.name == "ge.const"):
        return
    if (bound := _bind(m, pattern.name, value)) is not None:
        yield bound


def _match_operands(pairs, block, m: Match) -> Iterator[Match]:
    if not pairs:
        yield m
        return
    (pattern, value), rest = pairs[0], pairs[1:]
    for m2 in _match_value(pattern, value, m, block):
        yield from _match_operands(rest, block, m2)


def _match_op(pattern: Op, op: Operation, m: Match) -> Iterator[Match]:
    """Every way `op` matches `pattern`. Sub-patterns match a prefix of the operands,
    or, if commutative, any distinct operands in any order."""
    n = len(pattern.operands)
    if not isinstance(op, pattern.kind) or len(op.operands) < n:
        return
    bound = _bind(m, pattern.name, op)
    if bound is None:
        return
    if op not in bound.ops:  # a named op met twice (a DAG pattern) is one member
        bound = Match(bound.root, bound.values, [*bound.ops, op])
    orders = permutations(op.operands, n) if pattern.commutative else [op.operands[:n]]
    for operands in orders:
        yield from _match_operands(list(zip(pattern.operands, operands)), op.parent, bound)


def matches(pattern: Op, root: Operation) -> Iterator[Match]:
    """Every structural match of `pattern` at `root` (use counts are the caller's business);
    `m.ops` is in program order."""
    for m in _match_op(pattern, root, Match(root)):
        m.ops.sort(key=_distance_back_from(root, m.ops))
        yield m


def _distance_back_from(root: Operation, ops: list[Operation]) -> Callable[[Operation], int]:
    """Sort key putting `ops` (root and producers of it, in root's block) in program
    order: minus the steps back from root to each. Walking back from root costs the
    distance to the furthest producer; an index in the block would cost the block."""
    steps: dict[Operation, int] = {}
    left = set(ops)
    op, n = root, 0
    while op is not None and left:
        if op in left:
            steps[op] = n
            left.discard(op)
        op, n = op.prev_op, n + 1
    if left:  # not all above root (IR mid-rewrite): fall back to block indices
        return lambda o: o.parent.get_operation_index(o)
    return lambda o: -steps[o]


def match(pattern: Op, root: Operation) -> Match | None:
    return next(matches(pattern, root), None)


Builder = Callable[[Match], SSAValue | Operation | Sequence[Operation]]


@dataclass(frozen=True)
class RewriteRule(RewritePattern):
    """One declarative rewrite; `name` is its one-line summary, e.g. "x * 1 -> x"."""

    name: str
    pattern: Op
    build: Builder
    constraint: Callable[[Match], bool] | None = None

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        m = next((m for m in matches(self.pattern, op)
                  if self.constraint is None or self.constraint(m)), None)
        if m is None:
            return
        result = self.build(m)
        if isinstance(result, SSAValue):
            rewriter.replace(op, [], [result])
        elif result is not None:
            rewriter.replace(op, result)
