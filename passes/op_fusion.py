"""op-fusion: group producer->consumer chains into `ge.fused` ops by a rule table.

A rule is `(name, chain, constraint)`: `chain` lists op kinds from the first
producer to the root (the last consumer). A match walks back from the root:
each earlier op must produce one operand of the next and have no other user,
so fusing never duplicates work and no outside op can sit between two members
(no cycles). Rules are tried in table order; the first match wins, and a rule
never takes an op that an earlier rule would use as its root.

To add a rule, add one `FusionRule` line to RULES and one CHECK block to
test/filecheck/passes/op-fusion.mlir.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
import json
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, OpResult, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)

from ge_dialect import ge

ELEMENTWISE = (ge.ReluOp, ge.AddOp, ge.MulOp)
OpKind = type[Operation] | tuple[type[Operation], ...]


def same_shape_operands(ops: Sequence[Operation]) -> bool:
    """The residual add must not broadcast: both inputs have the conv's shape."""
    add = next(op for op in ops if isinstance(op, ge.AddOp))
    return add.lhs.type == add.rhs.type


@dataclass(frozen=True)
class FusionRule:
    name: str
    chain: tuple[OpKind, ...]
    constraint: Callable[[Sequence[Operation]], bool] | None = None
    repeat_last: bool = False  # chain[-1] may repeat: elementwise chains of any length


RULES: tuple[FusionRule, ...] = (
    FusionRule("conv2d_batch_norm_relu", (ge.Conv2dOp, ge.BatchNormOp, ge.ReluOp)),
    FusionRule("conv2d_add_relu", (ge.Conv2dOp, ge.AddOp, ge.ReluOp), same_shape_operands),
    FusionRule("conv2d_relu", (ge.Conv2dOp, ge.ReluOp)),
    FusionRule("elementwise", (ELEMENTWISE, ELEMENTWISE), repeat_last=True),
)


@dataclass
class Match:
    """A rule's op chain found at a root; `reason` says why it cannot be fused, if so."""

    members: list[Operation]  # program order, root last
    reason: str | None = None


Claimed = Callable[[Operation], str | None]


def _users(op: Operation) -> int:
    """Distinct ops using op's results (add(c, c) has one user)."""
    return len({use.operation for r in op.results for use in r.uses})


def _producer(op: Operation, kind: OpKind, claimed: Claimed) -> Operation | None:
    """The operand producer of `kind` to fuse with `op`, preferring a free single-use one."""
    found = [v.op for v in op.operands if isinstance(v, OpResult) and isinstance(v.op, kind)
             and v.op.parent is op.parent]
    free = [p for p in found if _users(p) == 1 and claimed(p) is None]
    return (free or found or [None])[0]


def _name(op: Operation) -> str:
    hint = op.results[0].name_hint if op.results else None
    return f"%{hint}" if hint else op.name


def _rejection(producer: Operation, claimed: Claimed) -> str | None:
    if _users(producer) != 1:
        return f"multi-use: {_name(producer)} ({producer.name}) has {_users(producer)} users"
    if (better := claimed(producer)) is not None:
        return f"claimed: {_name(producer)} roots a '{better}' group"
    return None


def match_chain(root: Operation, rule: FusionRule, max_size: int,
                claimed: Claimed) -> Match | None:
    """The rule's chain ending at `root`, or None if the ops are not there at all.

    `claimed(op)` names a higher-priority rule that would root a group at `op`;
    such an op is left to that rule (a repeated chain stops before it).
    """
    if not isinstance(root, rule.chain[-1]):
        return None
    members, reason = [root], None
    for kind in reversed(rule.chain[:-1]):
        producer = _producer(members[-1], kind, claimed)
        if producer is None:
            return None
        reason = reason or _rejection(producer, claimed)
        members.append(producer)
    if rule.repeat_last and reason is None:
        while len(members) < max_size:
            producer = _producer(members[-1], rule.chain[0], claimed)
            if producer is None or _rejection(producer, claimed):
                break
            members.append(producer)
    members.reverse()
    if reason is None and len(members) > max_size:
        reason = f"size cap: {len(members)} ops > max-group-size={max_size}"
    if reason is None and rule.constraint is not None and not rule.constraint(members):
        reason = f"constraint: {rule.constraint.__name__}"
    return Match(members, reason)


