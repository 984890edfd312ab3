"""Which arena buffers the runtime holds in oneDNN's blocked layout nChw<B>c
(runtime/host/onednn.py `Blocked`, B = `onednn.block()`: 16 with AVX-512, 8 with
AVX2; none where oneDNN has no native blocked kernel) instead of NHWC.

Why: on ResNet-50 at batch 8 (AVX-512) oneDNN's direct convs on nChw16c
(`jit_1x1`) run its large residual 1x1 convs 7-26% faster than its NHWC ones
(`brgconv_1x1`); at batch 1 both are even (docs/BENCHMARKS.md).
ORT's NCHWc graph is the same idea; NC1HWC0 is too, with C0 = B.

Torch ops cannot read a blocked buffer, and oneDNN has only its reference
loop for a conv whose input and output are laid out unlike (NHWC into
blocked, or back). So a buffer is blocked only if every task touching it is
a oneDNN primitive that binds it:
- a conv task (runtime/host/runners.py `conv_pattern`) that oneDNN has a
  blocked kernel for (`onednn.has_blocked_conv`): its input, residual
  and output; a graph input is not bound (it arrives per call: with fewer
  than B channels as NCHW, which oneDNN's "first conv" kernel reads into a
  blocked output directly, else reordered into blocks: `onednn.per_call`);
- a max-pool whose input a conv ending in ReLU (or a clamp at 0 or above),
  or such a max-pool, wrote: oneDNN's max differs from torch's only on all -inf windows and NaN,
  and that conv primitive's output has neither (oneDNN's ReLU maps NaN to 0,
  docs/BENCHMARKS.md);
- a global average pool: its input.
The buffers one task binds must share a layout, so they are linked; a linked
group is blocked whole or not at all, and only if each member is an NHWC
buffer (runtime/host/channels_last.py) of fp32 with channels a multiple of B that
is not a graph result. A group of ResNet-50 runs from the stem's output to
the global pool; MobileNetV2's 24-channel buffers keep its group NHWC.
Last, a group's activations must be large (`MIN_ROWS`): where they fit in
cache, oneDNN's NHWC kernels were the faster ones. Inside a blocked group, a
conv whose blocked kernel is the slow one (`onednn.prefers_nhwc`: wide 3x3
convs with AVX2) reorders its input into NHWC scratch and its result back
(`onednn.conv2d_via_nhwc`), so the 1x1 convs around it keep the blocked kernel.
"""

from __future__ import annotations

from math import prod

from xdsl.dialects import func
from xdsl.dialects.builtin import Float32Type
from xdsl.ir import Operation, SSAValue

from ge_dialect import ascend, ge
from runtime.host.runners import conv_pattern
from runtime.host.onednn import block, has_blocked_conv, reads_into_blocked


# A group is blocked only if its convs' output rows (N * Ho * Wo), weighted
# by FLOPs, average at least this many. Measured on ResNet-50 (1,230 rows at
# batch 1, 2,460 at batch 2, 9,830 at batch 8): at batch 1 oneDNN's NHWC
# kernels (`brgconv`) beat its blocked ones (`jit`) on the 28x28 and smaller
# maps by 5-30% and the whole run was 1-2% slower blocked; blocked was 2%
# faster at batch 2 and 6% at batch 8.
MIN_ROWS = 2048


def _buffer(value: SSAValue) -> ascend.BufferOp | None:
    return value.owner if isinstance(value.owner, ascend.BufferOp) else None


def _fits(buffer: ascend.BufferOp) -> bool:
    shape = buffer.output.type.get_shape()
    return (len(shape) == 4 and shape[1] % block() == 0
            and isinstance(buffer.output.type.element_type, Float32Type))


def _relu_conv(task: ascend.TaskOp) -> bool:
    """A conv task whose output is a ReLU's or a clamp's at 0 or above."""
    pattern = conv_pattern(task.body.block)
    return pattern is not None and pattern.act is not None and pattern.act.clamps_at_zero()


def _is_max_pool(task: ascend.TaskOp) -> bool:
    return isinstance(task.body.block.first_op, ge.MaxPool2dOp)


