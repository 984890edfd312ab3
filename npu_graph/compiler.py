"""The whole pipeline as four plain functions: import, optimize, lower, load.

Each stage returns IR you can print, so the demo, the tests and `ge-opt`
see the same thing. The `npu_graph` classes of the GE article sit on these.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import nullcontext

import torch
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline

from ge_dialect import make_context
from passes import get_all_passes, instrument
from passes.plugins import load_pass_plugin
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


def run_pipeline(module: ModuleOp, pipeline: str, *, plugins: Sequence[str] = (),
                 verify_each: bool = True) -> ModuleOp:
    """Apply a ge-opt style pipeline in place, verifying after every pass.

    `plugins` are pass plugin files to load first (see passes/plugins.py).
    `verify_each` also turns on the pattern guard rails of passes/instrument.py
    (no-op rewrites, non-convergence), unless a session is already active.
    """
    for path in plugins:
        load_pass_plugin(path)
    ctx = make_context()
    guards = (instrument.session(verify_each=True) if verify_each and not instrument.active()
              else nullcontext())
    with guards:
        PassPipeline.parse_spec(get_all_passes(), pipeline,
                                callback=instrument.pipeline_callback()).apply(ctx, module)
    return module


def optimize(module: ModuleOp, pipeline: str = DEFAULT_PIPELINE, *,
             plugins: Sequence[str] = ()) -> ModuleOp:
    return run_pipeline(module, pipeline, plugins=plugins)


def lower(module: ModuleOp) -> ModuleOp:
    return run_pipeline(module, "lower-to-ascend")


def compile_model(model: torch.nn.Module, example_inputs: tuple,
                  pipeline: str = DEFAULT_PIPELINE, dynamic_shapes=None, *,
                  plugins: Sequence[str] = ()) -> Executable:
    """torch model -> loaded executable, through every stage of the compiler."""
    module = import_model(model, example_inputs, dynamic_shapes)
    return Executable(lower(optimize(module, pipeline, plugins=plugins)))
