"""ONNX's backend interface (`onnx.backend.base.Backend`) over GE.

    rep = GEBackend.prepare(model)          # import, optimize (ge-O3), lower, load
    outputs = rep.run([x, y])               # NumPy in, NumPy out

This is what ONNX's own conformance suite drives (`tools/onnx_coverage.py`
runs its node cases); users can run an .onnx file the same way.

GE compiles shapes, axes, pads, scales and ranges as constants. A model that
takes them as inputs (`Reshape(x, shape)` with `shape` an input) is
compiled at `run`, once per distinct value of its integer and small (up to
SMALL elements) inputs, with those values folded in: a specialization, as
GE treats such "value-dependent" inputs.
"""

from __future__ import annotations

import numpy as np
import onnx
import onnx.backend.base
import onnx.numpy_helper
import torch

from lowering.onnx_to_ge import BY_DTYPE, OnnxImportError, import_onnx
from npu_graph.compiler import lower, optimize
from runtime.executor import Executable
from runtime.program import InputError


SMALL = 8  # inputs up to this many elements are folded in when a model needs them


def _array(x, i: int) -> np.ndarray:
    """A C-contiguous array of the same shape (np.ascontiguousarray makes 0-d 1-d).
    A sequence, map or missing optional is refused, never stacked into a tensor."""
    if isinstance(x, onnx.TensorProto):
        x = onnx.numpy_helper.to_array(x)
    if x is None or isinstance(x, (list, tuple, dict)):
        raise InputError(f"input {i} is {'None' if x is None else 'a ' + type(x).__name__}, "
                         "not a tensor; GE takes tensors only (no sequences, maps or optionals)")
    x = np.asarray(x)
    if x.dtype == object:
        raise InputError(f"input {i} is not a tensor of numbers")
    return x if x.flags.c_contiguous else x.copy()


def compile_model(model) -> Executable:
    return Executable(lower(optimize(import_onnx(model))))


class GEBackendRep(onnx.backend.base.BackendRep):
    def __init__(self, model, program: Executable | None, error: Exception | None = None):
        self.model = model
        self.program = program
        self.error = error  # why the model does not compile without its inputs' values
        self.specialized: dict[bytes, tuple[Executable, list[int]]] = {}

    def run(self, inputs, **kwargs):
        if isinstance(inputs, np.ndarray):
            inputs = [inputs]
        inputs = [_array(x, i) for i, x in enumerate(inputs)]
        program, kept = self.program, range(len(inputs))
        if program is None:
            program, kept = self._specialize(inputs)
        tensors = [torch.from_numpy(inputs[i]) for i in kept]
        return tuple(y.numpy() for y in program.run(*tensors))

    def _specialize(self, inputs) -> tuple[Executable, list[int]]:
        """The model compiled with its integer inputs' values folded in."""
        fixed = [i for i, x in enumerate(inputs) if x.dtype in BY_DTYPE
                 and (np.issubdtype(x.dtype, np.integer) or x.size <= SMALL)]
        if not fixed:
            raise self.error
        key = b"".join(inputs[i].tobytes() + str(inputs[i].shape).encode() for i in fixed)
        if key not in self.specialized:
            model = onnx.ModelProto()
            model.CopyFrom(self.model)
            graph_inputs = [v for v in model.graph.input
                            if v.name not in {t.name for t in model.graph.initializer}]
            for i in fixed:
                model.graph.initializer.append(
                    onnx.numpy_helper.from_array(inputs[i], graph_inputs[i].name))
            names = {graph_inputs[i].name for i in fixed}
            kept_inputs = [v for v in model.graph.input if v.name not in names]
            del model.graph.input[:]
            model.graph.input.extend(kept_inputs)
            kept = [i for i in range(len(inputs)) if i not in fixed]
            # an OnnxImportError here names what is still missing with the values known
            self.specialized[key] = (compile_model(model), kept)
        return self.specialized[key]


class GEBackend(onnx.backend.base.Backend):
    @classmethod
    def prepare(cls, model, device: str = "CPU", **kwargs) -> GEBackendRep:
        super().prepare(model, device, **kwargs)
        try:
            return GEBackendRep(model, compile_model(model))
        except OnnxImportError as e:
            # perhaps it needs its small inputs' values: specialized at run
            return GEBackendRep(model, None, e)

    @classmethod
    def run_model(cls, model, inputs, device: str = "CPU", **kwargs):
        return cls.prepare(model, device, **kwargs).run(inputs)

    @classmethod
    def supports_device(cls, device: str) -> bool:
        return device == "CPU"  # the host runtime; the device is simulated
