"""The whole pipeline as four plain functions: import, optimize, lower, load.

Each stage returns IR you can print, so the demo, the tests and `ge-opt`
see the same thing. The `npu_graph` classes of the GE article sit on these.
"""

from __future__ import annotations

import torch
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline

from ge_dialect import make_context
from ge_dialect.verifier import verify
from passes import get_all_passes
from runtime.executor import Executable

DEFAULT_PIPELINE = "fold-batch-norm,op-fusion,dce"


def import_model(model: torch.nn.Module, example_inputs: tuple) -> ModuleOp:
    from lowering.torch_to_ge import import_module

    module = import_module(model, example_inputs)
    verify(module)
    return module


def run_pipeline(module: ModuleOp, pipeline: str) -> ModuleOp:
    """Apply a ge-opt style pipeline in place, verifying after every pass."""
    ctx = make_context()

    def verify_between_passes(_prev, op, _next):
        verify(op)

    PassPipeline.parse_spec(get_all_passes(), pipeline,
                            callback=verify_between_passes).apply(ctx, module)
    return module


def optimize(module: ModuleOp, pipeline: str = DEFAULT_PIPELINE) -> ModuleOp:
    return run_pipeline(module, pipeline)


def lower(module: ModuleOp) -> ModuleOp:
    return run_pipeline(module, "lower-to-ascend")


def compile_model(model: torch.nn.Module, example_inputs: tuple,
                  pipeline: str = DEFAULT_PIPELINE) -> Executable:
    """torch model -> loaded executable, through every stage of the compiler."""
    return Executable(lower(optimize(import_model(model, example_inputs), pipeline)))
