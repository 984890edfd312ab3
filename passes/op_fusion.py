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
from dataclasses import dataclass

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


def single_use_producer(op: Operation, kind: OpKind) -> Operation | None:
    """An operand producer of `kind` whose only user is `op`."""
    for operand in op.operands:
        if (isinstance(operand, OpResult) and isinstance(operand.op, kind)
                and operand.has_one_use() and operand.op.parent is op.parent):
            return operand.op
    return None


def match_chain(root: Operation, rule: FusionRule, max_size: int,
                claimed: Callable[[Operation], bool]) -> list[Operation] | None:
    """The rule's members ending at `root`, or None.

    `claimed(op)` says a higher-priority rule would root a group at `op`;
    such an op is left to that rule (a repeated chain stops before it).
    """
    if not isinstance(root, rule.chain[-1]):
        return None
    members = [root]
    for kind in reversed(rule.chain[:-1]):
        producer = single_use_producer(members[-1], kind)
        if producer is None or claimed(producer):
            return None
        members.append(producer)
    if rule.repeat_last:
        while len(members) < max_size:
            producer = single_use_producer(members[-1], rule.chain[0])
            if producer is None or claimed(producer):
                break
            members.append(producer)
    members.reverse()
    if len(members) > max_size:
        return None
    if rule.constraint is not None and not rule.constraint(members):
        return None
    return members


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

    def __init__(self, rules: Sequence[FusionRule], max_size: int):
        self.rules = rules
        self.max_size = max_size

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if not isinstance(op.parent_op(), func.FuncOp):
            return  # never fuse inside a fused body or a task
        for i, rule in enumerate(self.rules):
            members = match_chain(op, rule, self.max_size,
                                  lambda m, better=self.rules[:i]: self._roots_any(m, better))
            if members is not None:
                fuse(rewriter, rule.name, members)
                return

    def _roots_any(self, op: Operation, rules: Sequence[FusionRule]) -> bool:
        return any(match_chain(op, r, self.max_size, lambda _: False) for r in rules)


@dataclass(frozen=True)
class OpFusionPass(ModulePass):
    """Fuse op chains by the RULES table into `ge.fused` ops.

    Roots are visited from the end of each function backwards, so a chain is
    always matched from its last op and the longest rule wins.
    `max-group-size` caps the number of ops in one group.
    """

    name = "op-fusion"
    max_group_size: int = 8

    def __post_init__(self):
        # Checked when the pipeline is built, so a bad option is a user error
        # before anything runs, not an exception in the middle of a pass.
        if self.max_group_size < 1:
            raise ValueError(f"op-fusion: max-group-size must be >= 1, got {self.max_group_size}")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            GreedyRewritePatternApplier([FuseByRuleTable(RULES, self.max_group_size)],
                                        dce_enabled=False),
            walk_reverse=True,
            apply_recursively=False,
        ).rewrite_module(op)
