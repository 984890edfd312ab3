"""One copy of each weight across the graphs of one model.

A model compiled graph by graph (the torch.compile backend: a prefill graph,
a decode graph, a graph per weight set) imports the same parameters into
each graph's IR as dense constants, each a bytes copy of its own.
`WeightPool.share(module)` rewrites
each large `ascend.weight` of a lowered module so that its constant's bytes
are those of an equal tensor the pool already knows: a model's parameter
(`add`), or a weight of a graph shared before. The module keeps the same
values, only their bytes are no longer its own, so its duplicate bytes are
freed, and the loader's zero-copy view of the constant
(runtime/loading.py `weight_tensor`) is the parameter's memory itself.

Equality is by content: a sample of values picks the candidates, a full
compare decides. The pool holds tensors weakly: it never keeps a model's
weights alive, and a graph that dies takes its weights with it.
"""

from __future__ import annotations

import warnings
import weakref

import numpy as np
import torch
from xdsl.dialects.builtin import BytesAttr, DenseIntOrFPElementsAttr, ModuleOp

from ge_dialect import ascend
from runtime import kernels

MIN_SHARED_BYTES = 64 * 1024  # smaller constants cost less than looking them up
SAMPLE = 64  # values compared before a full compare


def _key(flat: torch.Tensor) -> tuple:
    flat = flat.detach()
    step = max(1, flat.numel() // SAMPLE)
    sample = flat[::step][:SAMPLE].clone()
    return (flat.dtype, flat.numel(), sample.view(torch.uint8).numpy().tobytes())


class _Owner:
    """A tensor's bytes seen by NumPy through this object, so that an array
    over them (and a memoryview of that) keeps the tensor object itself alive,
    and with it the pool's weak reference."""

    def __init__(self, tensor: torch.Tensor):
        self.tensor = tensor
        self.__array_interface__ = {"data": (tensor.data_ptr(), True), "typestr": "|u1",
                                    "shape": (tensor.numel() * tensor.element_size(),),
                                    "version": 3}


class _Hashable(np.ndarray):
    """An array a memoryview may hash: the view then hashes (and compares) by
    content, as `bytes` does, so a constant over a tensor's bytes can still
    be a key (CSE hashes attributes)."""

    __hash__ = object.__hash__


def constant_bytes(tensor: torch.Tensor) -> memoryview:
    """A read-only view of a contiguous tensor's bytes, keeping it alive."""
    return memoryview(np.asarray(_Owner(tensor)).view(_Hashable)).toreadonly()


class WeightPool:
    """Tensors by content, for `share` to point equal constants at."""

    def __init__(self):
        self._index: dict[tuple, list[weakref.ref]] = {}

    def add(self, tensor: torch.Tensor) -> None:
        """Know `tensor` (a parameter): constants equal to it will use its memory."""
        if (tensor.is_contiguous() and tensor.device.type == "cpu" and not tensor.is_meta
                and tensor.numel() * tensor.element_size() >= MIN_SHARED_BYTES):
            self._find_or_add(tensor)

    def share(self, module: ModuleOp) -> int:
        """Point each large `ascend.weight` of `module` at the bytes of an equal
        known tensor, and know the others from now on; returns how many were
        pointed elsewhere."""
        shared = 0
        for op in module.walk():
            if not isinstance(op, ascend.WeightOp):
                continue
            attr = op.value
            if len(attr.data.data) < MIN_SHARED_BYTES or _splat(attr):
                continue
            mine = weight_tensor(attr)
            found = self._find_or_add(mine)
            # Over a tensor's bytes either way: the constant keeps that tensor,
            # and so the pool's entry, alive as long as the module.
            op.properties["value"] = DenseIntOrFPElementsAttr(
                attr.type, BytesAttr(constant_bytes(found)))
            shared += found is not mine
        return shared

    def _find_or_add(self, tensor: torch.Tensor) -> torch.Tensor:
        key = _key(tensor.reshape(-1))
        refs = self._index.setdefault(key, [])
        for ref in refs:
            known = ref()
            if known is not None and (known is tensor or (
                    known.shape == tensor.shape
                    and torch.equal(known.detach(), tensor.detach()))):
                return known
        refs.append(weakref.ref(tensor, lambda ref: self._forget(key, ref)))
        return tensor

    def _forget(self, key: tuple, ref: weakref.ref) -> None:
        """A known tensor died: drop its entry, and its key once no tensor is
        left under it, so the index holds only live tensors."""
        refs = self._index.get(key, [])
        if ref in refs:
            refs.remove(ref)
        if not refs:
            self._index.pop(key, None)


def _splat(attr: DenseIntOrFPElementsAttr) -> bool:
    count = 1
    for d in attr.get_shape():
        count *= d
    return len(attr.data.data) != count * kernels.torch_dtype(attr.get_element_type()).itemsize


def weight_tensor(attr: DenseIntOrFPElementsAttr) -> torch.Tensor:
    """The constant's values as a tensor over its own bytes (no copy); a splat
    or an empty constant is decoded into a tensor of its own. Weights are
    read, never written, by the runtime's kernels."""
    if _splat(attr) or not len(attr.data.data):
        return kernels.tensor_from_attr(attr)
    dtype = kernels.torch_dtype(attr.get_element_type())
    with warnings.catch_warnings():  # torch warns that the bytes are read-only
        warnings.simplefilter("ignore", UserWarning)
        flat = torch.frombuffer(attr.data.data, dtype=dtype)
    return flat.view(attr.get_shape())
