"""One road from a model to planned Ascend IR: every Python entry point runs
the stages the pipeline builder returns, so all of them give the same IR,
byte for byte, for static graphs and for graphs with a dynamic batch."""

import pytest
import torch
from torch.export import Dim

from npu_graph import GEGraph, GraphOptimizer
from npu_graph import compiler
from npu_graph.compiler import compile_model, import_model, lower, optimize, plan_device
from passes.pipelines import Pipeline, build_pipeline, session_pipeline
from test.helpers import assert_all_close, eager
from test.models import ZOO
from test.models.resnet import make_resnet50

DYNAMIC_BATCH = ({0: Dim("batch", min=1, max=64)},)


@pytest.fixture(scope="module")
def resnet50_static():
    """ResNet-50 imported once per module (a few seconds), as each road imports it."""
    model, (x,) = make_resnet50()
    return model, (x,), None, import_model(model, (x,))


@pytest.fixture(scope="module")
def resnet50_dynamic(resnet50_static):
    model, (x,), *_ = resnet50_static
    inputs = (torch.cat([x, x]),)  # batch 2: torch.export specializes a dim of size 1
    return model, inputs, DYNAMIC_BATCH, import_model(model, inputs, DYNAMIC_BATCH)


@pytest.fixture(params=["static", "dynamic"])
def resnet50(request):
    return request.getfixturevalue(f"resnet50_{request.param}")


def by_compile_model(resnet50, monkeypatch, **keywords) -> str:
    """The IR compile_model hands to the runtime (its import is the fixture's)."""
    model, inputs, dynamic, imported = resnet50
    monkeypatch.setattr(compiler, "import_model", lambda *args: imported.clone())
    monkeypatch.setattr(compiler, "Executable", lambda module: module)
    return str(compile_model(model, inputs, dynamic_shapes=dynamic, **keywords))


def test_compile_model_and_graph_optimizer_give_the_same_planned_ir(resnet50, monkeypatch):
    *_, dynamic, imported = resnet50
    api = GraphOptimizer().optimize(GEGraph(imported.clone(), "ResNet"))
    planned = by_compile_model(resnet50, monkeypatch)
    assert "ascend.arena_size" in planned and "memory_lower_bound" in planned
    assert ("ascend.dyn_buffer" in planned) == (dynamic is not None)
    assert planned == str(api.module)
    # ... and the stage functions, one after another, take the same road.
    assert str(plan_device(lower(optimize(imported.clone())))) == planned


def test_session_options_are_the_builders(resnet50_static, monkeypatch):
    """compile_model's options reach the device stage through the builder, memory
    reuse included; the article's flags say the same in their words."""
    resnet50 = resnet50_static
    *_, imported = resnet50
    options = {"ge.enableSingleStream": "true", "ge.exec.disableReuseMemory": "1"}
    assert session_pipeline(options).device == "task-parallel{max-streams=1}"
    planned = by_compile_model(resnet50, monkeypatch, options=options)
    assert "memory_lower_bound" not in planned  # memory-reuse did not run
    api = GraphOptimizer().optimize(GEGraph(imported.clone(), "ResNet"),
                                    enable_memory_reuse=False, max_streams=1)
    assert planned == str(api.module)


def test_dynamic_graphs_compiled_by_compile_model_run_at_any_batch():
    """Planned as static graphs are (streams, static buffers); the `?`-shaped
    buffers are placed per input shape when they run."""
    model, inputs = ZOO["dynamic_batch"]()
    executable = compile_model(model, inputs)
    for batch in (1, 3):
        x = torch.randn(batch, *inputs[0].shape[1:])
        assert_all_close(executable.run(x), eager(model, x))


def test_the_builder_returns_the_stages():
    pipeline = session_pipeline({"ge.streamMaxParallelNum": 2}, ge="ge-O2")
    assert pipeline == Pipeline("ge-O2", "lower-to-ascend", "task-parallel{max-streams=2},memory-reuse")
    assert pipeline.spec() == "ge-O2,lower-to-ascend,task-parallel{max-streams=2},memory-reuse"
    assert [name for name, _ in build_pipeline().stages()] == ["ge", "lowering", "device"]
    assert session_pipeline(precision_mode="allow_fp32_to_fp16").ge == \
        session_pipeline({"ge.exec.precision_mode": "allow_fp32_to_fp16"}).ge == \
        "ge-O3,precision-mode{mode=allow_fp32_to_fp16},canonicalize,cse,dce,hardware-mapping"
    # Mapped for another chip: mapped again for that chip after the precision mode.
    assert session_pipeline(ge="ge-O2,hardware-mapping{hardware=ascend910b}",
                            precision_mode="force_fp32").ge.endswith(
        "hardware-mapping{hardware=ascend910b}")
    assert "hardware-mapping" not in session_pipeline(ge="ge-O1", precision_mode="force_fp32").ge


@pytest.mark.parametrize("options, message", [
    ({"ge.noSuchOption": 1}, r"unknown option\(s\) ge.noSuchOption; known: ge.streamMaxParallelNum"),
    ({"ge.exec.disableReuseMemory": "1", "memory_limit_mb": 8}, "disableReuseMemory turns off"),
    ({"ge.exec.precision_mode": "force_fp32"}, "disagree"),
])
def test_bad_session_options_are_clear_errors(options, message):
    with pytest.raises(ValueError, match=message):
        session_pipeline(options, precision_mode="allow_fp32_to_fp16"
                         if "ge.exec.precision_mode" in options else None)
