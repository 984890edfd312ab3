"""The kernel table: one host kernel per GE op, shared by every executor.

A table entry is a *preparer*: it reads the op's static parameters once and
returns a plain callable over torch tensors. Executors prepare at load time
and only call kernels at run time, so attribute decoding never sits in the
hot loop.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch
import torch.nn.functional as F
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr
from xdsl.ir import Attribute, Operation

from ge_dialect import ge
from ge_dialect.tensors import to_numpy
from runtime import layout

Kernel = Callable[..., torch.Tensor]

_TORCH_DTYPES = {"f16": torch.float16, "f32": torch.float32, "f64": torch.float64,
                 "i1": torch.bool, "i8": torch.int8, "i32": torch.int32, "i64": torch.int64}


class KernelError(RuntimeError):
    """An op has no host kernel; the message names the op and where it is."""


def torch_dtype(element_type: Attribute) -> torch.dtype:
    try:
        return _TORCH_DTYPES[str(element_type)]
    except KeyError:
        raise KernelError(f"element type {element_type} has no host dtype") from None


def tensor_from_attr(attr: DenseIntOrFPElementsAttr) -> torch.Tensor:
    """A fresh, writable host copy of a dense constant."""
    return torch.from_numpy(np.array(to_numpy(attr)))


def _ints(attr) -> tuple[int, ...]:
    return tuple(attr.get_values())


def _const(op: ge.ConstOp) -> Kernel:
    value = tensor_from_attr(op.value)
    return lambda: value


def _in_5d(op, kernel: Kernel, channels: int | None = None) -> Kernel:
    """The kernel itself for NCHW; wrapped to unpack and re-pack for NC1HWC0."""
    return layout.on_nchw(kernel, channels) if len(op.input.type.get_shape()) == 5 else kernel


def _conv2d(op: ge.Conv2dOp) -> Kernel:
    stride, padding = _ints(op.stride), _ints(op.padding)
    dilation, groups = _ints(op.dilation), op.groups.value.data
    in_channels = op.weight.type.get_shape()[1] * groups
    return _in_5d(op, lambda x, w, b=None: F.conv2d(x, w, b, stride, padding, dilation, groups),
                  in_channels)


def _batch_norm(op: ge.BatchNormOp) -> Kernel:
    eps = op.epsilon.value.data
    return lambda x, w, b, mean, var: F.batch_norm(x, mean, var, w, b, False, 0.0, eps)


def _max_pool2d(op: ge.MaxPool2dOp) -> Kernel:
    k, s, p, d = (_ints(op.kernel_size), _ints(op.stride), _ints(op.padding),
                  _ints(op.dilation))
    ceil = bool(op.ceil_mode.value.data)
    return _in_5d(op, lambda x: F.max_pool2d(x, k, s, p, d, ceil_mode=ceil))


def _adaptive_avg_pool2d(op: ge.AdaptiveAvgPool2dOp) -> Kernel:
    size = _ints(op.output_size)
    return _in_5d(op, lambda x: F.adaptive_avg_pool2d(x, size))


def _trans_data(op: ge.TransDataOp) -> Kernel:
    if op.dst_format.data == "NC1HWC0":
        c0 = op.output.type.get_shape()[-1]
        return lambda x: layout.to_nc1hwc0(x, c0)
    channels = op.output.type.get_shape()[1]
    return lambda x: layout.to_nchw(x, channels).contiguous()


def _flatten(op: ge.FlattenOp) -> Kernel:
    start, end = op.start_dim.value.data, op.end_dim.value.data
    return lambda x: torch.flatten(x, start, end)


def _reshape(op: ge.ReshapeOp) -> Kernel:
    # A dynamic dim becomes -1; the verifier guarantees at most one is unknown
    # after the element-count check, and torch rejects anything else clearly.
    shape = tuple(-1 if d < 0 else d for d in op.output.type.get_shape())
    return lambda x: x.reshape(shape)


KERNELS: dict[type[Operation], Callable[[Operation], Kernel]] = {
    ge.ConstOp: _const,
    ge.ReluOp: lambda op: torch.relu,
    ge.AddOp: lambda op: torch.add,
    ge.MulOp: lambda op: torch.mul,
    ge.Conv2dOp: _conv2d,
    ge.BatchNormOp: _batch_norm,
    ge.MaxPool2dOp: _max_pool2d,
    ge.AdaptiveAvgPool2dOp: _adaptive_avg_pool2d,
    ge.FlattenOp: _flatten,
    ge.ReshapeOp: _reshape,
    ge.MatMulOp: lambda op: torch.matmul,
    ge.LinearOp: lambda op: F.linear,
    ge.TransDataOp: _trans_data,
}


def prepare(op: Operation) -> Kernel:
    """The host kernel for `op`, with its parameters already decoded."""
    preparer = KERNELS.get(type(op))
    if preparer is None:
        raise KernelError(f"no host kernel for '{op.name}'; add one to runtime/kernels.py "
                          "KERNELS or register it with npu_graph.custom_op")
    return preparer(op)
