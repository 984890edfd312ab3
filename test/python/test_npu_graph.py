"""The article's Python API: GraphParser, NpuGraph, GraphOptimizer, GraphExecutor."""

import re

import pytest
import torch

from npu_graph import (
    CompileError,
    GEGraph,
    GraphExecutor,
    GraphOptimizer,
    GraphParser,
    NpuGraph,
    OptimizedGraph,
)
from passes.pipelines import Pipeline, build_pipeline
from runtime.program import InputError
from test.models import article, branchy


@pytest.fixture(scope="module")
def article_model():
    model, (x,) = article.make()
    return model, x


@pytest.fixture(scope="module")
def article_graph(article_model):
    model, x = article_model
    return GraphParser().parse_pytorch_model(model, input_spec=(x,))


def eager(model, *inputs):
    with torch.no_grad():
        return model(*inputs)


def test_parse_prints_the_article_node_list(article_graph, capsys):
    article_graph.print()
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        "Node0: Conv2D (input: input, conv_weight, conv_bias, output: conv2d)",
        "Node1: BatchNorm (input: conv2d, bn_weight, bn_bias, bn_running_mean, "
        "bn_running_var, output: batch_norm)",
        "Node2: Relu (input: batch_norm, output: relu)",
    ]
    text = str(article_graph)
    assert "func.func @main(%input: tensor<1x3x224x224xf32>)" in text
    assert "ge.batch_norm" in text and "dense_resource<__elided__>" in text
    assert "dense_resource" not in article_graph.to_mlir(elide=False)


def test_input_spec_accepts_shapes_and_rejects_junk(article_model):
    model, _ = article_model
    graph = GraphParser().parse_pytorch_model(model, input_spec=((1, 3, 16, 16),))
    assert "tensor<1x3x16x16xf32>" in str(graph)
    with pytest.raises(TypeError, match=r"input_spec\[0\] must be a tensor or a shape"):
        GraphParser().parse_pytorch_model(model, input_spec=("image",))


def test_npu_graph_optimize_is_callable_and_matches_eager(article_model):
    model, x = article_model
    graph = NpuGraph(model, input_spec=(x,))
    assert isinstance(graph, GEGraph)
    optimized = graph.optimize(enable_op_fusion=True, enable_memory_reuse=True,
                               enable_task_parallel=True)
    assert isinstance(optimized, OptimizedGraph)
    out = optimized(x)
    assert isinstance(out, torch.Tensor)
    torch.testing.assert_close(out, eager(model, x), rtol=1e-4, atol=1e-4)
    assert optimized.nodes() == [
        "Node0: conv2d_relu_0 [cube, stream 0] (input: input, conv_weight_folded, "
        "conv_bias_folded, output: relu)"]
    assert "ascend.task" in str(optimized)


def test_flags_switch_passes_off_one_by_one():
    def spec(**keywords):
        return build_pipeline(**keywords).spec()

    on = build_pipeline()
    assert on.ge == ("fold-quantized,canonicalize,constant-fold,fold-batch-norm,cse,"
                     "merge-parallel-linears,op-fusion,dce,hardware-mapping")
    assert (on.lowering, on.device) == ("lower-to-ascend", "task-parallel{max-streams=4},memory-reuse")
    assert on.spec() == f"{on.ge},lower-to-ascend,task-parallel{{max-streams=4}},memory-reuse"
    assert "op-fusion" not in spec(enable_op_fusion=False)
    assert "memory-reuse" not in spec(enable_memory_reuse=False)
    assert "task-parallel" not in spec(enable_task_parallel=False)
    assert "constant-fold" not in spec(enable_constant_folding=False)
    assert ",dce," not in spec(enable_dead_code_elimination=False)
    planned = build_pipeline(enable_memory_planning=True, memory_limit_mb=64)
    assert build_pipeline(enable_memory_planning=True).device == \
        "memory-reuse{reorder=true},task-parallel{max-streams=4}"
    assert planned.device == "memory-reuse{memory-limit-mb=64},task-parallel{max-streams=4}"
    assert "hardware-mapping" not in spec(enable_hardware_mapping=False)
    assert build_pipeline(["ge-O3", "MemoryReusePass"], enable_op_fusion=False) == \
        Pipeline("ge-O3{disable=op-fusion}", "lower-to-ascend", "memory-reuse")
    assert build_pipeline([]).spec() == "lower-to-ascend"
    assert build_pipeline(precision_mode="allow_fp32_to_fp16").ge.endswith(
        "dce,precision-mode{mode=allow_fp32_to_fp16},canonicalize,cse,dce,hardware-mapping")


def test_precision_mode_runs_cube_ops_in_fp16(article_model, article_graph):
    model, x = article_model
    expected = eager(model, x)
    fp32 = article_graph.optimize(precision_mode="force_fp32")(x)
    torch.testing.assert_close(fp32, expected, rtol=1e-4, atol=1e-4)
    half = article_graph.optimize(precision_mode="allow_fp32_to_fp16")
    assert "f16" in str(half)
    # docs/precision-mode.md: about 2e-3 of the output's scale.
    scale = expected.abs().max().item()
    error = (half(x) - expected).abs().max().item()
    assert 1e-5 * scale < error < 2e-3 * scale
    with pytest.raises(ValueError, match="force_fp32"):
        article_graph.optimize(precision_mode="fp8")


