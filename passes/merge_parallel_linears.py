"""merge-parallel-linears: linears reading one input, each split into heads,
become one linear over their joined weights and a slice per former result.

    q = linear(x, Wq); k = linear(x, Wk); v = linear(x, Wv)
      -> qkv = linear(x, concat(Wq, Wk, Wv)); q, k, v = qkv[..., 0:nq], [nq:nq+nk], ...

Attention's q, k and v projections (Llama, Qwen2, Mistral; BERT's query, key
and value) read the same hidden states. At a decode step each is a GEMV that
reads its weight from memory once; joined, the bytes are the same but the
host makes one call where it made three, and op-fusion's `split_heads` rule
then makes each slice and its split into heads one copy, where the separate
projections needed a task per view.

Only linears whose every user is a reshape (the split into heads) are
merged: a gated MLP's gate and up projections stay apart for op-fusion's
gated_mlp, and a linear whose result is used as a whole gains nothing from
a slice. Weights (and biases) must be ge.const of one element type, 2-D, of
the same input width; a missing bias among biased linears counts as zeros.
It runs after cse (which makes the projections read one value) and before
op-fusion, as ge-O3 orders it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation
from xdsl.rewriter import InsertPoint, Rewriter

from ge_dialect import ge
from ge_dialect.tensors import from_numpy, to_numpy
from passes.base import GEPass
from passes.fold_batch_norm import const_array

RESHAPES = ge.views("reshape")


def _mergeable(op: ge.LinearOp) -> bool:
    """A linear split into heads, with constant 2-D weight (and bias)."""
    weight = op.weight.owner
    bias = op.bias.owner if op.bias is not None else None
    users = [use.operation for use in op.output.uses]
    return (isinstance(weight, ge.ConstOp) and len(ge.shape_of(op.weight)) == 2
            and (bias is None or isinstance(bias, ge.ConstOp))
            and bool(users) and all(isinstance(u, RESHAPES) for u in users))


def parallel_linears(block: Block) -> list[list[ge.LinearOp]]:
    """Groups of two or more mergeable linears reading the same value with
    weights of one type and width, in program order."""
    groups: dict[tuple, list[ge.LinearOp]] = {}
    for op in block.ops:
        if isinstance(op, ge.LinearOp) and _mergeable(op):
            key = (op.input, op.weight.type.element_type, ge.shape_of(op.weight)[1])
            groups.setdefault(key, []).append(op)
    return [g for g in groups.values() if len(g) > 1]


def merge(group: list[ge.LinearOp]) -> None:
    """Replace the linears of `group` by one linear and a slice each."""
    rewriter = Rewriter()
    first = group[0]
    weights = [const_array(op.weight) for op in group]
    widths = [w.shape[0] for w in weights]
    ops: list[Operation] = [ge.ConstOp(from_numpy(np.concatenate(weights)))]
    names = [op.weight.name_hint or f"w{i}" for i, op in enumerate(group)]
    ops[0].output.name_hint = "_".join(names) + "_merged"
    bias = None
    if any(op.bias is not None for op in group):
        dtype = weights[0].dtype
        biases = [to_numpy(op.bias.owner.value).astype(dtype) if op.bias is not None
                  else np.zeros(n, dtype) for op, n in zip(group, widths)]
        ops.append(ge.ConstOp(from_numpy(np.concatenate(biases))))
        ops[-1].output.name_hint = ops[0].output.name_hint.replace("_merged", "_bias_merged")
        bias = ops[-1].output
    joined = ge.LinearOp(first.input, ops[0].output, bias)
    joined.output.name_hint = "_".join(op.output.name_hint or "linear" for op in group)
    joined.location = first.location
    ops.append(joined)
    rewriter.insert_op(ops, InsertPoint.before(first))
    start = 0
    for op, n in zip(group, widths):
        part = ge.SliceOp(joined.output, -1, start, start + n)
        part.output.name_hint = op.output.name_hint
        part.location = op.location
        rewriter.insert_op(part, InsertPoint.before(op))
        op.output.replace_all_uses_with(part.output)
        dead = [v.owner for v in op.operands[1:]]
        rewriter.erase_op(op)
        for const in dead:
            if isinstance(const, ge.ConstOp) and not const.output.uses:
                rewriter.erase_op(const)
        start += n


@dataclass(frozen=True)
class MergeParallelLinearsPass(GEPass):
    """Merge linears that read one input and are each split into heads
    (attention's q, k and v projections) into one linear and slices.

    Assumes constant weights; leaves any other linear alone (see the
    module docstring for the conditions)."""

    name = "merge-parallel-linears"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in op.walk():
            if isinstance(fn, func.FuncOp):
                for block in fn.body.blocks:
                    for group in parallel_linears(block):
                        merge(group)
