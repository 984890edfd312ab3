"""The whole pipeline as four plain functions: import, optimize, lower, load.

Each stage returns IR you can print, so the demo, the tests and `ge-opt`
see the same thing. The `npu_graph` classes of the GE article sit on these.
"""

from __future__ import annotations

import torch
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline

from ge_dialect import make_context
from passes import get_all_passes
from runtime.executor import Executable

DEFAULT_PIPELINE = "ge-O3"


def import_model(model: torch.nn.Module, example_inputs: tuple,
                 dynamic_shapes=None) -> ModuleOp:
    """torch model -> verified GE IR; `dynamic_shapes` is torch.export's (Dim markers
    become `?` dims), by default the model's own `dynamic_shapes` attribute if any."""
    from lowering.torch_to_ge import import_module

    if dynamic_shapes is None:
        dynamic_shapes = getattr(model, "dynamic_shapes", None)
    module = import_module(model, example_inputs, dynamic_shapes=dynamic_shapes)
    module.verify()
    return module


def run_pipeline(module: ModuleOp, pipeline: str) -> ModuleOp:
    """Apply a ge-opt style pipeline in place, verifying after every pass."""
    ctx = make_context()

    def verify(_prev, op, _next):
        op.verify()

    PassPipeline.parse_spec(get_all_passes(), pipeline, callback=verify).apply(ctx, module)
    module.verify()
    return module


def optimize(module: ModuleOp, pipeline: str = DEFAULT_PIPELINE) -> ModuleOp:
    return run_pipeline(module, pipeline)


def lower(module: ModuleOp) -> ModuleOp:
    return run_pipeline(module, "lower-to-ascend")


def compile_model(model: torch.nn.Module, example_inputs: tuple,
                  pipeline: str = DEFAULT_PIPELINE, dynamic_shapes=None) -> Executable:
    """torch model -> loaded executable, through every stage of the compiler."""
    return Executable(lower(optimize(import_model(model, example_inputs, dynamic_shapes),
                                     pipeline)))