def _bound(task: ascend.TaskOp, relu_outputs: set) -> list[ascend.BufferOp] | None:
    """The buffers the task's primitive would bind, or None if it is no primitive."""
    block = task.body.block
    ops = [op for op in block.ops if not isinstance(op, ge.YieldOp)]
    if len(task.outs) != 1 or not ops:
        return None
    ins, out = list(task.ins), _buffer(task.outs[0])
    pattern = conv_pattern(block)
    if pattern is not None:
        constant = [ins[i] for i in (pattern.weight, pattern.bias) if i is not None]
        x = ins[pattern.x]
        if (not all(isinstance(v.owner, ascend.WeightOp) for v in constant)
                or not isinstance(x.type.element_type, Float32Type)
                or not isinstance(pattern.conv.weight.type.element_type, Float32Type)):
            return None
        groups, channels = pattern.conv.groups.value.data, x.type.get_shape()[1]
        if not has_blocked_conv(channels, task.outs[0].type.get_shape()[1], groups) or (
                _buffer(x) is None and not reads_into_blocked(channels, groups)):
            return None
        bound = [out] + ([_buffer(x)] if _buffer(x) is not None else [])
        if pattern.residual is not None:
            bound.append(_buffer(ins[pattern.residual]))
        return None if None in bound else bound
    if len(ops) != 1:
        return None
    (op,) = ops
    if isinstance(op, ge.MaxPool2dOp):
        source = _buffer(ins[0])
        if source in relu_outputs and set(op.dilation.get_values()) == {1}:
            return [source, out]
    if isinstance(op, ge.AdaptiveAvgPool2dOp) and tuple(op.output_size.get_values()) == (1, 1):
        return [_buffer(ins[0])] if _buffer(ins[0]) is not None else None
    return None


def blocked_buffers(ops: list[Operation], nhwc: set[ascend.BufferOp]) -> set[ascend.BufferOp]:
    """The `ascend.buffer` ops of a lowered function to hold blocked, given
    those viewed NHWC; the caller uses them only with oneDNN primitives."""
    if block() is None:
        return set()
    parent: dict[ascend.BufferOp, ascend.BufferOp] = {}

    def find(b):
        while parent.setdefault(b, b) is not b:
            parent[b] = parent[parent[b]]
            b = parent[b]
        return b

    eligible = {b for b in nhwc if _fits(b)}
    relu_outputs: set[ascend.BufferOp] = set()
    convs: list[tuple[ascend.BufferOp, int, int]] = []  # (output, FLOPs, N*Ho*Wo)
    for op in ops:
        if isinstance(op, func.ReturnOp):
            eligible.difference_update(_buffer(v) for v in op.operands)
        if not isinstance(op, ascend.TaskOp):
            continue
        touched = {_buffer(v) for v in (*op.ins, *op.outs)} - {None}
        bound = _bound(op, relu_outputs)
        eligible.difference_update(touched - set(bound or ()))
        for b in bound or ():
            parent[find(b)] = find(bound[0])
        if bound and (_relu_conv(op) or _is_max_pool(op)):  # a max of ReLU values is one
            relu_outputs.add(_buffer(op.outs[0]))
        if bound and conv_pattern(op.body.block) is not None:
            convs.append((bound[0], *_work(op)))
    flops: dict[ascend.BufferOp, list[int]] = {}  # group -> [FLOPs, FLOPs * rows]
    for out, f, rows in convs:
        total = flops.setdefault(find(out), [0, 0])
        total[0] += f
        total[1] += f * rows
    groups: dict[ascend.BufferOp, list[ascend.BufferOp]] = {}
    for b in parent:
        groups.setdefault(find(b), []).append(b)
    return {b for root, members in groups.items() if eligible.issuperset(members)
            and root in flops and flops[root][1] >= MIN_ROWS * flops[root][0] for b in members}


def _work(task: ascend.TaskOp) -> tuple[int, int]:
    """A conv task's FLOPs and output rows (N * Ho * Wo)."""
    conv = conv_pattern(task.body.block).conv
    n, k, ho, wo = conv.output.type.get_shape()
    per_output = 2 * prod(conv.weight.type.get_shape()[1:])
    return n * k * ho * wo * per_output, n * ho * wo
