"""The whole pipeline as plain functions: import, optimize, lower, plan, load.

Each stage returns IR you can print, so the demo, the tests and `ge-opt`
see the same thing. The `npu_graph` classes of the GE article sit on these.
Which passes a stage runs, and in which order, is the pipeline builder's
(passes/pipelines.py); these functions only run what it builds.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import nullcontext

import torch
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline

from ge_dialect import make_context
from ge_dialect.verifier import verify
from ge_dialect.ascend import HARDWARE_ATTR
from passes import get_all_passes
from passes.driver import instrument
from passes.driver.gc_tuning import fewer_collections
from passes.driver.plugins import load_pass_plugin
from passes.pipelines import DEFAULT_LEVEL, precision_passes, session_pipeline
from runtime.executor import Executable


def import_model(model: torch.nn.Module, example_inputs: tuple,
                 dynamic_shapes=None) -> ModuleOp:
    """torch model -> verified GE IR; `dynamic_shapes` is torch.export's (Dim markers
    become `?` dims), by default the model's own `dynamic_shapes` attribute if any."""
    from lowering.torch_to_ge import import_module

    if dynamic_shapes is None:
        dynamic_shapes = getattr(model, "dynamic_shapes", None)
    with fewer_collections():
        module = import_module(model, example_inputs, dynamic_shapes=dynamic_shapes)
        verify(module)
    return module


def run_pipeline(module: ModuleOp, pipeline: str, *, plugins: Sequence[str] = (),
                 verify_each: bool = True) -> ModuleOp:
    """Apply a ge-opt style pipeline in place, verifying after every pass.

    `plugins` are pass plugin files to load first (see passes/driver/plugins.py).
    `verify_each` also turns on the pattern guard rails of passes/driver/instrument.py
    (no-op rewrites, non-convergence), unless a session is already active.
    """
    for path in plugins:
        load_pass_plugin(path)
    ctx = make_context()
    # A session also gives the ops patterns create the source location of
    # the op they replace.
    guards = (instrument.session(verify_each=verify_each) if not instrument.active()
              else nullcontext())
    with guards, fewer_collections():
        PassPipeline.parse_spec(get_all_passes(), pipeline,
                                callback=instrument.pipeline_callback()).apply(ctx, module)
    return module


def optimize(module: ModuleOp, pipeline: str = DEFAULT_LEVEL, *,
             plugins: Sequence[str] = (), precision_mode: str | None = None) -> ModuleOp:
    """Run `pipeline`; then, if `precision_mode` is given (GE's force_fp32,
    allow_fp32_to_fp16, allow_mix_precision), the passes the builder puts after
    it (`precision_passes`), mapping again for the chip the graph was mapped for."""
    run_pipeline(module, pipeline, plugins=plugins)
    if precision_mode is not None:
        chip = next((fn.attributes[HARDWARE_ATTR].data for fn in module.ops
                     if HARDWARE_ATTR in fn.attributes), None)
        run_pipeline(module, ",".join(precision_passes(precision_mode, chip)))
    return module


def lower(module: ModuleOp) -> ModuleOp:
    return run_pipeline(module, "lower-to-ascend")


def plan_device(module: ModuleOp, options: dict | None = None) -> ModuleOp:
    """Streams, events and the static memory plan on lowered (Ascend) IR, for
    GE-style session options (`passes.pipelines.session_pipeline`)."""
    return run_pipeline(module, session_pipeline(options))


def compile_model(model: torch.nn.Module, example_inputs: tuple,
                  pipeline: str = DEFAULT_LEVEL, options: dict | None = None,
                  dynamic_shapes=None, *, plugins: Sequence[str] = (),
                  precision_mode: str | None = None) -> Executable:
    """torch model -> loaded executable, through every stage of the compiler.

    `precision_mode` is GE's (see `optimize`). `options` are GE-style session
    options for the device plan (see `plan_device`); graphs with dynamic shapes keep their single stream and
    are planned per input shape at run time.
    """
    module = import_model(model, example_inputs, dynamic_shapes)
    module = lower(optimize(module, pipeline, plugins=plugins, precision_mode=precision_mode))
    dynamic = any(op.name == "ascend.dyn_buffer" for op in module.walk())
    return Executable(module if dynamic else plan_device(module, options))
