"""Differential fuzzing: every pipeline keeps the numbers of random graphs.

Graphs come from test/fuzz/graphs.py (GE IR built directly, and PyTorch
modules imported with torch.export); `check_graph`/`check_pipeline` in
test/fuzz/check.py hold the property. The pipeline list is data read from
the pass registry. CI runs the "ci" hypothesis profile; docs/testing.md has
the command for the long one. Failures found here become cases in
test_fuzz_regressions.py.
"""

import hashlib
import os
import tempfile
from io import StringIO
from pathlib import Path

import pytest
from hypothesis import event, given, reject, settings
from hypothesis import strategies as st
from torch.export import Dim
from xdsl.printer import Printer

from lowering.torch_to_ge import UnsupportedOpError, import_module
from test.fuzz.check import (
    LOWER,
    RUN_BATCH,
    available_passes,
    check_graph,
    check_pipeline,
    expect_refusal_only_for_dynamic,
    pipelines_under_test,
)
from test.fuzz import STATS, profiles
from test.fuzz.graphs import GraphModule, eager, example_inputs, graphs, to_module

PIPELINES = pipelines_under_test()
GE_PASSES = sorted(name for name in available_passes() if name != LOWER)

# (op, part of the reason): ATen ops that valid menu graphs decompose into and
# that the importer does not map yet (GE has no reduction or broadcast op).
# The property skips such graphs; test_bad_inputs.py checks their message.
KNOWN_IMPORTER_GAPS = (
    ("aten.sum.dim_IntList", "no GE mapping"),  # matmul with a 1-D operand
    ("aten.expand.default", "no GE mapping"),   # matmul broadcasting batch dims
    ("aten.mean.dim", "of a rank-3 tensor"),    # adaptive_avg_pool2d to 1x1 on C,H,W
)


def known_gap(op) -> bool:
    return any(op.op == name and why in op.reason for name, why in KNOWN_IMPORTER_GAPS)


def note_refusal(outcome) -> None:
    if outcome.refused:
        event(f"refused: {outcome.refused.split(':')[0]}")


def reproducer(graph, pipeline: str) -> Path:
    """The failing graph as a .mlir file whose RUN line has its pipeline."""
    ir = StringIO()
    Printer(stream=ir).print_op(to_module(graph))
    text = f"// RUN: ge-opt %s -p '{pipeline}'\n// {graph!r}\n{ir.getvalue()}\n"
    folder = Path(os.environ.get("GE_FUZZ_FAILURES", tempfile.gettempdir())) / "ge-fuzz"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{hashlib.sha256(text.encode()).hexdigest()[:12]}.mlir"
    path.write_text(text)
    return path


def checked(graph, pipeline: str):
    """check_graph, counted for the run's summary line; a mismatch leaves a reproducer."""
    try:
        outcome = check_graph(graph, pipeline)
    except Exception as e:
        STATS["mismatches"] += 1
        raise type(e)(f"{e}\nreproducer: {reproducer(graph, pipeline)}") from e
    STATS["checked"] += 1
    note_refusal(outcome)


@pytest.mark.parametrize("pipeline", PIPELINES, ids=lambda p: p.replace("{", "(").replace("}", ")"))
@settings(max_examples=profiles.examples_per_pipeline(len(PIPELINES)))
@given(graph=graphs())
def test_pipeline_keeps_the_numbers(pipeline, graph):
    checked(graph, pipeline)


@given(graph=graphs(), sequence=st.lists(st.sampled_from(GE_PASSES), min_size=2, max_size=5))
def test_random_pass_sequences_keep_the_numbers(graph, sequence):
    checked(graph, ",".join(sequence))


# torch.export costs about half a second per graph: half the examples.
@settings(max_examples=max(4, settings().max_examples // 2))
@given(graph=graphs(), pipeline=st.sampled_from(PIPELINES))
def test_imported_torch_modules_keep_the_numbers(graph, pipeline):
    model = GraphModule(graph)
    dynamic_shapes = None
    if graph.dynamic:
        batch = Dim("batch")
        # keyed by forward's parameter name: GraphModule.forward(*inputs)
        dynamic_shapes = {"inputs": tuple({0: batch} if v.batch else None
                                          for v in graph.inputs)}
    try:
        module = import_module(model, example_inputs(graph), dynamic_shapes=dynamic_shapes)
    except UnsupportedOpError as e:
        if all(known_gap(op) for op in e.ops):
            reject()
        raise
    inputs = example_inputs(graph, batch=RUN_BATCH if graph.dynamic else None)
    outcome = check_pipeline(module, inputs, pipeline, expected=eager(model, inputs))
    expect_refusal_only_for_dynamic(graph.dynamic, outcome)
    note_refusal(outcome)


def test_pipelines_under_test_follow_the_registry():
    """Every registered pass is tested alone, on GE IR and on lowered IR."""
    for name in available_passes():
        assert name in PIPELINES
        assert name == LOWER or f"{LOWER},{name}" in PIPELINES
