"""`run_pipeline`: the one helper that runs a pass pipeline.

Every road runs passes through it: the `npu_graph` API and its stages, the
ge-O<n> levels (their stages nested in the caller's run), ge-bisect and the
benchmarks. Which passes run is the pipeline builder's (passes/pipelines.py);
this module only runs them, verified after each one, under the pass driver's
instrumentation (guard rails, timing, rewrite counts: instrument.py) with
fewer garbage-collector runs (gc_tuning.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import nullcontext

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline

from ge_dialect import make_context
from passes import get_all_passes
from passes.driver import instrument
from passes.driver.gc_tuning import fewer_collections
from passes.driver.plugins import load_pass_plugin


def run_pipeline(module: ModuleOp, pipeline: str | Sequence[ModulePass], *,
                 plugins: Sequence[str] = (), verify_each: bool = True,
                 ctx: Context | None = None) -> ModuleOp:
    """Apply `pipeline` (a ge-opt pipeline string, or pass instances) to `module`
    in place, verifying after every pass; return `module`.

    `plugins` are pass plugin files to load first (passes/driver/plugins.py).
    `verify_each` also turns on the pattern guard rails of instrument.py
    (no-op rewrites, non-convergence, broken device plans) unless a session is
    already active, whose settings then hold: a nested run (a ge-O<n> level's
    stages) is instrumented as part of its caller's. A session also gives the
    ops that patterns create the source location of the op they replace.
    """
    for path in plugins:
        load_pass_plugin(path)
    passes = (PassPipeline.parse_spec(get_all_passes(), pipeline).passes
              if isinstance(pipeline, str) else tuple(pipeline))
    if not passes:
        return module
    guards = (instrument.session(verify_each=verify_each) if not instrument.active()
              else nullcontext())
    with guards, fewer_collections():
        PassPipeline(passes, callback=instrument.pipeline_callback()).apply(
            ctx or make_context(), module)
    return module
