"""An attention task (op-fusion's `attention` group) as one fused call.

The group's body is softmax(q @ k^T [* or / a constant] [masked]) @ v after
the views that split q, k and v into heads. The mask is added (a float
tensor) or a where(condition, scores, fill) whose fill is -inf or so large
that adding it to a score gives the fill (finfo.min, as in Hugging Face's
masks): the same softmax as adding where(condition, 0, fill).

Op by op, the host builds the [B, H, T, S] scores, scales them, masks them
and takes their softmax as four fresh tensors. Two fused forms replace that:

- oneDNN primitives (`_primitives`), where q, k, v and an additive mask are
  views of the arena bound at load (BERT's, after its QKV linear): q @ k^T
  with the scale and the mask as post-ops into one fp32 scores buffer of
  the shared workspace, the softmax in place (runtime/host/softmax.py's C
  loop, or oneDNN's), p @ v into the output view.
  BERT-base's 12 attentions took 8.7 ms of a run this way against 12.5 ms
  with torch's kernel (2 AVX2 cores, 128 tokens).
- a C loop (runtime/host/row_attention.py) for a few queries (a decode
  step) whose q, k, v and mask are the task's inputs, as they are (the KV
  cache, a grouped-query head serving several query heads): no mask
  tensor built, no copy of the result;
- `F.scaled_dot_product_attention` otherwise (graph inputs, where-masks):
  the same arithmetic blocked over keys with an online softmax (flash
  attention), never holding the scores; at 512 tokens 6.5 ms against 9.3 ms
  op by op. fp32 bodies only.

Two semantic points keep it exact against the body:
- the scale is the body's constant (a division becomes its reciprocal);
- a query whose mask is -inf for every key: the body's softmax gives NaN
  there (0 if `safe`). oneDNN's softmax gives NaN too; torch's fused
  kernel promises neither, so there (and for a safe softmax in either
  form) such a call runs the body op by op. Only the mask can make a row
  -inf, since finite q and k give finite scores.

A bf16 body (precision-mode's, its matmuls in bf16) runs as the cube runs
attention, as Ascend's fused attention kernel and OpenVINO's do: bf16
operands, fp32 accumulation, the scores kept in fp32 from q @ k^T to the
softmax, whose probabilities are rounded to bf16 once for p @ v. The casts
the body has between those ops are the kernels' loads and stores, so the
scores are rounded once fewer than op by op. Only oneDNN's primitives run
it; elsewhere (no bf16 kernel, a graph input) the body runs op by op.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
import torch.nn.functional as F
from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue

from ge_dialect import ge
from runtime import kernels
from runtime.host import onednn as dnnl
from runtime.host import row_attention
from runtime.host import softmax as host_softmax
from runtime.program import BlockProgram

Runner = Callable[..., None]

# Queries x keys up to which the oneDNN form beats torch's flash kernel, which
# never writes the scores: with BERT-base's 12 heads of 64 on 2 AVX2 cores,
# 0.52 against 0.80 ms at 128 tokens (batch 1 to 8 alike), even at 256 and
# 384 tokens, 7.3 against 7.0 ms at 512 and 29.6 against 25.1 ms at 1024.
MAX_SCORES_PER_HEAD = 256 * 256

FLOATS = {"f32", "bf16", "f16"}
# the matmuls' element type -> their operands' torch type
COMPUTE_TYPES = {"f32": torch.float32, "bf16": torch.bfloat16}
COMPUTE = set(COMPUTE_TYPES.values())  # the output types written


def _producer(value: SSAValue, kind, casts: set) -> Operation | None:
    """The op of `kind` that makes `value` and nothing else reads, if any,
    maybe behind float casts read only by the next op (precision-mode's,
    between the ops of a 16-bit body), which go into `casts`."""
    value = _uncast(value, casts)
    if isinstance(value, OpResult) and isinstance(value.op, kind) and value.has_one_use():
        return value.op
    return None


def _uncast(value: SSAValue, casts: set) -> SSAValue:
    """`value` before the float casts that make it, each read only by the
    next, added to `casts`."""
    while (isinstance(value, OpResult) and isinstance(value.op, ge.CastOp)
           and value.has_one_use() and {str(value.type.element_type),
                                        str(value.op.input.type.element_type)} <= FLOATS):
        casts.add(value.op)
        value = value.op.input
    return value


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


def _chain(value: SSAValue, block, ins, constants, casts: set
           ) -> tuple[Operation | None, float, Operation]:
    """(scaling op, scale, q @ k^T matmul) if `value` is q @ k^T maybe scaled by
    a constant, each op read only by the next; else a None matmul. The
    casts passed go into `casts` only if it is."""
    passed: set = set()
    scaling, scale = _producer(value, (ge.DivOp, ge.MulOp), passed), 1.0
    if scaling is not None:
        c = _scalar(scaling.rhs, block, ins, constants)
        if not c:
            return None, 1.0, None
        scale, value = (1.0 / c if isinstance(scaling, ge.DivOp) else c), scaling.lhs
    qk = _producer(value, ge.MatMulOp, passed)
    if qk is not None:
        casts |= passed
    return scaling, scale, qk


def _masking(value: SSAValue, block, ins, constants, casts: set):
    """(mask op, mask value, keep, fill, scores) for the op making the
    softmax's input: an additive mask (add, mask, None, None, scores) or
    a where between the scores and a constant fill (where, condition,
    whether the condition marks the keys to keep, fill, scores); or Nones."""
    add = _producer(value, ge.AddOp, casts)
    if add is not None:
        scores = [v for v in add.operands if _chain(v, block, ins, constants, set())[2]]
        if len(scores) != 1 or add.output.type != scores[0].type:
            return None  # which operand is the mask is unclear, or it broadcasts the scores
        return add, add.rhs if scores[0] is add.lhs else add.lhs, None, None, scores[0]
    where = _producer(value, ge.WhereOp, casts)
    if where is None or str(where.condition.type.element_type) != "i1":
        return None
    for keep, scores, fill in ((True, where.lhs, where.rhs), (False, where.rhs, where.lhs)):
        c = _scalar(fill, block, ins, constants)
        # A fill that absorbs any score (s + fill == fill in fp32) gives the
        # same softmax as an additive mask; -inf leaves a query with no key.
        if (c is not None and c <= -1e30 and where.output.type == scores.type
                and _chain(scores, block, ins, constants, set())[2] is not None):
            return where, where.condition, keep, c, scores
    return None


def runner(block: Block, ins: list, constants: list[bool], out: torch.Tensor,
           primitives: bool = False, workspace: dnnl.Workspace | None = None) -> Runner | None:
    """The attention body as one fused call writing `out` (oneDNN's
    primitives if `primitives` and the views allow, else torch's kernel),
    or None if the body is not softmax(q @ k^T * scale, masked) @ v with
    fp32 matmuls, or bf16 ones that oneDNN's primitives take."""
    if len(block.last_op.operands) != 1 or out.dtype not in COMPUTE:
        return None
    casts: set = set()
    # with the heads merged back after it, out is the result's transpose
    merge = _producer(block.last_op.operands[0], ge.TransposeOp, casts)
    pv = _producer(merge.input if merge else block.last_op.operands[0], ge.MatMulOp, casts)
    if not isinstance(pv, ge.MatMulOp) or len(pv.output.type.get_shape()) != 4:
        return None
    target = out
    if merge is not None:
        perm = list(merge.permutation.get_values())
        target = out.permute([perm.index(d) for d in range(len(perm))])
    softmax = _producer(pv.lhs, ge.SoftmaxOp, casts)
    if softmax is None or softmax.dim.value.data not in (-1, 3):
        return None
    masking = _masking(softmax.input, block, ins, constants, casts)
    if masking is None:
        mask_op = mask = keep = fill = None
        scores = softmax.input
    else:
        mask_op, mask, keep, fill, scores = masking
    scaling, scale, qk = _chain(scores, block, ins, constants, casts)
    if qk is None:
        return None
    dtype = str(qk.lhs.type.element_type)
    if (dtype not in COMPUTE_TYPES or any(str(v.type.element_type) != dtype
                                          for v in (qk.rhs, pv.lhs, pv.rhs))
            or (casts and dtype == "f32")):
        return None  # an fp32 body with casts rounds between its ops: left to run so
    # q, k and v as the body has them before converting them to the matmuls' type
    values = [_uncast(v, casts) for v in (qk.lhs, qk.rhs, pv.rhs)]
    fused = casts | {pv, softmax, qk} | {op for op in (mask_op, scaling, merge) if op is not None}
    shapes = [v.type.get_shape() for v in values]
    dynamic = _keys_dynamic(*shapes)  # over a growing cache: the C loop (or torch's) only
    if (any(str(v.type.element_type) not in ("f32", dtype) for v in values)
            or not (dynamic or _heads_match(*shapes))):
        return None
    if mask is not None:
        if keep is None and str(mask.type.element_type) not in ("f32", dtype):
            return None
        values.append(mask)
    masker = _masker(keep, fill)
    # the C loop's mask and softmax (runtime/host/row_attention.py)
    loop = (row_attention.NO_MASK if mask is None else row_attention.ADDITIVE if keep is None
            else row_attention.KEEP_TRUE if keep else row_attention.KEEP_FALSE, fill or 0.0,
            softmax.safe is not None, ins)
    grouped = _grouped_kv(qk.rhs, pv.rhs) if not casts else None
    if grouped is not None and dtype != "f32":
        rows = _rows_or_body(block, [values[0], *grouped[:2], *values[3:]], scale, out,
                             target, grouped[2], loop)
        if rows is not None:
            return rows
    elif grouped is not None:  # grouped-query attention: read the cache as it is
        k, v, groups, chains = grouped
        return _build(block, fused | chains, [values[0], k, v, *values[3:]], scale, masker,
                      out, target, groups, loop)
    if primitives and keep is None and not dynamic and dnnl.available():
        # oneDNN's softmax gives a row of -inf NaN, as the body's does; a safe
        # softmax's 0 there takes the body
        built = _primitives(block, fused, values, COMPUTE_TYPES[dtype], scale,
                            masker if softmax.safe is not None else None, ins, out, target,
                            workspace)
        if built is not None:
            return built
    if dtype != "f32":  # torch's kernel would compute it in another precision than the body's
        return _rows_or_body(block, values, scale, out, target, 1, loop)
    return _build(block, fused, values, scale, masker, out, target, loop=loop)


RESHAPES = ge.views("reshape")


def _repeated_heads(value: SSAValue) -> tuple[SSAValue, int, set] | None:
    """(x, n, ops) if `value` is Hugging Face's repeat_kv(x, n): x [B, KVH, S, D]
    viewed [B, KVH, 1, S, D], expanded to [B, KVH, n, S, D] and merged to
    [B, KVH * n, S, D], so head h reads x's head h // n; `ops` make it."""
    merged = _producer(value, RESHAPES, set())
    expanded = _producer(merged.input, ge.ExpandOp, set()) if merged is not None else None
    split = _producer(expanded.input, RESHAPES, set()) if expanded is not None else None
    if split is None or expanded.sizes:
        return None
    x = split.input
    xs, es, ms = (list(ge.shape_of(v)) for v in (x, expanded.output, merged.output))
    if len(xs) != 4 or min(xs[:2] + xs[3:]) < 0 or len(es) != 5:
        return None  # the length (a dynamic cache's) may be `?`
    b, kvh, s, d = xs
    n = es[2]
    if list(ge.shape_of(split.output)) != [b, kvh, 1, s, d] or es != [b, kvh, n, s, d] \
            or ms != [b, kvh * n, s, d]:
        return None
    return x, n, {merged, expanded, split}


def _grouped_kv(kt: SSAValue, v: SSAValue) -> tuple[SSAValue, SSAValue, int, set] | None:
    """(k, v, n, ops) if the body's k^T and v are both repeat_kv'd n > 1 times
    (Llama, Mistral, Qwen2's grouped-query attention): the fused kernel then
    reads the cache's KVH heads directly instead of n copies of each."""
    transpose = _producer(kt, ge.TransposeOp, set())
    if transpose is None or list(transpose.permutation.get_values()) != [0, 1, 3, 2]:
        return None
    k, v = _repeated_heads(transpose.input), _repeated_heads(v)
    if k is None or v is None or k[1] != v[1] or k[1] < 2:
        return None
    return k[0], v[0], k[1], k[2] | v[2] | {transpose}


def _heads_match(q, kt, v) -> bool:
    """q [B, H, T, D], k^T [B, H, D, S], v [B, H, S, E], static and without
    broadcasting: the matmuls broadcast batch dims, the fused kernel does not."""
    return (all(len(x) == 4 and min(x) >= 0 for x in (q, kt, v))
            and q[:2] == kt[:2] == v[:2] and q[3] == kt[2] and kt[3] == v[2])


def _keys_dynamic(q, kt, v) -> bool:
    """The same, but for the number of keys, a `?` dim (a dynamic cache's length)."""
    static = (q, kt[:3], v[:2], v[3:])
    return (all(len(x) == 4 for x in (q, kt, v)) and all(min(x) >= 0 for x in static)
            and kt[3] < 0 and v[2] < 0 and q[:2] == kt[:2] == v[:2] and q[3] == kt[2])


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
           out: torch.Tensor, target: torch.Tensor, groups: int = 1,
           loop: tuple | None = None) -> Runner:
    """torch's fused kernel over q, k^T, v (and the mask); with `groups` > 1,
    q, k and v [B, KVH, S, D] of grouped-query attention, each k and v head
    serving `groups` query heads (`_grouped`). With `loop` (the mask's kind
    and fill, the task's bound inputs), a few queries read straight from
    the task's inputs run as one C loop (`_row_loop`), torch's kernel
    being kept for a call whose inputs the loop does not take."""
    rows = _row_loop(block, values, scale, target, groups, *loop) if loop is not None else None
    op_by_op = BlockProgram(block)
    prefix, slot = _prefix(block, fused)  # the views before the scores, then the kernel

    def sdpa(q, kt, v, mask=None):
        if mask is not None:
            mask = masker(mask)
            if mask is None:
                return None
        if groups > 1:
            return _grouped(q, kt, v, mask, groups, scale)
        return F.scaled_dot_product_attention(q, kt.transpose(-1, -2), v, attn_mask=mask,
                                              scale=scale)

    result = len(prefix.slot_values)  # a slot of its own for the kernel's result
    prefix.steps.append((sdpa, [slot[v] for v in values], [result]))
    prefix.num_slots += 1
    prefix.slot_values.append(None)
    prefix.outputs = [result]
    prefix.frees = prefix._last_uses()

    def attention(*args):
        if rows is not None and rows(args):
            return
        (y,) = prefix.run(args)
        if y is None:
            out.copy_(op_by_op.run(args)[0])
        else:
            target.copy_(y)
    attention.groups = groups  # query heads per k and v head read
    attention.row_loop = rows is not None
    attention.any_length = getattr(rows, "any_length", False)  # a dynamic cache's
    if hasattr(rows, "bind"):
        attention.bind = rows.bind
    return attention


