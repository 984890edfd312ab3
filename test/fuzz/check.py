"""The property every pipeline must have, as one function: `check_pipeline`.

It runs a pipeline on a copy of a GE module and checks, in order:
  - optionally, the input computes what PyTorch eager computed;
  - after every pass the IR verifies, and so does the device plan of every
    lowered function (ge_dialect/plan_verifier.py: arena, events, cross-stream
    uses, no overlap of buffers live at once; the host runs tasks in program
    order, so a plan that is wrong only under concurrency keeps the numbers);
  - the pipeline's result prints and parses back to the same text, from the
    pretty and from the generic form (parsing is most of the cost of a
    check, so this is done once per pipeline, not after every pass);
  - the result computes what the input computed: the GE reference evaluator
    if the result is still GE, and always the Ascend executor on the lowered
    result (the check lowers it, and round-trips it again, if the pipeline
    did not).

A pass may refuse its input with a diagnostic (a DiagnosticException, which
ge-opt reports as a user error); the outcome records it and the caller
decides whether that refusal was expected. Any other failure raises
`Mismatch` naming the stage, or is the crash itself.

The pipelines under test are data: `pipelines_under_test()` reads the pass
registry, so passes and presets registered later are picked up unchanged.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from io import StringIO

import torch
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.passes import ModulePass, PassPipeline
from xdsl.printer import Printer
from xdsl.transforms import get_all_passes as xdsl_passes
from xdsl.utils.arg_spec import parse_pipeline
from xdsl.utils.exceptions import DiagnosticException, ParseError

from ge_dialect import ascend, make_context
from ge_dialect.plan_verifier import check_module, summary
from ge_dialect.verifier import verify
from passes.pipelines import DEFAULT_LEVEL
from passes import get_all_passes
from runtime.executor import Executable
from ge_dialect import find_func
from runtime.reference import evaluate
from test.fuzz.graphs import Graph, GraphModule, eager, example_inputs, to_module

PassTable = dict[str, Callable[[], type[ModulePass]]]

RTOL = ATOL = 1e-4
# A 16-bit mode rounds each moved op's inputs and output (fp16: 2^-11
# relative, bf16: 2^-8); through a chain of up to eight ops that compounds,
# so reduced-precision pipelines are compared at these tolerances, relative
# to the output's scale (the largest seen over the CI budget: fp16 9e-4, bf16
# 5e-3). A wrong rewrite still shows: it is off by O(1).
REDUCED_TOL = {"allow_fp32_to_fp16": 3e-2, "allow_mix_precision": 3e-2,
               "allow_fp32_to_bf16": 5e-2, "allow_mix_precision_bf16": 5e-2}
REDUCED_MODES = tuple(REDUCED_TOL)
# quantize-weights stores a constant weight in int8 per output channel: each
# weight moves by up to half a step, max|w|/254, so a product moves by about
# that share of its scale (seen: 1e-3). Compared at 1e-2; a wrong rewrite is
# still off by O(1).
INT8_WEIGHT_TOL = 1e-2
XDSL_PASSES = ("canonicalize", "cse")
# Passes that exist today and must take any static GE graph without refusing.
# A pass registered later may refuse IR of the other level with a diagnostic.
MUST_ACCEPT = frozenset({"fold-batch-norm", "op-fusion", "dce", "lower-to-ascend",
                         "canonicalize", "cse", "verify-plan"})
LOWER = "lower-to-ascend"


class Mismatch(AssertionError):
    """A stage computed different numbers, or its IR does not verify or round-trip."""


@dataclass
class Outcome:
    pipeline: str
    refused: str | None = None  # the diagnostic, if a pass refused the input


def available_passes() -> PassTable:
    """What ge-opt offers for these tests: our registry plus xDSL's canonicalize and cse."""
    upstream = xdsl_passes()
    return {**{name: upstream[name] for name in XDSL_PASSES}, **get_all_passes()}


def pipelines_under_test(passes: PassTable | None = None) -> list[str]:
    """Every pass alone on GE IR and on lowered IR, the default pipeline, and
    memory reuse with task parallelism in both orders once both are registered."""
    passes = passes if passes is not None else available_passes()
    singles = list(get_all_passes()) + [p for p in XDSL_PASSES if p in passes]
    pipelines = singles + [f"{LOWER},{p}" for p in singles if p != LOWER]
    pipelines += [DEFAULT_LEVEL, f"{DEFAULT_LEVEL},{LOWER}"]
    if "precision-mode" in passes:  # GE's reduced-precision modes, at their tolerance
        pipelines += [f"{DEFAULT_LEVEL},precision-mode{{mode={m}}},canonicalize,cse,dce,{LOWER},"
                      "task-parallel,memory-reuse" for m in REDUCED_MODES]
    if {"memory-reuse", "task-parallel"} <= passes.keys():
        verify = ",verify-plan" if "verify-plan" in passes else ""
        pipelines.append(f"{DEFAULT_LEVEL},{LOWER},memory-reuse,task-parallel{verify}")
        pipelines.append(f"{DEFAULT_LEVEL},{LOWER},task-parallel,memory-reuse{verify}")
    return pipelines


# --------------------------------------------------------------------------
# Stages


def print_generic(module: ModuleOp) -> str:
    out = StringIO()
    Printer(stream=out, print_generic_format=True).print_op(module)
    return out.getvalue()


def _first_difference(a: str, b: str) -> str:
    diff = difflib.unified_diff(a.splitlines(), b.splitlines(), lineterm="", n=0)
    return "\n".join(list(diff)[2:8])


