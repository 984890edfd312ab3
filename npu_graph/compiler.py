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

DEFAULT_PIPELINE = "fold-batch-norm,op-fusion,dce"


def import_model(model: torch.nn.Module, example_inputs: tuple) -> ModuleOp:
    from lowering.torch_to_ge import import_module

    module = import_module(model, example_inputs)
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
                  pipeline: str = DEFAULT_PIPELINE, options: dict | None = None) -> Executable:
    """torch model -> loaded executable, through every stage of the compiler."""
    module = lower(optimize(import_model(model, example_inputs), pipeline))
    return Executable(plan_device(module, options))