@dataclass
class RuleReport:
    matched: int = 0
    applied: int = 0
    rejected: list[dict] = field(default_factory=list)


@dataclass
class FusionReport:
    """Per rule: how often its chain was found, fused, and why it was not."""

    max_group_size: int
    rules: dict[str, RuleReport]

    def to_json(self) -> dict:
        return {"max_group_size": self.max_group_size,
                "rules": [{"name": name, "matched": r.matched, "applied": r.applied,
                           "rejected": r.rejected} for name, r in self.rules.items()]}


def fuse(rewriter: PatternRewriter, kind: str, members: list[Operation]) -> ge.FusedOp:
    """Move `members` (in program order, root last) into one ge.fused op."""
    inside = set(members)
    inputs: list[SSAValue] = []
    for op in members:
        for v in op.operands:
            if not (isinstance(v, OpResult) and v.op in inside) and v not in inputs:
                inputs.append(v)
    block = Block(arg_types=[v.type for v in inputs])
    for arg, v in zip(block.args, inputs):
        arg.name_hint = v.name_hint
    mapping: dict[SSAValue, SSAValue] = dict(zip(inputs, block.args))
    for op in members:
        block.add_op(op.clone(value_mapper=mapping))
    root = members[-1]
    block.add_op(ge.YieldOp(*[mapping[r] for r in root.results]))
    fused = ge.FusedOp(kind, inputs, [r.type for r in root.results], Region(block))
    rewriter.replace(root, fused)
    for op in reversed(members[:-1]):
        rewriter.erase(op)
    return fused


class FuseByRuleTable(RewritePattern):
    """root(...(first(x))) -> ge.fused "<rule>"(x, ...) for the first rule in the table that matches."""

    def __init__(self, rules: Sequence[FusionRule], max_size: int, report: FusionReport):
        self.rules = rules
        self.max_size = max_size
        self.report = report

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if not isinstance(op.parent_op(), func.FuncOp):
            return  # never fuse inside a fused body or a task
        for i, rule in enumerate(self.rules):
            match = match_chain(op, rule, self.max_size,
                                lambda m, better=self.rules[:i]: self._roots(m, better))
            if match is None:
                continue
            stats = self.report.rules[rule.name]
            stats.matched += 1
            if match.reason is not None:
                stats.rejected.append({"root": _name(op), "op": op.name, "reason": match.reason})
                continue
            stats.applied += 1
            fuse(rewriter, rule.name, match.members)
            return

    def _roots(self, op: Operation, rules: Sequence[FusionRule]) -> str | None:
        """The first of `rules` that would fuse a group rooted at `op`."""
        for rule in rules:
            match = match_chain(op, rule, self.max_size, lambda _: None)
            if match is not None and match.reason is None:
                return rule.name
        return None


def fuse_module(module: ModuleOp, max_group_size: int = 8,
                rules: Sequence[FusionRule] = RULES) -> FusionReport:
    """Fuse `module` in place by `rules`; return what matched, fused and was rejected."""
    if max_group_size < 1:
        raise ValueError(f"op-fusion: max-group-size must be >= 1, got {max_group_size}")
    report = FusionReport(max_group_size, {rule.name: RuleReport() for rule in rules})
    PatternRewriteWalker(
        GreedyRewritePatternApplier([FuseByRuleTable(rules, max_group_size, report)],
                                    dce_enabled=False),
        walk_reverse=True,
        apply_recursively=False,
    ).rewrite_module(module)
    return report


@dataclass(frozen=True)
class OpFusionPass(ModulePass):
    """Fuse op chains by the RULES table into `ge.fused` ops.

    Roots are visited from the end of each function backwards, so a chain is
    always matched from its last op and the longest rule wins.
    `max-group-size` caps the number of ops in one group; `report=FILE`
    writes the fusion report as JSON (see `fuse_module` for the Python API).
    """

    name = "op-fusion"
    max_group_size: int = 8
    report: str | None = None

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        result = fuse_module(op, self.max_group_size)
        if self.report is not None:
            with open(self.report, "w") as f:
                json.dump(result.to_json(), f, indent=2)