def _rows_or_body(block: Block, values: list[SSAValue], scale: float, out: torch.Tensor,
                  target: torch.Tensor, groups: int, loop: tuple) -> Runner | None:
    """A 16-bit body at a decode step: the C loop (fp32 inside,
    runtime/host/row_attention.py), the body op by op for a call whose
    inputs the loop does not take; None where the loop cannot run."""
    rows = _row_loop(block, values, scale, target, groups, *loop)
    if rows is None:
        return None
    op_by_op = BlockProgram(block)

    def row_attention_16bit(*args):
        if not rows(args):
            out.copy_(op_by_op.run(args)[0])
    row_attention_16bit.groups = groups
    row_attention_16bit.row_loop = True
    if hasattr(rows, "bind"):  # a captured replay's call with no arguments
        row_attention_16bit.bind = rows.bind
    row_attention_16bit.any_length = getattr(rows, "any_length", False)  # a dynamic cache's
    row_attention_16bit.path = "c-loop-bf16:row_attention"  # the loop's only 16-bit type
    return row_attention_16bit


def _row_loop(block: Block, values: list[SSAValue], scale: float, target: torch.Tensor,
              groups: int, kind: int, fill: float, safe: bool, ins: list) -> Callable | None:
    """runtime/host/row_attention.py's loop over q, k (k^T unless grouped),
    v and the mask, if each is a task input (no view made per call in
    between) of static shape but for the number of keys, else None."""
    operands = []
    for v in values:
        shape = tuple(ge.shape_of(v))
        if not isinstance(v, BlockArgument) or v.block is not block:
            return None
        bound = ins[v.index] if v.index < len(ins) else None
        operands.append((v.index, bound if isinstance(bound, torch.Tensor) else None, shape))
    mask = operands[3] if len(operands) > 3 else None
    return row_attention.runner(*operands[:3], mask, kind, fill, scale, target, groups,
                                k_transposed=groups == 1, safe=safe)