def assert_round_trips(module: ModuleOp, where: str) -> None:
    """Printing then parsing gives the same module, from pretty and from generic text."""
    text = str(module)
    for form, printed in (("pretty", text), ("generic", print_generic(module))):
        try:
            parsed = Parser(make_context(), printed).parse_module()
        except ParseError as e:
            raise Mismatch(f"the IR {where} does not parse back ({form} form): {e}") from e
        if str(parsed) != text:
            raise Mismatch(f"printing and parsing the IR {where} ({form} form) changes it:\n"
                           f"{_first_difference(text, str(parsed))}")


def run_checked(module: ModuleOp, pipeline: str, passes: PassTable) -> None:
    """Apply `pipeline` in place; the IR and its device plan must verify after each
    pass, and the IR round-trip at the end."""
    def after_pass(previous: ModulePass | None, op: ModuleOp, _next) -> None:
        if previous is None:
            return
        try:
            verify(op)
        except DiagnosticException as e:
            raise Mismatch(f"the IR after pass '{previous.name}' does not verify: {e}") from e
        problems = check_module(op)
        if problems:
            raise Mismatch(f"the device plan after pass '{previous.name}' is broken: "
                           f"{summary(problems)}")

    PassPipeline.parse_spec(passes, pipeline, after_pass).apply(make_context(), module)
    assert_round_trips(module, f"after '{pipeline}'")


def tolerance(pipeline: str) -> float:
    tols = [REDUCED_TOL[m] for m in REDUCED_MODES if f"mode={m}}}" in pipeline]
    if "quantize-weights" in pipeline.split(","):
        tols.append(INT8_WEIGHT_TOL)
    return max(tols, default=RTOL)


def compare(got: Sequence[torch.Tensor], want: Sequence[torch.Tensor], stage: str,
            tol: float = RTOL) -> None:
    if len(got) != len(want):
        raise Mismatch(f"{stage}: {len(got)} outputs, expected {len(want)}")
    for i, (g, w) in enumerate(zip(got, want)):
        if g.shape != w.shape or g.dtype != w.dtype:
            raise Mismatch(f"{stage}: output {i} is {g.dtype}{list(g.shape)}, "
                           f"expected {w.dtype}{list(w.shape)}")
        finite = w[torch.isfinite(w)] if w.is_floating_point() else w
        scale = max(1.0, finite.abs().max().item()) if finite.numel() else 1.0
        if not torch.allclose(g, w, rtol=tol, atol=tol * scale, equal_nan=True):
            err = (g - w).abs().max().item()
            raise Mismatch(f"{stage}: output {i} differs by up to {err:.3g} "
                           f"(largest expected magnitude {scale:.3g})")


def stages(module: ModuleOp) -> list:
    """The module's pipeline stages (pipeline-partition), each a graph of its own."""
    from npu_graph.pipeline_parallel import split_stages

    return split_stages(module)


def is_lowered(module: ModuleOp) -> bool:
    return bool(stages(module)) or ascend.arena_size(find_func(module)) is not None


def run_lowered(module: ModuleOp, inputs: Sequence[torch.Tensor]) -> list[torch.Tensor]:
    """Run lowered IR: @main, or every pipeline stage in turn in one process."""
    parts = stages(module)
    if not parts:
        return Executable(module).run(*inputs)
    from npu_graph.pipeline_parallel import run_local

    return run_local(parts, inputs, micro_batches=1)


def _refusal(e: DiagnosticException) -> str:
    return " ".join(str(e).split())


def check_pipeline(module: ModuleOp, inputs: Sequence[torch.Tensor], pipeline: str,
                   expected: Sequence[torch.Tensor] | None = None,
                   passes: PassTable | None = None) -> Outcome:
    """Check `pipeline` on `module` (left unchanged) with `inputs`; see the module docstring."""
    passes = passes if passes is not None else available_passes()
    verify(module)
    reference = evaluate(module, *inputs)
    if expected is not None:
        compare(reference, expected, "GE reference evaluator vs PyTorch eager")
    work = module.clone()
    try:
        run_checked(work, pipeline, passes)
    except DiagnosticException as e:
        return Outcome(pipeline, refused=_refusal(e))
    tol = tolerance(pipeline)
    if not is_lowered(work):
        compare(evaluate(work, *inputs), reference, f"GE reference evaluator after '{pipeline}'",
                tol)
        try:
            run_checked(work, LOWER, passes)
        except DiagnosticException as e:
            return Outcome(pipeline, refused=_refusal(e))
        pipeline = f"{pipeline},{LOWER}"
    compare(run_lowered(work, inputs), reference, f"Ascend executor after '{pipeline}'", tol)
    return Outcome(pipeline)


# --------------------------------------------------------------------------
# Graph-level entry points for the tests


RUN_BATCH = 3  # dynamic graphs are drawn at batch 2 and run at another size


def check_graph(graph: Graph, pipeline: str, passes: PassTable | None = None) -> Outcome:
    """Build `graph` as GE IR, run it in PyTorch eager, and check `pipeline` on it."""
    inputs = example_inputs(graph, batch=RUN_BATCH if graph.dynamic else None)
    outcome = check_pipeline(to_module(graph), inputs, pipeline,
                             expected=eager(GraphModule(graph), inputs), passes=passes)
    expect_refusal_only_for_dynamic(graph.dynamic, outcome)
    return outcome


def expect_refusal_only_for_dynamic(dynamic: bool, outcome: Outcome) -> None:
    """Today's passes take every generated graph: dynamic shapes lower to
    ascend.dyn_buffer and run with per-shape plans, so no refusal is expected."""
    if not {p.name for p in parse_pipeline(outcome.pipeline)} <= MUST_ACCEPT:
        return
    if outcome.refused:
        kind = "dynamic" if dynamic else "static"
        raise Mismatch(f"'{outcome.pipeline}' refused a {kind} graph: {outcome.refused}")
