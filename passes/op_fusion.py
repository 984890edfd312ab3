"""op-fusion: group producer->consumer chains into `ge.fused` ops by a rule table.

A rule is `(name, pattern, constraint)`, with the declarative patterns of
ge_dialect/patterns.py (the canonicalizations use the same matcher). The
pattern is rooted at the group's last op; every op it matches joins the group.
Every member but the root must be used only inside the group, so fusing never
duplicates work and no outside op can sit between two members (no cycles).
Rules are tried in table order; the first match wins, and a rule never takes
an op that an earlier rule would use as the root of its own group.

To add a rule, add one `FusionRule` line to RULES and one CHECK block to
test/filecheck/passes/op-fusion.mlir. An activation's rules (conv2d_<act>,
conv2d_<act>_decomposed, matmul_<act>, matmul_bias_<act>) come from its
`Activation` trait (ge_dialect/traits.py), not from lines here.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, OpResult, Region, SSAValue
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)

from ge_dialect import ge
from ge_dialect.patterns import ANY, Const, Maybe, Op, OpKind, matches
from ge_dialect.traits import Activation
from passes.base import GEPass
from passes.driver.instrument import inherited_location, location_of

RESHAPES = ge.views("reshape")
# Ops that only re-address their operand. Between a projection and attention
# torch.export puts these: the split of a fused qkv projection, the split into
# heads, heads first (k^T as well).
VIEWS = ge.views("reshape", "slice", "transpose")
# ... and the repeat of each KV head for grouped-query attention (Hugging
# Face's repeat_kv: a view, an expand and a merge of the heads), which the
# fused kernel reads as the cache's own heads, copying nothing.
ATTENTION_VIEWS = (*VIEWS, *ge.views("expand"))
# The activations the host runs as a conv's or a matmul's epilogue
# (ge_dialect/traits.py `Activation`): those with a decomposed form first, as
# their decomposition holds other activations of the conv (x * sigmoid(x)).
ACTIVATIONS = sorted(ge.ops_with(Activation),
                     key=lambda op: op.get_trait(Activation).decomposed is None)
MATMULS = (ge.MatMulOp, ge.LinearOp)
# Every op that maps elements one to one: a chain of them is one vector pass.
ELEMENTWISE = (ge.UnaryElementwiseOp, ge.BinaryElementwiseOp, ge.WhereOp, ge.CastOp)


def viewed(pattern: Op) -> Maybe:
    """`pattern`, maybe seen through a reshape: torch.export wraps batched and
    3-D matmuls in views (flatten -> matmul -> reshape)."""
    return Maybe(Op(RESHAPES, pattern))


def conv_then(activation: OpKind) -> Op:
    """An activation right after a conv (and its bias, a conv operand)."""
    return Op(activation, Op(ge.Conv2dOp))


def short_name(op: type[Operation]) -> str:
    """`ge.relu` -> `relu`, as rule names spell an op."""
    return op.name.removeprefix("ge.")


def conv_activation_rules(op: type[Operation]) -> tuple[FusionRule, ...]:
    """conv2d_<act>, and conv2d_<act>_decomposed for the form core ATen writes
    (a DAG pattern: the conv is named so that both of its uses are the same op)."""
    decomposed = op.get_trait(Activation).decomposed
    rules = (FusionRule(f"conv2d_{short_name(op)}", conv_then(op)),)
    if decomposed is None:
        return rules
    conv = Op(ge.Conv2dOp, name="conv")
    return (*rules, FusionRule(f"conv2d_{short_name(op)}_decomposed", decomposed(conv)))


def matmul_activation_rules(op: type[Operation]) -> tuple[FusionRule, ...]:
    """matmul_bias_<act> and matmul_<act> (nn.Linear's bias is inside)."""
    if not op.get_trait(Activation).after_matmul:
        return ()
    return (FusionRule(f"matmul_bias_{short_name(op)}", Op(op, viewed(matmul_plus_bias())),
                       adds_a_bias),
            FusionRule(f"matmul_{short_name(op)}", Op(op, viewed(Op(MATMULS)))))


def matmul_plus_bias() -> Op:
    return Op(ge.AddOp, viewed(Op(MATMULS)), ANY, commutative=True)


# Attention scores: q @ k^T, maybe viewed back to heads, maybe scaled by a constant.
SCORES = Maybe(Op((ge.DivOp, ge.MulOp), viewed(Op(ge.MatMulOp)), Const()))


def attention(masked: Maybe | Op) -> Op:
    """softmax(masked scores) @ v, the whole block as one group."""
    return Op(ge.MatMulOp, viewed(Op(ge.SoftmaxOp, masked)))


# The attention rules by how the scores are masked: an added mask (or none);
# masked_fill's where(mask, fill, scores); scaled_dot_product_attention's
# boolean mask, where(keep, scores, -inf).
ATTENTION_MASKS = (
    ("attention", Maybe(Op(ge.AddOp, SCORES, ANY, commutative=True))),
    ("attention_masked_fill", Op(ge.WhereOp, ANY, ANY, SCORES)),
    ("attention_keep_mask", Op(ge.WhereOp, ANY, SCORES, ANY)),
)


# Rotary position embeddings: q * cos + rotate_half(q) * sin, where rotate_half
# is cat(-q[..., half:], q[..., :half]) (Llama, Qwen2, Mistral, GPT-NeoX).
ROTATE_HALF = Op(ge.ConcatOp, Op(ge.NegOp, Op(ge.SliceOp)), Op(ge.SliceOp))
ROTARY = Op(ge.AddOp, Op(ge.MulOp, ANY, ANY), Op(ge.MulOp, ROTATE_HALF, ANY, commutative=True),
            commutative=True)

# Hugging Face's RMSNorm on a 16-bit x: x.to(fp32), normalized, cast back.
RMS_NORM_16BIT = Op(ge.CastOp, Op(ge.RmsNormOp, Op(ge.CastOp)))

# Gated MLP: silu(x @ W_gate) * (x @ W_up) (Llama's SwiGLU), silu maybe decomposed.
GATE = viewed(Op(MATMULS, name="gate"))
GATED_MLP = Op(ge.MulOp, Op(ge.SiluOp, GATE), viewed(Op(MATMULS)), commutative=True)
GATED_MLP_DECOMPOSED = Op(ge.MulOp, Op(ge.MulOp, GATE, Op(ge.SigmoidOp, GATE), commutative=True),
                          viewed(Op(MATMULS)), commutative=True)


def same_shape_operands(ops: Sequence[Operation]) -> bool:
    """The residual add must not broadcast: both inputs have the conv's or
    the matmul's shape."""
    add = next(op for op in ops if isinstance(op, ge.AddOp))
    return add.lhs.type == add.rhs.type


def adds_a_bias(ops: Sequence[Operation]) -> bool:
    """The add's outside operand is a bias: one value per output column,
    broadcast over the rows (shape [N] or [1, ..., 1, N])."""
    add = next(op for op in ops if isinstance(op, ge.AddOp))
    (bias,) = [v for v in add.operands if not (isinstance(v, OpResult) and v.op in ops)] or [None]
    if bias is None:
        return False
    shape, out = ge.shape_of(bias), ge.shape_of(add.output)
    return bool(shape) and shape[-1] == out[-1] and all(d == 1 for d in shape[:-1])


@dataclass(frozen=True)
class FusionRule:
    """`pattern` is rooted at the group's last op (ge_dialect/patterns.py); every op
    it matches joins the group; a tuple of patterns are alternatives, tried
    in order. `repeat` extends the group backwards through more producers of
    that kind (chains of any length)."""

    name: str
    pattern: Op | tuple[Op, ...]
    constraint: Callable[[Sequence[Operation]], bool] | None = None
    repeat: OpKind | None = None


# Tried in this order at each root; a rule never takes an op that an earlier
# rule would root a group at, so the order is the priority.
RULES: tuple[FusionRule, ...] = (
    # q @ k^T (/ scale) (+ mask) -> softmax -> @ v; scale, mask and views optional.
    # The views that feed q, k and v join too (`repeat`): inside the group they
    # are strided views the matmuls read, not copies into buffers of their own;
    # so does repeat_kv's expand of grouped-query attention's KV heads.
    # Each form also with the transpose after it that merges the heads back
    # ([B, H, T, D] -> [B, T, H, D]): the fused kernel writes that layout
    # directly, where a task of its own would copy the result once more.
    *(FusionRule(name, (Op(ge.TransposeOp, attention(masked)), attention(masked)),
                 repeat=ATTENTION_VIEWS) for name, masked in ATTENTION_MASKS),
    FusionRule("conv2d_batch_norm_relu", Op(ge.ReluOp, Op(ge.BatchNormOp, Op(ge.Conv2dOp)))),
    FusionRule("conv2d_add_relu", Op(ge.ReluOp, Op(ge.AddOp, Op(ge.Conv2dOp), commutative=True)),
               same_shape_operands),
    # a residual join without an activation (MobileNetV2's linear bottleneck)
    FusionRule("conv2d_add", Op(ge.AddOp, Op(ge.Conv2dOp), ANY, commutative=True),
               same_shape_operands),
    # conv2d_<act> for each activation (relu6 imports as clamp(0, 6)), with
    # conv2d_<act>_decomposed before the activations its decomposition holds
    *(rule for op in ACTIVATIONS for rule in conv_activation_rules(op)),
    *(rule for op in ACTIVATIONS for rule in matmul_activation_rules(op)),
    FusionRule("matmul_bias", matmul_plus_bias(), adds_a_bias),
    # a transformer's residual join after a projection (x + attn(x), x + mlp(x))
    FusionRule("matmul_add", Op(ge.AddOp, viewed(Op(MATMULS)), ANY, commutative=True),
               same_shape_operands),
    # BERT's "Add & Norm", with any elementwise prologue (embedding sums)
    FusionRule("add_layer_norm", Op(ge.LayerNormOp, Op(ge.AddOp)), repeat=ELEMENTWISE),
    # the same with Llama's and T5's RMSNorm
    FusionRule("add_rms_norm", Op(ge.RmsNormOp, Op(ge.AddOp)), repeat=ELEMENTWISE),
    # a 16-bit model's RMSNorm: in fp32 between two casts, then its 16-bit weight
    FusionRule("rms_norm_16bit", (Op(ge.MulOp, RMS_NORM_16BIT, ANY, commutative=True),
                                  RMS_NORM_16BIT)),
    FusionRule("rotary_embedding", ROTARY),
    # a slice of merge-parallel-linears' joined projection split into heads,
    # heads first: one copy where each view was a task
    FusionRule("split_heads", Op(ge.TransposeOp, Op(RESHAPES, Op(ge.SliceOp)))),
    FusionRule("gated_mlp", GATED_MLP),
    FusionRule("gated_mlp_decomposed", GATED_MLP_DECOMPOSED),
    FusionRule("elementwise", Op(ELEMENTWISE, Op(ELEMENTWISE), commutative=True),
               repeat=ELEMENTWISE),
)


@dataclass
class Group:
    """A candidate group; `reason` says why it cannot be fused, if so."""

    members: list[Operation]  # program order, root last
    reason: str | None = None


Claimed = Callable[[Operation], str | None]


def _users(op: Operation) -> set[Operation]:
    return {use.operation for r in op.results for use in r.uses}


def _name(op: Operation) -> str:
    hint = op.results[0].name_hint if op.results else None
    return f"%{hint}" if hint else op.name


def _rejection(members: list[Operation], claimed: Claimed) -> str | None:
    """Why the group cannot be fused as is: an inner value escapes, or an inner
    op is the root of a better rule's group."""
    inside = set(members)
    for op in members[:-1]:
        if not _users(op) <= inside:
            return f"multi-use: {_name(op)} ({op.name}) has {len(_users(op))} users"
    for op in members[:-1]:
        if (better := claimed(op)) is not None:
            return f"claimed: {_name(op)} roots a '{better}' group"
    return None


def _size(members: Sequence[Operation]) -> int:
    """What max-group-size counts: the ops that compute. A view (an expand too) in a group is
    addressing (how a member reads its operand), not a step of its own."""
    return sum(not isinstance(op, ATTENTION_VIEWS) for op in members)


def _extend(members: list[Operation], kind: OpKind, max_size: int, claimed: Claimed) -> None:
    """Grow the group through producers of `kind`, of any member, whose users are
    all in the group: chains (and trees) of any length, up to `max_size` ops (`_size`).
    Since only the root has users outside, no outside op can sit between two
    members, so this never makes a cycle."""
    block = members[-1].parent

    def with_(p: Operation) -> list[Operation]:
        # p precedes a member that uses it: walking forward from p to the first
        # member keeps program order at the cost of the gap, where sorting by
        # Block.get_operation_index scanned the whole block (quadratic on chains).
        inside, after = set(members), p.next_op
        while after not in inside:
            after = after.next_op
        at = members.index(after)
        return [*members[:at], p, *members[at:]]

    while True:
        producers = (v.op for op in members for v in op.operands
                     if isinstance(v, OpResult) and isinstance(v.op, kind)
                     and v.op.parent is block and v.op not in members)
        grown = next((g for g in map(with_, producers)
                      if _size(g) <= max_size and _rejection(g, claimed) is None), None)
        if grown is None:
            return
        members[:] = grown


def match_group(root: Operation, rule: FusionRule, max_size: int,
                claimed: Claimed) -> Group | None:
    """The rule's group rooted at `root`, or None if its ops are not there at all.

    Of several structural matches the first fusable one wins; otherwise the
    first match is returned with its rejection reason.
    """
    first: Group | None = None
    patterns = rule.pattern if isinstance(rule.pattern, tuple) else (rule.pattern,)
    for m in (m for pattern in patterns for m in matches(pattern, root)):
        group = Group(list(m.ops), _rejection(m.ops, claimed))
        if group.reason is None and rule.repeat is not None:
            _extend(group.members, rule.repeat, max_size, claimed)
        if group.reason is None and _size(group.members) > max_size:
            group.reason = f"size cap: {_size(group.members)} ops > max-group-size={max_size}"
        if (group.reason is None and rule.constraint is not None
                and not rule.constraint(group.members)):
            group.reason = f"constraint: {rule.constraint.__name__}"
        if group.reason is None:
            return group
        first = first or group
    return first


@dataclass
class RuleReport:
    matched: int = 0
    applied: int = 0
    rejected: list[dict] = field(default_factory=list)


@dataclass
class FusionReport:
    """Per rule: how often its pattern was found, fused, and why it was not."""

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
    fused.location = inherited_location(fused, root.location)  # its members' lines, fused
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
            group = match_group(op, rule, self.max_size,
                                lambda m, better=self.rules[:i]: self._roots(m, better))
            if group is None:
                continue
            stats = self.report.rules[rule.name]
            stats.matched += 1
            if group.reason is not None:
                where = location_of(op)
                stats.rejected.append({"root": _name(op), "op": op.name, "reason": group.reason,
                                       **({"loc": where} if where else {})})
                continue
            stats.applied += 1
            fuse(rewriter, rule.name, group.members)
            return

    def _roots(self, op: Operation, rules: Sequence[FusionRule]) -> str | None:
        """The first of `rules` that would fuse a group rooted at `op`."""
        for rule in rules:
            group = match_group(op, rule, self.max_size, lambda _: None)
            if group is not None and group.reason is None:
                return rule.name
        return None


# Rules added at run time by plugins (passes.driver.plugins.register_fusion_rule):
# FIRST_RULES before the built-in table, EXTRA_RULES after it.
FIRST_RULES: list[FusionRule] = []
EXTRA_RULES: list[FusionRule] = []


def all_rules() -> tuple[FusionRule, ...]:
    """The rule table in the order it is tried: registered-first, built-in, registered."""
    return (*FIRST_RULES, *RULES, *EXTRA_RULES)


def fuse_module(module: ModuleOp, max_group_size: int = 8,
                rules: Sequence[FusionRule] | None = None) -> FusionReport:
    """Fuse `module` in place by `rules` (default: `all_rules()`); return what
    matched, fused and was rejected."""
    if rules is None:
        rules = all_rules()
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
class OpFusionPass(GEPass):
    """Fuse op chains by the RULES table into `ge.fused` ops.

    Roots are visited from the end of each function backwards, so a chain is
    always matched from its last op and the longest rule wins.
    `max-group-size` caps the number of ops in one group that compute (views
    do not count: slice, reshape, flatten, transpose, expand); `report=FILE`
    writes the fusion report as JSON (see `fuse_module` for the Python API).
    """

    name = "op-fusion"
    max_group_size: int = 8
    report: str | None = None

    def __post_init__(self):
        # Checked when the pipeline is built, so a bad option is a user error
        # before anything runs, not an exception in the middle of a pass.
        if self.max_group_size < 1:
            raise ValueError(f"op-fusion: max-group-size must be >= 1, got {self.max_group_size}")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        result = fuse_module(op, self.max_group_size)
        if self.report is not None:
            with open(self.report, "w") as f:
                json.dump(result.to_json(), f, indent=2)