def _grouped(q, k, v, mask, groups: int, scale: float) -> torch.Tensor:
    """Grouped-query attention without repeating k and v: the `groups` query
    heads that share a k and v head become rows of one head (q [B, H, T, D]
    viewed [B, KVH, groups * T, D]), the mask alike; the result is viewed back
    to [B, H, T, E]. Faster than torch's enable_gqa on the CPU at one query
    (12 against 16 us for 8 heads over 160 keys) and exact: each row's
    softmax sees the same scores."""
    b, h, t, _ = q.shape
    kvh = k.shape[1]
    rows = q.reshape(b, kvh, groups * t, q.shape[3])
    if mask is not None:
        mask = mask.reshape((1,) * (4 - mask.dim()) + tuple(mask.shape))
        mb, mh, mt, s = mask.shape
        if mh == 1 and mt == 1:
            pass  # one row of the mask for every query: it broadcasts as it is
        elif mh == 1:
            mask = mask.expand(mb, 1, t, s).unsqueeze(2).expand(mb, 1, groups, t, s) \
                .reshape(mb, 1, groups * t, s)
        else:
            mask = mask.expand(mb, h, t, s).reshape(mb, kvh, groups * t, s)
    y = F.scaled_dot_product_attention(rows, k, v, attn_mask=mask, scale=scale)
    return y.view(b, h, t, v.shape[3])


