"""Differential checks of a pipeline on one graph, for ge-fuzz and ge-reduce.

    problem = check_module(module, "ge-O3,my-rules")   # None: the pipeline is right

The oracle is the GE reference evaluator on the graph before any pass; the
checked result is the graph after the pipeline, lowered and planned
(`passes.pipelines.through_device`), run on the runtime. A wrong answer, or
an internal error of a pass (an exception, IR that does not verify, a guard
rail), is a problem; a pass refusing its input with a diagnostic (a graph it
does not support) is not.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import DiagnosticException

from ge_dialect import find_func
from npu_graph.bisect import default_tolerance, run_graph, seeded_inputs
from npu_graph.compiler import run_pipeline
from passes.driver.instrument import PassVerifyError
from passes.pipelines import through_device
from runtime.reference import evaluate


def inputs_for(module: ModuleOp, seed: int = 0) -> tuple[torch.Tensor, ...]:
    """Seeded normal inputs in @main's argument types (a `?` dim is 2)."""
    from runtime.kernels import torch_dtype

    types = find_func(module).function_type.inputs.data
    examples = tuple(torch.empty([d if d > 0 else 2 for d in t.get_shape()],
                                 dtype=torch_dtype(t.element_type)) for t in types)
    return seeded_inputs(examples, seed)


def check_module(module: ModuleOp, pipeline: str, seed: int = 0,
                 tol: float | None = None) -> str | None:
    """None if `pipeline` computes what `module` computes, else what went wrong."""
    inputs = inputs_for(module, seed)
    reference = evaluate(module, *inputs)
    if tol is None:
        tol = default_tolerance(reference)
    work = module.clone()
    try:
        run_pipeline(work, through_device(pipeline))
    except PassVerifyError as e:
        return f"internal error: {_one_line(e)}"
    except DiagnosticException:
        return None  # a pass refuses this graph by design: not a finding
    except Exception as e:  # noqa: BLE001 - any crash of a pass is a finding
        return f"internal error: {type(e).__name__}: {_one_line(e)}"
    try:
        outputs = run_graph(work, inputs)
    except Exception as e:  # noqa: BLE001 - the compiled graph does not run
        return f"the compiled graph does not run: {type(e).__name__}: {_one_line(e)}"
    for i, (got, want) in enumerate(zip(outputs, reference, strict=True)):
        if got.shape != want.shape:
            return f"output {i}: shape {list(got.shape)}, expected {list(want.shape)}"
        scale = max(1.0, float(want.abs().max()) if want.numel() else 0.0)
        error = float((got.double() - want.double()).abs().max()) if got.numel() else 0.0
        if not error <= tol * scale:  # NaN is wrong too
            return f"output {i}: max |out - ref| = {error:.3e} > {tol:g} x {scale:.3g}"
    return None


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split())[:400]


@dataclass
class Finding:
    module: ModuleOp    # the graph as generated, before any pass
    problem: str
    example: int        # which drawn graph (0-based)


def fuzz(generator, pipeline: str, examples: int = 50, seed: int = 0, max_nodes: int = 8,
         ops: list[str] | None = None, tol: float | None = None) -> list[Finding]:
    """Draw `examples` random graphs from `generator` (test/fuzz/graphs.py) over its
    menu (or the entries named in `ops`), check `pipeline` on each, return the failures.

    Graphs are drawn by hypothesis, seeded, with no example database, so the
    same seed draws the same graphs. Failures are collected, not raised, so
    hypothesis does not shrink them: ge-reduce does, on the IR."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import seed as hypothesis_seed

    menu = generator.MENU
    if ops is not None:
        unknown = sorted(set(ops) - {e.name for e in menu})
        if unknown:
            raise ValueError(f"unknown op(s) {', '.join(unknown)}; the generator's menu: "
                             f"{', '.join(e.name for e in menu)}")
        menu = tuple(e for e in menu if e.name in ops)
    findings: list[Finding] = []
    drawn = [0]

    @hypothesis_seed(seed)
    @settings(max_examples=examples, database=None, deadline=None, derandomize=False,
              suppress_health_check=list(HealthCheck), phases=_generate_only())
    @given(generator.graphs(menu=menu, max_nodes=max_nodes, dynamic=False))
    def one(graph) -> None:
        module = generator.to_module(graph)
        problem = check_module(module, pipeline, seed, tol)
        if problem is not None:
            findings.append(Finding(module, problem, drawn[0]))
        drawn[0] += 1

    one()
    return findings


def _generate_only():
    from hypothesis import Phase

    return (Phase.generate,)