@pytest.mark.parametrize("keywords, message", [
    ({"enable_fusion": True}, r"unknown optimize\(\) keyword\(s\) enable_fusion; known: "),
    ({"enable_memory_planning": True, "enable_memory_reuse": False}, "mode of the memory-reuse"),
    ({"memory_limit_mb": 0}, "memory_limit_mb must be > 0"),
    ({"memory_limit_mb": 10, "enable_memory_reuse": False}, "mode of the memory-reuse pass"),
])
def test_bad_flags_are_clear_errors(keywords, message):
    with pytest.raises(ValueError, match=message):
        build_pipeline(**keywords)


def test_optimizer_takes_article_and_our_pass_names(article_model, article_graph):
    model, x = article_model
    optimized = GraphOptimizer().optimize(article_graph, passes=[
        "ConstantFoldingPass", "fold-batch-norm", "OpFusionPass", "DeadCodeEliminationPass",
        "MemoryReusePass",  # no TaskParallelPass: one stream
    ])
    assert optimized.pipeline == ("constant-fold,fold-batch-norm,op-fusion,dce,lower-to-ascend,"
                                  "memory-reuse")
    torch.testing.assert_close(optimized(x), eager(model, x), rtol=1e-4, atol=1e-4)
    assert optimized.stats["num_streams"] == 1
    assert GraphOptimizer().optimize(article_graph, passes=["OpFusionPass"],
                                     enable_op_fusion=False).pipeline == "lower-to-ascend"
    with pytest.raises(ValueError, match="unknown pass name.*'FusePass'.*known: "):
        GraphOptimizer().optimize(article_graph, passes=["FusePass"])
    # The parsed graph is untouched by optimizing it.
    assert "ge.batch_norm" in str(article_graph)


def test_memory_budget_too_small_is_a_compile_error(article_graph):
    with pytest.raises(CompileError, match=r"does not fit the memory budget of 8\.00 MiB.*"
                                           r"Live at the peak, largest first: %relu"):
        article_graph.optimize(enable_memory_planning=True, memory_limit_mb=8)


def test_executor_inputs_positional_keyword_dict_and_errors(article_model, article_graph):
    model, x = article_model
    executor = GraphExecutor()
    with pytest.raises(RuntimeError, match="no graph loaded"):
        executor.run(x)
    executor.load_graph(article_graph.optimize())
    expected = eager(model, x)
    for out in (executor.run(x), executor.run(input_data=x), executor.run(input_data=[x]),
                executor.run(input_data={"input": x})):
        torch.testing.assert_close(out, expected, rtol=1e-4, atol=1e-4)
    with pytest.raises(InputError, match=r"keys must be the graph's inputs \(input\); "
                                         r"unknown: image, missing: input"):
        executor.run(input_data={"image": x})
    with pytest.raises(InputError, match=r"1x3x224x224"):
        executor.run(torch.randn(1, 3, 32, 32))
    with pytest.raises(InputError, match=r"f32|float32"):
        executor.run(x.double())
    with pytest.raises(InputError, match="not both"):
        executor.run(x, input_data=x)


def test_executor_stats_and_two_inputs():
    model, (x, x_t) = branchy.make_split_heads()
    executor = GraphExecutor().load_graph(NpuGraph(model, input_spec=(x, x_t)).optimize())
    assert executor.graph.input_names == ["x", "x_t"]
    expected = eager(model, x, x_t)
    torch.testing.assert_close(executor.run(x, x_t), expected, rtol=1e-4, atol=1e-4)
    by_name = executor.run(input_data={"x_t": x_t, "x": x})
    torch.testing.assert_close(by_name, expected, rtol=1e-4, atol=1e-4)
    stats = executor.get_stats()
    assert stats["execution_time"] > 0 and stats["memory_usage"] > 0
    assert stats["memory_usage"] <= stats["memory_naive"]
    assert stats["num_tasks"] == len(stats["tasks"]) > 1


def test_unoptimized_graph_runs_as_lowered(article_model, article_graph):
    model, x = article_model
    executor = GraphExecutor().load_graph(article_graph)
    assert executor.graph.pipeline == "lower-to-ascend"
    torch.testing.assert_close(executor.run(x), eager(model, x), rtol=1e-4, atol=1e-4)
    assert re.search(r"batch_norm", str(executor.graph))


class Towers(torch.nn.Module):
    """Two towers whose wide middles need not be live at once."""

    def __init__(self):
        super().__init__()
        self.a1, self.b1 = torch.nn.Conv2d(1, 16, 1), torch.nn.Conv2d(1, 16, 1)
        self.a2, self.b2 = torch.nn.Conv2d(16, 1, 1), torch.nn.Conv2d(16, 1, 1)

    def forward(self, x):
        a, b = self.a1(x), self.b1(x)
        return self.a2(a) + self.b2(b)


def test_memory_planning_without_a_budget_plans_the_smallest_peak():
    """The article's pitfall 3 as written: enable_memory_planning=True, no budget."""
    torch.manual_seed(0)
    model, x = Towers().eval(), torch.randn(1, 1, 32, 32)
    graph = NpuGraph(model, input_spec=(x,))
    planned = GraphOptimizer().optimize(graph, enable_memory_reuse=True,
                                        enable_memory_planning=True)
    assert "memory-reuse{reorder=true}" in planned.pipeline
    torch.testing.assert_close(planned(x), eager(model, x), rtol=1e-4, atol=1e-4)
    stats, plain = planned.stats, graph.optimize()
    plain(x)
    assert stats["memory_program_order"] == plain.stats["memory_usage"]
    assert stats["memory_usage"] < 0.6 * stats["memory_program_order"]
    assert plain.stats["memory_program_order"] is None