def _prefix(block: Block, fused: set) -> tuple[BlockProgram, dict[SSAValue, int]]:
    """The body's program cut to its ops outside `fused` (the views that
    split q, k and v into heads), and the slot of each value."""
    program = BlockProgram(block)
    program.steps = [step for op, step in zip(_ops(block), program.steps) if op not in fused]
    return program, {v: i for i, v in enumerate(program.slot_values)}


def _views_at_load(block: Block, fused: set, values: list[SSAValue], ins: list
                   ) -> list[torch.Tensor] | None:
    """`values` computed now from the task's bound inputs by the body's
    ops outside `fused` (the head-splitting views), if every one of them is
    a view of an input: then they stay valid, call after call."""
    if any(not isinstance(x, torch.Tensor) for x in ins):
        return None  # a graph input, bound only per call
    program, slot = _prefix(block, fused)
    program.outputs = [slot[v] for v in values]
    program.frees = program._last_uses()
    try:
        views = program.run(ins)
    except RuntimeError:
        return None
    storages = {x.untyped_storage().data_ptr() for x in ins}
    if any(v.untyped_storage().data_ptr() not in storages for v in views):
        return None  # a copy made now would not see later calls' values
    return views


def _primitives(block: Block, fused: set, values: list[SSAValue], dtype: torch.dtype,
                scale: float, masker: Callable | None, ins: list, out: torch.Tensor,
                target: torch.Tensor, workspace: dnnl.Workspace | None) -> Runner | None:
    """The group as oneDNN primitives on views bound at load: q @ k^T
    into a [B, H, T, S] fp32 scores buffer, scaled and masked by post-ops;
    the softmax in place (with bf16 matmuls, rounded into a bf16 buffer),
    by the C loop of runtime/host/softmax.py where it builds, else by
    oneDNN's primitive (and a reorder to bf16); p @ v into `target` (`out`,
    or the view of it that merges the heads back). q, k or
    v that the body converts to the matmuls' `dtype` are converted per call
    into buffers of the shared workspace, as are the scores. One of
    BERT-base's attentions after its QKV linear took 0.49 ms so against 0.73
    ms in torch's kernel (fp32)."""
    views = _views_at_load(block, fused, values, ins)
    if views is None or target.stride(-1) != 1:
        return None
    q, kt, v, *rest = views
    if q.shape[2] * kt.shape[3] > MAX_SCORES_PER_HEAD:
        return None
    post_ops = [("eltwise", "linear", scale, 0.0)] if scale != 1.0 else []
    mask = rest[0] if rest else None
    if mask is not None:
        if mask.dim() > 4:
            return None
        mask = mask.view([1] * (4 - mask.dim()) + list(mask.shape))
        post_ops.append(("add", mask))
    shape = [*q.shape[:3], kt.shape[3]]
    # oneDNN 3.2 has no bf16 brgemm kernel for heads read across the QKV
    # linear's rows (a slower gemm:jit: 210 against 130 us for BERT-base's
    # q @ k^T), so bf16 operands are copied dense, as are converted ones (4 us)
    conversions = [(i, t) for i, t in enumerate((q, kt, v))
                   if t.dtype != dtype or (dtype != torch.float32 and not t.is_contiguous())]
    # per call, from the shared workspace (flat: the primitives describe them):
    # the scores, the bf16 probabilities, the operands to convert
    staging = dnnl.Staging(workspace or dnnl.Workspace(), ([math.prod(shape)], torch.float32),
                           *[([math.prod(shape)], dtype)] * (dtype != torch.float32),
                           *[([t.numel()], dtype) for _, t in conversions])
    # dense, in the view's own dimension order: row copies, not transposes
    dense = {i: torch.empty_like(t, dtype=dtype, device="meta") for i, t in conversions}
    q, kt, v = (dense.get(i, t) for i, t in enumerate((q, kt, v)))
    probabilities = torch.empty(shape, dtype=dtype, device="meta")
    try:
        copies = [dnnl.reorder(t, dense[i]) for i, t in conversions]
        qk = dnnl.matmul(q, kt, shape, post_ops)
        # the C loop, else oneDNN's softmax and a reorder to bf16 (its
        # softmax into bf16 rounds twice: a quarter of the values 1 ulp off
        # the body's fp32 softmax rounded once)
        loop = host_softmax.rows(shape, dtype != torch.float32)
        norm = None if loop else dnnl.softmax(shape)
        rounding = (dnnl.reorder(shape, probabilities)
                    if dtype != torch.float32 and loop is None else None)
        pv = dnnl.matmul(shape if dtype == torch.float32 else probabilities, v, target)
    except dnnl.OneDNNError:
        return None
    op_by_op = BlockProgram(block)
    to_qk = sum(i < 2 for i, _ in conversions)  # converted operands of q @ k^T, then of p @ v

    def onednn_attention(*args):
        if masker is not None and mask is not None and masker(mask) is None:
            out.copy_(op_by_op.run(args)[0])  # a query with no key: the safe softmax's 0
            return
        s, *buffers = staging.views()
        p = buffers.pop(0) if dtype != torch.float32 else s
        for copy, buffer in zip(copies, buffers):
            copy(buffer)
        qk(*buffers[:to_qk], s)
        if loop is not None:
            loop(s, p)
        else:
            norm(s, s)
            if rounding is not None:
                rounding(s, p)
        pv(p, *buffers[to_qk:])
    if dtype != torch.float32:
        onednn_attention.path = f"onednn-bf16:{qk.impl}"
    return onednn_attention


def _ops(block: Block) -> list[Operation]:
    return [op for op in block.ops if not isinstance(op, ge.YieldOp)]
