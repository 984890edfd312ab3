"""Captured replay: one static-shape graph bound once, then replayed per call.

    replay = Replay(executable)
    out = replay.run(ids, position, key_cache, value_cache)   # binds, then runs
    out = replay.run(ids2, position2, key_cache, value_cache) # writes inputs, runs

This is the `"reduce-overhead"` mode of the torch.compile backend, GE's
counterpart of a CUDA graph or TorchAir's captured graph. At capture, a
replica of the loaded function of its own is made (arena, buffer views,
oneDNN primitives, task runners), and every task's argument list is bound
for good: a runner that reads a graph input (attention over the KV cache,
its in-place update) becomes a call with no arguments where it offers
`bind` (runtime/host/runners.py). A replay then only copies the inputs in and runs the bound calls:
nothing is planned, allocated or looked up per call.

What a replay requires, and checks on every call (a call that breaks one
raises `ReplayError`, never computes a wrong answer):

- the shapes and dtypes captured. The graph has no `?` dims (a dynamic
  graph is refused at capture);
- inputs are copied into fixed input tensors, so their strides may differ;
- an input the graph updates in place (a static KV cache: ge.scatter_update,
  ge.assign) is not copied: the caller's tensor itself is bound, so each
  call must pass that same tensor (same storage, shape, dtype and strides).
  `rebind` binds new ones (a new cache), which is a new capture.

Outputs: `run` returns the same output tensors every call, overwritten by
the next replay, as torch's CUDA graph trees do; clone what you keep. The
backend clones them for its callers (npu_graph/backend.py), since code
after a torch.compile'd function may keep outputs across calls.
"""

from __future__ import annotations

import torch

from runtime import kernels
from runtime.running import Replica


class ReplayError(RuntimeError):
    """A call breaks what the capture fixed (shape, dtype, the updated buffer)."""


class Replay:
    """A static graph's task calls, bound once on a replica of their own."""

    def __init__(self, executable):
        if executable.dynamic:
            raise ReplayError("captured replay needs static shapes; this graph has `?` dims "
                              "(compile with static shapes, or run it with its executable)")
        if executable.recvs or executable.sends:
            raise ReplayError("a pipeline stage (it sends or receives buffers) cannot be "
                              "replayed; run it with its executable")
        self.replica: Replica = executable._new_replica()
        if not self.replica.options.prepared_loop:
            raise ReplayError("captured replay needs the prepared loop "
                              "(runtime Options.prepared_loop)")
        self.arg_types = list(executable.arg_types)
        self.wanted = [(tuple(t.get_shape()), _dtype(t)) for t in self.arg_types]
        n = len(self.arg_types)
        self.updated = sorted({s for t in self.replica.tasks for s in t.outs if s < n})
        self.copied = [i for i in range(n) if i not in self.updated]
        self.bound: list[torch.Tensor | None] = [None] * n
        for i, t in enumerate(self.arg_types):
            if i not in self.updated:
                self.bound[i] = torch.empty(t.get_shape(), dtype=_dtype(t))
        self.outputs: list[torch.Tensor] | None = None
        self.replays = 0

    def rebind(self, inputs) -> None:
        """Bind the tensors the graph updates in place to those of `inputs`, and
        every task's arguments to the fixed tensors: the capture."""
        self._check(inputs, rebinding=True)
        for i in self.updated:
            self.bound[i] = inputs[i]
        r = self.replica
        for i, x in enumerate(self.bound):
            r.values[i] = x
        for args, k, s in r._input_uses:
            args[k] = self.bound[s]
        self.steps = []
        for i, (call, args) in zip(r.host_order, r._prepared):
            bind = getattr(r.runners[i], "bind", None)
            bound = bind(args) if bind is not None and args else None
            self.steps.append((call, args) if bound is None else (bound, []))
        self.outputs = []
        for s in r.outputs:
            out = r.values[s]
            if not isinstance(out, torch.Tensor):
                raise ReplayError("an output lives in a blocked layout; captured replay "
                                  "needs plain output tensors")
            self.outputs.append(out)

    def bound_to(self, inputs) -> bool:
        """Whether the inputs the graph updates in place are the captured tensors."""
        return self.outputs is not None and all(
            isinstance(inputs[i], torch.Tensor) and _same(inputs[i], self.bound[i])
            for i in self.updated)

    def run(self, *inputs: torch.Tensor) -> list[torch.Tensor]:
        """Copy the inputs in, run the bound calls, return the fixed outputs."""
        if self.outputs is None:
            self.rebind(inputs)
        self._check(inputs)
        for i in self.copied:
            self.bound[i].copy_(inputs[i])
        with torch.no_grad():
            for call, args in self.steps:
                call(*args)
        self.replays += 1
        return self.outputs

    def _check(self, inputs, rebinding: bool = False) -> None:
        if len(inputs) != len(self.arg_types):
            raise ReplayError(f"the graph was captured with {len(self.arg_types)} inputs, "
                              f"got {len(inputs)}")
        for i, (x, (want, dtype)) in enumerate(zip(inputs, self.wanted)):
            if not isinstance(x, torch.Tensor):
                raise ReplayError(f"input {i} is a {type(x).__name__}, not a tensor")
            if x.shape != want or x.dtype != dtype:
                raise ReplayError(
                    f"input {i} has shape {tuple(x.shape)} and dtype {x.dtype}; the graph was "
                    f"captured with {want} and {dtype}. A replay runs the captured shapes "
                    "only: compile again for new shapes")
            if i in self.updated and not rebinding and not _same(x, self.bound[i]):
                raise ReplayError(
                    f"input {i} is updated in place by the graph, and this call passes a "
                    "different tensor from the captured one; replay writes the captured "
                    "tensor, so pass that one, or call rebind() with the new tensors")


def _same(a: torch.Tensor, b: torch.Tensor) -> bool:
    return (a.data_ptr() == b.data_ptr() and a.shape == b.shape and a.stride() == b.stride()
            and a.dtype == b.dtype)


def _dtype(memref) -> torch.dtype:
    return kernels.torch_dtype(memref.element_type)
