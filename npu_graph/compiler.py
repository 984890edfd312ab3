"""The whole compile as plain functions: import, optimize, lower, plan, load.

Each stage returns IR you can print, so the demo, the tests and `ge-opt`
see the same thing. The `npu_graph` classes of the GE article sit on these.
Which passes a stage runs, and in which order, is the pipeline builder's
(passes/pipelines.py: `session_pipeline` returns the three stages); these
functions run what it returns with the one pass runner, `run_pipeline`
(passes/driver/runner.py), which this module also offers.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from xdsl.dialects.builtin import ModuleOp

from ge_dialect.verifier import verify
from passes.driver.gc_tuning import fewer_collections
from passes.driver.plugins import load_pass_plugin
from passes.driver.runner import run_pipeline
from passes.pipelines import DEFAULT_LEVEL, session_pipeline
from runtime.executor import Executable

__all__ = ["compile_model", "import_model", "lower", "optimize", "plan_device", "run_pipeline"]


def import_model(model: torch.nn.Module, example_inputs: tuple,
                 dynamic_shapes=None) -> ModuleOp:
    """torch model -> verified GE IR; `dynamic_shapes` is torch.export's (Dim markers
    become `?` dims), by default the model's own `dynamic_shapes` attribute if any."""
    from lowering.torch_to_ge import import_module  # torch.export's machinery, on first use

    if dynamic_shapes is None:
        dynamic_shapes = getattr(model, "dynamic_shapes", None)
    with fewer_collections():
        module = import_module(model, example_inputs, dynamic_shapes=dynamic_shapes)
        verify(module)
    return module


def optimize(module: ModuleOp, pipeline: str = DEFAULT_LEVEL, *,
             plugins: Sequence[str] = (), precision_mode: str | None = None) -> ModuleOp:
    """The GE-level stage: `pipeline`, then, if `precision_mode` is given (GE's
    force_fp32, allow_fp32_to_fp16, allow_mix_precision), the passes the
    builder puts after it."""
    for path in plugins:
        load_pass_plugin(path)
    return run_pipeline(module, session_pipeline(ge=pipeline, precision_mode=precision_mode).ge)


def lower(module: ModuleOp) -> ModuleOp:
    """The lowering stage: GE IR -> Ascend IR (tasks on buffers in one arena)."""
    return run_pipeline(module, session_pipeline().lowering)


def plan_device(module: ModuleOp, options: dict | None = None) -> ModuleOp:
    """The device stage: streams, events and the static memory plan on lowered
    (Ascend) IR, for GE-style session options (`passes.pipelines.session_pipeline`)."""
    return run_pipeline(module, session_pipeline(options).device)


def compile_model(model: torch.nn.Module, example_inputs: tuple,
                  pipeline: str = DEFAULT_LEVEL, options: dict | None = None,
                  dynamic_shapes=None, *, plugins: Sequence[str] = (),
                  precision_mode: str | None = None) -> Executable:
    """torch model -> loaded executable, through every stage of the compiler.

    `pipeline` is the GE-level stage, `precision_mode` GE's (see `optimize`),
    `options` GE-style session options (`passes.pipelines.session_pipeline`:
    streams, memory reuse, a memory budget). Graphs with dynamic shapes are
    planned as static ones are; their `?`-shaped buffers are placed per input
    shape at run time.
    """
    for path in plugins:
        load_pass_plugin(path)
    stages = session_pipeline(options, ge=pipeline, precision_mode=precision_mode)
    module = import_model(model, example_inputs, dynamic_shapes)
    return Executable(run_pipeline(module, stages.spec()))
