"""An attention task (op-fusion's `attention` group) as one call of torch's
fused attention kernel.

The group's body is softmax(q @ k^T [* or / a constant] [masked]) @ v after
the views that split q, k and v into heads. The mask is added (a float
tensor) or a where(condition, scores, fill) whose fill is -inf or so large
that adding it to a score gives the fill (finfo.min, as in Hugging Face's
masks): the same softmax as adding where(condition, 0, fill).

Op by op, the host builds the [B, H, T, S] scores, scales them, masks them
and takes their softmax as four fresh tensors;
`F.scaled_dot_product_attention` on the CPU runs the same arithmetic
blocked over keys with an online softmax (flash attention), never holding
the scores. The views before the scores still run as the body says (they
are strided views, no copies). With BERT-base's 12 heads on 2 AVX2 cores,
one attention at 128 tokens took the same time both ways (0.6 ms) and at
512 tokens 6.5 ms against 9.3 ms, without the four [12, 512, 512] score
tensors.

Two semantic points keep it exact against the body:
- the scale is the body's constant (a division becomes its reciprocal);
- a query whose mask is -inf for every key: the body's softmax gives NaN
  there (0 if `safe`), the fused kernel does not promise either, so such a
  call runs the body op by op. Only the mask can make a row -inf, since
  finite q and k give finite scores.

fp32 bodies only: a 16-bit body has precision-mode's casts between its ops.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F
from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue

from ge_dialect import ge
from runtime import kernels
from runtime.program import BlockProgram

Runner = Callable[..., None]


def _producer(value: SSAValue, kind) -> Operation | None:
    """The op of `kind` that makes `value` and nothing else reads, if any."""
    if isinstance(value, OpResult) and isinstance(value.op, kind) and value.has_one_use():
        return value.op
    return None


def _scalar(value: SSAValue, block: Block, ins: list, constants: list[bool]) -> float | None:
    """The value of a one-element constant operand (in the body or a weight)."""
    if isinstance(value, OpResult) and isinstance(value.op, ge.ConstOp):
        t = kernels.tensor_from_attr(value.op.value)
    elif (isinstance(value, BlockArgument) and value.block is block and constants[value.index]
          and ins[value.index] is not None):
        t = ins[value.index]
    else:
        return None
    return float(t.reshape(-1)[0]) if t.numel() == 1 else None


def _chain(value: SSAValue, block, ins, constants) -> tuple[Operation | None, float, Operation]:
    """(scaling op, scale, q @ k^T matmul) if `value` is q @ k^T maybe scaled by
    a constant, each op read only by the next; else a None matmul."""
    scaling, scale = _producer(value, (ge.DivOp, ge.MulOp)), 1.0
    if scaling is not None:
        c = _scalar(scaling.rhs, block, ins, constants)
        if not c:
            return None, 1.0, None
        scale, value = (1.0 / c if isinstance(scaling, ge.DivOp) else c), scaling.lhs
    return scaling, scale, _producer(value, ge.MatMulOp)


def _masking(value: SSAValue, block, ins, constants):
    """(mask op, mask value, keep, fill, scores) for the op making the
    softmax's input: an additive mask (add, mask, None, None, scores) or
    a where between the scores and a constant fill (where, condition,
    whether the condition marks the keys to keep, fill, scores); or Nones."""
    add = _producer(value, ge.AddOp)
    if add is not None:
        scores = [v for v in add.operands if _chain(v, block, ins, constants)[2] is not None]
        if len(scores) != 1 or add.output.type != scores[0].type:
            return None  # which operand is the mask is unclear, or it broadcasts the scores
        return add, add.rhs if scores[0] is add.lhs else add.lhs, None, None, scores[0]
    where = _producer(value, ge.WhereOp)
    if where is None or str(where.condition.type.element_type) != "i1":
        return None
    for keep, scores, fill in ((True, where.lhs, where.rhs), (False, where.rhs, where.lhs)):
        c = _scalar(fill, block, ins, constants)
        # A fill that absorbs any score (s + fill == fill in fp32) gives the
        # same softmax as an additive mask; -inf leaves a query with no key.
        if (c is not None and c <= -1e30 and where.output.type == scores.type
                and _chain(scores, block, ins, constants)[2] is not None):
            return where, where.condition, keep, c, scores
    return None


def runner(block: Block, ins: list, constants: list[bool], out: torch.Tensor) -> Runner | None:
    """The attention body as torch's fused kernel writing `out`, or None if
    the body is not softmax(q @ k^T * scale, masked) @ v in fp32."""
    ops = _ops(block)
    pv = ops[-1] if ops else None
    if (not isinstance(pv, ge.MatMulOp) or list(block.last_op.operands) != [pv.output]
            or out.dtype != torch.float32 or len(pv.output.type.get_shape()) != 4):
        return None
    softmax = _producer(pv.lhs, ge.SoftmaxOp)
    if softmax is None or softmax.dim.value.data not in (-1, 3):
        return None
    masking = _masking(softmax.input, block, ins, constants)
    if masking is None:
        mask_op = mask = keep = fill = None
        scores = softmax.input
    else:
        mask_op, mask, keep, fill, scores = masking
    scaling, scale, qk = _chain(scores, block, ins, constants)
    if qk is None:
        return None
    fused = {pv, softmax, qk} | {op for op in (mask_op, scaling) if op is not None}
    values = [qk.lhs, qk.rhs, pv.rhs]
    if any(str(v.type.element_type) != "f32" for v in values) or not _heads_match(
            *(v.type.get_shape() for v in values)):
        return None
    if mask is not None:
        if keep is None and str(mask.type.element_type) != "f32":
            return None
        values.append(mask)
    return _build(block, fused, values, scale, _masker(keep, fill), out)


def _heads_match(q, kt, v) -> bool:
    """q [B, H, T, D], k^T [B, H, D, S], v [B, H, S, E], static and without
    broadcasting: the matmuls broadcast batch dims, the fused kernel does not."""
    return (all(len(x) == 4 and min(x) >= 0 for x in (q, kt, v))
            and q[:2] == kt[:2] == v[:2] and q[3] == kt[2] and kt[3] == v[2])


def _masker(keep: bool | None, fill: float | None) -> Callable:
    """The body's mask -> the fused kernel's float attn_mask, or None where
    the body must run op by op: a query whose keys all get -inf, for which
    the body's softmax gives NaN (0 if `safe`) and the fused kernel promises
    neither."""
    def additive(mask):
        return None if bool((mask.amax(-1) == float("-inf")).any()) else mask

    def where(condition):
        kept = condition if keep else ~condition
        if fill == float("-inf") and not bool(kept.any(-1).all()):
            return None
        return torch.zeros(kept.shape).masked_fill_(~kept, fill)
    return additive if keep is None else where


def _build(block: Block, fused: set, values: list[SSAValue], scale: float, masker: Callable,
           out: torch.Tensor) -> Runner:
    op_by_op = BlockProgram(block)
    prefix = BlockProgram(block)  # the views before the scores, then the kernel
    slot = {v: i for i, v in enumerate(prefix.slot_values)}
    steps = [step for op, step in zip(_ops(block), prefix.steps) if op not in fused]

    def sdpa(q, kt, v, mask=None):
        if mask is not None:
            mask = masker(mask)
            if mask is None:
                return None
        return F.scaled_dot_product_attention(q, kt.transpose(-1, -2), v, attn_mask=mask,
                                              scale=scale)

    result = len(prefix.slot_values)  # a slot of its own for the kernel's result
    prefix.steps = steps + [(sdpa, [slot[v] for v in values], [result])]
    prefix.num_slots += 1
    prefix.slot_values.append(None)
    prefix.outputs = [result]
    prefix.frees = prefix._last_uses()

    def attention(*args):
        (y,) = prefix.run(args)
        if y is None:
            (y,) = op_by_op.run(args)
        out.copy_(y)
    return attention


def _ops(block: Block) -> list[Operation]:
    return [op for op in block.ops if not isinstance(op, ge.YieldOp)]
