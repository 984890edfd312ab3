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
from ge_dialect.verifier import verify
from passes import get_all_passes
from passes.driver import instrument
from passes.driver.gc_tuning import fewer_collections
from passes.driver.plugins import load_pass_plugin
from runtime.executor import Executable

DEFAULT_PIPELINE = "ge-O3"


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
    guards = (instrument.session(verify_each=True) if verify_each and not instrument.active()
              else nullcontext())
    with guards, fewer_collections():
        PassPipeline.parse_spec(get_all_passes(), pipeline,
                                callback=instrument.pipeline_callback()).apply(ctx, module)
    return module


def optimize(module: ModuleOp, pipeline: str = DEFAULT_PIPELINE, *,
             plugins: Sequence[str] = (), precision_mode: str | None = None) -> ModuleOp:
    """Run `pipeline`; then, if `precision_mode` is given (GE's force_fp32,
    allow_fp32_to_fp16, allow_mix_precision), `precision-mode` and the cleanups
    that cancel its cast pairs, and refresh hardware-mapping's annotations."""
    run_pipeline(module, pipeline, plugins=plugins)
    if precision_mode is not None:
        run_pipeline(module, f"precision-mode{{mode={precision_mode}}},canonicalize,cse,dce")
        chip = next((fn.attributes["ge.hardware"].data for fn in module.ops
                     if "ge.hardware" in fn.attributes), None)
        if chip is not None:
            run_pipeline(module, f"hardware-mapping{{hardware={chip}}}")
    return module


def lower(module: ModuleOp) -> ModuleOp:
    return run_pipeline(module, "lower-to-ascend")


def device_pipeline(options: dict | None = None) -> str:
    """The Ascend-level passes for GE-style session options.

    `ge.streamMaxParallelNum` (default 4) caps the streams, `ge.enableSingleStream`
    sets the cap to 1. `memory_limit_mb` (with `enable_memory_planning`, on by
    default when a limit is given) is a budget: memory is then planned before
    streams, so tasks can still be reordered to fit. Otherwise streams come
    first, as in GE, and reuse keeps all their parallelism.
    """
    opts = dict(options or {})
    single = str(opts.pop("ge.enableSingleStream", False)).lower() in ("true", "1")
    streams = 1 if single else int(opts.pop("ge.streamMaxParallelNum", 4))
    limit = opts.pop("memory_limit_mb", None)
    planning = opts.pop("enable_memory_planning", limit is not None)
    if opts:
        raise ValueError(f"unknown option(s) {', '.join(sorted(opts))}; known: "
                         "ge.streamMaxParallelNum, ge.enableSingleStream, memory_limit_mb, "
                         "enable_memory_planning")
    parallel = f"task-parallel{{max-streams={streams}}}"
    if planning and limit is not None:
        return f"memory-reuse{{memory-limit-mb={limit}}},{parallel}"
    return f"{parallel},memory-reuse"


def plan_device(module: ModuleOp, options: dict | None = None) -> ModuleOp:
    """Streams, events and the static memory plan on lowered (Ascend) IR."""
    return run_pipeline(module, device_pipeline(options))


def compile_model(model: torch.nn.Module, example_inputs: tuple,
                  pipeline: str = DEFAULT_PIPELINE, options: dict | None = None,
                  dynamic_shapes=None, *, plugins: Sequence[str] = (),
                  precision_mode: str | None = None) -> Executable:
    """torch model -> loaded executable, through every stage of the compiler.

    `precision_mode` is GE's (see `optimize`). `options` are GE-style session
    options for the device plan (see
    `device_pipeline`); graphs with dynamic shapes keep their single stream and
    are planned per input shape at run time.
    """
    module = import_model(model, example_inputs, dynamic_shapes)
    module = lower(optimize(module, pipeline, plugins=plugins, precision_mode=precision_mode))
    dynamic = any(op.name == "ascend.dyn_buffer" for op in module.walk())
    return Executable(module if dynamic else plan_device(module, options))
